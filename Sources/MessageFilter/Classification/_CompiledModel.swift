import AhoCorasick

/// A ``ModelDefinition`` ready for scoring: its phrases in a hash table (`_ModelFeatures.swift`), the
/// weights in one flat array (feature-major), each phrase's id in the rule set's phrase table (for verdicts)
/// and the verdict of each target, validated against the capabilities.
///
/// The model's phrases are not in the rules' automata, and have no automaton of their own: the
/// text the rules scanned (normalised) is cut into word and symbol runs once, and each run's candidate n-grams
/// are looked up in the table; a word phrase is only ever a whole word run. Feature index = phrase index.
final class _CompiledModel: Sendable {
    let name: String
    let priority: Int
    let hasThreshold: Bool
    let threshold: Double
    /// Per target: the margin over the runner-up its score needs (0: none; +inf: never decided).
    let margins: [Double]
    /// Per ``Script`` (raw value): whether the model abstains on messages of that main script.
    let abstainsOnScript: [Bool]
    /// Whether it abstains on any script (only then is a message's main script worth finding before its scan).
    let abstainsOnSomeScript: Bool
    /// `yields[(script raw value * 5 + action raw value) * targetCount + target]`: with that winner, the model
    /// yields to a firing rule of that action on messages of that script (``ModelDefinition/yields(to:on:with:)``).
    let yields: [Bool]
    /// `overrule[(script raw value * 5 + action raw value) * targetCount + target]`: the margin the target needs
    /// over the runner-up to overrule a firing rule of that action below the model on a message of that main
    /// script (+inf: never; -1: not an overrule, the target has the rule's action). Empty: the model's overrules
    /// are not calibrated (it overrules whenever it decides).
    let overrule: [Double]
    let targetCount: Int
    let featureCount: Int
    /// Feature → global phrase id (``Verdict/phrase``).
    let phraseIDs: [Int32]
    /// `weights[feature * targetCount + target]`.
    let weights: [Float]
    /// idf² per feature (the length normalisation's terms).
    let idfSquared: [Double]
    /// Per feature: 1 when its pattern carries a space on each side (word phrases), else 0.
    let trim: [Int32]
    let bias: [Double]
    /// What scoring reads per matched feature, packed in one row so that a match touches one cache line
    /// instead of three arrays: `rows[feature * rowStride + …]` holds the weights (`targetCount` values), then
    /// the idf, then 1 or 0 (`trim`); `rowStride` is the next power of two (8 floats, 32 bytes, for up to 6
    /// targets), so a row never straddles two lines. The sums scoring computes from it are bit for bit those of
    /// the separate arrays (`Double(idf) * Double(idf)` is `idfSquared`).
    let rows: [Float]
    let rowStride: Int
    /// `rows` again, as a pointer the scan reads without a closure (`_ModelRows`).
    let rowData: _ModelRows
    /// Per target: the verdict the model gives (the rule index is the model's, see ``RuleSet/ruleNames``).
    let verdicts: [Verdict]
    let targets: [ModelDefinition.Target]
    /// The phrases as the scan looks them up.
    let table: _ModelFeatureTable
    /// Whether the text must have its non-ASCII case folded before the look-up (normalisation `none`).
    let foldsText: Bool
    /// The text phrases (kind `text`, found anywhere in the text), nil when the model has none.
    let textPhrases: _TextPhrases?
    /// Whether some phrase is a word or part phrase (looked up in `table`); without one, the scan only finds
    /// the main script (`_modelMainScript`) before the text phrases.
    let hasTableFeatures: Bool
    /// ``ModelDefinition/linksNeedCompany``.
    let linksNeedCompany: Bool
    /// Every phrase in one automaton (`_ModelAutomaton`), used instead of `table` and `textPhrases` when set.
    let automaton: _ModelAutomaton?

