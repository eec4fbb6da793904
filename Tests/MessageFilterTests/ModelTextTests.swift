import AhoCorasick
import Foundation
import TestSupport
import XCTest
@testable import MessageFilter

/// The model's phrase look-up (`_ModelFeatures.swift`) must find exactly what a naive search
/// with a whole-word test finds in the normalised text, with first spans pointing into the original body;
/// the batch path must score exactly as the one-message path; phrases of the wrong shape are refused.
final class ModelTextTests: XCTestCase {
    /// Phrases of every shape learn writes: words, bigrams, single letters, digit pieces, symbols, Thai
    /// character n-grams, accented and Cyrillic words.
    static let phrases: [(ModelDefinition.MatchKind, String)] = [
        (.word, "to"), (.word, "i"), (.word, "me"), (.word, "free"), (.word, "free entry"), (.word, "call now"),
        (.word, "u"), (.word, "win"), (.word, "txt"), (.word, "2"), (.word, "café"), (.word, "доставка"),
        (.word, "stop to"), (.word, "a b"), (.part, "0906"), (.part, "t80"), (.part, "£"), (.part, "!"),
        (.part, "."), (.part, "'"), (.part, "ฟรี"), (.part, "เครดิ"), (.part, "ดิต"), (.part, "验证码"), (.part, "€"),
    ]

    static func model(_ normalization: TextNormalization, rules: String = "rules: []",
                      phrases: [(ModelDefinition.MatchKind, String)] = phrases) throws -> RuleSet {
        var lines = ["version: 1", rules, "normalize: \(normalization.name)", "model:", "  targets: [junk, none]",
                     "  bias: [0.1, -0.1]", "  phrases:"]
        for (i, (kind, text)) in phrases.enumerated() {
            // Distinct weights so any miscount changes the scores.
            let w = Double(i % 7) * 0.37 - 1.1 + Double(i) * 0.01
            let quoted = text.unicodeScalars.map { $0 == "\"" || $0 == "\\" ? "\\\($0)" : $0.value < 0x20 ? String(format: "\\x%02X", $0.value) : String($0) }.joined()
            lines.append("    - [\(kind.name), \"\(quoted)\", \(1 + Double(i) * 0.05), \(w), \(-w / 2)]")
        }
        return try RuleSet.parse(yaml: lines.joined(separator: "\n") + "\n", file: "m.yaml")
    }

    /// Seeded random messages mixing the phrases with neighbours that test the boundaries.
    static func messages(seed: UInt64, count: Int) -> [String] {
        var rng = Fixtures.SeededGenerator(seed: seed)
        let pieces = ["to", "TO", "stop", "into", "i", "I", "me", "meet", "free", "FREE", "freedom", "entry", "free entry",
                      "free  entry", "free\tentry", "free\nentry", "free-entry", "call", "now", "call now", "u", "win", "txt",
                      "2", "22", "café", "cafés", "доставка", "Доставка", "0906", "09061701461", "txt80", "t80x", "£", "£5",
                      "!", "!!", ".", "...", "'", "it's", "u'll", "ฟรี", "เครดิตฟรี", "แจกเครดิต", "验证码", "您的验证码是",
                      "€", "a", "b", "a b", "x", "😀", "ｆｒｅｅ", "frее", "\u{200B}", "e\u{301}", "Ⱥ", "K"]
        let glue = [" ", " ", " ", "", ",", ", ", "  ", "\n", "-", "/", "?"]
        var out: [String] = []
        for _ in 0..<count {
            var s = ""
            for _ in 0..<Int.random(in: 1...12, using: &rng) {
                s += pieces.randomElement(using: &rng)!
                s += glue.randomElement(using: &rng)!
            }
            out.append(s)
        }
        return out
    }

