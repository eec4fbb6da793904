import AhoCorasick

/// The phrases `smsfilter learn` considers, read off a message after normalisation:
///
/// - **word n-grams** (kind `word`, matched as whole words): runs of letters and digits of spaced scripts,
///   and 2…`wordNGrams` of them separated by exactly one space (`free entry`); never a single character
///   (`a`, `2`, `क`), whatever `minWordLength` says;
/// - **character n-grams** of runs of unspaced scripts (Thai, Lao, Khmer, Myanmar, Chinese, Japanese;
///   kind `part`), `charNGrams` scalars long;
/// - **pieces of words that hold a digit**, each piece holding a digit (`09061701461` → `0906`, `txt80` →
///   `t80`…; kind `part`), `digitNGrams` long.
///
/// Punctuation, symbols and whitespace are never proposed on their own (`.`, `/`, `£`, `。`): they say little
/// about a message and travel across languages, so a model learned on one market would read them as evidence
/// on every other (docs/QUALITY.md, "Evidence hygiene").
///
/// ASCII letters are lower-cased (the automaton folds ASCII case; under `standard` normalisation other
/// scripts are already folded). Candidates only propose: the features a model is trained on are the
/// phrases the automaton then finds (``Classifier/modelFeatures(body:into:)``), so training and
/// classification see exactly the same thing.
public final class PhraseCandidates {
    /// What to propose.
    public struct Options: Sendable, Hashable {
        /// Longest word n-gram (1: single words; 0: no word n-grams).
        public var wordNGrams = 2
        /// Shortest word (in characters) that word n-grams are made of; an n-gram holding a shorter word is
        /// not proposed (2 leaves out `i`, `u`, `a`, as scikit-learn's default token pattern does).
        public var minWordLength = 2
        /// Character n-gram lengths in unspaced scripts (3: one n-gram per character, and on Thai SMS the
        /// best cross-validated F1 of 2–4, 2–3, 3–4, 3 and 4; docs/QUALITY.md).
        public var charNGrams: ClosedRange<Int> = 3...3
        /// Lengths of the pieces of words that hold a digit (0...0: none). 2–5 by cross-validation
        /// (docs/QUALITY.md, "Evidence hygiene").
        public var digitNGrams: ClosedRange<Int> = 2...5
        /// Lengths (in scalars) of the text n-grams: substrings of the whole normalised text, across words,
        /// spaces and symbols (kind `text`; 0...0: none). Substrings holding whitespace other than a single
        /// ASCII space, a control character or an invalid byte are never proposed, nor one without a letter or
        /// digit, nor one character outside the unspaced scripts.
        public var textNGrams: ClosedRange<Int> = 0...0

        public init() {}

        /// The defaults of `smsfilter learn` (docs/QUALITY.md, "The learner's defaults"): word uni- and bigrams
        /// and text n-grams of 1 to 4 characters, which hold the unspaced scripts' character n-grams and the
        /// pieces of words with digits, so neither is proposed apart.
        public static var learnDefaults: Options {
            var o = Options()
            o.wordNGrams = 2
            o.minWordLength = 2
            o.charNGrams = 0...0
            o.digitNGrams = 0...0
            o.textNGrams = 1...4
            return o
        }
    }

    public let normalization: TextNormalization
    public let options: Options
    let normalizer = _TextNormalizer()
    private var scalars: [UInt32] = []
    private var offsets: [Int] = []
    private var piece: [UInt8] = []
    private var wordish: [Bool] = []

    public init(normalization: TextNormalization, options: Options) {
        self.normalization = normalization
        self.options = options
    }

    /// Calls `use` with `body` normalised (the body itself under `none`), valid until `use` returns.
    /// - warning: Do not escape the pointer: the normaliser's buffers are reused by the next call.
    public func withNormalized<R, E: Error>(_ body: UnsafeRawBufferPointer,
                                            _ use: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        guard normalization != .none else { return try use(body) }
        normalizer.normalize(body, mode: normalization)
        return try normalizer.withOutput { (text, _, _) throws(E) -> R in try use(text) }
    }

