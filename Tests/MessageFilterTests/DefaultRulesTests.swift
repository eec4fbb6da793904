import Foundation
import TestSupport
import XCTest
@testable import MessageFilter

/// The embedded default rules: in sync with samples/default-rules.yaml, fast to compile, covering every
/// sub-action, and their quality on the real corpora (shared/corpora).
final class DefaultRulesTests: XCTestCase {
    static var sampleYAML: String {
        get throws { try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("samples/default-rules.yaml"), encoding: .utf8) }
    }

    /// Run `Scripts/embed-default-rules.sh` when this fails.
    func testEmbeddedMatchesSample() throws {
        XCTAssertEqual(DefaultRules.yaml, try Self.sampleYAML,
                       "Sources/MessageFilter/Embedded/DefaultRules+Embedded.swift is stale: run Scripts/embed-default-rules.sh")
    }

    /// Every sub-action and every action is asked for by some default rule, no capability is declared, and
    /// the embedded rule set is the sample file compiled. (How long compiling takes is measured by
    /// `smsfilter bench`, never asserted in a test.)
    func testCoversEverySubActionAndEveryAction() throws {
        let set = try RuleSet.parse(yaml: DefaultRules.yaml, file: "default")
        let asked = Set(set.definition.rules.map(\.subAction))
        for sub in SubAction.all { XCTAssertTrue(asked.contains(sub), "no default rule asks for \(sub)") }
        let actions = Set(set.definition.rules.map(\.action))
        XCTAssertEqual(actions, [.junk, .allow, .promotion, .transaction])
        XCTAssertFalse(set.capabilities.isDeclared)
        // The embedded rules alone are these rules; the embedded default is these rules plus the model.
        XCTAssertEqual(RuleSet.embeddedDefaultRulesOnly.checksum, set.checksum)
        XCTAssertEqual(try RuleSet.load(path: RuleSet.embeddedRulesOnlyPath).checksum, set.checksum)
        XCTAssertNil(set.definition.model)
        XCTAssertEqual(RuleSet.embeddedDefault.source, "embedded default rules")
        XCTAssertEqual(RuleSet.embeddedDefault.definition.rules, set.definition.rules)
        XCTAssertTrue(RuleSet.embeddedDefault.definition.model == DefaultModel.definition)
        XCTAssertNotEqual(RuleSet.embeddedDefault.checksum, set.checksum)
    }

    /// The embedded model is `samples/default-model.yaml` (the file `make default-model` writes next to it),
    /// parsed here independently of the embedded bytes: same phrases, weights, biases, priority.
    func testEmbeddedModelIsTheCommittedYAML() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("samples/default-model.yaml").path
        let fromYAML = try RuleSet.load(path: path)
        let model = try XCTUnwrap(fromYAML.definition.model)
        let embedded = DefaultModel.definition
        XCTAssertEqual(embedded.name, model.name)
        XCTAssertEqual(embedded.priority, model.priority)
        XCTAssertEqual(embedded.threshold, model.threshold)
        XCTAssertEqual(embedded.targets, model.targets)
        XCTAssertEqual(embedded.bias, model.bias)
        XCTAssertEqual(embedded.phrases.count, model.phrases.count)
        XCTAssertTrue(embedded.phrases == model.phrases, "the embedded phrases or weights differ from samples/default-model.yaml: run `make default-model`")
        XCTAssertEqual(fromYAML.definition.normalization, .standard)
        XCTAssertEqual(model.name, "default-model")
        XCTAssertEqual(model.priority, 95)
        XCTAssertGreaterThan(model.phrases.count, 9_000)
        XCTAssertEqual(model.targets.map(\.action), [.none, .junk, .transaction, .promotion])
        // The embedded `.smsf` is byte for byte the compile of that file, and since
        // loading it skips the shape check, every embedded phrase's shape is checked here.
        let image = try XCTUnwrap(_decodeBase64(_embeddedDefaultModelBase64))
        XCTAssertTrue(image == fromYAML.serialize(), "the embedded .smsf is not the compile of samples/default-model.yaml: run `make default-model`")
        for p in embedded.phrases {
            XCTAssertNil(ModelDefinition.shapeProblem(p.text, kind: p.kind, normalization: .standard), p.text)
        }
        // Every phrase is in the default rule set's look-up table.
        XCTAssertEqual(RuleSet.embeddedDefault.model?.table.featureCount, model.phrases.count)
        // Only the government sender rules (priority 100: any -G header, and a -G weather warning) rank above it.
        let above = RuleSet.embeddedDefault.definition.rules.filter { $0.priority >= model.priority }.map(\.name)
        XCTAssertEqual(Set(above), ["trai-government-header", "trai-government-weather"])
    }

    /// The embedded model's base64 decoder against Foundation's, on seeded random bytes of every length
    /// remainder, with line breaks; malformed text is refused.
    func testBase64DecoderAgreesWithFoundation() {
        var rng = Fixtures.seededGenerator("testBase64DecoderAgreesWithFoundation", defaultSeed: 0xB64)
        for length in [0, 1, 2, 3, 4, 5, 119, 120, 121, 1000, 4099] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let text = Data(bytes).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            XCTAssertEqual(_decodeBase64(text), bytes, "length \(length)")
        }
        for bad in ["A", "AB=C", "ABC*", "A===", "AB==AB==", "AB==ABCD", "ABCDE", "AB\u{00E9}D"] { XCTAssertNil(_decodeBase64(bad), bad) }
    }

    func testSampleMessagesInEveryLanguage() throws {
        let c = Classifier(ruleSet: try RuleSet.parse(yaml: Self.sampleYAML, file: "default"))
        let cases: [(String?, String, String)] = [
            ("VM-HDFCBK-T", "Rs 2,500.00 debited from A/c XX1234 on 05-Jun. Avl Bal Rs 10,200", "Transactions/Finance"),
            ("AD-SWIGGY-S", "Your order #4521 has been delivered. Enjoy your meal!", "Transactions/Orders"),
            (nil, "Reminder: your appointment with Dr. Rao is due on 12 June at 10 am", "Transactions/Reminders"),
            (nil, "Your lab report is ready. Collect it from the hospital reception.", "Transactions/Health"),
            (nil, "IMD alert: heavy rain and thunderstorm expected in Mumbai tomorrow", "Transactions/Weather"),
            ("JD-AIRTEL", "Your data pack expires today. Recharge now to continue.", "Transactions/Carrier"),
            (nil, "You have earned 250 reward points on your last purchase", "Transactions/Rewards"),
            ("BX-UIDAIG-G", "Your Aadhaar update request has been processed", "Transactions/Public Services"),
            (nil, "123456 is your OTP for login. Do not share it with anyone.", "Transactions/Others"),
            ("AD-MYNTRA-P", "Use coupon SAVE20 on your next purchase", "Promotions/Coupons"),
            ("AD-BIGBZR-P", "Flat 50% off on all shoes this weekend only", "Promotions/Offers"),
            ("AD-BRANDX-P", "Our new store is open in your city", "Promotions/Others"),
            (nil, "Congratulations! You have won a prize of Rs 25 lakh. Call now to claim.", "Junk"),
            (nil, "Aapke khate se Rs 500 nikale gaye hain", "Transactions/Finance"),
            (nil, "Badhai ho! Aapne KBC lottery mein 25 lakh jeeta hai, claim karne ke liye call karein", "Junk"),
            (nil, "आपके खाते से 500 रुपये डेबिट किए गए हैं", "Transactions/Finance"),
            (nil, "आपका ओटीपी 482913 है", "Transactions/Others"),
            (nil, "【银行】您的账户支出人民币500元，余额1200元", "Transactions/Finance"),
            (nil, "您的验证码是 482913，5分钟内有效", "Transactions/Others"),
            (nil, "您的订单已发货，快递单号 SF123456", "Transactions/Orders"),
            (nil, "全场商品限时特价，5折起！", "Promotions/Offers"),
            (nil, "恭喜您中奖了！请点击链接领取奖金", "Junk"),
            (nil, "รหัส OTP ของคุณคือ 123456 ห้ามบอกผู้อื่น", "Transactions/Others"),
            (nil, "แจกเครดิตฟรี 100 บาท สมัครเลย", "Junk"),
            (nil, "ลดราคาสูงสุด 50% ทุกสินค้า วันนี้เท่านั้น", "Promotions/Offers"),
            (nil, "Hey, are you coming home for dinner?", "Inbox"),
            (nil, "ok", "Unknown Senders"),
        ]
        for (sender, body, folder) in cases {
            let v = c.classify(sender: sender, body: body)
            XCTAssertEqual(v.folder.path, folder, "\(body) → rule \(v.rule >= 0 ? c.ruleSet.ruleNames[Int(v.rule)] : "none")")
        }
    }

    /// The precision defects issue 13 measured, one case each way: the trap must not fire, the real thing must.
    func testPrecisionTraps() throws {
        let c = Classifier(ruleSet: try RuleSet.parse(yaml: Self.sampleYAML, file: "default"))
        func folder(_ body: String) -> String { c.classify(sender: nil, body: body).folder.path }
        func rule(_ body: String) -> String? {
            let v = c.classify(sender: nil, body: body)
            return v.rule >= 0 ? c.ruleSet.ruleNames[Int(v.rule)] : nil
        }
        let filtered: Set<String> = ["Junk", "Promotions", "Promotions/Offers", "Promotions/Coupons", "Promotions/Others"]
        // (trap, must not land in any of these folders)
        let traps: [(String, Set<String>)] = [
            // Short Latin keywords inside words.
            ("Can you remind me to call mum tomorrow?", ["Transactions/Finance"]),  // emi
            ("That was so stupid of me, sorry", ["Transactions/Finance"]),  // upi
            ("See you at 10pm outside the cinema", ["Junk"]),  // 10p
            ("Let's get hotpot tonight", ["Transactions/Others"]),  // otp
            ("I learnt so much at the workshop", ["Junk"]),  // earn
            // <#> is Android's SMS Retriever prefix only at the start.
            ("I typed <#> by mistake in the chat, ignore it", ["Transactions/Others"]),
            // Ambiguous Chinese single words alone.
            ("我给你发了个红包，记得收一下", filtered),
            ("我是这家店的会员", filtered),
            ("听说他们公司明年要上市了", filtered),
            ("我的账户密码忘了怎么办", ["Transactions/Finance"]),
            ("他每周都买彩票", ["Junk"]),
            ("贷款买房的事怎么样了", ["Junk"]),
            ("周末你去做兼职吗", ["Junk"]),
            // A bill or a price in pounds is not junk.
            ("Your bill at 3 is £33.65 so thats not bad!", ["Junk"]),
            ("It's £6 to get in, is that ok?", ["Junk"]),
            // Conversation about spending, the weather.
            ("I spent the whole afternoon at the beach", ["Transactions/Finance"]),
            ("So how's the weather over there?", ["Transactions/Weather"]),
        ]
        for (body, forbidden) in traps {
            let f = folder(body)
            XCTAssertFalse(forbidden.contains(f), "\(body) → \(f) (rule \(rule(body) ?? "none"))")
        }
        // The same words where they do mean it.
        let real: [(String, String)] = [
            ("Your EMI of Rs 4,500 is due on 5 June", "Transactions/Finance"),
            ("Rs 250 paid via UPI to Ramesh", "Transactions/Finance"),
            ("Call 09061701461 now, only 10p/min", "Junk"),
            ("104444(รหัสShopeePayOTP มีอายุการใช้งาน 5 นาที)", "Transactions/Others"),
            ("<#> ExampleApp: 482913 FA+9qCX9VSu", "Transactions/Others"),
            ("  <#> 482913 FA+9qCX9VSu", "Transactions/Others"),
            ("双十一红包雨，点击领取最高888元红包", "Promotions/Coupons"),
            ("会员日活动，全场满减，回T退订", "Promotions/Offers"),  // 退订 marks an ad (issue 34); 满减 is its offer
            ("会员专享礼遇，详询门店", "Promotions/Others"),
            ("您尾号1234的账户于5月1日消费人民币500.00元", "Transactions/Finance"),
            ("彩票平台注册送彩金", "Junk"),
            ("无抵押贷款，秒到账，加微信", "Junk"),
            ("兼职日结，手机操作，加微信", "Junk"),
            ("You have WON £1000 cash! Txt CLAIM to 80082", "Junk"),
            ("Ringtones for just £3/wk, txt TONE to 85023", "Junk"),
            ("Rs 5,000 spent on your credit card XX1234", "Transactions/Finance"),
            ("Your parcel is held, pay the fee at http://45.12.3.4/track", "Junk"),
            ("Claim your free gift at https://u.to/x7Yz", "Junk"),
        ]
        for (body, want) in real {
            XCTAssertEqual(folder(body), want, "\(body) (rule \(rule(body) ?? "none"))")
        }
        // The batch path (lockstep scan, normalised bodies apart) decides every trap as the single path does.
        let bodies = traps.map(\.0) + real.map(\.0)
        let verdicts = MessageBatch(bodies: bodies).verdicts(c)
        for (k, body) in bodies.enumerated() {
            XCTAssertEqual(verdicts[k], c.classify(sender: nil, body: body), "batch and single differ on \(body)")
        }
        XCTAssertEqual(rule("<#> ExampleApp: 482913 FA+9qCX9VSu"), "otp-retriever")
        XCTAssertEqual(rule("会员专享礼遇，详询门店"), "promotional-wording-zh")
        XCTAssertEqual(rule("会员日活动，全场满减，回T退订"), "ad-marker-offers")
        XCTAssertEqual(rule("双十一红包雨，点击领取最高888元红包"), "coupons-red-packet")
    }

    /// Issue 34 item 4, one case each way: keywords are not found inside longer words, phishing needs a link, a
    /// phone number or a request for credentials and never decides against a registered transactional sender on
    /// its own, and a bare `name.tld` is a URL only where a linkifier would make it one.
    func testIssue34PrecisionTraps() throws {
        let c = Classifier(ruleSet: try RuleSet.parse(yaml: Self.sampleYAML, file: "default"))
        func verdict(_ body: String, _ sender: String?) -> (String, String) {
            let v = c.classify(sender: sender, body: body)
            return (v.folder.path, v.rule >= 0 ? c.ruleSet.ruleNames[Int(v.rule)] : "none")
        }
        let cases: [(String?, String, String)] = [
            // `sale` is not `sales`; a keyword is not found inside a longer word of a spaced script.
            (nil, "The sales team meeting is moved to 3pm", "Unknown Senders"),
            (nil, "Big sale this weekend: everything 20% off", "Promotions/Offers"),
            // Phishing: the alarm alone is not enough; with a link, a phone number or a request for credentials it is.
            (nil, "Your account has been suspended for a day, sorry for the trouble", "Unknown Senders"),
            ("+919812345678", "Your account will be blocked today. Update KYC at http://kyc-check.xyz", "Junk"),
            ("+919812345678", "Your SBI account will be blocked today, call 9876543210 to update KYC", "Junk"),
            ("+919812345678", "Your account is blocked. Share your OTP with our officer to unblock it", "Junk"),
            // … and never decides against a registered transactional sender (TRAI -T/-S/-G, listed banks).
            ("VM-HDFCBK-S", "Your account will be blocked today. Update KYC at http://kyc-check.xyz", "Transactions/Finance"),
            ("JM-NACHMS-S", "NACH mandate for your account XX1234 is suspended as requested. Details: https://nach.example.in/m/12",
             "Transactions/Others"),
            ("VM-PHONPE-S", "Rs 500 sent from your account to Ramesh. Not you? Click https://phon.pe/help or call 08068727374",
             "Transactions/Others"),
            // A bare name.tld with a word-like TLD is no URL without context (link-prize needs a URL).
            (nil, "Oops.today we got the prize for the best team!", "Unknown Senders"),
            (nil, "You are a winner! Collect your prize at win88.today", "Junk"),
        ]
        for (sender, body, want) in cases {
            let (folder, rule) = verdict(body, sender)
            XCTAssertEqual(folder, want, "\(sender ?? "-") \(body) (rule \(rule))")
        }
    }

    struct Record { var id: String; var body: String; var label: String }

    static func corpus(_ name: String, in folder: URL) throws -> [Record] {
        let r = try Fixtures.run("zstd", ["-dc", folder.appendingPathComponent(name).path])
        guard r.status == 0 else { throw FixtureError("zstd -dc \(name): \(String(decoding: r.stderr, as: UTF8.self))") }
        var out: [Record] = []
        for line in r.stdout.split(separator: UInt8(ascii: "\n")) {
            let o = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
            out.append(Record(id: o["id"] as! String, body: o["body"] as! String, label: o["label"] as! String))
        }
        return out
    }

    /// The quality report in docs/RULES.md comes from this test's output (`swift test --filter DefaultRulesTests`).
    func testQualityOnCorpora() throws {
        let folder = try Corpora.forQualityFloor("DefaultRulesTests.testQualityOnCorpora")
        let uci = try Self.corpus("uci_sms_spam.jsonl.zst", in: folder)
        let thai = try Self.corpus("thai_sms.jsonl.zst", in: folder)
        XCTAssertEqual([uci.count, thai.count], [5574, 3514])
        let set = try RuleSet.parse(yaml: Self.sampleYAML, file: "default")
        let c = Classifier(ruleSet: set)
        let dump = ProcessInfo.processInfo.environment["SMSFILTER_QUALITY_DUMP"]
        var misses = ""
        var tp = 0, fp = 0, fn = 0, tn = 0
        var hamToTransactions = 0
        for r in uci {
            let v = c.classify(sender: nil, body: r.body)
            if r.label == "ham", v.action == .transaction { hamToTransactions += 1 }
            let positive = v.action == .junk || v.action == .promotion
            switch (r.label == "spam", positive) {
            case (true, true): tp += 1
            case (false, true): fp += 1; misses += "UCI FP [\(v.rule >= 0 ? set.ruleNames[Int(v.rule)] : "-")/\(v.phrase >= 0 ? set.phrase(at: Int(v.phrase)) : "")] \(r.body)\n"
            case (true, false): fn += 1; misses += "UCI FN \(r.body)\n"
            case (false, false): tn += 1
            }
        }
        let precision = Double(tp) / Double(max(1, tp + fp))
        let recall = Double(tp) / Double(max(1, tp + fn))
        var agree = 0
        var perLabel: [String: (Int, Int)] = [:]
        for r in thai {
            let v = c.classify(sender: nil, body: r.body)
            let ok: Bool = switch r.label {
            case "OTP": v.action == .transaction
            case "scam": v.action == .junk
            case "spam": v.action == .promotion
            default: v.action != .junk && v.action != .promotion  // OK: anything but filtered as unwanted
            }
            let okStrict = ok
            if okStrict { agree += 1 } else {
                misses += "THAI \(r.label) → \(v.folder.path) [\(v.rule >= 0 ? set.ruleNames[Int(v.rule)] : "-")/\(v.phrase >= 0 ? set.phrase(at: Int(v.phrase)) : "")] \(r.body)\n"
            }
            let p = perLabel[r.label] ?? (0, 0)
            perLabel[r.label] = (p.0 + (okStrict ? 1 : 0), p.1 + 1)
        }
        let agreement = Double(agree) / Double(thai.count)
        func pct(_ x: Double) -> String { String(format: "%.1f%%", x * 100) }
        print("QUALITY uci: precision \(pct(precision)) recall \(pct(recall)) (tp \(tp) fp \(fp) fn \(fn) tn \(tn)); ham sent to Transactions \(hamToTransactions)")
        print("QUALITY thai: agreement \(pct(agreement)) (\(agree)/\(thai.count)); " + perLabel.keys.sorted().map {
            "\($0) \(perLabel[$0]!.0)/\(perLabel[$0]!.1)" }.joined(separator: ", "))
        if let dump { try misses.write(toFile: dump, atomically: true, encoding: .utf8) }
        // Floors a little under the figures reported in docs/RULES.md and docs/QUALITY.md (measured after issue 34:
        // precision 96.8%, recall 85.0%, 81 ham to Transactions, agreement 79.9%, OTP 97.5%, OK 88.7%; before it,
        // 96.7%, 85.9%, 92, 79.7%, 97.5%, 87.3%: no keyword inside a longer word costs the spam that only a
        // stem found, "ringtoneking", "urawinner"), so a rule change that loses quality fails.
        XCTAssertGreaterThanOrEqual(precision, 0.96)
        XCTAssertGreaterThanOrEqual(recall, 0.845)
        XCTAssertLessThanOrEqual(hamToTransactions, 100)
        XCTAssertGreaterThanOrEqual(agreement, 0.79)
        XCTAssertGreaterThanOrEqual(Double(perLabel["OTP"]!.0) / Double(perLabel["OTP"]!.1), 0.97)
        XCTAssertGreaterThanOrEqual(Double(perLabel["OK"]!.0) / Double(perLabel["OK"]!.1), 0.865)
    }
}

