import AhoCorasick
import Foundation

/// A compiled, immutable rule set: the rules, their phrases in keyword automata, sender conditions and
/// number lists. Share one across threads; give each thread its own ``Classifier``.
///
/// Load one from a YAML rule file or a compiled `.smsf` file (``load(path:)``), from YAML text
/// (``parse(yaml:file:)``), or use the built-in rules (``embeddedDefault``).
public final class RuleSet: Sendable {
    /// The parsed rules, defaults filled in.
    public let definition: RuleSetDefinition
    /// Where the rules came from: the path, or `"embedded default rules"`.
    public let source: String
    /// Hex checksum of the rules (the same whether loaded from YAML or `.smsf`).
    public let checksum: String
    /// Rule names; the index is the rule id used in ``Verdict/rule``.
    public let ruleNames: [String]

    // Phrase table: global phrase id → text as written (then the body conditions' names).
    let phraseTexts: [String]
    /// Phrases with ids below this are literal (in the automata); the rest are body conditions.
    let literalPhraseCount: Int
    /// The body conditions' detectors (nil when no rule has one).
    let bodyFeatures: _BodyFeatures?
    /// Whether some phrase use is anchored (`startsWith`).
    let hasAnchoredPhrases: Bool
    /// Per rule: the body-condition kinds it uses (`_BodyFeatures.kinds(of:)`).
    let ruleFeatureKinds: [UInt8]
    /// Per literal phrase: the edge check the classifier makes on its matches (`_WordBoundary` raw value:
    /// 0 none (or the automaton's own `word` check), `latinWord` for short phrases, `wordEdges` for the others).
    let latinWordPhrases: [UInt8]
    /// Per automaton (index = CaseFoldMode raw), nil when no rule uses the mode.
    let matchers: [_PhraseMatcher?]
    /// Per automaton: local pattern id → global phrase id.
    let localToGlobal: [[Int32]]
    /// Phrase uses, CSR: uses of phrase p are `uses[useStart[p]..<useStart[p+1]]`; each is
    /// `rule << 8 | role` with role 0 keyword, 1 unless, 2 + g for `all` group g.
    let useStart: [Int32]
    let uses: [UInt32]
    /// Per rule.
    let rules: [_CompiledRule]
    /// Rules with no text condition (sender-only): evaluated for every message.
    let senderOnlyRules: [Int32]
    /// The sender-only rules whose quick sender gate (`_CompiledRule.senderMayMatch`) a sender can pass, by
    /// what the gate reads (`senderGate(of:present:)`: its kind, whether it is a TRAI header, whether the message
    /// has one), in file order: those of gate g are `senderOnlyByGate[senderOnlyGateStart[g]..<senderOnlyGateStart[g + 1]]`.
    /// The others cannot fire for such a sender, so the classifier does not look at them (but in a full trace,
    /// which records every rule).
    let senderOnlyByGate: [Int32]
    let senderOnlyGateStart: [Int32]
    /// Whether any rule has a sender condition or a number list exists (the sender must be classified).
    let needsSender: Bool
    /// The rules' sender conditions, each distinct condition once (rules that share one, as the default rules'
    /// `unlessSender: *registered` lists do, share its index, so the classifier asks it once per sender and
    /// keeps the answer: `Classifier._senderConditionHolds`).
    let senderConditions: [_CompiledSenderCondition]
    /// The rules' `unlessSender` conditions, indices into `senderConditions`: rule r's are `unlessSenderConditions`
    /// from its `unlessFirst`, `unlessCount` of them.
    let unlessSenderConditions: [Int32]
    /// The learned model, compiled (nil: none).
    let model: _CompiledModel?

    /// Rule-table bytes (the `.smsf` definition section); hashed for ``checksum``.
    let definitionBytes: [UInt8]

    /// The name used as ``source`` for the built-in rules.
    public static let embeddedSourceName = "embedded default rules"
    /// The source name of ``embeddedDefaultRulesOnly``.
    public static let embeddedRulesOnlySourceName = "embedded default rules without the model"
    /// The `--rules` value (in place of a path) that selects ``embeddedDefaultRulesOnly``: the embedded rules
    /// without the embedded model. A file of that name is reached as `./embedded:rules`.
    public static let embeddedRulesOnlyPath = "embedded:rules"

