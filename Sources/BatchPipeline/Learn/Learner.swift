import Dispatch
import Foundation
import MessageFilter
import ZstdStream

/// Settings of one `learn` run.
public struct LearnOptions: Sendable {
    /// The record format; nil: guessed from each input's name and first bytes, as `classify` does.
    public var inputFormat: InputFormat?
    /// CSV/TSV: whether the first row names the columns.
    public var hasHeader = true
    /// The id, sender and body fields.
    public var fields = FieldNames()
    /// The field holding the truth label.
    public var truthField = "label"
    /// Truth label → target (exactly one per label; `ignore` leaves the label's records out).
    public var mapping: TruthMapping
    /// Targets are actions or folders; nil: from the mapping.
    public var granularity: TruthMapping.Granularity?
    /// How text is normalised (the rule file's `normalize:`).
    public var normalization: TextNormalization = .standard
    /// Which phrases are proposed.
    public var candidates = PhraseCandidates.Options()
    /// The largest vocabulary: the phrases in most messages are kept. 10,000 by measurement (docs/QUALITY.md:
    /// the same cross-validated F1 as 20,000 on both corpora, a smaller automaton).
    public var maxPhrases = 10_000
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
    /// Whether to train and return the model (false with `--cv` alone).
    public var trainModel = true
    /// Candidates counted at once (the counting table's cap).
    public var maxCandidates = 2_000_000
    /// Training messages held at once (beyond it, a deterministic hash sample).
    public var maxExamples = 2_000_000
    /// Longest line read.
    public var maxRecord = 64 << 20
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
    /// Solver passes of the final model's classifiers.
    public var iterations: [Int] = []
    public var seconds = 0.0
}

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
        }
        let (targets, labels) = try resolveTargets()
        report.targets = targets.map(\.name)
        report.perTarget = Array(repeating: 0, count: targets.count)
        let k = options.folds
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
        do {
            try _LearnInput.read(
                inputs: inputs, format: options.inputFormat, hasHeader: options.hasHeader, fields: options.fields,
                truthField: options.truthField, maxRecord: options.maxRecord,
                record: { r in
                    guard let entry = labels[String(decoding: r.label, as: UTF8.self)], let target = entry else { return }
                    let fold = k > 0 ? Self.fold(candidates.normalized(r.body), k) : 0
                    scanner.modelFeatures(body: r.body, into: &features)
                    examples.add(target: target, fold: fold, features: features, body: r.body)
                }, skip: { _, _, _ in })
        } catch {
            throw error
        }
        report.sampledOut = examples.sampledOut

        // Train: the final model first, then one per fold.
        var models: [ModelDefinition] = []
        var iterations: [Int] = []
        for (i, vocabulary) in localVocabularies.enumerated() {
            let heldOut: Int? = options.trainModel ? (i == 0 ? nil : i - 1) : i
            let (model, its) = train(examples, vocabulary: vocabulary, union: union, targets: targets, heldOut: heldOut)
            models.append(model)
            if heldOut == nil { iterations = its }
        }
        report.iterations = iterations

        // Pass 3: cross-validation through the classifier (the fold's model, with the base rules).
        if k > 0 {
            let foldModels = options.trainModel ? Array(models.dropFirst()) : models
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

    // MARK: Training

    /// Trains on the examples outside `heldOut` over `vocabulary` (indices into `union`).
    func train(_ examples: _Examples, vocabulary: [Int], union: [ModelDefinition.Phrase], targets: [ModelDefinition.Target],
               heldOut: Int?) -> (ModelDefinition, [Int]) {
        var column = [Int32](repeating: -1, count: union.count)
        for (c, u) in vocabulary.enumerated() { column[u] = Int32(c) }
        // Document frequencies over the training rows → idf (smoothed, as scikit-learn's TfidfVectorizer).
        var df = [Int](repeating: 0, count: vocabulary.count)
        var rowsUsed: [Int] = []
        for r in 0..<examples.count where heldOut == nil || Int(examples.folds[r]) != heldOut! {
            rowsUsed.append(r)
            for k in examples.starts[r]..<examples.starts[r + 1] {
                let c = column[Int(examples.features[k])]
                if c >= 0 { df[Int(c)] += 1 }
            }
        }
        let n = Double(rowsUsed.count)
        let idf = df.map { Float(log((1 + n) / (1 + Double($0))) + 1) }
        var x = _SparseRows()
        x.starts.reserveCapacity(rowsUsed.count + 1)
        var labels: [Int] = []
        labels.reserveCapacity(rowsUsed.count)
        var row: [(Int32, Float)] = []
        for r in rowsUsed {
            row.removeAll(keepingCapacity: true)
            var norm = 0.0
            for k in examples.starts[r]..<examples.starts[r + 1] {
                let c = column[Int(examples.features[k])]
                if c >= 0 {
                    row.append((c, idf[Int(c)]))
                    norm += Double(idf[Int(c)]) * Double(idf[Int(c)])
                }
            }
            let inverse = norm > 0 ? 1 / norm.squareRoot() : 0
            for (c, v) in row {
                x.columns.append(c)
                x.values.append(Float(Double(v) * inverse))
            }
            x.starts.append(x.columns.count)
            labels.append(Int(examples.targets[r]))
        }
        // One-vs-rest; with two targets one classifier serves both (the second is its mirror image).
        let classifiers = targets.count == 2 ? 1 : targets.count
        let results = _ResultBox(count: classifiers)
        let options = self.options
        let rows = x
        let truth = labels
        DispatchQueue.concurrentPerform(iterations: classifiers) { t in
            let r = _LinearSVM.train(rows, columns: vocabulary.count, positive: truth.map { $0 == t }, cost: options.cost,
                                     tolerance: options.tolerance, maxIterations: options.maxIterations,
                                     seed: options.seed &+ UInt64(t))
            results.set(t, r)
        }
        var weights: [[Double]] = []
        var bias: [Double] = []
        var its: [Int] = []
        for t in 0..<classifiers {
            let r = results.get(t)
            weights.append(r.weights)
            bias.append(r.bias)
            its.append(r.iterations)
        }
        if targets.count == 2 {
            weights.append(weights[0].map { -$0 })
            bias.append(-bias[0])
        }
        var model = ModelDefinition()
        model.name = options.modelName
        model.priority = options.priority
        model.threshold = options.threshold
        model.targets = targets
        model.bias = bias.map { Float($0) }
        for (c, u) in vocabulary.enumerated() where df[c] > 0 {
            let w = (0..<targets.count).map { Float(weights[$0][c] * Double(idf[c])) }
            if w.allSatisfy({ $0 == 0 }) { continue }
            model.phrases.append(.init(text: union[u].text, kind: union[u].kind, idf: idf[c], weights: w))
        }
        return (model, its)
    }

    // MARK: Cross-validation

    func crossValidate(inputs: [String], labels: [String: Int?], targets: [ModelDefinition.Target], models: [ModelDefinition],
                       candidates: PhraseCandidates, report: inout LearnReport) throws(PipelineError) {
        var classifiers: [Classifier] = []
        for model in models {
            var d = options.base ?? RuleSetDefinition()
            d.normalization = options.normalization
            d.model = model
            do { classifiers.append(Classifier(ruleSet: try RuleSet(definition: d, source: "learn --cv"))) } catch {
                throw PipelineError(.badInput, "cannot build a fold's rule set: \(error)")
            }
        }
        let byFolder = targets.contains { $0.subAction != .none }
        var scores = targets.map { LearnReport.TargetScore(target: $0.name) }
        var byInput = Array(repeating: scores, count: inputs.count)
        var correct = 0
        var total = 0
        let k = options.folds
        do {
            try _LearnInput.read(
                inputs: inputs, format: options.inputFormat, hasHeader: options.hasHeader, fields: options.fields,
                truthField: options.truthField, maxRecord: options.maxRecord,
                record: { r in
                    guard let entry = labels[String(decoding: r.label, as: UTF8.self)], let truth = entry else { return }
                    let fold = Self.fold(candidates.normalized(r.body), k)
                    let v = classifiers[fold].classify(sender: r.sender, body: r.body)
                    let predicted = targets.firstIndex {
                        byFolder ? Folder(action: $0.action, subAction: $0.subAction) == v.folder : $0.action == v.action
                    }
                    total += 1
                    if predicted == truth { correct += 1 }
                    for i in [nil, r.fileIndex] as [Int?] {
                        func count(_ s: inout [LearnReport.TargetScore]) {
                            s[truth].support += 1
                            if predicted == truth {
                                s[truth].truePositives += 1
                            } else {
                                s[truth].falseNegatives += 1
                                if let p = predicted { s[p].falsePositives += 1 }
                            }
                        }
                        if let i { count(&byInput[i]) } else { count(&scores) }
                    }
                }, skip: { _, _, _ in })
        } catch {
            throw error
        }
        report.folds = k
        report.scores = scores
        if inputs.count > 1 { report.scoresByInput = byInput }
        report.accuracy = total == 0 ? 0 : Double(correct) / Double(total)
    }

    // MARK: Helpers

    /// The fold of a message: a hash of its normalised body (ASCII case folded), so duplicates share a fold.
    static func fold(_ text: UnsafeRawBufferPointer, _ k: Int) -> Int {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in text {
            h ^= UInt64(b >= 0x41 && b <= 0x5A ? b | 0x20 : b)
            h &*= 0x0000_0100_0000_01B3
        }
        h ^= h >> 33
        h &*= 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        return Int(h % UInt64(k))
    }

    static func name(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }

    static func json(_ s: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    /// A 64-bit checksum of the file's bytes (integrity, not security), in hex.
    static func checksum(path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "unreadable" }
        defer { try? handle.close() }
        var h: UInt64 = 0x5350_4D53_4649_4C54
        var total: UInt64 = 0
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            chunk.withUnsafeBytes { b in
                for byte in b {
                    h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
                }
            }
            total += UInt64(chunk.count)
        }
        h ^= total
        h ^= h >> 33
        h &*= 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// The provenance block (YAML, deterministic: no dates, file names without folders).
    func provenance(_ report: LearnReport, model: ModelDefinition) -> String {
        var y = "learnedBy: smsfilter learn\n"
        y += "inputs:\n"
        for i in report.inputs { y += "  - {name: \(ModelDefinition.quotedYAML(i.name)), checksum: \"\(i.checksum)\", records: \(i.records)}\n" }
        y += "records: {read: \(report.records), used: \(report.used)"
        if report.sampledOut > 0 { y += ", sampledOut: \(report.sampledOut)" }
        y += "}\n"
        y += "perTarget: {\(zip(report.targets, report.perTarget).map { "\(ModelDefinition.quotedYAML($0)): \($1)" }.joined(separator: ", "))}\n"
        if !report.skipped.isEmpty {
            y += "skipped: {\(report.skipped.sorted { $0.key < $1.key }.map { "\(ModelDefinition.quotedYAML($0.key)): \($0.value)" }.joined(separator: ", "))}\n"
        }
        let c = options.candidates
        y += "options: {truthField: \(ModelDefinition.quotedYAML(options.truthField)), by: \(model.isByFolder ? "folder" : "action"), normalize: \(options.normalization.name), "
        y += "maxPhrases: \(options.maxPhrases), minDocuments: \(options.minDocuments), wordNGrams: \(c.wordNGrams), minWordLength: \(c.minWordLength), "
        y += "charNGrams: \"\(c.charNGrams.lowerBound)-\(c.charNGrams.upperBound)\", digitNGrams: \"\(c.digitNGrams.lowerBound)-\(c.digitNGrams.upperBound)\", "
        y += "symbols: \(c.symbols), cost: \(options.cost), tolerance: \(options.tolerance), seed: \(options.seed)}\n"
        y += "candidates: {counted: \(report.candidates), prunes: \(report.prunes), floor: \(report.candidateFloor)}\n"
        y += "phrases: \(model.phrases.count)\n"
        if report.folds > 0 {
            y += "crossValidation:\n  folds: \(report.folds)\n"
            y += "  accuracy: \(Self.fixed(report.accuracy))\n  macroF1: \(Self.fixed(report.macroF1))\n"
            func line(_ s: LearnReport.TargetScore) -> String {
                "{precision: \(Self.fixed(s.precision)), recall: \(Self.fixed(s.recall)), f1: \(Self.fixed(s.f1)), support: \(s.support)}"
            }
            for s in report.scores { y += "  \(ModelDefinition.quotedYAML(s.target)): \(line(s))\n" }
            if !report.scoresByInput.isEmpty {
                y += "  byInput:\n"
                for (i, scores) in report.scoresByInput.enumerated() {
                    y += "    \(ModelDefinition.quotedYAML(report.inputs[i].name)):\n"
                    for s in scores where s.support > 0 || s.falsePositives > 0 { y += "      \(ModelDefinition.quotedYAML(s.target)): \(line(s))\n" }
                }
            }
        }
        return y
    }

    static func fixed(_ x: Double) -> String { String(format: "%.4f", x) }
}

