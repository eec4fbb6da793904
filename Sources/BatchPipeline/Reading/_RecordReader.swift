// MARK: Internal API
//
// The record source: the one way every command reads records (classify, evaluate, export, learn, bench).
//
//   input ─▶ _ByteSource (zstd or plain) ─▶ chunk buffer ─▶ framer (the file's driver) ─▶ chunks of whole records
//                                            ▲ carry-over: the partial record after the last boundary
//
// For each file: the first bytes choose the driver (`_Drivers.open`: format, header row; a UTF-8 byte-order
// mark is skipped), then the reader fills a chunk from the source, asks the framer for the last boundary,
// hands `[0, boundary)` over and carries the rest into the next chunk. Every chunk knows its file, its
// sequence and the decoded bytes it accounts for. The reader does not count a chunk's newlines (it was its
// last per-byte work beyond decoding, 0.35 instructions a byte, serial): line numbers are resolved by order
// (`_LineLedger`; docs/PERFORMANCE.md, "Framing on the workers").
// The first chunk of a file carries an anchor, its absolute first line (1, or a split's first line, plus the
// lines of the byte-order mark and header row, counted here because the reader takes them off); the thread
// that takes a chunk counts its newlines, in parallel, and publishes them; every later chunk's first line is
// the one before it plus that one's count, so line numbers stay exact after anything. The reader still
// counts where a case is rare and it touches the bytes anyway (a `.cut` reject, the pieces of an over-long
// record): it hands the count over with the chunk, relative like the rest, so no absolute line is needed.
// Counting these on the worker instead would save nothing measurable (they are rare and the reader copies or
// scans those bytes already) and would make the worker tell a cut chunk's reject bytes, which follow its
// records and are not in `[0, recordBytes)`, from the rest. The cases that are not plain records:
//
// - a record longer than `--max-record`: streamed out in pieces (`_Chunk.piece`), each at most a chunk, so
//   its bytes reach the rejects (or, for XML bytes that pass through, the output) in bounded memory;
// - a CSV quote that never closes: the row up to the first newline after it is rejected and the rows after
//   it are read again (`_FramerDecision.cut`);
// - damage (a truncated or corrupt archive): every record before it is handed over, the partial record at
//   the end is rejected with its bytes ("record cut off by damaged input"), the file's error is set;
// - the input ending inside an XML construct: damage with its byte offset; the bytes are still handed over.

import Dispatch
import Foundation
import ArchiveIO

/// Where the reader is, for a progress line: set by the reader thread, read by the writer.
final class _ReadProgress: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var fileIndex = 0
    private var bytesRead: Int64 = 0
    private var total: Int64?

    func start(file index: Int, total: Int64?) {
        lock.lock()
        fileIndex = index
        bytesRead = 0
        self.total = total
        lock.unlock()
    }

    func read(_ bytes: Int64) {
        lock.lock()
        bytesRead = bytes
        lock.unlock()
    }

    /// (file index, raw bytes read of it, its size when known).
    func snapshot() -> (Int, Int64, Int64?) {
        lock.lock()
        defer { lock.unlock() }
        return (fileIndex, bytesRead, total)
    }
}

/// One file being read.
final class _FileCursor {
    let index: Int
    let path: String
    let displayPath: String
    /// The decoded bytes (for a split after its first, replaced once the head has chosen the driver).
    var source: any _ByteSource
    var eof = false
    /// Why the file could not be read to its end (the source's error, or a construct left open).
    var error: String?
    var readFailed = false
    /// The absolute line of the buffer's first byte while the reader knows it: from the file's (or split's)
    /// start, with the lines of the byte-order mark and header row it took off, until its first chunk is
    /// handed over (as that chunk's anchor); nil after, when the ledger resolves lines by order.
    var line: Int? = 1
    /// The decoded offset of the buffer's first byte.
    var offset: Int64 = 0
    var state: _FileState?
    var framer: _Framer?
    var deliveredAny = false

    init(index: Int, path: String, displayPath: String, source: any _ByteSource) {
        self.index = index
        self.path = path
        self.displayPath = displayPath
        self.source = source
    }
}

