/// A classifier's normalisation scratch: the normaliser and, for the batch path, the bodies split into
/// those scanned as they are and those rewritten first. Reused for every message. Used by one thread at a time
/// (its classifier's) and never re-entrantly, so the dynamic exclusivity checks are switched off, as the
/// classifier's own scratch's are (with them, 0.9 instructions per byte on gen40k: `make budget`).
final class _NormalizationScratch {
    let mode: TextNormalization
    let text = _TextNormalizer()
    @exclusivity(unchecked) var plainSpans: [Range<Int>] = []
    @exclusivity(unchecked) var plainOrigin: [Int32] = []
    @exclusivity(unchecked) var rewrittenSpans: [Range<Int>] = []
    @exclusivity(unchecked) var rewrittenOrigin: [Int32] = []

    init(mode: TextNormalization) {
        self.mode = mode
        plainSpans.reserveCapacity(Classifier.batchSize)
        plainOrigin.reserveCapacity(Classifier.batchSize)
        rewrittenSpans.reserveCapacity(Classifier.batchSize)
        rewrittenOrigin.reserveCapacity(Classifier.batchSize)
    }
}

extension Classifier {
    /// `_scan` for a body that the rule set's normalisation rewrites: scans the normalised text and maps
    /// every match back to the original bytes (a match that starts or ends inside a rewritten character
    /// covers the whole character).
    func _scanNormalized(_ body: UnsafeRawBufferPointer) {
        let latin = ruleSet.latinWordPhrases
        let n = normalizer.text
        n.normalize(body, mode: normalizer.mode)
        let text = n.output
        let starts = n.sourceStart
        let ends = n.sourceEnd
        for i in phraseScans.indices {
            let (matcher, map) = phraseScans[i]
            matcher.forEachMatch(in: text) { p, s, e in
                // Word edges are judged in the normalised text (look-alike letters are Latin letters there).
                if latin[Int(map[p])] != 0, !_edgesHold(latin[Int(map[p])], text, s, e) { return }
                matchBuffer.append(_RawMatch(phrase: map[p], start: starts[s], end: ends[e - 1], span: 0))
            }
        }
    }

    /// `_scanBatch` under a normalisation: bodies the mode leaves alone are scanned in place, in lockstep;
    /// the others are normalised into one buffer, scanned in lockstep there, and their matches mapped back.
    func _scanBatchNormalized(_ buffer: UnsafeRawBufferPointer) {
        let scratch = normalizer
        let n = scratch.text
        n.reset()
        scratch.plainSpans.removeAll(keepingCapacity: true)
        scratch.plainOrigin.removeAll(keepingCapacity: true)
        scratch.rewrittenSpans.removeAll(keepingCapacity: true)
        scratch.rewrittenOrigin.removeAll(keepingCapacity: true)
        var k = 0
        while k < spanBuffer.count {
            let span = spanBuffer[k]
            let body = UnsafeRawBufferPointer(rebasing: buffer[span])
            if scratch.mode.needsRewrite(body) {
                scratch.rewrittenSpans.append(n.append(body, mode: scratch.mode))
                scratch.rewrittenOrigin.append(Int32(k))
            } else {
                scratch.plainSpans.append(span)
                scratch.plainOrigin.append(Int32(k))
            }
            k += 1
        }
        let text = n.output
        let starts = n.sourceStart
        let ends = n.sourceEnd
        let latin = ruleSet.latinWordPhrases
        for i in phraseScans.indices {
            let (matcher, map) = phraseScans[i]
            scratch.plainSpans.withUnsafeBufferPointer { spans in
                scratch.plainOrigin.withUnsafeBufferPointer { origin in
                    matcher.forEachMatch(in: buffer, spans: spans) { k, p, s, e in
                        if latin[Int(map[p])] != 0, !_edgesHold(latin[Int(map[p])], UnsafeRawBufferPointer(rebasing: buffer[spans[k]]), s, e) { return }
                        matchBuffer.append(_RawMatch(phrase: map[p], start: Int32(truncatingIfNeeded: s),
                                                     end: Int32(truncatingIfNeeded: e), span: origin[k]))
                    }
                }
            }
            scratch.rewrittenSpans.withUnsafeBufferPointer { spans in
                scratch.rewrittenOrigin.withUnsafeBufferPointer { origin in
                    matcher.forEachMatch(in: text, spans: spans) { k, p, s, e in
                        if latin[Int(map[p])] != 0, !_edgesHold(latin[Int(map[p])], UnsafeRawBufferPointer(rebasing: text[spans[k]]), s, e) { return }
                        let base = spans[k].lowerBound
                        matchBuffer.append(_RawMatch(phrase: map[p], start: starts[base + s], end: ends[base + e - 1], span: origin[k]))
                    }
                }
            }
        }
    }
}
