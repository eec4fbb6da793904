/// How the body conditions of a rule map onto the phrase machinery of ``RuleSet`` and ``Classifier``.
///
/// Each distinct alternative of a `urls:`, `phones:` or `amounts:` condition is a *feature*: a
/// pseudo-phrase with a global phrase id after the literal phrases, found by the byte scanners instead of
/// the automaton, and used by rules with the same roles as phrases. A rule's `startsWith`, `urls`,
/// `phones` and `amounts` conditions are extra `all` groups after its own (`all` group `all.count + x`);
/// `none` is a veto (the role of `unless`) by the feature "any". `startsWith` phrases are ordinary
/// phrases whose use carries the *anchored* flag (role | 0x80): the classifier counts such a match only
/// when it starts at the body's first non-blank byte.
enum _BodyFeatureKey: Hashable, Sendable {
    case url(URLMatcher)
    case phone(PhoneMatcher)
    case amount(AmountMatcher)

    /// The name shown in explanations and as ``RuleSet/phrase(at:)``: `urls: shortener`.
    var display: String {
        switch self {
        case .url(let m): "urls: \(m.name)"
        case .phone(let m): "phones: \(m.name)"
        case .amount(let m): "amounts: \(m.name)"
        }
    }
}

/// One of a rule's conditions that is an extra group (see `_BodyFeatureKey`).
enum _ExtraGroup {
    case startsWith([String])
    case urls([URLMatcher])
    case phones([PhoneMatcher])
    case amounts([AmountMatcher])

    /// The rule-file field.
    var field: String {
        switch self {
        case .startsWith: "startsWith"
        case .urls: "urls"
        case .phones: "phones"
        case .amounts: "amounts"
        }
    }
}

/// The role flag of an anchored (`startsWith`) phrase use.
let _anchoredRole: UInt32 = 0x80

extension RuleDefinition {
    /// The conditions that become extra groups after `all`, in this order.
    var _extraGroups: [_ExtraGroup] {
        var out: [_ExtraGroup] = []
        if !startsWith.isEmpty { out.append(.startsWith(startsWith)) }
        if case .anyOf(let m)? = urls { out.append(.urls(m)) }
        if case .anyOf(let m)? = phones { out.append(.phones(m)) }
        if case .anyOf(let m)? = amounts { out.append(.amounts(m)) }
        return out
    }

    /// The features whose presence vetoes the rule (`none`).
    var _vetoFeatures: [_BodyFeatureKey] {
        var out: [_BodyFeatureKey] = []
        if urls == .absent { out.append(.url(.any)) }
        if phones == .absent { out.append(.phone(.any)) }
        if amounts == .absent { out.append(.amount(AmountMatcher())) }
        return out
    }

    /// `all` groups plus extra groups.
    var _groupCount: Int { all.count + _extraGroups.count }

    /// The field name of group `g` (`all[1]`, `startsWith`, `urls`, …).
    func _groupName(_ g: Int) -> String {
        if g < all.count { return "all[\(g)]" }
        let extra = _extraGroups
        return g - all.count < extra.count ? extra[g - all.count].field : "all[\(g)]"
    }

    /// How a match of `phrase` of this rule must be delimited: as a word (`wholeWord: true`), as a Latin
    /// word when it is short (see ``RuleDefinition/isShortWord(_:)``) and the rule did not say
    /// `wholeWord: false`, else not at all.
    func _wordBoundary(_ phrase: String) -> _WordBoundary {
        if wholeWord { return .word }
        return shortPhrasesWholeWord && Self.isShortWord(phrase) ? .latinWord : .none
    }

