// MARK: Internal checks

extension _ModelScratch {
    /// The first way this scratch cannot serve `model`'s scan, or nil: room for every feature, target and
    /// match state, a ring longer than the longest part, a chain as long as the longest word phrase less one.
    func _invariantProblem(for model: _CompiledModel) -> String? {
        let t = model.table.tables
        guard features >= t.featureCount, targets == model.targetCount, t.weights.targets == model.targetCount else {
            return "model scratch: \(features) features, \(targets) targets for \(t.featureCount), \(model.targetCount)"
        }
        guard message.ringMask >= t.runs.maxPartScalars, (message.ringMask + 1) & message.ringMask == 0 else {
            return "model scratch: a ring of \(message.ringMask + 1) for parts of \(t.runs.maxPartScalars) scalars"
        }
        guard chainCapacity >= t.runs.maxWords - 1 else { return "model scratch: a chain of \(chainCapacity) for \(t.runs.maxWords) words" }
        let states = max(model.textPhrases?.matchStateCount ?? 0, model.automaton?.matchStateCount ?? 0) + 1
        guard stateCount >= states else { return "model scratch: \(stateCount) state stamps for \(states) states" }
        return nil
    }

    /// Traps when the scratch or the model's tables are broken (only with `-DMESSAGEFILTER_INTERNAL_CHECKS`:
    /// at every batch; allocates nothing unless it traps, `_ModelTables._shapeProblem`).
    @inline(__always)
    func _checkInvariants(for model: _CompiledModel) {
        #if MESSAGEFILTER_INTERNAL_CHECKS
        if let problem = _invariantProblem(for: model) ?? model.table.withTables({ $0._shapeProblem() }) {
            preconditionFailure(problem)
        }
        #endif
    }
}