    /// The phrase with id `index` (``Verdict/phrase``), as written in the rule file; ids from
    /// ``phraseCount`` on are body conditions, named as in the rule file (`urls: shortener`).
    /// - Precondition: `0 <= index < phraseCount + bodyConditionCount`.
    public func phrase(at index: Int) -> String { phraseTexts[index] }
    /// The number of distinct literal phrases (the automata's patterns).
    public var phraseCount: Int { literalPhraseCount }
    /// The number of distinct body conditions (`urls:`, `phones:`, `amounts:` alternatives), whose ids follow
    /// the phrases'.
    public var bodyConditionCount: Int { phraseTexts.count - literalPhraseCount }
    /// Whether the phrase id `index` is a body condition rather than a literal phrase.
    public func isBodyCondition(_ index: Int) -> Bool { index >= literalPhraseCount }
    /// The identification-list label with index `index` (``Verdict/label``).
    /// - Precondition: `0 <= index < definition.labels.count`.
    public func label(at index: Int) -> String { definition.labels[index] }
    /// The declared capabilities.
    public var capabilities: Capabilities { definition.capabilities }

    /// Compiles parsed rules (building the automata).
    /// - Throws: ``RuleSetBuildError`` when an automaton would be too large.
    public convenience init(definition: RuleSetDefinition, source: String) throws {
        try self.init(definition: definition, source: source, prebuilt: nil)
    }

    /// Compiles `definition`; with `prebuilt`, uses those automata (loaded from a `.smsf`) instead of building.
    init(definition: RuleSetDefinition, source: String, prebuilt: [_PhraseMatcher?]?,
         definitionBytes: [UInt8]? = nil) throws {
        self.definition = definition
        self.source = source
        ruleNames = definition.rules.map(\.name) + (definition.model.map { [$0.name] } ?? [])
        let bytes = definitionBytes ?? _DefinitionCodec.encode(definition)
        self.definitionBytes = bytes
        checksum = String(_Checksum.hash(bytes), radix: 16).leftPadded(to: 16)

        var table = _PhraseTable(normalization: definition.normalization, capacity: definition.model?.phrases.count ?? 0)
        var features = _FeatureTable()
        let (compiled, senderOnly, conditions, unlessConditions) = Self._compileRules(definition, &table, &features)
        // The model's phrases are literal phrases too (ids below `literalCount`, before the body conditions').
        var modelPhraseIDs: [Int32] = []
        if let m = definition.model {
            modelPhraseIDs = m.phrases.map { table.id($0.text, .unicode, $0.kind == .word ? .word : .none) }
        }
        let literalCount = table.texts.count
        phraseTexts = table.texts + features.keys.map(\.display)
        let usesPerPhrase = table.uses + features.uses
        self.literalPhraseCount = literalCount
        latinWordPhrases = table.latinWords
        bodyFeatures = features.keys.isEmpty ? nil : _BodyFeatures(features.keys, firstID: Int32(literalCount), rules: definition.rules)
        ruleFeatureKinds = definition.rules.map(_BodyFeatures.kinds(of:))
        hasAnchoredPhrases = usesPerPhrase.contains { $0.contains { $0 & _anchoredRole != 0 } }
        rules = compiled
        senderOnlyRules = senderOnly
        (senderOnlyByGate, senderOnlyGateStart) = Self._senderOnlyByGate(compiled, senderOnly)
        senderConditions = conditions
        unlessSenderConditions = unlessConditions
        needsSender = !conditions.isEmpty || !definition.blockList.isEmpty || !definition.identificationNumbers.isEmpty
        var starts: [Int32] = [0]
        var flat: [UInt32] = []
        for u in usesPerPhrase {
            flat.append(contentsOf: u)
            starts.append(Int32(flat.count))
        }
        useStart = starts
        uses = flat

        // The rules' automata hold the phrases rules use; the model's phrases are looked up in its own table.
        var l2g: [[Int32]] = [[], []]
        for (id, mode) in table.modes.enumerated() where !usesPerPhrase[id].isEmpty { l2g[Int(mode.rawValue)].append(Int32(id)) }
        localToGlobal = l2g
        model = definition.model.map {
            _CompiledModel($0, phraseIDs: modelPhraseIDs, ruleIndex: Int32(definition.rules.count),
                           capabilities: definition.capabilities, normalization: definition.normalization)
        }
        matchers = try prebuilt ?? Self._buildMatchers(l2g, table, source: source)
        #if MESSAGEFILTER_INTERNAL_CHECKS
        _checkInvariants()
        #endif
    }

