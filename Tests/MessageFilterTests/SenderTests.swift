import TestSupport
import XCTest
@testable import MessageFilter

final class SenderTests: XCTestCase {
    func testKinds() {
        let cases: [(String?, SenderKind, Int64, Int32)] = [
            ("+919876543210", .phoneNumber, 919_876_543_210, 91),
            ("+1 (408) 555-0001", .phoneNumber, 14_085_550_001, 1),
            ("0044 20 7946 0958", .phoneNumber, 442_079_460_958, 44),
            ("14085550001", .phoneNumber, 14_085_550_001, 1),
            ("09876543210", .phoneNumber, 19_876_543_210, 1),  // national, default country 1
            ("56161", .shortCode, 56161, 0),
            ("121", .shortCode, 121, 0),
            ("HDFCBK", .alphanumeric, 0, 0),
            ("Amazon", .alphanumeric, 0, 0),
            ("alerts@bank.example.com", .email, 0, 0),
            (nil, .unknown, 0, 0),
            ("", .unknown, 0, 0),
            ("--", .unknown, 0, 0),
        ]
        for (s, kind, number, cc) in cases {
            let info = SenderInfo.classify(s)
            XCTAssertEqual(info.kind, kind, "\(s ?? "nil")")
            XCTAssertEqual(info.number, number, "\(s ?? "nil")")
            XCTAssertEqual(info.countryCode, cc, "\(s ?? "nil")")
        }
    }

    func testDefaultCountryCode() {
        let info = SenderInfo.classify("09876543210", defaultCountryCode: 91)
        XCTAssertEqual(info.number, 919_876_543_210)
        XCTAssertEqual(info.countryCode, 91)
        XCTAssertEqual(SenderInfo.classify("9876543210", defaultCountryCode: 91).number, 919_876_543_210)
        XCTAssertEqual(SenderInfo.classify("+66812345678", defaultCountryCode: 91).countryCode, 66)
        XCTAssertEqual(SenderInfo.classify("+8613800138000", defaultCountryCode: 91).countryCode, 86)
        XCTAssertEqual(SenderInfo.classify("+971501234567", defaultCountryCode: 91).countryCode, 971)
    }

    func testTRAIHeaders() {
        let s = "VM-HDFCBK-S"
        let info = SenderInfo.classify(s)
        XCTAssertTrue(info.isTRAIHeader)
        XCTAssertEqual(info.traiOperator, UInt8(ascii: "V"))
        XCTAssertEqual(info.traiCircle, UInt8(ascii: "M"))
        XCTAssertEqual(String(decoding: Array(s.utf8)[info.traiEntity], as: UTF8.self), "HDFCBK")
        XCTAssertEqual(info.traiSuffix, .service)
        XCTAssertEqual(SenderInfo.classify("AD-AMAZON").traiSuffix, nil)
        XCTAssertTrue(SenderInfo.classify("AD-AMAZON").isTRAIHeader)
        XCTAssertEqual(SenderInfo.classify("jd-airtel-p").traiSuffix, .promotional)
        XCTAssertEqual(SenderInfo.classify("BX-GOVTIN-G").traiSuffix, .government)
        XCTAssertEqual(SenderInfo.classify("TM-ICICIT-T").traiSuffix, .transactional)
        XCTAssertFalse(SenderInfo.classify("HDFCBK").isTRAIHeader)
        XCTAssertFalse(SenderInfo.classify("V-HDFCBK").isTRAIHeader)
        XCTAssertFalse(SenderInfo.classify("VM-HD").isTRAIHeader)
        // The shortest header with a suffix: a three-letter entity (8 bytes in all).
        let shortest = "VM-ABC-S", short = SenderInfo.classify(shortest)
        XCTAssertTrue(short.isTRAIHeader)
        XCTAssertEqual(String(decoding: Array(shortest.utf8)[short.traiEntity], as: UTF8.self), "ABC")
        XCTAssertEqual(short.traiSuffix, .service)
        XCTAssertEqual(SenderInfo.classify("VM-ABC").traiSuffix, nil)
        XCTAssertTrue(SenderInfo.classify("VM-ABC").isTRAIHeader)
        XCTAssertFalse(SenderInfo.classify("VM-AB-S").isTRAIHeader)
    }

