// MARK: Internal API
//
// One split of a multi-frame zstd archive (`classify --range START:END`): the decoded bytes of the records
// that *start* in the frames `[START, END)`, for the line-framed formats (JSON Lines, TSV), where a record
// starts at the archive's first byte or just after a newline, whatever came before.
//
//   decoded:  … split k−1 ──────────┊ cord⏎ record⏎ … record⏎ rec┊ord⏎ split k+1 …
//                                   ┊└┬──┘                     └─┊┬──┘
//                            START's decoded offset   skipped: split k−1's   read on past END to the record's end
//
// - The start: when the byte before the split is not a newline, the split begins inside a record that split
//   k−1 owns, and skips through the first newline (a CR before it is part of that record's terminator). To
//   know that byte, the frames just before START are decoded (usually one frame; frames that decode to
//   nothing are passed over). When no newline comes before END, a record spans the whole split: it owns
//   nothing.
// - The end: the split's own frames are decoded up to END; if its last byte is not a newline, the record
//   that started in it goes on in the next frames, which are decoded until the newline that ends it (or the
//   end of the archive). A record longer than a split is read through every split it covers.
// - Line numbers: the archive's line of the split's first byte, given (`--first-line`, from `plan --lines`)
//   or, when line numbers reach an output, counted by decoding every frame before START.
//
// Together the splits of an archive hand over every decoded byte of it once (the bytes before the first
// record of split k are split k−1's), so records, counts and rejects add up to one whole-archive run.

import ArchiveIO

final class _SplitSource: _ByteSource {
    private enum State { case skipping, own, tail, done }

    let path: String
    let split: _ReadSplit
    private let options: ZstdParallelDecoder.Options
    private var state: State
    private let own: ZstdParallelDecoder
    private var tail: ZstdParallelDecoder?
    /// The last byte handed out (or skipped) is not a newline: a record is still open.
    private var recordOpen = false
    private var ownFinished = false
    /// No decoded byte comes before the split (it starts the archive's decoded stream): the reader opens the
    /// file here (byte-order mark, header row) as it would at offset 0.
    let startsFile: Bool
    /// The archive's line number of the first byte handed out.
    let firstLine: Int

    /// - Throws: `ZstdError` when the archive cannot be opened, or the frames before the split cannot be
    ///   decoded (damage there: whether a record starts at the split cannot be known).
    init(path: String, split: _ReadSplit, threads: Int, maxWindowBytes: Int) throws(ZstdError) {
        self.path = path
        self.split = split
        options = ZstdParallelDecoder.Options(maxWindowBytes: maxWindowBytes, threads: threads, streamingWhenSingleThreaded: false)
        var line = split.firstLine ?? 1
        var before: UInt8?
        if split.start > 0 {
            if split.firstLine == nil && split.linesMatter {
                let prefix = Self.scan(path, 0..<split.start, options)
                if let error = prefix.error { throw error }
                line = 1 + prefix.newlines
                before = prefix.last
            } else {
                before = try Self.lastByte(path, before: split.start, split.index, options)
            }
        }
        startsFile = before == nil
        let startsAtRecord = before == nil || before == 0x0A
        firstLine = line + (startsAtRecord ? 0 : 1)
        state = startsAtRecord ? .own : .skipping
        own = try ZstdParallelDecoder(path: path, range: split.start..<split.end, options: options)
    }

    var isCompressed: Bool? { true }

