import Foundation
import TestSupport
import XCTest

@testable import MessageFilter

/// Issue 21 item 14: evasions of a rule on `lottery` that got past `normalize: standard`, each decided into
/// `standard` or `leet` (docs/RULES.md §9 has the table), with oracles from Foundation's Unicode data
/// (canonical decomposition, scalar names), never from the normaliser's own tables.
final class NormalizationEvasionTests: XCTestCase {
    static func ruleSet(_ mode: TextNormalization) throws -> RuleSet {
        // `wholeWord: false`: these tests are about what each mode reads, not about word edges (under `leet` an
        // override to the end of the line reads "yrettol today" as "yadotiottery", one word).
        try RuleSet.parse(yaml: "version: 1\nnormalize: \(mode.name)\nrules:\n  - name: lottery\n    action: junk\n    keywords: [lottery]\n    wholeWord: false\n",
                          file: "r.yaml")
    }

    /// The rule that decided `body`, and the span of its deciding match in the original bytes.
    static func decide(_ set: RuleSet, _ body: String) -> (rule: String?, span: Range<Int>?) {
        let v = Classifier(ruleSet: set).classify(sender: nil, body: body)
        guard v.rule >= 0 else { return (nil, nil) }
        return (set.ruleNames[Int(v.rule)], v.matchStart >= 0 ? Int(v.matchStart)..<Int(v.matchEnd) : nil)
    }

    /// Small capitals found by their Unicode names ("LATIN LETTER SMALL CAPITAL L"), not by the tables.
    static func smallCapital(_ letter: Character) -> String {
        let name = "LATIN LETTER SMALL CAPITAL \(letter.uppercased())"
        for v in UInt32(0x80)..<0x20000 {
            if let s = Unicode.Scalar(v), s.properties.name == name { return String(Character(s)) }
        }
        return String(letter)
    }

    static let evasions: [(name: String, text: String, standard: Bool)] = {
        let strike = "lottery".map { "\($0)\u{0336}" }.joined()
        let underline = "lottery".map { "\($0)\u{0332}" }.joined()
        return [
            ("Hangul filler U+3164 inside the word", "lot\u{3164}tery", true),
            ("Hangul filler U+FFA0 inside the word", "lott\u{FFA0}ery", true),
            ("strike-through combining marks", strike, true),
            ("underline combining marks", underline, true),
            ("small capitals", "lottery".map { smallCapital($0) }.joined(), true),
            ("Cherokee look-alikes mixed with Latin", "\u{13DE}o\u{13A2}\u{13A2}\u{13AC}\u{13A1}\u{13BD}", true),
            ("Lisu look-alikes", "\u{A4E1}\u{A4F3}\u{A4D4}\u{A4D4}\u{A4F0}\u{A4E3}\u{A4EC}", true),
            ("right-to-left override", "\u{202E}yrettol\u{202C}", true),
            ("right-to-left override to the end", "\u{202E}yrettol", true),
            ("letters separated by dots", "l.o.t.t.e.r.y", false),
            ("letters separated by hyphens", "l-o-t-t-e-r-y", false),
            ("letters separated by spaces", "l o t t e r y", false),
            ("a no-break space inside the word", "lot\u{00A0}tery", false),
            ("accents", "l\u{F3}tt\u{EA}ry", false),
            ("accents, decomposed", "lo\u{301}tte\u{302}ry", false),
        ]
    }()

