import AhoCorasick

/// Per-scalar facts the normaliser and the model text ask for every non-ASCII character, precomputed for
/// the Basic Multilingual Plane: whether the scalar is a word character (`AhoCorasick.isWordScalar`: a
/// letter, number or mark), whether simple case folding changes it (`AhoCorasick.simpleCaseFold`) and
/// whether the normalisation tables have an entry for it.
///
/// Asking Swift's Unicode properties per character cost about 25,000 instructions per Thai message
/// (callgrind: `_swift_stdlib_getGeneralCategory` and `getBinaryProperties` were 48% of classifying Thai
/// with the default rules); one table load costs a few. The table is computed from those same two functions
/// on first use (64 KiB, a few milliseconds once per process), so its answers are theirs by construction;
/// scalars above U+FFFF (emoji, rare CJK) ask the functions directly.
///
/// Users keep a reference (`let flags = _ScalarFlags.shared`) so hot loops read the table through a plain
/// pointer, without the lazy-initialisation check of a global on every character. (`@unchecked Sendable`:
/// the table is written only in `init` and read-only afterwards.)
final class _ScalarFlags: @unchecked Sendable {
    static let word: UInt8 = 1
    static let folds: UInt8 = 2
    /// The normalisation tables have an entry for the scalar (a compatibility replacement, a removal or a
    /// look-alike letter).
    static let normalizes: UInt8 = 4
    /// A combining mark (Mn, Mc, Me): kept after its base when a bidi-overridden run is reversed.
    static let combines: UInt8 = 8
    /// A combining mark of the generic blocks (U+0300–036F, U+0483–0489, U+1AB0–1AFF, U+1DC0–1DFF,
    /// U+20D0–20FF, U+FE20–FE2F, the kana sound marks U+3099–309A), which `standard` composes with its base
    /// (NFD text reads as NFC) or, on a Latin, Greek, Cyrillic or Cherokee letter it does not compose with,
    /// drops as decoration (l̶o̶t̶t̶e̶r̶y̶). Has ``normalizes`` set too. Script-specific marks (Thai, Devanagari…)
    /// are not touched, so such text keeps its fast path.
    static let decorates: UInt8 = 16
    /// White space (`_isWhitespace`): every normalisation, `none` included, reads a run of it as one U+0020.
    static let space: UInt8 = 32

    /// Whether `v` is one of the marks of ``decorates``.
    static func isDecoratingMark(_ v: UInt32) -> Bool {
        switch v {
        case 0x0300...0x036F, 0x0483...0x0489, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F, 0x3099...0x309A:
            return true
        default:
            return false
        }
    }

    static func computed(_ s: Unicode.Scalar) -> UInt8 {
        var f: UInt8 = 0
        if AhoCorasick.isWordScalar(s) { f |= word }
        if AhoCorasick.simpleCaseFold(s) != s { f |= folds }
        if _NormalizationLookup.shared.entry(s.value) >= 0 { f |= normalizes }
        switch s.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: f |= combines
        default: break
        }
        if isDecoratingMark(s.value) { f |= decorates | normalizes }
        if _isWhitespace(s.value) { f |= space }
        return f
    }

    /// ``computed(_:)`` as the table's `init` asks it, in under half the instructions: the general
    /// category is asked once (``word`` and ``combines`` both follow from it; `computed` asks it twice), and
    /// the case fold not at all for the categories that hold no cased character (other letters, unassigned,
    /// private use, surrogates: most of the Basic Multilingual Plane, CJK, Hangul, Thai…). The table is built
    /// at every start, so this is start-up time (docs/PERFORMANCE.md, "Start-up"). Equal to `computed` on
    /// every scalar the table holds (TextNormalizationTests.testScalarFlagsAnswerAsTheFunctions compares the
    /// table with `computed`).
    static func tableEntry(_ s: Unicode.Scalar, lookup: _NormalizationLookup) -> UInt8 {
        let v = s.value
        if v < 0x80 { return computed(s) }
        var f: UInt8
        switch s.properties.generalCategory {
        case .otherLetter:
            f = word
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter,
             .decimalNumber, .letterNumber, .otherNumber:
            f = word | foldFlag(s)
        case .nonspacingMark, .spacingMark, .enclosingMark:
            f = word | combines | foldFlag(s)
        case .unassigned, .privateUse, .surrogate:
            f = 0
        default:
            f = foldFlag(s)
        }
        if lookup.entry(v) >= 0 { f |= normalizes }
        if isDecoratingMark(v) { f |= decorates | normalizes }
        if _isWhitespace(v) { f |= space }
        return f
    }

    /// ``folds`` when simple case folding changes `s`, else 0.
    private static func foldFlag(_ s: Unicode.Scalar) -> UInt8 {
        AhoCorasick.simpleCaseFold(s) != s ? folds : 0
    }

    static let shared = _ScalarFlags()

    /// Flags of U+0000…U+FFFF (surrogates: none), then of the emoji and pictograph blocks U+1F000…U+1FAFF
    /// (`emojiStart`, `emojiCount`): the astral scalars that SMS text holds most, which asked the functions
    /// per character (1,300 instructions each; 8.3M of the 33M `_standardChanges` took on 40,000 generated
    /// messages). Allocated once and never freed (the shared instance lives as long as the process);
    /// read-only after `init`.
    private let table: UnsafePointer<UInt8>
    static let emojiStart: UInt32 = 0x1F000
    static let emojiCount: UInt32 = 0xB00

    private init() {
        let count = 0x10000 + Int(Self.emojiCount)
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        t.initialize(repeating: 0, count: count)
        let lookup = _NormalizationLookup.shared
        for v in 0..<UInt32(0x10000) {
            guard let s = Unicode.Scalar(v) else { continue }
            t[Int(v)] = Self.tableEntry(s, lookup: lookup)
        }
        for e in 0..<Self.emojiCount {
            t[0x10000 + Int(e)] = Self.tableEntry(Unicode.Scalar(Self.emojiStart + e)!, lookup: lookup)
        }
        table = UnsafePointer(t)
    }

    /// The table's entry for `v` (below U+10000 or in the emoji blocks), nil for another value.
    @inline(__always)
    private func entry(_ v: UInt32) -> UInt8? {
        if v < 0x10000 { return table[Int(v)] }
        let e = v &- Self.emojiStart
        return e < Self.emojiCount ? table[0x10000 + Int(e)] : nil
    }

    /// The flags of scalar value `v` (computed for values above U+FFFF outside the emoji blocks).
    @inline(__always)
    func of(_ v: UInt32) -> UInt8 {
        if let f = entry(v) { return f }
        guard let s = Unicode.Scalar(v) else { return 0 }
        return Self.computed(s)
    }

    /// Whether scalar value `v` is a word character (false for invalid values).
    @inline(__always)
    func isWord(_ v: UInt32) -> Bool {
        if v < 0x80 { return (v &- 0x30) < 10 || ((v | 0x20) &- 0x61) < 26 }
        if let f = entry(v) { return f & Self.word != 0 }
        guard let s = Unicode.Scalar(v) else { return false }
        return AhoCorasick.isWordScalar(s)
    }

    /// The simple case folding of scalar value `v` (`v` must be a valid scalar value).
    @inline(__always)
    func fold(_ v: UInt32) -> UInt32 {
        if v < 0x80 { return (v &- 0x41) < 26 ? v | 0x20 : v }
        if let f = entry(v), f & Self.folds == 0 { return v }
        guard let s = Unicode.Scalar(v) else { return v }
        return AhoCorasick.simpleCaseFold(s).value
    }
}
