/// SplitMix64: small, fast, good enough for synthetic text (`generate`) and the learner's shuffles; its
/// finaliser is ``StableHash/mix(_:)``.
struct _SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    @inline(__always)
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return StableHash.mix(state)
    }
    @inline(__always)
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    @inline(__always)
    mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }
}
