/// ASCII case-insensitive byte comparisons.
enum _Fold {
    /// Whether `bytes` equals (or, with `prefix`, starts with) `upper`, which is already ASCII-uppercased.
    static func equal(_ bytes: UnsafeRawBufferPointer, _ upper: [UInt8], prefix: Bool) -> Bool {
        if prefix ? bytes.count < upper.count : bytes.count != upper.count { return false }
        var i = 0
        while i < upper.count {
            var b = bytes[i]
            if b >= 0x61 && b <= 0x7A { b &= 0xDF }
            if b != upper[i] { return false }
            i += 1
        }
        return true
    }

    /// A hash of `bytes` with ASCII lower-case letters read as upper-case (so equal to the hash of any byte string
    /// `equal(_:_:prefix: false)` accepts against it): FNV-1a, 64 bits.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        var i = 0
        while i < bytes.count {
            var b = bytes[i]
            if b &- 0x61 < 26 { b &= 0xDF }
            h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3
            i &+= 1
        }
        return h
    }

    static func trimmed(_ b: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var lo = 0
        var hi = b.count
        while lo < hi, b[lo] == 0x20 || b[lo] == 0x09 { lo += 1 }
        while hi > lo, b[hi - 1] == 0x20 || b[hi - 1] == 0x09 { hi -= 1 }
        return UnsafeRawBufferPointer(rebasing: b[lo..<hi])
    }
}
