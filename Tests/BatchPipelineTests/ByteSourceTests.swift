import Foundation
import TestSupport
import XCTest
@testable import ArchiveIO

@testable import BatchPipeline

/// `_ByteSources.open` chooses the decoder: zstd input is a `ZstdParallelDecoder` (frames on the workers with
/// more than one thread, unit by unit in the reader's thread with one); plain text is never handed to it. The bytes are what the zstd CLI decodes (the oracle). The CLI tests (`ParallelInputTests`)
/// check that the commands' results do not change with the thread count.
final class ByteSourceTests: XCTestCase {
    func drain(_ source: any _ByteSource) throws -> [UInt8] {
        let (bytes, error, _) = readToEnd(chunk: 100_000) { try source.read(into: $0) }
        if let error { throw error }
        return bytes
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
            // The memory bound: up to 8 threads, the frame being read and the next one (docs/PERFORMANCE.md,
            // "Memory by formula"), not `threads + 2`.
            if threads > 1 { XCTAssertLessThanOrEqual(parallel.peakItemsInFlight, 2, "\(threads) threads") }
        }
        // Plain text and gzip keep their decoders whatever the thread count.
        let plain = try _ByteSources.open(GeneratedFixture.csv, stdinName: "<stdin>", maxWindowBytes: 128 << 20, threads: 4)
        XCTAssertTrue(plain is ZstdDecoder)
        XCTAssertTrue(try drain(plain) == Array(try Data(contentsOf: URL(fileURLWithPath: GeneratedFixture.csv))))
    }

    /// Frames in flight by thread count: one decoding worker per 8 classify threads (at most 4), and one
    /// frame more than the workers needed; one thread decodes in the reader.
    func testFramesInFlightFollowTheWorkersNeeded() {
        XCTAssertEqual(_ByteSources.decoding(threads: 1).workers, 1)
        XCTAssertNil(_ByteSources.decoding(threads: 1).framesInFlight)
        for (threads, workers, frames) in [(2, 2, 2), (8, 2, 2), (9, 2, 3), (16, 2, 3), (24, 3, 4), (64, 4, 5), (256, 4, 5)] {
            let d = _ByteSources.decoding(threads: threads)
            XCTAssertEqual(d.workers, workers, "\(threads) threads")
            XCTAssertEqual(d.framesInFlight, frames, "\(threads) threads")
        }
    }

    /// The default chunk keeps the chunk pool (`2 × threads + 2` slots of 3.5 chunks) within 10.5 MiB down
    /// to the 256 KiB floor.
    func testDefaultChunkPoolStaysWithinItsBudget() {
        XCTAssertEqual(PipelineOptions.defaultChunkSize(threads: 1), 768 << 10)
        XCTAssertEqual(PipelineOptions.defaultChunkSize(threads: 2), 512 << 10)
        for threads in 1...256 {
            let chunk = PipelineOptions.defaultChunkSize(threads: threads)
            let pool = (2 * threads + 2) * chunk * 7 / 2
            XCTAssertTrue(chunk == 256 << 10 || pool <= 21 << 19, "\(threads) threads: \(chunk)-byte chunks, pool \(pool)")
            XCTAssertGreaterThanOrEqual(chunk, 256 << 10)
        }
    }
}