    /// The literal phrases of a rule set as they are numbered: one id per distinct (mode, word boundary, folded
    /// pattern). Keyed by the folded pattern's bytes, which is what the automaton matches (a `String` key hashed
    /// every non-ASCII phrase through NFC: ~100M instructions for a 10k-phrase Thai model's load).
    struct _PhraseTable {
        struct Key: Hashable { var mode: CaseFoldMode; var boundary: _WordBoundary; var folded: _PhraseKey }
        let normalization: TextNormalization
        var ids: [Key: Int32]
        var texts: [String] = []
        var patterns: [String] = []
        var modes: [CaseFoldMode] = []
        var wholes: [Bool] = []
        var latinWords: [UInt8] = []
        /// Per phrase: its uses (rule index << 8 | role).
        var uses: [[UInt32]] = []

        init(normalization: TextNormalization, capacity: Int) {
            self.normalization = normalization
            ids = Dictionary(minimumCapacity: capacity)
        }

        /// The id of `text` (a new one when it is new). Under a normalisation, phrases are normalised like the
        /// text (non-ASCII case folded included), so every phrase goes into the ASCII-folding automaton.
        mutating func id(_ text: String, _ caseFold: CaseFoldMode, _ boundary: _WordBoundary) -> Int32 {
            let mode = normalization == .none ? caseFold : .ascii
            var pattern = normalization.rulePhrase(text)
            if pattern.isEmpty { pattern = text }
            let folded = mode == .ascii ? pattern.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 } : Array(String(String.UnicodeScalarView(pattern.unicodeScalars.map(AhoCorasick.simpleCaseFold))).utf8)
            let key = Key(mode: mode, boundary: boundary, folded: _PhraseKey(tag: 0, bytes: folded))
            if let id = ids[key] { return id }
            let id = Int32(texts.count)
            ids[key] = id
            texts.append(text)
            patterns.append(pattern)
            modes.append(mode)
            wholes.append(boundary == .word)
            latinWords.append(boundary == .latinWord || boundary == .wordEdges ? boundary.rawValue : 0)
            uses.append([])
            return id
        }
    }

    /// Numbers the rules' phrases and body conditions (in `table` and `features`, with their uses) and compiles
    /// each rule: the compiled rules, the sender-only rules, the distinct sender conditions and the rules'
    /// `unlessSender` lists (indices of those).
    static func _compileRules(_ definition: RuleSetDefinition, _ table: inout _PhraseTable, _ features: inout _FeatureTable)
        -> ([_CompiledRule], [Int32], [_CompiledSenderCondition], [Int32]) {
        var compiled: [_CompiledRule] = []
        var senderOnly: [Int32] = []
        var conditions: [_CompiledSenderCondition] = []
        var unlessConditions: [Int32] = []
        var conditionIndex: [SenderCondition: Int32] = [:]
        func condition(_ s: SenderCondition) -> Int32 {
            if let k = conditionIndex[s] { return k }
            let k = Int32(conditions.count)
            conditions.append(_CompiledSenderCondition(s, defaultCountryCode: definition.defaultCountryCode))
            conditionIndex[s] = k
            return k
        }
        for (r, rule) in definition.rules.enumerated() {
            func use(_ text: String, _ role: UInt32) {
                let id = Int(table.id(text, rule.caseFold, rule._wordBoundary(text)))
                let u = UInt32(r) << 8 | role
                if !table.uses[id].contains(u) { table.uses[id].append(u) }
            }
            for k in rule.keywords { use(k, 0) }
            for k in rule.unless { use(k, 1) }
            for (g, group) in rule.all.enumerated() { for k in group { use(k, 2 + UInt32(g)) } }
            features.addUses(of: rule, index: r, phrase: { use($0, $1) })
            var senderIndex: Int32 = -1
            var senderKinds: UInt8 = _CompiledSenderCondition.allKinds
            var senderNeedsTRAI = false
            var senderNeedsBytes = false
            if let s = rule.sender {
                senderIndex = condition(s)
                let c = conditions[Int(senderIndex)]
                senderKinds = c.possibleKinds
                senderNeedsTRAI = c.needsTRAIHeader
                senderNeedsBytes = c.needsSenderBytes
            }
            // `unlessSender`: consecutive entries of `unlessConditions`.
            let unlessFirst = Int32(unlessConditions.count)
            for s in rule.unlessSender { unlessConditions.append(condition(s)) }
            let validation = definition.capabilities.validate(action: rule.action, subAction: rule.subAction)
            compiled.append(_CompiledRule(
                priority: rule.priority, needsKeyword: !rule.keywords.isEmpty,
                allMask: rule._groupCount == 0 ? 0 : (rule._groupCount >= 64 ? ~0 : (UInt64(1) << UInt64(rule._groupCount)) - 1),
                sender: senderIndex, action: rule.action, requested: rule.subAction, validation: validation,
                vouches: !rule.needsText && rule.sender != nil && rule.action == .transaction,
                featureGroups: _BodyFeatures.groupMask(of: rule), senderKinds: senderKinds, senderNeedsTRAI: senderNeedsTRAI,
                senderNeedsBytes: senderNeedsBytes, unlessFirst: unlessFirst, unlessCount: Int32(rule.unlessSender.count)))
            if !rule.needsText { senderOnly.append(Int32(r)) }
        }
        return (compiled, senderOnly, conditions, unlessConditions)
    }

    /// The gate of a sender (`senderOnlyByGate`): its kind's bit number × 4, + 2 for a TRAI header, + 1 when the
    /// message has a sender.
    @inline(__always)
    static func senderGate(of info: SenderInfo, present: Bool) -> Int {
        Int(_CompiledSenderCondition.kindBit(info.kind).trailingZeroBitCount) << 2 | (info.isTRAIHeader ? 2 : 0) | (present ? 1 : 0)
    }

    /// `senderOnlyByGate` and its starts: per gate, the sender-only rules a sender of that gate can fire.
    static func _senderOnlyByGate(_ rules: [_CompiledRule], _ senderOnly: [Int32]) -> ([Int32], [Int32]) {
        var flat: [Int32] = []
        var starts: [Int32] = []
        for kind in SenderKind.allCases {
            for trai in [false, true] {
                for present in [false, true] {
                    var info = SenderInfo.unknown
                    info.kind = kind
                    info.traiOperator = trai ? 0x56 : 0
                    precondition(senderGate(of: info, present: present) == starts.count, "RuleSet: the sender gates are out of order")
                    starts.append(Int32(flat.count))
                    flat += senderOnly.filter { rules[Int($0)].senderMayMatch(info, present: present) }
                }
            }
        }
        starts.append(Int32(flat.count))
        return (flat, starts)
    }

    /// Builds one automaton per case-folding mode over the phrases `l2g` gives it (nil: none).
    static func _buildMatchers(_ l2g: [[Int32]], _ table: _PhraseTable, source: String) throws -> [_PhraseMatcher?] {
        var built: [_PhraseMatcher?] = []
        for mode in CaseFoldMode.allCases {
            let ids = l2g[Int(mode.rawValue)]
            if ids.isEmpty {
                built.append(nil)
                continue
            }
            do {
                built.append(try _PhraseMatcher(patterns: ids.map { Array(table.patterns[Int($0)].utf8) },
                                                 wholeWord: ids.map { table.wholes[Int($0)] }, folding: mode))
            } catch {
                throw RuleSetBuildError(source: source, detail: "\(mode.name) automaton: \(error)")
            }
        }
        return built
    }

    /// Parses and compiles a YAML rule file's text.
    ///
    /// - Parameters:
    ///   - yaml: the file's text.
    ///   - file: the name used in errors and as ``source``; list paths are relative to its folder.
    /// - Throws: ``RuleFileError`` naming every problem with file, line and field.
    public static func parse(yaml: String, file: String) throws -> RuleSet {
        var parser = _RuleFileParser(file: file, baseFolder: _folder(of: file))
        let def = parser.parse(yaml: yaml)
        if !parser.issues.isEmpty { throw RuleFileError(issues: parser.issues) }
        return try RuleSet(definition: def, source: file)
    }

    /// Parses a YAML rule file's text, returning the definition and every problem (for `smsfilter check`).
    public static func resolve(yaml: String, file: String) -> (definition: RuleSetDefinition, issues: [RuleFileError.Issue]) {
        var parser = _RuleFileParser(file: file, baseFolder: _folder(of: file))
        let def = parser.parse(yaml: yaml)
        return (def, parser.issues)
    }

    /// Loads a rule set from a YAML rule file or a compiled `.smsf` file, told apart by magic bytes.
    ///
    /// - Throws: ``RuleSetLoadError`` (missing or unreadable file, damaged `.smsf`) or ``RuleFileError``.
    public static func load(path: String) throws -> RuleSet {
        if path == embeddedRulesOnlyPath { return embeddedDefaultRulesOnly }
        guard FileManager.default.fileExists(atPath: path) else { throw RuleSetLoadError(.fileMissing, path: path, detail: "no such file") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw RuleSetLoadError(.unreadable, path: path, detail: "cannot open the file") }
        let head = (try? handle.read(upToCount: 8)) ?? Data()
        try? handle.close()
        if head.count == 8, Array(head) == _SMSFFormat.magic {
            return try _SMSFFormat.load(path: path)
        }
        let data: Data
        do {
            data = try BoundedFile.read(path, limit: maxRuleFileBytes)
        } catch {
            throw RuleSetLoadError(.unreadable, path: path, detail: error.detail)
        }
        guard let yaml = String(data: data, encoding: .utf8) else { throw RuleSetLoadError(.unreadable, path: path, detail: "not UTF-8 text (and not a compiled .smsf)") }
        return try parse(yaml: yaml, file: path)
    }

    /// The files a rule file names and loading reads (its `blockList:` and `identificationList:`, resolved
    /// from the rule file's folder as loading resolves them), so that a command can protect them from being
    /// written over before it does any work. Empty for a compiled `.smsf` (its lists are inside it), the
    /// embedded rules, and a file that cannot be read or parsed (loading it says why). Only a regular file
    /// is read (a pipe read here would be empty when the rules are loaded).
    public static func filesNamed(byRuleFile path: String) -> [(key: String, path: String)] {
        guard path != embeddedRulesOnlyPath,
              (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == .typeRegular,
              let data = try? BoundedFile.read(path, limit: maxRuleFileBytes),
              !(data.count >= 8 && Array(data.prefix(8)) == _SMSFFormat.magic),
              let yaml = String(data: data, encoding: .utf8)
        else { return [] }
        return _RuleFileParser(file: path, baseFolder: _folder(of: path)).listFiles(yaml: yaml)
    }

    /// The largest YAML rule file read: 64 MiB (a compiled `.smsf` is mapped instead, whatever its size).
    public static let maxRuleFileBytes = 64 << 20

    /// The compiled `.smsf` bytes.
    public func serialize() -> [UInt8] { _SMSFFormat.serialize(self) }

    /// The built-in rules (``DefaultRules/yaml``) with the built-in model (``DefaultModel``), compiled on
    /// first use and cached.
    public static let embeddedDefault: RuleSet = {
        let (definition, issues) = resolve(yaml: DefaultRules.yaml, file: embeddedSourceName)
        guard issues.isEmpty else { fatalError("the embedded default rules do not parse: \(issues)") }
        // The model comes from the embedded `.smsf`; its phrases are normalised as the rules' text is, since
        // both share the normalisation.
        let model = DefaultModel.compiled
        precondition(model.definition.normalization == definition.normalization, "the default rules and model normalise differently")
        do {
            return try RuleSet(definition: definition.withModel(model.definition.model), source: embeddedSourceName, prebuilt: nil)
        } catch {
            fatalError("the embedded default rules do not compile: \(error)")
        }
    }()

    /// The built-in rules alone, without the model: what `--rules embedded:rules` (``embeddedRulesOnlyPath``)
    /// and `--rules samples/default-rules.yaml` give.
    public static let embeddedDefaultRulesOnly: RuleSet = {
        do { return try RuleSet.parse(yaml: DefaultRules.yaml, file: embeddedRulesOnlySourceName) } catch {
            fatalError("the embedded default rules do not compile: \(error)")
        }
    }()
}

