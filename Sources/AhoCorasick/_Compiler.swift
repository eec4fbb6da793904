// Patterns → folded bytes → byte classes → trie → failure links → DFA or NFA → serialized image.
//
// The trie follows the Rust crate's noncontiguous NFA compiler (build_trie, fill_failure_transitions):
// transitions are sorted linked lists in flat arrays (no per-state allocation, so 100,000 patterns
// compile fast), match lists are linked lists whose tails are shared with the failure state's list.

struct _Compiler {
    let builder: AhoCorasickBuilder
    let patterns: [Pattern]

    // Sentinels in trie-index space.
    private static let none: Int32 = -1
    private static let dead: Int32 = -2

    func compile() throws -> UnsafeMutableRawBufferPointer {
        guard patterns.count <= Int(Int32.max) else { throw AhoCorasickBuildError(.tooManyPatterns(patterns.count)) }
        let folding = builder.caseFolding
        let kind = builder.matchKind

        // 1. Folded bytes and unit lengths.
        var folded: [[UInt8]] = []
        folded.reserveCapacity(patterns.count)
        var unitLengths: [UInt32] = []
        unitLengths.reserveCapacity(patterns.count)
        var patternScalars = Set<UInt32>()
        for (index, pattern) in patterns.enumerated() {
            guard !pattern.bytes.isEmpty else { throw AhoCorasickBuildError(.emptyPattern(index)) }
            guard pattern.bytes.count <= Int(UInt32.max) else { throw AhoCorasickBuildError(.tooLarge("pattern \(index)")) }
            switch folding {
            case .none:
                folded.append(pattern.bytes)
                unitLengths.append(UInt32(pattern.bytes.count))
            case .ascii:
                folded.append(pattern.bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
                unitLengths.append(UInt32(pattern.bytes.count))
            case .unicode:
                var out: [UInt8] = []
                out.reserveCapacity(pattern.bytes.count)
                var scalars: UInt32 = 0
                try pattern.bytes.withUnsafeBufferPointer { buffer in
                    let p = buffer.baseAddress!
                    var i = 0
                    while i < buffer.count {
                        let (value, length) = _decodeUTF8(p, i, buffer.count)
                        guard let value, let scalar = Unicode.Scalar(value) else {
                            throw AhoCorasickBuildError(.invalidUTF8(index))
                        }
                        let f = _UnicodeFold.fold(scalar).value
                        patternScalars.insert(f)
                        let (packed, count) = _encodeUTF8(f)
                        for k in 0..<count { out.append(UInt8(truncatingIfNeeded: packed >> (8 * UInt32(k)))) }
                        scalars += 1
                        i += length
                    }
                }
                folded.append(out)
                unitLengths.append(scalars)
            }
        }
        var foldPairs: [(from: UInt32, to: UInt32)] = []
        if folding == .unicode {
            foldPairs = _UnicodeFold.nonTrivialFolds.filter { patternScalars.contains($0.to) }
        }

        // 2. Byte classes: one per byte that occurs in a folded pattern, plus class 0 for all the others.
        var used = [Bool](repeating: false, count: 256)
        for bytes in folded { for b in bytes { used[Int(b)] = true } }
        let usedCount = used.lazy.filter { $0 }.count
        var classOf = [UInt8](repeating: 0, count: 256)
        var next = usedCount == 256 ? 0 : 1
        for b in 0..<256 where used[b] {
            classOf[b] = UInt8(next)
            next += 1
        }
        let alphabetLen = next
        if folding != .none {
            // Folded patterns hold no A-Z: give A-Z the class of a-z.
            for b in 0x41...0x5A { classOf[b] = classOf[b | 0x20] }
        }

        // 3. The trie. State 0 is the start state.
        var trie = _Trie(alphabetLen: alphabetLen)
        for (index, bytes) in folded.enumerated() {
            var state: Int32 = 0
            var skipped = false
            for b in bytes {
                // Leftmost-first: a pattern extending an earlier complete pattern can never match.
                if kind == .leftmostFirst && trie.matchHead[Int(state)] != Self.none {
                    skipped = true
                    break
                }
                state = trie.childOrInsert(state, classOf[Int(b)])
            }
            if !skipped { trie.addMatch(state, Int32(index)) }
        }

        // 4. Failure links in breadth-first order (the Rust crate's fill_failure_transitions).
        let order = trie.fillFailures(leftmost: kind != .standard)

        // 5. Renumber: dead 0, match states 1...M, start M + 1, the rest.
        let trieCount = trie.count
        var newIndex = [Int32](repeating: -1, count: trieCount)
        var matchStates: [Int32] = []
        for s in order where trie.matchHead[Int(s)] != Self.none { matchStates.append(s) }
        let m = matchStates.count
        for (k, s) in matchStates.enumerated() { newIndex[Int(s)] = Int32(k + 1) }
        newIndex[0] = Int32(m + 1)
        var nextIndex = Int32(m + 2)
        for s in order where newIndex[Int(s)] == -1 {
            newIndex[Int(s)] = nextIndex
            nextIndex += 1
        }
        let stateCount = trieCount + 1
        func renumber(_ s: Int32) -> Int32 { s == Self.dead ? 0 : newIndex[Int(s)] }

        // Match lists in new order.
        var matchOffsets: [UInt32] = [0]
        matchOffsets.reserveCapacity(m + 1)
        var matchList: [UInt32] = []
        for s in matchStates {
            var link = trie.matchHead[Int(s)]
            while link != Self.none {
                matchList.append(UInt32(trie.matchPattern[Int(link)]))
                link = trie.matchLink[Int(link)]
            }
            matchOffsets.append(UInt32(matchList.count))
        }
        guard matchList.count <= Int(UInt32.max), stateCount <= Int(UInt32.max) else {
            throw AhoCorasickBuildError(.tooLarge("more than 2^32 states or match entries"))
        }

        // 6. Engine.
        let (cells, overflow) = stateCount.multipliedReportingOverflow(by: alphabetLen)
        let dfaFits = !overflow && cells <= Int(UInt32.max)
        let useDFA: Bool
        switch builder.engine {
        case .dfa:
            guard dfaFits else { throw AhoCorasickBuildError(.tooLarge("a DFA of \(stateCount) states × \(alphabetLen) classes")) }
            useDFA = true
        case .nfa:
            useDFA = false
        case .auto:
            useDFA = dfaFits && cells <= builder.dfaSizeLimit / 4
        }

        // 7. Write the image.
        let sparseCount = useDFA ? 0 : trie.transClass.count
        guard
            let layout = _Layout(
                isDFA: useDFA, patternCount: patterns.count, stateCount: stateCount, alphabetLen: alphabetLen,
                matchStateCount: m, matchEntryCount: matchList.count, sparseCount: sparseCount,
                foldCount: foldPairs.count)
        else { throw AhoCorasickBuildError(.tooLarge("the image size overflows")) }
        let image = UnsafeMutableRawBufferPointer.allocate(byteCount: layout.total, alignment: 16)
        image.initializeMemory(as: UInt8.self, repeating: 0)
        let base = image.baseAddress!
        func put32(_ offset: Int, _ value: UInt32) { image.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self) }
        func put64(_ offset: Int, _ value: UInt64) { image.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self) }
        for (k, b) in _magic.enumerated() { image[k] = b }
        put32(8, _endianMarker)
        put32(12, _formatVersion)
        put64(16, UInt64(layout.total))
        put32(32, useDFA ? 0 : 1)
        put32(36, kind == .standard ? 0 : kind == .leftmostFirst ? 1 : 2)
        put32(40, folding == .none ? 0 : folding == .ascii ? 1 : 2)
        put32(44, UInt32(patterns.count))
        put32(48, UInt32(stateCount))
        put32(52, UInt32(alphabetLen))
        put32(56, UInt32(m))
        put32(60, UInt32(matchList.count))
        put32(64, UInt32(sparseCount))
        put32(68, UInt32(foldPairs.count))
        let anyWholeWord = builder.wholeWord || patterns.contains { $0.wholeWord }
        put32(72, anyWholeWord ? 1 : 0)

