import AhoCorasick
import TestSupport
import XCTest

/// One search case: patterns, a haystack, and the matches as (pattern, start, end).
struct SearchTest {
    let name: String
    let patterns: [String]
    let haystack: String
    let matches: [(Int, Int, Int)]

    init(_ name: String, _ patterns: [String], _ haystack: String, _ matches: [(Int, Int, Int)]) {
        self.name = name
        self.patterns = patterns
        self.haystack = haystack
        self.matches = matches
    }
}

/// Cases every match kind agrees on (no two matches overlap).
let basicTests: [SearchTest] = [
    SearchTest("basic000", ["a"], "", []),
    SearchTest("basic010", ["a"], "a", [(0, 0, 1)]),
    SearchTest("basic020", ["a"], "aa", [(0, 0, 1), (0, 1, 2)]),
    SearchTest("basic030", ["a"], "aaa", [(0, 0, 1), (0, 1, 2), (0, 2, 3)]),
    SearchTest("basic040", ["a"], "aba", [(0, 0, 1), (0, 2, 3)]),
    SearchTest("basic050", ["a"], "bba", [(0, 2, 3)]),
    SearchTest("basic060", ["a"], "bbb", []),
    SearchTest("basic070", ["a"], "bababbbba", [(0, 1, 2), (0, 3, 4), (0, 8, 9)]),
    SearchTest("basic100", ["aa"], "", []),
    SearchTest("basic110", ["aa"], "aa", [(0, 0, 2)]),
    SearchTest("basic120", ["aa"], "aabbaa", [(0, 0, 2), (0, 4, 6)]),
    SearchTest("basic130", ["aa"], "abbab", []),
    SearchTest("basic140", ["aa"], "abbabaa", [(0, 5, 7)]),
    SearchTest("basic200", ["abc"], "abc", [(0, 0, 3)]),
    SearchTest("basic210", ["abc"], "zazabzabcz", [(0, 6, 9)]),
    SearchTest("basic220", ["abc"], "zazabczabcz", [(0, 3, 6), (0, 7, 10)]),
    SearchTest("basic300", ["a", "b"], "", []),
    SearchTest("basic310", ["a", "b"], "z", []),
    SearchTest("basic320", ["a", "b"], "b", [(1, 0, 1)]),
    SearchTest("basic330", ["a", "b"], "a", [(0, 0, 1)]),
    SearchTest("basic340", ["a", "b"], "abba", [(0, 0, 1), (1, 1, 2), (1, 2, 3), (0, 3, 4)]),
    SearchTest("basic350", ["b", "a"], "abba", [(1, 0, 1), (0, 1, 2), (0, 2, 3), (1, 3, 4)]),
    SearchTest("basic360", ["abc", "bc"], "xbc", [(1, 1, 3)]),
    SearchTest("basic400", ["foo", "bar"], "", []),
    SearchTest("basic410", ["foo", "bar"], "foobar", [(0, 0, 3), (1, 3, 6)]),
    SearchTest("basic420", ["foo", "bar"], "barfoo", [(1, 0, 3), (0, 3, 6)]),
    SearchTest("basic430", ["foo", "bar"], "foofoo", [(0, 0, 3), (0, 3, 6)]),
    SearchTest("basic440", ["foo", "bar"], "barbar", [(1, 0, 3), (1, 3, 6)]),
    SearchTest("basic450", ["foo", "bar"], "bafofoo", [(0, 4, 7)]),
    SearchTest("basic460", ["bar", "foo"], "bafofoo", [(1, 4, 7)]),
    SearchTest("basic470", ["foo", "bar"], "fobabar", [(1, 4, 7)]),
    SearchTest("basic480", ["bar", "foo"], "fobabar", [(0, 4, 7)]),
    SearchTest("basic600", ["abcd", "bcd", "cd"], "abcd", [(0, 0, 4)]).onlyLeftmost,
    SearchTest("basic700", ["yabcdef", "abcdezghi"], "yabcdefghi", [(0, 0, 7)]),
    SearchTest("basic710", ["yabcdef", "abcdezghi"], "yabcdezghi", [(1, 1, 10)]),
    SearchTest("basic720", ["yabcdef", "bcdeyabc", "abcdezghi"], "yabcdezghi", [(2, 1, 10)]),
    SearchTest("utf8-100", ["à", "é"], "xàxé", [(0, 1, 3), (1, 4, 6)]),
    SearchTest("utf8-110", ["ไม่", "รับ"], "ไม่รับเงิน", [(0, 0, 9), (1, 9, 18)]),
    SearchTest("utf8-120", ["😀", "中文"], "a😀中文b", [(0, 1, 5), (1, 5, 11)]),
]

