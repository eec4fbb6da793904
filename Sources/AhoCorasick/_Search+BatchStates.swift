// The bulk batch scan (`forEachMatchState(in:spans:positions:)`): several bodies in lockstep, as
// `_Search+Batch.swift` scans them, but writing the positions where a lane stands in a match state into the
// caller's buffer, handed over in bulk, instead of reporting each match to a closure.

/// The positions found and not yet handed over. The closure that takes them is passed to each function that may
/// hand them over (not stored: a stored closure would have to escape).
struct _StatePositions {
    let out: UnsafeMutablePointer<MatchStatePosition>
    let capacity: Int
    var count = 0

    /// Makes room for `more` positions, handing the buffer over to `body` when it would not hold them.
    @inline(__always)
    mutating func reserve(_ more: Int, _ body: (UnsafeBufferPointer<MatchStatePosition>) -> Void) {
        if count &+ more > capacity { flush(body) }
    }

    mutating func flush(_ body: (UnsafeBufferPointer<MatchStatePosition>) -> Void) {
        guard count > 0 else { return }
        body(UnsafeBufferPointer(start: out, count: count))
        count = 0
    }

    /// Span `span` stands in match state `index` (0, the dead state, and anything past `states`: nothing) after
    /// the byte before `end`.
    /// - Precondition: `reserve` made room (`count < capacity`).
    @inline(__always)
    mutating func put(_ span: Int, _ index: Int, _ end: Int, states: Int) {
        guard index >= 1 && index <= states else { return }
        (out + count).initialize(to: MatchStatePosition(
            span: Int32(truncatingIfNeeded: span), state: UInt32(truncatingIfNeeded: index), end: end))
        count &+= 1
    }
}

extension _Image {
    /// The least room `forEachMatchState` takes for its positions.
    static var _statePositionsMinimum: Int { 64 }

    /// `searchBatch`, writing match positions into `out` (room for `capacity`) and handing them to `body`.
    ///
    /// - Precondition: `matchKind == .standard`, `caseFolding != .unicode`, fewer than 2^31 spans, every span
    ///   within the buffer at `base`, `capacity >= _statePositionsMinimum` (checked by the caller).
    func searchBatchStates(
        _ base: UnsafePointer<UInt8>, _ spans: UnsafeBufferPointer<Range<Int>>,
        _ out: UnsafeMutablePointer<MatchStatePosition>, _ capacity: Int,
        _ body: (UnsafeBufferPointer<MatchStatePosition>) -> Void
    ) {
        var positions = _StatePositions(out: out, capacity: capacity)
        switch engineCode {
        case .nfa: _spanStates(nfa, base, spans, &positions, body)
        case .dense32: _lockstepStates(dfa, base, spans, &positions, body)
        case .dense16: _lockstepStates(dfa16, base, spans, &positions, body)
        case .compact16: _lockstepStates(compact16, base, spans, &positions, body)
        case .compact32: _lockstepStates(compact32, base, spans, &positions, body)
        }
        positions.flush(body)
    }

    /// The spans one by one (the NFA, which has no lockstep scan).
    func _spanStates<E: _Engine>(
        _ e: E, _ base: UnsafePointer<UInt8>, _ spans: UnsafeBufferPointer<Range<Int>>,
        _ positions: inout _StatePositions, _ body: (UnsafeBufferPointer<MatchStatePosition>) -> Void
    ) {
        let maxMatch = e.maxMatch
        for k in 0..<spans.count where !spans[k].isEmpty {
            let span = spans[k]
            let p = base + span.lowerBound
            let n = span.count
            var i = 0
            if let teddy {
                // No match starts before the prefilter's first candidate.
                i = teddy.firstCandidate(p, n)
                if i >= n { continue }
            }
            var s = e.initial
            while i < n {
                s = e.next(s, classes[Int(p[i])])
                i &+= 1
                if e.id(s) <= maxMatch {
                    positions.reserve(1, body)
                    positions.put(k, e.index(e.id(s)), i, states: matchStateCount)
                }
            }
        }
    }

