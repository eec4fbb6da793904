import Foundation

/// The result of checking a rule file in three phases (SPEC §3), after SiriKit's resolve → confirm → handle:
/// **resolve** (parse, fill defaults, name every bad field with file:line), **confirm** (compile, capability
/// and pair checks, rules that can never fire, keywords claimed by several folders at one priority), and a
/// final ``Outcome`` `ready` or `failure`.
public struct RuleCheckReport: Sendable {
    /// Where a finding comes from.
    public enum Phase: String, Sendable, Hashable { case resolve, confirm }
    /// Errors make the verdict `failure`; warnings do not.
    public enum Severity: String, Sendable, Hashable { case error, warning }
    /// The final verdict on the file (named apart from the classifier's ``Verdict`` on a message).
    public enum Outcome: String, Sendable, Hashable { case ready, failure }
    /// What the rules are checked for (`check --target`).
    public enum Purpose: String, Sendable, Hashable, CaseIterable {
        /// Offline labelling (any number of capabilities).
        case offline
        /// A shippable iOS message filter (at most five sub-actions declared).
        case ios
    }

    /// One problem.
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        public var phase: Phase
        public var severity: Severity
        public var file: String
        /// 1-based line, 0 when unknown.
        public var line: Int
        /// The field path (`rules[3].subAction`), empty for the whole file.
        public var field: String
        public var message: String

        public var description: String { _describeIssue(file: file, line: line, field: field, message: message) }
    }

    /// The file checked.
    public var file: String
    /// The target checked for.
    public var target: Purpose
    /// Every finding, resolve first.
    public var findings: [Finding]
    /// The compiled rule set (nil when resolve or compile failed).
    public var ruleSet: RuleSet?

    /// `failure` when any finding is an error.
    public var verdict: Outcome { findings.contains { $0.severity == .error } ? .failure : .ready }
}

/// Checks rule files for `smsfilter check`.
public enum RuleChecker {
    /// Checks the rule file at `path` (YAML or `.smsf`; `embedded:rules`: the built-in rule file).
    /// - Throws: ``RuleSetLoadError`` with kind `fileMissing` or `unreadable` when there is nothing to check.
    public static func check(path: String, target: RuleCheckReport.Purpose) throws -> RuleCheckReport {
        // `embedded:rules` (``RuleSet/embeddedRulesOnlyPath``): the built-in rule file's text, checked as a file.
        if path == RuleSet.embeddedRulesOnlyPath { return check(yaml: DefaultRules.yaml, file: path, target: target) }
        guard FileManager.default.fileExists(atPath: path) else {
            throw RuleSetLoadError(.fileMissing, path: path, detail: "no such file")
        }
        let head: Data
        do {
            // The magic number only: a .smsf is mapped by RuleSet.load, whatever its size.
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            head = try handle.read(upToCount: 8) ?? Data()
        } catch {
            throw RuleSetLoadError(.unreadable, path: path, detail: "cannot read the file: \((error as NSError).localizedDescription)")
        }
        if head.count >= 8, Array(head.prefix(8)) == _SMSFFormat.magic {
            do {
                return confirm(try RuleSet.load(path: path), file: path, target: target, findings: [])
            } catch {
                return RuleCheckReport(file: path, target: target, findings: [
                    .init(phase: .resolve, severity: .error, file: path, line: 0, field: "", message: "\(error)"),
                ], ruleSet: nil)
            }
        }
        let data: Data
        do {
            data = try BoundedFile.read(path, limit: RuleSet.maxRuleFileBytes)
        } catch {
            throw RuleSetLoadError(.unreadable, path: path, detail: error.detail)
        }
        guard let yaml = String(data: data, encoding: .utf8) else {
            return RuleCheckReport(file: path, target: target, findings: [
                .init(phase: .resolve, severity: .error, file: path, line: 0, field: "",
                      message: "not UTF-8 text (and not a compiled .smsf)"),
            ], ruleSet: nil)
        }
        return check(yaml: yaml, file: path, target: target)
    }

