// Where matches may start and end: the Latin word test of short phrases and the anchor of `startsWith`.

/// How a phrase match must be delimited.
enum _WordBoundary: UInt8, Hashable {
    /// Anywhere (a substring).
    case none
    /// Not touching a letter, digit or combining mark of any script (`wholeWord: true`; the automaton checks).
    case word
    /// A word of its own in Latin text (short phrases by default; the classifier checks,
    /// `_isLatinWordMatch`).
    case latinWord
}

/// What a byte next to a match is, for `_isLatinWordMatch`.
enum _LatinClass { case other, digit, lower, upper, latinLetter }

@inline(__always)
func _latinClass(_ b: UInt8) -> _LatinClass {
    if b &- 0x30 < 10 { return .digit }
    if b &- 0x61 < 26 { return .lower }
    if b &- 0x41 < 26 { return .upper }
    return .other
}

/// Whether the match `body[s..<e]` (of a short ASCII phrase) is a word of its own in Latin text: on each
/// side the neighbouring character is not a Latin letter or digit (A–Z, a–z, 0–9, U+00C0–U+024F except ×
/// and ÷), or the text changes there between letters and digits, or from a lower-case to an upper-case
/// ASCII letter. So `otp` is found in `OTP:`, `รหัสOTPคือ`, `ShopeePayOTP` and `OTP123456` but not in
/// `hotpot`; `emi` not in `remind`, `upi` not in `stupid`, `10p` not in `10pm`.
@inline(__always)
func _isLatinWordMatch(_ body: UnsafeRawBufferPointer, _ s: Int, _ e: Int) -> Bool {
    guard e > s else { return true }
    if s > 0 {
        let b = body[s - 1]
        var before = _latinClass(b)
        if before == .other, b >= 0x80, b <= 0xBF, s >= 2, _isLatinLetter(body[s - 2], b) { before = .latinLetter }
        if before != .other {
            let first = _latinClass(body[s])
            let digits = (before == .digit) != (first == .digit)
            if !(digits || (before == .lower && first == .upper)) { return false }
        }
    }
    if e < body.count {
        let b = body[e]
        var after = _latinClass(b)
        if after == .other, e + 1 < body.count, _isLatinLetter(b, body[e + 1]) { after = .latinLetter }
        if after != .other {
            let last = _latinClass(body[e - 1])
            let digits = (after == .digit) != (last == .digit)
            if !(digits || (last == .lower && after == .upper)) { return false }
        }
    }
    return true
}

/// Whether the two bytes `lead`, `next` encode a letter of U+00C0–U+024F (Latin-1 letters, Latin
/// Extended-A and -B), not × (C3 97) or ÷ (C3 B7).
@inline(__always)
func _isLatinLetter(_ lead: UInt8, _ next: UInt8) -> Bool {
    guard next >= 0x80, next <= 0xBF else { return false }
    switch lead {
    case 0xC3: return next != 0x97 && next != 0xB7
    case 0xC4...0xC8: return true
    case 0xC9: return next <= 0x8F
    default: return false
    }
}

/// The offset of the first byte of `body` that is not blank (ASCII white space or a byte-order mark):
/// where a `startsWith` phrase must start.
@inline(__always)
func _anchorOffset(_ body: UnsafeRawBufferPointer) -> Int32 {
    var i = 0
    let n = body.count
    while i < n {
        let b = body[i]
        if b == 0x20 || (b >= 0x09 && b <= 0x0D) {
            i += 1
        } else if b == 0xEF, i + 2 < n, body[i + 1] == 0xBB, body[i + 2] == 0xBF {
            i += 3
        } else {
            break
        }
    }
    return Int32(truncatingIfNeeded: i)
}
