/// Classifies messages with a ``RuleSet``. Not `Sendable`: make one per worker thread and reuse it for
/// millions of messages; after warm-up, classifying allocates nothing.
///
/// ### Decision order
/// 1. The sender is on the block list: junk (nothing else is looked at).
/// 2. The sender is on the identification list: allow, with the list's label.
/// 3. Rules: a rule fires when its sender condition holds, one of its `keywords` (if any) and one phrase of
///    each `all` group are present, and none of its `unless` phrases is. Among the rules that fire, the
///    highest `priority` wins, then the earliest match in the body (rules with only sender conditions
///    count as matching after every phrase), then file order.
/// 4. The winner's pair is validated (``Capabilities/validate(action:subAction:)``).
public final class Classifier {
    /// The rule set this classifier applies.
    public let ruleSet: RuleSet
    let rules: [_CompiledRule]
    let useStart: [Int32]
    let uses: [UInt32]
    /// The rule set's phrase automata (one per case mode its rules use), each with its map from the
    /// automaton's pattern numbers to the rule set's phrase ids.
    let phraseScans: [(matcher: _PhraseMatcher, map: [Int32])]

    // Scratch, reused for every message (see `_evaluate`). A Classifier is used by one thread at a time
    // and these are never accessed re-entrantly, so the dynamic exclusivity checks are switched off.
    //
    // The raw buffers (`scratch`, `touched`, `senderSlots`, `senderBits`, `phone`, `vetoes`) are plain pointers, so
    // writing them costs no copy-on-write or exclusivity check per access. Each is allocated once in `init` by
    // `memory` (every element initialised) and freed with it when the classifier dies: the pointers are
    // borrowed from `memory`, valid for the classifier's life, never re-made and never handed out. Indices: a
    // rule < `ruleCount` (`scratch`, `vetoes`; `touched` holds at most one entry per rule), a slot ≤
    // `senderSlotCount + 1` (`senderSlots`, and its `2 × conditionWords` words of `senderBits`), a sender
    // condition < `conditionCount` (a bit of those words), a byte < 24 (`phone`).
    @exclusivity(unchecked) var generation: UInt32 = 0
    /// Per-rule state of the message being decided, one record per rule (valid when `stamp` is the
    /// current generation), and the rules touched by it.
    let scratch: UnsafeMutablePointer<_RuleScratch>
    let touched: UnsafeMutablePointer<Int32>
    let ruleCount: Int
    @exclusivity(unchecked) var matchBuffer: [_RawMatch] = []
    /// The body conditions found in the message being decided (see `_evaluate`).
    @exclusivity(unchecked) var featureBuffer: [_RawMatch] = []
    @exclusivity(unchecked) var sortedBuffer: [_RawMatch] = []
    @exclusivity(unchecked) var spanBuffer: [Range<Int>] = []
    @exclusivity(unchecked) var spanCounts: [Int] = []
    @exclusivity(unchecked) var spanCursor: [Int] = []
    /// The rule set's distinct sender conditions (`RuleSet.senderConditions`, which the rule set keeps alive),
    /// unretained: a condition is read per rule per message.
    let conditions: [Unmanaged<_CompiledSenderCondition>]
    let conditionCount: Int
    /// The senders seen lately (`Classifier+Senders.swift`, `_senderSlotInfo`): `senderSlotCount` slots, each
    /// keeping the last sender whose bytes chose it and its parse, then the slot of a sender too long to keep and
    /// the slot of no sender. Per slot, in `senderBits`, `conditionWords` words of which sender conditions were
    /// asked for its sender, then as many of their answers (bit k of word k / 64: condition k); `senderAnswers`
    /// points at the current message's slot's words.
    let senderSlots: UnsafeMutablePointer<_SenderSlot>
    let senderBits: UnsafeMutablePointer<UInt64>
    let conditionWords: Int
    @exclusivity(unchecked) var senderAnswers: UnsafeMutablePointer<UInt64>
    let unlessConditions: [Int32]
    /// The message's sender as exact and prefix lists compare it (`_senderKeyOf`), and its E.164 form's bytes
    /// (`+` and at most 19 digits), made once per message when a condition first needs them.
    @exclusivity(unchecked) var senderKey = _SenderKey()
    let phone: UnsafeMutablePointer<UInt8>
    /// Whether the message being decided is traced in full, and each rule's first vetoes then
    /// (`Classifier+Trace.swift`).
    @exclusivity(unchecked) var tracing = false
    let vetoes: UnsafeMutablePointer<_Veto>
    /// The memory of the raw buffers above.
    private let memory = _ScratchMemory()
    /// Normalisation scratch (see `Classifier+Normalization.swift`) and model scoring scratch.
    let normalizer: _NormalizationScratch
    let modelScratch: _ModelScratch?