    /// Calls `visit` with each candidate's kind and bytes in `text`, a body already normalised by
    /// ``withNormalized(_:_:)`` (a candidate may come more than once; the bytes are valid only during the call).
    public func forEach(inNormalized text: UnsafeRawBufferPointer,
                        _ visit: (ModelDefinition.MatchKind, UnsafeRawBufferPointer) -> Void) {
        decodeScalars(text)
        let n = scalars.count
        if options.textNGrams.upperBound >= 1 { emitText(n, visit) }
        var k = 0
        // Word tokens of the current chain of single-space-separated words: (start scalar, end scalar).
        var chain: [(Int, Int)] = []
        chain.reserveCapacity(options.wordNGrams)
        while k < n {
            let v = scalars[k]
            let cls = Self.classify(v)
            switch cls {
            case .space:
                // A word continues the chain only after exactly one ASCII space (checked at the word).
                k += 1
            case .symbol:
                chain.removeAll(keepingCapacity: true)
                k += 1
            case .unspaced:
                chain.removeAll(keepingCapacity: true)
                var j = k
                while j < n, Self.classify(scalars[j]) == .unspaced { j += 1 }
                emitCharacterNGrams(k, j, visit)
                k = j
            case .word:
                var j = k
                var digit = false
                while j < n, Self.classify(scalars[j]) == .word {
                    if scalars[j] >= 0x30 && scalars[j] <= 0x39 { digit = true }
                    j += 1
                }
                if !(chain.last.map { $0.1 + 1 == k && scalars[k - 1] == 0x20 } ?? false) { chain.removeAll(keepingCapacity: true) }
                if options.wordNGrams >= 1 {
                    if chain.count == options.wordNGrams { chain.removeFirst() }
                    chain.append((k, j))
                    // Every n-gram ending with this word (none holding a word shorter than minWordLength).
                    var first = chain.count - 1
                    while first >= 0, chain[first].1 - chain[first].0 >= options.minWordLength {
                        // A lone character is no evidence (it may still stand in an n-gram of several words).
                        if first != chain.count - 1 || !isSingleCharacter(k, j) { emit(chain[first].0, j, .word, visit) }
                        first -= 1
                    }
                }
                if digit && options.digitNGrams.upperBound >= 1 { emitDigitPieces(k, j, visit) }
                k = j
            }
        }
    }

    /// Decodes `text` into `scalars` (ASCII case folded) with each one's byte offset in `offsets`, and the end
    /// offset after them (raw bytes pass as U+FFFD, a symbol, and are never proposed).
    private func decodeScalars(_ text: UnsafeRawBufferPointer) {
        scalars.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        var i = 0
        while i < text.count {
            let b = text[i]
            if b < 0x80 {
                scalars.append(UInt32(b >= 0x41 && b <= 0x5A ? b | 0x20 : b))
                offsets.append(i)
                i += 1
                continue
            }
            let (v, len) = _decodeUTF8(text, i)
            scalars.append(len == 0 ? 0xFFFD : v)
            offsets.append(i)
            i += max(1, len)
        }
        offsets.append(text.count)
    }

    /// Every character n-gram (``Options/charNGrams``) of the unspaced run of scalars `k..<j`.
    private func emitCharacterNGrams(_ k: Int, _ j: Int, _ visit: (ModelDefinition.MatchKind, UnsafeRawBufferPointer) -> Void) {
        for len in options.charNGrams where len >= 1 {
            var s = k
            while s + len <= j {
                emit(s, s + len, .part, visit)
                s += 1
            }
        }
    }

    /// The pieces (``Options/digitNGrams``) of the word `k..<j` that hold a digit: a letters-only piece would
    /// match inside every word.
    private func emitDigitPieces(_ k: Int, _ j: Int, _ visit: (ModelDefinition.MatchKind, UnsafeRawBufferPointer) -> Void) {
        for len in options.digitNGrams where len >= 1 && len < j - k {
            var s = k
            while s + len <= j {
                var hasDigit = false
                for q in s..<(s + len) where scalars[q] >= 0x30 && scalars[q] <= 0x39 { hasDigit = true }
                if hasDigit { emit(s, s + len, .part, visit) }
                s += 1
            }
        }
    }

