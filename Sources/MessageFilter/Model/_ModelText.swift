// MARK: Internal API
//
// The text a learned model's automaton scans ("model text"): the message after normalisation, with every
// word run standing between ASCII spaces. Whole-word phrases are then plain patterns with a space on each
// side (` to `, ` free entry `), so the automaton reports `to` only where it is a word, never inside `stop`
// or `into`, and does not leave its hot loop (or run a whole-word test) for every `i` inside a word.
//
//     normalised text   "Hi!Call 0906 now,free"
//     model text       " Hi !Call 0906 now ,free "      (spaces inserted: 5; original spaces kept)
//
// Rule (for the text and for phrases alike): a space is inserted before a word run unless the character
// before it is an ASCII space, and after a word run unless the character after it is one; the start and end
// of the text count as non-spaces. A word run is a maximal run of word characters (`AhoCorasick.isWordScalar`:
// letters, numbers, marks), the same characters the automaton's whole-word test looks at.
//
// Why the patterns find exactly the old whole-word matches: inserted spaces sit only at the edges of word
// runs, so the model text's word runs are the original's; a pattern ` w1 w2 … wk ` (each wi a word run, single
// spaces between) matches where a space stands before w1 and after wk, which in the model text means "w1 starts
// a run and wk ends one"; and between wi and wi+1 exactly one space, which can only be an original single space
// (an inserted space is never next to an original one, and two word runs are never adjacent). Part phrases
// (symbols, character n-grams, digit pieces) hold no space and do not mix word and non-word characters, so no
// insertion can fall inside one of their matches. `ModelDefinition.shapeProblem` enforces these shapes on
// every model a rule file or `.smsf` brings.
//
// Every byte of the model text carries the span of the original body it came from (an inserted space: an
// empty span at its position), so spans in verdicts and explanations still point into the original bytes.

/// One message's model text in a `_ModelText`: its range in the output, and how to map its offsets back
/// to the original body (a plain ASCII body: minus the spaces inserted before the offset, whose output
/// positions are `insertions`; otherwise through the per-byte spans); and the message's main script
/// (``Script``), tallied while the text was written (no second pass over the message).
struct _ModelSpan {
    var range: Range<Int>
    var mapped: Bool
    var insertions: Range<Int>
    var script: Script = .none
}

/// Reusable model-text scratch (one per classifier). Not thread-safe; one thread, never re-entrantly, so the
/// fields' exclusivity checks are off. The buffers are raw pointers owned here (allocated, grown, freed only
/// in this class); every write below is within the capacity `grow` just ensured (see `append…`).
final class _ModelText {
    @exclusivity(unchecked) private(set) var bytes: UnsafeMutablePointer<UInt8>
    /// Per output byte of a mapped message: the span of the original body it came from.
    @exclusivity(unchecked) private(set) var starts: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private(set) var ends: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var capacity: Int
    /// Output bytes written so far (several messages in append mode).
    @exclusivity(unchecked) private(set) var count = 0
    /// Output positions of the spaces inserted into plain messages, ascending.
    @exclusivity(unchecked) private(set) var insertions: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var insertionCapacity: Int
    @exclusivity(unchecked) private(set) var insertionCount = 0
    /// Letters per script of the message being appended (``_ScriptTally``).
    private let scriptCounts: UnsafeMutablePointer<UInt32>
    let flags = _ScalarFlags.shared

    init(capacity: Int = 1024) {
        self.capacity = capacity
        bytes = .allocate(capacity: capacity)
        starts = .allocate(capacity: capacity)
        ends = .allocate(capacity: capacity)
        insertionCapacity = capacity
        insertions = .allocate(capacity: capacity)
        scriptCounts = .allocate(capacity: Script.allCases.count)
        scriptCounts.initialize(repeating: 0, count: Script.allCases.count)
    }

    deinit {
        bytes.deallocate()
        starts.deallocate()
        ends.deallocate()
        insertions.deallocate()
        scriptCounts.deallocate()
    }

