import Foundation
import TestSupport
import XCTest
@testable import MessageFilter

/// The URL, phone-number and amount scanners against independent oracles written with Foundation's
/// `NSRegularExpression` straight from the definitions in docs/RULES.md §2.1, on every body of the shared
/// corpora and on generated strings built from the tricky fragments. Only the lists (shorteners, bare
/// TLDs, currency markers, multipliers) are shared: they are data, part of the definition.
final class BodyScannerOracleTests: XCTestCase {
    // MARK: Oracles

    /// A found item, in UTF-8 byte offsets, with what a rule can test about it.
    struct Item: Equatable, CustomStringConvertible {
        var start: Int
        var end: Int
        var detail: String
        var description: String { "\(start)..<\(end) \(detail)" }
    }

    static func utf8Offset(_ s: String, _ utf16: Int) -> Int {
        let i = String.Index(utf16Offset: utf16, in: s)
        return s.utf8.distance(from: s.utf8.startIndex, to: i)
    }

    static func substring(_ s: NSString, _ r: NSRange) -> String { r.location == NSNotFound ? "" : s.substring(with: r) }

    // URLs.
    static let hostPattern = "[A-Za-z0-9][A-Za-z0-9-]*+(?:\\.[A-Za-z0-9-]++)*+"
    static let urlRegex = try! NSRegularExpression(pattern:
        "(?<![A-Za-z0-9\\-.@/_])(?:((?i:https?)://)(?:[\\x21-\\x7E&&[^/?#<>\"\\\\]]*@)?(\\[[0-9A-Fa-f:.]+\\]|\(hostPattern))|(\(hostPattern)))"
        + "(:[0-9]{1,5})?([/?#][\\x21-\\x7E&&[^<>\"]]*)?")
    static let ipv4 = try! NSRegularExpression(pattern: "^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[0-9]{1,2}|0[0-9]{1,2})\\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[0-9]{1,2}|0[0-9]{1,2})$")

    static func isIPv4(_ host: String) -> Bool {
        ipv4.firstMatch(in: host, range: NSRange(location: 0, length: (host as NSString).length)) != nil
    }

