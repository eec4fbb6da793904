import AhoCorasick

/// The one place MessageFilter touches the keyword matcher: a set of phrases scanned together in one
/// case-folding mode, reporting every (overlapping) match (`MatchKind.standard`), whole-word tests included.
///
/// ### Two automata, split by script
/// The phrases are split in two automata: **narrow** holds the phrases whose case-folded form is pure
/// ASCII, **wide** the others (Thai, Chinese, Devanagari, emoji, accented Latin…). A wide phrase folds to
/// at least one non-ASCII scalar, and an all-ASCII text folds to ASCII only, so a wide phrase can never
/// match a text without a byte ≥ 0x80: such texts (most English and Hinglish messages) are scanned by the
/// narrow automaton alone. Each automaton is also much smaller than one over all phrases (with the default
/// rules: about 4,000 states with a small ASCII alphabet instead of 7,900 states over every byte class),
/// so its hot rows stay in cache. Matches carry the matcher-local pattern index either way, so callers
/// see one matcher.
///
/// ### One pass for every body
/// A body with a byte ≥ 0x80 can match phrases of both kinds. So that it is read once, not once per
/// automaton, the wide automaton is built over **all** phrases (wide first, then narrow: `wideCoversAll`)
/// and such a body is scanned by it alone; an all-ASCII body still goes to the small narrow automaton.
/// When the combined automaton is too large to build, the wide one holds the wide phrases only and a
/// non-ASCII body is scanned by both (as files written before this scheme, reserved field 0, are).
///
/// ### Serialized form (inside a `.smsf` section; little-endian, 16-byte aligned images)
/// ```
///  0  u32  magic "PMX1"
///  4  u32  narrow pattern count n
///  8  u32  wide pattern count w
/// 12  u32  flags: 0, or 1 when the wide image covers all n + w phrases (wide ones first, then narrow)
/// 16  u32×n narrow → local pattern index; then u32×w wide → local index (together a permutation)
///     (pad to 16) u64 narrow image length, u64 wide image length
///     (pad to 16) narrow image, (pad to 16) wide image   — AhoCorasick's own serialized form
/// ```
final class _PhraseMatcher: Sendable {
    let folding: CaseFoldMode
    let narrow: AhoCorasick?
    let wide: AhoCorasick?
    /// Index in `narrow` / `wide` → matcher-local pattern index.
    let narrowMap: [Int32]
    let wideMap: [Int32]
    /// Whether `wide` holds every phrase (its indices `w..<w+n` are the narrow phrases), so a body with a
    /// byte ≥ 0x80 needs the wide automaton alone.
    let wideCoversAll: Bool
    /// Index in `wide` → matcher-local pattern index: `wideMap`, followed by `narrowMap` when `wideCoversAll`.
    let wideScanMap: [Int32]
    let patternCount: Int
    /// Per automaton (nil for one with Unicode folding, which the bulk scan does not take): what each of its
    /// match states reports, for `forEachMatchBulk`.
    let narrowStates: _MatchStateTable?
    let wideStates: _MatchStateTable?

    static func caseFolding(_ mode: CaseFoldMode) -> CaseFolding { mode == .ascii ? .ascii : .unicode }

    /// The largest dense table (bytes) the narrow automaton is built as, in place of the compact DFA: one load
    /// per byte instead of two and a compare (the default rules' narrow automaton, 3,579 states × 53 classes,
    /// is 742 KiB dense with 32-bit ids). The wide automaton keeps the builder's default.
    static var narrowDenseLimit: Int { 1 << 20 }

    /// Whether `pattern`, folded the way `mode` folds, is all ASCII.
    static func foldsToASCII(_ pattern: [UInt8], _ mode: CaseFoldMode) -> Bool {
        if pattern.allSatisfy({ $0 < 0x80 }) { return true }
        guard mode == .unicode else { return false }
        let text = String(decoding: pattern, as: UTF8.self)
        return text.unicodeScalars.allSatisfy { AhoCorasick.simpleCaseFold($0).isASCII }
    }

