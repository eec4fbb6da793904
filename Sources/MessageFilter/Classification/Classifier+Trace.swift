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

    /// Whether a rule below the model that fired has an action the model learned too little of in this
    /// message's script (read from the rules the trace recorded for this message).
    func _yieldsToARule(_ model: _CompiledModel, _ trace: DecisionTrace) -> Bool {
        let m = trace.messages[trace.messages.count - 1]
        return trace.rules[m.ruleStart..<(m.ruleStart + m.ruleCount)].contains {
            $0.firing >= 0 && rules[Int($0.index)].priority < model.priority && _yields(model, to: rules[Int($0.index)].action)
        }
    }

    /// Records the learned model's scores for the message just scored (full traces only; allocates).
    func _recordModel(_ model: _CompiledModel, decided: Bool, vouched: Bool, yielded: Bool, _ trace: DecisionTrace) {
        let s = modelScratch!
        let t = model.targetCount
        var scores: [Double] = []
        var winner = 0
        for k in 0..<t {
            scores.append(s.scores[k])
            if s.scores[k] > s.scores[winner] { winner = k }
        }
        var features: [(feature: Int32, start: Int32, end: Int32)] = []
        for k in 0..<s.touchedCount {
            let f = Int(s.touched[k])
            // Model-text offsets → the original body's bytes.
            let (start, end) = s.text.sourceSpan(Int(s.firstStart[f]), Int(s.firstEnd[f]), of: s.last)
            features.append((Int32(f), start, end))
        }
        var abstention = _modelAbstention(model)
        // A rule the model did not learn to weigh, or a registered sender, is the more basic reason than the margin
        // an overrule needs.
        if abstention == .decides || abstention == .overrule, vouched, model.targets[winner].action != .transaction { abstention = .vouchedSender }
        if abstention == .decides || abstention == .overrule, yielded {
            let dlt = model.targets[winner].action == .junk && trace.messages[trace.messages.count - 1].sender?.isTRAIHeader == true
            abstention = dlt && !_yieldsToARule(model, trace) ? .registeredSender : .unlearnedRule
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
                                  margin: s.slotMargin[s.current], script: s.slotScript[s.current], abstention: abstention,
                                  overruled: overruled, overruleMargin: overruleMargin))
    }
}
