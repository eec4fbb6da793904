import MessageFilter
import ArchiveIO

/// Message bodies (and senders) of an archive, loaded into one buffer: what `bench` scans to measure
/// the matcher alone, with decoding and parsing out of the timing.
public struct LoadedMessages: Sendable {
    /// Senders and bodies, back to back.
    public var buffer: [UInt8]
    /// Where each message's sender and body are in `buffer`.
    public var spans: [MessageSpan]
    /// Bytes of the bodies alone.
    public var bodyBytes: Int

    /// Reads the records of `path` (any format, plain or zstd, through the record reader) until `limit`
    /// bytes of bodies are loaded. Rejected records are left out.
    ///
    /// Memory: the buffer is reserved once, `limit + limit / 4` bytes (senders beside the bodies), and a
    /// record is loaded only while its sender and body fit in what is left, so it never grows past that;
    /// the first record is loaded whatever its size (it is at most `--max-record`, the reader's limit).
    /// The reader beside it holds two chunks and the over-long budget (`--max-record`), as in `classify`.
    ///
    /// - Throws: ``PipelineError`` (a missing or damaged input).
    public static func load(
        path: String, format: InputFormat? = nil, fields: FieldNames = FieldNames(), limit: Int = 256 << 20
    ) throws(PipelineError) -> LoadedMessages {
        var loaded = LoadedMessages(buffer: [], spans: [], bodyBytes: 0)
        let room = limit + limit / 4
        loaded.buffer.reserveCapacity(room)
        var full = false
        var input = RecordFormat()
        input.inputFormat = format
        input.fields = fields
        let reader = _SequentialReader(inputs: [path], options: _ReadOptions(input))
        try reader.run(stop: { full }, chunk: { chunk, parsed in
            for k in 0..<parsed.records.count where !parsed.records[k].isRejected && !full {
                let s = parsed.spans[k]
                let size = max(0, s.senderCount) + s.bodyCount
                guard loaded.spans.isEmpty || loaded.buffer.count + size <= room else {
                    full = true
                    break
                }
                var sender = (0, -1)
                if s.senderCount >= 0 {
                    sender = (loaded.buffer.count, s.senderCount)
                    chunk.input.withUnsafeBytes(s.senderStart..<(s.senderStart + s.senderCount)) { loaded.buffer += $0 }
                }
                let bodyStart = loaded.buffer.count
                chunk.input.withUnsafeBytes(s.bodyStart..<(s.bodyStart + s.bodyCount)) { loaded.buffer += $0 }
                loaded.bodyBytes += s.bodyCount
                loaded.spans.append(MessageSpan(senderStart: sender.0, senderCount: sender.1, bodyStart: bodyStart, bodyCount: s.bodyCount))
                if loaded.bodyBytes >= limit { full = true }
            }
        }, rejected: { _, _, _ in })
        return loaded
    }
}
