import AhoCorasick
import Foundation
import TestSupport
import XCTest

/// Options one by one: case folding, whole words, builder errors, engine choice, early stop, batches.
final class BehaviourTests: XCTestCase {
    func build(
        _ patterns: [Pattern], kind: MatchKind = .standard, folding: CaseFolding = .none, wholeWord: Bool = false,
        engine: EngineChoice = .auto
    ) throws -> AhoCorasick {
        var builder = AhoCorasickBuilder()
        builder.matchKind = kind
        builder.caseFolding = folding
        builder.wholeWord = wholeWord
        builder.engine = engine
        return try builder.build(patterns)
    }

    /// The same, on one of `EngineUnderTest.allCases` (every engine, built and loaded).
    func build(
        _ patterns: [Pattern], kind: MatchKind = .standard, folding: CaseFolding = .none, wholeWord: Bool = false,
        engine: EngineUnderTest
    ) throws -> AhoCorasick {
        var builder = AhoCorasickBuilder()
        builder.matchKind = kind
        builder.caseFolding = folding
        builder.wholeWord = wholeWord
        return try engine.build(builder, patterns)
    }

    func spans(_ ac: AhoCorasick, _ haystack: String) -> [String] {
        let bytes = Array(haystack.utf8)
        return ac.matches(in: haystack).map { String(decoding: bytes[$0.start..<$0.end], as: UTF8.self) }
    }

    // MARK: Case folding

    func testASCIIFolding() throws {
        for engine in EngineUnderTest.allCases {
            let ac = try build([Pattern("Debited"), Pattern("OTP")], folding: .ascii, engine: engine)
            XCTAssertEqual(spans(ac, "DEBITED otp dEbItEd Otp"), ["DEBITED", "otp", "dEbItEd", "Otp"])
            // ASCII folding leaves non-ASCII letters alone.
            let greek = try build([Pattern("σας")], folding: .ascii, engine: engine)
            XCTAssertEqual(greek.matches(in: "ΣΑΣ"), [])
            let none = try build([Pattern("otp")], folding: .none, engine: engine)
            XCTAssertEqual(spans(none, "OTP otp"), ["otp"])
        }
    }

    func testUnicodeSimpleFolding() throws {
        for engine in EngineUnderTest.allCases {
            let greek = try build([Pattern("σας")], folding: .unicode, engine: engine)
            XCTAssertEqual(spans(greek, "ΣΑΣ και σας και ΣΑς"), ["ΣΑΣ", "σας", "ΣΑς"])
            let cyrillic = try build([Pattern("привет")], folding: .unicode, engine: engine)
            XCTAssertEqual(spans(cyrillic, "ПРИВЕТ, Привет!"), ["ПРИВЕТ", "Привет"])
            let latin1 = try build([Pattern("été")], folding: .unicode, engine: engine)
            XCTAssertEqual(spans(latin1, "ÉTÉ Été"), ["ÉTÉ", "Été"])
            // The Kelvin sign (3 bytes) folds to k (1 byte): the span is the original's.
            let kelvin = try build([Pattern("5k")], folding: .unicode, engine: engine)
            XCTAssertEqual(kelvin.matches(in: "5\u{212A}"), [Match(pattern: 0, start: 0, end: 4)])
            // Full folding (ß → ss) is not simple folding.
            let strasse = try build([Pattern("straße")], folding: .unicode, engine: engine)
            XCTAssertEqual(strasse.matches(in: "STRASSE"), [])
            XCTAssertEqual(spans(strasse, "STRAẞE Straße"), ["STRAẞE", "Straße"])
            // Dotless ı has no simple fold.
            let i = try build([Pattern("i")], folding: .unicode, engine: engine)
            XCTAssertEqual(spans(i, "ı I i"), ["I", "i"])
        }
    }

