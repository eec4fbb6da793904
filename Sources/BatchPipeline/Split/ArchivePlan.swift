import Foundation
import ArchiveIO

/// How an archive can be cut into splits that separate `classify --range` runs read (`smsfilter plan`): one
/// archive across a cluster.
///
/// zstd archives can be cut only at frame boundaries (a frame decodes on its own; a block needs the blocks
/// before it). The frames come from ``ZstdFrameIndex`` (the seek table, or the frame and block headers: no
/// decoding), and are taken in order into splits of at least ``Options/splitSize`` decoded bytes each. A
/// split is ready for `classify --range START:END`; the records that cross its edges are read by the split
/// they start in, so the splits' outputs, joined in order, are one whole-archive run's.
///
/// Not splittable, said in ``reason`` (one split of the whole file): a single-frame zstd archive, gzip and
/// plain input (no frame boundaries), and CSV or XML records (where a record starts depends on every byte
/// before it: `_SplitSource.reads`).
///
/// Decoded sizes are exact when the frames say them (the seek table, or a content size in each frame header:
/// smsfilter's and zstd's own outputs); otherwise (pzstd, `cat` of streamed frames) they are estimated from
/// the first such frame's ratio, and `countLines` decodes every split to make them exact. `countLines` also
/// counts each split's newlines, which gives every split the archive's line number of its first byte
/// (`classify --first-line`), so that splits write the archive's line numbers without decoding what comes
/// before them.
public struct ArchivePlan: Sendable, Equatable {
    public struct Options: Sendable {
        /// Decoded bytes per split, at least (the last split holds what is left).
        public var splitSize: Int64 = 256 << 20
        /// How the archive's records are read, as classify reads them: of it a plan uses the record format
        /// (`input.inputFormat`; nil: guessed from the name and first bytes) and the zstd window cap
        /// (`input.maxWindowBytes`).
        public var input = RecordFormat()
        /// Decode every split: exact decoded sizes, newlines and first lines.
        public var countLines = false
        /// Plan only the frames in this range of the archive (frame boundaries); nil: the whole archive.
        public var range: Range<Int64>?
        /// Decoding threads for `countLines` (and the first frame of unknown size).
        public var threads = 1

        public init() {}
    }

    /// One split: the compressed bytes `start..<end` (frame boundaries) and what they decode to.
    public struct Split: Sendable, Equatable {
        public var start: Int64
        public var end: Int64
        /// Its frames: `firstFrame ..< firstFrame + frames` of the archive.
        public var firstFrame: Int
        public var frames: Int
        /// Decoded bytes before the split, when every frame before it says its size (or was decoded).
        public var decodedStart: Int64?
        /// Decoded bytes of its frames: exact (`decodedExact`) or estimated.
        public var decodedBytes: Int64
        public var decodedExact: Bool
        /// With `countLines`: the newlines in its decoded bytes, and the archive's line number of its first
        /// byte (when the plan starts at the archive's start).
        public var lines: Int?
        public var firstLine: Int?
        /// With `countLines`: why its frames could not all be decoded (damage); the counts stop there.
        public var error: String?
    }

    public var archive: String
    /// The archive's size in bytes.
    public var compressedBytes: Int64
    /// What the file is: "zstd", "gzip" or "plain".
    public var container: String
    public var format: InputFormat
    /// zstd: its frames, where they were found, and where the walk of the headers stopped (damage), if it did.
    public var frames: Int
    public var frameIndex: String?
    public var walkStopped: String?
    public var splitSize: Int64
    /// Whether the archive can be read in several splits; `reason` says why not (or why one split is all).
    public var splittable: Bool
    public var reason: String?
    public var splits: [Split]

    /// The decoded bytes of the planned frames (estimated when a split's are).
    public var decodedBytes: Int64 { splits.reduce(0) { $0 + $1.decodedBytes } }
    /// Whether every decoded size is exact.
    public var decodedExact: Bool { splits.allSatisfy(\.decodedExact) }
    /// With `countLines`: the newlines of the planned frames.
    public var lines: Int? { splits.contains { $0.lines == nil } ? nil : splits.reduce(0) { $0 + $1.lines! } }
    /// Whether `countLines` met damage.
    public var damaged: Bool { splits.contains { $0.error != nil } }

