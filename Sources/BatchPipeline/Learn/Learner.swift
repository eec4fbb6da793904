import Dispatch
import Foundation
import MessageFilter
import ArchiveIO

/// `smsfilter learn`: a linear model over phrases from labelled records.
///
/// ```
///  pass 1  read → normalise → candidates → capped counting table (document frequency per fold)
///          select the vocabulary (most frequent phrases, per fold under --cv)
///  pass 2  read → the automaton of the vocabulary finds each message's phrases (the classifier's own
///          code) → sparse examples (bounded by a hash sample)
///  train   binary TF-IDF, L2-normalised; one-vs-rest linear SVMs (dual coordinate descent)
///  pass 3  (--cv) read → classify each message with its fold's rules + model → precision, recall, F1
/// ```
/// Memory: the counting table (capped at ``LearnOptions/maxCandidates``), the examples (capped at
/// ``LearnOptions/maxExamples``), the read buffer. Inputs are read two or three times, so they must be
/// files.
public final class Learner {
    public let options: LearnOptions

    public init(options: LearnOptions) {
        self.options = options
    }

    // MARK: Targets

    /// The targets, in the order the mapping names them, and each label's target (nil: ignored).
    func resolveTargets() throws(PipelineError) -> ([ModelDefinition.Target], [String: Int?]) {
        let byFolder = (options.granularity ?? options.mapping.granularity) == .folder
        var targets: [ModelDefinition.Target] = []
        var labels: [String: Int?] = [:]
        for entry in options.mapping.entries {
            if entry.targets.contains(.ignore) {
                labels[entry.label] = .some(nil)
                continue
            }
            guard entry.targets.count == 1 else {
                throw PipelineError(.usage, "\"\(entry.label)\" maps to \(entry.targets.map(\.description).joined(separator: "|")): learn needs exactly one target per label")
            }
            let t: ModelDefinition.Target
            switch entry.targets[0] {
            case .other:
                throw PipelineError(.usage, "\"\(entry.label)\" maps to other (none or allow): name one of them for learning")
            case .ignore:
                continue
            case .action(let a):
                t = ModelDefinition.Target(action: a)
            case .folder(let f):
                let named = ModelDefinition.Target(name: f.path)!
                t = byFolder ? named : ModelDefinition.Target(action: named.action)
            }
            if let i = targets.firstIndex(of: t) {
                labels[entry.label] = i
            } else {
                labels[entry.label] = targets.count
                targets.append(t)
            }
        }
        return (targets, labels)
    }

    // MARK: Run

    /// Learns from `inputs` in the passes of the type's overview: count the candidates, choose the
    /// vocabularies, find each message's phrases, train, calibrate the margins, cross-validate.
    public func run(inputs: [String]) throws(PipelineError) -> LearnReport {
        let started = DispatchTime.now()
        try Self.checkReadableTwice(inputs)
        let (targets, labels) = try resolveTargets()
        var report = LearnReport()
        report.targets = targets.map(\.name)
        report.perTarget = Array(repeating: 0, count: targets.count)
        let folds = calibrationOrValidationFolds
        let candidates = PhraseCandidates(normalization: options.normalization, options: options.candidates)

        let table = try countCandidates(inputs, labels: labels, targets: targets, folds: folds, candidates: candidates, report: &report)
        let phrases = try vocabularies(table, folds: folds, targets: targets, used: report.used)
        let scanner = try phraseScanner(phrases.union, targets: targets)
        let baseRules = try baseRulesBelowModel(folds: folds)
        let examples = try readExamples(
            inputs, labels: labels, targets: targets, folds: folds, candidates: candidates, scanner: scanner, baseRules: baseRules,
            report: &report)
        var trained = trainModels(examples, phrases: phrases, targets: targets, report: &report)
        if let precision = options.precisionTarget, folds > 0 {
            calibrateMargins(
                &trained, examples, unionCount: phrases.union.count, targets: targets, precision: precision, folds: folds,
                overrules: baseRules != nil, report: &report)
        } else if options.bestF1, folds > 0 {
            calibrateOperatingPoint(&trained, examples, unionCount: phrases.union.count, targets: targets, report: &report)
            if baseRules != nil {
                calibrateOverrulesForF1(&trained, examples, unionCount: phrases.union.count, targets: targets, report: &report)
            }
        }
        // Pass 3: cross-validation through the classifier (the fold's model, with the base rules).
        if options.folds > 0 {
            try crossValidate(inputs: inputs, labels: labels, targets: targets, models: trained.folds, candidates: candidates, report: &report)
        }
        if var model = trained.final {
            model.provenance = provenance(report, model: model)
            report.model = model
        }
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        return report
    }

