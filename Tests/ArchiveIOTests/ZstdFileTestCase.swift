import Foundation
import TestSupport
import XCTest

@testable import ArchiveIO

/// The prologue of the tests that make zstd files on disk (FrameIndexTests, ParallelDecoderTests): a
/// temporary folder per test, named after the class, and helpers to write bytes, run the zstd CLI (the
/// oracle) and build skippable frames.
class ZstdFileTestCase: TemporaryFolderTestCase {
    /// What `zstd -q ARGS` writes on standard output (it must succeed).
    func zstdCLI(_ args: [String], stdin: Data? = nil) throws -> [UInt8] {
        let result = try Fixtures.run("zstd", ["-q"] + args, stdin: stdin)
        XCTAssertEqual(result.status, 0, String(decoding: result.stderr, as: UTF8.self))
        return Array(result.stdout)
    }

    /// `data` written to `name` in this test's folder as a seekable zstd archive of 64 KiB frames (level 3, no
    /// workers); returns its path.
    func seekableArchive(_ name: String, _ data: [UInt8]) throws -> String {
        let target = path(name)
        let file = try OutputFile(path: target, compression: .zstd(level: 3, workers: 0, frameSize: 64 << 10))
        try data.withUnsafeBytes { try file.write($0) }
        try file.finish()
        return target
    }

    /// A skippable frame (magic 0x184D2A50 + `variant`) holding `payload`.
    func skippable(_ payload: [UInt8], variant: UInt32 = 0) -> [UInt8] {
        var frame: [UInt8] = []
        withUnsafeBytes(of: (0x184D_2A50 + variant).littleEndian) { frame += $0 }
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { frame += $0 }
        return frame + payload
    }
}

/// Reads with `read` into a `chunk`-byte buffer until the end or an error; returns every byte handed out and
/// the error. (On a thread of its own with a time limit: a decoder that never reaches the end fails the test;
/// a read that returns more than the buffer holds fails it too.)
func drainWithDeadline(_ decoder: String, chunk: Int, _ read: @escaping (UnsafeMutableRawBufferPointer) throws -> Int)
    throws -> (bytes: [UInt8], error: ZstdError?)
{
    let (bytes, error, largest) = try Deadline.run("\(decoder).read until the end (\(chunk)-byte reads)") {
        readToEnd(chunk: chunk, read)
    }
    XCTAssertLessThanOrEqual(largest, chunk, "a read returned more than the buffer holds")
    return (bytes, error as? ZstdError)
}
