import ArgumentParser
import Foundation
import MessageFilter

/// `smsfilter export-extension RULES -o DIR`
struct ExportExtensionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-extension",
        abstract: "Write an iOS message filter and Call Directory extension (Swift sources, compiled rules, README) for a rule set.",
        discussion: """
            Writes into DIR: the message filter extension class (capabilities query and message query, \
            classifying with the MessageFilter library and the bundled Rules.smsf), the Call Directory handler \
            (block and identification lists from BlockList.txt and IdentificationList.tsv, in ascending order \
            and bounded batches), the NSExtension Info.plist entries, and a README on adding them to an Xcode \
            project. DIR is created when missing (its parent must exist). Files of the same names are \
            replaced only with -f; other files in DIR are left alone.

            The rule set must pass `smsfilter check --target ios` (at most five sub-actions declared, no \
            errors); otherwise nothing is written and the exit status is \(ExitStatus.badInput.rawValue).

            Example:
              smsfilter export-extension rules.yaml -o FilterExtension

            \(ExitStatus.helpSection(
            [.success, .usage, .badInput, .inputMissing, .cannotCreate], saying: [
                .badInput: "rules not shippable on iOS", .inputMissing: "rule file missing", .cannotCreate: "DIR could not be written",
            ]))
            """
    )

    @Argument(help: "The rule file (YAML or .smsf; embedded:rules: the built-in one); it must pass `smsfilter check --target ios`.")
    var rules: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The folder to write the extension files into (created when missing).", valueName: "folder"))
    var output: String

    @Option(name: .long, help: "The message filter extension's class name.")
    var messageFilterClass = "MessageFilterExtension"

    @Option(name: .long, help: "The Call Directory extension's class name.")
    var callDirectoryClass = "CallDirectoryHandler"

    @Option(name: .long, parsing: .unconditional, help: "Call Directory entries handed to CallKit per batch, 1 to 1000000, each batch in its own autorelease pool.")
    var batchSize = 5_000

    @OptionGroup var forceOption: ForceOption

    @OptionGroup var quietOption: QuietOption

    @OptionGroup var jsonOption: JSONOption

    func validate() throws {
        for (option, name) in [("--message-filter-class", messageFilterClass), ("--call-directory-class", callDirectoryClass)] {
            if let problem = Self.classNameProblem(name) {
                throw ValidationError("Please give \(option) another name: \(name) \(problem).")
            }
        }
        if messageFilterClass == callDirectoryClass {
            throw ValidationError("Please give the two extension classes different names.")
        }
        try Limits.check(batchSize, 1...1_000_000, "--batch-size")
    }

    /// Why `name` cannot name a generated class: not an ASCII identifier, a keyword, `_`, an Apple framework
    /// prefix (IL, CX), or a name the generated code already uses (a type, a method, a variable: the class
    /// would shadow it), nil when it can.
    static func classNameProblem(_ name: String) -> String? {
        if let problem = SwiftIdentifier.problem(name, taken: generatedIdentifiers) { return problem }
        if name.hasPrefix("IL") || name.hasPrefix("CX") { return "starts with an Apple framework prefix (IL, CX)" }
        return nil
    }

    /// What a rule set holds, counted as a person reads it: `9 rules`, `1 rule and model "m"`, `no rules and
    /// model "m"` (a model is not a rule).
    static func contents(_ set: RuleSet) -> String {
        let n = set.definition.rules.count
        var text = n == 0 ? "no rules" : n == 1 ? "1 rule" : "\(n) rules"
        if let model = set.definition.model { text += " and model \"\(model.name)\"" }
        return text
    }

    /// Every identifier the generated sources use, besides the two default class names.
    static let generatedIdentifiers: Set<String> = {
        let generator = ExtensionGenerator(ruleSet: RuleSet.embeddedDefault, sourcePath: "rules.yaml")
        var names = SwiftIdentifier.identifiers(in: generator.messageFilterSource() + "\n" + generator.callDirectorySource())
        let defaults = ExtensionGenerator.Options()
        names.remove(defaults.messageFilterClass)
        names.remove(defaults.callDirectoryClass)
        return names
    }()

    /// The names written into the output folder (the same for every rule set).
    var fileNames: [String] {
        typealias N = ExtensionGenerator.Names
        return [
            "\(messageFilterClass).swift", "\(callDirectoryClass).swift", N.rules, N.blockList, N.identificationList,
            N.messageFilterPlist, N.callDirectoryPlist, N.readme,
        ]
    }

    func run() throws {
        var plan = IOPlan(force: forceOption.force)
        plan.readRules(rules, as: "the rule file")
        plan.writeFolder(output, as: "-o", files: fileNames)
        try plan.check()
        do {
            let report: RuleCheckReport
            do {
                report = try RuleChecker.check(path: rules, target: .ios)
            } catch {
                throw CommandFailure(loadingRules: rules, error)
            }
            let errors = report.findings.filter { $0.severity == .error }
            guard report.verdict == .ready, errors.isEmpty, let set = report.ruleSet else {
                var message = "\(EchoedText.escaped(rules)): cannot export an iOS extension: `smsfilter check --target ios` fails with "
                    + "\(errors.count) error\(errors.count == 1 ? "" : "s"):"
                for f in errors { message += "\n  error: \(f)" }
                message += "\nFix these (an iOS message filter declares at most \(Capabilities.iosLimit) sub-actions in `capabilities:`) and export again."
                throw CommandFailure(message, .badInput)
            }

            var options = ExtensionGenerator.Options()
            options.messageFilterClass = messageFilterClass
            options.callDirectoryClass = callDirectoryClass
            options.batchSize = batchSize
            let generator = ExtensionGenerator(ruleSet: set, sourcePath: rules, options: options)
            let files = generator.files()

            let generated = Set(files.map(\.name))
            guard generated == Set(fileNames) else {
                throw CommandFailure("internal error: the generated files are not the ones checked", .cannotCreate)
            }
            if !FileManager.default.fileExists(atPath: output) {
                do {
                    try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
                } catch {
                    throw CommandFailure("\(EchoedText.escaped(output)): cannot create the folder: \(error.localizedDescription)", .cannotCreate)
                }
            }
            try SmallOutput.writeAll(
                files.map { (URL(fileURLWithPath: output).appendingPathComponent($0.name).path, $0.bytes) },
                existing: plan.existingPolicy)

            if quietOption.quiet && !jsonOption.json { return }
            let warnings = report.findings.count - errors.count
            if jsonOption.json {
                Console.printSummaryJSON(JSONText.pretty([
                    "rules": set.definition.rules.count, "model": set.definition.model?.name ?? NSNull(), "checksum": set.checksum, "output": output,
                    "files": files.map { ["name": $0.name, "bytes": $0.bytes.count] },
                    "capabilities": set.definition.iosCapabilities.map(\.name),
                    "blockList": set.definition.blockList.count,
                    "identificationList": set.definition.identificationNumbers.count, "warnings": warnings,
                ]), plan: nil)
                return
            }
            let caps = set.definition.iosCapabilities.map(\.name).joined(separator: ", ")
            var text = "exported \(Self.contents(set)) (checksum \(set.checksum)) to \(output):\n"
            for file in files { text += "  \(file.name) (\(file.bytes.count) bytes)\n" }
            text += "capabilities: \(caps.isEmpty ? "none" : caps)\n"
            if set.definition.rules.isEmpty && set.definition.model == nil {
                text += "note: \(rules) has no rule and no model: the extension leaves every message where iOS puts it\n"
            }
            text += "block list: \(set.definition.blockList.count) numbers, identification list: \(set.definition.identificationNumbers.count) numbers\n"
            text += "next: read \(output)/README.md\n"
            if warnings > 0 {
                text += "note: \(warnings) warning\(warnings == 1 ? "" : "s") from `smsfilter check --target ios \(rules)`\n"
            }
            Console.stderr(text)
        }
    }
}
