// MARK: Internal API
//
// How the learned model finds its phrases in a message without an automaton of its own: the message's
// (normalised) text is cut into runs once, each run's candidate n-grams are hashed, and each hash is looked up
// in a table of the model's phrases (fastText's way, but exact: a hit is verified against the phrase's bytes).
// No match is reported by an automaton, no model text is written, and the table (a 16 KiB filter that answers
// most misses, then an open-addressing table of 8-byte slots) fits in L2 beside the rules' automata.
//
// The phrases found are exactly those the model's automaton over the "model text" found before (every word run
// between spaces; docs/DESIGN.md, "Where a learned model speaks"), in the same order, so scores, deciding
// phrases and spans are bit for bit the same and the default model did not need to be learned again. Why
// the candidates below are exactly the automaton's matches (`ModelDefinition.shapeProblem` gives the shapes):
//
//   text  = runs of word characters (`_ScalarFlags.isWord`: letters, numbers, marks), runs of other
//           characters that are not the ASCII space ("symbols"; an invalid byte is one), and ASCII spaces.
//   word phrase `w1 w2 … wk` (words of word characters, single spaces): it matched ` w1 w2 … wk ` in the model
//           text, where every word run stands between spaces; so wi are k consecutive word runs with exactly
//           one ASCII space between each two. Candidates: at the end of each word run, the k-grams of the
//           chain of runs before it joined by single spaces, k = the model's most words … 1 (longest first).
//   part phrase of word characters: a substring of a word run (spaces never stand inside a run). Candidates:
//           at each character of a word run, the substrings ending there of each length (in scalars) some part
//           phrase has, longest first, restricted by what every phrase of that length holds: only substrings
//           of unspaced-script characters for phrases made of them (Thai, Chinese… n-grams), only substrings
//           holding an ASCII digit for phrases holding one (digit pieces), any substring for other phrases.
//   part phrase of symbols: a substring of a symbol run, found the same way.
//
// The automaton reported the matches of its narrow automaton (phrases whose pattern is ASCII) for the whole
// text before those of its wide one; a present phrase of a non-ASCII pattern is therefore added to the sums
// after every ASCII one (`deferred`), which keeps the floating-point sums in the same order.
//
// Hashes: wyhash-style multiply-fold over 8-byte loads (two overlapping loads up to 16 bytes), ASCII letters
// folded to lower case inside the loaded words (SWAR), so a byte string and its ASCII-folded form hash alike.
// A word k-gram's key combines the keys of its words; parts and words use different seeds. A slot holds 32
// bits of the key and the feature; a hit is verified byte for byte (ASCII case ignored) against the phrase's
// pattern, so a crafted collision costs one comparison and never adds a phrase that is not there.

/// The model's phrases as a hash table and the model's weight rows (immutable after `init`, shared by every
/// classifier of a rule set). The tables the scan reads are one bundle, `tables` (`_ModelTables`), allocated
/// here in `init` and freed in `deinit`: this object is their only owner, and a copy of `tables` is valid while
/// it lives.
final class _ModelFeatureTable: @unchecked Sendable {
    /// The tables (hash table, filter, patterns, part lengths, rows), owned by this object.
    let tables: _ModelTables
    var featureCount: Int { tables.featureCount }
    var maxWords: Int { tables.runs.maxWords }
    var maxPartScalars: Int { tables.runs.maxPartScalars }
    /// The shared tables the scan reads, fetched once here (`shared` is a lazy global: a `swift_once` check
    /// per access, twice per message before). `scriptBlocks` lives as long as the process.
    let flags: _ScalarFlags
    let scriptBlocks: _ScriptBlocks
    /// Per feature: whether the scan can find it (its key is in the table: a word or part phrase of a shape a
    /// run can hold; text phrases are `_TextPhrases`' and are false here).
    let findable: [Bool]

    static let needUnspaced: UInt8 = 1
    static let needDigit: UInt8 = 2
    static let needNothing: UInt8 = 4

