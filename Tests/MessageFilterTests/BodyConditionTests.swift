import Foundation
import TestSupport
import XCTest
@testable import MessageFilter

/// The rule conditions of issue 13 item 4, table by table: how each is written (and refused), what it
/// matches (and does not), what explain says about it, and that compiled rule sets keep it.
final class BodyConditionTests: XCTestCase {
    static func rules(_ body: String) -> String { "version: 1\nrules:\n" + body }

    func parse(_ yaml: String) throws -> RuleSet { try RuleSet.parse(yaml: Self.rules(yaml), file: "r.yaml") }

    // MARK: Writing the conditions

    /// (rule YAML, what the definition holds)
    func testEveryFormParses() throws {
        typealias Check = (RuleDefinition) -> Bool
        let table: [(String, Check)] = [
            ("urls: any", { $0.urls == .anyOf([.any]) }),
            ("urls: none\n    keywords: [x]", { $0.urls == .absent }),
            ("urls: shortener", { $0.urls == .anyOf([.shortener]) }),
            ("urls: [shortener, messenger, ip]", { $0.urls == .anyOf([.shortener, .messenger, .ip]) }),
            ("urls: [{tld: [XYZ, .top]}, {domain: [Example.COM]}]", { $0.urls == .anyOf([.tld(["xyz", "top"]), .domain(["example.com"])]) }),
            ("urls: {tld: xyz}", { $0.urls == .anyOf([.tld(["xyz"])]) }),
            ("phones: any", { $0.phones == .anyOf([.any]) }),
            ("phones: [{prefix: [\"09\", \"+44 (9)\"]}]", { $0.phones == .anyOf([.prefix(["09", "+449"])]) }),
            ("phones: none\n    keywords: [x]", { $0.phones == .absent }),
            ("amounts: any", { $0.amounts == .anyOf([AmountMatcher()]) }),
            ("amounts: {currency: [gbp, USD], min: 100, max: 1e6}", {
                $0.amounts == .anyOf([AmountMatcher(currencies: ["GBP", "USD"], minimum: 100, maximum: 1_000_000)])
            }),
            ("amounts: [{min: 0.5}, {currency: [INR]}]", {
                $0.amounts == .anyOf([AmountMatcher(minimum: 0.5), AmountMatcher(currencies: ["INR"])])
            }),
            ("startsWith: [\"<#>\"]", { $0.startsWith == ["<#>"] }),
            ("startsWith: OTP", { $0.startsWith == ["OTP"] }),
            ("sender: {entity: [\"hdfc*\", \"*CTAXKR\", \"AX?BNK\"]}", { $0.sender?.entities == ["HDFC*", "*CTAXKR", "AX?BNK"] }),
            ("keywords: [emi]", { $0.shortPhrasesWholeWord && !$0.wholeWord }),
            ("keywords: [emi]\n    wholeWord: false", { !$0.shortPhrasesWholeWord && !$0.wholeWord }),
            ("keywords: [emi]\n    wholeWord: true", { $0.shortPhrasesWholeWord && $0.wholeWord }),
        ]
        for (fields, check) in table {
            let set = try parse("  - name: r\n    action: junk\n    \(fields)\n")
            XCTAssertTrue(check(set.definition.rules[0]), "\(fields) → \(set.definition.rules[0])")
        }
    }

