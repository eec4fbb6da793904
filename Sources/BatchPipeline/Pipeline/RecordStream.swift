/// The records of archives one by one, in order, as the one record reader reads them (every format, plain,
/// zstd or gzip, the same fields, line numbers and rejects as `classify`): what `explain --input` explains.
public enum RecordStream {
    /// One record: where it starts, its id, sender and body as text.
    public struct Record: Sendable, Equatable {
        /// The file as counts and rejects name it (`<stdin>` for standard input).
        public var file: String
        /// The line of the file where the record starts (1-based).
        public var line: Int
        public var id: String?
        public var sender: String?
        public var body: String
    }

    /// A record the reader refused (broken JSON, no body, longer than `--max-record`…): where it is and why.
    public struct Refused: Sendable, Equatable {
        public var file: String
        public var line: Int
        public var reason: String
    }

    /// An item of the stream, in the order of the inputs.
    public enum Item: Sendable, Equatable {
        case record(Record)
        case refused(Refused)
    }

    /// Reads `inputs` (`-` is standard input) with `format`'s options and calls `body` with each record and
    /// refused record in order (within a chunk of about `format`'s chunk size, by line).
    ///
    /// - Throws: ``PipelineError``: an input missing or unreadable as asked, what `body` throws, and a
    ///   damaged input (once every record before the damage was handed to `body`).
    public static func read(
        _ inputs: [String], format: RecordFormat, _ body: (Item) throws(PipelineError) -> Void
    ) throws(PipelineError) {
        let options = _ReadOptions(format)
        let reader = _SequentialReader(inputs: inputs, options: options)
        try reader.run(chunk: { chunk, parsed throws(PipelineError) in
            guard let file = chunk.file else { return }
            for item in items(chunk, parsed, file, overlongReason: options.overlongReason) { try body(item) }
        }, rejected: { _, _, _ in })
    }

    /// The chunk's records and refused records, by line.
    static func items(_ chunk: _Chunk, _ parsed: _Parsed, _ file: _FileState, overlongReason: String) -> [Item] {
        let first = chunk.firstLine()
        var items: [(Int, Int, Item)] = []
        func text(_ start: Int, _ count: Int) -> String {
            chunk.input.withUnsafeBytes(start..<(start + count)) { String(decoding: $0, as: UTF8.self) }
        }
        for k in 0..<parsed.records.count where !parsed.records[k].isRejected {
            let r = parsed.records[k], s = parsed.spans[k]
            let record = Record(
                file: file.displayPath, line: first + r.relativeLine, id: chunk.idText(r).map { String(decoding: $0, as: UTF8.self) },
                sender: s.senderCount >= 0 ? text(s.senderStart, s.senderCount) : nil, body: text(s.bodyStart, s.bodyCount))
            items.append((record.line, r.rawStart, .record(record)))
        }
        for reject in chunk.rejects {
            let line = first + reject.relativeLine
            items.append((line, reject.offset, .refused(Refused(file: file.displayPath, line: line, reason: reject.reason))))
        }
        if let reject = chunk.tailReject {
            let line = first + reject.relativeLine
            items.append((line, reject.offset, .refused(Refused(file: file.displayPath, line: line, reason: reject.reason))))
        }
        if let piece = chunk.piece, piece.isLast, !piece.passThrough {
            let line = first - piece.linesBefore
            items.append((line, 0, .refused(Refused(file: file.displayPath, line: line, reason: overlongReason))))
        }
        return items.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
    }
}
