// MARK: Internal API
//
// Where the record reader's bytes come from. The reader asks for decoded bytes into a buffer it owns and for
// how far into the raw input it is (for a progress line and the counts); nothing else. An input is recognised
// from its first bytes (`InputKind`): gzip is a `GzipDecoder`; zstd is a `ZstdParallelDecoder` with the job's
// thread count (frames decoded on `threads` workers, bytes in input order, the same errors at the same
// offsets; a single-frame archive, and every frame with one thread, is decoded in the reader's thread one
// unit per libzstd call); plain text a `ZstdDecoder` (which passes it through); anything else (bzip2, xz,
// lz4, zip, binary) is refused with one line that says what it looks like and how to convert it.
//
// Why not `ZstdDecoder` with one thread: on a damaged archive it loses the blocks decoded by the libzstd call
// that fails, so what it hands out before the damage depends on the read sizes and would differ from the
// parallel path; decoding unit by unit hands out every block before a damaged one (and the whole frame
// before a wrong checksum) at every thread count, so outputs, rejects and counts do not depend on --threads.

import ArchiveIO

/// A stream of decoded bytes.
protocol _ByteSource: AnyObject {
    /// Fills the start of `buffer` with the next decoded bytes; returns how many (0 at the end, and on every
    /// call after it). Bytes decoded before an error are returned by earlier calls first.
    /// - Precondition: `buffer` is not empty.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int
    /// Raw bytes consumed from the input so far.
    var compressedBytesConsumed: Int64 { get }
    /// Whether the input was compressed (nil before the first read).
    var isCompressed: Bool? { get }
}

extension ZstdDecoder: _ByteSource {}
extension GzipDecoder: _ByteSource {}
extension ZstdParallelDecoder: _ByteSource {}

enum _ByteSources {
    /// The most decoding workers for one input, whatever `--threads` is. Decoding is about 8 instructions per
    /// decoded byte against about 120 for the rest of the job (docs/PERFORMANCE.md, "The scaling model"), so
    /// 4 workers (about 3 GB/s of decoding) keep ahead of 64 classify threads; each worker costs a frame in
    /// flight (about 5 MiB with 4 MiB frames), so more would only add memory: `(min(threads, 4) + 2) × ~5 MiB`.
    static let maxDecodeThreads = 4

    /// How a multi-frame zstd input is decoded for a job of `threads` threads: one thread decodes unit by unit
    /// in the reader (nothing read ahead beyond libzstd's window); more read ahead one frame per decoding
    /// worker the job needs, plus the frame being read. A worker decodes about 8 times as fast as a classify
    /// thread with the rules alone (16 times with the default model), so one is needed per 8 classify threads
    /// (at most ``maxDecodeThreads``), and from 2 to 8 threads two frames are in flight: the one the reader
    /// copies from and the next, decoded while it does (about 4 ms for a 4 MiB frame against about 35 ms to
    /// classify it on 2 threads). Each frame in flight holds its compressed and decoded bytes (about 5 MiB
    /// with 4 MiB frames): `threads + 2` frames, as before, were 10 MiB more at 2 threads for no speed.
    static func decoding(threads: Int) -> (workers: Int, framesInFlight: Int?) {
        guard threads > 1 else { return (1, nil) }
        let needed = min(maxDecodeThreads, (threads + 7) / 8)
        return (max(2, needed), needed + 1)
    }

