extension _Fold {
    /// Whether `bytes` matches `pattern` (already ASCII-uppercased), comparing ASCII case-insensitively:
    /// `*` stands for any run of bytes (also none), `?` for one byte, every other byte for itself. Used for
    /// TRAI entities (`HDFC*`, `*CTAXKR`). Without `*` or `?` it is plain equality.
    ///
    /// - Complexity: O(n × m) in the worst case (one backtracking point, the last `*`); no allocation.
    static func glob(_ bytes: UnsafeRawBufferPointer, _ pattern: [UInt8]) -> Bool {
        var i = 0  // in bytes
        var k = 0  // in pattern
        var star = -1  // pattern index after the last `*`
        var mark = 0  // bytes index where that `*` started matching
        let n = bytes.count
        let m = pattern.count
        while i < n {
            var b = bytes[i]
            if b >= 0x61 && b <= 0x7A { b &= 0xDF }
            if k < m, pattern[k] == 0x3F || (pattern[k] == b && b != 0x2A) {
                i += 1
                k += 1
            } else if k < m, pattern[k] == 0x2A {
                k += 1
                star = k
                mark = i
            } else if star >= 0 {
                mark += 1
                i = mark
                k = star
            } else {
                return false
            }
        }
        while k < m, pattern[k] == 0x2A { k += 1 }
        return k == m
    }
}