    static let wordSeed: UInt64 = 0x2D35_8DCC_AA6C_78A5
    static let partSeed: UInt64 = 0x8BB8_4B93_962E_ACC9
    static let symbolSeed: UInt64 = 0x4B33_A62E_D433_D4A3

    /// - Parameters:
    ///   - patterns: per feature, the bytes its automaton matched: the phrase normalised as the text is (and
    ///     case-folded under `none`), ASCII letters in lower case, a word phrase between two spaces.
    ///   - kinds: per feature, word or part.
    ///   - rows: the model's packed rows (`_CompiledModel.rows`), `rowStride` floats per feature, the first
    ///     `targets` of them weights.
    init(patterns: [[UInt8]], kinds: [ModelDefinition.MatchKind], rows: [Float] = [], rowStride: Int = 1, targets: Int = 0) {
        let flags = _ScalarFlags.shared
        self.flags = flags
        scriptBlocks = _ScriptBlocks.shared
        var bytes: [UInt8] = []
        var starts: [Int32] = [0]
        var wide: [Bool] = []
        var keys: [UInt64?] = []
        var shapes = Shapes(flags: flags)
        for (f, pattern) in patterns.enumerated() {
            // (Text phrases are added as met: no earlier scan order to keep.)
            wide.append(kinds[f] != .text && pattern.contains { $0 >= 0x80 })
            var p = pattern
            if kinds[f] == .word, p.count >= 2, p.first == 0x20, p.last == 0x20 { p = Array(p[1..<(p.count - 1)]) }
            bytes += p
            starts.append(Int32(bytes.count))
            keys.append(shapes.key(p, kinds[f]))
        }
        let wordLengths = shapes.wordLengths
        let lengths = wordLengths.sorted { $0.key > $1.key }
        let minUnspaced = wordLengths.filter { $0.value & Self.needUnspaced != 0 }.map(\.key).min() ?? Int.max
        let (slots, filter) = Self.hashTable(keys)
        tables = _ModelTables(
            slots: slots, filter: filter, patternBytes: bytes, patternStart: starts, wide: wide,
            partLength: lengths.map(\.key), partNeed: lengths.map(\.value), symbolLength: shapes.symbolLengths.sorted(by: >),
            unspacedLength: lengths.filter { $0.value & Self.needUnspaced != 0 }.map(\.key),
            maxWords: shapes.maxWords, maxPartScalars: shapes.maxPart,
            anyPart: wordLengths.values.contains { $0 & Self.needNothing != 0 },
            maxDigitPart: wordLengths.filter { $0.value & Self.needDigit != 0 }.map(\.key).max() ?? 0,
            minUnspacedPart: minUnspaced, rows: rows, rowStride: rowStride, targets: targets)
        findable = keys.map { $0 != nil }
        tables._checkInvariants()
    }

    deinit { tables.deallocate() }

