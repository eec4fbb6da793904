// The serialized image: layout, writing helpers, validation on load, and the pointers searches use.
//
// All integers are little-endian. Sections start at 16-byte aligned offsets from the image's start.
//
//   offset  size  field
//   0       8     magic "AHOCORSK"
//   8       4     endianness marker 0x0A0B0C0D (reads 0x0D0C0B0A on a big-endian writer)
//   12      4     format version (2; version 1 images, engines 0 and 1 only, still load)
//   16      8     total length of the image in bytes
//   24      8     checksum (_hash64 of bytes 0..<24 and 32..<total)
//   32      4     engine (0 DFA with 32-bit ids, 1 NFA, 2 DFA with 16-bit ids, 3 compact DFA with
//                 16-bit ids, 4 compact DFA with 32-bit ids)
//   36      4     match kind (0 standard, 1 leftmost-first, 2 leftmost-longest)
//   40      4     case folding (0 none, 1 ASCII, 2 Unicode simple)
//   44      4     pattern count P
//   48      4     state count S (dead state, match states, start state, the rest)
//   52      4     byte class count A (1…256; the DFA's stride)
//   56      4     match state count M (states 1…M are the match states, M + 1 the start state)
//   60      4     match list entry count E
//   64      4     NFA sparse transition count T (0 for a DFA)
//   68      4     Unicode fold pair count F
//   72      4     flags (bit 0: some pattern is whole-word)
//   76      4     compact only: comb cell count C (else 0)
//   80      4     compact only: start state id (else 0)
//   84      4     compact only: largest match state id (else 0)
//   88      4     compact only: default row count R (the states at most two bytes deep; else 0)
//   92      4     prefilter: 0 none, 1 Teddy
//   96            sections, in this order, each padded to 16 bytes:
//     byte classes     256 × u8        class of each haystack byte (ASCII folding merged in)
//     patterns         P × 2 × u32     (length, flags): length in bytes, or in scalars for Unicode folding;
//                                      flags bit 0 = whole word
//     match offsets    (M + 1) × u32   state i in 1…M reports match list entries offsets[i-1] ..< offsets[i]
//     match list       E × u32         pattern indexes
//     DFA only:
//       transitions    S × A × u32     premultiplied: the next state of state id s on class c is at s + c
//                      (S × A × u16 for engine 2, which needs S × A <= 65,536)
//     compact DFA only (W = 2 bytes for engine 3, 4 for engine 4; at most 255 classes):
//       comb           C × u32         cells next id << 8 | class (0xFF: unused); the next state of id s on
//                                      class c is comb[s + c] >> 8 when its low byte is c, else the default
//                                      row's entry. Ids are at most 0xFFFF (engine 3) or 0xFFFFFF (engine 4)
//       default rows   R × A × 2W      cells (next row, next id) of the states at most two bytes deep
//                                      (row 0 the start state): the next shallow state's row offset
//                                      (premultiplied by A) and the full DFA transition
//       match index    (X + 1) × u32   X the largest match state id: id → match state index (0 none)
//     NFA only:
//       fail           S × u32         failure state index
//       sparse start   (S + 1) × u32   state i's transitions are entries start[i] ..< start[i+1]
//       sparse class   T × u8          ascending within a state
//       sparse next    T × u32         state indexes
//       start row      A × u32         the start state's dense transitions
//     Unicode folds    F × 2 × u32     (scalar, fold), ascending by scalar, both valid scalars
//     Teddy prefilter  4,208 bytes     (only with a prefilter) see Sources/CAhoCorasickSIMD/include/aho_simd.h:
//                                      fingerprint length, flags, prefix lengths, nibble tables of bucket
//                                      bits, a 32,768-bit set of the hashes of the patterns' first 4 bytes

let _magic: [UInt8] = Array("AHOCORSK".utf8)
let _endianMarker: UInt32 = 0x0A0B_0C0D
let _formatVersion: UInt32 = 2
/// The engine codes of the header's field at 32.
enum _EngineCode: UInt32 {
    case dense32 = 0, nfa = 1, dense16 = 2, compact16 = 3, compact32 = 4

