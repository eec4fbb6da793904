// MARK: Internal API
//
// evaluate on the chunk fan-out. A worker classifies a chunk's records in one batch with the decision trace
// and leaves one compact event per record (predicted class, winner, the rules that fired, the truth label as
// an index into the chunk's own label table) plus the chunk's first conflict examples; the writer replays
// the events into the report in input order.

import ArchiveIO
import Foundation
import MessageFilter

/// What workers and the writer share, read-only.
final class _EvaluationContext: Sendable {
    /// Whether classes are actions (else folders).
    let byAction: Bool
    /// Each rule's class (its validated folder or action) and folder.
    let ruleClass: [Int]
    let ruleFolder: [Int]
    let ruleNames: [String]
    let folders: [Folder]
    let conflictExamples: Int
    /// Whether the workers keep each record's id (for `--predictions`).
    let keepsIds: Bool

    init(ruleSet: RuleSet, report: EvaluationReport, conflictExamples: Int, keepsIds: Bool) {
        self.keepsIds = keepsIds
        folders = Folder.allCases.map { $0 }
        byAction = report.granularity == .action
        let validated = ruleSet.definition.rules.map { ruleSet.capabilities.validate(action: $0.action, subAction: $0.subAction) }
        ruleClass = validated.map { report.classIndex(action: $0.action, folder: $0.folder) }
        ruleFolder = validated.map { v in Folder.allCases.firstIndex(of: v.folder)! }
        ruleNames = ruleSet.ruleNames
        self.conflictExamples = conflictExamples
    }

    /// The column of a verdict (as ``EvaluationReport/classIndex(action:folder:)``, without allocating).
    func predicted(_ v: Verdict, folder: Int) -> Int {
        guard byAction else { return folder }
        let actions = Action.allCases
        var i = 0
        for a in actions {
            if a == v.action { return i }
            i += 1
        }
        return 0
    }

    func folderIndex(_ f: Folder) -> Int {
        for i in 0..<folders.count where folders[i] == f { return i }
        return 0
    }
}

/// One record's outcome.
struct _EvaluationEvent {
    /// Index into the chunk's label table; -1: the record has no truth label.
    var label: Int32
    var predicted: Int16
    var folder: Int16
    /// The deciding rule (-1: none; the model's index when the model decided).
    var rule: Int32
    /// The rules that fired: `_EvaluationTally.fired[firedStart ..< firedStart + firedCount]`.
    var firedStart: Int32
    var firedCount: Int32
    /// The record's id: `_EvaluationTally.ids[idStart ..< idEnd]` (when ids are kept); `idStart` -1: none.
    var idStart: Int32 = -1
    var idEnd: Int32 = -1
}

/// A chunk's events (its attachment), reused chunk after chunk.
final class _EvaluationTally {
    var events: [_EvaluationEvent] = []
    var fired: [Int32] = []
    var labels: [[UInt8]] = []
    /// The records' ids, one after another (``_EvaluationContext/keepsIds``).
    var ids: [UInt8] = []
    /// Conflict examples of this chunk, in order, and the event each belongs to.
    var examples: [(event: Int, example: EvaluationReport.ConflictExample)] = []

    func reset() {
        events.removeAll(keepingCapacity: true)
        fired.removeAll(keepingCapacity: true)
        labels.removeAll(keepingCapacity: true)
        ids.removeAll(keepingCapacity: true)
        examples.removeAll(keepingCapacity: true)
    }

    /// The index of `label` in the chunk's table (added on first sight; a few labels, so a linear search).
    func labelIndex(_ label: UnsafeRawBufferPointer) -> Int32 {
        for (i, known) in labels.enumerated() where known.count == label.count {
            if label.count == 0 || known.withUnsafeBytes({ memcmp($0.baseAddress!, label.baseAddress!, label.count) == 0 }) { return Int32(i) }
        }
        labels.append(Array(label))
        return Int32(labels.count - 1)
    }
}

final class _EvaluationWorker: _ChunkWorker {
    let classifier: Classifier
    let context: _EvaluationContext
    let scratch = _ParseScratch()
    let trace = DecisionTrace(detail: .rules)