    /// Messages classified together by the batch API (bounded scratch for the lockstep scan).
    static let batchSize = 64

    /// A classifier for `ruleSet`, with its scratch preallocated.
    public init(ruleSet: RuleSet) {
        self.ruleSet = ruleSet
        rules = ruleSet.rules
        useStart = ruleSet.useStart
        uses = ruleSet.uses
        phraseScans = (0..<2).compactMap { mode in ruleSet.matchers[mode].map { ($0, ruleSet.localToGlobal[mode]) } }
        let n = ruleSet.rules.count
        ruleCount = n
        let m = memory
        scratch = m.make(n, _RuleScratch())
        touched = m.make(n, 0)
        vetoes = m.make(n, _Veto())
        conditionCount = ruleSet.senderConditions.count
        conditions = ruleSet.senderConditions.map { Unmanaged.passUnretained($0) }
        conditionWords = max(1, (conditionCount + 63) >> 6)
        senderSlots = m.make(Classifier.senderSlotCount + 2, _SenderSlot())
        senderBits = m.make((Classifier.senderSlotCount + 2) * 2 * conditionWords, UInt64(0))
        senderAnswers = senderBits
        unlessConditions = ruleSet.unlessSenderConditions
        phone = m.make(24, 0)
        matchBuffer.reserveCapacity(4096)
        featureBuffer.reserveCapacity(256)
        sortedBuffer = Array(repeating: _RawMatch(phrase: 0, start: 0, end: 0, span: 0), count: 4096)
        spanBuffer.reserveCapacity(Classifier.batchSize)
        spanCounts = Array(repeating: 0, count: Classifier.batchSize + 1)
        spanCursor = Array(repeating: 0, count: Classifier.batchSize + 1)
        normalizer = _NormalizationScratch(mode: ruleSet.definition.normalization)
        modelScratch = ruleSet.model.map(_ModelScratch.init)
    }

    /// Classifies one message given as UTF-8 bytes (the body may hold invalid UTF-8).
    ///
    /// - Parameters:
    ///   - sender: the sender's bytes, or nil when the message has none.
    ///   - body: the body's bytes.
    /// - Returns: the validated verdict.
    /// - Complexity: O(body length + matches); no heap allocation in steady state.
    public func classify(sender: UnsafeRawBufferPointer?, body: UnsafeRawBufferPointer) -> Verdict {
        matchBuffer.removeAll(keepingCapacity: true)
        _scan(body)
        return matchBuffer.withUnsafeBufferPointer { _evaluate(sender: sender, body: body, matches: $0) }
    }

    /// Classifies one message and records how it was decided in `trace` (one more message in it).
    /// - Complexity: as ``classify(sender:body:)``; with ``DecisionTrace/Detail/full`` every body condition
    ///   is scanned. Allocates nothing once the trace's storage has grown.
    public func classify(sender: UnsafeRawBufferPointer?, body: UnsafeRawBufferPointer, trace: DecisionTrace) -> Verdict {
        matchBuffer.removeAll(keepingCapacity: true)
        _scan(body)
        return matchBuffer.withUnsafeBufferPointer { _evaluate(sender: sender, body: body, matches: $0, trace: trace) }
    }

    /// Classifies many messages held in one buffer, scanning their bodies in lockstep; gives the same
    /// verdicts as classifying them one by one.
    ///
    /// - Precondition: every span lies inside `buffer`, and `verdicts.count >= messages.count`.
    public func classify(buffer: UnsafeRawBufferPointer, messages: UnsafeBufferPointer<MessageSpan>,
                         into verdicts: UnsafeMutableBufferPointer<Verdict>) {
        _classifyBatch(buffer, messages, verdicts, trace: nil)
    }

    /// The batch call, recording how each message was decided in `trace` (one entry per message, in order).
    public func classify(buffer: UnsafeRawBufferPointer, messages: UnsafeBufferPointer<MessageSpan>,
                         into verdicts: UnsafeMutableBufferPointer<Verdict>, trace: DecisionTrace) {
        _classifyBatch(buffer, messages, verdicts, trace: trace)
    }

