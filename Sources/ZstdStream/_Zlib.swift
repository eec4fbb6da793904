// MARK: Internal API
//
// Every call into zlib lives in this file (as every call into libzstd lives in _Zstd+Syscalls.swift).
// zlib keeps a pointer back to its `z_stream` and refuses a stream that moved, so the stream lives in memory
// of its own, allocated once per decoder and freed in `deinit`.

import CZlib

/// One zlib inflate stream that reads gzip members only (windowBits 15 + 16: a 32 KiB window, gzip wrapper,
/// header and CRC-32/ISIZE trailer checked by zlib).
final class _Inflater {
    /// What one call of ``inflate(_:into:)`` did.
    struct Step {
        /// Input bytes zlib consumed.
        var consumed: Int
        /// Output bytes zlib wrote.
        var produced: Int
        /// zlib's return code: `Z_OK`, `Z_STREAM_END` (a member ended), `Z_BUF_ERROR` (no progress possible),
        /// or an error (`Z_DATA_ERROR`, `Z_NEED_DICT`, `Z_MEM_ERROR`, `Z_STREAM_ERROR`).
        var status: Int32
        /// zlib's message for an error (`strm->msg`), when it set one.
        var message: String?

        var memberEnded: Bool { status == Z_STREAM_END }
        var failed: Bool { status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR }
    }

    private let stream: UnsafeMutablePointer<z_stream>

    init() throws(ZstdError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = inflateInit2_(stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw ZstdError(.readFailed, detail: "zlib could not start inflating (code \(status))", format: "gzip")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates from `input` into `output` (at most 1 GiB of each per call: zlib counts in 32 bits).
    func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Step {
        let inCount = min(input.count, 1 << 30)
        let outCount = min(output.count, 1 << 30)
        // zlib never writes through next_in (z_const is off in the system header, hence the mutable type).
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(inCount)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(outCount)
        let status = CZlib.inflate(stream, Z_NO_FLUSH)
        // avail_* only ever decrease from the counts given, so these cannot underflow.
        let step = Step(
            consumed: inCount - Int(stream.pointee.avail_in),
            produced: outCount - Int(stream.pointee.avail_out),
            status: status,
            message: stream.pointee.msg.map { String(cString: $0) })
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        return step
    }

    /// Makes the stream ready for the next member (`inflateReset`), keeping its allocations.
    func reset() { inflateReset(stream) }
}

/// One zlib deflate stream that writes one gzip member (windowBits 15 + 16: the gzip wrapper, with a header
/// of zlib's defaults, modification time 0, so the same input and level give the same bytes; memLevel 8,
/// the default strategy).
final class _Deflater {
    /// What one call of ``deflate(_:into:finish:)`` did.
    struct Step {
        var consumed: Int
        var produced: Int
        /// `Z_OK`, `Z_BUF_ERROR` (no progress possible: more output room needed), `Z_STREAM_END` (after
        /// `finish`, the member is complete), or an error.
        var status: Int32
        var failed: Bool { status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR }
        var ended: Bool { status == Z_STREAM_END }
    }

    private let stream: UnsafeMutablePointer<z_stream>

    /// - Parameter level: 1 (fastest) to 9 (smallest).
    init(level: Int32) throws(ZstdError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw ZstdError(.encoderFailed, detail: "zlib could not start deflating at level \(level) (code \(status))", format: "gzip")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Deflates from `input` into `output` (at most 1 GiB of each per call: zlib counts in 32 bits); with
    /// `finish`, ends the member once all input is consumed (call again until ``Step/ended``).
    func deflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, finish: Bool) -> Step {
        let inCount = min(input.count, 1 << 30)
        let outCount = min(output.count, 1 << 30)
        // zlib never writes through next_in (z_const is off in the system header, hence the mutable type).
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(inCount)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(outCount)
        // Finishing is only asked for when the whole input fits this call.
        let status = CZlib.deflate(stream, finish && inCount == input.count ? Z_FINISH : Z_NO_FLUSH)
        // avail_* only ever decrease from the counts given, so these cannot underflow.
        let step = Step(
            consumed: inCount - Int(stream.pointee.avail_in),
            produced: outCount - Int(stream.pointee.avail_out),
            status: status)
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        return step
    }
}
