import Foundation
import MessageFilter
import TestSupport
import XCTest

@testable import BatchPipeline

/// `Evaluator` on a small hand-made corpus, every figure computed by hand.
final class EvaluateTests: TemporaryFolderTestCase {
    static let rulesYAML = """
        version: 1
        rules:
          - name: win-prize
            action: junk
            keywords: [prize]
          - name: sale
            action: promotion
            subAction: promotionalOffers
            keywords: [sale]
          - name: otp
            action: transaction
            subAction: transactionalOthers
            priority: 5
            keywords: [code]
          - name: never
            action: junk
            keywords: [zzzzqqq]
        """

    static let ruleSet = try! RuleSet.parse(yaml: rulesYAML, file: "eval.yaml")

    /// Nine records. Scored: 1–7. Record 8 has an unmapped label, record 9 none.
    ///
    /// | # | body | truth | rules that fire | winner → action | correct (spam=junk, ham=none) |
    /// |---|---|---|---|---|---|
    /// | 1 | you won a prize | spam | win-prize | junk | yes |
    /// | 2 | big sale today | spam | sale | promotion | no |
    /// | 3 | prize sale | spam | win-prize, sale (conflict) | junk (earlier match) | yes |
    /// | 4 | your code is 1234 | ham | otp | transaction | no |
    /// | 5 | hello there | ham | – | none | yes |
    /// | 6 | sale code 55 | ham | sale, otp (conflict) | transaction (priority) | no |
    /// | 7 | see you | ham | – | none | yes |
    /// | 8 | prize | weird | win-prize | junk | unmapped |
    /// | 9 | hello | – | – | none | no truth |
    static let corpus = """
        {"id": "1", "body": "you won a prize", "label": "spam"}
        {"id": "2", "body": "big sale today", "label": "spam"}
        {"id": "3", "body": "prize sale", "label": "spam"}
        {"id": "4", "body": "your code is 1234", "label": "ham"}
        {"id": "5", "body": "hello there", "label": "ham"}
        {"id": "6", "body": "sale code 55", "label": "ham"}
        {"id": "7", "body": "see you", "label": "ham"}
        {"id": "8", "body": "prize", "label": "weird"}
        {"id": "9", "body": "hello"}

        """

    func evaluate(_ map: String, by: TruthMapping.Granularity? = nil) throws -> EvaluationReport {
        var options = EvaluationOptions(mapping: try TruthMapping.parse(map))
        options.granularity = by
        return try runEvaluator(over: Self.corpus, options: options)
    }

