import Foundation
import TestSupport
import XCTest
@testable import MessageFilter

// The model's phrases found by one Aho-Corasick automaton (`_ModelAutomaton.swift`, chosen by
// SMSFILTER_MODEL_SCAN=automaton when the model is compiled) against the hashed scan
// (`_ModelFeatures.swift`) on the same model: the same phrases, added to the sums in the same order (scores
// bit for bit), the same first spans and main script.

final class ModelAutomatonTests: XCTestCase {
    /// `set` compiled again with the model's phrases in one automaton.
    static func automatonTwin(_ set: RuleSet) throws -> RuleSet {
        setenv("SMSFILTER_MODEL_SCAN", "automaton", 1)
        defer { unsetenv("SMSFILTER_MODEL_SCAN") }
        return try RuleSet(definition: set.definition, source: "automaton twin")
    }

    /// Checks every body under `set` and its automaton twin; returns the number of bodies with a phrase.
    @discardableResult
    func check(_ set: RuleSet, _ bodies: [[UInt8]], _ what: String) throws -> Int {
        let twin = try Self.automatonTwin(set)
        XCTAssertNil(set.model?.automaton, what)
        XCTAssertNotNil(twin.model?.automaton, what)
        let hashed = Classifier(ruleSet: set)
        let automaton = Classifier(ruleSet: twin)
        var a: [Int32] = []
        var b: [Int32] = []
        var withPhrases = 0
        var failures = 0
        for body in bodies {
            let (want, got) = body.withUnsafeBytes {
                (_ReferenceModelScan.hashed(hashed, $0, features: &a), _ReferenceModelScan.hashed(automaton, $0, features: &b))
            }
            if !want.features.isEmpty { withPhrases += 1 }
            if want != got {
                failures += 1
                XCTFail("\(what) \(set.definition.normalization) body \(String(decoding: body, as: UTF8.self).debugDescription) \(body)\n  hashed:    \(want)\n  automaton: \(got)")
                if failures > 5 { break }
            }
        }
        return withPhrases
    }