    /// Opens `path` (`-` is standard input), recognises it from its first bytes (``InputKind``) and chooses the
    /// decoder: gzip → `GzipDecoder`; zstd → `ZstdParallelDecoder` with `threads` workers (none with one
    /// thread: unit by unit in the calling thread); text → `ZstdDecoder`. The bytes read to recognise the input are handed to the decoder,
    /// so a pipe loses nothing.
    ///
    /// - Parameter threads: the job's `--threads`; ``decoding(threads:)`` says how many decoding workers and
    ///   frames in flight (each its compressed and decoded bytes: about 5 MiB with 4 MiB frames) a multi-frame
    ///   zstd input gets; a single-frame archive costs none of it.
    ///
    /// - Throws: `ZstdError`: the input cannot be opened or read, or it is something no decoder reads (bzip2,
    ///   xz, lz4, zip, 7-Zip, UTF-16 text, binary data): code `.unsupportedInput`, one line saying what it looks
    ///   like and the command that converts it.
    static func open(
        _ path: String, stdinName: String, maxWindowBytes: Int, threads: Int = 1
    ) throws(ZstdError) -> any _ByteSource {
        let isStdin = path == "-"
        let name = isStdin ? stdinName : path
        let probe = try InputProbe(path: isStdin ? nil : path, displayName: name)
        do throws(ZstdError) {
            switch probe.kind {
            case .gzip:
                let decoder = try GzipDecoder(
                    fileDescriptor: probe.fileDescriptor, path: name, initialBytes: probe.firstBytes,
                    options: GzipDecoder.Options(closeWhenDone: probe.ownsDescriptor))
                return try _DecodedPrefix(decoder, outer: .gzip, path: isStdin ? nil : path)
            case .zstd:
                let decoder = try ZstdParallelDecoder(
                    fileDescriptor: probe.fileDescriptor, path: name, initialBytes: probe.firstBytes,
                    options: ZstdParallelDecoder.Options(
                        maxWindowBytes: maxWindowBytes, closeWhenDone: probe.ownsDescriptor,
                        threads: decoding(threads: threads).workers, framesInFlight: decoding(threads: threads).framesInFlight,
                        streamingWhenSingleThreaded: false))
                return try _DecodedPrefix(decoder, outer: .zstd, path: isStdin ? nil : path)
            case .text:
                return try ZstdDecoder(
                    fileDescriptor: probe.fileDescriptor, path: name, initialBytes: probe.firstBytes,
                    options: ZstdDecoder.Options(maxWindowBytes: maxWindowBytes, closeWhenDone: probe.ownsDescriptor))
            default:
                throw probe.kind.refusal(path: isStdin ? nil : path, tool: "smsfilter")
            }
        } catch {
            probe.close()
            throw error
        }
    }
}

/// A compressed input's decoder, with its first decoded bytes recognised as a plain file's first bytes are
/// (``InputKind``): binary data inside a `.gz` or `.zst`, or a file compressed twice, is refused with the
/// same one line, instead of being read as records ("no column body (columns: <binary dump>)").
///
/// The first ``InputKind/sniffLength`` decoded bytes are read when it is made, and handed out first. An error
/// while reading them (a damaged or truncated archive) is thrown after them, as the decoder would have: the
/// damage is reported where it is, with every byte before it.
final class _DecodedPrefix: _ByteSource {
    /// The decoder.
    let inner: any _ByteSource
    private var prefix: [UInt8]
    private var handedOut = 0
    private var pendingError: ZstdError?

    /// - Throws: `ZstdError` `.unsupportedInput` when the decoded bytes are not text.
    init(_ inner: any _ByteSource, outer: InputKind, path: String?) throws(ZstdError) {
        self.inner = inner
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: InputKind.sniffLength, alignment: 1)
        defer { bytes.deallocate() }
        var count = 0
        do throws(ZstdError) {
            while count < bytes.count {
                let n = try inner.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[count...]))
                if n == 0 { break }
                count += n
            }
        } catch {
            pendingError = error
        }
        prefix = Array(bytes[..<count])
        if pendingError == nil {
            let kind = InputKind.sniff(firstBytes: prefix)
            if kind != .text { throw kind.refusal(path: path, tool: "smsfilter", decompressedFrom: outer) }
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int {
        if handedOut < prefix.count {
            let n = min(buffer.count, prefix.count - handedOut)
            prefix.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + handedOut, byteCount: n) }
            handedOut += n
            return n
        }
        if let pendingError { throw pendingError }
        return try inner.read(into: buffer)
    }

    var compressedBytesConsumed: Int64 { inner.compressedBytesConsumed }
    var isCompressed: Bool? { inner.isCompressed }
}
