// Validation on load: an image from disk is checked, step by step, until every read a search can make
// is known to stay inside it and every walk to end. The steps run in the order the layout is read (the
// frame, the header's fields, the sections every engine has, the engine's tables, the prefilter), so a
// damaged image is refused with the first fault a reader meets.

extension _Image {
    fileprivate static func corrupt(_ what: String) -> AhoCorasickLoadError { AhoCorasickLoadError(.corrupt(what)) }

    /// Validates `raw` and returns its tables. Never reads outside `raw`.
    static func load(_ raw: UnsafeRawBufferPointer) throws -> _Image {
        let (base, version, total) = try checkFrame(raw)
        let header = try _Header(raw, version: version, total: total)
        try header.checkCounts()
        guard let layout = header.layout else { throw corrupt("section sizes overflow") }
        guard layout.total == total else { throw corrupt("total length \(total) differs from the layout's \(layout.total)") }
        // Every section lies within `total` by the layout check above, and every section offset is a
        // multiple of 16 from an 8-byte aligned base, so the typed views are aligned.
        let shared = try _SharedSections(base, layout, header)
        var tables = _EngineTables(dummy: base + layout.classes)
        switch header.code {
        case .dense32, .dense16: try tables.checkDense(base, layout, header)
        case .compact16, .compact32: try tables.checkCompact(base, layout, header)
        case .nfa: try tables.checkNFA(base, layout, header)
        }
        var teddy: _TeddyTables? = nil
        if header.prefilterRaw == 1 {
            guard header.foldRaw != 2 else { throw corrupt("a Teddy prefilter with Unicode folding") }
            teddy = try _TeddyTables.validate(UnsafeRawBufferPointer(start: base, count: total), layout.prefilter)
        }
        return _Image(base: base, header: header, shared: shared, tables: tables, teddy: teddy)
    }

    /// The frame: alignment, magic, endianness, version, total length and checksum.
    private static func checkFrame(
        _ raw: UnsafeRawBufferPointer
    ) throws -> (base: UnsafeRawPointer, version: UInt32, total: Int) {
        guard let base = raw.baseAddress else { throw AhoCorasickLoadError(.truncated(need: _headerSize, have: 0)) }
        guard UInt(bitPattern: base) % 8 == 0 else { throw AhoCorasickLoadError(.misaligned) }
        guard raw.count >= _headerSize else {
            throw AhoCorasickLoadError(.truncated(need: _headerSize, have: raw.count))
        }
        guard raw.prefix(8).elementsEqual(_magic) else { throw AhoCorasickLoadError(.badMagic) }
        let marker = _readU32(raw, 8)
        if marker == _endianMarker.byteSwapped { throw AhoCorasickLoadError(.bigEndian) }
        guard marker == _endianMarker else { throw corrupt("bad endianness marker") }
        let version = _readU32(raw, 12)
        guard version == 1 || version == _formatVersion else { throw AhoCorasickLoadError(.unsupportedVersion(version)) }
        let total64 = _readU64(raw, 16)
        guard total64 <= UInt64(raw.count) else {
            throw AhoCorasickLoadError(.truncated(need: Int(clamping: total64), have: raw.count))
        }
        let total = Int(total64)
        guard total >= _headerSize, total % 8 == 0 else { throw corrupt("bad total length \(total)") }
        guard _imageChecksum(base, total) == _readU64(raw, 24) else { throw AhoCorasickLoadError(.checksumMismatch) }
        return (base, version, total)
    }

    /// Throws unless following `fail` from every state reaches `start` or the dead state 0.
    /// - Complexity: O(S): each state is walked over at most twice.
    fileprivate static func checkFailChains(_ fail: UnsafePointer<UInt32>, _ count: Int, start: Int) throws {
        // 0 = unknown, 1 = on the current walk, 2 = known to end.
        var mark = [UInt8](repeating: 0, count: count)
        try mark.withUnsafeMutableBufferPointer { mark in
            mark[0] = 2
            mark[start] = 2
            for s in 0..<count where mark[s] == 0 {
                var t = s
                while mark[t] == 0 {
                    mark[t] = 1
                    t = Int(fail[t])
                }
                // Marks of 1 are all from this walk (earlier walks end with 2s), so meeting one is a cycle.
                if mark[t] == 1 { throw corrupt("failure links form a cycle through state \(t)") }
                var u = s
                while mark[u] == 1 {
                    mark[u] = 2
                    u = Int(fail[u])
                }
            }
        }
    }
}