    /// The WHATWG URL standard's IPv4 host parser, written from the standard: 1–4 dot-separated numbers
    /// (`0x` hex, leading-`0` octal, else decimal), all but the last ≤ 255, the last < 256^(5 − parts).
    static func isWebIPv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return false }
        var values: [UInt64] = []
        for part in parts {
            var text = Substring(part)
            var radix = 10
            if text.lowercased().hasPrefix("0x") { radix = 16; text = text.dropFirst(2) } else if text.count > 1, text.hasPrefix("0") { radix = 8; text = text.dropFirst() }
            if text.isEmpty, radix == 16 { values.append(0); continue }
            guard !text.isEmpty, let v = UInt64(text, radix: radix), v <= 0xFFFF_FFFF else { return false }
            values.append(v)
        }
        guard values.dropLast().allSatisfy({ $0 <= 255 }) else { return false }
        return Double(values.last!) < pow(256, Double(5 - values.count))
    }

    static func oracleURLs(_ text: String) -> [Item] {
        let ns = text as NSString
        var out: [Item] = []
        var pos = 0
        while pos < ns.length, let m = urlRegex.firstMatch(in: text, options: .withTransparentBounds, range: NSRange(location: pos, length: ns.length - pos)) {
            let schemeHost = substring(ns, m.range(at: 2))
            let bareHost = substring(ns, m.range(at: 3))
            let hostRange = m.range(at: 2).location != NSNotFound ? m.range(at: 2) : m.range(at: 3)
            var ok = false
            var ip = false
            if m.range(at: 1).location != NSNotFound {
                // A host whose last label is a number is an IPv4 address or no URL (WHATWG "ends in a number").
                let last = schemeHost.split(separator: ".", omittingEmptySubsequences: false).last.map(String.init) ?? ""
                let endsInNumber = !last.isEmpty && (last.allSatisfy { $0.isASCII && $0.isNumber }
                    || (last.lowercased().hasPrefix("0x") && last.dropFirst(2).allSatisfy { $0.isHexDigit }))
                ok = !endsInNumber || isWebIPv4(schemeHost)
                ip = schemeHost.hasPrefix("[") || endsInNumber
            } else {
                let labels = bareHost.split(separator: ".", omittingEmptySubsequences: false)
                let after = hostRange.location + hostRange.length
                let next = after < ns.length ? ns.substring(with: NSRange(location: after, length: min(2, ns.length - after))) : ""
                if labels.count >= 2, bareHost.lowercased().hasPrefix("www.") {
                    ok = true
                } else if isIPv4(bareHost) && isWebIPv4(bareHost) {
                    ok = next.hasPrefix("/") || (next.count == 2 && next.first == ":" && next.last!.isASCII && next.last!.isNumber)
                    ip = ok
                } else if labels.count >= 2, let tld = labels.last {
                    let letters = tld.allSatisfy { $0.isASCII && $0.isLetter }
                    let oneCase = tld == tld.lowercased() || tld == tld.uppercased()
                    ok = letters && oneCase && (_HostLists.countryTLDs + _HostLists.bareTLDs).contains(tld.lowercased())
                    if letters, oneCase, !ok, _HostLists.contextTLDs.contains(tld.lowercased()) {
                        // A word-like TLD needs context: a path, query, fragment or port, three labels, a digit or "-".
                        ok = labels.count >= 3 || bareHost.range(of: "[0-9-]", options: .regularExpression) != nil
                            || next.hasPrefix("/") || next.hasPrefix("?") || next.hasPrefix("#")
                            || (next.count == 2 && next.first == ":" && next.last!.isASCII && next.last!.isNumber)
                    }
                }
            }
            guard ok else {
                pos = hostRange.location + hostRange.length  // skip the host run only
                continue
            }
            var end = m.range.location + m.range.length
            let path = m.range(at: 5)
            if path.location != NSNotFound {
                var p = ns.substring(with: path)
                while p.count > 1, ".,;:!?)]}'".contains(p.last!) { p.removeLast() }
                if p == "?" || p == "#" { p = "" }
                end = path.location + (p as NSString).length
            }
            var host = ns.substring(with: hostRange)
            if host.hasPrefix("[") { host = String(host.dropFirst().dropLast()) }
            out.append(Item(start: utf8Offset(text, m.range.location), end: utf8Offset(text, end), detail: "\(host.lowercased()) ip=\(ip)"))
            pos = end
        }
        return out
    }

    // Currency markers and multipliers, as regular expressions.
    static func markerPattern(_ places: Set<UInt8>, suffix: Bool) -> String {
        let markers = _Currencies.markers.filter { places.contains($0.place.rawValue) }
        return markers.map { m in
            let text = String(decoding: m.bytes, as: UTF8.self)
            var p = NSRegularExpression.escapedPattern(for: text)
            // ASCII letters compare in any case; other characters exactly (ICU's (?i) would fold them too).
            if text.unicodeScalars.allSatisfy(\.isASCII) { p = "(?i:\(p))" }
            if !suffix, m.letterStart { p = "(?<![A-Za-z])" + p }
            if suffix, m.letterEnd { p += "(?![A-Za-z])" }
            return p
        }.joined(separator: "|")
    }

    static let multiplierPattern = _Currencies.multipliers.map { m in
        let text = NSRegularExpression.escapedPattern(for: String(decoding: m.bytes, as: UTF8.self))
        let cased = m.bytes.allSatisfy { $0 < 0x80 } ? "(?i:\(text))" : text
        return (m.attached ? "" : " ?") + cased + (m.letterEnd ? "(?![A-Za-z])" : "")
    }.joined(separator: "|")

    static let number = "[0-9]++(?:[.,][0-9]++)*+"
    static let amountRegex = try! NSRegularExpression(pattern:
        "(\(markerPattern([1, 3], suffix: false))) ?(\(number))(\(multiplierPattern))?"
        + "|(?<![A-Za-z0-9.,])(\(number))(\(multiplierPattern))? ?(\(markerPattern([2, 3], suffix: true)))")

    static func markerMask(_ text: String, prefix: Bool) -> UInt64 {
        let bytes = Array(text.lowercased().utf8)
        return _Currencies.markers.first { $0.bytes == bytes && ($0.place == .both || ($0.place == .prefix) == prefix) }?.mask ?? 0
    }

    static func value(_ number: String, _ multiplier: String) -> Double {
        let parts = number.split(whereSeparator: { $0 == "." || $0 == "," }).map(String.init)
        var text = parts.joined()
        if parts.count > 1, parts.last!.count <= 2 { text = parts.dropLast().joined() + "." + parts.last! }
        var v = Double(text)!
        let word = multiplier.trimmingCharacters(in: .whitespaces).lowercased()
        if !word.isEmpty { v *= _Currencies.multipliers.first { String(decoding: $0.bytes, as: UTF8.self) == word }!.factor }
        return v
    }

    static func oracleAmounts(_ text: String) -> [Item] {
        let ns = text as NSString
        return amountRegex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { m in
            let prefix = m.range(at: 1).location != NSNotFound
            let v = prefix ? value(substring(ns, m.range(at: 2)), substring(ns, m.range(at: 3)))
                : value(substring(ns, m.range(at: 4)), substring(ns, m.range(at: 5)))
            let mask = markerMask(substring(ns, m.range(at: prefix ? 1 : 6)), prefix: prefix)
            return Item(start: utf8Offset(text, m.range.location), end: utf8Offset(text, m.range.location + m.range.length),
                        detail: "value=\(String(format: "%.6g", v)) mask=\(mask)")
        }
    }

    // Phone numbers.
    static let group = "(?:\\([0-9]+\\)|[0-9]+)"
    static let phoneRegex = try! NSRegularExpression(pattern:
        "(?<![A-Za-z0-9+\\-.,/_#@&=%])(\\+?)\(group)(?:[ .\\-]\(group)|(?<=\\))\(group)|\\([0-9]+\\))*+")
    static let prefixMarkerBefore = try! NSRegularExpression(pattern: "(?:\(markerPattern([1, 3], suffix: false))) ?\\z")
    static let suffixMarkerAfter = try! NSRegularExpression(pattern: "^ ?(?:\(markerPattern([2, 3], suffix: true)))")

    static func oraclePhones(_ text: String) -> [Item] {
        let ns = text as NSString
        var out: [Item] = []
        for m in phoneRegex.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let candidate = ns.substring(with: m.range)
            let digits = candidate.filter { $0.isASCII && $0.isNumber }.count
            guard (8...15).contains(digits) else { continue }
            let end = m.range.location + m.range.length
            let after = ns.substring(from: end)
            if after.count >= 2, after.first == ",", after.dropFirst().first!.isASCII, after.dropFirst().first!.isNumber { continue }
            let groupLengths = candidate.split(whereSeparator: { !($0.isASCII && $0.isNumber) }).map(\.count)
            if groupLengths.filter({ $0 == 1 }).count > 1 { continue }
            let plus = candidate.hasPrefix("+")
            let paren = candidate.contains("(")
            let seps = Set(candidate.filter { " .-".contains($0) })
            if !plus, !paren, seps == ["."] || seps == ["-"] {
                let groups = candidate.split(whereSeparator: { $0 == "." || $0 == "-" }).map(\.count)
                if groups.count == 2, seps == ["."] { continue }
                if groups.count == 2, groups[0] <= 4, groups[1] <= 4 { continue }
                if groups.count == 3, groups[0] <= 2, groups[1] <= 2, (2...4).contains(groups[2]) { continue }
                if groups.count == 3, groups[0] == 4, groups[1] <= 2, groups[2] <= 2 { continue }
                if groups.count == 4, seps == ["."], groups.allSatisfy({ $0 <= 3 }) { continue }
            }
            let before = ns.substring(to: m.range.location)
            if prefixMarkerBefore.firstMatch(in: before, range: NSRange(location: 0, length: (before as NSString).length)) != nil { continue }
            if suffixMarkerAfter.firstMatch(in: after, range: NSRange(location: 0, length: (after as NSString).length)) != nil { continue }
            out.append(Item(start: utf8Offset(text, m.range.location), end: utf8Offset(text, end), detail: "digits=\(digits)"))
        }
        return out
    }

    // MARK: The scanners, as the same items

    static func scannedURLs(_ text: String) -> [Item] {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { raw in
            let body = UnsafeRawBufferPointer(raw)
            var s = _URLScanner(body)
            var out: [Item] = []
            while let u = s.next() {
                let host = String(decoding: body[u.hostStart..<u.hostEnd], as: UTF8.self).lowercased()
                out.append(Item(start: u.start, end: u.end, detail: "\(host) ip=\(u.isIP)"))
            }
            return out
        }
    }

    static func scannedAmounts(_ text: String) -> [Item] {
        Array(text.utf8).withUnsafeBytes { body in
            var s = _AmountScanner(body)
            var out: [Item] = []
            while let a = s.next() {
                out.append(Item(start: a.start, end: a.end, detail: "value=\(String(format: "%.6g", a.value)) mask=\(a.mask)"))
            }
            return out
        }
    }

    static func scannedPhones(_ text: String) -> [Item] {
        Array(text.utf8).withUnsafeBytes { body in
            var s = _PhoneScanner(body)
            var out: [Item] = []
            while let p = s.next() { out.append(Item(start: p.start, end: p.end, detail: "digits=\(p.digits)")) }
            return out
        }
    }

    func compare(_ texts: [String], label: String) -> (urls: Int, phones: Int, amounts: Int) {
        var counts = (urls: 0, phones: 0, amounts: 0)
        var failures = 0
        for text in texts {
            let checks: [(String, [Item], [Item])] = [
                ("urls", Self.scannedURLs(text), Self.oracleURLs(text)),
                ("phones", Self.scannedPhones(text), Self.oraclePhones(text)),
                ("amounts", Self.scannedAmounts(text), Self.oracleAmounts(text)),
            ]
            for (kind, got, want) in checks where got != want {
                failures += 1
                if failures <= 15 { XCTFail("\(label) \(kind) in \(text.debugDescription): scanner \(got), oracle \(want)") }
            }
            counts.urls += checks[0].1.count
            counts.phones += checks[1].1.count
            counts.amounts += checks[2].1.count
        }
        XCTAssertEqual(failures, 0, "\(label): \(failures) disagreements")
        return counts
    }

    // MARK: Tests

    func testScannersAgreeWithOraclesOnTheCorpora() throws {
        guard let folder = Fixtures.corporaFolder else { throw XCTSkip("shared/corpora not found") }
        var bodies: [String] = []
        for name in ["uci_sms_spam.jsonl.zst", "thai_sms.jsonl.zst"] {
            let r = try Fixtures.run("zstd", ["-dc", folder.appendingPathComponent(name).path])
            XCTAssertEqual(r.status, 0)
            for line in r.stdout.split(separator: UInt8(ascii: "\n")) {
                let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
                bodies.append(try XCTUnwrap(o["body"] as? String))
            }
        }
        let c = compare(bodies, label: "corpus")
        print("SCANNERS corpora: \(bodies.count) bodies, \(c.urls) URLs, \(c.phones) phone numbers, \(c.amounts) amounts; all agree with the oracles")
        // The corpora do carry all three (so the comparison has teeth).
        XCTAssertGreaterThan(c.urls, 300)
        XCTAssertGreaterThan(c.phones, 300)
        XCTAssertGreaterThan(c.amounts, 300)
    }

    /// IPv4 hosts as the WHATWG URL standard's host parser reads them (what browsers do): a host whose last
    /// label is a number is an IPv4 address, or the URL fails to parse (browsers refuse it: it is no URL).
    /// Before, `http://09.1.1.1/` was an IP URL (read as decimal; 09 is no octal number, so browsers fail).
    func testIPv4HostsAreReadAsTheWHATWGParserReadsThem() {
        let cases: [(String, String?)] = [
            // Octal: a leading 0; 8 and 9 are no octal digits.
            ("http://09.1.1.1/", nil), ("http://1.1.1.09/", nil), ("http://019.1.1.1/", nil), ("http://08/", nil),
            ("http://010.1.1.1/", "ip"), ("http://0377.0377.0377.0377/", "ip"), ("http://0400.1.1.1/", nil), ("http://00/", "ip"),
            // Hex: 0x, any case, 0x alone is 0; a letter past f is no number.
            ("http://0x7f.1/", "ip"), ("http://0XC0A80101/", "ip"), ("http://0x/", "ip"), ("http://1.2.3.0x/", "ip"),
            ("http://0xg.1/", nil), ("http://0x100.1.1.1/", nil), ("http://0x1.com/", "host"),
            // Fewer parts: the last fills the bytes left.
            ("http://1.2.3/", "ip"), ("http://1.65535/", "ip"), ("http://1.16777215/", "ip"), ("http://4294967295/", "ip"),
            // Overflow: a part past 255 but the last, the last past what is left, past 2^32, five parts.
            ("http://256.1.1.1/", nil), ("http://1.16777216/", nil), ("http://1.2.65536/", nil), ("http://4294967296/", nil),
            ("http://99999999999999999999/", nil), ("http://1.2.3.4.5/", nil),
            // A domain ending in a number is none either; one ending in letters is a domain.
            ("http://example.09/", nil), ("http://example.1/", nil), ("http://1.2.3.a/", "host"), ("http://example.com/", "host"),
            ("http://a@09.1.1.1/", nil), ("http://09.1.1.1@example.com/", "host"),
            // Bare hosts (no scheme): only a decimal dotted quad that browsers read the same way.
            ("see 09.1.1.1/x", nil), ("see 10.0.0.1/x", "ip"), ("see 010.0.0.1/x", "ip"),
        ]
        for (text, expected) in cases {
            let urls = Self.scannedURLs(text)
            let got: String? = urls.first.map { $0.detail.hasSuffix("ip=true") ? "ip" : "host" }
            XCTAssertEqual(got, expected, "\(text): \(urls)")
            XCTAssertLessThanOrEqual(urls.count, 1, text)
            XCTAssertEqual(urls, Self.oracleURLs(text), "\(text): the oracle")
        }
    }

    /// Fragments chosen to hit every branch of the definitions, glued at random.
    static let fragments: [String] = [
        "http://", "https://", "HTTP://", "www.", "WWW.", "bit.ly", "Bit.ly", "lin.ee", "example", ".", "..", "/", "-",
        "com", "COM", "Com", "xyz", "in", "In", "now", "co.uk", "@", "_", "?", "#", ":", ":8080", "[2001:db8::1]", "[", "]",
        "192.168.1.1", "256.1.1.1", "10.0.0", "a", "Z", "q1", " ", "  ", "\n", "(", ")", "+", "+44", "(0)", "020", "7946",
        "0958", "09061701461", "98765", "43210", "12.06.2024", "2024-06-12", "3.14", "1,000", "1.000,50", "2,500.00",
        "1,00,000", "£", "$", "US$", "HK$", "€", "¥", "₹", "Rs", "Rs.", "rs", "Mrs", "INR", "usd", "USD", "baht", "บาท",
        "元", "万", "5", "50", "500", "k", "K", "m", "lakh", " lakh", "crore", "mn", "bn", "rupees", "dollars", "pounds",
        "ok.so", "I.ll", "x.xx", "e.g.", "Dr.Rao", "1 2 3 4 5 6 7 8", "1000-2000", "081-2345678", "me@mail.com", "คลิก", "รับเงิน", "验证码", "ก", "é", "'", ")", "!", ",", ";", "\"",
        "<", ">", "=", "&", "%", "*", "~", "\u{00A0}", "0", "9", "00", "123", "4567", "8901", "tel:", "call ",
        "3232235777", "0xC0A80101", "0x", "0300.0250.1.1", "08", "0377", "user:pw@", "paypal.com@",
        "09", "09.1.1.1", "1.1.1.09", "0x1g", "0X", "4294967296", "0xFFFFFFFF", "019", "1.2.3.4.5",
    ]

    func testScannersAgreeWithOraclesOnGeneratedText() {
        let seed = UInt64(ProcessInfo.processInfo.environment["SMSFILTER_SEED"] ?? "") ?? 0x5EED_0B0D_1E5
        print("SCANNERS generated: seed \(seed) (set SMSFILTER_SEED to replay)")
        var rng = Fixtures.SeededGenerator(seed: seed)
        var texts: [String] = []
        for _ in 0..<20_000 {
            let n = Int.random(in: 1...14, using: &rng)
            texts.append((0..<n).map { _ in Self.fragments.randomElement(using: &rng)! }.joined())
        }
        let c = compare(texts, label: "generated (seed \(seed))")
        print("SCANNERS generated: \(texts.count) texts, \(c.urls) URLs, \(c.phones) phone numbers, \(c.amounts) amounts")
        XCTAssertGreaterThan(c.urls, 1000)
        XCTAssertGreaterThan(c.phones, 1000)
        XCTAssertGreaterThan(c.amounts, 1000)
    }

    /// The gate that lets the classifier skip the eager URL scan of `urls: [ip]` rules: wherever the scanner
    /// finds a URL with an IP host, `mayHoldIPURL` says the body may hold one (on the same generated texts).
    func testIPURLGateNeverHidesAnIPURL() {
        var rng = Fixtures.seededGenerator("testIPURLGateNeverHidesAnIPURL", defaultSeed: 0x1B0D)
        var withIP = 0, gatedOff = 0
        for _ in 0..<20_000 {
            let n = Int.random(in: 1...14, using: &rng)
            var bytes = Array((0..<n).map { _ in Self.fragments.randomElement(using: &rng)! }.joined().utf8)
            bytes.withUnsafeMutableBytes { raw in
                let body = UnsafeRawBufferPointer(raw)
                var scanner = _URLScanner(body)
                var ip = false
                while let u = scanner.next() { if u.isIP { ip = true } }
                let gate = _BodyFeatures.mayHoldIPURL(body)
                if ip {
                    withIP += 1
                    XCTAssertTrue(gate, "\(String(decoding: body, as: UTF8.self)) holds an IP URL")
                }
                if !gate { gatedOff += 1 }
            }
        }
        XCTAssertGreaterThan(withIP, 100)
        XCTAssertGreaterThan(gatedOff, 500)
    }

    /// The gate reads a bare IP host as a dotted quad (three dots between digits in one run), so amounts and
    /// versions (`Rs 2.50`, `v1.2.3`) no longer send a body to the URL scan; it still never hides an IP URL
    /// the scanner finds, on 200,000 texts of numbers, dots, colons, slashes, schemes, letters and spaces, where
    /// runs of digits and dots of every length meet.
    func testIPURLGateReadsADottedQuad() {
        func gate(_ text: String) -> Bool {
            var bytes = Array(text.utf8)
            return bytes.withUnsafeMutableBytes { _BodyFeatures.mayHoldIPURL(UnsafeRawBufferPointer($0)) }
        }
        for text in ["1.2.3.4/x", "see 10.0.0.1:8080 now", "a 192.168.1.1/login", "http://example.com", "x://",
                     "Rs 2.50. 3.75 then 1.2.3.4/", "1.2 3.4.5.6/"] {
            XCTAssertTrue(gate(text), text)
        }
        for text in ["Rs 2.50 and 3.75", "v1.2.3 build", "1.2.3", "call 1.2.3 or 4.5", "12.5% off.", "a:b 1.2. 3.4", ""] {
            XCTAssertFalse(gate(text), text)
        }
        var rng = Fixtures.seededGenerator("testIPURLGateReadsADottedQuad", defaultSeed: 0x9D07)
        let pieces = ["1", "12", "192", "0", "255", "256", "7", "1234", ".", ".", ".", ".", ":", ":80", "/", "//", "http://",
                      " ", "a", "x.", "-", "Rs "]
        var withIP = 0, gatedOff = 0, digitDotDigit = 0
        for _ in 0..<200_000 {
            let n = Int.random(in: 1...16, using: &rng)
            var bytes = Array((0..<n).map { _ in pieces.randomElement(using: &rng)! }.joined().utf8)
            bytes.withUnsafeMutableBytes { raw in
                let body = UnsafeRawBufferPointer(raw)
                var scanner = _URLScanner(body)
                var ip = false
                while let u = scanner.next() { if u.isIP { ip = true } }
                let open = _BodyFeatures.mayHoldIPURL(body)
                if ip {
                    withIP += 1
                    XCTAssertTrue(open, "\(String(decoding: body, as: UTF8.self)) holds an IP URL")
                }
                if !open {
                    gatedOff += 1
                    if (1..<max(1, body.count - 1)).contains(where: { body[$0] == 0x2E && body[$0 - 1] &- 0x30 < 10 && body[$0 + 1] &- 0x30 < 10 }) {
                        digitDotDigit += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(withIP, 500)
        XCTAssertGreaterThan(gatedOff, 10_000)
        XCTAssertGreaterThan(digitDotDigit, 1_000)  // bodies the digit, dot, digit gate let through
    }
}
