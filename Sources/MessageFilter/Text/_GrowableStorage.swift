// MARK: Internal API

/// Growing the hand-allocated arrays of the text scratch types (`_TextNormalizer`'s parallel arrays of
/// scalars, bytes and their offsets): capacity doubles until what is needed fits, and each array moves its
/// initialised elements into the new allocation.
///
/// - warning: `p` must hold exactly `count` initialised elements and be owned by the caller (freed here and
///   replaced); pointers into the old allocation are invalid afterwards.
enum _GrowableStorage {
    /// The capacity to grow to from `capacity` (> 0) so that `needed` elements fit: doubled until they do.
    ///
    /// - Complexity: O(log(needed / capacity)).
    @inline(__always)
    static func capacity(from capacity: Int, toHold needed: Int) -> Int {
        precondition(capacity > 0, "_GrowableStorage: a capacity of 0 never grows")
        var c = capacity
        while c < needed { c *= 2 }
        return c
    }

    /// Replaces `p`, which holds `count` initialised elements, with an allocation of `capacity` elements
    /// holding them (moved, not copied).
    static func move<T>(_ p: inout UnsafeMutablePointer<T>, count: Int, toCapacity capacity: Int) {
        let n = UnsafeMutablePointer<T>.allocate(capacity: capacity)
        n.moveInitialize(from: p, count: count)
        p.deallocate()
        p = n
    }

    /// Grows three parallel allocations holding `count` elements each, of `capacity` elements, so that
    /// `needed` elements fit (``capacity(from:toHold:)``), and updates `capacity`.
    ///
    /// - Precondition: `needed` > `capacity` > 0.
    static func grow<A, B, C>(
        _ a: inout UnsafeMutablePointer<A>, _ b: inout UnsafeMutablePointer<B>, _ c: inout UnsafeMutablePointer<C>,
        count: Int, capacity: inout Int, toHold needed: Int
    ) {
        let grown = Self.capacity(from: capacity, toHold: needed)
        move(&a, count: count, toCapacity: grown)
        move(&b, count: count, toCapacity: grown)
        move(&c, count: count, toCapacity: grown)
        capacity = grown
    }
}
