/// A learned linear model over phrases: the `model:` section of a rule file (written by `smsfilter learn`).
///
/// The same automaton that finds the rules' phrases finds the model's. For one message let M be the set of
/// model phrases present (each counted once, however often it occurs). Target t scores
///
///     score(t) = bias[t] + Σ_{p ∈ M} weight[p][t] / sqrt(Σ_{p ∈ M} idf[p]²)
///
/// (binary TF-IDF with L2 length normalisation, the idf folded into the weights; with no phrase present the
/// score is the bias). The target with the highest score wins (ties: the first target); with a
/// ``threshold``, only when its score reaches the threshold (otherwise the model abstains). A message with
/// no model phrase present gives the model no evidence: it abstains, whatever its biases say (a model
/// learned on some languages must not overrule hand rules on a language it never saw).
///
/// ### Precedence with hand rules
/// 1. The number lists decide first.
/// 2. A hand rule that fires with `priority` ≥ the model's ``priority`` decides (the usual order among
///    such rules: priority, earliest match, file order).
/// 3. Otherwise the model decides, unless it abstains (no phrase of it present, or below ``threshold``).
/// 4. Otherwise the best firing hand rule below the model's priority decides; else action `none`.
public struct ModelDefinition: Sendable, Hashable {
    /// How a model phrase must appear in the text.
    public enum MatchKind: UInt8, Sendable, Hashable, CaseIterable {
        /// As a whole word (word n-grams): not touching a letter or digit on either side.
        case word = 0
        /// Anywhere (character n-grams of unspaced scripts, pieces of words with digits, symbols).
        case part = 1

        /// The name used in rule files.
        public var name: String { self == .word ? "word" : "part" }
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
}

extension RuleSetDefinition {
    /// This definition with `model` as its learned model (replacing any).
    public func withModel(_ model: ModelDefinition?) -> RuleSetDefinition {
        var d = self
        d.model = model
        return d
    }
}
