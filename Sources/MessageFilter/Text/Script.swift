/// The writing system of a message, as a learned model records where it learned (``ModelDefinition/scripts``)
/// and decides whether it may speak about a message (docs/RULES.md §10).
///
/// A message's **main script** is the script of most of its letters after normalisation (a letter here is a
/// word character that is not a digit: letters and marks; `AhoCorasick.isWordScalar`), with two exceptions:
/// Han letters in a message that also holds Kana count as Kana (Japanese writes kanji among kana), and the
/// script is read from the words, not from links and addresses: the ASCII letters of a link-like run (a run
/// of printable ASCII holding `/`, `@`, or a `.` between two letters or digits: URLs, e-mail addresses, host
/// names) do not count while the message has letters of another script (so a long URL never turns a Japanese
/// message Latin; a message whose only words are links keeps their script). Digits are no letters. A message
/// with no letter at all (digits, symbols, emoji) has the main script ``none``. Ties go to the script listed
/// first. Scripts are told apart by Unicode block, which is exact for the scripts named here; letters of any
/// other script count as ``other``.
public enum Script: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case latin = 0, greek, cyrillic, armenian, hebrew, arabic, devanagari, bengali, gurmukhi, gujarati, oriya, tamil,
         telugu, kannada, malayalam, sinhala, thai, lao, tibetan, myanmar, georgian, hangul, ethiopic, khmer, kana, han,
         other, none

    /// The name used in rule files and by `explain` (`latin`, `han`, …).
    public var name: String { Self.names[Int(rawValue)] }
    /// The name for people (`Latin`, `Han`, …).
    public var description: String { name == "none" ? "letterless" : name.prefix(1).uppercased() + name.dropFirst() }

    static let names = ["latin", "greek", "cyrillic", "armenian", "hebrew", "arabic", "devanagari", "bengali", "gurmukhi",
                        "gujarati", "oriya", "tamil", "telugu", "kannada", "malayalam", "sinhala", "thai", "lao", "tibetan",
                        "myanmar", "georgian", "hangul", "ethiopic", "khmer", "kana", "han", "other", "none"]

    /// Parses a name written by ``name``.
    public init?(name: String) {
        guard let i = Self.names.firstIndex(of: name) else { return nil }
        self.init(rawValue: UInt8(i))
    }

    /// The script of a letter (a word character that is not an ASCII digit); nil for a scalar that is not a
    /// letter of any script (digits of every script count as no letter).
    /// - Complexity: O(1): a few range comparisons.
    @inline(__always)
    static func of(letter v: UInt32) -> Script {
        if v < 0x0250 { return .latin }  // Basic Latin … Latin Extended-B, IPA below
        switch v {
        case 0x0250...0x02FF, 0x1D00...0x1DBF, 0x1E00...0x1EFF, 0x2C60...0x2C7F, 0xA720...0xA7FF, 0xAB30...0xAB6F, 0xFF21...0xFF5A: return .latin
        case 0x0370...0x03FF, 0x1F00...0x1FFF: return .greek
        case 0x0400...0x052F, 0x1C80...0x1C8F, 0x2DE0...0x2DFF, 0xA640...0xA69F: return .cyrillic
        case 0x0530...0x058F: return .armenian
        case 0x0590...0x05FF, 0xFB1D...0xFB4F: return .hebrew
        case 0x0600...0x06FF, 0x0750...0x077F, 0x08A0...0x08FF, 0xFB50...0xFDFF, 0xFE70...0xFEFF: return .arabic
        case 0x0900...0x097F, 0xA8E0...0xA8FF: return .devanagari
        case 0x0980...0x09FF: return .bengali
        case 0x0A00...0x0A7F: return .gurmukhi
        case 0x0A80...0x0AFF: return .gujarati
        case 0x0B00...0x0B7F: return .oriya
        case 0x0B80...0x0BFF: return .tamil
        case 0x0C00...0x0C7F: return .telugu
        case 0x0C80...0x0CFF: return .kannada
        case 0x0D00...0x0D7F: return .malayalam
        case 0x0D80...0x0DFF: return .sinhala
        case 0x0E00...0x0E7F: return .thai
        case 0x0E80...0x0EFF: return .lao
        case 0x0F00...0x0FFF: return .tibetan
        case 0x1000...0x109F: return .myanmar
        case 0x10A0...0x10FF, 0x2D00...0x2D2F: return .georgian
        case 0x1100...0x11FF, 0x3130...0x318F, 0xA960...0xA97F, 0xAC00...0xD7FF, 0xFFA0...0xFFDC: return .hangul
        case 0x1200...0x139F, 0x2D80...0x2DDF: return .ethiopic
        case 0x1780...0x17FF, 0x19E0...0x19FF: return .khmer
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9F, 0x1B000...0x1B16F: return .kana
        case 0x2E80...0x2FDF, 0x3005...0x3007, 0x3021...0x3029, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF,
             0x20000...0x3134F: return .han
        default: return .other
        }
    }
}

