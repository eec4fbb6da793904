import ArgumentParser
import Foundation
import MessageFilter

/// `smsfilter explain [--rules R] [--sender S] [--json] TEXT`
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show why a message lands in its folder: phrases matched, rules weighed, validation steps.",
        discussion: """
            Example:
              smsfilter explain --sender AD-HDFCBK "Rs 500 debited from a/c XX12"

            Exit status: 0 success, 64 usage, 65 bad rules, 66 rule file missing.
            """
    )

    @OptionGroup var ruleOptions: RuleOptions

    @Option(name: .long, help: "The message's sender (phone number, short code, alphanumeric or TRAI header).")
    var sender: String?

    @Flag(name: .long, help: "Print the explanation as JSON (the filter keys at top level, with matches and steps).")
    var json = false

    @Flag(name: [.short, .long], help: "Print only the folder.")
    var quiet = false

    @Argument(help: "The message body.")
    var text: String

    func run() throws {
        try RuleCLI.run {
            let set = try CLI.loadRules(ruleOptions.rules)
            let e = Classifier(ruleSet: set).explain(sender: sender, body: text)
            if json {
                CLI.printSummaryJSON(Self.jsonText(e, set), plan: nil)
            } else if quiet {
                CLI.stdout(e.verdict.folder.path + "\n")
            } else {
                CLI.stdout(Self.text(e, set))
            }
        }
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

    static func jsonText(_ e: Explanation, _ set: RuleSet) -> String {
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
        return RuleCLI.json(o)
    }
}
