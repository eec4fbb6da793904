import TestSupport
import XCTest
@testable import MessageFilter

/// One row of the rule-semantics table: a message and the outcome written by hand (like aho-corasick's
/// `SearchTest` tables): the winning rule (nil: none fired), the folder, and optionally the phrase that
/// decided and why a sub-action was dropped.
struct RuleRow {
    let sender: String?
    let body: String
    let winner: String?
    let folder: String
    var phrase: String?
    var dropped: DropReason?
    /// The deciding phrase's byte span in the body, when normalisation makes it differ from the phrase
    /// (otherwise the span is checked to hold the phrase, folded).
    var span: [Int32]?

    init(_ sender: String?, _ body: String, _ winner: String?, _ folder: String, phrase: String? = nil, dropped: DropReason? = nil,
         span: [Int32]? = nil) {
        self.sender = sender
        self.body = body
        self.winner = winner
        self.folder = folder
        self.phrase = phrase
        self.dropped = dropped
        self.span = span
    }
}

/// A rule file and the rows that exercise it.
struct RuleTable {
    let name: String
    let yaml: String
    let rows: [RuleRow]
}

/// Every condition × rule shape. Each table is a small rule file; each row says by hand which rule must win.
///
/// Add a condition by adding a table (a rule file and its rows) and a one-line test method in
/// `RuleSemanticsTests`; the learned `model:` section and the `normalize:` modes have theirs below.
enum RuleSemantics {
    static let unknown = "Unknown Senders"

    static let keywords = RuleTable(name: "keywords", yaml: """
        version: 1
        rules:
          - {name: prize, action: junk, keywords: [prize, "cash award"]}
          - {name: otp, action: transaction, subAction: transactionalOthers, keywords: [otp]}
        """, rows: [
            RuleRow(nil, "you won a prize", "prize", "Junk", phrase: "prize"),
            RuleRow(nil, "YOU WON A PRIZE", "prize", "Junk", phrase: "prize"),  // ASCII folding, Z included
            RuleRow(nil, "PrIzE galore", "prize", "Junk"),
            RuleRow(nil, "PrIzEs galore", nil, unknown),  // not inside a longer word (issue 34; `wholeWord: false` would)
            RuleRow(nil, "a CASH AWARD for you", "prize", "Junk", phrase: "cash award"),
            // A run of white space reads as one space (issue 33 item 9); the span covers the words as written.
            RuleRow(nil, "cash  award", "prize", "Junk", phrase: "cash award", span: [0, 11]),
            RuleRow(nil, "cash\taward", "prize", "Junk", phrase: "cash award", span: [0, 10]),
            RuleRow(nil, "cashaward", nil, unknown),
            RuleRow(nil, "priz e", nil, unknown),
            RuleRow(nil, "your otp is 1234", "otp", "Transactions/Others", phrase: "otp"),
            RuleRow(nil, "", nil, unknown),
            RuleRow("AD-FLIPKT-P", "no keyword here", nil, unknown),
        ])

    static let unless = RuleTable(name: "unless", yaml: """
        version: 1
        rules:
          - {name: coupon, action: promotion, subAction: promotionalCoupons, keywords: [coupon], unless: ["order #", expired]}
          - {name: scam, action: junk, all: [[won, winner], [claim, "call now"]], unless: ["your order", "points balance"]}
          - {name: header, action: promotion, sender: {suffix: [P]}, unless: [otp]}
          - {name: order, action: transaction, subAction: transactionalOrders, keywords: [shipped]}
        """, rows: [
            RuleRow(nil, "coupon inside", "coupon", "Promotions/Coupons"),
            RuleRow(nil, "coupon for ORDER #12", nil, unknown),  // vetoed after the keyword, folded
            RuleRow(nil, "order #12: your coupon", nil, unknown),  // vetoed before the keyword
            RuleRow(nil, "coupon EXPIRED", nil, unknown),
            RuleRow(nil, "coupon for order #1 shipped", "order", "Transactions/Orders"),  // the veto lets the next rule win
            // `unless` vetoes `all:` rules too (the default prize-scam rule relies on it).
            RuleRow(nil, "you WON! claim now", "scam", "Junk"),
            RuleRow(nil, "you won! claim it from your order page", nil, unknown),
            RuleRow(nil, "winner: call now for your POINTS BALANCE", nil, unknown),
            RuleRow(nil, "your order: you won, claim it", nil, unknown),
            // `unless` vetoes a sender-only rule.
            RuleRow("AD-SHOPIN-P", "hello", "header", "Promotions"),
            RuleRow("AD-SHOPIN-P", "your OTP is 4", nil, unknown),
        ])