/// Single, batch and String APIs give identical verdicts on every message of the committed fixture (with
/// its senders) and of samples/sample.jsonl.zst (real messages, senders cycled over every kind).
final class ClassificationAPIsAgreeTests: XCTestCase {
    func testSingleBatchAndStringAgreeOnTheCommittedCorpora() throws {
        var pairs: [(String?, String)] = try GeneratedFixture.records().map { ($0.sender, $0.body) }
        let sample = Fixtures.packageRoot.appendingPathComponent("samples/sample.jsonl.zst").path
        let senders: [String?] = [nil, "VM-HDFCBK-T", "AD-FLIPKT-P", "56161", "+919876543210", "BX-UIDAIG-G"]
        for (i, line) in try GeneratedFixture.decompressed(sample).split(separator: 0x0A).enumerated() {
            let object = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
            pairs.append(((object["sender"] as? String) ?? senders[i % senders.count], object["body"] as! String))
        }
        XCTAssertEqual(pairs.count, GeneratedFixture.recordCount + 1838)
        let c = Classifier(ruleSet: RuleSet.embeddedDefault)
        let messages = MessageBatch(pairs)
        let batch = messages.verdicts(c)
        var folders = Set<Folder>()
        messages.buffer.withUnsafeBytes { buf in
            for (i, span) in messages.spans.enumerated() {
                let body = UnsafeRawBufferPointer(rebasing: buf[span.bodyStart..<(span.bodyStart + span.bodyCount)])
                let sender = span.senderCount < 0 ? nil : UnsafeRawBufferPointer(rebasing: buf[span.senderStart..<(span.senderStart + span.senderCount)])
                let single = c.classify(sender: sender, body: body)
                if single != batch[i] { XCTFail("#\(i) \(pairs[i]): batch \(batch[i]) != single \(single)") }
                let string = c.classify(sender: pairs[i].0, body: pairs[i].1)
                if string != single { XCTFail("#\(i) \(pairs[i]): string API \(string) != bytes API \(single)") }
                folders.insert(single.folder)
            }
        }
        XCTAssertGreaterThanOrEqual(folders.count, 14, "verdicts reach most folders: \(folders)")
    }
}
