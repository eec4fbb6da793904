#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The seek table of zstd's seekable format (`contrib/seekable_format` in the zstd sources): one entry per
/// frame, stored in a skippable frame at the end of the file, so readers can find every frame (and where
/// each one's content starts) without decoding, while `zstd -dc` skips the table like any skippable frame.
///
/// ```
///  frame 0 | frame 1 | … | frame n−1 | 0x184D2A5E | size (4) | entries (8 or 12 bytes each) | n (4) | descriptor (1) | 0x8F92EAB1
///                                    └───────────────────────── the seek table's skippable frame ─────────────────────────────┘
/// ```
///
/// An entry is the frame's compressed size (4 bytes), decompressed size (4 bytes) and, when the descriptor's
/// bit 7 is set, the low 32 bits of the XXH64 of its content (what zstd's frame checksum holds). All
/// little-endian.
public struct ZstdSeekTable: Sendable, Equatable {
    /// One frame.
    public struct Entry: Sendable, Equatable {
        public var compressedSize: UInt32
        public var decompressedSize: UInt32
        /// The low 32 bits of the XXH64 of the frame's content, when the table has checksums.
        public var checksum: UInt32?

        public init(compressedSize: UInt32, decompressedSize: UInt32, checksum: UInt32? = nil) {
            self.compressedSize = compressedSize
            self.decompressedSize = decompressedSize
            self.checksum = checksum
        }
    }

    /// The frames, in file order.
    public var entries: [Entry]

    /// The magic number of the table's skippable frame.
    public static let skippableMagic: UInt32 = 0x184D_2A5E
    /// The last four bytes of a file with a seek table.
    public static let footerMagic: UInt32 = 0x8F92_EAB1
    /// The most frames the format allows.
    public static let maxFrames = 0x0800_0000
    /// The footer's size: frame count (4), descriptor (1), magic (4).
    static let footerSize = 9

    public init(entries: [Entry]) { self.entries = entries }

    /// Whether the entries carry checksums (all of them must, or none).
    public var hasChecksums: Bool { entries.first?.checksum != nil }

    /// The size of the whole skippable frame.
    public var serializedSize: Int { 8 + entries.count * (hasChecksums ? 12 : 8) + Self.footerSize }

    /// The table as its skippable frame.
    ///
    /// - Precondition: every entry has a checksum or none has; at most ``maxFrames`` entries.
    public func serialized() -> [UInt8] {
        precondition(entries.count <= Self.maxFrames, "a seek table holds at most \(Self.maxFrames) frames")
        let checksums = hasChecksums
        var out: [UInt8] = []
        out.reserveCapacity(serializedSize)
        func put(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
        put(Self.skippableMagic)
        put(UInt32(serializedSize - 8))
        for entry in entries {
            precondition((entry.checksum != nil) == checksums, "every seek table entry has a checksum or none has")
            put(entry.compressedSize)
            put(entry.decompressedSize)
            if let checksum = entry.checksum { put(checksum) }
        }
        put(UInt32(entries.count))
        out.append(checksums ? 0x80 : 0)
        put(Self.footerMagic)
        return out
    }

    /// Parses a seek table from the last bytes of a file (`tail` ends where the file ends).
    ///
    /// - Returns: nil when `tail` does not end with the footer magic; the table otherwise.
    /// - Throws: ``ZstdError`` `.corrupt` when the footer is there but the table around it is not valid
    ///   (reserved bits set, a size that does not match, a frame that is not skippable), or `.truncated`
    ///   when `tail` is too short to hold the table the footer announces (read more and call again).
    public static func parse(tail: [UInt8]) throws(ZstdError) -> ZstdSeekTable? {
        let n = tail.count
        func u32(_ at: Int) -> UInt32 {
            UInt32(tail[at]) | UInt32(tail[at + 1]) << 8 | UInt32(tail[at + 2]) << 16 | UInt32(tail[at + 3]) << 24
        }
        guard n >= footerSize, u32(n - 4) == footerMagic else { return nil }
        let frames = Int(u32(n - 9))
        let descriptor = tail[n - 5]
        guard descriptor & 0x7C == 0 else {
            throw ZstdError(.corrupt, detail: "the seek table's descriptor has reserved bits set")
        }
        guard frames <= maxFrames else {
            throw ZstdError(.corrupt, detail: "the seek table announces \(frames) frames, more than the format allows")
        }
        let entrySize = descriptor & 0x80 != 0 ? 12 : 8
        let total = 8 + frames * entrySize + footerSize
        guard n >= total else {
            throw ZstdError(.truncated, detail: "the seek table needs the file's last \(total) bytes")
        }
        let start = n - total
        guard u32(start) == skippableMagic, Int(u32(start + 4)) == total - 8 else {
            throw ZstdError(.corrupt, detail: "the seek table's skippable frame header does not match its footer")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(frames)
        var at = start + 8
        for _ in 0..<frames {
            entries.append(
                Entry(compressedSize: u32(at), decompressedSize: u32(at + 4), checksum: entrySize == 12 ? u32(at + 8) : nil))
            at += entrySize
        }
        return ZstdSeekTable(entries: entries)
    }

    /// Reads the seek table at the end of the file at `path`.
    ///
    /// - Returns: nil when the file does not end with a seek table.
    /// - Throws: ``ZstdError`` `.fileFailed` / `.readFailed` when the file cannot be read, `.corrupt` as
    ///   ``parse(tail:)`` does, or when the frames it lists do not add up to the file's size.
    public static func read(path: String) throws(ZstdError) -> ZstdSeekTable? {
        let opened = try _OpenedPath(path)
        let size = try opened.size(path)
        func tail(_ count: Int64) throws(ZstdError) -> [UInt8] {
            let count = Int(min(count, size))
            var bytes = [UInt8](repeating: 0, count: count)
            let got = bytes.withUnsafeMutableBytes { _Sys.preadFully(opened.fd, $0, at: size - Int64(count)).done }
            guard got == count else { throw ZstdError(.readFailed, offset: size - Int64(count), path: path) }
            return bytes
        }
        do throws(ZstdError) {
            let footer = try tail(Int64(footerSize))
            guard footer.count == footerSize,
                UInt32(footer[5]) | UInt32(footer[6]) << 8 | UInt32(footer[7]) << 16 | UInt32(footer[8]) << 24 == footerMagic
            else { return nil }
            let frames = Int64(UInt32(footer[0]) | UInt32(footer[1]) << 8 | UInt32(footer[2]) << 16 | UInt32(footer[3]) << 24)
            guard frames <= Int64(maxFrames) else {
                throw ZstdError(.corrupt, detail: "the seek table announces \(frames) frames, more than the format allows")
            }
            let entrySize: Int64 = footer[4] & 0x80 != 0 ? 12 : 8
            guard let table = try parse(tail: try tail(8 + frames * entrySize + Int64(footerSize))) else { return nil }
            let framesSize = table.entries.reduce(Int64(0)) { $0 + Int64($1.compressedSize) }
            guard framesSize + Int64(table.serializedSize) == size else {
                throw ZstdError(
                    .corrupt,
                    detail: "the seek table lists \(framesSize) bytes of frames; the file holds \(size - Int64(table.serializedSize))")
            }
            return table
        } catch {
            throw error.path == nil ? error.naming(path) : error
        }
    }
}