    /// Lends the tables to `body`, this object kept alive until it returns: the scoped way to read them where
    /// nothing else holds the table (checks, tests). The scan reads `tables` directly, inside calls whose
    /// caller holds the compiled model (and so this object).
    /// - warning: Do not let the bundle escape `body`.
    func withTables<R>(_ body: (_ModelTables) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(tables) }
    }

    /// The bytes the hash tables use: slots and filter.
    var tableBytes: Int { tables.index.tableBytes }

    /// The scalars of UTF-8 `bytes` (an invalid byte as itself with the raw bit, never a phrase scalar).
    static func scalars(_ bytes: [UInt8]) -> [UInt32] {
        var out: [UInt32] = []
        bytes.withUnsafeBytes { b in
            var i = 0
            while i < b.count {
                if b[i] < 0x80 {
                    out.append(UInt32(b[i]))
                    i += 1
                    continue
                }
                let (v, l) = _decodeUTF8(b, i)
                out.append(l == 0 ? _TextNormalizer.rawBit | UInt32(b[i]) : v)
                i += max(1, l)
            }
        }
        return out
    }

    /// What `init` learns of the phrases' shapes while keying them: part lengths of word characters with what
    /// each length's phrases need, part lengths of symbols, the most words of a word phrase, the longest part.
    private struct Shapes {
        let flags: _ScalarFlags
        var wordLengths: [Int: UInt8] = [:]
        var symbolLengths = Set<Int>()
        var maxWords = 0
        var maxPart = 0

        /// The key of pattern `p` (a word phrase without its spaces), nil when no run of a text can be it.
        mutating func key(_ p: [UInt8], _ kind: ModelDefinition.MatchKind) -> UInt64? {
            let scalars = _ModelFeatureTable.scalars(p)
            guard !scalars.isEmpty, kind != .text else { return nil }  // text phrases: `_TextPhrases`
            if kind == .word {
                // Words of word characters separated by single spaces, as the model text holds them.
                let words = p.split(separator: 0x20, omittingEmptySubsequences: false)
                let flags = self.flags
                let ok = words.allSatisfy { w in !w.isEmpty && _ModelFeatureTable.scalars(Array(w)).allSatisfy { flags.isWord($0) } }
                guard ok else { return nil }
                var key: UInt64 = 0
                for (i, w) in words.enumerated() {
                    let h = Array(w).withUnsafeBufferPointer { _wordKeySlow($0.baseAddress!, $0.count) }
                    key = i == 0 ? h : _pairKey(key, h)
                }
                maxWords = max(maxWords, words.count)
                return key
            }
            let word = scalars.map { flags.isWord($0) }
            let key: UInt64
            if word.allSatisfy({ $0 }) {
                let need: UInt8 = scalars.allSatisfy(PhraseCandidates.isUnspaced) ? _ModelFeatureTable.needUnspaced
                    : scalars.contains { $0 >= 0x30 && $0 <= 0x39 } ? _ModelFeatureTable.needDigit : _ModelFeatureTable.needNothing
                wordLengths[scalars.count, default: 0] |= need
                key = p.withUnsafeBufferPointer { _foldedHash($0.baseAddress!, $0.count, seed: _ModelFeatureTable.partSeed) }
            } else if !word.contains(true), !scalars.contains(0x20) {
                symbolLengths.insert(scalars.count)
                key = p.withUnsafeBufferPointer { _foldedHash($0.baseAddress!, $0.count, seed: _ModelFeatureTable.symbolSeed) }
            } else {
                return nil  // mixes word characters with others, or holds a space: never in a run
            }
            maxPart = max(maxPart, scalars.count)
            return key
        }
    }

    /// The open-addressing table (at most half full) and the filter over `keys` (feature = index; nil: never
    /// looked up). Linear probing; equal keys (phrases that normalise alike) follow one another in feature order.
    private static func hashTable(_ keys: [UInt64?]) -> (slots: [UInt64], filter: [UInt64]) {
        var count = 64
        while count < 2 * keys.count { count *= 2 }
        let slotMask = count - 1
        var slots = [UInt64](repeating: 0, count: count)
        var filter = [UInt64](repeating: 0, count: (1 << _ModelPhraseIndex.filterBits) / 64)
        for (f, key) in keys.enumerated() {
            guard let key else { continue }
            let bit = _ModelPhraseIndex.filterIndex(key)
            filter[bit >> 6] |= 1 << UInt64(bit & 63)
            var i = Int(truncatingIfNeeded: key) & slotMask
            while slots[i] != 0 { i = (i + 1) & slotMask }
            slots[i] = (key >> 32) << 32 | UInt64(f + 1)
        }
        return (slots, filter)
    }

    /// `_ModelPhraseIndex.lookup` on this table's index, read through this object at each probe (see
    /// `_ModelTables`, "Why parts").
    @inline(__always)
    func lookup(_ key: UInt64, _ text: UnsafePointer<UInt8>, _ a: Int, _ b: Int, _ hits: inout _ModelHits) {
        tables.index.lookup(key, text, a, b, &hits)
    }
}

