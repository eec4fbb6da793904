import Foundation
import TestSupport
import XCTest
@testable import MessageFilter

/// The `model:` section: scores computed by hand, precedence with hand rules (a table), the .smsf round
/// trip, and damaged model sections refused.
final class ModelTests: XCTestCase {
    /// Three phrases, two targets; every expected score below is worked out by hand in the comments.
    static let yaml = """
        version: 1
        rules:
          - name: otp
            action: transaction
            subAction: transactionalOthers
            priority: 90
            keywords: [otp]
          - name: offer
            action: promotion
            priority: -5
            keywords: [offer]
        \(RuleYAML.learnedModel)
            - [word, "win", 1.0, 1.0, -1.0]
            - [part, "£", 1.0, 2.0, -2.0]
        """

    func testScoresAreTheWeightedSumOverTheNorm() throws {
        let set = try RuleSet.parse(yaml: Self.yaml, file: "m.yaml")
        XCTAssertEqual(set.ruleNames, ["otp", "offer", "learned"])
        let c = Classifier(ruleSet: set)
        let cases: [(String, [Double], String)] = [
            // free (idf 2) and win (idf 1), "free" counted once: norm √5; junk −0.5 + (3 + 1)/√5.
            ("FREE free win", [-0.5 + 4 / 5.0.squareRoot(), 0.5 - 4 / 5.0.squareRoot()], "Junk"),
            // "free" must stand as a whole word; "£" may be anywhere: −0.5 + 2/1.
            ("freedom for £5", [1.5, -1.5], "Junk"),
            // Fullwidth and Cyrillic look-alikes are normalised before matching: "ｆｒеe" is "free": −0.5 + 3/2.
            ("ｆｒеe", [1.0, -1.0], "Junk"),
        ]
        for (body, scores, folder) in cases {
            let e = c.explain(sender: nil, body: body)
            let m = try XCTUnwrap(e.model)
            for (got, want) in zip(m.scores, scores) { XCTAssertEqual(got, want, accuracy: 1e-6, body) }
            XCTAssertEqual(e.verdict.folder.path, folder, body)
            XCTAssertEqual(e.verdict, c.classify(sender: nil, body: body), body)
            XCTAssertTrue(m.decided, body)
            XCTAssertEqual(e.ruleName, "learned")
        }
        // Nothing present: the scores are the biases, and the model abstains (no evidence), so no rule and
        // no model decides.
        let nothing = c.explain(sender: nil, body: "hello there")
        let m = try XCTUnwrap(nothing.model)
        for (got, want) in zip(m.scores, [-0.5, 0.5]) { XCTAssertEqual(got, want, accuracy: 1e-6) }
        XCTAssertFalse(m.decided)
        XCTAssertNil(nothing.ruleName)
        XCTAssertEqual(nothing.verdict.folder.path, "Unknown Senders")
        XCTAssertEqual(nothing.verdict, c.classify(sender: nil, body: "hello there"))
        XCTAssertTrue(nothing.steps.contains { $0.contains("abstained: none of its phrases is in the message") }, "\(nothing.steps)")
        // The deciding phrase is the strongest push towards the winner, with its span in the original bytes.
        let v = c.classify(sender: nil, body: "win a free gift")
        XCTAssertEqual(set.phrase(at: Int(v.phrase)), "free")
        XCTAssertEqual(v.matchStart, 6)
        XCTAssertEqual(v.matchEnd, 10)
    }