    /// `_lockstep` for `searchBatchStates`: four spans in lockstep, but a lane in a match state does not end the
    /// round. The step loop (`_steps4Noting`) notes (lane, state, step) in the free part of the positions' buffer
    /// and goes on; a round ends when a lane runs out of bytes or the buffer could fill, and its notes become
    /// positions then, in place. With a match every 40 bytes or so (the rules' phrases on SMS text), rounds ended
    /// by matches cost more than the steps between them. (Dense DFAs past the L2 cache, which `_lockstep8` scans
    /// eight at a time, are scanned four at a time here.)
    func _lockstepStates<E: _Engine>(
        _ e: E, _ base: UnsafePointer<UInt8>, _ spans: UnsafeBufferPointer<Range<Int>>,
        _ positions: inout _StatePositions, _ body: (UnsafeBufferPointer<MatchStatePosition>) -> Void
    ) {
        let classes = self.classes
        let states = matchStateCount
        let out = positions.out
        var feed = _Feed(e: e, base: base, spans: spans, prefilter: _PrefilterUse(on: teddy != nil))
        var l0 = feed.idle
        var l1 = feed.idle
        var l2 = feed.idle
        var l3 = feed.idle
        var full = _refill(&feed, &l0) && _refill(&feed, &l1) && _refill(&feed, &l2) && _refill(&feed, &l3)
        while full {
            // Room for four notes per step, and at least a quarter of the buffer's steps.
            if positions.capacity &- positions.count < positions.capacity / 4 { positions.flush(body) }
            let room = (positions.capacity &- positions.count) / 4
            // n >= 1: every lane holds bytes after `_refill`, and room >= capacity / 16 >= 4.
            let n = min(min(min(l0.left, l1.left), min(l2.left, l3.left)), room)
            let first = positions.count
            var lanes = (l0.state, l1.state, l2.state, l3.state)
            let count = Self._steps4Noting(e, classes, l0.at, l1.at, l2.at, l3.at, n, &lanes, out + first)
            (l0.state, l1.state, l2.state, l3.state) = lanes
            // The notes (in order of step, then lane: each lane's in order of end) become positions, in place.
            var w = first
            for k in first..<(first &+ count) {
                let note = out[k]
                let lane: _Lane<E.State>
                switch note.span {
                case 0: lane = l0
                case 1: lane = l1
                case 2: lane = l2
                default: lane = l3
                }
                let index = e.index(note.state)
                guard index >= 1 && index <= states else { continue }
                out[w] = MatchStatePosition(span: Int32(truncatingIfNeeded: lane.span), state: UInt32(truncatingIfNeeded: index),
                                            end: lane.start.distance(to: lane.at) &+ note.end)
                w &+= 1
            }
            positions.count = w
            l0.at += n
            l1.at += n
            l2.at += n
            l3.at += n
            if l0.left == 0 { full = _refill(&feed, &l0) }
            if full && l1.left == 0 { full = _refill(&feed, &l1) }
            if full && l2.left == 0 { full = _refill(&feed, &l2) }
            if full && l3.left == 0 { full = _refill(&feed, &l3) }
        }
        // Out of spans: finish the lanes still holding bytes, one at a time.
        _finishLaneStates(e, l0, &positions, body)
        _finishLaneStates(e, l1, &positions, body)
        _finishLaneStates(e, l2, &positions, body)
        _finishLaneStates(e, l3, &positions, body)
    }

    /// Advances four lanes by `n` bytes each, writing a note (span: the lane 0–3, state: the state's id, end: the
    /// bytes the lane read in this call) to `notes` for each step that puts a lane in a match state. Returns the
    /// number of notes. Like `_steps4`, a function of its own so that the loop's values stay in registers.
    ///
    /// - Precondition: as `_steps4`, and `notes` has room for `4 * n` notes.
    @inline(never)
    static func _steps4Noting<E: _Engine>(
        _ e: E, _ classes: UnsafePointer<UInt8>,
        _ p0: UnsafePointer<UInt8>, _ p1: UnsafePointer<UInt8>, _ p2: UnsafePointer<UInt8>,
        _ p3: UnsafePointer<UInt8>, _ n: Int, _ states: inout (E.State, E.State, E.State, E.State),
        _ notes: UnsafeMutablePointer<MatchStatePosition>
    ) -> Int {
        var (s0, s1, s2, s3) = states
        defer { states = (s0, s1, s2, s3) }
        let maxMatch = e.maxMatch
        var j = 0
        var count = 0
        // Why in bounds: as in `_steps4`; at most four notes per step.
        while j < n {
            _step4(e, classes, p0, p1, p2, p3, j, &s0, &s1, &s2, &s3)
            j &+= 1
            // The test of `_steps4` first: the loop stays as tight as its loop where no lane is in a match state
            // (the notes' pointer and count are needed only below).
            if _slowPath(min(min(e.id(s0), e.id(s1)), min(e.id(s2), e.id(s3))) <= maxMatch) {
                if e.id(s0) <= maxMatch {
                    notes[count] = MatchStatePosition(span: 0, state: e.id(s0), end: j)
                    count &+= 1
                }
                if e.id(s1) <= maxMatch {
                    notes[count] = MatchStatePosition(span: 1, state: e.id(s1), end: j)
                    count &+= 1
                }
                if e.id(s2) <= maxMatch {
                    notes[count] = MatchStatePosition(span: 2, state: e.id(s2), end: j)
                    count &+= 1
                }
                if e.id(s3) <= maxMatch {
                    notes[count] = MatchStatePosition(span: 3, state: e.id(s3), end: j)
                    count &+= 1
                }
            }
        }
        return count
    }

    /// `_finishLane` for `searchBatchStates`.
    func _finishLaneStates<E: _Engine>(
        _ e: E, _ lane: _Lane<E.State>, _ positions: inout _StatePositions,
        _ body: (UnsafeBufferPointer<MatchStatePosition>) -> Void
    ) {
        guard lane.span >= 0 else { return }
        var s = lane.state
        var p = lane.at
        let maxMatch = e.maxMatch
        while p < lane.end {
            s = e.next(s, classes[Int(p.pointee)])
            p += 1
            if e.id(s) <= maxMatch {
                positions.reserve(1, body)
                positions.put(lane.span, e.index(e.id(s)), lane.start.distance(to: p), states: matchStateCount)
            }
        }
    }
}
