import Foundation
import TestSupport
import XCTest

@testable import ArchiveIO

/// The `zstd` command-line tool is the oracle: what it writes we must decode to the same bytes, what we
/// write it must decode.
final class ZstdDecoderTests: TemporaryFolderTestCase {
    // MARK: Helpers

    /// Deterministic, compressible, text-like bytes with some binary noise.
    func sampleBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] { codecSample(count, seed: seed) }

    /// Runs `zstd ARGS` and fails the test when it fails.
    func zstdCLI(_ args: [String]) throws {
        let result = try Fixtures.run("zstd", ["-q"] + args)
        XCTAssertEqual(result.status, 0, String(decoding: result.stderr, as: UTF8.self))
    }

    /// Decodes a whole file with our decoder, `chunk` bytes at a time.
    func decodeAll(_ path: String, chunk: Int = 64 * 1024, options: ZstdDecoder.Options = .init()) throws -> [UInt8] {
        let decoder = try ZstdDecoder(path: path, options: options)
        return try drain(decoder, chunk: chunk).bytes
    }

    /// Reads until the end or an error; returns every byte handed out and the error.
    /// (On a thread of its own with a time limit: a decoder that never reaches the end fails the test.)
    func drain(_ decoder: ZstdDecoder, chunk: Int) throws -> (bytes: [UInt8], error: ZstdError?) {
        try drainWithDeadline("ZstdDecoder", chunk: chunk, decoder.read(into:))
    }

    // MARK: Decoding what the zstd CLI wrote

    func testSingleFrameLevels1And19AndLong() throws {
        let data = sampleBytes(3 << 20)
        let plain = try write("plain.bin", data)
        for (name, args) in [("l1", ["-1"]), ("l19", ["-19"]), ("long", ["--long=27", "-3"])] {
            let out = folder.appendingPathComponent("\(name).zst").path
            try zstdCLI(args + ["-f", plain, "-o", out])
            for chunk in [1, 7, 4096, 1 << 20] where chunk > 1 || name == "l1" {
                let decoded = try decodeAll(out, chunk: chunk)
                XCTAssertEqual(decoded.count, data.count, "\(name) chunk \(chunk)")
                XCTAssertTrue(decoded == data, "\(name) chunk \(chunk): bytes differ")
            }
        }
    }

    func testConcatenatedFramesAndSkippableFrames() throws {
        var expected: [UInt8] = []
        var archive: [UInt8] = []
        // A skippable frame first, as some parallel compressors write.
        archive += skippableFrame(payload: Array("index".utf8), variant: 0)
        for i in 0..<5 {
            let part = sampleBytes(100_000 + i * 1000, seed: UInt64(i + 10))
            expected += part
            let plain = try write("part\(i)", part)
            try zstdCLI(["-\(i + 1)", "-f", plain, "-o", plain + ".zst"])
            archive += try Array(Data(contentsOf: URL(fileURLWithPath: plain + ".zst")))
            archive += skippableFrame(payload: sampleBytes(i * 10, seed: 99), variant: UInt32(i))
        }
        let url = try write("multi.zst", archive)
        XCTAssertTrue(try decodeAll(url) == expected)
        // The oracle agrees.
        let oracle = try Fixtures.run("zstd", ["-dc", url])
        XCTAssertEqual(oracle.status, 0)
        XCTAssertTrue(Array(oracle.stdout) == expected)
    }

    func skippableFrame(payload: [UInt8], variant: UInt32) -> [UInt8] {
        var frame: [UInt8] = []
        withUnsafeBytes(of: (0x184D_2A50 + variant).littleEndian) { frame += $0 }
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { frame += $0 }
        return frame + payload
    }

    func testStdinAndBareDescriptor() throws {
        let data = sampleBytes(200_000)
        let plain = try write("p", data)
        try zstdCLI(["-f", plain, "-o", plain + ".zst"])
        let fd = open(plain + ".zst", O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let decoder = try ZstdDecoder(fileDescriptor: fd)
        let (bytes, error) = try drain(decoder, chunk: 10_000)
        XCTAssertNil(error)
        XCTAssertTrue(bytes == data)
        XCTAssertEqual(decoder.isCompressed, true)
    }

    // MARK: Plain and empty input

    func testPlainInputPassesThrough() throws {
        for size in [1, 3, 4, 5, 131_072, 500_001] {
            let data = sampleBytes(size, seed: UInt64(size))
            let url = try write("plain-\(size)", data)
            for chunk in [1, 1000, 1 << 20] {
                let decoder = try ZstdDecoder(path: url)
                let (bytes, error) = try drain(decoder, chunk: chunk)
                XCTAssertNil(error)
                XCTAssertTrue(bytes == data, "size \(size) chunk \(chunk)")
                XCTAssertEqual(decoder.isCompressed, false)
            }
        }
    }

    func testEmptyInput() throws {
        let url = try write("empty", [])
        let decoder = try ZstdDecoder(path: url)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        XCTAssertEqual(try decoder.read(into: buffer), 0)
        XCTAssertEqual(try decoder.read(into: buffer), 0)
        // An empty zstd frame is an empty stream too.
        try zstdCLI(["-f", url, "-o", url + ".zst"])
        XCTAssertEqual(try decodeAll(url + ".zst"), [])
    }

    func testMissingFileIsFileFailedNamingThePath() throws {
        XCTAssertThrowsError(try ZstdDecoder(path: folder.appendingPathComponent("nope.zst").path)) { error in
            let error = error as! ZstdError
            XCTAssertEqual(error.code, .fileFailed)
            XCTAssertEqual(error.errno, ENOENT)
            XCTAssertTrue(error.description.contains("nope.zst"), error.description)
        }
    }

    // MARK: Damage

    func testTruncationAtManyOffsetsDeliversEveryCompleteByte() throws {
        let data = sampleBytes(400_000, seed: 5)
        let plain = try write("t", data)
        try zstdCLI(["-3", "-f", plain, "-o", plain + ".zst"])
        let archive = try Array(Data(contentsOf: URL(fileURLWithPath: plain + ".zst")))
        var cuts = Set(stride(from: 1, to: archive.count, by: max(1, archive.count / 60)))
        cuts.formUnion([1, 2, 3, 4, 5, 6, 10, archive.count - 1, archive.count - 4])
        for cut in cuts.sorted() {
            let url = try write("cut", Array(archive[..<cut]))
            let decoder = try ZstdDecoder(path: url)
            let (bytes, error) = try drain(decoder, chunk: 8192)
            // What the oracle recovers from the same bytes is the most anyone can deliver.
            let oracle = try Fixtures.run("zstd", ["-dc", url])
            XCTAssertNotEqual(oracle.status, 0)
            if cut >= 4 {
                XCTAssertTrue(data.starts(with: bytes), "cut \(cut): delivered bytes are not a prefix")
                XCTAssertEqual(error?.code, .truncated, "cut \(cut): \(String(describing: error))")
                XCTAssertEqual(error?.offset, Int64(cut), "cut \(cut)")
                XCTAssertGreaterThanOrEqual(bytes.count, oracle.stdout.count, "cut \(cut): oracle recovered more")
            } else {
                // Fewer than 4 bytes cannot be recognised as zstd: they pass through as plain bytes.
                XCTAssertNil(error)
                XCTAssertEqual(bytes, Array(archive[..<cut]))
            }
        }
    }

    func testFlippedBytesNeverCrash() throws {
        let data = sampleBytes(60_000, seed: 7)
        let plain = try write("f", data)
        try zstdCLI(["-19", "--check", "-f", plain, "-o", plain + ".zst"])
        let archive = try Array(Data(contentsOf: URL(fileURLWithPath: plain + ".zst")))
        var rng = Fixtures.SeededGenerator(seed: 3)
        var positions = Array(4..<min(archive.count, 64))  // every header byte
        for _ in 0..<150 { positions.append(4 + Int(rng.next() % UInt64(archive.count - 4))) }
        var errors = 0
        for position in positions {
            var damaged = archive
            damaged[position] ^= UInt8(1 << (rng.next() % 8))
            let url = try write("flip", damaged)
            let (bytes, error) = try drain(try ZstdDecoder(path: url), chunk: 4096)
            if let error {
                errors += 1
                XCTAssertTrue([.corrupt, .truncated, .windowTooLarge].contains(error.code), "\(error)")
                XCTAssertNotNil(error.offset)
                if error.code == .corrupt { XCTAssertNotNil(error.libzstdName) }
            } else {
                // Undetected damage can only happen where the checksum does not cover it.
                XCTAssertEqual(bytes.count, data.count, "flip at \(position) decoded without error but changed length")
            }
        }
        XCTAssertGreaterThan(errors, positions.count / 2)
    }

    func testGarbageAfterFrameIsCorruptAfterDeliveringTheFrame() throws {
        let data = sampleBytes(10_000)
        let plain = try write("g", data)
        try zstdCLI(["-f", plain, "-o", plain + ".zst"])
        let archive = try Array(Data(contentsOf: URL(fileURLWithPath: plain + ".zst"))) + Array("not zstd at all".utf8)
        let url = try write("g2", archive)
        let (bytes, error) = try drain(try ZstdDecoder(path: url), chunk: 1 << 16)
        XCTAssertTrue(bytes == data)
        XCTAssertEqual(error?.code, .corrupt)
        XCTAssertEqual(error?.libzstdName, "Unknown frame descriptor")
        XCTAssertTrue(error!.description.contains((url as NSString).lastPathComponent), error!.description)
    }

    func testWindowCap() throws {
        // 8 MiB of incompressible-ish data at --long=23 needs an 8 MiB window.
        let data = sampleBytes(8 << 20, seed: 11)
        let plain = try write("w", data)
        try zstdCLI(["-3", "--long=23", "-f", plain, "-o", plain + ".zst"])
        let url = plain + ".zst"
        let (_, error) = try drain(try ZstdDecoder(path: url, options: .init(maxWindowBytes: 1 << 20)), chunk: 1 << 16)
        XCTAssertEqual(error?.code, .windowTooLarge)
        XCTAssertTrue(error!.description.contains("cap"), error!.description)
        // Under the default cap the same file decodes.
        XCTAssertTrue(try decodeAll(url) == data)
    }

    func testReadFailureAfterDeliveredBytes() throws {
        #if DEBUG
        let data = sampleBytes(300_000)
        let url = try write("r", data)
        _ZstdFaultInjection.failReads(afterBytes: 150_000)
        defer { _ZstdFaultInjection.failReads(afterBytes: nil) }
        let (bytes, error) = try drain(try ZstdDecoder(path: url), chunk: 50_000)
        XCTAssertEqual(error?.code, .readFailed)
        XCTAssertEqual(error?.errno, EIO)
        XCTAssertEqual(bytes.count, 150_000)
        XCTAssertTrue(data.starts(with: bytes))
        #else
        throw XCTSkip("fault injection exists in debug builds only")
        #endif
    }
}
