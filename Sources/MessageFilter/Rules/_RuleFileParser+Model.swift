import Yams

/// `normalize:` and `model:` of a rule file.
extension _RuleFileParser {
    static let modelKeys = ["name", "priority", "threshold", "targets", "bias", "margins", "minScriptMessages", "links", "scripts",
                            "generatedScripts", "overrules", "phrases", "provenance"]

    mutating func parseNormalization(_ v: Node) -> TextNormalization {
        let s = v.string ?? ""
        if let m = TextNormalization(name: s) { return m }
        issue(v, "normalize", _Suggest.unknown("normalization", s, valid: TextNormalization.allCases.map(\.name)))
        return .standard
    }

    /// The `model:` fields read after the others (they need the target count), and which were given.
    struct ModelNodes {
        var sawTargets = false, sawBias = false, sawPhrases = false
        var phraseNodes: [Node] = []
        var biasNode: Node?
        var marginsNode: Node?
        var scriptsNode: Node?
        var overrulesNode: Node?
    }

    /// Parses the `model:` mapping; nil (with issues) when it is not valid.
    mutating func parseModel(_ node: Node) -> ModelDefinition? {
        guard let map = node.mapping else {
            issue(node, "model", "expected a mapping with targets, bias and phrases (written by `smsfilter learn`)")
            return nil
        }
        var m = ModelDefinition()
        m.line = node.mark?.line ?? 0
        var nodes = ModelNodes()
        var ok = parseModelFields(map, into: &m, &nodes)
        for (missing, key) in [(!nodes.sawTargets, "targets"), (!nodes.sawBias, "bias"), (!nodes.sawPhrases, "phrases")] where missing {
            issue(node, "model.\(key)", "missing"); ok = false
        }
        if nodes.sawTargets, m.targets.count < 2 { issue(node, "model.targets", "a model needs at least two targets"); ok = false }
        guard ok, parseModelTables(nodes, into: &m) else { return nil }
        return parseModelPhrases(nodes.phraseNodes, into: &m) ? m : nil
    }

    /// The fields of `model:` that stand alone (name, priority, threshold, targets, …); the others are kept in
    /// `nodes` for later. False when one is not valid.
    mutating func parseModelFields(_ map: Node.Mapping, into m: inout ModelDefinition, _ nodes: inout ModelNodes) -> Bool {
        var ok = true
        for (k, v) in map {
            let key = k.string ?? ""
            let f = "model.\(key)"
            switch key {
            case "name":
                if let s = v.scalar?.string, RuleDefinition.isValidName(s) { m.name = s } else {
                    issue(v, f, "expected a non-empty name without control characters (tab, newline, NUL, …)"); ok = false
                }
            case "priority":
                if let p = v.int, (-1_000_000...1_000_000).contains(p) { m.priority = p } else {  // not abs(): abs(Int.min) traps
                    issue(v, f, "expected an integer from -1000000 to 1000000, got \"\(v.string ?? "?")\""); ok = false
                }
            case "threshold":
                if v.null != nil { m.threshold = nil } else if let x = Self.float(v) { m.threshold = x } else {
                    issue(v, f, "expected a number (or null: the model always decides)"); ok = false
                }
            case "targets":
                nodes.sawTargets = true
                for (i, item) in list(v, f).enumerated() {
                    let s = item.string ?? ""
                    guard let t = ModelDefinition.Target(name: s) else {
                        issue(item, "\(f)[\(i)]", "unknown target \"\(s)\"; give an action (none, allow, junk, promotion, transaction) or a folder path such as Transactions/Finance")
                        ok = false
                        continue
                    }
                    if m.targets.contains(t) { issue(item, "\(f)[\(i)]", "target \"\(s)\" is given twice"); ok = false }
                    m.targets.append(t)
                }
            case "bias":
                nodes.sawBias = true
                nodes.biasNode = v
            case "phrases":
                nodes.sawPhrases = true
                guard let seq = v.sequence else { issue(v, f, "expected a list of [kind, phrase, idf, weight…] entries"); ok = false; continue }
                nodes.phraseNodes = Array(seq)
            case "margins":
                nodes.marginsNode = v
            case "minScriptMessages":
                if let n = v.int, n >= 0, n <= 1_000_000_000 { m.minScriptMessages = n } else {
                    issue(v, f, "expected a count from 0 to 1000000000"); ok = false
                }
            case "links":
                switch v.scalar?.string {
                case "company": m.linksNeedCompany = true
                case "evidence": m.linksNeedCompany = false
                default:
                    issue(v, f, "expected company (a link is evidence only with other evidence) or evidence (a link weighs like any phrase), got \"\(EchoedText.escaped(v.string ?? "?"))\"")
                    ok = false
                }
            case "scripts":
                nodes.scriptsNode = v
            case "overrules":
                nodes.overrulesNode = v
            case "generatedScripts":
                guard let counts = parseScriptCounts(v, f) else { ok = false; continue }
                m.generatedScripts = counts
            case "provenance":
                m.provenance = (try? Yams.serialize(node: v)) ?? ""
            default:
                issue(k, f, _Suggest.unknown("model field", key, valid: Self.modelKeys)); ok = false
            }
        }
        return ok
    }

