import Foundation
import XCTest
@testable import MessageFilter

/// The precedence of docs/RULES.md §10, one test per row of its table, on one rule file whose model's scores
/// are worked out by hand (every phrase has idf 1, so a message with one phrase has norm 1 and a score of
/// bias + weight). Each test checks the verdict, who decided, and that `explain` agrees with `classify`.
final class ModelPrecedenceTests: XCTestCase {
    // Targets none, junk, transaction; bias [0.1, -0.2, -0.2].
    //   "free"  [0, 0.5, 0]     → none 0.1, junk 0.3, transaction -0.2: junk by a margin of 0.2 (< 0.5 needed)
    //   "win"   [-1, 2, 0]      → none -0.9, junk 1.8: junk by 2.7
    //   "debited" [0, 0, 2]     → transaction 1.8 by 1.7 (no margin needed)
    //   "hello" [1, 0, 0]       → none 1.1 by 1.3
    //   "ฟรี"   [0, 3, 0]       → junk 2.8, but the model learned from 5 real Thai messages (needs 100)
    // It learned 150 real Latin messages of each target, and no promotion at all.
    static let yaml = """
        version: 1
        defaultCountryCode: 44
        blockList: block.txt
        identificationList: ids.tsv
        rules:
          - {name: otp, action: transaction, subAction: transactionalOthers, priority: 90, keywords: [otp]}
          - {name: finance, action: transaction, subAction: transactionalFinance, priority: 50, keywords: [debited]}
          - {name: offer, action: promotion, subAction: promotionalOffers, priority: -5, keywords: [offer]}
          - {name: prize, action: junk, priority: -3, keywords: [prize]}
          - {name: bank-header, action: transaction, subAction: transactionalFinance, priority: 1, sender: {entity: [HDFCBK]}}
          - {name: chat, action: allow, priority: -10, keywords: [hey]}
        model:
          name: learned
          priority: 60
          threshold: THRESHOLD
          targets: [none, junk, transaction]
          bias: [0.1, -0.2, -0.2]
          margins: [0, 0.5, 0]
        OVERRULES
          minScriptMessages: 100
          scripts: {latin: [150, 150, 150], thai: [5, 0, 0]}
          phrases:
            - [word, "free", 1, 0, 0.5, 0]
            - [word, "win", 1, -1, 2, 0]
            - [word, "debited", 1, 0, 0, 2]
            - [word, "hello", 1, 1, 0, 0]
            - [part, "ฟรี", 1, 0, 3, 0]
        """

