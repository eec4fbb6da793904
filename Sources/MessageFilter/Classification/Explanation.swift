/// Why a message got its verdict: every phrase matched, every rule considered and why it won or lost,
/// and each validation step. Produced by ``Classifier/explain(sender:body:)`` (allocates; not for bulk use).
public struct Explanation: Sendable {
    /// One phrase found in the body.
    public struct PhraseMatch: Sendable, Hashable {
        /// The phrase as written in the rule file.
        public var phrase: String
        /// The phrase's index (``RuleSet/phrase(at:)``).
        public var phraseIndex: Int
        /// Byte span in the body.
        public var start: Int
        /// End of the byte span (exclusive).
        public var end: Int
        /// The body's text at the span.
        public var text: String
        /// The rules that use the phrase, with how (`keyword`, `unless`, `all[0]`, `startsWith`, `urls`, …).
        public var uses: [String]
        /// Whether this is a body condition (a URL, phone number or amount the scanners found; ``phrase`` is
        /// then the condition, `urls: shortener`) rather than a literal phrase.
        public var isCondition: Bool = false
    }

    /// Why a rule that was considered won or lost.
    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        /// It decided the verdict.
        case won
        /// Another rule that fired has a higher priority.
        case lostToPriority(winner: String)
        /// Another rule of the same priority matched earlier in the body.
        case lostToEarlierMatch(winner: String)
        /// Another rule of the same priority matched at the same place and comes first in the file.
        case lostToFileOrder(winner: String)
        /// An `unless` phrase was present.
        case vetoed(phrase: String)
        /// One of its `all` groups had no phrase present.
        case allGroupMissing(group: Int)
        /// None of its `keywords` was present (only `all` or `unless` phrases were).
        case noKeyword
        /// Its sender condition failed.
        case senderConditionFailed(String)
        /// A number list decided before rules were looked at.
        case preemptedByList(NumberListKind)
        /// Its priority is below the learned model's, and the model decided.
        case lostToModel(name: String)
        /// A body condition (`startsWith`, `urls`, `phones`, `amounts`) does not hold.
        case conditionNotMet(String)

        public var description: String {
            switch self {
            case .won: "won"
            case .lostToPriority(let w): "lost: \"\(w)\" has a higher priority"
            case .lostToEarlierMatch(let w): "lost: \"\(w)\" has the same priority and matched earlier"
            case .lostToFileOrder(let w): "lost: \"\(w)\" has the same priority and match position and comes first in the file"
            case .vetoed(let p): "vetoed by unless \"\(p)\""
            case .allGroupMissing(let g): "all group \(g) missing"
            case .noKeyword: "no keyword present"
            case .senderConditionFailed(let why): "sender condition failed: \(why)"
            case .preemptedByList(let l): "not reached: the \(l.rawValue) decided"
            case .lostToModel(let m): "lost: below the priority of model \"\(m)\", which decided"
            case .conditionNotMet(let why): "condition not met: \(why)"
            }
        }

        /// A short machine-readable name (`won`, `lostToPriority`, …).
        public var code: String {
            switch self {
            case .won: "won"
            case .lostToPriority: "lostToPriority"
            case .lostToEarlierMatch: "lostToEarlierMatch"
            case .lostToFileOrder: "lostToFileOrder"
            case .vetoed: "vetoed"
            case .allGroupMissing: "allGroupMissing"
            case .noKeyword: "noKeyword"
            case .senderConditionFailed: "senderConditionFailed"
            case .preemptedByList: "preemptedByList"
            case .lostToModel: "lostToModel"
            case .conditionNotMet: "conditionNotMet"
            }
        }
    }

    /// One rule that had a phrase present or only sender conditions.
    public struct RuleConsideration: Sendable, Hashable {
        /// The rule's name.
        public var name: String
        /// The rule's index.
        public var index: Int
        /// Its priority.
        public var priority: Int
        /// Its action and requested sub-action.
        public var action: Action
        public var subAction: SubAction
        /// Its earliest matched phrase and span, if any.
        public var phrase: String?
        public var start: Int?
        public var end: Int?
        /// Why it won or lost.
        public var outcome: Outcome
    }

    /// The verdict (identical to ``Classifier/classify(sender:body:)``'s).
    public var verdict: Verdict
    /// The deciding rule's name.
    public var ruleName: String?
    /// The deciding phrase.
    public var phrase: String?
    /// The identification label, when the identification list decided.
    public var label: String?
    /// The sender's classification (nil when there is no sender).
    public var sender: SenderInfo?
    /// Every phrase match, in body order.
    public var matches: [PhraseMatch]
    /// Every rule considered, in file order.
    public var rules: [RuleConsideration]
    /// The decision and validation steps, in order, as sentences.
    public var steps: [String]
    /// The learned model's scores and strongest phrases (nil when the rule set has no model).
    public var model: ModelScores? = nil
}

