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

    static let shared = _ScalarFlags()

    /// Flags of U+0000…U+FFFF (surrogates: none). Allocated once and never freed (the shared instance lives
    /// as long as the process); read-only after `init`.
    private let table: UnsafePointer<UInt8>

    private init() {
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 0x10000)
        t.initialize(repeating: 0, count: 0x10000)
        for v in 0..<UInt32(0x10000) {
            guard let s = Unicode.Scalar(v) else { continue }
            var f: UInt8 = 0
            if AhoCorasick.isWordScalar(s) { f |= Self.word }
            if AhoCorasick.simpleCaseFold(s) != s { f |= Self.folds }
            if _NormalizationLookup.shared.entry(v) >= 0 { f |= Self.normalizes }
            t[Int(v)] = f
        }
        table = UnsafePointer(t)
    }

    /// The flags of scalar value `v` (computed for values above U+FFFF).
    @inline(__always)
    func of(_ v: UInt32) -> UInt8 {
        if v < 0x10000 { return table[Int(v)] }
        guard let s = Unicode.Scalar(v) else { return 0 }
        var f: UInt8 = 0
        if AhoCorasick.isWordScalar(s) { f |= Self.word }
        if AhoCorasick.simpleCaseFold(s) != s { f |= Self.folds }
        if _NormalizationLookup.shared.entry(v) >= 0 { f |= Self.normalizes }
        return f
    }

    /// Whether scalar value `v` is a word character (false for invalid values).
    @inline(__always)
    func isWord(_ v: UInt32) -> Bool {
        if v < 0x80 { return (v &- 0x30) < 10 || ((v | 0x20) &- 0x61) < 26 }
        if v < 0x10000 { return table[Int(v)] & Self.word != 0 }
        guard let s = Unicode.Scalar(v) else { return false }
        return AhoCorasick.isWordScalar(s)
    }

    /// The simple case folding of scalar value `v` (`v` must be a valid scalar value).
    @inline(__always)
    func fold(_ v: UInt32) -> UInt32 {
        if v < 0x80 { return (v &- 0x41) < 26 ? v | 0x20 : v }
        if v < 0x10000, table[Int(v)] & Self.folds == 0 { return v }
        guard let s = Unicode.Scalar(v) else { return v }
        return AhoCorasick.simpleCaseFold(s).value
    }
}
