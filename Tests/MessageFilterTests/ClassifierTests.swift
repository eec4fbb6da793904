import TestSupport
import XCTest
@testable import MessageFilter

final class ClassifierTests: XCTestCase {
    static let yaml = """
        version: 1
        capabilities: [transactionalFinance, transactionalOrders, promotionalCoupons, promotionalOffers]
        rules:
        \(RuleYAML.bankDebit)
        \(RuleYAML.coupon)
          - name: order
            action: transaction
            subAction: transactionalOrders
            keywords: [shipped, delivered]
          - name: sale
            action: promotion
            subAction: promotionalOffers
            keywords: [sale]
            wholeWord: true
          - name: prize-scam
            action: junk
            priority: 20
            all: [[won, winner], [claim, call now]]
          - name: weather
            action: transaction
            subAction: transactionalWeather
            keywords: [forecast]
          - name: coupon-as-txn
            action: transaction
            subAction: promotionalCoupons
            keywords: [voucher]
          - name: trai-promo
            action: promotion
            sender: {suffix: [P]}
          - name: hdfc
            action: transaction
            subAction: transactionalFinance
            priority: 5
            keywords: [otp]
            sender: {entity: [HDFCBK]}
          - name: uk
            action: allow
            priority: 30
            keywords: [hello]
            sender: {countryCode: [44]}
          - name: cyrillic
            action: junk
            caseFold: unicode
            keywords: [доставка]
          - name: short
            action: transaction
            subAction: transactionalOthers
            sender: {kind: [shortCode], prefix: ["56"]}
          - name: exact-phone
            action: allow
            priority: 40
            keywords: [ping]
            sender: {exact: ["+1 408 555 0001"]}
        """

    var set: RuleSet!
    var c: Classifier!

    override func setUpWithError() throws {
        set = try RuleSet.parse(yaml: Self.yaml, file: "t.yaml")
        c = Classifier(ruleSet: set)
    }

    func name(_ v: Verdict) -> String? { v.rule >= 0 ? set.ruleNames[Int(v.rule)] : nil }

    func testKeywordsAndSpans() {
        let body = "Rs 500 DEBITED from your A/C"
        let v = c.classify(sender: nil, body: body)
        XCTAssertEqual(name(v), "bank-debit")
        XCTAssertEqual(v.folder, .transactionsFinance)
        XCTAssertEqual(v.matchStart, 7)
        XCTAssertEqual(v.matchEnd, 14)
        XCTAssertEqual(set.phrase(at: Int(v.phrase)), "debited")
    }

    func testPriorityThenEarliestThenFileOrder() {
        // Priority: coupon (10) beats an earlier bank phrase (0).
        XCTAssertEqual(name(c.classify(sender: nil, body: "debited; use coupon X")), "coupon")
        // Same priority: earliest match wins.
        XCTAssertEqual(name(c.classify(sender: nil, body: "shipped, then debited")), "order")
        XCTAssertEqual(name(c.classify(sender: nil, body: "debited, then shipped")), "bank-debit")
        // Same priority, same position: file order. "forecast" and "sale" can't share a start, so use a phrase used by two rules.
        let s2 = try! RuleSet.parse(yaml: "version: 1\nrules:\n  - {name: b, action: junk, keywords: [deal]}\n  - {name: a, action: allow, keywords: [deal]}\n", file: "x")
        XCTAssertEqual(Classifier(ruleSet: s2).classify(sender: nil, body: "a deal").rule, 0)
    }

    func testUnlessVetoes() {
        XCTAssertEqual(name(c.classify(sender: nil, body: "coupon for ORDER #123 shipped")), "order")
    }

    func testAllGroups() {
        XCTAssertEqual(name(c.classify(sender: nil, body: "You WON! Call now")), "prize-scam")
        XCTAssertNil(name(c.classify(sender: nil, body: "you won")))
        XCTAssertEqual(c.classify(sender: nil, body: "winner, claim it").action, .junk)
    }

    func testWholeWord() {
        XCTAssertEqual(name(c.classify(sender: nil, body: "big sale today")), "sale")
        XCTAssertNil(name(c.classify(sender: nil, body: "wholesale prices")))
        XCTAssertNil(name(c.classify(sender: nil, body: "salesman")))
        XCTAssertNil(name(c.classify(sender: nil, body: "ésale")))  // a Unicode letter touches it
        XCTAssertEqual(name(c.classify(sender: nil, body: "(sale)")), "sale")
    }

    func testValidationDropsAndKeepsAction() {
        let notDeclared = c.classify(sender: nil, body: "forecast: rain")
        XCTAssertEqual(notDeclared.action, .transaction)
        XCTAssertEqual(notDeclared.requestedSubAction, .transactionalWeather)
        XCTAssertEqual(notDeclared.subAction, .none)
        XCTAssertEqual(notDeclared.dropped, .notDeclared)
        XCTAssertEqual(notDeclared.folder, .transactions)
        let invalid = c.classify(sender: nil, body: "a voucher")
        XCTAssertEqual(invalid.dropped, .invalidPair)
        XCTAssertEqual(invalid.folder.path, "Transactions")
    }

