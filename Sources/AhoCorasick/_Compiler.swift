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

    /// The patterns after case folding.
    struct Folded {
        var bytes: [[UInt8]] = []
        /// Length in bytes, or in scalars for Unicode folding.
        var unitLengths: [UInt32] = []
        var foldPairs: [(from: UInt32, to: UInt32)] = []
    }

    /// The trie renumbered for the image: dead 0, match states 1...M, start M + 1, the rest.
    struct Numbering {
        var newIndex: [Int32]
        var matchStates: [Int32]
        var matchOffsets: [UInt32]
        var matchList: [UInt32]
        var stateCount: Int
    }

    func compile() throws -> UnsafeMutableRawBufferPointer {
        guard patterns.count <= Int(Int32.max) else { throw AhoCorasickBuildError(.tooManyPatterns(patterns.count)) }
        let folded = try foldPatterns()
        let (classOf, alphabetLen) = byteClasses(folded.bytes)
        var trie = buildTrie(folded.bytes, classOf, alphabetLen)
        let order = trie.fillFailures(leftmost: builder.matchKind != .standard)
        let numbering = try renumber(trie, order)
        let engine = try chooseEngine(trie, order, numbering, alphabetLen)
        var teddy: [UInt8]? = nil
        if builder.prefilter && builder.caseFolding != .unicode {
            teddy = _teddySection(folded.bytes, foldCaseBit: builder.caseFolding == .ascii)
        }
        return try write(folded, classOf, alphabetLen, trie, order, numbering, engine, teddy)
    }

    // MARK: Steps

    /// 1. Folded bytes and unit lengths.
    func foldPatterns() throws -> Folded {
        var result = Folded()
        result.bytes.reserveCapacity(patterns.count)
        result.unitLengths.reserveCapacity(patterns.count)
        var patternScalars = Set<UInt32>()
        for (index, pattern) in patterns.enumerated() {
            guard !pattern.bytes.isEmpty else { throw AhoCorasickBuildError(.emptyPattern(index)) }
            guard pattern.bytes.count <= Int(UInt32.max) else { throw AhoCorasickBuildError(.tooLarge("pattern \(index)")) }
            switch builder.caseFolding {
            case .none:
                result.bytes.append(pattern.bytes)
                result.unitLengths.append(UInt32(pattern.bytes.count))
            case .ascii:
                result.bytes.append(pattern.bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
                result.unitLengths.append(UInt32(pattern.bytes.count))
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
                result.bytes.append(out)
                result.unitLengths.append(scalars)
            }
        }
        if builder.caseFolding == .unicode {
            result.foldPairs = _UnicodeFold.nonTrivialFolds.filter { patternScalars.contains($0.to) }
        }
        return result
    }

    /// 2. Byte classes: one per byte that occurs in a folded pattern, plus class 0 for all the others.
    func byteClasses(_ folded: [[UInt8]]) -> (classOf: [UInt8], alphabetLen: Int) {
        var used = [Bool](repeating: false, count: 256)
        for bytes in folded { for b in bytes { used[Int(b)] = true } }
        let usedCount = used.lazy.filter { $0 }.count
        var classOf = [UInt8](repeating: 0, count: 256)
        var next = usedCount == 256 ? 0 : 1
        for b in 0..<256 where used[b] {
            classOf[b] = UInt8(next)
            next += 1
        }
        if builder.caseFolding != .none {
            // Folded patterns hold no A-Z: give A-Z the class of a-z.
            for b in 0x41...0x5A { classOf[b] = classOf[b | 0x20] }
        }
        return (classOf, next)
    }

    /// 3. The trie. State 0 is the start state.
    func buildTrie(_ folded: [[UInt8]], _ classOf: [UInt8], _ alphabetLen: Int) -> _Trie {
        var trie = _Trie(alphabetLen: alphabetLen)
        for (index, bytes) in folded.enumerated() {
            var state: Int32 = 0
            var skipped = false
            for b in bytes {
                // Leftmost-first: a pattern extending an earlier complete pattern can never match.
                if builder.matchKind == .leftmostFirst && trie.matchHead[Int(state)] != Self.none {
                    skipped = true
                    break
                }
                state = trie.childOrInsert(state, classOf[Int(b)])
            }
            if !skipped { trie.addMatch(state, Int32(index)) }
        }
        return trie
    }

    /// 5. Renumber (4, the failure links, is `_Trie.fillFailures`) and lay out the match lists.
    func renumber(_ trie: _Trie, _ order: [Int32]) throws -> Numbering {
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
        let stateCount = trieCount + 1
        guard matchList.count <= Int(UInt32.max), stateCount <= Int(UInt32.max) else {
            throw AhoCorasickBuildError(.tooLarge("more than 2^32 states or match entries"))
        }
        return Numbering(
            newIndex: newIndex, matchStates: matchStates, matchOffsets: matchOffsets, matchList: matchList,
            stateCount: stateCount)
    }

    /// What the image will hold.
    enum EnginePlan {
        case dense(wide: Bool)
        case compact(_CompactPlan)
        case nfa
    }

    /// 6. The engine: the builder's choice, or for `.auto` the dense DFA while its table is at most
    /// `denseAutoLimit` bytes (it is the fastest while it stays in the L1/L2 caches), then the compact DFA
    /// while it fits `dfaSizeLimit`, then the NFA.
    func chooseEngine(_ trie: _Trie, _ order: [Int32], _ numbering: Numbering, _ alphabetLen: Int) throws -> EnginePlan {
        let stateCount = numbering.stateCount
        let (cells, overflow) = stateCount.multipliedReportingOverflow(by: alphabetLen)
        let denseFits = !overflow && cells <= Int(UInt32.max)
        let narrow = !overflow && cells <= 1 << 16 && !builder._wideStateIDs
        func compact() -> _CompactPlan? {
            _CompactPlan(trie: trie, order: order, newIndex: numbering.newIndex, matchCount: numbering.matchStates.count,
                         alphabetLen: alphabetLen, byteLimit: builder.dfaSizeLimit, forceWide: builder._wideStateIDs)
        }
        switch builder.engine {
        case .dfa:
            guard denseFits else { throw AhoCorasickBuildError(.tooLarge("a DFA of \(stateCount) states × \(alphabetLen) classes")) }
            return .dense(wide: !narrow)
        case .nfa:
            return .nfa
        case .compact:
            guard let plan = _CompactPlan(trie: trie, order: order, newIndex: numbering.newIndex,
                                          matchCount: numbering.matchStates.count, alphabetLen: alphabetLen,
                                          byteLimit: Int.max, forceWide: builder._wideStateIDs)
            else { throw AhoCorasickBuildError(.tooLarge("a compact DFA of \(stateCount) states × \(alphabetLen) classes")) }
            return .compact(plan)
        case .auto:
            let denseBytes = narrow ? cells * 2 : cells * 4
            if denseFits && denseBytes <= min(builder.denseAutoLimit, builder.dfaSizeLimit) { return .dense(wide: !narrow) }
            // Past 2^18 states a compact DFA is several MiB (no cache to fit) and packing it costs more
            // than building the NFA (100,000 random keywords: 632,748 states, 25.8 MB compact against a
            // 9.9 MB NFA, and 1.8 s against 1.1 s to build).
            if stateCount <= 1 << 18, let plan = compact() { return .compact(plan) }
            if denseFits && denseBytes <= builder.dfaSizeLimit { return .dense(wide: !narrow) }
            return .nfa
        }
    }

    /// 7. Write the image.
    func write(
        _ folded: Folded, _ classOf: [UInt8], _ alphabetLen: Int, _ trie: _Trie, _ order: [Int32],
        _ numbering: Numbering, _ engine: EnginePlan, _ teddy: [UInt8]?
    ) throws -> UnsafeMutableRawBufferPointer {
        let code: _EngineCode
        var compactPlan: _CompactPlan? = nil
        switch engine {
        case .dense(let wide): code = wide ? .dense32 : .dense16
        case .nfa: code = .nfa
        case .compact(let plan):
            code = plan.wide ? .compact32 : .compact16
            compactPlan = plan
        }
        let sparseCount = code == .nfa ? trie.transClass.count : 0
        guard
            let layout = _Layout(
                engine: code, patternCount: patterns.count, stateCount: numbering.stateCount,
                alphabetLen: alphabetLen, matchStateCount: numbering.matchStates.count,
                matchEntryCount: numbering.matchList.count, sparseCount: sparseCount,
                foldCount: folded.foldPairs.count, combCount: compactPlan?.cells.count ?? 0,
                maxMatchID: Int(compactPlan?.maxMatchID ?? 0), defaultRows: compactPlan?.defaultRows ?? 0,
                hasPrefilter: teddy != nil)
        else { throw AhoCorasickBuildError(.tooLarge("the image size overflows")) }
        let image = UnsafeMutableRawBufferPointer.allocate(byteCount: layout.total, alignment: 16)
        image.initializeMemory(as: UInt8.self, repeating: 0)
        writeHeader(image, layout, code, alphabetLen, numbering, sparseCount, folded, compactPlan, teddy)
        writeSharedSections(image, layout, classOf, folded, numbering, teddy)
        let base = image.baseAddress!
        switch code {
        case .dense32:
            writeDense(trie, order, numbering.newIndex, alphabetLen, (base + layout.dfaTrans).assumingMemoryBound(to: UInt32.self))
        case .dense16:
            writeDense(trie, order, numbering.newIndex, alphabetLen, (base + layout.dfaTrans).assumingMemoryBound(to: UInt16.self))
        case .compact16, .compact32:
            compactPlan!.write(image, layout, alphabetLen)
        case .nfa:
            writeNFA(trie, numbering, alphabetLen, base, layout)
        }
        _put64(image, 24, _imageChecksum(UnsafeRawPointer(base), layout.total))
        return image
    }

    /// The header (offsets 0..<96) but its checksum.
    func writeHeader(
        _ image: UnsafeMutableRawBufferPointer, _ layout: _Layout, _ code: _EngineCode, _ alphabetLen: Int,
        _ numbering: Numbering, _ sparseCount: Int, _ folded: Folded, _ compactPlan: _CompactPlan?, _ teddy: [UInt8]?
    ) {
        let kind = builder.matchKind
        let folding = builder.caseFolding
        for (k, b) in _magic.enumerated() { image[k] = b }
        _put32(image, 8, _endianMarker)
        _put32(image, 12, _formatVersion)
        _put64(image, 16, UInt64(layout.total))
        _put32(image, 32, code.rawValue)
        _put32(image, 36, kind == .standard ? 0 : kind == .leftmostFirst ? 1 : 2)
        _put32(image, 40, folding == .none ? 0 : folding == .ascii ? 1 : 2)
        _put32(image, 44, UInt32(patterns.count))
        _put32(image, 48, UInt32(numbering.stateCount))
        _put32(image, 52, UInt32(alphabetLen))
        _put32(image, 56, UInt32(numbering.matchStates.count))
        _put32(image, 60, UInt32(numbering.matchList.count))
        _put32(image, 64, UInt32(sparseCount))
        _put32(image, 68, UInt32(folded.foldPairs.count))
        let anyWholeWord = builder.wholeWord || patterns.contains { $0.wholeWord }
        _put32(image, 72, anyWholeWord ? 1 : 0)
        if let compactPlan {
            _put32(image, 76, UInt32(compactPlan.cells.count))
            _put32(image, 80, compactPlan.startID)
            _put32(image, 84, compactPlan.maxMatchID)
            _put32(image, 88, UInt32(compactPlan.defaultRows))
        }
        _put32(image, 92, teddy == nil ? 0 : 1)
    }

    /// The sections every engine has: byte classes, patterns, match lists, Unicode folds; and the
    /// prefilter's tables.
    func writeSharedSections(
        _ image: UnsafeMutableRawBufferPointer, _ layout: _Layout, _ classOf: [UInt8], _ folded: Folded,
        _ numbering: Numbering, _ teddy: [UInt8]?
    ) {
        for b in 0..<256 { image[layout.classes + b] = classOf[b] }
        for (p, pattern) in patterns.enumerated() {
            _put32(image, layout.patterns + 8 * p, folded.unitLengths[p])
            _put32(image, layout.patterns + 8 * p + 4, builder.wholeWord || pattern.wholeWord ? 1 : 0)
        }
        for (k, v) in numbering.matchOffsets.enumerated() { _put32(image, layout.matchOffsets + 4 * k, v) }
        for (k, v) in numbering.matchList.enumerated() { _put32(image, layout.matchList + 4 * k, v) }
        for (k, pair) in folded.foldPairs.enumerated() {
            _put32(image, layout.folds + 8 * k, pair.from)
            _put32(image, layout.folds + 8 * k + 4, pair.to)
        }
        if let teddy {
            for (k, b) in teddy.enumerated() { image[layout.prefilter + k] = b }
        }
    }

    /// The dense DFA's rows in breadth-first order: a state's failure state (shallower) already has its row.
    func writeDense<T: _DenseID>(
        _ trie: _Trie, _ order: [Int32], _ newIndex: [Int32], _ stride: Int, _ trans: UnsafeMutablePointer<T>
    ) {
        let startRow = Int(newIndex[0]) * stride
        for c in 0..<stride {
            let child = trie.rootChild[c]
            trans[startRow + c] = T(Int(child == Self.none ? newIndex[0] : newIndex[Int(child)]) * stride)
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
                trans[row + Int(trie.transClass[Int(link)])] = T(Int(newIndex[Int(trie.transNext[Int(link)])]) * stride)
                link = trie.transLink[Int(link)]
            }
        }
    }

    func writeNFA(_ trie: _Trie, _ numbering: Numbering, _ alphabetLen: Int, _ base: UnsafeMutableRawPointer, _ layout: _Layout) {
        let newIndex = numbering.newIndex
        let stateCount = numbering.stateCount
        let fail = (base + layout.nfaFail).assumingMemoryBound(to: UInt32.self)
        let sparseStart = (base + layout.nfaSparseStart).assumingMemoryBound(to: UInt32.self)
        let sparseClass = (base + layout.nfaSparseClass).assumingMemoryBound(to: UInt8.self)
        let sparseNext = (base + layout.nfaSparseNext).assumingMemoryBound(to: UInt32.self)
        let root = (base + layout.nfaRoot).assumingMemoryBound(to: UInt32.self)
        func renumber(_ s: Int32) -> Int32 { s == Self.dead ? 0 : newIndex[Int(s)] }
        // States by new index.
        var byNew = [Int32](repeating: Self.dead, count: stateCount)
        for s in 0..<trie.count { byNew[Int(newIndex[s])] = Int32(s) }
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
}

private func _put32(_ image: UnsafeMutableRawBufferPointer, _ offset: Int, _ value: UInt32) {
    image.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
}

private func _put64(_ image: UnsafeMutableRawBufferPointer, _ offset: Int, _ value: UInt64) {
    image.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self)
}

/// The compact DFA of a trie (see `_Compact` in `_Search.swift` and DESIGN.md): per state deeper than two
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

    /// `s` on `c` following failure links (the full DFA transition); never returns `none`.
    func follow(_ s: Int32, _ c: UInt8) -> Int32 {
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
