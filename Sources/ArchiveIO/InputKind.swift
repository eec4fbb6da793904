#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What an input looks like from its first bytes: a format a decoder here reads (zstd, gzip, plain text), or
/// one it does not (other compressors, archives, binary data), so that a caller can refuse it with a sentence
/// that says what it is and how to convert it instead of reading it as text.
///
/// ### How it tells
/// | kind | first bytes |
/// |---|---|
/// | zstd | `28 B5 2F FD`, or a skippable frame `5? 2A 4D 18` |
/// | gzip | `1F 8B` |
/// | bzip2 | `BZh` then a block size digit `1`–`9` |
/// | xz | `FD 37 7A 58 5A 00` |
/// | lz4 | `04 22 4D 18` (frame), `02 21 4C 18` (legacy) |
/// | zip | `PK 03 04`, `PK 05 06` (empty), `PK 07 08` (spanned) |
/// | 7-Zip | `37 7A BC AF 27 1C` |
/// | UTF-16 text | a byte order mark `FF FE` or `FE FF` |
/// | binary | a NUL byte in the first ``sniffLength`` bytes, or more than 30% of them C0 control characters (other than tab, line feed, form feed, carriage return, escape) or bytes of invalid UTF-8 |
/// | text | anything else, and inputs shorter than a magic number |
public enum InputKind: Sendable, Hashable, CaseIterable {
    case zstd, gzip, bzip2, xz, lz4, zip, sevenZip, utf16Text, binary, text

    /// How many first bytes ``sniff(firstBytes:)`` looks at (and ``InputProbe`` reads).
    public static let sniffLength = 4096

