// MARK: Internal checks

extension _ModelTables {
    /// The first way the tables break what the scan's unchecked reads rely on, or nil when they hold: the
    /// slot table is a power of two at least 64 long and at most half full (every probe ends at an empty slot),
    /// each slot names a feature, once; the filter has its 2^`filterBits` bits; the pattern offsets run from 0
    /// up to the pattern bytes' end, one more than the features; the part,
    /// symbol and unspaced lengths are longest first, at most `maxPartScalars`, with the needs and the summary
    /// figures (`anyPart`, `maxDigitPart`, `minUnspacedPart`) agreeing with them; the rows are `rowStride`
    /// floats per feature with room for the weights, the idf and the trim flag. O(slots + features + rows).
    func _invariantProblem() -> String? {
        if let problem = _shapeProblem() { return problem }
        var seen = Set<Int>()
        for s in index.slots where s != 0 {
            guard seen.insert(Int(s & 0xFFFF_FFFF) - 1).inserted else {
                return "model tables: feature \(Int(s & 0xFFFF_FFFF) - 1) is in two slots"
            }
        }
        return nil
    }

    /// `_invariantProblem` without the one check that needs memory (each feature in one slot at most):
    /// allocates nothing unless it finds a problem, so it may run per batch (`_ModelScratch._checkInvariants`).
    func _shapeProblem() -> String? {
        let (slots, slotMask, filter) = (index.slots, index.slotMask, index.filter)
        let (patternBytes, patternStart) = (index.patternBytes, index.patternStart)
        let (partLength, partNeed, symbolLength, unspacedLength) = (runs.partLength, runs.partNeed, runs.symbolLength, runs.unspacedLength)
        let (maxWords, maxPartScalars, anyPart) = (runs.maxWords, runs.maxPartScalars, runs.anyPart)
        let (maxDigitPart, minUnspacedPart) = (runs.maxDigitPart, runs.minUnspacedPart)
        let (wide, rows, rowStride, targets) = (weights.wide, weights.rows, weights.rowStride, weights.targets)
        let slotCount = slots.count
        // (At least two slots per feature and each feature in one slot at most: at most half full.)
        guard slotCount >= 64, slotCount & (slotCount - 1) == 0, slotMask == slotCount - 1, slotCount >= 2 * featureCount else {
            return "model tables: \(slotCount) slots, mask \(slotMask), for \(featureCount) features"
        }
        guard filter.count == (1 << _ModelPhraseIndex.filterBits) / 64 else { return "model tables: a filter of \(filter.count) words" }
        guard wide.count == featureCount, patternStart.count == featureCount + 1 else {
            return "model tables: \(wide.count) wide flags, \(patternStart.count) pattern starts for \(featureCount) features"
        }
        guard patternStart[0] == 0, Int(patternStart[featureCount]) == patternBytes.count else {
            return "model tables: the pattern starts do not span the \(patternBytes.count) pattern bytes"
        }
        for f in 0..<featureCount where patternStart[f] > patternStart[f + 1] {
            return "model tables: the pattern of feature \(f) runs backwards"
        }
        for s in slots where s != 0 {
            let f = Int(s & 0xFFFF_FFFF) - 1
            guard f >= 0, f < featureCount else { return "model tables: a slot names feature \(f) of \(featureCount)" }
        }
        guard partLength.count == partNeed.count else { return "model tables: \(partLength.count) part lengths, \(partNeed.count) needs" }
        func longestFirst(_ name: StaticString, _ lengths: UnsafeBufferPointer<Int>) -> String? {
            for k in 0..<lengths.count {
                let l = lengths[k]
                guard l >= 1, l <= maxPartScalars, k == 0 || lengths[k - 1] > l else {
                    return "model tables: \(name) length \(l) at \(k) (longest first, 1…\(maxPartScalars))"
                }
            }
            return nil
        }
        if let problem = longestFirst("part", partLength) ?? longestFirst("symbol", symbolLength)
            ?? longestFirst("unspaced", unspacedLength) { return problem }
        let needs = _ModelFeatureTable.needUnspaced | _ModelFeatureTable.needDigit | _ModelFeatureTable.needNothing
        var unspaced = 0  // the part lengths needing unspaced characters, in order: `unspacedLength`
        var digit = 0  // the longest part length needing a digit: `maxDigitPart`
        var any = false
        for k in 0..<partNeed.count {
            let need = partNeed[k]
            guard need != 0, need & ~needs == 0 else { return "model tables: part length \(partLength[k]) needs \(need)" }
            if need & _ModelFeatureTable.needUnspaced != 0 {
                guard unspaced < unspacedLength.count, unspacedLength[unspaced] == partLength[k] else {
                    return "model tables: the unspaced lengths are not the parts' (at \(unspaced))"
                }
                unspaced += 1
            }
            if need & _ModelFeatureTable.needDigit != 0 { digit = max(digit, partLength[k]) }
            if need & _ModelFeatureTable.needNothing != 0 { any = true }
        }
        guard unspaced == unspacedLength.count, minUnspacedPart == (unspaced == 0 ? Int.max : unspacedLength[unspaced - 1]) else {
            return "model tables: the unspaced lengths are not the parts' (minimum \(minUnspacedPart))"
        }
        guard maxDigitPart == digit, anyPart == any else {
            return "model tables: maxDigitPart \(maxDigitPart) or anyPart \(anyPart) disagrees with the part needs"
        }
        guard maxWords >= 0, maxPartScalars >= 0 else { return "model tables: maxWords \(maxWords), maxPartScalars \(maxPartScalars)" }
        if rows.count != 0 || targets != 0 {
            guard targets >= 1, rowStride >= targets + 2, rows.count == featureCount * rowStride else {
                return "model tables: \(rows.count) row floats for \(featureCount) features of stride \(rowStride), \(targets) targets"
            }
            for f in 0..<featureCount {
                let trim = rows[f * rowStride + targets + 1]
                guard trim == 0 || trim == 1, rows[f * rowStride + targets].isFinite else {
                    return "model tables: feature \(f)'s row has idf \(rows[f * rowStride + targets]), trim \(trim)"
                }
            }
        }
        return nil
    }

    /// Traps when the tables are broken (`_invariantProblem`). Compiled in only with
    /// `-DMESSAGEFILTER_INTERNAL_CHECKS` (`make test-filter-checks`): run when a model is compiled (built or
    /// loaded); `_shapeProblem` runs again at every batch the classifier scores.
    @inline(__always)
    func _checkInvariants() {
        #if MESSAGEFILTER_INTERNAL_CHECKS
        if let problem = _invariantProblem() { preconditionFailure(problem) }
        #endif
    }
}
