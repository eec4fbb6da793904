/// The compact DFA of a trie (see `_Compact` in `_Engines.swift` and DESIGN.md): per state deeper than two
/// bytes, the entries where its DFA row differs from the row of its longest suffix at most two bytes
/// deep, packed into a comb; the full rows of the shallow states, with the shallow automaton's own
/// transitions, in a table of default rows.
struct _CompactPlan {
    /// Per comb cell: next id << 8 | class, 0xFF for unused cells.
    var cells: [UInt32]
    /// R × A (next shallow row offset, full transition id).
    var defaults: [(row: UInt32, next: UInt32)]
    var defaultRows: Int
    /// id → match state index for ids 0...maxMatchID.
    var matchIndex: [UInt32]
    var startID: UInt32
    var maxMatchID: UInt32
    /// 24-bit ids and 32-bit default cells (ids past 0xFFFF or R × A > 65,536).
    var wide: Bool

    private static let none: Int32 = -1
    private static let dead: Int32 = -2
    /// States at most this deep get default rows.
    private static let shallowDepth: Int32 = 2

    /// nil when the plan's bytes would exceed `byteLimit`, its ids 2^24, or there are 256 classes (the
    /// class check byte needs a value no class has).
    init?(
        trie: _Trie, order: [Int32], newIndex: [Int32], matchCount: Int, alphabetLen: Int, byteLimit: Int,
        forceWide: Bool = false
    ) {
        let a = alphabetLen
        guard a <= 255 else { return nil }
        let shape = Shape(trie, order)
        if byteLimit < Int.max / 2 && trie.count >= 1 << 16 && !Self.sampleFits(trie, shape.depth, a, byteLimit) {
            return nil
        }
        guard let entries = Entries(trie, shape.depth, newIndex, a, byteLimit), let ids = Self.pack(entries, a)
        else { return nil }
        // Ids strictly increase, so the last state's id is the largest.
        let cellCount = Int(ids[ids.count - 1]) + a
        defaultRows = shape.shallow.count
        wide = ids[ids.count - 1] > 0xFFFF || defaultRows * a > 1 << 16 || forceWide
        let width = wide ? 4 : 2
        let bytes = cellCount * 4 + defaultRows * a * 2 * width + (Int(ids[matchCount]) + 1) * 4
        if bytes > byteLimit { return nil }
        func id(_ trieIndex: Int32) -> UInt32 { trieIndex == Self.dead ? ids[0] : ids[Int(newIndex[Int(trieIndex)])] }
        cells = Array(repeating: 0xFF, count: cellCount)
        for k in 0..<ids.count {
            for e in entries.start[k]..<entries.start[k + 1] {
                cells[Int(ids[k]) + Int(entries.classes[e])] = id(entries.next[e]) << 8 | UInt32(entries.classes[e])
            }
        }
        defaults = Self.defaultCells(trie, shape, a, id)
        startID = ids[Int(newIndex[0])]
        maxMatchID = ids[matchCount]
        matchIndex = [UInt32](repeating: 0, count: Int(maxMatchID) + 1)
        for k in 1...max(matchCount, 1) where k <= matchCount { matchIndex[Int(ids[k])] = UInt32(k) }
    }

    /// Depths, the class of the edge into each state, and the shallow states (breadth-first order visits
    /// parents first, so the start state is the first shallow state).
    struct Shape {
        var depth: [Int32]
        var inClass: [UInt8]
        var shallow: [Int32] = []

        init(_ trie: _Trie, _ order: [Int32]) {
            depth = [Int32](repeating: 0, count: trie.count)
            inClass = [UInt8](repeating: 0, count: trie.count)
            for s in order {
                if depth[Int(s)] <= _CompactPlan.shallowDepth { shallow.append(s) }
                var link = trie.firstTrans[Int(s)]
                while link != _CompactPlan.none {
                    let t = Int(trie.transNext[Int(link)])
                    depth[t] = depth[Int(s)] + 1
                    inClass[t] = trie.transClass[Int(link)]
                    link = trie.transLink[Int(link)]
                }
            }
        }
    }

    /// A sample first: every 64th state's entry count, extrapolated, must fit the budget with a quarter to
    /// spare (so that `.auto` does not spend most of a huge build on a plan it would refuse).
    private static func sampleFits(_ trie: _Trie, _ depth: [Int32], _ a: Int, _ byteLimit: Int) -> Bool {
        let trieCount = trie.count
        var sampled = 0
        var seen = [Int32](repeating: -1, count: a)
        for s in Swift.stride(from: 0, to: trieCount, by: 64) where depth[s] > Self.shallowDepth {
            var t = Int32(s)
            while t != Self.dead && depth[Int(t)] > Self.shallowDepth {
                var link = trie.firstTrans[Int(t)]
                while link != Self.none {
                    let c = Int(trie.transClass[Int(link)])
                    if seen[c] != Int32(s) {
                        seen[c] = Int32(s)
                        sampled += 1
                    }
                    link = trie.transLink[Int(link)]
                }
                t = trie.fail[Int(t)]
            }
        }
        return (sampled * 64 + trieCount) * 4 <= byteLimit + byteLimit / 4
    }

    /// The comb entries of every state, flat in new-index order: state k's are `start[k] ..< start[k + 1]`.
    /// A state deeper than two bytes has the entries where its row differs from its shallow suffix's; the
    /// dead state loops on every class; shallow states have none (their rows are default rows).
    struct Entries {
        var start: [Int]
        var classes: [UInt8] = []
        /// Next states as trie indexes (or `dead`).
        var next: [Int32] = []

