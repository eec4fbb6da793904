import TestSupport
import XCTest
@testable import MessageFilter

final class RuleFileTests: XCTestCase {
    func issues(_ yaml: String) -> [String] {
        RuleSet.resolve(yaml: yaml, file: "rules.yaml").issues.map(\.description)
    }

    /// Fails for each of `expected` that no issue of `got` starts with.
    func assertEach(of expected: [String], startsAnIssueIn got: [String], file: StaticString = #filePath, line: UInt = #line) {
        for e in expected {
            XCTAssertTrue(got.contains { $0.hasPrefix(e) }, "missing \(e) in\n\(got.joined(separator: "\n"))", file: file, line: line)
        }
    }

    func testMinimalFileFromSpec() throws {
        let set = try RuleSet.parse(yaml: """
            version: 1
            capabilities: [transactionalFinance, transactionalOrders, promotionalCoupons]  # omit: all twelve
            rules:
              - name: bank-debit
                action: transaction                 # none | allow | junk | promotion | transaction
                subAction: transactionalFinance     # Apple's sub-action names
                keywords: [debited, "a/c", "txn of"]
            \(RuleYAML.coupon)
            """, file: "rules.yaml")
        XCTAssertEqual(set.ruleNames, ["bank-debit", "coupon"])
        XCTAssertEqual(set.capabilities.subActions, [.transactionalFinance, .transactionalOrders, .promotionalCoupons])
        XCTAssertEqual(set.definition.rules[1].priority, 10)
        XCTAssertEqual(set.definition.rules[0].priority, 0)
        XCTAssertEqual(set.definition.rules[0].caseFold, .ascii)
        XCTAssertEqual(set.definition.rules[1].line, 8)
    }

    func testUnknownSubActionNamesFileLineFieldAndSuggests() {
        let got = issues("""
            version: 1
            rules:
              - name: a
                action: transaction
                subAction: finance
                keywords: [x]
            """)
        XCTAssertEqual(got.count, 1)
        XCTAssertTrue(got[0].hasPrefix("rules.yaml:5: rules[0].subAction: unknown sub-action \"finance\"; valid: none, transactionalOthers, transactionalFinance"), got[0])
        XCTAssertTrue(got[0].hasSuffix("did you mean \"transactionalFinance\"?"), got[0])
    }

    func testEveryBadFieldIsNamed() {
        let got = issues("""
            version: 2
            capabilitys: []
            rules:
              - name: a
                action: junck
                keywords: [x]
              - name: a
                action: allow
                keywords: [y]
              - name: c
                action: promotion
                priority: high
              - name: d
                action: allow
                keywords: [z]
                sender: {kind: [shortcode], suffix: [X]}
              - name: e
                action: allow
                caseFold: turkish
                wholeWord: maybe
                keywords: ["", ok]
              - action: junk
                keywords: [k]
            """)
        let expect = [
            "rules.yaml:1: version: unsupported version",
            "rules.yaml:2: capabilitys: unknown key \"capabilitys\"",
            "rules.yaml:5: rules[0].action: unknown action \"junck\"; valid: none, allow, junk, promotion, transaction; did you mean \"junk\"?",
            "rules.yaml:7: rules[1].name: duplicate rule name \"a\"",
            "rules.yaml:12: rules[2].priority: expected an integer",
            "rules.yaml:16: rules[3].sender.kind[0]: unknown sender kind \"shortcode\"",
            "rules.yaml:16: rules[3].sender.suffix[0]: unknown TRAI suffix \"X\"; valid: P, S, T, G",
            "rules.yaml:19: rules[4].caseFold: unknown case folding \"turkish\"; valid: ascii, unicode",
            "rules.yaml:20: rules[4].wholeWord: expected true or false",
            "rules.yaml:21: rules[4].keywords[0]: empty phrase",
            "rules.yaml:22: rules[5].name: missing",
        ]
        assertEach(of: expect, startsAnIssueIn: got)
        XCTAssertTrue(got.contains { $0.contains("did you mean \"capabilities\"") })
        XCTAssertTrue(got.contains { $0.contains("did you mean \"shortCode\"") })
    }