    /// Builds the automata (`combine: false`: the wide automaton over the wide phrases only, as when the
    /// combined one is too large; for tests).
    /// - Throws: `AhoCorasickBuildError` (an automaton too large).
    init(patterns: [[UInt8]], wholeWord: [Bool], folding: CaseFoldMode, combine: Bool = true) throws {
        self.folding = folding
        var builder = AhoCorasickBuilder()
        builder.matchKind = .standard
        builder.caseFolding = Self.caseFolding(folding)
        var narrowPatterns: [Pattern] = []
        var widePatterns: [Pattern] = []
        var narrowMap: [Int32] = []
        var wideMap: [Int32] = []
        for (i, bytes) in patterns.enumerated() {
            if Self.foldsToASCII(bytes, folding) {
                narrowPatterns.append(Pattern(bytes, wholeWord: wholeWord[i]))
                narrowMap.append(Int32(i))
            } else {
                widePatterns.append(Pattern(bytes, wholeWord: wholeWord[i]))
                wideMap.append(Int32(i))
            }
        }
        var narrowBuilder = builder
        narrowBuilder.denseAutoLimit = Self.narrowDenseLimit
        narrow = narrowPatterns.isEmpty ? nil : try narrowBuilder.build(narrowPatterns)
        var combined: AhoCorasick?
        if combine, !widePatterns.isEmpty, !narrowPatterns.isEmpty {
            combined = try? builder.build(widePatterns + narrowPatterns)
        }
        if let combined {
            wide = combined
            wideCoversAll = true
            wideScanMap = wideMap + narrowMap
        } else {
            wide = widePatterns.isEmpty ? nil : try builder.build(widePatterns)
            wideCoversAll = false
            wideScanMap = wideMap
        }
        self.narrowMap = narrowMap
        self.wideMap = wideMap
        patternCount = patterns.count
        narrowStates = _MatchStateTable(narrow, map: narrowMap)
        wideStates = _MatchStateTable(wide, map: wideScanMap)
    }

    /// Loads the automata in place (zero-copy) from `range` of `storage`, checking every field.
    /// - Throws: `AhoCorasickLoadError`, or a `_ByteReader.Failure` when the container is damaged or an
    ///   image is of another kind or mode.
    init(serialized storage: MappedBytes, range: Range<Int>, folding: CaseFoldMode) throws {
        self.folding = folding
        let raw = storage._unsafeBytes
        precondition(range.lowerBound >= 0 && range.upperBound <= raw.count)
        var r = _ByteReader(UnsafeRawBufferPointer(rebasing: raw[range]))
        func fail(_ what: String) -> _ByteReader.Failure { _ByteReader.Failure(offset: range.lowerBound + r.offset, what: what) }
        guard try r.u32() == 0x3158_4D50 else { throw fail("phrase matcher: bad magic") }
        let n = Int(try r.u32())
        let w = Int(try r.u32())
        let flags = try r.u32()
        guard flags <= 1 else { throw fail("phrase matcher: unknown flags") }
        guard flags == 0 || (n > 0 && w > 0) else { throw fail("phrase matcher: combined image without both kinds") }
        let coversAll = flags == 1
        guard n <= range.count / 4, w <= range.count / 4 else { throw fail("phrase matcher: pattern counts too large") }
        var seen = [Bool](repeating: false, count: n + w)
        func readMap(_ count: Int) throws -> [Int32] {
            var map: [Int32] = []
            map.reserveCapacity(count)
            for _ in 0..<count {
                let v = Int(try r.u32())
                guard v < n + w, !seen[v] else { throw fail("phrase matcher: pattern map is not a permutation") }
                seen[v] = true
                map.append(Int32(v))
            }
            return map
        }
        narrowMap = try readMap(n)
        wideMap = try readMap(w)
        while r.offset % 16 != 0 { guard try r.u8() == 0 else { throw fail("phrase matcher: padding is not zero") } }
        let narrowLength = try r.u64()
        let wideLength = try r.u64()
        func image(_ length: UInt64, _ count: Int, covering: Int) throws -> AhoCorasick? {
            while r.offset % 16 != 0 { guard try r.u8() == 0 else { throw fail("phrase matcher: padding is not zero") } }
            guard length <= UInt64(range.count - r.offset) else { throw fail("phrase matcher: image out of bounds") }
            let start = range.lowerBound + r.offset
            r.offset += Int(length)
            if count == 0 {
                guard length == 0 else { throw fail("phrase matcher: an image for no patterns") }
                return nil
            }
            let automaton = try AhoCorasick(serialized: storage, range: start..<(start + Int(length)))
            guard automaton.matchKind == .standard, automaton.caseFolding == Self.caseFolding(folding),
                automaton.patternCount == covering
            else { throw fail("phrase matcher: automaton of the wrong kind, folding or size") }
            return automaton
        }
        narrow = try image(narrowLength, n, covering: n)
        wide = try image(wideLength, w, covering: coversAll ? n + w : w)
        wideCoversAll = coversAll
        wideScanMap = coversAll ? wideMap + narrowMap : wideMap
        guard r.offset == range.count else { throw fail("phrase matcher: trailing bytes") }
        patternCount = n + w
        narrowStates = _MatchStateTable(narrow, map: narrowMap)
        wideStates = _MatchStateTable(wide, map: wideScanMap)
    }