    func testFiguresEqualHandComputedValues() throws {
        let r = try evaluate("spam=junk,ham=none")
        XCTAssertEqual(r.granularity, .action)
        XCTAssertEqual(r.records, 9)
        XCTAssertEqual(r.scored, 7)
        XCTAssertEqual(r.correct, 4)
        XCTAssertEqual(r.withoutTruth, 1)
        XCTAssertEqual(r.unmapped, ["weird": 1])
        XCTAssertEqual(r.accuracy!, 4.0 / 7.0, accuracy: 1e-12)

        let none = 0, junk = 2, promotion = 3, transaction = 4
        XCTAssertEqual(r.classNames, ["none", "allow", "junk", "promotion", "transaction"])
        // scikit-learn's classes: the targets junk and none, then the columns no target accepts (only
        // predicted here: promotion, record 2; transaction, records 4 and 6).
        let s = r.scores
        XCTAssertEqual(s.names, ["junk", "none", "allow", "promotion", "transaction"])
        XCTAssertEqual(s.scoredClasses.map { s.names[$0] }, ["junk", "none", "promotion", "transaction"])
        let (sj, sn, sp, st) = (0, 1, 3, 4)
        // junk: predicted 2 (1, 3), both right; missed: record 2.
        XCTAssertEqual(s.predicted(sj), 2)
        XCTAssertEqual(s.truePositives(sj), 2)
        XCTAssertEqual(s.falseNegatives(sj), 1)
        XCTAssertEqual(s.precision(sj), 1.0)
        XCTAssertEqual(s.recall(sj), 2.0 / 3.0, accuracy: 1e-12)
        XCTAssertEqual(s.f1(sj), 0.8, accuracy: 1e-12)
        // none: predicted 2 (5, 7), both right; missed: 4 and 6.
        XCTAssertEqual(s.precision(sn), 1.0)
        XCTAssertEqual(s.recall(sn), 0.5)
        XCTAssertEqual(s.f1(sn), 2.0 / 3.0, accuracy: 1e-12)
        // promotion: predicted once, wrongly; no record is truly promotion (zero_division=0).
        XCTAssertEqual(s.precision(sp), 0)
        XCTAssertEqual(s.recall(sp), 0)
        XCTAssertEqual(s.f1(sp), 0)
        XCTAssertEqual(s.falsePositives(st), 2)
        XCTAssertEqual(s.support(sj), 3)
        XCTAssertEqual(s.support(sn), 4)
        XCTAssertEqual(s.support(st), 0)
        // scikit-learn 1.9.1 on these y_true/y_pred (Scripts/pin-sklearn-f1.py, "hand"): 0.3666666666666667.
        XCTAssertEqual(r.macroF1!, 0.3666666666666667, accuracy: 1e-12)
        XCTAssertEqual(r.accuracy!, s.accuracy!, accuracy: 1e-12)
        _ = (none, junk, promotion, transaction)

        // Confusion: rows spam, ham, weird; columns per action.
        XCTAssertEqual(r.labels, ["spam", "ham", "weird"])
        XCTAssertEqual(r.confusion[0], [0, 0, 2, 1, 0])
        XCTAssertEqual(r.confusion[1], [2, 0, 0, 0, 2])
        XCTAssertEqual(r.confusion[2], [0, 0, 1, 0, 0])
        XCTAssertEqual(r.confusionColumns, [none, junk, promotion, transaction])

        // Per truth label: spam 2 of 3 right, and both records predicted junk were spam.
        XCTAssertEqual(r.labelTotals[0].records, 3)
        XCTAssertEqual(r.labelTotals[0].correct, 2)
        XCTAssertEqual(r.labelTotals[0].precision!, 1.0)
        XCTAssertEqual(r.labelTotals[0].recall!, 2.0 / 3.0, accuracy: 1e-12)
        XCTAssertEqual(r.labelTotals[1].recall!, 0.5)
        XCTAssertEqual(r.macroF1Labels!, (0.8 + 2.0 / 3.0) / 2, accuracy: 1e-12)

        // Rules.
        let rule = Dictionary(uniqueKeysWithValues: r.rules.map { ($0.name, $0) })
        XCTAssertEqual(rule["win-prize"]!.hits, 3)  // 1, 3, 8
        XCTAssertEqual(rule["win-prize"]!.fired, 3)
        XCTAssertEqual(rule["win-prize"]!.scoredHits, 2)
        XCTAssertEqual(rule["win-prize"]!.precision!, 1.0)
        XCTAssertEqual(rule["sale"]!.hits, 1)  // 2
        XCTAssertEqual(rule["sale"]!.fired, 3)  // 2, 3, 6
        XCTAssertEqual(rule["sale"]!.precision!, 0)
        XCTAssertEqual(rule["otp"]!.hits, 2)  // 4, 6
        XCTAssertEqual(rule["otp"]!.precision!, 0)
        XCTAssertEqual(rule["never"]!.fired, 0)
        XCTAssertNil(rule["never"]!.precision)
        XCTAssertEqual(r.neverFired, ["never"])
        XCTAssertEqual(r.ruleTruePositives, 2)

        // Conflicts: records 3 and 6.
        XCTAssertEqual(r.conflicts, 2)
        let names = r.ruleNames
        XCTAssertEqual(
            Set(r.conflictPairs.map { "\(names[$0.key.winner])>\(names[$0.key.other])=\($0.value)" }), ["win-prize>sale=1", "otp>sale=1"])
        XCTAssertEqual(r.conflictExamples.map(\.id), ["3", "6"])
        XCTAssertEqual(r.conflictExamples[1].winner, "otp")
        XCTAssertEqual(r.conflictExamples[1].winnerFolder, "Transactions/Others")
        XCTAssertEqual(r.conflictExamples[1].others.map(\.rule), ["sale"])
        XCTAssertEqual(r.conflictExamples[1].truth, "ham")

        // JSON carries the same figures.
        let json = try JSONSerialization.jsonObject(with: r.jsonData()) as! [String: Any]
        XCTAssertEqual(json["scored"] as? Int, 7)
        XCTAssertEqual(json["accuracy"] as? Double, 0.5714)
        let classes = json["classes"] as! [String: [String: Any]]
        XCTAssertEqual(Set(classes.keys), ["junk", "none", "promotion", "transaction"])
        XCTAssertEqual(classes["junk"]?["f1"] as? Double, 0.8)
        XCTAssertEqual(classes["junk"]?["accepts"] as? [String], ["junk"])
        XCTAssertEqual(classes["junk"]?["target"] as? Bool, true)
        XCTAssertEqual(classes["transaction"]?["target"] as? Bool, false)
        XCTAssertEqual(classes["none"]?["recall"] as? Double, 0.5)
        XCTAssertEqual(json["macroF1"] as? Double, 0.3667)
        XCTAssertEqual(json["macroF1Labels"] as? Double, 0.7333)
        XCTAssertNil(json["macroF1Classes"])
        XCTAssertEqual((json["labels"] as! [String: [String: Any]])["spam"]?["class"] as? String, "junk")
        let rules = json["rules"] as! [String: [String: Any]]
        XCTAssertEqual(rules["win-prize"]?["shareOfTruePositives"] as? Double, 1.0)
        XCTAssertEqual(rules["sale"]?["hits"] as? Int, 1)
        XCTAssertEqual(json["neverFired"] as? [String], ["never"])
        let confusion = json["confusion"] as! [String: Any]
        XCTAssertEqual(confusion["cells"] as? [[Int]], [[0, 2, 1, 0], [2, 0, 0, 2], [0, 1, 0, 0]])
        XCTAssertEqual((json["conflicts"] as! [String: Any])["records"] as? Int, 2)
    }