    static let all = RuleTable(name: "all", yaml: """
        version: 1
        rules:
          - {name: scam, action: junk, all: [[won, winner], [claim, "call now"]]}
          - {name: keyword-and-all, action: promotion, subAction: promotionalOffers, keywords: [sale], all: [[today, tomorrow]]}
          - {name: three, action: allow, all: [[alpha], [bravo], [charlie]]}
        """, rows: [
            RuleRow(nil, "you won, claim now", "scam", "Junk", phrase: "won"),
            RuleRow(nil, "you won", nil, unknown),
            RuleRow(nil, "claim now", nil, unknown),
            RuleRow(nil, "WINNER!!! CALL NOW", "scam", "Junk", phrase: "winner"),
            RuleRow(nil, "claim your prize, winner", "scam", "Junk", phrase: "claim"),  // groups in any order; earliest phrase
            RuleRow(nil, "sale today", "keyword-and-all", "Promotions/Offers"),
            RuleRow(nil, "big SALE TOMORROW", "keyword-and-all", "Promotions/Offers"),
            RuleRow(nil, "sale", nil, unknown),  // the keyword without the group
            RuleRow(nil, "today only", nil, unknown),  // the group without the keyword
            RuleRow(nil, "charlie bravo alpha", "three", "Inbox"),
            RuleRow(nil, "alpha bravo", nil, unknown),
            RuleRow(nil, "alpha charlie", nil, unknown),
        ])

    static let sender = RuleTable(name: "sender", yaml: """
        version: 1
        defaultCountryCode: 91
        rules:
          - {name: promo-suffix, action: promotion, sender: {suffix: [P]}}
          - {name: bank-entity, action: transaction, subAction: transactionalFinance, keywords: [debited], sender: {entity: [HDFCBK]}}
          - {name: uk-number, action: allow, keywords: [hello], sender: {countryCode: [44]}}
          - {name: short, action: transaction, subAction: transactionalOthers, sender: {kind: [shortCode], prefix: ["56"]}}
          - {name: exact, action: allow, keywords: [ping], sender: {exact: ["+1 408 555 0001"]}}
          - {name: email, action: junk, sender: {kind: [email]}}
          - {name: alarm, action: junk, keywords: [blocked], unlessSender: [{suffix: [T, S]}, {entity: [HDFCBK]}]}
          - {name: alarm-one, action: junk, keywords: [suspended], unlessSender: {kind: [shortCode]}}
          - {name: service-suffix, action: transaction, subAction: transactionalOthers, keywords: [parcel], sender: {suffix: [S]}}
        """, rows: [
            // The shortest header with a suffix (entity ABC, suffix S), and without one.
            RuleRow("VM-ABC-S", "parcel", "service-suffix", "Transactions/Others"),
            RuleRow("VM-ABC", "parcel", nil, unknown),
            RuleRow("VM-ABCD-S", "parcel", "service-suffix", "Transactions/Others"),
            RuleRow("AD-FLIPKT-P", "hi", "promo-suffix", "Promotions"),
            RuleRow("ad-flipkt-p", "hi", "promo-suffix", "Promotions"),
            RuleRow("AD-FLIPKT-T", "hi", nil, unknown),
            RuleRow(nil, "hi", nil, unknown),
            RuleRow("VM-HDFCBK-T", "Rs 5 debited", "bank-entity", "Transactions/Finance"),
            RuleRow("JD-HDFCBK", "DEBITED", "bank-entity", "Transactions/Finance"),
            RuleRow("VM-HDFCBK-T", "hello", nil, unknown),  // the sender alone is not enough with keywords
            RuleRow("VM-ICICIB-T", "debited", nil, unknown),  // the keyword alone is not enough with a sender condition
            RuleRow(nil, "debited", nil, unknown),
            RuleRow("+44 20 7946 0958", "hello", "uk-number", "Inbox"),
            RuleRow("+1 408 555 0002", "hello", nil, unknown),
            RuleRow("9876543210", "hello", nil, unknown),  // national: the default country code 91
            RuleRow("56161", "x", "short", "Transactions/Others"),
            RuleRow("12161", "x", nil, unknown),
            RuleRow("+14085550001", "ping", "exact", "Inbox"),
            RuleRow("+1 (408) 555-0001", "ping", "exact", "Inbox"),
            RuleRow("+14085550002", "ping", nil, unknown),
            RuleRow("alerts@bank.example.com", "x", "email", "Junk"),
            // unlessSender: a sender that satisfies any of its conditions vetoes the rule.
            RuleRow(nil, "card blocked", "alarm", "Junk"),
            RuleRow("+919876543210", "card blocked", "alarm", "Junk"),
            RuleRow("VM-ICICIB-T", "card blocked", nil, unknown),
            RuleRow("AD-HDFCBK", "card blocked", nil, unknown),  // the entity, without a suffix
            RuleRow("AD-SHOPXY-P", "card blocked", "alarm", "Junk"),  // a keyword rule beats the sender-only rule
            RuleRow("56161", "account suspended", "short", "Transactions/Others"),  // a single condition, not a list
            RuleRow("+919876543210", "account suspended", "alarm-one", "Junk"),
        ])

