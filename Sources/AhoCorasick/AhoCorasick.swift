// The public facade: the options, the match type and the automaton.
//
// An `AhoCorasick` is an immutable image of tables (see `_Image.swift`) searched in place by the loops of
// `_Search.swift`. A freshly built automaton and one loaded from `serialize()`'s bytes are the same thing:
// the builder writes the serialized image and the automaton reads it, so every search path is exercised
// by both.

/// How overlapping matches are resolved.
///
/// Take the patterns `abcd` (0), `b` (1) and `bcd` (2) and the haystack `abcd`:
///
/// | kind | matches (pattern, start..<end) | why |
/// |---|---|---|
/// | `standard` | (1, 1..<2), (0, 0..<4), (2, 1..<4) | every occurrence of every pattern, overlaps included, in order of end |
/// | `leftmostFirst` | (0, 0..<4) | the match starting leftmost; at that start, the pattern given first |
/// | `leftmostLongest` | (0, 0..<4) | the match starting leftmost; at that start, the longest |
///
/// With the patterns `b` (0), `bcd` (1) on `abcd`, `leftmostFirst` reports (0, 1..<2) (pattern 0 was given
/// first) and `leftmostLongest` reports (1, 1..<4). With `a` (0), `ab` (1), `bc` (2) on `abc`,
/// `leftmostFirst` reports (0, 0..<1) then (2, 1..<3): after a match the search resumes at its end, so the
/// leftmost kinds never report overlapping matches. `standard` reports (0, 0..<1), (1, 0..<2), (2, 1..<3).
///
/// The leftmost kinds behave like the Rust crate's `find_iter`, `standard` like `find_overlapping_iter`.
/// Duplicate patterns are kept: under `standard` each copy is reported (same span, each index); under the
/// leftmost kinds the copy given first wins.
public enum MatchKind: Sendable, Hashable {
    /// Every match, overlaps included, in order of end offset; matches ending at the same offset come
    /// longest (leftmost start) first, then by pattern index.
    case standard
    /// Non-overlapping matches: the one starting leftmost, and among those the pattern given first.
    case leftmostFirst
    /// Non-overlapping matches: the one starting leftmost, and among those the longest.
    case leftmostLongest
}

/// How letters of different case compare.
public enum CaseFolding: Sendable, Hashable {
    /// Bytes compare as they are.
    case none
    /// `A`–`Z` equal `a`–`z`; every other byte compares as it is. Free at search time (it lives in the
    /// byte classes).
    case ascii
    /// Simple Unicode case folding (Unicode's `CaseFolding.txt`, statuses C and S): one scalar folds to one
    /// scalar, so `ΣΑΣ` equals `σας`, `ПРИВЕТ` equals `привет`, `ÉTÉ` equals `été` and the Kelvin sign equals
    /// `k`, but `STRASSE` does not equal `Straße` (that needs full folding, which changes lengths) and the
    /// Turkish dotted/dotless `i` only fold to themselves. Patterns must be valid UTF-8. Matches still
    /// report offsets into the original haystack. Costs a decode per non-ASCII scalar at search time.
    case unicode
}

/// The search engine an automaton uses.
public enum EngineKind: Sendable, Hashable {
    /// A dense DFA over byte classes: one table load per haystack byte. Fast, memory grows with
    /// states × byte classes.
    case dfa
    /// A compact NFA (a trie with failure links, sparse transitions, a dense start state). Small; a few
    /// table loads per byte, more where failure links are followed.
    case nfa
    /// A row-compressed DFA: each state stores only the entries where its row differs from the row of
    /// its one-byte suffix, in a comb (double array); the others come from one small table of default
    /// rows. Two independent loads per byte and no branch; 16-bit state ids when they fit. A fraction
    /// of the dense DFA's size: used for pattern sets whose dense DFA would not stay in the caches.
    case compact
}

/// The builder's engine request.
public enum EngineChoice: Sendable, Hashable {
    /// The dense DFA while its table is at most `AhoCorasickBuilder.denseAutoLimit` bytes, then the
    /// compact DFA while it fits `dfaSizeLimit`, then the NFA (like the Rust crate's `build_auto`).
    case auto
    /// Always the dense DFA (building throws when the table would exceed 2^32 entries).
    case dfa
    /// Always the NFA.
    case nfa
    /// Always the compact DFA.
    case compact
}

