import ArgumentParser
import ZstdStream

@main
struct SMSFilter: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "smsfilter",
        abstract: "Label huge SMS archives into the folders of Apple's SMS message filters, offline and fast.",
        version: "smsfilter \(version) (libzstd \(zstdLibraryVersion))",
        subcommands: [
            ClassifyCommand.self, ExplainCommand.self, CheckCommand.self, CompileCommand.self, ExportCommand.self,
            EvaluateCommand.self, GenerateCommand.self, BenchCommand.self, MergeCountsCommand.self,
            ExportExtensionCommand.self,
        ]
    )
}
