/// A ``ModelDefinition`` ready for scoring: its own automaton over the model text (`_ModelText.swift`), the
/// weights in one flat array (feature-major), each phrase's id in the rule set's phrase table (for verdicts)
/// and the verdict of each target, validated against the capabilities.
///
/// The model's phrases are not in the rules' automata: the rules scan the (normalised) text as before, the
/// model scans the model text, where whole-word phrases are anchored on spaces and never reported inside a
/// word. Pattern index = feature index.
final class _CompiledModel: Sendable {
    let name: String
    let priority: Int
    let hasThreshold: Bool
    let threshold: Double
    /// Per target: the margin over the runner-up its score needs (0: none; +inf: never decided).
    let margins: [Double]
    /// Per ``Script`` (raw value): whether the model abstains on messages of that main script.
    let abstainsOnScript: [Bool]
    /// `yields[(script raw value * 5 + action raw value) * targetCount + target]`: with that winner, the model
    /// yields to a firing rule of that action on messages of that script (``ModelDefinition/yields(to:on:with:)``).
    let yields: [Bool]
    /// `overrule[(script raw value * 5 + action raw value) * targetCount + target]`: the margin the target needs
    /// over the runner-up to overrule a firing rule of that action below the model on a message of that main
    /// script (+inf: never; -1: not an overrule, the target has the rule's action). Empty: the model's overrules
    /// are not calibrated (it overrules whenever it decides).
    let overrule: [Double]
    let targetCount: Int
    let featureCount: Int
    /// Feature → global phrase id (``Verdict/phrase``).
    let phraseIDs: [Int32]
    /// `weights[feature * targetCount + target]`.
    let weights: [Float]
    /// idf² per feature (the length normalisation's terms).
    let idfSquared: [Double]
    /// Per feature: 1 when its pattern carries a space on each side (word phrases), else 0.
    let trim: [Int32]
    let bias: [Double]
    /// What scoring reads per matched feature, packed in one row so that a match touches one cache line
    /// instead of three arrays: `rows[feature * rowStride + …]` holds the weights (`targetCount` values), then
    /// the idf, then 1 or 0 (`trim`); `rowStride` is the next power of two (8 floats, 32 bytes, for up to 6
    /// targets), so a row never straddles two lines. The sums scoring computes from it are bit for bit those of
    /// the separate arrays (`Double(idf) * Double(idf)` is `idfSquared`).
    let rows: [Float]
    let rowStride: Int
    /// Per target: the verdict the model gives (the rule index is the model's, see ``RuleSet/ruleNames``).
    let verdicts: [Verdict]
    let targets: [ModelDefinition.Target]
    /// The automaton of the model text (nil only in a rule set built without automata).
    let matcher: _PhraseMatcher?
    /// Whether the model text folds non-ASCII case itself (normalisation `none`).
    let foldsText: Bool

