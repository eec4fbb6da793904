import Foundation
import TestSupport
import XCTest

@testable import MessageFilter

/// Issue 33 item 9: a run of white space (spaces, tabs, line breaks, no-break and other Unicode spaces) reads
/// as one space in every normalisation mode, so `free  prize` or `free\tprize` no longer evades `free prize`;
/// spans still point into the original bytes (a run's space covers the whole run). The oracle builds each
/// message from tokens and collapses it itself, with Foundation's NFKC for what `leet` joins, never with
/// the normaliser.
final class WhitespaceRunTests: XCTestCase {
    static func ruleSet(_ mode: TextNormalization, _ phrases: [String]) throws -> RuleSet {
        var yaml = "version: 1\nnormalize: \(mode.name)\nrules:\n"
        for (k, p) in phrases.enumerated() {
            let quoted = p.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? String($0) : String(format: "\\u%04X", $0.value) }.joined()
            yaml += "  - name: r\(k)\n    action: junk\n    keywords: [\"\(quoted)\"]\n    wholeWord: false\n"
        }
        return try RuleSet.parse(yaml: yaml, file: "r.yaml")
    }

    /// By hand: each spacing of `free prize` fires the rule in every mode, the span covering the whole phrase
    /// as written; a phrase written with a run of white space matches single spaces.
    func testEveryRunOfWhiteSpaceReadsAsOneSpace() throws {
        let spacings = ["  ", "\t", " \t ", "\n", "\r\n", "\n\n  ", "\u{0B}", "\u{0C}", "\u{A0}\u{A0}", " \u{A0}", "\u{2003}\u{2003}",
                        "\u{3000}", "\u{2028}", "\u{85}", "\u{1680}", "\u{202F} ", "\u{205F}\t", "\u{2029}"]
        for mode in TextNormalization.allCases {
            let set = try Self.ruleSet(mode, ["free prize"])
            let written = try Self.ruleSet(mode, ["free \t\u{A0} prize"])
            for spacing in spacings {
                // (`leet` joins the letters around one no-break or other non-ASCII space: below.)
                if mode == .leet, spacing.unicodeScalars.count == 1, spacing.precomposedStringWithCompatibilityMapping == " " { continue }
                let body = "you won a FREE\(spacing)prize today"
                let v = Classifier(ruleSet: set).classify(sender: nil, body: body)
                XCTAssertEqual(v.rule, 0, "\(mode): \(spacing.unicodeScalars.map { $0.value })")
                let start = Array("you won a ".utf8).count
                XCTAssertEqual(Int(v.matchStart)..<Int(v.matchEnd), start..<(start + Array("FREE\(spacing)prize".utf8).count),
                               "\(mode): \(spacing.unicodeScalars.map { $0.value })")
                XCTAssertEqual(Classifier(ruleSet: written).classify(sender: nil, body: body).rule, 0, "\(mode), the phrase with a run")
            }
            // A run at every offset from the body's start, so that it straddles every edge of the check's eight-byte
            // words (an ASCII body with a run is rewritten; one without is scanned as it is).
            for pad in 0..<20 {
                for spacing in ["  ", "   ", " \t", "\n "] {
                    let phrase = " free" + spacing + "prize"
                    let body = String(repeating: "a", count: pad) + phrase + " is yours to claim today"
                    let v = Classifier(ruleSet: set).classify(sender: nil, body: body)
                    XCTAssertEqual(v.rule, 0, "\(mode): pad \(pad), \(spacing.unicodeScalars.map { $0.value })")
                    XCTAssertEqual(Int(v.matchStart)..<Int(v.matchEnd), (pad + 1)..<(pad + phrase.utf8.count), "\(mode): pad \(pad)")
                }
            }
            // Words stay words: no space, or a symbol, between them is not a space.
            for body in ["freeprize", "free-prize", "free_prize", "free.prize"] {
                XCTAssertEqual(Classifier(ruleSet: set).classify(sender: nil, body: body).rule, -1, "\(mode): \(body)")
            }
            XCTAssertEqual(mode.rulePhrase("a \t\n b\u{3000}\u{3000}c"), "a b c", "\(mode)")
        }
        // `leet` alone joins the letters on both sides of one no-break space (`lot\u{A0}tery`, docs/RULES.md §9).
        XCTAssertEqual(Classifier(ruleSet: try Self.ruleSet(.leet, ["free prize"])).classify(sender: nil, body: "free\u{A0}prize").rule, -1)
        XCTAssertEqual(Classifier(ruleSet: try Self.ruleSet(.standard, ["free prize"])).classify(sender: nil, body: "free\u{A0}prize").rule, 0)
    }

    /// `_isWhitespace` is Unicode's White_Space, scalar by scalar.
    func testWhiteSpaceIsUnicodes() {
        for v in UInt32(0)...0x10FFFF {
            guard let s = Unicode.Scalar(v) else { continue }
            XCTAssertEqual(_isWhitespace(v), s.properties.isWhitespace, "U+\(String(v, radix: 16))")
            if v < 0x10000 { XCTAssertEqual(_ScalarFlags.shared.of(v) & _ScalarFlags.space != 0, s.properties.isWhitespace) }
        }
    }

    static let words = ["free", "prize", "cash", "won", "money", "now", "your", "account", "gift", "card", "bonus", "offer",
                        "reward", "top", "up", "phone", "code", "win", "urgent", "stop", "to", "be"]
    static let phrases = ["free prize", "cash now", "your account", "gift card", "top up", "win money now", "urgent reward",
                          "phone code", "bonus offer", "stop", "up to", "card bonus offer"]
    static let spaces = [" ", " ", " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2000}", "\u{2003}",
                         "\u{200A}", "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}"]
    static let others = ["", ",", "-", "!", ". "]

    /// One generated message: its text, and per mode the text as the oracle reads it (runs collapsed, words
    /// lower-cased) with the original byte span of each of its characters.
    struct Message {
        var text = ""
        var read: [TextNormalization: (chars: [Character], spans: [Range<Int>])] = [:]
    }

    static func message(_ rng: inout Fixtures.SeededGenerator) -> Message {
        // Tokens: words, runs of white space, other separators.
        enum Token { case word(String), run(String), other(String) }
        var tokens: [Token] = []
        if Bool.random(using: &rng) { tokens.append(.run(run(&rng))) }
        for k in 0..<Int.random(in: 1...9, using: &rng) {
            if k > 0 {
                if Int.random(in: 0..<5, using: &rng) == 0 {
                    tokens.append(.other(others.randomElement(using: &rng)!))
                } else {
                    tokens.append(.run(run(&rng)))
                }
            }
            let w = words.randomElement(using: &rng)!
            tokens.append(.word(String(w.map { Bool.random(using: &rng) ? Character($0.uppercased()) : $0 })))
        }
        if Bool.random(using: &rng) { tokens.append(.run(run(&rng))) }
        var m = Message()
        var offset = 0
        var pieces: [(token: Token, bytes: Range<Int>)] = []
        for t in tokens {
            let s: String
            switch t { case .word(let w): s = w; case .run(let r): s = r; case .other(let o): s = o }
            let n = s.utf8.count
            pieces.append((t, offset..<(offset + n)))
            m.text += s
            offset += n
        }
        for mode in TextNormalization.allCases {
            var chars: [Character] = []
            var spans: [Range<Int>] = []
            for (k, p) in pieces.enumerated() {
                switch p.token {
                case .word(let w), .other(let w):
                    var at = p.bytes.lowerBound
                    for c in w {
                        let n = String(c).utf8.count
                        chars.append(Character(c.lowercased()))
                        spans.append(at..<(at + n))
                        at += n
                    }
                case .run(let r):
                    // `leet` drops one non-ASCII space that NFKC reads as U+0020 between two letters.
                    let between = k > 0 && k + 1 < pieces.count
                        && { if case .word = pieces[k - 1].token, case .word = pieces[k + 1].token { return true }; return false }()
                    if mode == .leet, between, r.unicodeScalars.count == 1, r != " ", r.precomposedStringWithCompatibilityMapping == " " {
                        continue
                    }
                    chars.append(" ")
                    spans.append(p.bytes)
                }
            }
            m.read[mode] = (chars, spans)
        }
        return m
    }

    static func run(_ rng: inout Fixtures.SeededGenerator) -> String {
        (0..<Int.random(in: 1...3, using: &rng)).map { _ in spaces.randomElement(using: &rng)! }.joined()
    }

    /// Every match `explain` reports, phrase and span, equals the oracle's (every occurrence of each phrase in
    /// the collapsed text, its span from the first character's first byte to the last one's end), in every
    /// mode; the batch API gives the same verdicts as one message at a time.
    func testMatchesEqualTheCollapsedTextsOracle() throws {
        var rng = Fixtures.seededGenerator("testMatchesEqualTheCollapsedTextsOracle", defaultSeed: 0x5BACE5)
        let messages = (0..<600).map { _ in Self.message(&rng) }
        var matched = 0
        for mode in TextNormalization.allCases {
            let set = try Self.ruleSet(mode, Self.phrases)
            let classifier = Classifier(ruleSet: set)
            var single: [Verdict] = []
            for m in messages {
                let (chars, spans) = m.read[mode]!
                var expected = Set<[Int]>()
                for (k, p) in Self.phrases.enumerated() {
                    let want = Array(p)
                    guard want.count <= chars.count else { continue }
                    for i in 0...(chars.count - want.count) where Array(chars[i..<(i + want.count)]) == want {
                        expected.insert([k, spans[i].lowerBound, spans[i + want.count - 1].upperBound])
                    }
                }
                let e = classifier.explain(sender: nil, body: m.text)
                let found = Set(e.matches.filter { !$0.isCondition }.map { [Self.phrases.firstIndex(of: $0.phrase) ?? -1, $0.start, $0.end] })
                XCTAssertEqual(found, expected, "\(mode): \(m.text.unicodeScalars.map { $0.isASCII ? String($0) : "U+\(String($0.value, radix: 16))" }.joined())")
                let v = classifier.classify(sender: nil, body: m.text)
                XCTAssertEqual(v.rule >= 0, !expected.isEmpty, "\(mode): \(m.text)")
                if !expected.isEmpty { matched += 1 }
                single.append(v)
            }
            // The batch path (bodies split between those scanned in place and those rewritten).
            let verdicts = MessageBatch(bodies: messages.map(\.text)).verdicts(classifier)
            for k in messages.indices {
                XCTAssertEqual(verdicts[k].rule, single[k].rule, "\(mode): batch, message \(k)")
                XCTAssertEqual(verdicts[k].matchStart, single[k].matchStart, "\(mode): batch, message \(k)")
                XCTAssertEqual(verdicts[k].matchEnd, single[k].matchEnd, "\(mode): batch, message \(k)")
            }
        }
        XCTAssertGreaterThan(matched, 300)
    }
}
