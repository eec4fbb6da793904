import AhoCorasick

/// The one place MessageFilter touches the keyword matcher: a set of phrases scanned together in one
/// case-folding mode, reporting every (overlapping) match (`MatchKind.standard`), whole-word tests included.
final class _PhraseMatcher: Sendable {
    let folding: CaseFoldMode
    let automaton: AhoCorasick

    var patternCount: Int { automaton.patternCount }

    static func caseFolding(_ mode: CaseFoldMode) -> CaseFolding { mode == .ascii ? .ascii : .unicode }

    /// Builds the automaton.
    /// - Throws: `AhoCorasickBuildError` (an automaton too large).
    init(patterns: [[UInt8]], wholeWord: [Bool], folding: CaseFoldMode) throws {
        self.folding = folding
        var builder = AhoCorasickBuilder()
        builder.matchKind = .standard
        builder.caseFolding = Self.caseFolding(folding)
        automaton = try builder.build(zip(patterns, wholeWord).map { Pattern($0, wholeWord: $1) })
    }

    /// Loads an automaton image in place (zero-copy) from `range` of `storage`.
    /// - Throws: `AhoCorasickLoadError`, or a `_ByteReader.Failure` when the image is of another kind or mode.
    init(serialized storage: MappedBytes, range: Range<Int>, folding: CaseFoldMode) throws {
        self.folding = folding
        automaton = try AhoCorasick(serialized: storage, range: range)
        guard automaton.matchKind == .standard, automaton.caseFolding == Self.caseFolding(folding) else {
            throw _ByteReader.Failure(offset: range.lowerBound, what: "automaton of the wrong match kind or case folding")
        }
    }

    func serialize() -> [UInt8] { automaton.serialize() }

    /// Calls `body(pattern, start, end)` for every match in `haystack`. Never allocates.
    @inline(__always)
    func forEachMatch(in haystack: UnsafeRawBufferPointer, _ body: (Int, Int, Int) -> Void) {
        automaton.forEachMatch(in: haystack) { m in
            body(m.pattern, m.start, m.end)
            return true
        }
    }

    /// Calls `body(spanIndex, pattern, start, end)` for every match of every span (lockstep scan; matches
    /// of different spans may interleave); offsets relative to the span. Never allocates.
    /// - Precondition: every span lies within `buffer`.
    @inline(__always)
    func forEachMatch(in buffer: UnsafeRawBufferPointer, spans: UnsafeBufferPointer<Range<Int>>,
                      _ body: (Int, Int, Int, Int) -> Void) {
        automaton.forEachMatch(in: buffer, spans: spans) { k, m in body(k, m.pattern, m.start, m.end) }
    }
}
