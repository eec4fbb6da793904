import ArgumentParser
import Dispatch
import ArchiveIO
import MessageFilter

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
struct SMSFilter: ParsableCommand {
    /// Ctrl-C or a termination signal removes every unfinished output's temporary file, then exits with
    /// 128 + the signal number, as a shell would report it.
    nonisolated(unsafe) static var signalSources: [DispatchSourceSignal] = []

    static func main() {
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler(handler: onSignal(sig))
            source.resume()
            signalSources.append(source)
        }
        switch Array(CommandLine.arguments.dropFirst()) {
        case ["--version"]:
            Console.stdout(versionText())
            _exitProcess(ExitStatus.success.rawValue)
        case ["help", "--man"]:
            Console.stdout(ManPage.text(root: SMSFilter.self, version: version))
            _exitProcess(ExitStatus.success.rawValue)
        default:
            break
        }
        let arguments = Array(CommandLine.arguments.dropFirst())
        var command: ParsableCommand
        let folded = ArgumentFolding.fold(arguments, root: SMSFilter.self)
        ArgumentFolding.validationDeferred = folded != nil
        do {
            command = try parseAsRoot(folded?.arguments)
        } catch {
            ErrorReport.exitRefused(error, root: SMSFilter.self, arguments: arguments)
        }
        ArgumentFolding.validationDeferred = false
        if let folded, var many = command as? any ManyFiles {
            // The files the parser did not see (``ArgumentFolding``), then the checks that count them.
            many.namedFiles = folded.files
            do {
                try many.validate()
            } catch let error as ValidationError {
                ErrorReport.exitRefused(
                    error, root: SMSFilter.self, arguments: arguments,
                    message: ArgumentFolding.usageMessage(for: error, command: folded.command, root: SMSFilter.self))
            } catch {
                ErrorReport.exitRefused(error, root: SMSFilter.self, arguments: arguments)
            }
            command = many
        }
        do {
            try command.run()
        } catch {
            ErrorReport.exit(with: error, root: SMSFilter.self, arguments: arguments)
        }
    }

    static let version = ToolVersion.number

    /// `smsfilter --version`: the version, the zstd library, and the embedded rule set and model with the
    /// checksums that counts files (`ruleSet`), `explain`, `check` and `compile` cite, so that a counts file
    /// can be traced to the binary that wrote it.
    static func versionText() -> String {
        let all = RuleSet.embeddedDefault, rules = RuleSet.embeddedDefaultRulesOnly
        let model = DefaultModel.definition
        return """
            smsfilter \(version) (libzstd \(zstdLibraryVersion))
            embedded rule set (the default --rules): checksum \(all.checksum), the "ruleSet" of counts files
              rules: \(rules.definition.rules.count) rules, \(rules.phraseCount) phrases (samples/default-rules.yaml); \
            alone (--rules \(RuleSet.embeddedRulesOnlyPath)): checksum \(rules.checksum)
              model: "\(model.name)", \(model.phrases.count) phrases × \(model.targets.count) targets, priority \(model.priority) \
            (samples/default-model.yaml): checksum \(DefaultModel.checksum)

            """
    }

    static let configuration = CommandConfiguration(
        commandName: "smsfilter",
        abstract: "Label huge SMS archives into the folders of Apple's SMS message filters, offline and fast.",
        version: "smsfilter \(version) (libzstd \(zstdLibraryVersion))",
        subcommands: [
            ClassifyCommand.self, ExplainCommand.self, CheckCommand.self, CompileCommand.self, ExportCommand.self,
            EvaluateCommand.self, GenerateCommand.self, BenchCommand.self, PlanCommand.self, MergeCountsCommand.self,
            ExportExtensionCommand.self, LearnCommand.self, ShowRulesCommand.self,
        ]
    )
}

/// The handler of a termination signal: runs on a Dispatch queue (not in the signal context, so taking
/// a lock is fine), removes unfinished outputs and exits. Not isolated to any actor.
func onSignal(_ sig: Int32) -> @Sendable () -> Void {
    {
        OutputFile.removeUnfinishedFiles()
        _exitProcess(ExitStatus.signalled(sig))
    }
}