private func _readU32(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
    UInt32(littleEndian: raw.load(fromByteOffset: offset, as: UInt32.self))
}

private func _readU64(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
    UInt64(littleEndian: raw.load(fromByteOffset: offset, as: UInt64.self))
}

/// A typed view of the section at `offset`.
/// - Precondition: `offset` lies inside the validated image and is aligned for `T` (section offsets are
///   multiples of 16 from an 8-byte aligned base).
private func _view<T>(_ base: UnsafeRawPointer, _ offset: Int, _ type: T.Type) -> UnsafePointer<T> {
    (base + offset).assumingMemoryBound(to: T.self)
}

/// The header's fields (offsets 32..<96), each checked alone and against the others.
struct _Header {
    let total: Int
    let code: _EngineCode
    let kindRaw: UInt32
    let foldRaw: UInt32
    let patternCount: Int
    let stateCount: Int
    let alphabetLen: Int
    let matchStateCount: Int
    let matchEntryCount: Int
    let sparseCount: Int
    let foldCount: Int
    let flags: UInt32
    let combCount: Int
    let compactStart: UInt32
    let compactMaxMatch: Int
    let defaultRows: Int
    let prefilterRaw: UInt32

    /// Reads the fields of a frame `checkFrame` accepted; checks the codes (engine, match kind, folding).
    fileprivate init(_ raw: UnsafeRawBufferPointer, version: UInt32, total: Int) throws {
        func u32(_ offset: Int) -> UInt32 { _readU32(raw, offset) }
        self.total = total
        let engineRaw = u32(32)
        kindRaw = u32(36)
        foldRaw = u32(40)
        guard let code = _EngineCode(rawValue: engineRaw), version >= 2 || engineRaw <= 1 else {
            throw _Image.corrupt("unknown engine \(engineRaw)")
        }
        self.code = code
        guard kindRaw <= 2 else { throw _Image.corrupt("unknown match kind \(kindRaw)") }
        guard foldRaw <= 2 else { throw _Image.corrupt("unknown case folding \(foldRaw)") }
        patternCount = Int(u32(44))
        stateCount = Int(u32(48))
        alphabetLen = Int(u32(52))
        matchStateCount = Int(u32(56))
        matchEntryCount = Int(u32(60))
        sparseCount = Int(u32(64))
        foldCount = Int(u32(68))
        flags = u32(72)
        combCount = Int(u32(76))
        compactStart = u32(80)
        compactMaxMatch = Int(u32(84))
        defaultRows = Int(u32(88))
        prefilterRaw = u32(92)
    }

    /// The counts: within their ranges, consistent with each other and with the engine.
    fileprivate func checkCounts() throws {
        guard flags <= 1 else { throw _Image.corrupt("unknown flags \(flags)") }
        if !code.isCompact {
            guard combCount == 0, compactStart == 0, compactMaxMatch == 0, defaultRows == 0 else {
                throw _Image.corrupt("compact DFA fields in an image of another engine")
            }
        }
        guard prefilterRaw <= 1 else { throw _Image.corrupt("unknown prefilter \(prefilterRaw)") }
        guard patternCount <= Int(Int32.max) else { throw _Image.corrupt("pattern count \(patternCount)") }
        guard alphabetLen >= 1, alphabetLen <= 256 else { throw _Image.corrupt("byte class count \(alphabetLen)") }
        // Dead state, match states, start state.
        guard matchStateCount + 2 <= stateCount else {
            throw _Image.corrupt("state count \(stateCount) below match states \(matchStateCount) + 2")
        }
        guard code == .nfa || sparseCount == 0 else { throw _Image.corrupt("a DFA with sparse transitions") }
        guard sparseCount <= Int(UInt32.max) else { throw _Image.corrupt("sparse count") }
        try checkEngineCounts()
        if foldRaw != 2 && foldCount != 0 { throw _Image.corrupt("fold pairs without Unicode folding") }
    }

