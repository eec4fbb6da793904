// MARK: Internal API
//
// classify's worker: one chunk of whole records → parse (the file's driver) → one batch classification →
// labelled output. All of its scratch is allocated once and reused, so steady-state work allocates nothing
// per message (rejects, rare, allocate their own copies).

import Dispatch
import Foundation
import MessageFilter

/// How classify writes records, decided once when the first file is opened (``PipelineOptions/outputFormat``,
/// or the first file's format), before any of its chunks reaches a worker.
final class _OutputPlan: @unchecked Sendable {
    let emitter: _Emitter
    let labelsOnly: Bool
    let requested: InputFormat?
    let path: String?
    /// The field options, for the names converted records carry (``_RecordFields/renames(from:to:fields:)``).
    let fields: FieldNames
    private let lock = NSLock()
    // Guarded by `lock`; set once.
    private var decided: (format: InputFormat, writer: any _RecordWriter)?

    init(emitter: _Emitter, labelsOnly: Bool, requested: InputFormat?, path: String?, fields: FieldNames) {
        self.emitter = emitter
        self.labelsOnly = labelsOnly
        self.requested = requested
        self.path = path
        self.fields = fields
    }

    /// The output format and the writer of converted records (after ``decide(first:)``).
    var current: (format: InputFormat, writer: any _RecordWriter)? {
        lock.lock()
        defer { lock.unlock() }
        return decided
    }

    /// Decides the format from the first file opened, and refuses an output name that says another one. CSV
    /// and TSV written from another format take their columns from that file's fields (`head`: the chunk of
    /// its first bytes).
    func decide(first file: _FileState, head: _Chunk) throws(PipelineError) {
        lock.lock()
        defer { lock.unlock() }
        guard decided == nil else { return }
        let format = requested ?? file.format
        var columns: [[UInt8]] = []
        if !labelsOnly && (format == .csv || format == .tsv) {
            columns = try Self.columns(file, head, format, fields)
        }
        decided = (format, _Drivers.writer(format, emitter, columns: columns))
        guard let path, path != "-", let named = InputFormat.named(by: path) else { return }
        let written = labelsOnly ? InputFormat.jsonl : format
        guard named != written else { return }
        let why = labelsOnly ? "labels (--labels-only) are JSON Lines" : requested != nil
            ? "--output-format is \(format.rawValue)" : "records are written in the input's format, \(format.rawValue) (\(file.displayPath))"
        throw PipelineError(
            .usage,
            "\(path): the name says \(named.rawValue), but \(why); "
                + (labelsOnly ? "name it .jsonl" : "give --output-format \(named.rawValue) to convert, or a name ending in .\(format.rawValue)"))
    }
}

extension _OutputPlan {
    /// The columns of CSV or TSV converted from `file`: the fields of the records in `head`, renamed as the
    /// records will be (a name already taken stays).
    static func columns(_ file: _FileState, _ head: _Chunk, _ format: InputFormat, _ fields: FieldNames) throws(PipelineError) -> [[UInt8]] {
        var columns = head.input.withUnsafeBytes { file.driver.fieldNames(in: $0) }
        for (from, to) in _RecordFields.renames(from: file.format, to: format, fields: fields) where !columns.contains(to) {
            if let k = columns.firstIndex(of: from) { columns[k] = to }
        }
        for name in columns {
            let unfit = name.withUnsafeBytes { _FormatLimits.delimited($0, tsv: format == .tsv) }
            if let unfit {
                throw PipelineError(
                    .badInput, "\(file.displayPath): the field name \"\(EchoedText.escaped(String(decoding: name, as: UTF8.self)))\" holds \(unfit): it cannot be a \(format.rawValue) column")
            }
        }
        return columns
    }
}

final class _ClassifyWorker: _ChunkWorker {
    private(set) var classifier: Classifier
    let ruleSet: RuleSet
    let plan: _OutputPlan
    let collectStats: Bool
    let scratch = _ParseScratch()
    /// A converted record's fields (``_RecordFields``), refilled record after record.
    let fields = _RecordFields()

    init(ruleSet: RuleSet, plan: _OutputPlan, collectStats: Bool) {
        classifier = Classifier(ruleSet: ruleSet)
        self.ruleSet = ruleSet
        self.plan = plan
        self.collectStats = collectStats
    }

    func process(_ chunk: _Chunk) {
        guard chunk.piece == nil, let file = chunk.file else { return }
        let t0 = collectStats ? DispatchTime.now().uptimeNanoseconds : 0
        scratch.parse(chunk)
        let t1 = collectStats ? DispatchTime.now().uptimeNanoseconds : 0
        _classifyParsed(classifier, chunk, &scratch.parsed)
        if chunk.overLongBytes > 0 {
            // The classifier keeps its match buffers at the size of the most hits one message gave it: after
            // a record longer than a chunk, a fresh one, so that each worker does not keep a long record's
            // worth (rare: only chunks that held the over-long budget; the normal path allocates nothing).
            classifier = Classifier(ruleSet: ruleSet)
        }
        let t2 = collectStats ? DispatchTime.now().uptimeNanoseconds : 0
        rejectUnwritable(chunk, file, &scratch.parsed)
        count(chunk, scratch.parsed)
        emit(chunk, file, scratch.parsed)
        if collectStats {
            chunk.parseNanos = t1 - t0
            chunk.classifyNanos = t2 - t1
            chunk.emitNanos = DispatchTime.now().uptimeNanoseconds - t2
        }
    }

