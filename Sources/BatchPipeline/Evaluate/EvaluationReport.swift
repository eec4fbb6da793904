import Foundation
import MessageFilter

/// The figures of one `evaluate` run: counters filled while streaming, and the scores derived from them.
///
/// ### Definitions (docs/EVALUATE.md, "Figures")
/// A record is *scored* when its truth label is mapped (and not `ignore`). Its prediction is an action, or a
/// folder when scoring per folder (a *column*); it is *correct* when that column is one its label's targets
/// accept.
///
/// The headline figures are scikit-learn's on one truth class and one predicted class per scored record
/// (``scores``, a ``ClassScores``): `y_true` is the record's *target class*, named after its label's targets
/// as written (`junk|promotion`, `other`, `transaction`), labels whose targets accept the same columns
/// sharing one class; `y_pred` is `y_true` when the record is correct, else the target class of the first
/// mapped label (in mapping order) whose targets accept the predicted column, else the column's own name
/// (`transaction`, `Transactions/Finance`): a class only predicted. Accuracy is `accuracy_score`, macro F1
/// `f1_score(average="macro")` over the union of true and predicted classes.
///
/// Per truth label (the label view): recall = share of its records that landed in an accepted column;
/// precision = share of records (of any label) predicted into its accepted columns that carry this label;
/// F1 their harmonic mean, 0 when nothing was predicted into them.
/// Per rule: *hits* are records it decided, *precision* the share of its scored hits that are correct,
/// *share of true positives* its correct hits over all correct hits of all rules; *fired* counts records
/// where it fired whether it won or lost. A *conflict* is a record on which rules of different folders
/// fired.
public struct EvaluationReport: Sendable {
    /// Per-rule counters.
    public struct RuleFigures: Sendable {
        public var name: String
        public var folder: Folder
        /// The learned model's row (its folder differs per message; `folder` is meaningless).
        public var isModel = false
        /// The folder column: the rule's folder, or that the model decides per message.
        public var folderText: String { isModel ? "(model: per message)" : folder.path }
        /// Records it decided.
        public var hits = 0
        /// Records it fired on (won or lost).
        public var fired = 0
        /// Of `hits`, those with a scored truth label, and the correct ones.
        public var scoredHits = 0
        public var correct = 0
        /// Of `fired`, those with a scored truth label, and those where its own folder/action was right.
        public var scoredFired = 0
        public var firedCorrect = 0

        /// correct / scoredHits, nil without scored hits.
        public var precision: Double? { scoredHits > 0 ? Double(correct) / Double(scoredHits) : nil }
    }

    /// Per truth label: records scored, correct ones, and scored records of any label predicted into this
    /// label's targets (for its precision).
    public struct LabelFigures: Sendable {
        public var records = 0
        public var correct = 0
        public var predictedInto = 0

        /// correct / records: the share of this label's records that landed in an accepted class.
        public var recall: Double? { records > 0 ? Double(correct) / Double(records) : nil }
        /// correct / predictedInto.
        public var precision: Double? { predictedInto > 0 ? Double(correct) / Double(predictedInto) : nil }
        public var f1: Double? {
            guard let p = precision, let r = recall else { return records > 0 ? 0 : nil }
            return p + r > 0 ? 2 * p * r / (p + r) : 0
        }
    }

    public struct RulePair: Sendable, Hashable {
        public var winner: Int
        public var other: Int
    }

    public struct ConflictExample: Sendable {
        public var id: String
        public var body: String
        public var truth: String?
        public var winner: String
        public var winnerFolder: String
        public var others: [(rule: String, folder: String)]
    }

    public let ruleSetChecksum: String
    public let ruleSource: String
    public let mapping: TruthMapping
    public let granularity: TruthMapping.Granularity
    /// Class names: the five actions, or the seventeen folder paths.
    public let classNames: [String]
    public var corpus: [String] = []
    public var truthField = "label"
    public var date = Date()
    public var seconds = 0.0

    /// Non-blank lines read.
    public var records = 0
    /// Lines skipped (invalid JSON, no body, too long), by reason.
    public var skipped: [String: Int] = [:]
    public var withoutTruth = 0
    /// Records whose label is not in the mapping, per label.
    public var unmapped: [String: Int] = [:]
    public var ignored = 0
    public var scored = 0
    public var correct = 0