        for b in 0..<256 { image[layout.classes + b] = classOf[b] }
        for (p, pattern) in patterns.enumerated() {
            put32(layout.patterns + 8 * p, unitLengths[p])
            put32(layout.patterns + 8 * p + 4, builder.wholeWord || pattern.wholeWord ? 1 : 0)
        }
        for (k, v) in matchOffsets.enumerated() { put32(layout.matchOffsets + 4 * k, v) }
        for (k, v) in matchList.enumerated() { put32(layout.matchList + 4 * k, v) }
        for (k, pair) in foldPairs.enumerated() {
            put32(layout.folds + 8 * k, pair.from)
            put32(layout.folds + 8 * k + 4, pair.to)
        }

        if useDFA {
            // Rows in breadth-first order: a state's failure state (shallower) already has its row.
            let trans = (base + layout.dfaTrans).assumingMemoryBound(to: UInt32.self)
            let stride = alphabetLen
            let startRow = Int(newIndex[0]) * stride
            for c in 0..<stride {
                let child = trie.rootChild[c]
                trans[startRow + c] = UInt32(Int(child == Self.none ? newIndex[0] : newIndex[Int(child)]) * stride)
            }
            for s in order where s != 0 {
                let row = Int(newIndex[Int(s)]) * stride
                let fail = trie.fail[Int(s)]
                if fail == Self.dead {
                    for c in 0..<stride { trans[row + c] = 0 }
                } else {
                    let failRow = Int(newIndex[Int(fail)]) * stride
                    for c in 0..<stride { trans[row + c] = trans[failRow + c] }
                }
                var link = trie.firstTrans[Int(s)]
                while link != Self.none {
                    trans[row + Int(trie.transClass[Int(link)])] = UInt32(Int(newIndex[Int(trie.transNext[Int(link)])]) * stride)
                    link = trie.transLink[Int(link)]
                }
            }
        } else {
            let fail = (base + layout.nfaFail).assumingMemoryBound(to: UInt32.self)
            let sparseStart = (base + layout.nfaSparseStart).assumingMemoryBound(to: UInt32.self)
            let sparseClass = (base + layout.nfaSparseClass).assumingMemoryBound(to: UInt8.self)
            let sparseNext = (base + layout.nfaSparseNext).assumingMemoryBound(to: UInt32.self)
            let root = (base + layout.nfaRoot).assumingMemoryBound(to: UInt32.self)
            // States by new index.
            var byNew = [Int32](repeating: Self.dead, count: stateCount)
            for s in 0..<trieCount { byNew[Int(newIndex[s])] = Int32(s) }
            var k = 0
            for n in 0..<stateCount {
                sparseStart[n] = UInt32(k)
                let s = byNew[n]
                if s == Self.dead {
                    fail[n] = 0
                    continue
                }
                fail[n] = s == 0 ? UInt32(n) : UInt32(renumber(trie.fail[Int(s)]))
                var link = trie.firstTrans[Int(s)]
                while link != Self.none {
                    sparseClass[k] = trie.transClass[Int(link)]
                    sparseNext[k] = UInt32(newIndex[Int(trie.transNext[Int(link)])])
                    k += 1
                    link = trie.transLink[Int(link)]
                }
            }
            sparseStart[stateCount] = UInt32(k)
            for c in 0..<alphabetLen {
                let child = trie.rootChild[c]
                root[c] = UInt32(child == Self.none ? newIndex[0] : newIndex[Int(child)])
            }
        }
        put64(24, _imageChecksum(UnsafeRawPointer(base), layout.total))
        return image
    }
}

