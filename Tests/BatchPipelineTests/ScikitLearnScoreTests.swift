import Foundation
import MessageFilter
import TestSupport
import XCTest

@testable import BatchPipeline

/// evaluate's headline is scikit-learn's `f1_score(y_true, y_pred, average="macro")` on the y_true/y_pred it
/// defines (docs/EVALUATE.md, "Figures"). The figures pinned here are scikit-learn 1.9.1's on fixed sequences
/// (`python3 Scripts/pin-sklearn-f1.py --unit` prints them), so no test needs scikit-learn; the pins on the
/// real corpora are in SMSFilterCLITests.ScikitLearnPinTests.
final class ScikitLearnScoreTests: TemporaryFolderTestCase {
    /// scikit-learn's figures on fixed sequences: (y_true, y_pred, macro F1, accuracy, F1 per sorted class).
    static let pinned: [(name: String, yTrue: [String], yPred: [String], macro: Double, accuracy: Double, f1: [String: Double])] = [
        ("A", ["spam", "spam", "spam", "ham", "ham", "ham", "ham", "OK", "OK"],
         ["spam", "ham", "transaction", "ham", "ham", "spam", "promo", "OK", "ham"], 0.3133333333333333, 0.4444444444444444,
         ["OK": 0.6666666666666666, "ham": 0.5, "promo": 0, "spam": 0.4, "transaction": 0]),
        ("B", ["a", "a", "b", "b", "c"], ["a", "b", "b", "b", "a"], 0.43333333333333335, 0.6, ["a": 0.5, "b": 0.8, "c": 0]),
        ("hand", ["junk", "junk", "junk", "none", "none", "none", "none"],
         ["junk", "promotion", "junk", "transaction", "none", "transaction", "none"], 0.3666666666666667, 0.5714285714285714,
         ["junk": 0.8, "none": 0.6666666666666666, "promotion": 0, "transaction": 0]),
        ("list", ["junk|promotion", "junk|promotion", "junk|promotion", "none", "none", "none", "none"],
         ["junk|promotion", "junk|promotion", "junk|promotion", "transaction", "none", "transaction", "none"], 0.5555555555555555,
         0.7142857142857143, ["junk|promotion": 1, "none": 0.6666666666666666, "transaction": 0]),
    ]

    func testClassScoresEqualScikitLearnOnFixedSequences() {
        for p in Self.pinned {
            let s = ClassScores(yTrue: p.yTrue, yPred: p.yPred)
            XCTAssertEqual(s.macroF1!, p.macro, accuracy: 1e-12, p.name)
            XCTAssertEqual(s.accuracy!, p.accuracy, accuracy: 1e-12, p.name)
            XCTAssertEqual(s.scoredClasses.map { s.names[$0] }, p.f1.keys.sorted(), p.name)
            for (name, f1) in p.f1 { XCTAssertEqual(s.f1(s.index(of: name)!), f1, accuracy: 1e-12, "\(p.name) \(name)") }
        }
    }

    // MARK: issue 33's unpinned behaviours

    /// A class that is only predicted (no record's truth) counts as F1 0 in the macro mean, as scikit-learn's
    /// labels are the union of y_true and y_pred: `[a, a]` predicted `[a, b]` is (2/3 + 0) / 2, not 2/3. On the
    /// hand corpus with `spam=junk,ham=none`, promotion and transaction are only predicted: (0.8 + 2/3 + 0 + 0) / 4.
    func testAClassOnlyPredictedCountsF1ZeroInTheMacroMean() throws {
        let s = ClassScores(yTrue: ["a", "a"], yPred: ["a", "b"])
        XCTAssertEqual(s.macroF1!, 1.0 / 3.0, accuracy: 1e-12)
        let r = try evaluate("spam=junk,ham=none")
        XCTAssertEqual(r.macroF1!, (0.8 + 2.0 / 3.0) / 4, accuracy: 1e-12)
        XCTAssertEqual(r.jsonObject()["macroF1"] as? Double, 0.3667)
    }