/// The training examples: target, fold and the model phrases present, in flat arrays. Past `limit`
/// messages, a deterministic sample by hash of the body: the sampling level rises (keeping half) until it
/// fits, so the kept set does not depend on the order of the records.
struct _Examples {
    let limit: Int
    var targets: [UInt8] = []
    var folds: [UInt8] = []
    var hashes: [UInt64] = []
    var starts: [Int] = [0]
    var features: [Int32] = []
    var level = 0
    var sampledOut = 0
    var count: Int { targets.count }

    init(limit: Int) { self.limit = max(16, limit) }

    mutating func add(target: Int, fold: Int, features f: [Int32], body: UnsafeRawBufferPointer) {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15
        for b in body { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        h ^= h >> 31
        guard Self.kept(h, level) else {
            sampledOut += 1
            return
        }
        targets.append(UInt8(target))
        folds.append(UInt8(fold))
        hashes.append(h)
        features.append(contentsOf: f)
        starts.append(features.count)
        while count > limit { raiseLevel() }
    }

    static func kept(_ h: UInt64, _ level: Int) -> Bool { level == 0 || h & ((1 << UInt64(level)) - 1) == 0 }

    private mutating func raiseLevel() {
        level += 1
        var t: [UInt8] = [], fo: [UInt8] = [], hs: [UInt64] = [], st: [Int] = [0], fe: [Int32] = []
        for r in 0..<count {
            guard Self.kept(hashes[r], level) else {
                sampledOut += 1
                continue
            }
            t.append(targets[r]); fo.append(folds[r]); hs.append(hashes[r])
            fe.append(contentsOf: features[starts[r]..<starts[r + 1]])
            st.append(fe.count)
        }
        targets = t; folds = fo; hashes = hs; starts = st; features = fe
    }
}

/// Results written by concurrent trainers, one slot each.
final class _ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [_LinearSVM.Result?]
    init(count: Int) { results = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: _LinearSVM.Result) {
        lock.lock()
        results[i] = r
        lock.unlock()
    }
    func get(_ i: Int) -> _LinearSVM.Result {
        lock.lock()
        defer { lock.unlock() }
        return results[i]!
    }
}
