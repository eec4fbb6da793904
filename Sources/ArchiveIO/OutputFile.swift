import CZstd

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written under a temporary name beside its destination and renamed into place by ``finish()``.
///
/// A crash, a full disk or an error before ``finish()`` never leaves a file at `path` that looks
/// complete: the temporary file (`.NAME.tmp-PID-RANDOM` in the same folder, created with `O_EXCL`, so a
/// planted file or symbolic link of that name is never opened) is removed by ``abandon()`` or when the
/// object is deallocated unfinished. Optionally compresses with zstd or gzip (``Compression``).
/// `path` `-` writes to standard output, and an existing device or pipe (`/dev/null`, a FIFO) is written
/// in place: neither is renamed over; a block device (a disk) is refused. A link into `/proc` to one of this
/// process's descriptors
/// (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`, or a link of one's own to one of them) is written through
/// that descriptor, whatever file it holds, and the link is left alone; a link to another process's
/// descriptor is refused. A folder is refused at once, never found at the end.
///
/// With ``Existing/keep`` an existing regular file (or symbolic link) at `path` is refused when the
/// file is created, and the finished file is put in place with `link(2)`, which fails rather than
/// replace a file that appeared meanwhile.
///
/// Not thread-safe: one writer at a time.
public final class OutputFile {
    /// How the bytes are stored.
    public enum Compression: Sendable, Equatable {
        /// As given.
        case none
        /// zstd at `level` (1…19, or up to 22 for ultra), with `workers` compression threads (0: in the
        /// calling thread). With a `frameSize`, zstd's seekable format (``ZstdSeekableEncoder``): frames of
        /// `frameSize` decoded bytes and a seek table, the same bytes whatever `workers` is; without, one
        /// frame (``ZstdEncoder``, libzstd's own worker threads).
        case zstd(level: Int32, workers: Int32, frameSize: Int? = nil)
        /// One gzip member at `level` (1…9, ``GzipEncoder/levels``), compressed in the calling thread.
        case gzip(level: Int32)
    }

    /// What an output's name says its bytes are (SPEC §7: outputs ending `.gz` are gzip, `.zst` zstd),
    /// case-insensitively.
    public enum NamedCompression: Sendable, Equatable {
        case zstd, gzip, none
    }

    /// The compression `path`'s name asks for: `.zst` zstd, `.gz` gzip, anything else none.
    public static func compression(namedBy path: String) -> NamedCompression {
        let lower = path.lowercased()
        if lower.hasSuffix(".zst") { return .zstd }
        if lower.hasSuffix(".gz") { return .gzip }
        return .none
    }

    /// A compression or archive format that `path`'s name asks for and that ``OutputFile`` does not write
    /// (`.bz2`, `.xz`, `.lz4`, `.zstd`, `.zip`, `.7z`, `.br`…, case-insensitively): its suffix as the name
    /// spells it and the format's name; nil for `.zst`, `.gz` and every other name. An output named so
    /// would otherwise be plain text under a name that says otherwise.
    public static func unwrittenCompression(namedBy path: String) -> (suffix: String, format: String)? {
        let lower = path.lowercased()
        for (suffix, format) in unwrittenSuffixes where lower.hasSuffix(suffix) && lower.count > suffix.count {
            return (String(path.suffix(suffix.count)), format)
        }
        return nil
    }

    /// Suffixes of compressed files and archives that are not written (longest first where one ends another).
    static let unwrittenSuffixes: [(String, String)] = [
        (".tar.gz", "a gzip-compressed tar archive"), (".tgz", "a gzip-compressed tar archive"),
        (".tar.zst", "a zstd-compressed tar archive"), (".tzst", "a zstd-compressed tar archive"),
        (".tar", "a tar archive"), (".zstd", "zstd, which smsfilter writes under the name .zst"),
        (".bz2", "bzip2"), (".tbz2", "bzip2"), (".tbz", "bzip2"), (".bz", "bzip2"), (".xz", "xz"), (".txz", "xz"),
        (".lzma", "lzma"), (".lz4", "lz4"), (".lz", "lzip"), (".lzo", "lzop"), (".zip", "zip"), (".7z", "7-Zip"),
        (".rar", "RAR"), (".br", "Brotli"), (".sz", "Snappy"), (".snappy", "Snappy"), (".z", "compress (.Z)"),
        (".zz", "zlib"), (".gzip", "gzip, which smsfilter writes under the name .gz"),
    ]

