// MARK: Internal API
//
// Finding zstd frames without decoding them, for `ZstdParallelDecoder`.
//
// A zstd stream is a sequence of frames (RFC 8878 §3.1): zstd frames (magic 0xFD2FB528, a header, blocks
// with 3-byte headers, an optional 4-byte checksum) and skippable frames (magic 0x184D2A5?, a 4-byte size,
// that many bytes; pzstd's frame-size hints and the seekable format's seek table are skippable frames). The
// walker reads the stream once, in order, and turns it into *items*, each in a slot of a fixed pool:
//
//   - `.frame`: one whole zstd frame whose decoded size is known to be at most `maxFrameBytes` (its content
//     size field, or the sum of its blocks' maxima: a raw or RLE block's own size, a compressed block's
//     Block_Maximum_Size), to be decoded by a worker in one pass;
//   - `.serial`: compressed bytes the consumer decodes itself with a streaming context, as `ZstdDecoder`
//     does: a frame too large for a slot (or of unknown size whose blocks may exceed it), in pieces of
//     whole blocks; and, once anything looks wrong, everything from the start of that frame to the end of
//     the input, unparsed ("raw"), so that libzstd itself finds and names the problem exactly as
//     `ZstdDecoder` would (a bad magic, a reserved bit, a dictionary, a window over the cap, a reserved block
//     type, a block over its maximum, the input ending inside a frame);
//   - `.failure`: an error to throw once everything before it is delivered (a read error; the input ending
//     inside a skippable frame, whose bytes are not kept).
//
// Skippable frames produce no item. The walker never trusts a size it has not checked: block sizes are
// checked against the frame's maximum before any byte is copied, and a frame's bytes are copied only while
// its decoded bound stays within `maxFrameBytes`.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A zstd frame header (RFC 8878 §3.1.1.1), parsed.
struct _FrameHeader {
    /// Bytes from the magic number to the first block header.
    var size: Int
    var contentSize: UInt64?
    var windowSize: UInt64
    var dictionaryID: UInt32
    var hasChecksum: Bool
    var reservedBitSet: Bool

    /// The largest block this frame may hold (`Block_Maximum_Size`).
    var blockMaximum: Int { Int(min(windowSize, 128 << 10)) }

    /// The header's size from its descriptor (the byte after the magic number).
    static func size(descriptor: UInt8) -> Int {
        let singleSegment = descriptor & 0x20 != 0
        let dictionaryBytes = [0, 1, 2, 4][Int(descriptor & 3)]
        let contentSizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][Int(descriptor >> 6)]
        return 5 + (singleSegment ? 0 : 1) + dictionaryBytes + contentSizeBytes
    }

    /// Parses the header at the start of `p`, which holds at least `size(descriptor: p[4])` bytes.
    init(_ p: UnsafeRawBufferPointer) {
        let descriptor = p[4]
        size = Self.size(descriptor: descriptor)
        let singleSegment = descriptor & 0x20 != 0
        hasChecksum = descriptor & 0x04 != 0
        reservedBitSet = descriptor & 0x08 != 0
        var at = 5
        var window: UInt64 = 0
        if !singleSegment {
            let w = p[at]
            let windowLog = 10 + UInt64(w >> 3)
            let base = UInt64(1) << windowLog
            window = base + (base >> 3) * UInt64(w & 7)
            at += 1
        }
        func little(_ count: Int) -> UInt64 {
            var v: UInt64 = 0
            for k in 0..<count { v |= UInt64(p[at + k]) << (8 * UInt64(k)) }
            at += count
            return v
        }
        dictionaryID = UInt32(little([0, 1, 2, 4][Int(descriptor & 3)]))
        switch descriptor >> 6 {
        case 0: contentSize = singleSegment ? little(1) : nil
        case 1: contentSize = little(2) + 256
        case 2: contentSize = little(4)
        default: contentSize = little(8)
        }
        windowSize = singleSegment ? contentSize ?? 0 : window
    }
}

/// Buffered sequential reads of the compressed input, with the absolute offset of every byte.
final class _InputReader {
    let fd: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    private(set) var position = 0
    private(set) var end = 0
    /// The offset of `buffer[0]`: the file offset where the input starts, plus the bytes consumed since.
    private var base: Int64
    /// The offset where the input ends for this reader (a range of a file), nil: the end of the descriptor.
    private let limit: Int64?
    private(set) var sawEOF = false
    /// The `errno` of a failed read (then no more reads are tried).
    private(set) var readError: Int32?

