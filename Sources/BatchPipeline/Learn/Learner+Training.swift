import Dispatch
import Foundation
import MessageFilter
import ArchiveIO

// Learner's training, cross-validation and provenance (the run itself is in Learner.swift).
extension Learner {
    // MARK: Training

    /// Trains on the examples outside `heldOut` over `vocabulary` (indices into `union`). Returns the model,
    /// the solver's passes per classifier and, per phrase of the model, its index in `union`.
    func train(_ examples: _Examples, vocabulary: [Int], union: [ModelDefinition.Phrase], targets: [ModelDefinition.Target],
               heldOut: Int?) -> (ModelDefinition, [Int], [Int]) {
        var column = [Int32](repeating: -1, count: union.count)
        for (c, u) in vocabulary.enumerated() { column[u] = Int32(c) }
        // Document frequencies over the training rows → idf (smoothed, as scikit-learn's TfidfVectorizer).
        // (A text phrase is listed once per occurrence: a message counts once in its document frequency.)
        var df = [Int](repeating: 0, count: vocabulary.count)
        var lastRow = [Int](repeating: -1, count: vocabulary.count)
        var rowsUsed: [Int] = []
        for r in 0..<examples.count where heldOut == nil || Int(examples.folds[r]) != heldOut! {
            rowsUsed.append(r)
            for k in examples.starts[r]..<examples.starts[r + 1] {
                let c = Int(column[Int(examples.features[k])])
                if c >= 0, lastRow[c] != r {
                    lastRow[c] = r
                    df[c] += 1
                }
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
            // Text phrases count every occurrence (docs/RULES.md, "Learned models"): one entry per column, its
            // value the count × idf (the norm above already sums each occurrence's idf², as the classifier does).
            row.sort { $0.0 < $1.0 }
            var k = 0
            while k < row.count {
                var v = Double(row[k].1)
                var j = k + 1
                while j < row.count, row[j].0 == row[k].0 {
                    v += Double(row[j].1)
                    j += 1
                }
                x.columns.append(row[k].0)
                x.values.append(Float(v * inverse))
                k = j
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
        var kept: [Int] = []
        for (c, u) in vocabulary.enumerated() where df[c] > 0 {
            let w = (0..<targets.count).map { Float(weights[$0][c] * Double(idf[c])) }
            if w.allSatisfy({ $0 == 0 }) { continue }
            model.phrases.append(.init(text: union[u].text, kind: union[u].kind, idf: idf[c], weights: w))
            kept.append(u)
        }
        return (model, its, kept)
    }

    // MARK: Calibration

    /// One held-out decision of a fold model: the example, the winning target, its score and its margin over the
    /// runner-up.
    struct _HeldOut {
        var example: Int
        var fold: Int
        var winner: Int
        var score: Double
        var margin: Double
    }

    /// The fold models' scores of their held-out messages, computed as the classifier computes them (bias + Σ
    /// weights / √Σ idf², over the phrases each fold model kept). A message the fold model would abstain on anyway
    /// (no phrase present, a script it learned too little of) is left out: it is not a decision.
    func heldOutScores(_ examples: _Examples, models: [ModelDefinition], kept: [[Int]], unionCount: Int,
                       targets: [ModelDefinition.Target]) -> [_HeldOut] {
        let t = targets.count
        var out: [_HeldOut] = []
        var weights = [Float](repeating: 0, count: unionCount * t)
        var idf = [Float](repeating: 0, count: unionCount)
        var scores = [Double](repeating: 0, count: t)
        for (fold, model) in models.enumerated() {
            for (p, u) in kept[fold].enumerated() {
                idf[u] = model.phrases[p].idf
                for j in 0..<t { weights[u * t + j] = model.phrases[p].weights[j] }
            }
            for r in 0..<examples.count where Int(examples.folds[r]) == fold {
                if model.abstains(on: examples.script(r)) { continue }
                var norm = 0.0
                for j in 0..<t { scores[j] = 0 }
                for q in examples.starts[r]..<examples.starts[r + 1] {
                    let u = Int(examples.features[q])
                    guard idf[u] > 0 else { continue }
                    norm += Double(idf[u]) * Double(idf[u])
                    for j in 0..<t { scores[j] += Double(weights[u * t + j]) }
                }
                guard norm > 0 else { continue }
                let inverse = 1 / norm.squareRoot()
                var best = 0
                for j in 0..<t {
                    scores[j] = Double(model.bias[j]) + scores[j] * inverse
                    if scores[j] > scores[best] { best = j }
                }
                var second = -Double.infinity
                for j in 0..<t where j != best { second = max(second, scores[j]) }
                out.append(_HeldOut(example: r, fold: fold, winner: best, score: scores[best], margin: scores[best] - second))
            }
            for u in kept[fold] {
                idf[u] = 0
                for j in 0..<t { weights[u * t + j] = 0 }
            }
        }
        return out
    }

    /// The margins: per target, the smallest margin over the runner-up at which the fold models' decisions of
    /// it on their held-out messages reach `precision`. A decision is right when the message's true target
    /// lands where the decided one does for the user: junk and promotion are both filtered, none and allow
    /// both unfiltered, a transaction is a transaction (with `--by folder`, by the folders' actions). Below
    /// its margin the model abstains and the rules decide.
    func calibrate(_ examples: _Examples, _ heldOut: [_HeldOut], targets: [ModelDefinition.Target], precision: Double,
                   report: inout LearnReport) -> [Float] {
        let t = targets.count
        func group(_ a: Action) -> Int {
            switch a {
            case .junk, .promotion: 0
            case .none, .allow: 1
            case .transaction: 2
            }
        }
        let groups = targets.map { group($0.action) }
        // Per target: (margin, right) of each held-out decision.
        var decisions = Array(repeating: [(Double, Bool)](), count: t)
        for h in heldOut {
            decisions[h.winner].append((h.margin, groups[h.winner] == groups[Int(examples.targets[h.example])]))
        }
        var margins = [Float](repeating: 0, count: t)
        report.calibration = []
        for j in 0..<t {
            var c = LearnReport.Calibration(target: targets[j].name, margin: 0)
            let d = decisions[j].sorted { $0.0 < $1.0 }
            c.decisions = d.count
            c.right = d.filter(\.1).count
            if d.count < options.minimumCalibrationDecisions {
                c.calibrated = false
                c.kept = c.decisions
                c.keptRight = c.right
            } else if let (i, m) = Self.smallestMargin(d, precision: precision, minimumKept: 1) {
                c.margin = m
                c.kept = d.count - i
                c.keptRight = d[i...].filter(\.1).count
            } else {
                c.margin = .infinity
            }
            margins[j] = c.margin
            report.calibration.append(c)
        }
        return margins
    }

    /// The overrule margins (docs/RULES.md §10): for each held-out decision of a fold model where the best firing
    /// base rule below the model has another action than the winner's and nothing else stops the model (no rule
    /// at or above its priority or number list decided, it does not yield to that rule (an action it learned too
    /// little of in the message's script), the sender does not keep it from the verdict, the threshold is met),
    /// the model would overrule the rule; the overrule is right when the message's true action is the winner's
    /// (none and allow count as one). Per main script of the message and (rule action, target) pair, the smallest
    /// margin at which at least ``LearnOptions/minimumOverrules`` held-out overrules at or above it reach
    /// `precision`; with fewer cases, or none precise enough, never. Scripts without a held-out overrule are left
    /// out of the table (never).
    func calibrateOverrules(_ examples: _Examples, _ heldOut: [_HeldOut], models: [ModelDefinition], targets: [ModelDefinition.Target],
                            precision: Double, report: inout LearnReport) -> [Script: [Action: [Float]]] {
        let t = targets.count
        let rows = ModelDefinition.overruleRows
        func same(_ a: Action) -> Action { ModelDefinition.overruleRow(a) }
        var cases: [Script: [[[(Double, Bool)]]]] = [:]
        for h in heldOut {
            let c = examples.contexts[h.example]
            let model = models[h.fold]
            guard c & _Examples.decidedAbove == 0, let rule = _Examples.action(c), model.isOverrule(of: rule, by: h.winner) else { continue }
            let winner = targets[h.winner].action
            let script = examples.script(h.example)
            if model.yields(to: rule, on: script, with: h.winner) { continue }
            if winner == .junk && c & _Examples.traiSender != 0 { continue }
            if winner != .transaction && c & _Examples.vouched != 0 { continue }
            if let threshold = model.threshold, h.score < Double(threshold) { continue }
            let truth = targets[Int(examples.targets[h.example])].action
            cases[script, default: Array(repeating: Array(repeating: [], count: t), count: rows.count)][rows.firstIndex(of: same(rule))!][h.winner]
                .append((h.margin, same(truth) == same(winner)))
        }
        var table: [Script: [Action: [Float]]] = [:]
        report.overrules = []
        let minimum = max(1, options.minimumOverrules)
        report.minimumOverrules = minimum
        for script in Script.allCases {
            guard let byRow = cases[script] else { continue }
            for (i, row) in rows.enumerated() {
                var margins = [Float](repeating: .infinity, count: t)
                for j in 0..<t where same(targets[j].action) != row {
                    var c = LearnReport.OverruleCalibration(script: script, rule: row, target: targets[j].name)
                    // Sorted by margin, and by rightness among equal margins, so that the order never depends on the
                    // order of the folds.
                    let d = byRow[i][j].sorted { $0.0 != $1.0 ? $0.0 < $1.0 : (!$0.1 && $1.1) }
                    c.cases = d.count
                    c.right = d.filter(\.1).count
                    if d.count >= minimum {
                        c.calibrated = true
                        if let (k, m) = Self.smallestMargin(d, precision: precision, minimumKept: minimum) {
                            c.margin = m
                            c.kept = d.count - k
                            c.keptRight = d[k...].filter(\.1).count
                        }
                    }
                    margins[j] = c.margin
                    report.overrules.append(c)
                }
                table[script, default: [:]][row] = margins
            }
        }
        return table
    }

    /// The smallest margin m at which the decisions at or above m (`d`, sorted by margin) are at least
    /// `minimumKept` and reach `precision`: m is 0 (every decision) or the margin of a decision, taken at the first
    /// of the decisions that share it. Returns the index of the first decision kept and m (as a Float, never above
    /// the margin it stands for), or nil when no margin gets there.
    static func smallestMargin(_ d: [(Double, Bool)], precision: Double, minimumKept: Int) -> (Int, Float)? {
        var rightFrom = [Int](repeating: 0, count: d.count + 1)
        for i in stride(from: d.count - 1, through: 0, by: -1) { rightFrom[i] = rightFrom[i + 1] + (d[i].1 ? 1 : 0) }
        for i in 0..<d.count where i == 0 || d[i].0 != d[i - 1].0 {
            if d.count - i < minimumKept { return nil }
            if Double(rightFrom[i]) >= precision * Double(d.count - i) {
                var m: Float = i == 0 ? 0 : Float(d[i].0)
                if Double(m) > d[i].0 { m = m.nextDown }
                return (i, m)
            }
        }
        return nil
    }

    // MARK: Cross-validation

    func crossValidate(inputs: [String], labels: [String: Int?], targets: [ModelDefinition.Target], models: [ModelDefinition],
                       candidates: PhraseCandidates, report: inout LearnReport) throws(PipelineError) {
        var classifiers: [Classifier] = []
        var plain: [Classifier] = []  // the same without margins
        for model in models {
            var d = options.base ?? RuleSetDefinition()
            d.normalization = options.normalization
            d.model = model
            var p = model
            p.margins = []
            do {
                classifiers.append(Classifier(ruleSet: try RuleSet(definition: d, source: "learn --cv")))
                plain.append(model.margins.isEmpty ? classifiers.last! : Classifier(ruleSet: try RuleSet(definition: d.withModel(p), source: "learn --cv")))
            } catch {
                throw PipelineError(.badInput, "cannot build a fold's rule set: \(error)")
            }
        }
        let byFolder = targets.contains { $0.subAction != .none }
        var scores = targets.map { LearnReport.TargetScore(target: $0.name) }
        var plainScores = scores
        var byInput = Array(repeating: scores, count: inputs.count)
        var correct = 0
        var plainCorrect = 0
        var total = 0
        var confusion = Array(repeating: [String: [String: Int]](), count: inputs.count)
        let k = options.folds
        do {
            try _LearnInput.read(
                inputs: inputs, input: options.input, truthField: options.truthField,
                record: { r in
                    guard let entry = labels[String(decoding: r.label, as: UTF8.self)], let truth = entry else { return }
                    let fold = Self.fold(candidates.normalized(r.body), k)
                    func predict(_ c: Classifier) -> (Int?, Folder) {
                        let v = c.classify(sender: r.sender, body: r.body)
                        return (targets.firstIndex {
                            byFolder ? Folder(action: $0.action, subAction: $0.subAction) == v.folder : $0.action == v.action
                        }, v.folder)
                    }
                    let (predicted, folder) = predict(classifiers[fold])
                    confusion[r.fileIndex][String(decoding: r.label, as: UTF8.self), default: [:]][folder.path, default: 0] += 1
                    let plainPredicted = plain[fold] === classifiers[fold] ? predicted : predict(plain[fold]).0
                    total += 1
                    if predicted == truth { correct += 1 }
                    if plainPredicted == truth { plainCorrect += 1 }
                    plainScores[truth].support += 1
                    if plainPredicted == truth {
                        plainScores[truth].truePositives += 1
                    } else {
                        plainScores[truth].falseNegatives += 1
                        if let p = plainPredicted { plainScores[p].falsePositives += 1 }
                    }
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
        report.scoresWithoutMargins = plainScores
        report.confusionByInput = confusion
        report.accuracyWithoutMargins = total == 0 ? 0 : Double(plainCorrect) / Double(total)
    }

    // MARK: Helpers

    /// The fold of a message: a hash of its normalised body (ASCII case folded), so duplicates share a fold.
    static func fold(_ text: UnsafeRawBufferPointer, _ k: Int) -> Int {
        var h = StableHash.fnvOffsetBasis
        for b in text { h = StableHash.fnv1a(h, b >= 0x41 && b <= 0x5A ? b | 0x20 : b) }
        h ^= h >> 33
        h &*= 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        return Int(h % UInt64(k))
    }

    static func name(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }

    /// Whether a record's id says `smsfilter generate` wrote it (`gen:N`).
    static func isGenerated(id: UnsafeRawBufferPointer?) -> Bool {
        guard let id, id.count > 4 else { return false }
        return id[0] == 0x67 && id[1] == 0x65 && id[2] == 0x6E && id[3] == 0x3A
    }

    static func json(_ s: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    /// A 64-bit checksum of the file's bytes (integrity, not security), in hex.
    public static func checksum(path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "unreadable" }
        defer { try? handle.close() }
        var h: UInt64 = 0x5350_4D53_4649_4C54
        var total: UInt64 = 0
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            chunk.withUnsafeBytes { b in
                for byte in b { h = StableHash.fnv1a(h, byte) }
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
        y += "charNGrams: \"\(c.charNGrams.lowerBound)-\(c.charNGrams.upperBound)\", "
        y += c.digitNGrams.upperBound < 1 ? "digitNGrams: none, " : "digitNGrams: \"\(c.digitNGrams.lowerBound)-\(c.digitNGrams.upperBound)\", "
        y += c.textNGrams.upperBound < 1 ? "textNGrams: none, " : "textNGrams: \"\(c.textNGrams.lowerBound)-\(c.textNGrams.upperBound)\", "
        y += "cost: \(options.cost), tolerance: \(options.tolerance), seed: \(options.seed), "
        y += "precisionTarget: \(options.precisionTarget.map { "\($0)" } ?? "null"), minScriptMessages: \(options.minScriptMessages)"
        if model.overrules != nil { y += ", minOverrules: \(options.minimumOverrules)" }
        if options.linksNeedCompany { y += ", links: company" }
        y += "}\n"
        if options.base != nil {
            y += "rules: {name: \(ModelDefinition.quotedYAML(options.baseName ?? "?")), checksum: \"\(options.baseChecksum ?? "?")\", priority: \(model.priority)}\n"
        }
        if !report.calibration.isEmpty {
            y += "calibration:\n  folds: \(report.calibrationFolds)\n"
            for c in report.calibration {
                y += "  \(ModelDefinition.quotedYAML(c.target)): {margin: \(c.margin.isInfinite ? "never" : "\(c.margin)"), "
                y += "decisions: \(c.decisions), right: \(c.right), kept: \(c.kept), keptRight: \(c.keptRight)\(c.calibrated ? "" : ", calibrated: false")}\n"
            }
        }
        if !report.operatingPoint.isEmpty {
            y += "operatingPoint:  # per target, the offset added to its bias: the best held-out macro F1 of \(report.calibrationFolds) folds\n"
            for (k, o) in report.operatingPoint.enumerated() { y += "  \(ModelDefinition.quotedYAML(report.targets[k])): \(o)\n" }
        }
        if !report.overrules.isEmpty {
            y += "overruleCalibration:  # per main script, the pairs with held-out overrules (the others: never)\n"
            for c in report.overrules where c.cases > 0 {
                y += "  \(c.script.name) \(c.rule.name) by \(ModelDefinition.quotedYAML(c.target)): {margin: \(c.margin.isInfinite ? "never" : "\(c.margin)"), "
                y += "cases: \(c.cases), right: \(c.right), kept: \(c.kept), keptRight: \(c.keptRight)\(c.calibrated ? "" : ", calibrated: false")}\n"
            }
        }
        y += "candidates: {counted: \(report.candidates), prunes: \(report.prunes), floor: \(report.candidateFloor)}\n"
        y += "phrases: \(model.phrases.count)\n"
        if report.folds > 0 {
            y += "crossValidation:\n  folds: \(report.folds)\n"
            y += "  accuracy: \(Self.fixed(report.accuracy))\n  macroF1: \(Self.fixed(report.macroF1))\n"
            if !report.calibration.isEmpty {
                y += "  withoutMargins: {accuracy: \(Self.fixed(report.accuracyWithoutMargins)), macroF1: \(Self.fixed(report.macroF1WithoutMargins))}\n"
            }
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
    /// Per example: its main script's raw value, with 0x80 set when it is generated.
    var scriptBytes: [UInt8] = []
    var hashes: [UInt64] = []
    /// Per example: what the base rules below the model's priority make of it (``pack(_:)``; 0 without base rules).
    var contexts: [UInt16] = []
    var starts: [Int] = [0]
    var features: [Int32] = []
    var level = 0
    var sampledOut = 0
    var count: Int { targets.count }

    init(limit: Int) { self.limit = max(16, limit) }

    func script(_ r: Int) -> Script { Script(rawValue: scriptBytes[r] & 0x7F)! }

    /// Real examples per main script and target outside fold `fold`.
    func scripts(excluding fold: Int, targets t: Int) -> [Script: [Int]] {
        var counts: [Script: [Int]] = [:]
        for r in 0..<count where Int(folds[r]) != fold && scriptBytes[r] & 0x80 == 0 {
            counts[script(r), default: Array(repeating: 0, count: t)][Int(targets[r])] += 1
        }
        return counts
    }

    /// ``RuleSituation`` in 16 bits: the best firing rule's action + 1 (0: none fired) in bits 0–2, then the
    /// flags below.
    static let decidedAbove: UInt16 = 8
    static let vouched: UInt16 = 16
    static let traiSender: UInt16 = 32

    static func pack(_ b: RuleSituation) -> UInt16 {
        var x = UInt16(b.action.map { $0.rawValue + 1 } ?? 0)
        if b.decidedAbove { x |= decidedAbove }
        if b.vouched { x |= vouched }
        if b.traiSender { x |= traiSender }
        return x
    }

    static func action(_ c: UInt16) -> Action? { c & 7 == 0 ? nil : Action(rawValue: Int(c & 7) - 1) }

    mutating func add(target: Int, fold: Int, features f: [Int32], body: UnsafeRawBufferPointer, script: Script, generated: Bool,
                      context: UInt16 = 0) {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15
        for b in body { h = StableHash.fnv1a(h, b) }
        h ^= h >> 31
        guard Self.kept(h, level) else {
            sampledOut += 1
            return
        }
        targets.append(UInt8(target))
        folds.append(UInt8(fold))
        scriptBytes.append(script.rawValue | (generated ? 0x80 : 0))
        hashes.append(h)
        contexts.append(context)
        features.append(contentsOf: f)
        starts.append(features.count)
        while count > limit { raiseLevel() }
    }

    static func kept(_ h: UInt64, _ level: Int) -> Bool { level == 0 || h & ((1 << UInt64(level)) - 1) == 0 }

    private mutating func raiseLevel() {
        level += 1
        var t: [UInt8] = [], fo: [UInt8] = [], sc: [UInt8] = [], hs: [UInt64] = [], cx: [UInt16] = [], st: [Int] = [0], fe: [Int32] = []
        for r in 0..<count {
            guard Self.kept(hashes[r], level) else {
                sampledOut += 1
                continue
            }
            t.append(targets[r]); fo.append(folds[r]); sc.append(scriptBytes[r]); hs.append(hashes[r]); cx.append(contexts[r])
            fe.append(contentsOf: features[starts[r]..<starts[r + 1]])
            st.append(fe.count)
        }
        targets = t; folds = fo; scriptBytes = sc; hashes = hs; contexts = cx; starts = st; features = fe
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
