// MARK: Internal API
//
// A linear SVM, L2-regularised with the squared hinge loss, solved in the dual by coordinate descent with
// shrinking: Hsieh, Chang, Lin, Keerthi & Sundararajan, "A Dual Coordinate Descent Method for Large-scale
// Linear SVM" (ICML 2008), liblinear's solver 1, the one scikit-learn's LinearSVC runs by default. The bias
// is a constant feature of value 1 (regularised, as liblinear and LinearSVC with intercept_scaling=1 do).
//
// Why this and not logistic regression or a package: it is the model the baseline uses (so the
// comparison measures our features, not a different loss), it needs no step size or line search, each
// pass is one sweep over the non-zeros, and on UCI SMS (4,460 training messages, 15,000 phrases) it
// converges in about 20 passes, a few milliseconds: the learn time is the reading and counting, not this.
// Deterministic: the pass order comes from a seeded generator (the generator `generate` uses).

/// Sparse rows: row r's columns are `columns[starts[r]..<starts[r+1]]`, values alike.
struct _SparseRows {
    var starts: [Int] = [0]
    var columns: [Int32] = []
    var values: [Float] = []
    var count: Int { starts.count - 1 }
}

enum _LinearSVM {
    struct Result {
        var weights: [Double]
        var bias: Double
        var iterations: Int
    }

    /// Trains one binary classifier: `positive[r]` says whether row r is of the class.
    static func train(_ x: _SparseRows, columns: Int, positive: [Bool], cost: Double, tolerance: Double,
                      maxIterations: Int, seed: UInt64) -> Result {
        let l = x.count
        var w = [Double](repeating: 0, count: columns)
        var b = 0.0
        guard l > 0 else { return Result(weights: w, bias: 0, iterations: 0) }
        let diag = 0.5 / cost
        var alpha = [Double](repeating: 0, count: l)
        var qd = [Double](repeating: 0, count: l)
        var y = [Double](repeating: 0, count: l)
        for r in 0..<l {
            y[r] = positive[r] ? 1 : -1
            var s = 1.0  // the bias feature
            for k in x.starts[r]..<x.starts[r + 1] { s += Double(x.values[k]) * Double(x.values[k]) }
            qd[r] = diag + s
        }
        var index = Array(0..<l)
        var active = l
        // Shrinking (liblinear): with the squared hinge the dual has no upper bound, so only the lower
        // bound's test (alpha = 0 and a gradient above the last pass's largest) is needed.
        var maxOld = Double.infinity
        var rng = _SplitMix(seed: seed)
        var iteration = 0
        x.columns.withUnsafeBufferPointer { cols in
            x.values.withUnsafeBufferPointer { vals in
                x.starts.withUnsafeBufferPointer { starts in
                    while iteration < maxIterations {
                        var maxNew = -Double.infinity
                        var minNew = Double.infinity
                        var i = 0
                        while i < active {
                            let j = i + Int(rng.next() % UInt64(active - i))
                            index.swapAt(i, j)
                            i += 1
                        }
                        var s = 0
                        while s < active {
                            let r = index[s]
                            let lo = starts[r]
                            let hi = starts[r + 1]
                            var dot = b
                            var k = lo
                            while k < hi {
                                dot += w[Int(cols[k])] * Double(vals[k])
                                k += 1
                            }
                            let g = y[r] * dot - 1 + diag * alpha[r]
                            var pg = 0.0
                            if alpha[r] == 0 {
                                if g > maxOld {
                                    active -= 1
                                    index.swapAt(s, active)
                                    continue
                                } else if g < 0 {
                                    pg = g
                                }
                            } else {
                                pg = g
                            }
                            maxNew = max(maxNew, pg)
                            minNew = min(minNew, pg)
                            if abs(pg) > 1e-12 {
                                let old = alpha[r]
                                alpha[r] = max(old - g / qd[r], 0)
                                let d = (alpha[r] - old) * y[r]
                                k = lo
                                while k < hi {
                                    w[Int(cols[k])] += d * Double(vals[k])
                                    k += 1
                                }
                                b += d
                            }
                            s += 1
                        }
                        iteration += 1
                        if maxNew - minNew <= tolerance {
                            if active == l { break }
                            active = l
                            maxOld = .infinity
                            continue
                        }
                        maxOld = maxNew <= 0 ? .infinity : maxNew
                    }
                }
            }
        }
        return Result(weights: w, bias: b, iterations: iteration)
    }
}