/// One match: the pattern's index in the builder's input and a half-open byte range of the original haystack.
public struct Match: Hashable, Sendable, CustomStringConvertible {
    /// Index of the pattern in the array given to `AhoCorasickBuilder.build`.
    public var pattern: Int
    /// Offset of the first byte of the match in the haystack (or span).
    public var start: Int
    /// Offset just past the last byte of the match.
    public var end: Int

    /// A match of pattern `pattern` over `start..<end`.
    public init(pattern: Int, start: Int, end: Int) {
        self.pattern = pattern
        self.start = start
        self.end = end
    }

    /// `start..<end`.
    public var range: Range<Int> { start..<end }

    /// `(pattern, start..<end)`, e.g. `(2, 1..<4)`.
    public var description: String { "(\(pattern), \(start)..<\(end))" }
}

/// A position where a `standard` batch scan stands in a match state
/// (``AhoCorasick/forEachMatchState(in:spans:positions:_:)``).
public struct MatchStatePosition: Hashable, Sendable {
    /// Index of the span in the spans given.
    public var span: Int32
    /// The match state, 1…``AhoCorasick/matchStateCount``: ``AhoCorasick/patterns(inMatchState:)`` lists the
    /// patterns ending here.
    public var state: UInt32
    /// Offset just past the last byte of those matches, relative to the span's start.
    public var end: Int

    public init(span: Int32, state: UInt32, end: Int) {
        self.span = span
        self.state = state
        self.end = end
    }
}

/// A pattern: the bytes to find, and whether a match of it must stand as a whole word.
public struct Pattern: Sendable, Hashable {
    /// The bytes to find (for `.unicode` case folding, valid UTF-8). Must not be empty.
    public var bytes: [UInt8]
    /// When true, a match is reported only if neither the character before it nor the one after it is a
    /// letter, a digit or a combining mark (Unicode-aware, see `AhoCorasickBuilder.wholeWord`).
    public var wholeWord: Bool

    /// A pattern of raw bytes.
    public init(_ bytes: [UInt8], wholeWord: Bool = false) {
        self.bytes = bytes
        self.wholeWord = wholeWord
    }

    /// The pattern's UTF-8 bytes.
    public init(_ string: String, wholeWord: Bool = false) {
        self.bytes = Array(string.utf8)
        self.wholeWord = wholeWord
    }
}

/// A compiled set of patterns, searched without allocating.
///
/// Build one with `AhoCorasickBuilder`, or load one from `serialize()`'s bytes with
/// `init(serialized:range:)`. An automaton is immutable: share it freely between threads; every search
/// method may be called concurrently.
///
/// ### Offsets
/// Matches are half-open byte ranges of the haystack as given (with `.unicode` folding too: the folding is
/// done on the fly while scanning, and offsets are mapped back to the original bytes).
///
/// ### Allocation
/// `forEachMatch`, `isMatch` and the batch `forEachMatch` never allocate; `matches(in:)` allocates its
/// result array.
public final class AhoCorasick: Sendable {
    let image: _Image
    /// Keeps the memory `image` points into alive.
    let storage: MappedBytes

    init(storage: MappedBytes, image: _Image) {
        self.storage = storage
        self.image = image
    }

    /// Loads an automaton written by `serialize()`, using its tables in place (no copy).
    ///
    /// Every header field, section offset, state id, match-list index and pattern index is checked, so a
    /// truncated, damaged or hostile image is refused with an `AhoCorasickLoadError` and can never cause
    /// an out-of-bounds read.
    ///
    /// - Parameters:
    ///   - serialized: the bytes; the automaton keeps them alive.
    ///   - range: the part of `serialized`'s bytes holding the image (default: all of it). Its start must
    ///     be 8-byte aligned in memory (mappings and `MappedBytes(copying:)` are 16-byte aligned, so an
    ///     offset that is a multiple of 8 or 16 within them works).
    /// - Complexity: O(size of the image): one checksum pass and one validation pass.
    public convenience init(serialized: MappedBytes, range: Range<Int>? = nil) throws {
        let all = serialized._unsafeBytes
        let range = range ?? 0..<all.count
        guard range.lowerBound >= 0, range.upperBound <= all.count else {
            throw AhoCorasickLoadError(.rangeOutOfBounds(range, all.count))
        }
        let slice = UnsafeRawBufferPointer(rebasing: all[range])
        let image = try _Image.load(slice)
        self.init(storage: serialized, image: image)
    }