    /// Whether `phrase` is at most four ASCII letters or digits (`emi`, `upi`, `10p`, `otp`, `cash`): the
    /// phrases that match as whole Latin words unless a rule says `wholeWord: false` (they may touch Thai,
    /// Chinese or Devanagari text, and Latin text across a letter–digit or lower–upper case change:
    /// `รหัสOTPคือ` and `ShopeePayOTP` have `otp`, `remind` has no `emi`).
    public static func isShortWord(_ phrase: String) -> Bool {
        let u = phrase.utf8
        return !u.isEmpty && u.count <= 4 && u.allSatisfy(SenderInfo.isASCIIAlnum)
    }
}

/// The compiled features of a rule set and the scan that finds them in a body.
final class _BodyFeatures: Sendable {
    struct URLFeature: Sendable {
        var id: Int32
        /// 0 any, 1 shortener, 2 messenger, 3 ip, 4 tld, 5 domain
        var kind: UInt8
        var list: [[UInt8]]
    }

    struct PhoneFeature: Sendable {
        var id: Int32
        /// Empty: any phone number.
        var prefixes: [[UInt8]]
    }

    struct AmountFeature: Sendable {
        var id: Int32
        /// 0: any currency.
        var mask: UInt64
        var minimum: Double
        var maximum: Double
    }

    let urls: [URLFeature]
    let phones: [PhoneFeature]
    let amounts: [AmountFeature]
    /// The kinds (`_BodyFeatures.url`, `.phone`, `.amount` bits) that some rule needs even when no phrase
    /// touched it: a rule whose only body conditions besides the sender are URLs, phone numbers or amounts
    /// (no keywords, `all` groups or `startsWith`). Other kinds are scanned only for messages where a
    /// phrase touched a rule that uses them: an untouched rule with phrase conditions cannot fire.
    let eagerKinds: UInt8

    static let url: UInt8 = 1
    static let phone: UInt8 = 2
    static let amount: UInt8 = 4

    /// The feature kinds `rule` uses (in a condition or a `none`).
    static func kinds(of rule: RuleDefinition) -> UInt8 {
        (rule.urls != nil ? url : 0) | (rule.phones != nil ? phone : 0) | (rule.amounts != nil ? amount : 0)
    }

    /// Compiles `keys`; feature `k` gets the global id `firstID + k`.
    init(_ keys: [_BodyFeatureKey], firstID: Int32, rules: [RuleDefinition]) {
        eagerKinds = rules.reduce(0) { k, r in
            r.keywords.isEmpty && r.all.isEmpty && r.startsWith.isEmpty ? k | Self.kinds(of: r) : k
        }
        var urls: [URLFeature] = []
        var phones: [PhoneFeature] = []
        var amounts: [AmountFeature] = []
        for (k, key) in keys.enumerated() {
            let id = firstID + Int32(k)
            switch key {
            case .url(let m):
                switch m {
                case .any: urls.append(URLFeature(id: id, kind: 0, list: []))
                case .shortener: urls.append(URLFeature(id: id, kind: 1, list: _HostLists.shortenerBytes))
                case .messenger: urls.append(URLFeature(id: id, kind: 2, list: _HostLists.messengerBytes))
                case .ip: urls.append(URLFeature(id: id, kind: 3, list: []))
                case .tld(let l): urls.append(URLFeature(id: id, kind: 4, list: l.map { Array($0.lowercased().utf8) }))
                case .domain(let l): urls.append(URLFeature(id: id, kind: 5, list: l.map { Array($0.lowercased().utf8) }))
                }
            case .phone(let m):
                switch m {
                case .any: phones.append(PhoneFeature(id: id, prefixes: []))
                case .prefix(let p): phones.append(PhoneFeature(id: id, prefixes: p.map { Array($0.utf8) }))
                }
            case .amount(let m):
                amounts.append(AmountFeature(
                    id: id, mask: m.currencies.reduce(0) { $0 | (_Currencies.bit($1) ?? 0) },
                    minimum: m.minimum ?? -.infinity, maximum: m.maximum ?? .infinity))
            }
        }
        self.urls = urls
        self.phones = phones
        self.amounts = amounts
    }

