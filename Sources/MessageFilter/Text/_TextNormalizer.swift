// MARK: Internal API
//
// The engine of `TextNormalization`: body bytes in, normalised UTF-8 out, with for every output byte the
// span of the input it came from. Two steps over reused scratch (nothing is allocated per message once the
// buffers have grown to the longest body seen):
//
//   bytes ─▶ scalars (UTF-8 decoded; an invalid byte passes as itself) ─▶ compatibility mapping and removal
//         ─▶ words: look-alike letters mapped (mixed words), digits read as letters (leet)
//         ─▶ non-ASCII case folded, each run of white space one U+0020 ─▶ UTF-8 bytes + source spans
//
// Every mode, `none` included, reads a run of white space (`_isWhitespace`: tabs, line breaks, no-break and
// other Unicode spaces) as one space, whose span covers the whole run, so that a phrase of several words
// matches however its words are spaced (`none` does nothing else: `appendCollapsingSpaces`).
//
// Under `standard`, a body whose characters all normalise on their own (no decorating mark, bidi control or
// look-alike letter) is written in one pass instead (`appendLocal`: unchanged characters copied with their
// spans), with the same output.
//
// The buffers are `_NormalizerMemory`'s (allocated, grown and freed only there); the steps below reach them
// through the handles it lends for one call, callers read the output inside `withOutput { }`.

import AhoCorasick
import Foundation

/// One normaliser shared by `TextNormalization.apply` (phrases while compiling rule sets, tests), behind a
/// lock: making a normaliser per phrase cost more than normalising it.
final class _SharedNormalizer: @unchecked Sendable {
    let lock = NSLock()
    let normalizer = _TextNormalizer()
}

/// Reusable normalisation scratch. Not thread-safe: one per classifier (or per thread).
final class _TextNormalizer {
    /// The shared instance for `TextNormalization.apply` (use only with its lock held).
    static let forPhrases = _SharedNormalizer()

    let lookup = _NormalizationLookup.shared
    let flags = _ScalarFlags.shared

    // The buffers (`_NormalizerMemory`: one owner, freed with this object) and how much of them is written.
    // One normaliser is used by one thread and never re-entrantly, so the dynamic exclusivity checks on its
    // fields (a runtime call per access in the per-character loops: 12% of classifying Thai) are switched off.
    @exclusivity(unchecked) private var memory: _NormalizerMemory
    /// Scalars after the compatibility step (`decode`), each with its source span.
    @exclusivity(unchecked) private var scalarCount = 0
    /// Output bytes written so far (several bodies in append mode), each with its source span.
    @exclusivity(unchecked) private(set) var count = 0
    #if MESSAGEFILTER_INTERNAL_CHECKS
    /// `withOutput` scopes open: nothing may write (the output would move under them).
    private var lent = 0
    #endif

    /// Raw (undecodable) bytes travel as scalars with this bit set.
    static let rawBit: UInt32 = 0x8000_0000

    init(capacity: Int = 1024) {
        memory = _NormalizerMemory(capacity: capacity)
    }

    /// Calls `body` with the output so far and, for each output byte, where its source character starts and
    /// ends in its body. Nothing may normalise into this normaliser inside `body` (checked with
    /// `-DMESSAGEFILTER_INTERNAL_CHECKS`).
    /// - warning: Do not escape the pointers: the buffers move when they grow.
    @inline(__always)
    func withOutput<R, E: Error>(
        _ body: (UnsafeRawBufferPointer, _ sourceStart: UnsafeBufferPointer<Int32>, _ sourceEnd: UnsafeBufferPointer<Int32>) throws(E) -> R
    ) throws(E) -> R {
        #if MESSAGEFILTER_INTERNAL_CHECKS
        lent += 1
        defer { lent -= 1 }
        #endif
        // (Taken before the call, so that the normaliser is not held across `body`: its owner holds it.)
        let (text, starts, ends) = memory.output(count: count)
        return try body(text, starts, ends)
    }

    /// Forgets the output (keeps the buffers).
    func reset() {
        #if MESSAGEFILTER_INTERNAL_CHECKS
        precondition(lent == 0, "_TextNormalizer: reset inside withOutput")
        #endif
        count = 0
    }

