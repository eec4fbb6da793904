// The classifier's use of its learned model: scoring a message (the scan, the fast paths, the main script)
// and what the model decides over the rules' verdict.

extension Classifier {
    /// Finds the model's phrases in `text` (the body, or its normalised text when `starts`/`ends` give each
    /// byte's span of the body) and scores the message into the scratch (scores, present features, first
    /// spans) and into batch slot `slot`.
    /// - Complexity: O(text length × the model's part lengths + present phrases × targets); allocates nothing.
    func _modelScore(_ model: _CompiledModel, _ text: UnsafeRawBufferPointer, starts: UnsafePointer<Int32>?,
                     ends: UnsafePointer<Int32>?, slot: Int, findScript: Bool = true) {
        let s = modelScratch!
        s.generation &+= 1
        if s.generation == 0 {
            s.message.stamp.update(repeating: 0, count: s.features)
            s.stateStamp.update(repeating: 0, count: s.stateCount)
            s.generation = 1
        }
        let t = model.targetCount
        var k = 0
        while k < t {
            s.message.sums[k] = 0
            k += 1
        }
        // The hit path is a struct passed inout (no closure, no captured variable: closures capturing the
        // counters cost a dynamic exclusivity check per phrase found, a quarter of the scan's instructions).
        var hits = _ModelHits(gen: s.generation, buffers: s.message, weights: model.table.tables.weights, starts: starts, ends: ends)
        let script: Script
        if let automaton = model.automaton {
            script = findScript ? _modelMainScript(model.table, text, s) : .none
            _modelAutomatonScan(automaton, text, s, model.table.flags, &hits)
        } else {
            script = model.hasTableFeatures ? _modelCandidates(model.table, text, s, &hits) : _modelMainScript(model.table, text, s)
            if let phrases = model.textPhrases { _modelTextPhrases(phrases, text, s, &hits) }
        }
        var d = 0
        while d < hits.deferredCount {
            hits.add(Int(hits.buffers.deferred[d]))
            d &+= 1
        }
        let touchedCount = hits.touchedCount
        let normSquared = hits.normSquared
        s.touchedCount = touchedCount
        s.normSquared = normSquared
        let inverse = normSquared > 0 ? 1 / normSquared.squareRoot() : 0
        var best = 0
        k = 0
        while k < t {
            let score = model.bias[k] + s.message.sums[k] * inverse
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
        // The deciding phrase: the present phrase that pushes hardest towards the winner (read from the packed
        // rows: `weights[f * t + best]` is `rows[f * rowStride + best]`).
        var top = -1
        var topWeight: Float = 0
        let rows = model.table.tables.weights.rows
        let stride = model.rowStride
        let touched = s.message.touched
        k = 0
        while k < touchedCount {
            let f = Int(touched[k])
            let w = rows[f &* stride &+ best]
            if w > topWeight {
                top = f
                topWeight = w
            }
            k &+= 1
        }
        s.slots[slot].winner = Int32(best)
        s.slots[slot].score = s.scores[best]
        s.slots[slot].feature = Int32(top)
        s.slots[slot].evidence = normSquared > 0
        s.slots[slot].margin = s.scores[best] - second
        s.slots[slot].script = script
        if top >= 0 {
            s.slots[slot].start = s.message.firstStart[top]
            s.slots[slot].end = s.message.firstEnd[top]
        }
    }

    /// Passes the text phrases present in `text` to `hits` (`_TextPhrases`): the automaton writes its match
    /// positions into the scratch, then each distinct match state's features are checked in.
    func _modelTextPhrases(_ phrases: _TextPhrases, _ text: UnsafeRawBufferPointer, _ s: _ModelScratch, _ hits: inout _ModelHits) {
        s.reservePositions(text.count)
        let positions = s.positions
        let count = phrases.automaton.matchStates(in: text, into: UnsafeMutableBufferPointer(start: positions, count: s.positionCapacity))
        let seen = s.stateStamp
        let gen = s.generation
        phrases.withLists { starts, features, length in
            var k = 0
            while k < count {
                let entry = positions[k]
                k &+= 1
                // Why in bounds: the automaton writes states 1…M, the lists' size.
                let state = Int(truncatingIfNeeded: entry >> 32)
                if seen[state] == gen { continue }
                seen[state] = gen
                let end = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF)
                var q = Int(starts[state &- 1])
                let last = Int(starts[state])
                while q < last {
                    let f = Int(features[q])
                    hits.hit(f, end &- Int(length[f]), end)
                    q &+= 1
                }
            }
        }
    }

