// The search loops. Everything here reads tables through `_Image`'s pointers, which `_Image.load`
// validated: every transition target is a state, every match-list entry a pattern, every failure chain
// ends. Haystack reads are at indexes checked against the haystack's length.

/// One step of an engine.
protocol _Engine {
    /// What a scan carries from byte to byte: a state id, plus for the compact DFA the default row of the
    /// last class read.
    associatedtype State
    var initial: State { get }
    /// Ids <= maxMatch are the dead state (0) or match states.
    var maxMatch: UInt32 { get }
    func next(_ s: State, _ c: UInt8) -> State
    /// The id `maxMatch` is compared with.
    func id(_ s: State) -> UInt32
    /// The match state index (1…M) of an id <= maxMatch; 0 (reports nothing) for the dead state.
    func index(_ id: UInt32) -> Int
}

/// A transition table entry type of the dense DFA: 16- or 32-bit premultiplied ids.
protocol _DenseID: FixedWidthInteger, UnsignedInteger {}
extension UInt16: _DenseID {}
extension UInt32: _DenseID {}

/// The dense DFA: `trans[s + c]`, s premultiplied by the stride.
struct _DFA<T: _DenseID>: _Engine {
    let trans: UnsafePointer<T>
    let stride: Int
    let initial: UInt32
    let maxMatch: UInt32

    /// - Precondition: `s` is a validated premultiplied id and `c` < stride, so `s + c` < S × A.
    @inline(__always)
    func next(_ s: UInt32, _ c: UInt8) -> UInt32 {
        // Why no overflow: s + c < S × A <= UInt32.max (checked on load), and Int is 64-bit.
        UInt32(truncatingIfNeeded: trans[Int(s) &+ Int(c)])
    }

    @inline(__always) func id(_ s: UInt32) -> UInt32 { s }

    /// ceil(2^40 / stride): `s * reciprocal >> 40` is `s / stride` exactly for s < 2^32 and
    /// stride <= 256 (the error stays below 1/stride; see DESIGN.md).
    let reciprocal: UInt64

    @inline(__always)
    func index(_ s: UInt32) -> Int { Int(truncatingIfNeeded: (UInt64(s) &* reciprocal) >> 40) }
}

/// A default-row cell type of the compact DFA: (next shallow row, full transition) packed in the low and
/// high halves (16 + 16 or 32 + 32 bits).
protocol _DefaultCell: FixedWidthInteger, UnsignedInteger {}
extension UInt32: _DefaultCell {}
extension UInt64: _DefaultCell {}

/// The compact DFA (row compression against the rows of the states at most two bytes deep).
///
/// Let q be the longest suffix of the text read so far that is at most two bytes long and a prefix of
/// some pattern (a state of depth <= 2). The DFA state s has q in its failure chain, so s's full row
/// differs from q's full row only at the classes where s or a state between s and q in the chain has a
/// child. Only those entries are stored, as cells of a comb (a double array: a state's id is its offset
/// in the comb, and its entry for class c is the cell at id + c, holding the next id and, as the check,
/// the class c: a cell at id + c can only hold class c for the state at id). The full rows of the
/// shallow states are the `defaults` table, whose cells also hold the next q, so q is tracked by a
/// second chain of loads that does not depend on s. A step: one comb load (on the chain of dependent
/// loads), one default load (off it), a compare and a conditional move: no branch, no loop. A state
/// whose failure chain ends at the dead state (leftmost kinds) stores its whole row.
struct _Compact<Default: _DefaultCell>: _Engine {
    struct State {
        var id: UInt32
        /// q's row in `defaults`, premultiplied by the stride.
        var row: UInt32
    }
    /// Cells: next id << 8 | class (0xFF: unused; the compact DFA has at most 255 classes).
    let comb: UnsafePointer<UInt32>
    let defaults: UnsafePointer<Default>
    let matchIndex: UnsafePointer<UInt32>
    let start: UInt32
    let maxMatch: UInt32

    var initial: State { State(id: start, row: 0) }