    /// Normalises `body` alone (the output replaces the previous one).
    func normalize(_ body: UnsafeRawBufferPointer, mode: TextNormalization) {
        count = 0
        _ = append(body, mode: mode)
    }

    /// Normalises `body` and appends it to the output; returns its range in the output. Source spans are
    /// relative to `body`.
    func append(_ body: UnsafeRawBufferPointer, mode: TextNormalization) -> Range<Int> {
        #if MESSAGEFILTER_INTERNAL_CHECKS
        precondition(lent == 0, "_TextNormalizer: normalising inside withOutput")
        #endif
        let first = count
        if mode == .none {
            appendCollapsingSpaces(body)
        } else if !(mode == .standard && usesLocalPath && appendLocal(body)) {
            decode(body)
            emitWords(leet: mode == .leet)
        }
        #if MESSAGEFILTER_INTERNAL_CHECKS
        _checkInvariants(appended: first..<count, bodyCount: body.count)
        #endif
        return first..<count
    }

    /// Whether `standard` bodies take `appendLocal` when they can (tests switch it off to compare it with the
    /// two steps).
    @exclusivity(unchecked) var usesLocalPath = true

    /// `standard` in one pass, for a body in which every character normalises on its own: no decorating mark
    /// (which composes with, or is dropped after, the letter before it), no bidi control (which reorders a
    /// run), no look-alike letter `standard` reads (whose reading depends on its whole word: the skeleton of
    /// `emitWords`), none in a compatibility replacement either (`isLocalUnderStandard`). Then `decode` maps
    /// each scalar alone and `emitWords` writes each decoded scalar case-folded with its source span, so this
    /// writes the same: unchanged characters (most of a Thai or Chinese body that `standard` rewrites for a
    /// SARA AM or a fullwidth comma) are copied byte for byte with their spans instead of being decoded into
    /// scalars and encoded again. Returns false, with the output as it was, when the body has another
    /// character (the two steps then run). `TextNormalizationTests` checks it against them.
    func appendLocal(_ body: UnsafeRawBufferPointer) -> Bool {
        let n = body.count
        let first = count
        // Every scalar writes at most 4 bytes per byte it came from, but expanding replacements (grown there).
        memory.reserveBytes(count &+ 4 &* n, keeping: count)
        var w = memory.sink(count: count, flags: flags)
        let lookup = self.lookup
        let flags = self.flags
        var i = 0
        while i < n {
            let b0 = body[i]
            let s = Int32(truncatingIfNeeded: i)
            if b0 < 0x80 {
                if b0 == 0x20 || b0 &- 0x09 < 5 {
                    w.putSpace(s, s &+ 1, first: first)
                    i &+= 1
                    continue
                }
                // This byte and the plain ASCII after it (no control character, no space after a space: each
                // space in it follows a byte that is not one, so it is written as it is) copied at once.
                let j = _skipPlainASCII(body, from: i &+ 1)
                w.copy(body, i, j)
                i = j
                continue
            }
            let (v, len) = _decodeUTF8Inline(body, i)
            if len == 0 {
                w.put(Self.rawBit | UInt32(b0), s, s &+ 1)
                i &+= 1
                continue
            }
            let e = s &+ Int32(truncatingIfNeeded: len)
            let f = flags.of(v)
            if f & (_ScalarFlags.normalizes | _ScalarFlags.folds | _ScalarFlags.space) == 0 {
                w.copyCharacter(body, i, len, b0, s, e)
                i &+= len
                continue
            }
            if f & _ScalarFlags.space != 0 {
                w.putSpace(s, e, first: first)
                i &+= len
                continue
            }
            if f & _ScalarFlags.normalizes != 0 {
                if f & _ScalarFlags.decorates != 0 || v >= 0x202A && v <= 0x202E || v >= 0x2066 && v <= 0x2069 {
                    count = first
                    return false
                }
                let x = lookup.entry(v)
                if x >= 0 {
                    if !lookup.isLocalUnderStandard[x] {
                        count = first
                        return false
                    }
                    if lookup.replacementStart[x] >= 0 {
                        putReplacement(x, s, e, remaining: n &- i, first: first, into: &w)
                        i &+= len
                        continue
                    }
                }
            }
            // Case folded, or a table entry without a replacement that `standard` does not read.
            w.put(v, s, e)
            i &+= len
        }
        count = w.count
        return true
    }

