// MARK: Internal API
//
// A validating JSON Lines scanner that pulls a few top-level fields out of one line without building
// objects. Written by hand because Foundation's JSONSerialization parses ~32 MB/s of our JSONL (SPEC §8),
// some 40× slower than the zstd decoder feeding it; this scanner validates and extracts at memory speed
// (figures in docs/PERFORMANCE.md).
//
// It accepts exactly what Foundation's JSONSerialization accepts for a top-level object (the tests check
// it against Foundation on every line of the real corpora and on hostile lines), including Foundation's
// two leniencies: a trailing comma before `}` or `]`, and a UTF-8 byte-order mark before the object.
// Nesting deeper than 512 containers is refused, as Foundation refuses it. Duplicate keys: the last
// one wins, as in Foundation.
//
// All byte access goes through `UnsafeRawBufferPointer` subscripts and loads, which are bounds-checked in
// debug builds; every index is compared against `end` before it is read. The one C call
// (`json_scan_string`, Sources/CJSONSIMD) is given `s[i..<end]` and reads nothing outside it.

import CJSONSIMD

/// What a wanted top-level field held.
public struct JSONField: Sendable, Equatable {
    public enum Kind: UInt8, Sendable { case missing, null, string, other }
    public var kind: Kind = .missing
    /// The raw value's bytes, quotes included for a string (for copying an `id` verbatim).
    public var rawStart = 0
    public var rawEnd = 0
    /// Whether a string value contains escapes (then its content must be unescaped before use).
    public var escaped = false
    public init() {}
    /// The string content between the quotes.
    public var contentStart: Int { rawStart + 1 }
    public var contentEnd: Int { rawEnd - 1 }
}

/// Why a line is not a JSON object.
public struct JSONScanError: Error, Sendable, Equatable {
    /// Byte offset in the line where the problem was seen.
    public let offset: Int
    public let reason: StaticString
    public static func == (a: JSONScanError, b: JSONScanError) -> Bool {
        a.offset == b.offset && a.reason.description == b.reason.description
    }
}

@usableFromInline
struct _JSONScanner {
    @usableFromInline static let maxDepth = 512

    /// Scans `line` (without its newline) as one JSON object and fills `fields[i]` for each `keys[i]`
    /// found at the top level. With `allowTrailingCommas` (the default, as Foundation) a comma before `}` or
    /// `]` is accepted; without, it is an error (the record reader refuses it: its output must parse anywhere).
    ///
    /// - Precondition: `fields.count == keys.count`.
    @inline(__always)
    static func scan(
        _ line: UnsafeRawBufferPointer, keys: UnsafeBufferPointer<UnsafeRawBufferPointer>,
        fields: UnsafeMutableBufferPointer<JSONField>, allowTrailingCommas: Bool = true
    ) -> JSONScanError? {
        precondition(fields.count == keys.count)
        for i in 0..<fields.count { fields[i] = JSONField() }
        let end = line.count
        var i = 0
        // A UTF-8 byte-order mark, as Foundation allows.
        if end >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF { i = 3 }
        i = skipSpace(line, i, end)
        guard i < end, line[i] == UInt8(ascii: "{") else {
            return JSONScanError(offset: i, reason: i < end ? "a record must be a JSON object" : "empty line")
        }
        i += 1
        var first = true
        while true {
            i = skipSpace(line, i, end)
            guard i < end else { return JSONScanError(offset: i, reason: "unterminated object") }
            if line[i] == UInt8(ascii: "}") {
                // After a `,` (consumed below) this is Foundation's trailing-comma leniency.
                if !first && !allowTrailingCommas { return JSONScanError(offset: i, reason: "trailing comma") }
                i += 1
                break
            }
            guard line[i] == UInt8(ascii: "\"") else { return JSONScanError(offset: i, reason: "expected a key string") }
            let keyStart = i
            var escaped = false
            switch scanString(line, i, end, &escaped) {
            case .failure(let e): return e
            case .success(let next): i = next
            }
            let keyRaw = UnsafeRawBufferPointer(rebasing: line[(keyStart + 1)..<(i - 1)])
            i = skipSpace(line, i, end)
            guard i < end, line[i] == UInt8(ascii: ":") else { return JSONScanError(offset: i, reason: "expected ':'") }
            i = skipSpace(line, i + 1, end)
            guard i < end else { return JSONScanError(offset: i, reason: "expected a value") }
            // Which wanted field is this?
            var slot = -1
            // A length that differs rules a key out without a call (an escaped key may be longer than it reads).
            for k in 0..<keys.count where (escaped || keys[k].count == keyRaw.count) && keyEquals(keyRaw, escaped: escaped, keys[k]) {
                slot = k
                break
            }
            let valueStart = i
            var valueEscaped = false
            let kind: JSONField.Kind
            let c = line[i]
            if c == UInt8(ascii: "\"") {
                switch scanString(line, i, end, &valueEscaped) {
                case .failure(let e): return e
                case .success(let next): i = next
                }
                kind = .string
            } else {
                switch skipValue(line, i, end, depth: 1, allowTrailingCommas: allowTrailingCommas) {
                case .failure(let e): return e
                case .success(let next): i = next
                }
                kind = (i - valueStart == 4 && c == UInt8(ascii: "n")) ? .null : .other
            }
            if slot >= 0 {
                fields[slot].kind = kind
                fields[slot].rawStart = valueStart
                fields[slot].rawEnd = i
                fields[slot].escaped = valueEscaped
            }
            first = false
            i = skipSpace(line, i, end)
            guard i < end else { return JSONScanError(offset: i, reason: "unterminated object") }
            if line[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            if line[i] == UInt8(ascii: "}") {
                i += 1
                break
            }
            return JSONScanError(offset: i, reason: "expected ',' or '}'")
        }
        i = skipSpace(line, i, end)
        if i != end { return JSONScanError(offset: i, reason: "unexpected bytes after the object") }
        return nil
    }

    @inline(__always)
    static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09
    }

