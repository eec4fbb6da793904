// MARK: Internal API
//
// The record source on the calling thread, for the commands that read records one by one (`learn`, which
// reads its inputs two or three times, and `bench`'s matcher-only load). Same reader, same drivers: every
// format, the same rejects and line numbers as classify.

import Dispatch

extension _Chunk {
    /// Every record rejected in the chunk, in order: its category and absolute line.
    /// Only after ``publishLines()`` (in input order, as the writers and the sequential reader go, it
    /// never waits).
    func forEachRejected(_ body: (String, Int) -> Void) {
        guard !rejects.isEmpty || tailReject != nil || piece?.isLast == true else { return }
        let first = firstLine()
        for r in rejects { body(r.category, first + r.relativeLine) }
        if let r = tailReject { body(r.category, first + r.relativeLine) }
        if let p = piece, p.isLast, !p.passThrough { body(_ReadOptions.overlongCategory, first - p.linesBefore) }
    }

    /// The decoded id of record `r` (a JSON string's content, any other value's text), or nil.
    func idText(_ r: _Record) -> [UInt8]? {
        guard r.idEnd >= r.idStart else { return nil }
        return input.withUnsafeBytes(r.idStart..<r.idEnd) { raw in
            guard r.idIsJSON, raw.count >= 2, raw[0] == UInt8(ascii: "\"") else { return Array(raw) }
            var out: [UInt8] = []
            _JSONUnescape.append(UnsafeRawBufferPointer(rebasing: raw[1..<(raw.count - 1)]), to: &out)
            return out
        }
    }
}

final class _SequentialReader {
    let reader: _RecordReader
    let scratch = _ParseScratch()

    init(inputs: [String], options: _ReadOptions) {
        let pool = _ChunkPool(slots: 2, chunkSize: options.chunkSize, folders: 1, rules: 1)
        reader = _RecordReader(inputs: inputs, options: options, pool: pool)
    }

    /// Reads every input in order: `chunk` gets each chunk once parsed (its records in `scratch.parsed`),
    /// `rejected` each record the reader or a driver rejected (category, file index, absolute line).
    /// Stops early when `stop` says so.
    ///
    /// - Throws: ``PipelineError``: an input missing or unreadable as asked, what `chunk` throws, and a damaged
    ///   input (once every record before the damage was handed over).
    func run(
        stop: () -> Bool = { false },
        chunk body: (_Chunk, _Parsed) throws(PipelineError) -> Void,
        rejected: (String, Int, Int) -> Void
    ) throws(PipelineError) {
        var failure: PipelineError?
        let pool = reader.pool
        let lines = reader.lines
        _ = try reader.run(shouldStop: { failure != nil || stop() }) { chunk in
            // One thread, in order: the count is published first and every earlier one is in, so the chunk's
            // first line never waits.
            chunk.publishLines()
            defer {
                lines.release(chunk.sequence)
                pool.put(chunk)
            }
            guard failure == nil, let file = chunk.file else { return }
            self.scratch.parse(chunk)
            do throws(PipelineError) { try body(chunk, self.scratch.parsed) } catch {
                failure = error
                return
            }
            chunk.forEachRejected { category, line in rejected(category, file.index, line) }
            if chunk.isLastOfFile, let error = chunk.fileError { failure = PipelineError(.badInput, error) }
        }
        if let failure { throw failure }
    }
}