    /// `appendLocal`'s write of entry `x`'s compatibility replacement for the character from bytes `s..<e`, with
    /// `remaining` bytes of the body from it on: the buffers grown when it expands, a white-space scalar in it
    /// read as a space.
    private func putReplacement(_ x: Int, _ s: Int32, _ e: Int32, remaining: Int, first: Int, into w: inout _ByteSink) {
        let start = Int(lookup.replacementStart[x])
        let k = Int(lookup.replacementCount[x])
        if w.count &+ 4 &* k &+ 4 &* remaining > memory.byteCapacity {
            count = w.count
            memory.reserveBytes(count &+ 4 &* k &+ 4 &* remaining, keeping: count)
            w = memory.sink(count: count, flags: flags)
        }
        var q = 0
        while q < k {
            let r = lookup.replacements[start &+ q]
            if _isWhitespace(r) { w.putSpace(s, e, first: first) } else { w.put(r, s, e) }
            q &+= 1
        }
    }

    /// `none`: the body as it is, but for white space: each run of white-space characters (`_isWhitespace`)
    /// becomes one U+0020 whose span covers the run; every other byte is copied with its own span (invalid
    /// UTF-8 included). The output is never longer than the body.
    func appendCollapsingSpaces(_ body: UnsafeRawBufferPointer) {
        let n = body.count
        let first = count
        memory.reserveBytes(count &+ n, keeping: count)
        var w = memory.sink(count: count, flags: flags)
        var i = 0
        while i < n {
            let b = body[i]
            let s = Int32(truncatingIfNeeded: i)
            if b == 0x20 || b &- 0x09 < 5 {
                w.putSpace(s, s &+ 1, first: first)
                i &+= 1
                continue
            }
            if b &- 0xC2 < 0x22 {
                // The lead bytes of the non-ASCII white space are C2, E1, E2 and E3.
                let (v, len) = _decodeUTF8(body, i)
                if len > 0, _isWhitespace(v) {
                    w.putSpace(s, s &+ Int32(truncatingIfNeeded: len), first: first)
                    i &+= len
                    continue
                }
            }
            w.bytes[w.count] = b
            w.starts[w.count] = s
            w.ends[w.count] = s &+ 1
            w.count &+= 1
            i &+= 1
        }
        count = w.count
    }

    // MARK: Steps

    /// `decode`'s state between characters: the scalar buffers (lent by the memory, taken again after the rare
    /// expanding replacement grows them), the scalars written, the last scalar a mark may compose with (-1: none) and
    /// the highest combining class of the marks left between it and the next mark (blocking, as NFC's
    /// composition does), and a right-to-left override (U+202E) open since scalar `override` (-1: none),
    /// from byte `overrideSource`, with `overrideDepth` embeddings open.
    private struct DecodeState {
        var c: _ScalarColumns
        var out = 0
        var starter = -1
        var blocking: UInt8 = 0
        var override = -1
        var overrideSource: Int32 = 0
        var overrideDepth = 0

        /// Writes scalar `v` from bytes `[i, i + len)`.
        @inline(__always)
        mutating func put(_ v: UInt32, _ i: Int, _ len: Int) {
            c.put(out, v, Int32(truncatingIfNeeded: i), Int32(truncatingIfNeeded: i &+ len))
            out &+= 1
        }
    }

    /// UTF-8 → scalars, with compatibility mappings applied, invisible controls removed, decomposed accents
    /// composed, decorating marks on Latin-like letters dropped, and runs under a right-to-left override
    /// put back in the order they are seen in.
    private func decode(_ body: UnsafeRawBufferPointer) {
        scalarCount = 0
        memory.reserveScalars(body.count, keeping: 0)  // one scalar per byte at most, except expanding replacements (grown there)
        var i = 0
        let n = body.count
        var d = DecodeState(c: memory.scalars)
        while i < n {
            let b0 = body[i]
            if b0 < 0x80 {
                if d.override >= 0, b0 == 0x0A || b0 == 0x0D {
                    reverse(d.override, d.out, from: d.overrideSource, to: Int32(truncatingIfNeeded: i))
                    d.override = -1
                }
                d.starter = d.out
                d.blocking = 0
                d.put(UInt32(b0), i, 1)
                i &+= 1
                continue
            }
            let (v, len) = _decodeUTF8(body, i)
            if len == 0 {
                d.starter = -1
                d.put(Self.rawBit | UInt32(b0), i, 1)
                i &+= 1
                continue
            }
            // Most scalars have no table entry (the flags say so without the two-stage lookup).
            let f = flags.of(v)
            if f & _ScalarFlags.normalizes != 0, decodeEntry(v, f, i, len, n, &d) {
                i &+= len
                continue
            }
            if f & _ScalarFlags.combines == 0 {
                d.starter = d.out
                d.blocking = 0
            } else {
                d.blocking = max(d.blocking, lookup.combiningClass[v] ?? 230)
            }
            d.put(v, i, len)
            i &+= len
        }
        if d.override >= 0 { reverse(d.override, d.out, from: d.overrideSource, to: Int32(truncatingIfNeeded: n)) }
        scalarCount = d.out
    }

