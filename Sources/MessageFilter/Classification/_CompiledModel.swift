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
    /// Per target: the verdict the model gives (the rule index is the model's, see ``RuleSet/ruleNames``).
    let verdicts: [Verdict]
    let targets: [ModelDefinition.Target]
    /// The phrases as the scan looks them up, and the tables it reads (`rows` among them: `table.tables.weights`).
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
        table = _ModelFeatureTable(patterns: patterns, kinds: m.phrases.map(\.kind), rows: packed, rowStride: stride,
                                   targets: m.targets.count)
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
/// The lists are one array, built in `init` and read-only afterwards; the scan's loop reads them through the
/// pointers ``withLists(_:)`` lends for one message: no bounds check per feature (every index comes from the
/// automaton's match states, which `init` sized the lists by: `_invariantProblem`).
final class _TextPhrases: Sendable {
    let automaton: AhoCorasick
    let matchStateCount: Int
    /// `stateStart` (M + 1 entries), then `stateFeature`, then `length` (one per feature of the model).
    private let lists: [Int32]
    /// Where `stateFeature` and `length` start in `lists`.
    private let featureBase: Int
    private let lengthBase: Int

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
        self.automaton = automaton
        matchStateCount = automaton.matchStateCount
        lists = starts + features + length
        featureBase = starts.count
        lengthBase = starts.count + features.count
        #if MESSAGEFILTER_INTERNAL_CHECKS
        if let problem = _invariantProblem(featureCount: kinds.count) { preconditionFailure(problem) }
        #endif
    }

    /// Calls `body` with the lists: match state s (1…M) has the features `stateFeature[stateStart[s - 1]..<
    /// stateStart[s]]`; `length[f]` is feature f's pattern length in bytes (0 for other kinds).
    /// - warning: Do not escape the pointers.
    @inline(__always)
    func withLists<R>(
        _ body: (_ stateStart: UnsafePointer<Int32>, _ stateFeature: UnsafePointer<Int32>, _ length: UnsafePointer<Int32>) -> R
    ) -> R {
        lists.withUnsafeBufferPointer { p in
            let base = p.baseAddress.unsafelyUnwrapped  // (never empty: `stateStart` has M + 1 >= 2 entries)
            return body(base, base + featureBase, base + lengthBase)
        }
    }

    /// What breaks the scan's unchecked reads, or nil when they hold: `stateStart` runs from 0 up to the
    /// features' end without going back, every listed feature has a length entry and a pattern, and `lengths`
    /// is `featureCount` long.
    func _invariantProblem(featureCount: Int) -> String? {
        guard featureBase == matchStateCount + 1, lengthBase <= lists.count, lists.count - lengthBase == featureCount else {
            return "text phrases: \(lists.count) list entries for \(matchStateCount) match states and \(featureCount) features"
        }
        guard lists[0] == 0, Int(lists[matchStateCount]) == lengthBase - featureBase else {
            return "text phrases: the state starts do not span the \(lengthBase - featureBase) listed features"
        }
        for s in 1...max(1, matchStateCount) where matchStateCount > 0 && lists[s] < lists[s - 1] {
            return "text phrases: the features of match state \(s) run backwards"
        }
        for q in featureBase..<lengthBase {
            let f = Int(lists[q])
            guard f >= 0, f < featureCount, lists[lengthBase + f] > 0 else {
                return "text phrases: a match state lists feature \(f) of \(featureCount), whose length is not positive"
            }
        }
        return nil
    }
}

/// The word k-grams ending at the previous word run (for the model's scan, `_modelCandidates`): their keys
/// and first bytes in the scratch's `chainKey`/`chainStart` (k = 1 … at most `maxWords − 1`; borrowed from the
/// scratch's `_ModelMessageBuffers` for one message).
struct _WordChain {
    let key: UnsafeMutablePointer<UInt64>
    let start: UnsafeMutablePointer<Int>
    let maxWords: Int
    var length = 0
    var previousEnd = -2

    init(_ buffers: _ModelMessageBuffers, maxWords: Int) {
        key = buffers.chainKey
        start = buffers.chainStart
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

/// Why the learned model did not decide a message (``ModelDefinition``, "When the model abstains").
enum _ModelAbstention: UInt8 {
    case decides, noEvidence, script, margin, overrule, threshold, vouchedSender, unlearnedRule, registeredSender, linkAlone
}
