import XCTest
@testable import MessageFilter

// The normaliser's memory (`_NormalizerMemory`) and output checked by their invariants (`_invariantProblem`,
// which `_checkInvariants` traps on after every body under MESSAGEFILTER_INTERNAL_CHECKS): sound output
// passes, and each kind of damage the classifier's unchecked reads of the spans would suffer from is named.

final class NormalizerInvariantTests: XCTestCase {
    static let texts = ["ｆｒｅｅ  ｐｒｉｚｅ", "l.o.t.t.e.r.y w1n", "a\u{202E}bc\u{202C}d", "สวัสดี\u{A0}คำ", "e\u{301}\u{336}\u{FDFA}", "\u{FF}"]

    func testSoundOutputPasses() {
        // A small capacity: every step grows its buffers on the way.
        let n = _TextNormalizer(capacity: 1)
        for mode in TextNormalization.allCases {
            for text in Self.texts {
                let bytes = Array(text.utf8)
                let range = bytes.withUnsafeBytes { n.append($0, mode: mode) }
                XCTAssertNil(n._invariantProblem(appended: range, bodyCount: bytes.count), "\(mode) \(text)")
            }
        }
        XCTAssertGreaterThan(n.count, 100)
    }

    func testDamagedSpansAreNamed() throws {
        let n = _TextNormalizer()
        let bytes = Array("ｆｒｅｅ prize".utf8)
        let range = bytes.withUnsafeBytes { n.append($0, mode: .standard) }
        XCTAssertEqual(range, 0..<10)
        /// Sets output byte `i`'s source span to `start..<end`, runs the check, and puts the span back.
        func damage(_ i: Int, start: Int32? = nil, end: Int32? = nil) -> String? {
            n.withOutput { _, starts, ends in
                let s = UnsafeMutablePointer(mutating: starts.baseAddress!) + i
                let e = UnsafeMutablePointer(mutating: ends.baseAddress!) + i
                let old = (s.pointee, e.pointee)
                s.pointee = start ?? old.0
                e.pointee = end ?? old.1
                defer { (s.pointee, e.pointee) = old }
                return n._invariantProblem(appended: range, bodyCount: bytes.count)
            }
        }
        XCTAssertNil(damage(0))
        XCTAssertEqual(damage(1, start: -1)?.contains("output byte 1 has source span -1..<6"), true)
        XCTAssertEqual(damage(2, start: 7, end: 6)?.contains("output byte 2 has source span 7..<6"), true)
        XCTAssertEqual(damage(9, end: Int32(bytes.count + 1))?.contains("in a body of \(bytes.count) bytes"), true)
        // A range that does not end the output.
        XCTAssertEqual(n._invariantProblem(appended: 0..<3, bodyCount: bytes.count)?.contains("not the output's end"), true)
        // Every damage undone.
        XCTAssertNil(n._invariantProblem(appended: range, bodyCount: bytes.count))
    }

    func testMemoryCountsBeyondItsRoomAreNamed() {
        let m = _NormalizerMemory(capacity: 5)
        XCTAssertNil(m._invariantProblem(scalarCount: 5, byteCount: 5))
        XCTAssertEqual(m._invariantProblem(scalarCount: 6, byteCount: 0), "normalizer memory: 6 scalars written in room for 5")
        XCTAssertEqual(m._invariantProblem(scalarCount: 0, byteCount: 6), "normalizer memory: 6 bytes written in room for 5")
        XCTAssertEqual(m._invariantProblem(scalarCount: -1, byteCount: 0), "normalizer memory: -1 scalars written in room for 5")
    }

    /// Growth doubles until the need fits and keeps what was written, in each column (the output's span
    /// columns start after the bytes, at a multiple of 4: 5 bytes, then 160).
    func testGrowthKeepsEachColumn() {
        var m = _NormalizerMemory(capacity: 5)
        m.sink(count: 0, flags: _ScalarFlags.shared).withCopy { $0.put(0x41, 7, 8); $0.put(0xE9, 9, 11) }
        m.scalars.put(0, 0x42, 3, 4)
        m.reserveBytes(100, keeping: 3)
        XCTAssertEqual(m.byteCapacity, 160)
        let (text, starts, ends) = m.output(count: 3)
        XCTAssertEqual(Array(text), [0x41, 0xC3, 0xA9])
        XCTAssertEqual(Array(starts), [7, 9, 9])
        XCTAssertEqual(Array(ends), [8, 11, 11])
        m.reserveScalars(6, keeping: 1)
        XCTAssertEqual(m.scalarCapacity, 10)
        let c = m.scalars
        XCTAssertEqual([c.value[0], UInt32(c.start[0]), UInt32(c.end[0])], [0x42, 3, 4])
        XCTAssertNil(m._invariantProblem(scalarCount: 10, byteCount: 160))
    }
}

extension _ByteSink {
    /// Runs `write` on a copy of this sink (the test's writes through a borrowed sink).
    func withCopy(_ write: (inout _ByteSink) -> Void) {
        var copy = self
        write(&copy)
    }
}