    static let priority = RuleTable(name: "priority", yaml: """
        version: 1
        rules:
          - {name: low-early, action: transaction, subAction: transactionalFinance, keywords: [debited]}
          - {name: high-late, action: promotion, subAction: promotionalCoupons, priority: 10, keywords: [coupon]}
          - {name: negative, action: allow, priority: -5, keywords: [hello]}
          - {name: zero, action: junk, keywords: [spam]}
          - {name: sender-high, action: junk, priority: 20, sender: {suffix: [G]}}
        """, rows: [
            RuleRow(nil, "debited; use coupon", "high-late", "Promotions/Coupons"),  // priority beats an earlier match
            RuleRow(nil, "coupon, then debited", "high-late", "Promotions/Coupons"),
            RuleRow(nil, "hello spam", "zero", "Junk"),  // 0 beats -5 though later
            RuleRow(nil, "hello", "negative", "Inbox"),  // a negative priority still fires
            RuleRow("BX-GOVTIN-G", "coupon", "sender-high", "Junk"),  // a sender-only rule of higher priority wins
        ])

    static let tieBreaks = RuleTable(name: "tie-breaks", yaml: """
        version: 1
        rules:
          - {name: first-in-file, action: junk, keywords: [deal]}
          - {name: second-in-file, action: allow, keywords: [deal, "big deal"]}
          - {name: shipped, action: transaction, subAction: transactionalOrders, keywords: [shipped]}
          - {name: debited, action: transaction, subAction: transactionalFinance, keywords: [debited]}
          - {name: sender-only, action: promotion, sender: {suffix: [P]}}
          - {name: longer-later-in-file, action: junk, keywords: ["debited from"]}
        """, rows: [
            RuleRow(nil, "a deal", "first-in-file", "Junk"),  // same priority, same start: file order
            RuleRow(nil, "a big deal", "second-in-file", "Inbox", phrase: "big deal"),  // earliest start wins
            RuleRow(nil, "shipped, then debited", "shipped", "Transactions/Orders"),
            RuleRow(nil, "debited, then shipped", "debited", "Transactions/Finance"),
            RuleRow(nil, "debited from a/c", "debited", "Transactions/Finance"),  // same start: file order, not length
            RuleRow("AD-FLIPKT-P", "item shipped", "shipped", "Transactions/Orders"),  // sender-only matches after every phrase
            RuleRow("AD-FLIPKT-P", "nothing", "sender-only", "Promotions"),
        ])

