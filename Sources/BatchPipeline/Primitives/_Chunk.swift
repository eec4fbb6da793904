// MARK: Internal API
//
// Chunks and worker contexts: the reusable memory of the pipeline.
//
//   reader ──▶ [chunk pool: fixed slots] ──▶ workers (classify) ──▶ ordered writer ──▶ back to the pool
//
// A chunk slot is owned by exactly one thread at a time: the reader fills it, hands it to a worker
// through `_WorkQueue`, the worker hands it to the writer through `_OrderedCompletion`, and the writer
// returns it to `_ChunkPool`. Every hand-over passes through a lock, so the `@unchecked Sendable` on these
// classes is sound: no two threads touch a slot's fields at once.

import Foundation
import MessageFilter

/// A rejected record, before the writer gives it its absolute line number.
struct _Reject {
    /// Newlines between the chunk's start and the record's start.
    var relativeLine: Int
    var reason: String
    /// A short name of the reason, for the counts of `evaluate`, `export` and `learn` ("invalid JSON").
    var category: String
    /// The record's bytes.
    var raw: [UInt8]
    /// The record's length in bytes.
    var length: Int
    /// Where the record starts in its chunk: the order of the chunk's rejects (a record refused when it is
    /// written, after the parser's rejects were made, is put back in its place).
    var offset = 0
}

/// One piece of a record longer than `--max-record`, streamed through in chunks (`_Chunk.piece`): its bytes
/// are the chunk's `[0, recordBytes)`. The writer copies them into the rejects as they come (or, for bytes
/// that pass through, into the output), so memory stays bounded and no byte is lost.
struct _Piece {
    var isFirst: Bool
    var isLast: Bool
    /// Not a record: bytes that pass through to the output (an over-long XML tag other than `<sms>`).
    var passThrough: Bool
    /// Newlines in the record's earlier pieces: the record's line is the chunk's first line minus these
    /// (the record starts at the first piece's first byte).
    var linesBefore: Int
    /// The record's length so far (its whole length on the last piece).
    var length: Int
    var reason: String
}

/// Per-chunk counters, merged by the writer.
struct _ChunkCounts {
    var records = 0
    var labelled = 0
    var rejected = 0
    var blank = 0
    /// XML `<mms>` elements passed through.
    var mms = 0
    var folders: [Int]
    var rules: [Int]
    var noRule = 0
    var invalidPair = 0
    var notDeclared = 0

    init(folders: Int, rules: Int) {
        self.folders = Array(repeating: 0, count: folders)
        self.rules = Array(repeating: 0, count: rules)
    }

    mutating func reset() {
        records = 0
        labelled = 0
        rejected = 0
        blank = 0
        mms = 0
        for i in folders.indices { folders[i] = 0 }
        for i in rules.indices { rules[i] = 0 }
        noRule = 0
        invalidPair = 0
        notDeclared = 0
    }
}

/// A slot of the chunk pool.
final class _Chunk: @unchecked Sendable {
    /// Decoded input: whole records in `[0, recordBytes)`; parsers write decoded strings after them.
    let input: _ByteBuffer
    var recordBytes = 0
    /// Output of this chunk (labelled records, training-set lines…).
    let output: _ByteBuffer
    var rejects: [_Reject] = []
    /// A record the reader rejected after all of the chunk's records (a CSV quote that never closed, a record
    /// cut off by damage).
    var tailReject: _Reject?
    var counts: _ChunkCounts
    var sequence = 0
    /// The file the bytes come from: a `_FileState`, read and set through `file` (Formats), held here as an
    /// object so that the primitives know nothing of formats.
    var fileObject: AnyObject?
    /// The parser's starting state (XML: the chunk begins inside a comment, CDATA or instruction).
    var entryState: UInt8 = 0
    /// The absolute 1-based line of the chunk's first byte when the reader knows it (the first chunk of a
    /// file); otherwise the ledger resolves it by order (``firstLine()``).
    var lineAnchor: Int?
    /// The newlines of the bytes the chunk takes from the file (its records, and a `.cut` reject after them)
    /// when the reader counted them (a `.cut` reject, an over-long piece); -1: the thread that takes the chunk
    /// counts them over `[0, recordBytes)` (``publishLines()``).
    var newlines = -1
    /// The ledger that resolves the chunk's first line (the reader's, set when it hands the chunk over).
    var lines: _LineLedger?
    /// Whether ``publishLines()`` has run for this hand-over.
    private(set) var linesPublished = false
    /// Decoded bytes this chunk accounts for (records, headers, rejected and skipped bytes).
    var decodedBytes = 0
    /// Set when the chunk is a piece of an over-long record.
    var piece: _Piece?
    var isFirstOfFile = false
    /// Set on the last chunk of a file: the file's damage or read error.
    var fileError: String?
    var isLastOfFile = false
    /// Set on the last chunk of a file by the reader.
    var compressed = false
    var compressedBytes: Int64 = 0
    /// Stage timings of this chunk in nanoseconds (only with `collectStats`), and when it was queued.
    var parseNanos: UInt64 = 0
    var classifyNanos: UInt64 = 0
    var emitNanos: UInt64 = 0
    var queuedAt: UInt64 = 0
    /// What a job's workers leave for its writer beside the output (evaluation tallies, export lines).
    var attachment: AnyObject?
    /// Bytes of input beyond the chunk size this chunk holds from the pool's over-long budget
    /// (``_ChunkPool/admit(_:inputBytes:)``); given back when the chunk returns to the pool.
    fileprivate(set) var overLongBytes = 0

