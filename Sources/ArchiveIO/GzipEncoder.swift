#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A streaming gzip encoder writing one gzip member to a file descriptor (the system zlib, the one
/// ``GzipDecoder`` reads with).
///
/// Input is deflated as it comes through a fixed 128 KiB output buffer; ``finish()`` ends the member
/// (CRC-32 and length trailer). The same input and level always give the same bytes: the header carries
/// no name and a modification time of 0. `gzip -dc`, Python's `gzip` and every gzip reader decode it.
/// It does not own the descriptor. Not thread-safe.
public final class GzipEncoder {
    /// The levels zlib takes: 1 (fastest) to 9 (smallest).
    public static let levels: ClosedRange<Int32> = 1...9

    private let fd: Int32
    private let deflater: _Deflater
    private let out: UnsafeMutableRawBufferPointer
    private var finished = false

    /// - Precondition: `level` is within ``levels``.
    public init(fileDescriptor: Int32, level: Int32 = 6) throws(ZstdError) {
        precondition(Self.levels.contains(level), "gzip level \(level) is outside \(Self.levels)")
        self.fd = fileDescriptor
        self.deflater = try _Deflater(level: level)
        self.out = .allocate(byteCount: 128 << 10, alignment: 16)
    }

    deinit { out.deallocate() }

    /// Deflates `bytes` and writes whatever output is ready.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(ZstdError) {
        precondition(!finished, "GzipEncoder.write after finish()")
        var offset = 0
        while offset < bytes.count {
            let step = deflater.deflate(UnsafeRawBufferPointer(rebasing: bytes[offset...]), into: out, finish: false)
            if step.failed { throw ZstdError(.encoderFailed, detail: "zlib: deflate failed (code \(step.status))", format: "gzip") }
            offset += step.consumed
            try flush(step.produced)
        }
    }

    /// Ends the member and writes everything still buffered.
    public func finish() throws(ZstdError) {
        guard !finished else { return }
        while true {
            let step = deflater.deflate(UnsafeRawBufferPointer(start: nil, count: 0), into: out, finish: true)
            if step.failed { throw ZstdError(.encoderFailed, detail: "zlib: deflate failed (code \(step.status))", format: "gzip") }
            try flush(step.produced)
            if step.ended { break }
        }
        finished = true
    }

    private func flush(_ count: Int) throws(ZstdError) {
        guard count > 0 else { return }
        if case .failure(let code) = _Sys.writeAll(fd, UnsafeRawBufferPointer(rebasing: out[..<count])) {
            throw ZstdError(.writeFailed, errno: code.code)
        }
    }
}