    /// The text the model scores for a body that normalisation leaves alone: the body itself, or under `none`
    /// with non-ASCII letters, the body with their case folded (in the scratch), with each byte's span of the
    /// body.
    @inline(__always)
    func _modelBodyText(_ model: _CompiledModel, _ body: UnsafeRawBufferPointer)
        -> (UnsafeRawBufferPointer, starts: UnsafePointer<Int32>?, ends: UnsafePointer<Int32>?) {
        guard model.foldsText, _hasHighByte(body) else { return (body, nil, nil) }
        let s = modelScratch!
        s.reserveFolded(body.count)
        var sink = _ByteSink(bytes: s.folded, starts: s.foldedStart, ends: s.foldedEnd, count: 0, flags: _ScalarFlags.shared)
        var i = 0
        while i < body.count {
            let b = body[i]
            if b < 0x80 {
                sink.put(UInt32(b), Int32(truncatingIfNeeded: i), Int32(truncatingIfNeeded: i &+ 1))
                i &+= 1
                continue
            }
            let (v, len) = _decodeUTF8(body, i)
            let l = max(1, len)
            sink.put(len == 0 ? _TextNormalizer.rawBit | UInt32(b) : v, Int32(truncatingIfNeeded: i), Int32(truncatingIfNeeded: i &+ l))
            i &+= l
        }
        return (UnsafeRawBufferPointer(start: s.folded, count: sink.count), UnsafePointer(s.foldedStart), UnsafePointer(s.foldedEnd))
    }