    func _classifyBatch(_ buffer: UnsafeRawBufferPointer, _ messages: UnsafeBufferPointer<MessageSpan>,
                        _ verdicts: UnsafeMutableBufferPointer<Verdict>, trace: DecisionTrace?) {
        precondition(verdicts.count >= messages.count, "the verdict buffer is smaller than the message count")
        var first = 0
        while first < messages.count {
            let count = min(Classifier.batchSize, messages.count - first)
            spanBuffer.removeAll(keepingCapacity: true)
            for k in first..<(first + count) {
                let m = messages[k]
                precondition(m.bodyStart >= 0 && m.bodyCount >= 0 && m.bodyStart <= buffer.count - m.bodyCount,
                             "message body span outside the buffer")
                precondition(m.senderCount < 0 || (m.senderStart >= 0 && m.senderStart <= buffer.count - m.senderCount),
                             "message sender span outside the buffer")
                spanBuffer.append(m.bodyStart..<(m.bodyStart + m.bodyCount))
            }
            matchBuffer.removeAll(keepingCapacity: true)
            _scanBatch(buffer)
            // Counting sort of the matches by message (stable), through buffer pointers (an array write checks
            // uniqueness each time). `sortedBuffer` only grows (allocating only when it does).
            // (Index loops: iterators over arrays allocate coroutine frames in unoptimised builds.)
            let matchCount = matchBuffer.count
            if sortedBuffer.count < matchCount {
                sortedBuffer.append(contentsOf: repeatElement(_RawMatch(phrase: 0, start: 0, end: 0, span: 0),
                                                              count: 2 * matchCount - sortedBuffer.count))
            }
            spanCounts.withUnsafeMutableBufferPointer { counts in
                spanCursor.withUnsafeMutableBufferPointer { cursor in
                    matchBuffer.withUnsafeBufferPointer { found in
                        sortedBuffer.withUnsafeMutableBufferPointer { sorted in
                            var i = 0
                            while i <= count { counts[i] = 0; i += 1 }
                            i = 0
                            while i < matchCount { counts[Int(found[i].span) + 1] += 1; i += 1 }
                            i = 0
                            while i < count { counts[i + 1] += counts[i]; i += 1 }
                            i = 0
                            while i <= count { cursor[i] = counts[i]; i += 1 }
                            i = 0
                            while i < matchCount {
                                let m = found[i]
                                sorted[cursor[Int(m.span)]] = m
                                cursor[Int(m.span)] += 1
                                i += 1
                            }
                        }
                    }
                }
            }
            for j in 0..<count {
                let m = messages[first + j]
                let body = UnsafeRawBufferPointer(rebasing: buffer[m.bodyStart..<(m.bodyStart + m.bodyCount)])
                let sender = m.senderCount < 0 ? nil
                    : UnsafeRawBufferPointer(rebasing: buffer[m.senderStart..<(m.senderStart + m.senderCount)])
                let lo = spanCounts[j]
                let hi = spanCounts[j + 1]
                modelScratch?.current = j
                verdicts[first + j] = sortedBuffer.withUnsafeBufferPointer {
                    _evaluate(sender: sender, body: body, matches: UnsafeBufferPointer(rebasing: $0[lo..<hi]), trace: trace)
                }
            }
            first += count
        }
    }

    /// Classifies one message given as strings (convenience; allocates).
    public func classify(sender: String?, body: String) -> Verdict {
        var b = body
        return b.withUTF8 { bodyBytes in
            if var s = sender {
                return s.withUTF8 { classify(sender: UnsafeRawBufferPointer($0), body: UnsafeRawBufferPointer(bodyBytes)) }
            }
            return classify(sender: nil, body: UnsafeRawBufferPointer(bodyBytes))
        }
    }

    // MARK: Internal

