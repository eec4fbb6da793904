import Foundation
import TestSupport
import XCTest

@testable import ArchiveIO

/// Issue 33's unpinned behaviours of the frame index: what a seek table that does not hold makes of it.
extension FrameIndexTests {
    /// A seek table whose decoded sizes contradict the frame headers' content sizes is not trusted: the index
    /// is walked from the headers, and its sizes are the headers'. (A planted bug that took the table's word
    /// passed every test before.)
    func testASeekTableWhoseSizesContradictTheHeadersIsIgnored() throws {
        let data = codecSample(300_000, seed: 9)
        let target = try seekableArchive("sized.zst", data)
        let honest = try XCTUnwrap(try ZstdFrameIndex.read(path: target))
        XCTAssertEqual(honest.source, .seekTable)
        let walked = try ZstdFrameIndex.walkForTests(path: target)
        XCTAssertEqual(walked.frames.count, honest.frames.count)
        XCTAssertTrue(walked.frames.allSatisfy { $0.decodedSize != nil }, "every header says its content size")
        let table = try XCTUnwrap(try ZstdSeekTable.read(path: target))
        let entrySize = table.hasChecksums ? 12 : 8
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: target)))
        let tableStart = bytes.count - table.serializedSize
        for entry in [1, 3] {
            // The decoded size of the entry (its second word) changed; its compressed sizes still add up to the file.
            let at = tableStart + 8 + entry * entrySize + 4
            bytes[at] &+= 1
        }
        let lying = try write("sizes.zst", bytes)
        let lyingTable = try XCTUnwrap(try ZstdSeekTable.read(path: lying), "the table itself parses")
        XCTAssertNotEqual(lyingTable.entries[1].decompressedSize, table.entries[1].decompressedSize)
        let index = try XCTUnwrap(try ZstdFrameIndex.read(path: lying))
        XCTAssertEqual(index.source, .frameHeaders, "the table is ignored")
        XCTAssertNil(index.stop)
        XCTAssertEqual(index.frames, walked.frames, "the frames and sizes are the headers'")
        XCTAssertEqual(index.frames.compactMap(\.decodedSize).reduce(0, +), Int64(data.count))
    }

    /// Stray bytes between the last frame and a seek table: the table does not add up to the file, so it is
    /// ignored; the walk of the headers stops at the stray bytes and says where, and the rest (the bytes and
    /// the table) is one last piece.
    func testStrayBytesBeforeASeekTableStopTheWalkWhereTheyAre() throws {
        let data = codecSample(200_000, seed: 11)
        let target = try seekableArchive("stray-source.zst", data)
        let table = try XCTUnwrap(try ZstdSeekTable.read(path: target))
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: target)))
        let framesEnd = bytes.count - table.serializedSize
        let stray = try write("stray.zst", Array(bytes[..<framesEnd]) + Array("stray".utf8) + Array(bytes[framesEnd...]))
        XCTAssertThrowsError(try ZstdSeekTable.read(path: stray), "the table lists fewer bytes than the file holds")
        let index = try XCTUnwrap(try ZstdFrameIndex.read(path: stray))
        XCTAssertEqual(index.source, .frameHeaders)
        XCTAssertEqual(index.stop, .init(offset: Int64(framesEnd), reason: "no zstd frame starts here"))
        XCTAssertEqual(index.frames.count, table.entries.count + 1, "the table's frames, then the rest as one piece")
        XCTAssertEqual(index.frames.last?.start, Int64(framesEnd))
        XCTAssertEqual(index.frames.last?.end, index.fileSize)
        XCTAssertNil(index.frames.last?.decodedSize)
        // plan says where the walk stopped.
        XCTAssertEqual(index.stop.map { "at byte \($0.offset): \($0.reason)" }, "at byte \(framesEnd): no zstd frame starts here")
    }
}