    /// Folds: --cv's, or the calibration's (the margins are chosen on held-out messages); 0 for neither.
    var calibrationOrValidationFolds: Int {
        options.folds > 0 ? options.folds : ((options.precisionTarget != nil || options.bestF1) && options.trainModel ? options.calibrationFolds : 0)
    }

    /// Refuses standard input, a missing file, a folder, a pipe or a device: each input is read two or three
    /// times.
    static func checkReadableTwice(_ inputs: [String]) throws(PipelineError) {
        for path in inputs {
            if path == "-" { throw PipelineError(.usage, "learn reads its inputs two or three times: give files, not standard input") }
            var isFolder = false
            guard _fileExists(path, &isFolder), !isFolder else { throw PipelineError(.inputMissing, "\(path): no such file") }
            // A pipe (`<(cat f)`, a FIFO) or a device can be read once: the second pass would see nothing.
            if let type = try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType, type != .typeRegular {
                throw PipelineError(.usage, "\(path): learn reads its inputs two or three times, so they must be regular files, not a pipe or a device: save it to a file first")
            }
        }
    }

    // MARK: Pass 1: count candidates

    /// Reads every record once: counts each mapped message's candidate phrases (per fold) and writes its fold
    /// to ``LearnOptions/foldsFile``; fails on unmapped labels or too little to learn from.
    func countCandidates(
        _ inputs: [String], labels: [String: Int?], targets: [ModelDefinition.Target], folds k: Int, candidates: PhraseCandidates,
        report: inout LearnReport
    ) throws(PipelineError) -> _CandidateTable {
        let table = _CandidateTable(folds: max(1, k), maxEntries: options.maxCandidates)
        var unmapped: [String: Int] = [:]
        var perFile = Array(repeating: 0, count: inputs.count)
        var message: UInt32 = 0
        let foldsOut = try openFoldsFile()
        var throttle = _ProgressThrottle()
        do {
            try _LearnInput.read(
                inputs: inputs, input: options.input, truthField: options.truthField,
                record: { r throws(PipelineError) in
                    report.records += 1
                    let label = String(decoding: r.label, as: UTF8.self)
                    guard let entry = labels[label] else {
                        unmapped[label, default: 0] += 1
                        return
                    }
                    guard let target = entry else {
                        report.skipped["label ignored", default: 0] += 1
                        return
                    }
                    message &+= 1
                    let fold = candidates.withNormalized(r.body) { text in
                        let fold = k > 0 ? Self.fold(text, k) : 0
                        candidates.forEach(inNormalized: text) { kind, bytes in table.add(kind, bytes, fold: fold, message: message) }
                        return fold
                    }
                    report.used += 1
                    report.perTarget[target] += 1
                    perFile[r.fileIndex] += 1
                    if let foldsOut { try Self.writeFold(fold, of: r, inputs: inputs, to: foldsOut) }
                },
                skip: { reason, _, _ in
                    report.records += 1
                    report.skipped[reason, default: 0] += 1
                },
                progress: { file, read, total in
                    throttle.tick(records: report.records, rejected: 0, bytes: 0, file: file, fileCount: inputs.count, read: read, total: total, self.options.progress)
                })
            try foldsOut?.finish()
        } catch let error as PipelineError {
            foldsOut?.abandon()
            throw error
        } catch {
            foldsOut?.abandon()
            throw PipelineError(.outputFailed, "\(error)")
        }
        try Self.checkLearnable(unmapped: unmapped, inputs: inputs, targets: targets, report: report)
        report.candidates = table.count
        report.prunes = table.prunes
        report.candidateFloor = Int(table.floor)
        report.tableBytes = table.memoryBytes
        report.inputs = inputs.enumerated().map { LearnReport.Input(name: Self.name($1), checksum: Self.checksum(path: $1), records: perFile[$0]) }
        return table
    }

    /// ``LearnOptions/foldsFile``, opened (nil when not asked for).
    func openFoldsFile() throws(PipelineError) -> OutputFile? {
        guard let path = options.foldsFile else { return nil }
        do { return try OutputFile(path: path, existing: options.replaceExisting ? .replace : .keep) } catch { throw PipelineError(.outputFailed, "\(path): \(error)") }
    }

    /// One line of the folds file: the record's file, line, id and fold.
    static func writeFold(_ fold: Int, of r: _LearnRecord, inputs: [String], to file: OutputFile) throws(PipelineError) {
        var line = "{\"file\": \(Self.json(Self.name(inputs[r.fileIndex]))), \"line\": \(r.line)"
        if let id = r.id { line += ", \"id\": \(Self.json(String(decoding: id, as: UTF8.self)))" }
        line += ", \"fold\": \(fold)}\n"
        do { try file.write(Array(line.utf8)) } catch { throw PipelineError(.outputFailed, "\(error)") }
    }

