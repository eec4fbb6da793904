import Dispatch
import Foundation
import MessageFilter

/// Settings of one `evaluate` run.
public struct EvaluationOptions: Sendable {
    /// The id, sender and body fields.
    public var fields = FieldNames()
    /// The field holding the corpus's own label.
    public var truthField = "label"
    /// How truth labels map onto actions or folders.
    public var mapping: TruthMapping
    /// Per action or per folder; nil: from the mapping (``TruthMapping/granularity``).
    public var granularity: TruthMapping.Granularity?
    /// How many conflict examples to keep.
    public var conflictExamples = 20
    /// Longest line read; a longer one is skipped and counted.
    public var maxRecord = 64 << 20
    /// Called about four times a second with the progress so far.
    public var progress: (@Sendable (Progress) -> Void)?

    public init(mapping: TruthMapping) {
        self.mapping = mapping
    }
}

/// `smsfilter evaluate`: scores a rule set against a corpus with truth labels.
///
/// One streaming pass: each record is classified; when a rule decided, ``Classifier/explain(sender:body:)``
/// lists every rule that fired (won or lost), which gives per-rule fire counts and conflicts (rules of
/// different folders firing on one record). Memory: the read buffer, counters per rule, per class and per
/// truth label, and at most ``EvaluationOptions/conflictExamples`` examples.
public final class Evaluator {
    public let ruleSet: RuleSet
    public let options: EvaluationOptions

    public init(ruleSet: RuleSet, options: EvaluationOptions) {
        self.ruleSet = ruleSet
        self.options = options
    }

