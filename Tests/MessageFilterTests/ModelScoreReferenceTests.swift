import AhoCorasick
import Foundation
import TestSupport
import XCTest
@testable import MessageFilter

/// The scores of the fast paths (the one-message path behind `explain` and the batch path behind
/// `classify(buffer:messages:)`, with its packed per-feature rows and lockstep scan) against a
/// straightforward computation: the present phrases found by brute force (every substring of the
/// normalised text looked up in a set of part phrases; every run of whole words separated by single spaces
/// in a set of word phrases), then `bias + Σ weight / sqrt(Σ idf²)` summed in phrase order. The model is the
/// embedded default (9,947 phrases: English words and pairs, digit pieces, symbols, Thai trigrams); the
/// messages are the real corpora when present and seeded generated ones always.
final class ModelScoreReferenceTests: XCTestCase {
    struct Reference {
        let model: ModelDefinition
        var parts: [[UInt8]: Int] = [:]
        var words: [[UInt8]: Int] = [:]
        var longestPart = 0
        var mostWords = 0

        init(_ model: ModelDefinition) {
            self.model = model
            for (f, p) in model.phrases.enumerated() {
                let bytes = Self.lowerASCII(Array(TextNormalization.standard.apply(p.text).utf8))
                if p.kind == .part {
                    parts[bytes] = f
                    longestPart = max(longestPart, bytes.count)
                } else {
                    words[bytes] = f
                    mostWords = max(mostWords, bytes.filter { $0 == 0x20 }.count + 1)
                }
            }
        }

        static func lowerASCII(_ b: [UInt8]) -> [UInt8] { b.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 } }

        /// The phrases present in `body`, ascending.
        func present(_ body: String) -> [Int] {
            let hay = Self.lowerASCII(Array(TextNormalization.standard.apply(body).utf8))
            var found = Set<Int>()
            // Part phrases: any substring.
            for i in 0..<hay.count {
                var n = 1
                while n <= longestPart && i + n <= hay.count {
                    if let f = parts[Array(hay[i..<(i + n)])] { found.insert(f) }
                    n += 1
                }
            }
            // Word runs: maximal runs of letters, numbers and marks (Unicode's properties, asked directly).
            var runs: [Range<Int>] = []
            var i = 0
            var start = -1
            while i < hay.count {
                var j = i + 1
                while j < hay.count && hay[j] & 0xC0 == 0x80 { j += 1 }
                let scalar = String(decoding: hay[i..<j], as: UTF8.self).unicodeScalars.first!
                let word = hay[i] >= 0x80 ? AhoCorasick.isWordScalar(scalar)
                    : (hay[i] >= 0x30 && hay[i] <= 0x39) || (hay[i] >= 0x61 && hay[i] <= 0x7A)
                if word, start < 0 { start = i }
                if !word, start >= 0 {
                    runs.append(start..<i)
                    start = -1
                }
                i = j
            }
            if start >= 0 { runs.append(start..<hay.count) }
            // Word phrases: one run, or consecutive runs separated by exactly one ASCII space.
            for r in runs.indices {
                var text = Array(hay[runs[r]])
                var k = r
                while true {
                    if let f = words[text] { found.insert(f) }
                    guard k + 1 < runs.count, k + 1 - r < mostWords, runs[k + 1].lowerBound == runs[k].upperBound + 1,
                          hay[runs[k].upperBound] == 0x20 else { break }
                    k += 1
                    text += [0x20] + hay[runs[k]]
                }
            }
            return found.sorted()
        }