    init(_ m: ModelDefinition, phraseIDs ids: [Int32], ruleIndex: Int32, capabilities: Capabilities,
         normalization: TextNormalization) {
        name = m.name
        priority = m.priority
        hasThreshold = m.threshold != nil
        threshold = Double(m.threshold ?? 0)
        margins = m.margins.isEmpty ? Array(repeating: 0, count: m.targets.count) : m.margins.map(Double.init)
        abstainsOnScript = Script.allCases.map { m.abstains(on: $0) }
        abstainsOnSomeScript = abstainsOnScript.contains(true)
        linksNeedCompany = m.linksNeedCompany
        yields = Script.allCases.sorted { $0.rawValue < $1.rawValue }.flatMap { s in
            Action.allCases.sorted { $0.rawValue < $1.rawValue }.flatMap { a in m.targets.indices.map { m.yields(to: a, on: s, with: $0) } }
        }
        overrule = m.overrules == nil ? [] : Script.allCases.sorted { $0.rawValue < $1.rawValue }.flatMap { s in
            Action.allCases.sorted { $0.rawValue < $1.rawValue }.flatMap { a in
                m.targets.indices.map { t in m.overruleMargin(rule: a, target: t, script: s).map(Double.init) ?? -1 }
            }
        }
        targetCount = m.targets.count
        featureCount = m.phrases.count
        targets = m.targets
        phraseIDs = ids
        var w: [Float] = []
        w.reserveCapacity(m.phrases.count * m.targets.count)
        for p in m.phrases { w += p.weights }
        weights = w
        idfSquared = m.phrases.map { Double($0.idf) * Double($0.idf) }
        trim = m.phrases.map { $0.kind == .word ? 1 : 0 }
        bias = m.bias.map(Double.init)
        var stride = 1
        while stride < m.targets.count + 2 { stride *= 2 }
        rowStride = stride
        var packed = [Float](repeating: 0, count: m.phrases.count * stride)
        for (f, p) in m.phrases.enumerated() {
            for (j, x) in p.weights.enumerated() { packed[f * stride + j] = x }
            packed[f * stride + m.targets.count] = p.idf
            packed[f * stride + m.targets.count + 1] = p.kind == .word ? 1 : 0
        }
        rows = packed
        rowData = _ModelRows(packed)
        foldsText = normalization == .none
        verdicts = m.targets.map { t in
            let validation = capabilities.validate(action: t.action, subAction: t.subAction)
            var v = Verdict()
            v.action = t.action
            v.requestedSubAction = t.subAction
            v.subAction = validation.subAction
            v.dropped = validation.dropped
            v.folder = validation.folder
            v.rule = ruleIndex
            return v
        }
        let patterns = m.phrases.map { Self.pattern($0, normalization: normalization) }
        table = _ModelFeatureTable(patterns: patterns, kinds: m.phrases.map(\.kind))
        textPhrases = _TextPhrases(patterns: patterns, kinds: m.phrases.map(\.kind))
        hasTableFeatures = m.phrases.contains { $0.kind != .text }
        automaton = _ModelAutomaton.requested ? _ModelAutomaton(patterns: patterns, kinds: m.phrases.map(\.kind), table: table) : nil
    }

    /// The phrase as the text holds it: normalised like the text (and case-folded under `none`), ASCII letters
    /// in lower case, a word phrase between two spaces (the form the model's automaton matched in the model
    /// text in `.smsf` versions 4–6; `_ModelFeatureTable` takes the spaces off).
    static func pattern(_ phrase: ModelDefinition.Phrase, normalization: TextNormalization) -> [UInt8] {
        // A text phrase is a substring of a normalised text as learn found it: normalising it again, out of its
        // context, could read it otherwise (look-alike letters are folded by the word they stand in: "ос" alone
        // reads as Latin, inside "доставка" it stays Cyrillic).
        var text = normalization == .none || phrase.kind == .text ? phrase.text : normalization.apply(phrase.text)
        if text.isEmpty { text = phrase.text }
        if normalization == .none {
            let flags = _ScalarFlags.shared
            text = String(String.UnicodeScalarView(text.unicodeScalars.map { Unicode.Scalar(flags.fold($0.value))! }))
        }
        let bytes = text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return phrase.kind == .word ? [0x20] + bytes + [0x20] : bytes
    }
}