    var output: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: bytes, count: count) }

    func reset() {
        count = 0
        insertionCount = 0
    }

    private func grow(_ needed: Int) {
        guard needed > capacity else { return }
        var c = capacity
        while c < needed { c *= 2 }
        func move<T>(_ p: inout UnsafeMutablePointer<T>) {
            let n = UnsafeMutablePointer<T>.allocate(capacity: c)
            n.moveInitialize(from: p, count: count)
            p.deallocate()
            p = n
        }
        move(&bytes)
        move(&starts)
        move(&ends)
        capacity = c
    }

    private func growInsertions(_ needed: Int) {
        guard needed > insertionCapacity else { return }
        var c = insertionCapacity
        while c < needed { c *= 2 }
        let n = UnsafeMutablePointer<Int32>.allocate(capacity: c)
        n.moveInitialize(from: insertions, count: insertionCount)
        insertions.deallocate()
        insertions = n
        insertionCapacity = c
    }

    /// Appends the model text of `text`, which is the body itself; the fast path for ASCII. Returns nil,
    /// with nothing appended, when `text` has a byte ≥ 0x80 (use `append(_:sourceStart:sourceEnd:fold:)`).
    /// - Complexity: O(text length); allocates only to grow the scratch past the longest text seen.
    func appendPlain(_ text: UnsafeRawBufferPointer) -> _ModelSpan? {
        let first = count
        let firstInsertion = insertionCount
        let n = text.count
        grow(count + 2 * n + 2)  // at most one inserted space per byte, plus one at the end
        growInsertions(insertionCount + n + 1)
        guard n > 0, let src = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return _ModelSpan(range: first..<first, mapped: false, insertions: firstInsertion..<firstInsertion)
        }
        let dst = bytes
        let ins = insertions
        var out = count
        var insCount = insertionCount
        // A space goes between two bytes when one is a letter or digit ("word") and the other is neither a
        // word byte nor an ASCII space ("symbol"); the start and the end count as symbols. Eight bytes at a
        // time (SWAR, the bytes' high bits as lanes); a chunk with no such pair is copied with one store.
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func atLeast(_ x: UInt64, _ lo: UInt64) -> UInt64 { (x &+ ones &* (0x80 &- lo)) & highs }
        var letters: UInt64 = 0  // lanes of ASCII letters seen (the main script is Latin when any)
        var prevWord: UInt64 = 0  // the previous byte's lane (0x80 when it was a word byte)
        var prevSymbol: UInt64 = 0x80  // the start counts as a symbol
        var i = 0
        while i &+ 8 <= n {
            let x = UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self)
            if x & highs != 0 {
                insertionCount = firstInsertion
                return nil
            }
            let lower = x | (ones &* 0x20)
            let letter = atLeast(lower, 0x61) & ~atLeast(lower, 0x7B)
            letters |= letter
            let word = letter | (atLeast(x, 0x30) & ~atLeast(x, 0x3A))
            let y = x ^ (ones &* 0x20)
            let space = ~((y &+ ones &* 0x7F) | y) & highs
            let symbol = ~(word | space) & highs
            let before = (word << 8 | prevWord) & symbol | (symbol << 8 | prevSymbol) & word
            if before == 0 {
                UnsafeMutableRawPointer(dst + out).storeBytes(of: x, as: UInt64.self)
                out &+= 8
            } else {
                var k = 0
                while k < 8 {
                    if before & (UInt64(0x80) << UInt64(8 &* k)) != 0 {
                        dst[out] = 0x20
                        ins[insCount] = Int32(truncatingIfNeeded: out)
                        insCount &+= 1
                        out &+= 1
                    }
                    dst[out] = src[i &+ k]
                    out &+= 1
                    k &+= 1
                }
            }
            prevWord = word >> 56
            prevSymbol = symbol >> 56
            i &+= 8
        }
        while i < n {
            let b = src[i]
            if b >= 0x80 {
                insertionCount = firstInsertion
                return nil
            }
            let isLetter = ((b | 0x20) &- 0x61) < 26
            if isLetter { letters = 0x80 }
            let word: UInt64 = (b &- 0x30) < 10 || isLetter ? 0x80 : 0
            let symbol: UInt64 = word == 0 && b != 0x20 ? 0x80 : 0
            if prevWord & symbol | prevSymbol & word != 0 {
                dst[out] = 0x20
                ins[insCount] = Int32(truncatingIfNeeded: out)
                insCount &+= 1
                out &+= 1
            }
            dst[out] = b
            out &+= 1
            prevWord = word
            prevSymbol = symbol
            i &+= 1
        }
        if prevWord != 0 {  // the end counts as a symbol
            dst[out] = 0x20
            ins[insCount] = Int32(truncatingIfNeeded: out)
            insCount &+= 1
            out &+= 1
        }
        count = out
        insertionCount = insCount
        return _ModelSpan(range: first..<out, mapped: false, insertions: firstInsertion..<insCount, script: letters != 0 ? .latin : .none)
    }

    /// Appends the model text of `text` with every byte's source span.
    ///
    /// - Parameters:
    ///   - text: the normalised message (or the body itself when normalisation leaves it alone).
    ///   - sourceStart, sourceEnd: for each byte of `text`, the span of the original body it came from; nil
    ///     when `text` is the body (each byte is its own span).
    ///   - fold: case-fold non-ASCII letters (the `none` normalisation, where the text is not folded yet).
    /// - Complexity: O(text length); allocates only to grow the scratch past the longest text seen.
    func append(_ text: UnsafeRawBufferPointer, sourceStart: UnsafePointer<Int32>?, sourceEnd: UnsafePointer<Int32>?,
                fold: Bool) -> _ModelSpan {
        let first = count
        let none = _ModelSpan(range: first..<first, mapped: true, insertions: insertionCount..<insertionCount)
        let n = text.count
        grow(count + 2 * n + 2)  // at most one inserted space per character, plus one at the end
        guard n > 0, let src = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return none }
        let dst = bytes
        let dStart = starts
        let dEnd = ends
        var out = count
        var inWord = false
        var afterSpace = false
        var tally = _ScriptTally(counts: scriptCounts)
        var i = 0
        while i < n {
            let b = src[i]
            var len = 1
            let word: Bool
            var value = UInt32(b)
            if b < 0x80 {
                let letter = ((b | 0x20) &- 0x61) < 26
                if letter { tally.add(.latin) }
                word = (b &- 0x30) < 10 || letter
            } else {
                let (v, l) = _decodeUTF8(text, i)
                if l == 0 {
                    word = false  // a raw byte
                } else {
                    len = l
                    value = v
                    word = flags.isWord(v)
                    if word { tally.add(Script.of(letter: v)) }
                }
            }
            let s: Int32, e: Int32
            if let sourceStart {
                s = sourceStart[i]
                e = sourceEnd.unsafelyUnwrapped[i &+ len &- 1]
            } else {
                s = Int32(truncatingIfNeeded: i)
                e = Int32(truncatingIfNeeded: i &+ len)
            }
            if word != inWord {
                if word ? !afterSpace : b != 0x20 {
                    dst[out] = 0x20
                    dStart[out] = s
                    dEnd[out] = s
                    out &+= 1
                }
                inWord = word
            }
            if len == 1 {
                dst[out] = b
                dStart[out] = s
                dEnd[out] = e
                out &+= 1
            } else if fold {
                // A fold may change the length (Ⱥ is 2 bytes, its fold 3): room for 2 per input byte.
                let written = _encodeUTF8(flags.fold(value), into: dst + out)
                for q in 0..<written {
                    dStart[out &+ q] = s
                    dEnd[out &+ q] = e
                }
                out &+= written
            } else {
                for q in 0..<len {
                    dst[out &+ q] = src[i &+ q]
                    dStart[out &+ q] = s
                    dEnd[out &+ q] = e
                }
                out &+= len
            }
            afterSpace = b == 0x20
            i &+= len
        }
        if inWord {
            let at = sourceStart == nil ? Int32(truncatingIfNeeded: n) : sourceEnd.unsafelyUnwrapped[n - 1]
            dst[out] = 0x20
            dStart[out] = at
            dEnd[out] = at
            out &+= 1
        }
        count = out
        return _ModelSpan(range: first..<out, mapped: true, insertions: none.insertions, script: tally.finish())
    }

    /// The original body's span of output bytes `[from, to)` of message `m` (a match holding no inserted
    /// space).
    func sourceSpan(_ from: Int, _ to: Int, of m: _ModelSpan) -> (Int32, Int32) {
        if m.mapped { return (starts[from], ends[to - 1]) }
        // Plain: output offset minus the inserted spaces before it.
        var lo = m.insertions.lowerBound
        var hi = m.insertions.upperBound
        while lo < hi {  // first insertion at or after `from`
            let mid = (lo + hi) / 2
            if Int(insertions[mid]) < from { lo = mid + 1 } else { hi = mid }
        }
        let before = lo - m.insertions.lowerBound
        let start = from - m.range.lowerBound - before
        return (Int32(truncatingIfNeeded: start), Int32(truncatingIfNeeded: start + (to - from)))
    }

    // MARK: Patterns

    /// The phrase as the model's automaton looks for it: normalised like the text (and case-folded under
    /// `none`), a word phrase between two spaces.
    static func pattern(_ phrase: ModelDefinition.Phrase, normalization: TextNormalization) -> [UInt8] {
        var text = normalization == .none ? phrase.text : normalization.apply(phrase.text)
        if text.isEmpty { text = phrase.text }
        if normalization == .none {
            let flags = _ScalarFlags.shared
            text = String(String.UnicodeScalarView(text.unicodeScalars.map { Unicode.Scalar(flags.fold($0.value))! }))
        }
        let bytes = Array(text.utf8)
        return phrase.kind == .word ? [0x20] + bytes + [0x20] : bytes
    }
}