    /// The engine the builder picked.
    public var engineKind: EngineKind { image.engine }
    /// The number of patterns given to the builder.
    public var patternCount: Int { image.patternCount }
    /// The match kind the automaton was built with.
    public var matchKind: MatchKind { image.matchKind }
    /// The case folding the automaton was built with.
    public var caseFolding: CaseFolding { image.caseFolding }
    /// The number of automaton states (including the dead state).
    public var stateCount: Int { image.stateCount }
    /// The number of byte classes (the DFA's alphabet size).
    public var byteClassCount: Int { image.alphabetLen }
    /// The size in bytes of the tables (the serialized image).
    public var memoryUsage: Int { image.bytes.count }
    /// Bits per state id in the engine's tables (16 or 32).
    public var stateIDBits: Int { image.engineCode.idWidth * 8 }
    /// Whether searches use the Teddy prefilter.
    public var hasPrefilter: Bool { image.teddy != nil }
    /// One line naming the engine, its size and the prefilter, e.g. "compact DFA, 16-bit ids, 18,499
    /// states × 124 classes, 410 KiB + Teddy prefilter (avx2)": what `smsfilter bench` reports.
    public var engineDescription: String {
        let name =
            switch image.engine {
            case .dfa: "dense DFA"
            case .compact: "compact DFA"
            case .nfa: "NFA"
            }
        let kib = (memoryUsage + 1023) / 1024
        var text = "\(name), \(stateIDBits)-bit ids, \(stateCount) states × \(byteClassCount) classes, \(kib) KiB"
        if hasPrefilter { text += " + Teddy prefilter (\(Self.prefilterKernel))" }
        return text
    }

    /// All matches in `haystack`, in the order `forEachMatch` reports them.
    /// - Complexity: O(n + m) for a haystack of n bytes and m matches (unicode folding: O(n log f), f the
    ///   size of the fold table).
    public func matches(in haystack: [UInt8]) -> [Match] {
        var result: [Match] = []
        haystack.withUnsafeBytes { buffer in
            forEachMatch(in: buffer) { match in
                result.append(match)
                return true
            }
        }
        return result
    }

    /// All matches in the UTF-8 bytes of `haystack`.
    /// - Complexity: as `matches(in:)` for bytes.
    public func matches(in haystack: String) -> [Match] {
        var copy = haystack
        return copy.withUTF8 { utf8 in
            var result: [Match] = []
            forEachMatch(in: UnsafeRawBufferPointer(utf8)) { match in
                result.append(match)
                return true
            }
            return result
        }
    }

    /// Calls `body` for each match, in order of end (`standard`) or of start (leftmost kinds); `body`
    /// returns false to stop. Never allocates.
    ///
    /// With whole-word patterns, `standard` reports every match that passes the test (a rejected match
    /// hides nothing); the leftmost kinds pick their non-overlapping matches first and then drop those
    /// that fail the test (a dropped match is not replaced by an overlapping one).
    /// - Complexity: O(n + m) (see `matches(in:)`).
    public func forEachMatch(in haystack: UnsafeRawBufferPointer, _ body: (Match) -> Bool) {
        guard let base = haystack.baseAddress, haystack.count > 0 else { return }
        _ = image.search(base.assumingMemoryBound(to: UInt8.self), haystack.count, body)
    }

    /// The number of match states: states at which a `standard` scan reports patterns.
    public var matchStateCount: Int { image.matchStateCount }

