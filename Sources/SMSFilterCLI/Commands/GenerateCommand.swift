import ArgumentParser
import BatchPipeline
import Foundation
import ArchiveIO

/// `smsfilter generate`: a synthetic corpus with ground truth.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write a deterministic, realistic synthetic SMS corpus with a true folder per record.",
        discussion: """
            Each line: {"id", "sender", "body", "ts", "label", "lang"}, where label is the folder the \
            message belongs in. All twelve sub-actions, junk and scams, promotions, OTPs and personal chat; \
            TRAI headers, short codes, alphanumerics, E.164 numbers and e-mail senders; English, Hinglish, \
            Hindi, Chinese and Thai. The same --seed and --count give the same bytes.

            Records are not written to a terminal unless -o - asks for it.

            Example:
              smsfilter generate --count 10000000 --seed 1 -o corpus-10m.jsonl.zst

            \(ExitStatus.helpSection([.success, .usage, .cannotCreate], saying: [.cannotCreate: "the output could not be written"]))
            """
    )

    @Option(name: .long, parsing: .unconditional, help: "Number of records, 0 to 1000000000000.")
    var count: Int

    @Option(name: .long, parsing: .unconditional, help: "Seed of the pseudo-random generator, 0 to 18446744073709551615.")
    var seed = Seed(1)

    @Option(name: [.short, .long], help: ArgumentHelp("Output file (a .zst name is zstd, .gz gzip); - is standard output.", valueName: "file"))
    var output: String?

    @Option(name: .customLong("out"), help: .hidden)
    var outAlias: String?

    @Option(name: .long, parsing: .unconditional, help: "Compression level: zstd -7 to 19, gzip (.gz) 1 to 9.")
    var level: Int32 = 3

    @OptionGroup var threadsOption: ThreadsOption

    @Option(
        name: .long, parsing: .unconditional,
        help: "Decoded bytes per frame of a .zst output, 64K to 1G, plus a seek table (zstd's seekable format); 0: one frame.")
    var frameSize = FrameSize(ZstdSeekableEncoder.defaultFrameSize)

    @OptionGroup var forceOption: ForceOption

    @OptionGroup var quietOption: QuietOption

    @OptionGroup var jsonOption: JSONOption

    var outputPath: String? { output ?? outAlias }

    func validate() throws {
        try Limits.check(count, Limits.count, "--count")
        try seed.check("--seed")
        if output != nil && outAlias != nil { throw ValidationError("Please give -o/--output once (--out is its old name).") }
        try Limits.check(level, Limits.level, "--level")
        try Limits.checkGzipLevel(level, output: outputPath)
        try Limits.check(threadsOption.threads, Limits.threads, "--threads")
        try Limits.check(frameSize: frameSize)
    }

    func run() throws {
        let out = outputPath ?? "-"
        var plan = IOPlan(force: forceOption.force)
        plan.write(out, as: output != nil ? "-o" : outAlias != nil ? "--out" : "standard output", compressedByName: true)
        try plan.check()
        try Console.refuseRecordsToTerminal(output: outputPath)
        let compression: OutputFile.Compression
        switch OutputFile.compression(namedBy: out) {
        case .zstd: compression = .zstd(level: level, workers: Int32(threadsOption.count), frameSize: frameSize.frameSize)
        case .gzip: compression = .gzip(level: level)
        case .none: compression = .none
        }
        let started = Date()
        do {
            let file = try OutputFile(path: out, compression: compression, existing: plan.existingPolicy)
            let progress = ProgressLine()
            let showProgress = !quietOption.quiet && Console.stderrIsTerminal && !(out == "-" && Console.stdoutIsTerminal)
            // Drawn at most four times a second (the generator reports every megabyte, hundreds of times a
            // second), with the rate and what is left.
            var lastDrawn = -1.0
            let bytes = try CorpusGenerator(seed: seed.value!).write(count: count, to: file) { n in
                let seconds = Date().timeIntervalSince(started)
                guard showProgress, seconds - lastDrawn >= 0.25 else { return }
                lastDrawn = seconds
                let rate = Double(n) / max(seconds, 1e-9)
                progress.show(String(format: "%@ records  %.0f%%  %.0f records/s  ETA %@", ProgressLine.grouped(n),
                    Double(n) * 100 / Double(max(1, count)), rate, ProgressLine.clock(Double(count - n) / max(rate, 1e-9))))
            }
            try file.finish()
            progress.clear()
            if !quietOption.quiet || jsonOption.json {
                let seconds = Date().timeIntervalSince(started)
                if jsonOption.json {
                    Console.printSummaryJSON(
                        JSONText.pretty(["records": count, "bytes": bytes, "seconds": seconds, "output": out, "seed": seed.value!]),
                        plan: plan)
                } else {
                    Console.stderr(String(format: "%@ records, %.1f MB in %.1f s (%.0f MB/s) → %@\n", ProgressLine.grouped(count),
                        Double(bytes) / 1e6, seconds, Double(bytes) / 1e6 / max(seconds, 1e-9), out == "-" ? "stdout" : out))
                }
            }
        } catch {
            throw CommandFailure("\(error)", .cannotCreate)
        }
    }
}