/// Cases with overlaps, under `standard`.
let standardTests: [SearchTest] = [
    SearchTest("standard000", ["ab", "abcd"], "abcd", [(0, 0, 2), (1, 0, 4)]),
    SearchTest("standard010", ["abcd", "ab"], "abcd", [(1, 0, 2), (0, 0, 4)]),
    SearchTest("standard020", ["abcd", "b", "bcd"], "abcd", [(1, 1, 2), (0, 0, 4), (2, 1, 4)]),
    SearchTest("standard030", ["a", "ab", "bc"], "abc", [(0, 0, 1), (1, 0, 2), (2, 1, 3)]),
    SearchTest("standard040", ["aa"], "aaaa", [(0, 0, 2), (0, 1, 3), (0, 2, 4)]),
    SearchTest("standard050", ["a", "a"], "a", [(0, 0, 1), (1, 0, 1)]),
    SearchTest("standard060", ["abc", "bc", "c"], "abc", [(0, 0, 3), (1, 1, 3), (2, 2, 3)]),
    SearchTest("standard070", ["he", "she", "his", "hers"], "ushers", [(1, 1, 4), (0, 2, 4), (3, 2, 6)]),
    SearchTest("standard080", ["foo", "foo"], "foofoo", [(0, 0, 3), (1, 0, 3), (0, 3, 6), (1, 3, 6)]),
    SearchTest("standard090", ["abcd", "bcd", "cd"], "abcd", [(0, 0, 4), (1, 1, 4), (2, 2, 4)]),
]

/// Cases where leftmost-first and leftmost-longest differ or where overlaps are resolved.
let leftmostFirstTests: [SearchTest] = [
    SearchTest("leftfirst000", ["ab", "abcd"], "abcd", [(0, 0, 2)]),
    SearchTest("leftfirst010", ["abcd", "ab"], "abcd", [(0, 0, 4)]),
    SearchTest("leftfirst020", ["abcd", "b", "bcd"], "abcd", [(0, 0, 4)]),
    SearchTest("leftfirst030", ["b", "bcd"], "abcd", [(0, 1, 2)]),
    SearchTest("leftfirst040", ["a", "ab", "bc"], "abc", [(0, 0, 1), (2, 1, 3)]),
    SearchTest("leftfirst050", ["a", "a"], "a", [(0, 0, 1)]),
    SearchTest("leftfirst060", ["abcd", "b", "ce"], "abce", [(1, 1, 2), (2, 2, 4)]),
    SearchTest("leftfirst070", ["abcd", "bce", "b"], "abce", [(1, 1, 4)]),
    SearchTest("leftfirst080", ["abcdefghi", "hz", "abcdefgh"], "abcdefghz", [(2, 0, 8)]),
    SearchTest("leftfirst090", ["abcdefghi", "cde", "hz", "abcdefgh"], "abcdefghz", [(3, 0, 8)]),
    SearchTest("leftfirst100", ["aa"], "aaaa", [(0, 0, 2), (0, 2, 4)]),
    SearchTest("leftfirst110", ["amwix", "samwise", "sam"], "Zsamwix", [(2, 1, 4)]),
    SearchTest("leftfirst120", ["foo", "foobar"], "foobar", [(0, 0, 3)]),
    SearchTest("leftfirst130", ["he", "she", "his", "hers"], "ushers", [(1, 1, 4)]),
]

let leftmostLongestTests: [SearchTest] = [
    SearchTest("leftlong000", ["ab", "abcd"], "abcd", [(1, 0, 4)]),
    SearchTest("leftlong010", ["abcd", "ab"], "abcd", [(0, 0, 4)]),
    SearchTest("leftlong020", ["abcd", "b", "bcd"], "abcd", [(0, 0, 4)]),
    SearchTest("leftlong030", ["b", "bcd"], "abcd", [(1, 1, 4)]),
    SearchTest("leftlong040", ["a", "ab", "bc"], "abc", [(1, 0, 2)]),
    SearchTest("leftlong050", ["a", "a"], "a", [(0, 0, 1)]),
    SearchTest("leftlong060", ["ab", "a", "abc"], "abcd", [(2, 0, 3)]),
    SearchTest("leftlong070", ["abcd", "bce", "b"], "abce", [(1, 1, 4)]),
    SearchTest("leftlong080", ["abcdefghi", "hz", "abcdefgh"], "abcdefghz", [(2, 0, 8)]),
    SearchTest("leftlong090", ["abcdefghi", "hz", "abcdefgh", "a"], "abcdefghz", [(2, 0, 8)]),
    SearchTest("leftlong100", ["foo", "foobar"], "foobar", [(1, 0, 6)]),
    SearchTest("leftlong110", ["amwix", "samwise", "sam"], "Zsamwix", [(2, 1, 4)]),
    SearchTest("leftlong120", ["he", "she", "his", "hers"], "ushers", [(1, 1, 4)]),
]

