import AhoCorasick

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
    /// Where the rules' automata write the positions of their match states (`_PhraseMatcher.forEachMatchBulk`,
    /// lent to it for one scan).
    @exclusivity(unchecked) var positions = [MatchStatePosition](repeating: MatchStatePosition(span: 0, state: 0, end: 0), count: 1024)

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
        n.withOutput { text, starts, ends in
            for i in phraseScans.indices {
                let (matcher, map) = phraseScans[i]
                matcher.forEachMatch(in: text) { p, s, e in
                    // Word edges are judged in the normalised text (look-alike letters are Latin letters there).
                    if latin[Int(map[p])] != 0, !_edgesHold(latin[Int(map[p])], text, s, e) { return }
                    matchBuffer.append(_RawMatch(phrase: map[p], start: starts[s], end: ends[e - 1], span: 0))
                }
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
        let latin = ruleSet.latinWordPhrases
        for i in phraseScans.indices {
            let (matcher, map) = phraseScans[i]
            map.withUnsafeBufferPointer { map in
                latin.withUnsafeBufferPointer { latin in
                    // One bulk scan of `text`'s spans (their source offsets in `starts`/`ends` when it is rewritten).
                    func scan(_ text: UnsafeRawBufferPointer, _ spans: [Range<Int>], _ origin: [Int32],
                              starts: UnsafeBufferPointer<Int32>?, ends: UnsafeBufferPointer<Int32>?) {
                        spans.withUnsafeBufferPointer { spans in
                            origin.withUnsafeBufferPointer { origin in
                                var sink = _BatchMatchSink(text: text, spans: spans, origin: origin,
                                                           map: map, latin: latin, starts: starts, ends: ends)
                                // (The matches move into the sink and back: appended there without a retain of the classifier.)
                                swap(&sink.matches, &matchBuffer)
                                scratch.positions.withUnsafeMutableBufferPointer { positions in
                                    matcher.forEachMatchBulk(in: text, spans: spans, positions: positions, &sink)
                                }
                                swap(&sink.matches, &matchBuffer)
                            }
                        }
                    }
                    scan(buffer, scratch.plainSpans, scratch.plainOrigin, starts: nil, ends: nil)
                    n.withOutput { text, starts, ends in
                        scan(text, scratch.rewrittenSpans, scratch.rewrittenOrigin, starts: starts, ends: ends)
                    }
                }
            }
        }
    }
}

/// `_scanBatchNormalized`'s matches into the classifier's `matchBuffer`: word edges judged in the scanned text (the
/// normalised text for rewritten bodies: look-alike letters are Latin letters there), offsets mapped back to the
/// original bytes through `starts` and `ends` when the text was rewritten (a match that starts or ends inside a
/// rewritten character covers the whole character).
struct _BatchMatchSink: _PhraseSink {
    /// The classifier's `matchBuffer`, moved here for the scan.
    var matches: [_RawMatch] = []
    let text: UnsafeRawBufferPointer
    let spans: UnsafeBufferPointer<Range<Int>>
    let origin: UnsafeBufferPointer<Int32>
    let map: UnsafeBufferPointer<Int32>
    let latin: UnsafeBufferPointer<UInt8>
    let starts: UnsafeBufferPointer<Int32>?
    let ends: UnsafeBufferPointer<Int32>?

    @inline(__always)
    mutating func found(span k: Int, pattern p: Int, start s: Int, end e: Int) {
        let g = map[p]
        let edge = latin[Int(g)]
        if edge != 0, !_edgesHold(edge, UnsafeRawBufferPointer(rebasing: text[spans[k]]), s, e) { return }
        if let starts, let ends {
            let base = spans[k].lowerBound
            matches.append(_RawMatch(phrase: g, start: starts[base + s], end: ends[base + e - 1],
                                                    span: origin[k]))
        } else {
            matches.append(_RawMatch(phrase: g, start: Int32(truncatingIfNeeded: s),
                                                    end: Int32(truncatingIfNeeded: e), span: origin[k]))
        }
    }
}
