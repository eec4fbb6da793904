import Foundation
import TestSupport
import XCTest

@testable import ArchiveIO

/// ``ZstdFrameIndex`` (where an archive can be cut) and ``ZstdParallelDecoder/init(path:range:options:)`` (one
/// range of frames). Oracles: the frames are made one by one by the zstd CLI (or our seekable encoder), so
/// their offsets and sizes are known; the CLI decodes each range on its own (`zstd -dc` of the bytes) as the
/// decoder must.
final class FrameIndexTests: ZstdFileTestCase {
    func decode(_ decoder: ZstdParallelDecoder) throws -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 50_000)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try decoder.read(into: $0) }
            if n == 0 { return out }
            out += buffer[..<n]
        }
    }

    /// Frames with and without content sizes, raw and compressed, between skippable frames and after them.
    func testTheHeaderWalkFindsEveryFrameAndItsDecodedSize() throws {
        var bytes: [UInt8] = []
        var expected: [ZstdFrameIndex.Frame] = []
        var parts: [[UInt8]] = []
        for i in 0..<5 {
            let part = codecSample(60_000 + 25_000 * i, seed: UInt64(7 + i))
            parts.append(part)
            let start = Int64(bytes.count)
            if i % 2 == 1 { bytes += skippable(Array("hint \(i)".utf8), variant: 3) }  // travels with the frame after it
            let known = i != 3
            bytes += try known ? zstdCLI(["-\(i + 1)", "-c", try write("p\(i)", part)]) : zstdCLI(["-c"], stdin: Data(part))
            expected.append(.init(start: start, end: Int64(bytes.count), decodedSize: known ? Int64(part.count) : nil))
        }
        bytes += skippable(Array("trailer".utf8), variant: 3)
        expected[4].end = Int64(bytes.count)
        let archive = try write("walk.zst", bytes)
        let index = try XCTUnwrap(try ZstdFrameIndex.read(path: archive))
        XCTAssertEqual(index.source, .frameHeaders)
        XCTAssertNil(index.stop)
        XCTAssertEqual(index.frames, expected)
        for (k, frame) in index.frames.enumerated() {
            XCTAssertTrue(index.isBoundary(frame.start))
            XCTAssertFalse(index.isBoundary(frame.start + 1))
            let decoder = try ZstdParallelDecoder(path: archive, range: frame.start..<frame.end, options: .init(threads: 1 + k % 2))
            XCTAssertEqual(try decode(decoder), parts[k], "frame \(k) decoded alone")
        }
        XCTAssertTrue(index.isBoundary(Int64(bytes.count)))
        let middle = try ZstdParallelDecoder(path: archive, range: expected[1].start..<expected[4].start, options: .init(threads: 2))
        XCTAssertEqual(try decode(middle), parts[1] + parts[2] + parts[3])
        XCTAssertEqual(middle.compressedBytesConsumed, expected[4].start, "offsets are the file's")
    }

    /// A seekable archive: the table gives the frames (each checked against its header), the last frame owns
    /// the table; a table that disagrees with the frames is not trusted (the headers are walked).
    func testASeekTableGivesTheFramesAndIsChecked() throws {
        let data = codecSample(700_000, seed: 3)
        let target = try seekableArchive("seek.zst", data)
        let index = try XCTUnwrap(try ZstdFrameIndex.read(path: target))
        XCTAssertEqual(index.source, .seekTable)
        XCTAssertEqual(index.frames.count, 11)
        XCTAssertEqual(index.frames.compactMap(\.decodedSize).reduce(0, +), Int64(data.count))
        XCTAssertEqual(index.frames.last?.end, index.fileSize)
        let walked = try ZstdFrameIndex.walkForTests(path: target)
        XCTAssertEqual(walked.frames, index.frames, "the walk of the headers finds the same frames")

        // A table whose second entry is off by one byte: walked instead.
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: target)))
        let table = try XCTUnwrap(try ZstdSeekTable.read(path: target))
        let tableStart = bytes.count - table.serializedSize
        bytes[tableStart + 8] &+= 1
        bytes[tableStart + 8 + 12] &-= 1
        let lying = try write("lying.zst", bytes)
        let checked = try XCTUnwrap(try ZstdFrameIndex.read(path: lying))
        XCTAssertEqual(checked.source, .frameHeaders)
        XCTAssertEqual(checked.frames, index.frames)
    }

    /// Where the walk cannot go on (truncation, bytes that are no frame), the rest is the last piece's, and a
    /// decoder of that piece reports the damage at the file's offsets.
    func testTheWalkStopsAtDamageAndTheRestIsOnePiece() throws {
        var bytes: [UInt8] = []
        for i in 0..<3 { bytes += try zstdCLI(["-c"], stdin: Data(codecSample(80_000, seed: UInt64(20 + i)))) }
        let second = try XCTUnwrap(try ZstdFrameIndex.read(path: try write("whole.zst", bytes))).frames[1].start
        let truncated = try write("truncated.zst", Array(bytes.dropLast(100)))
        let index = try XCTUnwrap(try ZstdFrameIndex.read(path: truncated))
        XCTAssertEqual(index.frames.count, 3)
        XCTAssertEqual(index.stop?.reason, "the file ends inside a frame")
        XCTAssertNil(index.frames[2].decodedSize)
        let decoder = try ZstdParallelDecoder(path: truncated, range: index.frames[2].start..<index.fileSize, options: .init(threads: 1))
        XCTAssertThrowsError(try decode(decoder)) { error in
            XCTAssertEqual((error as? ZstdError)?.code, .truncated)
            XCTAssertEqual((error as? ZstdError)?.offset, index.fileSize, "the file's offset, not the range's")
        }
        let garbage = try write("garbage.zst", Array(bytes[..<Int(second)]) + Array("not a frame".utf8))
        let stopped = try XCTUnwrap(try ZstdFrameIndex.read(path: garbage))
        XCTAssertEqual(stopped.frames.count, 2)
        XCTAssertEqual(stopped.frames[1].start, second)
        XCTAssertEqual(stopped.stop, .init(offset: second, reason: "no zstd frame starts here"))
        XCTAssertNil(try ZstdFrameIndex.read(path: try write("plain.txt", Array("plain text\n".utf8))), "not zstd")
    }
}
