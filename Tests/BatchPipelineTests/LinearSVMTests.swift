import Foundation
import TestSupport
import XCTest

@testable import BatchPipeline

/// `_LinearSVM` (the learner's solver) on problems where some examples lie beyond the margin, so that
/// their dual variables must stay at zero: the optimum computed by hand, and on random problems the
/// primal's own optimality condition (its gradient is zero), which shares nothing with the dual solver.
/// `LearnTests.testWeightsOfATinyCorpusMatchTheHandComputedOptimum` has every example on the margin's
/// wrong side, where the lower bound of the duals never acts.
final class LinearSVMTests: XCTestCase {
    /// Rows of (column, value) pairs.
    func rows(_ r: [[(Int32, Float)]]) -> _SparseRows {
        var x = _SparseRows()
        for row in r {
            for (c, v) in row {
                x.columns.append(c)
                x.values.append(v)
            }
            x.starts.append(x.columns.count)
        }
        return x
    }

    /// The primal the solver minimises: ½(‖w‖² + b²) + C Σ max(0, 1 − y(w·x + b))² (the bias a feature of
    /// value 1). Returns its gradient in (w, b) and the margins y(w·x + b).
    func primalGradient(_ x: _SparseRows, _ positive: [Bool], _ w: [Double], _ b: Double, cost: Double) -> (gradient: [Double], margins: [Double]) {
        var gradient = w + [b]
        var margins: [Double] = []
        for r in 0..<x.count {
            let y: Double = positive[r] ? 1 : -1
            var f = b
            for k in x.starts[r]..<x.starts[r + 1] { f += w[Int(x.columns[k])] * Double(x.values[k]) }
            margins.append(y * f)
            let slack = max(0, 1 - y * f)
            for k in x.starts[r]..<x.starts[r + 1] { gradient[Int(x.columns[k])] -= 2 * cost * slack * y * Double(x.values[k]) }
            gradient[w.count] -= 2 * cost * slack * y
        }
        return (gradient, margins)
    }

    /// One feature, four examples: x = 1 and 3 positive, x = −1 and −3 negative, C = 1. The problem is
    /// symmetric under x → −x, y → −y, so b = 0. If the examples at ±3 lie beyond the margin (3w > 1), the
    /// primal is ½w² + 2(1 − w)², least at w = 4/5; then 3w = 2.4 > 1 indeed, so their duals are 0.
    /// (Duals left free to go negative let the examples at ±3 pull w down towards a least-squares fit of
    /// all four, ½w² + 2(1 − w)² + 2(1 − 3w)², least at w = 16/41.)
    func testExamplesBeyondTheMarginKeepDualsAtZero() {
        let x = rows([[(0, 1)], [(0, -1)], [(0, 3)], [(0, -3)]])
        let positive = [true, false, true, false]
        for seed: UInt64 in [1, 2, 3] {
            let r = _LinearSVM.train(x, columns: 1, positive: positive, cost: 1, tolerance: 1e-10, maxIterations: 10_000, seed: seed)
            XCTAssertEqual(r.weights[0], 0.8, accuracy: 1e-6, "seed \(seed)")
            XCTAssertEqual(r.bias, 0, accuracy: 1e-6, "seed \(seed)")
        }
    }

    /// Random sparse problems with a planted separator (so that many examples are beyond the margin) and
    /// a few flipped labels (so that some are inside it): at the solver's answer the primal's gradient is
    /// zero, which is what makes it the optimum of a strictly convex function.
    func testTheAnswerIsThePrimalOptimumOnRandomProblems() {
        var rng = Fixtures.seededGenerator("LinearSVMTests", defaultSeed: 0x5E_ED22)
        var beyond = 0
        for problem in 0..<40 {
            let columns = Int.random(in: 2...8, using: &rng)
            let count = Int.random(in: 5...40, using: &rng)
            let cost = [0.5, 2, 20][problem % 3]
            let planted = (0..<columns).map { _ in Double.random(in: -3...3, using: &rng) }
            var table: [[(Int32, Float)]] = []
            var positive: [Bool] = []
            for _ in 0..<count {
                var row: [(Int32, Float)] = []
                for c in 0..<columns where Int.random(in: 0..<3, using: &rng) > 0 {
                    row.append((Int32(c), Float(Double.random(in: -2...2, using: &rng))))
                }
                let score = row.reduce(0.2) { $0 + planted[Int($1.0)] * Double($1.1) }
                table.append(row)
                positive.append((score > 0) != (Int.random(in: 0..<10, using: &rng) == 0))
            }
            let x = rows(table)
            let r = _LinearSVM.train(x, columns: columns, positive: positive, cost: cost, tolerance: 1e-10,
                                     maxIterations: 100_000, seed: UInt64(problem))
            let (gradient, margins) = primalGradient(x, positive, r.weights, r.bias, cost: cost)
            let what = "problem \(problem) (\(count) × \(columns), C = \(cost))"
            if margins.contains(where: { $0 > 1 + 1e-3 }) { beyond += 1 }
            let scale = 1 + cost * Double(count)
            for (i, g) in gradient.enumerated() {
                XCTAssertEqual(g, 0, accuracy: 1e-5 * scale, "\(what): ∂P/∂\(i == columns ? "b" : "w\(i)") = \(g)")
            }
        }
        // Most problems must have examples beyond the margin, or the test would not test the bound.
        XCTAssertGreaterThanOrEqual(beyond, 30, "problems with an example beyond the margin")
    }
}
