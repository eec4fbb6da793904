import AhoCorasick
import TestSupport
import XCTest
@testable import MessageFilter

/// `_PhraseMatcher` scans a body with a byte ≥ 0x80 with one automaton over every phrase (issue 23 item 2):
/// every match of every phrase, ASCII or not, must still be reported, by the single and the batch scan, built
/// or loaded, and the same as the two-pass scheme (wide phrases only in the wide automaton) and a naive search.
final class PhraseMatcherTests: XCTestCase {
    let phrases = ["otp", "code", "sale", "โปรโมชั่น", "ฟรี", "优惠", "验证码", "free", "ok", "é", "café", "码 otp"]
    let words = ["otp", "OTP", "code", "Sale", "โปรโมชั่น", "ฟรี", "优惠", "验证码", "FREE", "ok", "café", "é", "码",
                 " ", " ", "x", "1234", "ำ", "。"]

    /// Every (phrase, start, end) where the phrase occurs, ASCII letters compared caselessly.
    func naive(_ body: [UInt8], _ patterns: [[UInt8]]) -> [[Int]] {
        func lower(_ b: UInt8) -> UInt8 { (0x41...0x5A).contains(b) ? b | 0x20 : b }
        var out: [[Int]] = []
        for (p, pattern) in patterns.enumerated() where pattern.count <= body.count {
            for s in 0...(body.count - pattern.count)
            where (0..<pattern.count).allSatisfy({ lower(body[s + $0]) == lower(pattern[$0]) }) {
                out.append([p, s, s + pattern.count])
            }
        }
        return out.sorted { $0.lexicographicallyPrecedes($1) }
    }

    func single(_ m: _PhraseMatcher, _ body: [UInt8]) -> [[Int]] {
        var out: [[Int]] = []
        body.withUnsafeBytes { b in m.forEachMatch(in: b) { out.append([$0, $1, $2]) } }
        return out.sorted { $0.lexicographicallyPrecedes($1) }
    }

    func batch(_ m: _PhraseMatcher, _ bodies: [[UInt8]]) -> [[[Int]]] {
        var buffer: [UInt8] = [0x7B]
        var spans: [Range<Int>] = []
        for body in bodies {
            spans.append(buffer.count..<(buffer.count + body.count))
            buffer += body + [0x0A]
        }
        var out = [[[Int]]](repeating: [], count: bodies.count)
        buffer.withUnsafeBytes { b in
            spans.withUnsafeBufferPointer { s in m.forEachMatch(in: b, spans: s) { out[$0].append([$1, $2, $3]) } }
        }
        return out.map { $0.sorted { $0.lexicographicallyPrecedes($1) } }
    }

    func testOnePassReportsWhatTwoPassesAndANaiveSearchReport() throws {
        let patterns = phrases.map { Array($0.utf8) }
        let flags = [Bool](repeating: false, count: patterns.count)
        let combined = try _PhraseMatcher(patterns: patterns, wholeWord: flags, folding: .ascii)
        let twoPass = try _PhraseMatcher(patterns: patterns, wholeWord: flags, folding: .ascii, combine: false)
        XCTAssertTrue(combined.wideCoversAll)
        XCTAssertFalse(twoPass.wideCoversAll)
        XCTAssertEqual(combined.wide?.patternCount, patterns.count)
        let loaded = try _PhraseMatcher(serialized: MappedBytes(copying: combined.serialize()),
                                        range: 0..<combined.serialize().count, folding: .ascii)
        let loadedTwoPass = try _PhraseMatcher(serialized: MappedBytes(copying: twoPass.serialize()),
                                               range: 0..<twoPass.serialize().count, folding: .ascii)
        XCTAssertTrue(loaded.wideCoversAll)
        XCTAssertFalse(loadedTwoPass.wideCoversAll)

        var rng = SystemRandomNumberGenerator()
        var bodies: [[UInt8]] = [[], Array("otp code".utf8), Array("ฟรีotpฟรี".utf8), Array("码 OTP 优惠".utf8)]
        for _ in 0..<300 {
            bodies.append(Array((0..<Int.random(in: 0...12, using: &rng)).map { _ in words.randomElement(using: &rng)! }.joined().utf8))
        }
        var high = 0
        for body in bodies {
            let expected = naive(body, patterns)
            if body.contains(where: { $0 >= 0x80 }) { high += 1 }
            for m in [combined, twoPass, loaded, loadedTwoPass] {
                XCTAssertEqual(single(m, body), expected, String(decoding: body, as: UTF8.self))
            }
        }
        XCTAssertGreaterThan(high, 100)
        XCTAssertLessThan(high, bodies.count - 10)
        let expected = bodies.map { naive($0, patterns) }
        for m in [combined, twoPass, loaded, loadedTwoPass] {
            XCTAssertEqual(batch(m, bodies), expected)
            XCTAssertEqual(batch(m, []), [])
        }
    }