    func testNumberListOrderErrors() throws {
        var got: [Int64] = []
        try NumberListReader.parse("# comment\n+14085550001\n14085550002\n\n919876543210\n", file: "b.txt", labelled: false) { n, _ in got.append(n) }
        XCTAssertEqual(got, [14_085_550_001, 14_085_550_002, 919_876_543_210])
        XCTAssertThrowsError(try NumberListReader.parse("2\n1\n", file: "b.txt", labelled: false) { _, _ in }) { e in
            let e = e as! NumberListError
            XCTAssertEqual(e.kind, .entriesOutOfOrder)
            XCTAssertEqual(e.line, 2)
            XCTAssertTrue(e.description.hasPrefix("b.txt:2: entriesOutOfOrder"), e.description)
        }
        XCTAssertThrowsError(try NumberListReader.parse("1\n2\n\n2\n", file: "b.txt", labelled: false) { _, _ in }) { e in
            XCTAssertEqual((e as! NumberListError).kind, .duplicateEntries)
            XCTAssertEqual((e as! NumberListError).line, 4)
        }
        XCTAssertThrowsError(try NumberListReader.parse("12a\n", file: "b.txt", labelled: false) { _, _ in })
        XCTAssertThrowsError(try NumberListReader.parse("99999999999999999999\n", file: "b.txt", labelled: false) { _, _ in })
        var labels: [String] = []
        try NumberListReader.parse("14085550001\tAcme Bank\n14085550009 Pharmacy\n", file: "i.tsv", labelled: true) { _, l in labels.append(l) }
        XCTAssertEqual(labels, ["Acme Bank", "Pharmacy"])
        XCTAssertThrowsError(try NumberListReader.parse("14085550001\n", file: "i.tsv", labelled: true) { _, _ in })
    }

