import XCTest

@testable import BatchPipeline

/// `_countNewlines`, the reader's line count for every chunk (32 bytes at a time, lanes summed every 255
/// steps), against counting byte by byte: every density of newlines (including all newlines, where a lane
/// reaches 255), every start and end alignment, and spans longer than one 255-step block.
final class LineCountTests: XCTestCase {
    func testCountsEveryNewlineAtEveryAlignment() {
        var rng = _SplitMix(seed: 23)
        for density in [1, 2, 3, 17, 240, 100_000] {
            for length in [0, 1, 7, 8, 31, 32, 33, 63, 64, 255 * 32 - 1, 255 * 32, 255 * 32 + 1, 3 * 255 * 32 + 77, 70_000] {
                let bytes = (0..<length).map { _ in rng.next() % UInt64(density) == 0 ? UInt8(0x0A) : UInt8(truncatingIfNeeded: rng.next() | 1) }
                bytes.withUnsafeBytes { b in
                    for (from, to) in [(0, length), (min(1, length), length), (min(3, length), max(min(3, length), length - 5))] {
                        let want = b[from..<to].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                        XCTAssertEqual(_countNewlines(b, from: from, to: to), want, "density \(density), \(from)..<\(to)")
                    }
                }
            }
        }
    }
}
