import Foundation
import TestSupport
import XCTest

/// `smsfilter learn --rules BASE` calibrates, per (rule action, target) pair, the margin at which the model
/// overrules a firing base rule below it (docs/RULES.md §10, row 6b): on a corpus where the base rule `prize`
/// (junk) also fires on chat about a quiz prize, held-out overrules of it by none are right, so a margin is
/// found, written into the model and used; with fewer held-out overrules than `--min-overrules` the model
/// never overrules such a rule; a model learned without `--rules` has no table and overrules whenever it decides.
final class OverruleCalibrationTests: CLITestCase {
    static let base = """
        version: 1
        rules:
          - {name: prize, action: junk, priority: 10, keywords: [prize]}

        """

    /// 200 spam messages that name a prize (the rule is right), 200 chats about a quiz prize (the rule is wrong),
    /// 200 other chats.
    func corpus() throws -> String {
        var rng = Fixtures.SeededGenerator(seed: 2020)
        let spam = ["claim your cash prize now", "you won a prize call 09061 now", "urgent prize draw txt WIN to 8007", "free prize entry reply YES"]
        let chat = ["mum says the quiz prize is a cake", "we won the pub quiz prize tonight", "dinner at home then the prize giving at school",
                    "your sister got the art prize, call her later"]
        let other = ["see you at home", "are you coming for dinner", "ok call me later", "thanks for the lunch"]
        var out = ""
        for i in 0..<600 {
            let (pool, label) = [(spam, "spam"), (chat, "ham"), (other, "ham")][i % 3]
            let body = pool[Int(rng.next() % 4)] + ", " + pool[Int(rng.next() % 4)]
            let o: [String: Any] = ["id": "m\(i)", "body": body, "label": label]
            out += String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]), as: UTF8.self) + "\n"
        }
        return try write("train.jsonl", out)
    }

    func learn(_ extra: [String], output: String) throws -> [String: Any] {
        let rules = try write("base.yaml", Self.base)
        let r = try run(["learn", "--json", "--rules", rules, "--map", "spam=junk,ham=none", "--priority", "50", "--precision-target", "0.98", "-o", path(output)] + extra + [try corpus()])
        XCTAssertEqual(r.status, 0, r.err)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
    }

    func row(_ report: [String: Any], rule: String, target: String) throws -> [String: Any] {
        let rows = try XCTUnwrap(report["overrules"] as? [[String: Any]], "\(report.keys)")
        return try XCTUnwrap(rows.first { $0["script"] as? String == "latin" && $0["rule"] as? String == rule && $0["target"] as? String == target }, "\(rows)")
    }

    static let chat = "mum says the quiz prize is a cake, see you at home"

    func testRightOverrulesGetAMarginTheClassifierUses() throws {
        let report = try learn([], output: "m.yaml")
        let c = try row(report, rule: "junk", target: "none")
        XCTAssertEqual(c["calibrated"] as? Bool, true, "\(c)")
        let cases = try XCTUnwrap(c["cases"] as? Int), kept = try XCTUnwrap(c["kept"] as? Int)
        let keptRight = try XCTUnwrap(c["keptRight"] as? Int)
        // About 200 chats about a prize, held out: the model says none where the rule says junk.
        XCTAssertGreaterThanOrEqual(cases, 150, "\(c)")
        XCTAssertGreaterThanOrEqual(kept, 20, "\(c)")
        XCTAssertGreaterThanOrEqual(Double(keptRight), 0.98 * Double(kept), "\(c)")
        let margin = try XCTUnwrap(c["margin"] as? Double, "\(c)")
        XCTAssertGreaterThanOrEqual(margin, 0)
        // Pairs with no held-out case never overrule: a none rule (there is none here) by junk.
        XCTAssertEqual(try row(report, rule: "none", target: "junk")["margin"] as? String, "never")
        XCTAssertEqual(report["minimumOverrules"] as? Int, 20)
        // Written into the model, in the YAML the file holds.
        let yaml = try String(contentsOfFile: path("m.yaml"), encoding: .utf8)
        XCTAssertTrue(yaml.contains("\n  overrules:\n    latin:\n      none: {\"junk\": never}\n      junk: {\"none\": \(Float(margin))}\n"), yaml)
        // The classifier overrules the rule with none: the chat about a prize is not junk, and explain names the
        // margin. Spam is still junk.
        let e = try run(["explain", "--rules", path("m.yaml"), Self.chat])
        XCTAssertEqual(e.status, 0, e.err)
        XCTAssertTrue(e.out.hasSuffix("folder: Unknown Senders\n"), e.out)
        XCTAssertTrue(e.out.contains("; overrules rule \"prize\" (junk) with none: margin "), e.out)
        XCTAssertTrue(e.out.contains(", needs \((margin * 10000).rounded() / 10000) (its calibrated overrule margin)"), e.out)
        let spam = try run(["explain", "-q", "--rules", path("m.yaml"), "claim your cash prize now, free prize entry reply YES"])
        XCTAssertEqual(spam.out, "Junk\n")
        // The same through a compiled .smsf.
        XCTAssertEqual(try run(["compile", "-q", path("m.yaml"), "-o", path("m.smsf")]).status, 0)
        XCTAssertEqual(try run(["explain", "-q", "--rules", path("m.smsf"), Self.chat]).out, "Unknown Senders\n")
        // learn's summary (on standard error) names the pair.
        let text = try run(["learn", "--rules", path("base.yaml"), "--map", "spam=junk,ham=none", "--priority", "50", "--precision-target", "0.98", "-f", "-o", path("t.yaml"), path("train.jsonl")])
        XCTAssertEqual(text.status, 0, text.err)
        XCTAssertTrue(text.err.contains("overrules (held out, per main script; margin a target needs to overrule a rule of another action):\n  latin: junk rule by none: "), text.err)
    }

    func testTooFewOverrulesNeverOverrule() throws {
        let report = try learn(["--min-overrules", "1000"], output: "m.yaml")
        let c = try row(report, rule: "junk", target: "none")
        XCTAssertEqual(c["calibrated"] as? Bool, false, "\(c)")
        XCTAssertEqual(c["margin"] as? String, "never", "\(c)")
        XCTAssertLessThan(c["cases"] as? Int ?? .max, 1000)
        XCTAssertEqual(report["minimumOverrules"] as? Int, 1000)
        let yaml = try String(contentsOfFile: path("m.yaml"), encoding: .utf8)
        XCTAssertTrue(yaml.contains("\n    latin:\n      none: {\"junk\": never}\n      junk: {\"none\": never}\n"), yaml)
        // The rule decides, and explain says the model would overrule it but never may.
        let e = try run(["explain", "--rules", path("m.yaml"), Self.chat])
        XCTAssertTrue(e.out.hasSuffix("folder: Junk\n"), e.out)
        XCTAssertTrue(e.out.contains("; would overrule rule \"prize\" (junk) with none: margin "), e.out)
        XCTAssertTrue(e.out.contains(", needs never (calibrated overrule margin)"), e.out)
        XCTAssertTrue(e.out.contains("abstained: it would overrule rule \"prize\" (junk) with none"), e.out)
    }

    func testAModelLearnedWithoutRulesHasNoTableAndOverrulesWheneverItDecides() throws {
        let train = try corpus()
        let r = try run(["learn", "--json", "--map", "spam=junk,ham=none", "--priority", "50", "--precision-target", "0.98", "-o", path("m.yaml"), train])
        XCTAssertEqual(r.status, 0, r.err)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        XCTAssertNil(report["overrules"])
        let model = try String(contentsOfFile: path("m.yaml"), encoding: .utf8)
        XCTAssertFalse(model.contains("overrules"), model)
        // The same model beside the base rule: it overrules `prize` on its own margin.
        let joined = try write("joined.yaml", Self.base
            + model.split(separator: "\n", omittingEmptySubsequences: false).drop { !$0.hasPrefix("normalize:") }.joined(separator: "\n"))
        let e = try run(["explain", "--rules", joined, Self.chat])
        XCTAssertEqual(e.status, 0, e.err)
        XCTAssertTrue(e.out.hasSuffix("folder: Unknown Senders\n"), e.out)
        XCTAssertTrue(e.out.contains("(no overrule margin calibrated; its own margin)"), e.out)
    }
}
