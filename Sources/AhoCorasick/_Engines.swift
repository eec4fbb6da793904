// The engines the search loops drive (`_Search.swift`, `_Search+Batch.swift`, `_Search+States.swift`): the
// dense DFA, the compact DFA and the NFA, and the steps that feed them bytes or folded scalars. Everything
// here reads tables through `_Image`'s pointers, which `_Image.load` validated: every transition target is a
// state, every match-list entry a pattern, every failure chain ends.

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
    /// (Word-sized in registers, though the tables hold 32 or 16 bits: with 32-bit fields each step zero-extended
    /// both and scaled its class apart, about four instructions more per byte; callgrind, `make budget`.)
    struct State {
        var id: UInt
        /// q's row in `defaults`, premultiplied by the stride.
        var row: UInt
    }
    /// Cells: next id << 8 | class (0xFF: unused; the compact DFA has at most 255 classes).
    let comb: UnsafePointer<UInt32>
    let defaults: UnsafePointer<Default>
    let matchIndex: UnsafePointer<UInt32>
    let start: UInt32
    let maxMatch: UInt32

    var initial: State { State(id: UInt(start), row: 0) }

    /// - Precondition: `s.id + c` < C and `s.row + c` < R × A: ids and rows are validated on load, and
    ///   `c` < A.
    @inline(__always)
    func next(_ s: State, _ c: UInt8) -> State {
        let half = Default.bitWidth / 2
        let cell = comb[Int(bitPattern: s.id &+ UInt(c))]
        let shallow = defaults[Int(bitPattern: s.row &+ UInt(c))]
        let fallback = UInt(truncatingIfNeeded: shallow >> half)
        let row = UInt(truncatingIfNeeded: shallow & (Default(1) << half &- 1))
        return State(id: UInt8(truncatingIfNeeded: cell) == c ? UInt(cell >> 8) : fallback, row: row)
    }

    @inline(__always) func id(_ s: State) -> UInt32 { UInt32(truncatingIfNeeded: s.id) }

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