    func testUnicodeFoldingOffsetsPointIntoTheOriginal() throws {
        let ac = try build([Pattern("σ"), Pattern("ab")], folding: .unicode)
        let text = "xΣyAB"
        XCTAssertEqual(ac.matches(in: text), [Match(pattern: 0, start: 1, end: 3), Match(pattern: 1, start: 4, end: 6)])
    }

    func testUnicodeFoldingRefusesInvalidUTF8() {
        XCTAssertThrowsError(try build([Pattern([0x61, 0xFF])], folding: .unicode)) { error in
            XCTAssertTrue("\(error)".contains("pattern 0 is not valid UTF-8"), "\(error)")
        }
        XCTAssertNoThrow(try build([Pattern([0x61, 0xFF])], folding: .ascii))
    }

    // MARK: Whole words

    func testWholeWord() throws {
        for kind in [MatchKind.standard, .leftmostFirst, .leftmostLongest] {
            for engine in EngineUnderTest.allCases {
                let ac = try build([Pattern("free", wholeWord: true)], kind: kind, engine: engine)
                XCTAssertEqual(spans(ac, "free freedom carefree free. (free) free2 éfree free"), ["free", "free", "free", "free"])
                // Accented letters, digits and combining marks are word characters.
                XCTAssertEqual(ac.matches(in: "freeé"), [])
                XCTAssertEqual(ac.matches(in: "9free"), [])
                XCTAssertEqual(ac.matches(in: "free\u{301}"), [])
                // Emoji and punctuation are not.
                XCTAssertEqual(spans(ac, "😀free😀"), ["free"])
            }
        }
    }

    func testWholeWordPerPatternAndGlobal() throws {
        let ac = try build([Pattern("cat", wholeWord: true), Pattern("dog")])
        XCTAssertEqual(spans(ac, "cats dogs cat"), ["dog", "cat"])
        let global = try build([Pattern("cat"), Pattern("dog")], wholeWord: true)
        XCTAssertEqual(spans(global, "cats dogs cat dog"), ["cat", "dog"])
    }

    func testWholeWordStandardRejectHidesNothing() throws {
        // "ab" at 0 is rejected (followed by c); the overlapping "abc" and the later "ab" are still found.
        let ac = try build([Pattern("ab", wholeWord: true), Pattern("abc", wholeWord: true)])
        XCTAssertEqual(ac.matches(in: "abc ab"), [Match(pattern: 1, start: 0, end: 3), Match(pattern: 0, start: 4, end: 6)])
    }

    func testWholeWordNeverMatchesInsideThaiSentences() throws {
        // Thai has no spaces between words: a keyword inside a sentence touches letters on both sides.
        let ac = try build([Pattern("รับ", wholeWord: true)])
        XCTAssertEqual(ac.matches(in: "ไม่รับเงิน"), [])
        XCTAssertEqual(spans(ac, "รับ"), ["รับ"])
        let plain = try build([Pattern("รับ")])
        XCTAssertEqual(spans(plain, "ไม่รับเงิน"), ["รับ"])
    }

    // MARK: Builder

    func testEmptyPatternIsRefused() {
        XCTAssertThrowsError(try build([Pattern("a"), Pattern("")])) { error in
            XCTAssertEqual("\(error)", "pattern 1 is empty (empty patterns are not supported)")
        }
    }

