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
// The buffers are raw pointers owned by the normaliser (allocated, grown and freed only here); callers see
// them through `output`, `sourceStart` and `sourceEnd`, valid until the next call.

import AhoCorasick
import Foundation

/// The per-scalar lookup of `_NormalizationTables`: a two-stage table (high bits → block, low byte → entry),
/// built on first use.
final class _NormalizationLookup: Sendable {
    static let shared = _NormalizationLookup()

    /// `scalar >> 8` → block number, 0xFFFF when the block has no entry.
    let stage1: [UInt16]
    /// `block << 8 | scalar & 0xFF` → entry + 1 (0: none).
    let stage2: [UInt16]
    /// Per entry: start of the compatibility replacement in `replacements`, -1 when there is none.
    let replacementStart: [Int32]
    let replacementCount: [UInt8]
    let replacements: [UInt32]
    /// Per entry: the ASCII letter the scalar imitates, 0 when none; with ``leetOnly`` set, a reading that
    /// only `leet` makes (other scripts' look-alikes, accented Latin letters).
    let lookalike: [UInt8]
    static let leetOnly: UInt8 = 0x80
    /// Per entry: whether `standard` maps its scalar on its own, whatever stands around it: it is no look-alike
    /// letter `standard` reads (no `lookalike` without ``leetOnly``), nor is any scalar of its compatibility
    /// replacement. (A look-alike letter's reading depends on its whole word; see `_TextNormalizer.appendLocal`.)
    let isLocalUnderStandard: [Bool]
    /// Canonical composition: `first << 32 | second` → composite (NFC's pairs).
    let compositions: [UInt64: UInt32]
    /// The canonical combining class of each scalar that is the second of a composition pair.
    let combiningClass: [UInt32: UInt8]

    init() {
        var map: [UInt32: (repl: [UInt32]?, look: UInt8)] = Dictionary(minimumCapacity: 9_200)
        Self.entries(_NormalizationTables.compatibility) { key, value in
            var repl: [UInt32] = []
            var v: UInt32 = 0
            var digits = 0
            for b in value {
                if b == 0x20 {
                    if digits > 0 { repl.append(v) }
                    v = 0
                    digits = 0
                } else {
                    v = v << 4 | Self.hexDigit(b)
                    digits += 1
                }
            }
            if digits > 0 { repl.append(v) }
            map[key, default: (nil, 0)].repl = repl
        }
        Self.entries(_NormalizationTables.confusables) { key, value in
            map[key, default: (nil, 0)].look = value.first!
        }
        Self.entries(_NormalizationTables.leetConfusables) { key, value in
            if map[key]?.look ?? 0 == 0 { map[key, default: (nil, 0)].look = value.first! | Self.leetOnly }
        }
        compositions = Self.compositionPairs()
        combiningClass = Self.combiningClasses()
        var s1 = [UInt16](repeating: 0xFFFF, count: 0x1100)
        var s2: [UInt16] = []
        var starts: [Int32] = []
        var counts: [UInt8] = []
        var flat: [UInt32] = []
        var looks: [UInt8] = []
        for key in map.keys.sorted() {
            let (repl, look) = map[key]!
            let block = Int(key >> 8)
            if s1[block] == 0xFFFF {
                s1[block] = UInt16(s2.count >> 8)
                s2 += [UInt16](repeating: 0, count: 256)
            }
            s2[Int(s1[block]) << 8 | Int(key & 0xFF)] = UInt16(looks.count + 1)
            if let repl {
                starts.append(Int32(flat.count))
                counts.append(UInt8(repl.count))
                flat += repl
            } else {
                starts.append(-1)
                counts.append(0)
            }
            looks.append(look)
        }
        stage1 = s1
        stage2 = s2
        replacementStart = starts
        replacementCount = counts
        replacements = flat
        lookalike = looks
        // (`entry` on the tables just built, before `self` is complete.)
        func standardLookalike(_ scalar: UInt32) -> Bool {
            let hi = Int(scalar >> 8)
            guard hi < s1.count, s1[hi] != 0xFFFF else { return false }
            let e = Int(s2[Int(s1[hi]) << 8 | Int(scalar & 0xFF)]) - 1
            return e >= 0 && looks[e] != 0 && looks[e] & Self.leetOnly == 0
        }
        isLocalUnderStandard = map.keys.sorted().map { key in
            let (repl, _) = map[key]!
            return !standardLookalike(key) && !(repl ?? []).contains(where: standardLookalike)
        }
    }

