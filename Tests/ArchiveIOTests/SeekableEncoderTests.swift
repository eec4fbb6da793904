import Foundation
import TestSupport
import XCTest

@testable import ArchiveIO

/// Deterministic, compressible, text-like bytes with some binary noise (the zstd tests' sample data).
func codecSample(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var rng = Fixtures.SeededGenerator(seed: seed)
    let words: [[UInt8]] = ["debited", "a/c", "OTP", "ส่วนลด", "優惠", "\n", "{\"body\": ", "🙂", "1234 "].map { Array($0.utf8) }
    var out: [UInt8] = []
    out.reserveCapacity(count + 16)
    while out.count < count {
        if rng.next() % 7 == 0 {
            out.append(UInt8(truncatingIfNeeded: rng.next()))
        } else {
            out += words[Int(rng.next() % UInt64(words.count))]
        }
    }
    return Array(out.prefix(count))
}

/// `zstd -lv FILE`: the zstd frame and skippable frame counts the zstd CLI sees.
func zstdFrameCounts(_ path: String) throws -> (frames: Int, skippable: Int) {
    let result = try Fixtures.run("zstd", ["-lv", path])
    let text = String(decoding: result.stdout, as: UTF8.self)
    func count(_ label: String) -> Int {
        guard let line = text.split(separator: "\n").first(where: { $0.contains(label) }) else { return 0 }
        return Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) ?? -1
    }
    return (count("# Zstandard Frames"), count("# Skippable Frames"))
}

/// ``ZstdSeekableEncoder`` and ``ZstdSeekTable``: the zstd CLI decodes and lists what we write; the bytes do
/// not depend on the worker count or on how the input was cut into writes.
final class SeekableEncoderTests: TemporaryFolderTestCase {
    /// Writes `data` with a seekable encoder, in writes of the sizes `cuts` gives (one write when nil).
    func encode(_ data: [UInt8], to name: String, workers: Int, frameSize: Int, level: Int32 = 1, seed: UInt64? = nil) throws -> [UInt8] {
        let target = path(name)
        let fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let encoder = try ZstdSeekableEncoder(fileDescriptor: fd, level: level, workers: workers, frameSize: frameSize)
        try data.withUnsafeBytes { raw in
            guard let seed else { return try encoder.write(raw) }
            var rng = Fixtures.SeededGenerator(seed: seed)
            var at = 0
            while at < raw.count {
                let n = min(raw.count - at, Int(rng.next() % 200_000))
                try encoder.write(UnsafeRawBufferPointer(rebasing: raw[at..<(at + n)]))
                at += n
            }
        }
        try encoder.finish()
        XCTAssertEqual(encoder.framesWritten, max(1, (data.count + frameSize - 1) / frameSize))
        return try Array(Data(contentsOf: URL(fileURLWithPath: target)))
    }

    func testTheZstdCLIDecodesAndListsItAndTheBytesDoNotDependOnWorkersOrWrites() throws {
        let data = codecSample(3_300_017, seed: 21)
        print("seed 21 (data), 5 (write sizes)")
        for frameSize in [64 << 10, 1 << 20, ZstdSeekableEncoder.defaultFrameSize] {
            let reference = try encode(data, to: "ref.zst", workers: 0, frameSize: frameSize)
            for workers in [1, 2, 3] {
                for seed: UInt64? in [nil, 5] {
                    let other = try encode(data, to: "w\(workers).zst", workers: workers, frameSize: frameSize, seed: seed)
                    XCTAssertTrue(other == reference, "frame size \(frameSize), \(workers) workers, writes \(String(describing: seed)): bytes differ")
                }
            }
            let decoded = try Fixtures.run("zstd", ["-dc", path("ref.zst")])
            XCTAssertEqual(decoded.status, 0, String(decoding: decoded.stderr, as: UTF8.self))
            XCTAssertTrue(Array(decoded.stdout) == data, "frame size \(frameSize): zstd -dc differs")
            let frames = (data.count + frameSize - 1) / frameSize
            let counts = try zstdFrameCounts(path("ref.zst"))
            XCTAssertEqual(counts.frames, frames, "frame size \(frameSize)")
            XCTAssertEqual(counts.skippable, 1, "frame size \(frameSize): the seek table")
            XCTAssertEqual(try Fixtures.run("zstd", ["-tq", path("ref.zst")]).status, 0)

            // The seek table: sizes that add up, checksums equal to the frames' own, every frame alone decodes
            // to its part of the data.
            let table = try XCTUnwrap(try ZstdSeekTable.read(path: path("ref.zst")))
            XCTAssertEqual(table.entries.count, frames)
            XCTAssertTrue(table.hasChecksums)
            var offset = 0
            for (i, entry) in table.entries.enumerated() {
                let expected = min(frameSize, data.count - i * frameSize)
                XCTAssertEqual(Int(entry.decompressedSize), expected)
                let frame = Array(reference[offset..<(offset + Int(entry.compressedSize))])
                XCTAssertEqual(Array(frame.prefix(4)), [0x28, 0xB5, 0x2F, 0xFD], "frame \(i) starts with the zstd magic")
                let tail = frame.suffix(4)
                XCTAssertEqual(entry.checksum, UInt32(tail[tail.startIndex]) | UInt32(tail[tail.startIndex + 1]) << 8 | UInt32(tail[tail.startIndex + 2]) << 16 | UInt32(tail[tail.startIndex + 3]) << 24)
                if i == 0 || i == frames - 1 || i == frames / 2 {
                    let alone = try Fixtures.run("zstd", ["-dc"], stdin: Data(frame))
                    XCTAssertEqual(alone.status, 0)
                    XCTAssertTrue(Array(alone.stdout) == Array(data[(i * frameSize)..<(i * frameSize + expected)]), "frame \(i) alone")
                }
                offset += Int(entry.compressedSize)
            }
            XCTAssertEqual(offset + table.serializedSize, reference.count)
            // Our single-thread decoder reads it too.
            XCTAssertTrue(try decodeWithZstdDecoder(path("ref.zst")) == data)
        }
    }

