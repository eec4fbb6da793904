// The search loops. Everything here reads tables through `_Image`'s pointers, which `_Image.load`
// validated: every transition target is a state, every match-list entry a pattern, every failure chain
// ends. Haystack reads are at indexes checked against the haystack's length.

/// One step of an engine: the state after reading one byte class.
protocol _Engine {
    var start: UInt32 { get }
    /// Ids <= maxMatch are the dead state (0) or match states.
    var maxMatch: UInt32 { get }
    func next(_ s: UInt32, _ c: UInt8) -> UInt32
    /// The state's index (1…M for match states).
    func index(_ s: UInt32) -> Int
}

/// The dense DFA: `trans[s + c]`, s premultiplied by the stride.
struct _DFA: _Engine {
    let trans: UnsafePointer<UInt32>
    let stride: Int
    let start: UInt32
    let maxMatch: UInt32

    /// - Precondition: `s` is a validated premultiplied id and `c` < stride, so `s + c` < S × A.
    @inline(__always)
    func next(_ s: UInt32, _ c: UInt8) -> UInt32 {
        // Why no overflow: s + c < S × A <= UInt32.max (checked on load), and Int is 64-bit.
        trans[Int(s) &+ Int(c)]
    }

    /// ceil(2^40 / stride): `s * reciprocal >> 40` is `s / stride` exactly for s < 2^32 and
    /// stride <= 256 (the error stays below 1/stride; see DESIGN.md).
    let reciprocal: UInt64

    @inline(__always)
    func index(_ s: UInt32) -> Int { Int(truncatingIfNeeded: (UInt64(s) &* reciprocal) >> 40) }
}

/// The compact NFA: a dense start row, sorted sparse transitions, failure links.
struct _NFA: _Engine {
    let fail: UnsafePointer<UInt32>
    let sparseStart: UnsafePointer<UInt32>
    let sparseClass: UnsafePointer<UInt8>
    let sparseNext: UnsafePointer<UInt32>
    let root: UnsafePointer<UInt32>
    let start: UInt32
    let maxMatch: UInt32

