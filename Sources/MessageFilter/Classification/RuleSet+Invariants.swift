// MARK: Internal checks

extension RuleSet {
    /// Checks the tables the classifier reads without bounds checks (with `-DMESSAGEFILTER_INTERNAL_CHECKS`,
    /// run at the end of every build and load; `make test-filter-checks`): the phrase-use table is a CSR over
    /// every phrase, each use names a rule and a role that exists, each automaton's pattern map names literal
    /// phrases and has one entry per pattern, and every index a rule holds (sender condition, `unlessSender`
    /// range, the sender-only list) is in range. Traps with what broke.
    func _checkInvariants() {
        let phrases = phraseTexts.count
        precondition(useStart.count == phrases + 1, "RuleSet: \(useStart.count) use starts for \(phrases) phrases")
        precondition(useStart.first == 0 && useStart.last == Int32(uses.count), "RuleSet: the use table does not span its uses")
        for p in 0..<phrases {
            precondition(useStart[p] <= useStart[p + 1], "RuleSet: the uses of phrase \(p) run backwards")
        }
        for u in uses {
            let rule = Int(u >> 8), role = u & ~_anchoredRole & 0xFF
            precondition(rule < rules.count, "RuleSet: a phrase use names rule \(rule) of \(rules.count)")
            if role >= 2 && role < 2 + 64 {
                precondition(rules[rule].allMask >> UInt64(role - 2) & 1 == 1, "RuleSet: rule \(rule) has no all group \(role - 2)")
            }
        }
        precondition(literalPhraseCount <= phrases, "RuleSet: \(literalPhraseCount) literal phrases of \(phrases)")
        precondition(matchers.count == localToGlobal.count, "RuleSet: \(matchers.count) matchers, \(localToGlobal.count) pattern maps")
        precondition(latinWordPhrases.count == literalPhraseCount, "RuleSet: an edge check per literal phrase")
        for (m, map) in localToGlobal.enumerated() {
            for g in map {
                precondition(g >= 0 && Int(g) < literalPhraseCount, "RuleSet: automaton \(m) maps a pattern to phrase \(g)")
            }
            // No automaton with a non-empty map: the loader's shape pass (`_SMSFFormat.parts` builds the tables
            // without automata to learn how many patterns each section must hold).
            if let matcher = matchers[m] {
                precondition(matcher.patternCount == map.count, "RuleSet: automaton \(m) has \(matcher.patternCount) patterns, its map \(map.count)")
            }
        }
        precondition(ruleFeatureKinds.count == rules.count, "RuleSet: body-condition kinds per rule")
        precondition(ruleNames.count == rules.count + (model == nil ? 0 : 1), "RuleSet: a name per rule (and the model)")
        for (i, rule) in rules.enumerated() {
            precondition(rule.sender >= -1 && Int(rule.sender) < senderConditions.count, "RuleSet: rule \(i) names sender condition \(rule.sender)")
            precondition(rule.unlessFirst >= 0 && rule.unlessCount >= 0
                         && Int(rule.unlessFirst) + Int(rule.unlessCount) <= unlessSenderConditions.count,
                         "RuleSet: rule \(i)'s unlessSender range is outside the unlessSender list")
            precondition(rule.featureGroups & ~rule.allMask == 0, "RuleSet: rule \(i) has body-condition groups outside its all groups")
        }
        for k in unlessSenderConditions {
            precondition(k >= 0 && Int(k) < senderConditions.count, "RuleSet: an unlessSender entry names sender condition \(k)")
        }
        precondition(senderOnlyGateStart.count == 4 * SenderKind.allCases.count + 1 && senderOnlyGateStart.first == 0
                     && senderOnlyGateStart.last == Int32(senderOnlyByGate.count), "RuleSet: the sender gates do not span their list")
        for g in 0..<(senderOnlyGateStart.count - 1) {
            precondition(senderOnlyGateStart[g] <= senderOnlyGateStart[g + 1], "RuleSet: sender gate \(g) runs backwards")
        }
        for r in senderOnlyByGate {
            precondition(senderOnlyRules.contains(r), "RuleSet: a sender gate lists rule \(r), not a sender-only rule")
        }
        for r in senderOnlyRules {
            precondition(r >= 0 && Int(r) < rules.count, "RuleSet: sender-only rule \(r) of \(rules.count)")
        }
    }
}
