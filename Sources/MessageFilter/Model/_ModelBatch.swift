// MARK: Internal API
//
// The batch path of the learned model: the model texts of a whole batch (up to `Classifier.batchSize`
// messages) go into one buffer and the model's automaton scans them in lockstep
// (`AhoCorasick.forEachMatch(in:spans:)`: several messages per step, so the misses on a large table
// overlap). Matches of different messages interleave, so each message keeps its own sums, and a feature is
// counted once per message with a per-feature batch stamp and a 64-bit mask of the messages that already
// counted it. Within one message matches still come in order of end, so the sums are added in the same
// order as the one-message path (`_modelScore`) adds them: the same scores to the last bit, and the same
// deciding phrase (the first present phrase with the highest weight for the winner).
//
// The per-slot arrays are raw pointers owned by `_ModelBatchScratch` (allocated once, sized by the model's
// target count and the batch size); every index below is a slot < batchSize or a feature < featureCount.

import AhoCorasick

final class _ModelBatchScratch {
    let slots = Classifier.batchSize
    let targets: Int
    let features: Int
    /// Per feature: the batch that last counted it, and which of its messages did (one 16-byte record: one
    /// cache line per match).
    let seen: UnsafeMutablePointer<_Seen>
    var batch: UInt32 = 0
    /// Per slot × target: weight sums, and the strongest present phrase for that target (weight, feature,
    /// first match in the model text).
    let sums: UnsafeMutablePointer<Double>
    let topWeight: UnsafeMutablePointer<Float>
    let topFeature: UnsafeMutablePointer<Int32>
    let topStart: UnsafeMutablePointer<Int32>
    let topEnd: UnsafeMutablePointer<Int32>
    /// Per slot: Σ idf², its model text, whether it has bytes ≥ 0x80.
    let norm: UnsafeMutablePointer<Double>
    let spans: UnsafeMutablePointer<_ModelSpan>
    /// Ranges handed to the automaton, and for the wide automaton the slots they belong to.
    let ranges: UnsafeMutablePointer<Range<Int>>
    let wideRanges: UnsafeMutablePointer<Range<Int>>
    let wideSlots: UnsafeMutablePointer<Int32>
    /// Slot → index in the normaliser's rewritten list, -1 when the body is scanned as it is.
    let rewritten: UnsafeMutablePointer<Int32>

    init(targets: Int, features: Int) {
        self.targets = targets
        self.features = max(1, features)
        seen = .allocate(capacity: self.features)
        seen.initialize(repeating: _Seen(batch: 0, mask: 0), count: self.features)
        let cells = slots * targets
        sums = .allocate(capacity: cells)
        sums.initialize(repeating: 0, count: cells)
        topWeight = .allocate(capacity: cells)
        topWeight.initialize(repeating: 0, count: cells)
        topFeature = .allocate(capacity: cells)
        topFeature.initialize(repeating: -1, count: cells)
        topStart = .allocate(capacity: cells)
        topStart.initialize(repeating: 0, count: cells)
        topEnd = .allocate(capacity: cells)
        topEnd.initialize(repeating: 0, count: cells)
        norm = .allocate(capacity: slots)
        norm.initialize(repeating: 0, count: slots)
        spans = .allocate(capacity: slots)
        spans.initialize(repeating: _ModelSpan(range: 0..<0, mapped: false, insertions: 0..<0), count: slots)
        ranges = .allocate(capacity: slots)
        ranges.initialize(repeating: 0..<0, count: slots)
        wideRanges = .allocate(capacity: slots)
        wideRanges.initialize(repeating: 0..<0, count: slots)
        wideSlots = .allocate(capacity: slots)
        wideSlots.initialize(repeating: 0, count: slots)
        rewritten = .allocate(capacity: slots)
        rewritten.initialize(repeating: -1, count: slots)
    }

    deinit {
        seen.deallocate()
        sums.deallocate()
        topWeight.deallocate()
        topFeature.deallocate()
        topStart.deallocate()
        topEnd.deallocate()
        norm.deallocate()
        spans.deinitialize(count: slots)
        spans.deallocate()
        ranges.deinitialize(count: slots)
        ranges.deallocate()
        wideRanges.deinitialize(count: slots)
        wideRanges.deallocate()
        wideSlots.deallocate()
        rewritten.deallocate()
    }
}

/// A feature's batch stamp: the batch that last counted it and the mask of its messages that did.
struct _Seen {
    var batch: UInt32
    var mask: UInt64
}

/// What one match does to its message's sums (plain pointers; a value so the scan closures capture no
/// class reference).
struct _ModelAccumulator {
    let gen: UInt32
    let targets: Int
    let seen: UnsafeMutablePointer<_Seen>
    let sums: UnsafeMutablePointer<Double>
    let norm: UnsafeMutablePointer<Double>
    let topWeight: UnsafeMutablePointer<Float>
    let topFeature: UnsafeMutablePointer<Int32>
    let topStart: UnsafeMutablePointer<Int32>
    let topEnd: UnsafeMutablePointer<Int32>
    /// `_CompiledModel.rows`.
    let rows: UnsafePointer<Float>
    let rowStride: Int

