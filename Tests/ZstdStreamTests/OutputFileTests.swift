import Foundation
import TestSupport
import XCTest

@testable import ZstdStream

final class OutputFileTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws { folder = try Fixtures.temporaryFolder("outfile-tests") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() }

    /// `file.finish()` with a time limit (a frame that never ends must fail the test, not hang it).
    static func finish(_ file: OutputFile, _ what: String) throws {
        try Deadline.run("OutputFile.finish of \(what)", seconds: 60) { try file.finish() }
    }

    func testCompressedFileDecodesWithTheCLIAndAppearsOnlyWhenFinished() throws {
        let path = folder.appendingPathComponent("out.jsonl.zst").path
        for workers in [Int32(0), 2] {
            try? FileManager.default.removeItem(atPath: path)
            var expected: [UInt8] = []
            let file = try OutputFile(path: path, compression: .zstd(level: 3, workers: workers))
            for i in 0..<20_000 {
                let line = "{\"id\": \(i), \"body\": \"Rs \(i * 37) debited from a/c XX\(i % 97) ส่วนลด\"}\n"
                expected += Array(line.utf8)
                try file.write(line)
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "visible before finish")
            XCTAssertEqual(try listing().count, 1)
            try Self.finish(file, "20,000 lines (\(workers) workers)")
            let oracle = try Fixtures.run("zstd", ["-dc", path])
            XCTAssertEqual(oracle.status, 0)
            XCTAssertTrue(Array(oracle.stdout) == expected)
            XCTAssertEqual(try listing(), ["out.jsonl.zst"])
            // And our own decoder reads it back.
            let decoder = try ZstdDecoder(path: path)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: expected.count + 1, alignment: 1)
            defer { buffer.deallocate() }
            XCTAssertEqual(try decoder.readFully(into: buffer), expected.count)
        }
    }

    func testPlainFileAndAbandon() throws {
        let path = folder.appendingPathComponent("plain.txt").path
        let file = try OutputFile(path: path)
        try file.write("hello\n")
        file.abandon()
        XCTAssertEqual(try listing(), [], "abandon leaves nothing")
        do {
            let unfinished = try OutputFile(path: path)
            try unfinished.write("half")
        }  // deallocated unfinished
        XCTAssertEqual(try listing(), [], "an unfinished file is removed")
        let done = try OutputFile(path: path)
        try done.write([104, 105])
        try Self.finish(done, "a plain file")
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "hi")
    }

    func testUnwritableFolderNamesThePath() throws {
        let path = folder.appendingPathComponent("no/such/folder/out.json").path
        XCTAssertThrowsError(try OutputFile(path: path)) { error in
            let error = error as! ZstdError
            XCTAssertEqual(error.code, .fileFailed)
            XCTAssertEqual(error.errno, ENOENT)
            XCTAssertTrue(error.description.contains("out.json"))
        }
    }

    func testFullDiskLeavesNoFileThatLooksComplete() throws {
        #if DEBUG
        let path = folder.appendingPathComponent("full.zst").path
        let file = try OutputFile(path: path, compression: .zstd(level: 1, workers: 0))
        try file.write("first line\n")
        _ZstdFaultInjection.failWrites(withErrno: ENOSPC)
        defer { _ZstdFaultInjection.failWrites(withErrno: nil) }
        var failure: ZstdError?
        do {
            try Deadline.run("10 MB written to a full disk") {
                for _ in 0..<10_000 { try file.write(String(repeating: "x", count: 1000)) }
                try file.finish()
            }
        } catch {
            failure = error as? ZstdError
        }
        XCTAssertEqual(failure?.code, .writeFailed)
        XCTAssertEqual(failure?.errno, ENOSPC)
        XCTAssertTrue(failure!.description.contains("No space left"), failure!.description)
        XCTAssertEqual(try listing(), [])
        XCTAssertThrowsError(try file.finish())
        #else
        throw XCTSkip("fault injection exists in debug builds only")
        #endif
    }

    func testRealFullDeviceThroughAnEncoder() throws {
        // /dev/full answers every write with ENOSPC: no fault injection needed.
        let fd = open("/dev/full", O_WRONLY)
        guard fd >= 0 else { throw XCTSkip("/dev/full is not available") }
        defer { close(fd) }
        let encoder = try ZstdEncoder(fileDescriptor: fd, level: 1)
        XCTAssertThrowsError(
            try Deadline.run("100 MB through an encoder into /dev/full") {
                for _ in 0..<1000 { try Array(repeating: UInt8(7), count: 100_000).withUnsafeBytes { try encoder.write($0) } }
                try encoder.finish()
            }
        ) { error in
            XCTAssertEqual((error as? ZstdError)?.errno, ENOSPC)
        }
    }
}

final class OutputFileSpecialFileTests: XCTestCase {
    func testDevicesAreWrittenInPlaceNeverReplaced() throws {
        let file = try OutputFile(path: "/dev/null", compression: .zstd(level: 1, workers: 0))
        try file.write("discarded")
        try OutputFileTests.finish(file, "/dev/null")
        var info = stat()
        XCTAssertEqual(stat("/dev/null", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFCHR, "/dev/null must still be a character device")
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let full = try OutputFile(path: "/dev/full")
        XCTAssertThrowsError(try full.write(Array(repeating: UInt8(1), count: 1 << 16))) { error in
            XCTAssertEqual((error as? ZstdError)?.errno, ENOSPC)
        }
        XCTAssertEqual(stat("/dev/full", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFCHR, "/dev/full must still be a character device")
    }
}
