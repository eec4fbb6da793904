// MARK: Internal API

/// `_TextNormalizer`'s memory: two groups of parallel arrays, one allocation per group, allocated, grown and
/// freed here and nowhere else.
///
/// ```
///   scalars   [ value: UInt32 × c | start: Int32 × c | end: Int32 × c ]            c = scalarCapacity
///             scalar i's value, and the body bytes start[i]..<end[i] it came from
///   output    [ byte: UInt8 × c | (to a multiple of 4) | start: Int32 × c | end: Int32 × c ]   c = byteCapacity
///             the normalised UTF-8, and the body bytes each output byte came from
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
/// - ``output(count:)``: the output's first `count` bytes and spans, read-only, for the owner's
///   `withOutput { }` (which lends them to one closure; the owner alone calls this).
///
/// - warning: Do not store a handle, nor let a pointer out of a `with` closure: the arrays move when they grow.
///
/// ### Invariants (``_invariantProblem(scalarCount:byteCount:)``; run with `-DMESSAGEFILTER_INTERNAL_CHECKS`)
/// Both capacities are at least 1 (no base address is ever nil); the owner's counts are at most them.
struct _NormalizerMemory: ~Copyable {
    /// The scalar group (`scalarCapacity` of each column, bound to its element type).
    private var scalarGroup: UnsafeMutableRawPointer
    private(set) var scalarCapacity: Int
    /// The output group (`byteCapacity` of each column, bound to its element type).
    private var byteGroup: UnsafeMutableRawPointer
    private(set) var byteCapacity: Int

    /// Room for `capacity` (at least 1) scalars and as many output bytes.
    init(capacity: Int) {
        let c = max(1, capacity)
        scalarCapacity = c
        scalarGroup = Self.allocateScalars(c)
        byteCapacity = c
        byteGroup = Self.allocateBytes(c)
    }

    deinit {
        scalarGroup.deallocate()
        byteGroup.deallocate()
    }

    // MARK: Layout

    /// Where the output's span columns start in its group: after `capacity` bytes, at a multiple of 4.
    @inline(__always)
    private static func spanOffset(_ capacity: Int) -> Int { (capacity &+ 3) & ~3 }

    /// A scalar group of `c` elements per column, each column bound to its type.
    private static func allocateScalars(_ c: Int) -> UnsafeMutableRawPointer {
        let p = UnsafeMutableRawPointer.allocate(byteCount: 12 * c, alignment: 4)
        p.bindMemory(to: UInt32.self, capacity: c)
        (p + 4 * c).bindMemory(to: Int32.self, capacity: 2 * c)
        return p
    }

    /// An output group of `c` elements per column, each column bound to its type.
    private static func allocateBytes(_ c: Int) -> UnsafeMutableRawPointer {
        let o = spanOffset(c)
        let p = UnsafeMutableRawPointer.allocate(byteCount: o + 8 * c, alignment: 4)
        p.bindMemory(to: UInt8.self, capacity: c)
        (p + o).bindMemory(to: Int32.self, capacity: 2 * c)
        return p
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
        let old = scalars
        let freed = scalarGroup
        scalarGroup = Self.allocateScalars(grown)
        scalarCapacity = grown
        let new = scalars
        new.value.update(from: old.value, count: count)
        new.start.update(from: old.start, count: count)
        new.end.update(from: old.end, count: count)
        freed.deallocate()
    }

    @inline(never)
    private mutating func growBytes(_ needed: Int, keeping count: Int) {
        precondition(count >= 0 && count <= byteCapacity, "_NormalizerMemory: keeps \(count) of \(byteCapacity) bytes")
        let grown = Self.capacity(from: byteCapacity, toHold: needed)
        let old = sink(count: count, flags: .shared)
        let freed = byteGroup
        byteGroup = Self.allocateBytes(grown)
        byteCapacity = grown
        let new = sink(count: count, flags: .shared)
        new.bytes.update(from: old.bytes, count: count)
        new.starts.update(from: old.starts, count: count)
        new.ends.update(from: old.ends, count: count)
        freed.deallocate()
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

    // MARK: Handles

    /// The scalar arrays, lent until the next ``reserveScalars(_:keeping:)``.
    var scalars: _ScalarColumns {
        @inline(__always) get {
            let c = scalarCapacity
            return _ScalarColumns(value: scalarGroup.assumingMemoryBound(to: UInt32.self),
                                  start: (scalarGroup + 4 &* c).assumingMemoryBound(to: Int32.self),
                                  end: (scalarGroup + 8 &* c).assumingMemoryBound(to: Int32.self))
        }
    }

    /// A writer of the output arrays from byte `count` on, lent until the next ``reserveBytes(_:keeping:)``
    /// (the caller reserved room for what it writes; it takes the sink's `count` back).
    @inline(__always)
    func sink(count: Int, flags: _ScalarFlags) -> _ByteSink {
        let o = Self.spanOffset(byteCapacity)
        return _ByteSink(bytes: byteGroup.assumingMemoryBound(to: UInt8.self),
                         starts: (byteGroup + o).assumingMemoryBound(to: Int32.self),
                         ends: (byteGroup + (o &+ 4 &* byteCapacity)).assumingMemoryBound(to: Int32.self),
                         count: count, flags: flags)
    }

    /// The first `count` output bytes and, for each, where its source character starts and ends in its body:
    /// for the owner's `withOutput { }` alone, which lends them to one closure.
    /// - Precondition: `count <= byteCapacity`.
    @inline(__always)
    func output(count: Int) -> (UnsafeRawBufferPointer, UnsafeBufferPointer<Int32>, UnsafeBufferPointer<Int32>) {
        let o = Self.spanOffset(byteCapacity)
        return (UnsafeRawBufferPointer(start: byteGroup, count: count),
                UnsafeBufferPointer(start: (byteGroup + o).assumingMemoryBound(to: Int32.self), count: count),
                UnsafeBufferPointer(start: (byteGroup + (o &+ 4 &* byteCapacity)).assumingMemoryBound(to: Int32.self), count: count))
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