    /// The counts that bound the engine's ids.
    private func checkEngineCounts() throws {
        switch code {
        case .dense32:
            // Premultiplied ids must fit in UInt32.
            guard UInt64(stateCount) * UInt64(alphabetLen) <= UInt64(UInt32.max) else {
                throw _Image.corrupt("DFA too large for 32-bit state ids")
            }
        case .dense16:
            guard stateCount * alphabetLen <= 1 << 16 else { throw _Image.corrupt("DFA too large for 16-bit state ids") }
        case .compact16, .compact32:
            // Every id s must have s + A <= C (so comb[s + c] is in bounds), and fit the id width.
            let limit = code == .compact16 ? 0xFFFF : 0xFF_FFFF
            guard alphabetLen <= 255, combCount >= alphabetLen, combCount - alphabetLen <= limit else {
                throw _Image.corrupt("comb cell count \(combCount) for \(alphabetLen) classes")
            }
            guard Int(compactStart) <= combCount - alphabetLen, compactMaxMatch < Int(compactStart) else {
                throw _Image.corrupt("compact start \(compactStart) or largest match id \(compactMaxMatch)")
            }
            // Row offsets r must have r + A <= R × A.
            guard defaultRows >= 1, defaultRows <= (code == .compact16 ? 0x1_0000 : Int(UInt32.max)) / alphabetLen else {
                throw _Image.corrupt("default row count \(defaultRows)")
            }
        case .nfa:
            break
        }
    }

    /// Where the sections live; nil when a size overflows.
    fileprivate var layout: _Layout? {
        _Layout(
            engine: code, patternCount: patternCount, stateCount: stateCount, alphabetLen: alphabetLen,
            matchStateCount: matchStateCount, matchEntryCount: matchEntryCount, sparseCount: sparseCount,
            foldCount: foldCount, combCount: combCount, maxMatchID: compactMaxMatch, defaultRows: defaultRows,
            hasPrefilter: prefilterRaw == 1)
    }
}

/// The sections every engine has, checked: byte classes, patterns, match lists, Unicode folds.
struct _SharedSections {
    let classes: UnsafePointer<UInt8>
    let patterns: UnsafePointer<UInt32>
    let matchOffsets: UnsafePointer<UInt32>
    let matchList: UnsafePointer<UInt32>
    let folds: UnsafePointer<UInt32>

    fileprivate init(_ base: UnsafeRawPointer, _ layout: _Layout, _ header: _Header) throws {
        classes = _view(base, layout.classes, UInt8.self)
        patterns = _view(base, layout.patterns, UInt32.self)
        matchOffsets = _view(base, layout.matchOffsets, UInt32.self)
        matchList = _view(base, layout.matchList, UInt32.self)
        folds = _view(base, layout.folds, UInt32.self)
        let alphabetLen = header.alphabetLen
        let patternCount = header.patternCount
        let matchStateCount = header.matchStateCount
        let matchEntryCount = header.matchEntryCount
        for b in 0..<256 where Int(classes[b]) >= alphabetLen {
            throw _Image.corrupt("byte \(b) has class \(classes[b]) >= \(alphabetLen)")
        }
        for p in 0..<patternCount {
            guard patterns[2 * p] >= 1 else { throw _Image.corrupt("pattern \(p) has length 0") }
            guard patterns[2 * p + 1] <= 1 else { throw _Image.corrupt("pattern \(p) has unknown flags") }
        }
        // Match offsets: start at 0, strictly increase (each match state has a match), end at E.
        guard matchOffsets[0] == 0, Int(matchOffsets[matchStateCount]) == matchEntryCount else {
            throw _Image.corrupt("match offsets do not span the match list")
        }
        for i in 1...max(matchStateCount, 1) where i <= matchStateCount {
            guard matchOffsets[i - 1] < matchOffsets[i] else { throw _Image.corrupt("match state \(i) has no match") }
        }
        for k in 0..<matchEntryCount where Int(matchList[k]) >= patternCount {
            throw _Image.corrupt("match list entry \(k) names pattern \(matchList[k]) of \(patternCount)")
        }
        var previous: UInt32 = 0
        for k in 0..<header.foldCount {
            let from = folds[2 * k]
            let to = folds[2 * k + 1]
            guard from > previous || k == 0, Unicode.Scalar(from) != nil, Unicode.Scalar(to) != nil else {
                throw _Image.corrupt("fold pair \(k)")
            }
            previous = from
        }
    }
}