    func testEngineChoice() throws {
        XCTAssertEqual(try build([Pattern("a")]).engineKind, .dfa)
        XCTAssertEqual(try build([Pattern("a")], engine: EngineChoice.nfa).engineKind, .nfa)
        var builder = AhoCorasickBuilder()
        builder.dfaSizeLimit = 1024
        let big = try builder.build((0..<200).map { "keyword\($0)" })
        XCTAssertEqual(big.engineKind, .nfa)
        XCTAssertEqual(big.patternCount, 200)
        XCTAssertEqual(big.matches(in: "xx keyword17 yy").map(\.pattern), [1, 17])
        // Past `denseAutoLimit` the compact DFA, and it is a fraction of the dense one's size.
        var rng = Fixtures.SeededGenerator(seed: 0xC0A7)
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let words = (0..<3000).map { _ in String((0..<Int.random(in: 4...9, using: &rng)).map { _ in letters.randomElement(using: &rng)! }) }
        let auto = try AhoCorasickBuilder().build(words)
        XCTAssertEqual(auto.engineKind, .compact, auto.engineDescription)
        var dense = AhoCorasickBuilder()
        dense.engine = .dfa
        let denseAutomaton = try dense.build(words)
        XCTAssertGreaterThan(denseAutomaton.stateCount * denseAutomaton.byteClassCount * 2, AhoCorasickBuilder().denseAutoLimit)
        XCTAssertLessThan(auto.memoryUsage * 4, denseAutomaton.memoryUsage, "\(auto.engineDescription) vs \(denseAutomaton.engineDescription)")
        XCTAssertEqual(auto.stateIDBits, 16)
        // The prefilter is there for small sets and not for Unicode folding or many prefixes.
        XCTAssertTrue(try build([Pattern("debited"), Pattern("otp")]).hasPrefilter)
        XCTAssertFalse(try build([Pattern("debited")], folding: .unicode).hasPrefilter)
        XCTAssertFalse(auto.hasPrefilter)
    }

    func testNoPatterns() throws {
        let ac = try build([])
        XCTAssertEqual(ac.matches(in: "anything"), [])
        XCTAssertEqual(ac.patternCount, 0)
    }

    func testManyPatternsAllFound() throws {
        let words = (0..<3000).map { "w\($0)x" }
        for engine in EngineUnderTest.allCases {
            let ac = try build(words.map { Pattern($0) }, engine: engine)
            let text = words.joined(separator: " ")
            let found = ac.matches(in: text)
            XCTAssertEqual(found.map(\.pattern), Array(0..<3000), "\(engine)")
        }
    }

    // MARK: Searching

    func testStopEarlyAndIsMatch() throws {
        let ac = try build([Pattern("a")])
        var seen = 0
        Array("aaaa".utf8).withUnsafeBytes { raw in
            ac.forEachMatch(in: raw) { _ in
                seen += 1
                return seen < 2
            }
            XCTAssertTrue(ac.isMatch(in: raw))
        }
        XCTAssertEqual(seen, 2)
        Array("bbb".utf8).withUnsafeBytes { XCTAssertFalse(ac.isMatch(in: $0)) }
        XCTAssertFalse(ac.isMatch(in: UnsafeRawBufferPointer(start: nil, count: 0)))
    }

    func testBuilderDocumentationExample() throws {
        var builder = AhoCorasickBuilder()
        builder.matchKind = .leftmostFirst
        builder.caseFolding = .ascii
        let ac = try builder.build([Pattern("debited"), Pattern("txn of"), Pattern("a/c", wholeWord: true)])
        XCTAssertEqual(ac.matches(in: "Your A/C was DEBITED").map(\.description), ["(2, 5..<8)", "(0, 13..<20)"])
    }

    func testMatchKindDocumentationExample() throws {
        let patterns = [Pattern("abcd"), Pattern("b"), Pattern("bcd")]
        XCTAssertEqual(try build(patterns, kind: .standard).matches(in: "abcd").map(\.description), ["(1, 1..<2)", "(0, 0..<4)", "(2, 1..<4)"])
        XCTAssertEqual(try build(patterns, kind: .leftmostFirst).matches(in: "abcd").map(\.description), ["(0, 0..<4)"])
        XCTAssertEqual(try build(patterns, kind: .leftmostLongest).matches(in: "abcd").map(\.description), ["(0, 0..<4)"])
    }

    // MARK: Batches

