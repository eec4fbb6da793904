/// Unicode-aware word boundaries on UTF-8 bytes (for `wholeWord`), without allocating.
enum _WordBoundary {
    /// Whether a match at `start..<end` touches no letter or digit on either side.
    ///
    /// - Precondition: `0 <= start <= end <= bytes.count`.
    static func isBoundary(_ bytes: UnsafeRawBufferPointer, start: Int, end: Int) -> Bool {
        if start > 0, let s = scalar(endingAt: start, in: bytes), isWord(s) { return false }
        if end < bytes.count, let s = scalar(startingAt: end, in: bytes), isWord(s) { return false }
        return true
    }

    @inline(__always) static func isWord(_ s: Unicode.Scalar) -> Bool {
        if s.value < 0x80 {
            let b = UInt8(s.value)
            return (b >= 0x30 && b <= 0x39) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A)
        }
        return s.properties.isAlphabetic || s.properties.numericType != nil
    }

    /// Decodes the scalar that starts at `i` (nil when the bytes there are not valid UTF-8).
    static func scalar(startingAt i: Int, in b: UnsafeRawBufferPointer) -> Unicode.Scalar? {
        let b0 = UInt32(b[i])
        if b0 < 0x80 { return Unicode.Scalar(b0) }
        let len = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0
        guard len > 0, i + len <= b.count else { return nil }
        var v = b0 & (0xFF >> UInt32(len + 1))
        for k in 1..<len {
            let c = UInt32(b[i + k])
            guard c & 0xC0 == 0x80 else { return nil }
            v = v << 6 | (c & 0x3F)
        }
        return Unicode.Scalar(v)
    }

    /// Decodes the scalar that ends just before `end` (nil when invalid).
    static func scalar(endingAt end: Int, in b: UnsafeRawBufferPointer) -> Unicode.Scalar? {
        var i = end - 1
        var steps = 0
        while i > 0, b[i] & 0xC0 == 0x80, steps < 3 { i -= 1; steps += 1 }
        return scalar(startingAt: i, in: b)
    }
}
