// The one place MessageFilter touches a keyword matcher.
//
// TEMPORARY FALLBACK: until the AhoCorasick module lands, this is a small first-byte-indexed matcher with
// the same observable behaviour (all overlapping matches, ASCII folding, whole-word checks). It is swapped
// for AhoCorasick without changing any caller.

/// A set of phrases scanned together in one case-folding mode; reports every (overlapping) match.
final class _PhraseMatcher: Sendable {
    let folding: CaseFoldMode
    let patterns: [[UInt8]]
    let wholeWord: [Bool]
    /// For each first byte (folded), the patterns that start with it.
    let byFirst: [[Int32]]

    var patternCount: Int { patterns.count }

    init(patterns: [[UInt8]], wholeWord: [Bool], folding: CaseFoldMode) {
        self.folding = folding
        self.patterns = patterns.map { $0.map(_PhraseMatcher.fold) }
        self.wholeWord = wholeWord
        var idx = [[Int32]](repeating: [], count: 256)
        for (i, p) in self.patterns.enumerated() where !p.isEmpty { idx[Int(p[0])].append(Int32(i)) }
        byFirst = idx
    }

    @inline(__always) static func fold(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }

    /// Serialized form: u32 count, then per pattern u8 wholeWord, u32 length, bytes.
    func serialize() -> [UInt8] {
        var w = _ByteWriter()
        w.u8(folding.rawValue)
        w.u32(UInt32(patterns.count))
        for (p, ww) in zip(patterns, wholeWord) {
            w.u8(ww ? 1 : 0)
            w.bytes(p)
        }
        return w.buffer
    }

    convenience init(serialized bytes: UnsafeRawBufferPointer) throws {
        var r = _ByteReader(bytes)
        guard let folding = CaseFoldMode(rawValue: try r.u8()) else { throw _ByteReader.Failure(offset: 0, what: "automaton folding") }
        let n = try r.count(minimumBytesEach: 5)
        var ps: [[UInt8]] = []
        var ws: [Bool] = []
        for _ in 0..<n {
            ws.append(try r.u8() != 0)
            ps.append(try r.bytes())
        }
        self.init(patterns: ps, wholeWord: ws, folding: folding)
    }

    /// Calls `body(pattern, start, end)` for every match in `haystack`.
    func forEachMatch(in haystack: UnsafeRawBufferPointer, _ body: (Int, Int, Int) -> Void) {
        let n = haystack.count
        var i = 0
        while i < n {
            let c = _PhraseMatcher.fold(haystack[i])
            for p in byFirst[Int(c)] {
                let pat = patterns[Int(p)]
                if i + pat.count > n { continue }
                var ok = true
                var j = 1
                while j < pat.count {
                    if _PhraseMatcher.fold(haystack[i + j]) != pat[j] { ok = false; break }
                    j += 1
                }
                if ok, wholeWord[Int(p)], !_WordBoundary.isBoundary(haystack, start: i, end: i + pat.count) { ok = false }
                if ok { body(Int(p), i, i + pat.count) }
            }
            i += 1
        }
    }
}

extension _PhraseMatcher {
    /// Calls `body(spanIndex, pattern, start, end)` for every match in every span; offsets relative to the span.
    func forEachMatch(in buffer: UnsafeRawBufferPointer, spans: UnsafeBufferPointer<Range<Int>>,
                      _ body: (Int, Int, Int, Int) -> Void) {
        for (k, span) in spans.enumerated() {
            forEachMatch(in: UnsafeRawBufferPointer(rebasing: buffer[span])) { p, s, e in body(k, p, s, e) }
        }
    }
}