/// The engine's own tables, checked, and its start and largest match ids. The sections an engine does
/// not have point at the byte classes (valid pointers, never read).
struct _EngineTables {
    var dfaTrans: UnsafePointer<UInt32>
    var dfaTrans16: UnsafePointer<UInt16>
    var nfaFail: UnsafePointer<UInt32>
    var nfaSparseStart: UnsafePointer<UInt32>
    var nfaSparseClass: UnsafePointer<UInt8>
    var nfaSparseNext: UnsafePointer<UInt32>
    var nfaRoot: UnsafePointer<UInt32>
    var comb: UnsafePointer<UInt32>
    var defaults16: UnsafePointer<UInt32>
    var defaults32: UnsafePointer<UInt64>
    var matchIndex: UnsafePointer<UInt32>
    var startID: UInt32 = 0
    var maxMatchID: UInt32 = 0

    fileprivate init(dummy: UnsafeRawPointer) {
        let dummy32 = dummy.assumingMemoryBound(to: UInt32.self)
        dfaTrans = dummy32
        dfaTrans16 = dummy.assumingMemoryBound(to: UInt16.self)
        nfaFail = dummy32
        nfaSparseStart = dummy32
        nfaSparseClass = dummy.assumingMemoryBound(to: UInt8.self)
        nfaSparseNext = dummy32
        nfaRoot = dummy32
        comb = dummy32
        defaults16 = dummy32
        defaults32 = dummy.assumingMemoryBound(to: UInt64.self)
        matchIndex = dummy32
    }

    /// Dense DFA (engines 0 and 2): every transition a premultiplied id in range; the dead state loops.
    fileprivate mutating func checkDense(_ base: UnsafeRawPointer, _ layout: _Layout, _ header: _Header) throws {
        let code = header.code
        let stride = header.alphabetLen
        let cells = header.stateCount * stride
        let limit = UInt64(cells)
        // e / stride by multiplication: exact for e < 2^32 and stride <= 256 (see DESIGN.md).
        let reciprocal = ((UInt64(1) << 40) + UInt64(stride) - 1) / UInt64(stride)
        var bad = false
        if code == .dense32 {
            dfaTrans = _view(base, layout.dfaTrans, UInt32.self)
        } else {
            dfaTrans16 = _view(base, layout.dfaTrans, UInt16.self)
        }
        let dfaTrans = dfaTrans
        let dfaTrans16 = dfaTrans16
        for k in 0..<cells {
            let e = code == .dense32 ? UInt64(dfaTrans[k]) : UInt64(dfaTrans16[k])
            let q = (e &* reciprocal) >> 40
            bad = bad || e >= limit || q &* UInt64(stride) != e
        }
        if bad { throw _Image.corrupt("a DFA transition is out of range or not a multiple of the stride") }
        for c in 0..<stride {
            let e = code == .dense32 ? dfaTrans[c] : UInt32(dfaTrans16[c])
            if e != 0 { throw _Image.corrupt("the dead state does not loop") }
        }
        startID = UInt32((header.matchStateCount + 1) * stride)
        maxMatchID = UInt32(header.matchStateCount * stride)
    }

