// MARK: Internal API
//
// Where the record reader's bytes come from. The reader asks for decoded bytes into a buffer it owns and for
// how far into the raw input it is (for a progress line and the counts); nothing else. Today every input is
// a `ZstdDecoder` (zstd or plain, told apart by magic bytes). A parallel decoder of multi-frame archives, a
// gzip decoder or a recogniser of other binary inputs each become a source by conforming and being chosen in
// `_ByteSources.open(_:stdinName:maxWindowBytes:)`: the reader does not change.

import ZstdStream

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

enum _ByteSources {
    /// Opens `path` (`-` is standard input), choosing the decoder.
    static func open(_ path: String, stdinName: String, maxWindowBytes: Int) throws(ZstdError) -> any _ByteSource {
        let options = ZstdDecoder.Options(maxWindowBytes: maxWindowBytes)
        if path == "-" { return try ZstdDecoder(fileDescriptor: 0, path: stdinName, options: options) }
        return try ZstdDecoder(path: path, options: options)
    }
}
