// MARK: Internal API
//
// The JSON scanner's text helpers: the C kernels' test hooks, the SWAR structural mask, UTF-8 validation
// and decoding, and unescaping of JSON strings (used by the drivers too). Split from _JSONScanner.swift.

import CJSONSIMD

extension _JSONScanner {
    /// Forces the string kernel (0 scalar, 1 SSSE3, 2 AVX2, 3 NEON; nil: the automatic choice) when the CPU has
    /// it; returns the kernel now in use. For tests and measurements.
    @discardableResult
    static func forceKernel(_ kernel: Int?) -> Int { Int(json_simd_force_kernel(Int32(kernel ?? -1))) }

    /// `json_utf8_valid` over `bytes`. For tests.
    static func kernelUTF8Valid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        return json_utf8_valid(base.assumingMemoryBound(to: UInt8.self), bytes.count) != 0
    }

    /// `json_scan_string` over `bytes`: the offset of the first quote, backslash or control byte (or the
    /// count), and whether a byte of 0x80 or above comes before it. For tests.
    static func kernelScan(_ bytes: UnsafeRawBufferPointer) -> (offset: Int, high: Bool) {
        guard let base = bytes.baseAddress else { return (0, false) }
        let r = json_scan_string(base.assumingMemoryBound(to: UInt8.self), bytes.count)
        return (Int(truncatingIfNeeded: r & ~_jsonScanHighBit), r & _jsonScanHighBit != 0)
    }
}

/// `JSON_SCAN_HIGH_BIT` of `json_scan_string`'s result.
let _jsonScanHighBit: UInt64 = 1 << 63

/// A mask with the top bit of each byte of `w` (little-endian: byte 0 is the lowest) set where the byte may
/// be `"`, `\` or below 0x20; bytes of 0x80 and above are never flagged. The lowest flagged byte is exact:
/// the zero-byte test `(x - 0x01…) & ~x & 0x80…` can only flag a byte wrongly through a borrow from a lower
/// byte that is itself flagged.
@inline(__always)
func _structuralMask(_ w: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    @inline(__always) func hasZero(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
    let quote = hasZero(w ^ (ones &* 0x22))
    let backslash = hasZero(w ^ (ones &* 0x5C))
    // Bytes < 0x20: (b - 0x20) borrows into the high bit when b < 0x20 (only meaningful for b < 0x80).
    let control = (w &- ones &* 0x20) & ~w & highs
    return quote | backslash | control
}

/// The offset of the first byte that is not well-formed UTF-8 in `s`, or nil when all of it is: from 16 bytes
/// on, the SIMD check (`json_utf8_valid`) says whether there is one, and only then does the byte loop look.
@inline(__always)
func _invalidUTF8Offset(_ s: UnsafeRawBufferPointer) -> Int? {
    if s.count >= 16, json_utf8_valid(s.baseAddress!.assumingMemoryBound(to: UInt8.self), s.count) != 0 { return nil }
    return _firstInvalidUTF8(s)
}

/// The offset of the first byte that is not well-formed UTF-8 in `s`, or nil when all of it is.
@inline(__always)
func _firstInvalidUTF8(_ s: UnsafeRawBufferPointer) -> Int? {
    var i = 0
    let end = s.count
    let highs: UInt64 = 0x8080_8080_8080_8080
    while i < end {
        while i + 8 <= end && s.loadUnaligned(fromByteOffset: i, as: UInt64.self) & highs == 0 { i += 8 }
        guard i < end else { return nil }
        let b0 = s[i]
        if b0 < 0x80 {
            i += 1
            continue
        }
        // Fast path for the common three-byte scalars (Thai, Devanagari, CJK): lead E1–EC or EE–EF
        // and two continuation bytes, checked with one 4-byte load when 4 bytes are readable.
        if i + 4 <= end && b0 >= 0xE1 && b0 <= 0xEF && b0 != 0xED {
            let w = s.loadUnaligned(fromByteOffset: i, as: UInt32.self).littleEndian
            if w & 0x00C0_C000 == 0x0080_8000 {
                i += 3
                continue
            }
        }
        guard let n = _utf8Scalar(s, i, end) else { return i }
        i = n
    }
    return nil
}

/// Validates one multi-byte UTF-8 scalar starting at `i` (whose byte is >= 0x80); returns the index
/// after it, or nil when it is not well-formed (Unicode Table 3-7: no overlongs, no surrogates, ≤ U+10FFFF).
@inline(__always)
func _utf8Scalar(_ s: UnsafeRawBufferPointer, _ i: Int, _ end: Int) -> Int? {
    let b0 = s[i]
    @inline(__always) func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool {
        k < end && s[k] >= lo && s[k] <= hi
    }
    switch b0 {
    case 0xC2...0xDF: return cont(i + 1) ? i + 2 : nil
    case 0xE0: return cont(i + 1, 0xA0) && cont(i + 2) ? i + 3 : nil
    case 0xE1...0xEC, 0xEE...0xEF: return cont(i + 1) && cont(i + 2) ? i + 3 : nil
    case 0xED: return cont(i + 1, 0x80, 0x9F) && cont(i + 2) ? i + 3 : nil
    case 0xF0: return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? i + 4 : nil
    case 0xF1...0xF3: return cont(i + 1) && cont(i + 2) && cont(i + 3) ? i + 4 : nil
    case 0xF4: return cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3) ? i + 4 : nil
    default: return nil
    }
}

/// Whether `bytes` is well-formed UTF-8.
@inline(__always)
func _isValidUTF8(_ s: UnsafeRawBufferPointer) -> Bool { _firstInvalidUTF8(s) == nil }

/// Decoding of JSON string escapes into UTF-8 (the input was validated by `_JSONScanner`).
enum _JSONUnescape {
    /// Calls `body` with each byte of the decoded content of a validated, escaped JSON string.
    @inline(__always)
    static func forEachByte(_ raw: UnsafeRawBufferPointer, _ body: (UInt8) -> Void) {
        var i = 0
        let end = raw.count
        while i < end {
            let c = raw[i]
            if c != UInt8(ascii: "\\") {
                body(c)
                i += 1
                continue
            }
            let e = raw[i + 1]
            switch e {
            case UInt8(ascii: "b"): body(0x08); i += 2
            case UInt8(ascii: "f"): body(0x0C); i += 2
            case UInt8(ascii: "n"): body(0x0A); i += 2
            case UInt8(ascii: "r"): body(0x0D); i += 2
            case UInt8(ascii: "t"): body(0x09); i += 2
            case UInt8(ascii: "u"):
                var scalar = _JSONScanner.hex4(raw, i + 2, end) ?? 0xFFFD
                i += 6
                if scalar >= 0xD800 && scalar <= 0xDBFF, let low = _JSONScanner.hex4(raw, i + 2, end) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                _encodeUTF8(scalar, body)
            default: body(e); i += 2  // \" \\ \/
            }
        }
    }

    /// Appends the decoded content of a validated, escaped JSON string to `out`.
    @inline(__always)
    static func append(_ raw: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        forEachByte(raw) { out.append($0) }
    }
}
