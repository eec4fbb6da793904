import Foundation

extension Learner {
    /// ``checksum(path:)`` of bytes held in memory: the same value as for a file of these bytes (for a rule
    /// file that is not a file, `learn --rules embedded:rules`).
    public static func checksum(bytes: [UInt8]) -> String {
        var h: UInt64 = 0x5350_4D53_4649_4C54
        for byte in bytes { h = StableHash.fnv1a(h, byte) }
        h ^= UInt64(bytes.count)
        h ^= h >> 33
        h &*= 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
