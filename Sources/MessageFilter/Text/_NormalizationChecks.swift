// The quick checks that let a body skip normalisation's steps: whether it has a byte ≥ 0x80, and whether a
// mode would change it at all (`_spacingChanges`, `_standardChanges`, `_leetChanges`), eight bytes at a time.

/// Whether any byte of `bytes` is ≥ 0x80 (8 bytes at a time, `_skipASCII`).
@inline(__always)
func _hasHighByte(_ bytes: UnsafeRawBufferPointer) -> Bool {
    _skipASCII(bytes, from: 0) < bytes.count
}


/// The index of the first byte ≥ 0x80 in `bytes[from...]` (`bytes.count` when none), eight bytes at a time.
@inline(__always)
func _skipASCII(_ bytes: UnsafeRawBufferPointer, from: Int) -> Int {
    let n = bytes.count
    var i = from
    guard let base = bytes.baseAddress else { return n }
    while i &+ 8 <= n {
        let x = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) & 0x8080_8080_8080_8080
        if x != 0 { return i &+ x.trailingZeroBitCount >> 3 }
        i &+= 8
    }
    while i < n, bytes[i] < 0x80 { i &+= 1 }
    return i
}

/// The index of the first byte of `bytes[from...]` that ASCII text spaced by single spaces does not hold: a
/// byte ≥ 0x80, a control character (below 0x20: tabs and line breaks among them), or a space next to another
/// (one of the two); `bytes.count` when there is none. Eight bytes at a time, as `_skipASCII`.
/// (Bytes below 0x80: `x + 0x60` has its high bit exactly when `x ≥ 0x20`, and `(x ^ 0x20) + 0x7F` exactly
/// when `x` is not a space; a byte ≥ 0x80 is found itself, and the carries it makes reach only later bytes.)
@inline(__always)
func _skipPlainASCII(_ bytes: UnsafeRawBufferPointer, from: Int) -> Int {
    let n = bytes.count
    var i = from
    guard let base = bytes.baseAddress else { return n }
    let high: UInt64 = 0x8080_8080_8080_8080
    // The spaces of the last eight bytes (high bit per byte), for a pair across two loads.
    var spacesBefore: UInt64 = i > 0 && bytes[i &- 1] == 0x20 ? 1 << 63 : 0
    while i &+ 8 <= n {
        let x = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let odd = (x | ~(x &+ 0x6060_6060_6060_6060)) & high
        let spaces = ~((x ^ 0x2020_2020_2020_2020) &+ 0x7F7F_7F7F_7F7F_7F7F) & ~x & high
        let pairs = spaces & (spaces >> 8 | spacesBefore >> 56)
        let stop = odd | pairs
        if stop != 0 { return i &+ stop.trailingZeroBitCount >> 3 }
        spacesBefore = spaces
        i &+= 8
    }
    while i < n {
        let b = bytes[i]
        if b >= 0x80 || b < 0x20 || (b == 0x20 && i > 0 && bytes[i &- 1] == 0x20) { return i }
        i &+= 1
    }
    return i
}

/// Whether `none` changes `body`: a white-space character other than a lone U+0020 (a run of spaces, a tab,
/// a line break, a non-ASCII space), which it reads as one space (`_TextNormalizer.appendCollapsingSpaces`).
@inline(__always)
func _spacingChanges(_ body: UnsafeRawBufferPointer) -> Bool {
    let n = body.count
    var i = 0
    while true {
        i = _skipPlainASCII(body, from: i)
        guard i < n else { return false }
        let b = body[i]
        if b < 0x80 {
            if b == 0x20 || b &- 0x09 < 5 { return true }
            i &+= 1
            continue
        }
        // Continuation bytes (80–BF) are never one of the lead bytes of non-ASCII white space (C2, E1–E3).
        if b &- 0xC2 < 0x22 {
            let (v, len) = _decodeUTF8(body, i)
            if len > 0, _isWhitespace(v) { return true }
        }
        i &+= 1
    }
}