    /// Plans the archive at `path`.
    ///
    /// - Throws: ``PipelineError``: the archive is missing or unreadable (input missing), it is something
    ///   smsfilter does not read (bad input), `range` is not two frame boundaries (usage).
    public static func make(path: String, options: Options = Options()) throws(PipelineError) -> ArchivePlan {
        try _SeekableInput.check(path, for: "plan")
        let size: Int64
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        } catch {
            throw PipelineError(.inputMissing, "\(path): no such file")
        }
        let (container, format) = try head(path, options)
        var plan = ArchivePlan(
            archive: path, compressedBytes: size, container: container, format: format, frames: 0, frameIndex: nil,
            walkStopped: nil, splitSize: options.splitSize, splittable: false, reason: nil,
            splits: [Split(start: 0, end: size, firstFrame: 0, frames: 0, decodedStart: 0, decodedBytes: 0, decodedExact: false)])
        guard container == "zstd" else {
            plan.reason =
                container == "gzip"
                ? "gzip: one stream with no points where decoding can start; recompress it in frames "
                    + "(gzip -dc x.gz | pzstd -o x.zst)"
                : "plain (uncompressed) input: smsfilter splits zstd archives only; compress it in frames (pzstd)"
            return plan
        }
        let found: ZstdFrameIndex?
        do {
            found = try ZstdFrameIndex.read(path: path)
        } catch {
            throw PipelineError(.inputMissing, error.description)
        }
        guard let index = found else {
            plan.reason = "no zstd frame at its start"
            return plan
        }
        plan.frameIndex = index.source.rawValue
        plan.walkStopped = index.stop.map { "at byte \($0.offset): \($0.reason)" }
        let range = options.range ?? 0..<index.fileSize
        for (name, offset) in [("START", range.lowerBound), ("END", range.upperBound)] where !index.isBoundary(offset) {
            throw PipelineError(.usage, "\(path): --range \(name) \(offset) is not a frame boundary")
        }
        let first = index.frameIndex(startingAt: range.lowerBound) ?? index.frames.count
        let last = index.frameIndex(startingAt: range.upperBound) ?? index.frames.count
        let frames = Array(index.frames[first..<last])
        plan.frames = frames.count
        plan.splits[0] = Split(
            start: range.lowerBound, end: range.upperBound, firstFrame: first, frames: frames.count,
            decodedStart: range.lowerBound == 0 ? 0 : nil, decodedBytes: 0, decodedExact: false)
        if index.frames.count == 1 {
            plan.reason =
                "one zstd frame: zstd archives can be cut only between frames; write the archive in frames "
                + "(pzstd; smsfilter's .zst outputs, which are seekable; or pieces compressed one by one and concatenated)"
        } else if !_SplitSource.reads(format) {
            plan.reason = _SplitSource.refusal(path, format)
        } else {
            plan.splittable = true
        }
        let sizes = estimatedSizes(path, index, options)
        if plan.splittable {
            plan.splits = group(
                frames, firstFrame: first, sizes: sizes[first..<last], options.splitSize, startsArchive: range.lowerBound == 0)
            if plan.splits.count == 1 {
                plan.reason = "one split: its \(frames.count) frames decode to less than --split-size \(options.splitSize) bytes"
            }
        } else {
            plan.splits = group(frames, firstFrame: first, sizes: sizes[first..<last], Int64.max, startsArchive: range.lowerBound == 0)
        }
        if options.countLines { plan.count(path, options, startsArchive: range.lowerBound == 0) }
        return plan
    }

    /// What the file is and its record format, from its first decoded bytes (as classify sees them).
    private static func head(_ path: String, _ options: Options) throws(PipelineError) -> (String, InputFormat) {
        let source: any _ByteSource
        do {
            source = try _ByteSources.open(path, stdinName: path, maxWindowBytes: options.input.maxWindowBytes, threads: 1)
        } catch {
            throw PipelineError(error.code == .unsupportedInput ? .badInput : .inputMissing, error.description)
        }
        var bytes = [UInt8](repeating: 0, count: 64 << 10)
        var count = 0
        while count < bytes.count {
            let n = (try? bytes.withUnsafeMutableBytes { raw in
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[count...]))
            }) ?? 0
            if n == 0 { break }
            count += n
        }
        // A compressed input's decoder comes wrapped in `_DecodedPrefix` (its first decoded bytes checked).
        let decoder = (source as? _DecodedPrefix)?.inner ?? source
        let container = decoder is GzipDecoder ? "gzip" : decoder.isCompressed == true ? "zstd" : "plain"
        let format =
            options.input.inputFormat ?? bytes.withUnsafeBytes { InputFormat.sniff(UnsafeRawBufferPointer(rebasing: $0[..<count]), path: path) }
        return (container, format)
    }

    /// Each frame's decoded size: known, or estimated from the compression ratio of the first frame of unknown
    /// size (decoded once, at most 64 MiB of it).
    private static func estimatedSizes(_ path: String, _ index: ZstdFrameIndex, _ options: Options) -> [(Int64, Bool)] {
        var ratio: Double?
        return index.frames.map { frame in
            if let size = frame.decodedSize { return (size, true) }
            if ratio == nil { ratio = measuredRatio(path, frame, options) }
            return (Int64(Double(frame.end - frame.start) * ratio!), false)
        }
    }

    private static func measuredRatio(_ path: String, _ frame: ZstdFrameIndex.Frame, _ options: Options) -> Double {
        var one = ZstdParallelDecoder.Options(maxWindowBytes: options.input.maxWindowBytes, threads: 1, streamingWhenSingleThreaded: false)
        one.framesInFlight = 1
        guard let decoder = try? ZstdParallelDecoder(path: path, range: frame.start..<frame.end, options: one) else { return 4 }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var decoded: Int64 = 0
        while decoded < 64 << 20, let n = try? decoder.read(into: buffer), n > 0 { decoded += Int64(n) }
        let consumed = decoder.compressedBytesConsumed - frame.start
        return consumed > 0 && decoded > 0 ? Double(decoded) / Double(consumed) : 4
    }

    /// Frames in order into splits of at least `splitSize` decoded bytes.
    private static func group(
        _ frames: [ZstdFrameIndex.Frame], firstFrame: Int, sizes: ArraySlice<(Int64, Bool)>, _ splitSize: Int64, startsArchive: Bool
    ) -> [Split] {
        var splits: [Split] = []
        var decodedStart: Int64? = startsArchive ? 0 : nil
        var k = 0
        while k < frames.count {
            var split = Split(
                start: frames[k].start, end: frames[k].end, firstFrame: firstFrame + k, frames: 0, decodedStart: decodedStart,
                decodedBytes: 0, decodedExact: true)
            while k < frames.count && (split.frames == 0 || split.decodedBytes < splitSize) {
                let (size, exact) = sizes[sizes.startIndex + k]
                split.end = frames[k].end
                split.frames += 1
                split.decodedBytes += size
                split.decodedExact = split.decodedExact && exact
                k += 1
            }
            decodedStart = split.decodedExact ? decodedStart.map { $0 + split.decodedBytes } : nil
            splits.append(split)
        }
        return splits
    }

    /// Decodes every split: exact decoded sizes, newlines, first lines.
    private mutating func count(_ path: String, _ options: Options, startsArchive: Bool) {
        let decoding = ZstdParallelDecoder.Options(
            maxWindowBytes: options.input.maxWindowBytes, threads: max(1, options.threads), streamingWhenSingleThreaded: false)
        var line: Int? = startsArchive ? 1 : nil
        var decoded: Int64? = startsArchive ? 0 : nil
        for k in splits.indices {
            let scan = _SplitSource.scan(path, splits[k].start..<splits[k].end, decoding)
            splits[k].lines = scan.newlines
            splits[k].firstLine = line
            splits[k].decodedStart = decoded
            splits[k].decodedBytes = scan.bytes
            splits[k].decodedExact = scan.error == nil
            splits[k].error = scan.error?.description
            line = line.map { $0 + scan.newlines }
            decoded = scan.error == nil ? decoded.map { $0 + scan.bytes } : nil
        }
    }
}