    /// - Precondition: `s.id + c` < C and `s.row + c` < R × A: ids and rows are validated on load, and
    ///   `c` < A.
    @inline(__always)
    func next(_ s: State, _ c: UInt8) -> State {
        let half = Default.bitWidth / 2
        let cell = comb[Int(s.id) &+ Int(c)]
        let shallow = defaults[Int(s.row) &+ Int(c)]
        let fallback = UInt32(truncatingIfNeeded: shallow >> half)
        let row = UInt32(truncatingIfNeeded: shallow & (Default(1) << half &- 1))
        return State(id: UInt8(truncatingIfNeeded: cell) == c ? cell >> 8 : fallback, row: row)
    }

    @inline(__always) func id(_ s: State) -> UInt32 { s.id }

    @inline(__always)
    func index(_ id: UInt32) -> Int { Int(matchIndex[Int(id)]) }
}

/// The compact NFA: a dense start row, sorted sparse transitions, failure links.
struct _NFA: _Engine {
    let fail: UnsafePointer<UInt32>
    let sparseStart: UnsafePointer<UInt32>
    let sparseClass: UnsafePointer<UInt8>
    let sparseNext: UnsafePointer<UInt32>
    let root: UnsafePointer<UInt32>
    let initial: UInt32
    let maxMatch: UInt32

    /// - Precondition: `s` < S and `c` < A; failure chains end at the start or dead state (checked on load).
    @inline(__always)
    func next(_ s: UInt32, _ c: UInt8) -> UInt32 {
        var s = s
        while true {
            if s == initial { return root[Int(c)] }
            if s == 0 { return 0 }
            var k = Int(sparseStart[Int(s)])
            let end = Int(sparseStart[Int(s) &+ 1])
            while k < end {
                let kc = sparseClass[k]
                if kc == c { return sparseNext[k] }
                if kc > c { break }
                k &+= 1
            }
            s = fail[Int(s)]
        }
    }

    @inline(__always) func id(_ s: UInt32) -> UInt32 { s }

    @inline(__always)
    func index(_ s: UInt32) -> Int { Int(s) }
}

/// How a scan reads the haystack: one byte at a time, or one Unicode scalar (folded) at a time.
protocol _Step {
    associatedtype E: _Engine
    /// The state after the unit at `p[i]` (i < n) from state `s`, and the unit's length in bytes.
    func step(_ s: E.State, _ i: Int) -> (E.State, Int)
}

/// A byte at a time, through the byte classes.
struct _ByteStep<E: _Engine>: _Step {
    let e: E
    let classes: UnsafePointer<UInt8>
    let p: UnsafePointer<UInt8>

    @inline(__always)
    func step(_ s: E.State, _ i: Int) -> (E.State, Int) { (e.next(s, classes[Int(p[i])]), 1) }
}

/// A scalar at a time, folded (`_Image.feedUnit`).
struct _UnicodeStep<E: _Engine>: _Step {
    let image: _Image
    let e: E
    let p: UnsafePointer<UInt8>
    let n: Int

    @inline(__always)
    func step(_ s: E.State, _ i: Int) -> (E.State, Int) { image.feedUnit(e, s, p, i, n) }
}

extension _Image {
    var reciprocal: UInt64 { ((UInt64(1) << 40) + UInt64(alphabetLen) - 1) / UInt64(alphabetLen) }
    var dfa: _DFA<UInt32> {
        _DFA(trans: dfaTrans, stride: alphabetLen, initial: startID, maxMatch: maxMatchID, reciprocal: reciprocal)
    }
    var dfa16: _DFA<UInt16> {
        _DFA(trans: dfaTrans16, stride: alphabetLen, initial: startID, maxMatch: maxMatchID, reciprocal: reciprocal)
    }
    var compact16: _Compact<UInt32> {
        _Compact(comb: comb, defaults: defaults16, matchIndex: matchIndex, start: startID, maxMatch: maxMatchID)
    }
    var compact32: _Compact<UInt64> {
        _Compact(comb: comb, defaults: defaults32, matchIndex: matchIndex, start: startID, maxMatch: maxMatchID)
    }
    var nfa: _NFA {
        _NFA(
            fail: nfaFail, sparseStart: nfaSparseStart, sparseClass: nfaSparseClass, sparseNext: nfaSparseNext,
            root: nfaRoot, initial: startID, maxMatch: maxMatchID)
    }

