#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A streaming gzip decoder over a file descriptor (the system zlib, windowBits 15 + 16).
///
/// The same reading interface as ``ZstdDecoder``: decoded bytes go into buffers the caller owns and sizes,
/// and memory is one 128 KiB input buffer plus zlib's state and 32 KiB window, whatever the input.
///
/// ### What it accepts
/// - One gzip member, or many concatenated ones (`cat a.gz b.gz`, what `pigz` and `bgzip` write): they decode
///   as one stream, as `gzip -dc` does.
/// - Zero bytes after the last member (padding to a tape or disk block), of any length, as `gzip -dc`
///   accepts them; a byte that is not zero after them is damage.
/// - Empty input is an empty stream.
///
/// ### Errors
/// ``read(into:)`` throws a ``ZstdError`` (its message says "gzip"): `.truncated` when the input ends inside a
/// member, with the compressed byte offset where it ended; `.corrupt` when zlib refuses the data (a bad header,
/// a damaged block, a wrong CRC-32 or length in a trailer, bytes after a member that do not start another
/// member), with the compressed byte offset where zlib stopped (the damage is at or before it; a wrong CRC is
/// seen only at the end of its member) and zlib's message in ``ZstdError/detail``; `.readFailed`. Every byte
/// zlib decoded before the error has already been handed out by earlier calls when the error is thrown; after
/// an error the decoder stays failed.
///
/// ```
///   fd ──read()──▶ [input buffer] ──inflate──▶ caller's buffer
///                  offset = bytes consumed from fd (compressed)
/// ```
///
/// Not thread-safe: use one decoder per stream.
public final class GzipDecoder: _PathDecoder {
    /// Settings of a decoder.
    public struct Options: Sendable, _ClosingOptions {
        /// Whether the decoder closes the file descriptor when it is done with it.
        public var closeWhenDone: Bool = false

        public init(closeWhenDone: Bool = false) {
            self.closeWhenDone = closeWhenDone
        }
    }

    /// The size of the input buffer.
    static let inputSize = 128 << 10

    private let fd: Int32
    private let options: Options
    private let inflater: _Inflater
    /// The input buffer (bytes `[file.pos, file.end)` read but not yet consumed) and the compressed bytes
    /// read from `fd` before its start (`file.base`).
    private var file: _InputFile
    private var sawEOF = false
    private var finished = false
    /// Whether the next byte starts a member (true at the start and after each member's trailer).
    private var betweenMembers = true
    /// An error seen while there were still decoded bytes to hand out; thrown on the next call.
    private var pendingError: ZstdError?

    /// The path this decoder reads, for error messages (nil for stdin or a bare descriptor).
    public let path: String?

    /// Decodes the gzip stream read from `fileDescriptor` (stdin is `0`).
    ///
    /// - Parameter initialBytes: bytes already read from `fileDescriptor` (to recognise the input, see
    ///   ``InputKind``): the stream is `initialBytes` followed by the rest of the descriptor. At most 64 KiB.
    public init(
        fileDescriptor: Int32, path: String? = nil, initialBytes: [UInt8] = [], options: Options = Options()
    ) throws(ZstdError) {
        self.fd = fileDescriptor
        self.path = path
        self.options = options
        self.inflater = try _Inflater()
        self.file = _InputFile(capacity: Self.inputSize, initialBytes: initialBytes, decoder: "GzipDecoder")
    }

    /// Opens `path` and decodes it; the decoder closes the file when it is deallocated.
    public convenience init(path: String) throws(ZstdError) {
        try self.init(opening: path, options: Options())
    }

    deinit {
        file.deallocate()
        if options.closeWhenDone { _Sys.close(fd) }
    }

    /// Compressed bytes consumed from the input so far.
    public var compressedBytesConsumed: Int64 { file.consumed }

    /// Always `true`: the input is gzip (the same question as ``ZstdDecoder/isCompressed``).
    public var isCompressed: Bool? { true }

