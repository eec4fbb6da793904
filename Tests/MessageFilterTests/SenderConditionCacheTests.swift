import TestSupport
import XCTest
@testable import MessageFilter

/// The classifier keeps each sender's parse and its sender conditions' answers in a slot, for the other rules
/// that ask the same condition and the later messages of the same sender (`Classifier._senderSlotInfo`,
/// `_senderConditionHolds`); it makes the sender's key for `exact` and `prefix` lists once per message, and looks
/// an `exact` list up by hash. These tests fail when a kept answer or key is wrong: stale from the message or
/// sender before, shared between two conditions that differ, or a hash lookup that misses an entry the list holds.
final class SenderConditionCacheTests: XCTestCase {
    /// Two rules share each of `bank` and `registered`; `shop` is a list of the same shape that holds other
    /// senders. Messages follow each other through one classifier, so that an answer kept from the message before
    /// would decide the next one wrongly.
    static let yaml = """
        version: 1
        defaultCountryCode: 91
        capabilities: [transactionalFinance]
        rules:
          - {name: bank-alert, action: transaction, subAction: transactionalFinance, priority: 60, keywords: [debited],
             sender: {exact: [BANKCO, "+919876543210", "56161"]}}
          - {name: bank-offer, action: promotion, priority: 50, keywords: [offer],
             sender: {exact: [BANKCO, "+919876543210", "56161"]}}
          - {name: shop, action: promotion, priority: 40, keywords: [offer, debited], sender: {exact: [SHOPCO, "56162"]}}
          - {name: phishing, action: junk, priority: 80, keywords: [verify], unlessSender: [{exact: [BANKCO]}, {suffix: [T]}]}
          - {name: kyc, action: junk, priority: 70, keywords: [kyc], unlessSender: [{exact: [BANKCO]}, {suffix: [T]}]}
          - {name: registered, action: transaction, priority: 1, sender: {suffix: [T]}}
          - {name: port, action: promotion, priority: 2, sender: {prefix: ["106", "+86106"]}}
        """

    /// Sender, body, the winning rule written by hand (nil: none fired).
    static let rows: [(String?, String, String?)] = [
        ("BANKCO", "Rs 500 debited, offer inside", "bank-alert"),
        ("SHOPCO", "Rs 500 debited, offer inside", "shop"),  // the bank list's answer for BANKCO must not carry over
        (" bankco\t", "an offer for you", "bank-offer"),  // trimmed, ASCII case-insensitive
        ("SHOPCO", "an offer for you", "shop"),
        ("+91 98765 43210", "Rs 500 debited", "bank-alert"),  // a phone number, compared in E.164 form
        ("09876543210", "an offer", "bank-offer"),  // national, with the default country code
        ("+919876543211", "an offer", nil),  // one digit off: in neither list
        ("56162", "an offer", "shop"),
        ("56161", "an offer", "bank-offer"),
        ("BANKCO", "verify your kyc", nil),  // both junk rules excluded by the shared `exact: [BANKCO]`
        ("VM-BANKCO-T", "verify your kyc", "registered"),  // … and by the shared suffix, which `registered` asks too
        ("VM-OTHERS-P", "verify your kyc", "phishing"),
        ("VM-OTHERS-P", "kyc", "kyc"),
        (nil, "verify", "phishing"),
        ("BANKCO", "kyc and debited", "bank-alert"),
        ("SHOPCO", "kyc and debited", "kyc"),
        ("10690000", "kyc", "kyc"),
        ("10690000", "hello", "port"),
        ("+8610690000", "hello", "port"),  // a prefix of the E.164 form
        ("+8510690000", "hello", nil),
    ]

