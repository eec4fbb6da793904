// MARK: Internal API
//
// The JSON scanner's values other than strings: numbers, literals and containers, skipped and validated
// (split from _JSONScanner.swift to keep files short; the same rules and bounds checks: every index is
// compared against `end` before it is read).

extension _JSONScanner {
    /// Skips one non-string value (number, literal, object, array) starting at `i`, validating it.
    /// Containers are walked iteratively with a bit stack (`_ContainerStack`), so depth costs no recursion:
    /// each step reads the next token after spaces, where a value is expected or after one.
    static func skipValue(
        _ s: UnsafeRawBufferPointer, _ start: Int, _ end: Int, depth topDepth: Int, allowTrailingCommas: Bool = true
    ) -> Result<Int, JSONScanError> {
        var walk = _ValueWalk(at: start, topDepth: topDepth, allowTrailingCommas: allowTrailingCommas)
        while true {
            walk.i = skipSpace(s, walk.i, end)
            guard walk.i < end else { return .failure(JSONScanError(offset: walk.i, reason: "unterminated value")) }
            switch walk.expectValue ? walk.valueStep(s, end) : walk.separatorStep(s[walk.i]) {
            case .more: continue
            case .done: return .success(walk.i)
            case .failed(let e): return .failure(e)
            }
        }
    }

    /// From the quote at `i` (the caller checked it): an object member's key string, `:` and the spaces
    /// around it. `i` ends at the value, `keyEnd` after the key's closing quote; `escaped` says whether the
    /// key has escapes.
    @inline(__always)
    static func skipKey(
        _ s: UnsafeRawBufferPointer, _ i: inout Int, _ end: Int, keyEnd: inout Int, escaped: inout Bool
    ) -> JSONScanError? {
        switch scanString(s, i, end, &escaped) {
        case .failure(let e): return e
        case .success(let next): i = next
        }
        keyEnd = i
        i = skipSpace(s, i, end)
        guard i < end, s[i] == UInt8(ascii: ":") else { return JSONScanError(offset: i, reason: "expected ':'") }
        i = skipSpace(s, i + 1, end)
        guard i < end else { return JSONScanError(offset: i, reason: "expected a value") }
        return nil
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
            i = digitsEnd(s, i, end)
        }
        if i < end && s[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else { return .failure(JSONScanError(offset: i, reason: "invalid number")) }
            i = digitsEnd(s, i, end)
        }
        if i < end && (s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E")) {
            i += 1
            if i < end && (s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-")) { i += 1 }
            guard isDigit(i) else { return .failure(JSONScanError(offset: i, reason: "invalid number")) }
            i = digitsEnd(s, i, end)
        }
        return .success(i)
    }