    func testSenderConditions() {
        let promo = c.classify(sender: "AD-FLIPKT-P", body: "nothing matches here")
        XCTAssertEqual(name(promo), "trai-promo")
        XCTAssertEqual(promo.matchStart, -1)
        XCTAssertEqual(promo.folder, .promotions)
        XCTAssertNil(name(c.classify(sender: "AD-FLIPKT-T", body: "nothing")))
        XCTAssertEqual(name(c.classify(sender: "VM-HDFCBK-T", body: "your OTP is 1")), "hdfc")
        XCTAssertEqual(name(c.classify(sender: "JD-HDFCBK", body: "your otp")), "hdfc")
        XCTAssertNil(name(c.classify(sender: "JD-ICICIB", body: "your otp")))
        XCTAssertEqual(name(c.classify(sender: "+44 20 7946 0958", body: "hello")), "uk")
        XCTAssertNil(name(c.classify(sender: "+1 408 555 0002", body: "hello")))
        XCTAssertEqual(name(c.classify(sender: "56161", body: "x")), "short")
        XCTAssertNil(name(c.classify(sender: "12161", body: "x")))
        XCTAssertEqual(name(c.classify(sender: "+14085550001", body: "ping")), "exact-phone")
        XCTAssertEqual(name(c.classify(sender: "(408) 555-0001", body: "ping")), "exact-phone")
        XCTAssertNil(name(c.classify(sender: "+14085550002", body: "ping")))
        // A keyword rule at the same priority beats a sender-only rule (sender-only counts as matching last).
        XCTAssertEqual(name(c.classify(sender: "AD-FLIPKT-P", body: "item shipped")), "order")
    }

    func testUnicodeCaseFold() {
        XCTAssertEqual(name(c.classify(sender: nil, body: "Ваша доставка")), "cyrillic")
    }

    func testInvalidUTF8NeverCrashes() {
        var bytes: [UInt8] = Array("sale \u{FF}".utf8) + [0xFF, 0xC3, 0x28, 0xE2, 0x82] + Array(" debited".utf8) + [0xF0, 0x9F]
        for _ in 0..<3 {
            bytes.withUnsafeBytes { b in
                let v = c.classify(sender: nil, body: b)
                XCTAssertEqual(v.action, .promotion)  // "sale" comes first
            }
            bytes.insert(0x80, at: 0)
        }
        // "sale" between a cut three-byte sequence and a lone lead byte: invalid bytes are not word
        // characters, so the whole-word rule fires (and a garbage sender matches no sender condition).
        [UInt8]([0xE2, 0x82, 0x73, 0x61, 0x6C, 0x65, 0xC3]).withUnsafeBytes { b in
            let v = c.classify(sender: b, body: b)
            XCTAssertEqual(name(v), "sale")
            XCTAssertEqual([v.matchStart, v.matchEnd], [2, 6])
        }
    }

    func testBatchEqualsSingleEqualsString() {
        let messages: [(String?, String)] = [
            (nil, "Rs 500 debited"), ("AD-FLIPKT-P", "hi"), ("VM-HDFCBK-T", "OTP 1234"), (nil, "big sale"),
            ("56161", ""), (nil, "You won, claim now"), ("+441234567890", "hello"), (nil, "Ваша ДОСТАВКА"),
            (nil, String(repeating: "coupon debited ", count: 500)),
        ]
        let batch = MessageBatch(messages).verdicts(c)
        for (i, (s, b)) in messages.enumerated() {
            XCTAssertEqual(batch[i], c.classify(sender: s, body: b), "message \(i)")
        }
        XCTAssertEqual(batch[0].action, .transaction)
        XCTAssertEqual(batch[8].action, .promotion)
    }

    func testExplain() {
        let e = c.explain(sender: "VM-HDFCBK-T", body: "OTP: coupon inside, order #1")
        XCTAssertEqual(e.verdict, c.classify(sender: "VM-HDFCBK-T", body: "OTP: coupon inside, order #1"))
        XCTAssertEqual(e.ruleName, "hdfc")
        XCTAssertEqual(e.matches.map(\.phrase), ["OTP", "coupon", "order #"].map { $0 == "OTP" ? "otp" : $0 })
        XCTAssertEqual(e.matches[0].start, 0)
        XCTAssertEqual(e.matches[0].end, 3)
        let outcomes = Dictionary(uniqueKeysWithValues: e.rules.map { ($0.name, $0.outcome) })
        XCTAssertEqual(outcomes["hdfc"], .won)
        XCTAssertEqual(outcomes["coupon"], .vetoed(phrase: "order #"))
        XCTAssertEqual(outcomes["trai-promo"], .senderConditionFailed("TRAI suffix -T not in [-P]"))
        XCTAssertEqual(e.steps.last, "folder: Transactions/Finance")
        let lost = c.explain(sender: nil, body: "shipped and debited")
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: lost.rules.map { ($0.name, $0.outcome) })["bank-debit"], .lostToEarlierMatch(winner: "order"))
        let prio = c.explain(sender: nil, body: "debited coupon")
        XCTAssertEqual(prio.rules.first { $0.name == "bank-debit" }?.outcome, .lostToPriority(winner: "coupon"))
        let drop = c.explain(sender: nil, body: "voucher")
        XCTAssertTrue(drop.steps.contains { $0.contains("invalidPair") })
    }
}