    /// `caseFold` on its own: under the default `normalize: standard` every non-ASCII letter is folded anyway.
    static let caseFold = RuleTable(name: "caseFold", yaml: """
        version: 1
        normalize: none
        rules:
          - {name: ascii-cyrillic, action: junk, keywords: [доставка]}
          - {name: unicode-cyrillic, action: promotion, caseFold: unicode, keywords: [скидка]}
          - {name: unicode-greek, action: transaction, caseFold: unicode, keywords: [σας]}
          - {name: ascii-latin, action: allow, keywords: [HeLLo]}
          - {name: unicode-german, action: junk, caseFold: unicode, keywords: [straße]}
        """, rows: [
            RuleRow(nil, "доставка", "ascii-cyrillic", "Junk"),
            RuleRow(nil, "ДОСТАВКА", nil, unknown),  // ASCII folding leaves Cyrillic alone
            RuleRow(nil, "СКИДКА 50%", "unicode-cyrillic", "Promotions"),
            RuleRow(nil, "ΣΑΣ", "unicode-greek", "Transactions"),
            RuleRow(nil, "hello", "ascii-latin", "Inbox"),
            RuleRow(nil, "HELLO", "ascii-latin", "Inbox"),
            RuleRow(nil, "STRAẞE", "unicode-german", "Junk"),
            RuleRow(nil, "STRASSE", nil, unknown),  // simple folding: ß is not ss
        ])

    /// `normalize:` (RULES.md §9): the default `standard`, and `leet`.
    static let normalizeStandard = RuleTable(name: "normalize-standard", yaml: """
        version: 1
        rules:
          - {name: free, action: junk, keywords: [free]}
          - {name: cyrillic, action: promotion, keywords: [доставка]}
        """, rows: [
            RuleRow(nil, "ｆｒｅｅ gift", "free", "Junk", span: [0, 12]),  // fullwidth letters read as ASCII; the span is the original's
            RuleRow(nil, "fr\u{200B}ee gift", "free", "Junk", span: [0, 7]),  // a zero-width space is removed
            RuleRow(nil, "ДОСТАВКА", "cyrillic", "Promotions"),  // every non-ASCII letter folded, whatever caseFold says
            RuleRow(nil, "fr33 gift", nil, unknown),  // digits for letters only under leet
        ])

    static let normalizeLeet = RuleTable(name: "normalize-leet", yaml: """
        version: 1
        normalize: leet
        rules:
          - {name: free, action: junk, keywords: [free]}
        """, rows: [
            RuleRow(nil, "fr33 gift", "free", "Junk", span: [0, 4]),
            RuleRow(nil, "FR33 GIFT", "free", "Junk", span: [0, 4]),
            RuleRow(nil, "call 3333", nil, unknown),  // a number on its own stays a number
        ])

    /// A learned `model:` (RULES.md §10) against hand rules: rules at or above the model's priority decide
    /// first, then the model (which may decide `none`; it abstains when none of its phrases is present), then
    /// the rules below it. The scores themselves are
    /// worked out by hand in `ModelTests`.
    static let model = RuleTable(name: "model", yaml: """
        version: 1
        rules:
          - {name: otp, action: transaction, subAction: transactionalOthers, priority: 90, keywords: [otp]}
          - {name: offer, action: promotion, priority: -5, keywords: [offer]}
        \(RuleYAML.learnedModel)
            - [word, "thanks", 1.0, -2.0, 2.0]
        """, rows: [
            RuleRow(nil, "your otp is 1234, free", "otp", "Transactions/Others"),  // a rule above the model
            RuleRow(nil, "free offer", "learned", "Junk", phrase: "free"),  // the model before a rule below it
            RuleRow(nil, "FREE", "learned", "Junk", phrase: "free"),
            // A word phrase is not found inside a word: no model phrase at all, so the model abstains.
            RuleRow(nil, "freedom", nil, unknown),
            RuleRow(nil, "an offer", "offer", "Promotions"),  // no evidence: the rule below the model decides
            RuleRow(nil, "thanks for the offer", "learned", unknown, phrase: "thanks"),  // the model decides none; the rule below has no say
        ])