/// A rule set file that could not be loaded.
public struct RuleSetLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Hashable {
        /// The file does not exist.
        case fileMissing
        /// The file cannot be read.
        case unreadable
        /// A `.smsf` file is damaged, truncated or of another version.
        case damaged
    }

    /// What went wrong.
    public let kind: Kind
    /// The file.
    public let path: String
    /// Details.
    public let detail: String

    init(_ kind: Kind, path: String, detail: String) {
        self.kind = kind
        self.path = path
        self.detail = detail
    }

    public var description: String {
        let shown = EchoedText.escaped(path)
        return switch kind {
        case .fileMissing: "\(shown): file not found"
        case .unreadable: "\(shown): \(EchoedText.escaped(detail))"
        case .damaged: "\(shown): damaged compiled rule set: \(EchoedText.escaped(detail))"
        }
    }
}

struct _CompiledRule: Sendable {
    var priority: Int
    var needsKeyword: Bool
    var allMask: UInt64
    var sender: Int32
    var action: Action
    var requested: SubAction
    var validation: Capabilities.Validation
    /// A registered transactional sender: a rule with only sender conditions and action `transaction` (TRAI
    /// `-T`/`-S`/`-G` headers, bank and carrier entities). When it fires, a learned model may only choose
    /// among transactions (docs/RULES.md §10).
    var vouches: Bool = false
    /// The `all` groups (bits as in `allMask`) that body conditions (`urls`, `phones`, `amounts`) satisfy: a
    /// rule touched by phrases is a candidate for them only when its other groups are all present.
    var featureGroups: UInt64 = 0
    /// A quick necessary test of the sender condition (``_CompiledSenderCondition/possibleKinds``,
    /// ``_CompiledSenderCondition/needsTRAIHeader``), checked before the condition itself: most senders fail
    /// most sender-only rules (a phone number against a TRAI header's suffix) without the call.
    var senderKinds: UInt8 = _CompiledSenderCondition.allKinds
    var senderNeedsTRAI = false
    /// Whether the sender condition needs a sender (``_CompiledSenderCondition/needsSenderBytes``): a message
    /// without one fails it without the call.
    var senderNeedsBytes = false
    /// The rule's `unlessSender` conditions: `unlessCount` entries of the rule set's `unlessSenderConditions` from
    /// `unlessFirst` (indices, not an array: the struct is read per rule per message and stays trivial).
    var unlessFirst: Int32 = 0
    var unlessCount: Int32 = 0