    /// Appends every phrase match in `body` to `matchBuffer` (span 0), and marks the learned model's slot 0, if
    /// any, to be scored when `_weigh` needs it.
    func _scan(_ body: UnsafeRawBufferPointer) {
        let rewritten = normalizer.mode.needsRewrite(body)
        if rewritten {
            _scanNormalized(body)
        } else {
            let latin = ruleSet.latinWordPhrases
            for i in phraseScans.indices {
                let (matcher, map) = phraseScans[i]
                matcher.forEachMatch(in: body) { p, s, e in
                    let g = map[p]
                    if latin[Int(g)] != 0, !_edgesHold(latin[Int(g)], body, s, e) { return }
                    matchBuffer.append(_RawMatch(phrase: g, start: Int32(truncatingIfNeeded: s),
                                                 end: Int32(truncatingIfNeeded: e), span: 0))
                }
            }
        }
        // (Under `none` the model reads the body, whose white space the rewrite collapsed for the rules only.)
        if ruleSet.model != nil { _modelPrepareOne(normalized: rewritten && normalizer.mode != .none) }
    }

    /// Appends every phrase match of every span in `spanBuffer` to `matchBuffer`, and marks the learned
    /// model's slot of each span, if any, to be scored when `_weigh` needs it.
    func _scanBatch(_ buffer: UnsafeRawBufferPointer) {
        // Every mode, `none` included, may rewrite a body (white space runs read as one space).
        _scanBatchNormalized(buffer)
        if ruleSet.model != nil { _modelPrepareBatch() }
    }

    /// Decides one message from its matches (recording how in `trace`, when given).
    func _evaluate(sender: UnsafeRawBufferPointer?, body: UnsafeRawBufferPointer,
                   matches: UnsafeBufferPointer<_RawMatch>, trace: DecisionTrace? = nil) -> Verdict {
        let set = ruleSet
        var info: SenderInfo?
        tracing = trace?.detail == .full
        if set.needsSender || (tracing && sender != nil) {
            info = set.needsSender ? _senderSlotInfo(sender)
                : SenderInfo.classify(sender, defaultCountryCode: set.definition.defaultCountryCode)
        }
        trace?.begin(sender: sender == nil ? nil : info, anchor: set.hasAnchoredPhrases ? _anchorOffset(body) : -1)
        if set.needsSender, let listed = _listVerdict(info!) {
            guard let trace else { return listed }
            trace.record(list: listed.list!)
            _weigh(sender: sender, body: body, matches: matches, info: info, trace: trace)
            return listed
        }
        return _weigh(sender: sender, body: body, matches: matches, info: info, trace: trace)
    }

    /// The verdict of a number list, when the sender is on one.
    @inline(__always)
    func _listVerdict(_ i: SenderInfo) -> Verdict? {
        let set = ruleSet
        guard i.kind == .phoneNumber else { return nil }
        if set.definition.blockList._sortedIndex(of: i.number) != nil {
            var v = Verdict()
            v.action = .junk
            v.folder = .junk
            v.list = .blockList
            return v
        }
        if let k = set.definition.identificationNumbers._sortedIndex(of: i.number) {
            var v = Verdict()
            v.action = .allow
            v.folder = .inbox
            v.list = .identificationList
            v.label = set.definition.identificationLabels[k]
            return v
        }
        return nil
    }

