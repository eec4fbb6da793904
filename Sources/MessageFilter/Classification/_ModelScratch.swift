// The model's per-classifier scratch: what one message's (or one batch's) scoring writes, in memory owned by
// `_ScratchMemory`.

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