    /// A list of a million numbers streams from disk in batches and is searched by binary search.
    func testLargeListFromFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var text = ""
        text.reserveCapacity(14_000_000)
        for i in 0..<1_000_000 { text += "\(14_085_000_000 + Int64(i) * 3)\n" }
        let path = dir.appendingPathComponent("block.txt").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let list = try NumberListReader.readBlockList(path: path)
        XCTAssertEqual(list.count, 1_000_000)
        XCTAssertNotNil(list._sortedIndex(of: 14_085_000_000 + 3 * 777_777))
        XCTAssertNil(list._sortedIndex(of: 14_085_000_001))
    }

    /// The quick gate the classifier checks before a rule's sender condition never turns away a sender the
    /// condition accepts (every sender × every condition below).
    func testSenderGateIsANecessaryCondition() {
        let senders: [String?] = [nil, "", "  ", "VM-HDFCBK-T", "ad-icicib-s", "JD-AIRTEL-P", "QP-GOVTIN-G", "VM-HDFCBK", "HDFCBK",
                                  "+919876543210", "09876543210", "9876543210", "56161", "121", "a@b.co", "Amazon", "--", "+4420 7946 0958"]
        var conditions: [SenderCondition] = []
        func add(_ f: (inout SenderCondition) -> Void) { var c = SenderCondition(); f(&c); conditions.append(c) }
        add { $0.suffixes = [.transactional, .service] }
        add { $0.suffixes = [.government] }
        add { $0.entities = ["HDFCBK", "ICICI*", "AIR?EL"] }
        add { $0.kinds = [.shortCode] }
        add { $0.kinds = [.phoneNumber, .alphanumeric] }
        add { $0.countryCodes = [91] }
        add { $0.countryCodes = [44]; $0.kinds = [.phoneNumber] }
        add { $0.exact = ["Amazon", "+919876543210"] }
        add { $0.prefix = ["+91", "VM-"] }
        add { $0.entities = ["*"]; $0.suffixes = [.promotional] }
        add { $0.kinds = [.unknown, .email] }
        let ruleSet = RuleSet.embeddedDefaultRulesOnly
        let classifier = Classifier(ruleSet: ruleSet)
        var accepted = 0, gatedOff = 0
        for condition in conditions {
            let c = _CompiledSenderCondition(condition, defaultCountryCode: 91)
            var rule = _CompiledRule(priority: 0, needsKeyword: false, allMask: 0, sender: 0, action: .junk, requested: .none,
                                     validation: ruleSet.capabilities.validate(action: .junk, subAction: .none))
            rule.senderKinds = c.possibleKinds
            rule.senderNeedsTRAI = c.needsTRAIHeader
            for sender in senders {
                var bytes = Array((sender ?? "").utf8)
                bytes.withUnsafeMutableBytes { raw in
                    let s: UnsafeRawBufferPointer? = sender == nil ? nil : UnsafeRawBufferPointer(raw)
                    let info = SenderInfo.classify(s, defaultCountryCode: 91)
                    let matches = classifier._senderMatches(c, s, info)
                    if matches { accepted += 1 }
                    if !rule.senderMayMatch(info) {
                        gatedOff += 1
                        XCTAssertFalse(matches, "\(String(describing: sender)) against \(condition)")
                    }
                }
            }
        }
        XCTAssertGreaterThan(accepted, 10)
        XCTAssertGreaterThan(gatedOff, 50)
    }

    /// The two-digit country codes as bit masks (`isTwoDigitCode`) are exactly the set.
    func testTwoDigitCodeMasksEqualTheSet() {
        for code in Int32(-5)...200 {
            XCTAssertEqual(SenderInfo.isTwoDigitCode(code), SenderInfo.twoDigitCodes.contains(code), "\(code)")
        }
    }

    /// `SenderInfo.classify` reads a sender in one pass (`_SenderScan`); it classifies every sender as the three
    /// passes it replaced did (`ThreePassSender`, kept here as the oracle): every string of up to four bytes
    /// over an alphabet that reaches each branch (digits, "0", "+", the separators, "@", ".", letters, a tab, a
    /// non-ASCII byte, other punctuation), and 200,000 longer random ones, TRAI-shaped headers among them.
    func testOnePassClassifiesAsTheThreePassesDid() {
        let alphabet: [UInt8] = Array("01 9+-.()@aZ_".utf8) + [0x09, 0xC3]
        var checked = 0
        func check(_ bytes: [UInt8]) {
            for cc: Int32 in [1, 91] {
                let got = bytes.withUnsafeBytes { SenderInfo.classify($0, defaultCountryCode: cc) }
                let want = ThreePassSender.classify(bytes, defaultCountryCode: cc)
                if got != want {
                    XCTFail("\(bytes) (\(String(decoding: bytes, as: UTF8.self))), country \(cc): \(got) != \(want)")
                }
            }
            checked += 1
        }
        var current: [UInt8] = []
        func all(_ length: Int) {
            if current.count == length { check(current); return }
            for b in alphabet {
                current.append(b)
                all(length)
                current.removeLast()
            }
        }
        for length in 1...4 { all(length) }
        var rng = Fixtures.SeededGenerator(seed: 36)
        let shaped: [[UInt8]] = [Array("VM-".utf8), Array("+91".utf8), Array("0091".utf8), Array("a@b.".utf8), Array("  ".utf8)]
        for k in 0..<200_000 {
            var bytes: [UInt8] = k % 3 == 0 ? shaped[Int(rng.next() % UInt64(shaped.count))] : []
            let length = 1 + Int(rng.next() % 20)
            for _ in 0..<length { bytes.append(alphabet[Int(rng.next() % UInt64(alphabet.count))]) }
            if k % 5 == 0 { bytes += Array("-T".utf8) }
            check(bytes)
            // Digits only, long and short: phone numbers, short codes, overflow.
            let digits = (0..<(1 + Int(rng.next() % 22))).map { _ in UInt8(0x30 + rng.next() % 10) }
            check((k % 2 == 0 ? Array("+".utf8) : []) + digits)
        }
        XCTAssertGreaterThan(checked, 400_000)
    }
}

/// `SenderInfo.classify` as it was before `_SenderScan` (three passes: the e-mail test, the number, the search for
/// a letter or digit), the oracle of `testOnePassClassifiesAsTheThreePassesDid`.
private enum ThreePassSender {
    static func classify(_ bytes: [UInt8], defaultCountryCode: Int32) -> SenderInfo {
        guard !bytes.isEmpty else { return unknown }
        var lo = 0
        var hi = bytes.count
        while lo < hi, bytes[lo] == 0x20 || bytes[lo] == 0x09 { lo += 1 }
        while hi > lo, bytes[hi - 1] == 0x20 || bytes[hi - 1] == 0x09 { hi -= 1 }
        if lo == hi { return unknown }
        if isEmail(bytes, lo, hi) { return with(.email) }
        if let number = number(bytes, lo, hi, defaultCountryCode: defaultCountryCode) { return number }
        return alphanumeric(bytes, lo, hi)
    }

