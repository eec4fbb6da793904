/// Hashes that never change between runs, machines or releases (unlike Swift's seeded `Hasher`).
public enum StableHash {
    /// FNV-1a's 64-bit offset basis: the hash of no bytes.
    public static let fnvOffsetBasis: UInt64 = 0xCBF2_9CE4_8422_2325

    /// One step of 64-bit FNV-1a: `h` with `byte` folded in.
    @inline(__always)
    public static func fnv1a(_ h: UInt64, _ byte: UInt8) -> UInt64 {
        (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    /// 64-bit FNV-1a of `bytes`, unmixed (the shard of a manifest entry is this modulo the shard count).
    ///
    /// - Complexity: O(n).
    @inline(__always)
    public static func fnv1a<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var h = fnvOffsetBasis
        for b in bytes { h = fnv1a(h, b) }
        return h
    }

    /// 64-bit FNV-1a of `bytes`, finished with the SplitMix64 mixer so every bit is well spread.
    ///
    /// - Complexity: O(n).
    @inline(__always)
    public static func id(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        mix(fnv1a(bytes))
    }

    /// `id(_:)` of a byte array.
    public static func id(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { id($0) } }

    /// `id(_:)` of a string's UTF-8.
    public static func id(_ text: String) -> UInt64 { id(Array(text.utf8)) }

    /// The rank of a record for ``ExportOptions/maxPerLabel``: a second hash of the id hash, independent
    /// of it. (Ranking by the split hash itself would keep only the smallest hashes, which all fall in
    /// the train part.)
    @inline(__always)
    public static func selection(_ idHash: UInt64) -> UInt64 { mix(idHash ^ 0x5851_F42D_4C95_7F2D) }

    /// One round of MurmurHash3's 64-bit finaliser (`h ^= h >> 33; h *= 0xFF51AFD7ED558CCD; h ^= h >> 33`): the
    /// learner's folds and file checksums.
    @inline(__always)
    public static func finish(_ h: UInt64) -> UInt64 {
        var h = h
        h ^= h >> 33
        h &*= 0xFF51_AFD7_ED55_8CCD
        return h ^ h >> 33
    }

    /// The SplitMix64 finaliser.
    @inline(__always)
    public static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The hash of a message body after normalisation: lowercased (each Unicode scalar by its lowercase
    /// mapping, so `É` → `é`; ASCII by a fast path), runs of whitespace (Unicode `White_Space`) collapsed
    /// to one space, leading and trailing whitespace removed. Two bodies that differ only in case or
    /// spacing hash alike.
    ///
    /// - Complexity: O(n).
    public static func normalizedBody(_ body: UnsafeRawBufferPointer) -> UInt64 {
        var h = fnvOffsetBasis
        var pendingSpace = false
        var started = false
        @inline(__always) func feed(_ b: UInt8) {
            if pendingSpace && started { h = fnv1a(h, 0x20) }
            pendingSpace = false
            started = true
            h = fnv1a(h, b)
        }
        if !body.contains(where: { $0 >= 0x80 }) {
            for b in body {
                if b == 0x20 || (b >= 0x09 && b <= 0x0D) {
                    pendingSpace = true
                } else {
                    feed(b >= 0x41 && b <= 0x5A ? b | 0x20 : b)
                }
            }
            return mix(h)
        }
        // Non-ASCII: decode the scalars; fold each one that has a lowercase mapping (scripts without case,
        // such as Thai, Devanagari or Han, pass through untouched, with no String built).
        var iterator = body.makeIterator()
        var decoder = UTF8()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar.value < 0x80 {
                    let b = UInt8(scalar.value)
                    if b == 0x20 || (b >= 0x09 && b <= 0x0D) { pendingSpace = true } else { feed(b >= 0x41 && b <= 0x5A ? b | 0x20 : b) }
                } else if scalar.properties.isWhitespace {
                    pendingSpace = true
                } else if scalar.properties.changesWhenLowercased {
                    for lower in scalar.properties.lowercaseMapping.unicodeScalars { _encodeUTF8(lower.value) { feed($0) } }
                } else {
                    _encodeUTF8(scalar.value) { feed($0) }
                }
            case .emptyInput:
                break decoding
            case .error:
                _encodeUTF8(0xFFFD) { feed($0) }
            }
        }
        return mix(h)
    }
}
