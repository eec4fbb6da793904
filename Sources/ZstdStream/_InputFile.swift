#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: Internal API

/// The input plumbing the streaming decoders share (`ZstdDecoder`, `GzipDecoder`): opening a path for
/// reading, the input buffer that starts with the bytes a caller already read to recognise the input, and
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