    /// `decode` of scalar `v` (flags `f`, with a table entry or a decorating mark) from bytes `[i, i + len)` of
    /// an `n`-byte body: a bidi control, a compatibility replacement or removal, a decorating mark. Returns
    /// false when the scalar is written as any other (the caller does it).
    @inline(__always)
    private func decodeEntry(_ v: UInt32, _ f: UInt8, _ i: Int, _ len: Int, _ n: Int, _ d: inout DecodeState) -> Bool {
        if v >= 0x202A && v <= 0x202E || v >= 0x2066 && v <= 0x2069 || v == 0x2029 {
            // Bidi embeddings and overrides (removed, as invisible controls): text under a right-to-left
            // override is shown reversed, so it is read reversed.
            if d.override >= 0 {
                if v == 0x202C || v == 0x2069 { d.overrideDepth -= 1 } else if v != 0x2029 { d.overrideDepth += 1 }
                if d.overrideDepth <= 0 || v == 0x2029 {
                    reverse(d.override, d.out, from: d.overrideSource, to: Int32(truncatingIfNeeded: i &+ len))
                    d.override = -1
                }
            } else if v == 0x202E {
                d.override = d.out
                d.overrideSource = Int32(truncatingIfNeeded: i)
                d.overrideDepth = 1
            }
            if v != 0x2029 { return true }
        }
        let e = lookup.entry(v)
        if e >= 0, lookup.replacementStart[e] >= 0 {
            let start = Int(lookup.replacementStart[e])
            let k = Int(lookup.replacementCount[e])
            scalarCount = d.out
            memory.reserveScalars(d.out + k + (n - i), keeping: d.out)
            d.c = memory.scalars
            var q = 0
            while q < k {
                d.put(lookup.replacements[start + q], i, len)
                q += 1
            }
            if k > 0 {
                d.starter = d.out - 1
                d.blocking = 0
            }
            return true
        }
        guard f & _ScalarFlags.decorates != 0, d.starter >= 0 else { return false }
        let ccc = lookup.combiningClass[v] ?? 230
        if d.blocking == 0 || d.blocking < ccc, let composite = lookup.compositions[UInt64(d.c.value[d.starter]) << 32 | UInt64(v)] {
            // NFD → NFC: the mark joins its base (its span grows to cover the mark).
            d.c.value[d.starter] = composite
            d.c.end[d.starter] = Int32(truncatingIfNeeded: i &+ len)
            return true
        }
        if v < 0x3099, Self.isLatinLike(d.c.value[d.starter]) {
            // Decoration on a Latin-like letter (strike-through, underline, Zalgo): dropped; the scalar
            // before it covers its bytes.
            d.c.end[d.out - 1] = Int32(truncatingIfNeeded: i &+ len)
            return true
        }
        d.blocking = max(d.blocking, ccc)
        d.put(v, i, len)
        return true
    }

    /// Whether `v` is a letter of Latin, Greek, Cyrillic or Cherokee (the scripts whose letters spam decorates
    /// with combining marks), by block.
    @inline(__always)
    static func isLatinLike(_ v: UInt32) -> Bool {
        switch v {
        case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F, 0x250...0x2AF, 0x370...0x3FF, 0x400...0x52F, 0x13A0...0x13FF,
             0x1D00...0x1DBF, 0x1E00...0x1FFF, 0x2C60...0x2C7F, 0xA640...0xA69F, 0xA720...0xA7FF, 0xAB30...0xABBF,
             0xFF21...0xFF3A, 0xFF41...0xFF5A:
            return true
        default:
            return false
        }
    }

