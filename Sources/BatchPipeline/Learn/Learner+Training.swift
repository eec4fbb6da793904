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
}