    func decodeWithZstdDecoder(_ path: String) throws -> [UInt8] {
        let decoder = try ZstdDecoder(path: path)
        var out: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = try decoder.read(into: buffer)
            if n == 0 { return out }
            out += buffer[..<n]
        }
    }

    func testEmptyInputAndExactMultiples() throws {
        let frameSize = 64 << 10
        for count in [0, 1, frameSize - 1, frameSize, 2 * frameSize, 2 * frameSize + 1] {
            let data = codecSample(count, seed: UInt64(count))
            let bytes = try encode(data, to: "e.zst", workers: count % 2, frameSize: frameSize)
            let table = try XCTUnwrap(try ZstdSeekTable.read(path: path("e.zst")), "\(count) bytes")
            XCTAssertEqual(table.entries.count, max(1, (count + frameSize - 1) / frameSize), "\(count) bytes")
            XCTAssertEqual(table.entries.map(\.decompressedSize).reduce(0, +), UInt32(count))
            XCTAssertEqual(table.entries.map { Int($0.compressedSize) }.reduce(0, +) + table.serializedSize, bytes.count)
            let decoded = try Fixtures.run("zstd", ["-dc", path("e.zst")])
            XCTAssertEqual(decoded.status, 0, "\(count) bytes: \(String(decoding: decoded.stderr, as: UTF8.self))")
            XCTAssertTrue(Array(decoded.stdout) == data, "\(count) bytes")
        }
    }

    func testSeekTableRoundTripAndHostileTables() throws {
        let table = ZstdSeekTable(entries: [.init(compressedSize: 10, decompressedSize: 20, checksum: 7), .init(compressedSize: 1, decompressedSize: 0, checksum: 0)])
        let bytes = table.serialized()
        XCTAssertEqual(bytes.count, table.serializedSize)
        XCTAssertEqual(try ZstdSeekTable.parse(tail: [1, 2, 3] + bytes), table)
        let plain = ZstdSeekTable(entries: [.init(compressedSize: 3, decompressedSize: 4)])
        XCTAssertEqual(try ZstdSeekTable.parse(tail: plain.serialized()), plain)
        XCTAssertNil(try ZstdSeekTable.parse(tail: Array(bytes.dropLast())))
        // A reserved descriptor bit, a header that does not match, a table longer than the bytes.
        var reserved = bytes
        reserved[reserved.count - 5] |= 0x04
        XCTAssertThrowsError(try ZstdSeekTable.parse(tail: reserved)) { XCTAssertEqual(($0 as? ZstdError)?.code, .corrupt) }
        var header = bytes
        header[4] ^= 1
        XCTAssertThrowsError(try ZstdSeekTable.parse(tail: header)) { XCTAssertEqual(($0 as? ZstdError)?.code, .corrupt) }
        XCTAssertThrowsError(try ZstdSeekTable.parse(tail: Array(bytes.suffix(20)))) { XCTAssertEqual(($0 as? ZstdError)?.code, .truncated) }
        // A file whose frames do not add up to what the table says.
        let file = path("bad.zst")
        try Data([0, 0, 0] + bytes).write(to: URL(fileURLWithPath: file))
        XCTAssertThrowsError(try ZstdSeekTable.read(path: file)) { error in
            XCTAssertEqual((error as? ZstdError)?.code, .corrupt)
            XCTAssertTrue("\(error)".contains("bad.zst"), "\(error)")
        }
        // A zstd file without a table.
        let single = path("single.zst")
        XCTAssertEqual(try Fixtures.run("zstd", ["-q", "-o", single], stdin: Data("hello".utf8)).status, 0)
        XCTAssertNil(try ZstdSeekTable.read(path: single))
    }

    func testOutputFileWritesTheSeekableFormatAndAbandonsOnAWriteError() throws {
        let data = codecSample(700_000, seed: 8)
        let target = path("out.jsonl.zst")
        let file = try OutputFile(path: target, compression: .zstd(level: 1, workers: 2, frameSize: 128 << 10))
        try data.withUnsafeBytes { try file.write($0) }
        try file.finish()
        let decoded = try Fixtures.run("zstd", ["-dc", target])
        XCTAssertTrue(Array(decoded.stdout) == data)
        XCTAssertEqual(try ZstdSeekTable.read(path: target)?.entries.count, 6)
        #if DEBUG
        _ZstdFaultInjection.failWrites(withErrno: ENOSPC)
        defer { _ZstdFaultInjection.failWrites(withErrno: nil) }
        let failing = try OutputFile(path: path("full.zst"), compression: .zstd(level: 1, workers: 2, frameSize: 64 << 10))
        XCTAssertThrowsError(try data.withUnsafeBytes { raw in
            try failing.write(raw)
            try failing.finish()
        }) { error in
            XCTAssertEqual((error as? ZstdError)?.errno, ENOSPC)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["out.jsonl.zst"])
        #endif
    }
}
