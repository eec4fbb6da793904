// MARK: Internal API
//
// Every call into libzstd and every raw system call of this module lives in this file. Each `size_t` that
// libzstd returns goes through `ZSTD_isError` into a `ZstdError`; each system call is retried on `EINTR`.

import CZstd

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@usableFromInline
func _errnoDescription(_ code: Int32) -> String {
    guard let cString = strerror(code) else { return "errno \(code)" }
    return String(cString: cString) + " (errno \(code))"
}

/// A failed system call's `errno`.
struct _Errno: Error {
    let code: Int32
    init(_ code: Int32) { self.code = code }
}

/// A libzstd error: its code and `ZSTD_getErrorName`.
struct _LibzstdError: Error {
    let code: ZSTD_ErrorCode
    let name: String
}

enum _Sys {
    /// `read(2)`, retried on `EINTR`.
    static func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Result<Int, _Errno> {
        while true {
            let n = _readHook(fd, buffer)
            if n >= 0 { return .success(n) }
            let e = errno
            if e == EINTR { continue }
            return .failure(_Errno(e))
        }
    }

    /// `write(2)` of the whole buffer, retried on `EINTR` and on short writes.
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Result<Void, _Errno> {
        var done = 0
        while done < buffer.count {
            let n = _writeHook(fd, UnsafeRawBufferPointer(rebasing: buffer[done...]))
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                return .failure(_Errno(e))
            }
            // n <= buffer.count - done, so this cannot overflow.
            done &+= n
        }
        return .success(())
    }

    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0o644) -> Result<Int32, _Errno> {
        while true {
            let fd = path.withCString { _cOpen($0, flags, mode) }
            if fd >= 0 { return .success(fd) }
            let e = errno
            if e == EINTR { continue }
            return .failure(_Errno(e))
        }
    }

    static func close(_ fd: Int32) { _ = _cClose(fd) }

    static func fsync(_ fd: Int32) -> Result<Void, _Errno> {
        #if canImport(Darwin)
        let r = Darwin.fsync(fd)
        #else
        let r = Glibc.fsync(fd)
        #endif
        return r == 0 ? .success(()) : .failure(_Errno(errno))
    }

    static func rename(_ from: String, _ to: String) -> Result<Void, _Errno> {
        let r = from.withCString { f in to.withCString { t in _cRename(f, t) } }
        return r == 0 ? .success(()) : .failure(_Errno(errno))
    }

    static func unlink(_ path: String) { _ = path.withCString { _cUnlink($0) } }

    /// `link(2)`: a second name for `from`; fails with `EEXIST` when `to` exists (never replaces it).
    static func link(_ from: String, _ to: String) -> Result<Void, _Errno> {
        let r = from.withCString { f in to.withCString { t in _cLink(f, t) } }
        return r == 0 ? .success(()) : .failure(_Errno(errno))
    }

    static func getpid() -> Int32 { _cGetpid() }

    /// The file offset of `fd` (`lseek(fd, 0, SEEK_CUR)`), nil when it cannot seek (a pipe, a terminal).
    static func currentOffset(_ fd: Int32) -> Int64? {
        let r = lseek(fd, 0, SEEK_CUR)
        return r < 0 ? nil : Int64(r)
    }

    /// `pread(2)` of up to `buffer.count` bytes at `offset`, retried on `EINTR`.
    static func pread(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Result<Int, _Errno> {
        while true {
            let n = _cPread(fd, buffer.baseAddress, buffer.count, off_t(offset))
            if n >= 0 { return .success(n) }
            let e = errno
            if e == EINTR { continue }
            return .failure(_Errno(e))
        }
    }

    /// `pread(2)` until `buffer` is full, the file ends or a read fails: `done` bytes were read at `offset`
    /// (fewer than `buffer.count` at the end of the file or on an error), `error` is the failure, if any.
    static func preadFully(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> (done: Int, error: _Errno?) {
        var done = 0
        while done < buffer.count {
            switch pread(fd, UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + Int64(done)) {
            case .success(0): return (done, nil)
            case .success(let n): done += n
            case .failure(let e): return (done, e)
            }
        }
        return (done, nil)
    }

    /// What is at a path, following symbolic links (a link to nothing is `.danglingLink`).
    enum FileKind: Equatable {
        case missing, regular, folder, danglingLink
        /// A character device, a FIFO or a socket: written in place.
        case special
        /// A block device (a disk or a partition): never written.
        case blockDevice
        /// A file descriptor reached through a link into `/proc` (`/dev/stdout`, `/dev/fd/N`,
        /// `/proc/self/fd/N`, or a link to one): this process's descriptor `N`, or nil for another process's.
        /// Written in place through the descriptor, whatever file it holds, never renamed over.
        case descriptor(Int32?)
    }

    static func fileKind(_ path: String) -> FileKind {
        if let fd = descriptorLink(path) { return .descriptor(fd) }
        var info = stat()
        if path.withCString({ stat($0, &info) }) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG: return .regular
            case S_IFDIR: return .folder
            case S_IFBLK: return .blockDevice
            default: return .special
            }
        }
        var linkInfo = stat()
        if path.withCString({ lstat($0, &linkInfo) }) == 0 { return .danglingLink }
        return .missing
    }
}

