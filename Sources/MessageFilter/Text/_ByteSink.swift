// The byte-level pieces of normalisation: the sink that writes scalars as UTF-8 with their source spans,
// the white space `_TextNormalizer` collapses, and UTF-8 encoding and decoding.

/// Writes normalised scalars as UTF-8 with their source spans into buffers with room for them (the caller
/// grew them: at most 4 bytes per scalar). The three pointers are borrowed from their owner
/// (`_TextNormalizer`'s output buffers, `_ModelScratch`'s folded text) for one call: a sink is made, written
/// and its `count` taken back before the owner can grow or free them, and it is never stored.
struct _ByteSink {
    let bytes: UnsafeMutablePointer<UInt8>
    let starts: UnsafeMutablePointer<Int32>
    let ends: UnsafeMutablePointer<Int32>
    var count: Int
    let flags: _ScalarFlags

    /// Appends `body[i..<j]` as it is, each byte with its own span.
    @inline(__always)
    mutating func copy(_ body: UnsafeRawBufferPointer, _ i: Int, _ j: Int) {
        let c = count
        (bytes + c).update(from: body.baseAddress!.assumingMemoryBound(to: UInt8.self) + i, count: j &- i)
        let s = Int32(truncatingIfNeeded: i)
        var q = 0
        while q < j &- i {
            starts[c &+ q] = s &+ Int32(truncatingIfNeeded: q)
            ends[c &+ q] = s &+ Int32(truncatingIfNeeded: q &+ 1)
            q &+= 1
        }
        count &+= j &- i
    }

    /// Appends the character of `len` bytes at `body[i]` as it is, each byte with the character's span `s..<e`
    /// (a three-byte one, most of a Thai or Chinese body, without a loop). `b0` is `body[i]`, which the caller
    /// has already read (one load fewer per character).
    @inline(__always)
    mutating func copyCharacter(_ body: UnsafeRawBufferPointer, _ i: Int, _ len: Int, _ b0: UInt8, _ s: Int32, _ e: Int32) {
        let c = count
        if len == 3 {
            bytes[c] = b0
            bytes[c &+ 1] = body[i &+ 1]
            bytes[c &+ 2] = body[i &+ 2]
            starts[c] = s
            starts[c &+ 1] = s
            starts[c &+ 2] = s
            ends[c] = e
            ends[c &+ 1] = e
            ends[c &+ 2] = e
        } else {
            var q = 0
            while q < len {
                bytes[c &+ q] = body[i &+ q]
                starts[c &+ q] = s
                ends[c &+ q] = e
                q &+= 1
            }
        }
        count &+= len
    }

    /// Appends scalar `v` (case-folded when non-ASCII; a raw byte as itself) with source span `s..<e`.
    @inline(__always)
    mutating func put(_ v: UInt32, _ s: Int32, _ e: Int32) {
        if v < 0x80 || v & _TextNormalizer.rawBit != 0 {
            bytes[count] = UInt8(truncatingIfNeeded: v)
            starts[count] = s
            ends[count] = e
            count &+= 1
            return
        }
        let len = _encodeUTF8(flags.fold(v), into: bytes + count)
        var q = 0
        while q < len {
            starts[count &+ q] = s
            ends[count &+ q] = e
            q &+= 1
        }
        count &+= len
    }
}

extension _ByteSink {
    /// Appends a space for a white-space character from bytes `s..<e`: one U+0020, or, when the output of the
    /// body being written (from `first`) already ends with a space, that space's span grown to cover it, so a
    /// run of white space reads as one space spanning the whole run.
    @inline(__always)
    mutating func putSpace(_ s: Int32, _ e: Int32, first: Int) {
        if count > first, bytes[count &- 1] == 0x20 {
            ends[count &- 1] = max(ends[count &- 1], e)
            return
        }
        bytes[count] = 0x20
        starts[count] = s
        ends[count] = e
        count &+= 1
    }
}

