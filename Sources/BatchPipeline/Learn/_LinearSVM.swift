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
        guard x.count > 0 else { return Result(weights: [Double](repeating: 0, count: columns), bias: 0, iterations: 0) }
        var solver = _DualCoordinateDescent(x, columns: columns, positive: positive, cost: cost, seed: seed)
        return solver.solve(x, tolerance: tolerance, maxIterations: maxIterations)
    }
}

/// The solver's state: the primal weights and bias (kept equal to the sum of each example's dual variable
/// times its label times its features), the dual variables, and the examples still active (shrinking).
struct _DualCoordinateDescent {
    var w: [Double]
    var b = 0.0
    /// The dual's diagonal term, 1 / (2C).
    let diag: Double
    var alpha: [Double]
    /// Each example's squared norm (bias feature included) plus `diag`: the curvature of its coordinate.
    var qd: [Double]
    var y: [Double]
    /// The examples in pass order; the first `active` are the ones still visited.
    var index: [Int]
    var active: Int
    /// The last pass's largest projected gradient (infinity: shrink nothing).
    var maxOld = Double.infinity
    var rng: _SplitMix
    let l: Int

    init(_ x: _SparseRows, columns: Int, positive: [Bool], cost: Double, seed: UInt64) {
        l = x.count
        w = [Double](repeating: 0, count: columns)
        diag = 0.5 / cost
        alpha = [Double](repeating: 0, count: l)
        qd = [Double](repeating: 0, count: l)
        y = [Double](repeating: 0, count: l)
        for r in 0..<l {
            y[r] = positive[r] ? 1 : -1
            var s = 1.0  // the bias feature
            for k in x.starts[r]..<x.starts[r + 1] { s += Double(x.values[k]) * Double(x.values[k]) }
            qd[r] = diag + s
        }
        index = Array(0..<l)
        active = l
        rng = _SplitMix(seed: seed)
    }

    /// Passes over the active examples in a new random order each time, until the projected gradients of a
    /// pass over every example are within `tolerance` of each other or `maxIterations` passes were made.
    /// Shrinking (liblinear): with the squared hinge the dual has no upper bound, so only the lower bound's
    /// test (alpha = 0 and a gradient above the last pass's largest) is needed; when the active examples
    /// converge, every example is visited again.
    mutating func solve(_ x: _SparseRows, tolerance: Double, maxIterations: Int) -> _LinearSVM.Result {
        var iteration = 0
        x.columns.withUnsafeBufferPointer { cols in
            x.values.withUnsafeBufferPointer { vals in
                x.starts.withUnsafeBufferPointer { starts in
                    while iteration < maxIterations {
                        shuffleActive()
                        let (maxNew, minNew) = sweep(cols, vals, starts)
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
        return _LinearSVM.Result(weights: w, bias: b, iterations: iteration)
    }

    /// A Fisher–Yates shuffle of the active examples, from the seeded generator.
    mutating func shuffleActive() {
        var i = 0
        while i < active {
            let j = i + Int(rng.next() % UInt64(active - i))
            index.swapAt(i, j)
            i += 1
        }
    }

    /// One pass over the active examples: each one's dual variable is moved to its optimum with the others
    /// fixed (clamped at zero), and the weights with it; an example at zero whose gradient is above the last
    /// pass's largest is shrunk away. Returns the largest and smallest projected gradient seen.
    mutating func sweep(
        _ cols: UnsafeBufferPointer<Int32>, _ vals: UnsafeBufferPointer<Float>, _ starts: UnsafeBufferPointer<Int>
    ) -> (maxNew: Double, minNew: Double) {
        var maxNew = -Double.infinity
        var minNew = Double.infinity
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
        return (maxNew, minNew)
    }
}