/// The trie under construction: flat arrays, linked lists for transitions and matches.
struct _Trie {
    private static let none: Int32 = -1
    private static let dead: Int32 = -2

    // Per state.
    var firstTrans: [Int32] = [-1]
    var fail: [Int32] = [0]
    var matchHead: [Int32] = [-1]
    var matchTail: [Int32] = [-1]
    // Per transition (sorted by class within a state). The start state's transitions are also in `rootChild`.
    var transClass: [UInt8] = []
    var transNext: [Int32] = []
    var transLink: [Int32] = []
    // Per match list node.
    var matchPattern: [Int32] = []
    var matchLink: [Int32] = []
    var rootChild: [Int32]

    init(alphabetLen: Int) {
        rootChild = [Int32](repeating: -1, count: alphabetLen)
    }

    var count: Int { firstTrans.count }

    func child(_ s: Int32, _ c: UInt8) -> Int32 {
        if s == 0 { return rootChild[Int(c)] }
        var link = firstTrans[Int(s)]
        while link != Self.none {
            let lc = transClass[Int(link)]
            if lc == c { return transNext[Int(link)] }
            if lc > c { return Self.none }
            link = transLink[Int(link)]
        }
        return Self.none
    }

    mutating func childOrInsert(_ s: Int32, _ c: UInt8) -> Int32 {
        if s == 0, rootChild[Int(c)] != Self.none { return rootChild[Int(c)] }
        // Find the insertion point in the sorted list.
        var previous = Self.none
        var link = firstTrans[Int(s)]
        while link != Self.none {
            let lc = transClass[Int(link)]
            if lc == c { return transNext[Int(link)] }
            if lc > c { break }
            previous = link
            link = transLink[Int(link)]
        }
        let state = Int32(firstTrans.count)
        firstTrans.append(Self.none)
        fail.append(0)
        matchHead.append(Self.none)
        matchTail.append(Self.none)
        let t = Int32(transClass.count)
        transClass.append(c)
        transNext.append(state)
        transLink.append(link)
        if previous == Self.none { firstTrans[Int(s)] = t } else { transLink[Int(previous)] = t }
        if s == 0 { rootChild[Int(c)] = state }
        return state
    }