    static let wholeWord = RuleTable(name: "wholeWord", yaml: """
        version: 1
        rules:
          - {name: sale, action: promotion, subAction: promotionalOffers, wholeWord: true, keywords: [sale]}
          - {name: free, action: junk, keywords: [free]}
          - {name: gift, action: promotion, subAction: promotionalOthers, wholeWord: false, keywords: [gift]}
          - {name: otp-word, action: transaction, subAction: transactionalOthers, wholeWord: true, keywords: [otp], unless: [pin]}
          - {name: edges, action: transaction, subAction: transactionalOrders, keywords: [delivered, "your order", "call 09", "जमा", "인증번호", "พัสดุ"]}
        """, rows: [
            RuleRow(nil, "big sale today", "sale", "Promotions/Offers"),
            RuleRow(nil, "(SALE)", "sale", "Promotions/Offers"),
            RuleRow(nil, "sale!", "sale", "Promotions/Offers"),
            RuleRow(nil, "sale😀", "sale", "Promotions/Offers"),
            RuleRow(nil, "wholesale", nil, unknown),
            RuleRow(nil, "salez", nil, unknown),  // the last letters are word characters too
            RuleRow(nil, "SALEY", nil, unknown),
            RuleRow(nil, "sales", nil, unknown),
            RuleRow(nil, "sale9", nil, unknown),
            RuleRow(nil, "ésale", nil, unknown),
            // A phrase of at most four ASCII letters or digits is a whole Latin word unless the rule says
            // `wholeWord: false`; a letter–digit or lower–upper change is a word edge for it.
            RuleRow(nil, "carefree", nil, unknown),
            RuleRow(nil, "FREE!", "free", "Junk"),
            RuleRow(nil, "free500", "free", "Junk"),
            RuleRow(nil, "giftcards", "gift", "Promotions/Others"),  // wholeWord: false finds it inside a word
            RuleRow(nil, "otp spinning", "otp-word", "Transactions/Others"),  // the rule's unless is whole-word too
            RuleRow(nil, "otp pin", nil, unknown),
            RuleRow(nil, "otpz", nil, unknown),
            // Longer phrases are not found inside a longer word of a spaced script by default (issue 34: `sale` ≠
            // "sales"): an end of the phrase that is a letter may not touch a letter; digits, punctuation and
            // letters of unspaced scripts (Thai, Chinese, Japanese) or of Korean, which writes particles onto
            // words, are no word edges.
            RuleRow(nil, "delivered today", "edges", "Transactions/Orders"),
            RuleRow(nil, "undelivered", nil, unknown),
            RuleRow(nil, "deliveredly", nil, unknown),
            RuleRow(nil, "your orders shipped", nil, unknown),
            RuleRow(nil, "Your order shipped", "edges", "Transactions/Orders"),
            RuleRow(nil, "call 09061701461", "edges", "Transactions/Orders"),  // a digit end
            RuleRow(nil, "ParcelDelivered", "edges", "Transactions/Orders"),  // a lower–upper change
            RuleRow(nil, "délivered", nil, unknown),  // é is a Latin letter
            RuleRow(nil, "deliveredพัสดุ", "edges", "Transactions/Orders"),  // Thai is written without spaces
            RuleRow(nil, "जमा किए गए", "edges", "Transactions/Orders"),
            RuleRow(nil, "जमानत मिली", nil, unknown),  // Devanagari is spaced: no जमा inside जमानत
            RuleRow(nil, "인증번호를 입력", "edges", "Transactions/Orders"),  // a Korean particle
            RuleRow(nil, "เลขพัสดุ 1234", "edges", "Transactions/Orders"),
            RuleRow(nil, "giftwrapped", "gift", "Promotions/Others"),
        ])