/// The buffers one message's scoring writes (made once per classifier by `_ModelScratch`, which owns them in its
/// `_ScratchMemory` and frees them with itself): a copy is a set of borrowed pointers, valid while that scratch
/// lives, taken into `_ModelHits` and `_WordChain` once per message. Every index is a feature < the model's
/// feature count, a target < its target count, a ring position masked by `ringMask` or a chain position <
/// `maxWords − 1`.
struct _ModelMessageBuffers {
    /// Per feature: the generation that last counted it (so repeated matches count once), and its first span.
    let stamp: UnsafeMutablePointer<UInt32>
    let firstStart: UnsafeMutablePointer<Int32>
    let firstEnd: UnsafeMutablePointer<Int32>
    /// The features present in the current message, in order of first match (ASCII patterns first).
    let touched: UnsafeMutablePointer<Int32>
    /// Present features of non-ASCII patterns, added to the sums after the ASCII ones.
    let deferred: UnsafeMutablePointer<Int32>
    /// Per target: the sum of the present features' weights.
    let sums: UnsafeMutablePointer<Double>
    /// Byte offsets of the last scalars of the current run (part candidates start there).
    let ring: UnsafeMutablePointer<Int32>
    let ringMask: Int
    /// The keys and first bytes of the word k-grams ending at the previous word run (k = 1 …).
    let chainKey: UnsafeMutablePointer<UInt64>
    let chainStart: UnsafeMutablePointer<Int>
}

/// One message's phrase hits on their way into the sums: each present phrase counted once, at its first
/// occurrence, with its span in the body; phrases of non-ASCII patterns deferred after the ASCII ones (the
/// order the former automaton added them in). Holds borrowed bundles: the classifier's scratch buffers
/// (`_ModelMessageBuffers`) and the model's weights (`_ModelTables.weights`), valid for one `_modelScore`
/// call; every index is a feature < the model's feature count.
struct _ModelHits {
    let gen: UInt32
    let buffers: _ModelMessageBuffers
    let weights: _ModelWeights
    /// Each text byte's span of the body (nil: the text is the body); borrowed from the caller for the call.
    let starts: UnsafePointer<Int32>?
    let ends: UnsafePointer<Int32>?
    var touchedCount = 0
    var deferredCount = 0
    var normSquared = 0.0

    init(gen: UInt32, buffers: _ModelMessageBuffers, weights: _ModelWeights, starts: UnsafePointer<Int32>?,
         ends: UnsafePointer<Int32>?) {
        self.gen = gen
        self.buffers = buffers
        self.weights = weights
        self.starts = starts
        self.ends = ends
    }

    /// Adds feature `f`'s weights and idf² to the sums.
    @inline(__always)
    mutating func add(_ f: Int) {
        buffers.touched[touchedCount] = Int32(truncatingIfNeeded: f)
        touchedCount &+= 1
        let targets = weights.targets
        let row = weights.rows.baseAddress.unsafelyUnwrapped + f &* weights.rowStride
        let idf = Double(row[targets])
        normSquared += idf * idf
        let sums = buffers.sums
        var j = 0
        while j < targets {
            sums[j] += Double(row[j])
            j &+= 1
        }
    }

    /// Phrase `f` is present at text bytes `[a, b)`.
    @inline(__always)
    mutating func hit(_ f: Int, _ a: Int, _ b: Int) {
        let stamp = buffers.stamp
        if stamp[f] == gen { return }
        stamp[f] = gen
        if let starts {
            buffers.firstStart[f] = starts[a]
            buffers.firstEnd[f] = ends.unsafelyUnwrapped[b &- 1]
        } else {
            buffers.firstStart[f] = Int32(truncatingIfNeeded: a)
            buffers.firstEnd[f] = Int32(truncatingIfNeeded: b)
        }
        if weights.wide[f] {
            buffers.deferred[deferredCount] = Int32(truncatingIfNeeded: f)
            deferredCount &+= 1
        } else {
            add(f)
        }
    }
}

