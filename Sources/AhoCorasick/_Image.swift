// The serialized image: layout, writing helpers, validation on load, and the pointers searches use.
//
// All integers are little-endian. Sections start at 16-byte aligned offsets from the image's start.
//
//   offset  size  field
//   0       8     magic "AHOCORSK"
//   8       4     endianness marker 0x0A0B0C0D (reads 0x0D0C0B0A on a big-endian writer)
//   12      4     format version (1)
//   16      8     total length of the image in bytes
//   24      8     checksum (_hash64 of bytes 0..<24 and 32..<total)
//   32      4     engine (0 DFA, 1 NFA)
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
//   76      20    reserved, zero
//   96            sections, in this order, each padded to 16 bytes:
//     byte classes     256 × u8        class of each haystack byte (ASCII folding merged in)
//     patterns         P × 2 × u32     (length, flags): length in bytes, or in scalars for Unicode folding;
//                                      flags bit 0 = whole word
//     match offsets    (M + 1) × u32   state i in 1…M reports match list entries offsets[i-1] ..< offsets[i]
//     match list       E × u32         pattern indexes
//     DFA only:
//       transitions    S × A × u32     premultiplied: the next state of state id s on class c is at s + c
//     NFA only:
//       fail           S × u32         failure state index
//       sparse start   (S + 1) × u32   state i's transitions are entries start[i] ..< start[i+1]
//       sparse class   T × u8          ascending within a state
//       sparse next    T × u32         state indexes
//       start row      A × u32         the start state's dense transitions
//     Unicode folds    F × 2 × u32     (scalar, fold), ascending by scalar, both valid scalars

