import AhoCorasick
import TestSupport
import XCTest

/// Random patterns and haystacks against `NaiveMatcher`, for every kind × engine × folding × whole-word.
final class PropertyTests: XCTestCase {
    /// Pieces random text is made of: ASCII of both cases, digits, punctuation, Latin-1 and Greek and
    /// Cyrillic letters with case pairs, Devanagari, Thai (with combining marks), Chinese, emoji.
    static let pieces: [String] = [
        "a", "b", "c", "A", "B", "C", "ab", "AB", "x", "z", " ", " ", ".", "1", "0", "-",
        "é", "É", "ß", "ẞ", "σ", "ς", "Σ", "α", "Α", "д", "Д", "ж", "Ж", "K", "k", "ſ", "s", "S",
        "न", "मस्", "ते", "ไ", "ม่", "รับ", "เงิน", "中", "文", "😀", "👍🏽",
    ]

    static func randomText(_ rng: inout Fixtures.SeededGenerator, pieces: Int) -> String {
        var s = ""
        for _ in 0..<pieces { s += Self.pieces.randomElement(using: &rng)! }
        return s
    }

    /// Random bytes from a small alphabet (so that matches happen), including invalid UTF-8.
    static func randomBytes(_ rng: inout Fixtures.SeededGenerator, count: Int) -> [UInt8] {
        let alphabet: [UInt8] = [0x61, 0x62, 0x63, 0x41, 0x42, 0x20, 0xC3, 0xA9, 0xFF, 0x80, 0x00]
        return (0..<count).map { _ in alphabet.randomElement(using: &rng)! }
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
                    "\(context) \(kind) \(folding) ww=\(wholeWord) \(engine): patterns \(patterns.map { String(decoding: $0.bytes, as: UTF8.self) }) haystack \(String(decoding: haystack, as: UTF8.self)) got \(got) want \(want)"
                )
                return
            }
        }
    }

    func testRandomTextAgainstOracle() throws {
        var rng = Fixtures.SeededGenerator(seed: 0x5EED_0001)
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
            for kind in [MatchKind.standard, .leftmostFirst, .leftmostLongest] {
                for folding in [CaseFolding.none, .ascii, .unicode] {
                    for wholeWord in [false, true] {
                        for engine in EngineUnderTest.allCases {
                            try check(
                                kind: kind, folding: folding, wholeWord: wholeWord, engine: engine,
                                patterns: patterns, haystacks: haystacks, context: "round \(round)")
                        }
                    }
                }
            }
        }
    }

    func testRandomBytesAgainstOracle() throws {
        var rng = Fixtures.SeededGenerator(seed: 0x5EED_0002)
        for round in 0..<80 {
            let patterns = (0..<Int.random(in: 1...10, using: &rng)).map { _ in
                Pattern(Self.randomBytes(&rng, count: Int.random(in: 1...4, using: &rng)))
            }
            let haystacks = (0..<6).map { _ in Self.randomBytes(&rng, count: Int.random(in: 0...60, using: &rng)) }
            for kind in [MatchKind.standard, .leftmostFirst, .leftmostLongest] {
                for folding in [CaseFolding.none, .ascii] {
                    for wholeWord in [false, true] {
                        for engine in EngineUnderTest.allCases {
                            try check(
                                kind: kind, folding: folding, wholeWord: wholeWord, engine: engine,
                                patterns: patterns, haystacks: haystacks, context: "round \(round)")
                        }
                    }
                }
            }
        }
    }
}
