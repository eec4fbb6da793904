// MARK: Internal API
//
// Where in a zstd file the damage is, once libzstd has refused it.
//
// libzstd reports an error, not where it is: its streaming decoder buffers a partial block internally and,
// on an error, does not say how far into the input it got (it does not advance the input position of the
// failing call). What the decoder does know is where the frame it was in when it last saw a frame end
// began (`frameStart`) and two offsets: `consumed` (input libzstd had accepted before the failing call)
// and `handed` (the end of the input given to that call). Reading just the headers back (with `pread`)
// cuts the stream from `frameStart` into *units* that libzstd checks as a whole: a frame header, a block
// (its 3-byte header and content), a checksum, a skippable frame, and, where the walk cannot go on, four
// bytes that are no frame's magic number or a block header of the reserved type:
//
//     frame header | block | block | … | last block | checksum | skippable | frame header | block | …
//                          ^consumed                                                  ^handed
//                    candidates: the units that end in (consumed, handed]
//
// One failing call can cross frame boundaries (small frames, large buffers), so the walk goes on past the
// end of the frame at `frameStart`. When several units are candidates, the stream is decoded again from the
// start of the first candidate's frame, one unit per call, up to the failing unit (at most 256 MiB; an
// error path, run once). This names the unit where libzstd detects the damage, whatever the sizes of the
// reads that led there; damage in an earlier block can decode silently into wrong bytes and surface only
// later, which is what frame checksums are for. A wrong frame checksum covers the whole frame's content,
// so the answer is then the frame. A pipe cannot be read back: the answer is then the bounds above.
//
// Frame layout (RFC 8878 §3.1.1): magic (4 bytes), frame header descriptor (1), window descriptor (0 or 1),
// dictionary id (0, 1, 2 or 4), content size (0, 1, 2, 4 or 8); blocks, each a 3-byte little-endian header
// (bit 0 last block, bits 1–2 type: raw, RLE, compressed, reserved; bits 3–23 size) then `size` bytes
// (1 for RLE); then a 4-byte checksum when the descriptor's bit 2 is set. A skippable frame is a magic
// number 0x184D2A50–5F, a 4-byte size and that many bytes.

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
    /// The most bytes decoded again to tell several candidates apart.
    static let maxPinpointBytes: Int64 = 256 << 20

    /// A piece of the stream that libzstd checks as a whole (see the file comment).
    struct Unit: Equatable {
        enum Kind { case header, block, blockHeader, checksum, skippable, badMagic, reservedBlock, cutOff }
        var kind: Kind
        var range: Range<Int64>
        /// The start of the frame the unit belongs to (itself for a skippable frame or bad magic).
        var frameStart: Int64
        /// The end of the frame, for a checksum; the block's size, for a block header.
        var extra: Int64 = 0
    }

    /// The error of a failed streaming call: a window over the cap, else damage located by `locate` (which
    /// is told whether libzstd found a wrong frame checksum) in the frame being decoded.
    static func error(
        _ e: _LibzstdError, offset: Int64, path: String?, maxWindowBytes: Int,
        locate: (_ checksum: Bool) -> _DamageLocation
    ) -> ZstdError {
        if e.code == _Zstd.windowTooLargeCode {
            return ZstdError(
                .windowTooLarge, offset: offset, libzstdName: e.name, path: path,
                detail: "the cap is \(maxWindowBytes) bytes")
        }
        let place = locate(e.code == _Zstd.checksumWrongCode)
        return ZstdError(.corrupt, damagedRange: place.range, libzstdName: e.name, path: path, detail: place.detail)
    }

    /// Locates the damage libzstd found after the frame starting at `frameStart` in the file open as `fd`.
    ///
    /// - Parameters:
    ///   - consumed: compressed bytes libzstd had accepted before the failing call.
    ///   - handed: the end of the input handed to the failing call.
    ///   - checksum: libzstd reported a wrong frame checksum.
    ///   - base: the file offset of the decoder's first byte; nil when the file cannot seek (a pipe).
    ///   - windowLogMax: the decoder's window cap (to decode again when several units are candidates).
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
        let units = walk(fd: fd, base: base, from: frameStart, keepingAfter: consumed, to: handed)
        // The units libzstd reached in the failing call: whole within what it was handed.
        var candidates = units.filter { $0.range.upperBound <= handed || $0.kind == .cutOff }
        candidates = candidates.filter { checksum ? $0.kind == .checksum : $0.kind != .checksum && $0.kind != .skippable }
        guard let first = candidates.first else { return fallback }
        if candidates.count == 1 { return describe(first) }
        if candidates.last!.range.upperBound - first.frameStart <= maxPinpointBytes,
            let unit = pinpoint(fd: fd, base: base, from: first.frameStart, to: handed, windowLogMax: windowLogMax),
            candidates.contains(unit)
        {
            return describe(unit)
        }
        if checksum { return fallback }
        return _DamageLocation(
            range: first.range.lowerBound..<candidates.last!.range.upperBound,
            detail: "one of the \(candidates.count) blocks at these bytes fails to decode (the first in the frame that starts at byte \(first.frameStart))")
    }

    /// What a failing unit is, in a sentence.
    static func describe(_ unit: Unit) -> _DamageLocation {
        switch unit.kind {
        case .block:
            return _DamageLocation(range: unit.range, detail: describe(1, frameStart: unit.frameStart))
        case .header:
            return _DamageLocation(
                range: unit.range, detail: "the frame header at these bytes is refused (the frame starts at byte \(unit.frameStart))")
        case .blockHeader:
            return _DamageLocation(
                range: unit.range, detail: "the block header at this offset is damaged (a block of \(unit.extra) bytes)")
        case .checksum:
            return _DamageLocation(
                range: unit.frameStart..<unit.extra,
                detail: "the frame's content does not match its checksum: the damage is somewhere in this frame")
        case .badMagic:
            return _DamageLocation(
                range: unit.range, detail: "no zstd frame starts at these bytes (damaged data, or bytes after the last frame)")
        case .reservedBlock:
            return _DamageLocation(range: unit.range, detail: "the block header at this offset has the reserved block type")
        case .cutOff:
            return _DamageLocation(range: unit.range, detail: "the frame is cut off here")
        case .skippable:
            return _DamageLocation(range: unit.range, detail: "in this skippable frame")
        }
    }

    static func describe(_ blocks: Int, frameStart: Int64) -> String {
        (blocks == 1 ? "the block at these bytes fails to decode" : "one of the \(blocks) blocks at these bytes fails to decode")
            + " (in the frame that starts at byte \(frameStart))"
    }

    /// The units from `start` up to the first that reaches past `handed` (or cannot be walked past), keeping
    /// those that end after `keepingAfter`.
    static func walk(fd: Int32, base: Int64, from start: Int64, keepingAfter consumed: Int64, to handed: Int64) -> [Unit] {
        var units: [Unit] = []
        func add(_ unit: Unit) { if unit.range.upperBound > consumed || unit.kind == .cutOff { units.append(unit) } }
        var header = [UInt8](repeating: 0, count: 18)
        var position = start
        while position < handed {
            let got = read(fd, &header, at: base + position, count: 18)
            guard got >= 4 else {
                add(Unit(kind: .cutOff, range: position..<max(handed, position + 1), frameStart: position))
                return units
            }
            let magic = UInt32(header[0]) | UInt32(header[1]) << 8 | UInt32(header[2]) << 16 | UInt32(header[3]) << 24
            if magic & _Zstd.skippableMagicMask == _Zstd.skippableMagicStart {
                guard got >= 8 else {
                    add(Unit(kind: .cutOff, range: position..<max(handed, position + 1), frameStart: position))
                    return units
                }
                let size = Int64(header[4]) | Int64(header[5]) << 8 | Int64(header[6]) << 16 | Int64(header[7]) << 24
                add(Unit(kind: .skippable, range: position..<(position + 8 + size), frameStart: position))
                position += 8 + size
                continue
            }
            guard magic == _Zstd.frameMagic else {
                add(Unit(kind: .badMagic, range: position..<(position + 4), frameStart: position))
                return units
            }
            guard got >= 5, let (headerBytes, hasChecksum) = frameHeader(header), Int64(got) >= headerBytes else {
                add(Unit(kind: .cutOff, range: position..<max(handed, position + 1), frameStart: position))
                return units
            }
            let blockMaximum = Int64(header.withUnsafeBytes { _FrameHeader($0).blockMaximum })
            let frameStart = position
            add(Unit(kind: .header, range: position..<(position + headerBytes), frameStart: frameStart))
            position += headerBytes
            while true {
                guard read(fd, &header, at: base + position, count: 3) == 3 else {
                    add(Unit(kind: .cutOff, range: position..<max(handed, position + 1), frameStart: frameStart))
                    return units
                }
                let raw = Int64(header[0]) | Int64(header[1]) << 8 | Int64(header[2]) << 16
                let type = (raw >> 1) & 3
                if type == 3 {
                    add(Unit(kind: .reservedBlock, range: position..<(position + 3), frameStart: frameStart))
                    return units
                }
                // size < 2^21 and position < 2^62 here: no overflow.
                let end = position + 3 + (type == 1 ? 1 : raw >> 3)
                if end > handed || raw >> 3 > blockMaximum {
                    // A size over the frame's maximum (libzstd refuses the header), or only the header was handed.
                    add(Unit(kind: .blockHeader, range: position..<(position + 3), frameStart: frameStart, extra: raw >> 3))
                    return units
                }
                add(Unit(kind: .block, range: position..<end, frameStart: frameStart))
                position = end
                if raw & 1 == 1 { break }
            }
            if hasChecksum {
                add(Unit(kind: .checksum, range: position..<(position + 4), frameStart: frameStart, extra: position + 4))
                position += 4
            }
        }
        return units
    }

    /// The size of a zstd frame header and whether the frame ends with a checksum, from its first 5 bytes
    /// (magic number and frame header descriptor); nil when it is not a zstd frame.
    static func frameHeader(_ first: [UInt8]) -> (bytes: Int64, hasChecksum: Bool)? {
        let magic = UInt32(first[0]) | UInt32(first[1]) << 8 | UInt32(first[2]) << 16 | UInt32(first[3]) << 24
        guard magic == _Zstd.frameMagic else { return nil }
        let descriptor = first[4]
        return (Int64(_FrameHeader.size(descriptor: descriptor)), descriptor & 0x04 != 0)
    }

    /// Decodes the stream again from the frame at `start`, one unit per call with a fresh context, up to
    /// `handed`; returns the unit whose decoding fails (nil when none fails).
    ///
    /// Costs one decode of the bytes up to the damage; used only when several units are candidates.
    static func pinpoint(fd: Int32, base: Int64, from start: Int64, to handed: Int64, windowLogMax: Int32) -> Unit? {
        guard let context = try? _DContext(windowLogMax: windowLogMax) else { return nil }
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: _Zstd.recommendedOutputSize, alignment: 16)
        defer { output.deallocate() }
        var piece = [UInt8](repeating: 0, count: Int(maxBlockSpan))
        for unit in walk(fd: fd, base: base, from: start, keepingAfter: -1, to: handed) {
            if unit.kind == .cutOff { return nil }
            var at = unit.range.lowerBound
            while at < unit.range.upperBound {
                // Skippable frames may be long: fed in block-sized pieces.
                let count = Int(min(unit.range.upperBound - at, Int64(piece.count)))
                guard read(fd, &piece, at: base + at, count: count) == count else { return nil }
                if !feed(context, piece, count, output) { return unit }
                at += Int64(count)
            }
        }
        return nil
    }

    /// Feeds `piece[0..<count]` to `context`, draining the output; false when libzstd fails.
    private static func feed(_ context: _DContext, _ piece: [UInt8], _ count: Int, _ output: UnsafeMutableRawBufferPointer) -> Bool {
        piece.withUnsafeBytes { bytes in
            var input = ZSTD_inBufferShim(UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
            while true {
                let before = input.pos
                var out = ZSTD_outBufferShim(output)
                guard case .success = context.decompress(&out, &input) else { return false }
                // Done once the piece is consumed and the output was not filled (nothing left to flush), or
                // when a call makes no progress (which valid input never causes with room to spare).
                if input.pos == input.size && out.pos < out.size { return true }
                if input.pos == before && out.pos == 0 { return true }
            }
        }
    }

    /// Reads `count` bytes at `offset` into `buffer`; returns how many were read (short at the end).
    private static func read(_ fd: Int32, _ buffer: inout [UInt8], at offset: Int64, count: Int) -> Int {
        buffer.withUnsafeMutableBytes { raw in _Sys.preadFully(fd, UnsafeMutableRawBufferPointer(rebasing: raw[..<count]), at: offset).done }
    }
}