    /// Every text n-gram (``Options/textNGrams``) of the `n` scalars.
    private func emitText(_ n: Int, _ visit: (ModelDefinition.MatchKind, UnsafeRawBufferPointer) -> Void) {
        // From each scalar, the n-grams starting there, until a scalar that cannot stand in one or a second space.
        wordish.removeAll(keepingCapacity: true)
        for k in 0..<n {
            let c = Self.classify(scalars[k])
            wordish.append(c == .word || c == .unspaced)
        }
        var s = 0
        while s < n {
            var end = s
            var hasWord = false
            let longest = min(n, s + options.textNGrams.upperBound)
            while end < longest, Self.textUsable(scalars[end]), !(scalars[end] == 0x20 && end > s && scalars[end - 1] == 0x20) {
                hasWord = hasWord || wordish[end]
                end += 1
                // Never punctuation, symbols and spaces alone (docs/QUALITY.md, "Evidence hygiene").
                guard hasWord else { continue }
                // A text n-gram of one character only in unspaced scripts (a Han, kana or Thai character can be
                // a word; a lone Latin letter, digit or symbol says little and matches at nearly every byte).
                if end - s >= options.textNGrams.lowerBound, end - s > 1 || Self.isUnspaced(scalars[s]) { emit(s, end, .text, visit) }
            }
            s += 1
        }
    }

    /// Whether scalar `v` may stand in a text n-gram: not whitespace other than the ASCII space, not a control
    /// character, not U+FFFD (an invalid byte reads as it).
    static func textUsable(_ v: UInt32) -> Bool {
        if v < 0x80 { return v >= 0x20 && v != 0x7F }
        return v != 0xFFFD && !ModelDefinition.isWhitespaceOrControl(v)
    }

    /// Whether scalars `[from, to)` are one character: one scalar that is not a mark, with any marks after it
    /// (`क`, `कि`; `a`, `2`).
    private func isSingleCharacter(_ from: Int, _ to: Int) -> Bool {
        var bases = 0
        for q in from..<to {
            let v = scalars[q]
            if v < 0x80 { bases += 1; continue }
            guard let s = Unicode.Scalar(v) else { bases += 1; continue }
            switch s.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: continue
            default: bases += 1
            }
        }
        return bases <= 1
    }

    enum _Class { case space, symbol, word, unspaced }

    static func classify(_ v: UInt32) -> _Class {
        if v < 0x80 {
            if (v >= 0x30 && v <= 0x39) || (v >= 0x61 && v <= 0x7A) || (v >= 0x41 && v <= 0x5A) { return .word }
            if v <= 0x20 || v == 0x7F { return .space }
            return .symbol
        }
        guard let s = Unicode.Scalar(v) else { return .symbol }
        if s.properties.isWhitespace || s.properties.generalCategory == .control { return .space }
        guard AhoCorasick.isWordScalar(s) else { return .symbol }
        return isUnspaced(v) ? .unspaced : .word
    }

    /// Scripts written without spaces between words.
    static func isUnspaced(_ v: UInt32) -> Bool {
        switch v {
        case 0x0E00...0x0EFF,  // Thai, Lao
             0x1000...0x109F,  // Myanmar
             0x1780...0x17FF,  // Khmer
             0x3040...0x30FF,  // Hiragana, Katakana
             0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0xFF66...0xFF9F,
             0x20000...0x3134F:
            return true
        default:
            return false
        }
    }

    /// Calls `visit` with the UTF-8 bytes of scalars `[from, to)` (ASCII already lower-cased).
    private func emit(_ from: Int, _ to: Int, _ kind: ModelDefinition.MatchKind,
                      _ visit: (ModelDefinition.MatchKind, UnsafeRawBufferPointer) -> Void) {
        piece.removeAll(keepingCapacity: true)
        var k = from
        while k < to {
            let v = scalars[k]
            if v < 0x80 {
                piece.append(UInt8(v))
            } else if v < 0x800 {
                piece.append(UInt8(0xC0 | v >> 6)); piece.append(UInt8(0x80 | v & 0x3F))
            } else if v < 0x10000 {
                piece.append(UInt8(0xE0 | v >> 12)); piece.append(UInt8(0x80 | (v >> 6) & 0x3F)); piece.append(UInt8(0x80 | v & 0x3F))
            } else {
                piece.append(UInt8(0xF0 | v >> 18)); piece.append(UInt8(0x80 | (v >> 12) & 0x3F))
                piece.append(UInt8(0x80 | (v >> 6) & 0x3F)); piece.append(UInt8(0x80 | v & 0x3F))
            }
            k += 1
        }
        piece.withUnsafeBytes { visit(kind, $0) }
    }
}
