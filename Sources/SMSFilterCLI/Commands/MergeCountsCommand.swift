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
            Refuses count files made with different rule sets (each names its rule set's checksum), and \
            count files that are damaged: a field missing or of the wrong type, a negative count, or \
            records that are not labelled + rejected. Sums that would overflow are refused too.

            Example:
              smsfilter merge-counts shard-*.counts.json -o total.json
            """
    )

    @Argument(help: "Count files written by classify --counts.")
    var files: [String] = []

    @Option(name: [.short, .long], help: ArgumentHelp("Write the merged counts here instead of standard output.", valueName: "file"))
    var output: String?

    @Option(name: .customLong("out"), help: .hidden)
    var outAlias: String?

    @Flag(name: [.short, .long], help: "Replace an existing output file (devices, FIFOs and - need no --force).")
    var force = false

    @Flag(name: [.short, .long], help: "Print no summary line on standard error.")
    var quiet = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("Please name at least one count file.") }
        if output != nil && outAlias != nil { throw ValidationError("Please give -o/--output once (--out is its old name).") }
    }

    func run() throws {
        let out = output ?? outAlias ?? "-"
        var plan = IOPlan(force: force)
        plan.read(files, as: "a count file")
        plan.write(out, as: output != nil ? "-o" : outAlias != nil ? "--out" : "standard output")
        try plan.check()
        var parts: [(name: String, counts: RunCounts)] = []
        for file in files {
            guard FileManager.default.fileExists(atPath: file) else { throw CLI.fail("\(file): no such file", code: 66) }
            do {
                parts.append((file, try RunCounts.read(path: file)))
            } catch {
                throw CLI.fail("\(error)", code: 65)
            }
        }
        let total: RunCounts
        let data: Data
        do {
            total = try RunCounts.merged(parts)
            data = try total.jsonData()
        } catch {
            throw CLI.fail("\(error)", code: 65)
        }
        do {
            let file = try OutputFile(path: out, existing: plan.existingPolicy)
            try file.write(Array(data))
            try file.finish()
        } catch {
            throw CLI.fail("\(error)", code: 73)
        }
        if !quiet && out != "-" {
            CLI.stderr(
                "merged \(files.count) count file\(files.count == 1 ? "" : "s"): \(groupedDigits(total.records)) records "
                    + "(\(groupedDigits(total.labelled)) labelled, \(groupedDigits(total.rejected)) rejected) → \(out)\n")
        }
    }
}
