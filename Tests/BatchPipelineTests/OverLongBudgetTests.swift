import Foundation
import MessageFilter
import TestSupport
import XCTest

@testable import BatchPipeline

/// Records longer than a chunk share one budget of `--max-record` bytes across the pipeline
/// (`_ChunkPool.admit`), however many threads: the bound behind docs/PERFORMANCE.md "Memory by formula".
final class OverLongBudgetTests: TemporaryFolderTestCase {
    /// JSON Lines with many records a few times longer than `chunk` (some with escapes, so decoded bodies
    /// go to the scratch area), short ones between them, one longer than `maxRecord` and one broken.
    func longRecords(chunk: Int, maxRecord: Int, count: Int) -> [UInt8] {
        var rng = Fixtures.seededGenerator("OverLongBudgetTests", defaultSeed: 0x14_0460)
        let words = ["free", "entry", "win", "cash", "call", "now", "hello", "mom", "otp", "code", "bank"]
        var out: [UInt8] = []
        for i in 0..<count {
            let size = Int.random(in: (chunk / 2)...(maxRecord / 2), using: &rng)
            var body = ""
            while body.utf8.count < size { body += words.randomElement(using: &rng)! + (i % 3 == 0 ? "\\n" : " ") }
            out += Array("{\"id\": \"r\(i)\", \"body\": \"\(body)\"}\n".utf8)
            if i % 4 == 0 { out += Array("{\"id\": \"s\(i)\", \"body\": \"short \(i)\"}\n".utf8) }
            if i == count / 3 { out += Array("{\"id\": \"big\", \"body\": \"\(String(repeating: "x", count: maxRecord))\"}\n".utf8) }
            if i == count / 2 { out += Array("{\"id\": \"broken\", \"body\": \"\(String(repeating: "y", count: 3 * chunk))\n".utf8) }
        }
        return out
    }

    /// A worker that parses (the decoded strings go into the chunk) and checks that a chunk past its base
    /// size holds budget for it; slow on long chunks so that chunks pile up in flight.
    final class CheckingWorker: _ChunkWorker {
        let scratch = _ParseScratch()
        let chunkSize: Int
        let problems: Problems
        init(chunkSize: Int, problems: Problems) {
            self.chunkSize = chunkSize
            self.problems = problems
        }
        func process(_ chunk: _Chunk) {
            let held = chunk.input.count
            let capacityBefore = chunk.input.capacity
            scratch.parse(chunk)
            if chunk.input.capacity != capacityBefore { problems.add("a worker grew chunk \(chunk.sequence)'s input") }
            if held > chunkSize && chunk.overLongBytes < held - chunkSize {
                problems.add("chunk \(chunk.sequence) holds \(held) bytes with \(chunk.overLongBytes) of the budget")
            }
            if held > chunkSize { usleep(2000) }
        }
    }