    /// The patterns match state `index` (1…``matchStateCount``) reports, in the order `forEachMatch` reports
    /// them there (every pattern that is a suffix of the text read when the scan stands in that state).
    /// - Complexity: O(patterns of the state).
    public func patterns(inMatchState index: Int) -> [Int] {
        precondition(index >= 1 && index <= image.matchStateCount, "match state \(index) out of 1...\(image.matchStateCount)")
        let lo = Int(image.matchOffsets[index - 1])
        let hi = Int(image.matchOffsets[index])
        return (lo..<hi).map { Int(image.matchList[$0]) }
    }

    /// Writes, for each position of `haystack` where a `standard` scan reports patterns, the match state
    /// and the end of the match, as `state << 32 | end`, into `positions`, in order; returns how many it wrote
    /// (one per such position, however many patterns end there: ``patterns(inMatchState:)`` lists them). For
    /// callers that precompute what each match state means and walk the positions in a loop of their own,
    /// without a closure call per position. Never allocates.
    ///
    /// - Precondition: the automaton was built with `.standard` matching, without `.unicode` folding and
    ///   without whole-word patterns, and `positions.count >= haystack.count` (both checked; a violation traps).
    /// - Complexity: O(n).
    public func matchStates(in haystack: UnsafeRawBufferPointer, into positions: UnsafeMutableBufferPointer<UInt64>) -> Int {
        precondition(image.matchKind == .standard && image.caseFolding != .unicode && !image.anyWholeWord,
                     "matchStates needs standard matching without Unicode folding or whole-word patterns")
        precondition(positions.count >= haystack.count, "matchStates needs room for one position per haystack byte")
        guard let base = haystack.baseAddress, haystack.count > 0, let out = positions.baseAddress else { return 0 }
        return image.searchStates(base.assumingMemoryBound(to: UInt8.self), haystack.count, out)
    }

    /// Whether `haystack` has at least one match (what `forEachMatch` would report first). Never
    /// allocates; stops at the first match.
    /// - Complexity: O(n).
    public func isMatch(in haystack: UnsafeRawBufferPointer) -> Bool {
        var found = false
        forEachMatch(in: haystack) { _ in
            found = true
            return false
        }
        return found
    }

    /// Searches many independent haystacks, spans of one buffer, in one call. Never allocates.
    ///
    /// For each span, `body` receives exactly the matches `forEachMatch(in:)` would report for that span
    /// alone, in the same order, with offsets relative to the span's start. Matches of different spans
    /// may interleave: with the DFA and the `standard` kind (without `.unicode` folding) four spans (eight
    /// for DFAs larger than 1 MiB) are scanned in lockstep so that their table loads overlap, which is
    /// 2–2.5× faster than scanning them one by one. Other configurations scan the spans one by one.
    ///
    /// Typical use: a pipeline decodes a chunk of records into one buffer, collects the message bodies'
    /// ranges into a reused `[Range<Int>]`, and calls this once per chunk; `spanIndex` indexes that array.
    /// Spans may be empty, overlap or come in any order.
    ///
    /// - Precondition: every span lies within `buffer` (checked; a violation traps).
    /// - Complexity: O(total span bytes + matches).
    public func forEachMatch(
        in buffer: UnsafeRawBufferPointer, spans: UnsafeBufferPointer<Range<Int>>,
        _ body: (_ spanIndex: Int, Match) -> Void
    ) {
        for span in spans {
            precondition(span.lowerBound >= 0 && span.upperBound <= buffer.count, "span \(span) outside the buffer")
        }
        guard let base = buffer.baseAddress, !spans.isEmpty else { return }
        image.searchBatch(base.assumingMemoryBound(to: UInt8.self), spans, body)
    }

