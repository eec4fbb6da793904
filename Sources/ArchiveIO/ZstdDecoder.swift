import CZstd

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A streaming zstd decoder over a file descriptor.
///
/// It hands out decoded bytes in buffers the caller owns and sizes, and never holds a whole file:
/// its memory is one input buffer (`ZSTD_DStreamInSize()`, about 128 KiB) and one decoding context,
/// whose window is capped by ``Options/maxWindowBytes``.
///
/// ### What it accepts
/// - One or many concatenated zstd frames, with skippable frames anywhere (what `pzstd` and
///   `zstd -T` write): they decode as one stream.
/// - Input that does not begin with a zstd or skippable-frame magic number passes through unchanged,
///   so plain files work the same way.
/// - Empty input is an empty stream.
///
/// ### Errors
/// ``read(into:)`` throws a ``ZstdError``: `.truncated` when the input ends inside a frame (with the
/// compressed byte offset where it ended), `.corrupt` (with the compressed bytes that hold the damage,
/// ``ZstdError/damagedRange``: the block, read back from the block headers of a seekable file, or the
/// frame when its checksum is wrong; and libzstd's error name),
/// `.windowTooLarge`, or `.readFailed`. Every byte decoded before an error has already been handed out
/// by earlier calls when the error is thrown; after an error the decoder stays failed.
///
/// ```
///   fd ──read()──▶ [input buffer] ──ZSTD_decompressStream──▶ caller's buffer
///                  offset = bytes consumed from fd (compressed)
/// ```
///
/// Not thread-safe: use one decoder per stream.
public final class ZstdDecoder: _PathDecoder {
    /// Settings of a decoder.
    public struct Options: Sendable, _ClosingOptions {
        /// The largest decoding window a frame may ask for; a frame over it is `.windowTooLarge`.
        /// Rounded down to a power of two, at least 1 KiB. Default 128 MiB (`zstd --long`'s window).
        public var maxWindowBytes: Int = 128 << 20
        /// Whether the decoder closes the file descriptor when it is done with it.
        public var closeWhenDone: Bool = false

        public init(maxWindowBytes: Int = 128 << 20, closeWhenDone: Bool = false) {
            self.maxWindowBytes = maxWindowBytes
            self.closeWhenDone = closeWhenDone
        }
    }

    private enum Mode { case sniffing, zstd, passthrough }

    private let fd: Int32
    private let options: Options
    private let context: _DContext
    private var mode: Mode = .sniffing
    /// The input buffer (bytes `[file.pos, file.end)` read but not yet consumed) and the compressed bytes
    /// read from `fd` before its start (`file.base`).
    private var file: _InputFile
    private var sawEOF = false
    private var finished = false
    /// libzstd's last hint: 0 when the last frame is complete.
    private var lastHint = 0
    /// The compressed offset where the frame being decoded starts (to locate damage).
    private var frameStart: Int64 = 0
    /// The file offset of the first byte read (nil when `fd` cannot seek): damage is read back with `pread`.
    private let startOffset: Int64?
    private let windowLogMax: Int32
    /// An error seen while there were still decoded bytes to hand out; thrown on the next call.
    private var pendingError: ZstdError?
    private var closed = false

    /// The path this decoder reads, for error messages (nil for stdin or a bare descriptor).
    public let path: String?

    /// Decodes the stream read from `fileDescriptor` (stdin is `0`).
    ///
    /// - Parameter initialBytes: bytes already read from `fileDescriptor` (to recognise the input, see
    ///   ``InputKind``): the stream is `initialBytes` followed by the rest of the descriptor. At most 64 KiB.
    public init(
        fileDescriptor: Int32, path: String? = nil, initialBytes: [UInt8] = [], options: Options = Options()
    ) throws(ZstdError) {
        self.fd = fileDescriptor
        self.options = options
        self.path = path
        self.startOffset = _Sys.currentOffset(fileDescriptor).map { $0 - Int64(initialBytes.count) }
        let logMax = _DContext.windowLog(maxWindowBytes: options.maxWindowBytes)
        self.windowLogMax = logMax
        self.context = try _DContext(windowLogMax: logMax)
        self.file = _InputFile(capacity: _Zstd.recommendedInputSize, initialBytes: initialBytes, decoder: "ZstdDecoder")
    }

    /// Opens `path` and decodes it; the decoder closes the file when it is deallocated.
    public convenience init(path: String, options: Options = Options()) throws(ZstdError) {
        try self.init(opening: path, options: options)
    }

    deinit {
        file.deallocate()
        if options.closeWhenDone && !closed { _Sys.close(fd) }
    }

    /// Compressed (raw) bytes consumed from the input so far.
    public var compressedBytesConsumed: Int64 { file.consumed }

    /// Whether the input was zstd (`true`), plain (`false`), or not looked at yet (`nil`).
    public var isCompressed: Bool? {
        switch mode {
        case .sniffing: return nil
        case .zstd: return true
        case .passthrough: return false
        }
    }

