import Foundation
import TestSupport
import XCTest
import ZstdStream

@testable import BatchPipeline

/// `_ByteSources.open` chooses the decoder: zstd input is a `ZstdParallelDecoder` (frames on the workers with
/// more than one thread, unit by unit in the reader's thread with one); plain text is never handed to it. The bytes are what the zstd CLI decodes (the oracle). The CLI tests (`ParallelInputTests`)
/// check that the commands' results do not change with the thread count.
final class ByteSourceTests: XCTestCase {
    func drain(_ source: any _ByteSource) throws -> [UInt8] {
        var out: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 100_000, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = try source.read(into: buffer)
            if n == 0 { return out }
            out += buffer[..<n]
        }
    }

    func testZstdWithThreadsIsDecodedFrameParallel() throws {
        let oracle = try GeneratedFixture.decompressed(GeneratedFixture.jsonl)
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: GeneratedFixture.jsonl)[.size] as? Int)
        for threads in [1, 2, 8] {
            let source = try _ByteSources.open(GeneratedFixture.jsonl, stdinName: "<stdin>", maxWindowBytes: 128 << 20, threads: threads)
            XCTAssertTrue(try drain(source) == oracle, "\(threads) threads")
            XCTAssertEqual(source.compressedBytesConsumed, Int64(size))
            XCTAssertEqual(source.isCompressed, true)
            // Behind the check of the first decoded bytes (binary data inside a .zst is refused).
            let parallel = try XCTUnwrap((source as? _DecodedPrefix)?.inner as? ZstdParallelDecoder, "\(threads) threads: \(type(of: source))")
            // The fixture's four frames were decoded by the workers (one thread: by the reader, unit by unit).
            XCTAssertEqual(parallel.parallelFrames, threads == 1 ? 0 : GeneratedFixture.frameCount)
        }
        // Plain text and gzip keep their decoders whatever the thread count.
        let plain = try _ByteSources.open(GeneratedFixture.csv, stdinName: "<stdin>", maxWindowBytes: 128 << 20, threads: 4)
        XCTAssertTrue(plain is ZstdDecoder)
        XCTAssertTrue(try drain(plain) == Array(try Data(contentsOf: URL(fileURLWithPath: GeneratedFixture.csv))))
    }
}