    init(ruleSet: RuleSet, context: _EvaluationContext) {
        classifier = Classifier(ruleSet: ruleSet)
        self.context = context
    }

    func process(_ chunk: _Chunk) {
        let tally = (chunk.attachment as? _EvaluationTally) ?? _EvaluationTally()
        chunk.attachment = tally
        tally.reset()
        guard chunk.piece == nil, let file = chunk.file else { return }
        scratch.parse(chunk)
        let n = scratch.parsed.spans.count
        trace.reset()
        _classifyParsed(classifier, chunk, &scratch.parsed, trace: trace)
        let parsed = scratch.parsed
        let labelSlot = file.driver.layout.extra(0)
        for k in 0..<n where !parsed.records[k].isRejected {
            let v = parsed.verdicts[k]
            let folder = context.folderIndex(v.folder)
            let label = parsed.field(k, labelSlot)
            let start = tally.fired.count
            for rule in trace.firedRules(message: k) { tally.fired.append(Int32(rule)) }
            var event = _EvaluationEvent(
                label: label.isPresent ? chunk.input.withUnsafeBytes(label.start..<label.end) { tally.labelIndex($0) } : -1,
                predicted: Int16(context.predicted(v, folder: folder)), folder: Int16(folder), rule: v.rule,
                firedStart: Int32(start), firedCount: Int32(tally.fired.count - start))
            if context.keepsIds, let id = chunk.idText(parsed.records[k]) {
                event.idStart = Int32(tally.ids.count)
                tally.ids += id
                event.idEnd = Int32(tally.ids.count)
            }
            tally.events.append(event)
            if tally.examples.count < context.conflictExamples, isConflict(event, tally, v) {
                tally.examples.append((tally.events.count - 1, example(chunk, parsed, k, event, tally, v)))
            }
        }
    }

    func isConflict(_ e: _EvaluationEvent, _ tally: _EvaluationTally, _ v: Verdict) -> Bool {
        guard e.firedCount > 1 else { return false }
        let first = context.ruleFolder[Int(tally.fired[Int(e.firedStart)])]
        for i in Int(e.firedStart)..<Int(e.firedStart + e.firedCount) where context.ruleFolder[Int(tally.fired[i])] != first { return true }
        return false
    }

    private func example(_ chunk: _Chunk, _ parsed: _Parsed, _ k: Int, _ e: _EvaluationEvent, _ tally: _EvaluationTally, _ v: Verdict) -> EvaluationReport.ConflictExample {
        let r = parsed.records[k]
        let s = parsed.spans[k]
        let body = chunk.input.string(s.bodyStart..<(s.bodyStart + s.bodyCount))
        let id = chunk.idText(r).map { String(decoding: $0, as: UTF8.self) } ?? "line \(chunk.firstLine() + r.relativeLine)"
        let winner = Int(v.rule)
        var others: [(rule: String, folder: String)] = []
        for i in Int(e.firedStart)..<Int(e.firedStart + e.firedCount) where Int(tally.fired[i]) != winner {
            let other = Int(tally.fired[i])
            others.append((context.ruleNames[other], context.folders[context.ruleFolder[other]].path))
        }
        return .init(
            id: id, body: String(body.prefix(200)), truth: e.label >= 0 ? String(decoding: tally.labels[Int(e.label)], as: UTF8.self) : nil,
            winner: context.ruleNames[winner], winnerFolder: v.folder.path, others: others)
    }
}

/// Adds each chunk's events to the report, in input order.
final class _EvaluationSink: _ChunkSink {
    var report: EvaluationReport
    let context: _EvaluationContext
    let progress: (@Sendable (Progress) -> Void)?
    let readProgress: _ReadProgress
    let fileCount: Int
    /// The first damaged input's error (thrown once everything before it is counted).
    var damage: String?
    private var throttle = _ProgressThrottle()
    private var bytes: Int64 = 0
    /// Per mapped label: its accepted columns and its target class in `report.scores` (nil: ignored), resolved once.
    private var accepted: [String: _Accepted?] = [:]
    private let scoredRows: [(row: Int, classes: [Int])]
    /// `--predictions`: one JSON line per scored record, written in input order.
    private let predictions: _PredictionLines?

