/// Conditions on what a message body *contains* beyond literal phrases: URLs, phone numbers and amounts
/// of money, found by hand-written byte scanners (`_URLScanner`, `_PhoneScanner`, `_AmountScanner`), and
/// phrases anchored at the start of the body. docs/RULES.md §2.1 defines every detector precisely.
///
/// ```yaml
/// urls: any                                  # a URL is present
/// urls: none                                 # no URL is present
/// urls: [shortener, ip, {tld: [xyz, top]}]   # a URL that is any one of these
/// phones: [{prefix: ["09", "+449"]}]
/// amounts: [{currency: [GBP], min: 100}]
/// startsWith: ["<#>"]
/// ```

/// A rule's requirement on one kind of body item (URLs, phone numbers, amounts).
public enum BodyRequirement<Matcher: Sendable & Hashable>: Sendable, Hashable {
    /// Some item of the body satisfies one of these alternatives (`any` is a matcher of its own).
    case anyOf([Matcher])
    /// The body has no item of this kind at all (`none`): a veto, like `unless`.
    case absent

    /// The alternatives (empty for ``absent``).
    public var alternatives: [Matcher] {
        if case .anyOf(let m) = self { return m }
        return []
    }
}

/// One alternative of a rule's `urls:` condition.
public enum URLMatcher: Sendable, Hashable {
    /// Any URL.
    case any
    /// A URL whose host is on the shortener list (``BodyConditionLists/shorteners``) or a subdomain of one.
    case shortener
    /// A link into a chat app (``BodyConditionLists/messengers``: `wa.me`, `t.me`, `line.me`, `lin.ee`, …).
    case messenger
    /// A URL whose host is an IP address (`http://45.12.3.4/…`, `[2001:db8::1]`).
    case ip
    /// A URL whose host's last label is one of these (lowercase, no dot: `xyz`).
    case tld([String])
    /// A URL whose host is one of these or a subdomain of one (lowercase: `example.com`).
    case domain([String])

    /// The rule-file spelling (`shortener`, `{tld: [xyz, top]}`).
    public var name: String {
        switch self {
        case .any: "any"
        case .shortener: "shortener"
        case .messenger: "messenger"
        case .ip: "ip"
        case .tld(let l): "tld [\(l.joined(separator: ", "))]"
        case .domain(let l): "domain [\(l.joined(separator: ", "))]"
        }
    }
}

/// One alternative of a rule's `phones:` condition.
public enum PhoneMatcher: Sendable, Hashable {
    /// Any phone number.
    case any
    /// A phone number whose digits, as written (separators dropped, a leading `+` kept), start with one of
    /// these (`09`, `+449`).
    case prefix([String])

    /// The rule-file spelling.
    public var name: String {
        switch self {
        case .any: "any"
        case .prefix(let p): "prefix [\(p.joined(separator: ", "))]"
        }
    }
}

/// One alternative of a rule's `amounts:` condition: an amount of money in one of `currencies` (any
/// currency when empty) whose value lies in `minimum...maximum` (either bound optional).
public struct AmountMatcher: Sendable, Hashable {
    /// ISO 4217 codes (``BodyConditionLists/currencyCodes``); empty: any currency.
    public var currencies: [String]
    /// The smallest value that counts (inclusive), if any.
    public var minimum: Double?
    /// The largest value that counts (inclusive), if any.
    public var maximum: Double?

    /// An amount in any of `currencies` (empty: any) between the bounds.
    public init(currencies: [String] = [], minimum: Double? = nil, maximum: Double? = nil) {
        self.currencies = currencies
        self.minimum = minimum
        self.maximum = maximum
    }

    /// The rule-file spelling (`any`, `GBP|USD ≥ 100`).
    public var name: String {
        var parts: [String] = []
        if !currencies.isEmpty { parts.append(currencies.joined(separator: "|")) }
        if let minimum { parts.append("≥ \(Self.number(minimum))") }
        if let maximum { parts.append("≤ \(Self.number(maximum))") }
        return parts.isEmpty ? "any" : parts.joined(separator: " ")
    }

    static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}

/// The fixed lists the body conditions use. They are part of smsfilter (not of a rule file): a compiled
/// rule set uses the lists of the smsfilter or app that loads it.
public enum BodyConditionLists {
    /// General-purpose URL shorteners: services anyone can use to hide a link's destination. Brand-owned
    /// shorteners (`amzn.to`, `youtu.be`) are not on it. A host matches an entry or any subdomain of it.
    public static var shorteners: [String] { _HostLists.shorteners }
    /// Links that open a chat in a messaging app.
    public static var messengers: [String] { _HostLists.messengers }
    /// The generic top-level domains that make a bare `name.tld` (no `http://`, no `www.`) a URL; the
    /// country codes (``countryTopLevelDomains``) do too.
    public static var bareTopLevelDomains: [String] { _HostLists.bareTLDs }
    /// The generic top-level domains that are also words (`today`, `live`, `top`): a bare `name.tld` with one of
    /// them is a URL only with a path, query, fragment or port after the host, three labels or more, or a
    /// digit or `-` in the host (`Oops.today` is no URL, `win88.live` and `shop.example.live` are).
    public static var contextTopLevelDomains: [String] { _HostLists.contextTLDs }
    /// The two-letter top-level domains of the root zone.
    public static var countryTopLevelDomains: [String] { _HostLists.countryTLDs }
    /// The currency codes `amounts:` accepts.
    public static var currencyCodes: [String] { _Currencies.codes }
}
