import ArgumentParser
import BatchPipeline
import Foundation
import MessageFilter

/// `explain --input FILE [--id ID]…`: the records of a file, each explained as a single message is.
extension ExplainCommand {
    func explainRecords(_ path: String) throws {
        var io = IOPlan(force: false)
        io.read(path, as: "the input (--input)")
        io.readRules(ruleOptions.rules)
        try io.check()
        if path == "-" && Console.stdinIsTerminal {
            throw CommandFailure("--input - reads records from standard input: pipe them in", .usage)
        }
        let set = try RuleSet.load(option: ruleOptions.rules)
        let classifier = Classifier(ruleSet: set)
        var options = PipelineOptions()
        format.apply(to: &options)
        let wanted = Set(id)
        var found: Set<String> = []
        var shown = 0
        do {
            try RecordStream.read([path], format: options.input) { item throws(PipelineError) in
                switch item {
                case .record(let record):
                    guard wanted.isEmpty || record.id.map(wanted.contains) == true else { return }
                    if let id = record.id { found.insert(id) }
                    show(record, classifier.explain(sender: record.sender, body: record.body), set, first: shown == 0)
                    shown += 1
                case .refused(let refused):
                    // A refused record has no id to match: it is shown only when every record is.
                    guard wanted.isEmpty else { return }
                    show(refused, first: shown == 0)
                    shown += 1
                }
            }
        } catch {
            throw CommandFailure(error.description, ExitStatus(error))
        }
        let missing = id.filter { !found.contains($0) }
        if !missing.isEmpty {
            let list = missing.map { "\"\($0)\"" }.joined(separator: ", ")
            throw CommandFailure("\(EchoedText.escaped(path)): no record with the id \(EchoedText.escaped(list)) (--id)", .badInput)
        }
    }

    /// One record: a block headed by its id and line, one JSON line, or (`-q`) its id and folder.
    private func show(_ record: RecordStream.Record, _ e: Explanation, _ set: RuleSet, first: Bool) {
        let name = record.id.map { "\"\($0)\"" } ?? "without an id"
        if json {
            var object = Self.jsonObject(e, set)
            object["file"] = record.file
            object["line"] = record.line
            object["id"] = record.id.map { $0 as Any } ?? NSNull()
            Console.printSummaryJSON(Self.line(object), plan: nil)
        } else if quiet {
            Console.stdout("\(record.id ?? "line \(record.line)")\t\(e.verdict.folder.path)\n")
        } else {
            var head = first ? "" : "\n"
            head += "record \(name), \(record.file) line \(record.line)\n"
            if let sender = record.sender { head += "sender: \(sender)\n" }
            head += "body: \(Self.quoted(record.body))\n"
            Console.stdout(head + Self.text(e, set))
        }
    }

    /// A record the reader refused: why, where.
    private func show(_ refused: RecordStream.Refused, first: Bool) {
        if json {
            Console.printSummaryJSON(Self.line(["file": refused.file, "line": refused.line, "refused": refused.reason]), plan: nil)
        } else if quiet {
            Console.stdout("line \(refused.line)\trefused: \(refused.reason)\n")
        } else {
            Console.stdout((first ? "" : "\n") + "record at \(refused.file) line \(refused.line): refused by the reader: \(refused.reason)\n")
        }
    }

    /// `object` as one line of JSON.
    static func line(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The body in quotes as a JSON string writes it (`\"`, `\\`, `\n`), its first 500 characters.
    static func quoted(_ body: String) -> String {
        let short = body.count > 500 ? String(body.prefix(500)) + "…" : body
        let escaped = short.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
        return "\"" + escaped + "\""
    }
}