    /// Fails when a truth label is not in the mapping, when no record was learnt from, or when all were of one
    /// target.
    static func checkLearnable(unmapped: [String: Int], inputs: [String], targets: [ModelDefinition.Target], report: LearnReport) throws(PipelineError) {
        if !unmapped.isEmpty {
            let list = unmapped.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .prefix(20).map { "\"\($0.key)\" (\($0.value))" }.joined(separator: ", ")
            throw PipelineError(.badInput, "\(unmapped.count) truth label\(unmapped.count == 1 ? " is" : "s are") not in the mapping: \(list)\(unmapped.count > 20 ? ", …" : ""); map each (LABEL=TARGET, or LABEL=ignore to leave it out)")
        }
        if report.used == 0 {
            var why = "no record to learn from in \(inputs.joined(separator: ", ")) (\(report.records) records read"
            if !report.skipped.isEmpty { why += "; " + report.skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ") }
            throw PipelineError(.badInput, why + ")")
        }
        let present = report.perTarget.enumerated().filter { $0.element > 0 }
        if present.count < 2 {
            throw PipelineError(.badInput, "only one class to learn from (\(report.used) records, all \(targets[present.first?.offset ?? 0].name)): a model needs records of at least two targets")
        }
    }

    // MARK: Vocabularies

    /// The phrases of every vocabulary (`union`, one automaton for pass 2) and each vocabulary as indices into
    /// it (`local`: the final model's first when ``LearnOptions/trainModel``, then each fold's).
    struct _Vocabularies {
        var union: [ModelDefinition.Phrase] = []
        var local: [[Int]] = []
    }

    /// The vocabularies: the final model's and each fold's, and their union.
    func vocabularies(_ table: _CandidateTable, folds k: Int, targets: [ModelDefinition.Target], used: Int) throws(PipelineError) -> _Vocabularies {
        var vocabularies: [[Int]] = []
        if options.trainModel { vocabularies.append(table.top(options.maxPhrases, minimum: options.minDocuments, excluding: nil)) }
        if vocabularies.contains(where: \.isEmpty) {
            throw PipelineError(.badInput, "no phrase is frequent enough: none is in at least --min-documents \(options.minDocuments) of the \(used) messages learnt from\(k > 0 ? " (in every fold)" : ""); give a smaller --min-documents")
        }
        if k > 0 { for f in 0..<k { vocabularies.append(table.top(options.maxPhrases, minimum: options.minDocuments, excluding: f)) } }
        var unionIndex: [Int: Int32] = [:]
        var result = _Vocabularies()
        for v in vocabularies {
            for e in v where unionIndex[e] == nil {
                unionIndex[e] = Int32(result.union.count)
                result.union.append(.init(text: table.text(e), kind: ModelDefinition.MatchKind(rawValue: table.kinds[e])!, idf: 1,
                                          weights: Array(repeating: 0, count: targets.count)))
            }
        }
        result.local = vocabularies.map { $0.map { Int(unionIndex[$0]!) } }
        return result
    }

    // MARK: Pass 2: every message's phrases

    /// A classifier whose model holds every phrase of `union` (weights 0): it finds each message's phrases as
    /// the classifier will.
    func phraseScanner(_ union: [ModelDefinition.Phrase], targets: [ModelDefinition.Target]) throws(PipelineError) -> Classifier {
        var scan = RuleSetDefinition()
        scan.normalization = options.normalization
        var scanModel = ModelDefinition()
        scanModel.targets = targets
        scanModel.bias = Array(repeating: 0, count: targets.count)
        scanModel.phrases = union
        scan.model = scanModel
        do { return Classifier(ruleSet: try RuleSet(definition: scan, source: "learn")) } catch {
            throw PipelineError(.badInput, "cannot build the automaton of \(union.count) phrases: \(error)")
        }
    }

    /// With base rules and calibration: the base rules alone, to tell what the rules below the model's priority
    /// make of each message (the situation the model's overrules are calibrated in). Nil otherwise.
    func baseRulesBelowModel(folds k: Int) throws(PipelineError) -> Classifier? {
        guard let base = options.base, options.precisionTarget != nil || options.bestF1, k > 0 else { return nil }
        var d = base
        d.normalization = options.normalization
        d.model = nil
        do { return Classifier(ruleSet: try RuleSet(definition: d, source: "learn --rules")) } catch {
            throw PipelineError(.badInput, "cannot build the base rules: \(error)")
        }
    }

    /// Reads every record again: each mapped message's phrases (as `scanner` finds them), target, fold, script
    /// and, with `baseRules`, what the rules below the model make of it, as a training example; the scripts
    /// learnt from go into the report.
    func readExamples(
        _ inputs: [String], labels: [String: Int?], targets: [ModelDefinition.Target], folds k: Int, candidates: PhraseCandidates,
        scanner: Classifier, baseRules: Classifier?, report: inout LearnReport
    ) throws(PipelineError) -> _Examples {
        var examples = _Examples(limit: options.maxExamples)
        var features: [Int32] = []
        let baseTrace = DecisionTrace(detail: .rules)
        let priority = options.priority
        try _LearnInput.read(
            inputs: inputs, input: options.input, truthField: options.truthField,
            record: { r in
                guard let entry = labels[String(decoding: r.label, as: UTF8.self)], let target = entry else { return }
                let fold = k > 0 ? candidates.withNormalized(r.body) { Self.fold($0, k) } : 0
                let generated = self.options.generatedInputs.contains(r.fileIndex) || Self.isGenerated(id: r.id)
                let script = scanner.modelFeatures(body: r.body, into: &features)
                if generated {
                    report.generatedScripts[script, default: 0] += 1
                } else {
                    report.scripts[script, default: Array(repeating: 0, count: targets.count)][target] += 1
                }
                let context = baseRules.map {
                    _Examples.pack($0.ruleSituation(below: priority, sender: r.sender, body: r.body, trace: baseTrace))
                } ?? 0
                examples.add(target: target, fold: fold, features: features, body: r.body, script: script, generated: generated,
                             context: context)
            }, skip: { _, _, _ in })
        report.sampledOut = examples.sampledOut
        return examples
    }

    // MARK: Train and calibrate

    /// The models trained: the final one (when ``LearnOptions/trainModel``) and one per fold, with the phrases
    /// each fold model kept.
    struct _Trained {
        var final: ModelDefinition?
        var folds: [ModelDefinition] = []
        var foldKept: [[Int]] = []
    }

    /// Trains the final model first, then one per fold.
    func trainModels(_ examples: _Examples, phrases: _Vocabularies, targets: [ModelDefinition.Target], report: inout LearnReport) -> _Trained {
        var trained = _Trained()
        for (i, vocabulary) in phrases.local.enumerated() {
            let heldOut: Int? = options.trainModel ? (i == 0 ? nil : i - 1) : i
            var (model, its, keptPhrases) = train(examples, vocabulary: vocabulary, union: phrases.union, targets: targets, heldOut: heldOut)
            // Where it learned: real messages per main script (the fold's own training messages for a fold model).
            model.minScriptMessages = options.minScriptMessages
            model.linksNeedCompany = options.linksNeedCompany
            model.scripts = heldOut.map { examples.scripts(excluding: $0, targets: targets.count) } ?? report.scripts
            model.generatedScripts = heldOut == nil ? report.generatedScripts : [:]
            if heldOut == nil {
                trained.final = model
                report.iterations = its
            } else {
                trained.folds.append(model)
                trained.foldKept.append(keptPhrases)
            }
        }
        return trained
    }

    /// Margins and overrules, chosen on the folds' held-out messages. The final model's on every fold's; under
    /// --cv, each fold model's on the other folds' only, so that the figures of pass 3 never score a message
    /// whose own held-out decision chose the margins that classify it.
    func calibrateMargins(
        _ trained: inout _Trained, _ examples: _Examples, unionCount: Int, targets: [ModelDefinition.Target], precision: Double,
        folds k: Int, overrules withOverrules: Bool, report: inout LearnReport
    ) {
        let foldModels = trained.folds
        let heldOut = heldOutScores(examples, models: foldModels, kept: trained.foldKept, unionCount: unionCount, targets: targets)
        func calibrated(_ decisions: [_HeldOut], _ report: inout LearnReport) -> ([Float], [Script: [Action: [Float]]]?) {
            let margins = calibrate(examples, decisions, targets: targets, precision: precision, report: &report)
            let stored = margins.allSatisfy { $0 == 0 } ? [] : margins  // as a rule file would load them
            // Overrules: calibrated on the held-out messages where the model would overrule a base rule.
            let overrules = !withOverrules ? nil
                : calibrateOverrules(examples, decisions, models: foldModels, targets: targets, precision: precision, report: &report)
            return (stored, overrules)
        }
        let (margins, overrules) = calibrated(heldOut, &report)
        report.calibrationFolds = k
        if trained.final != nil {
            trained.final!.margins = margins
            trained.final!.overrules = overrules
        }
        for i in trained.folds.indices {
            if options.folds > 0 {
                var scratch = LearnReport()
                (trained.folds[i].margins, trained.folds[i].overrules) = calibrated(heldOut.filter { $0.fold != i }, &scratch)
            } else {
                (trained.folds[i].margins, trained.folds[i].overrules) = (margins, overrules)
            }
        }
    }
}