    func testEachEvasionIsCaughtByItsMode() throws {
        let none = try Self.ruleSet(.none), standard = try Self.ruleSet(.standard), leet = try Self.ruleSet(.leet)
        for e in Self.evasions {
            let body = "you won the \(e.text) today"
            XCTAssertNil(Self.decide(none, body).rule, "none: \(e.name)")
            XCTAssertEqual(Self.decide(standard, body).rule, e.standard ? "lottery" : nil, "standard: \(e.name)")
            let (rule, span) = Self.decide(leet, body)
            XCTAssertEqual(rule, "lottery", "leet: \(e.name)")
            // The span points into the original bytes and covers the evasion's letters.
            let bytes = Array(body.utf8)
            guard let span else { XCTFail("leet: \(e.name): no span"); continue }
            XCTAssertTrue(span.lowerBound >= 0 && span.upperBound <= bytes.count && !span.isEmpty, "\(e.name): \(span)")
            let covered = String(decoding: bytes[span], as: UTF8.self)
            let start = Array("you won the ".utf8).count
            XCTAssertGreaterThanOrEqual(span.lowerBound, start, "\(e.name): \(covered)")
            XCTAssertTrue(covered.unicodeScalars.contains { $0.properties.isAlphabetic }, "\(e.name): \(covered)")
        }
        // The ﬅ ligature was already read as "st" (NFKC) before issue 21.
        XCTAssertEqual(TextNormalization.standard.apply("\u{FB05}op"), "stop")
        // Ordinary text is not read as an evasion: separated letters need three, the same separator.
        XCTAssertNil(Self.decide(leet, "a lot, terrible").rule)
        XCTAssertNil(Self.decide(standard, "lot tery").rule)
    }

    /// Decomposed text (NFD) reads as the precomposed text the phrases are written with: every accented Latin,
    /// Greek and Cyrillic letter of a sample normalises the same in NFC and NFD (Foundation's decomposition).
    func testDecomposedTextReadsAsComposed() {
        let letters = "áéíóúàèìòùâêîôûäëïöüãõñçåæøÿšžčćđłńśźżğışŀάέήίόύώϊϋйёїўѐѝ"
        for mode in [TextNormalization.standard, .leet] {
            for c in letters {
                let nfc = String(c).precomposedStringWithCanonicalMapping
                let nfd = String(c).decomposedStringWithCanonicalMapping
                guard nfd.unicodeScalars.count > 1 else { continue }
                XCTAssertEqual(mode.apply("x\(nfd)y"), mode.apply("x\(nfc)y"), "\(mode) \(c)")
            }
        }
        // Accents are kept under standard (é ≠ e) and read away under leet.
        XCTAssertNotEqual(TextNormalization.standard.apply("caf\u{E9}"), "cafe")
        XCTAssertEqual(TextNormalization.leet.apply("caf\u{E9}"), "cafe")
        // Marks on scripts other than Latin, Greek, Cyrillic and Cherokee are left alone (Thai keeps its vowels).
        XCTAssertEqual(TextNormalization.standard.apply("ส\u{0E31}\u{0336}"), "ส\u{0E31}\u{0336}")
    }

    /// Spans stay in order and each covers its own source whatever the text (reversed runs, composed and
    /// dropped marks, removed fillers, joined letters): the start of every output byte is at or after the
    /// previous one's, and never after its own end.
    func testSpansStayInOrder() {
        var rng = Fixtures.seededGenerator("testSpansStayInOrder", defaultSeed: 0x5BA5)
        let pieces = ["l", "o", "t", "e", "r", "y", ".", "-", " ", "\u{202E}", "\u{202C}", "\u{202D}", "\u{2066}", "\u{2069}",
                      "\u{0336}", "\u{0301}", "\u{3164}", "\u{00A0}", "\n", "é", "ʟ", "ᴏ", "\u{13DE}", "\u{A4E1}", "ส", "\u{0E31}",
                      "ﬅ", "1", "@", "\u{200B}"]
        for mode in [TextNormalization.standard, .leet] {
            for _ in 0..<2000 {
                let text = (0..<Int.random(in: 1...16, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
                let (_, spans) = mode.applyWithSpans(text)
                let count = text.utf8.count
                var last = 0
                for s in spans {
                    XCTAssertGreaterThanOrEqual(s.lowerBound, last, "\(mode) \(Array(text.unicodeScalars))")
                    XCTAssertLessThanOrEqual(s.upperBound, count)
                    last = s.lowerBound
                }
            }
        }
    }
}
