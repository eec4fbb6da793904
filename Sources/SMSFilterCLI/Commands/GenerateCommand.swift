import ArgumentParser
import BatchPipeline
import Foundation
import ZstdStream

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

            Example: smsfilter generate --count 10000000 --seed 1 --out corpus.jsonl.zst
            """
    )

    @Option(name: .long, help: "Number of records.")
    var count: Int

    @Option(name: .long, help: "Seed of the pseudo-random generator.")
    var seed: UInt64 = 1

    @Option(name: [.short, .customLong("out")], help: "Output file (.zst compresses with zstd); - is standard output.")
    var out: String = "-"

    @Option(name: .long, help: "zstd level when compressing.")
    var level: Int32 = 3

    @Option(name: .long, help: "zstd compression threads (default: all cores).")
    var threads: Int?

    @Flag(name: [.short, .long], help: "Print no progress line or summary.")
    var quiet = false

    func validate() throws {
        if count < 0 { throw ValidationError("Please give a --count of 0 or more.") }
    }

    func run() throws {
        let compression: OutputFile.Compression =
            out.hasSuffix(".zst") ? .zstd(level: level, workers: Int32(threads ?? CLI.cores)) : .none
        let started = Date()
        do {
            let file = try OutputFile(path: out, compression: compression)
            let showProgress = !quiet && CLI.stderrIsTerminal
            let bytes = try CorpusGenerator(seed: seed).write(count: count, to: file) { n in
                if showProgress {
                    CLI.stderr(String(format: "\r\u{1B}[2K%@ records  %.0f%%", ProgressLine.grouped(n), Double(n) * 100 / Double(max(1, count))))
                }
            }
            try file.finish()
            if showProgress { CLI.stderr("\r\u{1B}[2K") }
            if !quiet {
                let seconds = Date().timeIntervalSince(started)
                CLI.stderr(String(format: "%@ records, %.1f MB in %.1f s (%.0f MB/s) → %@\n", ProgressLine.grouped(count),
                    Double(bytes) / 1e6, seconds, Double(bytes) / 1e6 / max(seconds, 1e-9), out == "-" ? "stdout" : out))
            }
        } catch {
            throw CLI.fail("\(error)", code: 73)
        }
    }
}