    /// Truth labels in row order, and per row: scored records and correct ones.
    public private(set) var labels: [String] = []
    public var labelTotals: [LabelFigures] = []
    /// Truth label (row) × predicted column (action or folder).
    public var confusion: [[Int]] = []
    /// scikit-learn's view: target class (`y_true`) × predicted class (`y_pred`) of the scored records.
    public var scores: ClassScores
    /// Per class of ``scores``: the columns (actions or folders) it accepts.
    public let scoreAccepts: [[Int]]
    /// Per class of ``scores``: whether it is a target class (else a column no target accepts).
    public let scoreIsTarget: [Bool]
    /// Per column: the class of ``scores`` a wrong prediction of it counts as.
    let wrongClass: [Int]
    /// Per mapped (not ignored) label: its target class in ``scores``.
    let targetClass: [String: Int]
    /// Predicted folders of every record (scored or not), in `Folder.allCases` order.
    public var folderCounts: [Int]
    public var rules: [RuleFigures]
    public var conflicts = 0
    public var conflictPairs: [RulePair: Int] = [:]
    public var conflictExamples: [ConflictExample] = []

    init(ruleSet: RuleSet, mapping: TruthMapping, granularity: TruthMapping.Granularity) {
        ruleSetChecksum = ruleSet.checksum
        ruleSource = ruleSet.source
        self.mapping = mapping
        self.granularity = granularity
        classNames = granularity == .action ? Action.allCases.map(\.name) : Folder.allCases.map(\.path)
        let classes = Self.targetClasses(mapping, granularity: granularity, columnNames: classNames)
        scores = ClassScores(names: classes.names)
        scoreAccepts = classes.accepts
        scoreIsTarget = classes.names.indices.map { $0 < classes.targets }
        wrongClass = classes.wrong
        targetClass = classes.ofLabel
        folderCounts = Array(repeating: 0, count: Folder.allCases.count)
        rules = ruleSet.definition.rules.map {
            RuleFigures(name: $0.name, folder: ruleSet.capabilities.validate(action: $0.action, subAction: $0.subAction).folder)
        }
        // The model, last (its verdicts carry rule index `rules.count`, as in `RuleSet.ruleNames`).
        if let model = ruleSet.definition.model {
            var row = RuleFigures(name: model.name, folder: .unknownSenders)
            row.isModel = true
            rules.append(row)
        }
        for entry in mapping.entries { _ = row(for: entry.label) }
    }

    /// The column of a prediction.
    func classIndex(action: Action, folder: Folder) -> Int {
        granularity == .action ? Action.allCases.firstIndex(of: action)! : Folder.allCases.firstIndex(of: folder)!
    }

    /// The classes of ``scores``: first one per distinct set of accepted columns among the mapped labels (in
    /// mapping order, named after the first label's targets), then one per column no target accepts (named
    /// after the column); and where each label and each wrongly predicted column goes.
    static func targetClasses(_ mapping: TruthMapping, granularity: TruthMapping.Granularity, columnNames: [String])
        -> (names: [String], accepts: [[Int]], targets: Int, wrong: [Int], ofLabel: [String: Int])
    {
        var names: [String] = []
        var accepts: [[Int]] = []
        var ofLabel: [String: Int] = [:]
        for entry in mapping.entries where !entry.targets.contains(.ignore) {
            let accepted = columns(of: entry.targets, granularity: granularity)
            if let i = accepts.firstIndex(where: { Set($0) == Set(accepted) }) {
                ofLabel[entry.label] = i
            } else {
                ofLabel[entry.label] = names.count
                names.append(entry.targets.map(\.description).joined(separator: "|"))
                accepts.append(accepted)
            }
        }
        let targets = names.count
        var wrong: [Int] = []
        for c in columnNames.indices {
            if let i = accepts.firstIndex(where: { $0.contains(c) }) {
                wrong.append(i)
            } else {
                // A column's name never equals a target class's name (that class would accept the column); the
                // suffix only keeps the names distinct if that ever changed.
                names.append(names.contains(columnNames[c]) ? columnNames[c] + " (predicted)" : columnNames[c])
                accepts.append([c])
                wrong.append(names.count - 1)
            }
        }
        return (names, accepts, targets, wrong, ofLabel)
    }

