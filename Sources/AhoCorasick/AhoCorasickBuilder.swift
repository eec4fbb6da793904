/// Compiles patterns into an `AhoCorasick` automaton.
///
/// ```swift
/// var builder = AhoCorasickBuilder()
/// builder.matchKind = .leftmostFirst
/// builder.caseFolding = .ascii
/// let ac = try builder.build([Pattern("debited"), Pattern("txn of"), Pattern("a/c", wholeWord: true)])
/// ac.matches(in: "Your A/C was DEBITED")   // [(2, 5..<8), (0, 13..<20)]
/// ```
///
/// ### Whole words
/// A whole-word match may not touch a word character on either side: a letter, a number or a combining
/// mark (Unicode general categories L*, N*, M*; the neighbouring UTF-8 scalar is decoded; an invalid byte
/// is not a word character). In scripts written without spaces between words (Thai, Chinese, Japanese,
/// Lao, Khmer, Burmese) a keyword inside a sentence touches letters on both sides, so a whole-word pattern
/// would almost never match there: do not use whole words for such keywords.
public struct AhoCorasickBuilder: Sendable {
    /// How overlapping matches are resolved.
    public var matchKind: MatchKind = .standard
    /// How case is compared.
    public var caseFolding: CaseFolding = .none
    /// When true, every pattern must match as a whole word (a pattern's own `wholeWord` also counts).
    public var wholeWord: Bool = false
    /// Which engine to build.
    public var engine: EngineChoice = .auto
    /// With `.auto`, the largest DFA table (in bytes) built before falling back to the NFA.
    public var dfaSizeLimit: Int = 16 << 20
    /// With `.auto`, the largest dense DFA table (in bytes) preferred to the compact DFA. The dense DFA
    /// reads one table entry per byte and is the fastest while its table stays in the L1/L2 caches; past
    /// this size the compact DFA (a fraction of the size) is faster.
    public var denseAutoLimit: Int = 128 << 10
    /// Whether to add a Teddy prefilter (SIMD; up to 64 distinct pattern prefixes, no `.unicode`
    /// folding): searches skip the bytes before the first place a match can start.
    public var prefilter: Bool = true
    /// Forces 32-bit state ids in the dense and compact DFAs even where 16 bits fit (for tests that
    /// cover both layouts with small pattern sets; not API).
    public var _wideStateIDs: Bool = false

    /// A builder with the defaults: `standard`, no case folding, no whole words, `.auto` engine.
    public init() {}

    /// Compiles `patterns`.
    ///
    /// - Throws: `AhoCorasickBuildError` when a pattern is empty, when `.unicode` folding is asked for and a
    ///   pattern is not valid UTF-8, or when the automaton would be too large.
    /// - Complexity: O(total pattern bytes × byte classes) for the DFA, O(total pattern bytes) for the NFA
    ///   (plus, for `.unicode`, a one-time scan of the Unicode case tables per process).
    public func build(_ patterns: [Pattern]) throws -> AhoCorasick {
        let bytes = try _Compiler(builder: self, patterns: patterns).compile()
        let storage = MappedBytes(_adopting: bytes)
        let image: _Image
        do {
            image = try _Image.load(storage._unsafeBytes)
        } catch {
            preconditionFailure("the compiler wrote an image that does not load: \(error)")
        }
        let automaton = AhoCorasick(storage: storage, image: image)
        #if AHOCORASICK_INTERNAL_CHECKS
            image._checkInvariants()
        #endif
        return automaton
    }

    /// Compiles the UTF-8 bytes of `patterns` (none of them whole-word unless `wholeWord` is set).
    /// - Complexity: as `build(_:)` for patterns.
    public func build(_ patterns: [String]) throws -> AhoCorasick {
        try build(patterns.map { Pattern($0) })
    }
}

/// Why `AhoCorasickBuilder.build` refused the patterns.
public struct AhoCorasickBuildError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case emptyPattern(Int)
        case invalidUTF8(Int)
        case tooManyPatterns(Int)
        case tooLarge(String)
    }
    let kind: Kind
    init(_ kind: Kind) { self.kind = kind }

    /// One sentence naming the pattern or the limit.
    public var description: String {
        switch kind {
        case .emptyPattern(let index): "pattern \(index) is empty (empty patterns are not supported)"
        case .invalidUTF8(let index): "pattern \(index) is not valid UTF-8, which .unicode case folding needs"
        case .tooManyPatterns(let count): "too many patterns (\(count); at most \(Int32.max))"
        case .tooLarge(let what): "the automaton would be too large: \(what)"
        }
    }
}

/// The builder's error type under the name the API sketch uses.
public typealias BuildError = AhoCorasickBuildError

/// Why a serialized automaton or a file of bytes could not be loaded.
public struct AhoCorasickLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case open(path: String, errno: Int32)
        case map(path: String, errno: Int32)
        case rangeOutOfBounds(Range<Int>, Int)
        case misaligned
        case truncated(need: Int, have: Int)
        case badMagic
        case bigEndian
        case unsupportedVersion(UInt32)
        case checksumMismatch
        case corrupt(String)
    }
    let kind: Kind
    init(_ kind: Kind) { self.kind = kind }

    /// One sentence naming the path, the field or the damage.
    public var description: String {
        switch kind {
        case .open(let path, let errno): "cannot open '\(path)' (errno \(errno))"
        case .map(let path, let errno): "cannot map '\(path)' into memory (errno \(errno))"
        case .rangeOutOfBounds(let range, let count): "range \(range) is outside the \(count) bytes given"
        case .misaligned: "the serialized automaton does not start at an 8-byte aligned address"
        case .truncated(let need, let have): "the serialized automaton is truncated (\(have) bytes, needs \(need))"
        case .badMagic: "not a serialized automaton (bad magic number)"
        case .bigEndian: "the serialized automaton was written big-endian, which this build cannot read"
        case .unsupportedVersion(let version): "unsupported serialized automaton version \(version)"
        case .checksumMismatch: "the serialized automaton is damaged (checksum mismatch)"
        case .corrupt(let what): "the serialized automaton is corrupt: \(what)"
        }
    }
}
