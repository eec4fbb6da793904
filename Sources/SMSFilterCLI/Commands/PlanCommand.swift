import ArgumentParser
import BatchPipeline
import Foundation
import ArchiveIO

/// `smsfilter plan`: where a big archive can be split for `classify --range` runs (one archive across a
/// cluster; the Spark job runs it).
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "List the splits of a multi-frame zstd archive for classify --range runs.",
        discussion: """
            zstd archives can be cut only between frames. The frames are found without decoding (the seek \
            table of a seekable archive, or the frame and block headers: pzstd, concatenated frames) and \
            taken in order into splits of at least --split-size decoded bytes, each with its compressed \
            byte range (for classify --range START:END), frames and decoded size. A record that crosses a \
            split's edge is read by the split it starts in, so the splits' outputs joined in order are one \
            whole-archive run's. Single-frame, gzip and plain archives are one split, and so are CSV and XML \
            (where a record starts depends on every byte before it); the plan says why.

            --lines decodes every split to count its lines: exact decoded sizes (pzstd frames do not say \
            theirs), and the archive's line number where each split starts (classify --first-line), so \
            that split runs number rejects as a whole-archive run does without decoding what precedes them.

            Examples:
              smsfilter plan big.jsonl.zst --split-size 256M
              smsfilter plan big.jsonl.zst --lines --json -o plan.json

            The archive must be a regular file (it is read at offsets): a pipe, a FIFO or standard input \
            is refused at once.

            \(ExitStatus.helpSection(
            [.success, .usage, .badInput, .inputMissing, .cannotCreate], saying: [
                .usage: "usage (an archive that is not a regular file included)",
                .badInput: "damaged archive (--lines) or unreadable input", .cannotCreate: "the plan could not be written",
            ]))
            """
    )

    @Argument(help: "The archive (a file).")
    var archive: String

    @Option(name: .long, parsing: .unconditional, help: "Decoded bytes per split, at least (1 to 1T).")
    var splitSize = ByteSize(Int(ArchivePlan.Options().splitSize))

    @Flag(name: .long, help: "Decode every split to count its lines and decoded bytes exactly.")
    var lines = false

    @Option(
        name: .long, parsing: .unconditional, help: "Plan only these frames (compressed offsets START:END at frame boundaries).",
        transform: ByteRange.parse)
    var range: ByteRange?

    @OptionGroup var inputFormatOption: InputFormatOption

    @OptionGroup var threadsOption: ThreadsOption

    @Option(name: [.short, .long], help: ArgumentHelp("Write the plan as JSON to this file.", valueName: "file"))
    var output: String?

    @OptionGroup var forceOption: ForceOption

    @OptionGroup var quietOption: QuietOption

    @OptionGroup var jsonOption: JSONOption

    func validate() throws {
        try Limits.check(threadsOption.threads, Limits.threads, "--threads")
        try Limits.check(size: splitSize, Limits.splitSize, "--split-size")
    }

    func run() throws {
        var io = IOPlan(force: forceOption.force)
        io.read(archive, as: "the archive")
        io.write(output, as: "-o")
        try io.check()
        var options = ArchivePlan.Options()
        options.splitSize = Int64(splitSize.bytes)
        options.input.inputFormat = inputFormatOption.inputFormat
        options.countLines = lines
        options.range = range.map { $0.start..<$0.end }
        options.threads = threadsOption.count
        let plan: ArchivePlan
        do {
            plan = try ArchivePlan.make(path: archive, options: options)
        } catch {
            throw CommandFailure(error.description, error.exitCode)
        }
        if let output {
            do {
                let file = try OutputFile(path: output, existing: io.existingPolicy)
                try file.write(Array(plan.jsonData()))
                try file.finish()
            } catch {
                throw CommandFailure("\(error)", .cannotCreate)
            }
        }
        if jsonOption.json {
            Console.printSummaryJSON(String(decoding: plan.jsonData(), as: UTF8.self), plan: io)
        } else if !quietOption.quiet {
            // With the plan's JSON on standard output (-o and a link to it), the table goes beside it.
            if io.writesStandardOutput { Console.stderr(plan.table()) } else { Console.stdout(plan.table()) }
        }
        if plan.damaged {
            for (k, split) in plan.splits.enumerated() where split.error != nil {
                ErrorReport.print("split \(k) (\(split.start):\(split.end)): \(split.error!)")
            }
            throw ExitCode(.badInput)
        }
    }
}

/// `START:END`: compressed byte offsets, `0 ≤ START < END`.
/// `START:END`: compressed byte offsets, 0 ≤ START < END, as `smsfilter plan` lists them. Parsed by
/// ``parse(_:)`` (the options' `transform`), so that a bad value gets a message that says what is expected
/// (ArgumentParser names the option and the value).
struct ByteRange {
    let start: Int64
    let end: Int64

    static let expected = "expected START:END with 0 ≤ START < END (compressed byte offsets, as smsfilter plan lists them)"

    static func parse(_ argument: String) throws -> ByteRange {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw ValidationError(expected) }
        func offset(_ part: Substring, _ name: String) throws -> Int64 {
            if let n = Int64(part) { return n }
            let digits = part.first == "-" || part.first == "+" ? part.dropFirst() : part
            if !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber) {
                throw ValidationError("\(expected); \(name) is past \(Int64.max), the largest offset")
            }
            throw ValidationError("\(expected); \(name) is not a whole number")
        }
        let start = try offset(parts[0], "START"), end = try offset(parts[1], "END")
        if start < 0 { throw ValidationError("\(expected); START is negative") }
        if start >= end { throw ValidationError("\(expected); START is not below END") }
        return ByteRange(start: start, end: end)
    }
}
