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

    /// The image over `base` from its validated parts (see `_Image+Load.swift`).
    init(
        base: UnsafeRawPointer, header: _Header, shared: _SharedSections, tables: _EngineTables,
        teddy: _TeddyTables?
    ) {
        bytes = UnsafeRawBufferPointer(start: base, count: header.total)
        engineCode = header.code
        matchKind = [MatchKind.standard, .leftmostFirst, .leftmostLongest][Int(header.kindRaw)]
        caseFolding = [CaseFolding.none, .ascii, .unicode][Int(header.foldRaw)]
        patternCount = header.patternCount
        stateCount = header.stateCount
        alphabetLen = header.alphabetLen
        matchStateCount = header.matchStateCount
        anyWholeWord = header.flags & 1 != 0
        foldCount = header.foldCount
        classes = shared.classes
        patterns = shared.patterns
        matchOffsets = shared.matchOffsets
        matchList = shared.matchList
        folds = shared.folds
        dfaTrans = tables.dfaTrans
        dfaTrans16 = tables.dfaTrans16
        nfaFail = tables.nfaFail
        nfaSparseStart = tables.nfaSparseStart
        nfaSparseClass = tables.nfaSparseClass
        nfaSparseNext = tables.nfaSparseNext
        nfaRoot = tables.nfaRoot
        combCount = header.combCount
        comb = tables.comb
        defaults16 = tables.defaults16
        defaults32 = tables.defaults32
        defaultRows = header.defaultRows
        matchIndex = tables.matchIndex
        self.teddy = teddy
        startID = tables.startID
        maxMatchID = tables.maxMatchID
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
                    case .compact16: next = compact16.id(compact16.next(compact16.initial, UInt8(c)))
                    case .compact32: next = compact32.id(compact32.next(compact32.initial, UInt8(c)))
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
