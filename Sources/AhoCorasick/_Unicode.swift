// UTF-8 decoding, simple case folding and the word-character test.

/// Decodes the UTF-8 scalar starting at `p[i]` (`i < n`). Returns the scalar value and its length, or
/// `(nil, 1)` when the bytes at `i` do not start a valid sequence (overlong forms, surrogates, values past
/// U+10FFFF and truncated sequences are invalid, exactly as in the Unicode standard).
///
/// - Precondition: `0 <= i < n` and `p` points to at least `n` readable bytes.
@inline(__always)
func _decodeUTF8(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> (scalar: UInt32?, length: Int) {
    let b0 = UInt32(p[i])
    if b0 < 0x80 { return (b0, 1) }
    // Why no overflow: i < n, so n - i >= 1.
    let left = n &- i
    if b0 >= 0xC2 && b0 <= 0xDF {
        guard left >= 2 else { return (nil, 1) }
        let b1 = UInt32(p[i + 1])
        guard b1 & 0xC0 == 0x80 else { return (nil, 1) }
        return ((b0 & 0x1F) << 6 | (b1 & 0x3F), 2)
    }
    if b0 >= 0xE0 && b0 <= 0xEF {
        guard left >= 3 else { return (nil, 1) }
        let b1 = UInt32(p[i + 1])
        let b2 = UInt32(p[i + 2])
        let low: UInt32 = b0 == 0xE0 ? 0xA0 : 0x80
        let high: UInt32 = b0 == 0xED ? 0x9F : 0xBF
        guard b1 >= low && b1 <= high && b2 & 0xC0 == 0x80 else { return (nil, 1) }
        return ((b0 & 0x0F) << 12 | (b1 & 0x3F) << 6 | (b2 & 0x3F), 3)
    }
    if b0 >= 0xF0 && b0 <= 0xF4 {
        guard left >= 4 else { return (nil, 1) }
        let b1 = UInt32(p[i + 1])
        let b2 = UInt32(p[i + 2])
        let b3 = UInt32(p[i + 3])
        let low: UInt32 = b0 == 0xF0 ? 0x90 : 0x80
        let high: UInt32 = b0 == 0xF4 ? 0x8F : 0xBF
        guard b1 >= low && b1 <= high && b2 & 0xC0 == 0x80 && b3 & 0xC0 == 0x80 else { return (nil, 1) }
        return ((b0 & 0x07) << 18 | (b1 & 0x3F) << 12 | (b2 & 0x3F) << 6 | (b3 & 0x3F), 4)
    }
    return (nil, 1)
}

/// The UTF-8 encoding of a valid scalar value, packed little-end first in a UInt32, and its length.
@inline(__always)
func _encodeUTF8(_ v: UInt32) -> (packed: UInt32, length: Int) {
    if v < 0x80 { return (v, 1) }
    if v < 0x800 { return ((0xC0 | v >> 6) | (0x80 | v & 0x3F) << 8, 2) }
    if v < 0x10000 {
        return ((0xE0 | v >> 12) | (0x80 | (v >> 6) & 0x3F) << 8 | (0x80 | v & 0x3F) << 16, 3)
    }
    return (
        (0xF0 | v >> 18) | (0x80 | (v >> 12) & 0x3F) << 8 | (0x80 | (v >> 6) & 0x3F) << 16 | (0x80 | v & 0x3F) << 24, 4
    )
}

/// Whether the scalar value `v` is a letter, a number or a combining mark.
func _isWordScalar(_ v: UInt32) -> Bool {
    if v < 0x80 {
        return (v >= 0x30 && v <= 0x39) || (v | 0x20 >= 0x61 && v | 0x20 <= 0x7A)
    }
    guard let scalar = Unicode.Scalar(v) else { return false }
    switch scalar.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
        .decimalNumber, .letterNumber, .otherNumber,
        .nonspacingMark, .spacingMark, .enclosingMark:
        return true
    default:
        return false
    }
}

/// Whether the character just before offset `i` of `p[0..<n]` is a word character (false at 0).
func _wordBefore(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Bool {
    guard i > 0 else { return false }
    let last = p[i - 1]
    if last < 0x80 { return _isWordScalar(UInt32(last)) }
    // Walk back over at most 3 continuation bytes to a lead byte, then decode forward.
    var j = i - 1
    while j > 0 && i - j < 4 && p[j] & 0xC0 == 0x80 { j -= 1 }
    let (scalar, length) = _decodeUTF8(p, j, n)
    guard let scalar, j + length == i else { return false }
    return _isWordScalar(scalar)
}

/// Whether the character starting at offset `i` of `p[0..<n]` is a word character (false at n).
func _wordAfter(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Bool {
    guard i < n else { return false }
    let (scalar, _) = _decodeUTF8(p, i, n)
    guard let scalar else { return false }
    return _isWordScalar(scalar)
}

/// Simple Unicode case folding.
///
/// Swift exposes the full case mappings, not `CaseFolding.txt`, so the fold is derived: the lowercase of
/// the (single-scalar) uppercase, else the single-scalar lowercase, else the scalar itself. This gives
/// the same equivalence classes as the C+S foldings (ς, σ, Σ together; ſ with s; the Kelvin sign with k;
/// ẞ with ß; ᾈ with ᾀ; Cherokee pairs; Georgian Mtavruli with Mkhedruli). The one exception, U+0131
/// dotless ı (uppercase `I`, but no simple fold), is special-cased. The representative may differ from
/// `CaseFolding.txt`'s (Cherokee folds to lowercase here), which does not matter since both the patterns
/// and the haystack go through this function.
enum _UnicodeFold {
    static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let v = scalar.value
        if v < 0x80 {
            return v >= 0x41 && v <= 0x5A ? Unicode.Scalar(UInt8(v | 0x20)) : scalar
        }
        if v == 0x131 || !scalar.properties.changesWhenCaseMapped { return scalar }
        let upper = single(scalar.properties.uppercaseMapping) ?? scalar
        if let lower = single(upper.properties.lowercaseMapping) { return lower }
        return single(scalar.properties.lowercaseMapping) ?? scalar
    }

    private static func single(_ s: String) -> Unicode.Scalar? {
        var it = s.unicodeScalars.makeIterator()
        guard let first = it.next(), it.next() == nil else { return nil }
        return first
    }

    /// Every non-ASCII scalar whose fold differs from itself, with its fold, sorted by scalar. Computed
    /// once per process (about 130,000 property look-ups).
    static let nonTrivialFolds: [(from: UInt32, to: UInt32)] = {
        var result: [(UInt32, UInt32)] = []
        var v: UInt32 = 0x80
        while v < 0x1F000 {
            if let scalar = Unicode.Scalar(v), scalar.properties.changesWhenCaseMapped {
                let folded = fold(scalar)
                if folded != scalar { result.append((v, folded.value)) }
            }
            v += 1
        }
        return result
    }()
}
