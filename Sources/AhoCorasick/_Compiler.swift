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