    /// What to do with a regular file already at the destination.
    public enum Existing: Sendable, Equatable {
        /// Replace it atomically when finished (`rename(2)`).
        case replace
        /// Refuse: throw `.fileFailed` with `EEXIST` at creation, and never replace a file that appears
        /// while writing.
        case keep
    }

    /// Where the finished file goes (`-` for standard output).
    public let path: String
    /// The temporary file being written, nil for standard output.
    public let temporaryPath: String?
    /// What happens to a file already at ``path``.
    public let existing: Existing
    private let fd: Int32
    private var encoder: ZstdEncoder?
    private var seekableEncoder: ZstdSeekableEncoder?
    private var gzipEncoder: GzipEncoder?
    private var finished = false
    private var failed: ZstdError?
    private var ownsDescriptor = false
    /// Bytes accepted by ``write(_:)`` (before compression).
    public private(set) var bytesWritten: Int64 = 0


    /// Creates the temporary file (or wraps standard output for `-`, or opens a device or FIFO).
    ///
    /// - Throws: ``ZstdError`` `.fileFailed` naming the path when it is a folder, when its folder does
    ///   not exist or cannot be written, or (with ``Existing/keep``) when a file is already there (`EEXIST`).
    public init(path: String, compression: Compression = .none, existing: Existing = .replace) throws(ZstdError) {
        self.path = path
        self.existing = existing
        if path == "-" {
            fd = 1
            temporaryPath = nil
        } else {
            switch _Sys.fileKind(path) {
            case .folder:
                throw ZstdError(.fileFailed, errno: EISDIR, path: path, detail: "it is a folder, not a file")
            case .special:
                // A device or a pipe (`/dev/null`, a FIFO): written in place, never replaced by a rename.
                switch _Sys.open(path, O_WRONLY | O_CLOEXEC) {
                case .success(let value): fd = value
                case .failure(let code):
                    throw ZstdError(.fileFailed, errno: code.code, path: path, detail: "cannot open for writing")
                }
                temporaryPath = nil
                ownsDescriptor = true
            case .descriptor(let own?):
                // `/dev/stdout`, `/proc/self/fd/N` or a link to one: this process's descriptor, whatever it holds
                // (a regular file the shell redirected to, a pipe, a socket), written through a duplicate; the
                // link is never replaced.
                switch _Sys.duplicate(own) {
                case .success(let value): fd = value
                case .failure(let code):
                    throw ZstdError(.fileFailed, errno: code.code, path: path, detail: "descriptor \(own) is not open for writing")
                }
                temporaryPath = nil
                ownsDescriptor = true
            case .blockDevice:
                throw ZstdError(.fileFailed, errno: EPERM, path: path, detail: "it is a block device (a disk); refusing to write over it")
            case .descriptor(nil):
                throw ZstdError(
                    .fileFailed, errno: EPERM, path: path,
                    detail: "it leads into /proc to another process's file descriptor; name the file itself")
            case .regular, .danglingLink, .missing:
                if existing == .keep && _Sys.fileKind(path) != .missing {
                    throw ZstdError(.fileFailed, errno: EEXIST, path: path, detail: "a file is already there and is kept")
                }
                (fd, temporaryPath) = try Self.createTemporary(beside: path)
            }
        }
        if compression != .none {
            do throws(ZstdError) {
                switch compression {
                case .zstd(let level, let workers, let frameSize?):
                    seekableEncoder = try ZstdSeekableEncoder(
                        fileDescriptor: fd, level: level, workers: Int(max(0, workers)), frameSize: frameSize)
                case .zstd(let level, let workers, nil):
                    encoder = try ZstdEncoder(fileDescriptor: fd, level: level, workers: workers)
                case .gzip(let level):
                    gzipEncoder = try GzipEncoder(fileDescriptor: fd, level: level)
                case .none:
                    break
                }
            } catch {
                Self.release(fd, temporaryPath: temporaryPath, ownsDescriptor: ownsDescriptor)
                throw error
            }
        }
    }