extension _Sys {
    /// Whether `path` reaches its file through a link that lives in `/proc` (a "magic link" to an open file
    /// descriptor), and whose descriptor: `.some(N)` for this process's descriptor N, `.some(nil)` for another
    /// process's (or any other link in `/proc`), nil when no link on the way lives in `/proc`.
    ///
    /// Follows the chain of symbolic links one at a time (at most 40, as the kernel does), looking at the real
    /// folder of each link: `/dev/stdout` → `/proc/self/fd/1`, whose folder is `/proc/PID/fd` on procfs. Such a
    /// link names an open file however it was spelled (`/dev/fd/1`, a link of one's own, a link to the
    /// folder `/proc/self/fd`), and renaming a file over it would replace the link, not write the file.
    static func descriptorLink(_ path: String) -> Int32?? {
        #if os(Linux)
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard current.withCString({ lstat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFLNK else { return nil }
            let (folder, name) = _PathText.split(current)
            guard let realFolder = realPath(folder) else { return nil }
            if isProcfs(realFolder) { return .some(ownDescriptor(folder: realFolder, name: name)) }
            guard let target = readLink(current) else { return nil }
            current = target.hasPrefix("/") ? target : (realFolder == "/" ? "/" : realFolder + "/") + target
        }
        return nil
        #else
        // Elsewhere (macOS) /dev/fd/N and /dev/stdout are devices, written in place as such.
        return nil
        #endif
    }

    /// N when `folder` is `/proc/PID/fd` or `/proc/PID/task/TID/fd` of this process and `name` is a number.
    private static func ownDescriptor(folder: String, name: String) -> Int32? {
        let parts = folder.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.first == "proc", parts.last == "fd", parts.count == 3 || (parts.count == 5 && parts[2] == "task"),
              let pid = Int32(parts[1]), pid == getpid(), let fd = Int32(name), fd >= 0
        else { return nil }
        return fd
    }

    /// Whether `folder` is on the proc file system: the same device as `/proc/self/fd` (a bind mount of
    /// `/proc` elsewhere included).
    private static func isProcfs(_ folder: String) -> Bool {
        var info = stat()
        var proc = stat()
        guard folder.withCString({ stat($0, &info) }) == 0, stat("/proc/self/fd", &proc) == 0 else {
            return folder == "/proc" || folder.hasPrefix("/proc/")
        }
        return info.st_dev == proc.st_dev
    }

    /// `realpath(3)` of `path`, nil when it cannot be resolved.
    static func realPath(_ path: String) -> String? {
        guard let real = path.withCString({ realpath($0, nil) }) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// The text of the symbolic link at `path` (`readlink(2)`), nil when it is not one.
    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = path.withCString { readlink($0, &buffer, buffer.count - 1) }
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A duplicate of descriptor `fd` (close-on-exec), retried on `EINTR`.
    static func duplicate(_ fd: Int32) -> Result<Int32, _Errno> {
        while true {
            let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
            if copy >= 0 { return .success(copy) }
            let e = errno
            if e == EINTR { continue }
            return .failure(_Errno(e))
        }
    }
}

/// Paths as text, without Foundation (whose `deletingLastPathComponent` traps on a one-character name).
public enum _PathText {
    /// The folder that holds `path` and its last component: `a/b` → (`a`, `b`), `b` → (`.`, `b`), `/b` → (`/`,
    /// `b`). Slashes at the end are not a component (`a/b/` → (`a`, `b`)); repeated slashes count as one.
    public static func split(_ path: String) -> (folder: String, name: String) {
        var p = Substring(path)
        while p.count > 1 && p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return (".", String(p)) }
        let name = String(p[p.index(after: slash)...])
        var head = p[..<slash]
        while head.hasSuffix("/") { head = head.dropLast() }
        return (head.isEmpty ? "/" : String(head), name.isEmpty ? "/" : name)
    }

    /// The folder that holds `path` (see ``split(_:)``).
    public static func folder(of path: String) -> String { split(path).folder }

    /// The last component of `path` (see ``split(_:)``).
    public static func name(of path: String) -> String { split(path).name }
}

// The C functions under other names, since `_Sys`'s own `open`, `close`, … shadow them inside the enum.
@inline(__always) private func _cOpen(_ p: UnsafePointer<CChar>, _ f: Int32, _ m: mode_t) -> Int32 {
    open(p, f, m)
}
@inline(__always) private func _cClose(_ fd: Int32) -> Int32 { close(fd) }
@inline(__always) private func _cRename(_ a: UnsafePointer<CChar>, _ b: UnsafePointer<CChar>) -> Int32 {
    rename(a, b)
}
@inline(__always) private func _cUnlink(_ p: UnsafePointer<CChar>) -> Int32 { unlink(p) }
@inline(__always) private func _cLink(_ a: UnsafePointer<CChar>, _ b: UnsafePointer<CChar>) -> Int32 { link(a, b) }
@inline(__always) private func _cPread(_ fd: Int32, _ p: UnsafeMutableRawPointer?, _ n: Int, _ o: off_t) -> Int {
    pread(fd, p, n, o)
}
@inline(__always) private func _cGetpid() -> Int32 { getpid() }

// MARK: Fault injection (debug builds only)

#if DEBUG
/// Debug-only hooks that let tests force `read`/`write` failures (STYLE.md practice 10).
public enum _ZstdFaultInjection {
    nonisolated(unsafe) static var failReadsAfterBytes: Int? = nil
    nonisolated(unsafe) static var failWritesWithErrno: Int32? = nil
    nonisolated(unsafe) static var bytesRead = 0

