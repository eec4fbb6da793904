// MARK: Internal API
//
// The one place `learn` reads records: an adapter over the JSON Lines record stream that `export` and
// `evaluate` use (`_RecordStream`). Issue 12 unifies the readers; swapping this adapter for the unified
// source (which brings CSV, TSV and XML) is meant to be the only change `learn` needs.

/// One usable record: its body and truth label (decoded), where it came from.
struct _LearnRecord {
    var body: UnsafeRawBufferPointer
    var label: UnsafeRawBufferPointer
    var id: UnsafeRawBufferPointer?
    var sender: UnsafeRawBufferPointer?
    var fileIndex: Int
    var line: Int
}

/// Why a record was passed over, counted in the summary.
enum _LearnSkip: String, CaseIterable {
    case invalidJSON = "invalid JSON"
    case invalidUTF8 = "invalid UTF-8"
    case noBody = "no body"
    case noLabel = "no truth label"
    case tooLong = "longer than --max-record"
}

enum _LearnInput {
    /// Reads `inputs` once, in order, calling `record` for each record with a string body and a label.
    /// - Throws: ``PipelineError`` (missing input, damaged archive) or what `record` throws.
    static func read(
        inputs: [String], fields: FieldNames, truthField: String, maxRecord: Int,
        record: (_LearnRecord) throws(PipelineError) -> Void,
        skip: (_LearnSkip, Int, Int) -> Void,
        progress: (_StreamPosition) -> Void = { _ in }
    ) throws(PipelineError) {
        var body: [UInt8] = []
        var label: [UInt8] = []
        var id: [UInt8] = []
        var sender: [UInt8] = []
        try _RecordStream.read(
            inputs: inputs, keys: [fields.id, fields.body, truthField, fields.sender], bodySlot: 1, maxRecord: maxRecord,
            record: { r throws(PipelineError) in
                _ = r.value(1, into: &body)
                guard r.value(2, into: &label), !label.isEmpty else {
                    skip(.noLabel, r.fileIndex, r.lineNumber)
                    return
                }
                let hasID = r.value(0, into: &id)
                let hasSender = r.value(3, into: &sender) && r.fields[3].kind == .string
                var failure: PipelineError?
                body.withUnsafeBytes { b in
                    label.withUnsafeBytes { l in
                        id.withUnsafeBytes { i in
                            sender.withUnsafeBytes { s in
                                do throws(PipelineError) {
                                    try record(_LearnRecord(body: b, label: l, id: hasID ? i : nil, sender: hasSender ? s : nil,
                                                            fileIndex: r.fileIndex, line: r.lineNumber))
                                } catch { failure = error }
                            }
                        }
                    }
                }
                if let failure { throw failure }
            },
            skip: { reason, file, line in
                switch reason {
                case .invalidJSON: skip(.invalidJSON, file, line)
                case .invalidUTF8: skip(.invalidUTF8, file, line)
                case .noBody: skip(.noBody, file, line)
                case .tooLong: skip(.tooLong, file, line)
                }
            },
            progress: progress)
    }
}