    /// (rule YAML, the line the error names, what it says)
    func testEveryMistakeIsNamedWithFileLineAndField() {
        let table: [(String, String)] = [
            ("urls: shortner", "r.yaml:5: rules[0].urls: unknown URL kind \"shortner\"; valid: any, none, shortener, messenger, ip, tld, domain; did you mean \"shortener\"?"),
            ("urls: example.com", "r.yaml:5: rules[0].urls: unknown URL kind \"example.com\""),
            ("urls: [any, none]", "r.yaml:5: rules[0].urls[1]: `none` stands alone (`urls: none`), not in a list"),
            ("urls: [{tld: [x.y]}]", "r.yaml:5: rules[0].urls[0].tld[0]: a top-level domain is letters, digits and hyphens without dots"),
            ("urls: [{domain: [localhost]}]", "r.yaml:5: rules[0].urls[0].domain[0]: a domain is a host name like example.com"),
            ("urls: [{host: [a.com]}]", "r.yaml:5: rules[0].urls[0].host: unknown URL alternative \"host\""),
            ("urls: [{tld: [xyz], domain: [a.com]}]", "r.yaml:5: rules[0].urls[0]: a URL alternative is one key (tld, domain); write several as a list"),
            ("urls: []", "r.yaml:5: rules[0].urls: expected any, none, or a list of alternatives"),
            ("phones: [{prefix: [\"09x\"]}]", "r.yaml:5: rules[0].phones[0].prefix[0]: a phone prefix is digits with an optional leading +"),
            ("phones: premium", "r.yaml:5: rules[0].phones: unknown phone condition \"premium\""),
            ("amounts: {currency: [GPB]}", "r.yaml:5: rules[0].amounts.currency[0]: unknown currency \"GPB\""),
            ("amounts: {min: 10, max: 5}", "r.yaml:5: rules[0].amounts: min 10 is larger than max 5: no amount could match"),
            ("amounts: {min: lots}", "r.yaml:5: rules[0].amounts.min: expected a number, got \"lots\""),
            ("amounts: {minimum: 1}", "r.yaml:5: rules[0].amounts.minimum: unknown amount condition \"minimum\"; valid: currency, min, max"),
            ("startsWith: []", "r.yaml:5: rules[0].startsWith: expected at least one phrase"),
            ("urls: none", "r.yaml:3: rules[0]: rule \"r\" has no condition"),
            ("sender: {entity: [\"HD-FC\"]}", "r.yaml:5: rules[0].sender.entity[0]: a TRAI entity is letters and digits, with * for any run of them and ? for one"),
            ("startWith: [x]", "r.yaml:5: rules[0].startWith: unknown rule field \"startWith\""),
        ]
        for (fields, want) in table {
            let got = RuleSet.resolve(yaml: Self.rules("  - name: r\n    action: junk\n    \(fields)\n"), file: "r.yaml").issues.map(\.description)
            XCTAssertTrue(got.contains { $0.hasPrefix(want) }, "\(fields): \(got)")
        }
        // More than 64 groups, counting the conditions.
        let groups = (0..<63).map { "[g\($0)]" }.joined(separator: ", ")
        let many = RuleSet.resolve(yaml: Self.rules("  - name: r\n    action: junk\n    all: [\(groups)]\n    urls: any\n    phones: any\n"), file: "r.yaml")
        XCTAssertTrue(many.issues.contains { $0.description.contains("at most 64 groups, counting startsWith, urls, phones and amounts") }, "\(many.issues)")
    }

    // MARK: What they match

    static let yaml = """
          - {name: short-link, action: junk, priority: 5, urls: [shortener]}
          - {name: chat-link, action: junk, priority: 5, urls: [messenger]}
          - {name: ip-link, action: junk, priority: 5, urls: ip}
          - {name: odd-tld, action: junk, priority: 4, urls: [{tld: [xyz, top]}]}
          - {name: bank-link, action: transaction, subAction: transactionalFinance, priority: 6, urls: [{domain: [hdfcbank.com]}]}
          - {name: premium, action: junk, priority: 3, phones: [{prefix: ["09", "+449"]}], keywords: [call]}
          - {name: big-prize, action: junk, priority: 3, amounts: [{currency: [GBP, USD], min: 500}], keywords: [won]}
          - {name: rupees, action: transaction, subAction: transactionalFinance, priority: 2, amounts: {currency: [INR]}}
          - {name: retriever, action: transaction, subAction: transactionalOthers, priority: 7, startsWith: ["<#>"]}
          - {name: any-link, action: promotion, priority: 1, urls: any}
          - {name: chat, action: allow, priority: 0, keywords: [see you], urls: none, phones: none}
          - {name: tax-office, action: transaction, subAction: transactionalPublicServices, priority: 8, sender: {entity: ["*CTAXKR"]}}
          - {name: hdfc-all, action: transaction, subAction: transactionalFinance, priority: 8, sender: {entity: ["HDFC*"]}, keywords: [debited]}
          - {name: short-words, action: transaction, subAction: transactionalFinance, priority: 0, keywords: [emi, upi]}
          - {name: substring, action: junk, priority: 0, keywords: [xyz], wholeWord: false}
        """