    /// A truth label nothing was predicted into adds F1 0 to the per-label mean (it is not left out): with
    /// `spam=allow,ham=none` no record lands in Inbox, so spam's F1 is 0 and the mean is (0 + 2/3) / 2.
    func testATruthLabelNeverPredictedAddsF1ZeroToThePerLabelMean() throws {
        let r = try evaluate("spam=allow,ham=none")
        let spam = try XCTUnwrap(r.labels.firstIndex(of: "spam"))
        XCTAssertEqual(r.labelTotals[spam].records, 3)
        XCTAssertEqual(r.labelTotals[spam].predictedInto, 0)
        XCTAssertEqual(r.labelTotals[spam].f1, 0)
        XCTAssertEqual(r.macroF1Labels!, (0 + 2.0 / 3.0) / 2, accuracy: 1e-12)
        // scikit-learn's view agrees here: allow is a class with support 3 and F1 0.
        let allow = try XCTUnwrap(r.scores.index(of: "allow"))
        XCTAssertEqual(r.scores.support(allow), 3)
        XCTAssertEqual(r.scores.f1(allow), 0)
    }

    // MARK: y_true and y_pred

    /// A target list is one class (its support counted once, not once per action); labels whose targets accept
    /// the same actions share it, whatever the order or spelling (`other` = `none|allow`); a wrong prediction
    /// counts as the class of the first label, in mapping order, that accepts it, even one with no record.
    func testTargetClassesAndWhereAWrongPredictionGoes() throws {
        let shared = try evaluate("spam=junk|promotion,ham=other,x=promotion|junk,y=allow|none")
        XCTAssertEqual(Array(shared.scores.names.prefix(2)), ["junk|promotion", "other"])
        XCTAssertEqual(shared.scores.support(0), 3)
        XCTAssertEqual(shared.scores.support(1), 4)
        XCTAssertEqual(shared.targetClass["x"], 0)
        XCTAssertEqual(shared.targetClass["y"], 1)
        // Records 4 and 6 (ham) are predicted transaction: first accepted by p1 (transaction), not by p2.
        let wrong = try evaluate("spam=junk,ham=none,p1=transaction,p2=transaction|promotion")
        let p1 = try XCTUnwrap(wrong.scores.index(of: "transaction"))
        let p2 = try XCTUnwrap(wrong.scores.index(of: "transaction|promotion"))
        XCTAssertEqual(wrong.scores.predicted(p1), 2)
        XCTAssertEqual(wrong.scores.support(p1), 0)
        // Record 2 (spam) is predicted promotion: only p2 accepts it.
        XCTAssertEqual(wrong.scores.predicted(p2), 1)
        // Classes: junk, none, transaction, transaction|promotion; scikit-learn: (0.8 + 2/3 + 0 + 0) / 4.
        XCTAssertEqual(wrong.macroF1!, (0.8 + 2.0 / 3.0) / 4, accuracy: 1e-12)
        XCTAssertEqual(try predictions(wrong: true).map(\.yPred), ["junk", "transaction|promotion", "junk", "transaction", "none", "transaction", "none"])
    }

