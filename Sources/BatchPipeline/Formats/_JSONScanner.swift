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
    @inline(__always)
    init(_ kind: Kind, rawStart: Int, rawEnd: Int, escaped: Bool) {
        self.kind = kind
        self.rawStart = rawStart
        self.rawEnd = rawEnd
        self.escaped = escaped
    }
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
    /// `prefixes`, when given, holds each key's first 8 bytes as `_keyPrefix` packs them (`_KeyTable.prefixes`):
    /// a key of the line is then compared with one 8-byte load rather than byte by byte.
    ///
    /// - Precondition: `fields.count == keys.count`, and `prefixes` (when given) has one entry per key.
    @inline(__always)
    static func scan(
        _ line: UnsafeRawBufferPointer, keys: UnsafeBufferPointer<UnsafeRawBufferPointer>,
        prefixes: UnsafeBufferPointer<UInt64>? = nil,
        fields: UnsafeMutableBufferPointer<JSONField>, allowTrailingCommas: Bool = true
    ) -> JSONScanError? {
        precondition(fields.count == keys.count && (prefixes == nil || prefixes!.count >= keys.count))
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
            let slot = wantedSlot(line, keyRaw, escaped: escaped, keys, prefixes)
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
            } else if let next = plainValueEnd(line, i, end) {
                // `null`, `true`, `false` or a number: what `skipValue` would find, without its walk.
                i = next
                kind = (i - valueStart == 4 && c == UInt8(ascii: "n")) ? .null : .other
            } else {
                switch skipValue(line, i, end, depth: 1, allowTrailingCommas: allowTrailingCommas) {
                case .failure(let e): return e
                case .success(let next): i = next
                }
                kind = (i - valueStart == 4 && c == UInt8(ascii: "n")) ? .null : .other
            }
            if slot >= 0 { fields[slot] = JSONField(kind, rawStart: valueStart, rawEnd: i, escaped: valueEscaped) }
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

    /// The index of the wanted key `raw` (a key's content in `line`, `escaped` when it has escapes) in
    /// `keys`, or -1. With `prefixes` and 8 bytes readable from the key's start, one masked 8-byte load
    /// compares it with every wanted key's first 8 bytes (the rest, for keys longer than 8, by `keyEquals`).
    @inline(__always)
    static func wantedSlot(
        _ line: UnsafeRawBufferPointer, _ raw: UnsafeRawBufferPointer, escaped: Bool,
        _ keys: UnsafeBufferPointer<UnsafeRawBufferPointer>, _ prefixes: UnsafeBufferPointer<UInt64>?
    ) -> Int {
        let n = raw.count
        if !escaped, let prefixes, let base = line.baseAddress, let at = raw.baseAddress, at - base + 8 <= line.count {
            // `raw` lies in `line`: the word is read through `line`, within its bounds.
            let w = UInt64(littleEndian: line.loadUnaligned(fromByteOffset: at - base, as: UInt64.self))
            // n < 8: keep the key's n bytes (the shift is < 64); the bytes after it are the quote and beyond.
            let masked = n >= 8 ? w : w & ((1 &<< UInt64(n &* 8)) &- 1)
            for k in 0..<keys.count where prefixes[k] == masked && keys[k].count == n {
                if n <= 8 || keyEquals(raw, escaped: false, keys[k]) { return k }
            }
            return -1
        }
        return wantedSlotByBytes(raw, escaped: escaped, keys)
    }

    /// `wantedSlot` byte by byte: an escaped key, no prefixes, or a key within 8 bytes of the line's end.
    @inline(never)
    static func wantedSlotByBytes(_ raw: UnsafeRawBufferPointer, escaped: Bool, _ keys: UnsafeBufferPointer<UnsafeRawBufferPointer>) -> Int {
        // A length that differs rules a key out without a call (an escaped key may be longer than it reads).
        for k in 0..<keys.count where (escaped || keys[k].count == raw.count) && keyEquals(raw, escaped: escaped, keys[k]) {
            return k
        }
        return -1
    }

    /// The end of `null`, `true`, `false` or a number starting at `i` when it is one (a number as `number`
    /// finds it, valid or not), or nil for anything else (a container, or bytes that are no value): the
    /// top-level values `skipValue` would take in one step, without its container walk.
    @inline(__always)
    static func plainValueEnd(_ s: UnsafeRawBufferPointer, _ i: Int, _ end: Int) -> Int? {
        let c = s[i]
        if c == UInt8(ascii: "-") || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) {
            guard case .success(let next) = number(s, i, end) else { return nil }
            return next
        }
        guard end - i >= 4 else { return nil }
        let w = UInt32(littleEndian: s.loadUnaligned(fromByteOffset: i, as: UInt32.self))
        // "null", "true" and "fals" as little-endian words.
        if w == 0x6C6C_756E || w == 0x6575_7274 { return i + 4 }
        if w == 0x736C_6166 && end - i >= 5 && s[i + 4] == UInt8(ascii: "e") { return i + 5 }
        return nil
    }

    /// Scans a string starting at the quote at `i`; returns the index after its closing quote.
    /// Validates escapes (including surrogate pairs) and UTF-8.
    ///
    /// A string of ASCII without escapes that ends within its first 24 bytes (keys, ids, short values) is
    /// found here, 8 bytes at a time (`_structuralMask`), or byte by byte in the last 8 bytes of the line;
    /// any other goes on in `scanStringRest`.
    @inline(__always)
    static func scanString(
        _ s: UnsafeRawBufferPointer, _ start: Int, _ end: Int, _ escaped: inout Bool
    ) -> Result<Int, JSONScanError> {
        var i = start + 1
        var highBits: UInt64 = 0
        if end - i < 8 {
            // Near the line's end (a last value such as `"zh"}`): byte by byte.
            var k = i
            while k < end {
                let c = s[k]
                if c == UInt8(ascii: "\"") { return .success(k &+ 1) }
                if c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { break }
                k &+= 1
            }
            return scanStringRest(s, start, i, end, 0, &escaped)
        }
        for _ in 0..<3 {
            guard end - i >= 8 else { break }
            let w = UInt64(littleEndian: s.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let mask = _structuralMask(w)
            if mask != 0 {
                // The lowest flagged byte is exact (see `_structuralMask`); k < 8, so the shift is < 64.
                let k = mask.trailingZeroBitCount &>> 3
                if s[i &+ k] == UInt8(ascii: "\""), w & ((1 &<< UInt64(k &* 8)) &- 1) & 0x8080_8080_8080_8080 == 0 {
                    return .success(i &+ k &+ 1)
                }
                break
            }
            highBits |= w
            // `end - i >= 8`: no overflow.
            i &+= 8
            if highBits & 0x8080_8080_8080_8080 != 0 { break }
        }
        return scanStringRest(s, start, i, end, highBits, &escaped)
    }

    /// `scanString` from `i` (inside the string that starts at the quote at `start`), `highBits` the OR of the
    /// bytes before `i`.
    static func scanStringRest(
        _ s: UnsafeRawBufferPointer, _ start: Int, _ from: Int, _ end: Int, _ highBits: UInt64, _ escaped: inout Bool
    ) -> Result<Int, JSONScanError> {
        var i = from
        var highBits = highBits
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