    /// - Parameters:
    ///   - matcher: the automaton loaded from a `.smsf`; nil: build it when `build` is true.
    /// - Throws: `AhoCorasickBuildError` (an automaton too large).
    init(_ m: ModelDefinition, phraseIDs ids: [Int32], ruleIndex: Int32, capabilities: Capabilities,
         normalization: TextNormalization, matcher prebuilt: _PhraseMatcher?, build: Bool) throws {
        name = m.name
        priority = m.priority
        hasThreshold = m.threshold != nil
        threshold = Double(m.threshold ?? 0)
        margins = m.margins.isEmpty ? Array(repeating: 0, count: m.targets.count) : m.margins.map(Double.init)
        abstainsOnScript = Script.allCases.map { m.abstains(on: $0) }
        yields = Script.allCases.sorted { $0.rawValue < $1.rawValue }.flatMap { s in
            Action.allCases.sorted { $0.rawValue < $1.rawValue }.flatMap { a in m.targets.indices.map { m.yields(to: a, on: s, with: $0) } }
        }
        overrule = m.overrules == nil ? [] : Script.allCases.sorted { $0.rawValue < $1.rawValue }.flatMap { s in
            Action.allCases.sorted { $0.rawValue < $1.rawValue }.flatMap { a in
                m.targets.indices.map { t in m.overruleMargin(rule: a, target: t, script: s).map(Double.init) ?? -1 }
            }
        }
        targetCount = m.targets.count
        featureCount = m.phrases.count
        targets = m.targets
        phraseIDs = ids
        var w: [Float] = []
        w.reserveCapacity(m.phrases.count * m.targets.count)
        for p in m.phrases { w += p.weights }
        weights = w
        idfSquared = m.phrases.map { Double($0.idf) * Double($0.idf) }
        trim = m.phrases.map { $0.kind == .word ? 1 : 0 }
        bias = m.bias.map(Double.init)
        var stride = 1
        while stride < m.targets.count + 2 { stride *= 2 }
        rowStride = stride
        var packed = [Float](repeating: 0, count: m.phrases.count * stride)
        for (f, p) in m.phrases.enumerated() {
            for (j, x) in p.weights.enumerated() { packed[f * stride + j] = x }
            packed[f * stride + m.targets.count] = p.idf
            packed[f * stride + m.targets.count + 1] = p.kind == .word ? 1 : 0
        }
        rows = packed
        foldsText = normalization == .none
        verdicts = m.targets.map { t in
            let validation = capabilities.validate(action: t.action, subAction: t.subAction)
            var v = Verdict()
            v.action = t.action
            v.requestedSubAction = t.subAction
            v.subAction = validation.subAction
            v.dropped = validation.dropped
            v.folder = validation.folder
            v.rule = ruleIndex
            return v
        }
        if let prebuilt {
            matcher = prebuilt
        } else if build, !m.phrases.isEmpty {
            let patterns = m.phrases.map { _ModelText.pattern($0, normalization: normalization) }
            matcher = try _PhraseMatcher(patterns: patterns, wholeWord: Array(repeating: false, count: patterns.count), folding: .ascii)
        } else {
            matcher = nil
        }
    }
}

/// Why the learned model did not decide a message (``ModelDefinition``, "When the model abstains").
enum _ModelAbstention: UInt8 {
    case decides, noEvidence, script, margin, overrule, threshold, vouchedSender, unlearnedRule, registeredSender
}

/// Per-classifier scratch for scoring (allocated once): the model text, per-feature stamps (`stamp` marks
/// the features already counted for the current message, so repeated matches count once) and first spans,
/// the last message's scores, and per message of a batch the result `_evaluate` needs.
final class _ModelScratch {
    var generation: UInt32 = 0
    let stamp: UnsafeMutablePointer<UInt32>
    /// Per present feature: its first match in the model text (output positions, the word phrases' spaces
    /// left out); `text.sourceSpan` maps them to the body.
    let firstStart: UnsafeMutablePointer<Int32>
    let firstEnd: UnsafeMutablePointer<Int32>
    /// The features present in the current message, in order of first match.
    let touched: UnsafeMutablePointer<Int32>
    var touchedCount = 0
    /// Per target: the sum of the present features' weights, then the final score.
    let sums: UnsafeMutablePointer<Double>
    let scores: UnsafeMutablePointer<Double>
    /// Σ idf² of the present features.
    var normSquared = 0.0
    let features: Int
    let targets: Int
    let text = _ModelText()
    /// The batch path's per-message sums (`_ModelBatch.swift`).
    let batch: _ModelBatchScratch
    /// The model text of the message scored last (`firstStart`/`firstEnd` are output positions in it).
    var last = _ModelSpan(range: 0..<0, mapped: false, insertions: 0..<0)

    /// Per message of a batch (`Classifier.batchSize` slots): the winning target, its score, and the
    /// deciding phrase (feature, -1 when none) with its span in the original body.
    let slotWinner: UnsafeMutablePointer<Int32>
    let slotScore: UnsafeMutablePointer<Double>
    let slotFeature: UnsafeMutablePointer<Int32>
    let slotStart: UnsafeMutablePointer<Int32>
    let slotEnd: UnsafeMutablePointer<Int32>
    /// Whether any model phrase was present in the slot's message (none: the model abstains).
    let slotEvidence: UnsafeMutablePointer<Bool>
    /// Per slot: the winner's margin over the runner-up, and the message's main script.
    let slotMargin: UnsafeMutablePointer<Double>
    let slotScript: UnsafeMutablePointer<Script>
    /// The slot `_evaluate` reads (the message being decided).
    var current = 0
    /// The rule whose folder the last model verdict took (`_refined`), -1 when none.
    var refinedBy: Int32 = -1
    /// The best firing rule below the model's priority for the message being decided (what the rules alone
    /// would decide; the rule the model's winner would overrule when its action differs), -1 when none.
    var below: Int32 = -1