/// Bugs found along the way, named after what they were.
let regressionTests: [SearchTest] = [
    // A failure link into a match state must not let a later-starting match replace an earlier one.
    SearchTest("regression-leftmost-fail-into-match", ["abcd", "b", "cz"], "abcz", [(1, 1, 2), (2, 2, 4)]).onlyLeftmost,
]

extension SearchTest {
    /// Marks a case whose matches only hold for the leftmost kinds (kept in the basic group for the record).
    var onlyLeftmost: SearchTest { SearchTest("leftmost-only:" + name, patterns, haystack, matches) }
}

/// The ways to get an automaton: each engine, with and without the prefilter, built directly and after a
/// serialize/load round trip. One list: a new engine is one more entry in `allCases`, and every oracle,
/// property, batch and serialization test runs it.
struct EngineUnderTest: CustomStringConvertible, Sendable {
    let engine: EngineChoice
    let prefilter: Bool
    let loaded: Bool
    /// 32-bit state ids where 16 would fit (the layout large pattern sets get).
    var wide = false

    static let allCases: [EngineUnderTest] =
        [EngineChoice.dfa, .compact, .nfa].flatMap { engine in
            [false, true].flatMap { prefilter in
                [false, true].map { loaded in EngineUnderTest(engine: engine, prefilter: prefilter, loaded: loaded) }
            }
        } + [
            EngineUnderTest(engine: .dfa, prefilter: false, loaded: true, wide: true),
            EngineUnderTest(engine: .compact, prefilter: false, loaded: true, wide: true),
        ]

    /// The kind `engineKind` reports.
    var kind: EngineKind {
        switch engine {
        case .dfa, .auto: .dfa
        case .nfa: .nfa
        case .compact: .compact
        }
    }

    var description: String { "\(engine)\(wide ? "32" : "")\(prefilter ? "+teddy" : "")\(loaded ? "(loaded)" : "")" }

    func build(_ builder: AhoCorasickBuilder, _ patterns: [Pattern]) throws -> AhoCorasick {
        var builder = builder
        builder.engine = engine
        builder.prefilter = prefilter
        builder._wideStateIDs = wide
        let built = try builder.build(patterns)
        guard loaded else { return built }
        return try AhoCorasick(serialized: MappedBytes(copying: built.serialize()))
    }
}

final class SearchTests: XCTestCase {
    func run(_ tests: [SearchTest], _ kind: MatchKind, file: StaticString = #filePath, line: UInt = #line) throws {
        for test in tests {
            if test.name.hasPrefix("leftmost-only:") && kind == .standard { continue }
            for engine in EngineUnderTest.allCases {
                var builder = AhoCorasickBuilder()
                builder.matchKind = kind
                let ac = try engine.build(builder, test.patterns.map { Pattern($0) })
                XCTAssertEqual(ac.engineKind, engine.kind)
                let got = ac.matches(in: test.haystack).map { "\($0)" }
                let want = test.matches.map { "\(Match(pattern: $0.0, start: $0.1, end: $0.2))" }
                XCTAssertEqual(got, want, "\(test.name) \(kind) \(engine)", file: file, line: line)
                // The oracle agrees with the table.
                let oracle = NaiveMatcher(test.patterns.map { Pattern($0) }, matchKind: kind).matches(in: test.haystack)
                XCTAssertEqual(oracle.map { "\($0)" }, want, "oracle: \(test.name) \(kind)", file: file, line: line)
            }
        }
    }

    func testBasicAllKinds() throws {
        try run(basicTests, .standard)
        try run(basicTests, .leftmostFirst)
        try run(basicTests, .leftmostLongest)
    }

    func testStandard() throws { try run(standardTests, .standard) }
    func testLeftmostFirst() throws { try run(leftmostFirstTests, .leftmostFirst) }
    func testLeftmostLongest() throws { try run(leftmostLongestTests, .leftmostLongest) }
    func testRegressions() throws {
        try run(regressionTests, .leftmostFirst)
        try run(regressionTests, .leftmostLongest)
    }
}
