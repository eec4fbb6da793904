/// A ``ModelDefinition`` ready for scoring: weights in one flat array (feature-major), each model phrase's
/// id in the rule set's phrase table, and the verdict of each target, validated against the capabilities.
final class _CompiledModel: Sendable {
    let name: String
    let priority: Int
    let hasThreshold: Bool
    let threshold: Double
    let targetCount: Int
    let featureCount: Int
    /// Global phrase id → model feature index, -1 for phrases that are only the rules'.
    let featureOf: [Int32]
    /// Feature → global phrase id.
    let phraseIDs: [Int32]
    /// `weights[feature * targetCount + target]`.
    let weights: [Float]
    /// idf² per feature (the length normalisation's terms).
    let idfSquared: [Double]
    let bias: [Double]
    /// Per target: the verdict the model gives (the rule index is the model's, see ``RuleSet/ruleNames``).
    let verdicts: [Verdict]
    let targets: [ModelDefinition.Target]

    init(_ m: ModelDefinition, phraseIDs ids: [Int32], phraseCount: Int, ruleIndex: Int32, capabilities: Capabilities) {
        name = m.name
        priority = m.priority
        hasThreshold = m.threshold != nil
        threshold = Double(m.threshold ?? 0)
        targetCount = m.targets.count
        featureCount = m.phrases.count
        targets = m.targets
        var of = [Int32](repeating: -1, count: phraseCount)
        for (f, id) in ids.enumerated() where of[Int(id)] < 0 { of[Int(id)] = Int32(f) }
        featureOf = of
        phraseIDs = ids
        var w: [Float] = []
        w.reserveCapacity(m.phrases.count * m.targets.count)
        for p in m.phrases { w += p.weights }
        weights = w
        idfSquared = m.phrases.map { Double($0.idf) * Double($0.idf) }
        bias = m.bias.map(Double.init)
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
    }
}

/// Per-classifier scratch for scoring (allocated once; `stamp` marks the features already counted for the
/// current message, so repeated matches of a phrase count once).
final class _ModelScratch {
    var generation: UInt32 = 0
    let stamp: UnsafeMutablePointer<UInt32>
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

    init(_ model: _CompiledModel) {
        features = max(1, model.featureCount)
        targets = model.targetCount
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
    }

    deinit {
        stamp.deallocate()
        firstStart.deallocate()
        firstEnd.deallocate()
        touched.deallocate()
        sums.deallocate()
        scores.deallocate()
    }
}

extension Classifier {
    /// Scores every target for the message whose matches are `matches` into `modelScratch`; returns the
    /// winning target (the highest score, the first on ties).
    /// - Complexity: O(matches × targets); allocates nothing.
    func _modelScores(_ model: _CompiledModel, _ matches: UnsafeBufferPointer<_RawMatch>) -> Int {
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
        s.touchedCount = 0
        var normSquared = 0.0
        model.featureOf.withUnsafeBufferPointer { featureOf in
            model.weights.withUnsafeBufferPointer { weights in
                for m in matches {
                    let f = Int(featureOf[Int(m.phrase)])
                    if f < 0 { continue }
                    if s.stamp[f] == gen {
                        if m.start < s.firstStart[f] {
                            s.firstStart[f] = m.start
                            s.firstEnd[f] = m.end
                        }
                        continue
                    }
                    s.stamp[f] = gen
                    s.firstStart[f] = m.start
                    s.firstEnd[f] = m.end
                    s.touched[s.touchedCount] = Int32(f)
                    s.touchedCount += 1
                    normSquared += model.idfSquared[f]
                    let base = f * t
                    var j = 0
                    while j < t {
                        s.sums[j] += Double(weights[base + j])
                        j += 1
                    }
                }
            }
        }
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
        return best
    }

    /// The model's verdict for the message, or nil when it abstains (best score below the threshold).
    func _modelVerdict(_ model: _CompiledModel, _ matches: UnsafeBufferPointer<_RawMatch>) -> Verdict? {
        let best = _modelScores(model, matches)
        let s = modelScratch!
        if model.hasThreshold && s.scores[best] < model.threshold { return nil }
        var v = model.verdicts[best]
        // The deciding phrase: the present phrase that pushes hardest towards the winner.
        var top = -1
        var topWeight: Float = 0
        var k = 0
        while k < s.touchedCount {
            let f = Int(s.touched[k])
            let w = model.weights[f * model.targetCount + best]
            if w > topWeight {
                top = f
                topWeight = w
            }
            k += 1
        }
        if top >= 0 {
            v.phrase = model.phraseIDs[top]
            v.matchStart = s.firstStart[top]
            v.matchEnd = s.firstEnd[top]
        }
        return v
    }
}

extension Classifier {
    /// The learned model's phrases present in `body`, each once, in order of first match, as indices into
    /// the model's phrase list; what the model's score is computed from (`smsfilter learn` trains on
    /// exactly these). Empty when the rule set has no model.
    /// - Complexity: O(body length + matches); allocates nothing once `features` has grown.
    public func modelFeatures(body: UnsafeRawBufferPointer, into features: inout [Int32]) {
        features.removeAll(keepingCapacity: true)
        guard let model = ruleSet.model else { return }
        matchBuffer.removeAll(keepingCapacity: true)
        _scan(body)
        _ = matchBuffer.withUnsafeBufferPointer { _modelScores(model, $0) }
        let s = modelScratch!
        var k = 0
        while k < s.touchedCount {
            features.append(s.touched[k])
            k += 1
        }
    }
}
