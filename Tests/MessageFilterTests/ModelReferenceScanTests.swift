import AhoCorasick
import Foundation
import TestSupport
import XCTest
@testable import MessageFilter

// The learned model's phrase scan before issue 23, kept here as the oracle of the hashed look-up that
// replaced it (`_ModelFeatures.swift`): the "model text" (every word run between ASCII spaces) written per
// message, and one Aho-Corasick automaton of the phrases (word phrases between spaces) run over it. The
// hashed scan must find the same phrases, add them to the sums in the same order (so scores are the same bit
// for bit, and the default model did not need to be learned again), with the same first spans and script.

/// One message's model text: its range, how to map offsets back to the body, its main script.
struct _ReferenceModelSpan {
    var range: Range<Int>
    var mapped: Bool
    var insertions: Range<Int>
    var script: Script = .none
}

final class _ReferenceModelText {
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
    func appendPlain(_ text: UnsafeRawBufferPointer) -> _ReferenceModelSpan? {
        let first = count
        let firstInsertion = insertionCount
        let n = text.count
        grow(count + 2 * n + 2)  // at most one inserted space per byte, plus one at the end
        growInsertions(insertionCount + n + 1)
        guard n > 0, let src = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return _ReferenceModelSpan(range: first..<first, mapped: false, insertions: firstInsertion..<firstInsertion)
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
        return _ReferenceModelSpan(range: first..<out, mapped: false, insertions: firstInsertion..<insCount, script: letters != 0 ? .latin : .none)
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
                fold: Bool) -> _ReferenceModelSpan {
        let first = count
        let none = _ReferenceModelSpan(range: first..<first, mapped: true, insertions: insertionCount..<insertionCount)
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
        Self.dropLinkLetters(text, scriptCounts)
        return _ReferenceModelSpan(range: first..<out, mapped: true, insertions: none.insertions, script: tally.finish())
    }

    /// The main script is read from the words (``Script``, issue 34): when letters of another script are
    /// counted and Latin would lead them, the ASCII letters of link-like runs do not count. Written apart from
    /// `_ScriptTally.latinOfWords`, with Foundation: runs split on bytes outside 0x21–0x7E, a link-like run
    /// found by a regular expression.
    static func dropLinkLetters(_ text: UnsafeRawBufferPointer, _ counts: UnsafeMutablePointer<UInt32>) {
        let latin = Int(Script.latin.rawValue), kana = Int(Script.kana.rawValue), han = Int(Script.han.rawValue)
        var best: UInt32 = 0
        for s in Script.allCases where s != .latin {
            let i = Int(s.rawValue)
            best = max(best, i == kana ? counts[kana] + counts[han] : (i == han && counts[kana] > 0 ? 0 : counts[i]))
        }
        guard best > 0, counts[latin] >= best else { return }
        let runs = text.split(whereSeparator: { $0 < 0x21 || $0 > 0x7E }).map { String(decoding: $0, as: UTF8.self) }
        var links: UInt32 = 0
        for run in runs where run.contains("/") || run.contains("@") || run.range(of: "[A-Za-z0-9][.][A-Za-z0-9]", options: .regularExpression) != nil {
            links += UInt32(run.unicodeScalars.filter { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }.count)
        }
        counts[latin] -= min(counts[latin], links)
    }

