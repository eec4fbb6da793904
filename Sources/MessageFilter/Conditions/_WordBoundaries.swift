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
    /// Not inside a longer word of a spaced script (every other phrase with a letter of a spaced script at an
    /// end, by default; the classifier checks, `_isWordEdgeMatch`).
    case wordEdges
}

/// Whether a scalar is a letter or mark of a script written with spaces between words (Latin, Greek,
/// Cyrillic, Armenian, Hebrew, Arabic, Devanagari and the other Indic scripts, Sinhala, Georgian, Ethiopic):
/// the scripts where a phrase inside a longer word is another word (`sale` in "sales", `जमा` in "जमानत").
/// Not Thai, Lao, Khmer, Myanmar, Tibetan, Chinese or Japanese (no spaces between words) nor Hangul (Korean
/// writes particles onto the word: `인증번호를`). Digits are not letters (`call 09` matches "call 0906…").
@inline(__always)
func _isSpacedLetter(_ v: UInt32, _ flags: _ScalarFlags) -> Bool {
    if v < 0x80 { return (v | 0x20) &- 0x61 < 26 }
    guard flags.isWord(v) else { return false }
    switch Script.of(letter: v) {
    case .latin, .greek, .cyrillic, .armenian, .hebrew, .arabic, .devanagari, .bengali, .gurmukhi, .gujarati, .oriya,
         .tamil, .telugu, .kannada, .malayalam, .sinhala, .georgian, .ethiopic:
        // Digits of these scripts (٠–٩, ۰–۹, ०–९ and the other Indic digits at xx66–xx6F) are numbers.
        if (0x0660...0x0669).contains(v) || (0x06F0...0x06F9).contains(v) { return false }
        return !((0x0966...0x0DEF).contains(v) && (v & 0x7F) &- 0x66 < 10)
    default:
        return false
    }
}

/// The scalar at byte `i` of `body` (ASCII included; 0xFFFD for bytes that are not one).
@inline(__always)
func _scalarAt(_ body: UnsafeRawBufferPointer, _ i: Int) -> UInt32 {
    let b = body[i]
    if b < 0x80 { return UInt32(b) }
    let (v, len) = _decodeUTF8(body, i)
    return len == 0 ? 0xFFFD : v
}

/// The scalar that ends just before byte `i` of `body` (i > 0), walking back over continuation bytes.
@inline(__always)
func _scalarBefore(_ body: UnsafeRawBufferPointer, _ i: Int) -> UInt32 {
    let b = body[i - 1]
    if b < 0x80 { return UInt32(b) }
    var k = i - 1
    while k > 0, i - k < 4, body[k] & 0xC0 == 0x80 { k -= 1 }
    let (v, len) = _decodeUTF8(body, k)
    return len == i - k ? v : 0xFFFD
}

/// Whether the match `body[s..<e]` is not inside a longer word of a spaced script: at each end where the match
/// has a letter of a spaced script (`_isSpacedLetter`), the character beyond is not one, except where the text
/// changes from a lower-case to an upper-case ASCII letter (`ShopeePayOTP`). Ends that are digits, spaces,
/// punctuation or letters of unspaced scripts are not looked at. So `sale` is not found in "sales" nor
/// "wholesale", `your order` not in "your orders", `call 09` is in "call 09061…", `otp hai` in "OTP hai".
@inline(__always)
func _isWordEdgeMatch(_ body: UnsafeRawBufferPointer, _ s: Int, _ e: Int) -> Bool {
    guard e > s else { return true }
    // Each end: the character inside the match and the one beyond it; two ASCII bytes (most ends) are judged
    // without the scalar tables.
    if s > 0 {
        let before = body[s - 1]
        let first = body[s]
        if before | first < 0x80 {
            if _asciiLettersJoin(before, first) { return false }
        } else if _spacedLettersJoin(_scalarBefore(body, s), _scalarAt(body, s)) {
            return false
        }
    }
    if e < body.count {
        let last = body[e - 1]
        let after = body[e]
        if last | after < 0x80 {
            if _asciiLettersJoin(last, after) { return false }
        } else if _spacedLettersJoin(_scalarBefore(body, e), _scalarAt(body, e)) {
            return false
        }
    }
    return true
}

/// Whether the characters `left` and `right`, side by side, are one word for `_isWordEdgeMatch`: both letters of
/// a spaced script, and not a lower-case ASCII letter followed by an upper-case one.
@inline(__always)
func _spacedLettersJoin(_ left: UInt32, _ right: UInt32) -> Bool {
    let flags = _ScalarFlags.shared
    return _isSpacedLetter(left, flags) && _isSpacedLetter(right, flags) && !(left &- 0x61 < 26 && right &- 0x41 < 26)
}

/// `_spacedLettersJoin` of two ASCII characters.
@inline(__always)
func _asciiLettersJoin(_ left: UInt8, _ right: UInt8) -> Bool {
    (left | 0x20) &- 0x61 < 26 && (right | 0x20) &- 0x61 < 26 && !(left &- 0x61 < 26 && right &- 0x41 < 26)
}

/// Whether a match of a phrase with edge check `kind` (`_WordBoundary` raw value: `latinWord` or `wordEdges`)
/// holds at `body[s..<e]`.
@inline(__always)
func _edgesHold(_ kind: UInt8, _ body: UnsafeRawBufferPointer, _ s: Int, _ e: Int) -> Bool {
    kind == _WordBoundary.latinWord.rawValue ? _isLatinWordMatch(body, s, e) : _isWordEdgeMatch(body, s, e)
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