    /// Makes every later `read` fail with `EIO` once `bytes` bytes have been read in total
    /// (nil switches it off). Not thread-safe: for single-threaded tests only.
    public static func failReads(afterBytes bytes: Int?) {
        failReadsAfterBytes = bytes
        bytesRead = 0
    }

    /// Makes every later `write` fail with `code` (nil switches it off).
    public static func failWrites(withErrno code: Int32?) { failWritesWithErrno = code }

    nonisolated(unsafe) static var failAllocationsOverBytes: Int? = nil

    /// Makes every later frame-buffer allocation larger than `bytes` fail, as `malloc` does when memory runs
    /// out (nil switches it off).
    public static func failAllocations(over bytes: Int?) { failAllocationsOverBytes = bytes }
}

/// `realloc(3)`, failing as ``_ZstdFaultInjection/failAllocations(over:)`` says.
@inline(__always)
func _reallocHook(_ pointer: UnsafeMutableRawPointer?, _ bytes: Int) -> UnsafeMutableRawPointer? {
    if let limit = _ZstdFaultInjection.failAllocationsOverBytes, bytes > limit { return nil }
    return realloc(pointer, bytes)
}

@inline(__always)
private func _readHook(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    if let limit = _ZstdFaultInjection.failReadsAfterBytes {
        let room = limit - _ZstdFaultInjection.bytesRead
        if room <= 0 {
            errno = EIO
            return -1
        }
        let n = read(fd, buffer.baseAddress, min(buffer.count, room))
        if n > 0 { _ZstdFaultInjection.bytesRead += n }
        return n
    }
    return read(fd, buffer.baseAddress, buffer.count)
}

@inline(__always)
private func _writeHook(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
    if let code = _ZstdFaultInjection.failWritesWithErrno {
        errno = code
        return -1
    }
    return write(fd, buffer.baseAddress, buffer.count)
}
#else
@inline(__always)
func _reallocHook(_ pointer: UnsafeMutableRawPointer?, _ bytes: Int) -> UnsafeMutableRawPointer? {
    realloc(pointer, bytes)
}

@inline(__always)
private func _readHook(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(fd, buffer.baseAddress, buffer.count)
}

@inline(__always)
private func _writeHook(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
    write(fd, buffer.baseAddress, buffer.count)
}
#endif

// MARK: libzstd

/// An owned `ZSTD_DCtx`. Not thread-safe: one per stream, or one per worker thread of a `_WorkerPool`
/// (`@unchecked Sendable` for that hand-over; never used by two threads at once).
final class _DContext: @unchecked Sendable {
    let ctx: OpaquePointer

