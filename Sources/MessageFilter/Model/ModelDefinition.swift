/// A learned linear model over phrases: the `model:` section of a rule file (written by `smsfilter learn`).
///
/// The same automaton that finds the rules' phrases finds the model's. For one message let M be the set of
/// model phrases present (each counted once, however often it occurs). Target t scores
///
///     score(t) = bias[t] + Σ_{p ∈ M} weight[p][t] / sqrt(Σ_{p ∈ M} idf[p]²)
///
/// (binary TF-IDF with L2 length normalisation, the idf folded into the weights; with no phrase present the
/// score is the bias). The target with the highest score wins (ties: the first target); its **margin** is its
/// score minus the runner-up's.
///
/// ### When the model abstains (and the hand rules decide)
/// - no model phrase is present (no evidence: its biases alone say nothing about the message);
/// - the message's main script (``Script``) is one the model learned from fewer than
///   ``minScriptMessages`` real messages (``scripts``): "learned from 0 real Han messages";
/// - no rule below it fired with another action than the winner's, and the winner's margin is below its
///   calibrated ``margins`` entry (`smsfilter learn` picks the smallest margin at which cross-validated junk and
///   promotion decisions reach a precision target);
/// - the winning score is below ``threshold``;
/// - a rule below it fired with another action than the winner's, and the model learned fewer than
///   ``minScriptMessages`` real messages of the rule's action or of the winner's in the message's script
///   (``yields(to:on:with:)``);
/// - the best firing rule below it has another action than the winner, and the winner's margin is below the
///   ``overrules`` margin calibrated for overruling a rule of that action with that target (`smsfilter learn
///   --rules` picks the smallest margin at which held-out overrules of that pair reach the precision target;
///   never with too few of them);
/// - the model says junk and the sender is a TRAI DLT header (a registered, accountable sender);
/// - a registered transactional sender vouches for the message (a rule with only sender conditions and
///   action `transaction` fired: TRAI `-T`/`-S`/`-G` headers, bank and carrier entities) and the model's
///   winner is not a transaction: the model alone never moves such a message to Junk, Promotions or
///   Unknown Senders.
///
/// ### Precedence with hand rules
/// 1. The number lists decide first.
/// 2. A hand rule that fires with `priority` ≥ the model's ``priority`` decides (the usual order among
///    such rules: priority, earliest match, file order).
/// 3. Otherwise the model decides, unless it abstains (above).
/// 4. Otherwise the best firing hand rule below the model's priority decides; else action `none`.
public struct ModelDefinition: Sendable, Hashable {
    /// How a model phrase must appear in the text.
    public enum MatchKind: UInt8, Sendable, Hashable, CaseIterable {
        /// As a whole word (word n-grams): not touching a letter or digit on either side.
        case word = 0
        /// Anywhere inside one run of word characters or of symbols (character n-grams of unspaced scripts,
        /// pieces of words with digits, symbols).
        case part = 1
        /// Anywhere in the normalised text, across words, spaces and symbols (character n-grams of the whole
        /// text, `smsfilter learn --text-ngrams`): a substring whose only whitespace is single ASCII spaces.
        case text = 2

        /// The name used in rule files.
        public var name: String {
            switch self {
            case .word: "word"
            case .part: "part"
            case .text: "text"
            }
        }
    }

    /// One phrase with its inverse document frequency and its weight for each target (idf included).
    public struct Phrase: Sendable, Hashable {
        public var text: String
        public var kind: MatchKind
        public var idf: Float
        public var weights: [Float]

        public init(text: String, kind: MatchKind, idf: Float, weights: [Float]) {
            self.text = text
            self.kind = kind
            self.idf = idf
            self.weights = weights
        }
    }

    /// What a target stands for: an action (`--by action`) or a folder, as an action and sub-action pair.
    public struct Target: Sendable, Hashable, CustomStringConvertible {
        public var action: Action
        public var subAction: SubAction

        public init(action: Action, subAction: SubAction = .none) {
            self.action = action
            self.subAction = subAction
        }

        /// The name used in rule files: the action's name, or the folder path when there is a sub-action.
        public var name: String { subAction == .none ? action.name : Folder(action: action, subAction: subAction).path }
        public var description: String { name }