    /// (sender, body, the deciding rule or nil)
    static let cases: [(String?, String, String?)] = [
        // urls
        (nil, "Claim now: bit.ly/3xYz", "short-link"),
        (nil, "Claim now: HTTPS://BIT.LY/3xYz", "short-link"),
        (nil, "go to news.bit.ly/x", "short-link"),  // a subdomain
        (nil, "go to notbit.ly/x", "any-link"),  // another domain
        (nil, "chat with us wa.me/15551234567", "chat-link"),
        (nil, "login http://45.12.3.4/secure now", "ip-link"),
        (nil, "login http://[2001:db8::1]:8080/x", "ip-link"),
        (nil, "version 1.2.3.4 is out", nil),  // a bare dotted quad without / or a port is no URL
        (nil, "prizes at win-big.xyz/claim", "odd-tld"),
        (nil, "prizes at WIN88.TOP", "odd-tld"),
        (nil, "prizes at WIN.XYZ", "odd-tld"),
        // A word-like TLD needs context (issue 34): a typo after a full stop is no link.
        (nil, "prizes at WIN.TOP", nil),
        (nil, "Oops.top of the list", nil),
        (nil, "prizes at win.top/claim", "odd-tld"),
        (nil, "prizes at my.win.top", "odd-tld"),
        (nil, "statement at https://www.hdfcbank.com/s", "bank-link"),
        (nil, "statement at netbanking.hdfcbank.com", "bank-link"),
        (nil, "mail me at me@hdfcbank.com", nil),  // an e-mail address is not a URL
        (nil, "I.ll be home.Now leaving", nil),  // no such top-level domains / mixed case
        (nil, "see you at www.example.com", "any-link"),  // urls: none vetoes chat
        (nil, "see you at 8", "chat"),
        (nil, "see you, call 0812345678", nil),  // phones: none vetoes chat
        // phones
        (nil, "call 09061701461 now", "premium"),
        (nil, "call +44 906 170 1461 now", "premium"),  // digits as written, separators skipped: +449…
        (nil, "call +449061701461", "premium"),
        (nil, "call (0)9061 701461", "premium"),  // parentheses skipped too: 09…
        (nil, "call +1 900 555 0100", nil),
        (nil, "call 0812345678", nil),  // not a premium prefix
        (nil, "call 09.06.2024", nil),  // a date
        // amounts
        (nil, "you won £1,000 cash", "big-prize"),
        (nil, "you won £499.99", nil),
        (nil, "you won $5k", "big-prize"),
        (nil, "you won 600 dollars", "big-prize"),
        (nil, "you won €5000", nil),  // not in the currencies
        (nil, "Rs. 2,500 debited", "rupees"),
        (nil, "INR500 debited", "rupees"),
        (nil, "500 rupees debited", "rupees"),
        (nil, "Mrs 500 said hi", nil),  // not rupees
        // startsWith
        (nil, "<#> 123456 FA+9qCX9VSu", "retriever"),
        (nil, " \n\t<#> 123456", "retriever"),
        (nil, "\u{FEFF}<#> 123456", "retriever"),
        (nil, "code <#> 123456", nil),
        // senders and sender AND body
        ("VM-CTAXKR", "your tax is due", "tax-office"),
        ("JD-GCTAXKR-G", "your tax is due", "tax-office"),  // * is any run, also a letter
        ("CTAXKR", "your tax is due", nil),  // not a TRAI header
        ("AX-HDFCBN-T", "Rs 500 debited from a/c", "hdfc-all"),  // sender AND keyword
        ("AX-HDFCBN-T", "hello", nil),  // the sender alone is not enough
        ("AX-ICICIB-T", "Rs 500 debited from a/c", "rupees"),  // the keyword alone is not enough
        // short phrases are whole Latin words
        (nil, "your EMI is due", "short-words"),
        (nil, "remind me", nil),
        (nil, "paid by UPI/1234", "short-words"),
        (nil, "stupid", nil),
        (nil, "pay via MyUPI app", "short-words"),  // lower-to-upper case change
        (nil, "EMI5000 due", "short-words"),  // letter-to-digit change
        (nil, "abcxyzdef", "substring"),  // wholeWord: false
    ]

