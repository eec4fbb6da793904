import ArgumentParser
import Foundation
import MessageFilter

/// `smsfilter explain [--rules R] [--sender S] [--json] TEXT`, or `explain --input FILE [--id ID]…` for the
/// records of a file.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show why a message lands in its folder: phrases matched, rules weighed, validation steps.",
        discussion: """
            With --input, explains the records of a file instead (any format classify reads; - is standard \
            input): every record, or those whose id --id gives, each as a block headed by its id and line \
            (with --json: one JSON object per line, with "file", "line" and "id"). Records the reader \
            refuses (broken JSON, no body) are listed with the reason.

            Examples:
              smsfilter explain --sender AD-HDFCBK "Rs 500 debited from a/c XX12"
              smsfilter explain --input archive.jsonl.zst --id gen:17 --json

            \(ExitStatus.helpSection(
            [.success, .usage, .badInput, .inputMissing], saying: [
                .badInput: "bad rules, damaged input or an --id not found", .inputMissing: "rule file or input missing",
            ]))
            """
    )

    @OptionGroup var ruleOptions: RuleOptions

    @Option(name: .long, help: "The message's sender (phone number, short code, alphanumeric or TRAI header).")
    var sender: String?

    @Option(name: .long, help: ArgumentHelp("Explain the records of this file (- is standard input) instead of TEXT.", valueName: "file"))
    var input: String?

    @Option(name: .long, help: "With --input: only the records with this id (repeatable).")
    var id: [String] = []

    @OptionGroup var format: RecordFormatOptions

    // Not ``JSONOption`` and ``QuietOption``: explain's JSON and its quiet line are the explanation itself,
    // in another form, not a report beside an output.
    @Flag(name: .long, help: "Print the explanation as JSON (the filter keys at top level, with matches and steps).")
    var json = false

    @Flag(name: [.short, .long], help: "Print only the folder.")
    var quiet = false

    @Argument(help: "The message body.")
    var text: String?

    func validate() throws {
        if input == nil && text == nil { throw ValidationError("Please give the message text, or --input FILE to explain a file's records.") }
        if input != nil && text != nil { throw ValidationError("Please give either the message text or --input FILE, not both.") }
        if input != nil && sender != nil { throw ValidationError("Please drop --sender: with --input each record's sender is read from it (--sender-field).") }
        if input == nil && !id.isEmpty { throw ValidationError("Please give --input FILE with --id.") }
        if text == "-" { throw ValidationError("Please give --input - to explain the records on standard input (\"-\" is not read as a message).") }
        try Limits.check(size: format.maxRecord, Limits.maxRecord, "--max-record")
    }

    func run() throws {
        guard let input else {
            do {
                let set = try RuleSet.load(option: ruleOptions.rules)
                let e = Classifier(ruleSet: set).explain(sender: sender, body: text ?? "")
                if json {
                    Console.printSummaryJSON(JSONText.pretty(Self.jsonObject(e, set)), plan: nil)
                } else if quiet {
                    Console.stdout(e.verdict.folder.path + "\n")
                } else {
                    Console.stdout(Self.text(e, set))
                }
            }
            return
        }
        try explainRecords(input)
    }

    static func text(_ e: Explanation, _ set: RuleSet) -> String {
        var out = "rules: \(set.source) (checksum \(set.checksum))\n"
        out += list("matches", e.matches) { m in
            var line = "\(m.start)..<\(m.end) \"\(m.text)\""
            if m.isCondition { line += " (condition \(m.phrase))" } else if m.text != m.phrase { line += " (phrase \"\(m.phrase)\")" }
            return line + " → \(m.uses.joined(separator: ", "))"
        }
        out += list("rules considered", e.rules) { r in
            var line = "\(r.name) (priority \(r.priority), \(r.action.name)"
            if r.subAction != .none { line += "/\(r.subAction.name)" }
            line += ")"
            if let p = r.phrase, let s = r.start, let end = r.end { line += " \"\(p)\" at \(s)..<\(end)" }
            return line + ": \(r.outcome)"
        }
        out += modelText(e)
        out += "steps:\n"
        for (i, s) in e.steps.enumerated() { out += "  \(i + 1). \(s)\n" }
        out += "folder: \(e.verdict.folder.path)\n"
        return out
    }

    /// `title: none`, or `title:` and one indented line per item.
    static func list<Item>(_ title: String, _ items: [Item], _ line: (Item) -> String) -> String {
        if items.isEmpty { return "\(title): none\n" }
        return "\(title):\n" + items.map { "  \(line($0))\n" }.joined()
    }

    static func jsonObject(_ e: Explanation, _ set: RuleSet) -> [String: Any] {
        let v = e.verdict
        var o: [String: Any] = [
            "action": v.action.name,
            "subAction": v.subAction == .none ? NSNull() : v.subAction.name as Any,
            "folder": v.folder.path,
            "rule": e.ruleName.map { $0 as Any } ?? NSNull(),
            "matches": e.matches.map { m -> [String: Any] in
                ["phrase": m.phrase, "text": m.text, "start": m.start, "end": m.end, "uses": m.uses, "condition": m.isCondition]
            },
            "rules": e.rules.map { r -> [String: Any] in
                var d: [String: Any] = ["name": r.name, "priority": r.priority, "action": r.action.name,
                                        "outcome": r.outcome.code, "reason": r.outcome.description]
                if r.subAction != .none { d["subAction"] = r.subAction.name }
                if let p = r.phrase, let s = r.start, let end = r.end {
                    d["phrase"] = p
                    d["span"] = [s, end]
                }
                return d
            },
            "steps": e.steps,
            "ruleSet": set.checksum,
        ]
        if let dropped = v.dropped {
            o["dropped"] = dropped.rawValue
            o["requestedSubAction"] = v.requestedSubAction.name
        }
        if let phrase = e.phrase {
            o["phrase"] = phrase
            o["span"] = [Int(v.matchStart), Int(v.matchEnd)]
        }
        if let label = e.label { o["label"] = label }
        if let list = v.list { o["list"] = list.rawValue }
        if let s = e.sender { o["senderKind"] = s.kind.rawValue }
        if let m = modelJSON(e) { o["model"] = m }
        return o
    }
}