    func testOnlyOneKindOfPhraseBuildsNoCombinedAutomaton() throws {
        for list in [["otp", "sale"], ["ฟรี", "优惠"]] {
            let patterns = list.map { Array($0.utf8) }
            let m = try _PhraseMatcher(patterns: patterns, wholeWord: [false, false], folding: .ascii)
            XCTAssertFalse(m.wideCoversAll)
            let body = Array("ฟรี otp 优惠 SALE".utf8)
            XCTAssertEqual(single(m, body), naive(body, patterns))
            XCTAssertEqual(batch(m, [body, Array("sale".utf8)]), [naive(body, patterns), naive(Array("sale".utf8), patterns)])
        }
    }

    func testUnknownFlagsAreRefused() throws {
        let patterns = phrases.map { Array($0.utf8) }
        let m = try _PhraseMatcher(patterns: patterns, wholeWord: [Bool](repeating: false, count: patterns.count), folding: .ascii)
        var bytes = m.serialize()
        XCTAssertEqual(bytes[12], 1)
        bytes[12] = 2
        XCTAssertThrowsError(try _PhraseMatcher(serialized: MappedBytes(copying: bytes), range: 0..<bytes.count, folding: .ascii))
        // The flag without the wide phrases' automaton covering the narrow ones: the pattern count check refuses it.
        let two = try _PhraseMatcher(patterns: patterns, wholeWord: [Bool](repeating: false, count: patterns.count),
                                     folding: .ascii, combine: false)
        var old = two.serialize()
        old[12] = 1
        XCTAssertThrowsError(try _PhraseMatcher(serialized: MappedBytes(copying: old), range: 0..<old.count, folding: .ascii))
    }

    struct Collect: _PhraseSink {
        var out: [[[Int]]]
        mutating func found(span: Int, pattern: Int, start: Int, end: Int) { out[span].append([pattern, start, end]) }
    }

    /// The bulk scan (`forEachMatchBulk`, the automata's match positions expanded through `_MatchStateTable`) reports
    /// per body exactly what `forEachMatch(in:spans:)` reports, in the same order (the classifier's matches keep
    /// their order), whole-word phrases included; built and loaded, one pass and two.
    func testBulkScanReportsWhatTheBatchScanReportsInItsOrder() throws {
        let patterns = phrases.map { Array($0.utf8) } + [Array("ok".utf8), Array("码".utf8)]
        var flags = [Bool](repeating: false, count: patterns.count)
        flags[patterns.count - 2] = true
        flags[patterns.count - 1] = true
        let combined = try _PhraseMatcher(patterns: patterns, wholeWord: flags, folding: .ascii)
        let twoPass = try _PhraseMatcher(patterns: patterns, wholeWord: flags, folding: .ascii, combine: false)
        let loaded = try _PhraseMatcher(serialized: MappedBytes(copying: combined.serialize()),
                                        range: 0..<combined.serialize().count, folding: .ascii)
        let narrowOnly = try _PhraseMatcher(patterns: [Array("otp".utf8), Array("ok".utf8)], wholeWord: [false, true], folding: .ascii)
        var rng = Fixtures.SeededGenerator(seed: 0xB01C)
        var bodies: [[UInt8]] = [[], Array("ok otp ok码 码".utf8), Array(String(repeating: "otp ok ", count: 400).utf8)]
        for _ in 0..<300 {
            bodies.append(Array((0..<Int.random(in: 0...12, using: &rng)).map { _ in words.randomElement(using: &rng)! }.joined().utf8))
        }
        var buffer: [UInt8] = [0x7B]
        var spans: [Range<Int>] = []
        for body in bodies {
            spans.append(buffer.count..<(buffer.count + body.count))
            buffer += body + [0x0A]
        }
        let positions = UnsafeMutableBufferPointer<MatchStatePosition>.allocate(capacity: 64)
        defer { positions.deallocate() }
        var total = 0
        for m in [combined, twoPass, loaded, narrowOnly] {
            XCTAssertNotNil(m.narrowStates)
            var expected = [[[Int]]](repeating: [], count: bodies.count)
            var sink = Collect(out: expected)
            buffer.withUnsafeBytes { b in
                spans.withUnsafeBufferPointer { s in
                    m.forEachMatch(in: b, spans: s) { expected[$0].append([$1, $2, $3]) }
                    m.forEachMatchBulk(in: b, spans: s, positions: positions, &sink)
                }
            }
            XCTAssertEqual(sink.out, expected)
            total += expected.joined().count
        }
        XCTAssertGreaterThan(total, 3000)
        // The whole-word copy of "ok" (pattern count − 2) is reported where "ok" stands alone, not inside "okotp".
        let body = Array("okotp ok".utf8)
        var sink = Collect(out: [[]])
        body.withUnsafeBytes { b in
            [0..<body.count].withUnsafeBufferPointer { s in combined.forEachMatchBulk(in: b, spans: s, positions: positions, &sink) }
        }
        let whole = patterns.count - 2
        XCTAssertTrue(sink.out[0].contains([whole, 6, 8]))
        XCTAssertFalse(sink.out[0].contains([whole, 0, 2]))
        XCTAssertTrue(sink.out[0].contains([patterns.firstIndex(of: Array("ok".utf8))!, 0, 2]))
    }
}