    /// NFC's composition pairs from `_NormalizationTables.compositions`: items `A B:C` (hex), read from the
    /// UTF-8 bytes.
    static func compositionPairs() -> [UInt64: UInt32] {
        var pairs: [UInt64: UInt32] = Dictionary(minimumCapacity: 1_000)
        var numbers: [UInt32] = []
        var v: UInt32 = 0
        var digits = 0
        for b in _NormalizationTables.compositions.utf8 {
            if b == 0x20 || b == 0x3A || b == 0x3B || b == 0x0A {
                if digits > 0 { numbers.append(v) }
                v = 0
                digits = 0
                if b == 0x3B, numbers.count == 3 { pairs[UInt64(numbers[0]) << 32 | UInt64(numbers[1])] = numbers[2] }
                if b == 0x3B { numbers.removeAll(keepingCapacity: true) }
            } else {
                v = v << 4 | Self.hexDigit(b)
                digits += 1
            }
        }
        return pairs
    }

    /// The canonical combining classes of `_NormalizationTables.combiningClasses`.
    static func combiningClasses() -> [UInt32: UInt8] {
        var classes: [UInt32: UInt8] = [:]
        Self.entries(_NormalizationTables.combiningClasses) { key, value in
            var v: UInt32 = 0
            for b in value { v = v << 4 | Self.hexDigit(b) }
            classes[key] = UInt8(v)
        }
        return classes
    }

    /// Calls `entry(scalar, value bytes)` for each `HEX:value` item of a table (items separated by `;` or line
    /// breaks, leading spaces ignored). Parses UTF-8 bytes: splitting the 9,000 items as `Character`s cost
    /// 113M instructions at every start (callgrind), a quarter of `classify`'s start-up.
    static func entries(_ table: String, _ entry: (UInt32, ArraySlice<UInt8>) -> Void) {
        let bytes = Array(table.utf8)
        let n = bytes.count
        var i = 0
        while i < n {
            while i < n, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x3B { i += 1 }
            guard i < n else { break }
            var key: UInt32 = 0
            while i < n, bytes[i] != 0x3A {
                key = key << 4 | hexDigit(bytes[i])
                i += 1
            }
            precondition(i < n, "normalisation table: an item without a colon")
            i += 1
            let start = i
            while i < n, bytes[i] != 0x3B, bytes[i] != 0x0A { i += 1 }
            entry(key, bytes[start..<i])
        }
    }

    static func hexDigit(_ b: UInt8) -> UInt32 {
        switch b {
        case 0x30...0x39: UInt32(b - 0x30)
        case 0x41...0x46: UInt32(b - 0x41 + 10)
        case 0x61...0x66: UInt32(b - 0x61 + 10)
        default: preconditionFailure("normalisation table: \(b) is not a hex digit")
        }
    }

