import Foundation
import TestSupport
import XCTest

@testable import ArchiveIO

final class OutputFileTests: TemporaryFolderTestCase {
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
        // A full device answers every write with ENOSPC: no fault injection needed (a private one, made in
        // this test's folder).
        guard let full = StandIn.fullDevice(in: folder) else { throw XCTSkip("this process may not make a device node") }
        let fd = open(full, O_WRONLY)
        guard fd >= 0 else { throw XCTSkip("the full device cannot be opened") }
        defer { close(fd) }
        let encoder = try ZstdEncoder(fileDescriptor: fd, level: 1)
        XCTAssertThrowsError(
            try Deadline.run("100 MB through an encoder into a full device") {
                for _ in 0..<1000 { try Array(repeating: UInt8(7), count: 100_000).withUnsafeBytes { try encoder.write($0) } }
                try encoder.finish()
            }
        ) { error in
            XCTAssertEqual((error as? ZstdError)?.errno, ENOSPC)
        }
    }
}

/// Devices and FIFOs are written in place, never replaced by a rename. On private stand-ins made in the
/// test's folder (a null and a full device where this process may make device nodes, a FIFO always), so
/// that a broken `OutputFile` can only replace those.
final class OutputFileSpecialFileTests: TemporaryFolderTestCase {
    func assertStill(_ path: String, _ kind: mode_t, file: StaticString = #filePath, line: UInt = #line) {
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0, path, file: file, line: line)
        XCTAssertEqual(info.st_mode & S_IFMT, kind, "\(path) must still be what it was", file: file, line: line)
    }

    func testDevicesAreWrittenInPlaceNeverReplaced() throws {
        if let null = StandIn.nullDevice(in: folder) {
            let file = try OutputFile(path: null, compression: .zstd(level: 1, workers: 0))
            try file.write("discarded")
            try OutputFileTests.finish(file, null)
            assertStill(null, S_IFCHR)
        } else {
            print("OutputFileSpecialFileTests: no device node can be made here; the FIFO is checked")
        }
        if let full = StandIn.fullDevice(in: folder) {
            let file = try OutputFile(path: full)
            XCTAssertThrowsError(try file.write(Array(repeating: UInt8(1), count: 1 << 16))) { error in
                XCTAssertEqual((error as? ZstdError)?.errno, ENOSPC)
            }
            assertStill(full, S_IFCHR)
        }
        // A FIFO, drained by a thread: written in place, and what went in comes out.
        let fifo = folder.appendingPathComponent("fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let drained = _Drained()
        Thread.detachNewThread {
            drained.set(FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data())
        }
        let file = try OutputFile(path: fifo)
        try file.write("through the fifo")
        try OutputFileTests.finish(file, fifo)
        XCTAssertEqual(drained.wait(seconds: Deadline.scaled(30)), Data("through the fifo".utf8))
        assertStill(fifo, S_IFIFO)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }, [], "no temporary file")
    }
}

/// What a reader thread got.
final class _Drained: @unchecked Sendable {
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var data: Data?
    func set(_ d: Data) {
        lock.lock()
        data = d
        lock.unlock()
        done.signal()
    }
    func wait(seconds: Double) -> Data? {
        _ = done.wait(timeout: .now() + seconds)
        lock.lock()
        defer { lock.unlock() }
        return data
    }
}
