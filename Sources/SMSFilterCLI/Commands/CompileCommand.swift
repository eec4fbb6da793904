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

            \(ExitStatus.helpSection(
            [.success, .usage, .badInput, .inputMissing, .cannotCreate], saying: [
                .badInput: "bad rules", .inputMissing: "rule file missing", .cannotCreate: "the output could not be written",
            ]))
            """
    )

    @Argument(help: "The rule file (YAML, or a .smsf to rewrite; embedded:rules: the built-in one).")
    var input: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The compiled rule set to write.", valueName: "file"))
    var output: String

    @OptionGroup var forceOption: ForceOption

    @OptionGroup var quietOption: QuietOption

    @OptionGroup var jsonOption: JSONOption

    func run() throws {
        var plan = IOPlan(force: forceOption.force)
        plan.readRules(input, as: "the rule file")
        plan.write(output, as: "-o")
        try plan.check()
        do {
            let start = Date()
            let set = try RuleSet.load(option: input)
            let bytes = set.serialize()
            try SmallOutput.writeAll([(output, bytes)], existing: plan.existingPolicy)
            guard !quietOption.quiet || jsonOption.json else { return }
            let ms = Int(Date().timeIntervalSince(start) * 1000)
            if jsonOption.json {
                Console.printSummaryJSON(JSONText.pretty([
                    "rules": set.definition.rules.count, "model": set.definition.model?.name ?? NSNull(), "phrases": set.phraseCount, "output": output, "bytes": bytes.count,
                    "checksum": set.checksum, "milliseconds": ms,
                ]), plan: plan)
            } else {
                Console.stderr(
                    "compiled \(ExportExtensionCommand.contents(set)), \(set.phraseCount) phrase\(set.phraseCount == 1 ? "" : "s") → \(output) "
                        + "(\(bytes.count) bytes, checksum \(set.checksum), \(ms) ms)\n")
            }
        }
    }
}
