import Yams

/// Parsing of the body conditions (`startsWith`, `urls`, `phones`, `amounts`); every problem is reported
/// with its file, line and field, like the rest of the rule file.
extension _RuleFileParser {
    static let urlKinds = ["any", "none", "shortener", "messenger", "ip", "tld", "domain"]
    static let phoneKinds = ["any", "none", "prefix"]
    static let amountKeys = ["currency", "min", "max"]

    /// Parses one of the new rule fields into `rule`; false when the field is not one of them.
    mutating func parseBodyCondition(_ key: String, _ v: Node, _ f: String, into rule: inout RuleDefinition, ok: inout Bool) -> Bool {
        let before = issues.count
        switch key {
        case "startsWith":
            rule.startsWith = phrases(v, f)
            if rule.startsWith.isEmpty, issues.count == before { issue(v, f, "expected at least one phrase") }
        case "urls": rule.urls = requirement(v, f, Self.urlKinds) { p, node, at in p.urlMatcher(node, at) }
        case "phones": rule.phones = requirement(v, f, Self.phoneKinds) { p, node, at in p.phoneMatcher(node, at) }
        case "amounts": rule.amounts = requirement(v, f, ["any", "none"] + Self.amountKeys) { p, node, at in p.amountMatcher(node, at) }
        default: return false
        }
        if issues.count != before { ok = false }
        return true
    }

    /// `any`, `none`, one alternative, or a list of alternatives.
    mutating func requirement<M>(_ node: Node, _ f: String, _ valid: [String],
                                 _ item: (inout Self, Node, String) -> M?) -> BodyRequirement<M>? {
        if let s = node.scalar?.string, s == "none" { return .absent }
        let items: [Node]
        if let seq = node.sequence {
            items = Array(seq)
        } else {
            items = [node]
        }
        if items.isEmpty {
            issue(node, f, "expected any, none, or a list of alternatives (\(valid.joined(separator: ", ")))")
            return nil
        }
        var out: [M] = []
        for (i, n) in items.enumerated() {
            let at = node.sequence == nil ? f : "\(f)[\(i)]"
            if n.scalar?.string == "none" {
                issue(n, at, "`none` stands alone (`\(f.split(separator: ".").last ?? ""): none`), not in a list")
                continue
            }
            if let m = item(&self, n, at), !out.contains(m) { out.append(m) }
        }
        return out.isEmpty ? nil : .anyOf(out)
    }

    /// A mapping with exactly one key, from `valid`: the key and its value.
    mutating func singleKey(_ node: Node, _ at: String, _ valid: [String], _ what: String) -> (String, Node)? {
        guard let map = node.mapping else { return nil }
        guard map.count == 1, let (k, v) = map.first, let key = k.string else {
            issue(node, at, "a \(what) alternative is one key (\(valid.joined(separator: ", "))); write several as a list")
            return nil
        }
        guard valid.contains(key) else {
            issue(k, "\(at).\(key)", _Suggest.unknown("\(what) alternative", key, valid: valid))
            return nil
        }
        return (key, v)
    }