    /// The columns a list of targets accepts.
    func classes(of targets: [TruthMapping.Target]) -> [Int] {
        Self.columns(of: targets, granularity: granularity)
    }

    /// The columns a list of targets accepts when scoring by `granularity`.
    static func columns(of targets: [TruthMapping.Target], granularity: TruthMapping.Granularity) -> [Int] {
        var out: [Int] = []
        func add(_ i: Int) { if !out.contains(i) { out.append(i) } }
        func addAction(_ a: Action) {
            if granularity == .action {
                add(Action.allCases.firstIndex(of: a)!)
            } else {
                for s in a.validSubActions { add(Folder.allCases.firstIndex(of: Folder(action: a, subAction: s))!) }
            }
        }
        for t in targets {
            switch t {
            case .action(let a): addAction(a)
            case .other:
                addAction(.none)
                addAction(.allow)
            case .folder(let f):
                // Per action, a folder stands for its action.
                if granularity == .folder {
                    add(Folder.allCases.firstIndex(of: f)!)
                } else if let a = Action.allCases.first(where: { a in a.validSubActions.contains { Folder(action: a, subAction: $0) == f } }) {
                    addAction(a)
                }
            case .ignore: break
            }
        }
        return out
    }

    /// The row of a truth label (added on first sight).
    mutating func row(for label: String) -> Int {
        if let i = labels.firstIndex(of: label) { return i }
        labels.append(label)
        labelTotals.append(LabelFigures())
        confusion.append(Array(repeating: 0, count: classNames.count))
        return labels.count - 1
    }

    // MARK: Derived figures

    public var accuracy: Double? { scored > 0 ? Double(correct) / Double(scored) : nil }

    /// The headline: scikit-learn's `f1_score(y_true, y_pred, average="macro")` on the target classes (see the
    /// type's documentation): the mean F1 over the classes that are some scored record's `y_true` or `y_pred`;
    /// a class only predicted has F1 0. Labels whose targets accept the same columns are one class.
    public var macroF1: Double? { scores.macroF1 }

    /// The per-label view: the mean F1 over the scored truth labels, each label's accepted columns taken as
    /// one group; a label nothing was predicted into has F1 0. Two labels that map to the same target
    /// (`ham=none,OK=none`) both count the class's predictions of the other label as false positives, so this
    /// is low where the classes are right; it is a view of the labels, not the headline.
    public var macroF1Labels: Double? {
        let fs = labelTotals.filter { $0.records > 0 }.compactMap(\.f1)
        return fs.isEmpty ? nil : fs.reduce(0, +) / Double(fs.count)
    }

    /// Rows of the confusion matrix worth showing: labels with records.
    public var confusionRows: [Int] { labels.indices.filter { confusion[$0].contains { $0 > 0 } } }

    /// Columns of the confusion matrix worth showing: predicted, or accepted for a label with scored records.
    public var confusionColumns: [Int] {
        let targeted = Set(labels.indices.filter { labelTotals[$0].records > 0 }.flatMap { i in
            targetClass[labels[i]].map { scoreAccepts[$0] } ?? []
        })
        return classNames.indices.filter { c in confusion.contains { $0[c] > 0 } || targeted.contains(c) }
    }

    /// Conflict pairs, most frequent first, then by the winner's and the other rule's names (an order that
    /// does not depend on the dictionary's).
    public var sortedConflictPairs: [(key: RulePair, value: Int)] {
        conflictPairs.sorted {
            ($1.value, rules[$0.key.winner].name, rules[$0.key.other].name) < ($0.value, rules[$1.key.winner].name, rules[$1.key.other].name)
        }
    }

    /// Correct hits of all rules together.
    public var ruleTruePositives: Int { rules.reduce(0) { $0 + $1.correct } }

    public var neverFired: [String] { rules.filter { $0.fired == 0 }.map(\.name) }

    public func targetText(_ label: String) -> String {
        mapping.targets(of: label).map { $0.map(\.description).joined(separator: "|") } ?? "unmapped"
    }