    /// `--predictions`: one JSON line per scored record, in input order, with the id, the label, y_true, y_pred
    /// and the action predicted; scikit-learn's formula over the file gives the headline. Compressed by name.
    func testPredictionsFileGivesTheHeadline() throws {
        for name in ["p.jsonl", "p.jsonl.zst", "p.jsonl.gz"] {
            let path = folder.appendingPathComponent(name).path
            let r = try evaluate("spam=junk|promotion,ham=other", predictions: path)
            var data = try Data(contentsOf: URL(fileURLWithPath: path))
            if name.hasSuffix(".zst") { data = try Fixtures.run("zstd", ["-dcq", path]).stdout }
            if name.hasSuffix(".gz") { data = try Fixtures.run("gzip", ["-dc", path]).stdout }
            let lines = try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
                try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            XCTAssertEqual(lines.count, r.scored, name)
            XCTAssertEqual(lines.map { $0["id"] as? String }, ["1", "2", "3", "4", "5", "6", "7"], name)
            XCTAssertEqual(lines.map { $0["label"] as? String }, ["spam", "spam", "spam", "ham", "ham", "ham", "ham"], name)
            XCTAssertEqual(lines.map { $0["predicted"] as? String }, ["junk", "promotion", "junk", "transaction", "none", "transaction", "none"], name)
            let yTrue = lines.map { $0["y_true"] as! String }
            let yPred = lines.map { $0["y_pred"] as! String }
            XCTAssertEqual(yTrue, ["junk|promotion", "junk|promotion", "junk|promotion", "other", "other", "other", "other"], name)
            XCTAssertEqual(yPred, ["junk|promotion", "junk|promotion", "junk|promotion", "transaction", "other", "transaction", "other"], name)
            XCTAssertEqual(ClassScores(yTrue: yTrue, yPred: yPred).macroF1!, r.macroF1!, accuracy: 1e-12, name)
            XCTAssertEqual(r.macroF1!, 0.5555555555555555, accuracy: 1e-12, name)
        }
        // A record without an id has "id": null.
        var options = EvaluationOptions(mapping: try TruthMapping.parse("spam=junk"))
        options.predictions = path("noid.out")
        _ = try runEvaluator(over: #"{"body": "prize", "label": "spam"}"# + "\n", in: "noid.jsonl", options: options)
        let line = try String(contentsOfFile: path("noid.out"), encoding: .utf8)
        XCTAssertEqual(line, #"{"id": null, "label": "spam", "y_true": "junk", "y_pred": "junk", "predicted": "junk"}"# + "\n")
    }

    // MARK: --ignore-case

    /// With ``TruthMapping/ignoringCase()`` `Spam` and `SPAM` are the mapping's `spam` (one row, one class), an
    /// unmapped `Foo`/`FOO` is counted once as `foo`; without it they are unmapped. Two mapped labels that
    /// differ only in case must agree on their targets.
    func testIgnoreCaseGroupsLabels() throws {
        let corpus = """
            {"id": "1", "body": "you won a prize", "label": "spam"}
            {"id": "2", "body": "prize draw", "label": "Spam"}
            {"id": "3", "body": "a prize", "label": "SPAM"}
            {"id": "4", "body": "hello", "label": "Ham"}
            {"id": "5", "body": "hi", "label": "ham"}
            {"id": "6", "body": "hi", "label": "Foo"}
            {"id": "7", "body": "hi", "label": "FOO"}

            """
        func run(_ mapping: TruthMapping) throws -> EvaluationReport {
            try runEvaluator(over: corpus, in: "case.jsonl", options: EvaluationOptions(mapping: mapping))
        }
        let exact = try run(TruthMapping.parse("spam=junk,ham=none"))
        XCTAssertEqual(exact.scored, 2)
        XCTAssertEqual(exact.unmapped, ["Spam": 1, "SPAM": 1, "Ham": 1, "Foo": 1, "FOO": 1])
        let folded = try run(TruthMapping.parse("spam=junk,ham=none").ignoringCase())
        XCTAssertEqual(folded.scored, 5)
        XCTAssertEqual(folded.correct, 5)
        XCTAssertEqual(folded.unmapped, ["foo": 2])
        XCTAssertEqual(folded.labels, ["spam", "ham", "foo"])
        XCTAssertEqual(folded.macroF1, 1)
        XCTAssertEqual(folded.jsonObject()["ignoreCase"] as? Bool, true)
        XCTAssertThrowsError(try TruthMapping.parse("spam=junk,Spam=none").ignoringCase())
        XCTAssertEqual(try TruthMapping.parse("spam=junk,Spam=junk").ignoringCase().entries.map(\.label), ["spam"])
        // identity: the folder `Junk` and the action `junk` are one label.
        let identity = try TruthMapping.identity.ignoringCase()
        XCTAssertEqual(identity.canonicalLabel("JUNK"), "Junk")
        XCTAssertEqual(identity.canonicalLabel("transactions/finance"), "Transactions/Finance")
    }

    // MARK: Helpers

    func evaluate(_ map: String, predictions: String? = nil) throws -> EvaluationReport {
        var options = EvaluationOptions(mapping: try TruthMapping.parse(map))
        options.predictions = predictions
        return try runEvaluator(over: EvaluateTests.corpus, options: options)
    }

    /// The y_true/y_pred of the hand corpus under `spam=junk,ham=none,p1=transaction,p2=transaction|promotion`.
    func predictions(wrong: Bool) throws -> [(yTrue: String, yPred: String)] {
        let path = folder.appendingPathComponent("wrong.jsonl").path
        _ = try evaluate("spam=junk,ham=none,p1=transaction,p2=transaction|promotion", predictions: path)
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String])
            return (o["y_true"]!, o["y_pred"]!)
        }
    }
}
