import ArgumentParser
import Foundation
import MessageFilter

/// `smsfilter show-rules [embedded] [-o FILE]`: the built-in rule file, to start one's own from it.
struct ShowRulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show-rules",
        abstract: "Print the built-in rule file (YAML), to start a rule file of your own from it.",
        discussion: """
            Prints the rule file built into smsfilter byte for byte (samples/default-rules.yaml in the \
            source): the rules --rules embedded:rules classifies with, and that the default joins to the \
            embedded model. Edit a copy and give it to --rules, check, compile or export-extension (an iOS \
            extension needs capabilities: with at most five sub-actions; smsfilter check --target ios says \
            what to change).

            Examples:
              smsfilter show-rules > my-rules.yaml
              smsfilter show-rules embedded -o my-rules.yaml --force
              smsfilter check my-rules.yaml

            \(ExitStatus.helpSection(
            [.success, .usage, .cannotCreate], saying: [.cannotCreate: "the output could not be written"]))
            """
    )

    /// The names of the built-in rule file.
    static let names = ["embedded", RuleSet.embeddedRulesOnlyPath]

    @Argument(help: "Which rule file: embedded (also embedded:rules), the built-in one.")
    var name = "embedded"

    @Option(name: .shortAndLong, help: ArgumentHelp("Write it to this file instead of standard output (- is standard output).", valueName: "file"))
    var output: String?

    @OptionGroup var forceOption: ForceOption

    func validate() throws {
        guard Self.names.contains(name) else {
            throw ValidationError("Please name a built-in rule file: embedded (or embedded:rules); \"\(name)\" is none.")
        }
    }

    func run() throws {
        var plan = IOPlan(force: forceOption.force)
        plan.write(output ?? "-", as: output == nil ? "standard output" : "-o")
        try plan.check()
        try SmallOutput.write(Array(DefaultRules.yaml.utf8), to: output ?? "-", existing: plan.existingPolicy, what: "the rule file")
    }
}
