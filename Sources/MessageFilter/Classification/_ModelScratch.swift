// The model's per-classifier scratch: what one message's (or one batch's) scoring writes, in memory owned by
// `_ScratchMemory`.

/// Per-classifier scratch for scoring (allocated once): the per-message buffers the scan writes (`message`:
/// per-feature stamps and first spans, the touched and deferred lists, the sums, the run's ring and the word
/// chain), per match state the generation that last reached it, the last message's scores, and per message of a
/// batch the result `_evaluate` needs (`slots`).
///
/// ### Ownership
/// Every buffer is allocated by `memory` (a `_ScratchMemory`: made in `init`, re-made only by
/// `reservePositions` and `reserveFolded`, freed with the scratch); the pointers below and the copies of
/// `message` the scan takes are borrowed from it, valid while this object lives and (for `positions` and
/// `folded…`) until the next `reserve…`. Every index below is a feature < `features`, a target < `targets`, a
/// slot < `Classifier.batchSize`, a match state < `stateCount`, or as `_ModelMessageBuffers` says.
final class _ModelScratch {
    var generation: UInt32 = 0
    /// The buffers one message's scoring writes (`_ModelHits`, `_WordChain`, `_ModelScanPlan` take a copy).
    let message: _ModelMessageBuffers
    /// Per match state of the text phrases' automaton (index 1…M): the generation that last reached it.
    let stateStamp: UnsafeMutablePointer<UInt32>
    let stateCount: Int
    /// The text automaton's match positions of the message being scored (`AhoCorasick.matchStates`), room for
    /// `positionCapacity` (grown by `reservePositions`).
    @exclusivity(unchecked) var positions: UnsafeMutablePointer<UInt64>
    @exclusivity(unchecked) var positionCapacity = 0
    /// The number of features in `message.touched` for the current message.
    var touchedCount = 0
    /// The text phrases present, to be added after the automaton's scan (`_ModelAutomaton`).
    let later: UnsafeMutablePointer<Int32>
    /// Per target: the final score.
    let scores: UnsafeMutablePointer<Double>
    /// Σ idf² of the present features.
    var normSquared = 0.0
    let features: Int
    let targets: Int
    let chainCapacity: Int
    /// Letters per script of the message being scored (``_ScriptTally``).
    let scriptCounts: UnsafeMutablePointer<UInt32>
    /// Under `none`: the text with non-ASCII case folded, with each byte's span of the body.
    @exclusivity(unchecked) var folded: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) var foldedStart: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) var foldedEnd: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) var foldedCapacity = 0

    /// Per message of a batch (`Classifier.batchSize` slots): what scoring found for it (`_ModelSlot`).
    let slots: UnsafeMutableBufferPointer<_ModelSlot>
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

    /// The memory of every buffer above (`positions` and `folded…` included, re-made by `reserve…`).
    private let memory = _ScratchMemory()

    init(_ model: _CompiledModel) {
        features = max(1, model.featureCount)
        targets = model.targetCount
        let m = memory
        stateCount = max(model.textPhrases?.matchStateCount ?? 0, model.automaton?.matchStateCount ?? 0) + 1
        stateStamp = m.make(stateCount, 0)
        positions = m.make(1, 0)
        later = m.make(model.automaton == nil ? 1 : features, 0)
        scores = m.make(targets, 0)
        var ringSize = 8
        while ringSize < model.table.maxPartScalars + 1 { ringSize *= 2 }
        chainCapacity = max(1, model.table.maxWords)
        message = _ModelMessageBuffers(
            stamp: m.make(features, 0), firstStart: m.make(features, 0), firstEnd: m.make(features, 0),
            touched: m.make(features, 0), deferred: m.make(features, 0), sums: m.make(targets, 0),
            ring: m.make(ringSize, 0), ringMask: ringSize - 1,
            chainKey: m.make(chainCapacity, 0), chainStart: m.make(chainCapacity, 0))
        scriptCounts = m.make(Script.allCases.count, 0)
        folded = m.make(1, 0)
        foldedStart = m.make(1, 0)
        foldedEnd = m.make(1, 0)
        slots = UnsafeMutableBufferPointer(start: m.make(Classifier.batchSize, _ModelSlot()), count: Classifier.batchSize)
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

/// What the model found for one message of a batch (`_ModelScratch.slots`).
struct _ModelSlot {
    /// The winning target and its score.
    var winner: Int32 = 0
    var score = 0.0
    /// The deciding phrase (feature, -1 when none) with its span in the original body.
    var feature: Int32 = -1
    var start: Int32 = 0
    var end: Int32 = 0
    /// Whether any model phrase was present in the message (none: the model abstains).
    var evidence = false
    /// The winner's margin over the runner-up, and the message's main script.
    var margin = 0.0
    var script = Script.none
    /// Where the message's text for the model is (`_ModelSource`), and whether the slot is still to be scored:
    /// a slot is scored only when the model can decide or a full trace asks (`Classifier._modelScoreCurrent`),
    /// so a message a rule at or above the model's priority decides, or a number list, costs no model scan.
    var source = _ModelSource.body
    var pending = false
}