    /// The original body's span of output bytes `[from, to)` of message `m` (a match holding no inserted
    /// space).
    func sourceSpan(_ from: Int, _ to: Int, of m: _ReferenceModelSpan) -> (Int32, Int32) {
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


/// The pre-issue-23 scan of one rule set's model: normalise as the classifier does, write the model text, run
/// the phrases' automaton over it, count each phrase at its first match (narrow automaton's matches, then the
/// wide one's), sum the weights in that order.
final class _ReferenceModelScan {
    struct Result: Equatable, CustomStringConvertible {
        /// Present features in the order they were added to the sums.
        var features: [Int32] = []
        /// Per present feature: its first span in the body.
        var spans: [Range<Int32>] = []
        /// The sums per target and Σ idf², as bit patterns.
        var sums: [UInt64] = []
        var normSquared: UInt64 = 0
        var script: Script = .none

        var description: String {
            "features \(features) spans \(spans) sums \(sums.map { Double(bitPattern: $0) }) norm² \(Double(bitPattern: normSquared)) script \(script)"
        }
    }

    let model: _CompiledModel
    let mode: TextNormalization
    let matcher: _PhraseMatcher?
    let text = _ReferenceModelText()
    let normalizer = _TextNormalizer()

    init(_ set: RuleSet) throws {
        model = try XCTUnwrap(set.model)
        mode = set.definition.normalization
        let phrases = try XCTUnwrap(set.definition.model).phrases
        let patterns = phrases.map { [mode] in _ReferenceModelText.pattern($0, normalization: mode) }
        matcher = patterns.isEmpty ? nil
            // Two passes (ASCII phrases over the whole text, then the others): the order of first matches the
            // hashed scan reproduces.
            : try _PhraseMatcher(patterns: patterns, wholeWord: Array(repeating: false, count: patterns.count), folding: .ascii,
                                 combine: false)
    }

    func scan(_ body: UnsafeRawBufferPointer) -> Result {
        text.reset()
        let span: _ReferenceModelSpan
        // (Under `none` the model reads the body: only the rules read its white space runs as one space.)
        if mode != .none, mode.needsRewrite(body) {
            normalizer.normalize(body, mode: mode)
            span = normalizer.withOutput { output, starts, ends in
                text.append(output, sourceStart: starts.baseAddress, sourceEnd: ends.baseAddress, fold: false)
            }
        } else if let plain = text.appendPlain(body) {
            span = plain
        } else {
            span = text.append(body, sourceStart: nil, sourceEnd: nil, fold: model.foldsText)
        }
        let t = model.targetCount
        var r = Result()
        var sums = [Double](repeating: 0, count: t)
        var normSquared = 0.0
        var seen = Set<Int>()
        if let matcher, !span.range.isEmpty {
            let base = span.range.lowerBound
            matcher.forEachMatch(in: UnsafeRawBufferPointer(rebasing: text.output[span.range])) { f, a, b in
                guard seen.insert(f).inserted else { return }
                let row = f * model.rowStride
                let cut = Int(model.rows[row + t + 1])
                let (s, e) = text.sourceSpan(base + a + cut, base + b - cut, of: span)
                r.features.append(Int32(f))
                r.spans.append(s..<e)
                let idf = Double(model.rows[row + t])
                normSquared += idf * idf
                for j in 0..<t { sums[j] += Double(model.rows[row + j]) }
            }
        }
        r.sums = sums.map(\.bitPattern)
        r.normSquared = normSquared.bitPattern
        r.script = span.script
        return r
    }

    /// What the classifier's hashed scan left in its scratch for `body` (through `modelFeatures`, which runs
    /// the classifier's own `_scan`).
    static func hashed(_ c: Classifier, _ body: UnsafeRawBufferPointer, features: inout [Int32]) -> Result {
        let script = c.modelFeatures(body: body, into: &features)
        let s = c.modelScratch!
        var r = Result()
        r.features = features
        r.spans = features.map { s.message.firstStart[Int($0)]..<s.message.firstEnd[Int($0)] }
        r.sums = (0..<s.targets).map { s.message.sums[$0].bitPattern }
        r.normSquared = s.normSquared.bitPattern
        r.script = script
        return r
    }
}

final class ModelReferenceScanTests: XCTestCase {
    /// Hostile text: pieces of many scripts (spaced and unspaced), digits of several scripts, marks, joiners,
    /// fullwidth and look-alike letters, symbols and every kind of space, and invalid UTF-8 (lone continuation
    /// bytes, truncated sequences, overlong forms, encoded surrogates, bytes never valid).
    static func hostile(seed: UInt64, count: Int) -> [[UInt8]] {
        var rng = Fixtures.SeededGenerator(seed: seed)
        let pieces: [[UInt8]] = [
            "free", "FREE", "Free", "entry", "to", "win", "txt", "call", "now", "i", "a", "x", "stop", "0906", "09061701461",
            "t80", "txt80", "£5", "$", "€", "!!", "...", "?!", "'", "\"", "/", "-", "_", "@", "#", "%", "&", "*", "+",
            "café", "CAFÉ", "e\u{301}", "Ⱥ", "ß", "İ", "ﬁ", "доставка", "ДОСТАВКА", "κωδικός", "ΚΩΔΙΚΌΣ", "verificación",
            "ฟรี", "เครดิต", "แจก", "๑๒๓", "ด1", "验证码", "您的验证码是", "１２３", "ｆｒｅｅ", "ＦＲＥＥ", "カタカナ", "ひらがな",
            "मुफ्त", "कि", "०९", "مجاني", "١٢٣", "עברית", "한국어", "😀", "👍🏽", "👨‍👩‍👧", "\u{200B}", "\u{200D}", "\u{FEFF}",
            "\u{00A0}", "\u{3000}", "\t", "\n", "\r\n", "  ", " ", " ", " ", "frее", "ѕtop", "0", "1", "2", "42", "x2",
            "2x", "a1b2", "ㅋㅋ", "。", "、", "！", "¥", "₹", "฿", "©", "™", "\u{1F1F9}\u{1F1ED}",
        ].map { Array(($0 as String).utf8) }
        let invalid: [[UInt8]] = [
            [0x80], [0xBF], [0xC0, 0xAF], [0xC3], [0xE0, 0x80, 0xAF], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF0, 0x9F],
            [0xF4, 0x90, 0x80, 0x80], [0xF5], [0xFE], [0xFF], [0xC3, 0x28], [0xE3, 0x81, 0x41],
        ]
        var out: [[UInt8]] = []
        for _ in 0..<count {
            var b: [UInt8] = []
            for _ in 0..<Int.random(in: 0...14, using: &rng) {
                b += Int.random(in: 0..<10, using: &rng) == 0 ? invalid.randomElement(using: &rng)! : pieces.randomElement(using: &rng)!
            }
            out.append(b)
        }
        return out
    }

    /// A model of phrases read off `bodies` the way `learn` proposes them (word n-grams up to 3, single
    /// characters included; unspaced-script n-grams of 1–4; digit pieces of 1–5), plus symbol runs and
    /// letter-only word pieces (which `learn` never proposes but a rule file may hold), and phrases that
    /// normalise alike. Every phrase of a shape the model accepts; seeded sample of at most `limit`.
    static func harvested(_ mode: TextNormalization, _ bodies: [[UInt8]], limit: Int, seed: UInt64) throws -> RuleSet {
        var options = PhraseCandidates.Options()
        options.wordNGrams = 3
        options.minWordLength = 1
        options.charNGrams = 1...4
        options.digitNGrams = 1...5
        let candidates = PhraseCandidates(normalization: mode, options: options)
        var seen = Set<String>()
        var phrases: [(ModelDefinition.MatchKind, String)] = []
        func add(_ kind: ModelDefinition.MatchKind, _ text: String) {
            // (Format and control characters stay out: the YAML reader does not keep every one of them.)
            guard !text.unicodeScalars.contains(where: { [.format, .control, .unassigned, .privateUse].contains($0.properties.generalCategory) }),
                  ModelDefinition.shapeProblem(text, kind: kind, normalization: mode) == nil,
                  seen.insert("\(kind.rawValue)\u{0}\(text)").inserted else { return }
            phrases.append((kind, text))
        }
        for body in bodies {
            body.withUnsafeBytes { raw in
                candidates.withNormalized(raw) { text in
                candidates.forEach(inNormalized: text) { kind, bytes in
                    add(kind, String(decoding: bytes, as: UTF8.self))
                }
                // Symbol runs (and their first 1–3 scalars) and the first 2–3 letters of each word.
                let s = String(decoding: text, as: UTF8.self)
                var run = "", word = ""
                for scalar in s.unicodeScalars + [" "] {
                    if _ScalarFlags.shared.isWord(scalar.value) {
                        word.unicodeScalars.append(scalar)
                        if !run.isEmpty { add(.part, run); add(.part, String(run.unicodeScalars.prefix(2))); run = "" }
                    } else {
                        if word.unicodeScalars.count > 3 { add(.part, String(word.unicodeScalars.prefix(3))); add(.part, String(word.unicodeScalars.prefix(2))) }
                        word = ""
                        if scalar == " " || scalar == "\u{FFFD}" {
                            if !run.isEmpty { add(.part, run); add(.part, String(run.unicodeScalars.prefix(1))); run = "" }
                        } else if run.unicodeScalars.count < 4 {
                            run.unicodeScalars.append(scalar)
                        }
                    }
                }
                }
            }
        }
        var rng = Fixtures.SeededGenerator(seed: seed)
        phrases.shuffle(using: &rng)
        phrases = Array(phrases.prefix(limit))
        // Phrases that normalise alike: distinct phrases with one pattern.
        for (kind, text) in phrases.prefix(200) where kind == .word {
            add(.word, text.uppercased())
        }
        return try ModelTextTests.model(mode, phrases: phrases)
    }

    /// Checks every body against the reference under `set`; returns the number of bodies with a phrase.
    @discardableResult
    func check(_ set: RuleSet, _ bodies: [[UInt8]], _ what: String) throws -> Int {
        let reference = try _ReferenceModelScan(set)
        let c = Classifier(ruleSet: set)
        var features: [Int32] = []
        var withPhrases = 0
        var failures = 0
        for body in bodies {
            let (want, got) = body.withUnsafeBytes { (reference.scan($0), _ReferenceModelScan.hashed(c, $0, features: &features)) }
            if !want.features.isEmpty { withPhrases += 1 }
            if want != got {
                failures += 1
                XCTFail("\(what) \(set.definition.normalization) body \(String(decoding: body, as: UTF8.self).debugDescription) \(body)\n  automaton: \(want)\n  hashed:    \(got)")
                if failures > 5 { break }
            }
        }
        return withPhrases
    }

    /// The word-at-a-time verification against a byte-by-byte one (every length 0–40, the text in both cases,
    /// one byte changed at each position), and the unfolded hash of high bytes against the folded one.
    func testVerifyAndHighHashAgreeWithTheirByteForms() {
        var rng = Fixtures.SeededGenerator(seed: 7)
        let alphabet: [UInt8] = Array("aZz09 -_@".utf8) + [0x80, 0xBF, 0xC3, 0xE0, 0xFF]
        for n in 0...40 {
            for _ in 0..<20 {
                let pattern = (0..<n).map { _ in Array("abcxyz019 -@".utf8).randomElement(using: &rng)! }
                let table = _ModelFeatureTable(patterns: [pattern], kinds: [.part])
                var texts = [pattern, pattern.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }]
                for i in 0..<n {
                    var t = pattern
                    t[i] = alphabet.randomElement(using: &rng)!
                    texts.append(t)
                }
                for t in texts {
                    let want = t.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 } == pattern
                    XCTAssertEqual(t.withUnsafeBufferPointer { table.tables.index.verify(0, $0.baseAddress ?? UnsafePointer(bitPattern: 8)!, n) }, want, "\(t) \(pattern)")
                }
            }
            let high = (0..<n).map { _ in UInt8.random(in: 0x80...0xFF, using: &rng) }
            high.withUnsafeBufferPointer { b in
                guard let p = b.baseAddress else { return }
                XCTAssertEqual(_highHash(p, n, seed: _ModelFeatureTable.partSeed), _foldedHash(p, n, seed: _ModelFeatureTable.partSeed))
            }
        }
        // The unspaced n-grams are hashed unfolded: no ASCII scalar is of an unspaced script.
        XCTAssertFalse((0..<0x80).contains { PhraseCandidates.isUnspaced(UInt32($0)) })
    }

    /// A word's key from one masked 8-byte load (the scan, when 8 bytes are readable) is the key the table
    /// built from the word's bytes alone, ASCII case ignored, whatever follows the word; words that differ
    /// get different keys here.
    func testWordKeyOfOneLoadIsItsByteForm() {
        var rng = Fixtures.SeededGenerator(seed: 11)
        let alphabet: [UInt8] = Array("aAzZ09q".utf8) + [0x80, 0xBF, 0xC3, 0xE0, 0xFF]
        for n in 1...20 {
            for _ in 0..<30 {
                let word = (0..<n).map { _ in alphabet.randomElement(using: &rng)! }
                let lower = word.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }
                let want = lower.withUnsafeBufferPointer { _wordKeySlow($0.baseAddress!, n) }
                for tail in 0...9 {
                    let text = word + (0..<tail).map { _ in alphabet.randomElement(using: &rng)! }
                    text.withUnsafeBufferPointer { b in
                        let p = b.baseAddress!
                        XCTAssertEqual(_wordKey(p, n, limit: p + b.count), want, "\(word) + \(tail)")
                        XCTAssertEqual(_wordKeySlow(p, n), want)
                    }
                }
                var other = lower
                other[n - 1] = other[n - 1] == 0x61 ? 0x62 : 0x61
                XCTAssertNotEqual(other.withUnsafeBufferPointer { _wordKeySlow($0.baseAddress!, n) }, want)
            }
        }
    }

    func testHashedScanIsTheAutomatonPathOnHostileText() throws {
        let bodies = Self.hostile(seed: 23, count: 3000) + (try GeneratedFixture.records().map { Array($0.body.utf8) })
        // The default model, over hostile text and the generated fixture.
        let found = try check(RuleSet.embeddedDefault, bodies, "default model")
        XCTAssertGreaterThan(found, bodies.count / 2)
        for mode in TextNormalization.allCases {
            let set = try Self.harvested(mode, Array(bodies.prefix(1500)), limit: 4000, seed: 23 + UInt64(mode.rawValue))
            XCTAssertGreaterThan(try XCTUnwrap(set.definition.model).phrases.count, 1000)
            try check(set, bodies, "harvested model")
        }
    }

    /// Every line of the real corpora (English, Thai, Indian bank messages, Chinese), under the default model
    /// and models harvested from the corpora themselves under every normalisation.
    func testHashedScanIsTheAutomatonPathOnRealCorpora() throws {
        let folder = try Corpora.forQualityFloor("ModelReferenceScanTests.testHashedScanIsTheAutomatonPathOnRealCorpora")
        var bodies: [[UInt8]] = []
        for name in ["uci_sms_spam.jsonl.zst", "thai_sms.jsonl.zst", "india_bank_sms.jsonl.zst", "nus_sms_zh.jsonl.zst"] {
            let lines = try GeneratedFixture.decompressed(folder.appendingPathComponent(name).path).split(separator: 0x0A)
            XCTAssertGreaterThan(lines.count, 3000, name)
            for line in lines {
                let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
                bodies.append(Array(try XCTUnwrap(o["body"] as? String).utf8))
            }
        }
        // (The Chinese messages, over half the lines, hold few of the default model's phrases.)
        let found = try check(RuleSet.embeddedDefault, bodies, "default model")
        XCTAssertGreaterThan(found, bodies.count / 3)
        var rng = Fixtures.SeededGenerator(seed: 2023)
        let sample = (0..<4000).map { _ in bodies.randomElement(using: &rng)! }
        for mode in TextNormalization.allCases {
            let set = try Self.harvested(mode, sample, limit: 12000, seed: 2023 + UInt64(mode.rawValue))
            try check(set, bodies, "harvested model")
        }
    }
}