    /// Recognises an input from its first bytes (up to ``sniffLength``; fewer only when the input is shorter).
    ///
    /// - Complexity: O(`firstBytes.count`).
    public static func sniff(firstBytes: [UInt8]) -> InputKind {
        let b = firstBytes
        func starts(_ magic: [UInt8]) -> Bool { b.count >= magic.count && b.prefix(magic.count).elementsEqual(magic) }
        if b.count >= 4 {
            let magic = UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
            if magic == 0xFD2F_B528 || magic & 0xFFFF_FFF0 == 0x184D_2A50 { return .zstd }
        }
        if starts([0x1F, 0x8B]) { return .gzip }
        if starts(Array("BZh".utf8)), b.count >= 4, (0x31...0x39).contains(b[3]) { return .bzip2 }
        if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .xz }
        if starts([0x04, 0x22, 0x4D, 0x18]) || starts([0x02, 0x21, 0x4C, 0x18]) { return .lz4 }
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) || starts([0x50, 0x4B, 0x07, 0x08]) {
            return .zip
        }
        if starts([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]) { return .sevenZip }
        if starts([0xFF, 0xFE]) || starts([0xFE, 0xFF]) { return .utf16Text }
        return looksBinary(b) ? .binary : .text
    }

    /// Whether a decoder here reads this kind (``ZstdDecoder`` reads zstd and text, ``GzipDecoder`` gzip).
    public var isReadable: Bool {
        switch self {
        case .zstd, .gzip, .text: return true
        default: return false
        }
    }

    /// What the input looks like, as a phrase: "a bzip2 archive".
    public var phrase: String {
        switch self {
        case .zstd: return "a zstd archive"
        case .gzip: return "a gzip archive"
        case .bzip2: return "a bzip2 archive"
        case .xz: return "an xz archive"
        case .lz4: return "an lz4 archive"
        case .zip: return "a zip archive"
        case .sevenZip: return "a 7-Zip archive"
        case .utf16Text: return "UTF-16 text (it starts with a UTF-16 byte order mark)"
        case .binary: return "binary data, not UTF-8 text (NUL bytes, control characters or invalid UTF-8 near its start)"
        case .text: return "text"
        }
    }

    /// The one-line refusal of an input of this kind: what it looks like, what `tool` reads, and the command that
    /// converts it. `path` is nil for standard input.
    ///
    /// `x.jsonl.bz2: this looks like a bzip2 archive; smsfilter reads zstd, gzip and plain UTF-8 text. Convert
    /// it: bzip2 -dc x.jsonl.bz2 | zstd -o x.jsonl.zst`
    public func refusalMessage(path: String?, tool: String) -> String {
        let name = path ?? "standard input"
        var text = "\(name): this looks like \(phrase); \(tool) reads zstd, gzip and plain UTF-8 text."
        if let command = conversion(path: path) { text += " Convert it: \(command)" }
        return text
    }

    /// The refusal as an error (code ``ZstdError/Code/unsupportedInput``, the message in ``ZstdError/detail``).
    public func refusal(path: String?, tool: String) -> ZstdError {
        ZstdError(.unsupportedInput, detail: refusalMessage(path: path, tool: tool))
    }

    /// The refusal of an input whose *decompressed* first bytes look like this kind (binary data inside a
    /// `.gz` or `.zst`, or a file compressed twice): the same one line, saying it is what is inside `outer`.
    ///
    /// `x.jsonl.gz: decompressed (gzip), this looks like binary data, not UTF-8 text (…); smsfilter reads
    /// zstd, gzip and plain UTF-8 text.`
    public func refusal(path: String?, tool: String, decompressedFrom outer: InputKind) -> ZstdError {
        let name = path ?? "standard input"
        let how = outer == .gzip ? "gzip" : "zstd"
        var text = "\(name): decompressed (\(how)), this looks like \(phrase); \(tool) reads zstd, gzip and plain UTF-8 text"
        if self == .zstd || self == .gzip {
            text += " (it was compressed twice: decompress it once with \(how) -dc, then read what that writes)"
        } else if self != .binary {
            text += " inside them"
        }
        return ZstdError(.unsupportedInput, detail: text + ".")
    }

    // MARK: - Internals

    /// The shell command that turns the input into something readable; nil for binary data.
    private func conversion(path: String?) -> String? {
        let decompress: String
        let suffixes: [String]
        switch self {
        case .bzip2: (decompress, suffixes) = ("bzip2 -dc", [".bz2", ".bz", ".tbz2"])
        case .xz: (decompress, suffixes) = ("xz -dc", [".xz", ".txz"])
        case .lz4: (decompress, suffixes) = ("lz4 -dc", [".lz4"])
        case .zip: (decompress, suffixes) = ("unzip -p", [".zip"])
        case .sevenZip: (decompress, suffixes) = ("7z x -so", [".7z"])
        case .utf16Text: (decompress, suffixes) = ("iconv -f UTF-16 -t UTF-8", [])
        default: return nil
        }
        guard let path else { return "\(decompress) < FILE | zstd -o FILE.zst (then read FILE.zst)" }
        let quoted = Self.shellQuoted(path)
        var stem = path
        if let suffix = suffixes.first(where: { path.hasSuffix($0) && path.count > $0.count }) {
            stem = String(path.dropLast(suffix.count))
        }
        return "\(decompress) \(quoted) | zstd -o \(Self.shellQuoted(stem + ".zst"))"
    }

    /// `path` as one shell word: as it is when it holds only safe characters, else in single quotes.
    private static func shellQuoted(_ path: String) -> String {
        let safe = path.unicodeScalars.allSatisfy { s in
            s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s) || "/._-+,:@%".unicodeScalars.contains(s))
        }
        if safe && !path.isEmpty { return path }
        return "'" + path.replacingAll("'", with: "'\\''") + "'"
    }

    /// NUL bytes, or more than 30% of the bytes C0 controls (other than tab, LF, VT, FF, CR, ESC) or invalid UTF-8.
    /// A sequence cut by the end of a full-length sample is not counted as invalid.
    private static func looksBinary(_ b: [UInt8]) -> Bool {
        if b.isEmpty { return false }
        if b.contains(0) { return true }
        var suspicious = 0
        var i = 0
        // Skip a UTF-8 byte order mark.
        if b.count >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF { i = 3 }
        while i < b.count {
            let byte = b[i]
            if byte < 0x80 {
                if byte < 0x20 && ![0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1B].contains(byte) { suspicious += 1 }
                i += 1
                continue
            }
            let length = byte >= 0xF0 && byte <= 0xF4 ? 4 : byte >= 0xE0 ? (byte <= 0xEF ? 3 : 0) : byte >= 0xC2 ? 2 : 0
            if length == 0 {
                suspicious += 1
                i += 1
                continue
            }
            if i + length > b.count {
                // Cut by the end of the sample: not evidence either way when the sample is full.
                if b.count < sniffLength { suspicious += b.count - i }
                break
            }
            let valid = (1..<length).allSatisfy { b[i + $0] & 0xC0 == 0x80 } && validSecondByte(byte, b[i + 1])
            if valid {
                i += length
            } else {
                suspicious += 1
                i += 1
            }
        }
        return suspicious * 10 > b.count * 3
    }

    /// The second byte of a multi-byte sequence within the ranges RFC 3629 allows (no overlongs, surrogates,
    /// or code points past U+10FFFF).
    private static func validSecondByte(_ lead: UInt8, _ second: UInt8) -> Bool {
        switch lead {
        case 0xE0: return second >= 0xA0
        case 0xED: return second <= 0x9F
        case 0xF0: return second >= 0x90
        case 0xF4: return second <= 0x8F
        default: return true
        }
    }
}