    /// Appends a match for every feature of `kinds` found in `body` to `out`, with offsets into `body` and
    /// `span`. Never allocates once `out` has the capacity.
    func scan(_ body: UnsafeRawBufferPointer, kinds: UInt8 = 7, span: Int32, into out: inout [_RawMatch]) {
        if kinds & Self.url != 0, !urls.isEmpty {
            var scanner = _URLScanner(body)
            while let u = scanner.next() {
                var i = 0
                while i < urls.count {
                    let f = urls[i]
                    i += 1
                    if Self.matches(f, u, body) {
                        out.append(_RawMatch(phrase: f.id, start: Int32(truncatingIfNeeded: u.start),
                                             end: Int32(truncatingIfNeeded: u.end), span: span))
                    }
                }
            }
        }
        if kinds & Self.phone != 0, !phones.isEmpty {
            var scanner = _PhoneScanner(body)
            while let p = scanner.next() {
                var i = 0
                while i < phones.count {
                    let f = phones[i]
                    i += 1
                    var ok = f.prefixes.isEmpty
                    var k = 0
                    while !ok, k < f.prefixes.count {
                        ok = _PhoneScanner.hasPrefix(p, f.prefixes[k], in: body)
                        k += 1
                    }
                    if ok {
                        out.append(_RawMatch(phrase: f.id, start: Int32(truncatingIfNeeded: p.start),
                                             end: Int32(truncatingIfNeeded: p.end), span: span))
                    }
                }
            }
        }
        if kinds & Self.amount != 0, !amounts.isEmpty {
            var scanner = _AmountScanner(body)
            while let a = scanner.next() {
                var i = 0
                while i < amounts.count {
                    let f = amounts[i]
                    i += 1
                    if (f.mask == 0 || f.mask & a.mask != 0) && a.value >= f.minimum && a.value <= f.maximum {
                        out.append(_RawMatch(phrase: f.id, start: Int32(truncatingIfNeeded: a.start),
                                             end: Int32(truncatingIfNeeded: a.end), span: span))
                    }
                }
            }
        }
    }

    static func matches(_ f: URLFeature, _ u: _URLItem, _ body: UnsafeRawBufferPointer) -> Bool {
        let host = UnsafeRawBufferPointer(rebasing: body[u.hostStart..<u.hostEnd])
        switch f.kind {
        case 0: return true
        case 1, 2, 5: return !u.isIP && _HostLists.hostMatches(host, f.list)
        case 3: return u.isIP
        default:
            guard !u.isIP else { return false }
            var s = host.count
            while s > 0, host[s - 1] != 0x2E { s -= 1 }
            return _HostLists.labelIn(UnsafeRawBufferPointer(rebasing: host[s...]), f.list)
        }
    }
}

/// The offset of the first byte of `body` that is not blank (ASCII white space or a byte-order mark):
/// where a `startsWith` phrase must start.
@inline(__always)
func _anchorOffset(_ body: UnsafeRawBufferPointer) -> Int32 {
    var i = 0
    let n = body.count
    while i < n {
        let b = body[i]
        if b == 0x20 || (b >= 0x09 && b <= 0x0D) {
            i += 1
        } else if b == 0xEF, i + 2 < n, body[i + 1] == 0xBB, body[i + 2] == 0xBF {
            i += 3
        } else {
            break
        }
    }
    return Int32(truncatingIfNeeded: i)
}

/// Collects the distinct features of a rule set and their uses while ``RuleSet`` is compiled.
struct _FeatureTable {
    var keys: [_BodyFeatureKey] = []
    var index: [_BodyFeatureKey: Int] = [:]
    /// Per feature: its uses (`rule << 8 | role`), as for phrases.
    var uses: [[UInt32]] = []

    mutating func use(_ key: _BodyFeatureKey, rule r: Int, role: UInt32) {
        let k: Int
        if let known = index[key] {
            k = known
        } else {
            k = keys.count
            index[key] = k
            keys.append(key)
            uses.append([])
        }
        let u = UInt32(r) << 8 | role
        if !uses[k].contains(u) { uses[k].append(u) }
    }