    /// Fills `buffer` with the next decoded bytes.
    ///
    /// - Returns: the number of bytes written at the start of `buffer`: at least 1 while there is data,
    ///   0 at the end of the stream (and on every call after it).
    /// - Throws: ``ZstdError`` as described on the type. Bytes decoded before an error are returned by
    ///   earlier calls first.
    /// - Precondition: `buffer` is not empty.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int {
        precondition(buffer.count > 0, "ZstdDecoder.read(into:) needs a non-empty buffer")
        if let error = pendingError { throw error }
        if finished { return 0 }
        if mode == .sniffing { try sniff() }
        switch mode {
        case .passthrough: return try readPlain(into: buffer)
        default: return try readZstd(into: buffer)
        }
    }

    /// Reads until `buffer` is full or the stream ends; returns how many bytes it wrote.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int {
        try _readFully(buffer) { (b) throws(ZstdError) in try read(into: b) }
    }

    // MARK: - Internals

    /// Refills the input buffer (after moving unconsumed bytes to its front). Sets `sawEOF` at the end.
    private func refill() throws(ZstdError) {
        file.compact()
        guard file.end < file.input.count else { return }
        switch _Sys.read(fd, UnsafeMutableRawBufferPointer(rebasing: file.input[file.end...])) {
        case .success(0): sawEOF = true
        case .success(let n): file.end += n
        case .failure(let code):
            throw fail(ZstdError(.readFailed, offset: file.base + Int64(file.end), errno: code.code, path: path))
        }
    }

    private func fail(_ error: ZstdError) -> ZstdError {
        finished = true
        pendingError = error
        context.reset()
        return error
    }

    /// Reads until 4 bytes or EOF are there, then picks zstd or pass-through.
    private func sniff() throws(ZstdError) {
        while file.end - file.pos < 4 && !sawEOF { try refill() }
        if file.end - file.pos < 4 {
            mode = .passthrough
            return
        }
        let magic = UInt32(littleEndian: file.input.loadUnaligned(fromByteOffset: file.pos, as: UInt32.self))
        if magic == _Zstd.frameMagic || magic & _Zstd.skippableMagicMask == _Zstd.skippableMagicStart {
            mode = .zstd
        } else {
            mode = .passthrough
        }
    }

    private func readPlain(into buffer: UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int {
        if file.pos == file.end {
            if sawEOF {
                finished = true
                return 0
            }
            // Large reads go straight into the caller's buffer, without a copy.
            if buffer.count >= file.input.count {
                file.base += Int64(file.end)
                file.pos = 0
                file.end = 0
                switch _Sys.read(fd, buffer) {
                case .success(0):
                    sawEOF = true
                    finished = true
                    return 0
                case .success(let n):
                    file.base += Int64(n)
                    return n
                case .failure(let code):
                    throw fail(ZstdError(.readFailed, offset: file.base, errno: code.code, path: path))
                }
            }
            try refill()
            if file.pos == file.end {
                finished = true
                return 0
            }
        }
        let n = min(buffer.count, file.end - file.pos)
        buffer.baseAddress!.copyMemory(from: file.input.baseAddress! + file.pos, byteCount: n)
        file.pos += n
        return n
    }

    private func readZstd(into buffer: UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int {
        var output = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
        while true {
            if file.pos == file.end && !sawEOF { try refill() }
            var inBuf = ZSTD_inBuffer(src: UnsafeRawPointer(file.input.baseAddress! + file.pos), size: file.end - file.pos, pos: 0)
            let result = context.decompress(&output, &inBuf)
            file.pos += inBuf.pos
            switch result {
            case .failure(let e):
                let error = _DamageLocator.error(
                    e, offset: compressedBytesConsumed, path: path, maxWindowBytes: options.maxWindowBytes
                ) { checksum in
                    _DamageLocator.locate(
                        fd: fd, base: startOffset, frameStart: frameStart, consumed: compressedBytesConsumed,
                        handed: file.base + Int64(file.end), checksum: checksum, windowLogMax: windowLogMax)
                }
                _ = fail(error)
                if output.pos > 0 { return output.pos }  // hand these out first; throw on the next call
                throw error
            case .success(let hint):
                // A call that neither consumed nor produced anything says nothing about the frame: at a
                // frame boundary libzstd hints the size of the next header even though none may follow.
                if inBuf.pos > 0 || output.pos > 0 {
                    lastHint = hint
                    // A frame ended: the next one (if any) starts here.
                    if hint == 0 { frameStart = compressedBytesConsumed }
                }
            }
            if output.pos > 0 { return output.pos }
            if file.pos == file.end && sawEOF {
                if lastHint != 0 {
                    throw fail(
                        ZstdError(
                            .truncated, offset: compressedBytesConsumed, path: path,
                            detail: "the last frame is incomplete"))
                }
                finished = true
                return 0
            }
        }
    }
}