    /// The window log a decoder allows for `maxWindowBytes`: its base-2 logarithm rounded down, from 10
    /// (1 KiB) to 31.
    static func windowLog(maxWindowBytes: Int) -> Int32 {
        max(10, min(31, Int32(Int.bitWidth - 1 - max(1024, maxWindowBytes).leadingZeroBitCount)))
    }

    init(windowLogMax: Int32) throws(ZstdError) {
        guard let ctx = ZSTD_createDCtx() else {
            throw ZstdError(.corrupt, detail: "ZSTD_createDCtx failed (out of memory)")
        }
        self.ctx = ctx
        let r = ZSTD_DCtx_setParameter(ctx, ZSTD_d_windowLogMax, windowLogMax)
        if ZSTD_isError(r) != 0 {
            ZSTD_freeDCtx(ctx)
            throw ZstdError(.encoderFailed, libzstdName: _Zstd.errorName(r), detail: "windowLogMax \(windowLogMax)")
        }
    }

    deinit { ZSTD_freeDCtx(ctx) }

    /// Resets the session after an error (the context is undefined until then).
    func reset() { _ = ZSTD_DCtx_reset(ctx, ZSTD_reset_session_only) }

    /// One `ZSTD_decompressStream` step. Returns libzstd's hint (0 = a frame just ended) or its error.
    @inline(__always)
    func decompress(
        _ output: inout ZSTD_outBuffer, _ input: inout ZSTD_inBuffer
    ) -> Result<Int, _LibzstdError> {
        let r = ZSTD_decompressStream(ctx, &output, &input)
        if ZSTD_isError(r) != 0 { return .failure(_LibzstdError(code: ZSTD_getErrorCode(r), name: _Zstd.errorName(r))) }
        return .success(r)
    }

    /// Decodes one whole frame (`ZSTD_decompressDCtx`) from `source` into `destination`; returns the
    /// decoded size. One pass, straight into `destination`: for frames whose decoded size is bounded.
    func decompressFrame(
        _ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer
    ) -> Result<Int, _LibzstdError> {
        let r = ZSTD_decompressDCtx(ctx, destination.baseAddress, destination.count, source.baseAddress, source.count)
        if ZSTD_isError(r) != 0 { return .failure(_LibzstdError(code: ZSTD_getErrorCode(r), name: _Zstd.errorName(r))) }
        return .success(r)
    }
}

/// An owned `ZSTD_CCtx`. Not thread-safe: one per stream, or one per worker thread of a `_WorkerPool`
/// (`@unchecked Sendable` for that hand-over; never used by two threads at once).
final class _CContext: @unchecked Sendable {
    let ctx: OpaquePointer