    /// Creates `.NAME.tmp-PID-RANDOM` in `path`'s folder with `O_CREAT | O_EXCL` (never following a link,
    /// never opening a file someone else made), trying other random names if one is taken.
    private static func createTemporary(beside path: String) throws(ZstdError) -> (Int32, String) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var lastError: Int32 = EEXIST
        for _ in 0..<32 {
            let random = String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let tmp = "\(folder).\(name).tmp-\(_Sys.getpid())-\(random)"
            switch _Sys.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) {
            case .success(let fd):
                _UnfinishedFiles.shared.insert(tmp)
                return (fd, tmp)
            case .failure(let code) where code.code == EEXIST:
                lastError = code.code
                continue
            case .failure(let code):
                let where_ = folder.isEmpty ? "the current folder" : "the folder \(folder)"
                let detail = code.code == ENOENT ? "\(where_) does not exist" : "cannot create a temporary file in \(where_)"
                throw ZstdError(.fileFailed, errno: code.code, path: path, detail: detail)
            }
        }
        throw ZstdError(.fileFailed, errno: lastError, path: path, detail: "no free temporary name beside it")
    }

    deinit {
        if !finished { abandon() }
    }

    /// Appends `bytes`. After an error the file is abandoned and every later call throws it again.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(ZstdError) {
        if let failed { throw failed }
        precondition(!finished, "OutputFile.write after finish()")
        do throws(ZstdError) {
            if let encoder {
                try encoder.write(bytes)
            } else if let seekableEncoder {
                try seekableEncoder.write(bytes)
            } else if let gzipEncoder {
                try gzipEncoder.write(bytes)
            } else {
                if case .failure(let code) = _Sys.writeAll(fd, bytes) {
                    throw ZstdError(.writeFailed, errno: code.code, path: path)
                }
            }
            bytesWritten += Int64(bytes.count)
        } catch {
            let named = error.path == nil ? error.naming(path) : error
            failed = named
            abandon()
            throw named
        }
    }

    /// Appends `bytes`.
    public func write(_ bytes: [UInt8]) throws(ZstdError) {
        let result: Result<Void, ZstdError> = bytes.withUnsafeBytes { raw in Result { () throws(ZstdError) in try write(raw) } }
        try result.get()
    }

    /// Appends the UTF-8 bytes of `text`.
    public func write(_ text: String) throws(ZstdError) {
        var text = text
        let result: Result<Void, ZstdError> = text.withUTF8 { raw in
            Result { () throws(ZstdError) in try write(UnsafeRawBufferPointer(raw)) }
        }
        try result.get()
    }

    /// Ends the zstd frame (with the seekable format: the last frame and the seek table), flushes to disk and
    /// renames the file into place.
    public func finish() throws(ZstdError) {
        if let failed { throw failed }
        if finished { return }
        do throws(ZstdError) {
            try encoder?.finish()
            try seekableEncoder?.finish()
            try gzipEncoder?.finish()
            if let tmp = temporaryPath {
                if case .failure(let code) = _Sys.fsync(fd) {
                    throw ZstdError(.writeFailed, errno: code.code, path: path, detail: "fsync failed")
                }
                _Sys.close(fd)
                defer { _UnfinishedFiles.shared.remove(tmp) }
                if case .failure(let code) = commit(tmp) {
                    _Sys.unlink(tmp)
                    _UnfinishedFiles.shared.remove(tmp)
                    finished = true
                    let detail = code.code == EEXIST
                        ? "a file appeared there while writing; it is kept and nothing was written"
                        : "cannot rename \(tmp) into place"
                    throw ZstdError(.fileFailed, errno: code.code, path: path, detail: detail)
                }
            } else if ownsDescriptor {
                _Sys.close(fd)
            }
            finished = true
        } catch {
            let named = error.path == nil ? error.naming(path) : error
            failed = named
            abandon()
            throw named
        }
    }

    /// Puts the finished temporary file at `path`: `rename(2)` replaces; with ``Existing/keep``, `link(2)`
    /// then `unlink(2)`, which never replaces (where the file system has no hard links, a rename after a
    /// last check).
    private func commit(_ tmp: String) -> Result<Void, _Errno> {
        guard existing == .keep else { return _Sys.rename(tmp, path) }
        switch _Sys.link(tmp, path) {
        case .success:
            _Sys.unlink(tmp)
            return .success(())
        case .failure(let code) where code.code == EEXIST:
            return .failure(code)
        case .failure:
            if _Sys.fileKind(path) != .missing { return .failure(_Errno(EEXIST)) }
            return _Sys.rename(tmp, path)
        }
    }

    /// Removes the temporary files of every unfinished `OutputFile` of this process, so an interrupted run
    /// leaves nothing behind. For a signal handler that then exits (call it from a Dispatch signal source,
    /// not from the signal context: it takes a lock).
    public static func removeUnfinishedFiles() {
        for path in _UnfinishedFiles.shared.takeAll() { _Sys.unlink(path) }
    }

    /// Stops writing and removes the temporary file. Nothing appears at `path`.
    public func abandon() {
        guard !finished else { return }
        finished = true
        Self.release(fd, temporaryPath: temporaryPath, ownsDescriptor: ownsDescriptor)
    }

    /// Gives up an unfinished output: closes `fd` (always for a temporary file, else when the output owns it)
    /// and removes the temporary file, which then no longer counts as unfinished.
    private static func release(_ fd: Int32, temporaryPath: String?, ownsDescriptor: Bool) {
        if let tmp = temporaryPath {
            _Sys.close(fd)
            _Sys.unlink(tmp)
            _UnfinishedFiles.shared.remove(tmp)
        } else if ownsDescriptor {
            _Sys.close(fd)
        }
    }
}