    /// Puts the scalars `[a, b)` (text under a right-to-left override) in the order they are displayed in:
    /// reversed, each combining mark kept after its base. Every scalar of the run then covers the whole
    /// run's bytes `from..<to`, so spans stay in order (a match inside it points at the run).
    private func reverse(_ a: Int, _ b: Int, from: Int32, to: Int32) {
        let c = memory.scalars
        let scalars = c.value
        guard b - a > 1 else {
            if b > a { c.start[a] = from; c.end[a] = to }
            return
        }
        func flip(_ x: Int, _ y: Int) {
            var l = x, r = y - 1
            while l < r {
                let t = scalars[l]
                scalars[l] = scalars[r]
                scalars[r] = t
                l += 1
                r -= 1
            }
        }
        flip(a, b)
        // Marks now stand before their base: put each cluster back in order.
        var k = a
        while k < b {
            var m = k
            while m < b, scalars[m] & Self.rawBit == 0, flags.of(scalars[m]) & _ScalarFlags.combines != 0 { m += 1 }
            if m > k, m < b {
                flip(k, m + 1)
                k = m + 1
            } else {
                k = max(m, k + 1)
            }
        }
        for q in a..<b {
            c.start[q] = from
            c.end[q] = to
        }
    }

    @inline(__always)
    func isWord(_ v: UInt32) -> Bool {
        if v & Self.rawBit != 0 { return false }
        return flags.isWord(v)
    }

    @inline(__always)
    static func isASCIILetter(_ v: UInt32) -> Bool { v < 0x80 && (v | 0x20) >= 0x61 && (v | 0x20) <= 0x7A }

    /// Words and the characters between them → output bytes.
    private func emitWords(leet: Bool) {
        if leet { joinSpacedLetters() }
        let n = scalarCount
        // Each scalar writes at most 4 bytes: grow once, then write through local pointers.
        memory.reserveBytes(count + 4 * n, keeping: count)
        let first = count
        var w = memory.sink(count: count, flags: flags)
        defer { count = w.count }
        let columns = memory.scalars
        let scalars = columns.value
        let scalarStart = columns.start
        let scalarEnd = columns.end
        var i = 0
        while i < n {
            let v = scalars[i]
            if !isWord(v) {
                if v & Self.rawBit == 0, _isWhitespace(v) {
                    w.putSpace(scalarStart[i], scalarEnd[i], first: first)
                    i += 1
                    continue
                }
                var out = v
                if leet, v == 0x40 || v == 0x24, i > 0, i + 1 < n, Self.isASCIILetter(scalars[i - 1]), Self.isASCIILetter(scalars[i + 1]) {
                    out = v == 0x40 ? 0x61 : 0x73  // @ → a, $ → s
                }
                w.put(out, scalarStart[i], scalarEnd[i])
                i += 1
                continue
            }
            // A word: [i, j).
            var j = i
            var asciiLetter = false
            var asciiDigit = false
            var nonASCII = 0
            var lookalikes = 0
            while j < n, isWord(scalars[j]) {
                let c = scalars[j]
                if c < 0x80 {
                    if c <= 0x39 { asciiDigit = true } else { asciiLetter = true }
                } else {
                    nonASCII += 1
                    if flags.of(c) & _ScalarFlags.normalizes != 0 {
                        let e = lookup.entry(c)
                        if e >= 0, lookup.lookalike[e] != 0, leet || lookup.lookalike[e] & _NormalizationLookup.leetOnly == 0 { lookalikes += 1 }
                    }
                }
                j += 1
            }
            let skeleton = lookalikes > 0 && (asciiLetter || lookalikes == nonASCII)
            let digitsAsLetters = leet && asciiDigit && (asciiLetter || (skeleton && lookalikes > 0))
            var k = i
            while k < j {
                var c = scalars[k]
                if skeleton, c >= 0x80 {
                    let e = lookup.entry(c)
                    if e >= 0, lookup.lookalike[e] != 0, leet || lookup.lookalike[e] & _NormalizationLookup.leetOnly == 0 {
                        c = UInt32(lookup.lookalike[e] & 0x7F)
                    }
                }
                if leet, c < 0x80 {
                    if digitsAsLetters {
                        switch c {
                        case 0x30: c = 0x6F  // 0 → o
                        case 0x31: c = 0x69  // 1 → i
                        case 0x33: c = 0x65  // 3 → e
                        case 0x34: c = 0x61  // 4 → a
                        case 0x35: c = 0x73  // 5 → s
                        case 0x37: c = 0x74  // 7 → t
                        case 0x38: c = 0x62  // 8 → b
                        default: break
                        }
                    }
                    if c == 0x6C { c = 0x69 } else if c == 0x4C { c = 0x49 }  // l → i, L → I
                }
                w.put(c, scalarStart[k], scalarEnd[k])
                k += 1
            }
            i = j
        }
    }
}

