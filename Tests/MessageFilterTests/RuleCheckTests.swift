import XCTest
@testable import MessageFilter

final class RuleCheckTests: XCTestCase {
    func messages(_ r: RuleCheckReport) -> [String] { r.findings.map(\.description) }

    func testResolveErrorsFail() {
        let r = RuleChecker.check(yaml: "version: 1\nrules:\n  - {name: a, action: junc, keywords: [x]}\n", file: "r.yaml", target: .offline)
        XCTAssertEqual(r.verdict, .failure)
        XCTAssertEqual(r.findings.first?.phase, .resolve)
        XCTAssertEqual(r.findings.first?.line, 3)
        XCTAssertNil(r.ruleSet)
    }

    func testPairAndCapabilityWarningsDoNotFail() {
        let r = RuleChecker.check(yaml: """
            version: 1
            capabilities: [transactionalFinance]
            rules:
              - {name: a, action: transaction, subAction: promotionalCoupons, keywords: [x]}
              - {name: b, action: transaction, subAction: transactionalOrders, keywords: [y]}
              - {name: c, action: junk, subAction: transactionalFinance, keywords: [z]}
            """, file: "r.yaml", target: .ios)
        XCTAssertEqual(r.verdict, .ready, messages(r).joined(separator: "\n"))
        XCTAssertEqual(r.findings.map(\.severity), [.warning, .warning, .warning])
        XCTAssertTrue(messages(r)[0].hasPrefix("r.yaml:4: rules[0].subAction: \"a\": transaction + promotionalCoupons is an invalid pair"), messages(r)[0])
        XCTAssertTrue(messages(r)[1].contains("transactionalOrders is not declared"))
        XCTAssertTrue(messages(r)[2].contains("junk + transactionalFinance is an invalid pair"))
    }

    func testIOSTargetLimit() {
        let undeclared = RuleChecker.check(
            yaml: "version: 1\nrules:\n  - {name: a, action: transaction, subAction: transactionalFinance, keywords: [x]}\n", file: "r.yaml", target: .ios)
        XCTAssertEqual(undeclared.verdict, .failure)
        XCTAssertTrue(messages(undeclared).first?.contains("none declared, so all twelve") == true, "\(messages(undeclared))")
        // A rule set that gives no sub-action needs no capabilities (issue 21 item 20: a model learnt by action).
        XCTAssertEqual(RuleChecker.check(yaml: "version: 1\nrules:\n  - {name: a, action: junk, keywords: [x]}\n", file: "r.yaml", target: .ios).verdict, .ready)
        XCTAssertEqual(RuleChecker.check(yaml: "version: 1\nrules:\n  - {name: a, action: junk, keywords: [x]}\n", file: "r.yaml", target: .offline).verdict, .ready)
        let five = "version: 1\ncapabilities: [transactionalFinance, transactionalOrders, transactionalHealth, promotionalOffers, promotionalCoupons]\nrules:\n  - {name: a, action: junk, keywords: [x]}\n"
        XCTAssertEqual(RuleChecker.check(yaml: five, file: "r.yaml", target: .ios).verdict, .ready)
    }

    func testNeverFireAndDuplicates() {
        let r = RuleChecker.check(yaml: """
            version: 1
            rules:
              - {name: vetoed, action: junk, keywords: [win, winner], unless: [win]}
              - {name: group, action: junk, all: [[a1], [b1, b2]], unless: [b]}
              - {name: phone-trai, action: junk, sender: {countryCode: [91], entity: [HDFCBK]}}
              - {name: wide, action: junk, priority: 3, keywords: [otp], wholeWord: false}
              - {name: narrow, action: transaction, keywords: [your otp, otp is]}
              - {name: word, action: junk, priority: 3, keywords: [pin]}
              - {name: inside, action: transaction, keywords: [pin code, your pin], wholeWord: false}
              - {name: edges, action: transaction, keywords: [pin code, your pin]}
              - {name: whole, action: transaction, keywords: [your pin], wholeWord: true}
              - {name: x1, action: allow, keywords: [hello]}
              - {name: x2, action: junk, keywords: [HELLO]}
              - {name: x3, action: junk, keywords: [hello]}
            """, file: "r.yaml", target: .offline)
        let m = messages(r)
        XCTAssertEqual(r.verdict, .ready)
        XCTAssertTrue(m.contains { $0.contains("\"vetoed\" can never fire") }, "\(m)")
        XCTAssertTrue(m.contains { $0.contains("rules[1].all[1]: \"group\" can never fire") }, "\(m)")
        XCTAssertTrue(m.contains { $0.contains("\"phone-trai\" can never fire") }, "\(m)")
        XCTAssertTrue(m.contains { $0.contains("\"narrow\" can never win: whenever it fires, \"wide\"") }, "\(m)")
        XCTAssertTrue(m.contains { $0.contains("keyword \"hello\" is claimed at priority 0 by rules of different folders: \"x1\" (Inbox), \"x2\" (Junk), \"x3\" (Junk)") }, "\(m)")
        XCTAssertFalse(m.contains { $0.contains("\"wide\" can never") })
        // A short keyword is a whole word by default: "pin" does not match in "your pinx", where "your pin" of
        // `wholeWord: false` does, so "inside" can win; "whole" (a whole word itself) cannot, nor can "edges"
        // (longer phrases do not match inside a longer word by default: no "your pin" in "your pinx" either).
        XCTAssertFalse(m.contains { $0.contains("\"inside\" can never win") }, "\(m)")
        XCTAssertTrue(m.contains { $0.contains("\"edges\" can never win: whenever it fires, \"word\"") }, "\(m)")
        XCTAssertTrue(m.contains { $0.contains("\"whole\" can never win: whenever it fires, \"word\"") }, "\(m)")
    }
}