    /// Whether a sender of `info` can satisfy this rule's sender condition (false: it cannot); `present`: the
    /// message has a sender.
    @inline(__always)
    func senderMayMatch(_ info: SenderInfo, present: Bool = true) -> Bool {
        _CompiledSenderCondition.kindBit(info.kind) & senderKinds != 0 && (!senderNeedsTRAI || info.isTRAIHeader)
            && (present || !senderNeedsBytes)
    }
}

/// A sender condition with its strings pre-folded to bytes. A class, so that looking one up per message
/// costs one retain instead of a copy of five arrays.
final class _CompiledSenderCondition: Sendable {
    /// The `exact` entries, ordered by their hash (`_Fold.hash`), and those hashes: a sender is looked up by
    /// its own hash (binary search), not compared with every entry.
    let exact: [[UInt8]]
    let exactHashes: [UInt64]
    let prefix: [[UInt8]]
    let kindMask: UInt8
    let suffixes: [TRAISuffix]
    /// The `entity` patterns without `*` or `?`, upper-cased and ordered by hash, and those hashes (looked up as
    /// `exact` is); the patterns with a wildcard, matched one by one (`_Fold.glob`).
    let plainEntities: [[UInt8]]
    let plainEntityHashes: [UInt64]
    let entities: [[UInt8]]
    /// Per pattern of `entities`: its length when it has no `*` (a glob without `*` only matches that many
    /// bytes), else -1; and its first byte when that is neither `*` nor `?` (the sender's entity, upper-cased,
    /// must start with it), else 0.
    let entityLengths: [Int]
    let entityFirstBytes: [UInt8]
    let countryCodes: [Int32]
    /// The kinds (bits as `kindBit`) of the senders an `exact` entry can equal (`allKinds` without an `exact`
    /// list or with a `prefix` list): a sender equals an entry when its bytes, trimmed and upper-cased, are the
    /// entry, and then it is of the entry's kind (`SenderInfo.classify` trims as the comparison does and reads
    /// letters of either case alike); or when its E.164 form is the entry, and then it is a phone number and
    /// the entry `+` and digits.
    let exactKinds: UInt8