extension ModelDefinition {
    /// Why a phrase cannot be matched as its kind says (nil when it can): a `word` phrase is words (letters,
    /// digits and marks) separated by single spaces; a `part` phrase holds no space and is either all word
    /// characters or all other characters. Checked after normalisation, as matched.
    public static func shapeProblem(_ text: String, kind: MatchKind, normalization: TextNormalization) -> String? {
        let normalized = normalization == .none ? text : normalization.apply(text)
        let scalars = Array((normalized.isEmpty ? text : normalized).unicodeScalars)
        guard !scalars.isEmpty else { return "the phrase is empty" }
        switch kind {
        case .word:
            var previousSpace = true
            for s in scalars {
                if s == " " {
                    if previousSpace { return "a word phrase is words separated by single spaces (no leading, trailing or double space)" }
                    previousSpace = true
                } else if _ScalarFlags.shared.isWord(s.value) {
                    previousSpace = false
                } else {
                    return "a word phrase holds only letters, digits and single spaces (\"\(s.escaped(asASCII: true))\" is neither); make it a part phrase"
                }
            }
            if previousSpace { return "a word phrase does not end with a space" }
        case .part:
            if scalars.contains(" ") { return "a part phrase holds no space (use a word phrase for words separated by spaces)" }
            let words = scalars.filter { _ScalarFlags.shared.isWord($0.value) }.count
            if words != 0 && words != scalars.count {
                return "a part phrase is either all letters and digits or all symbols, not both"
            }
        }
        return nil
    }
}
