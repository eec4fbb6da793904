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