    /// Weighs the rules (and the model) for one message: records its matches (and the body conditions that can
    /// matter) in the rules' scratch, chooses the leading firing rule, then lets the model decide or not.
    @discardableResult
    func _weigh(sender: UnsafeRawBufferPointer?, body: UnsafeRawBufferPointer, matches: UnsafeBufferPointer<_RawMatch>,
                info: SenderInfo?, trace: DecisionTrace?) -> Verdict {
        let set = ruleSet
        let gen = _nextGeneration()
        var touchedCount = 0
        // Where a `startsWith` phrase must start (-1: the rule set has none).
        let anchor: Int32 = set.hasAnchoredPhrases ? _anchorOffset(body) : -1
        let full = trace?.detail == .full
        for m in matches {
            if full { trace!.record(match: m) }
            _apply(m, generation: gen, anchor: anchor, touchedCount: &touchedCount)
        }
        // Body conditions, found only when they can matter (`_bodyConditionKinds`).
        if let features = set.bodyFeatures {
            touchedCount = _classifierApplyBodyConditions(self, features, body: body, generation: gen, anchor: anchor,
                                                          touchedCount: touchedCount, trace: trace)
        }

        // Choose the winner (`_Leader`). With a model: also, per action that can refine its verdict, the best
        // firing rule below its priority (see `_refining`): all the model needs, gathered before it is scored, so
        // that it is scored only when it can decide. (Plain loops and structs, no local closure, so nothing is captured and boxed.)
        var best = _Leader()
        let model = set.model
        let hasModel = model != nil  // (a sentinel priority instead: +0.17 instructions per byte, gen40k)
        let modelPriority = model?.priority ?? Int.max
        var refine = _Refiners()
        var vouched = false  // a registered transactional sender's rule fired
        var k = 0
        let (senderOnly, first, senderOnlyCount) = _senderOnlyRules(info, present: sender != nil, full: full)
        while k < touchedCount + senderOnlyCount {
            let r: Int
            if k < touchedCount {
                r = Int(touched[k])
            } else {
                r = Int(senderOnly[first + k - touchedCount])
                if scratch[r].stamp == gen {  // already considered among the touched rules
                    k += 1
                    continue
                }
            }
            k += 1
            let pos = _classifierFiringPosition(self, r, generation: gen, sender: sender, info: info)
            if let trace { _record(r, pos, generation: gen, trace) }
            guard pos >= 0 else { continue }
            if rules[r].vouches { vouched = true }
            let priority = rules[r].priority
            best.consider(r, priority: priority, position: pos)
            if hasModel, priority < modelPriority {
                refine.consider(r, action: rules[r].action, priority: priority, position: pos)
            }
        }
        guard let model else {
            if full { _recordRulesDecided(nil, best: best, yielded: false, trace!) }
            return _ruleVerdict(best)
        }
        // The rule the model would overrule: the best firing rule below it (what the rules alone would decide).
        let decidable = best.rule < 0 || best.priority < model.priority
        modelScratch!.below = decidable ? Int32(best.rule) : -1
        // The model decides unless a rule at or above its priority fired (see ModelDefinition): only then, or
        // for a full trace, is it scored.
        guard decidable || full else { return _ruleVerdict(best) }
        // (Without a trace, a message of a script the model abstains on is left unscored: it cannot decide.)
        guard _modelScoreCurrent(model, body: body, checkScript: !full) else { return _ruleVerdict(best) }
        let yielded = _modelYields(model, decidable: decidable, below: best.rule, vouched: vouched, sender: sender, info: info,
                                   body: body, full: full)
        if decidable, let v = _modelVerdict(model, vouched: vouched, yielded: yielded) {
            let refiner = refine.rule(for: _refiningAction(model))
            let out = _refined(v, by: refiner)
            if full {
                _recordModel(model, decided: true, refinedBy: refiner, yielded: yielded, outranked: false, trace!)
                _recordFates(best: best.rule, bestPriority: best.priority, bestPos: best.position, modelDecided: true, trace!)
            }
            return out
        }
        if full { _recordRulesDecided(model, best: best, yielded: yielded, trace!) }
        return _ruleVerdict(best)
    }

    /// The sender-only rules to weigh for a sender of `info` (`present`: the message has one): those it can fire
    /// (`RuleSet.senderOnlyByGate`), or every one for a full trace (which records each), as a list and the range
    /// of it (first, count).
    @inline(__always)
    func _senderOnlyRules(_ info: SenderInfo?, present: Bool, full: Bool) -> ([Int32], Int, Int) {
        let set = ruleSet
        guard !full, let info else { return (set.senderOnlyRules, 0, set.senderOnlyRules.count) }
        let g = RuleSet.senderGate(of: info, present: present)
        let first = Int(set.senderOnlyGateStart[g])
        return (set.senderOnlyByGate, first, Int(set.senderOnlyGateStart[g + 1]) - first)
    }

    /// Whether the model, scored for the message in the current slot, leaves it to the rules below though it
    /// has a verdict (`below`: the best firing rule below it, -1 when none fired). It yields to the
    /// rules' verdict (the rule it would overrule) when it did not learn that rule's action well enough to
    /// overrule it; a lower firing rule the rules' verdict already outranks is no reason (it decides nothing
    /// either way). It yields to a registered sender on junk, and, with `links: company`, when its verdict rests
    /// on the message's links alone (`_modelLinkAlone`; `full`: a full trace, which reads the whole scores).
    @inline(__always)
    func _modelYields(_ model: _CompiledModel, decidable: Bool, below: Int, vouched: Bool, sender: UnsafeRawBufferPointer?,
                      info: SenderInfo?, body: UnsafeRawBufferPointer, full: Bool) -> Bool {
        modelScratch!.linkFreeWinner = -1
        if decidable, below >= 0, _yields(model, to: rules[below].action) { return true }
        if _junkFromRegisteredSender(model, sender: sender, info: info) { return true }
        return model.linksNeedCompany && decidable && !vouched && _modelAbstention(model) == .decides
            && _modelLinkAlone(model, body: body, rescore: full)
    }

