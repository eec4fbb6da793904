import AhoCorasick
import TestSupport
import XCTest

/// Every ASCII letter and digit, one by one, against folded and whole-word patterns, with the expected
/// matches written here (not computed by an oracle), for every engine in `EngineUnderTest.allCases` and
/// every match kind. A folding or word table that forgets one letter fails here by name.
final class AlphabetTests: XCTestCase {
    static let kinds: [MatchKind] = [.standard, .leftmostFirst, .leftmostLongest]
    /// The 26 letter pairs and 10 digits, spelled out (independent of the code under test and of the oracle).
    static let upper = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    static let lower = Array("abcdefghijklmnopqrstuvwxyz")
    static let digits = Array("0123456789")
    /// Printable ASCII that is not a word character.
    static let nonWordASCII = Array(" !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

    func build(_ patterns: [Pattern], _ kind: MatchKind, _ folding: CaseFolding, _ engine: EngineUnderTest, wholeWord: Bool = false)
        throws -> AhoCorasick
    {
        var builder = AhoCorasickBuilder()
        builder.matchKind = kind
        builder.caseFolding = folding
        builder.wholeWord = wholeWord
        return try engine.build(builder, patterns)
    }

    /// Each letter, lowercase in the pattern and uppercase in the haystack (and the other way round), inside
    /// a word and alone: found with `.ascii` and `.unicode` folding, not found without folding.
    func testEveryLetterFoldsBothWays() throws {
        for engine in EngineUnderTest.allCases {
            for kind in Self.kinds {
                for (u, l) in zip(Self.upper, Self.lower) {
                    let lowerWord = "pr\(l)ze"  // "prize" with the letter in the middle
                    let upperWord = "PR\(u)ZE"
                    for folding in [CaseFolding.ascii, .unicode] {
                        let ac = try build([Pattern(lowerWord)], kind, folding, engine)
                        let context = "\(engine) \(kind) \(folding) letter \(u)/\(l)"
                        // The pattern alone: one match over the whole upper-case haystack.
                        let single = try build([Pattern(String(l))], kind, folding, engine)
                        XCTAssertEqual(single.matches(in: String(u)), [Match(pattern: 0, start: 0, end: 1)], context)
                        XCTAssertEqual(single.matches(in: String(l)), [Match(pattern: 0, start: 0, end: 1)], context)
                        let upperPattern = try build([Pattern(String(u))], kind, folding, engine)
                        XCTAssertEqual(upperPattern.matches(in: String(l)), [Match(pattern: 0, start: 0, end: 1)], context)
                        // Inside a word: "YOU WON A PRIZE" finds prize at 10..<15.
                        XCTAssertEqual(ac.matches(in: "YOU WON A \(upperWord)!"), [Match(pattern: 0, start: 10, end: 15)], context)
                        let reversed = try build([Pattern(upperWord)], kind, folding, engine)
                        XCTAssertEqual(reversed.matches(in: "you won a \(lowerWord)!"), [Match(pattern: 0, start: 10, end: 15)], context)
                    }
                    let none = try build([Pattern(String(l))], kind, .none, engine)
                    XCTAssertEqual(none.matches(in: String(u)), [], "\(engine) \(kind) none \(u)")
                    XCTAssertEqual(none.matches(in: String(l)), [Match(pattern: 0, start: 0, end: 1)], "\(engine) \(kind) none \(l)")
                }
                // Digits and non-letters have no case: folding changes nothing for them.
                for c in Self.digits + Self.nonWordASCII {
                    for folding in [CaseFolding.none, .ascii, .unicode] {
                        let ac = try build([Pattern(String(c))], kind, folding, engine)
                        XCTAssertEqual(ac.matches(in: "\(c)"), [Match(pattern: 0, start: 0, end: 1)], "\(engine) \(kind) \(folding) \(c)")
                    }
                }
                // '@' (0x40), '[' (0x5B), '`' (0x60), '{' (0x7B) sit next to the letters: they fold to nothing.
                for (a, b) in [("@", "`"), ("[", "{"), ("\\", "|"), ("]", "}"), ("^", "~")] {
                    for folding in [CaseFolding.ascii, .unicode] {
                        let ac = try build([Pattern(a)], kind, folding, engine)
                        XCTAssertEqual(ac.matches(in: b), [], "\(engine) \(kind) \(folding): \(a) must not equal \(b)")
                    }
                }
            }
        }
    }

    /// Each letter and digit touching a whole-word pattern on either side rejects the match; each
    /// non-word ASCII character accepts it.
    func testEveryLetterAndDigitIsAWordCharacter() throws {
        for engine in EngineUnderTest.allCases {
            for kind in Self.kinds {
                for folding in [CaseFolding.none, .ascii, .unicode] {
                    let ac = try build([Pattern("sale", wholeWord: true)], kind, folding, engine)
                    let global = try build([Pattern("sale")], kind, folding, engine, wholeWord: true)
                    let context = "\(engine) \(kind) \(folding)"
                    for c in Self.upper + Self.lower + Self.digits {
                        for automaton in [ac, global] {
                            XCTAssertEqual(automaton.matches(in: "sale\(c)"), [], "\(context): 'sale\(c)' is one word")
                            XCTAssertEqual(automaton.matches(in: "\(c)sale"), [], "\(context): '\(c)sale' is one word")
                            XCTAssertEqual(automaton.matches(in: "big sale\(c) now"), [], "\(context): 'sale\(c)' is one word")
                        }
                    }
                    for c in Self.nonWordASCII + ["\t", "\n", "\u{0}", "\u{7F}"] {
                        for automaton in [ac, global] {
                            XCTAssertEqual(automaton.matches(in: "sale\(c)"), [Match(pattern: 0, start: 0, end: 4)], "\(context): 'sale' before \(c.debugDescription)")
                            XCTAssertEqual(automaton.matches(in: "\(c)sale"), [Match(pattern: 0, start: 1, end: 5)], "\(context): 'sale' after \(c.debugDescription)")
                        }
                    }
                }
            }
        }
    }

    /// A whole-word pattern that starts or ends with each letter or digit: found alone and between spaces.
    func testWholeWordPatternsEndingInEveryCharacter() throws {
        for engine in EngineUnderTest.allCases {
            for kind in Self.kinds {
                for c in Self.upper + Self.lower + Self.digits {
                    let ac = try build([Pattern("x\(c)", wholeWord: true), Pattern("\(c)y", wholeWord: true)], kind, .none, engine)
                    XCTAssertEqual(ac.matches(in: "x\(c) \(c)y"), [Match(pattern: 0, start: 0, end: 2), Match(pattern: 1, start: 3, end: 5)], "\(engine) \(kind) \(c)")
                    XCTAssertEqual(ac.matches(in: "x\(c)\(c)y"), [], "\(engine) \(kind) \(c): one word")
                }
            }
        }
    }

    /// Unicode letters at the edges of whole-word matches: letters, marks and digits of other scripts are
    /// word characters; punctuation, symbols and emoji are not.
    func testUnicodeNeighboursOfWholeWords() throws {
        // (neighbour, is it a word character) — written out by hand.
        let neighbours: [(String, Bool)] = [
            ("é", true), ("É", true), ("ß", true), ("ж", true), ("Ж", true), ("σ", true), ("ς", true), ("ก", true),
            ("ไ", true), ("न", true), ("中", true), ("ー", true), ("٣", true), ("५", true), ("²", true), ("Ⅻ", true),
            ("\u{301}", true), ("\u{E34}", true), ("\u{94D}", true), ("ǅ", true), ("ª", true),
            ("𝐀", true), ("𠀀", true), ("𝟗", true), ("\u{1D167}", true),  // four-byte letters, digit, mark
            ("😀", false), ("€", false), ("—", false), ("«", false), ("。", false), ("\u{A0}", false), ("\u{2028}", false),
            ("·", false), ("•", false), ("©", false), ("¿", false),
        ]
        for engine in EngineUnderTest.allCases {
            for kind in Self.kinds {
                for folding in [CaseFolding.none, .ascii, .unicode] {
                    let ac = try build([Pattern("sale", wholeWord: true)], kind, folding, engine)
                    for (n, isWord) in neighbours {
                        let context = "\(engine) \(kind) \(folding) neighbour \(n.unicodeScalars.map { String($0.value, radix: 16) })"
                        let width = n.utf8.count
                        XCTAssertEqual(ac.matches(in: "sale\(n)"), isWord ? [] : [Match(pattern: 0, start: 0, end: 4)], context)
                        XCTAssertEqual(ac.matches(in: "\(n)sale"), isWord ? [] : [Match(pattern: 0, start: width, end: width + 4)], context)
                        // The oracle's table agrees with the hand-written answer.
                        XCTAssertEqual(OracleText.isWord(n.unicodeScalars.first!), isWord, "oracle: \(context)")
                    }
                }
            }
        }
    }

    /// Unicode case pairs under `.unicode` folding (and not under `.ascii`), written out by hand.
    func testUnicodeCasePairs() throws {
        // (pattern, haystack, equal under simple case folding)
        let pairs: [(String, String, Bool)] = [
            ("é", "É", true), ("ж", "Ж", true), ("σ", "Σ", true), ("σ", "ς", true), ("ς", "Σ", true), ("k", "\u{212A}", true),
            ("s", "ſ", true), ("ß", "ẞ", true), ("ǆ", "ǅ", true), ("ǆ", "Ǆ", true), ("ᾀ", "ᾈ", true), ("ω", "Ω", true),
            ("ω", "\u{2126}", true), ("å", "\u{212B}", true), ("ա", "Ա", true), ("ⴀ", "Ⴀ", true), ("a", "A", true),
            ("ß", "s", false), ("ß", "ss", false), ("i", "ı", false), ("i", "İ", false), ("ı", "I", false), ("é", "e", false),
            ("e\u{301}", "é", false), ("ก", "ข", false), ("中", "文", false),
        ]
        for engine in EngineUnderTest.allCases {
            for kind in Self.kinds {
                for (p, h, equal) in pairs {
                    let ac = try build([Pattern(p)], kind, .unicode, engine)
                    let context = "\(engine) \(kind) \(p) vs \(h)"
                    XCTAssertEqual(ac.matches(in: h), equal ? [Match(pattern: 0, start: 0, end: h.utf8.count)] : [], context)
                    let reverse = try build([Pattern(h)], kind, .unicode, engine)
                    XCTAssertEqual(reverse.matches(in: p), equal ? [Match(pattern: 0, start: 0, end: p.utf8.count)] : [], "reversed " + context)
                    if p != h && p.utf8.first! >= 0x80 {
                        let ascii = try build([Pattern(p)], kind, .ascii, engine)
                        XCTAssertEqual(ascii.matches(in: h), [], "ascii folding leaves \(p) alone: " + context)
                    }
                    // The oracle agrees with the hand-written answer (one scalar each side).
                    if p.unicodeScalars.count == 1 && h.unicodeScalars.count == 1 {
                        XCTAssertEqual(OracleText.foldEqual(p.unicodeScalars.first!, h.unicodeScalars.first!), equal, "oracle: " + context)
                    }
                }
            }
        }
    }

    /// The oracle's own tables, checked against facts written here.
    func testOracleTables() {
        for (u, l) in zip(Self.upper, Self.lower) {
            XCTAssertEqual(OracleText.asciiLower(UInt8(ascii: u.unicodeScalars.first!)), UInt8(ascii: l.unicodeScalars.first!))
            XCTAssertTrue(OracleText.isWord(u.unicodeScalars.first!))
            XCTAssertTrue(OracleText.isWord(l.unicodeScalars.first!))
        }
        for d in Self.digits { XCTAssertTrue(OracleText.isWord(d.unicodeScalars.first!)) }
        for c in Self.nonWordASCII { XCTAssertFalse(OracleText.isWord(c.unicodeScalars.first!), "\(c)") }
        let wordCount = (0..<128).filter { OracleText.isWord(Unicode.Scalar(UInt8($0))) }.count
        XCTAssertEqual(wordCount, 62)
        let changed = (0..<256).filter { OracleText.asciiLower(UInt8($0)) != UInt8($0) }
        XCTAssertEqual(changed, Array(65...90))
    }
}