    /// - Parameters:
    ///   - capacity: at least one largest block with its header (128 KiB + 3) plus a frame header.
    ///   - prefix: bytes already read from `fd`, the first of the input.
    ///   - base: the offset of the first byte of `prefix` (of the input), so that offsets are file offsets.
    ///   - limit: the offset where the input ends (reads stop there as at the end of the file); nil: none.
    init(fd: Int32, capacity: Int, prefix: UnsafeRawBufferPointer, base: Int64 = 0, limit: Int64? = nil) {
        self.fd = fd
        self.base = base
        self.limit = limit
        buffer = .allocate(byteCount: max(capacity, prefix.count), alignment: 16)
        if prefix.count > 0 { buffer.baseAddress!.copyMemory(from: prefix.baseAddress!, byteCount: prefix.count) }
        end = prefix.count
    }

    deinit { buffer.deallocate() }

    /// The absolute offset of the next unconsumed byte.
    var offset: Int64 { base + Int64(position) }
    /// The absolute offset just past the last byte read.
    var readOffset: Int64 { base + Int64(end) }
    var available: Int { end - position }
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: buffer[position..<end]) }

    /// Reads until `count` bytes are available (count ≤ capacity), the input ends, or a read fails.
    func fill(_ count: Int) -> Bool {
        precondition(count <= buffer.count)
        if end - position >= count { return true }
        if position > 0 {
            let left = end - position
            if left > 0 { memmove(buffer.baseAddress!, buffer.baseAddress! + position, left) }
            base += Int64(position)
            end = left
            position = 0
        }
        while end < count && !sawEOF && readError == nil {
            var room = buffer.count - end
            if let limit {
                // base + end ≤ limit: nothing past the limit is ever read, so this stays ≥ 0.
                room = Int(min(Int64(room), limit - (base + Int64(end))))
                if room == 0 {
                    sawEOF = true
                    break
                }
            }
            switch _Sys.read(fd, UnsafeMutableRawBufferPointer(rebasing: buffer[end..<(end + room)])) {
            case .success(0): sawEOF = true
            case .success(let n): end += n
            case .failure(let code): readError = code.code
            }
        }
        return end >= count
    }

    /// Copies `count` available bytes to `destination` and consumes them.
    func take(_ count: Int, into destination: UnsafeMutableRawPointer) {
        precondition(count <= available)
        destination.copyMemory(from: buffer.baseAddress! + position, byteCount: count)
        position += count
    }

    /// Consumes `count` available bytes.
    func skip(_ count: Int) {
        precondition(count <= available)
        position += count
    }
}

/// One item of the ordered queue (see the file comment) and its buffers, reused from item to item.
///
/// `@unchecked Sendable`: owned by the decoder's thread, except for a `.frame` from its submission until
/// `done` is set under the pool's lock, when the worker decoding it owns `decoded`, `decodedCount` and
/// `error` (and reads the rest).
final class _DecodeSlot: @unchecked Sendable {
    enum Kind { case frame, serial, failure }
    var kind = Kind.frame
    /// The absolute offset of `compressed[0]`.
    var start: Int64 = 0
    private(set) var compressed = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    var compressedCount = 0
    /// `.frame`: the frame header's size, the end of each block (relative to `compressed`), the checksum flag,
    /// the content size from the header, and the decoded bound from the blocks.
    var headerSize = 0
    var blockEnds: [Int] = []
    var hasChecksum = false
    var contentSize: Int?
    var decodedBound = 0
    /// `.failure`: the error.
    var failure: ZstdError?

    // Written by the worker, published by `done` under the pool's lock.
    private(set) var decoded = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    var decodedCount = 0
    var error: ZstdError?
    var done = false

    /// Consumer side: bytes of `decoded` handed out (`.frame`), bytes of `compressed` decoded (`.serial`).
    var consumed = 0
    /// `.serial`: the index in `blockEnds` of the next block to decode (a frame header at the start of the
    /// piece, `headerSize` bytes, comes first).
    var nextBlock = 0

    /// Empties the slot for a new item starting at `offset`.
    func reset(kind: Kind, at offset: Int64) {
        self.kind = kind
        start = offset
        compressedCount = 0
        headerSize = 0
        blockEnds.removeAll(keepingCapacity: true)
        hasChecksum = false
        contentSize = nil
        decodedBound = 0
        failure = nil
        decodedCount = 0
        error = nil
        done = false
        consumed = 0
        nextBlock = 0
    }