    /// Runs the evaluation over `inputs` (JSON Lines, plain or zstd; `-` is standard input).
    ///
    /// - Throws: ``PipelineError``: an input missing (66), a damaged archive (65).
    public func run(inputs: [String]) throws(PipelineError) -> EvaluationReport {
        let started = DispatchTime.now()
        let granularity = options.granularity ?? options.mapping.granularity
        var report = EvaluationReport(ruleSet: ruleSet, mapping: options.mapping, granularity: granularity)
        report.corpus = inputs.map { $0 == "-" ? "<stdin>" : $0 }
        report.truthField = options.truthField
        let classifier = Classifier(ruleSet: ruleSet)
        // Each rule's class (its validated folder or action).
        let ruleClass: [Int] = ruleSet.definition.rules.map {
            let v = ruleSet.capabilities.validate(action: $0.action, subAction: $0.subAction)
            return report.classIndex(action: v.action, folder: v.folder)
        }
        let ruleFolder: [Folder] = ruleSet.definition.rules.map {
            ruleSet.capabilities.validate(action: $0.action, subAction: $0.subAction).folder
        }
        // Accepted classes per mapped label, resolved once.
        var accepted: [String: [Int]?] = [:]
        for entry in options.mapping.entries {
            accepted[entry.label] = entry.targets.contains(.ignore) ? nil : report.classes(of: entry.targets)
        }
        // Rows of the scored labels, with their accepted classes (for per-label precision).
        let scoredRows: [(row: Int, classes: [Int])] = options.mapping.entries.compactMap { entry in
            guard let cls = accepted[entry.label] ?? nil else { return nil }
            return (report.row(for: entry.label), cls)
        }
        var id: [UInt8] = []
        var sender: [UInt8] = []
        var body: [UInt8] = []
        var truth: [UInt8] = []
        let keys = [options.fields.id, options.fields.sender, options.fields.body, options.truthField]
        var throttle = _ProgressThrottle()
        try _RecordStream.read(
            inputs: inputs, keys: keys, bodySlot: 2, maxRecord: options.maxRecord,
            record: { r in
                report.records += 1
                _ = r.value(2, into: &body)
                let hasSender = r.value(1, into: &sender) && r.fields[1].kind == .string
                let verdict = body.withUnsafeBytes { b in
                    hasSender ? sender.withUnsafeBytes { classifier.classify(sender: $0, body: b) } : classifier.classify(sender: nil, body: b)
                }
                let predicted = report.classIndex(action: verdict.action, folder: verdict.folder)
                report.folderCounts[Folder.allCases.firstIndex(of: verdict.folder)!] += 1
                let label: String? = r.value(3, into: &truth) ? String(decoding: truth, as: UTF8.self) : nil
                // Every rule that fired, when one decided.
                var fired: [(index: Int, folder: Folder)] = []
                let byModel = verdict.rule >= 0 && Int(verdict.rule) >= ruleClass.count
                if byModel {
                    // The learned model decided: it "fires" exactly when it decides (it lists no rules).
                    report.rules[Int(verdict.rule)].hits += 1
                    report.rules[Int(verdict.rule)].fired += 1
                } else if verdict.rule >= 0 {
                    report.rules[Int(verdict.rule)].hits += 1
                    let explanation = classifier.explain(
                        sender: hasSender ? String(decoding: sender, as: UTF8.self) : nil, body: String(decoding: body, as: UTF8.self))
                    for c in explanation.rules {
                        switch c.outcome {
                        case .won, .lostToPriority, .lostToEarlierMatch, .lostToFileOrder:
                            fired.append((c.index, ruleFolder[c.index]))
                            report.rules[c.index].fired += 1
                        default:
                            break
                        }
                    }
                    if Set(fired.map(\.folder)).count > 1 {
                        let winner = Int(verdict.rule)
                        report.conflicts += 1
                        for other in fired where other.index != winner && other.folder != verdict.folder {
                            report.conflictPairs[EvaluationReport.RulePair(winner: winner, other: other.index), default: 0] += 1
                        }
                        if report.conflictExamples.count < self.options.conflictExamples {
                            _ = r.value(0, into: &id)
                            report.conflictExamples.append(
                                .init(
                                    id: r.fields[0].kind == .missing ? "line \(r.lineNumber)" : String(decoding: id, as: UTF8.self),
                                    body: String(String(decoding: body, as: UTF8.self).prefix(200)), truth: label,
                                    winner: self.ruleSet.ruleNames[winner], winnerFolder: verdict.folder.path,
                                    others: fired.filter { $0.index != winner }.map { (self.ruleSet.ruleNames[$0.index], $0.folder.path) }))
                        }
                    }
                }
                // Scoring.
                guard let label else {
                    report.withoutTruth += 1
                    return
                }
                let row = report.row(for: label)
                report.confusion[row][predicted] += 1
                guard let entry = accepted[label] else {
                    report.unmapped[label, default: 0] += 1
                    return
                }
                guard let targets = entry else {
                    report.ignored += 1
                    return
                }
                report.scored += 1
                report.labelTotals[row].records += 1
                report.predicted[predicted] += 1
                for t in targets { report.support[t] += 1 }
                for s in scoredRows where s.classes.contains(predicted) { report.labelTotals[s.row].predictedInto += 1 }
                let correct = targets.contains(predicted)
                if correct {
                    report.correct += 1
                    report.labelTotals[row].correct += 1
                    report.truePositives[predicted] += 1
                } else {
                    report.falsePositives[predicted] += 1
                    for t in targets { report.falseNegatives[t] += 1 }
                }
                if verdict.rule >= 0 {
                    report.rules[Int(verdict.rule)].scoredHits += 1
                    if correct { report.rules[Int(verdict.rule)].correct += 1 }
                    if byModel {
                        report.rules[Int(verdict.rule)].scoredFired += 1
                        if correct { report.rules[Int(verdict.rule)].firedCorrect += 1 }
                    }
                }
                for f in fired {
                    report.rules[f.index].scoredFired += 1
                    if targets.contains(ruleClass[f.index]) { report.rules[f.index].firedCorrect += 1 }
                }
            },
            skip: { reason, _, _ in
                report.records += 1
                report.skipped[reason.rawValue, default: 0] += 1
            },
            progress: { position in
                throttle.tick(position, records: report.records, rejected: report.skipped.values.reduce(0, +), self.options.progress)
            })
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        return report
    }
}
