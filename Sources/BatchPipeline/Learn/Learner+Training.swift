import Dispatch
import Foundation
import MessageFilter
import ArchiveIO

// Learner's training of one model (the run itself is in Learner.swift; calibration, cross-validation and
// provenance beside it).
extension Learner {
    // MARK: Training

    /// Trains on the examples outside `heldOut` over `vocabulary` (indices into `union`). Returns the model,
    /// the solver's passes per classifier and, per phrase of the model, its index in `union`.
    func train(_ examples: _Examples, vocabulary: [Int], union: [ModelDefinition.Phrase], targets: [ModelDefinition.Target],
               heldOut: Int?) -> (ModelDefinition, [Int], [Int]) {
        var column = [Int32](repeating: -1, count: union.count)
        for (c, u) in vocabulary.enumerated() { column[u] = Int32(c) }
        let (df, rowsUsed) = Self.documentFrequencies(examples, column: column, columns: vocabulary.count, heldOut: heldOut)
        let n = Double(rowsUsed.count)
        let idf = df.map { Float(log((1 + n) / (1 + Double($0))) + 1) }
        let (rows, labels) = Self.weightedRows(examples, rowsUsed, column: column, idf: idf)
        let (weights, bias, its) = solve(rows, labels: labels, columns: vocabulary.count, targets: targets.count)
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

    /// Document frequencies of the vocabulary's columns over the training rows (those outside `heldOut`), and
    /// those rows. A text phrase is listed once per occurrence: a message counts once in its document frequency.
    static func documentFrequencies(_ examples: _Examples, column: [Int32], columns: Int, heldOut: Int?) -> ([Int], [Int]) {
        var df = [Int](repeating: 0, count: columns)
        var lastRow = [Int](repeating: -1, count: columns)
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
        return (df, rowsUsed)
    }

    /// The TF-IDF rows of `rowsUsed` (smoothed idf, as scikit-learn's TfidfVectorizer; each row L2-normalised)
    /// and their targets.
    static func weightedRows(_ examples: _Examples, _ rowsUsed: [Int], column: [Int32], idf: [Float]) -> (_SparseRows, [Int]) {
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
        return (x, labels)
    }

    /// One-vs-rest linear SVMs over `rows`, one per target, trained concurrently; with two targets one
    /// classifier serves both (the second is its mirror image). Returns the weights, biases and passes.
    func solve(_ rows: _SparseRows, labels: [Int], columns: Int, targets: Int) -> ([[Double]], [Double], [Int]) {
        let classifiers = targets == 2 ? 1 : targets
        let results = _ResultBox(count: classifiers)
        let options = self.options
        DispatchQueue.concurrentPerform(iterations: classifiers) { t in
            let r = _LinearSVM.train(rows, columns: columns, positive: labels.map { $0 == t }, cost: options.cost,
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
        if targets == 2 {
            weights.append(weights[0].map { -$0 })
            bias.append(-bias[0])
        }
        return (weights, bias, its)
    }
}
