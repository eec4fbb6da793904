/// What the hand rules make of one message below a given priority, for a learned model that would sit there: the situation
/// the model's decision depends on (docs/RULES.md §10). `smsfilter learn --rules BASE` records it for every
/// training message, so that it calibrates the model's overrules on exactly the messages where the model would
/// overrule a rule.
public struct RuleSituation: Sendable, Hashable {
    /// A number list or a rule at or above the priority decided: a model there would not be consulted.
    public var decidedAbove = false
    /// The action of the best firing rule below the priority (priority, then earliest match, then file order:
    /// what the rules alone decide below the model); nil when none fired.
    public var action: Action?
    /// A registered transactional sender's rule fired (a rule with only sender conditions and action
    /// transaction: it vouches for the message).
    public var vouched = false
    /// The sender is a TRAI DLT header.
    public var traiSender = false

    public init() {}
}

extension Classifier {
    /// What the rules of this classifier's rule set, below `priority`, make of one message (``RuleSituation``).
    /// Classifies it once with `trace` (reset first; ``DecisionTrace/Detail/rules`` is enough).
    /// - Complexity: as ``classify(sender:body:trace:)``.
    public func ruleSituation(below priority: Int, sender: UnsafeRawBufferPointer?, body: UnsafeRawBufferPointer,
                              trace: DecisionTrace) -> RuleSituation {
        trace.reset()
        let verdict = classify(sender: sender, body: body, trace: trace)
        var out = RuleSituation()
        if verdict.list != nil { out.decidedAbove = true }
        if sender != nil {
            out.traiSender = SenderInfo.classify(sender, defaultCountryCode: ruleSet.definition.defaultCountryCode).isTRAIHeader
        }
        let m = trace.messages[0]
        var best = _Leader()  // the same tie-break as the classifier's
        for entry in trace.rules[m.ruleStart..<(m.ruleStart + m.ruleCount)] where entry.firing >= 0 {
            let r = Int(entry.index)
            let rule = rules[r]
            if rule.priority >= priority {
                out.decidedAbove = true
                continue
            }
            if rule.vouches { out.vouched = true }
            best.consider(r, priority: rule.priority, position: entry.firing)
        }
        if best.rule >= 0 { out.action = rules[best.rule].action }
        return out
    }
}