    /// `bias`, `margins`, `scripts` and `overrules`, each one entry per target; false (with an issue) at the
    /// first that is not valid.
    mutating func parseModelTables(_ nodes: ModelNodes, into m: inout ModelDefinition) -> Bool {
        let t = m.targets.count
        if let biasNode = nodes.biasNode {
            let values = list(biasNode, "model.bias").map { Self.float($0) }
            if values.count != t || values.contains(where: { $0 == nil }) {
                issue(biasNode, "model.bias", "expected \(t) numbers, one per target"); return false
            }
            m.bias = values.map { $0! }
        }
        if let marginsNode = nodes.marginsNode {
            let values = list(marginsNode, "model.margins").map { n -> Float? in
                if n.string == "never" { return .infinity }
                return Self.float(n).flatMap { $0 >= 0 ? $0 : nil }
            }
            if values.count != t || values.contains(where: { $0 == nil }) {
                issue(marginsNode, "model.margins", "expected \(t) margins, one per target: numbers ≥ 0 or never"); return false
            }
            m.margins = values.allSatisfy { $0 == 0 } ? [] : values.map { $0! }
        }
        if let scriptsNode = nodes.scriptsNode {
            guard let map = scriptsNode.mapping else { issue(scriptsNode, "model.scripts", "expected a mapping of script → [messages per target]"); return false }
            var counts: [Script: [Int]] = [:]
            for (k, v) in map {
                let name = k.string ?? ""
                guard let script = Script(name: name) else {
                    issue(k, "model.scripts.\(name)", _Suggest.unknown("script", name, valid: Script.allCases.map(\.name))); return false
                }
                let row = list(v, "model.scripts.\(name)").map { n -> Int? in n.int.flatMap { $0 >= 0 && $0 <= 1_000_000_000_000 ? $0 : nil } }
                guard row.count == t, !row.contains(where: { $0 == nil }) else {
                    issue(v, "model.scripts.\(name)", "expected \(t) counts ≥ 0, one per target"); return false
                }
                if row.contains(where: { $0! > 0 }) { counts[script] = row.map { $0! } }
            }
            m.scripts = counts
        }
        if let overrulesNode = nodes.overrulesNode {
            guard let o = parseOverrules(overrulesNode, targets: m.targets) else { return false }
            m.overrules = o
        }
        return true
    }

    /// `phrases`: `[kind, phrase, idf, weight per target]` entries, each phrase once per kind; false when one is
    /// not valid (every entry is checked).
    mutating func parseModelPhrases(_ phraseNodes: [Node], into m: inout ModelDefinition) -> Bool {
        let t = m.targets.count
        var ok = true
        var seen = Set<String>()
        m.phrases.reserveCapacity(phraseNodes.count)
        for (i, p) in phraseNodes.enumerated() {
            let f = "model.phrases[\(i)]"
            guard let items = p.sequence, items.count == 3 + t else {
                issue(p, f, "expected [kind, phrase, idf, \(t) weight\(t == 1 ? "" : "s")]"); ok = false; continue
            }
            let kindName = items[0].string ?? ""
            guard let kind = ModelDefinition.MatchKind.allCases.first(where: { $0.name == kindName }) else {
                issue(items[0], f, _Suggest.unknown("phrase kind", kindName, valid: ModelDefinition.MatchKind.allCases.map(\.name))); ok = false; continue
            }
            guard let text = items[1].scalar?.string, !text.isEmpty, text.utf8.count <= 1024 else {
                issue(items[1], f, "expected a non-empty phrase of at most 1024 bytes"); ok = false; continue
            }
            guard let idf = Self.float(items[2]), idf > 0 else { issue(items[2], f, "expected a positive idf"); ok = false; continue }
            var weights: [Float] = []
            weights.reserveCapacity(t)
            for k in 0..<t {
                guard let w = Self.float(items[3 + k]) else { issue(items[3 + k], f, "expected a number"); ok = false; break }
                weights.append(w)
            }
            guard weights.count == t else { continue }
            guard seen.insert("\(kind.rawValue)\u{0}\(text)").inserted else {
                issue(p, f, "phrase \"\(text)\" (\(kind.name)) is given twice"); ok = false; continue
            }
            m.phrases.append(.init(text: text, kind: kind, idf: idf, weights: weights))
        }
        return ok
    }