    /// Feature `f` matched `[a, b)` (model-text positions) in slot `k`.
    @inline(__always)
    func add(_ k: Int, _ f: Int, _ a: Int, _ b: Int) {
        let bit = UInt64(1) << UInt64(k)
        let stamp = seen + f
        if stamp.pointee.batch != gen {
            stamp.pointee = _Seen(batch: gen, mask: bit)
        } else {
            if stamp.pointee.mask & bit != 0 { return }
            stamp.pointee.mask |= bit
        }
        let row = rows + f &* rowStride
        let idf = Double(row[targets])
        norm[k] += idf * idf
        let cell = k &* targets
        let cut = Int(row[targets &+ 1])
        var j = 0
        while j < targets {
            let w = row[j]
            sums[cell &+ j] += Double(w)
            if w > topWeight[cell &+ j] {
                topWeight[cell &+ j] = w
                topFeature[cell &+ j] = Int32(truncatingIfNeeded: f)
                topStart[cell &+ j] = Int32(truncatingIfNeeded: a &+ cut)
                topEnd[cell &+ j] = Int32(truncatingIfNeeded: b &- cut)
            }
            j &+= 1
        }
    }
}

extension Classifier {
    /// Scores every message of the batch in `spanBuffer` into its slot (after the rules' scan: bodies the
    /// normalisation rewrote are in the normaliser's output).
    func _modelScanBatch(_ model: _CompiledModel, _ buffer: UnsafeRawBufferPointer) {
        let s = modelScratch!
        let b = s.batch
        let count = spanBuffer.count
        let text = s.text
        text.reset()
        // Which bodies were rewritten, and where their normalised text is.
        let norm = normalizer
        var k = 0
        while k < count {
            b.rewritten[k] = -1
            k += 1
        }
        if norm.mode != .none {
            var i = 0
            while i < norm.rewrittenOrigin.count {
                b.rewritten[Int(norm.rewrittenOrigin[i])] = Int32(i)
                i += 1
            }
        }
        // The model texts, in slot order.
        let n = norm.text
        var wideCount = 0
        k = 0
        while k < count {
            let r = Int(b.rewritten[k])
            let span: _ModelSpan
            if r >= 0 {
                let range = norm.rewrittenSpans[r]
                span = text.append(UnsafeRawBufferPointer(rebasing: n.output[range]),
                                   sourceStart: n.sourceStart.baseAddress! + range.lowerBound,
                                   sourceEnd: n.sourceEnd.baseAddress! + range.lowerBound, fold: false)
            } else {
                span = _modelTextOfBody(model, UnsafeRawBufferPointer(rebasing: buffer[spanBuffer[k]]))
            }
            b.spans[k] = span
            b.ranges[k] = span.range
            if span.mapped, _hasHighByte(UnsafeRawBufferPointer(rebasing: text.output[span.range])) {
                b.wideRanges[wideCount] = span.range
                b.wideSlots[wideCount] = Int32(k)
                wideCount += 1
            }
            // Fresh sums for the slot.
            b.norm[k] = 0
            var j = 0
            while j < b.targets {
                let cell = k * b.targets + j
                b.sums[cell] = 0
                b.topWeight[cell] = 0
                b.topFeature[cell] = -1
                j += 1
            }
            k += 1
        }
        b.batch &+= 1
        if b.batch == 0 {
            b.seen.update(repeating: _Seen(batch: 0, mask: 0), count: b.features)
            b.batch = 1
        }
        if let matcher = model.matcher {
            model.rows.withUnsafeBufferPointer { rows in
                let acc = _ModelAccumulator(
                    gen: b.batch, targets: b.targets, seen: b.seen, sums: b.sums,
                    norm: b.norm, topWeight: b.topWeight, topFeature: b.topFeature, topStart: b.topStart,
                    topEnd: b.topEnd, rows: rows.baseAddress!, rowStride: model.rowStride)
                let output = text.output
                let starts = b.ranges
                if let narrow = matcher.narrow {
                    matcher.narrowMap.withUnsafeBufferPointer { map in
                        narrow.forEachMatch(in: output, spans: UnsafeBufferPointer(start: b.ranges, count: count)) { k, m in
                            acc.add(k, Int(map[m.pattern]), starts[k].lowerBound &+ m.start, starts[k].lowerBound &+ m.end)
                        }
                    }
                }
                if let wide = matcher.wide, wideCount > 0 {
                    let wideRanges = b.wideRanges
                    let wideSlots = b.wideSlots
                    matcher.wideMap.withUnsafeBufferPointer { map in
                        wide.forEachMatch(in: output, spans: UnsafeBufferPointer(start: wideRanges, count: wideCount)) { i, m in
                            let k = Int(wideSlots[i])
                            acc.add(k, Int(map[m.pattern]), wideRanges[i].lowerBound &+ m.start, wideRanges[i].lowerBound &+ m.end)
                        }
                    }
                }
            }
        }
        // Scores, winner and deciding phrase per slot (as `_modelScore` computes them).
        let t = b.targets
        k = 0
        while k < count {
            let normSquared = b.norm[k]
            let inverse = normSquared > 0 ? 1 / normSquared.squareRoot() : 0
            var best = 0
            var bestScore = 0.0
            var j = 0
            while j < t {
                let score = model.bias[j] + b.sums[k * t + j] * inverse
                if j == 0 || score > bestScore {
                    best = j
                    bestScore = score
                }
                j += 1
            }
            var second = -Double.infinity
            j = 0
            while j < t {
                let score = model.bias[j] + b.sums[k * t + j] * inverse
                if j != best, score > second { second = score }
                j += 1
            }
            let cell = k * t + best
            s.slotWinner[k] = Int32(best)
            s.slotScore[k] = bestScore
            s.slotMargin[k] = bestScore - second
            s.slotScript[k] = b.spans[k].script
            let top = b.topFeature[cell]
            s.slotFeature[k] = top
            s.slotEvidence[k] = normSquared > 0
            if top >= 0 {
                (s.slotStart[k], s.slotEnd[k]) = text.sourceSpan(Int(b.topStart[cell]), Int(b.topEnd[cell]), of: b.spans[k])
            }
            k += 1
        }
    }
}
