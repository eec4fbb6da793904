// The batch scan: several bodies in lockstep (DESIGN.md, "Batch scanning (lockstep)").

extension _Image {
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

    /// The four lanes of a lockstep driver (`_lockstepFour`).
    struct _Lanes4<State> {
        var l0: _Lane<State>
        var l1: _Lane<State>
        var l2: _Lane<State>
        var l3: _Lane<State>

        /// The fewest bytes a lane has left.
        @inline(__always) var least: Int { min(min(l0.left, l1.left), min(l2.left, l3.left)) }

        /// The lanes' states, lane 0 first.
        @inline(__always) var states: (State, State, State, State) {
            get { (l0.state, l1.state, l2.state, l3.state) }
            set { (l0.state, l1.state, l2.state, l3.state) = newValue }
        }

        /// Moves every lane `n` bytes on.
        @inline(__always)
        mutating func advance(_ n: Int) {
            l0.at += n
            l1.at += n
            l2.at += n
            l3.at += n
        }
    }

    /// Four spans at a time in lockstep: fills four lanes from `spans`, calls `round` while every lane holds
    /// bytes (each round moves the lanes on; the scans differ in how far and in what they report), refills the
    /// lanes it emptied between rounds, and when the spans run out hands the lanes still holding bytes to
    /// `finish`, one at a time.
    @inline(__always)
    func _lockstepFour<E: _Engine>(
        _ e: E, _ base: UnsafePointer<UInt8>, _ spans: UnsafeBufferPointer<Range<Int>>,
        round: (inout _Lanes4<E.State>) -> Void, finish: (_Lane<E.State>) -> Void
    ) {
        var feed = _Feed(e: e, base: base, spans: spans, prefilter: _PrefilterUse(on: teddy != nil))
        var lanes = _Lanes4(l0: feed.idle, l1: feed.idle, l2: feed.idle, l3: feed.idle)
        var full = _refill(&feed, &lanes.l0) && _refill(&feed, &lanes.l1) && _refill(&feed, &lanes.l2)
            && _refill(&feed, &lanes.l3)
        while full {
            round(&lanes)
            if lanes.l0.left == 0 { full = _refill(&feed, &lanes.l0) }
            if full && lanes.l1.left == 0 { full = _refill(&feed, &lanes.l1) }
            if full && lanes.l2.left == 0 { full = _refill(&feed, &lanes.l2) }
            if full && lanes.l3.left == 0 { full = _refill(&feed, &lanes.l3) }
        }
        // Out of spans: finish the lanes still holding bytes, one at a time.
        finish(lanes.l0)
        finish(lanes.l1)
        finish(lanes.l2)
        finish(lanes.l3)
    }

    /// The standard kind over many spans, four at a time in lockstep.
    ///
    /// A single scan is bound by the latency of its chain of dependent table loads (state → next
    /// state). The spans are independent, so interleaving four chains keeps four loads in flight. Each
    /// round advances every lane by the smallest number of bytes any lane has left, so the inner loop
    /// needs no bounds checks of its own; emptied lanes are refilled between rounds, and when the spans
    /// run out the remaining lanes finish one by one (`_lockstepFour`).
    func _lockstep<E: _Engine>(
        _ e: E, _ base: UnsafePointer<UInt8>, _ spans: UnsafeBufferPointer<Range<Int>>,
        _ body: (_ spanIndex: Int, Match) -> Void
    ) {
        let classes = self.classes
        _lockstepFour(e, base, spans, round: { lanes in
            let n = lanes.least
            var states = lanes.states
            let j = Self._steps4(e, classes, lanes.l0.at, lanes.l1.at, lanes.l2.at, lanes.l3.at, n, &states)
            lanes.states = states
            lanes.advance(j)
            _reportIfMatch(e, lanes.l0, body)
            _reportIfMatch(e, lanes.l1, body)
            _reportIfMatch(e, lanes.l2, body)
            _reportIfMatch(e, lanes.l3, body)
        }, finish: { lane in _finishLane(e, lane, body) })
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
        _finishLaneSteps(e, lane) { index, at in _reportLane(index, lane, at, body) }
    }

    /// Scans the rest of `lane` (none for an idle lane), calling `matched(index, at)` after each byte that puts it
    /// in match state `index` (0 for the dead state), `at` the byte after it.
    @inline(__always)
    func _finishLaneSteps<E: _Engine>(
        _ e: E, _ lane: _Lane<E.State>, _ matched: (_ index: Int, _ at: UnsafePointer<UInt8>) -> Void
    ) {
        guard lane.span >= 0 else { return }
        var s = lane.state
        var p = lane.at
        let maxMatch = e.maxMatch
        while p < lane.end {
            s = e.next(s, classes[Int(p.pointee)])
            p += 1
            if e.id(s) <= maxMatch { matched(e.index(e.id(s)), p) }
        }
    }
}