extension OutputFile {
    /// What is at an output path, as ``init(path:compression:existing:)`` sees it (symbolic links followed),
    /// for callers that check their outputs before any work.
    public enum Target: Sendable, Equatable {
        /// Nothing: the file is created.
        case missing
        /// A regular file: replaced only with ``Existing/replace``.
        case regular
        /// A symbolic link to nothing: replaced only with ``Existing/replace``.
        case danglingLink
        /// A folder: refused.
        case folder
        /// A character device, a FIFO or a socket: written in place.
        case special
        /// A block device (a disk, a partition): refused, whatever `--force` says.
        case blockDevice
        /// A link into `/proc` to an open file descriptor (`/dev/stdout`, `/proc/self/fd/1`…): written in place
        /// through the descriptor when it is this process's own (`own`), refused when it is another process's.
        case descriptor(own: Bool)
    }

    /// What is at `path` (see ``Target``).
    public static func target(of path: String) -> Target {
        switch _Sys.fileKind(path) {
        case .missing: return .missing
        case .regular: return .regular
        case .danglingLink: return .danglingLink
        case .folder: return .folder
        case .special: return .special
        case .blockDevice: return .blockDevice
        case .descriptor(let fd): return .descriptor(own: fd != nil)
        }
    }
}

/// The temporary files of unfinished outputs, under a mutex.
final class _UnfinishedFiles: @unchecked Sendable {
    static let shared = _UnfinishedFiles()
    // Guarded by `mutex`.
    private var paths: Set<String> = []
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    private init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    func insert(_ path: String) { locked { _ = paths.insert(path) } }
    func remove(_ path: String) { locked { _ = paths.remove(path) } }
    func takeAll() -> [String] {
        locked {
            let all = Array(paths)
            paths.removeAll()
            return all
        }
    }
}