    func serialize() -> [UInt8] {
        var w = _ByteWriter()
        w.u32(0x3158_4D50)
        w.u32(UInt32(narrowMap.count))
        w.u32(UInt32(wideMap.count))
        w.u32(wideCoversAll ? 1 : 0)
        for v in narrowMap { w.u32(UInt32(v)) }
        for v in wideMap { w.u32(UInt32(v)) }
        w.align(16)
        let narrowImage = narrow?.serialize() ?? []
        let wideImage = wide?.serialize() ?? []
        w.u64(UInt64(narrowImage.count))
        w.u64(UInt64(wideImage.count))
        w.align(16)
        w.buffer.append(contentsOf: narrowImage)
        w.align(16)
        w.buffer.append(contentsOf: wideImage)
        return w.buffer
    }

    /// Calls `body(pattern, start, end)` for every match in `haystack`. Never allocates.
    @inline(__always)
    func forEachMatch(in haystack: UnsafeRawBufferPointer, _ body: (Int, Int, Int) -> Void) {
        let high = wide != nil && _hasHighByte(haystack)
        if let narrow, !(high && wideCoversAll) {
            narrowMap.withUnsafeBufferPointer { map in
                narrow.forEachMatch(in: haystack) { m in
                    body(Int(map[m.pattern]), m.start, m.end)
                    return true
                }
            }
        }
        if let wide, high {
            wideScanMap.withUnsafeBufferPointer { map in
                wide.forEachMatch(in: haystack) { m in
                    body(Int(map[m.pattern]), m.start, m.end)
                    return true
                }
            }
        }
    }

    /// Calls `body(spanIndex, pattern, start, end)` for every match of every span (lockstep scan; matches
    /// of different spans may interleave); offsets relative to the span. Never allocates (the spans are
    /// sorted by automaton as `withSpansByAutomaton` does).
    /// - Precondition: every span lies within `buffer`.
    @inline(__always)
    func forEachMatch(in buffer: UnsafeRawBufferPointer, spans: UnsafeBufferPointer<Range<Int>>,
                      _ body: (Int, Int, Int, Int) -> Void) {
        withSpansByAutomaton(in: buffer, spans) { isWide, automaton, part, origin in
            (isWide ? wideScanMap : narrowMap).withUnsafeBufferPointer { map in
                automaton.forEachMatch(in: buffer, spans: part) { k, m in
                    body(origin.map { $0[k] } ?? k, Int(map[m.pattern]), m.start, m.end)
                }
            }
        }
    }