/// The main-script tally and the unspaced-script test of the model's scan, per 128-scalar block of the Basic
/// Multilingual Plane: `Script.of(letter:)` and `PhraseCandidates.isUnspaced` are range switches, a call per
/// non-ASCII letter (60M instructions of the 700M the default model's scan took on 40,000 generated messages);
/// most blocks hold one script, so one table load answers both. Entry: the script's raw value, `unspaced`
/// added when every scalar of the block is of an unspaced script; `mixed` when the block is not uniform
/// (the functions are asked). Built on first use from those functions (so its answers are theirs), 512 bytes,
/// read-only after `init`, never freed (the shared instance lives as long as the process).
///
/// `groups`, for the pass that finds a message's main script before the model's scan
/// (`Classifier._modelMainScript`): per 64-scalar group of the three-byte UTF-8 range (U+0800…U+FFFF, indexed
/// by the low 4 bits of the lead byte and the low 6 of the second), the script the scan counts a word character
/// of the group under (the `table` entry of its block, or `Script.of(letter:)` for a mixed block) when it is
/// the same for the whole group, else `groupMixed` (surrogates and overlong forms included); `groupAllWords`
/// added when every scalar of the group is a word character (`_ScalarFlags.isWord`). 1,024 bytes.
final class _ScriptBlocks: @unchecked Sendable {
    static let shared = _ScriptBlocks()
    static let unspaced: UInt8 = 0x40
    static let mixed: UInt8 = 0xFF
    static let groupMixed: UInt8 = 0x3F
    static let groupAllWords: UInt8 = 0x80
    let table: UnsafePointer<UInt8>
    let groups: UnsafePointer<UInt8>

    /// The script the model's scan counts word character `v` under (`_modelHighScalar`): its block's entry in
    /// `table` (`blocks`), or `Script.of(letter:)` for a mixed block or a value above U+FFFF.
    @inline(__always)
    static func script(of v: UInt32, _ blocks: UnsafePointer<UInt8>) -> UInt8 {
        let e = v < 0x10000 ? blocks[Int(v >> 7)] : mixed
        return e != mixed ? e & 0x3F : Script.of(letter: v).rawValue
    }

    private init() {
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 512)
        for block in 0..<512 {
            let first = UInt32(block) << 7
            func entry(_ v: UInt32) -> UInt8 {
                Script.of(letter: v).rawValue | (PhraseCandidates.isUnspaced(v) ? Self.unspaced : 0)
            }
            let e = entry(first)
            t[block] = (first..<(first + 128)).allSatisfy { entry($0) == e } ? e : Self.mixed
        }
        table = UnsafePointer(t)
        let flags = _ScalarFlags.shared
        let g = UnsafeMutablePointer<UInt8>.allocate(capacity: 1024)
        for group in 0..<1024 {
            let first = UInt32(group) << 6
            let values = first..<(first + 64)
            // The script the scan counts a word character under; nil for an invalid value.
            func counted(_ v: UInt32) -> UInt8? {
                guard v >= 0x800, !(0xD800...0xDFFF).contains(v) else { return nil }
                return Self.script(of: v, UnsafePointer(t))
            }
            let e = counted(first)
            guard let e, values.allSatisfy({ counted($0) == e }) else {
                g[group] = Self.groupMixed
                continue
            }
            g[group] = e | (values.allSatisfy { flags.isWord($0) } ? Self.groupAllWords : 0)
        }
        groups = UnsafePointer(g)
    }
}

// MARK: Hashing

@inline(__always)
func _mum(_ a: UInt64, _ b: UInt64) -> UInt64 {
    let r = a.multipliedFullWidth(by: b)
    return r.high ^ r.low
}

/// `x` with every byte in `A`…`Z` ORed with 0x20 (lower case); other bytes unchanged.
@inline(__always)
func _foldASCII8(_ x: UInt64) -> UInt64 {
    let highs: UInt64 = 0x8080_8080_8080_8080
    let ones: UInt64 = 0x0101_0101_0101_0101
    let t = x & ~highs
    let atLeastA = (t &+ ones &* 0x3F) & highs  // t ≥ 0x41
    let aboveZ = (t &+ ones &* 0x25) & highs  // t > 0x5A
    let upper = atLeastA & ~aboveZ & ~x
    return x | (upper >> 2)
}

