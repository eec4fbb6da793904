import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Stand-ins for the machine's special files, made in a test's own temporary folder.
///
/// A test never names a real system file as something a command may write or replace: a mutated or broken
/// output guard could rename a file over it, and the machine would lose its standard output for every
/// process after (`Scripts/check-test-paths.sh` fails `make test` on such a name in `Tests/` or here).
/// Each stand-in behaves as the system file does for the code under test, and a bug can only damage the
/// stand-in.
public enum StandIn {
    /// A symbolic link named `name` in `folder` to the standard output of whichever process opens it, as
    /// the system's standard-output link is: for a child run by ``Fixtures/run(_:_:stdin:environment:timeout:standardOutput:)``
    /// it reaches the child's standard output (a file, a pipe or a terminal).
    public static func standardOutputLink(in folder: URL, name: String = "stdout") throws -> String {
        let link = folder.appendingPathComponent(name).path
        #if os(Linux)
        let target = "/proc/self/fd/1"
        #else
        let target = "/dev/fd/1"
        #endif
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        return link
    }

    /// A character device in `folder` that answers every write with `ENOSPC` (Linux's memory device 1:7,
    /// the "full" device), or nil where this process may not make device nodes (not root, not Linux).
    public static func fullDevice(in folder: URL, name: String = "full") -> String? {
        memoryDevice(minor: 7, in: folder, name: name)
    }

    /// A character device in `folder` that swallows every write (Linux's memory device 1:3, the "null"
    /// device), or nil where this process may not make device nodes. Unlike the system's, two outputs
    /// naming it are refused as one device written twice.
    public static func nullDevice(in folder: URL, name: String = "null") -> String? {
        memoryDevice(minor: 3, in: folder, name: name)
    }

    private static func memoryDevice(minor: UInt32, in folder: URL, name: String) -> String? {
        #if os(Linux)
        let path = folder.appendingPathComponent(name).path
        // Linux's encoding of a device number (sys/sysmacros.h `makedev`) for major 1: (1 << 8) | minor.
        let device = dev_t((1 << 8) | minor)
        guard mknod(path, mode_t(S_IFCHR) | 0o666, device) == 0 else { return nil }
        // A node the device cgroup does not let this process open is no stand-in.
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            unlink(path)
            return nil
        }
        close(fd)
        return path
        #else
        return nil
        #endif
    }
}
