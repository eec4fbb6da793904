/// One amount of money found in a body.
struct _AmountItem: Equatable {
    /// The span: currency marker, number and multiplier (prefix form) or number, multiplier and marker.
    var start: Int
    var end: Int
    /// The value, multiplier applied (`Rs 2,500.50` → 2500.5, `5 lakh rupees` → 500000).
    var value: Double
    /// The currencies the marker stands for (`_Currencies.codes` bits; `¥` is CNY and JPY).
    var mask: UInt64
}

/// Finds amounts of money in a body, left to right, without allocating (docs/RULES.md §2.1 "Amounts").
///
/// A *number* is `\d+([,.]\d+)*` starting where no digit (nor a digit and a `.` or `,`) stands before it.
/// Its value: when it has a separator and its last group has one or two digits, that group is the
/// decimal part (`2,500.50`, `12,5`); every other separator groups thousands (`1,00,000`, `50.000`). An
/// amount is
///
/// - **prefix form**: a currency marker (`_Currencies.markers`: `$`, `£`, `Rs`, `Rs.`, `INR`, `Rp`, `฿`,
///   …), an optional space, a number, an optional multiplier; or
/// - **suffix form**: a number not preceded by an ASCII letter, digit, `.` or `,`, an optional
///   multiplier, an optional space, a currency marker (`€`, `USD`, `baht`, `บาท`, `元`, `rupees`, …);
///
/// a marker made of ASCII letters may not touch another ASCII letter on its outer side (`Mrs 500` is not
/// rupees). Multipliers: `k`, `m` (attached: `5k`), `万`, `亿`, `千` (attached), `thousand`, `lakh(s)`,
/// `lac(s)`, `crore(s)`, `million`, `billion`, `mn`, `bn` (attached or after one space). An amount never
/// reuses bytes of the amount before it.
struct _AmountScanner {
    let body: UnsafeRawBufferPointer
    var position = 0
    var lastEnd = 0

    init(_ body: UnsafeRawBufferPointer) { self.body = body }

    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

    /// Whether a number token starts at `q` (a digit with no digit, nor digit + `.`/`,`, before it).
    @inline(__always) func isNumberStart(_ q: Int) -> Bool {
        guard Self.isDigit(body[q]) else { return false }
        if q == 0 { return true }
        let b = body[q - 1]
        if Self.isDigit(b) { return false }
        if (b == 0x2E || b == 0x2C), q >= 2, Self.isDigit(body[q - 2]) { return false }
        return true
    }

    /// The offset of the first ASCII digit at or after `from` (`body.count` when there is none), eight bytes
    /// at a time: a byte is a digit when it XOR 0x30 is less than 10 (the classic has-less-than test).
    @inline(__always)
    static func nextDigit(_ body: UnsafeRawBufferPointer, from: Int) -> Int {
        var i = from
        let n = body.count
        while i + 8 <= n {
            let x = UInt64(littleEndian: body.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ 0x3030_3030_3030_3030
            let found = (x &- 0x0A0A_0A0A_0A0A_0A0A) & ~x & 0x8080_8080_8080_8080
            // A borrow can flag a byte above a real digit, never below: the lowest flag is exact.
            if found != 0 { return i + (found.trailingZeroBitCount >> 3) }
            i += 8
        }
        while i < n, !isDigit(body[i]) { i += 1 }
        return i
    }

    /// The end of the number token at `q`.
    func numberEnd(from q: Int) -> Int {
        let n = body.count
        var i = q
        while i < n, Self.isDigit(body[i]) { i += 1 }
        while i + 1 < n, body[i] == 0x2E || body[i] == 0x2C, Self.isDigit(body[i + 1]) {
            i += 1
            while i < n, Self.isDigit(body[i]) { i += 1 }
        }
        return i
    }

    /// The value of the number `body[q..<e]` (see the type's documentation).
    func value(_ q: Int, _ e: Int) -> Double {
        // Find the last separator and the length of the group after it.
        var lastSep = -1
        var i = q
        while i < e {
            if !Self.isDigit(body[i]) { lastSep = i }
            i += 1
        }
        let decimalDigits = lastSep >= 0 ? e - lastSep - 1 : 0
        let intEnd = lastSep >= 0 && decimalDigits <= 2 ? lastSep : e
        var whole = 0.0
        i = q
        while i < intEnd {
            let b = body[i]
            if Self.isDigit(b) { whole = whole * 10 + Double(b &- 0x30) }
            i += 1
        }
        guard intEnd < e else { return whole }
        var fraction = 0.0
        var scale = 1.0
        i = intEnd + 1
        while i < e {
            scale /= 10
            fraction += Double(body[i] &- 0x30) * scale
            i += 1
        }
        return whole + fraction
    }

    /// The multiplier at `e` (the number's end), or after one space for the non-attached ones: its factor
    /// and end. The first in list order wins (longest first).
    func multiplier(at e: Int) -> (factor: Double, end: Int)? {
        guard e < body.count else { return nil }
        let x = _Currencies.multiplierIndex
        // Only one of the two places can hold a multiplier: none starts with a space.
        var s = e
        if body[e] == 0x20 {
            s = e + 1
            guard s < body.count else { return nil }
        }
        // After a space, the attached multipliers (`flagA`: `k`, `万`) do not count.
        guard let (m, end) = x.first(startingAt: s, in: body, skip: { s != e && x.flagA[$0] }) else { return nil }
        return (Double(bitPattern: x.value[m]), end)
    }

    /// The next amount, or nil at the end of the body.
    mutating func next() -> _AmountItem? {
        let n = body.count
        while position < n {
            position = Self.nextDigit(body, from: position)
            guard position < n else { return nil }
            let q = position
            guard isNumberStart(q) else {
                position = q + 1
                continue
            }
            let e = numberEnd(from: q)
            position = e
            if let marker = _Currencies.prefixMarker(before: q, in: body, floor: lastEnd) {
                var v = value(q, e)
                var end = e
                if let m = multiplier(at: e) {
                    v *= m.factor
                    end = m.end
                }
                lastEnd = end
                position = end
                return _AmountItem(start: marker.start, end: end, value: v, mask: marker.mask)
            }
            if q > 0 {
                let b = body[q - 1]
                if _Currencies.isLetter(b) || b == 0x2E || b == 0x2C { continue }
            }
            let m = multiplier(at: e)
            if let marker = _Currencies.suffixMarker(after: m?.end ?? e, in: body) {
                lastEnd = marker.end
                position = marker.end
                return _AmountItem(start: q, end: marker.end, value: value(q, e) * (m?.factor ?? 1), mask: marker.mask)
            }
        }
        return nil
    }
}