    var isDense: Bool { self == .dense32 || self == .dense16 }
    var isCompact: Bool { self == .compact16 || self == .compact32 }
    /// Bytes per state id in the tables.
    var idWidth: Int { self == .dense16 || self == .compact16 ? 2 : 4 }
}

let _headerSize = 96

/// Where each section lives, computed from the header's counts with overflow checks.
struct _Layout {
    var classes = 0
    var patterns = 0
    var matchOffsets = 0
    var matchList = 0
    var dfaTrans = 0
    var nfaFail = 0
    var nfaSparseStart = 0
    var nfaSparseClass = 0
    var nfaSparseNext = 0
    var nfaRoot = 0
    var comb = 0
    var defaults = 0
    var matchIndex = 0
    var folds = 0
    var prefilter = 0
    var total = 0

    /// nil when a size overflows `Int`.
    init?(
        engine: _EngineCode, patternCount: Int, stateCount: Int, alphabetLen: Int, matchStateCount: Int,
        matchEntryCount: Int, sparseCount: Int, foldCount: Int, combCount: Int = 0, maxMatchID: Int = 0, defaultRows: Int = 0,
        hasPrefilter: Bool = false
    ) {
        var at = _headerSize
        func section(_ count: Int, _ width: Int) -> Int? {
            let (size, o1) = count.multipliedReportingOverflow(by: width)
            let (end, o2) = at.addingReportingOverflow(size)
            // Round up to 16: why no overflow: `end` is checked to be at most Int.max - 15 first.
            guard !o1, !o2, end <= Int.max - 15 else { return nil }
            let start = at
            at = (end + 15) & ~15
            return start
        }
        guard let c = section(256, 1), let p = section(patternCount, 8),
            let mo = section(matchStateCount + 1, 4), let ml = section(matchEntryCount, 4)
        else { return nil }
        classes = c
        patterns = p
        matchOffsets = mo
        matchList = ml
        switch engine {
        case .dense32, .dense16:
            let (cells, o) = stateCount.multipliedReportingOverflow(by: alphabetLen)
            guard !o, let t = section(cells, engine.idWidth) else { return nil }
            dfaTrans = t
        case .compact16, .compact32:
            let (rows, o1) = defaultRows.multipliedReportingOverflow(by: alphabetLen)
            let (indexes, o2) = maxMatchID.addingReportingOverflow(1)
            guard !o1, !o2, let c = section(combCount, 4), let d = section(rows, 2 * engine.idWidth),
                let x = section(indexes, 4)
            else { return nil }
            comb = c
            defaults = d
            matchIndex = x
        case .nfa:
            guard let f = section(stateCount, 4), let ss = section(stateCount + 1, 4),
                let sc = section(sparseCount, 1), let sn = section(sparseCount, 4), let r = section(alphabetLen, 4)
            else { return nil }
            nfaFail = f
            nfaSparseStart = ss
            nfaSparseClass = sc
            nfaSparseNext = sn
            nfaRoot = r
        }
        guard let fo = section(foldCount, 8), let pf = section(hasPrefilter ? _TeddyTables.size : 0, 1) else { return nil }
        folds = fo
        prefilter = pf
        total = at
    }
}

/// A 64-bit hash of `count` bytes (a multiple of 8): per 8-byte word, xor, rotate, multiply by an odd
/// constant. Each step is a bijection of the running state, so any change confined to one word always
/// changes the result.
func _hash64(_ p: UnsafeRawPointer, _ count: Int, _ seed: UInt64) -> UInt64 {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ seed
    var i = 0
    // Why no overflow: i <= count - 8 inside the loop.
    while i &+ 8 <= count {
        let w = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        h ^= w
        h = (h << 23 | h >> 41) &* 0x9E37_79B9_7F4A_7C15
        i &+= 8
    }
    h ^= h >> 31
    h &*= 0xBF58_476D_1CE4_E5B9
    h ^= h >> 29
    return h
}

