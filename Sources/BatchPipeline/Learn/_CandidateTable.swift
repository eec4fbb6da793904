// MARK: Internal API
//
// Document frequencies of phrase candidates in bounded memory: an open-addressing hash table whose keys
// live in one byte arena. When it holds `maxEntries` candidates it drops every candidate seen in at most
// `floor + 1` messages and raises the floor (lossy counting, Manku & Motwani 2002): a candidate kept is
// undercounted by at most `floor`, and a candidate seen in more than `floor` messages of what remains is
// never dropped. Deterministic: the same records in the same order give the same table.

import MessageFilter

final class _CandidateTable {
    /// Counters per candidate: one per fold (1 without cross-validation).
    let folds: Int
    let maxEntries: Int
    private(set) var slots: [Int32]
    private(set) var hashes: [UInt64] = []
    private(set) var offsets: [Int] = []
    private(set) var lengths: [UInt16] = []
    private(set) var kinds: [UInt8] = []
    private var lastSeen: [UInt32] = []
    /// Documents per candidate and fold: `counts[entry * folds + fold]`.
    private(set) var counts: [UInt32] = []
    private(set) var totals: [UInt32] = []
    private(set) var arena: [UInt8] = []
    /// Candidates seen in at most this many messages may have been dropped.
    private(set) var floor: UInt32 = 0
    /// How many times the table was pruned.
    private(set) var prunes = 0

    var count: Int { hashes.count }

    init(folds: Int, maxEntries: Int) {
        self.folds = max(1, folds)
        self.maxEntries = max(1024, maxEntries)
        slots = [Int32](repeating: -1, count: 1 << 12)
    }

    /// Bytes held (for the memory figure in the summary).
    var memoryBytes: Int {
        slots.count * 4 + hashes.count * 8 + offsets.count * 8 + lengths.count * 2 + kinds.count + lastSeen.count * 4
            + counts.count * 4 + totals.count * 4 + arena.count
    }

    static func hash(_ kind: UInt8, _ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h = StableHash.fnvOffsetBasis ^ UInt64(kind)
        for b in bytes { h = StableHash.fnv1a(h, b) }
        return h ^ (h >> 29)
    }

    /// Counts `bytes` (of `kind`) once for message `message` in fold `fold`.
    func add(_ kind: ModelDefinition.MatchKind, _ bytes: UnsafeRawBufferPointer, fold: Int, message: UInt32) {
        guard !bytes.isEmpty, bytes.count <= 255 else { return }
        let h = Self.hash(kind.rawValue, bytes)
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let e = Int(slots[i])
            if e < 0 { break }
            if hashes[e] == h, kinds[e] == kind.rawValue, Int(lengths[e]) == bytes.count,
               arena.withUnsafeBytes({ memcmp($0.baseAddress! + offsets[e], bytes.baseAddress!, bytes.count) == 0 }) {
                if lastSeen[e] != message {
                    lastSeen[e] = message
                    counts[e * folds + fold] += 1
                    totals[e] += 1
                }
                return
            }
            i = (i + 1) & mask
        }
        let e = hashes.count
        slots[i] = Int32(e)
        hashes.append(h)
        offsets.append(arena.count)
        lengths.append(UInt16(bytes.count))
        kinds.append(kind.rawValue)
        lastSeen.append(message)
        arena.append(contentsOf: bytes)
        for _ in 0..<folds { counts.append(0) }
        counts[e * folds + fold] = 1
        totals.append(1)
        if hashes.count * 2 > slots.count { rehash(slots.count * 2) }
        if hashes.count >= maxEntries { prune() }
    }

    private func rehash(_ size: Int) {
        slots = [Int32](repeating: -1, count: size)
        let mask = size - 1
        for e in 0..<hashes.count {
            var i = Int(truncatingIfNeeded: hashes[e]) & mask
            while slots[i] >= 0 { i = (i + 1) & mask }
            slots[i] = Int32(e)
        }
    }

    /// Drops the rarest candidates until at most three quarters of `maxEntries` remain.
    private func prune() {
        prunes += 1
        while hashes.count > maxEntries * 3 / 4 {
            floor += 1
            var keep: [Int] = []
            keep.reserveCapacity(hashes.count)
            for e in 0..<hashes.count where totals[e] > floor { keep.append(e) }
            var newArena: [UInt8] = []
            newArena.reserveCapacity(arena.count)
            var newOffsets: [Int] = []
            var newCounts: [UInt32] = []
            for e in keep {
                newOffsets.append(newArena.count)
                newArena.append(contentsOf: arena[offsets[e]..<(offsets[e] + Int(lengths[e]))])
                newCounts.append(contentsOf: counts[(e * folds)..<((e + 1) * folds)])
            }
            hashes = keep.map { hashes[$0] }
            lengths = keep.map { lengths[$0] }
            kinds = keep.map { kinds[$0] }
            lastSeen = keep.map { lastSeen[$0] }
            totals = keep.map { totals[$0] }
            offsets = newOffsets
            counts = newCounts
            arena = newArena
        }
        var size = 1 << 12
        while size < hashes.count * 2 { size *= 2 }
        rehash(size)
    }

    /// The candidate's text.
    func text(_ e: Int) -> String { String(decoding: arena[offsets[e]..<(offsets[e] + Int(lengths[e]))], as: UTF8.self) }

    /// Documents containing candidate `e`, leaving out fold `fold` (nil: all).
    func documents(_ e: Int, excluding fold: Int?) -> UInt32 {
        guard let fold else { return totals[e] }
        return totals[e] - counts[e * folds + fold]
    }

    /// The `limit` candidates in most documents (leaving out `fold`), at least `minimum` each; ties by kind,
    /// then bytes. Returns entry indices in that order.
    func top(_ limit: Int, minimum: UInt32, excluding fold: Int?) -> [Int] {
        var picked = (0..<count).filter { documents($0, excluding: fold) >= minimum }
        picked.sort { a, b in
            let da = documents(a, excluding: fold)
            let db = documents(b, excluding: fold)
            if da != db { return da > db }
            if kinds[a] != kinds[b] { return kinds[a] < kinds[b] }
            return arena[offsets[a]..<(offsets[a] + Int(lengths[a]))].lexicographicallyPrecedes(arena[offsets[b]..<(offsets[b] + Int(lengths[b]))])
        }
        return Array(picked.prefix(limit))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
