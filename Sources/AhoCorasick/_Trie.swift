/// The trie under construction: flat arrays, linked lists for transitions and matches.
struct _Trie {
    private static let none: Int32 = -1
    private static let dead: Int32 = -2

    // Per state.
    var firstTrans: [Int32] = [-1]
    var fail: [Int32] = [0]
    var matchHead: [Int32] = [-1]
    var matchTail: [Int32] = [-1]
    // Per transition (sorted by class within a state). The start state's transitions are also in `rootChild`.
    var transClass: [UInt8] = []
    var transNext: [Int32] = []
    var transLink: [Int32] = []
    // Per match list node.
    var matchPattern: [Int32] = []
    var matchLink: [Int32] = []
    var rootChild: [Int32]

    init(alphabetLen: Int) {
        rootChild = [Int32](repeating: -1, count: alphabetLen)
    }

    var count: Int { firstTrans.count }

    func child(_ s: Int32, _ c: UInt8) -> Int32 {
        if s == 0 { return rootChild[Int(c)] }
        var link = firstTrans[Int(s)]
        while link != Self.none {
            let lc = transClass[Int(link)]
            if lc == c { return transNext[Int(link)] }
            if lc > c { return Self.none }
            link = transLink[Int(link)]
        }
        return Self.none
    }

    mutating func childOrInsert(_ s: Int32, _ c: UInt8) -> Int32 {
        if s == 0, rootChild[Int(c)] != Self.none { return rootChild[Int(c)] }
        // Find the insertion point in the sorted list.
        var previous = Self.none
        var link = firstTrans[Int(s)]
        while link != Self.none {
            let lc = transClass[Int(link)]
            if lc == c { return transNext[Int(link)] }
            if lc > c { break }
            previous = link
            link = transLink[Int(link)]
        }
        let state = Int32(firstTrans.count)
        firstTrans.append(Self.none)
        fail.append(0)
        matchHead.append(Self.none)
        matchTail.append(Self.none)
        let t = Int32(transClass.count)
        transClass.append(c)
        transNext.append(state)
        transLink.append(link)
        if previous == Self.none { firstTrans[Int(s)] = t } else { transLink[Int(previous)] = t }
        if s == 0 { rootChild[Int(c)] = state }
        return state
    }

    mutating func addMatch(_ s: Int32, _ pattern: Int32) {
        let node = Int32(matchPattern.count)
        matchPattern.append(pattern)
        matchLink.append(Self.none)
        if matchTail[Int(s)] == Self.none { matchHead[Int(s)] = node } else { matchLink[Int(matchTail[Int(s)])] = node }
        matchTail[Int(s)] = node
    }

    /// `s` on `c` following failure links (the full DFA transition); never returns `none`.
    func follow(_ s: Int32, _ c: UInt8) -> Int32 {
        var s = s
        while true {
            if s == Self.dead { return Self.dead }
            if s == 0 {
                let r = rootChild[Int(c)]
                return r == Self.none ? 0 : r
            }
            let n = child(s, c)
            if n != Self.none { return n }
            s = fail[Int(s)]
        }
    }

    /// Fills failure links and shares match lists; returns all states in breadth-first order (start first).
    ///
    /// Leftmost kinds: a state with its own patterns fails to the dead state (once a match is seen, no
    /// match starting later may replace it), and inherits nothing.
    mutating func fillFailures(leftmost: Bool) -> [Int32] {
        var order: [Int32] = [0]
        order.reserveCapacity(count)
        var head = 0
        while head < order.count {
            let s = order[head]
            head += 1
            var link = firstTrans[Int(s)]
            while link != Self.none {
                let c = transClass[Int(link)]
                let t = transNext[Int(link)]
                link = transLink[Int(link)]
                order.append(t)
                if leftmost && matchHead[Int(t)] != Self.none {
                    fail[Int(t)] = Self.dead
                    continue
                }
                let f = s == 0 ? 0 : follow(fail[Int(s)], c)
                fail[Int(t)] = f
                if f >= 0 && matchHead[Int(f)] != Self.none {
                    // Share f's list: append it after t's own patterns.
                    if matchTail[Int(t)] == Self.none {
                        matchHead[Int(t)] = matchHead[Int(f)]
                    } else {
                        matchLink[Int(matchTail[Int(t)])] = matchHead[Int(f)]
                    }
                    // t's tail stays its own last node; t's list now continues into f's.
                    matchTail[Int(t)] = Self.none
                }
            }
        }
        return order
    }
}
