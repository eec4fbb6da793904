import Foundation
import MessageFilter

/// Settings of one `learn` run.
public struct LearnOptions: Sendable {
    /// How the inputs' records are read: format, fields, header row, longest record (lines), the stdin name.
    public var input = RecordFormat()
    /// The field holding the truth label.
    public var truthField = "label"
    /// Truth label → target (exactly one per label; `ignore` leaves the label's records out).
    public var mapping: TruthMapping
    /// Targets are actions or folders; nil: from the mapping.
    public var granularity: TruthMapping.Granularity?
    /// How text is normalised (the rule file's `normalize:`).
    public var normalization: TextNormalization = .standard
    /// Which phrases are proposed (``PhraseCandidates/Options/learnDefaults``: word uni- and bigrams, text
    /// n-grams of 1 to 4 characters).
    public var candidates = PhraseCandidates.Options.learnDefaults
    /// The largest vocabulary: the phrases in most messages are kept (``defaultMaxPhrases``).
    public var maxPhrases = LearnOptions.defaultMaxPhrases
    /// 30,000 by cross-validation on English, Thai and Chinese (docs/QUALITY.md, "The learner's defaults"):
    /// text n-grams need more room than words; 10,000 lost 0.004 F1 on Thai, 50,000 gained nothing.
    public static let defaultMaxPhrases = 30_000
    /// A phrase must be in at least this many training messages.
    public var minDocuments: UInt32 = 2
    /// The SVM's C.
    public var cost = 1.0
    /// The dual solver's stopping tolerance (projected-gradient spread).
    public var tolerance = 0.01
    public var maxIterations = 1000
    /// Seeds the solver's pass order.
    public var seed: UInt64 = 1
    /// Cross-validation folds (0: none).
    public var folds = 0
    /// The precision the model's decisions must reach, held out: `learn` picks, per target, the smallest
    /// margin over the runner-up at which they do (junk and promotion count as one: both are filtered; none
    /// and allow too), and the model abstains below it, leaving the message to the rules. nil: no margins; the
    /// model decides at its best-F1 operating point (``bestF1``).
    public var precisionTarget: Double?
    /// Without a precision target: shift each target's bias by the offset at which the held-out macro F1 of
    /// the calibration folds is highest (the operating point a user of the model alone expects), instead of
    /// deciding at the plain argmax.
    public var bestF1 = true
    /// Folds of the calibration when `folds` is 0.
    public var calibrationFolds = 5
    /// Held-out decisions of a target below which its margin is not calibrated (left at 0, and said so).
    public var minimumCalibrationDecisions = 20
    /// With ``base`` rules: the held-out overrules of a (rule action, target) pair needed to calibrate its
    /// overrule margin, and needed at or above the margin chosen; with fewer, the model never overrules a rule of
    /// that action with that target (docs/RULES.md §10).
    public var minimumOverrules = 20
    /// The base rule file's name and checksum, for the provenance (nil: not recorded).
    public var baseName: String?
    public var baseChecksum: String?
    /// The model abstains on messages whose main script it learned from fewer real messages than this, and
    /// yields to a firing rule whose action it learned from fewer real messages than this in the message's
    /// script (0: never).
    public var minScriptMessages = 100
    /// `--links company`: the model files a message in Junk or Promotions for its links only with other
    /// evidence (``ModelDefinition/linksNeedCompany``); false: a link's phrases weigh like any other's.
    public var linksNeedCompany = false
    /// Inputs (indices into the input list) whose records are generated, not real; records whose id starts
    /// with `gen:` (`smsfilter generate`) are generated wherever they are.
    public var generatedInputs: Set<Int> = []
    /// Whether to train and return the model (false with `--cv` alone).
    public var trainModel = true
    /// Candidates counted at once (the counting table's cap).
    public var maxCandidates = 2_000_000
    /// Training messages held at once (beyond it, a deterministic hash sample).
    public var maxExamples = 2_000_000
    /// Hand rules to combine with the model (cross-validation classifies with them, as `classify` would).
    public var base: RuleSetDefinition?
    /// The model's name, priority and threshold in the rule file.
    public var modelName = "model"
    public var priority = 0
    public var threshold: Float?
    /// Where to write each record's fold (JSON Lines: file, line, id, fold), for peer tools.
    public var foldsFile: String?
    /// Replace an existing fold file (`-f/--force`); otherwise one that exists is refused.
    public var replaceExisting = false
    /// Called about four times a second.
    public var progress: (@Sendable (Progress) -> Void)?