    /// Searches `p[0..<n]`; returns false when `body` stopped the search.
    ///
    /// - Precondition: `p` points to `n >= 1` readable bytes that stay valid during the call. Every
    ///   haystack read below is at an index checked against `n`; every table read is at an index the
    ///   loader validated (state ids, classes, match offsets, pattern indexes).
    func search(_ p: UnsafePointer<UInt8>, _ n: Int, _ body: (Match) -> Bool) -> Bool {
        // No match starts before the prefilter's first candidate.
        var from = 0
        if let teddy {
            from = teddy.firstCandidate(p, n)
            if from >= n { return true }
        }
        switch engineCode {
        case .dense32: return search(dfa, p, n, from, body)
        case .dense16: return search(dfa16, p, n, from, body)
        case .compact16: return search(compact16, p, n, from, body)
        case .compact32: return search(compact32, p, n, from, body)
        case .nfa: return search(nfa, p, n, from, body)
        }
    }

    @inline(__always)
    func search<E: _Engine>(
        _ e: E, _ p: UnsafePointer<UInt8>, _ n: Int, _ from: Int, _ body: (Match) -> Bool
    ) -> Bool {
        switch (matchKind, caseFolding) {
        case (.standard, .unicode): return overlappingUnicode(e, p, n, body)
        case (.standard, _): return overlapping(e, p, n, from, body)
        case (_, .unicode): return leftmostUnicode(e, p, n, body)
        default: return leftmost(e, p, n, from, body)
        }
    }

    // MARK: Reporting

    /// The start of a match of `pattern` ending at `end`, or nil when the image is inconsistent
    /// (only a hostile image can make a pattern longer than the text before its end).
    @inline(__always)
    func matchStart(_ pattern: Int, _ end: Int, _ p: UnsafePointer<UInt8>) -> Int? {
        let length = Int(patterns[2 &* pattern])
        if caseFolding != .unicode {
            return length <= end ? end &- length : nil
        }
        // `length` scalars back from `end`; the matched text is valid UTF-8, so each step is
        // one lead byte preceded by at most 3 continuation bytes.
        var j = end
        for _ in 0..<length {
            guard j > 0 else { return nil }
            j &-= 1
            var steps = 0
            while j > 0 && steps < 3 && p[j] & 0xC0 == 0x80 {
                j &-= 1
                steps &+= 1
            }
        }
        return j
    }

    /// Whether a match of `pattern` at `start..<end` passes its whole-word test.
    @inline(__always)
    func accepts(_ pattern: Int, _ start: Int, _ end: Int, _ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        if !anyWholeWord || patterns[2 &* pattern &+ 1] & 1 == 0 { return true }
        return !_wordBefore(p, start, n) && !_wordAfter(p, end, n)
    }

    /// Reports every pattern of match state `index` ending at `end`. Returns false when `body` stops.
    @inline(never)
    func reportAll(_ index: Int, _ end: Int, _ p: UnsafePointer<UInt8>, _ n: Int, _ body: (Match) -> Bool) -> Bool {
        guard index >= 1 && index <= matchStateCount else { return true }
        let lo = Int(matchOffsets[index &- 1])
        let hi = Int(matchOffsets[index])
        for k in lo..<hi {
            let pattern = Int(matchList[k])
            guard let start = matchStart(pattern, end, p) else { continue }
            if accepts(pattern, start, end, p, n) {
                if !body(Match(pattern: pattern, start: start, end: end)) { return false }
            }
        }
        return true
    }

    /// The first (highest priority) pattern of match state `index`.
    @inline(__always)
    func firstPattern(_ index: Int) -> Int? {
        guard index >= 1 && index <= matchStateCount else { return nil }
        return Int(matchList[Int(matchOffsets[index &- 1])])
    }

    // MARK: Standard (overlapping)

    func overlapping<E: _Engine>(
        _ e: E, _ p: UnsafePointer<UInt8>, _ n: Int, _ from: Int, _ body: (Match) -> Bool
    ) -> Bool {
        overlappingScan(e, p, n, from, body, _ByteStep(e: e, classes: classes, p: p))
    }