    // MARK: Output

    static func number(_ x: Double?) -> Any {
        guard let x else { return NSNull() }
        return (x * 10000).rounded() / 10000
    }

    /// The JSON object of `--json`.
    public func jsonObject() -> [String: Any] {
        var classes: [String: Any] = [:]
        for c in scores.scoredClasses {
            classes[scores.names[c]] = [
                "accepts": scoreAccepts[c].map { classNames[$0] }, "target": scoreIsTarget[c],
                "predicted": scores.predicted(c), "support": scores.support(c), "truePositives": scores.truePositives(c),
                "falsePositives": scores.falsePositives(c), "falseNegatives": scores.falseNegatives(c),
                "precision": Self.number(scores.precision(c)), "recall": Self.number(scores.recall(c)), "f1": Self.number(scores.f1(c)),
            ]
        }
        var labelObject: [String: Any] = [:]
        for i in confusionRows {
            let label = labels[i]
            let t = labelTotals[i]
            labelObject[label] = [
                "target": targetText(label), "class": targetClass[label].map { scores.names[$0] as Any } ?? NSNull(), "records": confusion[i].reduce(0, +), "scored": t.records, "correct": t.correct,
                "predictedInto": t.predictedInto, "precision": Self.number(t.precision), "recall": Self.number(t.recall),
                "f1": Self.number(t.f1),
            ]
        }
        let totalTP = ruleTruePositives
        var ruleObject: [String: Any] = [:]
        for r in rules {
            ruleObject[r.name] = [
                "folder": r.folderText, "hits": r.hits, "fired": r.fired, "scoredHits": r.scoredHits, "correct": r.correct,
                "precision": Self.number(r.precision),
                "shareOfTruePositives": Self.number(totalTP > 0 ? Double(r.correct) / Double(totalTP) : nil),
                "firedPrecision": Self.number(r.scoredFired > 0 ? Double(r.firedCorrect) / Double(r.scoredFired) : nil),
            ]
        }
        let columns = confusionColumns
        let pairs = sortedConflictPairs
        let formatter = ISO8601DateFormatter()
        let rowNames: [String] = confusionRows.map { labels[$0] }
        let columnNames: [String] = columns.map { classNames[$0] }
        let cells: [[Int]] = confusionRows.map { i in columns.map { confusion[i][$0] } }
        return [
            "corpus": corpus, "ruleSet": ruleSetChecksum, "ruleSource": ruleSource, "date": formatter.string(from: date),
            "by": granularity.rawValue, "truthField": truthField,
            "mapping": Dictionary(uniqueKeysWithValues: confusionRows.map { (labels[$0], mapping.targets(of: labels[$0])?.map(\.description) ?? []) }),
            "records": records, "skipped": skipped, "withoutTruth": withoutTruth, "unmapped": unmapped, "ignored": ignored,
            "scored": scored, "correct": correct, "accuracy": Self.number(accuracy), "macroF1": Self.number(macroF1),
            "macroF1Labels": Self.number(macroF1Labels), "ignoreCase": mapping.ignoreCase,
            "classes": classes, "labels": labelObject,
            "confusion": [
                "rows": rowNames, "columns": columnNames, "cells": cells,
            ],
            "folders": Dictionary(uniqueKeysWithValues: Folder.allCases.enumerated().map { ($1.path, folderCounts[$0]) }),
            "rules": ruleObject, "neverFired": neverFired,
            "conflicts": [
                "records": conflicts,
                "pairs": pairs.map { ["winner": rules[$0.key.winner].name, "other": rules[$0.key.other].name, "records": $0.value] },
                "examples": conflictExamples.map { e -> [String: Any] in
                    [
                        "id": e.id, "body": e.body, "truth": e.truth.map { $0 as Any } ?? NSNull(), "winner": e.winner,
                        "winnerFolder": e.winnerFolder, "others": e.others.map { ["rule": $0.rule, "folder": $0.folder] },
                    ]
                },
            ],
            "seconds": Self.number(seconds),
        ]
    }

    public func jsonData() throws -> Data {
        try JSONSerialization.data(withJSONObject: jsonObject(), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}