    /// - Parameter checksum: end every frame with the 32-bit XXH64 of its content (`ZSTD_c_checksumFlag`).
    init(level: Int32, workers: Int32, checksum: Bool = false) throws(ZstdError) {
        guard let ctx = ZSTD_createCCtx() else {
            throw ZstdError(.encoderFailed, detail: "ZSTD_createCCtx failed (out of memory)")
        }
        self.ctx = ctx
        var r = ZSTD_CCtx_setParameter(ctx, ZSTD_c_compressionLevel, level)
        if ZSTD_isError(r) == 0, workers > 0 {
            r = ZSTD_CCtx_setParameter(ctx, ZSTD_c_nbWorkers, workers)
        }
        if ZSTD_isError(r) == 0, checksum {
            r = ZSTD_CCtx_setParameter(ctx, ZSTD_c_checksumFlag, 1)
        }
        if ZSTD_isError(r) != 0 {
            ZSTD_freeCCtx(ctx)
            throw ZstdError(
                .encoderFailed, libzstdName: _Zstd.errorName(r), detail: "level \(level), workers \(workers)")
        }
    }

    deinit { ZSTD_freeCCtx(ctx) }

    /// One `ZSTD_compressStream2` step; `end` finishes the frame. Returns the bytes still to flush.
    @inline(__always)
    func compress(_ output: inout ZSTD_outBuffer, _ input: inout ZSTD_inBuffer, end: Bool) throws(ZstdError) -> Int {
        let r = ZSTD_compressStream2(ctx, &output, &input, end ? ZSTD_e_end : ZSTD_e_continue)
        if ZSTD_isError(r) != 0 { throw ZstdError(.encoderFailed, libzstdName: _Zstd.errorName(r)) }
        return r
    }

    /// Compresses `source` as one whole frame (`ZSTD_compress2`: its content size in the header, the
    /// parameters fitted to its size) into `destination`, which holds at least
    /// `_Zstd.compressBound(source.count)` bytes; returns the frame's size.
    func compressFrame(
        _ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer
    ) -> Result<Int, ZstdError> {
        let r = ZSTD_compress2(ctx, destination.baseAddress, destination.count, source.baseAddress, source.count)
        if ZSTD_isError(r) != 0 { return .failure(ZstdError(.encoderFailed, libzstdName: _Zstd.errorName(r))) }
        return .success(r)
    }
}

enum _Zstd {
    static func errorName(_ r: Int) -> String { String(cString: ZSTD_getErrorName(r)) }
    static var recommendedInputSize: Int { ZSTD_DStreamInSize() }
    static var recommendedOutputSize: Int { ZSTD_DStreamOutSize() }
    static var recommendedCompressOutputSize: Int { ZSTD_CStreamOutSize() }
    /// The largest frame `count` bytes can compress to (`ZSTD_compressBound`).
    static func compressBound(_ count: Int) -> Int { ZSTD_compressBound(count) }
    static let windowTooLargeCode = ZSTD_error_frameParameter_windowTooLarge
    static let checksumWrongCode = ZSTD_error_checksum_wrong
    static let frameMagic: UInt32 = 0xFD2F_B528
    static let skippableMagicStart: UInt32 = 0x184D_2A50
    static let skippableMagicMask: UInt32 = 0xFFFF_FFF0
    static var versionString: String { String(cString: ZSTD_versionString()) }
}

@inline(__always)
func ZSTD_inBufferShim(_ bytes: UnsafeRawBufferPointer) -> ZSTD_inBuffer {
    ZSTD_inBuffer(src: bytes.baseAddress, size: bytes.count, pos: 0)
}

@inline(__always)
func ZSTD_outBufferShim(_ bytes: UnsafeMutableRawBufferPointer) -> ZSTD_outBuffer {
    ZSTD_outBuffer(dst: bytes.baseAddress, size: bytes.count, pos: 0)
}

/// The version of the libzstd this module is linked with, e.g. "1.5.4".
public var zstdLibraryVersion: String { _Zstd.versionString }
