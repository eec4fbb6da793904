import ArgumentParser
import Foundation
import MessageFilter

/// `smsfilter compile RULES.yaml -o RULES.smsf`
struct CompileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Compile a rule file into a compiled rule set (.smsf) that loads by mapping the file.",
        discussion: """
            Example:
              smsfilter compile rules.yaml -o rules.smsf

            Exit status: 0 success, 64 usage, 65 bad rules, 66 rule file missing, 73 the output could not \
            be written.
            """
    )

    @Argument(help: "The rule file (YAML, or a .smsf to rewrite; embedded:rules: the built-in one).")
    var input: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The compiled rule set to write.", valueName: "file"))
    var output: String

    @Flag(name: [.short, .long], help: "Replace an existing output file (devices and FIFOs need no --force).")
    var force = false

    @Flag(name: [.short, .long], help: "Print nothing on success.")
    var quiet = false

    @Flag(name: .long, help: "Print the summary as JSON on standard output (standard error when -o goes there) instead of a sentence.")
    var json = false

    func run() throws {
        var plan = IOPlan(force: force)
        plan.readRules(input, as: "the rule file")
        plan.write(output, as: "-o")
        try plan.check()
        try RuleCLI.run {
            let start = Date()
            let set = try CLI.loadRules(input)
            let bytes = set.serialize()
            try RuleCLI.write([(output, bytes)], existing: plan.existingPolicy)
            guard !quiet || json else { return }
            let ms = Int(Date().timeIntervalSince(start) * 1000)
            if json {
                CLI.printSummaryJSON(RuleCLI.json([
                    "rules": set.definition.rules.count, "model": set.definition.model?.name ?? NSNull(), "phrases": set.phraseCount, "output": output, "bytes": bytes.count,
                    "checksum": set.checksum, "milliseconds": ms,
                ]), plan: plan)
            } else {
                CLI.stderr(
                    "compiled \(ExportExtensionCommand.contents(set)), \(set.phraseCount) phrase\(set.phraseCount == 1 ? "" : "s") → \(output) "
                        + "(\(bytes.count) bytes, checksum \(set.checksum), \(ms) ms)\n")
            }
        }
    }
}