    /// Checks YAML rule text.
    public static func check(yaml: String, file: String, target: RuleCheckReport.Purpose) -> RuleCheckReport {
        let (definition, issues) = RuleSet.resolve(yaml: yaml, file: file)
        let findings = issues.map {
            RuleCheckReport.Finding(phase: .resolve, severity: .error, file: $0.file, line: $0.line, field: $0.field, message: $0.message)
        }
        if !findings.isEmpty { return RuleCheckReport(file: file, target: target, findings: findings, ruleSet: nil) }
        do {
            return confirm(try RuleSet(definition: definition, source: file), file: file, target: target, findings: [])
        } catch {
            return RuleCheckReport(file: file, target: target, findings: [
                .init(phase: .confirm, severity: .error, file: file, line: 0, field: "", message: "\(error)"),
            ], ruleSet: nil)
        }
    }

    static func confirm(_ set: RuleSet, file: String, target: RuleCheckReport.Purpose,
                        findings initial: [RuleCheckReport.Finding]) -> RuleCheckReport {
        var findings = initial
        let def = set.definition
        func add(_ severity: RuleCheckReport.Severity, _ line: Int, _ field: String, _ message: String) {
            findings.append(.init(phase: .confirm, severity: severity, file: file, line: line, field: field, message: message))
        }
        // Capabilities.
        let caps = def.capabilities
        // A rule set none of whose rules (nor its model's targets) gives a sub-action needs no capabilities:
        // its extension declares none (a learned model by action, say).
        if target == .ios, !caps.isShippableOnIOS, caps.isDeclared || def.usesSubActions {
            if caps.isDeclared {
                add(.error, 0, "capabilities", "declares \(caps.subActions.count) sub-actions (\(caps.subActions.map(\.name).joined(separator: ", "))); an iOS message filter may declare at most \(Capabilities.iosLimit) in total")
            } else {
                add(.error, 0, "capabilities", "none declared, so all twelve sub-actions are supported; an iOS message filter may declare at most \(Capabilities.iosLimit): add `capabilities: [...]`")
            }
        }
        func fold(_ s: String) -> String { s.lowercased() }
        var claims: [String: [(rule: Int, folder: Folder)]] = [:]
        for (i, rule) in def.rules.enumerated() {
            let at = "rules[\(i)]"
            let v = caps.validate(action: rule.action, subAction: rule.subAction)
            if v.dropped == .invalidPair {
                add(.warning, rule.subActionLine, "\(at).subAction", "\"\(rule.name)\": \(rule.action.name) + \(rule.subAction.name) is an invalid pair; iOS drops the sub-action and keeps the action (folder \(v.folder.path))")
            } else if v.dropped == .notDeclared {
                add(.warning, rule.subActionLine, "\(at).subAction", "\"\(rule.name)\": \(rule.subAction.name) is not declared in capabilities; it is dropped (folder \(v.folder.path))")
            }
            // Rules that can never fire.
            let unless = rule.unless.map(fold)
            func vetoed(_ phrase: String) -> Bool { unless.contains { fold(phrase).contains($0) } }
            if !rule.keywords.isEmpty, rule.keywords.allSatisfy(vetoed) {
                add(.warning, rule.line, at, "\"\(rule.name)\" can never fire: every keyword contains one of its unless phrases")
            }
            for (g, group) in rule.all.enumerated() where group.allSatisfy(vetoed) {
                add(.warning, rule.line, "\(at).all[\(g)]", "\"\(rule.name)\" can never fire: every phrase of the group contains one of its unless phrases")
            }
            for finding in _BodyConditionCheck.findings(rule, vetoed: vetoed) {
                add(.warning, rule.line, "\(at).\(finding.field)", "\"\(rule.name)\" \(finding.message)")
            }
            for (severity, field, message) in _senderFindings(rule) + _shadowFindings(rule, index: i, in: def) {
                add(severity, rule.line, field.isEmpty ? at : "\(at).\(field)", message)
            }
            for k in rule.keywords { claims["\(rule.priority)\u{0}\(rule.caseFold.rawValue)\u{0}\(fold(k))", default: []].append((i, v.folder)) }
        }
        // A keyword claimed by rules of different folders at the same priority.
        for key in claims.keys.sorted() {
            let c = claims[key]!
            guard Set(c.map(\.folder)).count > 1 else { continue }
            let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
            let first = def.rules[c[0].rule]
            let names = c.map { "\"\(def.rules[$0.rule].name)\" (\($0.folder.path))" }.joined(separator: ", ")
            add(.warning, first.line, "rules[\(c[0].rule)].keywords", "keyword \"\(parts[2])\" is claimed at priority \(parts[0]) by rules of different folders: \(names); file order decides")
        }
        return RuleCheckReport(file: file, target: target, findings: findings, ruleSet: set)
    }

