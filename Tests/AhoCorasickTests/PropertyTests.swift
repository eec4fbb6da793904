import AhoCorasick
import TestSupport
import XCTest

/// Random patterns and haystacks against `NaiveMatcher`, for every kind × engine × folding × whole-word.
///
/// The engines are `EngineUnderTest.allCases`: add an engine there and every test here runs on it. The
/// oracle shares no code with the implementation (see `OracleText`). Seeds are printed; `SMSFILTER_SEED`
/// replays one.
final class PropertyTests: XCTestCase {
    static let kinds: [MatchKind] = [.standard, .leftmostFirst, .leftmostLongest]
    static let foldings: [CaseFolding] = [.none, .ascii, .unicode]

    /// Every ASCII letter of both cases and every digit, written out, plus spaces and punctuation.
    static let asciiPieces: [String] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".map(String.init)
        + [" ", " ", " ", ".", ",", "-", "!", "'", "/", "_", "@", "`", "[", "{", "ab", "AB", "ZZ", "zz"]

    /// Letters of other scripts (with case pairs where they have them: ß/ẞ, σ/ς/Σ, ǅ, the Kelvin sign and
    /// long s), combining marks, digits of other scripts, Thai, Devanagari, Chinese, emoji, and non-word
    /// symbols and spaces.
    static let unicodePieces: [String] = [
        "é", "É", "ß", "ẞ", "σ", "ς", "Σ", "α", "Α", "д", "Д", "ж", "Ж", "\u{212A}", "ſ", "ǅ", "ǆ", "Ǆ", "ω", "Ω",
        "न", "मस्", "ते", "ไ", "ม่", "รับ", "เงิน", "中", "文", "😀", "👍🏽", "\u{301}", "\u{E34}", "٣", "²", "€", "—",
        "\u{A0}", "。",
    ]

    static let pieces = asciiPieces + unicodePieces

    /// What may stand just before or after a planted occurrence: word characters of every kind (ASCII
    /// letters from both ends of the alphabet, digits, Unicode letters, marks, numbers) and non-word ones.
    static let edges: [String] = [
        "a", "z", "Z", "A", "y", "Y", "0", "9", "é", "Ж", "ς", "ก", "न", "中", "\u{301}", "\u{E34}", "٣", "²", "ª",
        "𝐀", "𠀀", "𝟗",
        " ", ".", "(", ")", "😀", "€", "—", "\u{A0}", "", "",
    ]

    static func randomText(_ rng: inout Fixtures.SeededGenerator, pieces: Int) -> String {
        var s = ""
        for _ in 0..<pieces { s += Self.pieces.randomElement(using: &rng)! }
        return s
    }

    /// Random bytes from a small alphabet (so that matches happen): letters from both ends of the alphabet in
    /// both cases, a digit, a space, a two-byte letter's bytes and invalid UTF-8.
    static func randomBytes(_ rng: inout Fixtures.SeededGenerator, count: Int) -> [UInt8] {
        let alphabet: [UInt8] = [0x61, 0x62, 0x7A, 0x41, 0x42, 0x5A, 0x30, 0x20, 0xC3, 0xA9, 0xFF, 0x80, 0x00]
        return (0..<count).map { _ in alphabet.randomElement(using: &rng)! }
    }

