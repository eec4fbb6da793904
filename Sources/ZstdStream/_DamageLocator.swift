// MARK: Internal API
//
// Where in a zstd file the damage is, once libzstd has refused it.
//
// libzstd reports an error, not where it is: its streaming decoder buffers a partial block internally and,
// on an error, does not say how far into the input it got. What the decoder does know is the start of the
// current frame and two offsets: `consumed` (input libzstd had accepted before the failing call) and
// `handed` (the end of the input given to that call). A block is decoded only once it is complete, so the
// block that failed ends after `consumed` and no later than `handed`. Reading just the 3-byte block headers
// of the frame (with `pread`) lists those blocks:
//
//     frame header | block | block | block | … | last block | checksum
//                          ^consumed      ^handed
//                    candidates: the blocks that end in (consumed, handed]
//
// When several blocks are candidates, the frame is decoded again from its start, one block per call, up to
// the failing block (at most 256 MiB of it; an error path, run once). This names the block where libzstd
// detects the damage; damage in an earlier block can decode silently into wrong bytes and surface only
// later, which is what frame checksums are for. A wrong frame checksum covers the whole frame's content,
// so the answer is then the frame. A pipe cannot be read back: the answer is then the bounds above.
//
// Frame layout (RFC 8878 §3.1.1): magic (4 bytes), frame header descriptor (1), window descriptor (0 or 1),
// dictionary id (0, 1, 2 or 4), content size (0, 1, 2, 4 or 8); blocks, each a 3-byte little-endian header
// (bit 0 last block, bits 1–2 type: raw, RLE, compressed, reserved; bits 3–23 size) then `size` bytes
// (1 for RLE); then a 4-byte checksum when the descriptor's bit 2 is set.

import CZstd

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The compressed bytes that hold the damage libzstd found, and a sentence that says what they are.
struct _DamageLocation {
    var range: Range<Int64>
    var detail: String
}

enum _DamageLocator {
    /// The largest compressed block plus its header (RFC 8878: a block's content is at most 128 KiB).
    static let maxBlockSpan: Int64 = (128 << 10) + 3

    /// Locates the damage of the frame starting at `frameStart` in the file open as `fd`.
    ///
    /// - Parameters:
    ///   - consumed: compressed bytes libzstd had accepted before the failing call.
    ///   - handed: the end of the input handed to the failing call.
    ///   - checksum: libzstd reported a wrong frame checksum.
    ///   - base: the file offset of the decoder's first byte; nil when the file cannot seek (a pipe).
    ///   - windowLogMax: the decoder's window cap (to decode the frame again when several blocks are candidates).
    static func locate(
        fd: Int32, base: Int64?, frameStart: Int64, consumed: Int64, handed: Int64, checksum: Bool, windowLogMax: Int32
    ) -> _DamageLocation {
        // Without `pread` (a pipe) only the bounds are known.
        let fallback = _DamageLocation(
            range: (checksum ? frameStart : max(frameStart, consumed - maxBlockSpan))..<max(handed, consumed + 1),
            detail: checksum
                ? "the frame's content does not match its checksum: the damage is in this frame, before these bytes"
                : "the damage is in the block that ends in this range")
        guard let base else { return fallback }
        var header = [UInt8](repeating: 0, count: 18)
        func read(_ buffer: inout [UInt8], at offset: Int64, count: Int) -> Int {
            Self.read(fd, &buffer, at: base + offset, count: count)
        }
        guard read(&header, at: frameStart, count: 5) == 5,
            let (headerBytes, hasChecksum) = frameHeader(header)
        else { return fallback }
        let headerEnd = frameStart + headerBytes
        var position = headerEnd
        /// Several candidate blocks: decode the frame again (up to 256 MiB of it) to tell which one fails.
        func answer(_ range: Range<Int64>, _ blocks: Int) -> _DamageLocation {
            if blocks > 1, range.upperBound - frameStart <= 256 << 20,
                let block = pinpoint(
                    fd: fd, base: base, frameStart: frameStart, headerEnd: headerEnd, limit: range.upperBound,
                    windowLogMax: windowLogMax), range.contains(block.lowerBound)
            {
                return _DamageLocation(range: block, detail: describe(1, frameStart: frameStart))
            }
            return _DamageLocation(range: range, detail: describe(blocks, frameStart: frameStart))
        }
        var candidates: Range<Int64>?
        var candidateCount = 0
        while true {
            guard read(&header, at: position, count: 3) == 3 else {
                // The frame ends early: the file is cut inside it.
                return _DamageLocation(range: position..<max(handed, position + 1), detail: "the frame is cut off here")
            }
            let raw = Int64(header[0]) | Int64(header[1]) << 8 | Int64(header[2]) << 16
            let last = raw & 1 == 1
            let type = (raw >> 1) & 3
            let size = raw >> 3
            if type == 3 {
                return _DamageLocation(
                    range: position..<(position + 3), detail: "the block header at this offset has the reserved block type")
            }
            // size < 2^21 and position < 2^62 here: no overflow.
            let end = position + 3 + (type == 1 ? 1 : size)
            if !checksum {
                if end > consumed {
                    if end > handed {
                        // Nothing completed in the failing call: the header of this block was refused.
                        guard let candidates else {
                            return _DamageLocation(
                                range: position..<(position + 3),
                                detail: "the block header at this offset is damaged (a block of \(size) bytes)")
                        }
                        return answer(candidates, candidateCount)
                    }
                    candidates = (candidates?.lowerBound ?? position)..<end
                    candidateCount += 1
                }
                if last {
                    return answer(candidates ?? position..<end, max(1, candidateCount))
                }
            } else if last {
                let frameEnd = end + (hasChecksum ? 4 : 0)
                return _DamageLocation(
                    range: frameStart..<frameEnd,
                    detail: "the frame's content does not match its checksum: the damage is somewhere in this frame")
            }
            position = end
            if !checksum, let c = candidates, position >= handed {
                return answer(c, candidateCount)
            }
        }
    }

