/// Little-endian binary writer for the `.smsf` format.
struct _ByteWriter {
    var buffer: [UInt8] = []

    mutating func u8(_ v: UInt8) { buffer.append(v) }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { buffer.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { buffer.append(contentsOf: $0) } }
    mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
    mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    mutating func bytes(_ b: [UInt8]) { u32(UInt32(b.count)); buffer.append(contentsOf: b) }
    mutating func string(_ s: String) { bytes(Array(s.utf8)) }
    mutating func strings(_ a: [String]) { u32(UInt32(a.count)); for s in a { string(s) } }
    mutating func align(_ n: Int) { while buffer.count % n != 0 { buffer.append(0) } }
}

/// Bounds-checked little-endian reader: every read checks the remaining length and throws past the end.
struct _ByteReader {
    struct Failure: Error, CustomStringConvertible {
        let offset: Int
        let what: String
        var description: String { "\(what) at byte \(offset)" }
    }

    let base: UnsafeRawBufferPointer
    var offset = 0

    init(_ base: UnsafeRawBufferPointer) { self.base = base }

    var remaining: Int { base.count - offset }

    mutating func need(_ n: Int, _ what: String) throws {
        guard n >= 0, n <= remaining else { throw Failure(offset: offset, what: "truncated \(what)") }
    }
    mutating func u8() throws -> UInt8 {
        try need(1, "byte")
        defer { offset += 1 }
        return base[offset]
    }
    mutating func u32() throws -> UInt32 {
        try need(4, "integer")
        defer { offset += 4 }
        return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
    mutating func u64() throws -> UInt64 {
        try need(8, "integer")
        defer { offset += 8 }
        return UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
    mutating func i32() throws -> Int32 { Int32(bitPattern: try u32()) }
    mutating func i64() throws -> Int64 { Int64(bitPattern: try u64()) }
    /// A count of items each at least `minimumBytesEach` long, checked against the bytes left.
    mutating func count(minimumBytesEach: Int) throws -> Int {
        let n = Int(try u32())
        guard n <= remaining / max(1, minimumBytesEach) else { throw Failure(offset: offset, what: "count \(n) larger than the data") }
        return n
    }
    mutating func bytes() throws -> [UInt8] {
        let n = Int(try u32())
        try need(n, "byte string")
        defer { offset += n }
        return Array(UnsafeRawBufferPointer(rebasing: base[offset..<(offset + n)]))
    }
    mutating func string() throws -> String {
        let b = try bytes()
        guard let s = String(validating: b, as: UTF8.self) else { throw Failure(offset: offset, what: "invalid UTF-8 string") }
        return s
    }
    mutating func strings() throws -> [String] {
        let n = try count(minimumBytesEach: 4)
        var out: [String] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(try string()) }
        return out
    }
}

/// A fast 64-bit checksum (word-at-a-time multiply–xor–rotate), for integrity, not security.
enum _Checksum {
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0x5350_4D53_4649_4C54) -> UInt64 {
        var h = seed ^ UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15
        var i = 0
        let n = bytes.count
        while i + 8 <= n {
            let w = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            h = (h ^ (w &* 0xBF58_476D_1CE4_E5B9)).rotatedLeft(27) &* 0x94D0_49BB_1331_11EB &+ 0x52DC_E729
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            tail |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ (tail &* 0xBF58_476D_1CE4_E5B9)).rotatedLeft(27) &* 0x94D0_49BB_1331_11EB
        h ^= h >> 31
        h &*= 0xD6E8_FEB8_6659_FD93
        h ^= h >> 32
        return h
    }

    static func hash(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { hash($0) } }
}

extension UInt64 {
    @inline(__always) func rotatedLeft(_ n: UInt64) -> UInt64 { (self << n) | (self >> (64 - n)) }
}
