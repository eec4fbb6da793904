import Foundation
import TestSupport
import XCTest

/// The prologue of the tests that make zstd files on disk (FrameIndexTests, ParallelDecoderTests): a
/// temporary folder per test, named after the class, and helpers to write bytes, run the zstd CLI (the
/// oracle) and build skippable frames.
class ZstdFileTestCase: XCTestCase {
    /// This test's temporary folder (removed after the test).
    var folder: URL!

    override func setUpWithError() throws { folder = try Fixtures.temporaryFolder(String(describing: type(of: self))) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    /// A path in this test's folder.
    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Writes `bytes` to `name` in this test's folder; returns its path.
    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    /// What `zstd -q ARGS` writes on standard output (it must succeed).
    func zstdCLI(_ args: [String], stdin: Data? = nil) throws -> [UInt8] {
        let result = try Fixtures.run("zstd", ["-q"] + args, stdin: stdin)
        XCTAssertEqual(result.status, 0, String(decoding: result.stderr, as: UTF8.self))
        return Array(result.stdout)
    }

    /// A skippable frame (magic 0x184D2A50 + `variant`) holding `payload`.
    func skippable(_ payload: [UInt8], variant: UInt32 = 0) -> [UInt8] {
        var frame: [UInt8] = []
        withUnsafeBytes(of: (0x184D_2A50 + variant).littleEndian) { frame += $0 }
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { frame += $0 }
        return frame + payload
    }
}