    /// Reports every match from `from` on, feeding `e` one unit (a byte, or a folded scalar) at a time.
    /// Inlined into each caller and specialized for its `_Step`: the loop compiles as if written out.
    /// Measured against the four loops written out (callgrind, 1 MiB haystack, 3,000 keywords, per engine
    /// dense/NFA/compact): within 1% for bytes (dense +0.7%, NFA leftmost +1.2%, NFA standard -8%, compact
    /// equal), 2-4% fewer instructions for folded scalars. A closure in place of `_Step` was not inlined:
    /// +4% for bytes, twice the instructions for Unicode folding.
    @inline(__always)
    func overlappingScan<E, S: _Step>(
        _ e: E, _ p: UnsafePointer<UInt8>, _ n: Int, _ from: Int, _ body: (Match) -> Bool, _ step: S
    ) -> Bool where S.E == E {
        let maxMatch = e.maxMatch
        var s = e.initial
        var i = from
        while i < n {
            let (next, length) = step.step(s, i)
            s = next
            i &+= length
            if e.id(s) <= maxMatch {
                if !reportAll(e.index(e.id(s)), i, p, n, body) { return false }
            }
        }
        return true
    }

    // MARK: Leftmost

    func leftmost<E: _Engine>(
        _ e: E, _ p: UnsafePointer<UInt8>, _ n: Int, _ from: Int, _ body: (Match) -> Bool
    ) -> Bool {
        leftmostScan(e, p, n, from, teddy, body, _ByteStep(e: e, classes: classes, p: p))
    }

    /// Reports the leftmost matches from `from` on, each search starting where the last match ended (at
    /// the prefilter's next candidate when there is one); units as in `overlappingScan`.
    @inline(__always)
    func leftmostScan<E, S: _Step>(
        _ e: E, _ p: UnsafePointer<UInt8>, _ n: Int, _ from: Int, _ teddy: _TeddyTables?, _ body: (Match) -> Bool,
        _ step: S
    ) -> Bool where S.E == E {
        let maxMatch = e.maxMatch
        var at = from
        while at < n {
            if let teddy, at > from {
                // A new search from `at`: no match starts before the next candidate.
                at &+= teddy.firstCandidate(p + at, n &- at)
                if at >= n { return true }
            }
            var s = e.initial
            var i = at
            var found = -1
            var foundEnd = 0
            while i < n {
                let (next, length) = step.step(s, i)
                s = next
                i &+= length
                if e.id(s) <= maxMatch {
                    if e.id(s) == 0 { break }
                    if let pattern = firstPattern(e.index(e.id(s))) {
                        found = pattern
                        foundEnd = i
                    }
                }
            }
            guard found >= 0 else { return true }
            if let start = matchStart(found, foundEnd, p), start >= at, accepts(found, start, foundEnd, p, n) {
                if !body(Match(pattern: found, start: start, end: foundEnd)) { return false }
            }
            // foundEnd > at: a match ends after at least one byte read from `at`.
            at = foundEnd
        }
        return true
    }

    // MARK: Unicode simple case folding

    /// The fold of scalar value `v` if the patterns need it, else `v`.
    @inline(__always)
    func foldScalar(_ v: UInt32) -> UInt32 {
        var lo = 0
        var hi = foldCount
        while lo < hi {
            // Why no overflow: lo, hi <= foldCount < 2^32.
            let mid = (lo &+ hi) >> 1
            let from = folds[2 &* mid]
            if from == v { return folds[2 &* mid &+ 1] }
            if from < v { lo = mid &+ 1 } else { hi = mid }
        }
        return v
    }

