#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: Internal API

/// The input plumbing the streaming decoders share (`ZstdDecoder`, `GzipDecoder`): opening a path for
/// reading (``_OpenedPath``), the input buffer that starts with the bytes a caller already read to recognise the input, and
/// moving what is left of it to its front before the next read.
///
///   input:  [ consumed … | pos ── unconsumed ── end | free … ]  ──compact()──▶  [ unconsumed | free …… ]
///
/// - warning: `input` is owned by the decoder that holds this value: it frees it (``deallocate()``) in its
///   `deinit`, and the pointer never leaves the decoder.
struct _InputFile {
    /// The read-ahead buffer; bytes `[pos, end)` are read but not yet consumed.
    let input: UnsafeMutableRawBufferPointer
    var pos = 0
    var end = 0
    /// Bytes read from the descriptor before the start of `input` (moved past by ``compact()``).
    var base: Int64 = 0

    /// A buffer of at least `capacity` bytes holding `initialBytes` (at most 64 KiB, checked with `decoder`'s
    /// name in the message) at its start.
    init(capacity: Int, initialBytes: [UInt8], decoder: StaticString) {
        precondition(initialBytes.count <= 64 << 10, "\(decoder): at most 64 KiB of initial bytes")
        input = .allocate(byteCount: max(capacity, initialBytes.count), alignment: 16)
        if !initialBytes.isEmpty {
            initialBytes.withUnsafeBytes { input.copyMemory(from: $0) }
            end = initialBytes.count
        }
    }

    /// Frees the buffer (the owner's `deinit`).
    func deallocate() { input.deallocate() }

    /// Bytes consumed from the descriptor so far.
    var consumed: Int64 { base + Int64(pos) }

    /// Moves the unconsumed bytes to the front of the buffer, so that a read can fill the rest.
    mutating func compact() {
        guard pos > 0 else { return }
        let left = end - pos
        if left > 0, let start = input.baseAddress {
            // Overlapping move of the unconsumed tail to the front.
            memmove(start, start + pos, left)
        }
        base += Int64(pos)
        end = left
        pos = 0
    }

    /// Opens `path` read-only for a decoder that reads it.
    ///
    /// - Throws: ``ZstdError`` `.fileFailed` ("cannot open for reading") with the errno.
    static func open(_ path: String) throws(ZstdError) -> Int32 {
        switch _Sys.open(path, O_RDONLY) {
        case .success(let fd): return fd
        case .failure(let code): throw ZstdError(.fileFailed, errno: code.code, path: path, detail: "cannot open for reading")
        }
    }
}

/// A file opened for reading: its descriptor is closed when this value goes out of scope, unless it was
/// handed over (``handOver()``) to a decoder whose init succeeded and which closes it when done. So a
/// decoder's `init(path:)` that throws leaves no descriptor open (``_PathDecoder/init(opening:at:options:)``):
///
///     let opened = try _OpenedPath(path)
///     try self.init(fileDescriptor: opened.fd, path: path, options: closing)
///     opened.handOver()
struct _OpenedPath: ~Copyable {
    let fd: Int32

    /// Opens `path` read-only (``_InputFile/open(_:)``: `.fileFailed`, "cannot open for reading").
    init(_ path: String) throws(ZstdError) {
        fd = try _InputFile.open(path)
    }

    /// The size of the file at `path` (this one), for reading it with `pread`, at offsets.
    ///
    /// - Throws: ``ZstdError`` `.readFailed` ("cannot seek") when the descriptor cannot seek.
    func size(_ path: String) throws(ZstdError) -> Int64 {
        let size = Int64(lseek(fd, 0, SEEK_END))
        guard size >= 0 else { throw ZstdError(.readFailed, errno: errno, path: path, detail: "cannot seek") }
        return size
    }

    /// The decoder owns the descriptor now.
    consuming func handOver() { discard self }

    deinit { _Sys.close(fd) }
}

/// Decoder settings that say whether the decoder closes its file descriptor when it is done with it.
protocol _ClosingOptions {
    var closeWhenDone: Bool { get set }
}

/// A decoder of a file descriptor (`GzipDecoder`, `ZstdDecoder`, `ZstdParallelDecoder`): their
/// `init(path:)` plumbing, written once.
protocol _PathDecoder: AnyObject {
    associatedtype Options: _ClosingOptions
    init(fileDescriptor: Int32, path: String?, initialBytes: [UInt8], options: Options) throws(ZstdError)
}

extension _PathDecoder {
    /// Opens `path` (moved to `offset` when given) and decodes it with `options`; the decoder closes the
    /// file when it is deallocated, and a throw leaves no descriptor open.
    ///
    /// - Throws: ``ZstdError`` `.fileFailed` when the file cannot be opened, `.readFailed` when it cannot
    ///   be moved to `offset`, or what the decoder's init throws.
    init(opening path: String, at offset: Int64? = nil, options: Options) throws(ZstdError) {
        let opened = try _OpenedPath(path)
        if let offset, lseek(opened.fd, off_t(offset), SEEK_SET) != off_t(offset) {
            throw ZstdError(.readFailed, offset: offset, errno: errno, path: path)
        }
        var options = options
        options.closeWhenDone = true
        try self.init(fileDescriptor: opened.fd, path: path, initialBytes: [], options: options)
        opened.handOver()
    }
}

/// Fills `buffer` from `read` until it is full or `read` returns 0 (the end); returns how many bytes it
/// wrote. The decoders' `readFully(into:)`.
@inline(__always)
func _readFully(
    _ buffer: UnsafeMutableRawBufferPointer, _ read: (UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int
) throws(ZstdError) -> Int {
    var filled = 0
    while filled < buffer.count {
        let n = try read(UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
        if n == 0 { break }
        filled += n
    }
    return filled
}
