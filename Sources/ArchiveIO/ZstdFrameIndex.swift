#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the frames of a zstd file are, found without decoding: the points where the file can be cut so
/// that each piece decodes on its own (zstd archives are splittable only at frame boundaries).
///
/// From the seek table when the file has one (zstd's seekable format, ``ZstdSeekTable``: one read at the
/// end, then the first bytes of each frame to check that a frame starts there and, when its header says
/// its content size, that the table agrees); otherwise by walking the headers with `pread` (RFC 8878: the
/// frame header, each block's 3-byte header, the checksum; skippable frames such as pzstd's size hints),
/// which reads a few bytes per block and never decodes.
///
/// The frames tile the file: a frame's ``Frame/start`` is the end of the frame before it, so the skippable
/// frames in front of a zstd frame (pzstd's hint of its size) travel with it, and the last frame runs to the
/// end of the file (a seek table or other skippable frames after it belong to it). Where the walk meets
/// something it does not read (the file ends inside a frame, a reserved bit, bytes that are no frame), it
/// stops: the bytes from the last good boundary on become one last piece of unknown size (``stop`` says
/// where and why), to be decoded, and refused with the decoder's own message, by whoever reads it.
public struct ZstdFrameIndex: Sendable, Equatable {
    /// One zstd frame and the skippable frames before it.
    public struct Frame: Sendable, Equatable {
        /// The offset of the frame, or of the skippable frames just before it.
        public var start: Int64
        /// Just past the frame (the last one: the end of the file).
        public var end: Int64
        /// Its decoded size, when its header (content size) or the seek table says; nil otherwise.
        public var decodedSize: Int64?

        public init(start: Int64, end: Int64, decodedSize: Int64?) {
            self.start = start
            self.end = end
            self.decodedSize = decodedSize
        }
    }

    /// Where the frames were found.
    public enum Source: String, Sendable {
        case seekTable = "seek table"
        case frameHeaders = "frame headers"
    }

    /// Where the walk stopped before the end of the file, and why.
    public struct Stop: Sendable, Equatable {
        public var offset: Int64
        public var reason: String
    }

    /// The frames, in file order; they tile `0..<fileSize`.
    public var frames: [Frame]
    public var fileSize: Int64
    public var source: Source
    /// Set when the bytes from `stop.offset` on could not be walked (they are the last frame's).
    public var stop: Stop?

    /// Whether a range of the file may start or end at `offset`: a frame's start, or the end of the file.
    public func isBoundary(_ offset: Int64) -> Bool {
        offset == fileSize || frameIndex(startingAt: offset) != nil
    }

    /// The index of the frame that starts at `offset`, if one does.
    public func frameIndex(startingAt offset: Int64) -> Int? {
        var low = 0
        var high = frames.count
        while low < high {
            let mid = (low + high) / 2
            if frames[mid].start < offset { low = mid + 1 } else { high = mid }
        }
        return low < frames.count && frames[low].start == offset ? low : nil
    }

    /// The boundaries nearest to `offset` (the one before it and the one after it), for error messages.
    public func boundaries(around offset: Int64) -> (before: Int64?, after: Int64?) {
        let starts = frames.map(\.start) + [fileSize]
        return (starts.last(where: { $0 < offset }), starts.first(where: { $0 > offset }))
    }

    /// Finds the frames of the file at `path`.
    ///
    /// - Returns: nil when the file does not start with a zstd frame or a skippable frame (not zstd).
    /// - Throws: ``ZstdError`` `.fileFailed` or `.readFailed` when the file cannot be opened or read.
    /// - Complexity: O(frames) reads with a seek table; O(blocks) small reads without one.
    public static func read(path: String) throws(ZstdError) -> ZstdFrameIndex? {
        let opened = try _OpenedPath(path)
        let file = _PositionedReader(fd: opened.fd, size: try opened.size(path), path: path)
        let magic = try file.u32(at: 0)
        guard let magic, magic == _Zstd.frameMagic || magic & _Zstd.skippableMagicMask == _Zstd.skippableMagicStart else {
            return nil
        }
        // A seek table that does not hold (a damaged or foreign one) is ignored: the headers are walked.
        if let table = try? ZstdSeekTable.read(path: path), let index = try fromSeekTable(table, file) { return index }
        return try walk(file)
    }

    /// The frames found by walking the headers, whether or not the file has a seek table (for tests).
    static func walkForTests(path: String) throws(ZstdError) -> ZstdFrameIndex {
        let opened = try _OpenedPath(path)
        return try walk(_PositionedReader(fd: opened.fd, size: try opened.size(path), path: path))
    }

    /// The frames a seek table lists, if each starts with a zstd frame magic and every header that gives a
    /// content size gives the table's; nil otherwise.
    private static func fromSeekTable(_ table: ZstdSeekTable, _ file: _PositionedReader) throws(ZstdError) -> ZstdFrameIndex? {
        guard !table.entries.isEmpty else { return nil }
        var frames: [Frame] = []
        frames.reserveCapacity(table.entries.count)
        var at: Int64 = 0
        for entry in table.entries {
            let end = at + Int64(entry.compressedSize)
            guard let header = try file.frameHeader(at: at), Int64(header.size) <= end - at else { return nil }
            if let content = header.contentSize, content != UInt64(entry.decompressedSize) { return nil }
            frames.append(Frame(start: at, end: end, decodedSize: Int64(entry.decompressedSize)))
            at = end
        }
        frames[frames.count - 1].end = file.size  // the seek table belongs to the last frame
        return ZstdFrameIndex(frames: frames, fileSize: file.size, source: .seekTable, stop: nil)
    }

