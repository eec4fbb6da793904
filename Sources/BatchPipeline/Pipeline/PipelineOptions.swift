import MessageFilter
import ArchiveIO

/// Settings of one `classify` run.
public struct PipelineOptions: Sendable {
    /// How the inputs' records are read: format, fields, header row, `--max-record`, the stdin name.
    public var input = RecordFormat()
    /// The format labelled records are written in; nil: the first input's (records of other formats are
    /// converted). An output name whose suffix says another format is refused.
    public var outputFormat: InputFormat?
    /// Where labelled records go: a path, `-` for standard output, nil for nowhere (counts only).
    public var outputPath: String?
    /// Compression level of the output: zstd (−7 to 19), or gzip (1 to 9) for a name ending in `.gz`; nil:
    /// level 1 when the name ends in `.zst` or `.gz`, else plain. A level with any other name is zstd.
    public var outputLevel: Int32?
    /// zstd compression threads for the output (0: the writer thread compresses).
    public var compressionWorkers = 0
    /// zstd outputs (records and rejects): decoded bytes per frame in zstd's seekable format (frames and a
    /// seek table, ``ZstdSeekableEncoder``; the same bytes whatever the thread count); nil: one frame.
    public var outputFrameSize: Int? = ZstdSeekableEncoder.defaultFrameSize
    /// Write one small `{"id": …, "filter": {…}}` line per record instead of whole records.
    public var labelsOnly = false
    /// The key (JSON), column prefix (CSV/TSV) or attribute prefix (XML) of the added labels.
    public var filterKey = "filter"
    /// Add the deciding phrase and its byte span to each label.
    public var explain = false
    /// Worker threads.
    public var threads = 2
    /// Bytes of whole records handed to a worker at a time.
    public var chunkSize = 1 << 20

    /// The chunk size that keeps the chunk pool (`2 × threads + 2` slots of about 3.5 chunks each) within
    /// 10.5 MiB: 768 KiB at 1 thread, 512 KiB at 2, less with more threads, never below 256 KiB (from 5
    /// threads on). A chunk of 512 KiB is still about 10^8 instructions of work against a few microseconds of
    /// hand-over; 1 MiB up to 3 threads, as before, cost 8–10 MB of resident memory at 2 threads for no
    /// speed (docs/PERFORMANCE.md, "Memory, 1 GB and 8 GB").
    public static func defaultChunkSize(threads: Int) -> Int {
        let slots = 2 * max(1, threads) + 2
        let fitting = (21 << 20) / (7 * slots)
        return min(1 << 20, max(256 << 10, fitting))
    }
    /// The default compression workers of a `.zst` output for `threads` worker threads: none with one thread
    /// (the writer compresses), then one per 8 threads. Compressing at level 1 is about 19 instructions per
    /// byte against about 190 for the rest of the job with the default model (docs/PERFORMANCE.md, "The
    /// scaling model"), so one worker keeps ahead of 8 classify threads; each worker holds a frame buffer
    /// (4 MiB at the default `--frame-size`) and a context: `threads` workers, as before, were 4.6 MB of peak
    /// resident memory more at 2 threads for no speed. The bytes written are the same for any count.
    public static func defaultCompressionWorkers(threads: Int) -> Int {
        threads > 1 ? (threads + 7) / 8 : 0
    }
    /// Stop at the first malformed record (exit 65) instead of rejecting it and going on.
    public var strict = false
    /// Where rejected records go (JSON Lines with file, line and reason); nil: nowhere (still counted).
    public var rejectsPath: String?
    /// The most bytes the rejects file holds: rejects are written whole while each whole line fits in half of
    /// it (an over-long record's line cut there, its first bytes, length and SHA-256), then as short lines (the
    /// first 256 bytes, the length and the SHA-256 of each, ``RunCounts/rejectsShortened``) while each fits in
    /// all of it, then only counted (``RunCounts/rejectsOmitted``).
    public var maxRejectsBytes: Int64 = 1 << 30
    /// What the output and rejects files do with a regular file already at their path (``OutputFile/Existing``).
    public var existing = OutputFile.Existing.replace
    /// Called once every record is written and the counts are final (accounting invariant checked), before
    /// the output and rejects are put in place; a throw abandons them, so nothing that looks finished is
    /// left. `classify` writes its `--counts` file here.
    public var beforeCommit: (@Sendable (RunCounts) throws(PipelineError) -> Void)?
    /// Time each stage and each chunk's latency (``RunResult/stages``, ``RunResult/chunkLatencies``).
    public var collectStats = false
    /// Called on the writer thread about four times a second with the progress so far.
    public var progress: (@Sendable (Progress) -> Void)?
    /// Read only one split of the input, a multi-frame zstd archive (`classify --range`); nil: all of it.
    public var split: ArchiveSplit?