    /// Feeds the folded unit starting at `p[i]` to `e` from state `s`; returns the new state and the unit's
    /// length in the haystack. Stops early at the dead state.
    @inline(__always)
    func feedUnit<E: _Engine>(_ e: E, _ s: E.State, _ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> (E.State, Int) {
        let b = p[i]
        if b < 0x80 { return (e.next(s, classes[Int(b)]), 1) }
        let (scalar, length) = _decodeUTF8(p, i, n)
        guard let scalar else { return (e.next(s, classes[Int(b)]), 1) }
        let (packed, count) = _encodeUTF8(foldScalar(scalar))
        var s = s
        var bits = packed
        for _ in 0..<count {
            s = e.next(s, classes[Int(bits & 0xFF)])
            if e.id(s) == 0 { break }
            bits >>= 8
        }
        return (s, length)
    }

    func overlappingUnicode<E: _Engine>(_ e: E, _ p: UnsafePointer<UInt8>, _ n: Int, _ body: (Match) -> Bool) -> Bool {
        overlappingScan(e, p, n, 0, body, _UnicodeStep(image: self, e: e, p: p, n: n))
    }

    func leftmostUnicode<E: _Engine>(_ e: E, _ p: UnsafePointer<UInt8>, _ n: Int, _ body: (Match) -> Bool) -> Bool {
        // No prefilter: an image with Unicode folding has none.
        leftmostScan(e, p, n, 0, nil, body, _UnicodeStep(image: self, e: e, p: p, n: n))
    }

    // MARK: Batch

    /// - Precondition: every span lies within the buffer at `base` (checked by the caller).
    func searchBatch(
        _ base: UnsafePointer<UInt8>, _ spans: UnsafeBufferPointer<Range<Int>>,
        _ body: (_ spanIndex: Int, Match) -> Void
    ) {
        if matchKind == .standard && caseFolding != .unicode {
            // Past the L2 cache, steps wait for misses: more lanes keep more misses in flight.
            let eight = stateCount &* alphabetLen > _lockstep8Cells
            switch engineCode {
            case .dense32:
                if eight { _lockstep8(dfa, base, spans, body) } else { _lockstep(dfa, base, spans, body) }
                return
            case .dense16:
                _lockstep(dfa16, base, spans, body)
                return
            case .compact16:
                _lockstep(compact16, base, spans, body)
                return
            case .compact32:
                _lockstep(compact32, base, spans, body)
                return
            case .nfa:
                break
            }
        }
        for (k, span) in spans.enumerated() where !span.isEmpty {
            _ = search(base + span.lowerBound, span.count) { match in
                body(k, match)
                return true
            }
        }
    }

    /// Dense DFAs with more transitions than this (1 MiB of 32-bit table) use eight lanes.
    var _lockstep8Cells: Int { 1 << 18 }

    /// One haystack being scanned by `_lockstep`.
    struct _Lane<State> {
        /// The span's first byte.
        var start: UnsafePointer<UInt8>
        /// The next byte to read.
        var at: UnsafePointer<UInt8>
        /// Just past the span's last byte.
        var end: UnsafePointer<UInt8>
        var state: State
        var span: Int

        /// Bytes left.
        @inline(__always) var left: Int { at.distance(to: end) }
    }

    /// Reports the matches of lane `lane` in match state `index`, whose last byte read is `at - 1`.
    @inline(never)
    func _reportLane<State>(
        _ index: Int, _ lane: _Lane<State>, _ at: UnsafePointer<UInt8>, _ body: (_ spanIndex: Int, Match) -> Void
    ) {
        let n = lane.start.distance(to: lane.end)
        _ = reportAll(index, lane.start.distance(to: at), lane.start, n) { match in
            body(lane.span, match)
            return true
        }
    }

    /// Whether the batch still asks the prefilter where each span's first candidate is. It stops asking
    /// when, over the first 64 non-empty spans, it skipped less than a third of the bytes: the prefilter
    /// costs 2–4 instructions per byte it scans, the dense DFA's lockstep loop about 10 per byte it
    /// scans, and below about a third the prefilter's scan costs more than the skipped bytes save
    /// (callgrind, docs/PERFORMANCE.md: 50 SMS keywords on the real bodies skip 2% of the first 64
    /// spans' bytes and 30% over all; 5 rare keywords skip 90%).
    struct _PrefilterUse {
        var on: Bool
        var spans = 0
        var bytes = 0
        var skipped = 0

        @inline(__always)
        mutating func record(_ count: Int, _ skip: Int) {
            spans &+= 1
            bytes &+= count
            skipped &+= skip
            if spans == 64 && skipped &* 3 < bytes { on = false }
        }
    }

    /// What a lockstep driver has still to hand to its lanes: the spans from `next` on, and whether the
    /// prefilter is still asked.
    struct _Feed<E: _Engine> {
        let e: E
        let base: UnsafePointer<UInt8>
        let spans: UnsafeBufferPointer<Range<Int>>
        var next = 0
        var prefilter: _PrefilterUse

        /// A lane with nothing to scan (span -1: `_finishLane` skips it).
        var idle: _Lane<E.State> { _Lane(start: base, at: base, end: base, state: e.initial, span: -1) }
    }

    /// Takes the next span with a possible match into `lane`; false when there is none. With a prefilter
    /// the lane starts at the span's first candidate (no match starts before it) and spans without one
    /// are skipped.
    @inline(__always)
    func _refill<E: _Engine>(_ feed: inout _Feed<E>, _ lane: inout _Lane<E.State>) -> Bool {
        let base = feed.base
        while feed.next < feed.spans.count {
            let span = feed.spans[feed.next]
            feed.next &+= 1
            if span.isEmpty { continue }
            var from = 0
            if feed.prefilter.on, let teddy {
                from = teddy.firstCandidate(base + span.lowerBound, span.count)
                feed.prefilter.record(span.count, from)
                if from >= span.count { continue }
            }
            lane = _Lane(
                start: base + span.lowerBound, at: base + span.lowerBound + from, end: base + span.upperBound,
                state: feed.e.initial, span: feed.next &- 1)
            return true
        }
        return false
    }

    /// Reports the matches of `lane` if its last step (the byte before `at`) put it in a match state.
    @inline(__always)
    func _reportIfMatch<E: _Engine>(
        _ e: E, _ lane: _Lane<E.State>, _ body: (_ spanIndex: Int, Match) -> Void
    ) {
        let id = e.id(lane.state)
        if id <= e.maxMatch { _reportLane(e.index(id), lane, lane.at, body) }
    }

    /// The standard kind over many spans, four at a time in lockstep.
    ///
    /// A single scan is bound by the latency of its chain of dependent table loads (state → next
    /// state). The spans are independent, so interleaving four chains keeps four loads in flight. Each
    /// round advances every lane by the smallest number of bytes any lane has left, so the inner loop
    /// needs no bounds checks of its own; emptied lanes are refilled between rounds, and when the spans
    /// run out the remaining lanes finish one by one.
    func _lockstep<E: _Engine>(
        _ e: E, _ base: UnsafePointer<UInt8>, _ spans: UnsafeBufferPointer<Range<Int>>,
        _ body: (_ spanIndex: Int, Match) -> Void
    ) {
        let classes = self.classes
        var feed = _Feed(e: e, base: base, spans: spans, prefilter: _PrefilterUse(on: teddy != nil))
        var l0 = feed.idle
        var l1 = feed.idle
        var l2 = feed.idle
        var l3 = feed.idle
        var full = _refill(&feed, &l0) && _refill(&feed, &l1) && _refill(&feed, &l2) && _refill(&feed, &l3)
        while full {
            let n = min(min(l0.left, l1.left), min(l2.left, l3.left))
            let p0 = l0.at
            let p1 = l1.at
            let p2 = l2.at
            let p3 = l3.at
            var states = (l0.state, l1.state, l2.state, l3.state)
            let j = Self._steps4(e, classes, p0, p1, p2, p3, n, &states)
            (l0.state, l1.state, l2.state, l3.state) = states
            l0.at = p0 + j
            l1.at = p1 + j
            l2.at = p2 + j
            l3.at = p3 + j
            _reportIfMatch(e, l0, body)
            _reportIfMatch(e, l1, body)
            _reportIfMatch(e, l2, body)
            _reportIfMatch(e, l3, body)
            if l0.left == 0 { full = _refill(&feed, &l0) }
            if full && l1.left == 0 { full = _refill(&feed, &l1) }
            if full && l2.left == 0 { full = _refill(&feed, &l2) }
            if full && l3.left == 0 { full = _refill(&feed, &l3) }
        }
        // Out of spans: finish the lanes still holding bytes, one at a time.
        _finishLane(e, l0, body)
        _finishLane(e, l1, body)
        _finishLane(e, l2, body)
        _finishLane(e, l3, body)
    }

    /// Advances four lanes by up to `n` bytes each; stops after the first step that puts a lane in a
    /// match state. Returns the number of steps taken. A function of its own so that the register
    /// allocator sees only the loop's values (inlined into the lane bookkeeping, the states spilled).
    ///
    /// - Precondition: each `p` has at least `n` readable bytes; `states` are validated states of `e`,
    ///   and `classes` maps every byte to a class below its stride.
    @inline(never)
    static func _steps4<E: _Engine>(
        _ e: E, _ classes: UnsafePointer<UInt8>,
        _ p0: UnsafePointer<UInt8>, _ p1: UnsafePointer<UInt8>, _ p2: UnsafePointer<UInt8>,
        _ p3: UnsafePointer<UInt8>, _ n: Int, _ states: inout (E.State, E.State, E.State, E.State)
    ) -> Int {
        var (s0, s1, s2, s3) = states
        defer { states = (s0, s1, s2, s3) }
        let maxMatch = e.maxMatch
        var j = 0
        // The hot loop: no calls, so states and pointers stay in registers. It stops after a step
        // that puts any lane in a match state; the matches are reported by the caller, which resumes.
        // (Reading 8 haystack bytes per load and shifting them out was 9% slower: the loop is bound by
        // issue width, and a byte load with an index is one micro-op, a shift plus a move two.)
        // Why in bounds: each lane has at least n bytes left and j < n; states are validated ids and
        // classes are < the stride, so every table index is in its table.
        while j < n {
            _step4(e, classes, p0, p1, p2, p3, j, &s0, &s1, &s2, &s3)
            j &+= 1
            if min(min(e.id(s0), e.id(s1)), min(e.id(s2), e.id(s3))) <= maxMatch { break }
        }
        return j
    }

    /// One step of four lanes, each by its byte `j` (the loop body of `_steps4`, twice in `_steps8`).
    @inline(__always)
    static func _step4<E: _Engine>(
        _ e: E, _ classes: UnsafePointer<UInt8>,
        _ p0: UnsafePointer<UInt8>, _ p1: UnsafePointer<UInt8>, _ p2: UnsafePointer<UInt8>, _ p3: UnsafePointer<UInt8>,
        _ j: Int, _ s0: inout E.State, _ s1: inout E.State, _ s2: inout E.State, _ s3: inout E.State
    ) {
        s0 = e.next(s0, classes[Int(p0[j])])
        s1 = e.next(s1, classes[Int(p1[j])])
        s2 = e.next(s2, classes[Int(p2[j])])
        s3 = e.next(s3, classes[Int(p3[j])])
    }

    /// `_steps4` for eight lanes, byte by byte: used when the dense DFA is larger than the L2 cache, where
    /// a step waits for a cache miss and more chains in flight pay off more than fewer loads.
    ///
    /// - Precondition: as `_steps4`.
    @inline(never)
    static func _steps8<E: _Engine>(
        _ e: E, _ classes: UnsafePointer<UInt8>,
        _ p: UnsafePointer<UnsafePointer<UInt8>>, _ n: Int, _ states: UnsafeMutablePointer<E.State>
    ) -> Int {
        let maxMatch = e.maxMatch
        let p0 = p[0]
        let p1 = p[1]
        let p2 = p[2]
        let p3 = p[3]
        let p4 = p[4]
        let p5 = p[5]
        let p6 = p[6]
        let p7 = p[7]
        var s0 = states[0]
        var s1 = states[1]
        var s2 = states[2]
        var s3 = states[3]
        var s4 = states[4]
        var s5 = states[5]
        var s6 = states[6]
        var s7 = states[7]
        var j = 0
        // Why in bounds: as in `_steps4`.
        while j < n {
            _step4(e, classes, p0, p1, p2, p3, j, &s0, &s1, &s2, &s3)
            _step4(e, classes, p4, p5, p6, p7, j, &s4, &s5, &s6, &s7)
            j &+= 1
            let low = min(min(min(e.id(s0), e.id(s1)), min(e.id(s2), e.id(s3))),
                          min(min(e.id(s4), e.id(s5)), min(e.id(s6), e.id(s7))))
            if low <= maxMatch { break }
        }
        states[0] = s0
        states[1] = s1
        states[2] = s2
        states[3] = s3
        states[4] = s4
        states[5] = s5
        states[6] = s6
        states[7] = s7
        return j
    }

    /// The eight-lane driver (see `_lockstep`); lane bookkeeping lives in stack buffers
    /// (`withUnsafeTemporaryAllocation`, no heap allocation).
    func _lockstep8<E: _Engine>(
        _ e: E, _ base: UnsafePointer<UInt8>, _ spans: UnsafeBufferPointer<Range<Int>>,
        _ body: (_ spanIndex: Int, Match) -> Void
    ) {
        let classes = self.classes
        withUnsafeTemporaryAllocation(of: _Lane<E.State>.self, capacity: 8) { lanes in
            withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>.self, capacity: 8) { pointers in
                withUnsafeTemporaryAllocation(of: E.State.self, capacity: 8) { states in
                    var feed = _Feed(e: e, base: base, spans: spans, prefilter: _PrefilterUse(on: teddy != nil))
                    lanes.initialize(repeating: feed.idle)
                    states.initialize(repeating: e.initial)
                    pointers.initialize(repeating: base)
                    var full = true
                    for k in 0..<8 where full { full = _refill(&feed, &lanes[k]) }
                    while full {
                        var n = Int.max
                        for k in 0..<8 {
                            n = min(n, lanes[k].left)
                            pointers[k] = lanes[k].at
                            states[k] = lanes[k].state
                        }
                        let j = Self._steps8(e, classes, UnsafePointer(pointers.baseAddress!), n, states.baseAddress!)
                        for k in 0..<8 {
                            lanes[k].at += j
                            lanes[k].state = states[k]
                            _reportIfMatch(e, lanes[k], body)
                        }
                        for k in 0..<8 where full && lanes[k].left == 0 { full = _refill(&feed, &lanes[k]) }
                    }
                    for k in 0..<8 { _finishLane(e, lanes[k], body) }
                }
            }
        }
    }