    /// The index of the first byte at or after `i` that is not an ASCII digit, or `end`: 8 bytes at a time
    /// while 8 are left (a timestamp's 10 digits in two steps), then byte by byte.
    @inline(__always)
    static func digitsEnd(_ s: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Int {
        var i = start
        while end - i >= 8 {
            let w = UInt64(littleEndian: s.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let flags = _nonDigitMask(w)
            // The lowest flagged byte is exact (see `_nonDigitMask`); it is < 8 bytes on.
            if flags != 0 { return i &+ (flags.trailingZeroBitCount &>> 3) }
            i &+= 8
        }
        while i < end && s[i] >= UInt8(ascii: "0") && s[i] <= UInt8(ascii: "9") { i += 1 }
        return i
    }
}

/// A mask with the top bit of each byte of `w` (little-endian: byte 0 is the lowest) set where the byte may not
/// be an ASCII digit. A byte b is a digit when its high nibble is 3 and so is that of b + 6 (0x30…0x39 give
/// 0x36…0x3F; 0x3A…0x3F give 0x40…0x45). The lowest flagged byte is exact: the `+ 6` carries into the next
/// byte only from a byte of 0xFA and above, itself flagged; the shifts move bits 4…7 of a byte by at most 3,
/// so only that byte's bits reach its top bit.
@inline(__always)
func _nonDigitMask(_ w: UInt64) -> UInt64 {
    let highNibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
    let threes: UInt64 = 0x3030_3030_3030_3030
    let nd = ((w & highNibbles) ^ threes) | (((w &+ 0x0606_0606_0606_0606) & highNibbles) ^ threes)
    return (nd | nd &<< 1 | nd &<< 2 | nd &<< 3) & 0x8080_8080_8080_8080
}

/// `skipValue`'s position in a value and what it expects next. Each step starts at a byte that is not a
/// space, `s[i]` with `i < end`, and leaves `i` after what it consumed.
struct _ValueWalk {
    var i: Int
    var stack = _ContainerStack()
    /// A value is expected (the first of a container, where its closer may come instead, or one after a
    /// comma or a key); otherwise a comma or the closer.
    var expectValue = true
    /// The value expected follows a comma: a closer there is a trailing comma.
    var afterComma = false
    /// Containers open around the value (the top-level object: 1).
    let topDepth: Int
    let allowTrailingCommas: Bool

    enum Step {
        /// Go on from `i`.
        case more
        /// The value ends at `i`.
        case done
        case failed(JSONScanError)
    }

    @inline(__always)
    init(at start: Int, topDepth: Int, allowTrailingCommas: Bool) {
        i = start
        self.topDepth = topDepth
        self.allowTrailingCommas = allowTrailingCommas
    }

    /// Where a value is expected: the container's closer, or (in an object) a key and then the value.
    @inline(__always)
    mutating func valueStep(_ s: UnsafeRawBufferPointer, _ end: Int) -> Step {
        if stack.depth > 0 {
            let c = s[i]
            let isArray = stack.topIsArray
            if c == (isArray ? UInt8(ascii: "]") : UInt8(ascii: "}")) { return closeWithoutValue() }
            if !isArray {
                guard c == UInt8(ascii: "\"") else { return .failed(JSONScanError(offset: i, reason: "expected a key string")) }
                var keyEnd = 0
                var escaped = false
                if let e = _JSONScanner.skipKey(s, &i, end, keyEnd: &keyEnd, escaped: &escaped) { return .failed(e) }
            }
        }
        return element(s, end)
    }

    /// After a value inside a container: `,` or the container's closer.
    @inline(__always)
    mutating func separatorStep(_ c: UInt8) -> Step {
        if c == UInt8(ascii: ",") {
            i += 1
            expectValue = true
            afterComma = true
            return .more
        }
        if c == (stack.topIsArray ? UInt8(ascii: "]") : UInt8(ascii: "}")) { return close() }
        return .failed(JSONScanError(offset: i, reason: "expected ',' or a closing bracket"))
    }

    /// A value at `s[i]`: opens a container, or skips a string, a literal or a number.
    @inline(__always)
    private mutating func element(_ s: UnsafeRawBufferPointer, _ end: Int) -> Step {
        let v = s[i]
        switch v {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            if topDepth + stack.depth + 1 > _JSONScanner.maxDepth {
                return .failed(JSONScanError(offset: i, reason: "nesting deeper than 512"))
            }
            stack.push(isArray: v == UInt8(ascii: "["))
            i += 1
            afterComma = false
            return .more
        case UInt8(ascii: "\""):
            var esc = false
            switch _JSONScanner.scanString(s, i, end, &esc) {
            case .failure(let e): return .failed(e)
            case .success(let n): i = n
            }
        case UInt8(ascii: "t"):
            guard _JSONScanner.literal(s, i, end, "true") else { return .failed(JSONScanError(offset: i, reason: "invalid literal")) }
            i += 4
        case UInt8(ascii: "f"):
            guard _JSONScanner.literal(s, i, end, "false") else { return .failed(JSONScanError(offset: i, reason: "invalid literal")) }
            i += 5
        case UInt8(ascii: "n"):
            guard _JSONScanner.literal(s, i, end, "null") else { return .failed(JSONScanError(offset: i, reason: "invalid literal")) }
            i += 4
        default:
            switch _JSONScanner.number(s, i, end) {
            case .failure(let e): return .failed(e)
            case .success(let n): i = n
            }
        }
        if stack.depth == 0 { return .done }
        expectValue = false
        return .more
    }

    /// `]` or `}` where a value could come: an empty container, or (after a comma) Foundation's trailing
    /// comma (`[1,]`, `{"a":1,}`), refused without `allowTrailingCommas`.
    @inline(__always)
    private mutating func closeWithoutValue() -> Step {
        if afterComma && !allowTrailingCommas { return .failed(JSONScanError(offset: i, reason: "trailing comma")) }
        expectValue = false
        return close()
    }

    /// Closes the innermost container at `s[i]`.
    @inline(__always)
    private mutating func close() -> Step {
        stack.pop()
        i += 1
        return stack.depth == 0 ? .done : .more
    }
}

/// The containers open inside one value `skipValue` walks: a bit per level (1 = array) in eight words,
/// enough for `_JSONScanner.maxDepth`, so depth costs no recursion and no allocation.
struct _ContainerStack {
    private var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    /// Containers open; at most 512 (the caller refuses deeper nesting before pushing).
    private(set) var depth = 0

    @inline(__always)
    mutating func push(isArray: Bool) {
        let d = depth
        withUnsafeMutableBytes(of: &words) { raw in
            let bit = UInt64(1) << UInt64(d & 63)
            let word = raw.load(fromByteOffset: (d >> 6) * 8, as: UInt64.self)
            raw.storeBytes(of: isArray ? word | bit : word & ~bit, toByteOffset: (d >> 6) * 8, as: UInt64.self)
        }
        depth += 1
    }

    @inline(__always)
    mutating func pop() { depth -= 1 }

    /// Whether the innermost open container is an array.
    /// - Precondition: `depth > 0`.
    @inline(__always)
    var topIsArray: Bool {
        let d = depth - 1
        return withUnsafeBytes(of: words) { raw in
            raw.load(fromByteOffset: (d >> 6) * 8, as: UInt64.self) & (UInt64(1) << UInt64(d & 63)) != 0
        }
    }
}