    init(_ model: _CompiledModel) {
        features = max(1, model.featureCount)
        targets = model.targetCount
        batch = _ModelBatchScratch(targets: model.targetCount, features: model.featureCount)
        stamp = .allocate(capacity: features)
        stamp.initialize(repeating: 0, count: features)
        firstStart = .allocate(capacity: features)
        firstStart.initialize(repeating: 0, count: features)
        firstEnd = .allocate(capacity: features)
        firstEnd.initialize(repeating: 0, count: features)
        touched = .allocate(capacity: features)
        touched.initialize(repeating: 0, count: features)
        sums = .allocate(capacity: targets)
        sums.initialize(repeating: 0, count: targets)
        scores = .allocate(capacity: targets)
        scores.initialize(repeating: 0, count: targets)
        let slots = Classifier.batchSize
        slotWinner = .allocate(capacity: slots)
        slotWinner.initialize(repeating: 0, count: slots)
        slotScore = .allocate(capacity: slots)
        slotScore.initialize(repeating: 0, count: slots)
        slotFeature = .allocate(capacity: slots)
        slotFeature.initialize(repeating: -1, count: slots)
        slotStart = .allocate(capacity: slots)
        slotStart.initialize(repeating: 0, count: slots)
        slotEnd = .allocate(capacity: slots)
        slotEnd.initialize(repeating: 0, count: slots)
        slotEvidence = .allocate(capacity: slots)
        slotEvidence.initialize(repeating: false, count: slots)
        slotMargin = .allocate(capacity: slots)
        slotMargin.initialize(repeating: 0, count: slots)
        slotScript = .allocate(capacity: slots)
        slotScript.initialize(repeating: .none, count: slots)
    }

    deinit {
        stamp.deallocate()
        firstStart.deallocate()
        firstEnd.deallocate()
        touched.deallocate()
        sums.deallocate()
        scores.deallocate()
        slotWinner.deallocate()
        slotScore.deallocate()
        slotFeature.deallocate()
        slotStart.deallocate()
        slotEnd.deallocate()
        slotEvidence.deallocate()
        slotMargin.deallocate()
        slotScript.deallocate()
    }
}