    /// The rule file with its lists, written to a temporary folder and loaded.
    static func ruleSet(threshold: String, overrules: String = "") throws -> RuleSet {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("precedence-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "447700900001\n".write(to: dir.appendingPathComponent("block.txt"), atomically: true, encoding: .utf8)
        try "447700900002\tMum\n".write(to: dir.appendingPathComponent("ids.tsv"), atomically: true, encoding: .utf8)
        let path = dir.appendingPathComponent("precedence.yaml").path
        let text = yaml.replacingOccurrences(of: "THRESHOLD", with: threshold)
            .replacingOccurrences(of: "OVERRULES\n", with: overrules.isEmpty ? "" : "  overrules: \(overrules)\n")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return try RuleSet.load(path: path)
    }

    func explain(_ body: String, sender: String? = nil, threshold: String = "null", overrules: String = "",
                 file: StaticString = #filePath, line: UInt = #line) throws -> Explanation {
        checkedExplanation(Classifier(ruleSet: try Self.ruleSet(threshold: threshold, overrules: overrules)), sender: sender, body: body, file: file, line: line)
    }

    /// Row 1: a sender on the block list is junk; nothing else is looked at.
    func testRow1BlockList() throws {
        let e = try explain("hello, your otp is 1234", sender: "+447700900001")
        XCTAssertEqual(e.verdict.folder.path, "Junk")
        XCTAssertEqual(e.verdict.list, .blockList)
        XCTAssertEqual(e.model?.decided, false)
    }

    /// Row 2: a sender on the identification list is allowed, with its label.
    func testRow2IdentificationList() throws {
        let e = try explain("win win win", sender: "+447700900002")
        XCTAssertEqual(e.verdict.folder.path, "Inbox")
        XCTAssertEqual(e.label, "Mum")
    }

    /// Row 3: a rule at or above the model's priority decides before the model.
    func testRow3RuleAboveTheModel() throws {
        let e = try explain("win: your otp is 1234")
        XCTAssertEqual(e.ruleName, "otp")
        XCTAssertEqual(e.verdict.folder.path, "Transactions/Others")
        XCTAssertEqual(e.model?.decided, false)
    }

    /// Row 4: no model phrase in the message: the model abstains, the rules below it decide.
    func testRow4NoEvidence() throws {
        let e = try explain("a great offer")
        XCTAssertEqual(e.ruleName, "offer")
        XCTAssertEqual(e.model?.abstention, "noEvidence")
        XCTAssertTrue(e.steps.contains { $0.contains("abstained: none of its phrases is in the message") }, "\(e.steps)")
    }

    /// Row 5: the message's main script is one the model learned from too few real messages.
    func testRow5ScriptItDidNotLearn() throws {
        let e = try explain("รับฟรีทันที offer")
        let m = try XCTUnwrap(e.model)
        XCTAssertEqual(m.script, .thai)
        XCTAssertEqual(m.realMessages, 5)
        XCTAssertEqual(m.targets[m.winner], "junk")  // it would say junk (2.8) …
        XCTAssertEqual(m.abstention, "script")  // … but abstains
        XCTAssertEqual(e.ruleName, "offer")
        XCTAssertTrue(e.steps.contains { $0.contains("abstained: learned from 5 real Thai messages (it needs 100") }, "\(e.steps)")
        // A script it never saw at all.
        let han = try explain("免费 win")
        XCTAssertEqual(han.model?.script, .latin)  // 3 Latin letters, 2 Han: Latin; the model decides
        XCTAssertEqual(han.verdict.folder.path, "Junk")
        let zh = try explain("我到家了 win")
        XCTAssertEqual(zh.model?.script, .han)
        XCTAssertEqual(zh.model?.abstention, "script")
        XCTAssertEqual(zh.verdict.folder.path, "Unknown Senders")
        XCTAssertTrue(zh.steps.contains { $0.contains("abstained: learned from 0 real Han messages") }, "\(zh.steps)")
    }

    /// Row 6: the winner's margin over the runner-up is below its calibrated margin.
    func testRow6MarginBelowTheCalibratedOne() throws {
        let e = try explain("free offer")
        let m = try XCTUnwrap(e.model)
        XCTAssertEqual(m.margin, 0.2, accuracy: 1e-6)
        XCTAssertEqual(m.marginNeeded, 0.5, accuracy: 1e-6)
        XCTAssertEqual(m.abstention, "margin")
        XCTAssertEqual(e.ruleName, "offer")
        XCTAssertEqual(e.verdict.folder.path, "Promotions/Offers")
        // With a margin of 1.3 the model decides (none: no margin needed), over a junk rule below it.
        let strong = try explain("hello, a prize")
        XCTAssertEqual(strong.ruleName, "learned")
        XCTAssertEqual(strong.verdict.folder.path, "Unknown Senders")
        XCTAssertEqual(strong.rules.first { $0.name == "prize" }?.outcome, .lostToModel(name: "learned"))
        XCTAssertEqual(try explain("win now").verdict.folder.path, "Junk")  // junk by 2.7
    }

    /// Row 6b: the best firing rule below the model has another action than the winner: with an `overrules:`
    /// table (`learn --rules`), the winner needs the margin calibrated for overruling a rule of that action
    /// (instead of its `margins` entry) on messages of that main script; `never`, or a target or script left out,
    /// never overrules such a rule. Without a table the model overrules whenever it decides (row 6's "hello, a
    /// prize").
    func testRow6bOverruleMarginBelowTheCalibratedOne() throws {
        // "hello" → none by 1.3 over junk; the junk rule `prize` fired below the model.
        let weak = try explain("hello, a prize", overrules: "{latin: {junk: {none: 1.5}}}")
        var m = try XCTUnwrap(weak.model)
        XCTAssertEqual(m.targets[m.winner], "none")
        XCTAssertEqual(m.margin, 1.3, accuracy: 1e-6)
        XCTAssertEqual(m.abstention, "overrule")
        XCTAssertEqual(m.overrules, "prize")
        XCTAssertEqual(m.overrulesAction, .junk)
        XCTAssertTrue(m.overruleCalibrated)
        XCTAssertEqual(m.marginNeeded, 1.5, accuracy: 1e-6)
        XCTAssertEqual(weak.ruleName, "prize")
        XCTAssertEqual(weak.verdict.folder.path, "Junk")
        XCTAssertTrue(weak.steps.contains { $0.contains("abstained: it would overrule rule \"prize\" (junk) with none: margin 1.3, needs 1.5 (its calibrated overrule margin)") },
                      "\(weak.steps)")
        let strong = try explain("hello, a prize", overrules: "{latin: {junk: {none: 1.0}}}")
        m = try XCTUnwrap(strong.model)
        XCTAssertEqual(strong.ruleName, "learned")
        XCTAssertEqual(strong.verdict.folder.path, "Unknown Senders")
        XCTAssertEqual(m.marginNeeded, 1.0, accuracy: 1e-6)
        XCTAssertTrue(strong.steps.contains { $0.contains("overrules rule \"prize\" (junk) with none: margin 1.3, needs 1.0 (its calibrated overrule margin)") },
                      "\(strong.steps)")
        XCTAssertEqual(strong.rules.first { $0.name == "prize" }?.outcome, .lostToModel(name: "learned"))
        // never, and a target left out of the row: the rule decides, and explain says never.
        // A script left out of the table is never overruled on either.
        for table in ["{latin: {junk: {none: never, transaction: 0}}}", "{latin: {junk: {transaction: 0}}}", "{latin: {none: {junk: 0}}}",
                      "{thai: {junk: {none: 0}}}", "{}"] {
            let e = try explain("hello, a prize", overrules: table)
            XCTAssertEqual(e.verdict.folder.path, "Junk", table)
            XCTAssertEqual(e.model?.abstention, "overrule", table)
            XCTAssertEqual(e.model?.marginNeeded, .infinity, table)
            XCTAssertTrue(e.steps.contains { $0.contains("needs never (its calibrated overrule margin)") }, "\(e.steps)")
        }
        // The overrule margin replaces the winner's margin: "free" says junk by 0.2 (its margin: 0.5) over the
        // allow rule `chat`, a row none (none and allow) overrule.
        XCTAssertEqual(try explain("free hey").verdict.folder.path, "Inbox")  // no table: margin 0.5 not reached
        let free = try explain("free hey", overrules: "{latin: {none: {junk: 0.1}}}")
        XCTAssertEqual(free.ruleName, "learned")
        XCTAssertEqual(free.verdict.folder.path, "Junk")
        XCTAssertEqual(try explain("free hey", overrules: "{latin: {none: {junk: 0.3}}}").verdict.folder.path, "Inbox")
        // A rule with the winner's action is not overruled: its margins apply, and the rule gives the folder.
        let agree = try explain("win, a prize", overrules: "{latin: {junk: {none: never}, none: {junk: never}}}")
        XCTAssertEqual(agree.ruleName, "learned")
        XCTAssertNil(agree.model?.overrules)
        XCTAssertEqual(agree.verdict.folder.path, "Junk")
        // No rule below fired: the margins apply, whatever the table.
        XCTAssertEqual(try explain("hello", overrules: "{latin: {junk: {none: never}}}").ruleName, "learned")
        // Without a table, explain says the overrule margin was not calibrated.
        let plain = try explain("hello, a prize")
        XCTAssertEqual(plain.model?.overruleCalibrated, false)
        XCTAssertTrue(plain.steps.contains { $0.contains("overrules rule \"prize\" (junk) with none: margin 1.3, needs 0.0 (no overrule margin calibrated") }, "\(plain.steps)")
    }

    /// Row 7: the winning score is below the threshold.
    func testRow7BelowTheThreshold() throws {
        let e = try explain("win now", threshold: "2")
        XCTAssertEqual(e.model?.abstention, "threshold")
        XCTAssertEqual(e.verdict.folder.path, "Unknown Senders")
        XCTAssertEqual(try explain("win now", threshold: "1.5").ruleName, "learned")
    }

    /// Row 8: a rule below the model fired whose action the model learned too little of in this script (here:
    /// promotion, never), and the model does not say junk: the rule decides.
    func testRow8RuleOfAnActionTheModelDidNotLearn() throws {
        let e = try explain("hello, a great offer")
        XCTAssertEqual(e.model?.targets[e.model!.winner], "none")
        XCTAssertEqual(e.model?.abstention, "unlearnedRule")
        XCTAssertEqual(e.ruleName, "offer")
        XCTAssertEqual(e.verdict.folder.path, "Promotions/Offers")
        XCTAssertTrue(e.steps.contains { $0.contains("rule \"offer\" says promotion, and the model learned from 0 real Latin promotion messages") }, "\(e.steps)")
        // Whatever the model would say: junk by 2.7 here.
        let junk = try explain("win, a great offer")
        XCTAssertEqual(junk.model?.abstention, "unlearnedRule")
        XCTAssertEqual(junk.verdict.folder.path, "Promotions/Offers")
    }

    /// Row 8 yields to the rules' verdict only: a weaker firing rule of an action the model did not learn
    /// ("offer", promotion, -5) beside the rule the model would overrule ("prize", junk, -3, an action it
    /// learned) is no reason to yield: the rules' verdict would be junk either way.
    func testRow8YieldsToTheRulesVerdictOnly() throws {
        let e = try explain("hello, a prize offer")
        XCTAssertEqual(e.model?.targets[e.model!.winner], "none")
        XCTAssertNil(e.model?.abstention)
        XCTAssertEqual(e.ruleName, "learned")
        XCTAssertEqual(e.verdict.action, .none)
        XCTAssertEqual(e.verdict.folder.path, "Unknown Senders")
        // The unlearned rule as the rules' verdict: the model yields (row 8).
        let offer = try explain("hello, a great offer")
        XCTAssertEqual(offer.model?.abstention, "unlearnedRule")
        XCTAssertEqual(offer.verdict.folder.path, "Promotions/Offers")
    }

    /// Row 9: the model says junk and the sender is a TRAI DLT header: the model alone does not junk it.
    func testRow9DLTHeaderIsNotJunkOnTheModelsWord() throws {
        let e = try explain("win big", sender: "VM-SHOPIN")
        XCTAssertEqual(e.model?.abstention, "registeredSender")
        XCTAssertEqual(e.verdict.folder.path, "Unknown Senders")
        XCTAssertTrue(e.steps.contains { $0.contains("the sender is a TRAI DLT header") }, "\(e.steps)")
        // Another sender: the model decides as usual.
        XCTAssertEqual(try explain("win big", sender: "+447700900003").verdict.folder.path, "Junk")
    }

    /// Row 10: a registered transactional sender vouches for the message and the model does not say
    /// transaction: the model alone does not move it to Junk or Unknown Senders; the rules decide.
    func testRow10RegisteredSenderOverrulesTheModel() throws {
        for sender in ["VM-HDFCBK", "AX-HDFCBK-T"] {
            let e = try explain("win big", sender: sender)
            XCTAssertEqual(e.model?.targets[e.model!.winner], "junk")
            XCTAssertEqual(e.model?.abstention, "vouchedSender")
            XCTAssertEqual(e.ruleName, "bank-header", sender)
            XCTAssertEqual(e.verdict.folder.path, "Transactions/Finance", sender)
            XCTAssertTrue(e.steps.contains { $0.contains("registered transactional sender vouches for the message (bank-header fired)") }, "\(e.steps)")
            let hello = try explain("hello", sender: sender)  // the model would say none
            XCTAssertEqual(hello.verdict.folder.path, "Transactions/Finance", sender)
        }
    }

    /// Row 11: a registered transactional sender, and the model says transaction: the model decides, and the
    /// best transaction rule below it gives the folder.
    func testRow11RegisteredSenderAndTheModelAgree() throws {
        let e = try explain("Rs 500 debited", sender: "VM-HDFCBK")
        XCTAssertEqual(e.ruleName, "learned")
        XCTAssertEqual(e.model?.refinedBy, "finance")
        XCTAssertEqual(e.verdict.folder.path, "Transactions/Finance")
    }

    /// Row 12: the model decides; a rule below it of the action it chose gives the folder, and an allow rule
    /// turns its none into allow.
    func testRow12ModelDecidesRulesBelowRefine() throws {
        let e = try explain("hello hey")
        XCTAssertEqual(e.ruleName, "learned")
        XCTAssertEqual(e.verdict.folder.path, "Inbox")
        XCTAssertEqual(e.model?.refinedBy, "chat")
        XCTAssertEqual(try explain("hello").verdict.folder.path, "Unknown Senders")
    }

    /// Row 13: the model abstains and no rule fires: Unknown Senders.
    func testRow13NothingDecides() throws {
        let e = try explain("see you at noon")
        XCTAssertNil(e.ruleName)
        XCTAssertEqual(e.verdict.folder.path, "Unknown Senders")
        XCTAssertTrue(e.steps.contains("no rule fired: action none"), "\(e.steps)")
    }

    /// The script of a message: most letters, Han among Kana counts as Kana, no letters is `none`.
    func testMainScript() throws {
        let c = Classifier(ruleSet: try Self.ruleSet(threshold: "null"))
        var features: [Int32] = []
        let cases: [(String, Script)] = [
            ("Hello there", .latin), ("12345 !!", .none), ("", .none), ("สวัสดีครับ ok", .thai), ("我到家了", .han),
            ("東京へ行きます", .kana), ("Привет, как дела", .cyrillic), ("नमस्ते दोस्त", .devanagari), ("مرحبا بك", .arabic),
            ("안녕하세요", .hangul), ("Dеаr ϲuѕtomеr", .latin),  // look-alikes folded to ASCII first
            ("Ｆｒｅｅ", .latin), ("Γειά σου", .greek),
            // Links, addresses and numbers are no words (issue 34): a URL long enough to outnumber the kana, an
            // e-mail address, a host name; a message whose only words are a link keeps the link's script.
            ("お荷物をお届けに上がりましたが不在のため持ち帰りました https://yamato-hdelivery.example-track.xyz/abcdefghijklmnopqrstuvwxyzabcdefghijklmnop", .kana),
            ("確認してください: support-desk-team@mailservice.example.com", .kana),
            ("快递已到 www.sf-express-delivery-tracking.example.com 请查收", .han),
            ("택배 주소 확인 http://cjlogistics-delivery-address-check.example.top/kr/address", .hangul),
            ("https://example.com/path", .latin), ("hello 안녕 world", .latin), ("123456789 安", .han),
        ]
        for (body, script) in cases {
            var b = body
            let got = b.withUTF8 { c.modelFeatures(body: UnsafeRawBufferPointer($0), into: &features) }
            XCTAssertEqual(got, script, body)
            // The pass that decides whether to scan at all finds the same script.
            XCTAssertEqual(b.withUTF8 { c._modelMainScriptBeforeScan(body: UnsafeRawBufferPointer($0)) }, script, body)
        }
    }

    /// The model is scored only when it can decide (no number list and no rule at or above its priority
    /// decided) and the verdicts are those of scoring it always: `explain` scores it for every message.
    func testModelScoredOnlyWhenItCanDecide() throws {
        let set = try Self.ruleSet(threshold: "null")
        let c = Classifier(ruleSet: set)
        let s = try XCTUnwrap(c.modelScratch)
        func pending(_ body: String, sender: String? = nil) -> Bool {
            _ = c.classify(sender: sender, body: body)
            return s.slots[0].pending
        }
        XCTAssertTrue(pending("win: your otp is 1234"), "a rule above the model decided: no scan")
        XCTAssertTrue(pending("win win win", sender: "+447700900001"), "the block list decided: no scan")
        XCTAssertTrue(pending("win win win", sender: "+447700900002"), "the identification list decided: no scan")
        XCTAssertFalse(pending("win a prize"), "the model can decide: scanned")
        XCTAssertFalse(pending("see you at noon"), "no rule fired: scanned")
        XCTAssertFalse(pending("hey, debited 5"), "a rule below the model fired: scanned")
        XCTAssertTrue(pending("hey 我到家了，你在哪里"), "a script the model abstains on (Han): no scan")
        XCTAssertTrue(pending("รับฟรีทันที offer"), "Thai, which it learned from 5 messages: no scan")
        XCTAssertTrue(pending("12345 !!"), "no letters (script none): no scan")
        XCTAssertFalse(pending("免费 win"), "more Latin letters than Han: scanned")
        // The pass is skipped when the first non-ASCII letter is of a script the model speaks on: the text is
        // scanned (and the model abstains on Han; the verdict is the same either way).
        XCTAssertFalse(pending("é 我到家了，你在哪里"), "first non-ASCII letter Latin: scanned without the pass")
        XCTAssertTrue(pending("— ฟรี ฟรี"), "a dash is no letter; then Thai, which it abstains on: the pass, no scan")
        // The pass that finds the script before the scan agrees with the scan on mixed texts.
        // (Groups of 64 scalars counted with one load, and their edges: CJK punctuation, an Extension A ideograph
        // next to Yijing symbols, a danda among Devanagari letters, Thai digits, the kana length mark.)
        let pieces = ["win", "免费", "ฟรี", "Привет", "नमस्ते", "東京へ", "Ｆｒｅｅ", "Dеаr", "12", "!!", "é", "\u{FF}", "ß", "안녕",
                      "。", "，", "㐀", "䷀", "।", "१२", "๑๒", "ー", "カタカナ", "ひらがな", "\u{10348}", "😀", "ก", "ẞ",
                      // ASCII counted eight bytes at a time: the bytes around the letters' ranges.
                      "AZaz@[`{", "Hello world 12345678", "__~~^^]]", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
                      // Link-like runs, whose letters count only when nothing else does.
                      "https://abc.example.com/xyz", "me@mail.example", "www.example.co.jp", "a.b", "x/y", ".", "@"]
        var features: [Int32] = []
        for _ in 0..<2000 {
            var b = (0..<Int.random(in: 0...7)).map { _ in pieces.randomElement()! }.joined(separator: ["", " "].randomElement()!)
            let scanned = b.withUTF8 { c.modelFeatures(body: UnsafeRawBufferPointer($0), into: &features) }
            XCTAssertEqual(b.withUTF8 { c._modelMainScriptBeforeScan(body: UnsafeRawBufferPointer($0)) }, scanned, b)
        }
        // Random messages from the file's words, one at a time and in batches: the same verdicts as `explain`.
        let words = ["win", "free", "debited", "hello", "ฟรี", "otp", "offer", "prize", "hey", "我到家了", "免费", "the",
                     "1234", "WIN", "Frее", "é", "—", "😀"]
        let senders: [String?] = [nil, "+447700900001", "+447700900002", "AD-HDFCBK", "VM-PROMOS-G", "friend"]
        var rng = SystemRandomNumberGenerator()
        var messages: [(String?, String)] = []
        for _ in 0..<600 {
            let n = Int.random(in: 0...6, using: &rng)
            messages.append((senders.randomElement(using: &rng)!,
                             (0..<n).map { _ in words.randomElement(using: &rng)! }.joined(separator: " ")))
        }
        let batch = MessageBatch(messages).verdicts(c)
        let oracle = Classifier(ruleSet: set)
        for (k, (sender, body)) in messages.enumerated() {
            let always = oracle.explain(sender: sender, body: body).verdict
            XCTAssertEqual(c.classify(sender: sender, body: body), always, "\(sender ?? "-") \(body)")
            XCTAssertEqual(batch[k], always, "batch: \(sender ?? "-") \(body)")
        }
    }

}