/// A model's text phrases (kind `text`: substrings of the normalised text, across words, spaces and symbols)
/// in an Aho-Corasick automaton of their own (standard semantics: every occurrence, overlapping; ASCII case
/// folded, as the patterns are lower case). The scan takes the automaton's match states, not its patterns
/// (`AhoCorasick.matchStates(in:into:)`): each match state's features are listed once here, and a state met
/// again in the same message is passed over (its features are present already), so a message costs one list
/// walk per distinct match state it reaches and one presence check per feature listed there.
///
/// The lists live in memory owned here (allocated and filled in `init`, read-only afterwards, freed in
/// `deinit`), read through pointers by the scan's loop: no closure, no bounds check per feature (every index
/// comes from the automaton's match states, which `init` sized the lists by).
final class _TextPhrases: @unchecked Sendable {
    let automaton: AhoCorasick
    /// Match state s (1…M): its features are `stateFeature[stateStart[s - 1]..<stateStart[s]]`.
    let stateStart: UnsafeMutablePointer<Int32>
    let stateFeature: UnsafeMutablePointer<Int32>
    /// Per feature of the model: its pattern's length in bytes (0 for other kinds).
    let length: UnsafeMutablePointer<Int32>
    let matchStateCount: Int

    /// Nil when no phrase is of kind `text` (or, defensively, when the automaton cannot be built: the rule
    /// file's checks refuse such phrases before).
    init?(patterns: [[UInt8]], kinds: [ModelDefinition.MatchKind]) {
        var list: [Pattern] = []
        var feature: [Int32] = []
        var length = [Int32](repeating: 0, count: kinds.count)
        for (f, kind) in kinds.enumerated() where kind == .text && !patterns[f].isEmpty {
            list.append(Pattern(patterns[f]))
            feature.append(Int32(f))
            length[f] = Int32(patterns[f].count)
        }
        guard !list.isEmpty else { return nil }
        var builder = AhoCorasickBuilder()
        builder.matchKind = .standard
        builder.caseFolding = .ascii
        guard let automaton = try? builder.build(list) else { return nil }
        var starts: [Int32] = [0]
        var features: [Int32] = []
        for state in stride(from: 1, through: automaton.matchStateCount, by: 1) {
            for p in automaton.patterns(inMatchState: state) { features.append(feature[p]) }
            starts.append(Int32(features.count))
        }
        func copy(_ a: [Int32]) -> UnsafeMutablePointer<Int32> {
            let p = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, a.count))
            p.initialize(from: a, count: a.count)
            return p
        }
        self.automaton = automaton
        matchStateCount = automaton.matchStateCount
        stateStart = copy(starts)
        stateFeature = copy(features)
        self.length = copy(length)
    }

    deinit {
        stateStart.deallocate()
        stateFeature.deallocate()
        length.deallocate()
    }
}

/// The word k-grams ending at the previous word run (for the model's scan, `_modelCandidates`): their keys
/// and first bytes in the scratch's `chainKey`/`chainStart` (k = 1 … at most `maxWords − 1`).
struct _WordChain {
    let key: UnsafeMutablePointer<UInt64>
    let start: UnsafeMutablePointer<Int>
    let maxWords: Int
    var length = 0
    var previousEnd = -2

    init(key: UnsafeMutablePointer<UInt64>, start: UnsafeMutablePointer<Int>, maxWords: Int) {
        self.key = key
        self.start = start
        self.maxWords = maxWords
    }