    /// Whether the model's winner for the message in the current slot is junk and the sender a TRAI DLT header:
    /// a registered sender, so the model alone does not call its message junk.
    @inline(__always)
    func _junkFromRegisteredSender(_ model: _CompiledModel, sender: UnsafeRawBufferPointer?, info: SenderInfo?) -> Bool {
        guard sender != nil, model.targets[Int(modelScratch!.slots[modelScratch!.current].winner)].action == .junk else { return false }
        return (info ?? SenderInfo.classify(sender, defaultCountryCode: ruleSet.definition.defaultCountryCode)).isTRAIHeader
    }

    /// The generation stamp of a new message (the rules' scratch entries and the sender key of older stamps read
    /// as unknown); on wrap-around every stamp is cleared.
    @inline(__always)
    func _nextGeneration() -> UInt32 {
        generation &+= 1
        if generation == 0 {
            for i in 0..<ruleCount { scratch[i].stamp = 0 }
            senderKey.stamp = 0
            senderKey.hashStamp = 0
            generation = 1
        }
        return generation
    }

    /// The body-condition kinds to scan for: those some rule needs without any phrase
    /// (`_BodyFeatures.eagerKinds`), and those of the rules a phrase touched that can still fire: not vetoed,
    /// with their keyword and every group that is not a body condition. (A trace records every touched
    /// rule's groups, so it takes the kinds of every touched rule; tracing in full scans every kind: the
    /// extra matches only touch rules that cannot fire.)
    /// Without a trace, the eager URL scan of rules that only want a URL with an IP host (`urls: [ip]`) is
    /// skipped for a body that cannot hold one (`_BodyFeatures.mayHoldIPURL`), unless a candidate asks for URLs.
    @inline(__always)
    func _bodyConditionKinds(_ features: _BodyFeatures, body: UnsafeRawBufferPointer, touchedCount: Int, full: Bool,
                             traced: Bool) -> UInt8 {
        var candidateKinds: UInt8 = full ? 7 : 0
        var t = 0
        let kindsOf = ruleSet.ruleFeatureKinds
        while t < touchedCount, candidateKinds != 7 {
            let r = Int(touched[t])
            t += 1
            let k = kindsOf[r]
            if k == 0 || k | candidateKinds == candidateKinds { continue }
            if !traced {
                let rule = rules[r]
                if scratch[r].veto || (rule.needsKeyword && !scratch[r].keyword)
                    || (scratch[r].mask | rule.featureGroups) & rule.allMask != rule.allMask { continue }
            }
            candidateKinds |= k
        }
        var kinds = candidateKinds | features.eagerKinds
        if !traced, kinds & _BodyFeatures.url != 0, candidateKinds & _BodyFeatures.url == 0, features.eagerURLsAreIP,
           !_BodyFeatures.mayHoldIPURL(body) {
            kinds &= ~_BodyFeatures.url
        }
        return kinds
    }

    /// The verdict of the leading firing rule (an empty verdict when none fired).
    @inline(__always)
    func _ruleVerdict(_ best: _Leader) -> Verdict {
        var v = Verdict()
        guard best.rule >= 0 else { return v }
        let rule = rules[best.rule]
        v.action = rule.action
        v.requestedSubAction = rule.requested
        v.subAction = rule.validation.subAction
        v.dropped = rule.validation.dropped
        v.folder = rule.validation.folder
        v.rule = Int32(best.rule)
        if best.position != Int32.max {
            v.matchStart = best.position
            v.matchEnd = scratch[best.rule].end
            v.phrase = scratch[best.rule].phrase
        }
        return v
    }

