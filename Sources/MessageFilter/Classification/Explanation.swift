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
    /// Explains the verdict for one message (allocates; for people and tests, not bulk labelling).
    public func explain(sender: String?, body: String) -> Explanation {
        let verdict = classify(sender: sender, body: body)
        let set = ruleSet
        let bodyBytes = Array(body.utf8)
        matchBuffer.removeAll(keepingCapacity: true)
        bodyBytes.withUnsafeBytes { b in
            _scan(b)
            // Every body condition, also for rules no phrase touched (they cannot fire, but are shown).
            set.bodyFeatures?.scan(b, span: 0, into: &matchBuffer)
        }
        let raw = matchBuffer.sorted { ($0.start, $0.end, $0.phrase) < ($1.start, $1.end, $1.phrase) }
        let modelScores = _explainModel(raw, body: bodyBytes, verdict: verdict)
        func text(_ s: Int, _ e: Int) -> String { String(decoding: bodyBytes[s..<e], as: UTF8.self) }
        // Where `startsWith` phrases must start.
        let anchor = bodyBytes.withUnsafeBytes { Int(_anchorOffset($0)) }
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
            // Phrases only the model uses are listed with its scores (explanation.model), not here.
            if set.useStart[p] == set.useStart[p + 1], set.model != nil { continue }
            let uses = set.uses[Int(set.useStart[p])..<Int(set.useStart[p + 1])].map {
                "\(set.ruleNames[Int($0 >> 8)]) (\(roleName($0, phrase: p, at: Int(m.start))))"
            }
            matches.append(.init(phrase: set.phrase(at: p), phraseIndex: p, start: Int(m.start), end: Int(m.end),
                                 text: text(Int(m.start), Int(m.end)), uses: uses, isCondition: set.isBodyCondition(p)))
        }

        var info: SenderInfo?
        if let sender { info = SenderInfo.classify(sender, defaultCountryCode: set.definition.defaultCountryCode) }
        var steps: [String] = []
        if let info, let sender {
            var s = "sender \"\(sender)\": \(info.kind.rawValue)"
            if info.kind == .phoneNumber { s += " +\(info.number) (country code \(info.countryCode))" }
            if info.isTRAIHeader {
                let entity = String(decoding: Array(sender.utf8)[info.traiEntity], as: UTF8.self)
                s += ", TRAI header: operator \(Character(UnicodeScalar(info.traiOperator))), circle \(Character(UnicodeScalar(info.traiCircle))), entity \(entity)"
                if let suffix = info.traiSuffix { s += ", suffix -\(suffix.letter) (\(suffix))" }
            }
            steps.append(s)
        } else {
            steps.append("no sender")
        }

        // Per-rule state, recomputed the allocating way.
        struct State { var keyword = false; var veto: String?; var vetoCondition: String?; var mask: UInt64 = 0; var pos = Int.max; var end = -1; var phrase = -1 }
        var states: [Int: State] = [:]
        for m in raw {
            let p = Int(m.phrase)
            for use in set.uses[Int(set.useStart[p])..<Int(set.useStart[p + 1])] {
                let r = Int(use >> 8)
                var role = use & 0xFF
                if role & _anchoredRole != 0 {
                    if Int(m.start) != anchor { continue }
                    role &= ~_anchoredRole
                }
                var st = states[r] ?? State()
                if role == 1 {
                    if set.isBodyCondition(p) {
                        let field = set.phrase(at: p).split(separator: ":")[0]
                        if st.vetoCondition == nil { st.vetoCondition = "\(field): none, but the body has one at \(m.start)..<\(m.end) (\"\(text(Int(m.start), Int(m.end)))\")" }
                    } else if st.veto == nil {
                        st.veto = set.phrase(at: p)
                    }
                } else {
                    if role == 0 { st.keyword = true } else { st.mask |= 1 << UInt64(role - 2) }
                    if Int(m.start) < st.pos || (Int(m.start) == st.pos && Int(m.end) > st.end) {
                        st.pos = Int(m.start); st.end = Int(m.end); st.phrase = p
                    }
                }
                states[r] = st
            }
        }
        for r in set.senderOnlyRules where states[Int(r)] == nil { states[Int(r)] = State() }

        let winnerName = verdict.rule >= 0 ? set.ruleNames[Int(verdict.rule)] : nil
        var considered: [Explanation.RuleConsideration] = []
        for r in states.keys.sorted() {
            let st = states[r]!
            let def = set.definition.rules[r]
            let rule = set.rules[r]
            var c = Explanation.RuleConsideration(
                name: def.name, index: r, priority: def.priority, action: def.action, subAction: def.subAction,
                phrase: st.phrase >= 0 ? set.phrase(at: st.phrase) : nil,
                start: st.phrase >= 0 ? st.pos : nil, end: st.phrase >= 0 ? st.end : nil, outcome: .won)
            if let list = verdict.list {
                c.outcome = .preemptedByList(list)
            } else if let veto = st.veto {
                c.outcome = .vetoed(phrase: veto)
            } else if let why = st.vetoCondition {
                c.outcome = .conditionNotMet(why)
            } else if rule.needsKeyword && !st.keyword {
                c.outcome = .noKeyword
            } else if st.mask != rule.allMask {
                let missing: Int = (0..<def._groupCount).first(where: { st.mask & (1 << UInt64($0)) == 0 }) ?? 0
                c.outcome = missing < def.all.count ? .allGroupMissing(group: missing) : .conditionNotMet(Self._missingCondition(def, group: missing))
            } else if let s = def.sender, let why = _senderFailure(s, sender: sender, info: info, defaultCountryCode: set.definition.defaultCountryCode) {
                c.outcome = .senderConditionFailed(why)
            } else if Int32(r) == verdict.rule {
                c.outcome = .won
            } else if let m = modelScores, m.decided {
                c.outcome = .lostToModel(name: m.name)
            } else if let winnerName {
                let w = set.definition.rules[Int(verdict.rule)]
                let wPos = verdict.matchStart >= 0 ? Int(verdict.matchStart) : Int.max
                if w.priority > def.priority { c.outcome = .lostToPriority(winner: winnerName) }
                else if wPos < st.pos { c.outcome = .lostToEarlierMatch(winner: winnerName) }
                else { c.outcome = .lostToFileOrder(winner: winnerName) }
            }
            considered.append(c)
        }

        if let list = verdict.list {
            switch list {
            case .blockList: steps.append("sender is on the block list: junk")
            case .identificationList: steps.append("sender is on the identification list (\"\(set.label(at: Int(verdict.label)))\"): allow")
            }
        } else if let m = modelScores, m.decided {
            steps += m.steps
        } else if let winnerName {
            if let m = modelScores { steps += m.steps }
            var s = "rule \"\(winnerName)\" decided: action \(verdict.action.name)"
            if verdict.requestedSubAction != .none { s += ", sub-action \(verdict.requestedSubAction.name)" }
            if verdict.phrase >= 0 { s += " (phrase \"\(set.phrase(at: Int(verdict.phrase)))\" at bytes \(verdict.matchStart)..<\(verdict.matchEnd))" }
            steps.append(s)
        } else {
            if let m = modelScores { steps += m.steps }
            steps.append("no rule fired: action none")
        }
        let req = verdict.requestedSubAction
        if req != .none {
            if req.isValid(with: verdict.action) {
                steps.append("pair check: \(verdict.action.name) + \(req.name) is a valid pair")
                if verdict.dropped == .notDeclared {
                    steps.append("capability check: \(req.name) is not declared in the rule set's capabilities; sub-action dropped (notDeclared)")
                } else {
                    steps.append("capability check: \(req.name) is supported\(set.capabilities.isDeclared ? " (declared)" : " (no capabilities declared: all twelve)")")
                }
            } else {
                steps.append("pair check: \(req.name) does not belong to \(verdict.action.name); sub-action dropped, action kept (invalidPair)")
            }
        }
        steps.append("folder: \(verdict.folder.path)")

        return Explanation(
            verdict: verdict, ruleName: winnerName,
            phrase: verdict.phrase >= 0 ? set.phrase(at: Int(verdict.phrase)) : nil,
            label: verdict.label >= 0 ? set.label(at: Int(verdict.label)) : nil,
            sender: info, matches: matches, rules: considered, steps: steps, model: modelScores)
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

    /// Which part of a sender condition fails, or nil when it holds.
    func _senderFailure(_ c: SenderCondition, sender: String?, info: SenderInfo?, defaultCountryCode: Int32) -> String? {
        let compiled = _CompiledSenderCondition(c, defaultCountryCode: defaultCountryCode)
        guard let info else { return "no sender" }
        var s = sender ?? ""
        let ok = s.withUTF8 { _senderMatches(compiled, UnsafeRawBufferPointer($0), info) }
        if ok { return nil }
        var parts: [String] = []
        if !c.kinds.isEmpty, !c.kinds.contains(info.kind) { parts.append("kind \(info.kind.rawValue) not in [\(c.kinds.map(\.rawValue).joined(separator: ", "))]") }
        if !c.suffixes.isEmpty { parts.append("TRAI suffix \(info.traiSuffix.map { "-" + $0.letter } ?? "none") not in [\(c.suffixes.map { "-" + $0.letter }.joined(separator: ", "))]") }
        if !c.entities.isEmpty { parts.append("entity not in [\(c.entities.joined(separator: ", "))]") }
        if !c.countryCodes.isEmpty { parts.append("country code \(info.countryCode) not in \(c.countryCodes)") }
        if !c.exact.isEmpty || !c.prefix.isEmpty { parts.append("sender not in exact \(c.exact) / prefix \(c.prefix)") }
        return parts.isEmpty ? "condition not met" : parts.joined(separator: "; ")
    }
}