/// Whether `standard` normalisation would change `body`: a non-ASCII scalar with a normalisation-table entry
/// (compatibility form, removal, look-alike), a simple case fold or white space, a byte that is not valid
/// UTF-8 (sent to the rewrite, which passes it through, to keep this test simple), or ASCII that is not
/// spaced by single spaces (a control character, which may be a tab or line break, or two spaces in a row:
/// `_skipPlainASCII`). Otherwise the normaliser's output is `body` byte for byte (ASCII passes as it is; a
/// valid scalar with none of those flags is re-encoded to its own bytes) with each byte its own span.
/// `TextNormalizationTests` checks this against the normaliser.
@inline(__always)
func _standardChanges(_ body: UnsafeRawBufferPointer, flags: _ScalarFlags) -> Bool {
    let n = body.count
    let changing = _ScalarFlags.normalizes | _ScalarFlags.folds | _ScalarFlags.space
    var i = 0
    while i < n {
        let b = body[i]
        if b < 0x80 {
            // ASCII passes as it is unless it holds a control character or a run of spaces: skipped eight
            // bytes at a time (docs/PERFORMANCE.md, "Normalisation's check, round five", and "White space").
            i = _skipPlainASCII(body, from: i)
            if i < n, body[i] < 0x80 { return true }
            continue
        }
        // Three-byte scalars (Thai, Devanagari, Chinese…: most of the non-ASCII text) decoded inline; a lead
        // byte E0 needs a second byte ≥ A0 (no overlong form), ED one < A0 (no surrogate). Anything else,
        // and every other length, goes through `_decodeUTF8`.
        if b & 0xF0 == 0xE0, i &+ 2 < n {
            let c1 = body[i &+ 1]
            let c2 = body[i &+ 2]
            if c1 & 0xC0 == 0x80, c2 & 0xC0 == 0x80, b != 0xE0 || c1 >= 0xA0, b != 0xED || c1 < 0xA0 {
                let v = UInt32(b & 0x0F) << 12 | UInt32(c1 & 0x3F) << 6 | UInt32(c2 & 0x3F)
                if flags.of(v) & changing != 0 { return true }
                i &+= 3
                continue
            }
        }
        let (v, len) = _decodeUTF8(body, i)
        if len == 0 || flags.of(v) & changing != 0 { return true }
        i &+= len
    }
    return false
}

/// Whether `leet` normalisation might change `body` (true when in doubt). It leaves a body alone when
/// `standard` does (``_standardChanges`` is false) and the body has no ASCII letter (so no digit is read as
/// a letter, no `l` as `i`, no `@`/`$` between letters) and no word character standing alone before a
/// separator and another word character (`1.2.3`, `你 好 吗`: `joinSpacedLetters` might join such a run;
/// a non-ASCII space is a compatibility form, so `standard` already rewrites it). Then the normaliser's
/// output is `body` byte for byte, as under `standard`. `TextNormalizationTests` checks this against the
/// normaliser.
@inline(__always)
func _leetChanges(_ body: UnsafeRawBufferPointer, flags: _ScalarFlags) -> Bool {
    let n = body.count
    var i = 0
    // The classes of the last three scalars (0 other or none, 1 word, 2 separator), oldest first.
    var a: UInt8 = 0, b: UInt8 = 0, c: UInt8 = 0
    var lastSpace = false
    while i < n {
        let byte = body[i]
        var d: UInt8 = 0
        if byte < 0x80 {
            if (byte | 0x20) &- 0x61 < 26 { return true }
            // A control character (a tab or line break among them) or a second space in a row: white space
            // that reads as one space.
            if byte < 0x20 || (byte == 0x20 && lastSpace) { return true }
            lastSpace = byte == 0x20
            if byte &- 0x30 < 10 {
                d = 1
            } else if byte == 0x2E || byte == 0x2D || byte == 0x5F || byte == 0x2A || byte == 0x20 {
                d = 2
            }
            i &+= 1
        } else {
            let (v, len) = _decodeUTF8(body, i)
            if len == 0 || flags.of(v) & (_ScalarFlags.normalizes | _ScalarFlags.folds | _ScalarFlags.space) != 0 { return true }
            lastSpace = false
            if flags.isWord(v) { d = 1 } else if v == 0xB7 || v == 0x2022 { d = 2 }
            i &+= len
        }
        // A word character after a separator after a lone word character: perhaps a spaced-out word.
        if a != 1 && b == 1 && c == 2 && d == 1 { return true }
        a = b
        b = c
        c = d
    }
    return false
}
