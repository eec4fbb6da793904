/// The three parts of a training set.
public enum TrainingSplit: Int, Sendable, CaseIterable, CustomStringConvertible {
    case train = 0
    case validation = 1
    case test = 2

    /// `train`, `validation`, `test` (also the output file names).
    public var name: String {
        switch self {
        case .train: "train"
        case .validation: "validation"
        case .test: "test"
        }
    }

    public var description: String { name }
}

/// How records are shared between train, validation and test: integer weights, e.g. `80,10,10`.
///
/// A record's part depends only on a hash of its id (``StableHash/id(_:)``), never on its position, so
/// a record keeps its part when the corpus grows or is read in another order.
public struct SplitRatios: Sendable, Equatable, CustomStringConvertible {
    public let train: Int
    public let validation: Int
    public let test: Int

    /// The largest weight: three of them add up without overflow, and a part's share stays exact in a `Double`.
    public static let maxWeight = 1_000_000

    /// Weights of the three parts, each from 0 to ``maxWeight``; at least one must be positive.
    public init?(train: Int, validation: Int, test: Int) {
        let range = 0...Self.maxWeight
        guard range.contains(train), range.contains(validation), range.contains(test), train + validation + test > 0
        else { return nil }
        self.train = train
        self.validation = validation
        self.test = test
    }

    /// Parses `80,10,10` (or `90,10`: no test part).
    public init?(_ text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ $0 != nil }) else { return nil }
        self.init(train: parts[0]!, validation: parts[1]!, test: parts.count == 3 ? parts[2]! : 0)
    }

    public var description: String { "\(train),\(validation),\(test)" }

    /// The part of a record whose id hashes to `hash`.
    ///
    /// - Complexity: O(1).
    public func split(forHash hash: UInt64) -> TrainingSplit {
        let total = UInt64(train + validation + test)
        // The top bits of a well-mixed hash, scaled to [0, total): no modulo bias worth speaking of.
        let bucket = UInt64((Double(hash >> 11) / Double(1 << 53)) * Double(total))
        if bucket < UInt64(train) { return .train }
        if bucket < UInt64(train + validation) { return .validation }
        return .test
    }
}

/// Hashes that never change between runs, machines or releases (unlike Swift's seeded `Hasher`).
public enum StableHash {
    /// 64-bit FNV-1a of `bytes`, finished with the SplitMix64 mixer so every bit is well spread.
    ///
    /// - Complexity: O(n).
    @inline(__always)
    public static func id(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01B3
        }
        return mix(h)
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
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        var pendingSpace = false
        var started = false
        @inline(__always) func feed(_ b: UInt8) {
            if pendingSpace && started {
                h ^= 0x20
                h = h &* 0x0000_0100_0000_01B3
            }
            pendingSpace = false
            started = true
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01B3
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

import Foundation