    static var unknown: SenderInfo {
        SenderInfo(kind: .unknown, number: 0, countryCode: 0, traiOperator: 0, traiCircle: 0, traiEntity: 0..<0, traiSuffix: nil)
    }

    static func with(_ kind: SenderKind, number: Int64 = 0, countryCode: Int32 = 0) -> SenderInfo {
        var info = unknown
        info.kind = kind
        info.number = number
        info.countryCode = countryCode
        return info
    }

    static func isEmail(_ bytes: [UInt8], _ lo: Int, _ hi: Int) -> Bool {
        var at = -1
        var hasSpace = false
        for i in lo..<hi {
            if bytes[i] == 0x40 { at = at == -1 ? i : -2 }
            if bytes[i] == 0x20 { hasSpace = true }
        }
        var dotAfterAt = false
        if at > lo {
            for i in (at + 1)..<hi where bytes[i] == 0x2E { dotAfterAt = true }
        }
        return at > lo && !hasSpace && dotAfterAt
    }

    static func number(_ bytes: [UInt8], _ lo: Int, _ hi: Int, defaultCountryCode: Int32) -> SenderInfo? {
        var digits = 0
        var value: Int64 = 0
        var plus = false
        var numeric = true
        var overflow = false
        for i in lo..<hi {
            let b = bytes[i]
            switch b {
            case 0x30...0x39:
                if digits >= 18 { overflow = true } else { value = value &* 10 &+ Int64(b &- 0x30) }
                digits += 1
            case 0x2B where i == lo: plus = true
            case 0x20, 0x2D, 0x2E, 0x28, 0x29: continue
            default: numeric = false
            }
            if !numeric { break }
        }
        guard numeric, digits > 0, !overflow else { return nil }
        var leadingZeros = 0
        for i in lo..<hi where bytes[i] != 0x2B {
            guard bytes[i] >= 0x30, bytes[i] <= 0x39 else { continue }
            if bytes[i] == 0x30 { leadingZeros += 1 } else { break }
        }
        let significant = digits - leadingZeros
        if plus || (leadingZeros >= 2 && significant >= 7) {
            if (7...15).contains(significant), let cc = SenderInfo.countryCode(of: value, digits: significant) {
                return with(.phoneNumber, number: value, countryCode: cc)
            }
        } else if (3...8).contains(digits) {
            return with(.shortCode, number: value)
        } else if digits >= 9, digits <= 15 {
            if leadingZeros == 0, digits >= 11, let cc = SenderInfo.countryCode(of: value, digits: digits),
               cc == defaultCountryCode || digits >= 12 {
                return with(.phoneNumber, number: value, countryCode: cc)
            }
            var scale: Int64 = 1
            for _ in 0..<significant { scale &*= 10 }
            let (product, o1) = Int64(defaultCountryCode).multipliedReportingOverflow(by: scale)
            let (sum, o2) = product.addingReportingOverflow(value)
            if !o1, !o2, defaultCountryCode > 0 {
                return with(.phoneNumber, number: sum, countryCode: defaultCountryCode)
            }
        }
        return unknown
    }

    static func alphanumeric(_ bytes: [UInt8], _ lo: Int, _ hi: Int) -> SenderInfo {
        var info = unknown
        var alnum = false
        for i in lo..<hi where SenderInfo.isASCIIAlnum(bytes[i]) || bytes[i] >= 0x80 { alnum = true; break }
        guard alnum else { return info }
        info.kind = .alphanumeric
        if hi - lo >= 6, SenderInfo.isASCIILetter(bytes[lo]), SenderInfo.isASCIILetter(bytes[lo + 1]), bytes[lo + 2] == 0x2D {
            var end = hi
            var suffix: TRAISuffix?
            if hi - lo >= 8, bytes[hi - 2] == 0x2D, let s = TRAISuffix(rawValue: bytes[hi - 1] & 0xDF) {
                suffix = s
                end = hi - 2
            }
            let entity = (lo + 3)..<end
            var alnumEntity = entity.count >= 3 && entity.count <= 11
            for i in entity where !SenderInfo.isASCIIAlnum(bytes[i]) { alnumEntity = false }
            if alnumEntity {
                info.traiOperator = bytes[lo] & 0xDF
                info.traiCircle = bytes[lo + 1] & 0xDF
                info.traiEntity = entity
                info.traiSuffix = suffix
            }
        }
        return info
    }
}
