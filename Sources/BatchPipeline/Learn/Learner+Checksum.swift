import Foundation

extension Learner {
    /// A 64-bit checksum of the file's bytes (integrity, not security), in hex; "unreadable" when it cannot be
    /// read.
    public static func checksum(path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "unreadable" }
        defer { try? handle.close() }
        var sum = _FileChecksum()
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            chunk.withUnsafeBytes { sum.add($0) }
        }
        return sum.hex
    }

    /// ``checksum(path:)`` of bytes held in memory: the same value as for a file of these bytes (for a rule
    /// file that is not a file, `learn --rules embedded:rules`).
    public static func checksum(bytes: [UInt8]) -> String {
        var sum = _FileChecksum()
        bytes.withUnsafeBytes { sum.add($0) }
        return sum.hex
    }
}

/// The checksum's state: FNV-1a from its own seed over the bytes, the length folded in, finished.
struct _FileChecksum {
    private var h: UInt64 = 0x5350_4D53_4649_4C54
    private var total: UInt64 = 0

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes { h = StableHash.fnv1a(h, byte) }
        total += UInt64(bytes.count)
    }

    var hex: String {
        let s = String(StableHash.finish(h ^ total), radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