    static let capabilities = RuleTable(name: "capabilities", yaml: """
        version: 1
        capabilities: [transactionalFinance, promotionalCoupons]
        rules:
          - {name: finance, action: transaction, subAction: transactionalFinance, keywords: [debited]}
          - {name: weather, action: transaction, subAction: transactionalWeather, keywords: [forecast]}
          - {name: transaction-coupon, action: transaction, subAction: promotionalCoupons, keywords: [voucher]}
          - {name: junk-finance, action: junk, subAction: transactionalFinance, keywords: [scam]}
          - {name: coupon, action: promotion, subAction: promotionalCoupons, keywords: [coupon]}
          - {name: promotion-offers, action: promotion, subAction: promotionalOffers, keywords: [offer]}
          - {name: family, action: allow, keywords: [mom]}
          - {name: nothing, action: none, keywords: [unsure]}
        """, rows: [
            RuleRow(nil, "debited", "finance", "Transactions/Finance"),
            RuleRow(nil, "forecast", "weather", "Transactions", dropped: .notDeclared),
            RuleRow(nil, "voucher", "transaction-coupon", "Transactions", dropped: .invalidPair),
            RuleRow(nil, "scam", "junk-finance", "Junk", dropped: .invalidPair),
            RuleRow(nil, "coupon", "coupon", "Promotions/Coupons"),
            RuleRow(nil, "offer", "promotion-offers", "Promotions", dropped: .notDeclared),
            RuleRow(nil, "mom", "family", "Inbox"),
            RuleRow(nil, "unsure", "nothing", unknown),
        ])

    /// The default rules' known traps, as regression rows (the embedded rules alone, `RuleSet.embeddedDefaultRulesOnly`:
    /// the default model is tested in ModelTests and DefaultRulesTests).
    static let defaultTraps: [RuleRow] = [
        // ASCII folding of every letter: "PRIZE" has a Z.
        RuleRow(nil, "CONGRATULATIONS! YOU HAVE WON A PRIZE. CALL NOW TO CLAIM.", "prize-scam", "Junk"),
        // prize-scam is an `all:` rule with `unless: ["your order", ...]`: the veto must hold for it.
        RuleRow(nil, "You are the winner of our points draw! Claim from your order page", "orders", "Transactions/Orders"),
        // A promo code is not a one-time code.
        RuleRow(nil, "Use promo code SAVE20, your code is valid for 10 minutes", "coupons", "Promotions/Coupons"),
        RuleRow(nil, "123456 is your OTP for login. Do not share it.", "otp-code", "Transactions/Others"),
        // A bank's debit beats its sender-only header rules.
        RuleRow("VM-HDFCBK-T", "Rs 500 debited from a/c XX12", "finance", "Transactions/Finance"),
        RuleRow("AD-BRANDX-P", "Our new store is open in your city", "trai-promotional-header", "Promotions/Others"),
        // `sale` is whole-word: wholesale is not a sale.
        RuleRow(nil, "Wholesale prices for retailers", nil, unknown),
        RuleRow(nil, "Mega sale this weekend", "sale", "Promotions/Offers"),
        RuleRow(nil, "Hey, are you coming home for dinner?", "personal-conversation", "Inbox"),
        RuleRow(nil, "แจกเครดิตฟรี 100 บาท สมัครเลย", "gambling", "Junk"),
        RuleRow(nil, "ok", nil, unknown),
    ]
}