    /// The split's own compressed bytes consumed (all of them once its frames are decoded), whatever was read
    /// past its end: the splits of an archive add up to the archive's size.
    var compressedBytesConsumed: Int64 {
        ownFinished ? split.end - split.start : max(0, min(split.end, own.compressedBytesConsumed) - split.start)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int {
        while true {
            switch state {
            case .done:
                return 0
            case .skipping:
                let n = try own.read(into: buffer)
                guard n > 0 else {
                    // No newline before END: a record that started before the split covers all of it.
                    ownFinished = true
                    state = .done
                    return 0
                }
                let bytes = UnsafeRawBufferPointer(buffer)
                guard let newline = _find(0x0A, in: bytes, from: 0, to: n) else { continue }
                state = .own
                let rest = n - (newline + 1)
                guard rest > 0 else { continue }
                buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + newline + 1, byteCount: rest)
                recordOpen = buffer[rest - 1] != 0x0A
                return rest
            case .own:
                let n = try own.read(into: buffer)
                if n > 0 {
                    recordOpen = buffer[n - 1] != 0x0A
                    return n
                }
                ownFinished = true
                guard recordOpen, split.end < split.index.fileSize else {
                    state = .done
                    return 0
                }
                tail = try ZstdParallelDecoder(path: path, range: split.end..<split.index.fileSize, options: options)
                state = .tail
            case .tail:
                let n = try tail!.read(into: buffer)
                if n == 0 {
                    state = .done
                    return 0
                }
                if let newline = _find(0x0A, in: UnsafeRawBufferPointer(buffer), from: 0, to: n) {
                    state = .done
                    tail = nil
                    return newline + 1
                }
                return n
            }
        }
    }

    // MARK: Decoding what comes before a split

    /// What the frames of a range decode to, as far as they decode.
    struct Scan {
        var newlines = 0
        /// The last decoded byte (nil: none).
        var last: UInt8?
        var bytes: Int64 = 0
        /// Why the frames could not be decoded to the end of the range (the counts above stop there).
        var error: ZstdError?
    }

    /// Decodes the frames of `range` and counts their newlines and bytes (`plan --lines`, the lines before a
    /// split).
    static func scan(_ path: String, _ range: Range<Int64>, _ options: ZstdParallelDecoder.Options) -> Scan {
        var scan = Scan()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        do throws(ZstdError) {
            let decoder = try ZstdParallelDecoder(path: path, range: range, options: options)
            while true {
                let n = try decoder.read(into: buffer)
                if n == 0 { break }
                scan.newlines += _countNewlines(UnsafeRawBufferPointer(buffer), from: 0, to: n)
                scan.last = buffer[n - 1]
                scan.bytes += Int64(n)
            }
        } catch {
            scan.error = error
        }
        return scan
    }

    /// The decoded byte just before the frame at `offset`: the last byte of the nearest frame before it that
    /// decodes to something; nil when none does (the split starts the decoded stream). When that frame is
    /// damaged the byte cannot be known: the split is taken to start inside a record (a record that starts
    /// exactly there is then lost, as everything after damage is in a whole-archive run).
    static func lastByte(
        _ path: String, before offset: Int64, _ index: ZstdFrameIndex, _ options: ZstdParallelDecoder.Options
    ) throws(ZstdError) -> UInt8? {
        var k = (index.frameIndex(startingAt: offset) ?? index.frames.count) - 1
        var one = options
        one.threads = 1
        while k >= 0 {
            let frame = index.frames[k]
            let scanned = scan(path, frame.start..<frame.end, one)
            if let error = scanned.error {
                guard error.code == .corrupt || error.code == .truncated || error.code == .windowTooLarge else { throw error }
                return 0  // not a newline
            }
            if let last = scanned.last { return last }
            k -= 1
        }
        return nil
    }

    // MARK: Formats

    /// Whether a split can find its first record without reading the archive from its start: only where a
    /// record always starts after a newline (JSON Lines, TSV). A CSV newline may be inside a quoted field, and
    /// whether it is depends on every quote before it; XML records sit inside constructs (comments, CDATA)
    /// that may open before the split.
    static func reads(_ format: InputFormat) -> Bool { format == .jsonl || format == .tsv }

    static func refusal(_ name: String, _ format: InputFormat) -> String {
        let why =
            format == .csv
            ? "a CSV newline may be inside a quoted field, which only a read from the start of the archive can tell"
            : "an XML record may sit inside a construct that opened before the range"
        return "\(name): --range reads JSON Lines and TSV archives only, and this is \(format.rawValue.uppercased()): "
            + "\(why); classify it whole"
    }
}