    /// Precedence: rules at or above the model's priority first, then the model (unless it abstains), then
    /// the rules below it.
    func testPrecedenceTable() throws {
        struct Row {
            var threshold: String
            var body: String
            var decider: String
            var folder: String
        }
        let rows = [
            Row(threshold: "null", body: "your otp is 1234, free", decider: "otp", folder: "Transactions/Others"),
            Row(threshold: "null", body: "free offer", decider: "learned", folder: "Junk"),
            // No model phrase in the message: the model abstains, whatever its biases (none) would say.
            Row(threshold: "null", body: "an offer", decider: "offer", folder: "Promotions"),
            Row(threshold: "0.6", body: "an offer", decider: "offer", folder: "Promotions"),
            Row(threshold: "0.6", body: "free offer", decider: "learned", folder: "Junk"),
            Row(threshold: "2", body: "free offer", decider: "offer", folder: "Promotions"),
            Row(threshold: "2", body: "nothing", decider: "-", folder: "Unknown Senders"),
        ]
        for row in rows {
            let yaml = Self.yaml.replacingOccurrences(of: "  priority: 10\n", with: "  priority: 10\n  threshold: \(row.threshold)\n")
            let set = try RuleSet.parse(yaml: yaml, file: "m.yaml")
            let c = Classifier(ruleSet: set)
            let e = c.explain(sender: nil, body: row.body)
            XCTAssertEqual(e.ruleName ?? "-", row.decider, "\(row)")
            XCTAssertEqual(e.verdict.folder.path, row.folder, "\(row)")
            XCTAssertEqual(e.verdict, c.classify(sender: nil, body: row.body))
            if row.decider == "learned", let offer = e.rules.first(where: { $0.name == "offer" }) {
                XCTAssertEqual(offer.outcome, .lostToModel(name: "learned"))
            }
            XCTAssertFalse(e.steps.filter { $0.contains("model \"learned\"") || $0.contains("model's") }.isEmpty, "\(e.steps)")
        }
    }

    /// A model over actions decides the action; a firing hand rule below its priority with that action
    /// supplies the folder (and an allow rule turns the model's none into allow). Rules of other actions,
    /// rules above the model and folder-level models are not refinements.
    func testRulesBelowTheModelRefineItsFolder() throws {
        let yaml = """
            version: 1
            rules:
              - {name: otp, action: transaction, subAction: transactionalOthers, priority: 90, keywords: [otp]}
              - {name: bank, action: transaction, subAction: transactionalFinance, priority: 50, keywords: [debited, emi]}
              - {name: order, action: transaction, subAction: transactionalOrders, priority: 40, keywords: [shipped, debited]}
              - {name: coupon, action: promotion, subAction: promotionalCoupons, priority: 45, keywords: [coupon]}
              - {name: chat, action: allow, priority: -10, keywords: [hey]}
            model:
              name: learned
              priority: 60
              targets: [none, transaction, promotion]
              bias: [0.5, 0, 0]
              phrases:
                - [word, "debited", 1.0, 0, 3, 0]
                - [word, "shipped", 1.0, 0, 3, 0]
                - [word, "sale", 1.0, 0, 0, 3]
                - [word, "there", 1.0, 1, 0, 0]
            """
        let c = Classifier(ruleSet: try RuleSet.parse(yaml: yaml, file: "r.yaml"))
        let rows: [(String, String, String?)] = [
            // Both transaction rules fire; the higher priority one (bank, 50) gives the folder.
            ("Rs 500 debited, shipped", "Transactions/Finance", "bank"),
            ("your order shipped", "Transactions/Orders", "order"),
            // A rule above the model decides on its own.
            ("otp 1234 debited", "Transactions/Others", nil),
            // The model says promotion; the coupon rule is a promotion: its folder.
            ("sale coupon inside", "Promotions/Coupons", "coupon"),
            // The model says promotion; only a transaction rule fired: no refinement.
            ("sale emi", "Promotions", nil),
            // The model says none ("there": 0.5 + 1); the allow rule moves it to the Inbox.
            ("hey there", "Inbox", "chat"),
            // No model phrase: the model abstains and the allow rule decides on its own.
            ("hey you", "Inbox", nil),
            ("nothing here", "Unknown Senders", nil),
        ]
        for (body, folder, refiner) in rows {
            let e = c.explain(sender: nil, body: body)
            XCTAssertEqual(e.verdict.folder.path, folder, body)
            XCTAssertEqual(e.verdict, c.classify(sender: nil, body: body), body)
            if let refiner {
                XCTAssertEqual(e.ruleName, "learned", body)
                XCTAssertEqual(e.model?.refinedBy, refiner, body)
                XCTAssertTrue(e.steps.contains { $0.contains("from rule \"\(refiner)\"") }, "\(e.steps)")
            } else {
                XCTAssertNil(e.model?.decided == true ? e.model?.refinedBy : nil, body)
            }
        }
    }

