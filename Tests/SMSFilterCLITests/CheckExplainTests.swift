import Foundation
import TestSupport
import XCTest

/// compile, check and explain, end to end through the built `smsfilter` binary (run `swift build` first).
final class CheckExplainTests: CLITestCase {
    var dir: URL { folder }



    static let good = """
        version: 1
        capabilities: [transactionalFinance, transactionalOrders, promotionalCoupons]
        rules:
        \(RuleYAML.bankDebit)
        \(RuleYAML.coupon)
          - name: weather
            action: transaction
            subAction: transactionalWeather
            keywords: [forecast]
        """

    func testCheckReadyWithWarnings() throws {
        let path = try write("rules.yaml", Self.good)
        let r = try run(["check", path])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.contains("resolve: 3 rules, 7 phrases, capabilities: transactionalFinance, transactionalOrders, promotionalCoupons"), r.out)
        XCTAssertTrue(r.out.contains("warning: \(path):16: rules[2].subAction: \"weather\": transactionalWeather is not declared"), r.out)
        XCTAssertTrue(r.out.contains("confirm (target offline): 0 errors, 1 warning\n"), r.out)
        XCTAssertTrue(r.out.contains("\nverdict: ready (checksum "), r.out)
        let ios = try run(["check", "--target", "ios", path])
        XCTAssertEqual(ios.status, 0, ios.out)
    }

    func testCheckFailures() throws {
        let bad = try write("bad.yaml", "version: 1\nrules:\n  - name: a\n    action: transaction\n    subAction: finance\n    keywords: [x]\n")
        let r = try run(["check", bad])
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.out.contains("error: \(bad):5: rules[0].subAction: unknown sub-action \"finance\"; valid: none, transactionalOthers, transactionalFinance"), r.out)
        XCTAssertTrue(r.out.contains("did you mean \"transactionalFinance\"?"), r.out)
        XCTAssertTrue(r.out.hasSuffix("verdict: failure\n"), r.out)

        let six = try write("six.yaml", "version: 1\ncapabilities: [transactionalFinance, transactionalOrders, transactionalHealth, transactionalWeather, promotionalOffers, promotionalCoupons]\nrules:\n  - {name: a, action: junk, keywords: [x]}\n")
        XCTAssertEqual(try run(["check", six]).status, 0)
        let ios = try run(["check", "--target", "ios", six])
        XCTAssertEqual(ios.status, 65)
        XCTAssertTrue(ios.out.contains("declares 6 sub-actions"), ios.out)

        let missing = try run(["check", dir.appendingPathComponent("nope.yaml").path])
        XCTAssertEqual(missing.status, 66)
        XCTAssertTrue(missing.err.hasPrefix("smsfilter: error: "), missing.err)
        XCTAssertEqual(try run(["check", "--target", "android", six]).status, 64)
        XCTAssertEqual(try run(["check"]).status, 64)
    }

    func testCheckJSONAndNeverFire() throws {
        let path = try write("r.yaml", """
            version: 1
            rules:
              - {name: dead, action: junk, keywords: [win], unless: [wi]}
              - {name: a, action: junk, keywords: [deal]}
              - {name: b, action: allow, keywords: [deal]}
              - {name: big, action: junk, priority: 5, keywords: [free], wholeWord: false}
              - {name: shadow, action: promotion, keywords: [free gift]}
              - {name: odd, action: allow, sender: {kind: [shortCode], suffix: [P]}}
            """)
        let r = try run(["check", "--json", path])
        XCTAssertEqual(r.status, 0, r.err)
        let o = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [String: Any]
        XCTAssertEqual(o["verdict"] as? String, "ready")
        XCTAssertEqual(o["rules"] as? Int, 6)
        let messages = (o["findings"] as! [[String: Any]]).map { $0["message"] as! String }
        XCTAssertTrue(messages.contains { $0.contains("\"dead\" can never fire") }, "\(messages)")
        XCTAssertTrue(messages.contains { $0.contains("\"shadow\" can never win") }, "\(messages)")
        XCTAssertTrue(messages.contains { $0.contains("\"odd\" can never fire") }, "\(messages)")
        XCTAssertTrue(messages.contains { $0.contains("keyword \"deal\" is claimed at priority 0 by rules of different folders") }, "\(messages)")
    }

    func testCompileThenExplainSameVerdicts() throws {
        let yaml = try write("rules.yaml", Self.good)
        let smsf = dir.appendingPathComponent("rules.smsf").path
        let c = try run(["compile", yaml, "-o", smsf])
        XCTAssertEqual(c.status, 0, c.err)
        XCTAssertTrue(c.err.contains("compiled 3 rules, 7 phrases"), c.err)
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: dir.path).contains { $0.contains(".tmp") })
        let again = try run(["compile", yaml, "-o", smsf, "--quiet", "--force"])  // over an existing file
        XCTAssertEqual(again.status, 0, again.err)
        XCTAssertEqual(again.err, "")
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: dir.path).contains { $0.contains(".tmp") })
        for rules in [yaml, smsf] {
            let e = try run(["explain", "--rules", rules, "--json", "Rs 100 debited; coupon for order #12; forecast"])
            XCTAssertEqual(e.status, 0, e.err)
            let o = try JSONSerialization.jsonObject(with: Data(e.out.utf8)) as! [String: Any]
            XCTAssertEqual(o["action"] as? String, "transaction")
            XCTAssertEqual(o["subAction"] as? String, "transactionalFinance")
            XCTAssertEqual(o["folder"] as? String, "Transactions/Finance")
            XCTAssertEqual(o["rule"] as? String, "bank-debit")
            XCTAssertEqual(o["span"] as? [Int], [7, 14])
            XCTAssertNil(o["dropped"])
            let outcomes = Dictionary(uniqueKeysWithValues: (o["rules"] as! [[String: Any]]).map { ($0["name"] as! String, $0["outcome"] as! String) })
            XCTAssertEqual(outcomes, ["bank-debit": "won", "coupon": "vetoed", "weather": "lostToEarlierMatch"])
            let matches = try XCTUnwrap(o["matches"] as? [[String: Any]])
            XCTAssertEqual(matches.map { $0["phrase"] as? String }, ["debited", "coupon", "order #", "forecast"])
            XCTAssertEqual(try XCTUnwrap(o["steps"] as? [String]).last, "folder: Transactions/Finance")
        }
        let dropped = try run(["explain", "--rules", smsf, "--json", "forecast: rain"])
        let o = try JSONSerialization.jsonObject(with: Data(dropped.out.utf8)) as! [String: Any]
        XCTAssertEqual(o["dropped"] as? String, "notDeclared")
        XCTAssertEqual(o["folder"] as? String, "Transactions")
        XCTAssertTrue(o["subAction"] is NSNull)

        // A damaged .smsf is refused with exit 65.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: smsf))
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: smsf))
        let damaged = try run(["explain", "--rules", smsf, "x"])
        XCTAssertEqual(damaged.status, 65)
        XCTAssertTrue(damaged.err.contains("damaged compiled rule set"), damaged.err)
        XCTAssertEqual(try run(["compile", yaml + ".missing", "-o", smsf]).status, 66)
        XCTAssertEqual(try run(["compile", yaml, "-o", path("nonexistent-dir/x.smsf")]).status, 73)  // a missing folder: cannot be created
    }

    /// The body conditions through check, compile, explain (text and JSON) and classify.
    func testBodyConditionsThroughTheCLI() throws {
        let yaml = try write("conditions.yaml", """
            version: 1
            rules:
              - name: link-bait
                action: junk
                priority: 5
                urls: [shortener]
                keywords: [claim]
              - name: retriever
                action: transaction
                subAction: transactionalOthers
                startsWith: ["<#>"]
              - name: hdfc
                action: transaction
                subAction: transactionalFinance
                sender: {entity: ["HDFC*"]}
                amounts: {currency: [INR], min: 1}
            """)
        let check = try run(["check", yaml])
        XCTAssertEqual(check.status, 0, check.out)
        XCTAssertTrue(check.out.contains("resolve: 3 rules, 2 phrases"), check.out)
        let smsf = dir.appendingPathComponent("conditions.smsf").path
        XCTAssertEqual(try run(["compile", yaml, "-o", smsf, "--quiet"]).status, 0)
        for rules in [yaml, smsf] {
            let text = try run(["explain", "--rules", rules, "Claim now at https://bit.ly/3xYz!"])
            XCTAssertEqual(text.status, 0, text.err)
            XCTAssertTrue(text.out.contains("  13..<32 \"https://bit.ly/3xYz\" (condition urls: shortener) → link-bait (urls)\n"), text.out)
            XCTAssertTrue(text.out.contains("link-bait (priority 5, junk) \"claim\" at 0..<5: won"), text.out)
            let json = try run(["explain", "--rules", rules, "--json", "--sender", "AX-HDFCBN-T", "INR 2,500.00 debited"])
            let o = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as! [String: Any]
            XCTAssertEqual(o["rule"] as? String, "hdfc")
            XCTAssertEqual(o["phrase"] as? String, "amounts: INR ≥ 1")
            XCTAssertEqual(o["span"] as? [Int], [0, 12])
            let m = try XCTUnwrap((o["matches"] as? [[String: Any]])?.first)
            XCTAssertEqual(m["condition"] as? Bool, true)
            XCTAssertEqual(m["text"] as? String, "INR 2,500.00")
            let mid = try run(["explain", "--rules", rules, "--json", "code <#> 1234"])
            let p = try JSONSerialization.jsonObject(with: Data(mid.out.utf8)) as! [String: Any]
            XCTAssertTrue(p["rule"] is NSNull)
            XCTAssertEqual((p["matches"] as? [[String: Any]])?.first?["uses"] as? [String], ["retriever (startsWith, not at the start: ignored)"])
        }
        // classify --explain carries the condition and its span.
        let input = try write("in.jsonl", "{\"id\":\"1\",\"body\":\"<#> 1234 ABC\"}\n{\"id\":\"2\",\"body\":\"claim: t.ly/x\"}\n")
        let classified = try run(["classify", "--rules", smsf, "--explain", "--labels-only", "--quiet", input])
        XCTAssertEqual(classified.status, 0, classified.err)
        let lines = classified.out.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertEqual((lines[0]["filter"] as? [String: Any])?["rule"] as? String, "retriever")
        XCTAssertEqual((lines[1]["filter"] as? [String: Any])?["rule"] as? String, "link-bait")
        // A mistake in a condition: file, line and field; exit 65.
        let bad = try write("bad.yaml", "version: 1\nrules:\n  - name: a\n    action: junk\n    urls: [shortner]\n")
        let r = try run(["check", bad])
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.out.contains("error: \(bad):5: rules[0].urls[0]: unknown URL kind \"shortner\""), r.out)
        XCTAssertTrue(r.out.contains("did you mean \"shortener\"?"), r.out)
    }

    func testExplainTextWithDefaultRules() throws {
        let r = try run(["explain", "--sender", "VM-HDFCBK-T", "Rs 2,500 debited from A/c XX1234"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.hasPrefix("rules: embedded default rules (checksum "), r.out)
        XCTAssertTrue(r.out.contains("  9..<16 \"debited\" → "), r.out)
        // A -T header vouches for the message: the embedded model (priority 95) may only say transaction; it
        // says none, so it abstains and the finance rule decides (docs/RULES.md §10, row 10).
        XCTAssertTrue(r.out.contains("finance (priority 50, transaction/transactionalFinance) \"debited\" at 9..<16: won"), r.out)
        XCTAssertTrue(r.out.contains("→ did not decide"), r.out)
        XCTAssertTrue(r.out.contains("a registered transactional sender vouches for the message (trai-transactional-header fired)"), r.out)
        XCTAssertTrue(r.out.contains("TRAI header: operator V, circle M, entity HDFCBK, suffix -T (transactional)"), r.out)
        XCTAssertTrue(r.out.hasSuffix("folder: Transactions/Finance\n"), r.out)
        // The embedded rules alone: the finance rule decides.
        let alone = try run(["explain", "--rules", "embedded:rules", "--sender", "VM-HDFCBK-T", "Rs 2,500 debited from A/c XX1234"])
        XCTAssertEqual(alone.status, 0, alone.err)
        XCTAssertTrue(alone.out.hasPrefix("rules: embedded default rules without the model (checksum "), alone.out)
        XCTAssertTrue(alone.out.contains("finance (priority 50, transaction/transactionalFinance) \"debited\" at 9..<16: won"), alone.out)
        XCTAssertFalse(alone.out.contains("default-model"), alone.out)
        XCTAssertTrue(alone.out.hasSuffix("folder: Transactions/Finance\n"), alone.out)
        XCTAssertEqual(try run(["explain", "--rules", dir.appendingPathComponent("none.yaml").path, "x"]).status, 66)
        XCTAssertEqual(try run(["explain"]).status, 64)
    }

    func testShippedSamples() throws {
        let samples = Fixtures.packageRoot.appendingPathComponent("samples")
        let example = samples.appendingPathComponent("example-rules.yaml").path
        let ios = try run(["check", "--target", "ios", example])
        XCTAssertEqual(ios.status, 0, ios.out)
        XCTAssertTrue(ios.out.contains("block list 3, identification list 2"), ios.out)
        XCTAssertEqual(try run(["check", samples.appendingPathComponent("default-rules.yaml").path]).status, 0)
        let known = try run(["explain", "--rules", example, "--sender", "09876500000", "--json", "appointment reminder"])
        let o = try JSONSerialization.jsonObject(with: Data(known.out.utf8)) as! [String: Any]
        XCTAssertEqual(o["action"] as? String, "allow")
        XCTAssertEqual(o["label"] as? String, "City Hospital")
        XCTAssertEqual(o["list"] as? String, "identificationList")
        XCTAssertTrue(o["rule"] is NSNull)
    }
}