    /// A rule that fired is credited (`firedCorrect`, the JSON's `firedPrecision`) when its own class is
    /// among the record's targets, whether it won or lost, never because the final verdict was right: a
    /// rule that fired and lost on a record the winner got right is not credited, and a rule that fired
    /// and lost on a record whose truth is its own class is. Same corpus, two mappings, by hand:
    ///
    /// `spam=junk,ham=none`: `sale` (promotion) fires on 2 (spam: wrong, it wins), 3 (spam: it loses to
    /// `win-prize`, which is right; promotion is not junk) and 6 (ham: it loses to `otp`): 3 scored, 0
    /// credited. `win-prize` (junk) on 1, 3: 2 of 2. `otp` (transaction) on 4, 6: 0 of 2.
    ///
    /// `spam=junk,ham=none|promotion`: record 6 (ham) now accepts promotion: `sale` lost there to `otp`,
    /// whose transaction is wrong, yet `sale`'s own class is a target: 1 of 3. `otp`: 0 of 2.
    func testAFiredRuleIsCreditedByItsOwnClassNotByTheVerdict() throws {
        func fired(_ r: EvaluationReport, _ name: String) throws -> (scored: Int, correct: Int, precision: Double?) {
            let row = try XCTUnwrap(r.rules.first { $0.name == name }, name)
            let json = try XCTUnwrap((r.jsonObject()["rules"] as? [String: Any])?[name] as? [String: Any], name)
            return (row.scoredFired, row.firedCorrect, json["firedPrecision"] as? Double)
        }
        let plain = try evaluate("spam=junk,ham=none")
        XCTAssertEqual(plain.correct, 4)
        let sale = try fired(plain, "sale")
        XCTAssertEqual(sale.scored, 3)
        XCTAssertEqual(sale.correct, 0, "sale lost on record 3, which win-prize got right: its promotion was still wrong")
        XCTAssertEqual(sale.precision, 0)
        let prize = try fired(plain, "win-prize")
        XCTAssertEqual(prize.scored, 2)
        XCTAssertEqual(prize.correct, 2)
        XCTAssertEqual(prize.precision, 1)
        let otp = try fired(plain, "otp")
        XCTAssertEqual(otp.scored, 2)
        XCTAssertEqual(otp.correct, 0)

        let wider = try evaluate("spam=junk,ham=none|promotion")
        // Record 6 is predicted transaction: still wrong, so the overall figures stay as before.
        XCTAssertEqual(wider.correct, 4)
        let sale2 = try fired(wider, "sale")
        XCTAssertEqual(sale2.scored, 3)
        XCTAssertEqual(sale2.correct, 1, "sale lost on record 6 to a wrong verdict, but promotion is one of its targets")
        XCTAssertEqual(try XCTUnwrap(sale2.precision), 0.3333, accuracy: 1e-9)
        XCTAssertEqual(try fired(wider, "otp").correct, 0)
    }

