/// One phone number found in a body.
struct _PhoneItem: Equatable {
    /// The span, from the `+` or first digit (or `(`) to the last digit (or `)`).
    var start: Int
    var end: Int
    /// How many digits it has.
    var digits: Int
}

/// Finds phone numbers in a body, left to right, without allocating (docs/RULES.md §2.1 "Phone numbers").
///
/// A *candidate* is an optional `+`, then digit groups: runs of digits or `(digits)`, joined by one
/// space, `-` or `.` (nothing is needed next to a parenthesis: `(408)555-0001`). It starts at a `+`,
/// `(` or digit not preceded by an ASCII letter or digit or any of `+ - . , / _ # @ & = %`, and takes as
/// many groups as it can. It is a phone number when it has 8 to 15 digits and
///
/// - is not followed by `,` and a digit (a number with thousands separators);
/// - when no `+` and no parenthesis is in it and all its separators are the same `.` or `-`: it is not
///   two groups joined by `.` (a decimal), not two groups of at most four digits (a range: `1000-2000`),
///   not a date (three groups of 1–2, 1–2 and 2–4 digits, or 4,
///   1–2 and 1–2), and not four groups of 1–3 digits joined by `.` (an IPv4 address);
/// - no currency marker stands right before it (an optional space between) or right after it (an amount:
///   `Rs 98765432`).
///
/// Either way the scan goes on after the candidate.
struct _PhoneScanner {
    let body: UnsafeRawBufferPointer
    var position = 0

    init(_ body: UnsafeRawBufferPointer) { self.body = body }

    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
    @inline(__always) static func isAlnum(_ b: UInt8) -> Bool { b &- 0x30 < 10 || (b | 0x20) &- 0x61 < 26 }

    @inline(__always) func canStart(_ p: Int) -> Bool {
        let b = body[p]
        let n = body.count
        if b == 0x2B || b == 0x28 {  // "+" or "(" followed by a digit (or "+(")
            guard p + 1 < n else { return false }
            let c = body[p + 1]
            guard Self.isDigit(c) || (b == 0x2B && c == 0x28 && p + 2 < n && Self.isDigit(body[p + 2])) else { return false }
        } else if !Self.isDigit(b) {
            return false
        }
        if p == 0 { return true }
        switch body[p - 1] {
        case 0x2B, 0x2D, 0x2E, 0x2C, 0x2F, 0x5F, 0x23, 0x40, 0x26, 0x3D, 0x25: return false
        case let c: return !Self.isAlnum(c)
        }
    }

    /// A digit group at `i` (digits, or `(digits)`): its end and digit count, or nil.
    @inline(__always) func group(at i: Int) -> (end: Int, digits: Int, paren: Bool)? {
        let n = body.count
        guard i < n else { return nil }
        if body[i] == 0x28 {
            var j = i + 1
            while j < n, Self.isDigit(body[j]) { j += 1 }
            guard j > i + 1, j < n, body[j] == 0x29 else { return nil }
            return (j + 1, j - i - 1, true)
        }
        var j = i
        while j < n, Self.isDigit(body[j]) { j += 1 }
        return j > i ? (j, j - i, false) : nil
    }

    /// The next phone number, or nil at the end of the body.
    mutating func next() -> _PhoneItem? {
        let n = body.count
        while position < n {
            let p = position
            guard canStart(p) else {
                position = p + 1
                continue
            }
            var i = p
            let plus = body[i] == 0x2B
            if plus { i += 1 }
            guard let first = group(at: i) else {
                position = p + 1
                continue
            }
            // Shape bookkeeping for the decimal, date and address tests.
            var digits = first.digits
            var groups = 1
            var singles = first.digits == 1 ? 1 : 0
            var paren = first.paren
            var separators: UInt8 = 0  // bits: 1 space, 2 "-", 4 "."
            var lengths: (Int, Int, Int, Int) = (first.digits, 0, 0, 0)
            i = first.end
            while i < n {
                var j = i
                let b = body[i]
                var bit: UInt8 = 0
                if b == 0x20 || b == 0x2D || b == 0x2E {
                    bit = b == 0x20 ? 1 : b == 0x2D ? 2 : 4
                    j += 1
                } else if !(b == 0x28 || body[i - 1] == 0x29) {
                    break  // only a parenthesis may join groups without a separator
                }
                guard let g = group(at: j) else { break }
                separators |= bit
                digits += g.digits
                groups += 1
                if g.digits == 1 { singles += 1 }
                paren = paren || g.paren
                switch groups {
                case 2: lengths.1 = g.digits
                case 3: lengths.2 = g.digits
                case 4: lengths.3 = g.digits
                default: break
                }
                i = g.end
            }
            position = i
            guard digits >= 8, digits <= 15, singles <= 1 else { continue }
            if i + 1 < n, body[i] == 0x2C, Self.isDigit(body[i + 1]) { continue }
            if !plus, !paren, separators == 2 || separators == 4 {
                let (a, b, c, d) = lengths
                if groups == 2, separators == 4 { continue }
                if groups == 2, a <= 4, b <= 4 { continue }
                if groups == 3, a <= 2, b <= 2, c >= 2, c <= 4 { continue }
                if groups == 3, a == 4, b <= 2, c <= 2 { continue }
                if groups == 4, separators == 4, a <= 3, b <= 3, c <= 3, d <= 3 { continue }
            }
            if _Currencies.prefixMarker(before: p, in: body, floor: 0) != nil { continue }
            if _Currencies.suffixMarker(after: i, in: body) != nil { continue }
            return _PhoneItem(start: p, end: i, digits: digits)
        }
        return nil
    }

    /// Whether the phone number `item` starts with `prefix` (a leading `+`, then digits), comparing its
    /// digits as written (separators and parentheses skipped).
    static func hasPrefix(_ item: _PhoneItem, _ prefix: [UInt8], in body: UnsafeRawBufferPointer) -> Bool {
        var i = item.start
        var k = 0
        if k < prefix.count, prefix[k] == 0x2B {
            guard body[i] == 0x2B else { return false }
            i += 1
            k += 1
        } else if body[i] == 0x2B {
            return false
        }
        while k < prefix.count {
            while i < item.end, !isDigit(body[i]) { i += 1 }
            guard i < item.end, body[i] == prefix[k] else { return false }
            i += 1
            k += 1
        }
        return true
    }
}
