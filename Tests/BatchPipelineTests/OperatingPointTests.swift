import XCTest

@testable import BatchPipeline

/// `Learner.bestOffsets` (the operating point of a model used without a precision target) and
/// `Learner.bestGainMargin` (the overrule margins `learn --rules` calibrates for F1), against brute force.
final class OperatingPointTests: XCTestCase {
    /// Held-out score rows of two targets: target 0 ("spam") scores `s`, target 1 its mirror.
    static func rows(_ s: [(Double, Int)]) -> Learner._HeldOutScores {
        var h = Learner._HeldOutScores(targets: 2)
        for (score, truth) in s {
            h.truth.append(truth)
            h.fold.append(0)
            h.scores += [score, -score]
        }
        return h
    }

    /// Macro F1 of the argmax of scores + offsets (ties to the first target), computed directly.
    static func macroF1(_ h: Learner._HeldOutScores, _ offsets: [Double]) -> Double {
        let t = h.targets
        var tp = [Int](repeating: 0, count: t), predicted = tp, truth = tp
        for r in h.truth.indices {
            var best = 0
            for k in 1..<t where h.scores[r * t + k] + offsets[k] > h.scores[r * t + best] + offsets[best] { best = k }
            predicted[best] += 1
            truth[h.truth[r]] += 1
            if best == h.truth[r] { tp[best] += 1 }
        }
        var sum = 0.0
        for k in 0..<t where predicted[k] + truth[k] > 0 {
            sum += 2 * Double(tp[k]) / Double(predicted[k] + truth[k])
        }
        return sum / Double(t)
    }

    func testASkewedModelGetsTheOffsetThatRecoversItsRecall() {
        // Spam scores just below 0 (the SVM's argmax calls them ham); ham well below.
        var s: [(Double, Int)] = []
        for i in 0..<40 { s.append((-0.1 + Double(i) * 0.001, 0)) }
        for i in 0..<60 { s.append((-0.8 - Double(i) * 0.001, 1)) }
        let h = Self.rows(s)
        let offsets = Learner.bestOffsets(h, rows: Array(h.truth.indices))
        XCTAssertEqual(Self.macroF1(h, [0, 0]), 0.375, accuracy: 1e-9)  // everything ham: F1 0 and 0.75
        XCTAssertEqual(Self.macroF1(h, offsets), 1, accuracy: 1e-9, "\(offsets)")
        XCTAssertEqual(offsets[1], 0, "the last target's offset stays 0")
        // The smallest offset that separates them: the spam margins are 2·score, the lowest -0.2.
        XCTAssertGreaterThan(offsets[0], 0.1)
        XCTAssertLessThan(offsets[0], 0.25)
    }

    func testASeparatedModelKeepsNoOffset() {
        let h = Self.rows((0..<50).map { ($0 % 2 == 0 ? 0.7 : -0.7, $0 % 2) })
        XCTAssertEqual(Learner.bestOffsets(h, rows: Array(h.truth.indices)), [0, 0])
    }

    func testTheOffsetsAreAtLeastAsGoodAsEveryGridPointOfThreeTargets() {
        var h = Learner._HeldOutScores(targets: 3)
        var x: UInt64 = 12345
        func next() -> Double {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            return Double(x >> 11) / Double(1 << 53)
        }
        for _ in 0..<300 {
            let truth = Int(next() * 3)
            h.truth.append(truth)
            h.fold.append(0)
            for k in 0..<3 { h.scores.append((k == truth ? 0.3 : 0) + next() - 0.5 + (k == 2 ? -0.3 : 0)) }
        }
        let offsets = Learner.bestOffsets(h, rows: Array(h.truth.indices))
        let found = Self.macroF1(h, offsets)
        XCTAssertGreaterThanOrEqual(found, Self.macroF1(h, [0, 0, 0]))
        // Coordinate ascent: no single target's grid offset improves on the result.
        for j in 0..<2 {
            for c in stride(from: -1.0, through: 1.0, by: 0.05) {
                var o = offsets
                o[j] = c
                XCTAssertLessThanOrEqual(Self.macroF1(h, o), found + 1e-9, "target \(j) offset \(c)")
            }
        }
    }

    func testBestGainMarginAgainstBruteForce() {
        var x: UInt64 = 99
        func next() -> Double {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            return Double(x >> 11) / Double(1 << 53)
        }
        for round in 0..<200 {
            let n = Int(next() * 30)
            var d: [(Double, Int)] = []
            for _ in 0..<n {
                let m = (next() * 20).rounded() / 10
                let positive = next() < 0.3 + Double(round % 5) * 0.1
                let g = positive ? 1 : (next() < 0.5 ? -1 : 0)
                d.append((m, g))
            }
            d.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            let (k, m) = Learner.bestGainMargin(d)
            // Brute force: the best gain of the cases from a start where the margin changes (0: none kept).
            var best = 0
            for i in 0..<d.count where i == 0 || d[i].0 != d[i - 1].0 {
                var gain = 0
                for q in i..<d.count { gain += d[q].1 }
                best = max(best, gain)
            }
            if best == 0 {
                XCTAssertTrue(m.isInfinite, "\(d) → \(m)")
                XCTAssertEqual(k, d.count)
            } else {
                var kept = 0
                for q in k..<d.count { kept += d[q].1 }
                XCTAssertEqual(kept, best, "\(d)")
                XCTAssertEqual(d.filter { $0.0 >= Double(m) }.count, d.count - k, "the margin keeps exactly the cases from k")
            }
        }
    }
}