/// The checksum stored at offset 24: bytes 0..<24 and 32..<total.
func _imageChecksum(_ p: UnsafeRawPointer, _ total: Int) -> UInt64 {
    let head = _hash64(p, 24, 0)
    return _hash64(p + 32, total - 32, head)
}

/// A validated image: counts and typed pointers into it.
///
/// `@unchecked Sendable`: it only holds pointers to immutable memory that its owner (`AhoCorasick.storage`)
/// keeps alive.
struct _Image: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
    let engineCode: _EngineCode
    let matchKind: MatchKind
    let caseFolding: CaseFolding
    let patternCount: Int
    let stateCount: Int
    let alphabetLen: Int
    let matchStateCount: Int
    let anyWholeWord: Bool
    let foldCount: Int

    let classes: UnsafePointer<UInt8>
    let patterns: UnsafePointer<UInt32>
    let matchOffsets: UnsafePointer<UInt32>
    let matchList: UnsafePointer<UInt32>
    /// Dense DFA transitions (engine 0; for other engines a valid dummy pointer).
    let dfaTrans: UnsafePointer<UInt32>
    /// Dense DFA transitions (engine 2).
    let dfaTrans16: UnsafePointer<UInt16>
    let nfaFail: UnsafePointer<UInt32>
    let nfaSparseStart: UnsafePointer<UInt32>
    let nfaSparseClass: UnsafePointer<UInt8>
    let nfaSparseNext: UnsafePointer<UInt32>
    let nfaRoot: UnsafePointer<UInt32>
    /// Compact DFA (engines 3 and 4): comb cells, default rows, id → match index.
    let combCount: Int
    let comb: UnsafePointer<UInt32>
    let defaults16: UnsafePointer<UInt32>
    let defaults32: UnsafePointer<UInt64>
    let defaultRows: Int
    let matchIndex: UnsafePointer<UInt32>
    let folds: UnsafePointer<UInt32>
    /// The Teddy prefilter's tables, when the image has one.
    let teddy: _TeddyTables?

    /// Start state id: premultiplied for the dense DFA, a comb offset for the compact DFA, an index for
    /// the NFA.
    let startID: UInt32
    /// Ids <= maxMatchID are the dead state (0) or match states.
    let maxMatchID: UInt32

    /// The engine kind the facade reports.
    var engine: EngineKind {
        switch engineCode {
        case .dense16, .dense32: .dfa
        case .nfa: .nfa
        case .compact16, .compact32: .compact
        }
    }

    private static func corrupt(_ what: String) -> AhoCorasickLoadError { AhoCorasickLoadError(.corrupt(what)) }

    /// Validates `raw` and returns its tables. Never reads outside `raw`.
    static func load(_ raw: UnsafeRawBufferPointer) throws -> _Image {
        guard let base = raw.baseAddress else { throw AhoCorasickLoadError(.truncated(need: _headerSize, have: 0)) }
        guard UInt(bitPattern: base) % 8 == 0 else { throw AhoCorasickLoadError(.misaligned) }
        guard raw.count >= _headerSize else {
            throw AhoCorasickLoadError(.truncated(need: _headerSize, have: raw.count))
        }
        func u32(_ offset: Int) -> UInt32 { UInt32(littleEndian: raw.load(fromByteOffset: offset, as: UInt32.self)) }
        func u64(_ offset: Int) -> UInt64 { UInt64(littleEndian: raw.load(fromByteOffset: offset, as: UInt64.self)) }
        guard raw.prefix(8).elementsEqual(_magic) else { throw AhoCorasickLoadError(.badMagic) }
        let marker = u32(8)
        if marker == _endianMarker.byteSwapped { throw AhoCorasickLoadError(.bigEndian) }
        guard marker == _endianMarker else { throw corrupt("bad endianness marker") }
        let version = u32(12)
        guard version == 1 || version == _formatVersion else { throw AhoCorasickLoadError(.unsupportedVersion(version)) }
        let total64 = u64(16)
        guard total64 <= UInt64(raw.count) else {
            throw AhoCorasickLoadError(.truncated(need: Int(clamping: total64), have: raw.count))
        }
        let total = Int(total64)
        guard total >= _headerSize, total % 8 == 0 else { throw corrupt("bad total length \(total)") }
        guard _imageChecksum(base, total) == u64(24) else { throw AhoCorasickLoadError(.checksumMismatch) }

        // Header fields.
        let engineRaw = u32(32)
        let kindRaw = u32(36)
        let foldRaw = u32(40)
        guard let code = _EngineCode(rawValue: engineRaw), version >= 2 || engineRaw <= 1 else {
            throw corrupt("unknown engine \(engineRaw)")
        }
        guard kindRaw <= 2 else { throw corrupt("unknown match kind \(kindRaw)") }
        guard foldRaw <= 2 else { throw corrupt("unknown case folding \(foldRaw)") }
        let patternCount = Int(u32(44))
        let stateCount = Int(u32(48))
        let alphabetLen = Int(u32(52))
        let matchStateCount = Int(u32(56))
        let matchEntryCount = Int(u32(60))
        let sparseCount = Int(u32(64))
        let foldCount = Int(u32(68))
        let flags = u32(72)
        let combCount = Int(u32(76))
        let compactStart = u32(80)
        let compactMaxMatch = Int(u32(84))
        let defaultRows = Int(u32(88))
        let prefilterRaw = u32(92)
        guard flags <= 1 else { throw corrupt("unknown flags \(flags)") }
        if !code.isCompact {
            guard combCount == 0, compactStart == 0, compactMaxMatch == 0, defaultRows == 0 else {
                throw corrupt("compact DFA fields in an image of another engine")
            }
        }
        guard prefilterRaw <= 1 else { throw corrupt("unknown prefilter \(prefilterRaw)") }
        guard patternCount <= Int(Int32.max) else { throw corrupt("pattern count \(patternCount)") }
        guard alphabetLen >= 1, alphabetLen <= 256 else { throw corrupt("byte class count \(alphabetLen)") }
        // Dead state, match states, start state.
        guard matchStateCount + 2 <= stateCount else {
            throw corrupt("state count \(stateCount) below match states \(matchStateCount) + 2")
        }
        guard code == .nfa || sparseCount == 0 else { throw corrupt("a DFA with sparse transitions") }
        guard sparseCount <= Int(UInt32.max) else { throw corrupt("sparse count") }
        switch code {
        case .dense32:
            // Premultiplied ids must fit in UInt32.
            guard UInt64(stateCount) * UInt64(alphabetLen) <= UInt64(UInt32.max) else {
                throw corrupt("DFA too large for 32-bit state ids")
            }
        case .dense16:
            guard stateCount * alphabetLen <= 1 << 16 else { throw corrupt("DFA too large for 16-bit state ids") }
        case .compact16, .compact32:
            // Every id s must have s + A <= C (so comb[s + c] is in bounds), and fit the id width.
            let limit = code == .compact16 ? 0xFFFF : 0xFF_FFFF
            guard alphabetLen <= 255, combCount >= alphabetLen, combCount - alphabetLen <= limit else {
                throw corrupt("comb cell count \(combCount) for \(alphabetLen) classes")
            }
            guard Int(compactStart) <= combCount - alphabetLen, compactMaxMatch < Int(compactStart) else {
                throw corrupt("compact start \(compactStart) or largest match id \(compactMaxMatch)")
            }
            // Row offsets r must have r + A <= R × A.
            guard defaultRows >= 1, defaultRows <= (code == .compact16 ? 0x1_0000 : Int(UInt32.max)) / alphabetLen else {
                throw corrupt("default row count \(defaultRows)")
            }
        case .nfa:
            break
        }
        if foldRaw != 2 && foldCount != 0 { throw corrupt("fold pairs without Unicode folding") }
        guard
            let layout = _Layout(
                engine: code, patternCount: patternCount, stateCount: stateCount, alphabetLen: alphabetLen,
                matchStateCount: matchStateCount, matchEntryCount: matchEntryCount, sparseCount: sparseCount,
                foldCount: foldCount, combCount: combCount, maxMatchID: compactMaxMatch, defaultRows: defaultRows,
                hasPrefilter: prefilterRaw == 1)
        else { throw corrupt("section sizes overflow") }
        guard layout.total == total else { throw corrupt("total length \(total) differs from the layout's \(layout.total)") }

        // Typed views; every section lies within `total` by the layout check above, and every section
        // offset is a multiple of 16 from an 8-byte aligned base, so the u32 and u64 views are aligned.
        func view<T>(_ offset: Int, _ type: T.Type) -> UnsafePointer<T> {
            (base + offset).assumingMemoryBound(to: T.self)
        }
        let classes = view(layout.classes, UInt8.self)
        let patterns = view(layout.patterns, UInt32.self)
        let matchOffsets = view(layout.matchOffsets, UInt32.self)
        let matchList = view(layout.matchList, UInt32.self)
        let folds = view(layout.folds, UInt32.self)

        for b in 0..<256 where Int(classes[b]) >= alphabetLen {
            throw corrupt("byte \(b) has class \(classes[b]) >= \(alphabetLen)")
        }
        for p in 0..<patternCount {
            guard patterns[2 * p] >= 1 else { throw corrupt("pattern \(p) has length 0") }
            guard patterns[2 * p + 1] <= 1 else { throw corrupt("pattern \(p) has unknown flags") }
        }
        // Match offsets: start at 0, strictly increase (each match state has a match), end at E.
        guard matchOffsets[0] == 0, Int(matchOffsets[matchStateCount]) == matchEntryCount else {
            throw corrupt("match offsets do not span the match list")
        }
        for i in 1...max(matchStateCount, 1) where i <= matchStateCount {
            guard matchOffsets[i - 1] < matchOffsets[i] else { throw corrupt("match state \(i) has no match") }
        }
        for k in 0..<matchEntryCount where Int(matchList[k]) >= patternCount {
            throw corrupt("match list entry \(k) names pattern \(matchList[k]) of \(patternCount)")
        }
        var previous: UInt32 = 0
        for k in 0..<foldCount {
            let from = folds[2 * k]
            let to = folds[2 * k + 1]
            guard from > previous || k == 0, Unicode.Scalar(from) != nil, Unicode.Scalar(to) != nil else {
                throw corrupt("fold pair \(k)")
            }
            previous = from
        }

        let stride = alphabetLen
        // Dummy (valid, never read) pointers for the sections this engine does not have.
        let dummy32 = view(layout.classes, UInt32.self)
        var dfaTrans = dummy32
        var dfaTrans16 = view(layout.classes, UInt16.self)
        var nfaFail = dummy32
        var nfaSparseStart = dummy32
        var nfaSparseClass = classes
        var nfaSparseNext = dummy32
        var nfaRoot = dummy32
        var comb = dummy32
        var defaults16 = dummy32
        var defaults32 = view(layout.classes, UInt64.self)
        var matchIndex = dummy32
        let startID: UInt32
        let maxMatchID: UInt32
        switch code {
        case .dense32, .dense16:
            let cells = stateCount * stride
            let limit = UInt64(cells)
            // e / stride by multiplication: exact for e < 2^32 and stride <= 256 (see DESIGN.md).
            let reciprocal = ((UInt64(1) << 40) + UInt64(stride) - 1) / UInt64(stride)
            var bad = false
            if code == .dense32 {
                dfaTrans = view(layout.dfaTrans, UInt32.self)
            } else {
                dfaTrans16 = view(layout.dfaTrans, UInt16.self)
            }
            for k in 0..<cells {
                let e = code == .dense32 ? UInt64(dfaTrans[k]) : UInt64(dfaTrans16[k])
                let q = (e &* reciprocal) >> 40
                bad = bad || e >= limit || q &* UInt64(stride) != e
            }
            if bad { throw corrupt("a DFA transition is out of range or not a multiple of the stride") }
            for c in 0..<stride {
                let e = code == .dense32 ? dfaTrans[c] : UInt32(dfaTrans16[c])
                if e != 0 { throw corrupt("the dead state does not loop") }
            }
            startID = UInt32((matchStateCount + 1) * stride)
            maxMatchID = UInt32(matchStateCount * stride)
        case .compact16, .compact32:
            // Every next id and default-row id must be a valid id (s + A <= C); owners are ids or the
            // sentinel. The match index maps ids 0...X to 0...M.
            let maxID = UInt64(combCount - stride)
            let maxRow = UInt64((defaultRows - 1) * stride)
            var bad = false
            comb = view(layout.comb, UInt32.self)
            for k in 0..<combCount { bad = bad || UInt64(comb[k] >> 8) > maxID }
            if code == .compact16 {
                defaults16 = view(layout.defaults, UInt32.self)
                for k in 0..<(defaultRows * stride) {
                    let cell = defaults16[k]
                    bad = bad || UInt64(cell >> 16) > maxID || UInt64(cell & 0xFFFF) > maxRow
                }
            } else {
                defaults32 = view(layout.defaults, UInt64.self)
                for k in 0..<(defaultRows * stride) {
                    let cell = defaults32[k]
                    bad = bad || cell >> 32 > maxID || cell & 0xFFFF_FFFF > maxRow
                }
            }
            if bad { throw corrupt("a compact DFA cell or default row names an id or row out of range") }
            matchIndex = view(layout.matchIndex, UInt32.self)
            for k in 0...compactMaxMatch where Int(matchIndex[k]) > matchStateCount {
                throw corrupt("match index of id \(k)")
            }
            startID = compactStart
            maxMatchID = UInt32(compactMaxMatch)
        case .nfa:
            nfaFail = view(layout.nfaFail, UInt32.self)
            nfaSparseStart = view(layout.nfaSparseStart, UInt32.self)
            nfaSparseClass = view(layout.nfaSparseClass, UInt8.self)
            nfaSparseNext = view(layout.nfaSparseNext, UInt32.self)
            nfaRoot = view(layout.nfaRoot, UInt32.self)
            guard nfaSparseStart[0] == 0, Int(nfaSparseStart[stateCount]) == sparseCount else {
                throw corrupt("sparse offsets do not span the transitions")
            }
            for s in 0..<stateCount {
                let lo = Int(nfaSparseStart[s])
                let hi = Int(nfaSparseStart[s + 1])
                guard lo <= hi else { throw corrupt("sparse offsets of state \(s) decrease") }
                guard Int(nfaFail[s]) < stateCount else { throw corrupt("fail link of state \(s)") }
                var last = -1
                for k in lo..<hi {
                    let c = Int(nfaSparseClass[k])
                    guard c > last, c < alphabetLen, Int(nfaSparseNext[k]) < stateCount else {
                        throw corrupt("transition \(k) of state \(s)")
                    }
                    last = c
                }
            }
            for c in 0..<alphabetLen where Int(nfaRoot[c]) >= stateCount {
                throw corrupt("start transition \(c)")
            }
            // Failure chains must end (at the start or the dead state), or a search could loop forever.
            try Self.checkFailChains(nfaFail, stateCount, start: matchStateCount + 1)
            startID = UInt32(matchStateCount + 1)
            maxMatchID = UInt32(matchStateCount)
        }
        var teddy: _TeddyTables? = nil
        if prefilterRaw == 1 {
            guard foldRaw != 2 else { throw corrupt("a Teddy prefilter with Unicode folding") }
            teddy = try _TeddyTables.validate(UnsafeRawBufferPointer(start: base, count: total), layout.prefilter)
        }
        return _Image(
            bytes: UnsafeRawBufferPointer(start: base, count: total),
            engineCode: code,
            matchKind: [MatchKind.standard, .leftmostFirst, .leftmostLongest][Int(kindRaw)],
            caseFolding: [CaseFolding.none, .ascii, .unicode][Int(foldRaw)],
            patternCount: patternCount, stateCount: stateCount, alphabetLen: alphabetLen,
            matchStateCount: matchStateCount, anyWholeWord: flags & 1 != 0, foldCount: foldCount,
            classes: classes, patterns: patterns, matchOffsets: matchOffsets, matchList: matchList,
            dfaTrans: dfaTrans, dfaTrans16: dfaTrans16, nfaFail: nfaFail, nfaSparseStart: nfaSparseStart,
            nfaSparseClass: nfaSparseClass, nfaSparseNext: nfaSparseNext, nfaRoot: nfaRoot,
            combCount: combCount, comb: comb, defaults16: defaults16, defaults32: defaults32,
            defaultRows: defaultRows, matchIndex: matchIndex, folds: folds, teddy: teddy, startID: startID, maxMatchID: maxMatchID)
    }

    /// Throws unless following `fail` from every state reaches `start` or the dead state 0.
    /// - Complexity: O(S): each state is walked over at most twice.
    private static func checkFailChains(_ fail: UnsafePointer<UInt32>, _ count: Int, start: Int) throws {
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

#if AHOCORASICK_INTERNAL_CHECKS
    extension _Image {
        /// Checks what the compiler promises beyond what `load` needs for memory safety: the start state
        /// is not a match state and loops to itself where no pattern starts; match lists go from the
        /// longest pattern to the shortest (own patterns first, then inherited ones); under `standard`
        /// every pattern is in some match list; no NFA state other than the start fails to itself.
        func _checkInvariants() {
            precondition(startID > maxMatchID, "the start state is a match state")
            var listed = [Bool](repeating: false, count: patternCount)
            for state in 1...max(matchStateCount, 1) where state <= matchStateCount {
                var previous = UInt32.max
                for k in Int(matchOffsets[state - 1])..<Int(matchOffsets[state]) {
                    let pattern = Int(matchList[k])
                    listed[pattern] = true
                    let length = patterns[2 * pattern]
                    precondition(length <= previous, "match list of state \(state) is not longest first")
                    previous = length
                }
            }
            if matchKind == .standard {
                precondition(listed.allSatisfy { $0 }, "a pattern is in no match list")
            }
            switch engine {
            case .dfa, .compact:
                if engine == .dfa { precondition(Int(startID) % alphabetLen == 0) }
                for c in 0..<alphabetLen {
                    let next: UInt32
                    switch engineCode {
                    case .dense32: next = dfa.next(startID, UInt8(c))
                    case .dense16: next = dfa16.next(startID, UInt8(c))
                    case .compact16: next = compact16.next(compact16.initial, UInt8(c)).id
                    case .compact32: next = compact32.next(compact32.initial, UInt8(c)).id
                    case .nfa: next = 1
                    }
                    precondition(next != 0, "the start state leads to the dead state")
                }
                if engine == .compact {
                    // Every state's full row equals what the comb and default rows give: checked by the
                    // oracle tests; here, the match index names each match state once.
                    var seen = Set<UInt32>()
                    for id in 0...Int(maxMatchID) where matchIndex[id] != 0 {
                        precondition(seen.insert(matchIndex[id]).inserted, "match state listed twice")
                    }
                    precondition(seen.count == matchStateCount, "a match state has no id")
                }
            case .nfa:
                precondition(nfaFail[0] == 0)
                for s in 1..<stateCount where UInt32(s) != startID {
                    precondition(nfaFail[s] != UInt32(s), "state \(s) fails to itself")
                }
            }
        }
    }
#endif