        /// Parses an action name (`junk`, `none`…) or a folder path (`Transactions/Finance`, or with `_` for
        /// spaces); `Junk`, `Inbox`, `Unknown Senders` name their actions.
        public init?(name: String) {
            let lower = name.lowercased()
            switch lower {
            case "inbox": self.init(action: .allow); return
            case "unknown senders", "unknown_senders": self.init(action: .none); return
            default: break
            }
            if let a = Action(name: lower) {
                self.init(action: a)
                return
            }
            let spaced = lower.replacingOccurrences(of: "_", with: " ")
            for action in Action.allCases {
                for sub in [SubAction.none] + action.validSubActions where Folder(action: action, subAction: sub).path.lowercased() == spaced {
                    self.init(action: action, subAction: sub)
                    return
                }
            }
            return nil
        }
    }

    /// The name verdicts and counts give the model (as they give a rule's name). Default `model`.
    public var name = "model"
    /// Rules of this priority or higher decide before the model (default 0).
    public var priority = 0
    /// The winning score must reach this for the model to decide; nil: the model always decides.
    public var threshold: Float?
    /// The targets, in order (ties go to the first).
    public var targets: [Target] = []
    /// One bias per target.
    public var bias: [Float] = []
    /// Per target, the margin over the runner-up its score needs for the model to decide it (0: none;
    /// `.infinity`: the model never decides that target). Empty: no margins.
    public var margins: [Float] = []
    /// Real (not generated) training messages per main script, one count per target (in target order); nil:
    /// not recorded (a model written before scripts were counted), and the model then speaks on every script.
    public var scripts: [Script: [Int]]?
    /// Generated training messages per main script (`smsfilter generate` output; informational: they do not
    /// count towards ``minScriptMessages``).
    public var generatedScripts: [Script: Int] = [:]
    /// The model abstains on a message whose main script it learned from fewer real messages than this
    /// (0: never; needs ``scripts``).
    public var minScriptMessages = 0
    /// Links are evidence only with company (`links: company`; docs/RULES.md §10, "Links"): the model files a
    /// message with a link in Junk or Promotions only when, with its links blanked out, it still holds model
    /// evidence and the model would still file it; otherwise it abstains. false (`links: evidence`, the
    /// default): a link's phrases weigh like any other's. The embedded default model sets it (a model learned
    /// from 2000s spam, where nearly every link was spam, must not file today's chat for a link);
    /// `smsfilter learn --links company` sets it on a learned model.
    public var linksNeedCompany = false
    /// What a target needs to overrule a hand rule (`smsfilter learn --rules BASE` calibrates it), per main
    /// script of the message: when the best firing rule below the model has action A and the model's winner has
    /// another action, on a message of main script S the winner decides only if it leads the runner-up by
    /// `overrules[S][A][winner]` (instead of its ``margins`` entry); `.infinity`: it never overrules such a rule
    /// there, nor on a script the table leaves out. Rows: ``overruleRows`` (`.none` stands for rules of action
    /// none and allow); entries of targets with the row's own action are not read (`.infinity`). Per script
    /// because a hand rule's errors are a market's: the default rules' junk rules fire on Thai bank notices the
    /// model rightly calls none, and on English spam it wrongly calls none. nil: not calibrated (a model learned
    /// without `--rules`): the model overrules a rule below it whenever it decides.
    public var overrules: [Script: [Action: [Float]]]?
    /// The phrases.
    public var phrases: [Phrase] = []
    /// Where the model came from (inputs and their checksums, record counts, options, cross-validation
    /// figures), as YAML text; informational.
    public var provenance = ""
    /// The line of `model:` in its file (0 when unknown).
    public var line = 0

    /// An empty model; fill it in.
    public init() {}

    /// The model's folder-level or action-level granularity: `folder` when a target has a sub-action.
    public var isByFolder: Bool { targets.contains { $0.subAction != .none } }

    /// Real training messages of main script `script` (nil when the model does not record scripts).
    public func realMessages(_ script: Script) -> Int? { scripts.map { $0[script]?.reduce(0, +) ?? 0 } }

    /// Real training messages of main script `script` whose target has action `action` (allow counts as
    /// none: both leave the message unfiltered); nil when the model does not record scripts.
    public func realMessages(_ script: Script, action: Action) -> Int? {
        guard let counts = scripts else { return nil }
        let row = counts[script] ?? []
        func same(_ a: Action) -> Action { a == .allow ? .none : a }
        return targets.indices.filter { same(targets[$0].action) == same(action) && $0 < row.count }.map { row[$0] }.reduce(0, +)
    }