/// Whether scalar value `v` is white space (Unicode's `White_Space`: tab, line feed, vertical tab, form feed,
/// carriage return, space, next line U+0085, no-break space, Ogham space mark, the spaces U+2000–U+200A, line
/// and paragraph separators, narrow no-break, medium mathematical and ideographic spaces). Every
/// normalisation reads a run of these as one space. (`TextNormalizationTests` checks it against
/// `Unicode.Scalar.Properties.isWhitespace` for every scalar.)
@inline(__always)
func _isWhitespace(_ v: UInt32) -> Bool {
    switch v {
    case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
    default: false
    }
}

/// Writes scalar value `v` as UTF-8 at `p` (room for 4 bytes); returns the length.
@inline(__always)
func _encodeUTF8(_ v: UInt32, into p: UnsafeMutablePointer<UInt8>) -> Int {
    if v < 0x80 {
        p[0] = UInt8(v)
        return 1
    } else if v < 0x800 {
        p[0] = UInt8(0xC0 | v >> 6); p[1] = UInt8(0x80 | v & 0x3F)
        return 2
    } else if v < 0x10000 {
        p[0] = UInt8(0xE0 | v >> 12); p[1] = UInt8(0x80 | (v >> 6) & 0x3F); p[2] = UInt8(0x80 | v & 0x3F)
        return 3
    }
    p[0] = UInt8(0xF0 | v >> 18); p[1] = UInt8(0x80 | (v >> 12) & 0x3F)
    p[2] = UInt8(0x80 | (v >> 6) & 0x3F); p[3] = UInt8(0x80 | v & 0x3F)
    return 4
}

/// `_decodeUTF8` with three-byte scalars (Thai, Devanagari, Chinese…: most non-ASCII text) decoded inline:
/// a lead byte E0 needs a second byte ≥ A0 (no overlong form), ED one < A0 (no surrogate); anything else goes
/// through `_decodeUTF8`.
@inline(__always)
func _decodeUTF8Inline(_ body: UnsafeRawBufferPointer, _ i: Int) -> (UInt32, Int) {
    let b = body[i]
    if b & 0xF0 == 0xE0, i &+ 2 < body.count {
        let c1 = body[i &+ 1]
        let c2 = body[i &+ 2]
        if c1 & 0xC0 == 0x80, c2 & 0xC0 == 0x80, b != 0xE0 || c1 >= 0xA0, b != 0xED || c1 < 0xA0 {
            return (UInt32(b & 0x0F) << 12 | UInt32(c1 & 0x3F) << 6 | UInt32(c2 & 0x3F), 3)
        }
    }
    return _decodeUTF8(body, i)
}

/// Decodes one UTF-8 scalar at `i` (well-formed per Unicode table 3-7: no overlongs, surrogates or values
/// above U+10FFFF); returns its value and length, or length 0 when the bytes there are not one.
@inline(__always)
func _decodeUTF8(_ b: UnsafeRawBufferPointer, _ i: Int) -> (UInt32, Int) {
    let n = b.count
    let b0 = b[i]
    @inline(__always) func cont(_ k: Int) -> UInt32? {
        guard i + k < n else { return nil }
        let c = b[i + k]
        return c & 0xC0 == 0x80 ? UInt32(c & 0x3F) : nil
    }
    switch b0 {
    case 0xC2...0xDF:
        guard let c1 = cont(1) else { return (0, 0) }
        return (UInt32(b0 & 0x1F) << 6 | c1, 2)
    case 0xE0...0xEF:
        guard let c1 = cont(1), let c2 = cont(2) else { return (0, 0) }
        let v = UInt32(b0 & 0x0F) << 12 | c1 << 6 | c2
        if v < 0x800 || (v >= 0xD800 && v <= 0xDFFF) { return (0, 0) }
        return (v, 3)
    case 0xF0...0xF4:
        guard let c1 = cont(1), let c2 = cont(2), let c3 = cont(3) else { return (0, 0) }
        let v = UInt32(b0 & 0x07) << 18 | c1 << 12 | c2 << 6 | c3
        if v < 0x10000 || v > 0x10FFFF { return (0, 0) }
        return (v, 4)
    default:
        return (0, 0)
    }
}
