import Foundation
import TestSupport
import XCTest

@testable import ArchiveIO

/// gzip outputs (issue 21 item 7) and the memory of large seekable frames (item 4).
final class OutputCompressionTests: TemporaryFolderTestCase {
    override func tearDownWithError() throws {
        _ZstdFaultInjection.failAllocations(over: nil)
        _ZstdFaultInjection.failWrites(withErrno: nil)
        try super.tearDownWithError()
    }

    /// Text that compresses like records do, `count` bytes.
    static func text(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 200)
        var i = 0
        while out.count < count {
            out += Array("{\"id\": \(i), \"body\": \"Rs \(i &* 7919 % 100_003) debited from a/c XX\(i % 97) ส่วนลด 🎉\"}\n".utf8)
            i += 1
        }
        return Array(out.prefix(count))
    }

    /// `--level 1` and `--level 9` reach zlib: the gzip header's XFL byte says so (RFC 1952: 4 for the fastest
    /// level, 2 for the best), the best level writes fewer bytes of compressible text, and both read back.
    func testGzipLevelsOneAndNineGiveDifferentBytes() throws {
        let expected = Self.text(1 << 20)
        var sizes: [Int32: Int] = [:]
        for (level, xfl) in [(Int32(1), UInt8(4)), (Int32(9), UInt8(2))] {
            let path = folder.appendingPathComponent("level\(level).jsonl.gz").path
            let file = try OutputFile(path: path, compression: .gzip(level: level))
            try file.write(expected)
            try file.finish()
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            XCTAssertEqual(Array(bytes.prefix(3)), [0x1F, 0x8B, 8], "a gzip member, deflate")
            XCTAssertEqual(bytes[8], xfl, "XFL of level \(level)")
            let oracle = try Fixtures.run("gzip", ["-dc", path])
            XCTAssertTrue(Array(oracle.stdout) == expected, "level \(level) reads back")
            sizes[level] = bytes.count
        }
        XCTAssertLessThan(sizes[9]!, sizes[1]!, "level 9 compresses more than level 1")
    }

    /// `gzip -dc` (the oracle) reads back exactly what was written, at every level and size, written in pieces
    /// of several sizes; the same input and level give the same bytes; our own decoder agrees.
    func testGzipOutputIsWhatGzipReadsBack() throws {
        let path = folder.appendingPathComponent("out.jsonl.gz").path
        for size in [0, 1, 4095, 100_000, 3 << 20] {
            let expected = Self.text(size)
            for level: Int32 in [1, 6, 9] {
                var written: [Data] = []
                for piece in [1 << 20, 777] where size < 200_000 || piece > 1000 {
                    try? FileManager.default.removeItem(atPath: path)
                    let file = try OutputFile(path: path, compression: .gzip(level: level))
                    var offset = 0
                    while offset < expected.count {
                        let end = min(expected.count, offset + piece)
                        try file.write(Array(expected[offset..<end]))
                        offset = end
                    }
                    XCTAssertFalse(FileManager.default.fileExists(atPath: path), "visible before finish")
                    try file.finish()
                    let oracle = try Fixtures.run("gzip", ["-dc", path])
                    XCTAssertEqual(oracle.status, 0, "gzip -dc of \(size) bytes at level \(level)")
                    XCTAssertTrue(Array(oracle.stdout) == expected, "\(size) bytes at level \(level): gzip -dc differs")
                    let decoder = try GzipDecoder(path: path)
                    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: expected.count + 1, alignment: 1)
                    defer { buffer.deallocate() }
                    let n = try decoder.readFully(into: buffer)
                    XCTAssertTrue(Array(buffer[..<n]) == expected, "GzipDecoder reads it back")
                    written.append(try Data(contentsOf: URL(fileURLWithPath: path)))
                }
                XCTAssertEqual(Set(written).count, 1, "the same bytes whatever the write sizes")
            }
        }
        XCTAssertEqual(try listing(), ["out.jsonl.gz"], "no temporary file left")
    }

    func testAGzipOutputThatCannotBeWrittenLeavesNothing() throws {
        let path = folder.appendingPathComponent("out.jsonl.gz").path
        let file = try OutputFile(path: path, compression: .gzip(level: 1))
        _ZstdFaultInjection.failWrites(withErrno: ENOSPC)
        XCTAssertThrowsError(try { for _ in 0..<64 { try file.write(Self.text(64 << 10)) }; try file.finish() }()) { error in
            XCTAssertTrue("\(error)".contains("out.jsonl.gz"), "\(error)")
        }
        _ZstdFaultInjection.failWrites(withErrno: nil)
        XCTAssertEqual(try listing(), [])
    }

    func testOutputNamesSayTheirCompression() {
        for (name, expected) in [
            ("a.jsonl.gz", OutputFile.NamedCompression.gzip), ("A.CSV.GZ", .gzip), ("a.zst", .zstd), ("a.ZST", .zstd),
            ("a.jsonl", .none), ("gz", .none), ("a.gzip", .none), ("a.tgz", .none), ("-", .none),
        ] {
            XCTAssertEqual(OutputFile.compression(namedBy: name), expected, name)
        }
    }

    /// `--frame-size 1G` allocated 1 GiB (and its compressed bound) per compression worker up front and
    /// aborted where that much memory could not be had, leaving a 0-byte temporary file.
    func testLargeFramesHoldBoundedMemoryAndFailCleanly() throws {
        // Workers are cut so that the frames held stay within 256 MiB (at least one frame).
        XCTAssertEqual(ZstdSeekableEncoder.workers(8, frameSize: 4 << 20), 8)
        XCTAssertEqual(ZstdSeekableEncoder.workers(8, frameSize: 64 << 20), 3)
        XCTAssertEqual(ZstdSeekableEncoder.workers(8, frameSize: 256 << 20), 0)
        XCTAssertEqual(ZstdSeekableEncoder.workers(64, frameSize: 1 << 30), 0)
        // A small output with 1 GiB frames costs what it writes, and the bytes do not depend on the workers.
        let expected = Self.text(300_000)
        var outputs: [Data] = []
        for workers: Int32 in [0, 8] {
            let path = folder.appendingPathComponent("big-\(workers).zst").path
            let file = try OutputFile(path: path, compression: .zstd(level: 1, workers: workers, frameSize: 1 << 30))
            try file.write(expected)
            try file.finish()
            let oracle = try Fixtures.run("zstd", ["-dc", path])
            XCTAssertEqual(oracle.status, 0)
            XCTAssertTrue(Array(oracle.stdout) == expected)
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        XCTAssertEqual(outputs[0], outputs[1])
        // A frame buffer that cannot be had is an error naming the file, and nothing is left behind.
        let path = folder.appendingPathComponent("fails.jsonl.zst").path
        _ZstdFaultInjection.failAllocations(over: 1 << 20)
        let file = try OutputFile(path: path, compression: .zstd(level: 1, workers: 2, frameSize: 16 << 20))
        XCTAssertThrowsError(try file.write(Self.text(3 << 20))) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("fails.jsonl.zst") && text.contains("cannot allocate") && text.contains("smaller frame size"), text)
        }
        XCTAssertThrowsError(try file.finish(), "the file stays failed")
        _ZstdFaultInjection.failAllocations(over: nil)
        let left = try listing()
        XCTAssertFalse(left.contains { $0.contains("fails") }, "no temporary file, no output: \(left)")
    }
}