    /// Compact DFA (engines 3 and 4): every next id and default-row id a valid id (s + A <= C); the match
    /// index maps ids 0...X to 0...M.
    fileprivate mutating func checkCompact(_ base: UnsafeRawPointer, _ layout: _Layout, _ header: _Header) throws {
        let stride = header.alphabetLen
        let combCount = header.combCount
        let defaultRows = header.defaultRows
        let maxID = UInt64(combCount - stride)
        let maxRow = UInt64((defaultRows - 1) * stride)
        var bad = false
        let comb = _view(base, layout.comb, UInt32.self)
        self.comb = comb
        for k in 0..<combCount { bad = bad || UInt64(comb[k] >> 8) > maxID }
        if header.code == .compact16 {
            let defaults16 = _view(base, layout.defaults, UInt32.self)
            self.defaults16 = defaults16
            for k in 0..<(defaultRows * stride) {
                let cell = defaults16[k]
                bad = bad || UInt64(cell >> 16) > maxID || UInt64(cell & 0xFFFF) > maxRow
            }
        } else {
            let defaults32 = _view(base, layout.defaults, UInt64.self)
            self.defaults32 = defaults32
            for k in 0..<(defaultRows * stride) {
                let cell = defaults32[k]
                bad = bad || cell >> 32 > maxID || cell & 0xFFFF_FFFF > maxRow
            }
        }
        if bad { throw _Image.corrupt("a compact DFA cell or default row names an id or row out of range") }
        let matchIndex = _view(base, layout.matchIndex, UInt32.self)
        self.matchIndex = matchIndex
        for k in 0...header.compactMaxMatch where Int(matchIndex[k]) > header.matchStateCount {
            throw _Image.corrupt("match index of id \(k)")
        }
        startID = header.compactStart
        maxMatchID = UInt32(header.compactMaxMatch)
    }

    /// NFA (engine 1): sparse transitions ascending and in range, fail links in range, failure chains
    /// that end.
    fileprivate mutating func checkNFA(_ base: UnsafeRawPointer, _ layout: _Layout, _ header: _Header) throws {
        let stateCount = header.stateCount
        let alphabetLen = header.alphabetLen
        let sparseCount = header.sparseCount
        let nfaFail = _view(base, layout.nfaFail, UInt32.self)
        let nfaSparseStart = _view(base, layout.nfaSparseStart, UInt32.self)
        let nfaSparseClass = _view(base, layout.nfaSparseClass, UInt8.self)
        let nfaSparseNext = _view(base, layout.nfaSparseNext, UInt32.self)
        let nfaRoot = _view(base, layout.nfaRoot, UInt32.self)
        self.nfaFail = nfaFail
        self.nfaSparseStart = nfaSparseStart
        self.nfaSparseClass = nfaSparseClass
        self.nfaSparseNext = nfaSparseNext
        self.nfaRoot = nfaRoot
        guard nfaSparseStart[0] == 0, Int(nfaSparseStart[stateCount]) == sparseCount else {
            throw _Image.corrupt("sparse offsets do not span the transitions")
        }
        for s in 0..<stateCount {
            let lo = Int(nfaSparseStart[s])
            let hi = Int(nfaSparseStart[s + 1])
            guard lo <= hi else { throw _Image.corrupt("sparse offsets of state \(s) decrease") }
            guard Int(nfaFail[s]) < stateCount else { throw _Image.corrupt("fail link of state \(s)") }
            var last = -1
            for k in lo..<hi {
                let c = Int(nfaSparseClass[k])
                guard c > last, c < alphabetLen, Int(nfaSparseNext[k]) < stateCount else {
                    throw _Image.corrupt("transition \(k) of state \(s)")
                }
                last = c
            }
        }
        for c in 0..<alphabetLen where Int(nfaRoot[c]) >= stateCount {
            throw _Image.corrupt("start transition \(c)")
        }
        // Failure chains must end (at the start or the dead state), or a search could loop forever.
        try _Image.checkFailChains(nfaFail, stateCount, start: header.matchStateCount + 1)
        startID = UInt32(header.matchStateCount + 1)
        maxMatchID = UInt32(header.matchStateCount)
    }
}