    public init() {}

    /// How the labelled output at `path` is compressed (SPEC §7: a name ending in `.gz` is gzip, `.zst`
    /// zstd; ``outputLevel`` with any other name asks for zstd).
    public func outputCompression(_ path: String) -> OutputFile.Compression {
        switch OutputFile.compression(namedBy: path) {
        case .gzip:
            return .gzip(level: outputLevel ?? 1)
        case .zstd:
            return .zstd(level: outputLevel ?? 1, workers: Int32(compressionWorkers), frameSize: outputFrameSize)
        case .none:
            return outputLevel.map { .zstd(level: $0, workers: Int32(compressionWorkers), frameSize: outputFrameSize) } ?? .none
        }
    }

    /// How the rejects at `path` are compressed: by the name only (zstd level 3, gzip level 6).
    public func rejectsCompression(_ path: String) -> OutputFile.Compression {
        switch OutputFile.compression(namedBy: path) {
        case .gzip: return .gzip(level: 6)
        case .zstd: return .zstd(level: 3, workers: 0, frameSize: outputFrameSize)
        case .none: return .none
        }
    }

    /// What the record reader needs from these options.
    var readOptions: _ReadOptions {
        var r = _ReadOptions(input)
        r.chunkSize = chunkSize
        r.filterKey = filterKey
        return r
    }
}

/// One split of a multi-frame zstd archive, as `smsfilter plan` lists them (`classify --range START:END`).
///
/// The run reads the records that *start* in the frames between the compressed offsets `start` and `end`
/// (frame boundaries): a record that crosses `end` is read on to its end, one that crosses `start` is left to
/// the split before. Outputs, rejects and counts of all the splits of an archive, joined in order, are those
/// of one run over the whole archive (`merge-counts` joins the counts). JSON Lines and TSV only.
public struct ArchiveSplit: Sendable, Equatable {
    public var start: Int64
    public var end: Int64
    /// The archive's line number of the split's first decoded byte (`plan --lines`); nil: the lines before
    /// `start` are counted by decoding them, when line numbers reach an output (rejects, `--labels-only`,
    /// `--strict`).
    public var firstLine: Int?
    /// The largest `firstLine` (2^62): no archive has that many lines (one a byte would be 4 EiB), and a line
    /// number counted on from it cannot overflow (`_LineLedger` adds each chunk's newlines).
    public static let maxFirstLine = 1 << 62

    public init(start: Int64, end: Int64, firstLine: Int? = nil) {
        self.start = start
        self.end = end
        self.firstLine = firstLine
    }
}

/// A snapshot of a running job, for a progress line.
public struct Progress: Sendable {
    public var records: Int
    public var rejected: Int
    /// Decoded bytes written through the pipeline so far.
    public var bytes: Int64
    /// Raw bytes read from the current input and its size when known (for an ETA).
    public var inputBytesRead: Int64
    public var inputBytesTotal: Int64?
    public var fileIndex: Int
    public var fileCount: Int
    public var seconds: Double
}

/// What a finished run reports.
public struct RunResult: Sendable {
    public var counts: RunCounts
    /// An input was damaged or could not be read to its end (exit 65); its file entry says why.
    public var damaged: Bool
    /// With `collectStats`: seconds spent per stage, summed over threads (`decode`, `frame`, `parse`,
    /// `match`, `emit`, `write`).
    public var stages: [String: Double] = [:]
    /// With `collectStats`: seconds from each chunk's queueing to its being written, in input order.
    public var chunkLatencies: [Double] = []
}
