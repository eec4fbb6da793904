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
        _lockstepFour(e, base, spans, round: { lanes in
            // Room for four notes per step, and at least a quarter of the buffer's steps.
            if positions.capacity &- positions.count < positions.capacity / 4 { positions.flush(body) }
            let room = (positions.capacity &- positions.count) / 4
            // n >= 1: every lane holds bytes after `_refill`, and room >= capacity / 16 >= 4.
            let n = min(lanes.least, room)
            let first = positions.count
            var laneStates = lanes.states
            let count = Self._steps4Noting(e, classes, lanes.l0.at, lanes.l1.at, lanes.l2.at, lanes.l3.at, n,
                                           &laneStates, out + first)
            lanes.states = laneStates
            // The notes (in order of step, then lane: each lane's in order of end) become positions, in place.
            var w = first
            for k in first..<(first &+ count) {
                let note = out[k]
                let lane: _Lane<E.State>
                switch note.span {
                case 0: lane = lanes.l0
                case 1: lane = lanes.l1
                case 2: lane = lanes.l2
                default: lane = lanes.l3
                }
                let index = e.index(note.state)
                guard index >= 1 && index <= states else { continue }
                out[w] = MatchStatePosition(span: Int32(truncatingIfNeeded: lane.span), state: UInt32(truncatingIfNeeded: index),
                                            end: lane.start.distance(to: lane.at) &+ note.end)
                w &+= 1
            }
            positions.count = w
            lanes.advance(n)
        }, finish: { lane in _finishLaneStates(e, lane, &positions, body) })
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
                _note(e.id(s0), lane: 0, j, maxMatch, notes, &count)
                _note(e.id(s1), lane: 1, j, maxMatch, notes, &count)
                _note(e.id(s2), lane: 2, j, maxMatch, notes, &count)
                _note(e.id(s3), lane: 3, j, maxMatch, notes, &count)
            }
        }
        return count
    }

    /// Notes (lane, id, step `j`) at `notes[count]` when `id` is a match state's (or the dead state's).
    @inline(__always)
    static func _note(
        _ id: UInt32, lane: Int32, _ j: Int, _ maxMatch: UInt32, _ notes: UnsafeMutablePointer<MatchStatePosition>,
        _ count: inout Int
    ) {
        if id <= maxMatch {
            notes[count] = MatchStatePosition(span: lane, state: id, end: j)
            count &+= 1
        }
    }

    /// `_finishLane` for `searchBatchStates`. Not inlined: its loop keeps its values in registers (inlined into
    /// `_lockstepStates`, once per lane, it loaded the class table's pointer from the stack at every byte).
    @inline(never)
    func _finishLaneStates<E: _Engine>(
        _ e: E, _ lane: _Lane<E.State>, _ positions: inout _StatePositions,
        _ body: (UnsafeBufferPointer<MatchStatePosition>) -> Void
    ) {
        _finishLaneSteps(e, lane) { index, at in
            positions.reserve(1, body)
            positions.put(lane.span, index, lane.start.distance(to: at), states: matchStateCount)
        }
    }
}