    /// Whether the model, with winner `target`, yields to a firing rule of action `action` below it on messages of
    /// main script `script`, whatever its margin: to overrule the rule it would have to tell the rule's action from
    /// its own there, and it learned fewer than ``minScriptMessages`` real messages of one of the two actions in that
    /// script (none and allow count as one). A model that saw English chat and spam but too few English bank
    /// alerts does not overrule `finance` (not even with junk: on another market's alerts, digits look like UK
    /// spam); one that saw too few English promotions does not overrule an `offers` rule, nor say promotion over
    /// a rule of another action. A winner with the rule's action overrules nothing.
    public func yields(to action: Action, on script: Script, with target: Int) -> Bool {
        guard minScriptMessages > 0, scripts != nil, isOverrule(of: action, by: target) else { return false }
        // Held-out overrules of such a rule calibrated a margin (`learn --rules` without a precision target
        // judges them as the labels can: filtered or not): the margin decides, not the counts.
        if let m = overruleMargin(rule: action, target: target, script: script), m.isFinite { return false }
        func learned(_ a: Action) -> Int { realMessages(script, action: a) ?? 0 }
        return learned(action) < minScriptMessages || learned(targets[target].action) < minScriptMessages
    }

    /// The rows of ``overrules``: the action of the rule overruled (`.none` stands for none and allow).
    public static let overruleRows: [Action] = [.none, .junk, .promotion, .transaction]

    /// The row of ``overrules`` for a rule of action `action` (allow and none share one: both leave the message
    /// unfiltered).
    public static func overruleRow(_ action: Action) -> Action { action == .allow ? .none : action }

    /// Whether target `target` overrules a rule of action `action` when it wins: its action differs (allow and
    /// none count as one).
    public func isOverrule(of action: Action, by target: Int) -> Bool {
        Self.overruleRow(targets[target].action) != Self.overruleRow(action)
    }

    /// The margin target `target` needs to overrule a firing rule of action `action` below the model on a message
    /// of main script `script`: nil when it would not overrule it (the same action) or the model has no
    /// calibrated overrules; `.infinity` when it never does.
    public func overruleMargin(rule action: Action, target: Int, script: Script) -> Float? {
        guard let table = overrules, isOverrule(of: action, by: target) else { return nil }
        guard let rows = table[script], let row = rows[Self.overruleRow(action)], target < row.count else { return .infinity }
        return row[target]
    }

    /// `overrules` in canonical form: per script given, a row per ``overruleRows`` entry, one margin per target,
    /// `.infinity` where the target has the row's action or no margin was given.
    static func canonicalOverrules(_ o: [Script: [Action: [Float]]], targets: [Target]) -> [Script: [Action: [Float]]] {
        o.mapValues { rows in
            var out: [Action: [Float]] = [:]
            for row in overruleRows {
                out[row] = targets.indices.map { t in
                    guard overruleRow(targets[t].action) != row, let given = rows[row], t < given.count else { return .infinity }
                    return given[t]
                }
            }
            return out
        }
    }

    /// Whether the model abstains on messages of main script `script` (it learned from too few real ones).
    public func abstains(on script: Script) -> Bool {
        guard minScriptMessages > 0, let n = realMessages(script) else { return false }
        return n < minScriptMessages
    }
}

extension ModelDefinition.Phrase {
    /// What kind of evidence the phrase is, for people (`explain`): `word`, `2-word phrase`, `3-character
    /// n-gram` (unspaced scripts), `digit piece` (part of a word that holds a digit), `piece`, or `symbol`
    /// (models written before `learn` stopped proposing punctuation and symbols).
    public var evidence: String {
        let scalars = Array(text.unicodeScalars)
        switch kind {
        case .word:
            let words = scalars.filter { $0 == " " }.count + 1
            return words == 1 ? "word" : "\(words)-word phrase"
        case .part:
            let flags = _ScalarFlags.shared
            if !scalars.contains(where: { flags.isWord($0.value) }) { return "symbol" }
            if scalars.contains(where: { $0.properties.numericType != nil }) { return "digit piece" }
            if scalars.allSatisfy({ PhraseCandidates.isUnspaced($0.value) }) { return "\(scalars.count)-character n-gram" }
            return "piece"
        case .text:
            return "\(scalars.count)-character text n-gram"
        }
    }
}