    init(capacity: Int, folders: Int, rules: Int) {
        input = _ByteBuffer(capacity: _ChunkPool.baseInputCapacity(capacity))
        output = _ByteBuffer(capacity: capacity + capacity / 2)
        counts = _ChunkCounts(folders: folders, rules: rules)
    }

    func reset() {
        input.removeAll()
        recordBytes = 0
        output.removeAll()
        rejects.removeAll(keepingCapacity: true)
        tailReject = nil
        counts.reset()
        fileObject = nil
        entryState = 0
        lineAnchor = nil
        newlines = -1
        lines = nil
        linesPublished = false
        decodedBytes = 0
        piece = nil
        isFirstOfFile = false
        fileError = nil
        isLastOfFile = false
        compressed = false
        compressedBytes = 0
        parseNanos = 0
        classifyNanos = 0
        emitNanos = 0
        queuedAt = 0
        _checkInvariants()
    }

    /// Checks what a chunk holds whenever it changes hands (the pool, the reader's hand-over, a worker's
    /// completion); compiled to nothing without `-DBATCHPIPELINE_INTERNAL_CHECKS`:
    /// - its buffers' invariants; `0 <= recordBytes <= input.count`; `recordBytes <= decodedBytes`;
    /// - `overLongBytes >= 0`, `lineAnchor >= 1` when set, `newlines >= -1`;
    /// - every reject holds its whole record (`raw.count == length`), and the rejects are in record order.
    @inline(__always)
    func _checkInvariants() {
        #if BATCHPIPELINE_INTERNAL_CHECKS
        input._checkInvariants()
        output._checkInvariants()
        precondition(recordBytes >= 0 && recordBytes <= input.count, "recordBytes \(recordBytes) outside the input's \(input.count)")
        precondition(recordBytes <= decodedBytes, "recordBytes \(recordBytes) beyond decodedBytes \(decodedBytes)")
        precondition(overLongBytes >= 0 && (lineAnchor ?? 1) >= 1 && newlines >= -1)
        for (k, r) in rejects.enumerated() {
            precondition(r.raw.count == r.length, "reject \(k) holds \(r.raw.count) of its \(r.length) bytes")
            precondition(k == 0 || rejects[k - 1].offset <= r.offset, "rejects out of record order")
        }
        if let r = tailReject { precondition(r.raw.count == r.length) }
        #endif
    }

    /// Publishes the chunk's newline count to its ledger (counting `[0, recordBytes)` unless the reader
    /// did): the first thing the thread that took the chunk does, before it parses or waits for anything
    /// (``_LineLedger``). Once per hand-over; a chunk without a ledger (one a test
    /// made) has no count to publish, and its first line is its anchor or 1.
    func publishLines() {
        guard !linesPublished, let lines else { return }
        linesPublished = true
        let n = newlines >= 0 ? newlines : input.withUnsafeBytes { _countNewlines($0, from: 0, to: recordBytes) }
        lines.publish(sequence, anchor: lineAnchor, newlines: n)
    }