/// Letters per script of one message: counts in caller-owned storage (``Script/allCases`` cells) and a mask
/// of the scripts seen, so resetting touches only what was counted.
struct _ScriptTally {
    let counts: UnsafeMutablePointer<UInt32>
    var mask: UInt32 = 0

    @inline(__always)
    mutating func add(_ s: Script) {
        counts[Int(s.rawValue)] &+= 1
        mask |= 1 << UInt32(s.rawValue)
    }

    /// `latin`, the ASCII letters of `text` counted apart from the tally, without those of its link-like runs
    /// (``Script``: URLs, e-mail addresses, host names) when that can matter: when the tally holds letters of
    /// another script and Latin would otherwise lead them. (Only then is `text` read again, so Latin or
    /// non-Latin text alone costs nothing more.)
    func latinOfWords(_ latin: UInt32, in text: UnsafeRawBufferPointer) -> UInt32 {
        guard latin > 0, mask & ~(1 << UInt32(Script.latin.rawValue)) != 0 else { return latin }
        let kana = Int(Script.kana.rawValue), han = Int(Script.han.rawValue), latinIndex = Int(Script.latin.rawValue)
        var best: UInt32 = 0
        var m = mask
        while m != 0 {
            let i = m.trailingZeroBitCount
            m &= m - 1
            if i == latinIndex { continue }
            var c = counts[i]
            if i == kana { c &+= counts[han] } else if i == han, counts[kana] > 0 { c = 0 }
            best = max(best, c)
        }
        guard latin &+ counts[latinIndex] >= best else { return latin }
        return latin &- min(latin, Self.linkLetters(text))
    }

    /// The ASCII letters of the link-like runs of `text`: maximal runs of printable ASCII (0x21–0x7E) that hold
    /// a `/` or an `@`, or a `.` with an ASCII letter or digit on both sides.
    static func linkLetters(_ text: UnsafeRawBufferPointer) -> UInt32 {
        var total: UInt32 = 0
        var letters: UInt32 = 0
        var link = false
        let n = text.count
        var i = 0
        while i < n {
            let b = text[i]
            if b >= 0x21, b <= 0x7E {
                if (b | 0x20) &- 0x61 < 26 {
                    letters &+= 1
                } else if b == 0x2F || b == 0x40 {
                    link = true
                } else if b == 0x2E, i > 0, i &+ 1 < n, Self.isAlnum(text[i &- 1]), Self.isAlnum(text[i &+ 1]) {
                    link = true
                }
            } else {
                if link { total &+= letters }
                letters = 0
                link = false
            }
            i &+= 1
        }
        if link { total &+= letters }
        return total
    }

    @inline(__always) static func isAlnum(_ b: UInt8) -> Bool { b &- 0x30 < 10 || (b | 0x20) &- 0x61 < 26 }

    /// The main script of the letters added since the tally was made, clearing the counts.
    mutating func finish() -> Script {
        guard mask != 0 else { return .none }
        let kana = Int(Script.kana.rawValue), han = Int(Script.han.rawValue)
        var best = Script.none
        var bestCount: UInt32 = 0
        var m = mask
        while m != 0 {
            let i = m.trailingZeroBitCount
            m &= m - 1
            var c = counts[i]
            if i == kana { c &+= counts[han] } else if i == han, counts[kana] > 0 { c = 0 }
            if c > bestCount {
                best = Script(rawValue: UInt8(i))!
                bestCount = c
            }
        }
        m = mask
        while m != 0 {
            counts[m.trailingZeroBitCount] = 0
            m &= m - 1
        }
        mask = 0
        return best
    }
}