    /// `explain` lists the model's phrases strongest first by magnitude, a phrase that pushes against the
    /// winner as much as one that pushes for it, and keeps the ten strongest: ordered by signed value the
    /// list would start with the weakest phrases (or end with the strongest opposing ones, or drop them).
    /// Eleven phrases of idf 1, so the norm is √11 and each contribution is its junk weight / √11; the
    /// biases make junk win. By hand: |−3| > |2| > |−1.5| > |1| > |−0.7| > |0.5| > |0.3| > |−0.2| > |−0.1|
    /// > |0.05|, and 0.01 (`kilo`) is the one left out.
    func testModelPhrasesAreOrderedByTheSizeOfTheirPush() throws {
        let weights: [(String, Double)] = [
            ("alpha", 1), ("bravo", -3), ("charlie", 0.5), ("delta", -0.2), ("echo", 2), ("foxtrot", -0.1),
            ("golf", 0.3), ("hotel", -0.7), ("india", 0.05), ("juliet", -1.5), ("kilo", 0.01),
        ]
        let yaml = """
            version: 1
            rules:
              - {name: never, action: promotion, keywords: [zzzzqqq]}
            model:
              name: learned
              priority: 10
              targets: [junk, none]
              bias: [2.0, -2.0]
              phrases:

            """ + weights.map { "    - [word, \"\($0.0)\", 1.0, \($0.1), \(-$0.1)]\n" }.joined()
        let c = Classifier(ruleSet: try RuleSet.parse(yaml: yaml, file: "order.yaml"))
        let body = weights.map(\.0).joined(separator: " ")
        let m = try XCTUnwrap(c.explain(sender: nil, body: body).model)
        XCTAssertTrue(m.decided)
        XCTAssertEqual(m.targets[m.winner], "junk")
        XCTAssertEqual(m.phraseCount, 11)
        XCTAssertEqual(m.contributions.map(\.phrase), ["bravo", "echo", "juliet", "alpha", "hotel", "charlie", "golf", "delta", "foxtrot", "india"])
        let expected: [Double] = [-3, 2, -1.5, 1, -0.7, 0.5, 0.3, -0.2, -0.1, 0.05]
        for (got, want) in zip(m.contributions.map(\.contribution), expected) { XCTAssertEqual(got, want / 11.0.squareRoot(), accuracy: 1e-6) }
        // Each span points at the phrase in the body.
        for p in m.contributions { XCTAssertEqual(String(decoding: Array(body.utf8)[p.start..<p.end], as: UTF8.self), p.phrase) }
    }

    func testCompiledRoundTripScoresIdentically() throws {
        let set = try RuleSet.parse(yaml: Self.yaml, file: "m.yaml")
        let loaded = try _SMSFFormat.load(bytes: set.serialize(), path: "m.smsf")
        XCTAssertEqual(loaded.checksum, set.checksum)
        XCTAssertEqual(loaded.definition, set.definition)
        let a = Classifier(ruleSet: set)
        let b = Classifier(ruleSet: loaded)
        for body in ["free win", "£", "otp free", "nothing", "ｆｒｅｅ", "an offer"] {
            XCTAssertEqual(a.classify(sender: nil, body: body), b.classify(sender: nil, body: body), body)
            XCTAssertEqual(a.explain(sender: nil, body: body).model, b.explain(sender: nil, body: body).model, body)
        }
        // The normalisation mode is part of the checksum.
        let none = try RuleSet.parse(yaml: Self.yaml + "\nnormalize: none\n", file: "m.yaml")
        XCTAssertNotEqual(none.checksum, set.checksum)
        XCTAssertEqual(Classifier(ruleSet: none).classify(sender: nil, body: "ｆｒｅｅ").folder, .unknownSenders)
    }

