import TestSupport
import XCTest
@testable import MessageFilter

/// `_isWordEdgeMatch` judges an end of two ASCII bytes without the scalar tables: it must decide every match
/// as the rule says, which `reference` states scalar by scalar, on texts mixing ASCII, accented Latin, Cyrillic,
/// Devanagari with its digits, Arabic digits, Thai, Chinese, marks and broken UTF-8.
final class WordEdgeTests: XCTestCase {
    /// The characters a text is made of (several scalars, marks and a broken byte among them).
    static let pieces: [[UInt8]] = [
        "a", "z", "A", "Z", "m", "Q", "0", "9", " ", ".", "-", "_", "@", "é", "É", "ß", "д", "Ж", "ज", "मा",
        "०", "٣", "ก", "优", "\u{301}", "😀", "ٴ", "α", "Ω",
    ].map { Array($0.utf8) } + [[0xFF], [0x80]]

    /// Whether `v` is a letter or mark of a script written with spaces: for ASCII from the Unicode properties
    /// (the letters), beyond it the classifier's own test (`_isSpacedLetter`, which other tests hold).
    static func spacedLetter(_ v: UInt32) -> Bool {
        guard v < 0x80 else { return _isSpacedLetter(v, _ScalarFlags.shared) }
        return Unicode.Scalar(v)!.properties.isAlphabetic
    }

    /// The rule, scalar by scalar: at each end, the scalar inside and the one beyond (decoded from the text; a
    /// broken byte is U+FFFD) must not both be spaced letters, except a lower-case then an upper-case ASCII letter.
    static func reference(_ text: [UInt8], _ s: Int, _ e: Int) -> Bool {
        guard e > s else { return true }
        func scalar(from i: Int) -> UInt32 {
            let lead = text[i]
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            return decoded(i..<min(i + length, text.count))
        }
        func scalar(before i: Int) -> UInt32 {
            var k = i - 1
            while k > 0, i - k < 4, text[k] & 0xC0 == 0x80 { k -= 1 }
            return decoded(k..<i)
        }
        func decoded(_ r: Range<Int>) -> UInt32 {
            let s = String(decoding: text[r], as: UTF8.self).unicodeScalars
            return s.count == 1 ? s.first!.value : 0xFFFD
        }
        func join(_ l: UInt32, _ r: UInt32) -> Bool {
            spacedLetter(l) && spacedLetter(r) && !((0x61...0x7A).contains(l) && (0x41...0x5A).contains(r))
        }
        if s > 0, join(scalar(before: s), scalar(from: s)) { return false }
        if e < text.count, join(scalar(before: e), scalar(from: e)) { return false }
        return true
    }

    func testEveryEndIsJudgedAsTheRuleSays() {
        var rng = Fixtures.SeededGenerator(seed: 0xED6E)
        var judged = 0
        var refused = 0
        for _ in 0..<3_000 {
            var text: [UInt8] = []
            var bounds = [0]
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                text += Self.pieces.randomElement(using: &rng)!
                bounds.append(text.count)
            }
            // Matches start and end on character boundaries, as the automaton's do.
            for s in bounds {
                for e in bounds where e > s {
                    let expected = Self.reference(text, s, e)
                    let got = text.withUnsafeBytes { _isWordEdgeMatch($0, s, e) }
                    XCTAssertEqual(got, expected, "\(text) \(s)..<\(e)")
                    judged += 1
                    if !expected { refused += 1 }
                }
            }
        }
        XCTAssertGreaterThan(refused, judged / 10)
        XCTAssertGreaterThan(judged - refused, judged / 10)
    }
}