/// The key of the `n` bytes at `p`, ASCII letters folded. Reads only `[p, p + n)`.
@inline(__always)
func _foldedHash(_ p: UnsafePointer<UInt8>, _ n: Int, seed: UInt64) -> UInt64 { _hash(p, n, seed: seed, fold: true) }

/// `_foldedHash` of bytes that are all ≥ 0x80 (an unspaced-script run: folding leaves them as they are, so the
/// key is the same without it).
@inline(__always)
func _highHash(_ p: UnsafePointer<UInt8>, _ n: Int, seed: UInt64) -> UInt64 { _hash(p, n, seed: seed, fold: false) }

@inline(__always)
func _hash(_ p: UnsafePointer<UInt8>, _ n: Int, seed: UInt64, fold: Bool) -> UInt64 {
    @inline(__always) func f(_ x: UInt64) -> UInt64 { fold ? _foldASCII8(x) : x }
    let raw = UnsafeRawPointer(p)
    let s1: UInt64 = 0xA076_1D64_78BD_642F
    let s2: UInt64 = 0xE703_7ED1_A0B4_28DB
    var a: UInt64
    var b: UInt64
    var h = seed ^ UInt64(truncatingIfNeeded: n)
    if n <= 16 {
        if n >= 8 {
            a = raw.loadUnaligned(as: UInt64.self)
            b = raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
        } else if n >= 4 {
            a = UInt64(raw.loadUnaligned(as: UInt32.self))
            b = UInt64(raw.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self))
        } else if n > 0 {
            a = UInt64(p[0]) << 16 | UInt64(p[n >> 1]) << 8 | UInt64(p[n &- 1])
            b = 0
        } else {
            a = 0
            b = 0
        }
    } else {
        var i = 0
        while i &+ 16 < n {
            h = _mum(f(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ s1,
                     f(raw.loadUnaligned(fromByteOffset: i &+ 8, as: UInt64.self)) ^ h)
            i &+= 16
        }
        a = raw.loadUnaligned(fromByteOffset: n &- 16, as: UInt64.self)
        b = raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
    }
    return _mum(f(a) ^ s1 ^ h, f(b) ^ s2)
}

/// The key of a word k-gram from the key of its first k − 1 words and the key of its last word.
@inline(__always)
func _pairKey(_ a: UInt64, _ b: UInt64) -> UInt64 { _mum(a ^ 0x5890_6D1A_96A4_6F29, b ^ 0xC2B2_AE3D_27D4_EB4F) }

/// The key of one word of a word phrase (`n` bytes at `p`, n ≥ 1): a word of at most 8 bytes as one
/// little-endian word, zero-padded and ASCII-folded, mixed with the length (`_shortWordKey`); a longer word by
/// `_foldedHash`. The scan reads a short word with one 8-byte load masked to its length when 8 bytes are
/// readable from its start (`_wordKey`); this form reads only `[p, p + n)`.
@inline(__always)
func _wordKeySlow(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64 {
    guard n <= 8 else { return _foldedHash(p, n, seed: _ModelFeatureTable.wordSeed) }
    var x: UInt64 = 0
    var i = n
    while i > 0 {
        i &-= 1
        x = x << 8 | UInt64(p[i])
    }
    return _shortWordKey(x, n)
}

/// `_wordKeySlow(p, n)`, with one unaligned 8-byte load for a short word when `p + 8 ≤ limit`.
@inline(__always)
func _wordKey(_ p: UnsafePointer<UInt8>, _ n: Int, limit: UnsafePointer<UInt8>) -> UInt64 {
    if n <= 8 && p + 8 <= limit {
        let x = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) & (UInt64.max &>> UInt64(truncatingIfNeeded: 64 &- 8 &* n))
        return _shortWordKey(x, n)
    }
    return _wordKeySlow(p, n)
}

@inline(__always)
func _shortWordKey(_ x: UInt64, _ n: Int) -> UInt64 {
    _mum(_foldASCII8(x) ^ 0xA076_1D64_78BD_642F, UInt64(truncatingIfNeeded: n) ^ _ModelFeatureTable.wordSeed)
}