    /// A rule set with a learned model: the model gets its own row (after the rules) with the records it
    /// decided; it used to index past the rule rows and crash. Same corpus, the hand rules plus a model of
    /// priority 3 (below `otp`, priority 5) whose only phrase is `won` (junk) and whose bias favours none.
    /// A model with none of its phrases in a message abstains (docs/RULES.md §10), so the model decides
    /// record 1 only (junk: `won`, 2 − 0.5 = 1.5 > 0.5 − 2; spam→junk, correct); `otp` decides 4 and 6;
    /// the other rules the rest: `win-prize` 3 (earliest match) and 8, `sale` 2, none 5, 7, 9. Scored
    /// records 1–7; correct: 1, 3 (spam→junk) and 5, 7 (ham→none): 4.
    func testAModelHasItsOwnRow() throws {
        let yaml = Self.rulesYAML + """

            model:
              name: learned
              priority: 3
              targets: [junk, none]
              bias: [-0.5, 0.5]
              phrases:
                - [word, "won", 1.0, 2.0, -2.0]
            """
        let set = try RuleSet.parse(yaml: yaml, file: "m.yaml")
        let report = try runEvaluator(over: Self.corpus, ruleSet: set, options: EvaluationOptions(mapping: try TruthMapping.parse("spam=junk,ham=none")))
        XCTAssertEqual(report.rules.count, 5)
        let model = try XCTUnwrap(report.rules.last)
        XCTAssertTrue(model.isModel)
        XCTAssertEqual(model.name, "learned")
        XCTAssertEqual(model.folderText, "(model: per message)")
        XCTAssertEqual(model.hits, 1)
        XCTAssertEqual(model.fired, 1)
        XCTAssertEqual(model.scoredHits, 1)
        XCTAssertEqual(model.correct, 1)
        XCTAssertEqual(report.rules.first { $0.name == "otp" }?.hits, 2)
        XCTAssertEqual(report.rules.first { $0.name == "win-prize" }?.hits, 2)
        XCTAssertEqual(report.rules.first { $0.name == "sale" }?.hits, 1)
        XCTAssertEqual(report.correct, 4)
        XCTAssertFalse(report.neverFired.contains("learned"))
        let json = report.jsonObject()
        let rules = try XCTUnwrap(json["rules"] as? [String: Any])
        XCTAssertEqual((rules["learned"] as? [String: Any])?["hits"] as? Int, 1)
        XCTAssertTrue(report.table().contains("learned"))
    }

    func testTargetListsAndFolderGranularity() throws {
        // spam may be junk or promotion: record 2 is now right.
        let r = try evaluate("spam=junk|promotion,ham=none")
        XCTAssertEqual(r.correct, 5)
        // One class for the whole target list, with the label's support once (not once per action).
        let jp = try XCTUnwrap(r.scores.index(of: "junk|promotion"))
        XCTAssertEqual(r.scores.truePositives(jp), 3)
        XCTAssertEqual(r.scores.support(jp), 3)
        XCTAssertEqual(r.scores.f1(jp), 1)
        XCTAssertNil(r.scores.index(of: "junk"))
        // scikit-learn ("list"): 0.5555555555555555.
        XCTAssertEqual(r.macroF1!, 0.5555555555555555, accuracy: 1e-12)
        XCTAssertEqual(r.rules.first { $0.name == "sale" }!.precision!, 1.0)
        // A folder target switches to per-folder scoring; `other` accepts none and allow.
        let f = try evaluate("spam=Promotions/Offers|junk,ham=other")
        XCTAssertEqual(f.granularity, .folder)
        XCTAssertEqual(f.correct, 5)
        let spam = try XCTUnwrap(f.scores.index(of: "Promotions/Offers|junk"))
        XCTAssertEqual(f.scores.accepts(f, spam), ["Promotions/Offers", "Junk"])
        XCTAssertEqual(f.scores.truePositives(spam), 3)
        // other accepts Unknown Senders and Inbox; Transactions/Others is only predicted (records 4 and 6).
        XCTAssertEqual(f.scores.truePositives(try XCTUnwrap(f.scores.index(of: "other"))), 2)
        XCTAssertEqual(f.scores.predicted(try XCTUnwrap(f.scores.index(of: "Transactions/Others"))), 2)
        // `ignore` leaves a label out of the scores.
        let i = try evaluate("spam=junk,ham=ignore")
        XCTAssertEqual(i.scored, 3)
        XCTAssertEqual(i.ignored, 4)
        // Per action on request, even with a folder target.
        let a = try evaluate("spam=Promotions/Offers|Junk,ham=none", by: .action)
        XCTAssertEqual(a.granularity, .action)
        XCTAssertEqual(a.correct, 5)
    }