    func testEveryConditionMatchesWhatItShould() throws {
        let set = try parse(Self.yaml)
        let c = Classifier(ruleSet: set)
        for (sender, body, want) in Self.cases {
            let v = c.classify(sender: sender, body: body)
            XCTAssertEqual(v.rule >= 0 ? set.ruleNames[Int(v.rule)] : nil, want, "\(sender ?? "-") \(body.debugDescription)")
        }
    }

    /// The batch API, the single-message API and explain agree on every case (one decision path), also
    /// from a compiled `.smsf`.
    func testBatchSingleExplainAndCompiledAgree() throws {
        let set = try parse(Self.yaml)
        let loaded = try _SMSFFormat.load(bytes: set.serialize(), path: "r.smsf")
        XCTAssertEqual(loaded.definition, set.definition)
        XCTAssertEqual(loaded.checksum, set.checksum)
        let messages = MessageBatch(Self.cases.map { ($0.0, $0.1) })
        for ruleSet in [set, loaded] {
            let c = Classifier(ruleSet: ruleSet)
            let batch = messages.verdicts(c)
            for (i, (sender, body, _)) in Self.cases.enumerated() {
                let single = c.classify(sender: sender, body: body)
                XCTAssertEqual(batch[i], single, body)
                XCTAssertEqual(c.explain(sender: sender, body: body).verdict, single, body)
            }
        }
    }

    /// Body conditions of rules that also need a phrase are scanned only when a phrase touched such a rule
    /// (`_BodyFeatures.eagerKinds`); the verdicts are the same as scanning always (explain scans always).
    func testLazilyScannedConditionsDecideTheSame() throws {
        let set = try parse("""
              - {name: prize, action: junk, priority: 2, keywords: [won], amounts: [{min: 100}]}
              - {name: chat, action: allow, keywords: [see you], urls: none}
              - {name: pay, action: transaction, priority: 1, all: [[pay, call]], phones: any}
              - {name: start, action: transaction, subAction: transactionalOthers, startsWith: [OTP], amounts: none}
            """)
        XCTAssertEqual(set.bodyFeatures?.eagerKinds, 0)
        let c = Classifier(ruleSet: set)
        let cases: [(String, String?)] = [
            ("you won £500", "prize"), ("you won £50", nil), ("£500 for you", nil), ("see you", "chat"),
            ("see you at bit.ly/x", nil), ("pay 0812345678 now", "pay"), ("pay now", nil), ("OTP 1234", "start"),
            ("OTP $1234", nil), ("won 500 rupees, call 09061701461", "prize"),
        ]
        for (body, want) in cases {
            let v = c.classify(sender: nil, body: body)
            XCTAssertEqual(v.rule >= 0 ? set.ruleNames[Int(v.rule)] : nil, want, body)
            XCTAssertEqual(c.explain(sender: nil, body: body).verdict, v, body)
        }
        XCTAssertEqual(try parse(Self.yaml).bodyFeatures?.eagerKinds, _BodyFeatures.url | _BodyFeatures.amount)
    }

    // MARK: Explain

