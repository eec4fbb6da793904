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
    /// The record's bytes (empty when too long to keep).
    var raw: [UInt8]
    /// The record's length in bytes, kept even when `raw` is not.
    var length: Int
}

/// One record found in a chunk.
struct _Record {
    var rawStart = 0
    /// End of the record's content, before its line terminator.
    var contentEnd = 0
    /// End of the record including its terminator.
    var rawEnd = 0
    /// Where the labels are inserted (JSONL: the closing brace; CSV/TSV: `contentEnd`; XML: the `/>`).
    var insertAt = 0
    var relativeLine = 0
    /// The id value (JSONL: the raw JSON value; CSV/TSV/XML: the field's decoded text in the chunk's scratch).
    var idStart = 0
    var idEnd = -1
    var idIsJSON = false
    /// JSONL: the object had no key at all (`{}`), so no comma goes before the label.
    var emptyObject = false
}

/// Per-chunk counters, merged by the writer.
struct _ChunkCounts {
    var records = 0
    var labelled = 0
    var rejected = 0
    var blank = 0
    var newlines = 0
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
        newlines = 0
        for i in folders.indices { folders[i] = 0 }
        for i in rules.indices { rules[i] = 0 }
        noRule = 0
        invalidPair = 0
        notDeclared = 0
    }
}

/// A slot of the chunk pool.
final class _Chunk: @unchecked Sendable {
    /// Decoded input: whole records in `[0, recordBytes)`; workers write decoded strings after them.
    let input: _ByteBuffer
    var recordBytes = 0
    /// Labelled output of this chunk.
    let output: _ByteBuffer
    /// Bytes written before `output` (a CSV header row, an XML prolog): set by the reader.
    var preamble: [UInt8] = []
    var rejects: [_Reject] = []
    var counts: _ChunkCounts
    var sequence = 0
    var file: _FileState?
    /// Absolute 1-based line of the chunk's first byte, when the reader counted (labels-only); else 0.
    var firstLine = 0
    /// Decoded bytes this chunk accounts for (records and skipped bytes).
    var decodedBytes = 0
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

    init(capacity: Int, folders: Int, rules: Int) {
        input = _ByteBuffer(capacity: capacity * 2)
        output = _ByteBuffer(capacity: capacity + capacity / 2)
        counts = _ChunkCounts(folders: folders, rules: rules)
    }

    func reset() {
        input.removeAll()
        recordBytes = 0
        output.removeAll()
        preamble = []
        rejects.removeAll(keepingCapacity: true)
        counts.reset()
        file = nil
        firstLine = 0
        decodedBytes = 0
        fileError = nil
        isLastOfFile = false
        compressed = false
        compressedBytes = 0
        parseNanos = 0
        classifyNanos = 0
        emitNanos = 0
        queuedAt = 0
    }
}

/// A blocking pool of chunk slots: the bound on memory in flight.
final class _ChunkPool: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var free: [_Chunk]
    private let capacity: Int

    init(slots: Int, chunkSize: Int, folders: Int, rules: Int) {
        capacity = chunkSize
        free = (0..<slots).map { _ in _Chunk(capacity: chunkSize, folders: folders, rules: rules) }
    }

    func take() -> _Chunk {
        condition.lock()
        while free.isEmpty { condition.wait() }
        let chunk = free.removeLast()
        condition.unlock()
        chunk.reset()
        return chunk
    }

    func put(_ chunk: _Chunk) {
        // A huge record may have grown the buffers: give the memory back.
        chunk.input.shrink(to: capacity * 2)
        chunk.output.shrink(to: capacity * 2)
        condition.lock()
        free.append(chunk)
        condition.signal()
        condition.unlock()
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
        condition.lock()
        items.append(chunk)
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
        return chunk
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
        condition.lock()
        done[chunk.sequence] = chunk
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
                return chunk
            }
            if let total, next >= total { return nil }
            condition.wait()
        }
    }
}