    /// Makes room for `count` more compressed bytes (keeping those there).
    func reserveCompressed(_ count: Int) {
        let needed = compressedCount + count
        guard needed > compressed.count else { return }
        let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: max(needed, compressed.count * 2, 64 << 10), alignment: 16)
        if compressedCount > 0 { grown.baseAddress!.copyMemory(from: compressed.baseAddress!, byteCount: compressedCount) }
        compressed.deallocate()
        compressed = grown
    }

    /// Appends `count` bytes from the reader.
    func append(from reader: _InputReader, _ count: Int) {
        reserveCompressed(count)
        reader.take(count, into: compressed.baseAddress! + compressedCount)
        compressedCount += count
    }

    var compressedBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: compressed[..<compressedCount]) }

    /// Makes `decoded` hold at least `count` bytes, keeping the first `keep`.
    func reserveDecoded(_ count: Int, keep: Int = 0) {
        guard count > decoded.count else { return }
        let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        if keep > 0 { grown.baseAddress!.copyMemory(from: decoded.baseAddress!, byteCount: keep) }
        decoded.deallocate()
        decoded = grown
    }

    /// Gives memory back after an item much larger than usual (a slot keeps at most `limit` bytes of each buffer).
    func trim(limit: Int) {
        if compressed.count > limit {
            compressed.deallocate()
            compressed = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        }
        if decoded.count > limit {
            decoded.deallocate()
            decoded = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        }
    }

    deinit {
        compressed.deallocate()
        decoded.deallocate()
    }
}

/// The walker's state between items.
enum _WalkState {
    /// At a frame boundary.
    case frames
    /// Inside a frame too large for a slot, handed out as `.serial` pieces of whole blocks.
    case largeFrame(header: _FrameHeader, frameStart: Int64)
    /// Everything left goes to the serial decoder unparsed.
    case raw
    /// Nothing more.
    case done
}

/// Turns the input into items (see the file comment).
struct _FrameWalker {
    let maxFrameBytes: Int
    /// The decoder's window cap, as libzstd applies it (`1 << windowLogMax`).
    let maxWindow: UInt64
    /// The size of a `.serial` piece.
    let pieceBytes: Int
    var state = _WalkState.frames

    /// Fills `slot` with the next item. Returns false when there is none (the end of the input).
    mutating func next(_ reader: _InputReader, into slot: _DecodeSlot) -> Bool {
        while true {
            switch state {
            case .done:
                return false
            case .raw:
                return rawPiece(reader, slot)
            case .largeFrame(let header, let frameStart):
                slot.reset(kind: .serial, at: reader.offset)
                largeFramePiece(reader, slot, header: header, frameStart: frameStart)
                if slot.compressedCount > 0 { return true }  // else the walk went raw: go on there
            case .frames:
                if let produced = frame(reader, slot) { return produced }
            }
        }
    }

    /// One frame at a boundary: true/false as `next`, nil after a skippable frame (go on).
    private mutating func frame(_ reader: _InputReader, _ slot: _DecodeSlot) -> Bool? {
        let frameStart = reader.offset
        guard reader.fill(4) else {
            if reader.available == 0 && reader.readError == nil {
                state = .done
                return false
            }
            state = .raw  // 1–3 bytes (libzstd says truncated) or a read error after them
            return nil
        }
        let magic = UInt32(littleEndian: reader.bytes.loadUnaligned(as: UInt32.self))
        if magic & _Zstd.skippableMagicMask == _Zstd.skippableMagicStart { return skippableFrame(reader, slot) }
        guard magic == _Zstd.frameMagic, reader.fill(5), reader.fill(_FrameHeader.size(descriptor: reader.bytes[4])) else {
            state = .raw
            return nil
        }
        let header = _FrameHeader(reader.bytes)
        guard !header.reservedBitSet, header.dictionaryID == 0, header.windowSize <= maxWindow else {
            state = .raw
            return nil
        }
        slot.reset(kind: .frame, at: frameStart)
        slot.append(from: reader, header.size)
        slot.headerSize = header.size
        slot.hasChecksum = header.hasChecksum
        if let size = header.contentSize, size > UInt64(maxFrameBytes) {
            slot.kind = .serial
            state = .largeFrame(header: header, frameStart: frameStart)
            largeFramePiece(reader, slot, header: header, frameStart: frameStart)
            return true
        }
        slot.contentSize = header.contentSize.map { Int($0) }
        return blocks(reader, slot, header: header, frameStart: frameStart)
    }

