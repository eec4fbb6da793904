// MARK: Internal API
//
// The one place `learn` reads records: the record reader on the calling thread (`_SequentialReader`), so
// learn reads every format classify reads (JSON Lines, CSV, TSV, Android XML; plain or zstd), with the
// same field options.

/// One usable record: its body and truth label (decoded), where it came from.
/// - warning: Its bytes are lent for the `record` call of ``_LearnInput/read(inputs:input:truthField:record:skip:progress:)``
///   only: copy what must outlive it.
struct _LearnRecord {
    var body: UnsafeRawBufferPointer
    var label: UnsafeRawBufferPointer
    var id: UnsafeRawBufferPointer?
    var sender: UnsafeRawBufferPointer?
    var fileIndex: Int
    var line: Int
}

enum _LearnInput {
    /// Reads `inputs` once, in order, calling `record` for each record with a body and a non-empty label;
    /// `skip` gets the reason (a reject's category, or "no truth label"), the file index and the line.
    /// - Throws: ``PipelineError`` (missing input, damaged archive) or what `record` throws.
    static func read(
        inputs: [String], input: RecordFormat, truthField: String,
        record: (_LearnRecord) throws(PipelineError) -> Void,
        skip: (String, Int, Int) -> Void,
        progress: (Int, Int64, Int64?) -> Void = { _, _, _ in }
    ) throws(PipelineError) {
        var options = _ReadOptions(input)
        options.record.fields.extra = [truthField]
        let reader = _SequentialReader(inputs: inputs, options: options)
        try reader.run(chunk: { chunk, parsed throws(PipelineError) in
            let labelSlot = chunk.file!.driver.layout.extra(0)
            let fileIndex = chunk.file!.index
            // The sequential reader published the chunk's count and every earlier one: no wait.
            let firstLine = chunk.firstLine()
            for k in 0..<parsed.records.count where !parsed.records[k].isRejected {
                let r = parsed.records[k]
                let s = parsed.spans[k]
                let line = firstLine + r.relativeLine
                let label = parsed.field(k, labelSlot)
                guard label.isPresent, label.end > label.start else {
                    skip("no truth label", fileIndex, line)
                    continue
                }
                let id = chunk.idText(r)
                try withOptionalBytes(id) { idBytes throws(PipelineError) in
                    try chunk.input.withUnsafeBytes { (all) throws(PipelineError) in
                        try record(_LearnRecord(
                            body: UnsafeRawBufferPointer(rebasing: all[s.bodyStart..<(s.bodyStart + s.bodyCount)]),
                            label: UnsafeRawBufferPointer(rebasing: all[label.start..<label.end]), id: idBytes,
                            sender: s.senderCount >= 0 ? UnsafeRawBufferPointer(rebasing: all[s.senderStart..<(s.senderStart + s.senderCount)]) : nil,
                            fileIndex: fileIndex, line: line))
                    }
                }
            }
            let (file, read, total) = reader.reader.progress.snapshot()
            progress(file, read, total)
        }, rejected: skip)
    }

    private static func withOptionalBytes(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) throws(PipelineError) -> Void) throws(PipelineError) {
        guard let bytes else { return try body(nil) }
        var failure: PipelineError?
        bytes.withUnsafeBytes { raw in
            do throws(PipelineError) { try body(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }
}
