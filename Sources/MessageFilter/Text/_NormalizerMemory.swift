// MARK: Internal API

/// `_TextNormalizer`'s memory: two groups of parallel arrays, allocated, grown and freed here and nowhere else.
///
/// ```
///   scalars   value[i]  start[i]  end[i]     the decoded scalars and the body bytes each came from
///             (UInt32)  (Int32)   (Int32)    `scalarCapacity` each
///   output    byte[i]   start[i]  end[i]     the normalised UTF-8 and the body bytes each came from
///             (UInt8)   (Int32)   (Int32)    `byteCapacity` each
/// ```
///
/// ### Ownership and lifetime
/// The normaliser holds one `_NormalizerMemory` (non-copyable: one owner, freed by its `deinit`). It keeps the
/// counts (how many of each group are written); this type keeps the allocations and their capacities. The
/// memory reaches the normaliser's loops only as handles it lends, each valid until the group it points into
/// grows (`reserveScalars`, `reserveBytes`: the arrays move) or the memory dies:
///
/// - ``scalars``: a `_ScalarColumns` (the three scalar arrays), taken by `decode`, `emitWords`, `reverse` and
///   `joinSpacedLetters` for one call and taken again after a growth;
/// - ``sink(count:flags:)``: a `_ByteSink` writing the output arrays, taken the same way;
/// - ``withOutput(count:_:)``: the output's first `count` bytes and spans, read-only, for one closure.
///
/// - warning: Do not store a handle, nor let a pointer out of a `with` closure: the arrays move when they grow.
///
/// ### Invariants (``_invariantProblem(scalarCount:byteCount:)``; run with `-DMESSAGEFILTER_INTERNAL_CHECKS`)
/// Both capacities are at least 1 (no base address is ever nil); the owner's counts are at most them.
struct _NormalizerMemory: ~Copyable {
    private var scalarValue: UnsafeMutablePointer<UInt32>
    private var scalarStart: UnsafeMutablePointer<Int32>
    private var scalarEnd: UnsafeMutablePointer<Int32>
    /// Elements of each scalar array.
    private(set) var scalarCapacity: Int

    private var byte: UnsafeMutablePointer<UInt8>
    private var byteStart: UnsafeMutablePointer<Int32>
    private var byteEnd: UnsafeMutablePointer<Int32>
    /// Elements of each output array.
    private(set) var byteCapacity: Int

    /// Room for `capacity` (at least 1) scalars and as many output bytes.
    init(capacity: Int) {
        let c = max(1, capacity)
        scalarCapacity = c
        scalarValue = .allocate(capacity: c)
        scalarStart = .allocate(capacity: c)
        scalarEnd = .allocate(capacity: c)
        byteCapacity = c
        byte = .allocate(capacity: c)
        byteStart = .allocate(capacity: c)
        byteEnd = .allocate(capacity: c)
    }

    deinit {
        scalarValue.deallocate()
        scalarStart.deallocate()
        scalarEnd.deallocate()
        byte.deallocate()
        byteStart.deallocate()
        byteEnd.deallocate()
    }

    // MARK: Growth

    /// Makes room for `needed` scalars, keeping the first `count` (the handles lent before are invalid after
    /// a growth: take ``scalars`` again).
    ///
    /// - Precondition: `count <= scalarCapacity`.
    @inline(__always)
    mutating func reserveScalars(_ needed: Int, keeping count: Int) {
        if needed > scalarCapacity { growScalars(needed, keeping: count) }
    }

    /// Makes room for `needed` output bytes, keeping the first `count` (take a new ``sink(count:flags:)`` after).
    ///
    /// - Precondition: `count <= byteCapacity`.
    @inline(__always)
    mutating func reserveBytes(_ needed: Int, keeping count: Int) {
        if needed > byteCapacity { growBytes(needed, keeping: count) }
    }

    @inline(never)
    private mutating func growScalars(_ needed: Int, keeping count: Int) {
        precondition(count >= 0 && count <= scalarCapacity, "_NormalizerMemory: keeps \(count) of \(scalarCapacity) scalars")
        let grown = Self.capacity(from: scalarCapacity, toHold: needed)
        Self.move(&scalarValue, count: count, toCapacity: grown)
        Self.move(&scalarStart, count: count, toCapacity: grown)
        Self.move(&scalarEnd, count: count, toCapacity: grown)
        scalarCapacity = grown
    }