    func testSharedConditionsAreAskedOnceAndAnsweredPerMessage() throws {
        let set = try RuleSet.parse(yaml: Self.yaml, file: "cache.yaml")
        // 7 rules, 8 conditions written, 5 distinct: the bank list, the shop list, BANKCO, suffix T, the port prefixes.
        XCTAssertEqual(set.senderConditions.count, 5)
        XCTAssertEqual(set.unlessSenderConditions.count, 4)
        XCTAssertEqual(set.unlessSenderConditions[0], set.unlessSenderConditions[2])
        XCTAssertEqual(set.unlessSenderConditions[1], set.unlessSenderConditions[3])
        XCTAssertEqual(set.rules[0].sender, set.rules[1].sender)
        XCTAssertEqual(set.rules[5].sender, set.unlessSenderConditions[1])
        func name(_ v: Verdict) -> String? { v.rule >= 0 ? set.ruleNames[Int(v.rule)] : nil }
        let kept = Classifier(ruleSet: set)
        // Twice over, so that every message follows every kind of message before it.
        for round in 0..<2 {
            for (i, (sender, body, winner)) in Self.rows.enumerated() {
                let v = kept.classify(sender: sender, body: body)
                XCTAssertEqual(name(v), winner, "round \(round), row \(i): \(sender ?? "nil") / \(body)")
                XCTAssertEqual(v, Classifier(ruleSet: set).classify(sender: sender, body: body), "row \(i): a fresh classifier")
            }
        }
        // The batch call: the rows one after another in one batch, and in reverse.
        for rows in [Self.rows, Self.rows.reversed()] {
            let verdicts = batch(kept, rows.map { ($0.0, $0.1) })
            for (i, (sender, body, winner)) in rows.enumerated() {
                XCTAssertEqual(name(verdicts[i]), winner, "batch, row \(i): \(sender ?? "nil") / \(body)")
            }
        }
    }

    /// Every sender × every condition: the classifier's answer (uncached, `_senderMatches`; and through rules, one
    /// sender-only rule per condition, traced, the messages in a row through one classifier) equals a reference
    /// written from the rules' documentation (docs/RULES.md: ASCII case-insensitive, trimmed, phone numbers in
    /// E.164 form), by plain string comparison.
    func testExactAndPrefixListsAgainstAReference() throws {
        // A long exact list (many entries of one length, as the default rules' bank numbers), lists that share
        // entries, a list of phone numbers in several spellings, prefixes.
        let longList = (0..<40).map { "95\(500 + $0 * 3)" }
        let lists: [(exact: [String], prefix: [String])] = [
            (longList, []),
            (Array(longList.prefix(5)) + ["10086"], []),
            (["10086", "10010"], []),
            (["+91 98765 43210", "+44 20 7946 0958", "+1 (408) 555-0001"], []),
            (["Amazon", "VM-HDFCBK-T", "a@b.co"], []),
            ([], ["106", "+86106", "0086106"]),
            ([], ["+91", "VM-"]),
            (["95503"], ["955"]),
            (["amazon"], []),  // the same list as "Amazon" after folding: one condition or two, the same answers
            // Sixteen digits after "+": not read as a phone number, but the E.164 form of a national number of
            // fourteen digits after its trunk 0 (country code 91 prefixed).
            (["+9112345678901234"], []),
        ]
        // TRAI entities: looked up by hash without a wildcard, matched one by one with one.
        let entityLists: [[String]] = [
            ["HDFCBK", "ICICIB", "SBIINB", "AXISBK", "KOTAKB", "PNBSMS", "BOBTXN", "CANBNK", "UNIONB", "IDFCFB"],
            ["AIRTEL", "AIRTIN", "jioinf", "VI*", "AIR?EL", "*CARE"],
            ["*"],
        ]
        let senders: [String?] = [
            nil, "", "  ", "95500", "95503", "95617", "95620", "95501", "9550", "955000", " 95503 ", "10086", "10010",
            "10087", "+919876543210", "09876543210", "9876543210", "+91 98765 43210", "+442079460958", "+14085550001",
            "4085550001", "AMAZON", "amazon", " Amazon\t", "Amaz0n", "vm-hdfcbk-t", "VM-HDFCBK-S", "a@b.co", "A@B.CO",
            "10690000", "+8610690000", "008610690000", "86106", "VM-AIRTEL", "+911234567", "955",
            "+9112345678901234", "012345678901234", "+91123456789012345", "VM-HDFCBK", "ad-icicib-s", "JD-AIRTEL-P", "QP-AIRXEL-T", "VM-JIOINF",
            "vm-viinfo", "VM-VICARE-S", "VM-BSNLIN-G", "VM-KOTAKB-X", "HDFCBK", "VM-HDFCBK1",
        ]
        let defaultCountryCode: Int32 = 91
        var conditions: [SenderCondition] = []
        for l in lists {
            var c = SenderCondition()
            c.exact = l.exact
            c.prefix = l.prefix
            conditions.append(c)
        }
        for l in entityLists {
            var c = SenderCondition()
            c.entities = l
            conditions.append(c)
        }

        // The reference.
        func upper(_ s: String) -> String { String(decoding: s.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 & 0xDF : $0 }, as: UTF8.self) }
        func trim(_ s: String) -> String {
            var u = Array(s.utf8)
            while let f = u.first, f == 0x20 || f == 0x09 { u.removeFirst() }
            while let l = u.last, l == 0x20 || l == 0x09 { u.removeLast() }
            return String(decoding: u, as: UTF8.self)
        }
        func e164(_ s: String) -> String? {
            let info = SenderInfo.classify(s, defaultCountryCode: defaultCountryCode)
            return info.kind == .phoneNumber ? "+\(info.number)" : nil
        }
        func entry(_ e: String) -> String { e164(e).map { e.hasSuffix("*") ? upper(e) : $0 } ?? upper(e) }
        func prefixEntry(_ p: String) -> String {
            let digits = p.filter { $0.isNumber || $0 == "+" }
            if digits.count == p.filter({ !$0.isWhitespace && $0 != "-" }).count, digits.hasPrefix("+") { return digits }
            return upper(p)
        }
        func glob(_ s: Substring, _ p: Substring) -> Bool {
            guard let h = p.first else { return s.isEmpty }
            if h == "*" { return glob(s, p.dropFirst()) || (!s.isEmpty && glob(s.dropFirst(), p)) }
            guard let c = s.first else { return false }
            return (h == "?" || h == c) && glob(s.dropFirst(), p.dropFirst())
        }
        func holds(_ c: SenderCondition, _ sender: String?) -> Bool {
            guard let sender else { return false }
            if !c.entities.isEmpty {
                let info = SenderInfo.classify(sender, defaultCountryCode: defaultCountryCode)
                guard info.isTRAIHeader else { return false }
                let u = Array(sender.utf8)
                let entity = upper(String(decoding: u[info.traiEntity], as: UTF8.self))
                return c.entities.contains { glob(Substring(entity), Substring($0.uppercased())) }
            }
            let forms = [upper(trim(sender))] + (e164(sender).map { [$0] } ?? [])
            return forms.contains { f in c.exact.contains { entry($0) == f } || c.prefix.contains { f.hasPrefix(prefixEntry($0)) } }
        }