    /// The oracle: every occurrence of each phrase's normalised form in the normalised text (ASCII case
    /// ignored), a word phrase only where no word character touches it; the first one's span in the body.
    static func oracle(_ body: String, _ normalization: TextNormalization,
                       phrases: [(ModelDefinition.MatchKind, String)] = phrases) -> [Int: Range<Int>] {
        let (text, spans) = normalization.applyWithSpans(body)
        let flags = _ScalarFlags.shared
        func folded(_ s: String) -> [UInt8] {
            let t = normalization == .none
                ? String(String.UnicodeScalarView(s.unicodeScalars.map { AhoCorasick.simpleCaseFold($0) })) : s
            return Array(t.utf8).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        }
        let hay = folded(text)
        // Folding can change lengths only for non-ASCII case pairs under `none`; the generated texts keep the
        // oracle honest by comparing against the folded text's own offsets mapped back below.
        let foldedSpans: [Range<Int>]
        if hay.count == text.utf8.count {
            foldedSpans = spans
        } else {
            var fs: [Range<Int>] = []
            var k = 0
            for scalar in text.unicodeScalars {
                let n = scalar.utf8.count
                let f = folded(String(scalar)).count
                for _ in 0..<f { fs.append(spans[k].lowerBound..<spans[k + n - 1].upperBound) }
                k += n
            }
            foldedSpans = fs
        }
        func scalar(before i: Int) -> UInt32? {
            guard i > 0 else { return nil }
            var j = i - 1
            while j > 0 && hay[j] & 0xC0 == 0x80 { j -= 1 }
            return String(decoding: hay[j..<i], as: UTF8.self).unicodeScalars.first?.value
        }
        func scalar(at i: Int) -> UInt32? {
            guard i < hay.count else { return nil }
            var j = i + 1
            while j < hay.count && hay[j] & 0xC0 == 0x80 { j += 1 }
            return String(decoding: hay[i..<j], as: UTF8.self).unicodeScalars.first?.value
        }
        var found: [Int: Range<Int>] = [:]
        for (f, (kind, phrase)) in phrases.enumerated() {
            // (A text phrase is stored normalised, as a substring of a normalised text: it is not normalised again.)
            let p = folded(normalization == .none || kind == .text ? phrase : normalization.apply(phrase))
            guard p.count <= hay.count else { continue }
            for i in 0...(hay.count - p.count) where Array(hay[i..<(i + p.count)]) == p {
                if kind == .word {
                    if let b = scalar(before: i), flags.isWord(b) { continue }
                    if let a = scalar(at: i + p.count), flags.isWord(a) { continue }
                }
                found[f] = foldedSpans[i].lowerBound..<foldedSpans[i + p.count - 1].upperBound
                break
            }
        }
        return found
    }

    func testModelFindsWhatTheNaiveSearchFinds() throws {
        let seed: UInt64 = 2026
        print("ModelTextTests seed \(seed)")
        var bodies = Self.messages(seed: seed, count: 1500)
        bodies += ["", " ", "to", "i", "free entry", "Free Entry!", "x£5", "ไทย123", "free,entry", "free, entry"]
        for mode in TextNormalization.allCases {
            let set = try Self.model(mode)
            let c = Classifier(ruleSet: set)
            var features: [Int32] = []
            for body in bodies {
                let want = Self.oracle(body, mode)
                let bytes = Array(body.utf8)
                _ = bytes.withUnsafeBytes { c.modelFeatures(body: $0, into: &features) }
                XCTAssertEqual(Set(features.map(Int.init)), Set(want.keys), "\(mode) \(body.debugDescription)")
                // First spans, from the explanation (every present phrase, at most 10 shown).
                let e = c.explain(sender: nil, body: body)
                for k in try XCTUnwrap(e.model).contributions {
                    let f = Self.phrases.firstIndex { $0.1 == k.phrase }!
                    XCTAssertEqual(k.start..<k.end, want[f], "\(mode) \(body.debugDescription) \(k.phrase)")
                }
            }
        }
    }

    /// Seeded random models of every phrase shape the look-up handles differently (words and k-grams up to
    /// four words, digit pieces, unspaced-script n-grams of several lengths, letters-only pieces, symbol runs,
    /// text n-grams across words and spaces, phrases that normalise alike), on seeded random messages, against the naive search.
    func testRandomModelsFindWhatTheNaiveSearchFinds() throws {
        let seed: UInt64 = 2311
        print("ModelTextTests random models seed \(seed)")
        var rng = Fixtures.SeededGenerator(seed: seed)
        let words = ["to", "free", "entry", "call", "now", "win", "txt", "café", "доставка", "x", "ab", "stop", "a1", "80"]
        let parts = ["0906", "t80", "09", "1", "80x", "ฟรี", "เครดิ", "ดิต", "ฟ", "验证码", "证码", "验", "ee", "ntr", "ต", "ด1"]
        let symbols = ["£", "!", "!!", ".", "'", "€", "...", "?!", "/", "-"]
        // Text n-grams: anywhere, across words, single spaces and symbols.
        let texts = ["e e", "ee", " t", "y ", "!!", "e!", "0 ", "ฟรี", "ต1", "a", "码是", "o", ", e", "e-e", "£5", " 2 ", "é", "ка"]
        let bodies = Self.messages(seed: seed, count: 400)
            + ["", "free entry to win", "FREE ENTRY TO WIN now", "ฟรีเครดิต1ด1", "t80x 0906 80", "!!!...", "free entry  to"]
        for round in 0..<12 {
            var chosen = Set<String>()
            var phrases: [(ModelDefinition.MatchKind, String)] = []
            for _ in 0..<Int.random(in: 3...14, using: &rng) {
                let pick = Int.random(in: 0..<5, using: &rng)
                let entry: (ModelDefinition.MatchKind, String)
                switch pick {
                case 0: entry = (.word, words.randomElement(using: &rng)!)
                case 1:
                    let n = Int.random(in: 2...4, using: &rng)
                    entry = (.word, (0..<n).map { _ in words.randomElement(using: &rng)! }.joined(separator: " "))
                case 2: entry = (.part, parts.randomElement(using: &rng)!)
                case 3: entry = (.text, texts.randomElement(using: &rng)!)
                default: entry = (.part, symbols.randomElement(using: &rng)!)
                }
                if chosen.insert("\(entry.0.rawValue)\(entry.1)").inserted { phrases.append(entry) }
            }
            // Phrases that normalise alike are distinct phrases with one pattern.
            if round % 3 == 0 { phrases.append((.word, "FREE")); phrases.append((.word, "ｆｒｅｅ")) }
            for mode in TextNormalization.allCases {
                let c = Classifier(ruleSet: try Self.model(mode, phrases: phrases))
                var features: [Int32] = []
                for body in bodies {
                    let want = Self.oracle(body, mode, phrases: phrases)
                    let bytes = Array(body.utf8)
                    _ = bytes.withUnsafeBytes { c.modelFeatures(body: $0, into: &features) }
                    XCTAssertEqual(Set(features.map(Int.init)), Set(want.keys), "\(mode) \(phrases) \(body.debugDescription)")
                    let e = c.explain(sender: nil, body: body)
                    for k in try XCTUnwrap(e.model).contributions {
                        let f = phrases.firstIndex { $0.1 == k.phrase && $0.0 == k.kind }!
                        XCTAssertEqual(k.start..<k.end, want[f], "\(mode) \(body.debugDescription) \(k.phrase)")
                    }
                }
            }
        }
    }