    /// The absolute line of the chunk's first byte: its anchor, or the ledger's answer, which may wait
    /// until every earlier chunk has published its count. Only after ``publishLines()``, and only where a
    /// line is needed (labels of a record without an id, evaluate's ids, rejects), so that a chunk whose
    /// records all have ids never waits.
    func firstLine() -> Int {
        if let lineAnchor { return lineAnchor }
        guard let lines else { return 1 }
        precondition(linesPublished, "chunk \(sequence)'s first line asked before its count was published")
        return lines.firstLine(of: sequence)
    }

    /// Rejects the record `[start, end)` of the chunk (counted; its bytes kept for the rejects file).
    func reject(start: Int, end: Int, line: Int, reason: String, category: String) {
        counts.rejected += 1
        rejects.append(
            _Reject(
                relativeLine: line, reason: reason, category: category, raw: input.copyBytes(start..<end), length: end - start,
                offset: start))
    }

    /// Appends a decoded string to the chunk's scratch area (after its records); returns its span.
    @inline(__always)
    func appendScratch(_ produce: (_ByteBuffer) -> Void) -> (Int, Int) {
        let start = input.count
        produce(input)
        return (start, input.count)
    }
}

/// A blocking pool of chunk slots and the over-long budget: the bound on memory in flight.
///
/// A chunk holds at most `chunkSize` bytes of records (and carried-over bytes) on its own; its input buffer
/// has room for twice that (decoded strings go after the records) and never grows. A record longer than a
/// chunk makes the reader grow the chunk past that, and every byte beyond `chunkSize` is taken from one
/// budget shared by the whole pipeline, `--max-record` bytes: the reader waits (``admit(_:inputBytes:)``)
/// until chunks in flight give theirs back, which they do when the writer is done with them (``put(_:)``).
/// So however many threads there are, records longer than a chunk hold at most `--max-record` bytes of input
/// at once, instead of one such record per slot.
///
/// No deadlock: the budget is at least as large as any one chunk's need (`--max-record`), and the chunks
/// holding it have all been handed over, so the workers and the writer finish them without the reader.
final class _ChunkPool: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var free: [_Chunk]
    private var budget: Int
    private var budgetInUse = 0
    private var budgetPeak = 0
    let chunkSize: Int
    private let slots: Int

    /// The input capacity of a chunk slot: `chunkSize` bytes of records, as much again for decoded strings.
    static func baseInputCapacity(_ chunkSize: Int) -> Int { 2 * chunkSize + 64 }

    init(slots: Int, chunkSize: Int, folders: Int, rules: Int) {
        self.chunkSize = chunkSize
        self.slots = slots
        budget = RecordLimits.defaultMaxRecord
        free = (0..<slots).map { _ in _Chunk(capacity: chunkSize, folders: folders, rules: rules) }
    }

    /// The over-long budget, in bytes beyond `chunkSize` (the reader sets it to its `--max-record`).
    var overLongBudget: Int {
        get {
            condition.lock()
            defer { condition.unlock() }
            return budget
        }
        set {
            condition.lock()
            budget = max(1, newValue)
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The most bytes of the over-long budget held at once so far (for tests).
    var overLongPeak: Int {
        condition.lock()
        defer { condition.unlock() }
        return budgetPeak
    }

    func take() -> _Chunk {
        condition.lock()
        while free.isEmpty { condition.wait() }
        let chunk = free.removeLast()
        _checkInvariants()
        condition.unlock()
        chunk.reset()
        return chunk
    }

    /// Lets `chunk` (the reader's) hold `inputBytes` bytes of input: past `chunkSize`, waits until the
    /// over-long budget has room for the bytes beyond it. Never asks for more than the whole budget.
    func admit(_ chunk: _Chunk, inputBytes: Int) {
        guard inputBytes - chunkSize > chunk.overLongBytes else { return }
        condition.lock()
        let wanted = min(inputBytes - chunkSize, max(budget, chunk.overLongBytes))
        let more = wanted - chunk.overLongBytes
        // Wait while it does not fit and another chunk holds some of the budget (they all come back).
        while more > 0 && budgetInUse + more > budget && budgetInUse > chunk.overLongBytes { condition.wait() }
        budgetInUse += max(0, more)
        budgetPeak = max(budgetPeak, budgetInUse)
        _checkInvariants()
        condition.unlock()
        chunk.overLongBytes = max(chunk.overLongBytes, wanted)
    }

    func put(_ chunk: _Chunk) {
        // A huge record grew the buffers: give the memory back (realloc returns the pages).
        chunk.input.removeAll()
        chunk.output.removeAll()
        chunk.rejects.removeAll(keepingCapacity: true)
        chunk.tailReject = nil
        chunk.input.shrink(to: Self.baseInputCapacity(chunkSize))
        chunk.output.shrink(to: chunkSize * 2)
        let held = chunk.overLongBytes
        chunk.overLongBytes = 0
        condition.lock()
        budgetInUse -= held
        free.append(chunk)
        _checkInvariants()
        if held > 0 { condition.broadcast() } else { condition.signal() }
        condition.unlock()
    }

    /// Checks the pool (with `condition` held); compiled to nothing without `-DBATCHPIPELINE_INTERNAL_CHECKS`:
    /// - at most `slots` free chunks, none twice, none holding any of the budget;
    /// - `0 <= budgetInUse <= budgetPeak`, `budget >= 1`.
    @inline(__always)
    private func _checkInvariants() {
        #if BATCHPIPELINE_INTERNAL_CHECKS
        precondition(free.count <= slots, "\(free.count) free chunks in a pool of \(slots)")
        precondition(Set(free.map { ObjectIdentifier($0) }).count == free.count, "a chunk is in the pool twice")
        precondition(free.allSatisfy { $0.overLongBytes == 0 }, "a free chunk holds some of the over-long budget")
        precondition(budgetInUse >= 0 && budgetInUse <= budgetPeak && budget >= 1, "budget \(budgetInUse) in use of \(budget), peak \(budgetPeak)")
        #endif
    }
}

/// The chunks waiting for a worker, in order; `nil` tells workers to stop.
final class _WorkQueue: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var items: [_Chunk] = []
    private var head = 0
    private var closed = false

    func push(_ chunk: _Chunk) {
        chunk._checkInvariants()
        condition.lock()
        items.append(chunk)
        _checkInvariants()
        condition.signal()
        condition.unlock()
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    func pop() -> _Chunk? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !closed { condition.wait() }
        guard head < items.count else { return nil }
        let chunk = items[head]
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        _checkInvariants()
        return chunk
    }

    /// `0 <= head <= items.count` (with `condition` held; only with `-DBATCHPIPELINE_INTERNAL_CHECKS`).
    @inline(__always)
    private func _checkInvariants() {
        #if BATCHPIPELINE_INTERNAL_CHECKS
        precondition(head >= 0 && head <= items.count, "queue head \(head) outside its \(items.count) items")
        #endif
    }
}

