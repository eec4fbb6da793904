import Foundation
import TestSupport
import XCTest

/// `evaluate`'s figures are scikit-learn's (issue 32 item 4): the pins of Tests/Fixtures/sklearn/pins.json,
/// made by `python3 Scripts/pin-sklearn-f1.py --write` (scikit-learn's `f1_score(average="macro")`,
/// `accuracy_score` and per-class F1 on the y_true/y_pred `evaluate --predictions` wrote), replayed on the real
/// corpora without scikit-learn. Each pin holds the count of every (y_true, y_pred) pair it was made from: when
/// evaluate's predictions give the same pairs, its macro F1, accuracy and per-class F1 must be scikit-learn's to
/// the JSON's four decimals. Cases with a fixed user rule file (Tests/Fixtures/sklearn/thai-user-rules.yaml) must
/// give the pinned pairs; cases with the default rules and model follow those, so when they changed what they
/// predict the pin is reported stale (re-run the script) and only the formula below is checked.
///
/// Always checked, on every case: the headline equals scikit-learn's formula computed here from the predictions
/// file (labels = the union of y_true and y_pred, F1 = 2·tp / (2·tp + fp + fn), 0 without a true positive).
final class ScikitLearnPinTests: CLITestCase {
    struct Pins: Decodable {
        var sklearn: String
        var cases: [Case]
    }

    struct Case: Decodable {
        var name: String
        var corpus: String
        var arguments: [String]
        var fixedRules: Bool
        var scored: Int
        var pairs: [String: Int]
        var sklearn: Figures
    }

    struct Figures: Decodable {
        var macroF1: Double
        var accuracy: Double
        var f1: [String: Double]
    }

    /// The JSON's rounding (four decimals).
    static func rounded(_ x: Double) -> Double { (x * 10000).rounded() / 10000 }

    /// scikit-learn's macro F1 and per-class F1, by its definition, from the two sequences.
    static func formula(_ yTrue: [String], _ yPred: [String]) -> (macro: Double, f1: [String: Double]) {
        var tp: [String: Int] = [:], fp: [String: Int] = [:], fn: [String: Int] = [:]
        for (t, p) in zip(yTrue, yPred) {
            if t == p {
                tp[t, default: 0] += 1
            } else {
                fp[p, default: 0] += 1
                fn[t, default: 0] += 1
            }
        }
        var f1: [String: Double] = [:]
        for c in Set(yTrue).union(yPred) {
            let (a, b, d) = (tp[c] ?? 0, fp[c] ?? 0, fn[c] ?? 0)
            f1[c] = a == 0 ? 0 : Double(2 * a) / Double(2 * a + b + d)
        }
        return (f1.values.reduce(0, +) / Double(f1.count), f1)
    }

    func testEvaluateEqualsScikitLearnOnTheRealCorpora() throws {
        let corpora = try Corpora.forQualityFloor("ScikitLearnPinTests.testEvaluateEqualsScikitLearnOnTheRealCorpora")
        let pinsFile = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/sklearn/pins.json")
        let pins = try JSONDecoder().decode(Pins.self, from: Data(contentsOf: pinsFile))
        XCTAssertFalse(pins.cases.isEmpty)
        var matched = 0
        var stale: [String] = []
        for c in pins.cases {
            let corpus = corpora.appendingPathComponent(c.corpus).path
            guard FileManager.default.fileExists(atPath: corpus) else {
                if Corpora.required { XCTFail("\(corpus) is missing") }
                continue
            }
            let predictions = path("predictions.jsonl")
            // Paths in the arguments are relative to the package root.
            let arguments = c.arguments.map { $0.hasPrefix("Tests/") ? Fixtures.packageRoot.appendingPathComponent($0).path : $0 }
            let r = try run(["evaluate", corpus] + arguments + ["--predictions", predictions, "--json-file", "-", "--quiet", "--force"])
            XCTAssertEqual(r.status, 0, "\(c.name): \(r.err)")
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], c.name)
            var yTrue: [String] = [], yPred: [String] = []
            for line in try String(contentsOfFile: predictions, encoding: .utf8).split(separator: "\n") {
                let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], c.name)
                yTrue.append(try XCTUnwrap(o["y_true"] as? String, c.name))
                yPred.append(try XCTUnwrap(o["y_pred"] as? String, c.name))
            }
            XCTAssertEqual(yTrue.count, report["scored"] as? Int, c.name)
            let macro = try XCTUnwrap(report["macroF1"] as? Double, c.name)
            let classes = try XCTUnwrap(report["classes"] as? [String: [String: Any]], c.name)
            let formula = Self.formula(yTrue, yPred)
            XCTAssertEqual(macro, Self.rounded(formula.macro), accuracy: 1e-9, "\(c.name): the formula on the predictions file")
            XCTAssertEqual(Set(classes.keys), Set(formula.f1.keys), c.name)

            var pairs: [String: Int] = [:]
            for (t, p) in zip(yTrue, yPred) { pairs["\(t)\t\(p)", default: 0] += 1 }
            guard pairs == c.pairs else {
                let message = "\(c.name): the predictions are not those scikit-learn's figures were pinned on (re-run python3 Scripts/pin-sklearn-f1.py --write)"
                if c.fixedRules { XCTFail(message + ": this case's rules are fixed, so classification itself changed") } else { stale.append(c.name) }
                print("STALE " + message)
                continue
            }
            matched += 1
            XCTAssertEqual(macro, Self.rounded(c.sklearn.macroF1), accuracy: 1e-9, "\(c.name): macro F1 vs scikit-learn \(pins.sklearn)")
            XCTAssertEqual(report["accuracy"] as? Double ?? -1, Self.rounded(c.sklearn.accuracy), accuracy: 1e-9, "\(c.name): accuracy")
            for (name, f1) in c.sklearn.f1 {
                XCTAssertEqual(classes[name]?["f1"] as? Double ?? -1, Self.rounded(f1), accuracy: 1e-9, "\(c.name): F1 of \(name)")
            }
            print(String(format: "QUALITY sklearn %@: evaluate %.4f, scikit-learn %.6f", c.name, macro, c.sklearn.macroF1))
        }
        print("ScikitLearnPinTests: \(matched) of \(pins.cases.count) cases equal scikit-learn's pinned figures" + (stale.isEmpty ? "" : "; stale: \(stale.joined(separator: ", "))"))
        XCTAssertGreaterThan(matched, 0, "no case matched its pin")
    }
}