        // `_senderMatches`, uncached, condition by condition; and the gate the classifier checks first never turns
        // away a sender the condition accepts.
        let set = try RuleSet.parse(yaml: "version: 1\ndefaultCountryCode: 91\nrules:\n  - {name: x, action: junk, keywords: [x]}\n",
                                    file: "x.yaml")
        let plain = Classifier(ruleSet: set)
        var held = 0
        for (k, condition) in conditions.enumerated() {
            let c = _CompiledSenderCondition(condition, defaultCountryCode: defaultCountryCode)
            var gate = _CompiledRule(priority: 0, needsKeyword: false, allMask: 0, sender: 0, action: .junk, requested: .none,
                                     validation: set.capabilities.validate(action: .junk, subAction: .none))
            gate.senderKinds = c.possibleKinds
            gate.senderNeedsTRAI = c.needsTRAIHeader
            gate.senderNeedsBytes = c.needsSenderBytes
            for sender in senders {
                var bytes = Array((sender ?? "").utf8)
                let (got, open) = bytes.withUnsafeMutableBytes { raw in
                    let s: UnsafeRawBufferPointer? = sender == nil ? nil : UnsafeRawBufferPointer(raw)
                    let info = SenderInfo.classify(s, defaultCountryCode: defaultCountryCode)
                    return (plain._senderMatches(c, s, info), gate.senderMayMatch(info, present: s != nil))
                }
                XCTAssertEqual(got, holds(condition, sender), "condition \(k) \(condition), sender \(String(describing: sender))")
                if got {
                    held += 1
                    XCTAssertTrue(open, "the gate turns away condition \(k) \(condition), sender \(String(describing: sender))")
                }
            }
        }
        XCTAssertGreaterThan(held, 25)