extension Classifier {
    /// Scores the message whose model text is `range` of the scratch's model text into the scratch (scores,
    /// present features, first spans) and into batch slot `slot`.
    /// - Complexity: O(model text length + matches × targets); allocates nothing.
    func _modelScore(_ model: _CompiledModel, _ span: _ModelSpan, slot: Int) {
        let range = span.range
        let s = modelScratch!
        s.generation &+= 1
        if s.generation == 0 {
            s.stamp.update(repeating: 0, count: s.features)
            s.generation = 1
        }
        let gen = s.generation
        let t = model.targetCount
        var k = 0
        while k < t {
            s.sums[k] = 0
            k += 1
        }
        // Locals, so the per-match code touches no class property (no exclusivity checks, no reloads).
        var touchedCount = 0
        var normSquared = 0.0
        let text = s.text
        s.last = span
        let base = range.lowerBound
        if let matcher = model.matcher, !range.isEmpty {
            let stamp = s.stamp
            let firstStart = s.firstStart
            let firstEnd = s.firstEnd
            let touched = s.touched
            let sums = s.sums
            let stride = model.rowStride
            model.rows.withUnsafeBufferPointer { rows in
                matcher.forEachMatch(in: UnsafeRawBufferPointer(rebasing: text.output[range])) { f, a, b in
                    // Matches come in order of end; a pattern has one length, so its first match is its earliest.
                    if stamp[f] == gen { return }
                    stamp[f] = gen
                    let row = rows.baseAddress! + f &* stride
                    let cut = Int(row[t &+ 1])
                    firstStart[f] = Int32(truncatingIfNeeded: base &+ a &+ cut)
                    firstEnd[f] = Int32(truncatingIfNeeded: base &+ b &- cut)
                    touched[touchedCount] = Int32(truncatingIfNeeded: f)
                    touchedCount += 1
                    let idf = Double(row[t])
                    normSquared += idf * idf
                    var j = 0
                    while j < t {
                        sums[j] += Double(row[j])
                        j += 1
                    }
                }
            }
        }
        s.touchedCount = touchedCount
        s.normSquared = normSquared
        let inverse = normSquared > 0 ? 1 / normSquared.squareRoot() : 0
        var best = 0
        k = 0
        while k < t {
            let score = model.bias[k] + s.sums[k] * inverse
            s.scores[k] = score
            if score > s.scores[best] { best = k }
            k += 1
        }
        var second = -Double.infinity
        k = 0
        while k < t {
            if k != best, s.scores[k] > second { second = s.scores[k] }
            k += 1
        }
        // The deciding phrase: the present phrase that pushes hardest towards the winner.
        var top = -1
        var topWeight: Float = 0
        k = 0
        while k < s.touchedCount {
            let f = Int(s.touched[k])
            let w = model.weights[f * t + best]
            if w > topWeight {
                top = f
                topWeight = w
            }
            k += 1
        }
        s.slotWinner[slot] = Int32(best)
        s.slotScore[slot] = s.scores[best]
        s.slotFeature[slot] = Int32(top)
        s.slotEvidence[slot] = normSquared > 0
        s.slotMargin[slot] = s.scores[best] - second
        s.slotScript[slot] = span.script
        if top >= 0 {
            (s.slotStart[slot], s.slotEnd[slot]) = text.sourceSpan(Int(s.firstStart[top]), Int(s.firstEnd[top]), of: span)
        }
    }

    /// Builds the model text of one message and scores it into slot `slot`. `normalized`: the classifier's
    /// normaliser holds this body's normalised text (the body was rewritten).
    func _modelScan(_ model: _CompiledModel, body: UnsafeRawBufferPointer, normalized: Bool, slot: Int) {
        let s = modelScratch!
        s.text.reset()
        let span: _ModelSpan
        if normalized {
            let n = normalizer.text
            span = s.text.append(n.output, sourceStart: n.sourceStart.baseAddress, sourceEnd: n.sourceEnd.baseAddress, fold: false)
        } else {
            span = _modelTextOfBody(model, body)
        }
        _modelScore(model, span, slot: slot)
    }

    /// The model text of a body that normalisation leaves alone (ASCII under `standard`; any body under `none`).
    @inline(__always)
    func _modelTextOfBody(_ model: _CompiledModel, _ body: UnsafeRawBufferPointer) -> _ModelSpan {
        let text = modelScratch!.text
        if let plain = text.appendPlain(body) { return plain }
        return text.append(body, sourceStart: nil, sourceEnd: nil, fold: model.foldsText)
    }

    /// Why the model abstains on the message in the current slot (`.decides`: it does not), before the sender
    /// is looked at (``ModelDefinition``, "When the model abstains").
    @inline(__always)
    func _modelAbstention(_ model: _CompiledModel) -> _ModelAbstention {
        let s = modelScratch!
        let slot = s.current
        if !s.slotEvidence[slot] { return .noEvidence }
        if model.abstainsOnScript[Int(s.slotScript[slot].rawValue)] { return .script }
        let overrule = _overruleMargin(model)
        if overrule >= 0 {
            if s.slotMargin[slot] < overrule { return .overrule }
        } else if s.slotMargin[slot] < model.margins[Int(s.slotWinner[slot])] {
            return .margin
        }
        if model.hasThreshold && s.slotScore[slot] < model.threshold { return .threshold }
        return .decides
    }

    /// Whether, with its winner for the message in the current slot, the model yields to a firing rule of action
    /// `action` (``ModelDefinition/yields(to:on:with:)``).
    @inline(__always)
    func _yields(_ model: _CompiledModel, to action: Action) -> Bool {
        let s = modelScratch!
        let slot = s.current
        return model.yields[(Int(s.slotScript[slot].rawValue) &* 5 &+ action.rawValue) &* model.targetCount &+ Int(s.slotWinner[slot])]
    }