    /// Records one match (a phrase or a body condition) in the scratch of every rule that uses it.
    @inline(__always)
    func _apply(_ m: _RawMatch, generation gen: UInt32, anchor: Int32, touchedCount: inout Int) {
        let p = Int(m.phrase)
        var u = Int(useStart[p])
        let uEnd = Int(useStart[p + 1])
        while u < uEnd {
            let use = uses[u]
            u += 1
            let r = Int(use >> 8)
            var role = use & 0xFF
            if role & _anchoredRole != 0 {
                if m.start != anchor { continue }
                role &= ~_anchoredRole
            }
            if scratch[r].stamp != gen {
                scratch[r].stamp = gen
                scratch[r].pos = Int32.max
                scratch[r].end = -1
                scratch[r].phrase = -1
                scratch[r].veto = false
                scratch[r].keyword = false
                scratch[r].mask = 0
                if tracing { vetoes[r] = _Veto() }
                touched[touchedCount] = Int32(r)
                touchedCount += 1
            }
            if role == 1 {
                scratch[r].veto = true
                if tracing { _recordVeto(r, m) }
                continue
            }
            if role == 0 { scratch[r].keyword = true } else { scratch[r].mask |= 1 << UInt64(role - 2) }
            if m.start < scratch[r].pos || (m.start == scratch[r].pos && m.end > scratch[r].end) {
                scratch[r].pos = m.start
                scratch[r].end = m.end
                scratch[r].phrase = m.phrase
            }
        }
    }
}


/// The position at which rule `r` of `c` fires for the current message (`Int32.max` for a rule without text
/// conditions), or a negative `_Firing` code saying why it does not fire. (A free `@_transparent` function: the
/// compiler leaves an `@inline(__always)` method of this size out of line in `_weigh`, which calls it per rule.)
@_transparent
func _classifierFiringPosition(_ c: Classifier, _ r: Int, generation gen: UInt32, sender: UnsafeRawBufferPointer?,
                               info: SenderInfo?) -> Int32 {
    let rule = c.rules[r]
    var pos = Int32.max
    if c.scratch[r].stamp == gen {
        if c.scratch[r].veto { return _Firing.vetoed }
        if rule.needsKeyword && !c.scratch[r].keyword { return _Firing.noKeyword }
        if c.scratch[r].mask != rule.allMask { return _Firing.groupMissing }
        pos = c.scratch[r].pos
    } else if rule.needsKeyword || rule.allMask != 0 {
        return rule.needsKeyword ? _Firing.noKeyword : _Firing.groupMissing
    }
    if rule.sender >= 0 {
        guard let info, rule.senderMayMatch(info, present: sender != nil),
              c._senderConditionHolds(Int(rule.sender), sender, info, generation: gen) else {
            return _Firing.senderFailed
        }
    }
    if rule.unlessCount > 0, let info {
        var k = Int(rule.unlessFirst)
        let end = k + Int(rule.unlessCount)
        while k < end {
            if c._senderConditionHolds(Int(c.unlessConditions[k]), sender, info, generation: gen) { return _Firing.senderExcluded }
            k += 1
        }
    }
    return pos
}

/// The per-rule state of one message's evaluation (see `Classifier.scratch`).
struct _RuleScratch {
    /// The generation (message) this record belongs to; stale otherwise.
    var stamp: UInt32 = 0
    /// Earliest match start and its end and phrase.
    var pos: Int32 = 0
    var end: Int32 = 0
    var phrase: Int32 = 0
    /// An `unless` phrase matched; a keyword matched.
    var veto = false
    var keyword = false
    /// Which `all` groups matched (bit per group).
    var mask: UInt64 = 0
}

/// Scans `body` for the body conditions that can matter (`Classifier._bodyConditionKinds`) and applies what it
/// finds to `c`'s rules' scratch, as `_weigh` applies phrase matches (recording them in a full trace); returns
/// the count of touched rules. (A free `@_transparent` function taking the count by value, as the model's scan
/// steps are: as an `@inline(__always)` method with the count `inout`, 0.3 instructions per byte more on
/// gen40k.)
@_transparent
func _classifierApplyBodyConditions(_ c: Classifier, _ features: _BodyFeatures, body: UnsafeRawBufferPointer,
                                    generation gen: UInt32, anchor: Int32, touchedCount touchedBefore: Int,
                                    trace: DecisionTrace?) -> Int {
    var touchedCount = touchedBefore
    let full = trace?.detail == .full
    let kinds = c._bodyConditionKinds(features, body: body, touchedCount: touchedCount, full: full, traced: trace != nil)
    guard kinds != 0 else { return touchedCount }
    c.featureBuffer.removeAll(keepingCapacity: true)
    features.scan(body, kinds: kinds, span: 0, into: &c.featureBuffer)
    var i = 0
    while i < c.featureBuffer.count {
        if full { trace!.record(match: c.featureBuffer[i]) }
        c._apply(c.featureBuffer[i], generation: gen, anchor: anchor, touchedCount: &touchedCount)
        i += 1
    }
    return touchedCount
}