    /// - Precondition: `s` < S and `c` < A; failure chains end at the start or dead state (checked on load).
    @inline(__always)
    func next(_ s: UInt32, _ c: UInt8) -> UInt32 {
        var s = s
        while true {
            if s == start { return root[Int(c)] }
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

    @inline(__always)
    func index(_ s: UInt32) -> Int { Int(s) }
}

extension _Image {
    var dfa: _DFA {
        _DFA(
            trans: dfaTrans, stride: alphabetLen, start: startID, maxMatch: maxMatchID,
            reciprocal: ((UInt64(1) << 40) + UInt64(alphabetLen) - 1) / UInt64(alphabetLen))
    }
    var nfa: _NFA {
        _NFA(
            fail: nfaFail, sparseStart: nfaSparseStart, sparseClass: nfaSparseClass, sparseNext: nfaSparseNext,
            root: nfaRoot, start: startID, maxMatch: maxMatchID)
    }

    /// Searches `p[0..<n]`; returns false when `body` stopped the search.
    ///
    /// - Precondition: `p` points to `n >= 1` readable bytes that stay valid during the call. Every
    ///   haystack read below is at an index checked against `n`; every table read is at an index the
    ///   loader validated (state ids, classes, match offsets, pattern indexes).
    func search(_ p: UnsafePointer<UInt8>, _ n: Int, _ body: (Match) -> Bool) -> Bool {
        switch engine {
        case .dfa: return search(dfa, p, n, body)
        case .nfa: return search(nfa, p, n, body)
        }
    }

    @inline(__always)
    func search<E: _Engine>(_ e: E, _ p: UnsafePointer<UInt8>, _ n: Int, _ body: (Match) -> Bool) -> Bool {
        switch (matchKind, caseFolding) {
        case (.standard, .unicode): return overlappingUnicode(e, p, n, body)
        case (.standard, _): return overlapping(e, p, n, body)
        case (_, .unicode): return leftmostUnicode(e, p, n, body)
        default: return leftmost(e, p, n, body)
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

    func overlapping<E: _Engine>(_ e: E, _ p: UnsafePointer<UInt8>, _ n: Int, _ body: (Match) -> Bool) -> Bool {
        let classes = self.classes
        let maxMatch = e.maxMatch
        var s = e.start
        var i = 0
        while i < n {
            s = e.next(s, classes[Int(p[i])])
            i &+= 1
            if s <= maxMatch {
                if !reportAll(e.index(s), i, p, n, body) { return false }
            }
        }
        return true
    }

    // MARK: Leftmost

    func leftmost<E: _Engine>(_ e: E, _ p: UnsafePointer<UInt8>, _ n: Int, _ body: (Match) -> Bool) -> Bool {
        let classes = self.classes
        let maxMatch = e.maxMatch
        var at = 0
        while at < n {
            var s = e.start
            var i = at
            var found = -1
            var foundEnd = 0
            while i < n {
                s = e.next(s, classes[Int(p[i])])
                i &+= 1
                if s <= maxMatch {
                    if s == 0 { break }
                    if let pattern = firstPattern(e.index(s)) {
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
    func feedUnit<E: _Engine>(_ e: E, _ s: UInt32, _ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> (UInt32, Int) {
        let b = p[i]
        if b < 0x80 { return (e.next(s, classes[Int(b)]), 1) }
        let (scalar, length) = _decodeUTF8(p, i, n)
        guard let scalar else { return (e.next(s, classes[Int(b)]), 1) }
        let (packed, count) = _encodeUTF8(foldScalar(scalar))
        var s = s
        var bits = packed
        for _ in 0..<count {
            s = e.next(s, classes[Int(bits & 0xFF)])
            if s == 0 { break }
            bits >>= 8
        }
        return (s, length)
    }

    func overlappingUnicode<E: _Engine>(_ e: E, _ p: UnsafePointer<UInt8>, _ n: Int, _ body: (Match) -> Bool) -> Bool {
        let maxMatch = e.maxMatch
        var s = e.start
        var i = 0
        while i < n {
            let (next, length) = feedUnit(e, s, p, i, n)
            s = next
            i &+= length
            if s <= maxMatch {
                if !reportAll(e.index(s), i, p, n, body) { return false }
            }
        }
        return true
    }

    func leftmostUnicode<E: _Engine>(_ e: E, _ p: UnsafePointer<UInt8>, _ n: Int, _ body: (Match) -> Bool) -> Bool {
        let maxMatch = e.maxMatch
        var at = 0
        while at < n {
            var s = e.start
            var i = at
            var found = -1
            var foundEnd = 0
            while i < n {
                let (next, length) = feedUnit(e, s, p, i, n)
                s = next
                i &+= length
                if s <= maxMatch {
                    if s == 0 { break }
                    if let pattern = firstPattern(e.index(s)) {
                        found = pattern
                        foundEnd = i
                    }
                }
            }
            guard found >= 0 else { return true }
            if let start = matchStart(found, foundEnd, p), start >= at, accepts(found, start, foundEnd, p, n) {
                if !body(Match(pattern: found, start: start, end: foundEnd)) { return false }
            }
            at = foundEnd
        }
        return true
    }

    // MARK: Batch

    /// - Precondition: every span lies within the buffer at `base` (checked by the caller).
    func searchBatch(
        _ base: UnsafePointer<UInt8>, _ spans: UnsafeBufferPointer<Range<Int>>,
        _ body: (_ spanIndex: Int, Match) -> Void
    ) {
        if engine == .dfa && matchKind == .standard && caseFolding != .unicode {
            // Past the L2 cache, steps wait for misses: more lanes keep more misses in flight.
            if stateCount &* alphabetLen > _lockstep8Cells {
                _lockstepDFA8(base, spans, body)
            } else {
                _lockstepDFA(base, spans, body)
            }
            return
        }
        for (k, span) in spans.enumerated() where !span.isEmpty {
            _ = search(base + span.lowerBound, span.count) { match in
                body(k, match)
                return true
            }
        }
    }

    /// DFAs with more transitions than this (1 MiB of table) use eight lanes.
    var _lockstep8Cells: Int { 1 << 18 }

    /// One haystack being scanned by `_lockstepDFA`.
    struct _Lane {
        /// The span's first byte.
        var start: UnsafePointer<UInt8>
        /// The next byte to read.
        var at: UnsafePointer<UInt8>
        /// Just past the span's last byte.
        var end: UnsafePointer<UInt8>
        var state: UInt32
        var span: Int

        /// Bytes left.
        @inline(__always) var left: Int { at.distance(to: end) }
    }

    /// Reports the matches of lane `lane` in state `s`, whose last byte read is `at - 1`.
    @inline(never)
    func _reportLane(
        _ s: UInt32, _ lane: _Lane, _ at: UnsafePointer<UInt8>, _ body: (_ spanIndex: Int, Match) -> Void
    ) {
        let n = lane.start.distance(to: lane.end)
        _ = reportAll(dfa.index(s), lane.start.distance(to: at), lane.start, n) { match in
            body(lane.span, match)
            return true
        }
    }

    /// Takes the next non-empty span into `lane`; false when there is none.
    @inline(__always)
    func _refill(
        _ lane: inout _Lane, _ next: inout Int, _ base: UnsafePointer<UInt8>, _ spans: UnsafeBufferPointer<Range<Int>>
    ) -> Bool {
        while next < spans.count {
            let span = spans[next]
            next &+= 1
            if span.isEmpty { continue }
            lane = _Lane(
                start: base + span.lowerBound, at: base + span.lowerBound, end: base + span.upperBound,
                state: startID, span: next &- 1)
            return true
        }
        return false
    }

    /// The standard-kind DFA over many spans, four at a time in lockstep.
    ///
    /// A single DFA scan is bound by the latency of its chain of dependent table loads (state → next
    /// state). The spans are independent, so interleaving four chains keeps four loads in flight. Each
    /// round advances every lane by the smallest number of bytes any lane has left, so the inner loop
    /// needs no bounds checks of its own; emptied lanes are refilled between rounds, and when the spans
    /// run out the remaining lanes finish one by one.
    func _lockstepDFA(
        _ base: UnsafePointer<UInt8>, _ spans: UnsafeBufferPointer<Range<Int>>,
        _ body: (_ spanIndex: Int, Match) -> Void
    ) {
        let trans = dfaTrans
        let classes = self.classes
        let maxMatch = maxMatchID
        var next = 0
        let idle = _Lane(start: base, at: base, end: base, state: startID, span: -1)
        var l0 = idle
        var l1 = idle
        var l2 = idle
        var l3 = idle
        var full = _refill(&l0, &next, base, spans) && _refill(&l1, &next, base, spans)
            && _refill(&l2, &next, base, spans) && _refill(&l3, &next, base, spans)
        while full {
            let n = min(min(l0.left, l1.left), min(l2.left, l3.left))
            let p0 = l0.at
            let p1 = l1.at
            let p2 = l2.at
            let p3 = l3.at
            var states = (l0.state, l1.state, l2.state, l3.state)
            let j = Self._steps4(trans, classes, maxMatch, p0, p1, p2, p3, n, &states)
            let (s0, s1, s2, s3) = states
            l0.at = p0 + j
            l1.at = p1 + j
            l2.at = p2 + j
            l3.at = p3 + j
            l0.state = s0
            l1.state = s1
            l2.state = s2
            l3.state = s3
            if s0 <= maxMatch { _reportLane(s0, l0, l0.at, body) }
            if s1 <= maxMatch { _reportLane(s1, l1, l1.at, body) }
            if s2 <= maxMatch { _reportLane(s2, l2, l2.at, body) }
            if s3 <= maxMatch { _reportLane(s3, l3, l3.at, body) }
            if l0.left == 0 { full = _refill(&l0, &next, base, spans) }
            if full && l1.left == 0 { full = _refill(&l1, &next, base, spans) }
            if full && l2.left == 0 { full = _refill(&l2, &next, base, spans) }
            if full && l3.left == 0 { full = _refill(&l3, &next, base, spans) }
        }
        // Out of spans: finish the lanes still holding bytes, one at a time.
        _finishLane(l0, body)
        _finishLane(l1, body)
        _finishLane(l2, body)
        _finishLane(l3, body)
    }

    /// Advances four lanes by up to `n` bytes each; stops after the first step that puts a lane in a
    /// match state. Returns the number of steps taken. A function of its own so that the register
    /// allocator sees only the loop's values (inlined into the lane bookkeeping, the states spilled).
    ///
    /// - Precondition: each `p` has at least `n` readable bytes; `states` are validated premultiplied
    ///   ids of the DFA `trans`, and `classes` maps every byte to a class below its stride.
    @inline(never)
    static func _steps4(
        _ trans: UnsafePointer<UInt32>, _ classes: UnsafePointer<UInt8>, _ maxMatch: UInt32,
        _ p0: UnsafePointer<UInt8>, _ p1: UnsafePointer<UInt8>, _ p2: UnsafePointer<UInt8>,
        _ p3: UnsafePointer<UInt8>, _ n: Int, _ states: inout (UInt32, UInt32, UInt32, UInt32)
    ) -> Int {
        var (s0, s1, s2, s3) = states
        defer { states = (s0, s1, s2, s3) }
        var j = 0
        // The hot loop: no calls, so states and pointers stay in registers. It stops after a step
        // that puts any lane in a match state; the matches are reported by the caller, which resumes.
        // (Reading 8 haystack bytes per load and shifting them out was 9% slower: the loop is bound by
        // issue width, and a byte load with an index is one micro-op, a shift plus a move two.)
        // Why in bounds: each lane has at least n bytes left and j < n; states are validated
        // premultiplied ids and classes are < the stride, so every table index is < S × A.
        while j < n {
            s0 = trans[Int(s0) &+ Int(classes[Int(p0[j])])]
            s1 = trans[Int(s1) &+ Int(classes[Int(p1[j])])]
            s2 = trans[Int(s2) &+ Int(classes[Int(p2[j])])]
            s3 = trans[Int(s3) &+ Int(classes[Int(p3[j])])]
            j &+= 1
            if min(min(s0, s1), min(s2, s3)) <= maxMatch { break }
        }
        return j
    }

    /// `_steps4` for eight lanes, byte by byte: used when the DFA is larger than the L2 cache, where a
    /// step waits for a cache miss and more chains in flight pay off more than fewer loads.
    ///
    /// - Precondition: as `_steps4`.
    @inline(never)
    static func _steps8(
        _ trans: UnsafePointer<UInt32>, _ classes: UnsafePointer<UInt8>, _ maxMatch: UInt32,
        _ p: UnsafePointer<UnsafePointer<UInt8>>, _ n: Int, _ states: UnsafeMutablePointer<UInt32>
    ) -> Int {
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
            s0 = trans[Int(s0) &+ Int(classes[Int(p0[j])])]
            s1 = trans[Int(s1) &+ Int(classes[Int(p1[j])])]
            s2 = trans[Int(s2) &+ Int(classes[Int(p2[j])])]
            s3 = trans[Int(s3) &+ Int(classes[Int(p3[j])])]
            s4 = trans[Int(s4) &+ Int(classes[Int(p4[j])])]
            s5 = trans[Int(s5) &+ Int(classes[Int(p5[j])])]
            s6 = trans[Int(s6) &+ Int(classes[Int(p6[j])])]
            s7 = trans[Int(s7) &+ Int(classes[Int(p7[j])])]
            j &+= 1
            if min(min(min(s0, s1), min(s2, s3)), min(min(s4, s5), min(s6, s7))) <= maxMatch { break }
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

    /// The eight-lane driver (see `_lockstepDFA`); lane bookkeeping lives in stack buffers
    /// (`withUnsafeTemporaryAllocation`, no heap allocation).
    func _lockstepDFA8(
        _ base: UnsafePointer<UInt8>, _ spans: UnsafeBufferPointer<Range<Int>>,
        _ body: (_ spanIndex: Int, Match) -> Void
    ) {
        let trans = dfaTrans
        let classes = self.classes
        let maxMatch = maxMatchID
        withUnsafeTemporaryAllocation(of: _Lane.self, capacity: 8) { lanes in
            withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>.self, capacity: 8) { pointers in
                withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 8) { states in
                    let idle = _Lane(start: base, at: base, end: base, state: startID, span: -1)
                    lanes.initialize(repeating: idle)
                    var next = 0
                    var full = true
                    for k in 0..<8 where full { full = _refill(&lanes[k], &next, base, spans) }
                    while full {
                        var n = Int.max
                        for k in 0..<8 {
                            n = min(n, lanes[k].left)
                            pointers[k] = lanes[k].at
                            states[k] = lanes[k].state
                        }
                        let j = Self._steps8(
                            trans, classes, maxMatch, UnsafePointer(pointers.baseAddress!), n, states.baseAddress!)
                        for k in 0..<8 {
                            lanes[k].at += j
                            lanes[k].state = states[k]
                            if states[k] <= maxMatch { _reportLane(states[k], lanes[k], lanes[k].at, body) }
                        }
                        for k in 0..<8 where full && lanes[k].left == 0 {
                            full = _refill(&lanes[k], &next, base, spans)
                        }
                    }
                    for k in 0..<8 { _finishLane(lanes[k], body) }
                }
            }
        }
    }

    func _finishLane(_ lane: _Lane, _ body: (_ spanIndex: Int, Match) -> Void) {
        guard lane.span >= 0 else { return }
        var s = lane.state
        var p = lane.at
        let trans = dfaTrans
        while p < lane.end {
            s = trans[Int(s) &+ Int(classes[Int(p.pointee)])]
            p += 1
            if s <= maxMatchID { _reportLane(s, lane, p, body) }
        }
    }
}
