extension Explanation {
    /// What the learned model made of a message.
    public struct ModelScores: Sendable, Hashable {
        /// One phrase's push towards the winning target.
        public struct Contribution: Sendable, Hashable {
            /// The phrase as stored in the model, its kind, and its first span in the original body.
            public var phrase: String
            public var kind: ModelDefinition.MatchKind
            /// What kind of evidence it is (``ModelDefinition/Phrase/evidence``): `word`, `2-word phrase`,
            /// `3-character n-gram`, `digit piece`, ….
            public var evidence: String
            public var start: Int
            public var end: Int
            /// The body's text at the span.
            public var text: String
            /// Its weight for each target (idf included), and what it adds to the winner's score
            /// (the weight over the message's length norm).
            public var weights: [Double]
            public var contribution: Double
        }

        public var name: String
        public var priority: Int
        public var threshold: Double?
        public var targets: [String]
        /// Per target: bias + Σ weights / norm.
        public var scores: [Double]
        public var bias: [Double]
        /// The L2 norm of the present phrases' idf (the divisor), 0 when none is present.
        public var norm: Double
        /// The best target.
        public var winner: Int
        /// Whether the model gave the verdict.
        public var decided: Bool
        /// The winner's score minus the runner-up's, and the margin the winner needs (0: none; +inf: the
        /// model never decides that target).
        public var margin: Double
        public var marginNeeded: Double
        /// The firing rule below the model that the winner overrules (or would: its action differs from the
        /// winner's; the best firing rule below the model), and that rule's action; nil when there is none.
        /// ``marginNeeded`` is then the margin calibrated for overruling a rule of that action with the winner
        /// (``overruleCalibrated``), or the winner's own margin for a model without an `overrules:` table.
        public var overrules: String?
        public var overrulesAction: Action?
        /// Whether ``marginNeeded`` is a calibrated overrule margin (the model's `overrules:` table); false when the
        /// model has none (it was learned without `--rules`) and its ``ModelDefinition/margins`` entry applies.
        public var overruleCalibrated = false
        /// The message's main script, the real training messages the model saw of it (nil: not recorded) and
        /// the minimum it needs.
        public var script: Script
        public var realMessages: Int?
        public var minScriptMessages: Int
        /// Why the model did not decide: nil when it decided or would have (a rule above its priority or a
        /// number list decided first); else `noEvidence`, `script`, `margin`, `overrule`, `threshold`, `vouchedSender`,
        /// `unlearnedRule`, `registeredSender`, `linkAlone`.
        public var abstention: String?
        /// When the model decided and a hand rule below its priority supplied the folder (the model's action
        /// with that rule's sub-action, or `allow` for `none`): the rule's name.
        public var refinedBy: String?
        /// The phrases present, strongest push towards the winner first (at most 10).
        public var contributions: [Contribution]
        /// How many model phrases were present.
        public var phraseCount: Int
        /// The model's steps, as sentences.
        public var steps: [String]
    }
}

extension Classifier {
    /// The model's side of an explanation, from the scores the classifier recorded in the trace.
    func _explainModel(_ m: DecisionTrace.Model, body: [UInt8], verdict: Verdict, list: NumberListKind?) -> Explanation.ModelScores {
        let model = ruleSet.model!
        let winner = m.winner
        let norm = m.norm
        var contributions = _modelContributions(m, body: body)
        let count = contributions.count
        contributions.sort { abs($0.contribution) != abs($1.contribution) ? abs($0.contribution) > abs($1.contribution) : $0.start < $1.start }
        contributions = Array(contributions.prefix(10))
        let scores = m.scores
        let decided = m.decided && list == nil
        let names = model.targets.map(\.name)
        var steps: [String] = []
        var refinedBy: String?
        let scoreText = zip(names, scores).map { "\($0) \(Self.format($1))" }.joined(separator: ", ")
        let definition = ruleSet.definition.model!
        let overruled = m.overruled >= 0 ? ruleSet.ruleNames[Int(m.overruled)] : nil
        let overruledAction = m.overruled >= 0 ? rules[Int(m.overruled)].action : nil
        let calibrated = overruled != nil && m.overruleMargin >= 0
        let needed = calibrated ? m.overruleMargin : model.margins[winner]
        let neededText = needed.isInfinite ? "never" : Self.format(needed)
        let overruleText = overruled.map {
            "rule \"\($0)\" (\(overruledAction!.name)) with \(names[winner]): margin \(Self.format(m.margin)), needs \(neededText)"
                + (calibrated ? " (its calibrated overrule margin)" : " (no overrule margin calibrated: learned without --rules; its margin for \(names[winner]) applies)")
        }
        let marginText = overruleText.map { "overrules \($0)" }
            ?? "margin \(Self.format(m.margin)) over the runner-up" + (needed > 0 ? ", needs \(needed.isInfinite ? "never reached" : Self.format(needed))" : "")
        let real = definition.realMessages(m.script)
        let abstention: String? = decided || m.abstention == .decides ? nil : "\(m.abstention)"
        if list != nil {
            steps.append("model \"\(model.name)\" not reached: a number list decided")
        } else if decided {
            var line = "model \"\(model.name)\" decided: \(names[winner]) (scores: \(scoreText); \(marginText); \(count) model phrase\(count == 1 ? "" : "s") present"
            if model.hasThreshold { line += "; threshold \(Self.format(model.threshold))" }
            line += ")"
            if let top = contributions.first, top.contribution > 0 { line += "; strongest phrase \"\(top.phrase)\" at bytes \(top.start)..<\(top.end)" }
            steps.append(line)
            if m.refinedBy >= 0 {
                refinedBy = ruleSet.ruleNames[Int(m.refinedBy)]
                steps.append("folder \(verdict.folder.path) from rule \"\(refinedBy!)\" (it fired below the model's priority with the action the model chose, so it refines it)")
            }
        } else if m.outranked {
            steps.append("a rule at priority ≥ \(model.priority) (the model's) fired, so it decides before model \"\(model.name)\" (which would say \(names[winner]): \(scoreText))")
        } else {
            let why = _abstention(m, scoreText: scoreText, needed: needed, overruleText: overruleText)
            steps.append("model \"\(model.name)\" abstained: \(why); rules below priority \(model.priority) decide")
        }
        return Explanation.ModelScores(
            name: model.name, priority: model.priority, threshold: model.hasThreshold ? model.threshold : nil, targets: names,
            scores: scores, bias: model.bias, norm: norm, winner: winner, decided: decided, margin: m.margin, marginNeeded: needed,
            overrules: overruled, overrulesAction: overruledAction, overruleCalibrated: calibrated,
            script: m.script, realMessages: real, minScriptMessages: definition.minScriptMessages, abstention: abstention,
            refinedBy: refinedBy, contributions: contributions,
            phraseCount: count, steps: steps)
    }