    /// A skippable frame at a boundary (its magic read): skipped, nil (go on); true with a failure in `slot`
    /// when the input ends inside it; nil with the walk turned raw when its header is cut.
    private mutating func skippableFrame(_ reader: _InputReader, _ slot: _DecodeSlot) -> Bool? {
        guard reader.fill(8) else {
            state = .raw
            return nil
        }
        var left = Int(UInt32(littleEndian: reader.bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        reader.skip(8)
        while left > 0 {
            if reader.available == 0 && !reader.fill(1) {
                slot.reset(kind: .failure, at: reader.offset)
                slot.failure = endError(reader, detail: "the last frame is incomplete")
                state = .done
                return true
            }
            let n = min(left, reader.available)
            reader.skip(n)
            left -= n
        }
        return nil
    }

    /// The blocks of a frame whose header is in `slot`, copied until its last block (and checksum): true, the
    /// slot handed to the parallel decoder or, past the bound or at an anomaly, to the serial one.
    private mutating func blocks(_ reader: _InputReader, _ slot: _DecodeSlot, header: _FrameHeader, frameStart: Int64) -> Bool {
        while true {
            switch block(reader, slot, header: header) {
            case .anomaly:
                // Hand what was read of the frame to the serial decoder, and everything after it unparsed.
                slot.kind = .serial
                state = .raw
                return true
            case .more:
                if slot.decodedBound > maxFrameBytes {
                    slot.kind = .serial
                    state = .largeFrame(header: header, frameStart: frameStart)
                    return true
                }
            case .last:
                guard !header.hasChecksum || reader.fill(4) else {
                    slot.kind = .serial
                    state = .raw
                    return true
                }
                if header.hasChecksum { slot.append(from: reader, 4) }
                if slot.decodedBound > maxFrameBytes {
                    slot.kind = .serial  // a last block past the bound: decode it serially, the frame is complete
                }
                return true
            }
        }
    }

    private enum BlockStep { case more, last, anomaly }

    /// Copies the next block (header and content) into `slot`, checking it first.
    private func block(_ reader: _InputReader, _ slot: _DecodeSlot, header: _FrameHeader) -> BlockStep {
        guard reader.fill(3) else { return .anomaly }
        let b = reader.bytes
        let raw = Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16
        let type = (raw >> 1) & 3
        let size = raw >> 3
        guard type != 3, size <= header.blockMaximum else { return .anomaly }
        let span = 3 + (type == 1 ? 1 : size)
        guard reader.fill(span) else { return .anomaly }
        slot.append(from: reader, span)
        slot.blockEnds.append(slot.compressedCount)
        // Raw and RLE blocks decode to exactly `size` bytes, a compressed block to at most the maximum.
        slot.decodedBound += type == 2 ? header.blockMaximum : size
        return raw & 1 == 1 ? .last : .more
    }

    /// Continues a large frame into `slot` (a `.serial` piece): whole blocks up to `pieceBytes`.
    private mutating func largeFramePiece(_ reader: _InputReader, _ slot: _DecodeSlot, header: _FrameHeader, frameStart: Int64) {
        while slot.compressedCount < pieceBytes {
            switch block(reader, slot, header: header) {
            case .anomaly:
                state = .raw
                return
            case .more:
                continue
            case .last:
                if header.hasChecksum {
                    guard reader.fill(4) else {
                        state = .raw
                        return
                    }
                    slot.append(from: reader, 4)
                }
                state = .frames
                return
            }
        }
    }

    /// The next unparsed piece of the input; at its end, the end (or the read error).
    private mutating func rawPiece(_ reader: _InputReader, _ slot: _DecodeSlot) -> Bool {
        if reader.available == 0 && !reader.fill(1) {
            guard let code = reader.readError else {
                state = .done
                return false
            }
            slot.reset(kind: .failure, at: reader.offset)
            slot.failure = ZstdError(.readFailed, offset: reader.readOffset, errno: code)
            state = .done
            return true
        }
        slot.reset(kind: .serial, at: reader.offset)
        slot.append(from: reader, min(reader.available, pieceBytes))
        return true
    }

    /// The error for input that ends (or fails to read) inside a skippable frame.
    private func endError(_ reader: _InputReader, detail: String) -> ZstdError {
        if let code = reader.readError { return ZstdError(.readFailed, offset: reader.readOffset, errno: code) }
        return ZstdError(.truncated, offset: reader.offset, detail: detail)
    }
}