    @inline(never)
    private mutating func growBytes(_ needed: Int, keeping count: Int) {
        precondition(count >= 0 && count <= byteCapacity, "_NormalizerMemory: keeps \(count) of \(byteCapacity) bytes")
        let grown = Self.capacity(from: byteCapacity, toHold: needed)
        Self.move(&byte, count: count, toCapacity: grown)
        Self.move(&byteStart, count: count, toCapacity: grown)
        Self.move(&byteEnd, count: count, toCapacity: grown)
        byteCapacity = grown
    }

    /// The capacity to grow to from `capacity` (> 0) so that `needed` elements fit: doubled until they do.
    ///
    /// - Complexity: O(log(needed / capacity)).
    static func capacity(from capacity: Int, toHold needed: Int) -> Int {
        precondition(capacity > 0, "_NormalizerMemory: a capacity of 0 never grows")
        var c = capacity
        while c < needed { c *= 2 }
        return c
    }

    /// Replaces `p`, which holds `count` initialised elements, with an allocation of `capacity` elements
    /// holding them (moved, not copied; the old allocation freed).
    private static func move<T>(_ p: inout UnsafeMutablePointer<T>, count: Int, toCapacity capacity: Int) {
        let n = UnsafeMutablePointer<T>.allocate(capacity: capacity)
        n.moveInitialize(from: p, count: count)
        p.deallocate()
        p = n
    }

    // MARK: Handles

    /// The scalar arrays, lent until the next ``reserveScalars(_:keeping:)``.
    var scalars: _ScalarColumns {
        @inline(__always) get { _ScalarColumns(value: scalarValue, start: scalarStart, end: scalarEnd) }
    }

    /// A writer of the output arrays from byte `count` on, lent until the next ``reserveBytes(_:keeping:)``
    /// (the caller reserved room for what it writes; it takes the sink's `count` back).
    @inline(__always)
    func sink(count: Int, flags: _ScalarFlags) -> _ByteSink {
        _ByteSink(bytes: byte, starts: byteStart, ends: byteEnd, count: count, flags: flags)
    }

    /// Calls `body` with the first `count` output bytes and, for each, where its source character starts and
    /// ends in its body.
    /// - warning: Do not escape the pointers.
    /// - Precondition: `count <= byteCapacity`.
    @inline(__always)
    func withOutput<R, E: Error>(
        count: Int, _ body: (UnsafeRawBufferPointer, UnsafeBufferPointer<Int32>, UnsafeBufferPointer<Int32>) throws(E) -> R
    ) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: byte, count: count), UnsafeBufferPointer(start: byteStart, count: count),
                 UnsafeBufferPointer(start: byteEnd, count: count))
    }

    // MARK: Internal checks

    /// What breaks the invariants for an owner that has written `scalarCount` scalars and `byteCount` output
    /// bytes, or nil when they hold.
    func _invariantProblem(scalarCount: Int, byteCount: Int) -> String? {
        guard scalarCapacity >= 1, byteCapacity >= 1 else {
            return "normalizer memory: capacities \(scalarCapacity) scalars, \(byteCapacity) bytes (at least 1 each)"
        }
        guard scalarCount >= 0, scalarCount <= scalarCapacity else {
            return "normalizer memory: \(scalarCount) scalars written in room for \(scalarCapacity)"
        }
        guard byteCount >= 0, byteCount <= byteCapacity else {
            return "normalizer memory: \(byteCount) bytes written in room for \(byteCapacity)"
        }
        return nil
    }
}

/// The scalar arrays of a `_NormalizerMemory`, lent to one call of the normaliser's steps (the memory's
/// `scalars`): scalar `i`'s value and the body bytes `start[i]..<end[i]` it came from. Valid until the memory's
/// scalars grow; never stored. Indices are the borrower's to keep below the capacity it reserved.
struct _ScalarColumns {
    let value: UnsafeMutablePointer<UInt32>
    let start: UnsafeMutablePointer<Int32>
    let end: UnsafeMutablePointer<Int32>

    /// Writes scalar `i`: `v` from body bytes `s..<e`.
    @inline(__always)
    func put(_ i: Int, _ v: UInt32, _ s: Int32, _ e: Int32) {
        value[i] = v
        start[i] = s
        end[i] = e
    }

    /// Copies scalar `from` (value and span) to `to`.
    @inline(__always)
    func copy(_ from: Int, to: Int) {
        value[to] = value[from]
        start[to] = start[from]
        end[to] = end[from]
    }
}