    /// Labelled records, folders, rules and dropped sub-actions.
    private func count(_ chunk: _Chunk, _ parsed: _Parsed) {
        let emitter = plan.emitter
        var counts = chunk.counts
        defer { chunk.counts = counts }
        for k in 0..<parsed.records.count where !parsed.records[k].isRejected {
            let v = parsed.verdicts[k]
            counts.labelled += 1
            counts.folders[emitter.folderIndex(v.folder)] += 1
            if v.rule >= 0 { counts.rules[Int(v.rule)] += 1 } else { counts.noRule += 1 }
            if let dropped = v.dropped {
                if dropped == .invalidPair { counts.invalidPair += 1 } else { counts.notDeclared += 1 }
            }
        }
    }

    /// Records converted to another format that it cannot hold (a NUL for CSV, a tab for TSV, a control
    /// character for XML: ``_FormatLimits``; a field that is not a CSV column) are rejected with the reason,
    /// in their place among the chunk's rejects, as the reader rejects such a record in that format: never
    /// changed, never dropped.
    private func rejectUnwritable(_ chunk: _Chunk, _ file: _FileState, _ parsed: inout _Parsed) {
        guard !plan.labelsOnly, let (format, writer) = plan.current, format != file.format else { return }
        let before = chunk.rejects.count
        let renames = _RecordFields.renames(from: file.format, to: format, fields: plan.fields)
        for k in 0..<parsed.records.count where !parsed.records[k].isRejected {
            let refusal = chunk.input.withUnsafeBytes { input in
                readFields(parsed.records[k], file, renames, input) ?? writer.refusal(fields)
            }
            guard let why = refusal else { continue }
            let r = parsed.records[k]
            chunk.reject(
                start: r.rawStart, end: r.contentEnd > r.rawStart ? r.contentEnd : r.rawEnd, line: r.relativeLine,
                reason: "not writable as \(format.rawValue): \(why)", category: "not writable as \(format.rawValue)")
            parsed.records[k].insertAt = -1
        }
        if chunk.rejects.count > before { chunk.rejects.sort { $0.offset < $1.offset } }
    }

    /// Reads record `r`'s fields into ``fields``, renamed for the output's format; returns why one cannot be
    /// read, or nil.
    private func readFields(_ r: _Record, _ file: _FileState, _ renames: [([UInt8], [UInt8])], _ input: UnsafeRawBufferPointer) -> String? {
        if let why = file.driver.recordFields(r, input, into: fields) { return why }
        fields.apply(renames)
        return nil
    }

    private func emit(_ chunk: _Chunk, _ file: _FileState, _ parsed: _Parsed) {
        if plan.labelsOnly || plan.current?.format != file.format {
            chunk.input.withUnsafeBytes { emit(chunk, $0, file, parsed) }
        } else {
            file.driver.emitLabelled(chunk, parsed, plan.emitter, into: chunk.output)
        }
    }

    /// Labels only, or records converted to another format: from the chunk's bytes, `input`.
    private func emit(_ chunk: _Chunk, _ input: UnsafeRawBufferPointer, _ file: _FileState, _ parsed: _Parsed) {
        let out = chunk.output
        let emitter = plan.emitter
        if plan.labelsOnly {
            // The chunk's first line only for a record without an id: the ledger may wait for the counts
            // of the chunks before it (published by now: `_LineLedger`), so a chunk of ids never asks.
            var firstLine: Int?
            for k in 0..<parsed.records.count where !parsed.records[k].isRejected {
                let r = parsed.records[k]
                if r.idEnd < r.idStart && firstLine == nil { firstLine = chunk.firstLine() }
                emitter.appendLabelLine(r, parsed.verdicts[k], input, firstLine ?? 0, out)
            }
            return
        }
        guard let (format, writer) = plan.current else { return }
        let renames = _RecordFields.renames(from: file.format, to: format, fields: plan.fields)
        for k in 0..<parsed.records.count where !parsed.records[k].isRejected {
            // Read without a problem: ``rejectUnwritable(_:_:_:)`` rejected the records it found one in.
            _ = readFields(parsed.records[k], file, renames, input)
            writer.write(fields, parsed.verdicts[k], out)
        }
    }
}

/// Classifies every record of `parsed` in one batch call into `parsed.verdicts` (the matcher advances
/// several messages in lockstep), recording how in `trace` when given.
func _classifyParsed(_ classifier: Classifier, _ chunk: _Chunk, _ parsed: inout _Parsed, trace: DecisionTrace? = nil) {
    let n = parsed.spans.count
    if parsed.verdicts.count < n {
        parsed.verdicts.append(contentsOf: repeatElement(Verdict(), count: n - parsed.verdicts.count))
    }
    chunk.input.withUnsafeBytes { buffer in
        parsed.spans.withUnsafeBufferPointer { messages in
            parsed.verdicts.withUnsafeMutableBufferPointer { out in
                let verdicts = UnsafeMutableBufferPointer(rebasing: out[0..<n])
                if let trace {
                    classifier.classify(buffer: buffer, messages: messages, into: verdicts, trace: trace)
                } else {
                    classifier.classify(buffer: buffer, messages: messages, into: verdicts)
                }
            }
        }
    }
}