    /// The batch scan of `forEachMatch(in:spans:_:)`, reporting the positions where it stands in a match state
    /// instead of the matches: one ``MatchStatePosition`` per such position (span, match state, end), however
    /// many patterns end there (``patterns(inMatchState:)`` lists them, ``patternLength(_:)`` gives their
    /// starts). The positions are written into `positions` (the caller's scratch, reused) and handed to `body` in
    /// bulk, whenever that buffer is nearly full and at the end: for callers that precompute what each match state
    /// means and expand the positions in a loop of their own, without a closure call per match. Each span's
    /// positions come in order of end, as its matches do from `forEachMatch`; positions of different spans may
    /// interleave. The lanes of the lockstep scan go on past match states (noted in `positions` and turned into
    /// positions when a lane's span ends), so this scan is faster than `forEachMatch(in:spans:_:)` even before
    /// the closure calls it saves. Whole-word patterns are not tested here: the caller tests a match of a pattern
    /// that ``isWholeWord(pattern:)`` with ``wholeWordHolds(in:start:end:)`` over its span. Never allocates.
    ///
    /// - Precondition: the automaton was built with `.standard` matching and without `.unicode` folding; every
    ///   span lies within `buffer`; there are fewer than 2^31 spans; `positions` has room for at least 64
    ///   (checked; a violation traps).
    /// - Complexity: O(total span bytes + positions).
    public func forEachMatchState(
        in buffer: UnsafeRawBufferPointer, spans: UnsafeBufferPointer<Range<Int>>,
        positions: UnsafeMutableBufferPointer<MatchStatePosition>,
        _ body: (UnsafeBufferPointer<MatchStatePosition>) -> Void
    ) {
        precondition(image.matchKind == .standard && image.caseFolding != .unicode,
                     "forEachMatchState needs standard matching without Unicode folding")
        precondition(spans.count < Int(Int32.max), "forEachMatchState takes fewer than 2^31 spans")
        precondition(positions.count >= _Image._statePositionsMinimum, "forEachMatchState needs room for 64 positions")
        for span in spans {
            precondition(span.lowerBound >= 0 && span.upperBound <= buffer.count, "span \(span) outside the buffer")
        }
        guard let base = buffer.baseAddress, !spans.isEmpty, let out = positions.baseAddress else { return }
        image.searchBatchStates(base.assumingMemoryBound(to: UInt8.self), spans, out, positions.count, body)
    }

    /// The length in bytes of pattern `pattern` (for `.unicode` folding: in scalars).
    public func patternLength(_ pattern: Int) -> Int {
        precondition(pattern >= 0 && pattern < image.patternCount, "pattern \(pattern) out of 0..<\(image.patternCount)")
        return Int(image.patterns[2 &* pattern])
    }

    /// Whether pattern `pattern` was given as whole-word (``Pattern/wholeWord``).
    public func isWholeWord(pattern: Int) -> Bool {
        precondition(pattern >= 0 && pattern < image.patternCount, "pattern \(pattern) out of 0..<\(image.patternCount)")
        return image.anyWholeWord && image.patterns[2 &* pattern &+ 1] & 1 != 0
    }

    /// Whether a match at `start..<end` of `text` stands as a whole word (neither the character before it nor
    /// the one after it is a word character, ``isWordScalar(_:)``): the test `forEachMatch` makes for whole-word
    /// patterns.
    /// - Precondition: `0 <= start <= end <= text.count`.
    public static func wholeWordHolds(in text: UnsafeRawBufferPointer, start: Int, end: Int) -> Bool {
        precondition(start >= 0 && start <= end && end <= text.count, "match \(start)..<\(end) outside the text")
        guard let base = text.baseAddress else { return true }
        let p = base.assumingMemoryBound(to: UInt8.self)
        return !_wordBefore(p, start, text.count) && !_wordAfter(p, end, text.count)
    }

    /// The serialized image: versioned, checksummed, little-endian. Load it with `init(serialized:range:)`.
    /// - Complexity: O(size of the image) (a copy).
    public func serialize() -> [UInt8] {
        Array(image.bytes)
    }

    /// The simple case folding of `scalar` that `.unicode` uses (exposed for tests and oracles).
    public static func simpleCaseFold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        _UnicodeFold.fold(scalar)
    }

    /// Whether `scalar` counts as part of a word for the whole-word test: a letter, a number or a
    /// combining mark (general categories L*, N*, M*).
    public static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        _isWordScalar(scalar.value)
    }
}

extension AhoCorasick {
    /// The checksum `serialize()` stores at byte 24 of an image (for tests that forge images; not API).
    public static func _checksum(_ image: UnsafeRawBufferPointer) -> UInt64 {
        guard let base = image.baseAddress, image.count >= 32 else { return 0 }
        return _imageChecksum(base, image.count & ~7)
    }
}