    /// `text` with the case of its letters changed at random, the way `folding` should not notice: ASCII
    /// letters for `.ascii`, any letter with a one-scalar upper or lower case for `.unicode`.
    static func recased(_ text: String, _ folding: CaseFolding, _ rng: inout Fixtures.SeededGenerator) -> String {
        guard folding != .none else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let flip = Bool.random(using: &rng)
            if scalar.value < 0x80 || folding == .unicode {
                let changed = flip ? String(scalar).uppercased() : String(scalar).lowercased()
                if changed.unicodeScalars.count == 1, folding == .unicode || changed.unicodeScalars.first!.value < 0x80 {
                    out.append(changed.unicodeScalars.first!)
                    continue
                }
            }
            out.append(scalar)
        }
        return String(out)
    }

    func check(
        kind: MatchKind, folding: CaseFolding, wholeWord: Bool, engine: EngineUnderTest,
        patterns: [Pattern], haystacks: [[UInt8]], context: String
    ) throws {
        var builder = AhoCorasickBuilder()
        builder.matchKind = kind
        builder.caseFolding = folding
        builder.wholeWord = wholeWord
        let ac = try engine.build(builder, patterns)
        let oracle = NaiveMatcher(patterns, matchKind: kind, caseFolding: folding, wholeWord: wholeWord)
        for haystack in haystacks {
            let got = ac.matches(in: haystack)
            let want = oracle.matches(in: haystack)
            if got != want {
                XCTFail(
                    "\(context) \(kind) \(folding) ww=\(wholeWord) \(engine): patterns \(patterns.map { String(decoding: $0.bytes, as: UTF8.self) }) haystack \(String(decoding: haystack, as: UTF8.self).debugDescription) got \(got) want \(want)"
                )
                return
            }
        }
    }

    /// Every kind × folding × whole-word × engine on the same patterns and haystacks.
    func checkAll(patterns: [Pattern], haystacks: [[UInt8]], foldings: [CaseFolding] = foldings, context: String) throws {
        for kind in Self.kinds {
            for folding in foldings {
                for wholeWord in [false, true] {
                    for engine in EngineUnderTest.allCases {
                        try check(kind: kind, folding: folding, wholeWord: wholeWord, engine: engine,
                                  patterns: patterns, haystacks: haystacks, context: context)
                    }
                }
            }
        }
    }

    func testRandomTextAgainstOracle() throws {
        var rng = Fixtures.seededGenerator("PropertyTests.testRandomTextAgainstOracle", defaultSeed: 0x5EED_0001)
        for round in 0..<60 {
            let patternCount = Int.random(in: 1...8, using: &rng)
            var patterns: [Pattern] = []
            for _ in 0..<patternCount {
                let text = Self.randomText(&rng, pieces: Int.random(in: 1...3, using: &rng))
                patterns.append(Pattern(text, wholeWord: Int.random(in: 0..<4, using: &rng) == 0))
            }
            let haystacks = (0..<6).map { _ in
                Array(Self.randomText(&rng, pieces: Int.random(in: 0...40, using: &rng)).utf8)
            }
            try checkAll(patterns: patterns, haystacks: haystacks, context: "seed 0x\(String(rng.seed, radix: 16)) round \(round)")
        }
    }

    /// Occurrences of the patterns planted in the haystacks, with their case changed at random and a word
    /// or non-word character (of any script) on each side: every folding and whole-word decision is made.
    func testPlantedOccurrencesAtWordEdges() throws {
        var rng = Fixtures.seededGenerator("PropertyTests.testPlantedOccurrencesAtWordEdges", defaultSeed: 0x5EED_0003)
        for round in 0..<60 {
            var patterns: [Pattern] = []
            for _ in 0..<Int.random(in: 1...5, using: &rng) {
                // Mostly ASCII words, so that every letter of the alphabet turns up in a planted occurrence.
                var text = ""
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    text += Int.random(in: 0..<5, using: &rng) == 0
                        ? Self.unicodePieces.randomElement(using: &rng)! : Self.asciiPieces.randomElement(using: &rng)!
                }
                patterns.append(Pattern(text, wholeWord: Bool.random(using: &rng)))
            }
            for folding in Self.foldings {
                var haystacks: [[UInt8]] = []
                for _ in 0..<6 {
                    var text = Self.randomText(&rng, pieces: Int.random(in: 0...6, using: &rng))
                    for _ in 0..<Int.random(in: 1...4, using: &rng) {
                        let pattern = String(decoding: patterns.randomElement(using: &rng)!.bytes, as: UTF8.self)
                        text += Self.edges.randomElement(using: &rng)! + Self.recased(pattern, folding, &rng)
                            + Self.edges.randomElement(using: &rng)!
                    }
                    haystacks.append(Array(text.utf8))
                }
                try checkAll(patterns: patterns, haystacks: haystacks, foldings: [folding],
                             context: "seed 0x\(String(rng.seed, radix: 16)) round \(round)")
            }
        }
    }

    func testRandomBytesAgainstOracle() throws {
        var rng = Fixtures.seededGenerator("PropertyTests.testRandomBytesAgainstOracle", defaultSeed: 0x5EED_0002)
        for round in 0..<80 {
            let patterns = (0..<Int.random(in: 1...10, using: &rng)).map { _ in
                Pattern(Self.randomBytes(&rng, count: Int.random(in: 1...4, using: &rng)))
            }
            let haystacks = (0..<6).map { _ in Self.randomBytes(&rng, count: Int.random(in: 0...60, using: &rng)) }
            try checkAll(patterns: patterns, haystacks: haystacks, foldings: [.none, .ascii],
                         context: "seed 0x\(String(rng.seed, radix: 16)) round \(round)")
        }
    }
}