    /// A rule's sender condition that can never hold: (severity, field below the rule, message).
    static func _senderFindings(_ rule: RuleDefinition) -> [(RuleCheckReport.Severity, String, String)] {
        var out: [(RuleCheckReport.Severity, String, String)] = []
        if let s = rule.sender {
            let kinds = Set(s.kinds)
            if !kinds.isEmpty, !kinds.contains(.alphanumeric), !(s.suffixes.isEmpty && s.entities.isEmpty) {
                out.append((.warning, "sender", "\"\(rule.name)\" can never fire: TRAI suffix/entity conditions need an alphanumeric sender, but kind excludes it"))
            }
            if !kinds.isEmpty, !kinds.contains(.phoneNumber), !s.countryCodes.isEmpty {
                out.append((.warning, "sender", "\"\(rule.name)\" can never fire: countryCode needs a phone number, but kind excludes it"))
            }
            if !s.countryCodes.isEmpty, !(s.suffixes.isEmpty && s.entities.isEmpty) {
                out.append((.warning, "sender", "\"\(rule.name)\" can never fire: a sender cannot be both a phone number (countryCode) and a TRAI header (suffix/entity)"))
            }
        }
        return out
    }

    /// A rule shadowed by a plain keyword rule of higher priority (rule `i` of `def`).
    static func _shadowFindings(_ rule: RuleDefinition, index i: Int, in def: RuleSetDefinition)
        -> [(RuleCheckReport.Severity, String, String)] {
        func fold(_ s: String) -> String { s.lowercased() }
        var out: [(RuleCheckReport.Severity, String, String)] = []
        if rule.needsText {
            for (j, q) in def.rules.enumerated() where j != i && q.priority > rule.priority
                && q.unless.isEmpty && q.all.isEmpty && q.sender == nil && q.unlessSender.isEmpty && !q.keywords.isEmpty && q.caseFold == rule.caseFold
                && q._extraGroups.isEmpty && q._vetoFeatures.isEmpty {
                // p is covered when a keyword of q matches wherever p does (`_BodyConditionCheck.covers`).
                func covered(_ p: String) -> Bool {
                    q.keywords.contains { _BodyConditionCheck.covers(fold(p), rule._wordBoundary(p), fold($0), q._wordBoundary($0)) }
                }
                let shadowed = (!rule.keywords.isEmpty && rule.keywords.allSatisfy(covered))
                    || rule.all.contains { $0.allSatisfy(covered) }
                if shadowed {
                    out.append((.warning, "", "\"\(rule.name)\" can never win: whenever it fires, \"\(q.name)\" (priority \(q.priority) > \(rule.priority)) fires too"))
                    break
                }
            }
        }
        return out
    }
}

extension RuleSetDefinition {
    /// Whether any rule, or the model's targets, give a sub-action (so the capabilities matter).
    public var usesSubActions: Bool {
        rules.contains { $0.subAction != .none } || (model?.targets.contains { $0.subAction != .none } ?? false)
    }

    /// The sub-actions an iOS extension of this rule set declares: the declared ones, all twelve when none
    /// are declared but some rule gives a sub-action (then `check --target ios` fails), none when no rule
    /// gives one.
    public var iosCapabilities: [SubAction] {
        capabilities.isDeclared || usesSubActions ? capabilities.subActions : []
    }
}