    func _finishLane<E: _Engine>(_ e: E, _ lane: _Lane<E.State>, _ body: (_ spanIndex: Int, Match) -> Void) {
        guard lane.span >= 0 else { return }
        var s = lane.state
        var p = lane.at
        let maxMatch = e.maxMatch
        while p < lane.end {
            s = e.next(s, classes[Int(p.pointee)])
            p += 1
            if e.id(s) <= maxMatch { _reportLane(e.index(e.id(s)), lane, p, body) }
        }
    }
}

// MARK: Match states

extension _Image {
    /// Writes `index << 32 | end` to `out` at each position where a `standard` scan (bytes, no Unicode folding)
    /// stands in a match state: `index` (1…`matchStateCount`) names the state's pattern list (`reportAll`
    /// reports those patterns there), `end` is the byte after the match. Returns how many it wrote.
    ///
    /// - Precondition: `matchKind == .standard`, `caseFolding != .unicode`, no whole-word pattern (checked by
    ///   the caller); `p` points to `n >= 1` readable bytes and `out` to room for `n` entries (at most one per
    ///   byte is written).
    func searchStates(_ p: UnsafePointer<UInt8>, _ n: Int, _ out: UnsafeMutablePointer<UInt64>) -> Int {
        var from = 0
        if let teddy {
            from = teddy.firstCandidate(p, n)
            if from >= n { return 0 }
        }
        switch engineCode {
        case .dense32: return statesScan(dfa, p, n, from, out)
        case .dense16: return statesScan(dfa16, p, n, from, out)
        case .compact16: return statesScan(compact16, p, n, from, out)
        case .compact32: return statesScan(compact32, p, n, from, out)
        case .nfa: return statesScan(nfa, p, n, from, out)
        }
    }

    @inline(__always)
    func statesScan<E: _Engine>(_ e: E, _ p: UnsafePointer<UInt8>, _ n: Int, _ from: Int, _ out: UnsafeMutablePointer<UInt64>) -> Int {
        let maxMatch = e.maxMatch
        let step = _ByteStep(e: e, classes: classes, p: p)
        let states = UInt64(matchStateCount)
        var s = e.initial
        var i = from
        var count = 0
        while i < n {
            s = step.step(s, i).0
            i &+= 1
            if e.id(s) <= maxMatch {
                let index = UInt64(truncatingIfNeeded: e.index(e.id(s)))
                // Why in bounds: at most one entry per byte read, and i <= n.
                if index >= 1 && index <= states {
                    out[count] = index << 32 | UInt64(truncatingIfNeeded: i)
                    count &+= 1
                }
            }
        }
        return count
    }
}