    /// The phrases present with what each adds to the winner's score, strongest first.
    func _modelContributions(_ m: DecisionTrace.Model, body: [UInt8]) -> [Explanation.ModelScores.Contribution] {
        let model = ruleSet.model!
        let t = model.targetCount
        let norm = m.norm
        let winner = m.winner
        var contributions: [Explanation.ModelScores.Contribution] = []
        for (f32, start32, end32) in m.features {
            let f = Int(f32)
            let weights = (0..<t).map { Double(model.weights[f * t + $0]) }
            let start = Int(start32)
            let end = Int(end32)
            let phrase = ruleSet.definition.model!.phrases[f]
            contributions.append(.init(
                phrase: ruleSet.phrase(at: Int(model.phraseIDs[f])), kind: phrase.kind, evidence: phrase.evidence,
                start: start, end: end, text: String(decoding: body[start..<end], as: UTF8.self),
                weights: weights, contribution: norm > 0 ? weights[winner] / norm : 0))
        }
        return contributions
    }

    /// Why the model abstained, in words (`needed`: the margin the winner needs; `overruleText`: the rule it
    /// would overrule, described).
    func _abstention(_ m: DecisionTrace.Model, scoreText: String, needed: Double, overruleText: String?) -> String {
        let model = ruleSet.model!
        let definition = ruleSet.definition.model!
        let names = model.targets.map(\.name)
        let winner = m.winner
        let scores = m.scores
        let real = definition.realMessages(m.script)
        switch m.abstention {
        case .noEvidence, .decides:
            return "none of its phrases is in the message (no evidence; its biases alone would say \(names[winner]))"
        case .script:
            return "learned from \(real ?? 0) real \(m.script) message\(real == 1 ? "" : "s") (it needs \(definition.minScriptMessages) to speak on a script; it would say \(names[winner]))"
        case .margin:
            return "\(names[winner]) leads by a margin of \(Self.format(m.margin)), below the \(needed.isInfinite ? "margin it never reaches for that target" : "calibrated margin \(Self.format(needed))") (scores: \(scoreText))"
        case .overrule:
            return "it would overrule \(overruleText ?? "a rule") (\(needed.isInfinite ? "never: too few held-out overrules of such a rule by \(names[winner]) to calibrate, or never precise enough" : "the margin at which held-out overrules of such a rule by \(names[winner]) were precise enough")) (scores: \(scoreText))"
        case .threshold:
            return "best score \(Self.format(scores[winner])) (\(names[winner])) is below its threshold \(Self.format(model.threshold))"
        case .unlearnedRule:
            let name = m.yieldedTo >= 0 ? ruleSet.ruleNames[Int(m.yieldedTo)] : "?"
            let action = ruleSet.definition.rules.first { $0.name == name }?.action ?? .none
            let n = definition.realMessages(m.script, action: action) ?? 0
            let w = definition.realMessages(m.script, action: model.targets[winner].action) ?? 0
            if n < definition.minScriptMessages || w >= definition.minScriptMessages {
                return "rule \"\(name)\" says \(action.name), and the model learned from \(n) real \(m.script) \(action.name) message\(n == 1 ? "" : "s") (it needs \(definition.minScriptMessages) to overrule such a rule; it would say \(names[winner]))"
            } else {
                let a = model.targets[winner].action.name
                return "rule \"\(name)\" says \(action.name), and the model would say \(names[winner]), but it learned from \(w) real \(m.script) \(a) message\(w == 1 ? "" : "s") (it needs \(definition.minScriptMessages) to overrule a rule with \(a))"
            }
        case .linkAlone:
            let other = m.linkFreeWinner >= 0 && Int(m.linkFreeWinner) < names.count
                ? "it says \(names[Int(m.linkFreeWinner)])" : "none of its phrases is left"
            return "it says \(names[winner]) for the link alone: without the message's links \(other) (a link is evidence only with other evidence; scores: \(scoreText))"
        case .registeredSender:
            return "it says junk, but the sender is a TRAI DLT header, a registered sender: the model alone does not call its messages junk"
        case .vouchedSender:
            return "it says \(names[winner]), but a registered transactional sender vouches for the message (\(m.vouchedBy >= 0 ? ruleSet.ruleNames[Int(m.vouchedBy)] : "a sender rule") fired): the model alone never moves such a message out of Transactions"
        }
    }

    static func format(_ x: Double) -> String {
        let r = (x * 10000).rounded() / 10000
        return "\(r)"
    }
}
