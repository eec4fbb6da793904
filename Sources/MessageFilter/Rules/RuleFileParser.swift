import Foundation
import Yams

/// Parses rule files (YAML, version 1) into a ``RuleSetDefinition``, collecting every problem with its
/// file, line and field.
struct _RuleFileParser {
    let file: String
    /// Folder that list paths are relative to (nil: the current folder).
    let baseFolder: String?
    var issues: [RuleFileError.Issue] = []

    static let topKeys = ["version", "capabilities", "defaultCountryCode", "blockList", "identificationList", "rules",
                          "normalize", "model"]
    static let ruleKeys = ["name", "action", "subAction", "priority", "keywords", "unless", "all", "caseFold",
                           "wholeWord", "sender", "unlessSender", "startsWith", "urls", "phones", "amounts"]
    static let senderKeys = ["exact", "prefix", "kind", "suffix", "entity", "countryCode"]

    init(file: String, baseFolder: String?) {
        self.file = file
        self.baseFolder = baseFolder
    }

    mutating func issue(_ node: Node?, _ field: String, _ message: String) {
        issues.append(.init(file: file, line: node?.mark?.line ?? 0, field: field, message: message))
    }

    mutating func parse(yaml: String) -> RuleSetDefinition {
        var def = RuleSetDefinition()
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            issues.append(.init(file: file, line: Self.line(of: error), field: "", message: "not valid YAML: \(Self.problem(of: error))"))
            return def
        } catch {
            issues.append(.init(file: file, line: 0, field: "", message: "not valid YAML: \(error)"))
            return def
        }
        if let root, _YAMLBudget.expandedSize(of: root) == nil {
            issue(root, "", "the document is larger than \(_YAMLBudget.maxExpandedBytes >> 20) MiB with its aliases (*name) written out; share fewer or smaller anchors")
            return def
        }
        guard let root, let top = root.mapping else {
            issue(root, "", "a rule file is a mapping with `version: 1` and `rules:`")
            return def
        }
        var sawVersion = false
        var sawRules = false
        for (k, v) in top {
            guard let key = k.string else { issue(k, "", "keys must be strings"); continue }
            switch key {
            case "version":
                sawVersion = true
                if v.int != 1 { issue(v, "version", "unsupported version \"\(v.string ?? "?")\"; valid: 1") }
            case "capabilities": def.capabilities = parseCapabilities(v)
            case "defaultCountryCode":
                if let n = v.int, (1...999).contains(n) { def.defaultCountryCode = Int32(n) } else {
                    issue(v, "defaultCountryCode", "expected a country calling code from 1 to 999 (e.g. 91), got \"\(v.string ?? "?")\"")
                }
            case "blockList": parseBlockList(v, into: &def)
            case "identificationList": parseIdentificationList(v, into: &def)
            case "rules":
                sawRules = true
                parseRules(v, into: &def)
            case "normalize": def.normalization = parseNormalization(v)
            case "model": def.model = parseModel(v)
            default:
                issue(k, key, _Suggest.unknown("key", key, valid: Self.topKeys))
            }
        }
        checkModel(def)
        checkPhrases(def)
        if !sawVersion { issue(root, "version", "missing; add `version: 1`") }
        if !sawRules { issue(root, "rules", "missing; add a `rules:` list") }
        return def
    }

    /// `capabilities:`: the sub-actions the app declares.
    mutating func parseCapabilities(_ v: Node) -> Capabilities {
        var subs: [SubAction] = []
        for (i, item) in list(v, "capabilities").enumerated() {
            let name = item.string ?? ""
            if let s = SubAction(name: name), s != .none {
                if subs.contains(s) { issue(item, "capabilities[\(i)]", "\"\(name)\" is declared twice") }
                subs.append(s)
            } else {
                issue(item, "capabilities[\(i)]", _Suggest.unknown("sub-action", name, valid: SubAction.all.map(\.name)))
            }
        }
        return Capabilities(declaring: subs)
    }

    /// `blockList:`: the path of a block list file, read.
    mutating func parseBlockList(_ v: Node, into def: inout RuleSetDefinition) {
        if let path = v.string {
            do { def.blockList = try NumberListReader.readBlockList(path: resolve(path)) } catch let e as NumberListError {
                issue(v, "blockList", e.description)
            } catch { issue(v, "blockList", "\(error)") }
        } else { issue(v, "blockList", "expected the path of a block list file") }
    }

    /// `identificationList:`: the path of an identification list file, read.
    mutating func parseIdentificationList(_ v: Node, into def: inout RuleSetDefinition) {
        if let path = v.string {
            do {
                let l = try NumberListReader.readIdentificationList(path: resolve(path))
                def.identificationNumbers = l.numbers
                def.identificationLabels = l.labelIndices
                def.labels = l.labels
            } catch let e as NumberListError { issue(v, "identificationList", e.description) } catch {
                issue(v, "identificationList", "\(error)")
            }
        } else { issue(v, "identificationList", "expected the path of an identification list file") }
    }

    /// `rules:`: each rule parsed (names must be unique, and must not look like one another: the same
    /// ``RuleNameSkeleton``).
    mutating func parseRules(_ v: Node, into def: inout RuleSetDefinition) {
        guard let seq = v.sequence else { issue(v, "rules", "expected a list of rules"); return }
        var names: [String: Int] = [:]
        var skeletons: [String: (index: Int, name: String, line: Int)] = [:]
        for (i, r) in seq.enumerated() {
            if let name = r.mapping?["name"]?.string {
                let shown = EchoedText.escaped(name)
                if let first = names[name] {
                    issue(r, "rules[\(i)].name", "duplicate rule name \"\(shown)\" (first used by rules[\(first)]); names must be unique")
                } else if let twin = skeletons[RuleNameSkeleton.of(name)] {
                    issue(r, "rules[\(i)].name", "rule name \"\(shown)\" looks like \"\(EchoedText.escaped(twin.name))\" (rules[\(twin.index)], line \(twin.line)): "
                        + "names must differ in more than case, width or look-alike letters")
                } else {
                    names[name] = i
                    skeletons[RuleNameSkeleton.of(name)] = (i, name, r.mark?.line ?? 0)
                }
            }
            if let rule = parseRule(r, index: i) { def.rules.append(rule) }
        }
    }

    func resolve(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let baseFolder, !baseFolder.isEmpty else { return path }
        return baseFolder + "/" + path
    }

    mutating func list(_ node: Node, _ field: String) -> [Node] {
        if let seq = node.sequence { return Array(seq) }
        if node.scalar != nil { return [node] }
        issue(node, field, "expected a list")
        return []
    }

    mutating func phrases(_ node: Node, _ field: String) -> [String] {
        var out: [String] = []
        for (i, item) in list(node, field).enumerated() {
            guard let s = item.scalar?.string else { issue(item, "\(field)[\(i)]", "expected a phrase (a string)"); continue }
            if s.isEmpty { issue(item, "\(field)[\(i)]", "empty phrase; remove it"); continue }
            if s.utf8.count > 1024 { issue(item, "\(field)[\(i)]", "phrase longer than 1024 bytes"); continue }
            out.append(s)
        }
        return out
    }

    mutating func parseRule(_ node: Node, index i: Int) -> RuleDefinition? {
        let at = "rules[\(i)]"
        guard let map = node.mapping else { issue(node, at, "expected a rule (a mapping with name, action and conditions)"); return nil }
        var name: String?
        var action: Action?
        var rule = RuleDefinition(name: "", action: .none)
        rule.line = node.mark?.line ?? 0
        var ok = true
        for (k, v) in map {
            guard let key = k.string else { issue(k, at, "keys must be strings"); ok = false; continue }
            let f = "\(at).\(key)"
            if !parseRuleField(k, key, v, f, into: &rule, name: &name, action: &action) { ok = false }
        }
        if ok, rule._groupCount > 64 {
            issue(node, "\(at).all", "at most 64 groups, counting startsWith, urls, phones and amounts"); ok = false
        }
        if name == nil, !issues.contains(where: { $0.field == "\(at).name" }) {
            issue(node, "\(at).name", "missing; every rule needs a unique name"); ok = false
        }
        if action == nil, !issues.contains(where: { $0.field == "\(at).action" }) {
            issue(node, "\(at).action", "missing; valid: \(Action.allCases.map(\.name).joined(separator: ", "))"); ok = false
        }
        if ok, !rule.needsText, rule.sender == nil {
            issue(node, at, "rule \"\(name ?? "")\" has no condition; give it keywords, all, startsWith, urls, phones, amounts or sender (`none` alone is not one)"); ok = false
        }
        guard ok, let name, let action else { return nil }
        if rule.subActionLine == 0 { rule.subActionLine = rule.line }
        rule.name = name
        rule.action = action
        return rule
    }

    /// One field of a rule (`key: v`, the key's node `k`, at field path `f`) into `rule`, `name` or `action`;
    /// false (with an issue said) when it is not valid.
    mutating func parseRuleField(_ k: Node, _ key: String, _ v: Node, _ f: String, into rule: inout RuleDefinition,
                                 name: inout String?, action: inout Action?) -> Bool {
        var ok = true
        switch key {
        case "name":
            if let s = v.scalar?.string, RuleDefinition.isValidName(s) {
                name = s
            } else {
                issue(v, f, "expected a non-empty name without control or invisible characters (tab, newline, NUL, bidirectional overrides, zero-width spaces, …)")
                ok = false
            }
        case "action":
            let s = v.string ?? ""
            if let a = Action(name: s) { action = a } else {
                issue(v, f, _Suggest.unknown("action", s, valid: Action.allCases.map(\.name))); ok = false
            }
        case "subAction":
            let s = v.string ?? ""
            rule.subActionLine = v.mark?.line ?? 0
            if let sub = SubAction(name: s) { rule.subAction = sub } else {
                issue(v, f, _Suggest.unknown("sub-action", s, valid: SubAction.allCases.map(\.name))); ok = false
            }
        case "priority":
            if let p = v.int, (-1_000_000...1_000_000).contains(p) { rule.priority = p } else {
                issue(v, f, "expected an integer from -1000000 to 1000000, got \"\(v.string ?? "?")\""); ok = false
            }
        case "keywords": rule.keywords = phrases(v, f)
        case "unless": rule.unless = phrases(v, f)
        case "all":
            guard let seq = v.sequence else { issue(v, f, "expected a list of keyword groups (lists)"); return false }
            for (g, group) in seq.enumerated() {
                let p = phrases(group, "\(f)[\(g)]")
                if p.isEmpty { issue(group, "\(f)[\(g)]", "empty group: it could never be satisfied"); ok = false }
                rule.all.append(p)
            }
            if rule.all.count > 64 { issue(v, f, "at most 64 groups"); ok = false }
        case "caseFold":
            let s = v.string ?? ""
            if let m = CaseFoldMode.allCases.first(where: { $0.name == s }) { rule.caseFold = m } else {
                issue(v, f, _Suggest.unknown("case folding", s, valid: CaseFoldMode.allCases.map(\.name))); ok = false
            }
        case "wholeWord":
            if let b = v.bool {
                rule.wholeWord = b
                rule.shortPhrasesWholeWord = b
            } else { issue(v, f, "expected true or false"); ok = false }
        case "sender":
            if let c = parseSender(v, f) { rule.sender = c } else { ok = false }
        case "unlessSender":
            if let c = parseUnlessSender(v, f) { rule.unlessSender = c } else { ok = false }
        default:
            if parseBodyCondition(key, v, f, into: &rule, ok: &ok) { return ok }
            issue(k, f, _Suggest.unknown("rule field", key, valid: Self.ruleKeys)); ok = false
        }
        return ok
    }

    /// `unlessSender`: one sender condition, or a non-empty list of them (any one vetoes the rule).
    mutating func parseUnlessSender(_ node: Node, _ at: String) -> [SenderCondition]? {
        guard let seq = node.sequence else { return parseSender(node, at).map { [$0] } }
        if seq.isEmpty {
            issue(node, at, "expected a sender condition or a non-empty list of them")
            return nil
        }
        var out: [SenderCondition] = []
        var ok = true
        for (j, item) in seq.enumerated() {
            if let c = parseSender(item, "\(at)[\(j)]") { out.append(c) } else { ok = false }
        }
        return ok ? out : nil
    }

    mutating func parseSender(_ node: Node, _ at: String) -> SenderCondition? {
        guard let map = node.mapping else { issue(node, at, "expected a mapping of sender conditions (\(Self.senderKeys.joined(separator: ", ")))"); return nil }
        var c = SenderCondition()
        var ok = true
        for (k, v) in map {
            let key = k.string ?? ""
            let f = "\(at).\(key)"
            switch key {
            case "exact": c.exact = phrases(v, f)
            case "prefix": c.prefix = phrases(v, f)
            case "kind":
                for (i, item) in list(v, f).enumerated() {
                    let s = item.string ?? ""
                    if let kind = SenderKind(rawValue: s) { c.kinds.append(kind) } else {
                        issue(item, "\(f)[\(i)]", _Suggest.unknown("sender kind", s, valid: SenderKind.allCases.map(\.rawValue))); ok = false
                    }
                }
            case "suffix":
                for (i, item) in list(v, f).enumerated() {
                    let s = (item.string ?? "").uppercased().replacingOccurrences(of: "-", with: "")
                    if s.utf8.count == 1, let suffix = TRAISuffix(rawValue: s.utf8.first!) { c.suffixes.append(suffix) } else {
                        issue(item, "\(f)[\(i)]", _Suggest.unknown("TRAI suffix", item.string ?? "", valid: ["P", "S", "T", "G"])); ok = false
                    }
                }
            case "entity":
                for (i, e) in phrases(v, f).enumerated() {
                    if e.utf8.allSatisfy({ SenderInfo.isASCIIAlnum($0) || $0 == 0x2A || $0 == 0x3F }) { c.entities.append(e.uppercased()) } else {
                        issue(node, "\(f)[\(i)]", "a TRAI entity is letters and digits, with * for any run of them and ? for one (e.g. HDFCBK, HDFC*, *CTAXKR), got \"\(e)\""); ok = false
                    }
                }
            case "countryCode":
                for (i, item) in list(v, f).enumerated() {
                    if let n = item.int, (1...999).contains(n) { c.countryCodes.append(Int32(n)) } else {
                        issue(item, "\(f)[\(i)]", "expected a country calling code from 1 to 999 (e.g. 91)"); ok = false
                    }
                }
            default:
                issue(k, f, _Suggest.unknown("sender condition", key, valid: Self.senderKeys)); ok = false
            }
        }
        if ok, c.isEmpty { issue(node, at, "empty sender condition"); ok = false }
        return ok ? c : nil
    }

    static func line(of error: YamlError) -> Int {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): return mark.line
        default: return 0
        }
    }

    static func problem(of error: YamlError) -> String {
        switch error {
        case .scanner(_, let p, _, _), .parser(_, let p, _, _), .composer(_, let p, _, _): return p
        default: return "\(error)"
        }
    }
}

