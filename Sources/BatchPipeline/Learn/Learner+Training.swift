import Dispatch
import Foundation
import MessageFilter
import ZstdStream

// Learner's training, cross-validation and provenance (the run itself is in Learner.swift).
extension Learner {
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
