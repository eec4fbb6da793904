/// The body conditions' part of a rule's record in the `.smsf` rule table (format version 3), after the
/// sender condition:
///
/// ```
/// u8       flags (bit 0: short phrases match as whole words)
/// strings  startsWith
/// urls     u8 tag (0 no condition, 1 none, 2 any of), u32 n, n × (u8 kind: 0 any, 1 shortener, 2 messenger,
///          3 ip, 4 tld + strings, 5 domain + strings)
/// phones   u8 tag, u32 n, n × (u8 kind: 0 any, 1 prefix + strings)
/// amounts  u8 tag, u32 n, n × (strings currencies, u8 has-min, f64 min, u8 has-max, f64 max)
/// ```
///
/// Decoding validates every value the parser would have refused (kinds, names, currency codes, bounds),
/// so a damaged or hostile table is refused, never half-loaded.
enum _ConditionCodec {
    static func encode(_ rule: RuleDefinition, into w: inout _ByteWriter) {
        w.u8(rule.shortPhrasesWholeWord ? 1 : 0)
        w.strings(rule.startsWith)
        requirement(rule.urls, into: &w) { m, w in
            switch m {
            case .any: w.u8(0)
            case .shortener: w.u8(1)
            case .messenger: w.u8(2)
            case .ip: w.u8(3)
            case .tld(let l): w.u8(4); w.strings(l)
            case .domain(let l): w.u8(5); w.strings(l)
            }
        }
        requirement(rule.phones, into: &w) { m, w in
            switch m {
            case .any: w.u8(0)
            case .prefix(let p): w.u8(1); w.strings(p)
            }
        }
        requirement(rule.amounts, into: &w) { m, w in
            w.strings(m.currencies)
            w.u8(m.minimum == nil ? 0 : 1)
            w.u64((m.minimum ?? 0).bitPattern)
            w.u8(m.maximum == nil ? 0 : 1)
            w.u64((m.maximum ?? 0).bitPattern)
        }
    }

    static func requirement<M: Sendable & Hashable>(_ r: BodyRequirement<M>?, into w: inout _ByteWriter, _ item: (M, inout _ByteWriter) -> Void) {
        switch r {
        case nil: w.u8(0)
        case .absent?: w.u8(1)
        case .anyOf(let items)?:
            w.u8(2)
            w.u32(UInt32(items.count))
            for m in items { item(m, &w) }
        }
    }

    static func decode(into rule: inout RuleDefinition, from r: inout _ByteReader) throws {
        func fail(_ what: String) -> _ByteReader.Failure { _ByteReader.Failure(offset: r.offset, what: what) }
        let flags = try r.u8()
        guard flags <= 1 else { throw fail("condition flags") }
        rule.shortPhrasesWholeWord = flags == 1
        rule.startsWith = try r.strings()
        guard rule.startsWith.allSatisfy({ !$0.isEmpty }) else { throw fail("empty startsWith phrase") }
        func failAt(_ r: _ByteReader, _ what: String) -> _ByteReader.Failure { _ByteReader.Failure(offset: r.offset, what: what) }
        rule.urls = try requirement(&r) { r in
            let kind = try r.u8()
            switch kind {
            case 0: return .any
            case 1: return .shortener
            case 2: return .messenger
            case 3: return .ip
            case 4, 5:
                let names = try r.strings()
                let valid = !names.isEmpty && names.allSatisfy { name in
                    let labels = name.split(separator: ".", omittingEmptySubsequences: false)
                    return (kind == 4 ? labels.count == 1 : labels.count >= 2) && labels.allSatisfy {
                        !$0.isEmpty && $0.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
                    }
                }
                guard valid else { throw failAt(r, "URL condition names") }
                return kind == 4 ? .tld(names) : .domain(names)
            default: throw failAt(r, "URL condition kind")
            }
        }
        rule.phones = try requirement(&r) { r in
            switch try r.u8() {
            case 0: return .any
            case 1:
                let p = try r.strings()
                guard !p.isEmpty, p.allSatisfy(isPhonePrefix) else { throw failAt(r, "phone prefix") }
                return .prefix(p)
            default: throw failAt(r, "phone condition kind")
            }
        }
        rule.amounts = try requirement(&r) { r in
            var m = AmountMatcher(currencies: try r.strings())
            guard m.currencies.allSatisfy({ _Currencies.bit($0) != nil }) else { throw failAt(r, "currency code") }
            let hasMin = try r.u8()
            let lo = Double(bitPattern: try r.u64())
            let hasMax = try r.u8()
            let hi = Double(bitPattern: try r.u64())
            guard hasMin <= 1, hasMax <= 1, lo.isFinite, hi.isFinite, hasMin == 1 || lo == 0, hasMax == 1 || hi == 0 else {
                throw failAt(r, "amount bounds")
            }
            if hasMin == 1 { m.minimum = lo }
            if hasMax == 1 { m.maximum = hi }
            if let lo = m.minimum, let hi = m.maximum, lo > hi { throw failAt(r, "amount bounds") }
            return m
        }
        guard rule._groupCount <= 64 else { throw fail("more than 64 groups") }
        if let entities = rule.sender?.entities {
            guard entities.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { SenderInfo.isASCIIAlnum($0) && !($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2A || $0 == 0x3F } }) else {
                throw fail("TRAI entity")
            }
        }
    }

    /// Digits with an optional leading `+` (at least one digit).
    static func isPhonePrefix(_ p: String) -> Bool {
        var u = Substring(p).utf8
        if u.first == 0x2B { u = u.dropFirst() }
        return !u.isEmpty && u.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    static func requirement<M: Sendable & Hashable>(_ r: inout _ByteReader, _ item: (inout _ByteReader) throws -> M) throws -> BodyRequirement<M>? {
        let offset = r.offset
        switch try r.u8() {
        case 0: return nil
        case 1: return .absent
        case 2:
            let n = try r.count(minimumBytesEach: 1)
            guard n > 0 else { throw _ByteReader.Failure(offset: offset, what: "empty body condition") }
            var items: [M] = []
            for _ in 0..<n {
                let m = try item(&r)
                guard !items.contains(m) else { throw _ByteReader.Failure(offset: r.offset, what: "repeated body condition") }
                items.append(m)
            }
            return .anyOf(items)
        default:
            throw _ByteReader.Failure(offset: offset, what: "body condition tag")
        }
    }
}