    @inline(__always)
    static func skipSpace(_ s: UnsafeRawBufferPointer, _ i: Int, _ end: Int) -> Int {
        var i = i
        while i < end && isSpace(s[i]) { i += 1 }
        return i
    }

    /// Scans a string starting at the quote at `i`; returns the index after its closing quote.
    /// Validates escapes (including surrogate pairs) and UTF-8.
    ///
    /// `skipPlain` finds the next quote, backslash or control byte (in 16/32-byte SIMD blocks) and only notes
    /// whether bytes of 0x80 and above went by; their UTF-8 is validated once per string, in one pass, at the end.
    @inline(__always)
    static func scanString(
        _ s: UnsafeRawBufferPointer, _ start: Int, _ end: Int, _ escaped: inout Bool
    ) -> Result<Int, JSONScanError> {
        var i = start + 1
        var highBits: UInt64 = 0
        while true {
            i = skipPlain(s, i, end, &highBits)
            guard i < end else { return .failure(JSONScanError(offset: i, reason: "unterminated string")) }
            let c = s[i]
            if c == UInt8(ascii: "\"") {
                if highBits & 0x8080_8080_8080_8080 != 0,
                    let bad = _invalidUTF8Offset(UnsafeRawBufferPointer(rebasing: s[(start + 1)..<i]))
                {
                    return .failure(JSONScanError(offset: start + 1 + bad, reason: "invalid UTF-8"))
                }
                return .success(i + 1)
            }
            if c == UInt8(ascii: "\\") {
                escaped = true
                guard i + 1 < end else { return .failure(JSONScanError(offset: i, reason: "unterminated string")) }
                let e = s[i + 1]
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 2
                case UInt8(ascii: "u"):
                    guard let unit = hex4(s, i + 2, end) else {
                        return .failure(JSONScanError(offset: i, reason: "invalid \\u escape"))
                    }
                    i += 6
                    if unit >= 0xD800 && unit <= 0xDBFF {
                        guard i + 1 < end, s[i] == UInt8(ascii: "\\"), s[i + 1] == UInt8(ascii: "u"),
                            let low = hex4(s, i + 2, end), low >= 0xDC00 && low <= 0xDFFF
                        else { return .failure(JSONScanError(offset: i, reason: "unpaired surrogate in \\u escape")) }
                        i += 6
                    } else if unit >= 0xDC00 && unit <= 0xDFFF {
                        return .failure(JSONScanError(offset: i - 6, reason: "unpaired surrogate in \\u escape"))
                    }
                default:
                    return .failure(JSONScanError(offset: i, reason: "invalid escape"))
                }
                continue
            }
            // A control byte (skipPlain stops only at these three kinds).
            // Report invalid UTF-8 before it, if any, so the reason names the first problem.
            if highBits & 0x8080_8080_8080_8080 != 0,
                let bad = _invalidUTF8Offset(UnsafeRawBufferPointer(rebasing: s[(start + 1)..<i]))
            {
                return .failure(JSONScanError(offset: start + 1 + bad, reason: "invalid UTF-8"))
            }
            return .failure(JSONScanError(offset: i, reason: "control character in a string"))
        }
    }

    /// The index of the first quote, backslash or control byte (below 0x20) in `s[i..<end]`, or `end`; ORs the
    /// bytes passed over into `high` (whose 0x80 bits say whether a byte of 0x80 or above went by).
    ///
    /// While 16 bytes or more of the line are left, the C kernel (`json_scan_string`: AVX2, SSSE3 or NEON
    /// blocks, see `Sources/CJSONSIMD`) does it, whatever the string's length (a string's end is not known
    /// in advance, the line's is; a call costs less than one 8-byte SWAR step). Near the end of the line,
    /// 8 bytes at a time and then byte by byte.
    @inline(__always)
    static func skipPlain(_ s: UnsafeRawBufferPointer, _ start: Int, _ end: Int, _ high: inout UInt64) -> Int {
        var i = start
        if end - i >= 16 {
            let r = json_scan_string(s.baseAddress!.assumingMemoryBound(to: UInt8.self) + i, end - i)
            if r & _jsonScanHighBit != 0 { high |= 0x80 }
            return i + Int(truncatingIfNeeded: r & ~_jsonScanHighBit)
        }
        while i + 8 <= end {
            let w = UInt64(littleEndian: s.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let mask = _structuralMask(w)
            if mask != 0 {
                // The lowest flagged byte is exact (see `_structuralMask`); k < 8, so the shift is < 64.
                let k = mask.trailingZeroBitCount &>> 3
                high |= w & ((1 &<< UInt64(k &* 8)) &- 1)
                return i &+ k
            }
            high |= w
            i += 8
        }
        while i < end {
            let c = s[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { return i }
            high |= UInt64(c)
            i += 1
        }
        return i
    }

    @inline(__always)
    static func hex4(_ s: UnsafeRawBufferPointer, _ i: Int, _ end: Int) -> UInt32? {
        guard i + 4 <= end else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = s[i + k]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    /// Skips one non-string value (number, literal, object, array) starting at `i`, validating it.
    /// Containers are walked iteratively with a bit stack (1 = array), so depth costs no recursion.
    static func skipValue(
        _ s: UnsafeRawBufferPointer, _ start: Int, _ end: Int, depth topDepth: Int, allowTrailingCommas: Bool = true
    ) -> Result<Int, JSONScanError> {
        var i = start
        var stack: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        var depth = 0  // containers opened inside this value
        func push(_ isArray: Bool) {
            withUnsafeMutableBytes(of: &stack) { raw in
                let words = raw.bindMemory(to: UInt64.self)
                let bit = UInt64(1) << UInt64(depth & 63)
                if isArray { words[depth >> 6] |= bit } else { words[depth >> 6] &= ~bit }
            }
            depth += 1
        }
        func topIsArray() -> Bool {
            withUnsafeBytes(of: &stack) { raw in
                let d = depth - 1
                return raw.load(fromByteOffset: (d >> 6) * 8, as: UInt64.self) & (UInt64(1) << UInt64(d & 63)) != 0
            }
        }
        // States: expecting a value (possibly the first in a container, where `]`/`}` may close it).
        var expectValue = true
        var afterComma = false
        while true {
            i = skipSpace(s, i, end)
            guard i < end else { return .failure(JSONScanError(offset: i, reason: "unterminated value")) }
            let c = s[i]
            if expectValue {
                // In an object (depth > 0 and top is object) a value is preceded by `"key":`.
                if depth > 0 && !topIsArray() {
                    if c == UInt8(ascii: "}") {
                        // `{}` or Foundation's trailing comma `{"a":1,}`.
                        if afterComma && !allowTrailingCommas { return .failure(JSONScanError(offset: i, reason: "trailing comma")) }
                        depth -= 1
                        i += 1
                        expectValue = false
                        if depth == 0 { return .success(i) }
                        continue
                    }
                    guard c == UInt8(ascii: "\"") else { return .failure(JSONScanError(offset: i, reason: "expected a key string")) }
                    var esc = false
                    switch scanString(s, i, end, &esc) {
                    case .failure(let e): return .failure(e)
                    case .success(let n): i = n
                    }
                    i = skipSpace(s, i, end)
                    guard i < end, s[i] == UInt8(ascii: ":") else { return .failure(JSONScanError(offset: i, reason: "expected ':'")) }
                    i = skipSpace(s, i + 1, end)
                    guard i < end else { return .failure(JSONScanError(offset: i, reason: "expected a value")) }
                } else if depth > 0 && c == UInt8(ascii: "]") {
                    // `[]` or a trailing comma `[1,]`.
                    if afterComma && !allowTrailingCommas { return .failure(JSONScanError(offset: i, reason: "trailing comma")) }
                    depth -= 1
                    i += 1
                    expectValue = false
                    if depth == 0 { return .success(i) }
                    continue
                }
                let v = s[i]
                switch v {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    if topDepth + depth + 1 > maxDepth {
                        return .failure(JSONScanError(offset: i, reason: "nesting deeper than 512"))
                    }
                    push(v == UInt8(ascii: "["))
                    i += 1
                    afterComma = false
                    continue
                case UInt8(ascii: "\""):
                    var esc = false
                    switch scanString(s, i, end, &esc) {
                    case .failure(let e): return .failure(e)
                    case .success(let n): i = n
                    }
                case UInt8(ascii: "t"):
                    guard literal(s, i, end, "true") else { return .failure(JSONScanError(offset: i, reason: "invalid literal")) }
                    i += 4
                case UInt8(ascii: "f"):
                    guard literal(s, i, end, "false") else { return .failure(JSONScanError(offset: i, reason: "invalid literal")) }
                    i += 5
                case UInt8(ascii: "n"):
                    guard literal(s, i, end, "null") else { return .failure(JSONScanError(offset: i, reason: "invalid literal")) }
                    i += 4
                default:
                    switch number(s, i, end) {
                    case .failure(let e): return .failure(e)
                    case .success(let n): i = n
                    }
                }
                if depth == 0 { return .success(i) }
                expectValue = false
                continue
            }
            // After a value inside a container: `,` or the closer.
            if c == UInt8(ascii: ",") {
                i += 1
                expectValue = true
                afterComma = true
                continue
            }
            if c == (topIsArray() ? UInt8(ascii: "]") : UInt8(ascii: "}")) {
                depth -= 1
                i += 1
                if depth == 0 { return .success(i) }
                continue
            }
            return .failure(JSONScanError(offset: i, reason: "expected ',' or a closing bracket"))
        }
    }

    @inline(__always)
    static func literal(_ s: UnsafeRawBufferPointer, _ i: Int, _ end: Int, _ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard i + n <= end else { return false }
        let p = word.utf8Start
        for k in 0..<n where s[i + k] != p[k] { return false }
        return true
    }

    /// RFC 8259 number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func number(_ s: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Result<Int, JSONScanError> {
        var i = start
        @inline(__always) func isDigit(_ k: Int) -> Bool { k < end && s[k] >= 0x30 && s[k] <= 0x39 }
        if i < end && s[i] == UInt8(ascii: "-") { i += 1 }
        guard isDigit(i) else { return .failure(JSONScanError(offset: i, reason: "invalid value")) }
        if s[i] == UInt8(ascii: "0") {
            i += 1
            if isDigit(i) { return .failure(JSONScanError(offset: i, reason: "number with a leading zero")) }
        } else {
            while isDigit(i) { i += 1 }
        }
        if i < end && s[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else { return .failure(JSONScanError(offset: i, reason: "invalid number")) }
            while isDigit(i) { i += 1 }
        }
        if i < end && (s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E")) {
            i += 1
            if i < end && (s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-")) { i += 1 }
            guard isDigit(i) else { return .failure(JSONScanError(offset: i, reason: "invalid number")) }
            while isDigit(i) { i += 1 }
        }
        return .success(i)
    }

    /// Whether the raw (maybe escaped) key content equals `wanted`.
    @inline(__always)
    static func keyEquals(_ raw: UnsafeRawBufferPointer, escaped: Bool, _ wanted: UnsafeRawBufferPointer) -> Bool {
        if !escaped {
            let n = raw.count
            guard n == wanted.count else { return false }
            if n >= 4 && n <= 8 {
                // Two overlapping 4-byte words cover 4 to 8 bytes.
                return raw.loadUnaligned(as: UInt32.self) == wanted.loadUnaligned(as: UInt32.self)
                    && raw.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
                        == wanted.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            }
            for k in 0..<n where raw[k] != wanted[k] { return false }
            return true
        }
        // Rare: decode escapes one unit at a time and compare as we go.
        var matched = 0
        var mismatch = false
        _JSONUnescape.forEachByte(raw) { byte in
            if matched < wanted.count && wanted[matched] == byte { matched += 1 } else { mismatch = true }
        }
        return !mismatch && matched == wanted.count
    }
}

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

@inline(__always)
func _encodeUTF8(_ scalar: UInt32, _ body: (UInt8) -> Void) {
    switch scalar {
    case 0..<0x80:
        body(UInt8(scalar))
    case 0x80..<0x800:
        body(UInt8(0xC0 | (scalar >> 6)))
        body(UInt8(0x80 | (scalar & 0x3F)))
    case 0x800..<0x10000:
        body(UInt8(0xE0 | (scalar >> 12)))
        body(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
        body(UInt8(0x80 | (scalar & 0x3F)))
    default:
        body(UInt8(0xF0 | (scalar >> 18)))
        body(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
        body(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
        body(UInt8(0x80 | (scalar & 0x3F)))
    }
}
