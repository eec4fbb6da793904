import CZstd
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A streaming zstd encoder writing one frame to a file descriptor.
///
/// Input is compressed as it comes through a fixed `ZSTD_CStreamOutSize()` buffer; ``finish()`` ends
/// the frame. It does not own the descriptor. Not thread-safe.
public final class ZstdEncoder {
    private let fd: Int32
    private let context: _CContext
    private let out: UnsafeMutableRawBufferPointer

    /// - Parameters:
    ///   - level: the zstd level (negative for the fast levels, 1…19, up to 22).
    ///   - workers: compression threads besides the caller (0: compress in the calling thread).
    public init(fileDescriptor: Int32, level: Int32 = 3, workers: Int32 = 0) throws(ZstdError) {
        self.fd = fileDescriptor
        self.context = try _CContext(level: level, workers: workers)
        self.out = .allocate(byteCount: _Zstd.recommendedCompressOutputSize, alignment: 16)
    }

    deinit { out.deallocate() }

    /// Compresses `bytes` and writes whatever output is ready.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(ZstdError) {
        guard bytes.count > 0 else { return }
        var input = ZSTD_inBufferShim(bytes)
        while input.pos < input.size {
            var output = ZSTD_outBufferShim(out)
            _ = try context.compress(&output, &input, end: false)
            try flush(output.pos)
        }
    }

    /// Ends the frame and writes everything still buffered.
    public func finish() throws(ZstdError) {
        var input = ZSTD_inBufferShim(UnsafeRawBufferPointer(start: nil, count: 0))
        while true {
            var output = ZSTD_outBufferShim(out)
            let remaining = try context.compress(&output, &input, end: true)
            try flush(output.pos)
            if remaining == 0 { return }
        }
    }

    private func flush(_ count: Int) throws(ZstdError) {
        guard count > 0 else { return }
        if case .failure(let code) = _Sys.writeAll(fd, UnsafeRawBufferPointer(rebasing: out[..<count])) {
            throw ZstdError(.writeFailed, errno: code.code)
        }
    }
}
