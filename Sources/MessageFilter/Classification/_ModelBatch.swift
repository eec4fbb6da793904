// MARK: Internal API
//
// The batch path of the learned model: after the rules' lockstep scan of a batch (up to
// `Classifier.batchSize` messages), each message's text is looked up in the model's phrase table in turn
// (`_ModelFeatures.swift`). No automaton runs for the model, so nothing is gained by interleaving messages:
// each slot is scored by the one-message code, which keeps batch and single verdicts the same bit for bit.

extension Classifier {
    /// Scores every message of the batch in `spanBuffer` into its slot (after the rules' scan: bodies the
    /// normalisation rewrote are in the normaliser's output).
    func _modelScanBatch(_ model: _CompiledModel, _ buffer: UnsafeRawBufferPointer) {
        let s = modelScratch!
        let count = spanBuffer.count
        let norm = normalizer
        // Rewritten bodies come in slot order (`_scanBatchNormalized`), so one cursor walks them.
        var r = 0
        var k = 0
        while k < count {
            if norm.mode != .none, r < norm.rewrittenOrigin.count, Int(norm.rewrittenOrigin[r]) == k {
                let range = norm.rewrittenSpans[r]
                let n = norm.text
                _modelScore(model, UnsafeRawBufferPointer(rebasing: n.output[range]),
                            starts: n.sourceStart.baseAddress! + range.lowerBound,
                            ends: n.sourceEnd.baseAddress! + range.lowerBound, slot: k)
                r += 1
            } else {
                _modelScoreBody(model, UnsafeRawBufferPointer(rebasing: buffer[spanBuffer[k]]), slot: k)
            }
            k += 1
        }
        s.current = 0
    }
}