    /// The senders' kinds (bits as `kindBit`) that can satisfy the condition: its `kind` list, only phone
    /// numbers with a `countryCode` list, only alphanumeric senders with a TRAI `suffix` or `entity` list,
    /// only the kinds of its `exact` entries with an `exact` list and no `prefix` list.
    var possibleKinds: UInt8 {
        var k = kindMask == 0 ? Self.allKinds : kindMask
        if !countryCodes.isEmpty { k &= Self.kindBit(.phoneNumber) }
        if needsTRAIHeader { k &= Self.kindBit(.alphanumeric) }
        return k & exactKinds
    }
    /// Whether only a TRAI DLT header can satisfy the condition (it has a `suffix` or `entity` list).
    var needsTRAIHeader: Bool { !suffixes.isEmpty || !entities.isEmpty || !plainEntities.isEmpty }
    /// Whether only a message with a sender can satisfy the condition (it has an `exact`, `prefix` or `entity`
    /// list).
    var needsSenderBytes: Bool { !exact.isEmpty || !prefix.isEmpty || !entities.isEmpty || !plainEntities.isEmpty }
    static let allKinds: UInt8 = 31

    /// The bit of `kind` in `kindMask` (`SenderKind.allCases` order).
    @inline(__always)
    static func kindBit(_ kind: SenderKind) -> UInt8 {
        switch kind {
        case .phoneNumber: 1
        case .shortCode: 2
        case .alphanumeric: 4
        case .email: 8
        case .unknown: 16
        }
    }