    final class Problems: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func add(_ p: String) { lock.lock(); list.append(p); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return list }
    }

    final class CountingSink: _ChunkSink {
        var records = 0
        var bytes = 0
        func consume(_ chunk: _Chunk) throws(PipelineError) {
            records += chunk.counts.records
            bytes += chunk.decodedBytes
        }
    }

    /// 8 workers, 4 KiB chunks, a 64 KiB budget, 120 records of 2–32 KiB: every chunk past 4 KiB holds
    /// budget for its bytes, at most 64 KiB of it is held at once, no worker grows a buffer, and the run ends
    /// (no deadlock: the reader waits only for chunks already handed over).
    func testRecordsLongerThanAChunkNeverHoldMoreThanTheBudget() throws {
        let chunk = 4096
        let maxRecord = 64 * 1024
        let bytes = longRecords(chunk: chunk, maxRecord: maxRecord, count: 120)
        let path = try write("long.jsonl", bytes)
        for threads in [1, 2, 8] {
            let outcome = try Deadline.run("the fan-out over records longer than a chunk (\(threads) threads)", seconds: 120) {
                () -> (peak: Int, problems: [String], bytes: Int, leftOver: Int) in
                let pool = _ChunkPool(slots: 2 * threads + 2, chunkSize: chunk, folders: 1, rules: 1)
                var read = _ReadOptions()
                read.chunkSize = chunk
                read.record.maxRecord = maxRecord
                let reader = _RecordReader(inputs: [path], options: read, pool: pool)
                let problems = Problems()
                let sink = CountingSink()
                try _FanOut(pool: pool).run(
                    reader: reader, threads: threads, makeWorker: { CheckingWorker(chunkSize: chunk, problems: problems) }, sink: sink)
                // Every slot is back, with its buffers at the base size and the budget all given back.
                var slots: [_Chunk] = []
                for _ in 0..<(2 * threads + 2) { slots.append(pool.take()) }
                let leftOver = slots.map { max(0, $0.input.capacity - _ChunkPool.baseInputCapacity(chunk)) + max(0, $0.output.capacity - 2 * chunk) }.reduce(0, +)
                return (pool.overLongPeak, problems.all, sink.bytes, leftOver)
            }
            XCTAssertEqual(outcome.problems, [], "\(threads) threads")
            XCTAssertLessThanOrEqual(outcome.peak, maxRecord, "\(threads) threads: budget held at once")
            XCTAssertGreaterThan(outcome.peak, 2 * chunk, "\(threads) threads: long records took no budget")
            XCTAssertEqual(outcome.bytes, bytes.count, "\(threads) threads: every byte accounted for")
            XCTAssertEqual(outcome.leftOver, 0, "\(threads) threads: buffers not shrunk back")
        }
    }

    /// The same records through classify: the output and the rejects are the same bytes at 1, 2 and 8
    /// threads with 4 KiB chunks (long records throttled by the budget) as with one 1 MiB-chunk thread.
    func testOutputIsTheSameWhateverTheBudgetMakesWait() throws {
        let maxRecord = 64 * 1024
        let path = try write("long.jsonl", longRecords(chunk: 4096, maxRecord: maxRecord, count: 90))
        var reference: (output: Data, rejects: Data)?
        for (threads, chunk) in [(1, 1 << 20), (1, 4096), (2, 4096), (8, 4096), (8, 16384)] {
            var options = PipelineOptions()
            options.threads = threads
            options.chunkSize = chunk
            options.input.maxRecord = maxRecord
            options.outputPath = folder.appendingPathComponent("out-\(threads)-\(chunk).jsonl").path
            options.rejectsPath = folder.appendingPathComponent("rejects-\(threads)-\(chunk).jsonl").path
            let frozen = options
            let result = try Deadline.run("classify over records longer than a chunk (\(threads) threads, \(chunk)-byte chunks)") {
                try Pipeline(ruleSet: RuleSet.embeddedDefault, options: frozen).run(inputs: [path])
            }
            XCTAssertTrue(result.counts.isBalanced)
            XCTAssertEqual(result.counts.rejected, 2, "the over-long record and the broken one")
            let output = try Data(contentsOf: URL(fileURLWithPath: options.outputPath!))
            let rejects = try Data(contentsOf: URL(fileURLWithPath: options.rejectsPath!))
            if let reference {
                XCTAssertTrue(output == reference.output, "output differs at \(threads) threads, \(chunk)-byte chunks")
                XCTAssertTrue(rejects == reference.rejects, "rejects differ at \(threads) threads, \(chunk)-byte chunks")
            } else {
                reference = (output, rejects)
                XCTAssertEqual(result.counts.labelled, result.counts.records - 2)
            }
        }
    }

    /// bench's matcher-only load never grows its buffer past `limit + limit / 4` when records are huge;
    /// the first record is loaded whatever its size.
    func testTheMatcherLoadStaysWithinItsRoom() throws {
        var text = ""
        for i in 0..<12 { text += "{\"sender\": \"+6681\(i)\", \"body\": \"\(String(repeating: "win cash ", count: 14_000))\"}\n" }
        let path = try write("bodies.jsonl", Array(text.utf8))
        let limit = 256 * 1024
        let loaded = try LoadedMessages.load(path: path, limit: limit)
        XCTAssertEqual(loaded.spans.count, 2, "126,000-byte bodies: two fit in \(limit + limit / 4) bytes, not three")
        XCTAssertLessThanOrEqual(loaded.buffer.count, limit + limit / 4)
        XCTAssertLessThanOrEqual(loaded.buffer.capacity, 2 * (limit + limit / 4), "the buffer grew")
        let tiny = try LoadedMessages.load(path: path, limit: 1024)
        XCTAssertEqual(tiny.spans.count, 1, "the first record is loaded even when it is longer than the limit")
        XCTAssertEqual(tiny.bodyBytes, 126_000)
    }
}