/// Finished chunks, released to the writer strictly in sequence order.
final class _OrderedCompletion: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var done: [Int: _Chunk] = [:]
    private var next = 0
    private var total: Int?

    func complete(_ chunk: _Chunk) {
        chunk._checkInvariants()
        condition.lock()
        #if BATCHPIPELINE_INTERNAL_CHECKS
        precondition(done[chunk.sequence] == nil && chunk.sequence >= next, "chunk \(chunk.sequence) completed twice")
        #endif
        done[chunk.sequence] = chunk
        _checkInvariants()
        if chunk.sequence == next { condition.broadcast() }
        condition.unlock()
    }

    /// Says how many chunks there will be in all.
    func finish(total: Int) {
        condition.lock()
        self.total = total
        condition.broadcast()
        condition.unlock()
    }

    /// The next chunk in order, or nil when all have been taken.
    func takeNext() -> _Chunk? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let chunk = done.removeValue(forKey: next) {
                next += 1
                _checkInvariants()
                return chunk
            }
            if let total, next >= total { return nil }
            condition.wait()
        }
    }
}

extension _OrderedCompletion {
    /// Checks the completion (with `condition` held; only with `-DBATCHPIPELINE_INTERNAL_CHECKS`): every
    /// chunk waiting comes at or after `next`, and `next` never passes `total`.
    @inline(__always)
    private func _checkInvariants() {
        #if BATCHPIPELINE_INTERNAL_CHECKS
        precondition(done.keys.allSatisfy { $0 >= next }, "a chunk before \(next) is still waiting")
        precondition(total.map { next <= $0 } ?? true, "more chunks taken than there are")
        #endif
    }
}

