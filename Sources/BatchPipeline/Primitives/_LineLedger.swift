// MARK: Internal API
//
// Line numbers resolved by order (framing on the workers): the reader hands chunks over without
// counting their newlines; whoever takes a chunk counts them, in parallel, and the ledger turns the counts
// into absolute first lines in sequence order.
//
//   reader ──▶ chunk (sequence, anchor?) ──▶ worker: publish(newlines) ──▶ ledger ──▶ firstLine(of:) ──▶ labels, rejects

import Foundation

/// The absolute first line of every chunk in flight, resolved in sequence order from the chunks' own
/// newline counts.
///
/// A chunk's first line is its anchor when the reader knows it (the first chunk of a file: 1, or a split's
/// first line, plus the lines of a byte-order mark and header row it took off), else the previous chunk's
/// first line plus the previous chunk's newlines. The thread that takes a chunk off the work queue publishes
/// its count (``publish(_:anchor:newlines:)``) before anything else, then asks ``firstLine(of:)`` only when
/// it needs a line (a record without an id in the labels, evaluate's ids, the writer's rejects); the writer
/// drops the entry (``release(_:)``) once the chunk is written.
///
/// No deadlock: chunk `i`'s first line needs the counts of the chunks before it (back to the last anchor).
/// The work queue hands chunks out in sequence order, so each of those was taken before `i`, and the thread
/// that took it publishes its count first, before it parses or waits for anything (`_FanOut`'s worker loop,
/// `_SequentialReader`), so every count `i` waits for arrives. Publishing takes only this lock: it never
/// waits for the chunk pool (only the reader waits there, for chunks that are already handed over), for
/// the ordered completion (which never blocks a worker) or for another chunk.
///
/// Bounded memory: an entry exists only from a chunk's publication to its release, so there are at most as
/// many as there are chunk slots in the pool; counts are folded into first lines as soon as they are
/// contiguous (`next`), and a first line is dropped when its chunk is written.
final class _LineLedger: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    /// Counts published ahead of `next` (a later chunk's worker was quicker): its anchor and newlines.
    private var pending: [Int: (anchor: Int?, newlines: Int)] = [:]
    /// The first lines of the chunks before `next` not yet released.
    private var resolved: [Int: Int] = [:]
    /// The first chunk whose count is not folded in yet, and its first line as its predecessor gives it.
    private var next = 0
    private var nextLine: Int?

    /// Publishes chunk `sequence`'s newline count (and its anchor, the reader's absolute first line when it
    /// knew it). Never waits for anything but the lock; each sequence once.
    func publish(_ sequence: Int, anchor: Int?, newlines: Int) {
        condition.lock()
        #if BATCHPIPELINE_INTERNAL_CHECKS
        precondition(sequence >= next && pending[sequence] == nil, "chunk \(sequence)'s lines published twice")
        precondition(newlines >= 0 && (anchor ?? 1) >= 1, "chunk \(sequence): \(newlines) newlines, anchor \(anchor ?? 1)")
        #endif
        pending[sequence] = (anchor, newlines)
        let before = next
        while let p = pending.removeValue(forKey: next) {
            let first = p.anchor ?? nextLine ?? 1
            resolved[next] = first
            nextLine = first + p.newlines
            next += 1
        }
        _checkInvariants()
        if next > before { condition.broadcast() }
        condition.unlock()
    }

    /// Chunk `sequence`'s absolute first line: waits until every chunk before it (back to its last anchor)
    /// has published its count. Call only once `sequence` itself is published, and before its release.
    func firstLine(of sequence: Int) -> Int {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let line = resolved[sequence] { return line }
            #if BATCHPIPELINE_INTERNAL_CHECKS
            precondition(sequence >= next, "chunk \(sequence)'s first line asked after its release")
            #endif
            condition.wait()
        }
    }

    /// Drops chunk `sequence`'s entry (its chunk is written): the ledger holds only chunks in flight.
    func release(_ sequence: Int) {
        condition.lock()
        let line = resolved.removeValue(forKey: sequence)
        #if BATCHPIPELINE_INTERNAL_CHECKS
        precondition(line != nil, "chunk \(sequence) released before its first line was known")
        #else
        _ = line
        #endif
        _checkInvariants()
        condition.unlock()
    }

    /// Entries held (published and not yet released), for tests.
    var entries: Int {
        condition.lock()
        defer { condition.unlock() }
        return pending.count + resolved.count
    }

    /// Checks the ledger (with `condition` held; only with `-DBATCHPIPELINE_INTERNAL_CHECKS`): the pending
    /// counts all come after `next`, the first lines kept all before it, every line is at least 1.
    @inline(__always)
    private func _checkInvariants() {
        #if BATCHPIPELINE_INTERNAL_CHECKS
        precondition(pending.keys.allSatisfy { $0 > next }, "a count at or before \(next) is still pending")
        precondition(resolved.keys.allSatisfy { $0 < next }, "a first line at or after \(next)")
        precondition(resolved.values.allSatisfy { $0 >= 1 } && (nextLine ?? 1) >= 1, "a line below 1")
        #endif
    }
}