    /// A model of what `smsfilter learn` proposes by default on `bodies` (word uni- and bigrams, text n-grams of
    /// 1–4 characters) plus the default model's kinds (character trigrams, digit pieces), at most `limit`.
    static func learnedLike(_ mode: TextNormalization, _ bodies: [[UInt8]], limit: Int, seed: UInt64) throws -> RuleSet {
        var seen = Set<String>()
        var phrases: [(ModelDefinition.MatchKind, String)] = []
        var options = PhraseCandidates.Options.learnDefaults
        options.charNGrams = 3...3
        options.digitNGrams = 2...5
        let candidates = PhraseCandidates(normalization: mode, options: options)
        for body in bodies {
            body.withUnsafeBytes { raw in
                candidates.withNormalized(raw) { normalized in candidates.forEach(inNormalized: normalized) { kind, bytes in
                    let text = String(decoding: bytes, as: UTF8.self)
                    // (Phrases must be valid UTF-8 without control characters to be written as YAML here, and distinct once
                    // normalised and case-folded, as the model's compiler compares them.)
                    guard text.utf8.elementsEqual(bytes), !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }),
                          seen.insert("\(kind.name) " + Self.folded(mode == .none ? text : mode.apply(text))).inserted else { return }
                    phrases.append((kind, text))
                } }
            }
        }
        var rng = Fixtures.SeededGenerator(seed: seed)
        phrases.shuffle(using: &rng)
        var list = Array(phrases.prefix(limit))
        // Phrases the parser still reads as one (YAML drops some invisible characters) are left out, by its
        // own message naming them.
        let duplicate = try NSRegularExpression(pattern: #"model\.phrases\[(\d+)\]: phrase .* is given twice"#)
        while true {
            do {
                return try ModelTextTests.model(mode, phrases: list)
            } catch {
                let message = "\(error)"
                let found = duplicate.matches(in: message, range: NSRange(message.startIndex..., in: message)).compactMap {
                    Range($0.range(at: 1), in: message).flatMap { Int(message[$0]) }
                }
                guard !found.isEmpty else { throw error }
                for i in Set(found).sorted(by: >) where i < list.count { list.remove(at: i) }
            }
        }
    }

    static func folded(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { Unicode.Scalar(_ScalarFlags.shared.fold($0.value))! }))
    }

    func testOneAutomatonFindsWhatTheHashedScanFindsOnHostileText() throws {
        let bodies = ModelReferenceScanTests.hostile(seed: 29, count: 3000) + (try GeneratedFixture.records().map { Array($0.body.utf8) })
        let found = try check(RuleSet.embeddedDefault, bodies, "default model")
        XCTAssertGreaterThan(found, bodies.count / 2)
        for mode in TextNormalization.allCases {
            let harvested = try ModelReferenceScanTests.harvested(mode, Array(bodies.prefix(1500)), limit: 4000, seed: 29 + UInt64(mode.rawValue))
            try check(harvested, bodies, "harvested model")
            let learned = try Self.learnedLike(mode, Array(bodies.prefix(1500)), limit: 6000, seed: 31 + UInt64(mode.rawValue))
            XCTAssertTrue(try XCTUnwrap(learned.definition.model).phrases.contains { $0.kind == .text })
            XCTAssertGreaterThan(try check(learned, bodies, "learned-like model"), bodies.count / 2)
        }
    }

    /// Every line of the real corpora under the default model and models proposed from a sample of them.
    func testOneAutomatonFindsWhatTheHashedScanFindsOnRealCorpora() throws {
        let folder = try Corpora.forQualityFloor("ModelAutomatonTests.testOneAutomatonFindsWhatTheHashedScanFindsOnRealCorpora")
        var bodies: [[UInt8]] = []
        for name in ["uci_sms_spam.jsonl.zst", "thai_sms.jsonl.zst", "india_bank_sms.jsonl.zst", "nus_sms_zh.jsonl.zst"] {
            let lines = try GeneratedFixture.decompressed(folder.appendingPathComponent(name).path).split(separator: 0x0A)
            for line in lines {
                let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
                bodies.append(Array(try XCTUnwrap(o["body"] as? String).utf8))
            }
        }
        XCTAssertGreaterThan(try check(RuleSet.embeddedDefault, bodies, "default model"), bodies.count / 3)
        var rng = Fixtures.SeededGenerator(seed: 2029)
        let sample = (0..<3000).map { _ in bodies.randomElement(using: &rng)! }
        let learned = try Self.learnedLike(.standard, sample, limit: 12000, seed: 2029)
        try check(learned, bodies, "learned-like model")
    }

    /// The automaton's lists, lent by `withTables`, hold every index the scan reads unchecked in range: one meta
    /// entry per match state (0 unused), each state's list inside `entry`, the word phrases last and of kind
    /// `word`, every entry a feature of the model with its pattern's length and route.
    func testTheAutomatonsTablesHoldTheScansIndicesInRange() throws {
        let bodies = ModelReferenceScanTests.hostile(seed: 37, count: 500)
        for set in [RuleSet.embeddedDefault, try Self.learnedLike(.standard, bodies, limit: 3000, seed: 37)] {
            let twin = try Self.automatonTwin(set)
            let model = try XCTUnwrap(twin.definition.model)
            let m = try XCTUnwrap(twin.model?.automaton)
            m.withTables { t in
                XCTAssertEqual(t.state.count, m.matchStateCount + 1)
                XCTAssertEqual(t.length.count, model.phrases.count)
                XCTAssertEqual(t.route.count, model.phrases.count)
                var listed = 0
                for state in 1...m.matchStateCount {
                    let info = t.state[state]
                    let first = Int(info >> 32), plain = Int((info >> 16) & 0xFFFF), words = Int(info & 0xFFFF)
                    XCTAssertGreaterThan(plain + words, 0, "state \(state)")
                    XCTAssertLessThanOrEqual(first + plain + words, t.entry.count, "state \(state)")
                    for (k, f) in t.entry[first..<min(t.entry.count, first + plain + words)].enumerated() {
                        let phrase = model.phrases[Int(f)]
                        XCTAssertEqual(phrase.kind == .word, k >= plain, "state \(state) feature \(f)")
                        XCTAssertGreaterThan(t.length[Int(f)], 0)
                        XCTAssertEqual(t.route[Int(f)] == 1, phrase.kind == .text)
                    }
                    listed += plain + words
                }
                XCTAssertEqual(listed, t.entry.count)
            }
        }
    }
}
