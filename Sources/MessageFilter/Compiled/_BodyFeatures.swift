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

    /// Whether every rule behind the eager URL kind asks only for a URL whose host is an IP address (`urls:
    /// [ip]`, as the default rules' `ip-link`): then a body without `://` or a dotted quad
    /// (``mayHoldIPURL(_:)``) needs no URL scan unless a candidate rule asks for other URLs.
    let eagerURLsAreIP: Bool

    static let url: UInt8 = 1
    static let phone: UInt8 = 2
    static let amount: UInt8 = 4

    /// The feature kinds `rule` uses (in a condition or a `none`).
    static func kinds(of rule: RuleDefinition) -> UInt8 {
        (rule.urls != nil ? url : 0) | (rule.phones != nil ? phone : 0) | (rule.amounts != nil ? amount : 0)
    }

    /// The bits of `rule`'s groups (as in `_CompiledRule.allMask`) that its `urls`, `phones` and `amounts`
    /// conditions make (its extra groups after `all`, except `startsWith`).
    static func groupMask(of rule: RuleDefinition) -> UInt64 {
        var mask: UInt64 = 0
        for (x, extra) in rule._extraGroups.enumerated() {
            if case .startsWith = extra { continue }
            let bit = rule.all.count + x
            if bit < 64 { mask |= UInt64(1) << UInt64(bit) }
        }
        return mask
    }

    /// Compiles `keys`; feature `k` gets the global id `firstID + k`.
    init(_ keys: [_BodyFeatureKey], firstID: Int32, rules: [RuleDefinition]) {
        eagerKinds = rules.reduce(0) { k, r in
            r.keywords.isEmpty && r.all.isEmpty && r.startsWith.isEmpty ? k | Self.kinds(of: r) : k
        }
        eagerURLsAreIP = rules.allSatisfy { r in
            guard r.keywords.isEmpty && r.all.isEmpty && r.startsWith.isEmpty, let urls = r.urls else { return true }
            guard case .anyOf(let m) = urls else { return false }
            return m.allSatisfy { $0 == .ip }
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

    /// Whether `body` may hold a URL whose host is an IP address (false: `_URLScanner` finds none). Such a
    /// URL has a scheme (`http://`, `https://`: so `://`) or is a bare dotted quad (`45.12.3.4/…`: four
    /// decimal parts, the whole host run, `_URLScanner.isIPv4`), so a run of digits and dots from a digit, `.`,
    /// digit on holds three dots each followed by a digit. (A digit, `.`, digit alone passed amounts and
    /// versions, `Rs 2.50`, `v1.2`, to the URL scan.)
    static func mayHoldIPURL(_ body: UnsafeRawBufferPointer) -> Bool {
        let n = body.count
        var from = 0
        while let d = _URLScanner.nextDotOrColon(body, from: from) {
            from = d + 1
            if body[d] == 0x2E {
                guard d > 0, d + 1 < n, _URLScanner.isDigit(body[d - 1]), _URLScanner.isDigit(body[d + 1]) else { continue }
                // The first dot of its run of digits and dots (an earlier dot of the run would have been met
                // first, or walked over below): count the dots of the run from here.
                var dots = 1
                var i = d + 1
                while true {
                    while i < n, _URLScanner.isDigit(body[i]) { i += 1 }
                    guard i + 1 < n, body[i] == 0x2E, _URLScanner.isDigit(body[i + 1]) else { break }
                    dots += 1
                    if dots == 3 { return true }
                    i += 1
                }
                from = i
            } else if d + 2 < n, body[d + 1] == 0x2F, body[d + 2] == 0x2F {
                return true
            }
        }
        return false
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