    /// Reports every match of every span to `sink` (`found(span:pattern:start:end:)`, pattern the matcher-local
    /// index, offsets relative to the span), per span in the order `forEachMatch(in:spans:)` reports them; matches
    /// of different spans may interleave. The automata hand over the positions where they stand in a match state
    /// in bulk (`AhoCorasick.forEachMatchState`), and each is expanded here through `_MatchStateTable`: no closure
    /// call per match. Never allocates (the spans are sorted by automaton as `withSpansByAutomaton` does; the
    /// automata write their positions into `positions`, the caller's scratch).
    /// - Precondition: every span lies within `buffer`; `positions` has room for 64 positions at least.
    @inline(__always)
    func forEachMatchBulk<S: _PhraseSink>(in buffer: UnsafeRawBufferPointer, spans: UnsafeBufferPointer<Range<Int>>,
                                          positions: UnsafeMutableBufferPointer<MatchStatePosition>, _ sink: inout S) {
        guard narrow == nil || narrowStates != nil, wide == nil || wideStates != nil else {
            // Unicode folding: the matches one by one.
            forEachMatch(in: buffer, spans: spans) { k, p, s, e in sink.found(span: k, pattern: p, start: s, end: e) }
            return
        }
        withSpansByAutomaton(in: buffer, spans) { isWide, automaton, part, origin in
            // (Both tables exist: checked above.)
            guard let table = isWide ? wideStates : narrowStates else { return }
            automaton.forEachMatchState(in: buffer, spans: part, positions: positions) { found in
                // Two calls, so that each expansion knows whether there is an origin (no test per match).
                if let origin {
                    table.expand(found, buffer, part, origin: origin, &sink)
                } else {
                    table.expand(found, buffer, part, origin: nil, &sink)
                }
            }
        }
    }

    /// Hands each automaton the spans it scans: `scan(isWide, automaton, part, origin)`, narrow first, where span
    /// k of `part` is span `origin[k]` of `spans` (without `origin`, span k). Without a wide automaton the narrow
    /// one scans every span; with one, the spans with a byte ≥ 0x80 go to the wide one, and the others to the
    /// narrow one when the wide one covers every phrase (`wideCoversAll`; else the narrow one scans every span).
    /// An automaton left without spans is not called, except the narrow one given every span. Never allocates
    /// (the parts are sorted in temporary allocations, on the stack for small batches).
    @inline(__always)
    func withSpansByAutomaton(
        in buffer: UnsafeRawBufferPointer, _ spans: UnsafeBufferPointer<Range<Int>>,
        _ scan: (_ isWide: Bool, _ automaton: AhoCorasick, _ part: UnsafeBufferPointer<Range<Int>>,
                 _ origin: UnsafeBufferPointer<Int>?) -> Void
    ) {
        guard let wide else {
            if let narrow { scan(false, narrow, spans, nil) }
            return
        }
        // The wide automaton's spans from the start of `picked`, the narrow one's from its end (in reverse).
        withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: max(1, spans.count)) { picked in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: max(1, spans.count)) { origin in
                let n = spans.count
                var high = 0, low = 0
                for k in 0..<n {
                    if _hasHighByte(UnsafeRawBufferPointer(rebasing: buffer[spans[k]])) {
                        picked.initializeElement(at: high, to: spans[k])
                        origin.initializeElement(at: high, to: k)
                        high += 1
                    } else if wideCoversAll {
                        low += 1
                        picked.initializeElement(at: n - low, to: spans[k])
                        origin.initializeElement(at: n - low, to: k)
                    }
                }
                if let narrow {
                    if !wideCoversAll {
                        scan(false, narrow, spans, nil)
                    } else if low > 0 {
                        scan(false, narrow, UnsafeBufferPointer(rebasing: picked[(n - low)..<n]),
                             UnsafeBufferPointer(rebasing: origin[(n - low)..<n]))
                    }
                }
                if high > 0 {
                    scan(true, wide, UnsafeBufferPointer(rebasing: picked[0..<high]),
                         UnsafeBufferPointer(rebasing: origin[0..<high]))
                }
                _ = picked[0..<high].deinitialize()
                _ = origin[0..<high].deinitialize()
                _ = picked[(n - low)..<n].deinitialize()
                _ = origin[(n - low)..<n].deinitialize()
            }
        }
    }
}