    /// `overrules:`: per main script, per rule action (none, junk, promotion, transaction), a mapping of target →
    /// margin (a number ≥ 0 or never) for the targets of another action; a target or a script left out never
    /// overrules that rule.
    mutating func parseOverrules(_ node: Node, targets: [ModelDefinition.Target]) -> [Script: [Action: [Float]]]? {
        guard let map = node.mapping else {
            issue(node, "model.overrules", "expected a mapping of script → rule action → {target: margin}, e.g. {latin: {junk: {none: 0.9}}}"); return nil
        }
        var out: [Script: [Action: [Float]]] = [:]
        for (k, v) in map {
            let name = k.string ?? ""
            guard let script = Script(name: name) else {
                issue(k, "model.overrules.\(name)", _Suggest.unknown("script", name, valid: Script.allCases.map(\.name))); return nil
            }
            guard out[script] == nil else { issue(k, "model.overrules.\(name)", "given twice"); return nil }
            guard let rows = parseOverruleRows(v, field: "model.overrules.\(name)", targets: targets) else { return nil }
            out[script] = rows
        }
        return ModelDefinition.canonicalOverrules(out, targets: targets)
    }

    /// One script's rows of `overrules:`.
    mutating func parseOverruleRows(_ node: Node, field: String, targets: [ModelDefinition.Target]) -> [Action: [Float]]? {
        guard let map = node.mapping else {
            issue(node, field, "expected a mapping of rule action → {target: margin}, e.g. {junk: {none: 0.9}}"); return nil
        }
        var out: [Action: [Float]] = [:]
        for (k, v) in map {
            let name = k.string ?? ""
            guard let row = Action(name: name), row != .allow else {
                issue(k, "\(field).\(name)", _Suggest.unknown("rule action", name, valid: ModelDefinition.overruleRows.map(\.name)) + " (none stands for none and allow rules)")
                return nil
            }
            guard out[row] == nil else { issue(k, "\(field).\(name)", "given twice"); return nil }
            guard let entries = v.mapping else {
                issue(v, "\(field).\(name)", "expected a mapping of target → margin (a number ≥ 0, or never)"); return nil
            }
            var margins = [Float](repeating: .infinity, count: targets.count)
            var given = Set<Int>()
            for (tk, tv) in entries {
                let targetName = tk.string ?? ""
                guard let target = ModelDefinition.Target(name: targetName), let t = targets.firstIndex(of: target) else {
                    issue(tk, "\(field).\(name)", _Suggest.unknown("target", targetName, valid: targets.map(\.name))); return nil
                }
                guard ModelDefinition.overruleRow(target.action) != row else {
                    issue(tk, "\(field).\(name).\(targetName)", "a target with the rule's own action does not overrule it; leave it out"); return nil
                }
                guard given.insert(t).inserted else { issue(tk, "\(field).\(name).\(targetName)", "given twice"); return nil }
                if tv.string == "never" { continue }
                guard let x = Self.float(tv), x >= 0 else {
                    issue(tv, "\(field).\(name).\(targetName)", "expected a margin: a number ≥ 0, or never"); return nil
                }
                margins[t] = x
            }
            out[row] = margins
        }
        return out
    }

    /// `{latin: 5574, thai: 3340}`: messages per script.
    mutating func parseScriptCounts(_ node: Node, _ field: String) -> [Script: Int]? {
        guard let map = node.mapping else { issue(node, field, "expected a mapping of script → messages, e.g. {latin: 5574}"); return nil }
        var counts: [Script: Int] = [:]
        for (k, v) in map {
            let name = k.string ?? ""
            guard let script = Script(name: name) else {
                issue(k, "\(field).\(name)", _Suggest.unknown("script", name, valid: Script.allCases.map(\.name))); return nil
            }
            guard let n = v.int, n >= 0, n <= 1_000_000_000_000 else { issue(v, "\(field).\(name)", "expected a count ≥ 0"); return nil }
            if n > 0 { counts[script] = n }
        }
        return counts
    }

    /// A finite number.
    static func float(_ node: Node) -> Float? {
        guard let s = node.scalar?.string, let x = Float(s), x.isFinite else { return nil }
        return x
    }

    /// Checks the model against the rules (its name must not be a rule's) and each phrase's shape under the
    /// file's normalisation (``ModelDefinition/shapeProblem(_:kind:normalization:)``).
    mutating func checkModel(_ def: RuleSetDefinition) {
        guard let m = def.model else { return }
        if def.rules.contains(where: { $0.name == m.name }) {
            issues.append(.init(file: file, line: m.line, field: "model.name",
                                message: "\"\(m.name)\" is also a rule's name; the model's name must differ from every rule's"))
        }
        var reported = 0
        for (i, p) in m.phrases.enumerated() {
            guard let problem = ModelDefinition.shapeProblem(p.text, kind: p.kind, normalization: def.normalization) else { continue }
            reported += 1
            if reported > 20 { continue }
            issues.append(.init(file: file, line: m.line, field: "model.phrases[\(i)]", message: "\"\(p.text)\" (\(p.kind.name)): \(problem)"))
        }
        if reported > 20 {
            issues.append(.init(file: file, line: m.line, field: "model.phrases", message: "\(reported - 20) more phrases of the wrong shape"))
        }
    }
}
