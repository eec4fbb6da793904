import ArgumentParser
import Foundation
import MessageFilter

/// `smsfilter compile RULES.yaml -o RULES.smsf`
struct CompileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Compile a rule file into a compiled rule set (.smsf) that loads by mapping the file."
    )

    @Argument(help: "The rule file (YAML, or a .smsf to rewrite).")
    var input: String

    @Option(name: .shortAndLong, help: "The compiled rule set to write.")
    var output: String

    @Flag(name: .long, help: "Print nothing on success.")
    var quiet = false

    func validate() throws {
        if input == output { throw ValidationError("Please give an output path different from the input.") }
    }

    func run() throws {
        try RuleCLI.run {
            let start = Date()
            let set = try RuleCLI.load(input)
            let bytes = set.serialize()
            try RuleCLI.writeAtomically(bytes, to: output)
            if !quiet {
                let ms = Int(Date().timeIntervalSince(start) * 1000)
                FileHandle.standardError.write(Data((
                    "compiled \(set.definition.rules.count) rules\(set.definition.model.map { " and model \"\($0.name)\"" } ?? ""), \(set.phraseCount) phrases → \(output) "
                    + "(\(bytes.count) bytes, checksum \(set.checksum), \(ms) ms)\n").utf8))
            }
        }
    }
}
