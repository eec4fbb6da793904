import Foundation
import TestSupport
import XCTest

/// `learn` at default options keeps its cross-validated spam F1 on the shared corpora (issue 32 item 5; docs/QUALITY.md,
/// "The learner beside its peers", where `make quality` measures it beside LinearSVC and fastText on the same folds).
/// The corpora and their maps are the learner list of Scripts/quality-corpora.json (what `make quality` measures);
/// the floors are here, a little under the figures measured with the release build. UCI's floor is held by
/// `LearnTests.testCrossValidatedQualityOnTheCorpora`. The spam figures are computed here from the confusion
/// `learn --cv 5 --json` reports (truth label → folder; spam = a label mapped to junk or promotion, filtered = Junk
/// or Promotions), not read from learn's own scores. Bodies are never printed.
final class LearnerFloorTests: CLITestCase {
    struct Entry: Decodable {
        var file: String
        var name: String
        var map: String
    }

    struct Config: Decodable {
        struct Learner: Decodable { var corpora: [Entry] }
        var learner: Learner
    }

    /// The floors: corpus name in the learner list → (folds, spam F1 floor). Measured 2026-12-07 with the release
    /// build of main at fbfd38a (`make quality`; debug builds decide the same); the goal of issue 32 is the best peer
    /// − 0.005 (Thai 0.9457, mudou 0.9694 in docs/QUALITY.md's table).
    static let floors: [(name: String, folds: Int, f1: Double, measured: String)] = [
        ("Thai", 5, 0.948, "0.9531"),
        ("mudou (Chinese)", 5, 0.972, "0.9764"),
    ]

    func entries() throws -> [String: Entry] {
        let url = Fixtures.packageRoot.appendingPathComponent("Scripts/quality-corpora.json")
        let config = try JSONDecoder().decode(Config.self, from: Data(contentsOf: url))
        return Dictionary(config.learner.corpora.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Spam precision, recall and F1 of a confusion (truth label → folder → count) under `map`.
    static func spam(_ confusion: [String: [String: Int]], map: String) -> (p: Double, r: Double, f1: Double, spam: Int) {
        var target: [String: String] = [:]
        for item in map.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            target[parts[0]] = parts[1]
        }
        var tp = 0, fp = 0, fn = 0
        for (label, row) in confusion {
            let isSpam = ["junk", "promotion"].contains(target[label] ?? "")
            for (folder, n) in row {
                let filtered = folder == "Junk" || folder.hasPrefix("Promotions")
                if filtered && isSpam { tp += n } else if filtered { fp += n } else if isSpam { fn += n }
            }
        }
        let p = tp + fp == 0 ? 0 : Double(tp) / Double(tp + fp)
        let r = tp + fn == 0 ? 0 : Double(tp) / Double(tp + fn)
        return (p, r, p + r == 0 ? 0 : 2 * p * r / (p + r), tp + fn)
    }

    func testSpamF1FloorsAtDefaultOptions() throws {
        let entries = try entries()
        for floor in Self.floors {
            let entry = try XCTUnwrap(entries[floor.name], "\(floor.name) is not in the learner list of Scripts/quality-corpora.json")
            let corpus = try qualityCorpus(entry.file)
            let r = try run(["learn", "--cv", String(floor.folds), "--json", "--quiet", "--map", entry.map, corpus], timeout: 600)
            XCTAssertEqual(r.status, 0, r.err)
            let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
            let cv = try XCTUnwrap(o["crossValidation"] as? [String: Any])
            let confusion = try XCTUnwrap(cv["confusion"] as? [String: [String: Int]], "\(floor.name): no confusion")
            let s = Self.spam(confusion, map: entry.map)
            print("QUALITY learn \(floor.name) spam, \(floor.folds)-fold CV at default options: P \(s.p) R \(s.r) F1 \(s.f1) (floor \(floor.f1), measured \(floor.measured))")
            XCTAssertEqual(confusion.values.reduce(0) { $0 + $1.values.reduce(0, +) }, o["used"] as? Int, "\(floor.name): every used record is in the confusion")
            // Binary maps: learn's own junk score is the same figure (one junk target, nothing else filtered).
            if let junk = (cv["targets"] as? [[String: Any]])?.first(where: { $0["target"] as? String == "junk" }), !entry.map.contains("promotion") {
                XCTAssertEqual(junk["f1"] as? Double ?? -1, s.f1, accuracy: 1e-9, "\(floor.name): learn's junk F1 and the confusion's")
            }
            XCTAssertGreaterThanOrEqual(s.f1, floor.f1, "\(floor.name): spam F1 below its floor")
        }
    }
}
