/// The first `unless` phrase and the first `none` body condition that vetoed a rule, for the trace.
struct _Veto {
    var phrase: Int32 = -1
    var phraseStart: Int32 = 0
    var phraseEnd: Int32 = 0
    var condition: Int32 = -1
    var conditionStart: Int32 = 0
    var conditionEnd: Int32 = 0
}

extension Classifier {
    /// Notes a vetoing match of rule `r` (only while tracing in full): the first by position, as people read.
    func _recordVeto(_ r: Int, _ m: _RawMatch) {
        if ruleSet.isBodyCondition(Int(m.phrase)) {
            let v = vetoes[r]
            if v.condition < 0 || (m.start, m.end, m.phrase) < (v.conditionStart, v.conditionEnd, v.condition) {
                vetoes[r].condition = m.phrase
                vetoes[r].conditionStart = m.start
                vetoes[r].conditionEnd = m.end
            }
        } else {
            let v = vetoes[r]
            if v.phrase < 0 || (m.start, m.end, m.phrase) < (v.phraseStart, v.phraseEnd, v.phrase) {
                vetoes[r].phrase = m.phrase
                vetoes[r].phraseStart = m.start
                vetoes[r].phraseEnd = m.end
            }
        }
    }

    /// Records what rule `r` came to (`firing`: where it fires, or a `_Firing` code).
    @inline(__always)
    func _record(_ r: Int, _ firing: Int32, generation gen: UInt32, _ trace: DecisionTrace) {
        var entry = DecisionTrace.Rule(
            index: Int32(r), firing: firing, start: -1, end: -1, phrase: -1, mask: 0, vetoPhrase: -1, vetoCondition: -1,
            vetoConditionStart: 0, vetoConditionEnd: 0)
        if scratch[r].stamp == gen {
            entry.start = scratch[r].pos
            entry.end = scratch[r].end
            entry.phrase = scratch[r].phrase
            entry.mask = scratch[r].mask
            if tracing {
                let v = vetoes[r]
                entry.vetoPhrase = v.phrase
                entry.vetoCondition = v.condition
                entry.vetoConditionStart = v.conditionStart
                entry.vetoConditionEnd = v.conditionEnd
            }
        }
        trace.record(rule: entry)
    }

    /// Records the learned model's scores for the message just scored and why it decided or not (full traces
    /// only; allocates). `refinedBy`: the rule whose folder its verdict took (-1: none); `yielded`: `_weigh`
    /// found a reason to yield (a rule below it, or a registered sender); `outranked`: a rule at or above its
    /// priority fired.
    func _recordModel(_ model: _CompiledModel, decided: Bool, refinedBy: Int, yielded: Bool, outranked: Bool,
                      _ trace: DecisionTrace) {
        let s = modelScratch!
        let t = model.targetCount
        let winner = Int(s.slots[s.current].winner)
        var scores: [Double] = []
        for k in 0..<t { scores.append(s.scores[k]) }
        var features: [(feature: Int32, start: Int32, end: Int32)] = []
        for k in 0..<s.touchedCount {
            let f = Int(s.message.touched[k])
            features.append((Int32(f), s.message.firstStart[f], s.message.firstEnd[f]))
        }
        // The rules behind its reasons: the first firing rule that vouches for the sender (in weighing order), and
        // the rules' verdict below the model (the rule it would overrule) when it yields to that rule's action.
        let entry = trace.messages[trace.messages.count - 1]
        var vouchedBy: Int32 = -1
        var yieldedTo: Int32 = -1
        for r in trace.rules[entry.ruleStart..<(entry.ruleStart + entry.ruleCount)] where r.firing >= 0 {
            let rule = rules[Int(r.index)]
            if vouchedBy < 0, rule.vouches { vouchedBy = r.index }
        }
        if s.below >= 0, _yields(model, to: rules[Int(s.below)].action) { yieldedTo = s.below }
        var abstention = _modelAbstention(model)
        // A rule the model did not learn to weigh, or a registered sender, is the more basic reason than the margin
        // an overrule needs. Yielding with no such rule is yielding to a registered sender (a TRAI DLT header).
        if abstention == .decides || abstention == .overrule, vouchedBy >= 0, model.targets[winner].action != .transaction {
            abstention = .vouchedSender
        }
        if abstention == .decides, s.linkFreeWinner >= 0 {
            abstention = .linkAlone
        } else if abstention == .decides || abstention == .overrule, yielded {
            abstention = yieldedTo < 0 ? .registeredSender : .unlearnedRule
        }
        // The rule the winner overrules (or would): the best firing rule below the model, when its action differs
        // from the winner's and the model has evidence; the margin it needs (-1: the model's overrules are not calibrated, its margins apply).
        var overruled: Int32 = -1
        var overruleMargin = 0.0
        if s.below >= 0, abstention != .noEvidence,
           ModelDefinition.overruleRow(rules[Int(s.below)].action) != ModelDefinition.overruleRow(model.targets[winner].action) {
            overruled = s.below
            overruleMargin = model.overrule.isEmpty ? -1 : _overruleMargin(model)
        }
        trace.record(model: .init(scores: scores, winner: winner, norm: s.normSquared.squareRoot(), features: features, decided: decided,
                                  margin: s.slots[s.current].margin, script: s.slots[s.current].script, abstention: abstention,
                                  overruled: overruled, overruleMargin: overruleMargin, outranked: outranked,
                                  refinedBy: Int32(refinedBy), vouchedBy: vouchedBy, yieldedTo: yieldedTo,
                                  linkFreeWinner: abstention == .linkAlone ? s.linkFreeWinner : -1))
    }

    /// Records, in a full trace, that the model (if any) did not decide and how each rule that fired fared
    /// against the leading one, `best`.
    func _recordRulesDecided(_ model: _CompiledModel?, best: _Leader, yielded: Bool, _ trace: DecisionTrace) {
        if let model {
            _recordModel(model, decided: false, refinedBy: -1, yielded: yielded,
                         outranked: best.rule >= 0 && best.priority >= model.priority, trace)
        }
        _recordFates(best: best.rule, bestPriority: best.priority, bestPos: best.position, modelDecided: false, trace)
    }

    /// Records how each rule that fired fared against the winner (`best`, at `bestPriority` and `bestPos`), or
    /// that the model decided (full traces only).
    func _recordFates(best: Int, bestPriority: Int, bestPos: Int32, modelDecided: Bool, _ trace: DecisionTrace) {
        let entry = trace.messages[trace.messages.count - 1]
        for i in entry.ruleStart..<(entry.ruleStart + entry.ruleCount) where trace.rules[i].firing >= 0 {
            let r = trace.rules[i]
            let fate: DecisionTrace.Fate
            if modelDecided {
                fate = .lostToModel
            } else if Int(r.index) == best {
                fate = .won
            } else if bestPriority > rules[Int(r.index)].priority {
                fate = .lostToPriority
            } else if bestPos < r.firing {
                fate = .lostToEarlierMatch
            } else {
                fate = .lostToFileOrder
            }
            trace.rules[i].fate = fate
        }
    }
}