final class _RecordReader {
    let inputs: [String]
    let options: _ReadOptions
    let pool: _ChunkPool
    let progress = _ReadProgress()
    let collectStats: Bool
    /// Seconds spent decoding and framing (with `collectStats`), in nanoseconds.
    private(set) var decodeNanos: UInt64 = 0
    private(set) var frameNanos: UInt64 = 0
    func addFrameNanos(_ n: UInt64) { frameNanos += n }
    private var sequence = 0
    /// The partial record after the last boundary, carried into the next chunk.
    let carryBuffer = _ByteBuffer(capacity: 64 * 1024)
    private var deliver: (_Chunk) -> Void = { _ in }
    /// Called when a file's driver is chosen, with the chunk that holds its first bytes (after a header row),
    /// before any of its chunks is handed over; a throw stops the run.
    var onOpen: ((_FileState, _Chunk) throws(PipelineError) -> Void)?
    /// Chunks handed over so far.
    var delivered: Int { sequence }
    /// Resolves the chunks' first lines by order from the counts their takers publish (``_LineLedger``).
    let lines = _LineLedger()

    init(inputs: [String], options: _ReadOptions, pool: _ChunkPool, collectStats: Bool = false) {
        self.inputs = inputs
        self.options = options
        self.pool = pool
        self.collectStats = collectStats
        pool.overLongBudget = options.maxRecord
        _ = _returnLargeBlocks
    }

    /// The name an input goes by in counts, rejects and errors.
    func displayName(_ path: String) -> String { path == "-" ? options.stdinName : path }

    /// Reads every input in order, handing each chunk to `deliver` in sequence; stops early when `shouldStop`
    /// says so. Returns the number of chunks handed over.
    ///
    /// - Throws: ``PipelineError``: an input that cannot be opened (missing), a file that cannot be read as
    ///   asked (no body column, a header row longer than `--max-record`). Chunks handed over before stay so.
    func run(shouldStop: () -> Bool, deliver: (_Chunk) -> Void) throws(PipelineError) -> Int {
        try withoutActuallyEscaping(deliver) { deliver throws(PipelineError) in
            self.deliver = deliver
            defer { self.deliver = { _ in } }
            try readAll(shouldStop: shouldStop)
        }
        return sequence
    }

