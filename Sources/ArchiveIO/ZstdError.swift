/// An error from reading, decoding, encoding or writing a zstd stream (or decoding a gzip one, or recognising
/// an input that neither decoder reads).
///
/// An opaque struct over a private kind, so that cases can be added without breaking callers. Compare
/// ``code`` against the static members of ``ZstdError/Code``:
///
/// ```swift
/// do { _ = try decoder.read(into: buffer) }
/// catch let error as ZstdError where error.code == .truncated { print(error.offset!) }
/// ```
public struct ZstdError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as a value to compare against.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate let raw: UInt8
        /// The compressed input ended in the middle of a frame.
        public static let truncated = Code(raw: 1)
        /// libzstd refused the data: a damaged frame, a bad checksum, garbage after a frame.
        public static let corrupt = Code(raw: 2)
        /// A frame asks for a decoding window larger than the configured cap.
        public static let windowTooLarge = Code(raw: 3)
        /// Reading the input failed (the `errno` is in ``ZstdError/errno``).
        public static let readFailed = Code(raw: 4)
        /// Writing the output failed (the `errno` is in ``ZstdError/errno``); a full disk is `ENOSPC`.
        public static let writeFailed = Code(raw: 5)
        /// Opening, renaming or removing a file failed.
        public static let fileFailed = Code(raw: 6)
        /// libzstd failed while compressing, or refused a parameter.
        public static let encoderFailed = Code(raw: 7)
        /// The input is something no decoder here reads (a bzip2, xz, lz4 or zip archive, binary data):
        /// ``ZstdError/detail`` says what it looks like and the command that converts it.
        public static let unsupportedInput = Code(raw: 8)

        public var description: String {
            switch raw {
            case 1: return "truncated"
            case 2: return "corrupt"
            case 3: return "windowTooLarge"
            case 4: return "readFailed"
            case 5: return "writeFailed"
            case 6: return "fileFailed"
            case 8: return "unsupportedInput"
            default: return "encoderFailed"
            }
        }
    }

    /// What went wrong.
    public let code: Code
    /// The byte offset in the compressed input where the problem was seen, when it applies (for
    /// `.corrupt`, the start of ``damagedRange``).
    public let offset: Int64?
    /// For `.corrupt`: the compressed bytes that hold the damage (the block, or the frame when its checksum
    /// is wrong), as far as they can be told.
    public let damagedRange: Range<Int64>?
    /// libzstd's name for its error (`ZSTD_getErrorName`), when libzstd reported it.
    public let libzstdName: String?
    /// The C `errno` of a failed system call, when one failed.
    public let errno: Int32?
    /// The file concerned, when known.
    public let path: String?
    /// Extra detail: the window a frame needs, the cap, the operation that failed.
    public let detail: String?
    /// The compressed format concerned, for the message: "zstd" or "gzip".
    let format: String

    init(
        _ code: Code, offset: Int64? = nil, damagedRange: Range<Int64>? = nil, libzstdName: String? = nil,
        errno: Int32? = nil, path: String? = nil, detail: String? = nil, format: String = "zstd"
    ) {
        self.format = format
        self.code = code
        self.offset = damagedRange?.lowerBound ?? offset
        self.damagedRange = damagedRange
        self.libzstdName = libzstdName
        self.errno = errno
        self.path = path
        self.detail = detail
    }

    /// The same error, naming `path` as the file concerned.
    public func naming(_ path: String) -> ZstdError {
        ZstdError(
            code, offset: offset, damagedRange: damagedRange, libzstdName: libzstdName, errno: errno, path: path,
            detail: detail, format: format)
    }

    public var description: String {
        var text = path.map { "\($0): " } ?? ""
        switch code {
        case .truncated:
            text += "truncated \(format) data: the input ended inside a \(format == "gzip" ? "member" : "frame")"
        case .corrupt:
            text += "corrupt \(format) data"
        case .unsupportedInput:
            // The whole message is the detail: what the input looks like and how to convert it.
            return text + (detail ?? "not an input smsfilter reads")
        case .windowTooLarge:
            text += "zstd frame needs a decoding window larger than the cap"
        case .readFailed:
            text += "read failed"
        case .writeFailed:
            text += "write failed"
        case .fileFailed:
            text += "file operation failed"
        default:
            text += "zstd compression failed"
        }
        if let damagedRange {
            text += " in compressed bytes \(damagedRange.lowerBound)..<\(damagedRange.upperBound)"
        } else if let offset {
            text += " at compressed byte offset \(offset)"
        }
        if let libzstdName { text += " (\(libzstdName))" }
        if let errno { text += ": \(_errnoDescription(errno))" }
        if let detail { text += "; \(detail)" }
        return text
    }
}