    /// Looks up the word k-grams that end at the word run `[runStart, end)` of `p` (`count` bytes readable),
    /// longest first, and makes the chain end at that word.
    @inline(__always)
    mutating func end(_ p: UnsafePointer<UInt8>, _ runStart: Int, _ end: Int, count: Int, _ table: _ModelFeatureTable,
                      _ hits: inout _ModelHits) {
        guard maxWords > 0 else { return }
        let h = _wordKey(p + runStart, end &- runStart, limit: p + count)
        if !(length > 0 && previousEnd == runStart &- 1 && p[runStart &- 1] == 0x20) { length = 0 }
        var k = min(length &+ 1, maxWords)
        while k >= 2 {
            table.lookup(_pairKey(key[k &- 2], h), p, start[k &- 2], end, &hits)
            k &-= 1
        }
        table.lookup(h, p, runStart, end, &hits)
        let kept = min(length &+ 1, maxWords &- 1)
        var j = kept &- 1
        while j >= 1 {
            key[j] = _pairKey(key[j &- 1], h)
            start[j] = start[j &- 1]
            j &-= 1
        }
        if kept > 0 {
            key[0] = h
            start[0] = runStart
        }
        length = kept
        previousEnd = end
    }
}

/// A model's packed rows (`_CompiledModel.rows`) in memory owned here: allocated and filled in `init`,
/// read-only afterwards, freed in `deinit`; the model keeps this object, so the pointer lives as long as it.
final class _ModelRows: @unchecked Sendable {
    let pointer: UnsafePointer<Float>

    init(_ rows: [Float]) {
        let p = UnsafeMutablePointer<Float>.allocate(capacity: max(1, rows.count))
        p.initialize(from: rows, count: rows.count)
        pointer = UnsafePointer(p)
    }

    deinit { pointer.deallocate() }
}

/// Why the learned model did not decide a message (``ModelDefinition``, "When the model abstains").
enum _ModelAbstention: UInt8 {
    case decides, noEvidence, script, margin, overrule, threshold, vouchedSender, unlearnedRule, registeredSender, linkAlone
}