    /// The entry of `scalar`, -1 when it has none.
    @inline(__always)
    func entry(_ scalar: UInt32) -> Int {
        let hi = Int(scalar >> 8)
        guard hi < stage1.count else { return -1 }
        let block = stage1[hi]
        if block == 0xFFFF { return -1 }
        return Int(stage2[Int(block) << 8 | Int(scalar & 0xFF)]) - 1
    }
}

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

    // One normaliser is used by one thread and never re-entrantly, so the dynamic exclusivity checks on its
    // fields (a runtime call per access in the per-character loops: 12% of classifying Thai) are switched off.

    // Scalars after the compatibility step, with the source span of each.
    @exclusivity(unchecked) private var scalars: UnsafeMutablePointer<UInt32>
    @exclusivity(unchecked) private var scalarStart: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var scalarEnd: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var scalarCapacity: Int
    @exclusivity(unchecked) private var scalarCount = 0

    // Output bytes, with the source span of each.
    @exclusivity(unchecked) private var bytes: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var starts: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var ends: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var capacity: Int
    /// Output bytes written so far (several bodies in append mode).
    @exclusivity(unchecked) private(set) var count = 0

    /// Raw (undecodable) bytes travel as scalars with this bit set.
    static let rawBit: UInt32 = 0x8000_0000

    init(capacity: Int = 1024) {
        scalarCapacity = capacity
        scalars = .allocate(capacity: capacity)
        scalarStart = .allocate(capacity: capacity)
        scalarEnd = .allocate(capacity: capacity)
        self.capacity = capacity
        bytes = .allocate(capacity: capacity)
        starts = .allocate(capacity: capacity)
        ends = .allocate(capacity: capacity)
    }

    deinit {
        scalars.deallocate()
        scalarStart.deallocate()
        scalarEnd.deallocate()
        bytes.deallocate()
        starts.deallocate()
        ends.deallocate()
    }

    /// The output so far (valid until the next call that writes).
    var output: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: bytes, count: count) }
    /// For output byte `i`: where its source character starts and ends in its body.
    var sourceStart: UnsafeBufferPointer<Int32> { UnsafeBufferPointer(start: starts, count: count) }
    var sourceEnd: UnsafeBufferPointer<Int32> { UnsafeBufferPointer(start: ends, count: count) }

    /// Forgets the output (keeps the buffers).
    func reset() { count = 0 }

    /// Normalises `body` alone (the output replaces the previous one).
    func normalize(_ body: UnsafeRawBufferPointer, mode: TextNormalization) {
        count = 0
        _ = append(body, mode: mode)
    }

    /// Normalises `body` and appends it to the output; returns its range in the output. Source spans are
    /// relative to `body`.
    func append(_ body: UnsafeRawBufferPointer, mode: TextNormalization) -> Range<Int> {
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

    /// Checks what `append` wrote (only with `-DMESSAGEFILTER_INTERNAL_CHECKS`): the buffers hold what was
    /// written, and every output byte's source span lies within its body. Traps with what broke.
    func _checkInvariants(appended range: Range<Int>, bodyCount: Int) {
        precondition(count <= capacity && scalarCount <= scalarCapacity, "_TextNormalizer: wrote past its buffers")
        precondition(range.lowerBound <= range.upperBound && range.upperBound == count, "_TextNormalizer: the appended range is not the output's end")
        for i in range {
            precondition(starts[i] >= 0 && starts[i] <= ends[i] && Int(ends[i]) <= bodyCount,
                         "_TextNormalizer: output byte \(i) has source span \(starts[i])..<\(ends[i]) in a body of \(bodyCount) bytes")
        }
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
        growBytes(count &+ 4 &* n)
        var w = _ByteSink(bytes: bytes, starts: starts, ends: ends, count: count, flags: flags)
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
                w.copyCharacter(body, i, len)
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
        if w.count &+ 4 &* k &+ 4 &* remaining > capacity {
            count = w.count
            growBytes(count &+ 4 &* k &+ 4 &* remaining)
            w = _ByteSink(bytes: bytes, starts: starts, ends: ends, count: count, flags: flags)
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
        growBytes(count &+ n)
        var w = _ByteSink(bytes: bytes, starts: starts, ends: ends, count: count, flags: flags)
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

    private func growScalars(_ needed: Int) {
        guard needed > scalarCapacity else { return }
        _GrowableStorage.grow(
            &scalars, &scalarStart, &scalarEnd, count: scalarCount, capacity: &scalarCapacity, toHold: needed)
    }

    private func growBytes(_ needed: Int) {
        guard needed > capacity else { return }
        _GrowableStorage.grow(&bytes, &starts, &ends, count: count, capacity: &capacity, toHold: needed)
    }

    /// `decode`'s state between characters: the scalar buffers (locals, re-read after the rare expanding
    /// replacement grows them), the scalars written, the last scalar a mark may compose with (-1: none) and
    /// the highest combining class of the marks left between it and the next mark (blocking, as NFC's
    /// composition does), and a right-to-left override (U+202E) open since scalar `override` (-1: none),
    /// from byte `overrideSource`, with `overrideDepth` embeddings open.
    private struct DecodeState {
        var sc: UnsafeMutablePointer<UInt32>
        var ss: UnsafeMutablePointer<Int32>
        var se: UnsafeMutablePointer<Int32>
        var out = 0
        var starter = -1
        var blocking: UInt8 = 0
        var override = -1
        var overrideSource: Int32 = 0
        var overrideDepth = 0

        /// Writes scalar `v` from bytes `[i, i + len)`.
        @inline(__always)
        mutating func put(_ v: UInt32, _ i: Int, _ len: Int) {
            sc[out] = v
            ss[out] = Int32(truncatingIfNeeded: i)
            se[out] = Int32(truncatingIfNeeded: i &+ len)
            out &+= 1
        }
    }

    /// UTF-8 → scalars, with compatibility mappings applied, invisible controls removed, decomposed accents
    /// composed, decorating marks on Latin-like letters dropped, and runs under a right-to-left override
    /// put back in the order they are seen in.
    private func decode(_ body: UnsafeRawBufferPointer) {
        scalarCount = 0
        growScalars(body.count)  // one scalar per byte at most, except expanding replacements (grown there)
        var i = 0
        let n = body.count
        var d = DecodeState(sc: scalars, ss: scalarStart, se: scalarEnd)
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
            growScalars(d.out + k + (n - i))
            d.sc = scalars; d.ss = scalarStart; d.se = scalarEnd
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
        if d.blocking == 0 || d.blocking < ccc, let composite = lookup.compositions[UInt64(d.sc[d.starter]) << 32 | UInt64(v)] {
            // NFD → NFC: the mark joins its base (its span grows to cover the mark).
            d.sc[d.starter] = composite
            d.se[d.starter] = Int32(truncatingIfNeeded: i &+ len)
            return true
        }
        if v < 0x3099, Self.isLatinLike(d.sc[d.starter]) {
            // Decoration on a Latin-like letter (strike-through, underline, Zalgo): dropped; the scalar
            // before it covers its bytes.
            d.se[d.out - 1] = Int32(truncatingIfNeeded: i &+ len)
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
        guard b - a > 1 else {
            if b > a { scalarStart[a] = from; scalarEnd[a] = to }
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
            scalarStart[q] = from
            scalarEnd[q] = to
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
        growBytes(count + 4 * n)
        let first = count
        var w = _ByteSink(bytes: bytes, starts: starts, ends: ends, count: count, flags: flags)
        defer { count = w.count }
        let scalars = self.scalars
        let scalarStart = self.scalarStart
        let scalarEnd = self.scalarEnd
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
        @inline(__always) func single(_ k: Int) -> Bool {
            isWord(scalars[k]) && (k == 0 || !isWord(scalars[k - 1])) && (k + 1 == n || !isWord(scalars[k + 1]))
        }
        @inline(__always) func isSeparator(_ v: UInt32) -> Bool {
            v == 0x2E || v == 0x2D || v == 0x5F || v == 0x2A || v == 0x20 || v == 0xB7 || v == 0x2022
        }
        var r = 0
        var w = 0
        @inline(__always) func copy(_ k: Int) {
            scalars[w] = scalars[k]
            scalarStart[w] = scalarStart[k]
            scalarEnd[w] = scalarEnd[k]
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
            if v == 0x20, scalarEnd[r] - scalarStart[r] > 1, w > 0, r + 1 < n, isWord(scalars[w - 1]), isWord(scalars[r + 1]) {
                r += 1
                continue
            }
            copy(r)
            r += 1
        }
        scalarCount = w
    }
}

/// Whether any byte of `bytes` is ≥ 0x80 (8 bytes at a time, `_skipASCII`).
@inline(__always)
func _hasHighByte(_ bytes: UnsafeRawBufferPointer) -> Bool {
    _skipASCII(bytes, from: 0) < bytes.count
}


/// The index of the first byte ≥ 0x80 in `bytes[from...]` (`bytes.count` when none), eight bytes at a time.
@inline(__always)
func _skipASCII(_ bytes: UnsafeRawBufferPointer, from: Int) -> Int {
    let n = bytes.count
    var i = from
    guard let base = bytes.baseAddress else { return n }
    while i &+ 8 <= n {
        let x = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) & 0x8080_8080_8080_8080
        if x != 0 { return i &+ x.trailingZeroBitCount >> 3 }
        i &+= 8
    }
    while i < n, bytes[i] < 0x80 { i &+= 1 }
    return i
}

/// The index of the first byte of `bytes[from...]` that ASCII text spaced by single spaces does not hold: a
/// byte ≥ 0x80, a control character (below 0x20: tabs and line breaks among them), or a space next to another
/// (one of the two); `bytes.count` when there is none. Eight bytes at a time, as `_skipASCII`.
/// (Bytes below 0x80: `x + 0x60` has its high bit exactly when `x ≥ 0x20`, and `(x ^ 0x20) + 0x7F` exactly
/// when `x` is not a space; a byte ≥ 0x80 is found itself, and the carries it makes reach only later bytes.)
@inline(__always)
func _skipPlainASCII(_ bytes: UnsafeRawBufferPointer, from: Int) -> Int {
    let n = bytes.count
    var i = from
    guard let base = bytes.baseAddress else { return n }
    let high: UInt64 = 0x8080_8080_8080_8080
    // The spaces of the last eight bytes (high bit per byte), for a pair across two loads.
    var spacesBefore: UInt64 = i > 0 && bytes[i &- 1] == 0x20 ? 1 << 63 : 0
    while i &+ 8 <= n {
        let x = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let odd = (x | ~(x &+ 0x6060_6060_6060_6060)) & high
        let spaces = ~((x ^ 0x2020_2020_2020_2020) &+ 0x7F7F_7F7F_7F7F_7F7F) & ~x & high
        let pairs = spaces & (spaces >> 8 | spacesBefore >> 56)
        let stop = odd | pairs
        if stop != 0 { return i &+ stop.trailingZeroBitCount >> 3 }
        spacesBefore = spaces
        i &+= 8
    }
    while i < n {
        let b = bytes[i]
        if b >= 0x80 || b < 0x20 || (b == 0x20 && i > 0 && bytes[i &- 1] == 0x20) { return i }
        i &+= 1
    }
    return i
}

/// Whether `none` changes `body`: a white-space character other than a lone U+0020 (a run of spaces, a tab,
/// a line break, a non-ASCII space), which it reads as one space (`_TextNormalizer.appendCollapsingSpaces`).
@inline(__always)
func _spacingChanges(_ body: UnsafeRawBufferPointer) -> Bool {
    let n = body.count
    var i = 0
    while true {
        i = _skipPlainASCII(body, from: i)
        guard i < n else { return false }
        let b = body[i]
        if b < 0x80 {
            if b == 0x20 || b &- 0x09 < 5 { return true }
            i &+= 1
            continue
        }
        // Continuation bytes (80–BF) are never one of the lead bytes of non-ASCII white space (C2, E1–E3).
        if b &- 0xC2 < 0x22 {
            let (v, len) = _decodeUTF8(body, i)
            if len > 0, _isWhitespace(v) { return true }
        }
        i &+= 1
    }
}

/// Whether `standard` normalisation would change `body`: a non-ASCII scalar with a normalisation-table entry
/// (compatibility form, removal, look-alike), a simple case fold or white space, a byte that is not valid
/// UTF-8 (sent to the rewrite, which passes it through, to keep this test simple), or ASCII that is not
/// spaced by single spaces (a control character, which may be a tab or line break, or two spaces in a row:
/// `_skipPlainASCII`). Otherwise the normaliser's output is `body` byte for byte (ASCII passes as it is; a
/// valid scalar with none of those flags is re-encoded to its own bytes) with each byte its own span.
/// `TextNormalizationTests` checks this against the normaliser.
@inline(__always)
func _standardChanges(_ body: UnsafeRawBufferPointer, flags: _ScalarFlags) -> Bool {
    let n = body.count
    let changing = _ScalarFlags.normalizes | _ScalarFlags.folds | _ScalarFlags.space
    var i = 0
    while i < n {
        let b = body[i]
        if b < 0x80 {
            // ASCII passes as it is unless it holds a control character or a run of spaces: skipped eight
            // bytes at a time (docs/PERFORMANCE.md, "Normalisation's check, round five", and "White space").
            i = _skipPlainASCII(body, from: i)
            if i < n, body[i] < 0x80 { return true }
            continue
        }
        // Three-byte scalars (Thai, Devanagari, Chinese…: most of the non-ASCII text) decoded inline; a lead
        // byte E0 needs a second byte ≥ A0 (no overlong form), ED one < A0 (no surrogate). Anything else,
        // and every other length, goes through `_decodeUTF8`.
        if b & 0xF0 == 0xE0, i &+ 2 < n {
            let c1 = body[i &+ 1]
            let c2 = body[i &+ 2]
            if c1 & 0xC0 == 0x80, c2 & 0xC0 == 0x80, b != 0xE0 || c1 >= 0xA0, b != 0xED || c1 < 0xA0 {
                let v = UInt32(b & 0x0F) << 12 | UInt32(c1 & 0x3F) << 6 | UInt32(c2 & 0x3F)
                if flags.of(v) & changing != 0 { return true }
                i &+= 3
                continue
            }
        }
        let (v, len) = _decodeUTF8(body, i)
        if len == 0 || flags.of(v) & changing != 0 { return true }
        i &+= len
    }
    return false
}

/// Whether `leet` normalisation might change `body` (true when in doubt). It leaves a body alone when
/// `standard` does (``_standardChanges`` is false) and the body has no ASCII letter (so no digit is read as
/// a letter, no `l` as `i`, no `@`/`$` between letters) and no word character standing alone before a
/// separator and another word character (`1.2.3`, `你 好 吗`: `joinSpacedLetters` might join such a run;
/// a non-ASCII space is a compatibility form, so `standard` already rewrites it). Then the normaliser's
/// output is `body` byte for byte, as under `standard`. `TextNormalizationTests` checks this against the
/// normaliser.
@inline(__always)
func _leetChanges(_ body: UnsafeRawBufferPointer, flags: _ScalarFlags) -> Bool {
    let n = body.count
    var i = 0
    // The classes of the last three scalars (0 other or none, 1 word, 2 separator), oldest first.
    var a: UInt8 = 0, b: UInt8 = 0, c: UInt8 = 0
    var lastSpace = false
    while i < n {
        let byte = body[i]
        var d: UInt8 = 0
        if byte < 0x80 {
            if (byte | 0x20) &- 0x61 < 26 { return true }
            // A control character (a tab or line break among them) or a second space in a row: white space
            // that reads as one space.
            if byte < 0x20 || (byte == 0x20 && lastSpace) { return true }
            lastSpace = byte == 0x20
            if byte &- 0x30 < 10 {
                d = 1
            } else if byte == 0x2E || byte == 0x2D || byte == 0x5F || byte == 0x2A || byte == 0x20 {
                d = 2
            }
            i &+= 1
        } else {
            let (v, len) = _decodeUTF8(body, i)
            if len == 0 || flags.of(v) & (_ScalarFlags.normalizes | _ScalarFlags.folds | _ScalarFlags.space) != 0 { return true }
            lastSpace = false
            if flags.isWord(v) { d = 1 } else if v == 0xB7 || v == 0x2022 { d = 2 }
            i &+= len
        }
        // A word character after a separator after a lone word character: perhaps a spaced-out word.
        if a != 1 && b == 1 && c == 2 && d == 1 { return true }
        a = b
        b = c
        c = d
    }
    return false
}

/// Writes normalised scalars as UTF-8 with their source spans into buffers with room for them (the caller
/// grew them: at most 4 bytes per scalar).
struct _ByteSink {
    let bytes: UnsafeMutablePointer<UInt8>
    let starts: UnsafeMutablePointer<Int32>
    let ends: UnsafeMutablePointer<Int32>
    var count: Int
    let flags: _ScalarFlags

    /// Appends `body[i..<j]` as it is, each byte with its own span.
    @inline(__always)
    mutating func copy(_ body: UnsafeRawBufferPointer, _ i: Int, _ j: Int) {
        let c = count
        (bytes + c).update(from: body.baseAddress!.assumingMemoryBound(to: UInt8.self) + i, count: j &- i)
        let s = Int32(truncatingIfNeeded: i)
        var q = 0
        while q < j &- i {
            starts[c &+ q] = s &+ Int32(truncatingIfNeeded: q)
            ends[c &+ q] = s &+ Int32(truncatingIfNeeded: q &+ 1)
            q &+= 1
        }
        count &+= j &- i
    }

    /// Appends the character of `len` bytes at `body[i]` as it is, each byte with the character's span (a
    /// three-byte one, most of a Thai or Chinese body, without a loop).
    @inline(__always)
    mutating func copyCharacter(_ body: UnsafeRawBufferPointer, _ i: Int, _ len: Int) {
        let c = count
        let s = Int32(truncatingIfNeeded: i)
        let e = s &+ Int32(truncatingIfNeeded: len)
        if len == 3 {
            bytes[c] = body[i]
            bytes[c &+ 1] = body[i &+ 1]
            bytes[c &+ 2] = body[i &+ 2]
            starts[c] = s
            starts[c &+ 1] = s
            starts[c &+ 2] = s
            ends[c] = e
            ends[c &+ 1] = e
            ends[c &+ 2] = e
        } else {
            var q = 0
            while q < len {
                bytes[c &+ q] = body[i &+ q]
                starts[c &+ q] = s
                ends[c &+ q] = e
                q &+= 1
            }
        }
        count &+= len
    }

    /// Appends scalar `v` (case-folded when non-ASCII; a raw byte as itself) with source span `s..<e`.
    @inline(__always)
    mutating func put(_ v: UInt32, _ s: Int32, _ e: Int32) {
        if v < 0x80 || v & _TextNormalizer.rawBit != 0 {
            bytes[count] = UInt8(truncatingIfNeeded: v)
            starts[count] = s
            ends[count] = e
            count &+= 1
            return
        }
        let len = _encodeUTF8(flags.fold(v), into: bytes + count)
        var q = 0
        while q < len {
            starts[count &+ q] = s
            ends[count &+ q] = e
            q &+= 1
        }
        count &+= len
    }
}

extension _ByteSink {
    /// Appends a space for a white-space character from bytes `s..<e`: one U+0020, or, when the output of the
    /// body being written (from `first`) already ends with a space, that space's span grown to cover it, so a
    /// run of white space reads as one space spanning the whole run.
    @inline(__always)
    mutating func putSpace(_ s: Int32, _ e: Int32, first: Int) {
        if count > first, bytes[count &- 1] == 0x20 {
            ends[count &- 1] = max(ends[count &- 1], e)
            return
        }
        bytes[count] = 0x20
        starts[count] = s
        ends[count] = e
        count &+= 1
    }
}

/// Whether scalar value `v` is white space (Unicode's `White_Space`: tab, line feed, vertical tab, form feed,
/// carriage return, space, next line U+0085, no-break space, Ogham space mark, the spaces U+2000–U+200A, line
/// and paragraph separators, narrow no-break, medium mathematical and ideographic spaces). Every
/// normalisation reads a run of these as one space. (`TextNormalizationTests` checks it against
/// `Unicode.Scalar.Properties.isWhitespace` for every scalar.)
@inline(__always)
func _isWhitespace(_ v: UInt32) -> Bool {
    switch v {
    case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
    default: false
    }
}

/// Writes scalar value `v` as UTF-8 at `p` (room for 4 bytes); returns the length.
@inline(__always)
func _encodeUTF8(_ v: UInt32, into p: UnsafeMutablePointer<UInt8>) -> Int {
    if v < 0x80 {
        p[0] = UInt8(v)
        return 1
    } else if v < 0x800 {
        p[0] = UInt8(0xC0 | v >> 6); p[1] = UInt8(0x80 | v & 0x3F)
        return 2
    } else if v < 0x10000 {
        p[0] = UInt8(0xE0 | v >> 12); p[1] = UInt8(0x80 | (v >> 6) & 0x3F); p[2] = UInt8(0x80 | v & 0x3F)
        return 3
    }
    p[0] = UInt8(0xF0 | v >> 18); p[1] = UInt8(0x80 | (v >> 12) & 0x3F)
    p[2] = UInt8(0x80 | (v >> 6) & 0x3F); p[3] = UInt8(0x80 | v & 0x3F)
    return 4
}

/// `_decodeUTF8` with three-byte scalars (Thai, Devanagari, Chinese…: most non-ASCII text) decoded inline:
/// a lead byte E0 needs a second byte ≥ A0 (no overlong form), ED one < A0 (no surrogate); anything else goes
/// through `_decodeUTF8`.
@inline(__always)
func _decodeUTF8Inline(_ body: UnsafeRawBufferPointer, _ i: Int) -> (UInt32, Int) {
    let b = body[i]
    if b & 0xF0 == 0xE0, i &+ 2 < body.count {
        let c1 = body[i &+ 1]
        let c2 = body[i &+ 2]
        if c1 & 0xC0 == 0x80, c2 & 0xC0 == 0x80, b != 0xE0 || c1 >= 0xA0, b != 0xED || c1 < 0xA0 {
            return (UInt32(b & 0x0F) << 12 | UInt32(c1 & 0x3F) << 6 | UInt32(c2 & 0x3F), 3)
        }
    }
    return _decodeUTF8(body, i)
}

/// Decodes one UTF-8 scalar at `i` (well-formed per Unicode table 3-7: no overlongs, surrogates or values
/// above U+10FFFF); returns its value and length, or length 0 when the bytes there are not one.
@inline(__always)
func _decodeUTF8(_ b: UnsafeRawBufferPointer, _ i: Int) -> (UInt32, Int) {
    let n = b.count
    let b0 = b[i]
    @inline(__always) func cont(_ k: Int) -> UInt32? {
        guard i + k < n else { return nil }
        let c = b[i + k]
        return c & 0xC0 == 0x80 ? UInt32(c & 0x3F) : nil
    }
    switch b0 {
    case 0xC2...0xDF:
        guard let c1 = cont(1) else { return (0, 0) }
        return (UInt32(b0 & 0x1F) << 6 | c1, 2)
    case 0xE0...0xEF:
        guard let c1 = cont(1), let c2 = cont(2) else { return (0, 0) }
        let v = UInt32(b0 & 0x0F) << 12 | c1 << 6 | c2
        if v < 0x800 || (v >= 0xD800 && v <= 0xDFFF) { return (0, 0) }
        return (v, 3)
    case 0xF0...0xF4:
        guard let c1 = cont(1), let c2 = cont(2), let c3 = cont(3) else { return (0, 0) }
        let v = UInt32(b0 & 0x07) << 18 | c1 << 12 | c2 << 6 | c3
        if v < 0x10000 || v > 0x10FFFF { return (0, 0) }
        return (v, 4)
    default:
        return (0, 0)
    }
}