    mutating func urlMatcher(_ node: Node, _ at: String) -> URLMatcher? {
        if let s = node.scalar?.string {
            switch s {
            case "any": return .any
            case "shortener": return .shortener
            case "messenger": return .messenger
            case "ip": return .ip
            default:
                issue(node, at, _Suggest.unknown("URL kind", s, valid: Self.urlKinds) + (s.contains(".") ? "; for a host write {domain: [\(s)]}" : ""))
                return nil
            }
        }
        guard let (key, v) = singleKey(node, at, ["tld", "domain"], "URL") else {
            if node.mapping == nil { issue(node, at, "expected a URL kind (\(Self.urlKinds.joined(separator: ", ")))") }
            return nil
        }
        var names: [String] = []
        for (i, item) in list(v, "\(at).\(key)").enumerated() {
            let field = "\(at).\(key)[\(i)]"
            guard var s = item.scalar?.string.lowercased(), !s.isEmpty else { issue(item, field, "expected a name"); continue }
            if s.hasPrefix(".") { s.removeFirst() }
            let labels = s.split(separator: ".", omittingEmptySubsequences: false)
            let valid = !labels.isEmpty && labels.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { SenderInfo.isASCIIAlnum($0) || $0 == 0x2D } }
            if key == "tld" {
                guard valid, labels.count == 1 else {
                    issue(item, field, "a top-level domain is letters, digits and hyphens without dots (e.g. xyz), got \"\(item.string ?? "")\"")
                    continue
                }
            } else {
                guard valid, labels.count >= 2 else {
                    issue(item, field, "a domain is a host name like example.com (no scheme, path or port), got \"\(item.string ?? "")\"")
                    continue
                }
            }
            if !names.contains(s) { names.append(s) }
        }
        if names.isEmpty { return nil }
        return key == "tld" ? .tld(names) : .domain(names)
    }

    mutating func phoneMatcher(_ node: Node, _ at: String) -> PhoneMatcher? {
        if let s = node.scalar?.string {
            if s == "any" { return .any }
            issue(node, at, _Suggest.unknown("phone condition", s, valid: Self.phoneKinds))
            return nil
        }
        guard let (_, v) = singleKey(node, at, ["prefix"], "phone") else {
            if node.mapping == nil { issue(node, at, "expected any or {prefix: [...]}") }
            return nil
        }
        var out: [String] = []
        for (i, item) in list(v, "\(at).prefix").enumerated() {
            let field = "\(at).prefix[\(i)]"
            let raw = item.scalar?.string ?? ""
            var p = raw.hasPrefix("+") ? "+" : ""
            var bad = false
            for (k, ch) in raw.unicodeScalars.enumerated() {
                if ch.value >= 0x30 && ch.value <= 0x39 { p.unicodeScalars.append(ch) } else if !(k == 0 && ch == "+") && !" -.()".unicodeScalars.contains(ch) { bad = true }
            }
            guard !bad, p.utf8.contains(where: { $0 != 0x2B }) else {
                issue(item, field, "a phone prefix is digits with an optional leading + (e.g. \"09\", \"+44 9\"), got \"\(raw)\"")
                continue
            }
            if !out.contains(p) { out.append(p) }
        }
        return out.isEmpty ? nil : .prefix(out)
    }

    mutating func amountMatcher(_ node: Node, _ at: String) -> AmountMatcher? {
        if let s = node.scalar?.string {
            if s == "any" { return AmountMatcher() }
            issue(node, at, _Suggest.unknown("amount condition", s, valid: ["any", "none"]) + "; or {currency: [...], min: N, max: N}")
            return nil
        }
        guard let map = node.mapping, map.count > 0 else {
            issue(node, at, "expected any or {currency: [...], min: N, max: N}")
            return nil
        }
        var m = AmountMatcher()
        var ok = true
        for (k, v) in map {
            let key = k.string ?? ""
            let field = "\(at).\(key)"
            switch key {
            case "currency":
                for (i, item) in list(v, field).enumerated() {
                    let code = (item.scalar?.string ?? "").uppercased()
                    if _Currencies.bit(code) != nil {
                        if !m.currencies.contains(code) { m.currencies.append(code) }
                    } else {
                        issue(item, "\(field)[\(i)]", _Suggest.unknown("currency", item.string ?? "", valid: _Currencies.codes))
                        ok = false
                    }
                }
            case "min", "max":
                guard let x = v.float ?? v.int.map(Double.init), x.isFinite else {
                    issue(v, field, "expected a number, got \"\(v.string ?? "?")\"")
                    ok = false
                    continue
                }
                if key == "min" { m.minimum = x } else { m.maximum = x }
            default:
                issue(k, field, _Suggest.unknown("amount condition", key, valid: Self.amountKeys))
                ok = false
            }
        }
        if let lo = m.minimum, let hi = m.maximum, lo > hi {
            issue(node, at, "min \(AmountMatcher.number(lo)) is larger than max \(AmountMatcher.number(hi)): no amount could match")
            ok = false
        }
        return ok ? m : nil
    }
}