    /// Walks frame and block headers from the start of the file.
    private static func walk(_ file: _PositionedReader) throws(ZstdError) -> ZstdFrameIndex {
        var frames: [Frame] = []
        var start: Int64 = 0  // where the current frame's piece starts (skippable frames before it included)
        var at: Int64 = 0
        var stop: Stop?
        walking: while at < file.size {
            guard let magic = try file.u32(at: at) else {
                stop = Stop(offset: at, reason: "the file ends inside a frame header")
                break
            }
            if magic & _Zstd.skippableMagicMask == _Zstd.skippableMagicStart {
                guard let length = try file.u32(at: at + 4), at + 8 + Int64(length) <= file.size else {
                    stop = Stop(offset: at, reason: "the file ends inside a skippable frame")
                    break
                }
                at += 8 + Int64(length)
                continue
            }
            guard magic == _Zstd.frameMagic else {
                stop = Stop(offset: at, reason: "no zstd frame starts here")
                break
            }
            guard let header = try file.frameHeader(at: at) else {
                stop = Stop(offset: at, reason: "the file ends inside a frame header")
                break
            }
            guard !header.reservedBitSet else {
                stop = Stop(offset: at, reason: "the frame header has a reserved bit set")
                break
            }
            var p = at + Int64(header.size)
            var decoded: Int64? = 0
            while true {
                guard let b0 = try file.byte(at: p), let b1 = try file.byte(at: p + 1), let b2 = try file.byte(at: p + 2) else {
                    stop = Stop(offset: at, reason: "the file ends inside a frame")
                    break walking
                }
                let raw = Int(b0) | Int(b1) << 8 | Int(b2) << 16
                let type = (raw >> 1) & 3
                let size = raw >> 3
                guard type != 3, size <= header.blockMaximum else {
                    stop = Stop(offset: p, reason: "a block header is damaged (reserved type or over the maximum block size)")
                    break walking
                }
                // Raw and RLE blocks decode to exactly `size` bytes; a compressed block's size is not in its header.
                decoded = type == 2 ? nil : decoded.map { $0 + Int64(size) }
                p += 3 + Int64(type == 1 ? 1 : size)
                if raw & 1 == 1 { break }
            }
            if header.hasChecksum { p += 4 }
            guard p <= file.size else {
                stop = Stop(offset: at, reason: "the file ends inside a frame")
                break
            }
            frames.append(Frame(start: start, end: p, decodedSize: header.contentSize.map { Int64($0) } ?? decoded))
            start = p
            at = p
        }
        if stop != nil || frames.isEmpty {
            // What could not be walked is one last piece, from the last good boundary.
            frames.append(Frame(start: start, end: file.size, decodedSize: nil))
        } else {
            // Skippable frames after the last frame (a seek table) are its.
            frames[frames.count - 1].end = file.size
        }
        return ZstdFrameIndex(frames: frames, fileSize: file.size, source: .frameHeaders, stop: stop)
    }
}

/// Small positioned reads of a file, through a 4 KiB window (frame and block headers are read in order,
/// so most come from the window).
final class _PositionedReader {
    let fd: Int32
    let size: Int64
    let path: String
    private var window: [UInt8] = []
    private var windowStart: Int64 = -1

    init(fd: Int32, size: Int64, path: String) {
        self.fd = fd
        self.size = size
        self.path = path
    }

    /// The byte at `offset`, nil past the end of the file.
    func byte(at offset: Int64) throws(ZstdError) -> UInt8? {
        guard offset >= 0, offset < size else { return nil }
        if windowStart < 0 || offset < windowStart || offset >= windowStart + Int64(window.count) { try load(offset) }
        return window[Int(offset - windowStart)]
    }

    /// The little-endian 32-bit word at `offset`, nil when the file ends before its last byte.
    func u32(at offset: Int64) throws(ZstdError) -> UInt32? {
        var value: UInt32 = 0
        for k in 0..<4 {
            guard let b = try byte(at: offset + Int64(k)) else { return nil }
            value |= UInt32(b) << (8 * UInt32(k))
        }
        return value
    }

    /// The zstd frame header at `offset` (magic included), nil when there is none whole there.
    func frameHeader(at offset: Int64) throws(ZstdError) -> _FrameHeader? {
        guard try u32(at: offset) == _Zstd.frameMagic, let descriptor = try byte(at: offset + 4) else { return nil }
        let count = _FrameHeader.size(descriptor: descriptor)
        var bytes: [UInt8] = []
        for k in 0..<count {
            guard let b = try byte(at: offset + Int64(k)) else { return nil }
            bytes.append(b)
        }
        return bytes.withUnsafeBytes { _FrameHeader($0) }
    }

    private func load(_ offset: Int64) throws(ZstdError) {
        let count = Int(min(Int64(4 << 10), size - offset))
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { _Sys.preadFully(fd, $0, at: offset) }
        if let e = got.error { throw ZstdError(.readFailed, offset: offset, errno: e.code, path: path) }
        guard got.done == count else {
            throw ZstdError(.readFailed, offset: offset, path: path, detail: "the file is shorter than it was")
        }
        window = bytes
        windowStart = offset
    }
}
