import AhoCorasick
import Foundation
import TestSupport
import XCTest

/// The serialized image: round trips, subranges, files, and damaged or hostile bytes.
final class SerializationTests: XCTestCase {
    static let haystacks = [
        "she sells sea shells", "HE said: his hers", "ΣΑΣ σας", "aaaa abcd bcd", "ไม่รับเงิน 😀 中文",
    ].map { Array($0.utf8) }

    func automaton(_ engine: EngineChoice, _ kind: MatchKind = .standard, _ folding: CaseFolding = .none) throws
        -> AhoCorasick
    {
        var builder = AhoCorasickBuilder()
        builder.engine = engine
        builder.matchKind = kind
        builder.caseFolding = folding
        return try builder.build([
            Pattern("he"), Pattern("she"), Pattern("his", wholeWord: true), Pattern("hers"), Pattern("σας"),
            Pattern("รับ"), Pattern("bcd"),
        ])
    }

    func testRoundTrip() throws {
        for engine in [EngineChoice.dfa, .nfa, .compact] {
            for kind in [MatchKind.standard, .leftmostFirst, .leftmostLongest] {
                for folding in [CaseFolding.none, .ascii, .unicode] {
                    let original = try automaton(engine, kind, folding)
                    let bytes = original.serialize()
                    let loaded = try AhoCorasick(serialized: MappedBytes(copying: bytes))
                    XCTAssertEqual(loaded.engineKind, original.engineKind)
                    XCTAssertEqual(loaded.matchKind, kind)
                    XCTAssertEqual(loaded.caseFolding, folding)
                    XCTAssertEqual(loaded.patternCount, 7)
                    XCTAssertEqual(loaded.serialize(), bytes)
                    for haystack in Self.haystacks {
                        XCTAssertEqual(loaded.matches(in: haystack), original.matches(in: haystack))
                    }
                }
            }
        }
    }

    func testSubrangeAtAlignedOffset() throws {
        let bytes = try automaton(.dfa).serialize()
        let embedded = [UInt8](repeating: 0xAB, count: 32) + bytes + [1, 2, 3]
        let loaded = try AhoCorasick(serialized: MappedBytes(copying: embedded), range: 32..<(32 + bytes.count))
        XCTAssertEqual(loaded.matches(in: "ushers"), try automaton(.dfa).matches(in: "ushers"))
        XCTAssertThrowsError(try AhoCorasick(serialized: MappedBytes(copying: embedded), range: 4..<(4 + bytes.count))) {
            XCTAssertTrue("\($0)".contains("8-byte aligned"), "\($0)")
        }
        XCTAssertThrowsError(try AhoCorasick(serialized: MappedBytes(copying: embedded), range: 32..<100_000)) {
            XCTAssertTrue("\($0)".contains("outside"), "\($0)")
        }
    }

    func testMappedFile() throws {
        let folder = try Fixtures.temporaryFolder("aho")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("auto.bin").path
        let bytes = try automaton(.nfa).serialize()
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let mapped = try MappedBytes(path: path)
        XCTAssertEqual(mapped.byteCount, bytes.count)
        XCTAssertEqual(mapped.withUnsafeBytes { Array($0) }, bytes, "the mapping holds the file's bytes")
        XCTAssertEqual(MappedBytes(copying: bytes).withUnsafeBytes { Array($0) }, bytes, "the copy holds the bytes")
        let loaded = try AhoCorasick(serialized: mapped)
        XCTAssertEqual(loaded.engineKind, .nfa)
        XCTAssertEqual(loaded.matches(in: "ushers").count, 3)
        XCTAssertThrowsError(try MappedBytes(path: folder.appendingPathComponent("missing").path)) {
            XCTAssertTrue("\($0)".contains("missing"), "error names the path: \($0)")
        }
    }