    /// A DFA past the eight-lane threshold (more than 2^18 transitions), batch against single scans.
    func testBatchEqualsSingleWithALargeDFA() throws {
        var rng = Fixtures.SeededGenerator(seed: 0x8A4E)
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let words = (0..<4000).map { _ in String((0..<Int.random(in: 4...9, using: &rng)).map { _ in letters.randomElement(using: &rng)! }) }
        var builder = AhoCorasickBuilder()
        builder.engine = .dfa
        builder.caseFolding = .ascii
        let ac = try builder.build(words)
        XCTAssertGreaterThan(ac.stateCount * ac.byteClassCount, 1 << 18)
        var buffer: [UInt8] = []
        var spans: [Range<Int>] = []
        for _ in 0..<300 {
            var body = ""
            for _ in 0..<Int.random(in: 0...25, using: &rng) {
                body += Int.random(in: 0..<3, using: &rng) == 0 ? words.randomElement(using: &rng)!.uppercased() : String(letters.randomElement(using: &rng)!)
                body += Int.random(in: 0..<2, using: &rng) == 0 ? " " : ""
            }
            spans.append(buffer.count..<buffer.count + body.utf8.count)
            buffer.append(contentsOf: Array(body.utf8))
        }
        var batch = [[Match]](repeating: [], count: spans.count)
        buffer.withUnsafeBytes { raw in
            spans.withUnsafeBufferPointer { spanBuffer in
                ac.forEachMatch(in: raw, spans: spanBuffer) { k, match in batch[k].append(match) }
            }
        }
        var total = 0
        for (k, span) in spans.enumerated() {
            let single = ac.matches(in: Array(buffer[span]))
            total += single.count
            XCTAssertEqual(batch[k], single, "span \(k)")
        }
        XCTAssertGreaterThan(total, 300)
    }

    func testBatchEqualsSingle() throws {
        var rng = Fixtures.SeededGenerator(seed: 0xBA7C)
        for round in 0..<40 {
            let patterns = (0..<Int.random(in: 1...12, using: &rng)).map { _ in
                Pattern(PropertyTests.randomText(&rng, pieces: Int.random(in: 1...2, using: &rng)),
                        wholeWord: Int.random(in: 0..<5, using: &rng) == 0)
            }
            // Spans of varied lengths, some empty, in one buffer with gaps, not in buffer order.
            var buffer: [UInt8] = []
            var spans: [Range<Int>] = []
            for _ in 0..<Int.random(in: 0...30, using: &rng) {
                buffer.append(contentsOf: Array("#".utf8))
                let body = Array(PropertyTests.randomText(&rng, pieces: Int.random(in: 0...60, using: &rng)).utf8)
                spans.append(buffer.count..<buffer.count + body.count)
                buffer.append(contentsOf: body)
            }
            spans.shuffle(using: &rng)
            for kind in [MatchKind.standard, .leftmostFirst, .leftmostLongest] {
                for folding in [CaseFolding.none, .ascii, .unicode] {
                    for engine in EngineUnderTest.allCases {
                        var builder = AhoCorasickBuilder()
                        builder.matchKind = kind
                        builder.caseFolding = folding
                        let ac = try engine.build(builder, patterns)
                        var batch = [[Match]](repeating: [], count: spans.count)
                        buffer.withUnsafeBytes { raw in
                            spans.withUnsafeBufferPointer { spanBuffer in
                                ac.forEachMatch(in: raw, spans: spanBuffer) { k, match in batch[k].append(match) }
                            }
                        }
                        for (k, span) in spans.enumerated() {
                            let single = ac.matches(in: Array(buffer[span]))
                            XCTAssertEqual(batch[k], single, "round \(round) \(kind) \(folding) \(engine) span \(k)")
                        }
                    }
                }
            }
        }
    }

