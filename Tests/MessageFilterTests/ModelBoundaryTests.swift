import Foundation
import XCTest
@testable import MessageFilter

/// Issue 33's behaviours no test pinned, on `ModelPrecedenceTests`' rule file with one change each: the edges
/// of docs/RULES.md §10 where a planted bug (`<` for `<=`, `>` for `≥`, a condition left out) passed every test.
final class ModelBoundaryTests: XCTestCase {
    /// `ModelPrecedenceTests.yaml` with `replacements` applied, its lists beside it, loaded.
    static func ruleSet(_ replacements: [(String, String)]) throws -> RuleSet {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("boundary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "447700900001\n".write(to: dir.appendingPathComponent("block.txt"), atomically: true, encoding: .utf8)
        try "447700900002\tMum\n".write(to: dir.appendingPathComponent("ids.tsv"), atomically: true, encoding: .utf8)
        var text = ModelPrecedenceTests.yaml.replacingOccurrences(of: "THRESHOLD", with: "null")
            .replacingOccurrences(of: "OVERRULES\n", with: "")
        for (old, new) in replacements {
            XCTAssertTrue(text.contains(old), "the fixture no longer holds \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        let path = dir.appendingPathComponent("boundary.yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return try RuleSet.load(path: path)
    }

    /// `explain`, checked against `classify` and the batch call.
    static func explain(_ set: RuleSet, _ body: String, sender: String? = nil, file: StaticString = #filePath, line: UInt = #line) -> Explanation {
        checkedExplanation(Classifier(ruleSet: set), sender: sender, body: body, file: file, line: line)
    }

    /// Row 5's edge: a model that learned exactly `minScriptMessages` (100) real messages of a script speaks on
    /// it; one that learned 99 abstains. ("ฟรี" says junk 2.8 against none 0.1.)
    func testExactlyMinScriptMessagesSpeaks() throws {
        for (thai, speaks) in [("[100, 0, 0]", true), ("[60, 40, 0]", true), ("[99, 0, 0]", false), ("[0, 0, 99]", false), ("[101, 0, 0]", true)] {
            let set = try Self.ruleSet([("thai: [5, 0, 0]", "thai: \(thai)")])
            let e = Self.explain(set, "รับฟรีทันที")
            let m = try XCTUnwrap(e.model)
            XCTAssertEqual(m.script, .thai, thai)
            XCTAssertEqual(m.targets[m.winner], "junk", thai)
            if speaks {
                XCTAssertEqual(e.verdict.folder.path, "Junk", thai)
                XCTAssertEqual(e.ruleName, "learned", thai)
                XCTAssertEqual(m.abstention, nil, thai)
            } else {
                XCTAssertEqual(e.verdict.folder.path, "Unknown Senders", thai)
                XCTAssertEqual(m.abstention, "script", thai)
            }
        }
    }

    /// Row 3's edge: a rule at exactly the model's priority (60) decides before the model; one just below it
    /// (59) is overruled by the model's junk ("win": junk by 2.7; it learned 150 Latin transactions, so it does not yield).
    func testARuleAtTheModelsPriorityDecides() throws {
        for (priority, decides) in [(60, true), (61, true), (59, false)] {
            let rule = "  - {name: deal, action: transaction, subAction: transactionalOrders, priority: \(priority), keywords: [deal]}\n"
            let set = try Self.ruleSet([("rules:\n", "rules:\n" + rule)])
            let e = Self.explain(set, "win a deal")
            if decides {
                XCTAssertEqual(e.ruleName, "deal", "priority \(priority)")
                XCTAssertEqual(e.verdict.folder.path, "Transactions/Orders", "priority \(priority)")
                XCTAssertEqual(e.model?.decided, false, "priority \(priority)")
            } else {
                XCTAssertEqual(e.ruleName, "learned", "priority \(priority)")
                XCTAssertEqual(e.verdict.folder.path, "Junk", "priority \(priority)")
            }
        }
    }

    /// Row 10's edge: only a transaction rule with sender conditions alone vouches for the message. The same
    /// sender condition with keywords does not: the model's junk stands (and it overrules that rule).
    func testASenderRuleWithKeywordsDoesNotVouch() throws {
        let withKeywords = "  - {name: bank-words, action: transaction, subAction: transactionalFinance, priority: 2, sender: {kind: [shortCode]}, keywords: [win]}\n"
        let set = try Self.ruleSet([("rules:\n", "rules:\n" + withKeywords)])
        let e = Self.explain(set, "win big", sender: "56161")
        XCTAssertEqual(e.model?.targets[e.model!.winner], "junk")
        XCTAssertEqual(e.ruleName, "learned")
        XCTAssertEqual(e.verdict.folder.path, "Junk")
        XCTAssertNotEqual(e.model?.abstention, "vouchedSender")
        XCTAssertTrue(e.rules.contains { $0.name == "bank-words" && $0.outcome.code == "lostToModel" }, "\(e.rules)")
        // The same condition alone vouches: the model's junk is not taken.
        let senderOnly = "  - {name: bank-sender, action: transaction, subAction: transactionalFinance, priority: 2, sender: {kind: [shortCode]}}\n"
        let vouching = Self.explain(try Self.ruleSet([("rules:\n", "rules:\n" + senderOnly)]), "win big", sender: "56161")
        XCTAssertEqual(vouching.model?.abstention, "vouchedSender")
        XCTAssertEqual(vouching.verdict.folder.path, "Transactions/Finance")
    }
}
