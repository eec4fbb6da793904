// MARK: Internal API
//
// The JSON scanner's values other than strings: numbers, literals and containers, skipped and validated
// (split from _JSONScanner.swift to keep files short; the same rules and bounds checks: every index is
// compared against `end` before it is read).

extension _JSONScanner {
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
}