    /// The bulk batch scan (`forEachMatchState`): its positions, expanded through `patterns(inMatchState:)`,
    /// `patternLength` and the whole-word test, are exactly the matches `forEachMatch` reports for each span
    /// alone, in the same order (which the other tests hold against the naive matcher), for every engine, with
    /// and without ASCII folding; spans with more positions than one handing-over (64 or 100 here) included.
    func testBatchStatesExpandToTheMatchesOfSingleScans() throws {
        var rng = Fixtures.SeededGenerator(seed: 0x57A7)
        let scratch = UnsafeMutableBufferPointer<MatchStatePosition>.allocate(capacity: 100)
        defer { scratch.deallocate() }
        var expanded = 0
        var handed = 0
        for round in 0..<30 {
            let patterns = (0..<Int.random(in: 1...12, using: &rng)).map { _ in
                Pattern(PropertyTests.randomText(&rng, pieces: Int.random(in: 1...2, using: &rng)),
                        wholeWord: Int.random(in: 0..<4, using: &rng) == 0)
            }
            var buffer: [UInt8] = []
            var spans: [Range<Int>] = []
            for k in 0..<Int.random(in: 0...30, using: &rng) {
                buffer.append(contentsOf: Array("#".utf8))
                // One long span per round past the first: more positions than one call of the closure takes.
                let pieces = k == 0 && round > 0 ? 2_000 : Int.random(in: 0...60, using: &rng)
                let body = Array(PropertyTests.randomText(&rng, pieces: pieces).utf8)
                spans.append(buffer.count..<buffer.count + body.count)
                buffer.append(contentsOf: body)
            }
            spans.shuffle(using: &rng)
            for folding in [CaseFolding.none, .ascii] {
                for engine in EngineUnderTest.allCases {
                    var builder = AhoCorasickBuilder()
                    builder.caseFolding = folding
                    let ac = try engine.build(builder, patterns)
                    let scratch = UnsafeMutableBufferPointer(rebasing: scratch[0..<(round % 2 == 0 ? 64 : 100)])
                    var batch = [[Match]](repeating: [], count: spans.count)
                    buffer.withUnsafeBytes { raw in
                        spans.withUnsafeBufferPointer { spanBuffer in
                            ac.forEachMatchState(in: raw, spans: spanBuffer, positions: scratch) { positions in
                                XCTAssertGreaterThan(positions.count, 0)
                                XCTAssertLessThanOrEqual(positions.count, scratch.count)
                                handed += 1
                                for position in positions {
                                    let k = Int(position.span)
                                    let text = UnsafeRawBufferPointer(rebasing: raw[spanBuffer[k]])
                                    for pattern in ac.patterns(inMatchState: Int(position.state)) {
                                        let start = position.end - ac.patternLength(pattern)
                                        if ac.isWholeWord(pattern: pattern),
                                           !AhoCorasick.wholeWordHolds(in: text, start: start, end: position.end) { continue }
                                        batch[k].append(Match(pattern: pattern, start: start, end: position.end))
                                    }
                                }
                            }
                        }
                    }
                    for (k, span) in spans.enumerated() {
                        let single = ac.matches(in: Array(buffer[span]))
                        expanded += single.count
                        XCTAssertEqual(batch[k], single, "round \(round) \(folding) \(engine) span \(k)")
                    }
                }
            }
        }
        XCTAssertGreaterThan(expanded, 10_000)
        XCTAssertGreaterThan(handed, 100)
    }

    func testPatternLengthsAndWholeWordFlags() throws {
        let ac = try build([Pattern("ab"), Pattern("ßx", wholeWord: true), Pattern("c")], kind: .standard)
        XCTAssertEqual((0..<3).map(ac.patternLength), [2, 3, 1])
        XCTAssertEqual((0..<3).map { ac.isWholeWord(pattern: $0) }, [false, true, false])
        for (text, start, end, holds) in [("a ab b", 2, 4, true), ("aab", 1, 3, false), ("ab1", 0, 2, false), ("éab", 2, 4, false),
                                          ("ab", 0, 2, true), ("-ab.", 1, 3, true)] {
            let bytes = Array(text.utf8)
            bytes.withUnsafeBytes { raw in
                XCTAssertEqual(AhoCorasick.wholeWordHolds(in: raw, start: start, end: end), holds, text)
            }
        }
    }
}