/// Per-classifier scratch for scoring (allocated once): per-feature stamps (`stamp` marks the features already
/// counted for the current message, so repeated matches count once) and first spans, the last message's scores,
/// and per message of a batch the result `_evaluate` needs. Raw pointers whose memory `memory` owns (made in
/// `init`, re-made only by `reserveFolded`, freed with the scratch: `_ScratchMemory`); every index below is a feature < `features`, a target <
/// `targets`, a slot < `Classifier.batchSize`, a ring position masked by `ringMask` or a chain position <
/// `maxWords`.
final class _ModelScratch {
    var generation: UInt32 = 0
    let stamp: UnsafeMutablePointer<UInt32>
    /// Per match state of the text phrases' automaton (index 1…M): the generation that last reached it.
    let stateStamp: UnsafeMutablePointer<UInt32>
    let stateCount: Int
    /// The text automaton's match positions of the message being scored (`AhoCorasick.matchStates`), room for
    /// `positionCapacity` (grown by `reservePositions`).
    @exclusivity(unchecked) var positions: UnsafeMutablePointer<UInt64>
    @exclusivity(unchecked) var positionCapacity = 0
    /// Per present feature: its first match in the original body.
    let firstStart: UnsafeMutablePointer<Int32>
    let firstEnd: UnsafeMutablePointer<Int32>
    /// The features present in the current message, in order of first match (ASCII patterns first).
    let touched: UnsafeMutablePointer<Int32>
    var touchedCount = 0
    /// Present features of non-ASCII patterns, added to the sums after the ASCII ones (`_ModelFeatures.swift`).
    let deferred: UnsafeMutablePointer<Int32>
    /// The text phrases present, to be added after the automaton's scan (`_ModelAutomaton`).
    let later: UnsafeMutablePointer<Int32>
    /// Per target: the sum of the present features' weights, then the final score.
    let sums: UnsafeMutablePointer<Double>
    let scores: UnsafeMutablePointer<Double>
    /// Σ idf² of the present features.
    var normSquared = 0.0
    let features: Int
    let targets: Int
    /// Byte offsets of the last scalars of the current run (part candidates start there).
    let ring: UnsafeMutablePointer<Int32>
    let ringMask: Int
    /// The keys and first bytes of the word k-grams ending at the previous word run (k = 1 …).
    let chainKey: UnsafeMutablePointer<UInt64>
    let chainStart: UnsafeMutablePointer<Int>
    let chainCapacity: Int
    /// Letters per script of the message being scored (``_ScriptTally``).
    let scriptCounts: UnsafeMutablePointer<UInt32>
    /// Under `none`: the text with non-ASCII case folded, with each byte's span of the body.
    @exclusivity(unchecked) var folded: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) var foldedStart: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) var foldedEnd: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) var foldedCapacity = 0

    /// Per message of a batch (`Classifier.batchSize` slots): the winning target, its score, and the
    /// deciding phrase (feature, -1 when none) with its span in the original body.
    let slotWinner: UnsafeMutablePointer<Int32>
    let slotScore: UnsafeMutablePointer<Double>
    let slotFeature: UnsafeMutablePointer<Int32>
    let slotStart: UnsafeMutablePointer<Int32>
    let slotEnd: UnsafeMutablePointer<Int32>
    /// Whether any model phrase was present in the slot's message (none: the model abstains).
    let slotEvidence: UnsafeMutablePointer<Bool>
    /// Per slot: the winner's margin over the runner-up, and the message's main script.
    let slotMargin: UnsafeMutablePointer<Double>
    let slotScript: UnsafeMutablePointer<Script>
    /// Per slot: where the message's text for the model is (`_ModelSource`), and whether the slot is still to
    /// be scored: a slot is scored only when the model can decide or a full trace asks
    /// (`Classifier._modelScoreCurrent`), so a message a rule at or above the model's priority decides, or a
    /// number list, costs no model scan.
    let slotSource: UnsafeMutablePointer<Int32>
    let slotPending: UnsafeMutablePointer<Bool>
    /// The slot `_evaluate` reads (the message being decided).
    var current = 0
    /// The rule whose folder the last model verdict took (`_refined`), -1 when none.
    var refinedBy: Int32 = -1
    /// The best firing rule below the model's priority for the message being decided (what the rules alone
    /// would decide; the rule the model's winner would overrule when its action differs), -1 when none.
    var below: Int32 = -1
    /// For the message being decided: the model's winner once its links are blanked out, when that winner
    /// files nothing while the whole text's winner files it in Junk or Promotions (the model abstains: a link
    /// alone, `Classifier._modelLinkAlone`); -1 otherwise.
    var linkFreeWinner: Int32 = -1
    /// The copy of a text with its links blanked out (`Classifier._modelLinkAlone`), kept to be reused.
    var linkFree: [UInt8] = []

    /// The memory of every buffer above (`folded…` included, re-made by `reserveFolded`).
    private let memory = _ScratchMemory()

    init(_ model: _CompiledModel) {
        features = max(1, model.featureCount)
        targets = model.targetCount
        let m = memory
        stamp = m.make(features, 0)
        stateCount = max(model.textPhrases?.matchStateCount ?? 0, model.automaton?.matchStateCount ?? 0) + 1
        stateStamp = m.make(stateCount, 0)
        positions = m.make(1, 0)
        firstStart = m.make(features, 0)
        firstEnd = m.make(features, 0)
        touched = m.make(features, 0)
        deferred = m.make(features, 0)
        later = m.make(model.automaton == nil ? 1 : features, 0)
        sums = m.make(targets, 0)
        scores = m.make(targets, 0)
        var ringSize = 8
        while ringSize < model.table.maxPartScalars + 1 { ringSize *= 2 }
        ring = m.make(ringSize, 0)
        ringMask = ringSize - 1
        chainCapacity = max(1, model.table.maxWords)
        chainKey = m.make(chainCapacity, 0)
        chainStart = m.make(chainCapacity, 0)
        scriptCounts = m.make(Script.allCases.count, 0)
        folded = m.make(1, 0)
        foldedStart = m.make(1, 0)
        foldedEnd = m.make(1, 0)
        let slots = Classifier.batchSize
        slotWinner = m.make(slots, 0)
        slotScore = m.make(slots, 0)
        slotFeature = m.make(slots, -1)
        slotStart = m.make(slots, 0)
        slotEnd = m.make(slots, 0)
        slotEvidence = m.make(slots, false)
        slotMargin = m.make(slots, 0)
        slotScript = m.make(slots, Script.none)
        slotSource = m.make(slots, _ModelSource.body)
        slotPending = m.make(slots, false)
    }

    /// Room for the text automaton's match positions in a text of `n` bytes (at most one per byte).
    func reservePositions(_ n: Int) {
        guard n > positionCapacity else { return }
        let needed = max(n, 256)
        positions = memory.remake(positions, needed, 0)
        positionCapacity = needed
    }

    /// Room for a folded text of `n` bytes of body (a fold may turn 2 bytes into 3: 2 per byte).
    func reserveFolded(_ n: Int) {
        let needed = 2 * n + 4
        guard needed > foldedCapacity else { return }
        folded = memory.remake(folded, needed, 0)
        foldedStart = memory.remake(foldedStart, needed, 0)
        foldedEnd = memory.remake(foldedEnd, needed, 0)
        foldedCapacity = needed
    }
}