        // Through rules: rule k has condition k as its sender condition; rule n + k has it as its `unlessSender`
        // (with a keyword every body holds). Several rules share one condition.
        var yaml = "version: 1\ndefaultCountryCode: 91\nrules:\n"
        func written(_ l: (exact: [String], prefix: [String])) -> String {
            func quoted(_ l: [String]) -> String { "[" + l.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
            return "{" + [l.exact.isEmpty ? nil : "exact: \(quoted(l.exact))", l.prefix.isEmpty ? nil : "prefix: \(quoted(l.prefix))"]
                .compactMap { $0 }.joined(separator: ", ") + "}"
        }
        let writtenConditions = lists.map(written) + entityLists.map { "{entity: [" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]}" }
        for (k, w) in writtenConditions.enumerated() {
            yaml += "  - {name: s\(k), action: transaction, sender: \(w)}\n"
        }
        for (k, w) in writtenConditions.enumerated() {
            yaml += "  - {name: u\(k), action: junk, keywords: [msg], unlessSender: [\(w)]}\n"
        }
        let ruled = try RuleSet.parse(yaml: yaml, file: "lists.yaml")
        XCTAssertEqual(ruled.senderConditions.count, conditions.count)  // each written twice, kept once
        let kept = Classifier(ruleSet: ruled)
        let trace = DecisionTrace(detail: .rules)
        let n = conditions.count
        for round in 0..<2 {
            for sender in (round == 0 ? senders : senders.reversed()) {
                trace.reset()
                var senderBytes = Array((sender ?? "").utf8)
                var body = Array("msg".utf8)
                senderBytes.withUnsafeMutableBytes { s in
                    body.withUnsafeMutableBytes { b in
                        _ = kept.classify(sender: sender == nil ? nil : UnsafeRawBufferPointer(s), body: UnsafeRawBufferPointer(b), trace: trace)
                    }
                }
                let fired = Set(trace.firedRules(message: 0))
                for (k, condition) in conditions.enumerated() {
                    let h = holds(condition, sender)
                    XCTAssertEqual(fired.contains(k), h, "rule s\(k), sender \(String(describing: sender))")
                    XCTAssertEqual(fired.contains(n + k), !h, "rule u\(k), sender \(String(describing: sender))")
                }
            }
        }
    }

    /// When the generation stamps wrap around, the message after takes generation 1 again: the answers and the
    /// sender key kept for the first message (generation 1) must not answer for it.
    func testAnswersAfterTheGenerationWrapsAround() throws {
        let set = try RuleSet.parse(yaml: Self.yaml, file: "cache.yaml")
        let c = Classifier(ruleSet: set)
        func name(_ v: Verdict) -> String? { v.rule >= 0 ? set.ruleNames[Int(v.rule)] : nil }
        XCTAssertEqual(name(c.classify(sender: "BANKCO", body: "debited")), "bank-alert")
        XCTAssertEqual(c.generation, 1)
        c.generation = UInt32.max
        XCTAssertEqual(name(c.classify(sender: "SHOPCO", body: "debited")), "shop")
        XCTAssertEqual(c.generation, 1)
        for (i, (sender, body, winner)) in Self.rows.enumerated() {
            XCTAssertEqual(name(c.classify(sender: sender, body: body)), winner, "row \(i)")
        }
    }

    /// The classifier keeps each sender's parse and its conditions' answers in a slot its bytes choose, for the
    /// messages of the same sender that follow (`Classifier._senderSlotInfo`). Two senders that choose the same
    /// slot, one after the other in one batch, asking the same conditions: each message must be answered for its
    /// own sender, not from what the slot kept for the other (nor from the message before, for senders too long
    /// to keep, whose answers are cleared per message).
    func testASlotAnswersForItsOwnSenderOnly() throws {
        // Senders that choose the same slot: the first two found among numbered names, and two long ones.
        var bySlot: [Int: String] = [:]
        var pairs: [(String, String)] = []
        for i in 0..<5000 where pairs.count < 3 {
            let s = i % 2 == 0 ? "SHOP\(i)" : "+91 98765 \(10000 + i)"
            let slot = Array(s.utf8).withUnsafeBytes { _SenderSlotKey($0)!.slot }
            if let t = bySlot[slot] { pairs.append((t, s)) } else { bySlot[slot] = s }
        }
        XCTAssertEqual(pairs.count, 3)
        let long1 = "106" + String(repeating: "A", count: Classifier.senderKeptBytes)
        let long2 = "107" + String(repeating: "A", count: Classifier.senderKeptBytes)
        XCTAssertNil(Array(long1.utf8).withUnsafeBytes { _SenderSlotKey($0) })
        // Per pair, a rule for the first sender alone, as a sender condition and as an `unlessSender` condition.
        var yaml = "version: 1\ndefaultCountryCode: 91\nrules:\n"
        for (k, (a, _)) in pairs.enumerated() {
            yaml += "  - {name: only\(k), action: transaction, priority: \(10 + k), keywords: [notice], sender: {exact: [\"\(a)\"]}}\n"
            yaml += "  - {name: not\(k), action: junk, priority: 5, keywords: [offer\(k)], unlessSender: [{exact: [\"\(a)\"]}]}\n"
        }
        yaml += "  - {name: port, action: promotion, priority: 1, sender: {prefix: [\"106\"]}}\n"
        let set = try RuleSet.parse(yaml: yaml, file: "slots.yaml")
        func name(_ v: Verdict) -> String? { v.rule >= 0 ? set.ruleNames[Int(v.rule)] : nil }
        var messages: [(String?, String)] = []
        var expected: [String?] = []
        for (k, (a, b)) in pairs.enumerated() {
            for _ in 0..<2 {
                // (Both rules touched: the condition asked twice for one message, the second time answered from the slot.)
                messages += [(a, "notice"), (b, "notice"), (a, "offer\(k)"), (b, "offer\(k)"), (nil, "offer\(k)"),
                             (a, "notice offer\(k)"), (b, "notice offer\(k)"), (b, "notice offer\(k)")]
                expected += ["only\(k)", nil, nil, "not\(k)", "not\(k)", "only\(k)", "not\(k)", "not\(k)"]
            }
        }
        messages += [(long1, "hello"), (long2, "hello"), (long1, "hello"), (long2, "hello")]
        expected += ["port", nil, "port", nil]
        let kept = Classifier(ruleSet: set)
        for (i, v) in batch(kept, messages).enumerated() {
            XCTAssertEqual(name(v), expected[i], "batch, message \(i): \(messages[i].0 ?? "nil") / \(messages[i].1)")
        }
        for (i, (sender, body)) in messages.enumerated() {
            XCTAssertEqual(name(kept.classify(sender: sender, body: body)), expected[i], "one by one, message \(i)")
            XCTAssertEqual(name(Classifier(ruleSet: set).classify(sender: sender, body: body)), expected[i], "fresh, message \(i)")
        }
    }

    /// A slot's key holds every byte of a sender up to `Classifier.senderKeptBytes`: two keys are equal exactly
    /// when the bytes are (every length up to one more than kept, every one-byte change at every position, and
    /// random pairs of short senders over a small alphabet, where equal bytes are frequent).
    func testSlotKeysAreEqualExactlyWhenTheBytesAre() {
        func key(_ b: [UInt8]) -> _SenderSlotKey? { b.withUnsafeBytes { _SenderSlotKey($0) } }
        var g = Fixtures.SeededGenerator(seed: 36)
        for n in 0...(Classifier.senderKeptBytes + 1) {
            let base = (0..<n).map { _ in UInt8.random(in: 0x20...0x7E, using: &g) }
            guard let k = key(base) else {
                XCTAssertGreaterThan(n, Classifier.senderKeptBytes)
                continue
            }
            XCTAssertLessThanOrEqual(n, Classifier.senderKeptBytes)
            XCTAssertEqual(key(base), k)
            XCTAssertNotEqual(key(base + [0x41]), k, "length \(n) and \(n + 1)")
            if n > 0 { XCTAssertNotEqual(key(Array(base.dropLast())), k, "length \(n) and \(n - 1)") }
            for i in 0..<n {
                var other = base
                other[i] ^= 0x01
                XCTAssertNotEqual(key(other), k, "length \(n), byte \(i)")
            }
        }
        for _ in 0..<200_000 {
            let a = (0..<Int.random(in: 0...10, using: &g)).map { _ in UInt8.random(in: 0x30...0x32, using: &g) }
            let b = (0..<Int.random(in: 0...10, using: &g)).map { _ in UInt8.random(in: 0x30...0x32, using: &g) }
            XCTAssertEqual(key(a) == key(b), a == b, "\(a) \(b)")
        }
    }

    private func batch(_ c: Classifier, _ messages: [(String?, String)]) -> [Verdict] {
        MessageBatch(messages).verdicts(c)
    }
}
