// MARK: Internal API
//
// The chunk fan-out every bulk job runs on (classify, evaluate, export):
//
//   reader (the caller's thread) ─▶ _WorkQueue ─▶ workers × threads ─▶ _OrderedCompletion ─▶ writer thread
//        _RecordReader                              _ChunkWorker             (input order)       _ChunkSink
//
// Workers publish each chunk's newline count (`_LineLedger`: the reader no longer counts them), then do the
// per-record work (parse, classify, format); the sink takes the chunks strictly in input order (writes,
// merges counts), the chunk's ledger entry is released and the chunk goes back to the pool. A job is `reading` while the reader
// produces, `draining` once it has handed over its last chunk, and `failed` from the first error on: the
// reader stops at its next chunk, the workers and the writer skip what is left, and the error is thrown.

import Dispatch
import Foundation

/// A job's per-thread work on one chunk (one instance per worker thread, never shared).
protocol _ChunkWorker: AnyObject {
    func process(_ chunk: _Chunk)
}

/// A job's writer side: every chunk in input order, on the writer thread.
protocol _ChunkSink: AnyObject {
    func consume(_ chunk: _Chunk) throws(PipelineError)
}

final class _FanOut: @unchecked Sendable {
    enum State {
        case reading
        /// The reader is done; `chunks` in all are being worked on and written.
        case draining(chunks: Int)
        case failed(PipelineError)
    }

    let pool: _ChunkPool
    private let work = _WorkQueue()
    private let completion = _OrderedCompletion()
    private let lock = NSLock()
    // Guarded by `lock`.
    private var state = State.reading

    init(pool: _ChunkPool) { self.pool = pool }

    var failed: Bool {
        lock.lock()
        defer { lock.unlock() }
        if case .failed = state { return true }
        return false
    }

    /// Records the first error; later ones are dropped (the first one is the cause).
    func fail(_ error: PipelineError) {
        lock.lock()
        if case .failed = state {} else { state = .failed(error) }
        lock.unlock()
    }

    /// Runs the job: `reader` on this thread, `threads` workers made by `makeWorker`, `sink` on a writer
    /// thread. Returns when every chunk is written.
    /// - Throws: the first error of the reader, the sink or ``fail(_:)``.
    func run(reader: _RecordReader, threads: Int, makeWorker: () -> _ChunkWorker, sink: _ChunkSink) throws(PipelineError) {
        let group = DispatchGroup()
        let lines = reader.lines
        for _ in 0..<max(1, threads) {
            let worker = _Unchecked(makeWorker())
            DispatchQueue.global(qos: .userInitiated).async(group: group) {
                while let chunk = self.work.pop() {
                    // The chunk's newline count first, before anything that may wait (`_LineLedger`: a later
                    // chunk's worker may be waiting for it), even when the job has failed.
                    chunk.publishLines()
                    if !self.failed { worker.value.process(chunk) }
                    self.completion.complete(chunk)
                }
            }
        }
        let writerDone = DispatchSemaphore(value: 0)
        let theSink = _Unchecked(sink)
        let writer = Thread { [self] in
            write(theSink.value, lines)
            writerDone.signal()
        }
        writer.name = "smsfilter-writer"
        writer.start()

        var total = 0
        do throws(PipelineError) {
            total = try reader.run(shouldStop: { self.failed }, deliver: { self.work.push($0) })
        } catch {
            fail(error)
            total = reader.delivered
        }
        lock.lock()
        if case .reading = state { state = .draining(chunks: total) }
        lock.unlock()
        work.close()
        completion.finish(total: total)
        group.wait()
        writerDone.wait()
        lock.lock()
        let end = state
        lock.unlock()
        if case .failed(let error) = end { throw error }
    }

    private func write(_ sink: _ChunkSink, _ lines: _LineLedger) {
        while let chunk = completion.takeNext() {
            defer {
                lines.release(chunk.sequence)
                pool.put(chunk)
            }
            if failed { continue }
            do throws(PipelineError) { try sink.consume(chunk) } catch { fail(error) }
        }
    }
}

/// Hands a non-Sendable value to exactly one other thread.
struct _Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