extension Classifier {
    /// Explains the verdict for one message: classifies it once with a full ``DecisionTrace`` and reads
    /// the trace (allocates; for people and tests, not bulk labelling).
    public func explain(sender: String?, body: String) -> Explanation {
        let trace = DecisionTrace(detail: .full)
        let bodyBytes = Array(body.utf8)
        let verdict = bodyBytes.withUnsafeBytes { b in
            if let sender {
                return Array(sender.utf8).withUnsafeBytes { classify(sender: $0, body: b, trace: trace) }
            }
            return classify(sender: nil, body: b, trace: trace)
        }
        return _explanation(trace, message: 0, verdict: verdict, sender: sender, body: bodyBytes)
    }

    /// The explanation of message `message` of a full trace.
    func _explanation(_ trace: DecisionTrace, message: Int, verdict: Verdict, sender: String?, body: [UInt8]) -> Explanation {
        let set = ruleSet
        let entry = trace.messages[message]
        let raw = trace.matches[entry.matchStart..<(entry.matchStart + entry.matchCount)]
            .sorted { ($0.start, $0.end, $0.phrase) < ($1.start, $1.end, $1.phrase) }
        let modelScores = entry.model.map { _explainModel($0, body: body, verdict: verdict, list: entry.list) }
        let matches = _explainedMatches(raw, body: body, anchor: Int(entry.anchor))
        let considered = trace.rules[entry.ruleStart..<(entry.ruleStart + entry.ruleCount)].sorted { $0.index < $1.index }.map {
            _consideration($0, verdict: verdict, list: entry.list, info: entry.sender, body: body)
        }
        var steps = [_senderStep(sender, entry.sender)]
        steps += _decisionSteps(verdict, modelScores)
        steps += _validationSteps(verdict)
        return Explanation(
            verdict: verdict, ruleName: verdict.rule >= 0 ? set.ruleNames[Int(verdict.rule)] : nil,
            phrase: verdict.phrase >= 0 ? set.phrase(at: Int(verdict.phrase)) : nil,
            label: verdict.label >= 0 ? set.label(at: Int(verdict.label)) : nil,
            sender: entry.sender, matches: matches, rules: considered, steps: steps, model: modelScores)
    }

    /// Every match in body order, with the rules that use it and how (phrases only the model uses are
    /// listed with its scores instead).
    func _explainedMatches(_ raw: [_RawMatch], body: [UInt8], anchor: Int) -> [Explanation.PhraseMatch] {
        let set = ruleSet
        func roleName(_ use: UInt32, phrase p: Int, at start: Int) -> String {
            let role = use & 0x7F
            let rule = set.definition.rules[Int(use >> 8)]
            if role == 0 { return "keyword" }
            if role == 1 { return set.isBodyCondition(p) ? "\(set.phrase(at: p).split(separator: ":")[0]): none" : "unless" }
            let name = rule._groupName(Int(role) - 2)
            return use & _anchoredRole != 0 && start != anchor ? "\(name), not at the start: ignored" : name
        }
        var matches: [Explanation.PhraseMatch] = []
        for m in raw {
            let p = Int(m.phrase)
            if set.useStart[p] == set.useStart[p + 1], set.model != nil { continue }
            let uses = set.uses[Int(set.useStart[p])..<Int(set.useStart[p + 1])].map {
                "\(set.ruleNames[Int($0 >> 8)]) (\(roleName($0, phrase: p, at: Int(m.start))))"
            }
            matches.append(.init(phrase: set.phrase(at: p), phraseIndex: p, start: Int(m.start), end: Int(m.end),
                                 text: String(decoding: body[Int(m.start)..<Int(m.end)], as: UTF8.self), uses: uses,
                                 isCondition: set.isBodyCondition(p)))
        }
        return matches
    }