    func testClearErrors() throws {
        let bytes = try automaton(.dfa).serialize()
        func error(_ mutate: (inout [UInt8]) -> Void) -> String {
            var copy = bytes
            mutate(&copy)
            do {
                _ = try AhoCorasick(serialized: MappedBytes(copying: copy))
                return "loaded"
            } catch { return "\(error)" }
        }
        XCTAssertTrue(error { $0[0] = 0x58 }.contains("bad magic"))
        XCTAssertTrue(error { $0.removeLast(16) }.contains("truncated"))
        XCTAssertTrue(error { $0 = Array($0.prefix(10)) }.contains("truncated"))
        XCTAssertTrue(error { $0[12] = 9 }.contains("version 9"))
        XCTAssertTrue(error { $0[8...11].reverse() }.contains("big-endian"))
        XCTAssertTrue(error { $0[$0.count - 20] ^= 1 }.contains("checksum"))
        XCTAssertTrue(error { _ in }.contains("loaded"))
    }

    /// Every truncation and every single-bit flip is refused or (if the checksum cannot see it) loads an
    /// automaton that finds the same matches; nothing crashes.
    func testEveryTruncationAndBitFlip() throws {
        for engine in [EngineChoice.dfa, .nfa, .compact] {
            var builder = AhoCorasickBuilder()
            builder.engine = engine
            let original = try builder.build(["he", "she", "hers"])
            let bytes = original.serialize()
            let haystack = Array("ushers and he and she".utf8)
            let want = original.matches(in: haystack)
            for length in 0..<bytes.count {
                XCTAssertThrowsError(try AhoCorasick(serialized: MappedBytes(copying: Array(bytes.prefix(length)))))
            }
            var refused = 0
            for bit in 0..<(bytes.count * 8) {
                var copy = bytes
                copy[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
                if let loaded = try? AhoCorasick(serialized: MappedBytes(copying: copy)) {
                    XCTAssertEqual(loaded.matches(in: haystack), want, "bit \(bit) loaded but differs")
                } else {
                    refused += 1
                }
            }
            // Only the 8 checksum bytes are outside the checksum, and flipping one of them is refused too.
            XCTAssertEqual(refused, bytes.count * 8, "\(engine)")
        }
    }

    /// Hostile images with a valid checksum: the checksum is recomputed after damaging a table, so only
    /// the structural checks stand between the bytes and the search loops.
    func testHostileImagesWithValidChecksums() throws {
        for engine in [EngineChoice.dfa, .nfa, .compact] {
            for folding in [CaseFolding.none, .unicode] {
                var builder = AhoCorasickBuilder()
                builder.engine = engine
                builder.caseFolding = folding
                builder.matchKind = .leftmostFirst
                let original = try builder.build(["he", "she", "hers", "σας"])
                let bytes = original.serialize()
                var rng = Fixtures.SeededGenerator(seed: 99)
                var loadedCount = 0
                for position in 96..<bytes.count {
                    for _ in 0..<3 {
                        var copy = bytes
                        copy[position] = UInt8.random(in: 0...255, using: &rng)
                        _TestHooks.reseal(&copy)
                        guard let loaded = try? AhoCorasick(serialized: MappedBytes(copying: copy)) else { continue }
                        loadedCount += 1
                        // Whatever it finds, it must not crash or read out of bounds.
                        for haystack in Self.haystacks + [Array("ΣΑΣ hers she".utf8)] {
                            _ = loaded.matches(in: haystack)
                            var buffer = haystack + haystack
                            let spans = [0..<haystack.count, haystack.count..<buffer.count, 0..<0, 1..<3]
                            buffer.withUnsafeMutableBytes { raw in
                                spans.withUnsafeBufferPointer { s in
                                    loaded.forEachMatch(in: UnsafeRawBufferPointer(raw), spans: s) { _, m in
                                        XCTAssertTrue(m.start >= 0 && m.start <= m.end)
                                    }
                                }
                            }
                        }
                    }
                }
                XCTAssertGreaterThan(loadedCount, 0)
            }
        }
    }
}

/// Recomputes an image's checksum (what a hostile writer would do).
enum _TestHooks {
    static func reseal(_ bytes: inout [UInt8]) {
        guard bytes.count >= 32 else { return }
        let checksum = bytes.withUnsafeBytes { raw in AhoCorasick._checksum(raw) }
        for k in 0..<8 { bytes[24 + k] = UInt8(truncatingIfNeeded: checksum >> (8 * UInt64(k))) }
    }
}
