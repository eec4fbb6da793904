// MARK: Internal API
//
// When the learned model is scored. The scan (`Classifier._scan`, `_scanBatch`) only notes where each
// message's text for the model is (its body, or the normaliser's rewrite of it) and marks its slot pending;
// `_weigh` scores the slot of the message being decided only when the model can decide it or a full trace
// records the model: not when a number list or a rule at or above the model's priority decided, nor when the
// message's main script is one the model abstains on (found first by a cheaper pass over the same text,
// `_modelMainScript`, run unless the text's first non-ASCII word character is of a script the model speaks
// on, `_modelMaySpeak`: a guess that only saves the pass, since a text it waves through is scanned). Such a
// message costs no model scan and its verdict is the same as if the model had been scored: its scores are
// read nowhere else. The model's phrases are looked up in its own table
// (`_ModelFeatures.swift`), no automaton, so nothing is gained by scoring a batch's messages together: each
// slot is scored by the one-message code, which keeps batch and single verdicts the same bit for bit.

/// Where a slot's text for the model is (`_ModelScratch.slotSource`): the body, the normaliser's whole output
/// (the one-message path), or (r ≥ 0) the normaliser's rewritten span r of the batch.
enum _ModelSource {
    static let body: Int32 = -1
    static let normalized: Int32 = -2
}

extension Classifier {
    /// Marks every message of the batch in `spanBuffer` pending (after the rules' scan: bodies the
    /// normalisation rewrote are in the normaliser's output, in slot order).
    func _modelPrepareBatch() {
        let s = modelScratch!
        let count = spanBuffer.count
        let norm = normalizer
        var r = 0
        var k = 0
        while k < count {
            if norm.mode != .none, r < norm.rewrittenOrigin.count, Int(norm.rewrittenOrigin[r]) == k {
                s.slotSource[k] = Int32(r)
                r += 1
            } else {
                s.slotSource[k] = _ModelSource.body
            }
            s.slotPending[k] = true
            k += 1
        }
        s.current = 0
    }

    /// Marks the one message `_scan` just scanned pending in slot 0 (`normalized`: the normaliser rewrote it).
    @inline(__always)
    func _modelPrepareOne(normalized: Bool) {
        let s = modelScratch!
        s.current = 0
        s.slotSource[0] = normalized ? _ModelSource.normalized : _ModelSource.body
        s.slotPending[0] = true
    }

    /// Scores the message being decided (slot `current`, whose body is `body`) unless it is scored already;
    /// with `checkScript`, first finds the main script of its text (`_modelMainScript`) and leaves the slot
    /// unscored when the model abstains on that script (it cannot decide: row 5 of docs/RULES.md §10).
    /// Returns whether the slot is scored. (Never inlined: one call per message that needs the model, and the
    /// model's stage stays one function in a profile, `Scripts/measure-rules-stages.sh`.)
    @inline(never)
    func _modelScoreCurrent(_ model: _CompiledModel, body: UnsafeRawBufferPointer, checkScript: Bool) -> Bool {
        let s = modelScratch!
        let slot = s.current
        guard s.slotPending[slot] else { return true }
        let source = Int(s.slotSource[slot])
        let n = normalizer.text
        let text: UnsafeRawBufferPointer
        let starts: UnsafePointer<Int32>?
        let ends: UnsafePointer<Int32>?
        if source == Int(_ModelSource.body) {
            (text, starts, ends) = _modelBodyText(model, body)
        } else if source == Int(_ModelSource.normalized) {
            (text, starts, ends) = (n.output, n.sourceStart.baseAddress, n.sourceEnd.baseAddress)
        } else {
            let range = normalizer.rewrittenSpans[source]
            (text, starts, ends) = (UnsafeRawBufferPointer(rebasing: n.output[range]),
                                    n.sourceStart.baseAddress! + range.lowerBound, n.sourceEnd.baseAddress! + range.lowerBound)
        }
        if checkScript, model.abstainsOnSomeScript, !_modelMaySpeak(model, text, s) {
            return false
        }
        s.slotPending[slot] = false
        _modelScore(model, text, starts: starts, ends: ends, slot: slot)
        return true
    }
}