    /// Whether the model may speak on `text`'s main script: false only when it certainly abstains on it
    /// (row 5 of docs/RULES.md §10), so that the scan can be skipped. An ASCII text is Latin, or letterless
    /// without a letter: found eight bytes at a time. Otherwise a guess decides whether finding the main
    /// script is worth a pass over every character (`_modelMainScript`): not when the first word character
    /// among the text's first four non-ASCII characters is of a script the model speaks on (Thai text: one
    /// look, then the scan, as it would run anyway). The guess never changes a verdict: a text it waves
    /// through is scanned, and the model then abstains or not on the scan's own tally.
    func _modelMaySpeak(_ model: _CompiledModel, _ text: UnsafeRawBufferPointer, _ s: _ModelScratch) -> Bool {
        let n = text.count
        guard n > 0, let p = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return !model.abstainsOnScript[Int(Script.none.rawValue)]
        }
        var i = _skipASCII(text, from: 0)
        if i == n {
            var letter = false
            var k = 0
            while k < n, !letter {
                letter = (p[k] | 0x20) &- 0x61 < 26
                k &+= 1
            }
            return !model.abstainsOnScript[Int((letter ? Script.latin : Script.none).rawValue)]
        }
        let flags = model.table.flags
        let blocks = model.table.scriptBlocks.table
        var looked = 0
        while i < n, looked < 4 {
            looked &+= 1
            let (v, l) = _decodeUTF8(text, i)
            i &+= max(1, l)
            if l > 0, flags.isWord(v) {
                if !model.abstainsOnScript[Int(_ScriptBlocks.script(of: v, blocks))] { return true }
                break
            }
            i = _skipASCII(text, from: i)
        }
        return !model.abstainsOnScript[Int(_modelMainScript(model.table, text, s).rawValue)]
    }

    /// The main script of `text` as the model's scan finds it (`_modelCandidates`: ASCII letters are Latin,
    /// other word characters by `_modelHighScalar`), without the scan: ASCII letters are counted eight bytes at
    /// a time (an ASCII text never gets here: `_modelMaySpeak` answers it), a three-byte character
    /// of a 64-scalar group of one script with one load (`_ScriptBlocks.groups`; and its word flag, unless the
    /// group is all word characters: CJK ideographs), any other by the scan's own step: about half the
    /// instructions of reading one scalar at a time (docs/PERFORMANCE.md, "The model only where it can decide").
    func _modelMainScript(_ table: _ModelFeatureTable, _ text: UnsafeRawBufferPointer, _ s: _ModelScratch) -> Script {
        let n = text.count
        guard n > 0, let p = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return .none }
        var tally = _ScriptTally(counts: s.scriptCounts)
        let blocks = table.scriptBlocks.table
        let groups = _ScriptBlocks.shared.groups
        let flags = table.flags
        let highs: UInt64 = 0x8080_8080_8080_8080
        var latin: UInt32 = 0
        var i = 0
        while i < n {
            // Eight ASCII bytes at a time: their letters (`(b | 0x20) - 0x61 < 26` per byte, as the scan counts
            // them: after `| 0x20` a byte is 0x20…0x7F, so + 0x1F sets its high bit from 0x61 on and + 0x05 from
            // 0x7B on, with no carry between bytes).
            if i &+ 8 <= n {
                let x = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                if x & highs == 0 {
                    let y = x | 0x2020_2020_2020_2020
                    let letters = (y &+ 0x1F1F_1F1F_1F1F_1F1F) & ~(y &+ 0x0505_0505_0505_0505) & highs
                    latin &+= UInt32(truncatingIfNeeded: letters.nonzeroBitCount)
                    i &+= 8
                    continue
                }
            }
            let b = p[i]
            if b < 0x80 {
                if (b | 0x20) &- 0x61 < 26 { latin &+= 1 }
                i &+= 1
                continue
            }
            if b & 0xF0 == 0xE0, i &+ 2 < n, p[i &+ 1] & 0xC0 == 0x80, p[i &+ 2] & 0xC0 == 0x80 {
                let c1 = p[i &+ 1]
                let e = groups[Int(b & 0x0F) << 6 | Int(c1 & 0x3F)]
                let script = e & _ScriptBlocks.groupMixed
                if script != _ScriptBlocks.groupMixed {
                    // (A group of one script is well-formed: overlong and surrogate groups are mixed.)
                    if e & _ScriptBlocks.groupAllWords != 0
                        || flags.isWord(UInt32(b & 0x0F) << 12 | UInt32(c1 & 0x3F) << 6 | UInt32(p[i &+ 2] & 0x3F)) {
                        tally.add(raw: script)
                    }
                    i &+= 3
                    continue
                }
            }
            i &+= _modelHighScalar(text, i, flags, blocks, &tally).len
        }
        latin = tally.latinOfWords(latin, in: text)
        if latin > 0 { s.scriptCounts[Int(Script.latin.rawValue)] &+= latin; tally.mask |= 1 << UInt32(Script.latin.rawValue) }
        return tally.finish()
    }

    /// Passes every phrase occurrence in `text` to `hits` (feature, start, end), in the order the model's
    /// automaton reported them (by end; at one end, longest first); returns the main script.
    ///
    /// The model's hot loop (about half of classification's instructions per byte with the default model):
    /// the run's counters stay locals here, its steps are pure `@_transparent` functions taking them by value
    /// (`_ModelScan.swift`), its per-message constants a `let` (`_ModelScanPlan`). The other shapes measured
    /// cost 3–19% more: the steps `@inline(__always)` (two were outlined), a state struct passed `inout` (kept
    /// in memory or outlined), `_WordChain.end` inlined (docs/PERFORMANCE.md, "The model's scan in steps").
    /// Measure a change to its shape with callgrind (`make budget`).
    @inline(__always)
    func _modelCandidates(_ table: _ModelFeatureTable, _ text: UnsafeRawBufferPointer, _ s: _ModelScratch,
                          _ hits: inout _ModelHits) -> Script {
        var tally = _ScriptTally(counts: s.scriptCounts)
        let blocks = table.scriptBlocks.table
        let n = text.count
        guard n > 0, let p = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return .none }
        let flags = table.flags
        let plan = _ModelScanPlan(table, s)
        var kind = 0  // the run at i: 0 none (after a space), 1 word, 2 symbol
        var runStart = 0
        var runScalars = 0
        var lastDigit = Int.min / 2  // scalar index (in the run) of its last ASCII digit
        var unspaced = 0  // unspaced-script scalars ending here
        var latin: UInt32 = 0
        // (The word chain is a struct with explicit arguments, not a nested function: one capturing these
        // counters allocated a box per counter per message in unoptimised builds.)
        var chain = _WordChain(s.message, maxWords: table.maxWords)
        var i = 0
        while i < n {
            let b = p[i]
            var (len, word, digit, isUnspaced) = (1, false, false, false)
            if b < 0x80 {
                let letter = (b | 0x20) &- 0x61 < 26
                digit = b &- 0x30 < 10
                word = letter || digit
                if letter { latin &+= 1 }
            } else {
                (len, word, isUnspaced) = _modelHighScalar(text, i, flags, blocks, &tally)
            }
            if word {
                if kind != 1 {
                    kind = 1
                    runStart = i
                    runScalars = 0
                    lastDigit = Int.min / 2
                    unspaced = 0
                }
                plan.ring[runScalars & plan.mask] = Int32(truncatingIfNeeded: i)
                if digit { lastDigit = runScalars }
                runScalars &+= 1
                unspaced = isUnspaced ? unspaced &+ 1 : 0
                let end = i &+ len
                _modelProbeWordRun(table, plan, p, runScalars, lastDigit, unspaced, end, &hits)
                i = end
                // ASCII letters that follow, while no part can end at them (no digit within `maxDigit` scalars
                // behind, no any-substring part; an ASCII letter ends every unspaced stretch), only extend the
                // run: taken in a tight loop (what the loop above does for them, minus the probes it skips).
                if !plan.anyPart && runScalars &- lastDigit >= plan.maxDigit {
                    let j = _modelASCIILetters(p, n, i, plan, runScalars)
                    if j != i {
                        runScalars &+= j &- i
                        latin &+= UInt32(truncatingIfNeeded: j &- i)
                        unspaced = 0
                        i = j
                    }
                }
                continue
            }
            if kind == 1 { chain.end(p, runStart, i, count: n, table, &hits) }
            if b == 0x20 {
                kind = 0
            } else if plan.symbolCount > 0 {
                if kind != 2 {
                    kind = 2
                    runScalars = 0
                }
                plan.ring[runScalars & plan.mask] = Int32(truncatingIfNeeded: i)
                runScalars &+= 1
                _modelProbeSymbols(table, plan, p, runScalars, i &+ len, &hits)
            } else {
                kind = 2
            }
            i &+= len
        }
        if kind == 1 { chain.end(p, runStart, n, count: n, table, &hits) }
        latin = tally.latinOfWords(latin, in: text)
        if latin > 0 { s.scriptCounts[Int(Script.latin.rawValue)] &+= latin; tally.mask |= 1 << UInt32(Script.latin.rawValue) }
        return tally.finish()
    }

    /// Why the model abstains on the message in the current slot (`.decides`: it does not), before the sender
    /// is looked at (``ModelDefinition``, "When the model abstains").
    @inline(__always)
    func _modelAbstention(_ model: _CompiledModel) -> _ModelAbstention {
        let s = modelScratch!
        let slot = s.current
        if !s.slots[slot].evidence { return .noEvidence }
        if model.abstainsOnScript[Int(s.slots[slot].script.rawValue)] { return .script }
        let overrule = _overruleMargin(model)
        if overrule >= 0 {
            if s.slots[slot].margin < overrule { return .overrule }
        } else if s.slots[slot].margin < model.margins[Int(s.slots[slot].winner)] {
            return .margin
        }
        if model.hasThreshold && s.slots[slot].score < model.threshold { return .threshold }
        return .decides
    }

    /// Whether, with its winner for the message in the current slot, the model yields to a firing rule of action
    /// `action` (``ModelDefinition/yields(to:on:with:)``).
    @inline(__always)
    func _yields(_ model: _CompiledModel, to action: Action) -> Bool {
        let s = modelScratch!
        let slot = s.current
        return model.yields[(Int(s.slots[slot].script.rawValue) &* 5 &+ action.rawValue) &* model.targetCount &+ Int(s.slots[slot].winner)]
    }

    /// The margin the winner needs to overrule the best firing rule below the model (`below`) for the message
    /// in the current slot; -1 when it would not overrule one (no rule below fired, the rule has the winner's
    /// action, or the model's overrules are not calibrated: its `margins` apply).
    @inline(__always)
    func _overruleMargin(_ model: _CompiledModel) -> Double {
        let s = modelScratch!
        guard s.below >= 0, !model.overrule.isEmpty else { return -1 }
        let slot = s.current
        return model.overrule[(Int(s.slots[slot].script.rawValue) &* 5 &+ rules[Int(s.below)].action.rawValue) &* model.targetCount &+ Int(s.slots[slot].winner)]
    }

    /// The model's verdict for the message in the current slot, or nil when it abstains (see
    /// `_modelAbstention`; `vouched`: a registered transactional sender vouches for the message, so only a
    /// transaction verdict is the model's to give).
    /// `yielded`: a rule below the model fired whose action the model learned too little of in this script.
    func _modelVerdict(_ model: _CompiledModel, vouched: Bool, yielded: Bool) -> Verdict? {
        let s = modelScratch!
        let slot = s.current
        if _modelAbstention(model) != .decides { return nil }
        if vouched, model.targets[Int(s.slots[slot].winner)].action != .transaction { return nil }
        if yielded { return nil }
        var v = model.verdicts[Int(s.slots[slot].winner)]
        let top = Int(s.slots[slot].feature)
        if top >= 0 {
            v.phrase = model.phraseIDs[top]
            v.matchStart = s.slots[slot].start
            v.matchEnd = s.slots[slot].end
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
        let target = model.targets[Int(s.slots[s.current].winner)]
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
    /// The learned model's phrases present in `body`, each once (word and part phrases in order of first match,
    /// then text phrases), as indices into the model's phrase list; what the model's score is computed from
    /// (`smsfilter learn` trains on exactly these). Empty when the rule set has no model.
    /// - Returns: the message's main script (``Script``; `.none` when the rule set has no model).
    /// - Complexity: O(body length + matches); allocates nothing once `features` has grown.
    @discardableResult
    public func modelFeatures(body: UnsafeRawBufferPointer, into features: inout [Int32]) -> Script {
        features.removeAll(keepingCapacity: true)
        guard let model = ruleSet.model else { return .none }
        matchBuffer.removeAll(keepingCapacity: true)
        _scan(body)
        _ = _modelScoreCurrent(model, body: body, checkScript: false)
        let s = modelScratch!
        var k = 0
        while k < s.touchedCount {
            features.append(s.message.touched[k])
            k += 1
        }
        return s.slots[0].script
    }

    /// The main script the model's scan would find in `body` (as `modelFeatures` returns it), found by the
    /// cheaper pass that decides whether to scan (`_modelMainScript`) over the same text; `.none` without a
    /// model. For tests: the two must agree on every body.
    func _modelMainScriptBeforeScan(body: UnsafeRawBufferPointer) -> Script {
        guard let model = ruleSet.model else { return .none }
        let rewritten = normalizer.mode != .none && normalizer.mode.needsRewrite(body)
        guard rewritten else { return _modelMainScript(model.table, _modelBodyText(model, body).0, modelScratch!) }
        normalizer.text.normalize(body, mode: normalizer.mode)
        return normalizer.text.withOutput { text, _, _ in _modelMainScript(model.table, text, modelScratch!) }
    }
}

extension _ScriptTally {
    /// `add` by the script's raw value (< `Script.allCases.count`; the model's scan reads it from
    /// `_ScriptBlocks`, and `Script(rawValue:)` was a call per non-ASCII letter).
    @inline(__always)
    mutating func add(raw: UInt8) {
        counts[Int(raw)] &+= 1
        mask |= 1 << UInt32(raw)
    }
}