    func testExplainShowsTheConditionAndItsSpan() throws {
        let set = try parse(Self.yaml)
        let c = Classifier(ruleSet: set)
        let body = "Claim £1,000 now at bit.ly/3xYz"
        let e = c.explain(sender: nil, body: body)
        XCTAssertEqual(e.ruleName, "short-link")
        let link = try XCTUnwrap(e.matches.first { $0.phrase == "urls: shortener" })
        XCTAssertTrue(link.isCondition)
        XCTAssertEqual(link.text, "bit.ly/3xYz")
        XCTAssertEqual(Array(Array(body.utf8)[link.start..<link.end]), Array("bit.ly/3xYz".utf8))
        XCTAssertEqual(link.uses, ["short-link (urls)"])
        XCTAssertTrue(e.matches.contains { $0.phrase == "urls: any" && $0.uses == ["any-link (urls)", "chat (urls: none)"] }, "\(e.matches)")
        let pounds = try XCTUnwrap(e.matches.first { $0.phrase.hasPrefix("amounts: GBP|USD") })
        XCTAssertEqual(pounds.text, "£1,000")
        XCTAssertEqual(pounds.phrase, "amounts: GBP|USD ≥ 500")
        XCTAssertEqual(e.steps[1], "rule \"short-link\" decided: action junk (phrase \"urls: shortener\" at bytes \(link.start)..<\(link.end))")
        let outcomes = Dictionary(uniqueKeysWithValues: e.rules.map { ($0.name, $0.outcome) })
        XCTAssertEqual(outcomes["big-prize"], .noKeyword)
        XCTAssertEqual(outcomes["any-link"], .lostToPriority(winner: "short-link"))

        let chat = c.explain(sender: nil, body: "see you at www.example.com")
        XCTAssertEqual(chat.rules.first { $0.name == "chat" }?.outcome,
                       .conditionNotMet("urls: none, but the body has one at 11..<26 (\"www.example.com\")"))
        let won = c.explain(sender: nil, body: "you won £20")
        XCTAssertEqual(won.rules.first { $0.name == "big-prize" }?.outcome,
                       .conditionNotMet("amounts: no amount that is GBP|USD ≥ 500"))
        XCTAssertEqual(won.rules.first { $0.name == "big-prize" }?.outcome.code, "conditionNotMet")
        let midText = c.explain(sender: nil, body: "code <#> 123456")
        XCTAssertEqual(midText.matches.first?.uses, ["retriever (startsWith, not at the start: ignored)"])
        XCTAssertNil(midText.ruleName)
        let start = c.explain(sender: nil, body: "  <#> 123456")
        XCTAssertEqual(start.ruleName, "retriever")
        XCTAssertEqual(start.matches.first?.start, 2)
    }

    // MARK: Compiled rule sets