    /// What one weighed rule came to, in words.
    func _consideration(_ r: DecisionTrace.Rule, verdict: Verdict, list: NumberListKind?, info: SenderInfo?,
                        body: [UInt8]) -> Explanation.RuleConsideration {
        let set = ruleSet
        let index = Int(r.index)
        let def = set.definition.rules[index]
        let hasPhrase = r.phrase >= 0
        var c = Explanation.RuleConsideration(
            name: def.name, index: index, priority: def.priority, action: def.action, subAction: def.subAction,
            phrase: hasPhrase ? set.phrase(at: Int(r.phrase)) : nil, start: hasPhrase ? Int(r.start) : nil,
            end: hasPhrase ? Int(r.end) : nil, outcome: .won)
        if let list {
            c.outcome = .preemptedByList(list)
            return c
        }
        switch r.firing {
        case _Firing.vetoed:
            if r.vetoPhrase >= 0 {
                c.outcome = .vetoed(phrase: set.phrase(at: Int(r.vetoPhrase)))
            } else {
                let field = set.phrase(at: Int(r.vetoCondition)).split(separator: ":")[0]
                let (s, e) = (Int(r.vetoConditionStart), Int(r.vetoConditionEnd))
                c.outcome = .conditionNotMet("\(field): none, but the body has one at \(s)..<\(e) (\"\(String(decoding: body[s..<e], as: UTF8.self))\")")
            }
        case _Firing.noKeyword:
            c.outcome = .noKeyword
        case _Firing.groupMissing:
            let missing: Int = (0..<def._groupCount).first(where: { r.mask & (1 << UInt64($0)) == 0 }) ?? 0
            c.outcome = missing < def.all.count ? .allGroupMissing(group: missing) : .conditionNotMet(Self._missingCondition(def, group: missing))
        case _Firing.senderFailed:
            c.outcome = .senderConditionFailed(info.map { _senderFailure(def.sender!, info: $0) } ?? "no sender")
        case _Firing.senderExcluded:
            c.outcome = .senderConditionFailed("the sender is one the rule does not speak about (unlessSender)")
        default:
            c.outcome = _firedOutcome(r.fate, verdict: verdict)
        }
        return c
    }

    /// A rule that fired, in words: it won, or lost to the model or to the winner (as the classifier recorded).
    func _firedOutcome(_ fate: DecisionTrace.Fate, verdict: Verdict) -> Explanation.Outcome {
        let winnerName = verdict.rule >= 0 && Int(verdict.rule) < ruleSet.ruleNames.count ? ruleSet.ruleNames[Int(verdict.rule)] : ""
        switch fate {
        case .notFired, .won: return .won
        case .lostToModel: return .lostToModel(name: ruleSet.model?.name ?? "")
        case .lostToPriority: return .lostToPriority(winner: winnerName)
        case .lostToEarlierMatch: return .lostToEarlierMatch(winner: winnerName)
        case .lostToFileOrder: return .lostToFileOrder(winner: winnerName)
        }
    }

    /// "sender …: kind …" (or "no sender").
    func _senderStep(_ sender: String?, _ info: SenderInfo?) -> String {
        guard let sender, let info else { return "no sender" }
        var s = "sender \"\(sender)\": \(info.kind.rawValue)"
        if info.kind == .phoneNumber { s += " +\(info.number) (country code \(info.countryCode))" }
        if info.isTRAIHeader {
            let entity = String(decoding: Array(sender.utf8)[info.traiEntity], as: UTF8.self)
            s += ", TRAI header: operator \(Character(UnicodeScalar(info.traiOperator))), circle \(Character(UnicodeScalar(info.traiCircle))), entity \(entity)"
            if let suffix = info.traiSuffix { s += ", suffix -\(suffix.letter) (\(suffix))" }
        }
        return s
    }