    /// The margin the winner needs to overrule the best firing rule below the model (`below`) for the message
    /// in the current slot; -1 when it would not overrule one (no rule below fired, the rule has the winner's
    /// action, or the model's overrules are not calibrated: its `margins` apply).
    @inline(__always)
    func _overruleMargin(_ model: _CompiledModel) -> Double {
        let s = modelScratch!
        guard s.below >= 0, !model.overrule.isEmpty else { return -1 }
        let slot = s.current
        return model.overrule[(Int(s.slotScript[slot].rawValue) &* 5 &+ rules[Int(s.below)].action.rawValue) &* model.targetCount &+ Int(s.slotWinner[slot])]
    }

    /// The model's verdict for the message in the current slot, or nil when it abstains (see
    /// `_modelAbstention`; `vouched`: a registered transactional sender vouches for the message, so only a
    /// transaction verdict is the model's to give).
    /// `yielded`: a rule below the model fired whose action the model learned too little of in this script.
    func _modelVerdict(_ model: _CompiledModel, vouched: Bool, yielded: Bool) -> Verdict? {
        let s = modelScratch!
        let slot = s.current
        if _modelAbstention(model) != .decides { return nil }
        if vouched, model.targets[Int(s.slotWinner[slot])].action != .transaction { return nil }
        if yielded { return nil }
        var v = model.verdicts[Int(s.slotWinner[slot])]
        let top = Int(s.slotFeature[slot])
        if top >= 0 {
            v.phrase = model.phraseIDs[top]
            v.matchStart = s.slotStart[slot]
            v.matchEnd = s.slotEnd[slot]
        }
        return v
    }
}

extension Classifier {
    /// The action of the hand rules that may refine the model's verdict for the message in the current slot:
    /// the model's own action when its winning target names no sub-action (a rule of that action supplies
    /// the folder), `allow` when it says `none` (a rule that allows the message moves it to the Inbox); nil
    /// for targets with a sub-action and for `junk`/`allow`, which have no finer folder.
    func _refiningAction(_ model: _CompiledModel) -> Action? {
        let s = modelScratch!
        let target = model.targets[Int(s.slotWinner[s.current])]
        guard target.subAction == .none else { return nil }
        switch target.action {
        case .transaction, .promotion: return target.action
        case .none: return .allow
        case .junk, .allow: return nil
        }
    }

    /// The model's verdict `v` with the folder of rule `r` (the best firing rule of the refining action
    /// below the model's priority; -1: none). The verdict stays the model's (its rule index and deciding
    /// phrase); only the action's sub-action, or `none` → `allow`, comes from the rule.
    func _refined(_ v: Verdict, by r: Int) -> Verdict {
        modelScratch!.refinedBy = Int32(r)
        guard r >= 0 else { return v }
        let rule = rules[r]
        var out = v
        out.action = rule.action
        out.requestedSubAction = rule.requested
        out.subAction = rule.validation.subAction
        out.dropped = rule.validation.dropped
        out.folder = rule.validation.folder
        return out
    }
}

extension Classifier {
    /// The learned model's phrases present in `body`, each once, in order of first match, as indices into
    /// the model's phrase list; what the model's score is computed from (`smsfilter learn` trains on
    /// exactly these). Empty when the rule set has no model.
    /// - Returns: the message's main script (``Script``; `.none` when the rule set has no model).
    /// - Complexity: O(body length + matches); allocates nothing once `features` has grown.
    @discardableResult
    public func modelFeatures(body: UnsafeRawBufferPointer, into features: inout [Int32]) -> Script {
        features.removeAll(keepingCapacity: true)
        guard ruleSet.model != nil else { return .none }
        matchBuffer.removeAll(keepingCapacity: true)
        _scan(body)
        let s = modelScratch!
        var k = 0
        while k < s.touchedCount {
            features.append(s.touched[k])
            k += 1
        }
        return s.slotScript[0]
    }
}