    /// Truncations and single-bit flips of a compiled set with every new condition are refused (or, where a
    /// flip is harmless, classify identically); re-signed random damage never crashes.
    func testDamagedCompiledSetsAreRefused() throws {
        let set = try parse(Self.yaml)
        let bytes = set.serialize()
        XCTAssertEqual(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self) }, _SMSFFormat.version, "format version")
        for n in stride(from: 0, to: bytes.count, by: 7) {
            XCTAssertThrowsError(try _SMSFFormat.load(bytes: Array(bytes[0..<n]), path: "r.smsf"), "length \(n)")
        }
        let reference = Classifier(ruleSet: set)
        var refused = 0
        var flips = 0
        for i in stride(from: 0, to: bytes.count, by: 5) {
            var damaged = bytes
            damaged[i] ^= 0x10
            flips += 1
            if let loaded = try? _SMSFFormat.load(bytes: damaged, path: "r.smsf") {
                let c = Classifier(ruleSet: loaded)
                for (s, b, _) in Self.cases { XCTAssertEqual(c.classify(sender: s, body: b), reference.classify(sender: s, body: b)) }
            } else {
                refused += 1
            }
        }
        XCTAssertEqual(refused, flips)
        // Re-signed damage inside the rule table: only the structural checks can catch it.
        let seed: UInt64 = 0xC0DEC
        var rng = Fixtures.SeededGenerator(seed: seed)
        let table: Range<Int> = bytes.withUnsafeBytes { raw in
            let off = Int(raw.loadUnaligned(fromByteOffset: 64 + 8, as: UInt64.self))
            return off..<(off + Int(raw.loadUnaligned(fromByteOffset: 64 + 16, as: UInt64.self)))
        }
        var loadedAnyway = 0
        for _ in 0..<400 {
            var d = bytes
            d[Int.random(in: table, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            let ruleSum = d.withUnsafeBytes { _Checksum.hash(UnsafeRawBufferPointer(rebasing: $0[table])) }
            withUnsafeBytes(of: ruleSum.littleEndian) { for k in 0..<8 { d[32 + k] = $0[k] } }
            let fileSum = d.withUnsafeBytes { _Checksum.hash(UnsafeRawBufferPointer(rebasing: $0[64...])) }
            withUnsafeBytes(of: fileSum.littleEndian) { for k in 0..<8 { d[24 + k] = $0[k] } }
            if let loaded = try? _SMSFFormat.load(bytes: d, path: "r.smsf") {
                loadedAnyway += 1
                let c = Classifier(ruleSet: loaded)
                for (s, b, _) in Self.cases { _ = c.classify(sender: s, body: b) }  // must not crash
            }
        }
        print("BODY-CONDITIONS damaged .smsf: \(refused)/\(flips) flips refused; \(400 - loadedAnyway)/400 re-signed rule-table changes refused (seed \(seed))")
    }

    /// Damage aimed at the new fields: each is refused with a message naming what is wrong.
    func testDecodeRefusesBadConditionValues() throws {
        func table(_ yaml: String) throws -> [UInt8] { _DefinitionCodec.encode(try parse(yaml).definition) }
        func refuse(_ bytes: [UInt8], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertThrowsError(try bytes.withUnsafeBytes { try _DefinitionCodec.decode($0) }, file: file, line: line) { error in
                XCTAssertTrue("\(error)".contains(what), "\(error)", file: file, line: line)
            }
        }
        // The amount bounds are the last 18 bytes of the rule's record; then 4 + 4 + 4 bytes of empty lists, the
        // normalisation mode byte and the no-model byte (`_ModelCodec`).
        let tail = 12 + 2
        let amounts = try table("  - {name: r, action: junk, amounts: {min: 5, max: 10}}\n")
        let maxAt = amounts.count - tail - 8
        var nan = amounts
        withUnsafeBytes(of: Double.nan.bitPattern.littleEndian) { for k in 0..<8 { nan[maxAt + k] = $0[k] } }
        refuse(nan, "amount bounds")
        var inverted = amounts
        withUnsafeBytes(of: (1.0).bitPattern.littleEndian) { for k in 0..<8 { inverted[maxAt + k] = $0[k] } }
        refuse(inverted, "amount bounds")
        // The URL kind byte.
        let urls = try table("  - {name: r, action: junk, urls: ip}\n")
        var kind = urls
        // urls: tag 2, count 1, kind 3; then phones tag 0, amounts tag 0; then the three empty lists and the two model bytes.
        XCTAssertEqual(Array(kind[(kind.count - tail - 2 - 6)..<(kind.count - tail - 2)]), [2, 1, 0, 0, 0, 3])
        kind[kind.count - tail - 3] = 9
        refuse(kind, "URL condition kind")
        var tag = urls
        tag[tag.count - tail - 2] = 7
        refuse(tag, "body condition tag")
        // A currency code that is not on the list.
        let cur = try table("  - {name: r, action: junk, amounts: {currency: [GBP]}}\n")
        let gbp = cur.indices.first { Array(cur[$0..<min(cur.count, $0 + 3)]) == Array("GBP".utf8) }!
        var bad = cur
        bad[gbp] = UInt8(ascii: "X")
        refuse(bad, "currency code")
        // An entity pattern with a character the parser refuses.
        let ent = try table("  - {name: r, action: junk, sender: {entity: [\"AB*\"]}}\n")
        let star = ent.firstIndex(of: UInt8(ascii: "*"))!
        var dash = ent
        dash[star] = UInt8(ascii: "-")
        refuse(dash, "TRAI entity")
    }

    // MARK: Pieces

    /// (pattern, entity, matches)
    func testEntityGlobs() {
        let table: [(String, String, Bool)] = [
            ("HDFCBK", "HDFCBK", true), ("HDFCBK", "hdfcbk", true), ("HDFCBK", "HDFCBN", false),
            ("HDFC*", "HDFCBK", true), ("HDFC*", "HDFC", true), ("HDFC*", "HDFBK", false),
            ("*CTAXKR", "CTAXKR", true), ("*CTAXKR", "GCTAXKR", true), ("*CTAXKR", "CTAXKRX", false),
            ("AX?BNK", "AXSBNK", true), ("AX?BNK", "AXBNK", false), ("*", "ANY", true), ("*A*B*", "XAYYBZ", true),
            ("*A*B*", "XBYA", false), ("?", "", false), ("**", "", true),
        ]
        for (pattern, entity, want) in table {
            let got = Array(entity.utf8).withUnsafeBytes { _Fold.glob($0, Array(pattern.utf8)) }
            XCTAssertEqual(got, want, "\(pattern) vs \(entity)")
        }
    }

    /// (text, phrase, is the first occurrence a whole Latin word)
    func testLatinWordBoundaries() {
        let table: [(String, String, Bool)] = [
            ("remind", "emi", false), ("EMI due", "EMI", true), ("stupid", "upi", false), ("10pm", "10p", false),
            ("10p/min", "10p", true), ("210p", "10p", false), ("x10p", "10p", true), ("ShopeePayOTP", "OTP", true),
            ("OTP123456", "OTP", true), ("OTPS", "OTP", false), ("otpCode", "otp", true), ("รหัสOTPคือ", "OTP", true),
            ("éotp", "otp", false), ("otp×2", "otp", true), ("hotpot", "otp", false), ("HOTPOT", "OTP", false),
            ("验证码OTP", "OTP", true), ("(otp)", "otp", true),
        ]
        for (text, phrase, want) in table {
            let bytes = Array(text.utf8)
            let p = Array(phrase.utf8)
            let s = bytes.indices.first { Array(bytes[$0..<min(bytes.count, $0 + p.count)]) == p }!
            let got = bytes.withUnsafeBytes { _isLatinWordMatch($0, s, s + p.count) }
            XCTAssertEqual(got, want, "\(phrase) in \(text)")
        }
    }

    /// `check`'s confirm phase on the new conditions.
    func testCheckFindings() {
        let r = RuleChecker.check(yaml: Self.rules("""
              - {name: blank, action: junk, startsWith: [" <#>"]}
              - {name: vetoed, action: junk, startsWith: ["<#> code"], unless: [code]}
              - {name: plain, action: junk, priority: 5, keywords: [prize]}
              - {name: gated, action: junk, priority: 9, keywords: [prize], urls: any}
              - {name: below, action: junk, priority: 1, keywords: [prize claim]}
            """), file: "r.yaml", target: .offline)
        let m = r.findings.map(\.description)
        XCTAssertEqual(r.verdict, .ready)
        XCTAssertTrue(m.contains { $0.hasPrefix("r.yaml:3: rules[0].startsWith[0]: \"blank\" startsWith phrase \" <#>\" begins with a blank") }, "\(m)")
        XCTAssertTrue(m.contains { $0.hasPrefix("r.yaml:4: rules[1].startsWith: \"vetoed\" can never fire") }, "\(m)")
        // A rule with a body condition fires only with it, so it shadows nothing.
        XCTAssertTrue(m.contains { $0.contains("\"below\" can never win: whenever it fires, \"plain\"") }, "\(m)")
        XCTAssertFalse(m.contains { $0.contains("\"gated\"") }, "\(m)")
    }
}
