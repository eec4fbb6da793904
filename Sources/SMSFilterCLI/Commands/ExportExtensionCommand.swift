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
            project. Files of the same names are replaced; other files in DIR are left alone.

            The rule set must pass `smsfilter check --target ios` (at most five sub-actions declared, no \
            errors); otherwise nothing is written and the exit status is 65.

            Exit status: 0 success, 64 usage, 65 rules not shippable on iOS, 66 rule file missing, 73 DIR \
            could not be written.
            """
    )

    @Argument(help: "The rule file (YAML or .smsf); it must pass `smsfilter check --target ios`.")
    var rules: String

    @Option(name: .shortAndLong, help: "The folder to write the extension files into (created when missing).")
    var output: String

    @Option(name: .long, help: "The message filter extension's class name.")
    var messageFilterClass = "MessageFilterExtension"

    @Option(name: .long, help: "The Call Directory extension's class name.")
    var callDirectoryClass = "CallDirectoryHandler"

    @Option(name: .long, help: "Call Directory entries handed to CallKit per batch, each batch in its own autorelease pool.")
    var batchSize = 5_000

    @Flag(name: .long, help: "Print nothing on success.")
    var quiet = false

    func validate() throws {
        for (option, name) in [("--message-filter-class", messageFilterClass), ("--call-directory-class", callDirectoryClass)] {
            guard Self.isTypeName(name) else {
                throw ValidationError("Please give \(option) as a Swift type name (a letter or _, then letters, digits or _).")
            }
        }
        if messageFilterClass == callDirectoryClass {
            throw ValidationError("Please give the two extension classes different names.")
        }
        guard (1...1_000_000).contains(batchSize) else {
            throw ValidationError("Please give a --batch-size between 1 and 1000000.")
        }
    }

    /// Whether `name` is a plain ASCII Swift identifier that names no type the generated code uses.
    static func isTypeName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        let reserved: Set<String> = [
            "Action", "SubAction", "RuleSet", "Classifier", "Entry", "ListError", "Self", "Type", "Protocol", "Any",
        ]
        return !reserved.contains(name) && !name.hasPrefix("IL") && !name.hasPrefix("CX")
            && name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) }
    }

    func run() throws {
        try RuleCLI.run {
            let report: RuleCheckReport
            do {
                report = try RuleChecker.check(path: rules, target: .ios)
            } catch let error as RuleSetLoadError where error.kind == .fileMissing {
                throw RuleCommandError(message: "\(rules): no such rule file", status: .fileMissing)
            } catch {
                throw RuleCommandError(message: "\(error)", status: .badRules)
            }
            let errors = report.findings.filter { $0.severity == .error }
            guard report.verdict == .ready, errors.isEmpty, let set = report.ruleSet else {
                var message = "\(rules): cannot export an iOS extension: `smsfilter check --target ios` fails with "
                    + "\(errors.count) error\(errors.count == 1 ? "" : "s"):"
                for f in errors { message += "\n  error: \(f)" }
                message += "\nFix these (an iOS message filter declares at most \(Capabilities.iosLimit) sub-actions in `capabilities:`) and export again."
                throw RuleCommandError(message: message, status: .badRules)
            }

            var options = ExtensionGenerator.Options()
            options.messageFilterClass = messageFilterClass
            options.callDirectoryClass = callDirectoryClass
            options.batchSize = batchSize
            let generator = ExtensionGenerator(ruleSet: set, sourcePath: rules, options: options)
            let files = generator.files()

            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: output, isDirectory: &isFolder) {
                guard isFolder.boolValue else {
                    throw RuleCommandError(message: "\(output): cannot write: exists and is not a folder", status: .cannotWrite)
                }
            } else {
                do {
                    try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
                } catch {
                    throw RuleCommandError(message: "\(output): cannot create the folder: \(error.localizedDescription)", status: .cannotWrite)
                }
            }
            for file in files {
                try RuleCLI.writeAtomically(file.bytes, to: URL(fileURLWithPath: output).appendingPathComponent(file.name).path)
            }

            if !quiet {
                let caps = set.capabilities.subActions.map(\.name).joined(separator: ", ")
                var text = "exported \(set.ruleNames.count) rules (checksum \(set.checksum)) to \(output):\n"
                for file in files { text += "  \(file.name) (\(file.bytes.count) bytes)\n" }
                text += "capabilities: \(caps)\n"
                text += "block list: \(set.definition.blockList.count) numbers, identification list: \(set.definition.identificationNumbers.count) numbers\n"
                text += "next: read \(output)/README.md\n"
                let warnings = report.findings.count - errors.count
                if warnings > 0 {
                    text += "note: \(warnings) warning\(warnings == 1 ? "" : "s") from `smsfilter check --target ios \(rules)`\n"
                }
                FileHandle.standardError.write(Data(text.utf8))
            }
        }
    }
}
