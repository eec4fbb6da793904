import ArgumentParser
import BatchPipeline
import ArchiveIO

/// The allowed range of every number a flag sets, checked in `validate()` with a usage error (exit 64)
/// that says what is allowed. Nothing a flag sets is trusted to fit in memory or in an `Int`.
enum Limits {
    /// Worker threads (`--threads`).
    static let threads = 1...256
    /// zstd compression threads (`--compression-threads`; 0 compresses in the writer thread).
    static let compressionThreads = 0...256
    /// Bytes of records per work unit (`--chunk-size`).
    static let chunkSize = (4 << 10)...(64 << 20)
    /// The chunk pool, `(2 × threads + 2) × 3.5 × chunk size` bytes (PipelineOptions), at most 2 GiB.
    static let chunkPoolBytes = 2 << 30
    /// The longest record processed whole (`--max-record`): held in memory once, so at most 1 GiB.
    static let maxRecord = (1 << 10)...(1 << 30)
    /// The rejects file's budget (`--max-rejects-bytes`): the most bytes it holds (whole rejects in its first half).
    static let maxRejectsBytes = (1 << 10)...(1 << 40)
    /// zstd levels. Levels 20–22 (zstd's `--ultra`) take 300–700 MB per compression thread, so they are refused.
    static let level: ClosedRange<Int32> = -7...19
    /// `--level` for an output whose name ends in `.gz`: zlib's levels.
    static func checkGzipLevel(_ level: Int32?, output: String?) throws {
        guard let level, let output, OutputFile.compression(namedBy: output) == .gzip,
              !GzipEncoder.levels.contains(level) else { return }
        throw ValidationError(
            "Please give --level from \(GzipEncoder.levels.lowerBound) to \(GzipEncoder.levels.upperBound) for a gzip output (\(output) ends with .gz; got \(level)).")
    }

    /// Decoded bytes per frame of a seekable zstd output (`--frame-size`); 0 is one frame.
    static let frameSize = ZstdSeekableEncoder.frameSizes

    static func check(frameSize: FrameSize?) throws {
        guard let frameSize, frameSize.bytes != 0, !Limits.frameSize.contains(frameSize.bytes) else { return }
        throw ValidationError(
            "Please give --frame-size from \(ByteSize(Limits.frameSize.lowerBound).argument) to "
                + "\(ByteSize(Limits.frameSize.upperBound).argument), or 0 for one frame (got \(frameSize.given)).")
    }

    /// Decoded bytes per split (`plan --split-size`).
    static let splitSize = 1...(1 << 40)
    /// The archive's line number where a split starts (`classify --first-line`).
    static let firstLine = 1...ArchiveSplit.maxFirstLine

    /// Body bytes `bench` loads into memory (`--matcher-bytes`).
    static let matcherBytes = (1 << 10)...(2 << 30)
    /// `bench --repeat`.
    static let repeats = 1...1000
    /// `generate --count`: records, up to 10¹² (about 100 TB of JSON Lines).
    static let count = 0...1_000_000_000_000
    /// `learn --max-phrases`, `--min-documents`, `--min-overrules` (and `--min-script-messages` from 0): counts
    /// of messages or phrases, stored in 32 bits where the learner keeps them per candidate.
    static let learnCount = 1...1_000_000_000
    /// `learn --max-candidates`: the counting table's size.
    static let maxCandidates = 1024...1_000_000_000
    /// `learn --max-examples`: training messages held at once.
    static let maxExamples = 16...1_000_000_000
    /// `evaluate --conflict-examples`.
    static let conflictExamples = 0...100_000

    static func check<T: Comparable>(_ value: T?, _ range: ClosedRange<T>, _ option: String, unit: String = "") throws {
        guard let value, !range.contains(value) else { return }
        throw ValidationError("Please give \(option) from \(range.lowerBound)\(unit) to \(range.upperBound)\(unit) (got \(value)\(unit)).")
    }

    static func check(size: ByteSize?, _ range: ClosedRange<Int>, _ option: String) throws {
        guard let size, !range.contains(size.bytes) else { return }
        throw ValidationError(
            "Please give \(option) from \(ByteSize(range.lowerBound).defaultValueDescription) to "
                + "\(ByteSize(range.upperBound).defaultValueDescription) (got \(size.given)).")
    }

    /// The chunk pool of `threads` workers with `chunkSize`-byte chunks must stay within ``chunkPoolBytes``.
    static func checkChunkPool(threads: Int, chunkSize: Int) throws {
        let slots = 2 * threads + 2
        // slots ≤ 514 and chunkSize ≤ 64 MiB (both checked before): the product fits easily in Int.
        let bytes = slots * chunkSize * 7 / 2
        guard bytes > chunkPoolBytes else { return }
        let fitting = chunkPoolBytes * 2 / (7 * slots)
        throw ValidationError(
            "Please give a smaller --chunk-size or fewer --threads: \(threads) threads with \(ByteSize(chunkSize).argument) "
                + "chunks would hold \(bytes >> 20) MiB of chunks ((2 × threads + 2) × 3.5 × chunk size), more than "
                + "\(chunkPoolBytes >> 20) MiB; with \(threads) threads the chunk size can be at most \(fitting >> 10)K.")
    }
}

/// A seed (`--seed`): any 64-bit unsigned integer. The text is kept when it is not one, so `validate()` can say
/// what is allowed (`--seed -1` used to be "Missing value for '--seed <seed>'": ArgumentParser read `-1` as
/// an option; numeric options parse `.unconditional`ly for that reason).
struct Seed: ExpressibleByArgument {
    let text: String
    /// The seed, nil when `text` is not an integer from 0 to 2⁶⁴ − 1.
    let value: UInt64?
    init(argument: String) {
        text = argument
        value = UInt64(argument)
    }
    init(_ value: UInt64) {
        text = String(value)
        self.value = value
    }
    var defaultValueDescription: String { text }

    func check(_ option: String) throws {
        guard value == nil else { return }
        throw ValidationError("Please give \(option) as a whole number from 0 to \(UInt64.max) (got \(text)).")
    }
}