    /// The batch path (lockstep scan, per-message sums) gives the one-message path's verdicts bit for bit,
    /// with rules above and below the model, bodies the normalisation rewrites and bodies it leaves alone.
    func testBatchScoresAsSingle() throws {
        let rules = """
            rules:
              - {name: high, action: transaction, priority: 50, keywords: [otp]}
              - {name: low, action: promotion, priority: -5, keywords: [sale, ฟรี]}
            """
        var bodies = Self.messages(seed: 7, count: 700)
        bodies += ["your otp is 1", "sale free entry", "ฟรี", String(repeating: "free to me ", count: 300)]
        for mode in TextNormalization.allCases {
            let c = Classifier(ruleSet: try Self.model(mode, rules: rules))
            let verdicts = MessageBatch(bodies: bodies).verdicts(c)
            for (i, body) in bodies.enumerated() {
                XCTAssertEqual(verdicts[i], c.classify(sender: nil, body: body), "\(mode) \(body.debugDescription)")
            }
        }
    }

    /// Invalid UTF-8 never breaks the model text: a raw byte is a symbol, and spans stay inside the body.
    func testInvalidUTF8() throws {
        let c = Classifier(ruleSet: try Self.model(.standard))
        var rng = Fixtures.SeededGenerator(seed: 99)
        for _ in 0..<500 {
            var bytes = Array(Self.messages(seed: rng.next(), count: 1)[0].utf8)
            for _ in 0..<3 where !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0x80...0xFF, using: &rng) }
            let v = bytes.withUnsafeBytes { c.classify(sender: nil, body: $0) }
            if v.phrase >= 0 { XCTAssertTrue(v.matchStart >= 0 && v.matchStart <= v.matchEnd && Int(v.matchEnd) <= bytes.count) }
        }
    }

    func testPhrasesOfTheWrongShapeAreRefused() {
        let bad: [(String, String)] = [
            ("[word, \"free!\"", "holds only letters, digits and single spaces"),
            ("[word, \"free  \"", "does not end with a space"),
            ("[word, \" free\"", "single spaces"),
            ("[part, \"£5\"", "either all letters and digits or all symbols"),
            ("[part, \"a b\"", "holds no space"),
            ("[text, \"a  b\"", "no double space"),
            ("[text, \"a\\tb\"", "no whitespace but single spaces"),
        ]
        for (phrase, message) in bad {
            let yaml = ModelTests.yaml.replacingOccurrences(of: "[word, \"win\"", with: phrase)
            XCTAssertThrowsError(try RuleSet.parse(yaml: yaml, file: "m.yaml"), phrase) { error in
                XCTAssertTrue("\(error)".contains("model.phrases[1]") && "\(error)".contains(message), "\(error)")
            }
        }
        XCTAssertNil(ModelDefinition.shapeProblem("free entry", kind: .word, normalization: .standard))
        // A run of white space reads as one space under `standard` (issue 33 item 9), not under `none`.
        XCTAssertNil(ModelDefinition.shapeProblem("free \t entry", kind: .word, normalization: .standard))
        XCTAssertNotNil(ModelDefinition.shapeProblem("free  entry", kind: .word, normalization: .none))
        XCTAssertNil(ModelDefinition.shapeProblem("!!", kind: .part, normalization: .standard))
        XCTAssertNil(ModelDefinition.shapeProblem("e! f", kind: .text, normalization: .standard))
        // Fullwidth letters are words once normalised.
        XCTAssertNil(ModelDefinition.shapeProblem("ｆｒｅｅ", kind: .word, normalization: .standard))
    }
}
