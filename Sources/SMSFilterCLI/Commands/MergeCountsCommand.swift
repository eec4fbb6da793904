import ArgumentParser
import BatchPipeline
import Foundation
import ArchiveIO
import MessageFilter

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `smsfilter merge-counts`: sums the count files of sharded runs.
struct MergeCountsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge-counts",
        abstract: "Sum the count files of several classify runs into one, exactly.",
        discussion: """
            Refuses count files made with different rule sets (each names its rule set's checksum), and \
            count files that are damaged: a field missing or of the wrong type, a negative count, or \
            records that are not labelled + rejected. Sums that would overflow are refused too.

            An archive is known by its bytes (its size and a hash of its first and last 4 KiB, \
            files[].archive), not by the path a run named it by. The splits of an archive (classify \
            --range) join into its entry where they meet; counts of one archive that overlap (two \
            splits, a whole run and a split, whole runs in two count files, a copy of the archive \
            included) would count its records twice and are refused. When the splits join into archives \
            of which no record could be read, the merge fails as one whole run fails.

            Example:
              smsfilter merge-counts shard-*.counts.json -o total.json

            \(ExitStatus.helpSection(
            [.success, .usage, .badInput, .inputMissing, .cannotCreate], saying: [
                .usage: "usage (a count file named twice)",
                .badInput: "a count file that is damaged, of another rule set, a copy of another, or counts that overlap or overflow",
                .inputMissing: "a count file missing", .cannotCreate: "the output could not be written",
            ]))
            """
    )

    @Argument(help: "Count files written by classify --counts.")
    var files: [String] = []

    @Option(name: [.short, .long], help: ArgumentHelp("Write the merged counts here instead of standard output.", valueName: "file"))
    var output: String?

    @Option(name: .customLong("out"), help: .hidden)
    var outAlias: String?

    @OptionGroup var forceOption: ForceOption

    @OptionGroup var quietOption: QuietOption

    func validate() throws {
        // Checked once every file is back (``ArgumentFolding``), not against the first file alone.
        if ArgumentFolding.validationDeferred { return }
        if files.isEmpty { throw ValidationError("Please name at least one count file.") }
        if output != nil && outAlias != nil { throw ValidationError("Please give -o/--output once (--out is its old name).") }
    }

    func run() throws {
        let out = output ?? outAlias ?? "-"
        var plan = IOPlan(force: forceOption.force)
        plan.read(files, as: "a count file")
        plan.write(out, as: output != nil ? "-o" : outAlias != nil ? "--out" : "standard output")
        try plan.check()
        var parts: [(name: String, counts: RunCounts)] = []
        var identities: [String: String] = [:]
        // The count files read so far by their elapsed seconds, where a copy must agree: a twin is looked
        // for among those only (comparing each file with every other took minutes for a few thousand).
        var bySeconds: [UInt64: [Int]] = [:]
        for file in files {
            guard FileManager.default.fileExists(atPath: file) else { throw CommandFailure("\(EchoedText.escaped(file)): no such file", .inputMissing) }
            // The same file named twice (by any spelling or link) would be counted twice.
            var info = stat()
            if file != "-", stat(file, &info) == 0 {
                let identity = "\(info.st_dev):\(info.st_ino)"
                if let first = identities[identity] {
                    throw CommandFailure("\(EchoedText.escaped(file)) is \(EchoedText.escaped(first)) again: its counts would be added twice", .usage)
                }
                identities[identity] = file
            }
            let counts: RunCounts
            do {
                counts = try RunCounts.read(path: file)
            } catch {
                throw CommandFailure("\(error)", error.exitCode)
            }
            // A copy of a count file holds the same run (its elapsed seconds and files included): two runs
            // never write the same counts to the last digit of `seconds`.
            let key = counts.seconds == 0 ? 0 : counts.seconds.bitPattern
            if let twin = bySeconds[key, default: []].first(where: { parts[$0].counts == counts }) {
                throw CommandFailure("\(EchoedText.escaped(file)) holds the same counts as \(EchoedText.escaped(parts[twin].name)) (a copy of one run?): they would be added twice", .badInput)
            }
            bySeconds[key, default: []].append(parts.count)
            parts.append((file, counts))
        }
        let total: RunCounts
        let data: Data
        do {
            total = try RunCounts.merged(parts)
        } catch {
            throw CommandFailure("\(error)", error.exitCode)
        }
        do {
            data = try total.jsonData()
        } catch {
            throw CommandFailure("\(error)", .badInput)
        }
        try SmallOutput.write(Array(data), to: out, existing: plan.existingPolicy)
        if !quietOption.quiet && out != "-" {
            Console.stderr(
                "merged \(files.count) count file\(files.count == 1 ? "" : "s"): \(groupedDigits(total.records)) records "
                    + "(\(groupedDigits(total.labelled)) labelled, \(groupedDigits(total.rejected)) rejected) → \(out)\n")
        }
    }
}

extension MergeCountsCommand: ManyFiles {
    var namedFiles: [String] {
        get { files }
        set { files = newValue }
    }
}
