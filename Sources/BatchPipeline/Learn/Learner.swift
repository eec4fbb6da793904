import Dispatch
import Foundation
import MessageFilter
import ZstdStream

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

    public func run(inputs: [String]) throws(PipelineError) -> LearnReport {
        let started = DispatchTime.now()
        var report = LearnReport()
        for path in inputs {
            if path == "-" { throw PipelineError(.usage, "learn reads its inputs two or three times: give files, not standard input") }
            var isFolder = false
            guard _fileExists(path, &isFolder), !isFolder else { throw PipelineError(.inputMissing, "\(path): no such file") }
            // A pipe (`<(cat f)`, a FIFO) or a device can be read once: the second pass would see nothing.
            if let type = try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType, type != .typeRegular {
                throw PipelineError(.usage, "\(path): learn reads its inputs two or three times, so they must be regular files, not a pipe or a device: save it to a file first")
            }
        }
        let (targets, labels) = try resolveTargets()
        report.targets = targets.map(\.name)
        report.perTarget = Array(repeating: 0, count: targets.count)
        // Folds: --cv's, or the calibration's (the margins are chosen on held-out messages).
        let k = options.folds > 0 ? options.folds : (options.precisionTarget != nil && options.trainModel ? options.calibrationFolds : 0)
        let table = _CandidateTable(folds: max(1, k), maxEntries: options.maxCandidates)
        let candidates = PhraseCandidates(normalization: options.normalization, options: options.candidates)
        var unmapped: [String: Int] = [:]
        var perFile = Array(repeating: 0, count: inputs.count)
        var message: UInt32 = 0
        var foldsOut: OutputFile?
        if let path = options.foldsFile {
            do { foldsOut = try OutputFile(path: path, existing: options.replaceExisting ? .replace : .keep) } catch { throw PipelineError(.outputFailed, "\(path): \(error)") }
        }
        var throttle = _ProgressThrottle()

        // Pass 1: count candidates.
        do {
            try _LearnInput.read(
                inputs: inputs, format: options.inputFormat, hasHeader: options.hasHeader, fields: options.fields,
                truthField: options.truthField, maxRecord: options.maxRecord,
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
                    let text = candidates.normalized(r.body)
                    let fold = k > 0 ? Self.fold(text, k) : 0
                    message &+= 1
                    candidates.forEach(inNormalized: text) { kind, bytes in table.add(kind, bytes, fold: fold, message: message) }
                    report.used += 1
                    report.perTarget[target] += 1
                    perFile[r.fileIndex] += 1
                    if let foldsOut {
                        var line = "{\"file\": \(Self.json(Self.name(inputs[r.fileIndex]))), \"line\": \(r.line)"
                        if let id = r.id { line += ", \"id\": \(Self.json(String(decoding: id, as: UTF8.self)))" }
                        line += ", \"fold\": \(fold)}\n"
                        do { try foldsOut.write(Array(line.utf8)) } catch { throw PipelineError(.outputFailed, "\(error)") }
                    }
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
        report.candidates = table.count
        report.prunes = table.prunes
        report.candidateFloor = Int(table.floor)
        report.tableBytes = table.memoryBytes
        report.inputs = inputs.enumerated().map { LearnReport.Input(name: Self.name($1), checksum: Self.checksum(path: $1), records: perFile[$0]) }

        // The vocabularies: the final model's and each fold's, and their union (one automaton for pass 2).
        var vocabularies: [[Int]] = []
        if options.trainModel { vocabularies.append(table.top(options.maxPhrases, minimum: options.minDocuments, excluding: nil)) }
        if vocabularies.contains(where: \.isEmpty) {
            throw PipelineError(.badInput, "no phrase is frequent enough: none is in at least --min-documents \(options.minDocuments) of the \(report.used) messages learnt from\(k > 0 ? " (in every fold)" : ""); give a smaller --min-documents")
        }
        if k > 0 { for f in 0..<k { vocabularies.append(table.top(options.maxPhrases, minimum: options.minDocuments, excluding: f)) } }
        var unionIndex: [Int: Int32] = [:]
        var union: [ModelDefinition.Phrase] = []
        for v in vocabularies {
            for e in v where unionIndex[e] == nil {
                unionIndex[e] = Int32(union.count)
                union.append(.init(text: table.text(e), kind: ModelDefinition.MatchKind(rawValue: table.kinds[e])!, idf: 1,
                                   weights: Array(repeating: 0, count: targets.count)))
            }
        }
        let localVocabularies = vocabularies.map { $0.map { Int(unionIndex[$0]!) } }

        // Pass 2: every message's phrases as the classifier finds them.
        var scan = RuleSetDefinition()
        scan.normalization = options.normalization
        var scanModel = ModelDefinition()
        scanModel.targets = targets
        scanModel.bias = Array(repeating: 0, count: targets.count)
        scanModel.phrases = union
        scan.model = scanModel
        let scanner: Classifier
        do { scanner = Classifier(ruleSet: try RuleSet(definition: scan, source: "learn")) } catch {
            throw PipelineError(.badInput, "cannot build the automaton of \(union.count) phrases: \(error)")
        }
        var examples = _Examples(limit: options.maxExamples)
        var features: [Int32] = []
        // With base rules and calibration: what the rules below the model's priority make of each message (the
        // situation the model's overrules are calibrated in).
        var baseClassifier: Classifier?
        let baseTrace = DecisionTrace(detail: .rules)
        if let base = options.base, options.precisionTarget != nil, k > 0 {
            var d = base
            d.normalization = options.normalization
            d.model = nil
            do { baseClassifier = Classifier(ruleSet: try RuleSet(definition: d, source: "learn --rules")) } catch {
                throw PipelineError(.badInput, "cannot build the base rules: \(error)")
            }
        }
        let priority = options.priority
        do {
            try _LearnInput.read(
                inputs: inputs, format: options.inputFormat, hasHeader: options.hasHeader, fields: options.fields,
                truthField: options.truthField, maxRecord: options.maxRecord,
                record: { r in
                    guard let entry = labels[String(decoding: r.label, as: UTF8.self)], let target = entry else { return }
                    let fold = k > 0 ? Self.fold(candidates.normalized(r.body), k) : 0
                    let generated = self.options.generatedInputs.contains(r.fileIndex) || Self.isGenerated(id: r.id)
                    let script = scanner.modelFeatures(body: r.body, into: &features)
                    if generated {
                        report.generatedScripts[script, default: 0] += 1
                    } else {
                        report.scripts[script, default: Array(repeating: 0, count: targets.count)][target] += 1
                    }
                    let context = baseClassifier.map {
                        _Examples.pack($0.rulesBelow(priority: priority, sender: r.sender, body: r.body, trace: baseTrace))
                    } ?? 0
                    examples.add(target: target, fold: fold, features: features, body: r.body, script: script, generated: generated,
                                 context: context)
                }, skip: { _, _, _ in })
        } catch {
            throw error
        }
        report.sampledOut = examples.sampledOut

        // Train: the final model first, then one per fold.
        var models: [ModelDefinition] = []
        var kept: [[Int]] = []
        var iterations: [Int] = []
        for (i, vocabulary) in localVocabularies.enumerated() {
            let heldOut: Int? = options.trainModel ? (i == 0 ? nil : i - 1) : i
            var (model, its, keptPhrases) = train(examples, vocabulary: vocabulary, union: union, targets: targets, heldOut: heldOut)
            // Where it learned: real messages per main script (the fold's own training messages for a fold model).
            model.minScriptMessages = options.minScriptMessages
            model.scripts = heldOut.map { examples.scripts(excluding: $0, targets: targets.count) } ?? report.scripts
            model.generatedScripts = heldOut == nil ? report.generatedScripts : [:]
            models.append(model)
            kept.append(keptPhrases)
            if heldOut == nil { iterations = its }
        }
        report.iterations = iterations
        var foldModels = options.trainModel ? Array(models.dropFirst()) : models
        let foldKept = options.trainModel ? Array(kept.dropFirst()) : kept

        // Margins and overrules: chosen on the folds' held-out messages. The final model's on every fold's; under
        // --cv, each fold model's on the other folds' only, so that the figures of pass 3 never score a message
        // whose own held-out decision chose the margins that classify it.
        if let target = options.precisionTarget, k > 0 {
            let heldOut = heldOutScores(examples, models: foldModels, kept: foldKept, unionCount: union.count, targets: targets)
            func calibrated(_ decisions: [_HeldOut], _ report: inout LearnReport) -> ([Float], [Script: [Action: [Float]]]?) {
                let margins = calibrate(examples, decisions, targets: targets, precision: target, report: &report)
                let stored = margins.allSatisfy { $0 == 0 } ? [] : margins  // as a rule file would load them
                // Overrules: calibrated on the held-out messages where the model would overrule a base rule.
                let overrules = baseClassifier == nil ? nil
                    : calibrateOverrules(examples, decisions, models: foldModels, targets: targets, precision: target, report: &report)
                return (stored, overrules)
            }
            let (margins, overrules) = calibrated(heldOut, &report)
            report.calibrationFolds = k
            if options.trainModel {
                models[0].margins = margins
                models[0].overrules = overrules
            }
            for i in foldModels.indices {
                if options.folds > 0 {
                    var scratch = LearnReport()
                    (foldModels[i].margins, foldModels[i].overrules) = calibrated(heldOut.filter { $0.fold != i }, &scratch)
                } else {
                    (foldModels[i].margins, foldModels[i].overrules) = (margins, overrules)
                }
            }
        }

        // Pass 3: cross-validation through the classifier (the fold's model, with the base rules).
        if options.folds > 0 {
            try crossValidate(inputs: inputs, labels: labels, targets: targets, models: foldModels, candidates: candidates, report: &report)
        }
        if options.trainModel {
            var model = models[0]
            model.provenance = provenance(report, model: model)
            report.model = model
        }
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        return report
    }
}