let _magic: [UInt8] = Array("AHOCORSK".utf8)
let _endianMarker: UInt32 = 0x0A0B_0C0D
let _formatVersion: UInt32 = 1
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
    var folds = 0
    var total = 0

    /// nil when a size overflows `Int`.
    init?(
        isDFA: Bool, patternCount: Int, stateCount: Int, alphabetLen: Int, matchStateCount: Int,
        matchEntryCount: Int, sparseCount: Int, foldCount: Int
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
        if isDFA {
            let (cells, o) = stateCount.multipliedReportingOverflow(by: alphabetLen)
            guard !o, let t = section(cells, 4) else { return nil }
            dfaTrans = t
        } else {
            guard let f = section(stateCount, 4), let ss = section(stateCount + 1, 4),
                let sc = section(sparseCount, 1), let sn = section(sparseCount, 4), let r = section(alphabetLen, 4)
            else { return nil }
            nfaFail = f
            nfaSparseStart = ss
            nfaSparseClass = sc
            nfaSparseNext = sn
            nfaRoot = r
        }
        guard let fo = section(foldCount, 8) else { return nil }
        folds = fo
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
    let engine: EngineKind
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
    let dfaTrans: UnsafePointer<UInt32>
    let nfaFail: UnsafePointer<UInt32>
    let nfaSparseStart: UnsafePointer<UInt32>
    let nfaSparseClass: UnsafePointer<UInt8>
    let nfaSparseNext: UnsafePointer<UInt32>
    let nfaRoot: UnsafePointer<UInt32>
    let folds: UnsafePointer<UInt32>

    /// Start state id: premultiplied for the DFA, an index for the NFA.
    let startID: UInt32
    /// Ids <= maxMatchID are the dead state (0) or match states.
    let maxMatchID: UInt32

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
        guard u32(12) == _formatVersion else { throw AhoCorasickLoadError(.unsupportedVersion(u32(12))) }
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
        guard engineRaw <= 1 else { throw corrupt("unknown engine \(engineRaw)") }
        guard kindRaw <= 2 else { throw corrupt("unknown match kind \(kindRaw)") }
        guard foldRaw <= 2 else { throw corrupt("unknown case folding \(foldRaw)") }
        let isDFA = engineRaw == 0
        let patternCount = Int(u32(44))
        let stateCount = Int(u32(48))
        let alphabetLen = Int(u32(52))
        let matchStateCount = Int(u32(56))
        let matchEntryCount = Int(u32(60))
        let sparseCount = Int(u32(64))
        let foldCount = Int(u32(68))
        let flags = u32(72)
        guard flags <= 1 else { throw corrupt("unknown flags \(flags)") }
        for offset in stride(from: 76, to: _headerSize, by: 4) where u32(offset) != 0 {
            throw corrupt("reserved header field at \(offset) is not zero")
        }
        guard patternCount <= Int(Int32.max) else { throw corrupt("pattern count \(patternCount)") }
        guard alphabetLen >= 1, alphabetLen <= 256 else { throw corrupt("byte class count \(alphabetLen)") }
        // Dead state, match states, start state.
        guard matchStateCount + 2 <= stateCount else {
            throw corrupt("state count \(stateCount) below match states \(matchStateCount) + 2")
        }
        guard isDFA || sparseCount <= Int(UInt32.max) else { throw corrupt("sparse count") }
        if isDFA {
            // Premultiplied ids must fit in UInt32.
            guard UInt64(stateCount) * UInt64(alphabetLen) <= UInt64(UInt32.max) else {
                throw corrupt("DFA too large for 32-bit state ids")
            }
        }
        if isDFA && sparseCount != 0 { throw corrupt("a DFA with sparse transitions") }
        if foldRaw != 2 && foldCount != 0 { throw corrupt("fold pairs without Unicode folding") }
        guard
            let layout = _Layout(
                isDFA: isDFA, patternCount: patternCount, stateCount: stateCount, alphabetLen: alphabetLen,
                matchStateCount: matchStateCount, matchEntryCount: matchEntryCount, sparseCount: sparseCount,
                foldCount: foldCount)
        else { throw corrupt("section sizes overflow") }
        guard layout.total == total else { throw corrupt("total length \(total) differs from the layout's \(layout.total)") }

        // Typed views; every section lies within `total` by the layout check above, and every section
        // offset is a multiple of 16 from an 8-byte aligned base, so the u32 views are aligned.
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
        var dfaTrans = view(layout.classes, UInt32.self)
        var nfaFail = dfaTrans
        var nfaSparseStart = dfaTrans
        var nfaSparseClass = classes
        var nfaSparseNext = dfaTrans
        var nfaRoot = dfaTrans
        let startID: UInt32
        let maxMatchID: UInt32
        if isDFA {
            dfaTrans = view(layout.dfaTrans, UInt32.self)
            let cells = stateCount * stride
            let limit = UInt64(cells)
            // e / stride by multiplication: exact for e < 2^32 and stride <= 256 (see DESIGN.md).
            let reciprocal = ((UInt64(1) << 40) + UInt64(stride) - 1) / UInt64(stride)
            var bad = false
            for k in 0..<cells {
                let e = UInt64(dfaTrans[k])
                let q = (e &* reciprocal) >> 40
                bad = bad || e >= limit || q &* UInt64(stride) != e
            }
            if bad { throw corrupt("a DFA transition is out of range or not a multiple of the stride") }
            for c in 0..<stride where dfaTrans[c] != 0 { throw corrupt("the dead state does not loop") }
            startID = UInt32((matchStateCount + 1) * stride)
            maxMatchID = UInt32(matchStateCount * stride)
        } else {
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
        return _Image(
            bytes: UnsafeRawBufferPointer(start: base, count: total),
            engine: isDFA ? .dfa : .nfa,
            matchKind: [MatchKind.standard, .leftmostFirst, .leftmostLongest][Int(kindRaw)],
            caseFolding: [CaseFolding.none, .ascii, .unicode][Int(foldRaw)],
            patternCount: patternCount, stateCount: stateCount, alphabetLen: alphabetLen,
            matchStateCount: matchStateCount, anyWholeWord: flags & 1 != 0, foldCount: foldCount,
            classes: classes, patterns: patterns, matchOffsets: matchOffsets, matchList: matchList,
            dfaTrans: dfaTrans, nfaFail: nfaFail, nfaSparseStart: nfaSparseStart, nfaSparseClass: nfaSparseClass,
            nfaSparseNext: nfaSparseNext, nfaRoot: nfaRoot, folds: folds, startID: startID, maxMatchID: maxMatchID)
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
            case .dfa:
                precondition(Int(startID) % alphabetLen == 0)
                for c in 0..<alphabetLen {
                    let next = dfaTrans[Int(startID) + c]
                    precondition(next != 0, "the start state leads to the dead state")
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