    /// The size of a zstd frame header and whether the frame ends with a checksum, from its first 5 bytes
    /// (magic number and frame header descriptor); nil when it is not a zstd frame.
    static func frameHeader(_ first: [UInt8]) -> (bytes: Int64, hasChecksum: Bool)? {
        let magic = UInt32(first[0]) | UInt32(first[1]) << 8 | UInt32(first[2]) << 16 | UInt32(first[3]) << 24
        guard magic == _Zstd.frameMagic else { return nil }
        let descriptor = first[4]
        let singleSegment = descriptor & 0x20 != 0
        let dictionaryBytes: Int64 = [0, 1, 2, 4][Int(descriptor & 3)]
        let contentSizeBytes: Int64 = [singleSegment ? 1 : 0, 2, 4, 8][Int(descriptor >> 6)]
        return (5 + (singleSegment ? 0 : 1) + dictionaryBytes + contentSizeBytes, descriptor & 0x04 != 0)
    }

    /// Re-decodes the frame at `frameStart` from its first byte, one block per call with a fresh context,
    /// up to `limit`; returns the block whose decoding fails (nil when none fails before `limit`).
    ///
    /// Costs one decode of the frame's bytes up to the damage; used only when several blocks are candidates.
    static func pinpoint(
        fd: Int32, base: Int64, frameStart: Int64, headerEnd: Int64, limit: Int64, windowLogMax: Int32
    ) -> Range<Int64>? {
        guard let context = try? _DContext(windowLogMax: windowLogMax) else { return nil }
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: _Zstd.recommendedOutputSize, alignment: 16)
        defer { output.deallocate() }
        var piece = [UInt8](repeating: 0, count: Int(maxBlockSpan + headerEnd - frameStart))
        var start = frameStart
        var blockStart = headerEnd
        while blockStart < limit {
            var header = [UInt8](repeating: 0, count: 3)
            guard read(fd, &header, at: base + blockStart, count: 3) == 3 else { return nil }
            let raw = Int64(header[0]) | Int64(header[1]) << 8 | Int64(header[2]) << 16
            let type = (raw >> 1) & 3
            let end = blockStart + 3 + (type == 1 ? 1 : raw >> 3)
            let count = Int(end - start)
            if piece.count < count { piece = [UInt8](repeating: 0, count: count) }
            guard read(fd, &piece, at: base + start, count: count) == count else { return nil }
            let failed: Bool = piece.withUnsafeBytes { bytes in
                var input = ZSTD_inBufferShim(UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
                while input.pos < input.size {
                    var out = ZSTD_outBufferShim(output)
                    if case .failure = context.decompress(&out, &input) { return true }
                    if out.pos == 0 && input.pos < input.size && out.size > 0 {
                        // No progress with room to spare cannot happen on valid input; stop rather than spin.
                        return true
                    }
                }
                // Flush what this block decoded (a block decodes to at most 128 KiB).
                while true {
                    var out = ZSTD_outBufferShim(output)
                    var empty = ZSTD_inBufferShim(UnsafeRawBufferPointer(start: nil, count: 0))
                    guard case .success = context.decompress(&out, &empty) else { return true }
                    if out.pos < out.size { return false }
                }
            }
            if failed { return blockStart..<end }
            start = end
            blockStart = end
        }
        return nil
    }

    private static func describe(_ blocks: Int, frameStart: Int64) -> String {
        (blocks == 1 ? "the block at these bytes fails to decode" : "one of the \(blocks) blocks at these bytes fails to decode")
            + " (in the frame that starts at byte \(frameStart))"
    }

    /// Reads `count` bytes at `offset` into `buffer`; returns how many were read (short at the end).
    private static func read(_ fd: Int32, _ buffer: inout [UInt8], at offset: Int64, count: Int) -> Int {
        buffer.withUnsafeMutableBytes { raw in
            var done = 0
            while done < count {
                let slice = UnsafeMutableRawBufferPointer(rebasing: raw[done..<count])
                guard case .success(let n) = _Sys.pread(fd, slice, at: offset + Int64(done)), n > 0 else { break }
                done += n
            }
            return done
        }
    }
}