/// The owner of a scratch object's raw buffers (`_ModelScratch`): each buffer is allocated and initialised by
/// `make` (every element set, so a read never sees uninitialised memory), replaced only through `remake` (the
/// old one freed, its contents not kept), and freed when this object is, so the scratch that holds it never
/// frees a buffer by hand. Elements must be trivial values (integers, floating point, `Bool`, payload-free
/// enums): no deinitialisation is done. A buffer's pointer is valid until `remake` replaces it or this object
/// dies; indices are the holder's to keep below the count it asked for. Not thread-safe (one per scratch).
final class _ScratchMemory {
    private var buffers: [UnsafeMutableRawPointer] = []

    /// A new buffer of `count` (at least 1) elements, each `value`.
    func make<T>(_ count: Int, _ value: T) -> UnsafeMutablePointer<T> {
        let n = max(1, count)
        let p = UnsafeMutablePointer<T>.allocate(capacity: n)
        p.initialize(repeating: value, count: n)
        buffers.append(UnsafeMutableRawPointer(p))
        return p
    }

    /// Frees `old` (a buffer of this object) and returns a new one of `count` elements, each `value`.
    func remake<T>(_ old: UnsafeMutablePointer<T>, _ count: Int, _ value: T) -> UnsafeMutablePointer<T> {
        let k = buffers.firstIndex(of: UnsafeMutableRawPointer(old))!
        buffers.remove(at: k)
        old.deallocate()
        return make(count, value)
    }

