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

/// Where a slot's text for the model is (`_ModelSlot.source`): the body, the normaliser's whole output
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
        #if MESSAGEFILTER_INTERNAL_CHECKS
        if let model = ruleSet.model { s._checkInvariants(for: model) }
        #endif
        let count = spanBuffer.count
        let norm = normalizer
        var r = 0
        var k = 0
        while k < count {
            if norm.mode != .none, r < norm.rewrittenOrigin.count, Int(norm.rewrittenOrigin[r]) == k {
                s.slots[k].source = Int32(r)
                r += 1
            } else {
                s.slots[k].source = _ModelSource.body
            }
            s.slots[k].pending = true
            k += 1
        }
        s.current = 0
    }

    /// Marks the one message `_scan` just scanned pending in slot 0 (`normalized`: the normaliser rewrote it).
    @inline(__always)
    func _modelPrepareOne(normalized: Bool) {
        let s = modelScratch!
        s.current = 0
        s.slots[0].source = normalized ? _ModelSource.normalized : _ModelSource.body
        s.slots[0].pending = true
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
        guard s.slots[slot].pending else { return true }
        return _withModelSlotText(model, body: body) { text, starts, ends in
            if checkScript, model.abstainsOnSomeScript, !_modelMaySpeak(model, text, s) {
                return false
            }
            s.slots[slot].pending = false
            _modelScore(model, text, starts: starts, ends: ends, slot: slot)
            return true
        }
    }

    /// Calls `use` with the text the model reads for the message in the current slot (its body, folded when the
    /// model folds text, or the normaliser's rewrite of it) and the body offsets of each byte when they differ.
    /// - warning: Do not escape the pointers (the normaliser's output is lent for the call).
    @inline(__always)
    func _withModelSlotText<R>(
        _ model: _CompiledModel, body: UnsafeRawBufferPointer,
        _ use: (UnsafeRawBufferPointer, _ starts: UnsafePointer<Int32>?, _ ends: UnsafePointer<Int32>?) -> R
    ) -> R {
        let s = modelScratch!
        let source = Int(s.slots[s.current].source)
        if source == Int(_ModelSource.body) {
            // (Apart: the normaliser, lent below, is then not held across `use`.)
            let (text, starts, ends) = _modelBodyText(model, body)
            return use(text, starts, ends)
        }
        return normalizer.text.withOutput { output, sourceStart, sourceEnd in
            if source == Int(_ModelSource.normalized) { return use(output, sourceStart.baseAddress, sourceEnd.baseAddress) }
            let range = normalizer.rewrittenSpans[source]
            return use(UnsafeRawBufferPointer(rebasing: output[range]),
                       sourceStart.baseAddress! + range.lowerBound, sourceEnd.baseAddress! + range.lowerBound)
        }
    }

    /// Links are evidence only with company (docs/RULES.md §10, "Links"): whether the model's verdict for the
    /// message in the current slot (scored, deciding) files it in Junk or Promotions on the strength of its links
    /// alone. The text is scored again with every link `_URLScanner` finds blanked out (spaces, so offsets
    /// stay); when that text holds no model evidence, or its winner files nothing (none, allow or a
    /// transaction), the verdict rests on the links alone and the model abstains (`linkFreeWinner` holds that
    /// winner, or `Int32.max` for no evidence). The slot's results are restored afterwards; with `rescore` (a full
    /// trace, which reads the scratch's scores and phrases too) the whole text is scored again instead.
    /// Costs nothing for a verdict that files nothing, and one URL scan for one that does without a link.
    @inline(never)
    func _modelLinkAlone(_ model: _CompiledModel, body: UnsafeRawBufferPointer, rescore: Bool) -> Bool {
        let s = modelScratch!
        let slot = s.current
        s.linkFreeWinner = -1
        let winner = Int(s.slots[slot].winner)
        guard model.targets[winner].action.isJunkOrPromotion else { return false }
        return _withModelSlotText(model, body: body) { text, starts, ends in
            _modelTextLinkAlone(model, text, starts: starts, ends: ends, slot: slot, rescore: rescore)
        }
    }

    /// `_modelLinkAlone` of the slot's text (with the body offsets of its bytes when they differ).
    @inline(__always)
    func _modelTextLinkAlone(_ model: _CompiledModel, _ text: UnsafeRawBufferPointer, starts: UnsafePointer<Int32>?,
                             ends: UnsafePointer<Int32>?, slot: Int, rescore: Bool) -> Bool {
        let s = modelScratch!
        var scanner = _URLScanner(text)
        guard var url = scanner.next() else { return false }
        s.linkFree.removeAll(keepingCapacity: true)
        s.linkFree.append(contentsOf: text)
        while true {
            for i in url.start..<url.end { s.linkFree[i] = 0x20 }
            guard let next = scanner.next() else { break }
            url = next
        }
        let saved = s.slots[slot]  // (scoring leaves `source` and `pending` as they are)
        let linkFree = s.linkFree
        // (The link-free text's main script is not read: the slot's is restored below, or scored again.)
        linkFree.withUnsafeBytes { _modelScore(model, $0, starts: starts, ends: ends, slot: slot, findScript: false) }
        let other = s.slots[slot].winner
        let otherEvidence = s.slots[slot].evidence
        let alone = !otherEvidence || !model.targets[Int(other)].action.isJunkOrPromotion
        if rescore {
            _modelScore(model, text, starts: starts, ends: ends, slot: slot)
        } else {
            s.slots[slot] = saved
        }
        if alone { s.linkFreeWinner = otherEvidence ? other : Int32.max }
        return alone
    }
}