    /// `unlessSender` takes one sender condition or a non-empty list of them; each is checked as `sender` is,
    /// and an `unlessSender` alone is no condition (the rule must still say what it fires on).
    func testUnlessSenderIsCheckedLikeSender() {
        let got = issues("""
            version: 1
            rules:
              - {name: a, action: junk, keywords: [x], unlessSender: []}
              - {name: b, action: junk, keywords: [x], unlessSender: [{suffix: [T]}, {kind: [shortcode]}]}
              - {name: c, action: junk, keywords: [x], unlessSender: {}}
              - {name: d, action: junk, unlessSender: {suffix: [T]}}
            """)
        let expect = [
            "rules.yaml:3: rules[0].unlessSender: expected a sender condition or a non-empty list of them",
            "rules.yaml:4: rules[1].unlessSender[1].kind[0]: unknown sender kind \"shortcode\"",
            "rules.yaml:5: rules[2].unlessSender: empty sender condition",
            "rules.yaml:6: rules[3]: rule \"d\" has no condition",
        ]
        assertEach(of: expect, startsAnIssueIn: got)
        XCTAssertTrue(issues("version: 1\nrules:\n  - {name: a, action: junk, keywords: [x], unlessSender: {suffix: [T]}}\n").isEmpty)
    }

    func testRuleWithoutConditionAndBadYAML() {
        XCTAssertTrue(issues("version: 1\nrules:\n  - name: a\n    action: junk\n")[0].contains("has no condition"))
        let bad = issues("version: 1\nrules: [\n")
        XCTAssertEqual(bad.count, 1)
        XCTAssertTrue(bad[0].hasPrefix("rules.yaml:"), bad[0])
        XCTAssertTrue(bad[0].contains("not valid YAML"))
        XCTAssertTrue(issues("rules: []")[0].contains("version: missing"))
    }

    func testThrowsRuleFileError() {
        XCTAssertThrowsError(try RuleSet.parse(yaml: "version: 1\nrules:\n  - name: a\n    action: nope\n    keywords: [x]\n", file: "r.yaml")) { e in
            XCTAssertTrue(e is RuleFileError)
            XCTAssertTrue("\(e)".hasPrefix("r.yaml:4: rules[0].action"), "\(e)")
        }
    }

    func testListsRelativeToRuleFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "14085550001\n14085550003\n".write(to: dir.appendingPathComponent("block.txt"), atomically: true, encoding: .utf8)
        try "14085550002\tAcme Bank\n".write(to: dir.appendingPathComponent("ids.tsv"), atomically: true, encoding: .utf8)
        let yaml = "version: 1\nblockList: block.txt\nidentificationList: ids.tsv\nrules:\n  - name: otp\n    action: transaction\n    keywords: [otp]\n"
        let path = dir.appendingPathComponent("rules.yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        let set = try RuleSet.load(path: path)
        let c = Classifier(ruleSet: set)
        let blocked = c.classify(sender: "+1 408 555 0001", body: "your otp is 1234")
        XCTAssertEqual(blocked.action, .junk)
        XCTAssertEqual(blocked.list, .blockList)
        XCTAssertEqual(blocked.rule, -1)
        let known = c.classify(sender: "+14085550002", body: "your otp is 1234")
        XCTAssertEqual(known.action, .allow)
        XCTAssertEqual(known.folder, .inbox)
        XCTAssertEqual(set.label(at: Int(known.label)), "Acme Bank")
        XCTAssertEqual(c.classify(sender: "+14085550004", body: "your otp is 1234").action, .transaction)

        try "14085550003\n14085550001\n".write(to: dir.appendingPathComponent("block.txt"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try RuleSet.load(path: path)) { e in
            XCTAssertTrue("\(e)".contains("rules.yaml:2: blockList: "), "\(e)")
            XCTAssertTrue("\(e)".contains("block.txt:2: entriesOutOfOrder"), "\(e)")
        }
        XCTAssertThrowsError(try RuleSet.load(path: dir.appendingPathComponent("nope.yaml").path)) { e in
            XCTAssertEqual((e as? RuleSetLoadError)?.kind, .fileMissing)
        }
    }
}