    /// Adds the uses of rule `r`'s extra groups and vetoes; `phrase(text, role)` registers a phrase use.
    mutating func addUses(of rule: RuleDefinition, index r: Int, phrase: (String, UInt32) -> Void) {
        for (x, extra) in rule._extraGroups.enumerated() {
            let role = 2 + UInt32(rule.all.count + x)
            switch extra {
            case .startsWith(let texts): for t in texts { phrase(t, role | _anchoredRole) }
            case .urls(let m): for k in m { use(.url(k), rule: r, role: role) }
            case .phones(let m): for k in m { use(.phone(k), rule: r, role: role) }
            case .amounts(let m): for k in m { use(.amount(k), rule: r, role: role) }
            }
        }
        for key in rule._vetoFeatures { use(key, rule: r, role: 1) }
    }
}

/// How a phrase match must be delimited.
enum _WordBoundary: UInt8, Hashable {
    /// Anywhere (a substring).
    case none
    /// Not touching a letter, digit or combining mark of any script (`wholeWord: true`; the automaton checks).
    case word
    /// A word of its own in Latin text (short phrases by default; the classifier checks,
    /// `_isLatinWordMatch`).
    case latinWord
}

/// What a byte next to a match is, for `_isLatinWordMatch`.
enum _LatinClass { case other, digit, lower, upper, latinLetter }

@inline(__always)
func _latinClass(_ b: UInt8) -> _LatinClass {
    if b &- 0x30 < 10 { return .digit }
    if b &- 0x61 < 26 { return .lower }
    if b &- 0x41 < 26 { return .upper }
    return .other
}

/// Whether the match `body[s..<e]` (of a short ASCII phrase) is a word of its own in Latin text: on each
/// side the neighbouring character is not a Latin letter or digit (A–Z, a–z, 0–9, U+00C0–U+024F except ×
/// and ÷), or the text changes there between letters and digits, or from a lower-case to an upper-case
/// ASCII letter. So `otp` is found in `OTP:`, `รหัสOTPคือ`, `ShopeePayOTP` and `OTP123456` but not in
/// `hotpot`; `emi` not in `remind`, `upi` not in `stupid`, `10p` not in `10pm`.
@inline(__always)
func _isLatinWordMatch(_ body: UnsafeRawBufferPointer, _ s: Int, _ e: Int) -> Bool {
    guard e > s else { return true }
    if s > 0 {
        let b = body[s - 1]
        var before = _latinClass(b)
        if before == .other, b >= 0x80, b <= 0xBF, s >= 2, _isLatinLetter(body[s - 2], b) { before = .latinLetter }
        if before != .other {
            let first = _latinClass(body[s])
            let digits = (before == .digit) != (first == .digit)
            if !(digits || (before == .lower && first == .upper)) { return false }
        }
    }
    if e < body.count {
        let b = body[e]
        var after = _latinClass(b)
        if after == .other, e + 1 < body.count, _isLatinLetter(b, body[e + 1]) { after = .latinLetter }
        if after != .other {
            let last = _latinClass(body[e - 1])
            let digits = (after == .digit) != (last == .digit)
            if !(digits || (last == .lower && after == .upper)) { return false }
        }
    }
    return true
}

/// Whether the two bytes `lead`, `next` encode a letter of U+00C0–U+024F (Latin-1 letters, Latin
/// Extended-A and -B), not × (C3 97) or ÷ (C3 B7).
@inline(__always)
func _isLatinLetter(_ lead: UInt8, _ next: UInt8) -> Bool {
    guard next >= 0x80, next <= 0xBF else { return false }
    switch lead {
    case 0xC3: return next != 0x97 && next != 0xB7
    case 0xC4...0xC8: return true
    case 0xC9: return next <= 0x8F
    default: return false
    }
}
