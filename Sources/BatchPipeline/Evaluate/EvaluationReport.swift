import Foundation
import MessageFilter

/// The figures of one `evaluate` run: counters filled while streaming, and the scores derived from them.
///
/// ### Definitions
/// A record is *scored* when its truth label is mapped (and not `ignore`). It is *correct* when the
/// predicted class (its action, or its folder when scoring per folder) is one of its label's targets.
/// For a class c: precision = correct records predicted c / records predicted c; recall = correct
/// records predicted c / (those + records whose targets include c but whose prediction is none of their
/// targets); F1 their harmonic mean. With one target per label these are the usual definitions; with
/// `spam=junk|promotion`, a spam record in Promotions counts for promotion and against nothing.
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
    /// Truth label (row) × predicted class (column).
    public var confusion: [[Int]] = []
    /// Per class (scored records only).
    public var predicted: [Int]
    public var truePositives: [Int]
    public var falsePositives: [Int]
    public var falseNegatives: [Int]
    /// Scored records whose targets include the class.
    public var support: [Int]
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
        let n = classNames.count
        predicted = Array(repeating: 0, count: n)
        truePositives = predicted
        falsePositives = predicted
        falseNegatives = predicted
        support = predicted
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

    /// The columns a list of targets accepts.
    func classes(of targets: [TruthMapping.Target]) -> [Int] {
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

    public func precision(_ c: Int) -> Double? {
        predicted[c] > 0 ? Double(truePositives[c]) / Double(predicted[c]) : nil
    }

    public func recall(_ c: Int) -> Double? {
        let d = truePositives[c] + falseNegatives[c]
        return d > 0 ? Double(truePositives[c]) / Double(d) : nil
    }

    public func f1(_ c: Int) -> Double? {
        guard let p = precision(c), let r = recall(c) else { return support[c] > 0 || predicted[c] > 0 ? 0 : nil }
        return p + r > 0 ? 2 * p * r / (p + r) : 0
    }

    /// Classes that are a target of some scored record or were predicted for one.
    public var activeClasses: [Int] { classNames.indices.filter { support[$0] > 0 || predicted[$0] > 0 } }

    /// The headline: scikit-learn's macro F1 (`f1_score(average="macro")`), the mean F1 over the classes
    /// (actions or folders) that are a target of a scored record or were predicted for one; a class only
    /// predicted has F1 0, as scikit-learn counts it. With one target per label this is scikit-learn's figure
    /// on (target, prediction) pairs exactly. Labels that map to the same target share that class's figures
    /// once, instead of each label getting the class's precision (``macroF1Labels``).
    public var macroF1: Double? {
        let cs = activeClasses
        guard !cs.isEmpty else { return nil }
        return cs.map { f1($0) ?? 0 }.reduce(0, +) / Double(cs.count)
    }

    /// The mean F1 over the classes some scored record has as a target (classes only predicted left out).
    public var macroF1Classes: Double? {
        let cs = classNames.indices.filter { support[$0] > 0 }
        guard !cs.isEmpty else { return nil }
        return cs.map { f1($0) ?? 0 }.reduce(0, +) / Double(cs.count)
    }

    /// The per-label view: the mean F1 over the scored truth labels, each label's accepted classes taken as
    /// one group. Two labels that map to the same target (`ham=none,OK=none`) both count the class's
    /// predictions of the other label as false positives, so this is low where the classes are right; it is
    /// a view of the labels, not the headline.
    public var macroF1Labels: Double? {
        let fs = labelTotals.filter { $0.records > 0 }.compactMap(\.f1)
        return fs.isEmpty ? nil : fs.reduce(0, +) / Double(fs.count)
    }

    /// Rows of the confusion matrix worth showing: labels with records.
    public var confusionRows: [Int] { labels.indices.filter { confusion[$0].contains { $0 > 0 } } }

    /// Columns of the confusion matrix worth showing: classes predicted or targeted.
    public var confusionColumns: [Int] {
        classNames.indices.filter { c in confusion.contains { $0[c] > 0 } || support[c] > 0 }
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
        for c in activeClasses {
            classes[classNames[c]] = [
                "predicted": predicted[c], "support": support[c], "truePositives": truePositives[c],
                "falsePositives": falsePositives[c], "falseNegatives": falseNegatives[c],
                "precision": Self.number(precision(c)), "recall": Self.number(recall(c)), "f1": Self.number(f1(c)),
            ]
        }
        var labelObject: [String: Any] = [:]
        for i in confusionRows {
            let label = labels[i]
            let t = labelTotals[i]
            labelObject[label] = [
                "target": targetText(label), "records": confusion[i].reduce(0, +), "scored": t.records, "correct": t.correct,
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
            "macroF1Classes": Self.number(macroF1Classes), "macroF1Labels": Self.number(macroF1Labels),
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