    public init(mapping: TruthMapping) {
        self.mapping = mapping
    }
}

/// What a `learn` run did.
public struct LearnReport: Sendable {
    /// Per target: precision, recall and F1 over the folds.
    public struct TargetScore: Sendable {
        public var target: String
        public var support = 0
        public var truePositives = 0
        public var falsePositives = 0
        public var falseNegatives = 0
        public var precision: Double { truePositives + falsePositives == 0 ? 0 : Double(truePositives) / Double(truePositives + falsePositives) }
        public var recall: Double { support == 0 ? 0 : Double(truePositives) / Double(support) }
        public var f1: Double { precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall) }
    }

    public struct Input: Sendable {
        public var name: String
        public var checksum: String
        public var records: Int
    }

    /// The model (nil when only cross-validating).
    public var model: ModelDefinition?
    public var targets: [String] = []
    public var inputs: [Input] = []
    /// Lines read with a record on them.
    public var records = 0
    /// Records learnt from (per target, in target order).
    public var used = 0
    public var perTarget: [Int] = []
    /// Records passed over and why (`ignore`d labels included).
    public var skipped: [String: Int] = [:]
    /// Training messages left out by the --max-examples sample.
    public var sampledOut = 0
    /// Distinct candidates counted, how often the table was pruned and its floor, its size in bytes.
    public var candidates = 0
    public var prunes = 0
    public var candidateFloor = 0
    public var tableBytes = 0
    /// Cross-validation (empty without).
    public var folds = 0
    public var scores: [TargetScore] = []
    /// With several inputs: the same figures per input (index as in ``inputs``; targets absent from an input
    /// have support 0 there).
    public var scoresByInput: [[TargetScore]] = []
    public var accuracy = 0.0
    public var macroF1: Double { scores.isEmpty ? 0 : scores.map(\.f1).reduce(0, +) / Double(scores.count) }
    /// The same figures with every margin at 0 (the model's plain decisions; with cross-validation only).
    public var scoresWithoutMargins: [TargetScore] = []
    public var accuracyWithoutMargins = 0.0
    public var macroF1WithoutMargins: Double { scoresWithoutMargins.isEmpty ? 0 : scoresWithoutMargins.map(\.f1).reduce(0, +) / Double(scoresWithoutMargins.count) }
    /// Cross-validation per input: truth label → predicted folder → records (the model with margins).
    public var confusionByInput: [[String: [String: Int]]] = []
    /// Real messages learnt from, per main script and target (in target order), and generated ones per main
    /// script.
    public var scripts: [Script: [Int]] = [:]
    public var generatedScripts: [Script: Int] = [:]
    /// Per target: what the calibration found.
    public struct Calibration: Sendable {
        public var target: String
        /// The margin chosen (+inf: the target never reached the precision; 0: it did without one).
        public var margin: Float
        /// Held-out decisions of the target (the model's plain argmax, where it did not abstain otherwise),
        /// those right (junk or promotion), and those at or above the margin, with the right ones among them.
        public var decisions = 0
        public var right = 0
        public var kept = 0
        public var keptRight = 0
        /// Whether there were enough decisions to calibrate.
        public var calibrated = true
    }
    public var calibration: [Calibration] = []
    public var calibrationFolds = 0
    /// Without a precision target: per target, the offset added to its bias (the held-out best-F1 operating
    /// point, ``LearnOptions/bestF1``); empty otherwise.
    public var operatingPoint: [Float] = []
    /// Per (rule action, target) pair whose actions differ: what the overrule calibration found (empty without
    /// base rules).
    public struct OverruleCalibration: Sendable {
        /// The main script of the messages.
        public var script: Script
        /// The overruled rule's action (`none` stands for none and allow) and the overruling target.
        public var rule: Action
        public var target: String
        /// The margin chosen (+inf: never).
        public var margin: Float = .infinity
        /// Held-out overrules (the fold model's winner had another action than the best firing base rule below
        /// it, and nothing else stopped it), those right (the message's true action is the winner's), and those
        /// at or above the margin, with the right ones among them.
        public var cases = 0
        public var right = 0
        public var kept = 0
        public var keptRight = 0
        /// Whether there were enough cases to calibrate.
        public var calibrated = false
    }
    public var overrules: [OverruleCalibration] = []
    /// The minimum of held-out overrules the calibration used (``LearnOptions/minimumOverrules``).
    public var minimumOverrules = 0
    /// Solver passes of the final model's classifiers.
    public var iterations: [Int] = []
    public var seconds = 0.0
}
