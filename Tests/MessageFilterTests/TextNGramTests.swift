import Foundation
import TestSupport
import XCTest
@testable import MessageFilter

/// Text n-grams (phrase kind `text`): what `learn` proposes from a message is exactly what the classifier finds
/// in it once those phrases are a model's, and the proposals keep evidence hygiene.
final class TextNGramTests: XCTestCase {
    static func candidates(_ body: String, _ options: PhraseCandidates.Options = .learnDefaults) -> Set<String> {
        let c = PhraseCandidates(normalization: .standard, options: options)
        var out = Set<String>()
        var bytes = Array(body.utf8)
        bytes.withUnsafeMutableBytes { b in
            c.withNormalized(UnsafeRawBufferPointer(b)) { text in
                c.forEach(inNormalized: text) { kind, piece in
                    if kind == .text { out.insert(String(decoding: piece, as: UTF8.self)) }
                }
            }
        }
        return out
    }

    func testProposalsKeepHygiene() {
        let got = Self.candidates("Free  £5 :-) at www.x.com! ฟรี 验证码 a b")
        XCTAssertTrue(got.contains("free"))
        XCTAssertTrue(got.contains("£5"), "a symbol beside a digit")
        XCTAssertTrue(got.contains(".com"))
        XCTAssertTrue(got.contains("ฟรี"))
        XCTAssertTrue(got.contains("验"), "one Han character")
        XCTAssertTrue(got.contains("a b"))
        XCTAssertFalse(got.contains(":-)"), "symbols alone")
        XCTAssertFalse(got.contains("a"), "one Latin letter")
        XCTAssertFalse(got.contains { $0.contains("  ") }, "double spaces")
        for g in got {
            XCTAssertTrue(g.unicodeScalars.contains { $0.properties.isAlphabetic || $0.properties.numericType != nil }, g)
            XCTAssertLessThanOrEqual(g.unicodeScalars.count, 4, g)
        }
        XCTAssertTrue(Self.candidates("line\none").allSatisfy { !$0.contains("\n") })
    }

    /// A model holding a message's proposals finds each of them in that message, and nothing else.
    func testTheClassifierFindsWhatLearnProposes() throws {
        var rng = Fixtures.SeededGenerator(seed: 2612)
        print("TextNGramTests seed 2612")
        let pieces = ["Free", "ENTRY", "call 0906", "£5", "www.win.com", "ฟรีเครดิต", "您的验证码是", "認証番号", "인증번호", "café",
                      "ДОСТАВКА", "x", "  ", "\t", "\n", "!!", "a-b", "ｆｒｅｅ", "e\u{301}", "😀", "\u{200B}"]
        for _ in 0..<150 {
            var body = ""
            for _ in 0..<Int.random(in: 1...8, using: &rng) { body += pieces.randomElement(using: &rng)! + [" ", "", ",", "  "].randomElement(using: &rng)! }
            let proposed = Self.candidates(body).sorted()
            guard !proposed.isEmpty else { continue }
            var lines = ["version: 1", "rules: []", "normalize: standard", "model:", "  targets: [junk, none]", "  bias: [0, 0]", "  phrases:"]
            for (i, p) in proposed.enumerated() {
                let quoted = p.unicodeScalars.map { $0 == "\"" || $0 == "\\" ? "\\\($0)" : String($0) }.joined()
                lines.append("    - [text, \"\(quoted)\", 1, \(Double(i % 5) * 0.1 + 0.1), -0.1]")
            }
            let set = try RuleSet.parse(yaml: lines.joined(separator: "\n") + "\n", file: "m.yaml")
            let c = Classifier(ruleSet: set)
            var features: [Int32] = []
            let bytes = Array(body.utf8)
            _ = bytes.withUnsafeBytes { c.modelFeatures(body: $0, into: &features) }
            let found = Set(features.map { set.definition.model!.phrases[Int($0)].text })
            XCTAssertEqual(found, Set(proposed), body.debugDescription)
            XCTAssertEqual(features.count, Set(features).count, "each phrase once")
        }
    }
}