        func scores(_ present: [Int]) -> [Double] {
            let norm = present.reduce(0.0) { $0 + Double(model.phrases[$1].idf) * Double(model.phrases[$1].idf) }.squareRoot()
            return model.targets.indices.map { t in
                Double(model.bias[t]) + (norm > 0 ? present.reduce(0.0) { $0 + Double(model.phrases[$1].weights[t]) } / norm : 0)
            }
        }
    }

    static func files(_ action: Action) -> Bool { action == .junk || action == .promotion }

    /// `body` with every link `_URLScanner` finds replaced by spaces, or nil when it holds none.
    static func linkFree(_ body: String) -> String? {
        var bytes = Array(body.utf8)
        let spans: [Range<Int>] = bytes.withUnsafeBytes { b in
            var scanner = _URLScanner(b)
            var out: [Range<Int>] = []
            while let u = scanner.next() { out.append(u.start..<u.end) }
            return out
        }
        guard !spans.isEmpty else { return nil }
        for r in spans { for i in r { bytes[i] = 0x20 } }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(b)) }

    func testFastPathsScoreAsTheReference() throws {
        var bodies = ModelTextTests.messages(seed: 13, count: 400)
        var rng = Fixtures.seededGenerator("ModelScoreReferenceTests", defaultSeed: 0x5C0E)
        // Generated messages made of the model's own phrases (so many are present), with glue between them.
        let phrases = DefaultModel.definition.phrases.map(\.text)
        for _ in 0..<400 {
            var s = ""
            for _ in 0..<Int.random(in: 1...10, using: &rng) {
                s += phrases.randomElement(using: &rng)!
                s += [" ", "", " ", ", ", "!", "1", "ก", "  "].randomElement(using: &rng)!
            }
            bodies.append(Bool.random(using: &rng) ? s.uppercased() : s)
        }
        if let folder = Corpora.folder {
            for name in ["uci_sms_spam.jsonl.zst", "thai_sms.jsonl.zst"] {
                let records = try DefaultRulesTests.corpus(name, in: folder)
                bodies += stride(from: 0, to: records.count, by: 7).map { records[$0].body }
            }
        }
        var d = RuleSetDefinition()
        d.normalization = .standard
        let set = try RuleSet(definition: d.withModel(DefaultModel.definition), source: "default model alone")
        let model = try XCTUnwrap(set.model)
        let reference = Reference(DefaultModel.definition)
        let c = Classifier(ruleSet: set)
        let s = try XCTUnwrap(c.modelScratch)
        var present = 0
        // The batch path, a batch at a time (its slots hold the batch's scores afterwards).
        for first in stride(from: 0, to: bodies.count, by: Classifier.batchSize) {
            let batch = Array(bodies[first..<min(bodies.count, first + Classifier.batchSize)])
            let verdicts = MessageBatch(bodies: batch).verdicts(c)
            var features: [Int32] = []
            for (k, body) in batch.enumerated() {
                let want = reference.present(body)
                if s.slots[k].pending {
                    // Left unscored: only when the message's main script is one the model abstains on (the
                    // one-message path finds the script; slot 0 is rewritten, its message checked already).
                    let script = Array(body.utf8).withUnsafeBytes { c.modelFeatures(body: $0, into: &features) }
                    XCTAssertTrue(DefaultModel.definition.abstains(on: script), "\(body.debugDescription): unscored, script \(script)")
                    XCTAssertNotEqual(verdicts[k].rule, Int32(set.definition.rules.count), body.debugDescription)
                    if !want.isEmpty { present += 1 }
                    continue
                }
                let scores = reference.scores(want)
                let best = scores.indices.max { scores[$0] < scores[$1] || (scores[$0] == scores[$1] && $0 > $1) }!
                if !want.isEmpty { present += 1 }
                XCTAssertEqual(s.slots[k].evidence, !want.isEmpty, body.debugDescription)
                let winner = Int(s.slots[k].winner)
                // The winner, unless the reference's top two are within rounding of each other.
                let tie = scores.indices.contains { $0 != best && Self.close(scores[$0], scores[best]) }
                if !tie { XCTAssertEqual(winner, best, body.debugDescription) }
                XCTAssertTrue(Self.close(s.slots[k].score, scores[winner]), "\(body.debugDescription): \(s.slots[k].score) vs \(scores[winner])")
                // The model decides when a phrase is present, it speaks on the message's script, and the winner
                // leads the runner-up by its margin (unless the margin is within rounding of the one needed).
                let definition = DefaultModel.definition
                let second = scores.indices.filter { $0 != winner }.map { scores[$0] }.max()!
                let margin = scores[winner] - second
                let needed = definition.margins.isEmpty ? 0 : Double(definition.margins[winner])
                XCTAssertTrue(Self.close(s.slots[k].margin, margin), "\(body.debugDescription): margin \(s.slots[k].margin) vs \(margin)")
                var decides = !want.isEmpty && !definition.abstains(on: s.slots[k].script) && margin >= needed
                // Links need company (`links: company`): a verdict that files the message for its links alone
                // is no decision; the reference scores the body with its links blanked out.
                if decides, definition.linksNeedCompany, Self.files(model.targets[winner].action), let free = Self.linkFree(body) {
                    let freeWant = reference.present(free)
                    let freeScores = reference.scores(freeWant)
                    let freeBest = freeScores.indices.max { freeScores[$0] < freeScores[$1] || (freeScores[$0] == freeScores[$1] && $0 > $1) }!
                    if freeWant.isEmpty || !Self.files(model.targets[freeBest].action) { decides = false }
                }
                if !Self.close(margin, needed) {
                    XCTAssertEqual(verdicts[k].rule == Int32(set.definition.rules.count), decides, body.debugDescription)
                    if decides { XCTAssertEqual(verdicts[k].action, model.targets[winner].action, body.debugDescription) }
                }
            }
        }
        // The one-message path: every target's score, and the phrases present.
        var features: [Int32] = []
        for body in bodies.prefix(600) {
            let want = reference.present(body)
            let bytes = Array(body.utf8)
            _ = bytes.withUnsafeBytes { c.modelFeatures(body: $0, into: &features) }
            XCTAssertEqual(features.map(Int.init).sorted(), want, body.debugDescription)
            let scores = reference.scores(want)
            for t in scores.indices {
                XCTAssertTrue(Self.close(s.scores[t], scores[t]), "\(body.debugDescription) target \(t): \(s.scores[t]) vs \(scores[t])")
            }
        }
        // The test means something only if most messages hold phrases.
        XCTAssertGreaterThan(present, bodies.count / 2)
        print("ModelScoreReferenceTests: \(bodies.count) messages, \(present) with model phrases")
    }
}