    init(_ c: SenderCondition, defaultCountryCode: Int32) {
        func norm(_ s: String) -> [UInt8] {
            let info = SenderInfo.classify(s, defaultCountryCode: defaultCountryCode)
            if info.kind == .phoneNumber, !s.hasSuffix("*") { return Array("+\(info.number)".utf8) }
            return Array(s.utf8).map { $0 >= 0x61 && $0 <= 0x7A ? $0 & 0xDF : $0 }
        }
        let entries = c.exact.map(norm).map { e in (hash: e.withUnsafeBytes { _Fold.hash($0) }, bytes: e) }
            .sorted { $0.hash < $1.hash }
        exact = entries.map(\.bytes)
        exactHashes = entries.map(\.hash)
        var kinds: UInt8 = c.exact.isEmpty || !c.prefix.isEmpty ? Self.allKinds : 0
        for e in exact where kinds != Self.allKinds {
            kinds |= Self.kindBit(SenderInfo.classify(String(decoding: e, as: UTF8.self), defaultCountryCode: defaultCountryCode).kind)
            if e.count > 1, e[0] == 0x2B, e.dropFirst().allSatisfy({ $0 &- 0x30 < 10 }) { kinds |= Self.kindBit(.phoneNumber) }
        }
        exactKinds = kinds
        prefix = c.prefix.map { p in
            // A prefix of a phone number: keep "+" and digits only.
            let digits = p.filter { $0.isNumber || $0 == "+" }
            if digits.count == p.filter({ !$0.isWhitespace && $0 != "-" }).count, digits.hasPrefix("+") { return Array(digits.utf8) }
            return Array(p.utf8).map { $0 >= 0x61 && $0 <= 0x7A ? $0 & 0xDF : $0 }
        }
        kindMask = c.kinds.reduce(0) { $0 | 1 << UInt8(SenderKind.allCases.firstIndex(of: $1)!) }
        suffixes = c.suffixes
        let patterns = c.entities.map { Array($0.uppercased().utf8) }
        let plain = patterns.filter { !$0.contains(0x2A) && !$0.contains(0x3F) }
            .map { p in (hash: p.withUnsafeBytes { _Fold.hash($0) }, bytes: p) }.sorted { $0.hash < $1.hash }
        plainEntities = plain.map(\.bytes)
        plainEntityHashes = plain.map(\.hash)
        entities = patterns.filter { $0.contains(0x2A) || $0.contains(0x3F) }
        entityLengths = entities.map { $0.contains(0x2A) ? -1 : $0.count }
        entityFirstBytes = entities.map { $0.first.map { $0 == 0x2A || $0 == 0x3F ? 0 : $0 } ?? 0 }
        countryCodes = c.countryCodes
    }
}

extension String {
    func leftPadded(to n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}

/// The folder part of a path ("a/b/rules.yaml" → "a/b"), nil when there is none.
func _folder(of path: String) -> String? {
    guard let slash = path.lastIndex(of: "/") else { return nil }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// Rules that parsed but could not be compiled (an automaton too large).
public struct RuleSetBuildError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The rule file.
    public let source: String
    /// Details.
    public let detail: String
    public var description: String { "\(source): cannot compile the rules: \(detail)" }
}