    mutating func addMatch(_ s: Int32, _ pattern: Int32) {
        let node = Int32(matchPattern.count)
        matchPattern.append(pattern)
        matchLink.append(Self.none)
        if matchTail[Int(s)] == Self.none { matchHead[Int(s)] = node } else { matchLink[Int(matchTail[Int(s)])] = node }
        matchTail[Int(s)] = node
    }

    /// `s` on `c` following failure links; never returns `none`.
    private func follow(_ s: Int32, _ c: UInt8) -> Int32 {
        var s = s
        while true {
            if s == Self.dead { return Self.dead }
            if s == 0 {
                let r = rootChild[Int(c)]
                return r == Self.none ? 0 : r
            }
            let n = child(s, c)
            if n != Self.none { return n }
            s = fail[Int(s)]
        }
    }

    /// Fills failure links and shares match lists; returns all states in breadth-first order (start first).
    ///
    /// Leftmost kinds: a state with its own patterns fails to the dead state (once a match is seen, no
    /// match starting later may replace it), and inherits nothing.
    mutating func fillFailures(leftmost: Bool) -> [Int32] {
        var order: [Int32] = [0]
        order.reserveCapacity(count)
        var head = 0
        while head < order.count {
            let s = order[head]
            head += 1
            var link = firstTrans[Int(s)]
            while link != Self.none {
                let c = transClass[Int(link)]
                let t = transNext[Int(link)]
                link = transLink[Int(link)]
                order.append(t)
                if leftmost && matchHead[Int(t)] != Self.none {
                    fail[Int(t)] = Self.dead
                    continue
                }
                let f = s == 0 ? 0 : follow(fail[Int(s)], c)
                fail[Int(t)] = f
                if f >= 0 && matchHead[Int(f)] != Self.none {
                    // Share f's list: append it after t's own patterns.
                    if matchTail[Int(t)] == Self.none {
                        matchHead[Int(t)] = matchHead[Int(f)]
                    } else {
                        matchLink[Int(matchTail[Int(t)])] = matchHead[Int(f)]
                    }
                    // t's tail stays its own last node; t's list now continues into f's.
                    matchTail[Int(t)] = Self.none
                }
            }
        }
        return order
    }
}
