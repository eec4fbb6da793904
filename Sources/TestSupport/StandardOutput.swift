import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a child's standard output is (``Fixtures/run(_:_:stdin:environment:timeout:standardOutput:)``).
///
/// Behaviour that must not depend on the environment (the output guard's verdicts above all) is tested
/// under each: a command run from a terminal, in a pipeline, or with its output redirected to a file must
/// refuse and accept the same outputs.
public enum StandardOutput: String, CaseIterable, Sendable {
    /// A regular file in a scratch folder.
    case file
    /// A pipe, drained by a thread of the test process.
    case pipe
    /// A new pseudo-terminal (output processing off, so bytes arrive as written), drained likewise.
    case terminal
}

/// A new pseudo-terminal of `columns` columns with output processing off: its (master, slave)
/// descriptors, both close-on-exec.
///
/// - Throws: ``PseudoTerminalUnavailable`` when this machine cannot make one.
public func openPseudoTerminal(columns: UInt16 = 80) throws -> (master: Int32, slave: Int32) {
    #if os(Linux)
    // posix_openpt/grantpt/unlockpt/ptsname are not in Swift's Glibc module; these are what they do on
    // Linux: open the multiplexer, unlock the slave (TIOCSPTLCK), ask its number (TIOCGPTN). The request
    // numbers are _IOW('T', 0x31, int) and _IOR('T', 0x30, unsigned), the same on every Linux ABI that
    // Swift supports.
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard master >= 0 else { throw PseudoTerminalUnavailable(reason: "cannot open the multiplexer: \(String(cString: strerror(errno)))") }
    var unlock: Int32 = 0
    var number: UInt32 = 0
    guard ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0 else {
        close(master)
        throw PseudoTerminalUnavailable(reason: "cannot unlock a pseudo-terminal")
    }
    let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
    #else
    let master = posix_openpt(O_RDWR | O_NOCTTY)
    guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else {
        throw PseudoTerminalUnavailable(reason: "no pseudo-terminal here")
    }
    _ = fcntl(master, F_SETFD, FD_CLOEXEC)
    let slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
    #endif
    guard slave >= 0 else {
        close(master)
        throw PseudoTerminalUnavailable(reason: "cannot open the pseudo-terminal's slave")
    }
    var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(slave, UInt(TIOCSWINSZ), &size)
    var modes = termios()
    tcgetattr(slave, &modes)
    modes.c_oflag &= ~tcflag_t(OPOST)
    tcsetattr(slave, TCSANOW, &modes)
    return (master, slave)
}

/// This machine cannot make a pseudo-terminal.
public struct PseudoTerminalUnavailable: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { "no pseudo-terminal: \(reason)" }
}

/// The test process's end of a child's standard output: what to hand the child, and a thread that reads
/// everything it writes (a pipe or a terminal that nobody reads would block the child).
final class _StandardOutputDrain: @unchecked Sendable {
    /// What the child gets as its standard output.
    let childEnd: FileHandle
    private let kind: StandardOutput
    private let readFD: Int32
    private let childFD: Int32
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    // Guarded by `lock`.
    private var data = Data()

    /// - Parameter file: the scratch file that `.file` writes into.
    init(_ kind: StandardOutput, file: FileHandle) throws {
        self.kind = kind
        switch kind {
        case .file:
            childEnd = file
            readFD = -1
            childFD = -1
        case .pipe:
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { throw PseudoTerminalUnavailable(reason: "pipe failed") }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            readFD = fds[0]
            childFD = fds[1]
            childEnd = FileHandle(fileDescriptor: fds[1], closeOnDealloc: false)
        case .terminal:
            let (master, slave) = try openPseudoTerminal()
            readFD = master
            childFD = slave
            childEnd = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        }
    }

    /// The child is running: close this process's copy of the child's end (so that reading ends when the
    /// child's copies close) and start reading.
    func started() {
        guard kind != .file else { return }
        close(childFD)
        let fd = readFD
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                // A terminal's master reads EIO once every slave descriptor is closed: the end.
                if n <= 0 { break }
                lock.lock()
                data.append(contentsOf: buffer[0..<n])
                lock.unlock()
            }
            close(fd)
            done.signal()
        }
    }

    /// The child could not start.
    func abandon() {
        guard kind != .file else { return }
        close(childFD)
        close(readFD)
    }

    /// Waits (at most `seconds`) for the reading to end; returns what was read, nil for `.file`.
    func finish(seconds: Double) -> Data? {
        guard kind != .file else { return nil }
        _ = done.wait(timeout: .now() + seconds)
        lock.lock()
        defer { lock.unlock() }
        return data
    }
}