    /// Fills `buffer` with the next decoded bytes.
    ///
    /// - Returns: the number of bytes written at the start of `buffer`: at least 1 while there is data,
    ///   0 at the end of the stream (and on every call after it).
    /// - Throws: ``ZstdError`` as described on the type. Bytes decoded before an error are returned by
    ///   earlier calls first.
    /// - Precondition: `buffer` is not empty.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int {
        precondition(buffer.count > 0, "GzipDecoder.read(into:) needs a non-empty buffer")
        if let error = pendingError { throw error }
        if finished { return 0 }
        while true {
            if betweenMembers {
                // At the end of the input between members: the stream is complete.
                try fill(atLeast: 2)
                if file.pos == file.end {
                    finished = true
                    return 0
                }
                if file.input[file.pos] == 0 {
                    // Zeros after the last member (tape blocks, a padded copy): the end, as `gzip -dc` reads it.
                    try skipZeroPadding()
                    finished = true
                    return 0
                }
                if file.end - file.pos == 1 && file.input[file.pos] == 0x1F {
                    // The input ends inside the magic number of another member.
                    file.pos += 1
                    throw fail(
                        ZstdError(
                            .truncated, offset: compressedBytesConsumed, path: path,
                            detail: "the last member is incomplete", format: "gzip"))
                }
                guard file.end - file.pos >= 2, file.input[file.pos] == 0x1F, file.input[file.pos + 1] == 0x8B else {
                    let what = file.end - file.pos < 2 ? "one byte" : "bytes that do not start another member"
                    throw fail(
                        ZstdError(
                            .corrupt, offset: compressedBytesConsumed, path: path,
                            detail: "the input goes on after a complete gzip member with \(what)", format: "gzip"))
                }
                betweenMembers = false
            }
            if file.pos == file.end { try fill(atLeast: 1) }
            if file.pos == file.end {
                throw fail(
                    ZstdError(
                        .truncated, offset: compressedBytesConsumed, path: path,
                        detail: "the last member is incomplete", format: "gzip"))
            }
            let step = inflater.inflate(UnsafeRawBufferPointer(rebasing: file.input[file.pos..<file.end]), into: buffer)
            file.pos += step.consumed
            if step.failed {
                let error = ZstdError(
                    .corrupt, offset: compressedBytesConsumed, path: path,
                    detail: "zlib: \(step.message ?? "error \(step.status)")", format: "gzip")
                _ = fail(error)
                if step.produced > 0 { return step.produced }  // hand these out first; throw on the next call
                throw error
            }
            if step.memberEnded {
                inflater.reset()
                betweenMembers = true
            }
            if step.produced > 0 { return step.produced }
        }
    }

    /// Reads until `buffer` is full or the stream ends; returns how many bytes it wrote.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int {
        try _readFully(buffer) { (b) throws(ZstdError) in try read(into: b) }
    }

    // MARK: - Internals

    /// Reads until at least `count` unconsumed bytes are in the input buffer or the input ends.
    private func fill(atLeast count: Int) throws(ZstdError) {
        while file.end - file.pos < count && !sawEOF {
            file.compact()
            switch _Sys.read(fd, UnsafeMutableRawBufferPointer(rebasing: file.input[file.end...])) {
            case .success(0): sawEOF = true
            case .success(let n): file.end += n
            case .failure(let code):
                throw fail(
                    ZstdError(.readFailed, offset: file.base + Int64(file.end), errno: code.code, path: path, format: "gzip"))
            }
        }
    }

    /// Consumes zero bytes to the end of the input (in the input buffer's room, whatever their number); throws
    /// `.corrupt` at the first byte that is not zero.
    private func skipZeroPadding() throws(ZstdError) {
        while true {
            while file.pos < file.end && file.input[file.pos] == 0 { file.pos += 1 }
            if file.pos < file.end {
                throw fail(
                    ZstdError(
                        .corrupt, offset: compressedBytesConsumed, path: path,
                        detail: "the input goes on after a complete gzip member and zero padding with bytes that are not zero",
                        format: "gzip"))
            }
            if sawEOF { return }
            try fill(atLeast: 1)
        }
    }

    private func fail(_ error: ZstdError) -> ZstdError {
        finished = true
        pendingError = error
        return error
    }
}