extension _RuleFileParser {
    /// The number-list files a rule file's text names (`blockList:`, `identificationList:`), resolved as
    /// ``parse(yaml:)`` resolves them; empty when the text is not a rule file's mapping.
    func listFiles(yaml: String) -> [(key: String, path: String)] {
        guard let root = try? Yams.compose(yaml: yaml), _YAMLBudget.expandedSize(of: root) != nil,
              let top = root.mapping
        else { return [] }
        var files: [(key: String, path: String)] = []
        for (k, v) in top {
            if let key = k.string, key == "blockList" || key == "identificationList", let path = v.string {
                files.append((key, resolve(path)))
            }
        }
        return files
    }

    /// A phrase that the file's normalisation turns into nothing (only zero-width, bidi or other invisible
    /// characters, which `standard` removes from every message) can never match: an error, not a rule that
    /// silently never fires (or an `unless` that never vetoes).
    mutating func checkPhrases(_ def: RuleSetDefinition) {
        guard def.normalization != .none else { return }
        for (i, rule) in def.rules.enumerated() {
            var lists: [(String, [String])] = [("keywords", rule.keywords), ("unless", rule.unless), ("startsWith", rule.startsWith)]
            for (g, group) in rule.all.enumerated() { lists.append(("all[\(g)]", group)) }
            for (field, phrases) in lists {
                for (k, phrase) in phrases.enumerated() where def.normalization.apply(phrase).isEmpty {
                    let shown = phrase.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
                    issues.append(.init(
                        file: file, line: rule.line, field: "rules[\(i)].\(field)[\(k)]",
                        message: "the phrase (\(shown)) is empty under normalize: \(def.normalization.name), which removes invisible characters from every message, so it can never match"))
                }
            }
        }
    }
}