/// Where `_PhraseMatcher.forEachMatchBulk` reports matches.
protocol _PhraseSink {
    /// A match of matcher-local pattern `pattern` over `start..<end` of span `span` (an index of the spans given).
    mutating func found(span: Int, pattern: Int, start: Int, end: Int)
}

/// What each match state of one automaton (standard matching, no Unicode folding) reports: its patterns in the
/// order `forEachMatch` reports them there, each with the matcher-local index, its length and whether it is
/// whole-word. Made once per automaton, when it is built or loaded.
struct _MatchStateTable: Sendable {
    struct Entry: Sendable {
        var pattern: Int32
        var length: Int32
        var wholeWord: Bool
    }
    /// The entries of match state s (1…) are `entries[offsets[s - 1]..<offsets[s]]`.
    let offsets: [Int32]
    let entries: [Entry]

    /// The table of `automaton`, whose pattern i is matcher-local pattern `map[i]`; nil when it has Unicode
    /// folding or another match kind.
    init?(_ automaton: AhoCorasick?, map: [Int32]) {
        guard let automaton, automaton.matchKind == .standard, automaton.caseFolding != .unicode else { return nil }
        var offsets: [Int32] = [0]
        var entries: [Entry] = []
        offsets.reserveCapacity(automaton.matchStateCount + 1)
        for state in 0..<automaton.matchStateCount {
            for pattern in automaton.patterns(inMatchState: state + 1) {
                entries.append(Entry(pattern: map[pattern], length: Int32(automaton.patternLength(pattern)),
                                     wholeWord: automaton.isWholeWord(pattern: pattern)))
            }
            offsets.append(Int32(entries.count))
        }
        self.offsets = offsets
        self.entries = entries
    }

    /// Reports the matches of `positions` (of `spans`, each span `k` being the caller's span `origin[k]`, or `k`
    /// without `origin`) to `sink`, in order: per position its state's patterns, each whole-word one only where it
    /// stands as a whole word in its span (the test `forEachMatch` makes).
    @inline(__always)
    func expand<S: _PhraseSink>(_ positions: UnsafeBufferPointer<MatchStatePosition>, _ buffer: UnsafeRawBufferPointer,
                                _ spans: UnsafeBufferPointer<Range<Int>>, origin: UnsafeBufferPointer<Int>?,
                                _ sink: inout S) {
        offsets.withUnsafeBufferPointer { offsets in
            entries.withUnsafeBufferPointer { entries in
                for position in positions {
                    let k = Int(position.span)
                    let end = position.end
                    let state = Int(position.state)
                    // Why in bounds: the automaton reports states 1…matchStateCount, and offsets has one more entry.
                    var i = Int(offsets[state - 1])
                    let last = Int(offsets[state])
                    while i < last {
                        let entry = entries[i]
                        i += 1
                        let length = Int(entry.length)
                        // (Only a damaged image makes a pattern longer than the text before its end.)
                        guard length <= end else { continue }
                        let start = end - length
                        if entry.wholeWord, !AhoCorasick.wholeWordHolds(in: UnsafeRawBufferPointer(rebasing: buffer[spans[k]]),
                                                                         start: start, end: end) { continue }
                        sink.found(span: origin.map { $0[k] } ?? k, pattern: Int(entry.pattern), start: start, end: end)
                    }
                }
            }
        }
    }
}
