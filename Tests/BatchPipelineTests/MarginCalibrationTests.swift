import XCTest

@testable import BatchPipeline

/// `Learner.smallestMargin`, the choice behind both the margins and the overrule margins `learn` calibrates
/// (docs/RULES.md §10): the smallest margin at which the held-out decisions at or above it are at least
/// `minimumKept` and reach the precision target.
final class MarginCalibrationTests: XCTestCase {
    func decisions(_ d: [(Double, Bool)]) -> [(Double, Bool)] { d.sorted { $0.0 < $1.0 } }

    func testAllRightKeepsEverything() throws {
        let d = decisions((0..<30).map { (Double($0) / 10, true) })
        let (i, m) = try XCTUnwrap(Learner.smallestMargin(d, precision: 0.98, minimumKept: 20))
        XCTAssertEqual(i, 0)
        XCTAssertEqual(m, 0)
    }

    func testWrongOnesBelowAMarginRaiseIt() throws {
        // Two wrong overrules at small margins, 40 right ones from 0.5 up: the margin is the first right one's.
        let d = decisions([(0.1, false), (0.2, false)] + (0..<40).map { (0.5 + Double($0) / 100, true) })
        let (i, m) = try XCTUnwrap(Learner.smallestMargin(d, precision: 0.98, minimumKept: 20))
        XCTAssertEqual(i, 2)
        XCTAssertEqual(m, 0.5)
        // 1 wrong in 60 reaches 0.98: kept from 0.
        let one = decisions([(0.1, false)] + (0..<59).map { (0.2 + Double($0) / 100, true) })
        XCTAssertEqual(Learner.smallestMargin(one, precision: 0.98, minimumKept: 20)?.0, 0)
        // Ties: the margin is taken at the first of the decisions that share it, never inside a tie.
        let tied = decisions([(0.25, false), (0.25, true), (0.25, true)] + (0..<30).map { (0.5 + Double($0) / 64, true) })
        XCTAssertEqual(Learner.smallestMargin(tied, precision: 0.98, minimumKept: 20)?.1, 0.5)
    }

    func testTooFewOrNeverPreciseIsNil() {
        // Precise, but fewer than the minimum kept.
        XCTAssertNil(Learner.smallestMargin(decisions((0..<19).map { (Double($0), true) }), precision: 0.98, minimumKept: 20))
        // Enough cases, but the precise ones above the wrong ones are too few.
        let d = decisions((0..<30).map { (Double($0), $0 >= 15) })
        XCTAssertNil(Learner.smallestMargin(d, precision: 0.98, minimumKept: 20))
        XCTAssertEqual(Learner.smallestMargin(d, precision: 0.98, minimumKept: 15)?.1, 15)
        // Never precise.
        XCTAssertNil(Learner.smallestMargin(decisions((0..<40).map { (Double($0), $0 % 2 == 0) }), precision: 0.98, minimumKept: 1))
        XCTAssertNil(Learner.smallestMargin([], precision: 0.98, minimumKept: 1))
    }

    /// The margin is stored as a Float no larger than the margin it stands for, so the decision it was taken at
    /// is kept by the classifier.
    func testTheFloatMarginNeverExceedsTheDecisions() throws {
        let x = 0.1 + 1e-12
        let d = decisions([(0.05, false)] + (0..<25).map { (x + Double($0), true) })
        let (_, m) = try XCTUnwrap(Learner.smallestMargin(d, precision: 0.98, minimumKept: 20))
        XCTAssertLessThanOrEqual(Double(m), x)
        XCTAssertGreaterThan(Double(m.nextUp), x)
    }
}
