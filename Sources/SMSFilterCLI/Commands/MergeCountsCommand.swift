import ArgumentParser
import BatchPipeline
import Foundation
import ZstdStream

/// `smsfilter merge-counts`: sums the count files of sharded runs.
struct MergeCountsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge-counts",
        abstract: "Sum the count files of several classify runs into one, exactly.",
        discussion: """
            Refuses count files made with different rule sets (each names its rule set's checksum). \
            Example: smsfilter merge-counts shard-*.counts.json > total.json
            """
    )

    @Argument(help: "Count files written by classify --counts.")
    var files: [String]

    @Option(name: [.short, .customLong("out")], help: "Write the merged counts here instead of standard output.")
    var out: String?

    func validate() throws {
        if files.isEmpty { throw ValidationError("Please name at least one count file.") }
    }

    func run() throws {
        var parts: [(name: String, counts: RunCounts)] = []
        for file in files {
            guard FileManager.default.fileExists(atPath: file) else { throw CLI.fail("\(file): no such file", code: 66) }
            do {
                parts.append((file, try RunCounts.read(path: file)))
            } catch {
                throw CLI.fail("\(file): not a count file written by smsfilter classify (\(error))", code: 65)
            }
        }
        let total: RunCounts
        do {
            total = try RunCounts.merged(parts)
        } catch {
            throw CLI.fail("\(error)", code: 65)
        }
        let data = try total.jsonData()
        if let out, out != "-" {
            do {
                let file = try OutputFile(path: out)
                try file.write(Array(data))
                try file.finish()
            } catch {
                throw CLI.fail("\(error)", code: 73)
            }
        } else {
            FileHandle.standardOutput.write(data)
        }
    }
}
