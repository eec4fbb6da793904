import AhoCorasick

/// The test oracle for `AhoCorasick`: tries every pattern at every offset, then applies the match kind's
/// selection rule. Slow (O(n × total pattern bytes)) and meant to be obviously right.
///
/// Definitions it encodes:
/// - an occurrence of pattern i is a start s with the pattern's bytes (folded) equal to the haystack's
///   there; with `.ascii` folding the bytes go through ``OracleText/asciiLower(_:)`` (a table spelled out by
///   hand); with `.unicode` folding, the comparison is scalar by scalar (decoded with the standard library's
///   UTF-8 decoder) with ``OracleText/foldEqual(_:_:)`` (Foundation's case folding);
/// - whole-word: the scalar ending at s and the scalar starting at the end are not word scalars
///   (``OracleText/isWord(_:)``: a hand-written ASCII table, `CharacterSet.alphanumerics` beyond); an invalid
///   byte is not a word scalar;
///
/// Nothing here calls into `AhoCorasick` but the types (`Pattern`, `Match`, `MatchKind`, `CaseFolding`): an
/// oracle that shared the implementation's folding or word test could never disagree with it.
/// - `standard`: all whole-word-accepted occurrences, by (end, start, pattern);
/// - leftmost kinds: from position `at`, the occurrence with the smallest start >= at, ties broken by
///   pattern index (first) or by length then index (longest); then `at` = its end. Whole-word rejects
///   are dropped after the selection (not replaced).
public struct NaiveMatcher: Sendable {
    public let patterns: [Pattern]
    public let matchKind: MatchKind
    public let caseFolding: CaseFolding
    public let wholeWord: Bool

    public init(_ patterns: [Pattern], matchKind: MatchKind, caseFolding: CaseFolding = .none, wholeWord: Bool = false) {
        self.patterns = patterns
        self.matchKind = matchKind
        self.caseFolding = caseFolding
        self.wholeWord = wholeWord
    }

    public func matches(in haystack: [UInt8]) -> [Match] {
        var occurrences: [Match] = []
        for start in 0..<haystack.count {
            for (index, pattern) in patterns.enumerated() {
                if let end = matchEnd(pattern.bytes, haystack, start) {
                    occurrences.append(Match(pattern: index, start: start, end: end))
                }
            }
        }
        switch matchKind {
        case .standard:
            return occurrences.filter(accepted(haystack)).sorted {
                ($0.end, $0.start, $0.pattern) < ($1.end, $1.start, $1.pattern)
            }
        case .leftmostFirst, .leftmostLongest:
            var result: [Match] = []
            var at = 0
            while true {
                let candidates = occurrences.filter { $0.start >= at }
                guard let best = candidates.min(by: { a, b in
                    if a.start != b.start { return a.start < b.start }
                    if matchKind == .leftmostLongest && a.end != b.end { return a.end > b.end }
                    return a.pattern < b.pattern
                }) else { break }
                if accepted(haystack)(best) { result.append(best) }
                at = best.end
            }
            return result
        }
    }

    public func matches(in haystack: String) -> [Match] { matches(in: Array(haystack.utf8)) }

    private func accepted(_ haystack: [UInt8]) -> (Match) -> Bool {
        { match in
            guard wholeWord || patterns[match.pattern].wholeWord else { return true }
            return !Self.isWord(before: match.start, haystack) && !Self.isWord(at: match.end, haystack)
        }
    }

    /// The end of `pattern` found at `start`, or nil.
    private func matchEnd(_ pattern: [UInt8], _ haystack: [UInt8], _ start: Int) -> Int? {
        switch caseFolding {
        case .none, .ascii:
            guard start + pattern.count <= haystack.count else { return nil }
            for k in 0..<pattern.count {
                var a = pattern[k]
                var b = haystack[start + k]
                if caseFolding == .ascii {
                    a = OracleText.asciiLower(a)
                    b = OracleText.asciiLower(b)
                }
                if a != b { return nil }
            }
            return start + pattern.count
        case .unicode:
            var at = start
            for scalar in String(decoding: pattern, as: UTF8.self).unicodeScalars {
                guard let (h, width) = Self.decode(haystack, at) else { return nil }
                if !OracleText.foldEqual(scalar, h) { return nil }
                at += width
            }
            return at
        }
    }

    /// The valid scalar starting at `at`, with its width.
    public static func decode(_ bytes: [UInt8], _ at: Int) -> (Unicode.Scalar, Int)? {
        guard at < bytes.count else { return nil }
        var iterator = bytes[at...].makeIterator()
        var decoder = Unicode.UTF8()
        switch decoder.decode(&iterator) {
        case .scalarValue(let scalar): return (scalar, UTF8.width(scalar))
        default: return nil
        }
    }

    public static func isWord(at index: Int, _ bytes: [UInt8]) -> Bool {
        guard let (scalar, _) = decode(bytes, index) else { return false }
        return OracleText.isWord(scalar)
    }

    public static func isWord(before index: Int, _ bytes: [UInt8]) -> Bool {
        for width in 1...4 where index - width >= 0 {
            if let (scalar, w) = decode(bytes, index - width), w == width { return OracleText.isWord(scalar) }
        }
        return false
    }
}