        /// nil when the entries alone exceed `byteLimit`.
        init?(_ trie: _Trie, _ depth: [Int32], _ newIndex: [Int32], _ a: Int, _ byteLimit: Int) {
            let stateCount = trie.count + 1
            var byNew = [Int32](repeating: _CompactPlan.dead, count: stateCount)
            for s in 0..<trie.count { byNew[Int(newIndex[s])] = Int32(s) }
            start = [Int](repeating: 0, count: stateCount + 1)
            var stamp = [Int32](repeating: -1, count: a)
            for k in 0..<stateCount {
                start[k] = classes.count
                let s = byNew[k]
                if s == _CompactPlan.dead {
                    // The dead state loops.
                    for c in 0..<a { append(c, _CompactPlan.dead) }
                    continue
                }
                guard depth[Int(s)] > _CompactPlan.shallowDepth else { continue }
                if appendDeep(s, trie, depth, &stamp) {
                    // The failure chain ends at the dead state (leftmost kinds): every other class is dead.
                    for c in 0..<a where stamp[c] != s { append(c, _CompactPlan.dead) }
                }
                // Every entry and every id take at least one 4-byte cell.
                if (classes.count + k) * 4 > byteLimit { return nil }
            }
            start[stateCount] = classes.count
        }

        private mutating func append(_ c: Int, _ next: Int32) {
            classes.append(UInt8(c))
            self.next.append(next)
        }

        /// Appends deep state `s`'s own transitions and those it inherits along its failure chain (the
        /// first one per class, marked in `stamp`); true when the chain ends at the dead state.
        private mutating func appendDeep(_ s: Int32, _ trie: _Trie, _ depth: [Int32], _ stamp: inout [Int32]) -> Bool {
            var t = s
            while t != _CompactPlan.dead && depth[Int(t)] > _CompactPlan.shallowDepth {
                var link = trie.firstTrans[Int(t)]
                while link != _CompactPlan.none {
                    let c = Int(trie.transClass[Int(link)])
                    if stamp[c] != s {
                        stamp[c] = s
                        append(c, trie.transNext[Int(link)])
                    }
                    link = trie.transLink[Int(link)]
                }
                t = trie.fail[Int(t)]
            }
            return t == _CompactPlan.dead
        }
    }

    /// Pack: ids strictly increase in new-index order (so dead, match states, start, rest keep the one
    /// comparison), each state at the first offset after the previous one where its cells are free. nil
    /// when an id passes 2^24.
    private static func pack(_ entries: Entries, _ a: Int) -> [UInt32]? {
        let stateCount = entries.start.count - 1
        var used: [Bool] = []
        var ids = [UInt32](repeating: 0, count: stateCount)
        var lastID = -1
        for k in 0..<stateCount {
            let range = entries.start[k]..<entries.start[k + 1]
            var candidate = lastID + 1
            while range.contains(where: { e in
                let at = candidate + Int(entries.classes[e])
                return at < used.count && used[at]
            }) {
                candidate += 1
            }
            let needed = candidate + a
            if used.count < needed { used.append(contentsOf: repeatElement(false, count: needed - used.count)) }
            for e in range { used[candidate + Int(entries.classes[e])] = true }
            guard candidate <= 0xFF_FFFF else { return nil }
            ids[k] = UInt32(candidate)
            lastID = candidate
        }
        return ids
    }

    /// Default rows: for each shallow state q (the start state first) and class c, the row of the longest
    /// suffix of q + c at most two bytes deep that is a state, and q's full DFA transition.
    private static func defaultCells(
        _ trie: _Trie, _ shape: Shape, _ a: Int, _ id: (Int32) -> UInt32
    ) -> [(row: UInt32, next: UInt32)] {
        var rowOf = [Int32](repeating: -1, count: trie.count)
        for (k, q) in shape.shallow.enumerated() { rowOf[Int(q)] = Int32(k) }
        var defaults: [(row: UInt32, next: UInt32)] = Array(repeating: (0, 0), count: shape.shallow.count * a)
        for (k, q) in shape.shallow.enumerated() {
            // The state of q's last byte alone (none for the start state).
            let last: Int32 =
                q == 0 ? Self.none : shape.depth[Int(q)] == 1 ? q : trie.rootChild[Int(shape.inClass[Int(q)])]
            for c in 0..<a {
                var nextShallow: Int32 = last == Self.none ? Self.none : trie.child(last, UInt8(c))
                if nextShallow == Self.none { nextShallow = trie.rootChild[c] }
                if nextShallow == Self.none { nextShallow = 0 }
                defaults[k * a + c] = (UInt32(Int(rowOf[Int(nextShallow)]) * a), id(trie.follow(q, UInt8(c))))
            }
        }
        return defaults
    }

    func write(_ image: UnsafeMutableRawBufferPointer, _ layout: _Layout, _ a: Int) {
        for (k, cell) in cells.enumerated() {
            image.storeBytes(of: cell.littleEndian, toByteOffset: layout.comb + 4 * k, as: UInt32.self)
        }
        for (k, cell) in defaults.enumerated() {
            if wide {
                let packed = UInt64(cell.row) | UInt64(cell.next) << 32
                image.storeBytes(of: packed.littleEndian, toByteOffset: layout.defaults + 8 * k, as: UInt64.self)
            } else {
                let packed = cell.row | cell.next << 16
                image.storeBytes(of: packed.littleEndian, toByteOffset: layout.defaults + 4 * k, as: UInt32.self)
            }
        }
        for (k, v) in matchIndex.enumerated() {
            image.storeBytes(of: v.littleEndian, toByteOffset: layout.matchIndex + 4 * k, as: UInt32.self)
        }
    }
}