extension _TextNormalizer {
    /// `leet`: letters spelled out with separators read as one word. A run of at least three single letters
    /// (or digits) joined by one and the same separator (`.`, `-`, `_`, `*`, `·`, `•` or a space:
    /// `l.o.t.t.e.r.y`, `l o t t e r y`, `U.S.A`) loses its separators; and a no-break or other non-ASCII
    /// space between two letters (`lot\u{A0}tery`) is dropped. Scalars keep their spans (a match covers the
    /// separators between its letters).
    func joinSpacedLetters() {
        let n = scalarCount
        let c = memory.scalars
        let scalars = c.value
        @inline(__always) func single(_ k: Int) -> Bool {
            isWord(scalars[k]) && (k == 0 || !isWord(scalars[k - 1])) && (k + 1 == n || !isWord(scalars[k + 1]))
        }
        @inline(__always) func isSeparator(_ v: UInt32) -> Bool {
            v == 0x2E || v == 0x2D || v == 0x5F || v == 0x2A || v == 0x20 || v == 0xB7 || v == 0x2022
        }
        var r = 0
        var w = 0
        @inline(__always) func copy(_ k: Int) {
            c.copy(k, to: w)
            w += 1
        }
        while r < n {
            let v = scalars[r]
            if r + 2 < n, isSeparator(scalars[r + 1]), single(r), single(r + 2) {
                let separator = scalars[r + 1]
                var k = r
                var letters = 1
                while k + 2 < n, scalars[k + 1] == separator, single(k + 2) {
                    k += 2
                    letters += 1
                }
                if letters >= 3 {
                    var q = r
                    while q <= k {
                        copy(q)
                        q += 2
                    }
                    r = k + 1
                    continue
                }
            }
            // A non-ASCII space (read as U+0020, but from more than one byte) between two letters.
            if v == 0x20, c.end[r] - c.start[r] > 1, w > 0, r + 1 < n, isWord(scalars[w - 1]), isWord(scalars[r + 1]) {
                r += 1
                continue
            }
            copy(r)
            r += 1
        }
        scalarCount = w
    }
}

// MARK: Internal checks

extension _TextNormalizer {
    /// What breaks the invariants after `append` wrote `range` of the output from a body of `bodyCount` bytes, or
    /// nil when they hold: the memory holds what was written (`_NormalizerMemory._invariantProblem`), the range
    /// ends the output, every output byte of it has a source span inside its body. O(range).
    func _invariantProblem(appended range: Range<Int>, bodyCount: Int) -> String? {
        if let problem = memory._invariantProblem(scalarCount: scalarCount, byteCount: count) { return problem }
        guard range.upperBound == count else { return "_TextNormalizer: the appended range \(range) is not the output's end (\(count))" }
        return withOutput { _, starts, ends in
            for i in range where !(starts[i] >= 0 && starts[i] <= ends[i] && Int(ends[i]) <= bodyCount) {
                return "_TextNormalizer: output byte \(i) has source span \(starts[i])..<\(ends[i]) in a body of \(bodyCount) bytes"
            }
            return nil
        }
    }

    /// Traps with `_invariantProblem`'s finding (after every `append` with `-DMESSAGEFILTER_INTERNAL_CHECKS`).
    func _checkInvariants(appended range: Range<Int>, bodyCount: Int) {
        if let problem = _invariantProblem(appended: range, bodyCount: bodyCount) { preconditionFailure(problem) }
    }
}