/// An input opened and recognised: its descriptor, the first bytes read from it (to be handed to the decoder
/// as its `initialBytes`, so nothing is lost, even from a pipe) and what it looks like.
public struct InputProbe {
    /// The open descriptor, positioned after ``firstBytes``.
    public let fileDescriptor: Int32
    /// Up to ``InputKind/sniffLength`` first bytes (fewer only when the input is shorter).
    public let firstBytes: [UInt8]
    /// What the input looks like.
    public let kind: InputKind
    /// Whether this probe opened the descriptor (and the caller must close it or hand that job on).
    public let ownsDescriptor: Bool

    /// Opens `path` (nil: standard input, which stays open) and reads its first bytes.
    ///
    /// - Parameter displayName: the name errors give the input.
    /// - Throws: ``ZstdError``: `.fileFailed` when it cannot be opened, `.readFailed` when reading fails.
    public init(path: String?, displayName: String? = nil) throws(ZstdError) {
        let name = displayName ?? path
        let fd: Int32
        if let path {
            switch _Sys.open(path, O_RDONLY) {
            case .success(let value): fd = value
            case .failure(let code):
                throw ZstdError(.fileFailed, errno: code.code, path: name, detail: "cannot open for reading")
            }
        } else {
            fd = 0
        }
        var bytes = [UInt8](repeating: 0, count: InputKind.sniffLength)
        var count = 0
        while count < bytes.count {
            let result = bytes.withUnsafeMutableBytes { _Sys.read(fd, UnsafeMutableRawBufferPointer(rebasing: $0[count...])) }
            switch result {
            case .success(0): bytes.removeSubrange(count...)
            case .success(let n): count += n
            case .failure(let code):
                if path != nil { _Sys.close(fd) }
                throw ZstdError(.readFailed, offset: Int64(count), errno: code.code, path: name)
            }
            if bytes.count == count { break }
        }
        self.fileDescriptor = fd
        self.firstBytes = bytes
        self.kind = InputKind.sniff(firstBytes: bytes)
        self.ownsDescriptor = path != nil
    }

    /// Closes the descriptor when this probe opened it (for an input that is refused).
    public func close() {
        if ownsDescriptor { _Sys.close(fileDescriptor) }
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