    init(report: EvaluationReport, context: _EvaluationContext, progress: (@Sendable (Progress) -> Void)?, reader: _ReadProgress, fileCount: Int,
         predictions: OutputFile? = nil) {
        var report = report
        self.context = context
        self.progress = progress
        readProgress = reader
        self.fileCount = fileCount
        for entry in report.mapping.entries {
            accepted[entry.label] = entry.targets.contains(.ignore) ? nil : _Accepted(columns: report.classes(of: entry.targets), target: report.targetClass[entry.label]!)
        }
        let accepted = self.accepted
        scoredRows = report.mapping.entries.compactMap { entry in
            guard let classes = accepted[entry.label] ?? nil else { return nil }
            return (report.row(for: entry.label), classes.columns)
        }
        self.predictions = predictions.map { _PredictionLines(file: $0, report: report) }
        self.report = report
    }

    func consume(_ chunk: _Chunk) throws(PipelineError) {
        bytes += Int64(chunk.decodedBytes)
        if let tally = chunk.attachment as? _EvaluationTally, chunk.piece == nil {
            let labels = tally.labels.map { report.mapping.canonicalLabel(String(decoding: $0, as: UTF8.self)) }
            var example = 0
            for (i, e) in tally.events.enumerated() {
                let scored = add(e, label: e.label >= 0 ? labels[Int(e.label)] : nil, fired: tally.fired[Int(e.firedStart)..<Int(e.firedStart + e.firedCount)])
                if let scored, let predictions { predictions.add(e, tally, label: labels[Int(e.label)], truth: scored.truth, predicted: scored.predicted) }
                if example < tally.examples.count, tally.examples[example].event == i {
                    if report.conflictExamples.count < context.conflictExamples { report.conflictExamples.append(tally.examples[example].example) }
                    example += 1
                }
            }
        }
        try predictions?.flush()
        chunk.forEachRejected { category, _ in
            report.records += 1
            report.skipped[category, default: 0] += 1
        }
        if chunk.isLastOfFile, damage == nil, let error = chunk.fileError { damage = error }
        let (file, read, total) = readProgress.snapshot()
        throttle.tick(
            records: report.records, rejected: report.skipped.values.reduce(0, +), bytes: bytes, file: file, fileCount: fileCount,
            read: read, total: total, progress)
    }

    /// One record's figures (see ``EvaluationReport`` for the definitions); for a scored record, its target class
    /// and predicted class in `report.scores` (`y_true`, `y_pred`).
    private func add(_ e: _EvaluationEvent, label: String?, fired: ArraySlice<Int32>) -> (truth: Int, predicted: Int)? {
        report.records += 1
        report.folderCounts[Int(e.folder)] += 1
        let predicted = Int(e.predicted)
        let rule = Int(e.rule)
        // A rule of the file, or the learned model (its row comes after the rules, as in `RuleSet.ruleNames`):
        // the model "fires" exactly when it decides (no rule fired then).
        let isRule = rule >= 0 && rule < context.ruleClass.count
        let byModel = rule >= context.ruleClass.count && rule < report.rules.count
        if isRule || byModel { report.rules[rule].hits += 1 }
        if byModel { report.rules[rule].fired += 1 }
        for f in fired { report.rules[Int(f)].fired += 1 }
        if isRule { countConflict(rule, fired) }
        guard let label else {
            report.withoutTruth += 1
            return nil
        }
        let row = report.row(for: label)
        report.confusion[row][predicted] += 1
        guard let entry = accepted[label] else {
            report.unmapped[label, default: 0] += 1
            return nil
        }
        guard let targets = entry else {
            report.ignored += 1
            return nil
        }
        let correct = score(row: row, predicted: predicted, targets: targets.columns, rule: isRule || byModel ? rule : -1, byModel: byModel, fired: fired)
        // scikit-learn's pair: the label's target class, and the same class when the prediction is one the label
        // accepts, else the class a wrong prediction of that column counts as.
        let pair = (truth: targets.target, predicted: correct ? targets.target : report.wrongClass[predicted])
        report.scores.add(truth: pair.truth, predicted: pair.predicted)
        return pair
    }