    func testMappingParsing() throws {
        let m = try TruthMapping.parse("spam=junk|promotion, ham=none,x=Transactions/Public_Services,y=other,z=INBOX")
        XCTAssertEqual(m.targets(of: "spam"), [.action(.junk), .action(.promotion)])
        XCTAssertEqual(m.targets(of: "x"), [.folder(.transactionsPublicServices)])
        XCTAssertEqual(m.targets(of: "y"), [.other])
        XCTAssertEqual(m.targets(of: "z"), [.action(.allow)])
        XCTAssertEqual(m.granularity, .folder)
        XCTAssertThrowsError(try TruthMapping.parse("spam=jank"))
        XCTAssertThrowsError(try TruthMapping.parse("spam"))
        XCTAssertThrowsError(try TruthMapping.parse("a=junk,a=none"))
        let yaml = folder.appendingPathComponent("map.yaml").path
        try "# Thai corpus\nOTP: transaction\nscam: junk   # phishing\nspam: [promotion, junk]\n\"OK\": other\n".write(
            toFile: yaml, atomically: true, encoding: .utf8)
        let y = try TruthMapping.load(path: yaml)
        XCTAssertEqual(y.entries.map(\.label), ["OTP", "scam", "spam", "OK"])
        XCTAssertEqual(y.targets(of: "spam"), [.action(.promotion), .action(.junk)])
        XCTAssertEqual(y.granularity, .action)
        let json = folder.appendingPathComponent("map.json").path
        try #"{"spam": ["junk", "promotion"], "ham": "none"}"#.write(toFile: json, atomically: true, encoding: .utf8)
        XCTAssertEqual(try TruthMapping.load(path: json).targets(of: "spam"), [.action(.junk), .action(.promotion)])
    }

    func testHTMLIsSelfContainedAndNamesTheKeyFigures() throws {
        let r = try evaluate("spam=junk,ham=none")
        let html = r.html()
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        XCTAssertFalse(html.lowercased().contains("<script"))
        XCTAssertFalse(html.contains("http://") && html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").contains("http://"))
        XCTAssertFalse(html.contains("https://"))
        XCTAssertEqual(html.components(separatedBy: "<svg").count - 1, 2)  // bar chart and heat map
        XCTAssertTrue(html.contains(Self.ruleSet.checksum))
        XCTAssertTrue(html.contains("57.1%"))  // accuracy
        XCTAssertTrue(html.contains("Confusion matrix"))
        XCTAssertTrue(html.contains("never"))
        // Bodies and labels are escaped.
        XCTAssertEqual(EvaluationReport.escape("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;")
        // The table.
        let table = r.table()
        XCTAssertTrue(table.contains("accuracy 57.1%"))
        XCTAssertTrue(table.contains("rules that never fired: 1 of 4: never"))
        XCTAssertTrue(table.contains("conflicts (rules of different folders fired on one record): 2"))
    }
}

extension EvaluationReport {
    var ruleNames: [String] { rules.map(\.name) }
}

extension ClassScores {
    /// The columns (action or folder names) class `c` of `report` accepts.
    func accepts(_ report: EvaluationReport, _ c: Int) -> [String] { report.scoreAccepts[c].map { report.classNames[$0] } }
}