    private func readAll(shouldStop: () -> Bool) throws(PipelineError) {
        for (index, path) in inputs.enumerated() {
            if shouldStop() { break }
            let total = path == "-" ? nil : (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? nil
            if let split = options.split {
                try readSplit(index, path, split, shouldStop: shouldStop)
                continue
            }
            progress.start(file: index, total: total)
            let source: any _ByteSource
            do {
                source = try _ByteSources.open(
                    path, stdinName: options.stdinName, maxWindowBytes: options.maxWindowBytes, threads: options.decodeThreads)
            } catch {
                throw PipelineError(error.code == .unsupportedInput ? .badInput : .inputMissing, error.description)
            }
            carryBuffer.removeAll()
            let cursor = _FileCursor(index: index, path: path, displayPath: displayName(path), source: source)
            try readFile(cursor, shouldStop: shouldStop)
        }
    }

    func hand(_ chunk: _Chunk, _ cursor: _FileCursor) {
        chunk.file = cursor.state
        chunk.sequence = sequence
        sequence += 1
        chunk.lines = lines
        chunk.lineAnchor = cursor.line
        cursor.line = nil
        if !cursor.deliveredAny {
            chunk.isFirstOfFile = true
            cursor.deliveredAny = true
        }
        if chunk.overLongBytes > 0 && chunk.piece == nil {
            // Room for the decoded strings the parser writes after the records (`_ParseScratch.parse`), made
            // here while the chunk holds its share of the over-long budget: a worker never grows a buffer.
            chunk.input.removeLast(from: chunk.recordBytes)
            chunk.input.reserve(chunk.recordBytes + 16)
        }
        if collectStats { chunk.queuedAt = DispatchTime.now().uptimeNanoseconds }
        chunk._checkInvariants()
        deliver(chunk)
    }

    func readFile(_ cursor: _FileCursor, shouldStop: () -> Bool) throws(PipelineError) {
        while true {
            if shouldStop() { return }
            let chunk = pool.take()
            pool.admit(chunk, inputBytes: carryBuffer.count)
            chunk.input.append(carryBuffer)
            carryBuffer.removeAll()
            carryBuffer.shrink(to: max(64 * 1024, 2 * options.chunkSize))
            if cursor.state == nil {
                do throws(PipelineError) { try open(cursor, chunk) } catch {
                    pool.put(chunk)
                    throw error
                }
            }
            let step = frame(cursor, chunk)
            switch step {
            case .records(let boundary, _): handOverRecords(chunk, cursor, upTo: boundary)
            case .cut(let recordsEnd, let rejectEnd, let reason, let category):
                handOverCut(chunk, cursor, recordsEnd: recordsEnd, rejectEnd: rejectEnd, reason: reason, category: category)
            case .stream(let passThrough, let mms):
                stream(chunk, cursor, passThrough: passThrough, mms: mms)
                continue
            }
            if cursor.eof && carryBuffer.count == 0 {
                finish(chunk, cursor)
                hand(chunk, cursor)
                return
            }
            hand(chunk, cursor)
        }
    }

    /// Fills `chunk` from the source up to `limit` bytes (or the end of the input).
    /// Past the chunk size, the bytes beyond it are taken from the pool's over-long budget first (this may
    /// wait for chunks in flight to be written).
    func fill(_ chunk: _Chunk, _ cursor: _FileCursor, limit: Int) {
        if limit > options.chunkSize { pool.admit(chunk, inputBytes: limit) }
        while chunk.input.count < limit && !cursor.eof {
            let t0 = collectStats ? DispatchTime.now().uptimeNanoseconds : 0
            do {
                try chunk.input.appendWithUnsafeSpace(upTo: limit) { room throws(ZstdError) in
                    let n = try cursor.source.read(into: room)
                    if n == 0 { cursor.eof = true }
                    return n
                }
            } catch {
                cursor.error = error.description
                cursor.readFailed = true
                cursor.eof = true
            }
            if collectStats { decodeNanos += DispatchTime.now().uptimeNanoseconds - t0 }
            progress.read(cursor.source.compressedBytesConsumed)
        }
    }

    /// Takes `count` bytes off the front of the chunk (a byte-order mark, a header row): they count as read.
    private func consumeFront(_ chunk: _Chunk, _ cursor: _FileCursor, _ count: Int) {
        guard count > 0 else { return }
        // Counted here: the reader knows the file's first line (the anchor of its first chunk), and these
        // few bytes are before it.
        cursor.line = cursor.line.map { $0 + chunk.input.withUnsafeBytes { _countNewlines($0, from: 0, to: count) } }
        cursor.offset += Int64(count)
        chunk.decodedBytes += count
        chunk.input.removeFirst(count)
    }

    /// The file's first bytes: skip a byte-order mark, choose the driver, take the header row off.
    func open(_ cursor: _FileCursor, _ chunk: _Chunk) throws(PipelineError) {
        var limit = options.chunkSize
        fill(chunk, cursor, limit: limit)
        let hadBOM = chunk.input.withUnsafeBytes { b in b.count >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF }
        if hadBOM { consumeFront(chunk, cursor, 3) }
        let name: String? = cursor.path == "-" ? (options.stdinName == "<stdin>" ? nil : options.stdinName) : cursor.path
        while true {
            let opening = chunk.input.withUnsafeBytes {
                _Drivers.open($0, eof: cursor.eof, name: name, displayName: cursor.displayPath, options: options)
            }
            switch opening {
            case .failed(let message):
                throw PipelineError(.badInput, message)
            case .needMore:
                if chunk.input.count >= options.maxRecord {
                    throw PipelineError(.badInput, "\(cursor.displayPath): the header row is longer than --max-record")
                }
                limit = min(limit * 2, options.maxRecord + options.chunkSize)
                fill(chunk, cursor, limit: limit)
            case .ready(let driver, let headerBytes):
                cursor.state = _FileState(index: cursor.index, path: cursor.path, displayPath: cursor.displayPath, driver: driver, hadBOM: hadBOM)
                cursor.framer = driver.makeFramer()
                if let split = options.split, split.isPartial, !_SplitSource.reads(driver.format) {
                    throw PipelineError(.usage, _SplitSource.refusal(cursor.displayPath, driver.format))
                }
                consumeFront(chunk, cursor, headerBytes)
                try onOpen?(cursor.state!, chunk)
                return
            }
        }
    }
}
