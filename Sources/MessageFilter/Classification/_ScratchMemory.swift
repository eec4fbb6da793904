// MARK: Internal API

/// The owner of a scratch object's raw buffers (`_ModelScratch`'s, `Classifier`'s): each buffer is allocated and initialised by
/// `make` (every element set, so a read never sees uninitialised memory), replaced only through `remake` (the
/// old one freed, its contents not kept), and freed when this object is, so the scratch that holds it never
/// frees a buffer by hand. Elements must be trivial values (integers, floating point, `Bool`, payload-free
/// enums, structs of those): no deinitialisation is done. A buffer's pointer is valid until `remake` replaces
/// it or this object dies; indices are the holder's to keep below the count it asked for. Not thread-safe (one
/// per scratch).
final class _ScratchMemory {
    private var buffers: [UnsafeMutableRawPointer] = []

    /// A new buffer of `count` (at least 1) elements, each `value`.
    func make<T>(_ count: Int, _ value: T) -> UnsafeMutablePointer<T> {
        let n = max(1, count)
        let p = UnsafeMutablePointer<T>.allocate(capacity: n)
        p.initialize(repeating: value, count: n)
        buffers.append(UnsafeMutableRawPointer(p))
        return p
    }

    /// Frees `old` (a buffer of this object) and returns a new one of `count` elements, each `value`.
    func remake<T>(_ old: UnsafeMutablePointer<T>, _ count: Int, _ value: T) -> UnsafeMutablePointer<T> {
        let k = buffers.firstIndex(of: UnsafeMutableRawPointer(old))!
        buffers.remove(at: k)
        old.deallocate()
        return make(count, value)
    }

    deinit {
        for p in buffers { p.deallocate() }
    }
}