    /// Who decided: a number list, the model, a rule, or nothing.
    func _decisionSteps(_ verdict: Verdict, _ model: Explanation.ModelScores?) -> [String] {
        let set = ruleSet
        if let list = verdict.list {
            switch list {
            case .blockList: return ["sender is on the block list: junk"]
            case .identificationList: return ["sender is on the identification list (\"\(set.label(at: Int(verdict.label)))\"): allow"]
            }
        }
        if let m = model, m.decided { return m.steps }
        var steps = model?.steps ?? []
        if verdict.rule >= 0 {
            var s = "rule \"\(set.ruleNames[Int(verdict.rule)])\" decided: action \(verdict.action.name)"
            if verdict.requestedSubAction != .none { s += ", sub-action \(verdict.requestedSubAction.name)" }
            if verdict.phrase >= 0 { s += " (phrase \"\(set.phrase(at: Int(verdict.phrase)))\" at bytes \(verdict.matchStart)..<\(verdict.matchEnd))" }
            steps.append(s)
        } else {
            steps.append("no rule fired: action none")
        }
        return steps
    }

    /// The validation of the pair and the capabilities, and the folder.
    func _validationSteps(_ verdict: Verdict) -> [String] {
        var steps: [String] = []
        let req = verdict.requestedSubAction
        if req != .none {
            if verdict.dropped != .invalidPair {  // the verdict says how the pair check went
                steps.append("pair check: \(verdict.action.name) + \(req.name) is a valid pair")
                if verdict.dropped == .notDeclared {
                    steps.append("capability check: \(req.name) is not declared in the rule set's capabilities; sub-action dropped (notDeclared)")
                } else {
                    steps.append("capability check: \(req.name) is supported\(ruleSet.capabilities.isDeclared ? " (declared)" : " (no capabilities declared: all twelve)")")
                }
            } else {
                steps.append("pair check: \(req.name) does not belong to \(verdict.action.name); sub-action dropped, action kept (invalidPair)")
            }
        }
        steps.append("folder: \(verdict.folder.path)")
        return steps
    }

    /// Why the extra group `group` (after the `all` groups) of `rule` does not hold.
    static func _missingCondition(_ rule: RuleDefinition, group: Int) -> String {
        let extra = rule._extraGroups
        guard group >= rule.all.count, group - rule.all.count < extra.count else { return "all[\(group)]" }
        switch extra[group - rule.all.count] {
        case .startsWith(let p): return "startsWith: the body does not start with \(p.map { "\"\($0)\"" }.joined(separator: " or "))"
        case .urls(let m): return "urls: no URL that is \(m.map(\.name).joined(separator: " or "))"
        case .phones(let m): return "phones: no phone number that is \(m.map(\.name).joined(separator: " or "))"
        case .amounts(let m): return "amounts: no amount that is \(m.map(\.name).joined(separator: " or "))"
        }
    }

    /// Which parts of a sender condition the sender does not meet (the classifier found that it fails).
    func _senderFailure(_ c: SenderCondition, info: SenderInfo) -> String {
        var parts: [String] = []
        if !c.kinds.isEmpty, !c.kinds.contains(info.kind) { parts.append("kind \(info.kind.rawValue) not in [\(c.kinds.map(\.rawValue).joined(separator: ", "))]") }
        if !c.suffixes.isEmpty { parts.append("TRAI suffix \(info.traiSuffix.map { "-" + $0.letter } ?? "none") not in [\(c.suffixes.map { "-" + $0.letter }.joined(separator: ", "))]") }
        if !c.entities.isEmpty { parts.append("entity not in [\(c.entities.joined(separator: ", "))]") }
        if !c.countryCodes.isEmpty { parts.append("country code \(info.countryCode) not in \(c.countryCodes)") }
        if !c.exact.isEmpty || !c.prefix.isEmpty { parts.append("sender not in exact \(c.exact) / prefix \(c.prefix)") }
        return parts.isEmpty ? "condition not met" : parts.joined(separator: "; ")
    }
}