    deinit {
        for p in buffers { p.deallocate() }
    }
}

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
            s.stamp.update(repeating: 0, count: s.features)
            s.stateStamp.update(repeating: 0, count: s.stateCount)
            s.generation = 1
        }
        let t = model.targetCount
        var k = 0
        while k < t {
            s.sums[k] = 0
            k += 1
        }
        // The hit path is a struct passed inout (no closure, no captured variable: closures capturing the
        // counters cost a dynamic exclusivity check per phrase found, a quarter of the scan's instructions).
        var hits = _ModelHits(gen: s.generation, stamp: s.stamp, firstStart: s.firstStart, firstEnd: s.firstEnd,
                              touched: s.touched, deferred: s.deferred, sums: s.sums, wide: model.table.wide,
                              rows: model.rowData.pointer, stride: model.rowStride, targets: t, starts: starts, ends: ends)
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
            hits.add(Int(hits.deferred[d]))
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
            let score = model.bias[k] + s.sums[k] * inverse
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
        let rows = model.rowData.pointer
        let stride = model.rowStride
        let touched = s.touched
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
        s.slotWinner[slot] = Int32(best)
        s.slotScore[slot] = s.scores[best]
        s.slotFeature[slot] = Int32(top)
        s.slotEvidence[slot] = normSquared > 0
        s.slotMargin[slot] = s.scores[best] - second
        s.slotScript[slot] = script
        if top >= 0 {
            s.slotStart[slot] = s.firstStart[top]
            s.slotEnd[slot] = s.firstEnd[top]
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
        let starts = phrases.stateStart
        let features = phrases.stateFeature
        let length = phrases.length
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
        let blocks = model.table.scriptBlocks
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
        let blocks = table.scriptBlocks
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
        let blocks = table.scriptBlocks
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
        var chain = _WordChain(key: s.chainKey, start: s.chainStart, maxWords: table.maxWords)
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
        if !s.slotEvidence[slot] { return .noEvidence }
        if model.abstainsOnScript[Int(s.slotScript[slot].rawValue)] { return .script }
        let overrule = _overruleMargin(model)
        if overrule >= 0 {
            if s.slotMargin[slot] < overrule { return .overrule }
        } else if s.slotMargin[slot] < model.margins[Int(s.slotWinner[slot])] {
            return .margin
        }
        if model.hasThreshold && s.slotScore[slot] < model.threshold { return .threshold }
        return .decides
    }

    /// Whether, with its winner for the message in the current slot, the model yields to a firing rule of action
    /// `action` (``ModelDefinition/yields(to:on:with:)``).
    @inline(__always)
    func _yields(_ model: _CompiledModel, to action: Action) -> Bool {
        let s = modelScratch!
        let slot = s.current
        return model.yields[(Int(s.slotScript[slot].rawValue) &* 5 &+ action.rawValue) &* model.targetCount &+ Int(s.slotWinner[slot])]
    }

    /// The margin the winner needs to overrule the best firing rule below the model (`below`) for the message
    /// in the current slot; -1 when it would not overrule one (no rule below fired, the rule has the winner's
    /// action, or the model's overrules are not calibrated: its `margins` apply).
    @inline(__always)
    func _overruleMargin(_ model: _CompiledModel) -> Double {
        let s = modelScratch!
        guard s.below >= 0, !model.overrule.isEmpty else { return -1 }
        let slot = s.current
        return model.overrule[(Int(s.slotScript[slot].rawValue) &* 5 &+ rules[Int(s.below)].action.rawValue) &* model.targetCount &+ Int(s.slotWinner[slot])]
    }

    /// The model's verdict for the message in the current slot, or nil when it abstains (see
    /// `_modelAbstention`; `vouched`: a registered transactional sender vouches for the message, so only a
    /// transaction verdict is the model's to give).
    /// `yielded`: a rule below the model fired whose action the model learned too little of in this script.
    func _modelVerdict(_ model: _CompiledModel, vouched: Bool, yielded: Bool) -> Verdict? {
        let s = modelScratch!
        let slot = s.current
        if _modelAbstention(model) != .decides { return nil }
        if vouched, model.targets[Int(s.slotWinner[slot])].action != .transaction { return nil }
        if yielded { return nil }
        var v = model.verdicts[Int(s.slotWinner[slot])]
        let top = Int(s.slotFeature[slot])
        if top >= 0 {
            v.phrase = model.phraseIDs[top]
            v.matchStart = s.slotStart[slot]
            v.matchEnd = s.slotEnd[slot]
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
        let target = model.targets[Int(s.slotWinner[s.current])]
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
            features.append(s.touched[k])
            k += 1
        }
        return s.slotScript[0]
    }

    /// The main script the model's scan would find in `body` (as `modelFeatures` returns it), found by the
    /// cheaper pass that decides whether to scan (`_modelMainScript`) over the same text; `.none` without a
    /// model. For tests: the two must agree on every body.
    func _modelMainScriptBeforeScan(body: UnsafeRawBufferPointer) -> Script {
        guard let model = ruleSet.model else { return .none }
        let rewritten = normalizer.mode != .none && normalizer.mode.needsRewrite(body)
        if rewritten { normalizer.text.normalize(body, mode: normalizer.mode) }
        let text = rewritten ? normalizer.text.output : _modelBodyText(model, body).0
        return _modelMainScript(model.table, text, modelScratch!)
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