    /// Damage inside the model section, re-signed so that only the decoder's checks can catch it: a NaN
    /// weight, a target out of range, a phrase count larger than the data.
    func testDamagedModelSectionIsRefused() throws {
        let set = try RuleSet.parse(yaml: Self.yaml, file: "m.yaml")
        let bytes = set.serialize()
        let def: Range<Int> = bytes.withUnsafeBytes { raw in
            let off = Int(raw.loadUnaligned(fromByteOffset: 64 + 8, as: UInt64.self))
            let len = Int(raw.loadUnaligned(fromByteOffset: 64 + 16, as: UInt64.self))
            return off..<(off + len)
        }
        func resign(_ d: inout [UInt8]) {
            let rs = d.withUnsafeBytes { _Checksum.hash(UnsafeRawBufferPointer(rebasing: $0[def])) }
            withUnsafeBytes(of: rs.littleEndian) { for k in 0..<8 { d[32 + k] = $0[k] } }
            let fs = d.withUnsafeBytes { _Checksum.hash(UnsafeRawBufferPointer(rebasing: $0[64...])) }
            withUnsafeBytes(of: fs.littleEndian) { for k in 0..<8 { d[24 + k] = $0[k] } }
        }
        func find(_ pattern: [UInt8]) -> Int {
            let slice = Array(bytes[def])
            for i in 0...(slice.count - pattern.count) where Array(slice[i..<(i + pattern.count)]) == pattern { return def.lowerBound + i }
            return -1
        }
        // The weight 3.0 of "free" → NaN.
        var d = bytes
        let three = find(Array(withUnsafeBytes(of: Float(3).bitPattern.littleEndian, Array.init)))
        XCTAssertGreaterThan(three, 0)
        withUnsafeBytes(of: Float.nan.bitPattern.littleEndian) { for k in 0..<4 { d[three + k] = $0[k] } }
        resign(&d)
        XCTAssertThrowsError(try _SMSFFormat.load(bytes: d, path: "m.smsf")) { XCTAssertTrue("\($0)".contains("model weight"), "\($0)") }
        // The idf 2.0 of "free" (the first 2.0 in the section) → −1.
        d = bytes
        let two = find(Array(withUnsafeBytes(of: Float(2).bitPattern.littleEndian, Array.init)))
        withUnsafeBytes(of: Float(-1).bitPattern.littleEndian) { for k in 0..<4 { d[two + k] = $0[k] } }
        resign(&d)
        XCTAssertThrowsError(try _SMSFFormat.load(bytes: d, path: "m.smsf")) { XCTAssertTrue("\($0)".contains("model idf"), "\($0)") }
        // Random re-signed damage anywhere in the rule table: refused, or loads and classifies without a crash.
        var rng = Fixtures.SeededGenerator(seed: 13)
        print("ModelTests damage seed 13")
        for _ in 0..<400 {
            var d = bytes
            d[Int.random(in: def, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            resign(&d)
            if let loaded = try? _SMSFFormat.load(bytes: d, path: "m.smsf") {
                let c = Classifier(ruleSet: loaded)
                for body in ["free win £", "otp", "x"] { _ = c.classify(sender: nil, body: body) }
            }
        }
    }

    func testBadModelSectionsNameTheField() {
        let bad: [(String, String)] = [
            ("targets: [junk, none]", "targets: [junk]"),
            ("bias: [-0.5, 0.5]", "bias: [-0.5]"),
            ("- [word, \"free\", 2.0, 3.0, -3.0]", "- [word, \"free\", 2.0, 3.0]"),
            ("- [word, \"win\", 1.0, 1.0, -1.0]", "- [sentence, \"win\", 1.0, 1.0, -1.0]"),
            ("name: learned", "name: otp"),
            ("- [part, \"£\", 1.0, 2.0, -2.0]", "- [part, \"£\", -1.0, 2.0, -2.0]"),
        ]
        for (from, to) in bad {
            let yaml = Self.yaml.replacingOccurrences(of: from, with: to)
            XCTAssertThrowsError(try RuleSet.parse(yaml: yaml, file: "m.yaml"), to) { error in
                XCTAssertTrue("\(error)".contains("m.yaml:") && "\(error)".contains("model"), "\(error)")
            }
        }
        XCTAssertThrowsError(try RuleSet.parse(yaml: "version: 1\nnormalize: nfkc\nrules: []\n", file: "n.yaml")) {
            XCTAssertTrue("\($0)".contains("unknown normalization \"nfkc\""), "\($0)")
        }
    }
}
