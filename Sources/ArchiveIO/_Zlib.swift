// MARK: Internal API
//
// Every call into zlib lives in this file (as every call into libzstd lives in _Zstd+Syscalls.swift).
// zlib keeps a pointer back to its `z_stream` and refuses a stream that moved, so the stream lives in memory
// of its own (``_ZStream``), allocated once per decoder or encoder and freed when it goes.

import CZlib

/// One zlib `z_stream`, inflating or deflating: the one scoped handle through which ``_Inflater`` and
/// ``_Deflater`` reach zlib.
///
/// Invariants:
/// - From `init` to `deinit`, `stream` is allocated, initialised and started by zlib (its `…Init2_` returned
///   `Z_OK`); it never moves. `deinit` ends it (`inflateEnd`/`deflateEnd`, by `kind`) before freeing it. An
///   `init` that throws leaves nothing allocated.
/// - `next_in` and `next_out` point into a caller's buffers only during ``step(_:into:_:)``, and are nil
///   otherwise: no pointer to a caller's memory outlives the call that lent it.
/// - A step lends zlib at most 1 GiB of input and of output (zlib counts in 32 bits); `avail_*` only decrease
///   from the counts given, so what was consumed and produced cannot underflow.
/// - Not copyable and never shared: one owner (its decoder or encoder) drives it from one thread at a time.
struct _ZStream: ~Copyable {
    enum Kind { case inflate, deflate }

    /// What one step did.
    struct Progress {
        /// Input bytes zlib consumed.
        var consumed: Int
        /// Output bytes zlib wrote.
        var produced: Int
        /// zlib's return code.
        var status: Int32
        /// zlib's message for an error (`strm->msg`), when it set one.
        var message: String?
    }

    /// The most bytes of input, and of output, one step lends zlib.
    static let maxStep = 1 << 30

    private let stream: UnsafeMutablePointer<z_stream>
    private let kind: Kind

    /// Allocates a stream and starts it with `start` (zlib's `inflateInit2_` or `deflateInit2_` on it); when zlib
    /// refuses, frees it and throws `failure(code)`.
    init(
        _ kind: Kind, start: (UnsafeMutablePointer<z_stream>) -> Int32, failure: (Int32) -> ZstdError
    ) throws(ZstdError) {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = start(stream)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw failure(status)
        }
        self.stream = stream
        self.kind = kind
    }

    deinit {
        switch kind {
        case .inflate: inflateEnd(stream)
        case .deflate: deflateEnd(stream)
        }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Lends zlib `input` and `output` (each cut to ``maxStep``), runs `call` on the stream (its argument:
    /// whether the whole of `input` was lent), and takes the buffers back.
    func step(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
        _ call: (UnsafeMutablePointer<z_stream>, _ wholeInput: Bool) -> Int32
    ) -> Progress {
        let inCount = min(input.count, Self.maxStep)
        let outCount = min(output.count, Self.maxStep)
        // zlib never writes through next_in (z_const is off in the system header, hence the mutable type).
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(inCount)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(outCount)
        let status = call(stream, inCount == input.count)
        let progress = Progress(
            consumed: inCount - Int(stream.pointee.avail_in),
            produced: outCount - Int(stream.pointee.avail_out),
            status: status,
            message: stream.pointee.msg.map { String(cString: $0) })
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        return progress
    }

    /// Makes an inflating stream ready for the next gzip member (`inflateReset`), keeping its allocations.
    func resetInflate() {
        precondition(kind == .inflate)
        inflateReset(stream)
    }
}

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

    private let stream: _ZStream

    init() throws(ZstdError) {
        stream = try _ZStream(
            .inflate, start: { inflateInit2_($0, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) },
            failure: { ZstdError(.readFailed, detail: "zlib could not start inflating (code \($0))", format: "gzip") })
    }

    /// Inflates from `input` into `output` (at most 1 GiB of each per call: zlib counts in 32 bits).
    func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Step {
        let p = stream.step(input, into: output) { stream, _ in CZlib.inflate(stream, Z_NO_FLUSH) }
        return Step(consumed: p.consumed, produced: p.produced, status: p.status, message: p.message)
    }

    /// Makes the stream ready for the next member (`inflateReset`), keeping its allocations.
    func reset() { stream.resetInflate() }
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

    private let stream: _ZStream

    /// - Parameter level: 1 (fastest) to 9 (smallest).
    init(level: Int32) throws(ZstdError) {
        stream = try _ZStream(
            .deflate,
            start: { deflateInit2_($0, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) },
            failure: { ZstdError(.encoderFailed, detail: "zlib could not start deflating at level \(level) (code \($0))", format: "gzip") })
    }

    /// Deflates from `input` into `output` (at most 1 GiB of each per call: zlib counts in 32 bits); with
    /// `finish`, ends the member once all input is consumed (call again until ``Step/ended``).
    func deflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, finish: Bool) -> Step {
        // Finishing is only asked for when the whole input fits this call.
        let p = stream.step(input, into: output) { stream, wholeInput in CZlib.deflate(stream, finish && wholeInput ? Z_FINISH : Z_NO_FLUSH) }
        return Step(consumed: p.consumed, produced: p.produced, status: p.status)
    }
}