    private func countConflict(_ winner: Int, _ fired: ArraySlice<Int32>) {
        let winnerFolder = context.ruleFolder[winner]
        guard fired.contains(where: { context.ruleFolder[Int($0)] != winnerFolder }) else { return }
        report.conflicts += 1
        for other in fired where Int(other) != winner && context.ruleFolder[Int(other)] != winnerFolder {
            report.conflictPairs[EvaluationReport.RulePair(winner: winner, other: Int(other)), default: 0] += 1
        }
    }

    /// Counts a scored record; returns whether its prediction is one its label accepts.
    private func score(row: Int, predicted: Int, targets: [Int], rule: Int, byModel: Bool, fired: ArraySlice<Int32>) -> Bool {
        report.scored += 1
        report.labelTotals[row].records += 1
        for s in scoredRows where s.classes.contains(predicted) { report.labelTotals[s.row].predictedInto += 1 }
        let correct = targets.contains(predicted)
        if correct {
            report.correct += 1
            report.labelTotals[row].correct += 1
        }
        if rule >= 0 {
            report.rules[rule].scoredHits += 1
            if correct { report.rules[rule].correct += 1 }
        }
        if byModel {
            report.rules[rule].scoredFired += 1
            if correct { report.rules[rule].firedCorrect += 1 }
        }
        for f in fired {
            report.rules[Int(f)].scoredFired += 1
            if targets.contains(context.ruleClass[Int(f)]) { report.rules[Int(f)].firedCorrect += 1 }
        }
        return correct
    }
}

/// A mapped label's accepted columns and its target class.
struct _Accepted {
    var columns: [Int]
    var target: Int
}

/// `evaluate --predictions FILE`: one JSON line per scored record, in input order,
/// `{"id": "…", "label": "spam", "y_true": "junk|promotion", "y_pred": "other", "predicted": "none"}` (`id` null
/// for a record without one): `y_true` and `y_pred` are the classes the headline is scikit-learn's figures
/// of, so `f1_score(y_true, y_pred, average="macro")` over the file gives the macro F1.
final class _PredictionLines {
    let file: OutputFile
    let buffer = _ByteBuffer(capacity: 1 << 16)
    /// `"y_true": "…", "y_pred": ` and the like, encoded once: class names and column names as JSON strings.
    let classes: [[UInt8]]
    let columns: [[UInt8]]

    init(file: OutputFile, report: EvaluationReport) {
        self.file = file
        classes = report.scores.names.map(Self.json)
        columns = report.classNames.map(Self.json)
    }

    static func json(_ text: String) -> [UInt8] { _ByteBuffer.jsonString(text) }

    func add(_ e: _EvaluationEvent, _ tally: _EvaluationTally, label: String, truth: Int, predicted: Int) {
        buffer.append("{\"id\": ")
        if e.idStart >= 0 {
            tally.ids.withUnsafeBytes { buffer.appendJSONString(UnsafeRawBufferPointer(rebasing: $0[Int(e.idStart)..<Int(e.idEnd)])) }
        } else {
            buffer.append("null")
        }
        buffer.append(", \"label\": ")
        buffer.appendJSONString(label)
        buffer.append(", \"y_true\": ")
        buffer.append(classes[truth])
        buffer.append(", \"y_pred\": ")
        buffer.append(classes[predicted])
        buffer.append(", \"predicted\": ")
        buffer.append(columns[Int(e.predicted)])
        buffer.append("}\n")
    }

    /// Writes the lines gathered so far.
    func flush() throws(PipelineError) {
        guard buffer.count > 0 else { return }
        do {
            try buffer.withUnsafeBytes { (raw) throws(ZstdError) in try file.write(raw) }
        } catch {
            throw PipelineError(.outputFailed, "\(file.path): \(error.description)")
        }
        buffer.removeAll()
    }
}