final class RuleSemanticsTests: XCTestCase {
    /// Checks every row of `rows` against `set` four ways: the String API, the batch API (all rows in one
    /// buffer), a classifier over the `.smsf` round trip, and `explain`.
    func check(_ table: String, _ set: RuleSet, _ rows: [RuleRow], file: StaticString = #filePath, line: UInt = #line) throws {
        let c = Classifier(ruleSet: set)
        let loaded = Classifier(ruleSet: try _SMSFFormat.load(bytes: set.serialize(), path: "\(table).smsf"))
        var verdicts: [Verdict] = []
        for row in rows {
            let context = "\(table): \(row.sender ?? "-") \"\(row.body)\""
            let v = c.classify(sender: row.sender, body: row.body)
            verdicts.append(v)
            let winner = v.rule >= 0 ? set.ruleNames[Int(v.rule)] : nil
            XCTAssertEqual(winner, row.winner, context, file: file, line: line)
            XCTAssertEqual(v.folder.path, row.folder, context, file: file, line: line)
            XCTAssertEqual(v.dropped, row.dropped, context, file: file, line: line)
            if let phrase = row.phrase {
                XCTAssertEqual(v.phrase >= 0 ? set.phrase(at: Int(v.phrase)) : nil, phrase, context, file: file, line: line)
            }
            if let span = row.span {
                XCTAssertEqual([v.matchStart, v.matchEnd], span, "span: " + context, file: file, line: line)
            } else if v.phrase >= 0 {
                // The span holds the deciding phrase, compared scalar by scalar with the oracle's folding.
                let bytes = Array(row.body.utf8)
                let span = Array(String(decoding: bytes[Int(v.matchStart)..<Int(v.matchEnd)], as: UTF8.self).unicodeScalars)
                let phrase = Array(set.phrase(at: Int(v.phrase)).unicodeScalars)
                XCTAssertTrue(span.count == phrase.count && zip(span, phrase).allSatisfy { OracleText.foldEqual($0, $1) },
                              "span \(String(String.UnicodeScalarView(span))) is not the phrase: " + context, file: file, line: line)
            } else {
                XCTAssertEqual([v.matchStart, v.matchEnd], [-1, -1], context, file: file, line: line)
            }
            XCTAssertEqual(loaded.classify(sender: row.sender, body: row.body), v, ".smsf: " + context, file: file, line: line)
            let e = c.explain(sender: row.sender, body: row.body)
            XCTAssertEqual(e.verdict, v, "explain: " + context, file: file, line: line)
            XCTAssertEqual(e.ruleName, row.winner, "explain: " + context, file: file, line: line)
        }
        // The batch API, all rows in one buffer.
        let batch = MessageBatch(rows.map { ($0.sender, $0.body) }).verdicts(c)
        for (k, row) in rows.enumerated() {
            XCTAssertEqual(batch[k], verdicts[k], "batch: \(table): \"\(row.body)\"", file: file, line: line)
        }
    }

    func table(_ t: RuleTable) throws {
        let set = try RuleSet.parse(yaml: t.yaml, file: "\(t.name).yaml")
        let winners = Set(t.rows.compactMap(\.winner))
        XCTAssertTrue(winners.isSubset(of: Set(set.ruleNames)), "\(t.name): a row names a rule the file lacks")
        try check(t.name, set, t.rows)
    }

    func testKeywords() throws { try table(RuleSemantics.keywords) }
    func testUnless() throws { try table(RuleSemantics.unless) }
    func testAll() throws { try table(RuleSemantics.all) }
    func testSender() throws { try table(RuleSemantics.sender) }
    func testPriority() throws { try table(RuleSemantics.priority) }
    func testTieBreaks() throws { try table(RuleSemantics.tieBreaks) }
    func testCaseFold() throws { try table(RuleSemantics.caseFold) }
    func testWholeWord() throws { try table(RuleSemantics.wholeWord) }
    func testCapabilitiesAndValidation() throws { try table(RuleSemantics.capabilities) }
    func testNormalizeStandard() throws { try table(RuleSemantics.normalizeStandard) }
    func testNormalizeLeet() throws { try table(RuleSemantics.normalizeLeet) }
    func testModel() throws { try table(RuleSemantics.model) }

    func testDefaultRulesKnownTraps() throws {
        try check("default rules", RuleSet.embeddedDefaultRulesOnly, RuleSemantics.defaultTraps)
    }
}
