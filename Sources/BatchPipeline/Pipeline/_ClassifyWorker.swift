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
    private let lock = NSLock()
    // Guarded by `lock`; set once.
    private var decided: (format: InputFormat, writer: any _RecordWriter)?

    init(emitter: _Emitter, labelsOnly: Bool, requested: InputFormat?, path: String?) {
        self.emitter = emitter
        self.labelsOnly = labelsOnly
        self.requested = requested
        self.path = path
    }

    /// The output format and the writer of converted records (after ``decide(first:)``).
    var current: (format: InputFormat, writer: any _RecordWriter)? {
        lock.lock()
        defer { lock.unlock() }
        return decided
    }

    /// Decides the format from the first file opened, and refuses an output name that says another one.
    func decide(first file: _FileState) throws(PipelineError) {
        lock.lock()
        defer { lock.unlock() }
        guard decided == nil else { return }
        let format = requested ?? file.format
        decided = (format, _Drivers.writer(format, emitter))
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

final class _ClassifyWorker: _ChunkWorker {
    private(set) var classifier: Classifier
    let ruleSet: RuleSet
    let plan: _OutputPlan
    let collectStats: Bool
    let scratch = _ParseScratch()

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
    /// character for XML: ``_FormatLimits``) are rejected with the reason, in their place among the chunk's
    /// rejects, as the reader rejects such a record in that format: never changed, never dropped.
    private func rejectUnwritable(_ chunk: _Chunk, _ file: _FileState, _ parsed: inout _Parsed) {
        guard !plan.labelsOnly, let (format, writer) = plan.current, format != file.format else { return }
        let before = chunk.rejects.count
        for k in 0..<parsed.records.count where !parsed.records[k].isRejected {
            let refusal = chunk.input.withUnsafeBytes { writer.refusal(convertedRecord(k, file, parsed, $0)) }
            guard let why = refusal else { continue }
            let r = parsed.records[k]
            chunk.reject(
                start: r.rawStart, end: r.contentEnd > r.rawStart ? r.contentEnd : r.rawEnd, line: r.relativeLine,
                reason: "not writable as \(format.rawValue): \(why)", category: "not writable as \(format.rawValue)")
            parsed.records[k].insertAt = -1
        }
        if chunk.rejects.count > before { chunk.rejects.sort { $0.offset < $1.offset } }
    }

    /// Record `k`'s fields as a converting writer takes them.
    private func convertedRecord(_ k: Int, _ file: _FileState, _ parsed: _Parsed, _ input: UnsafeRawBufferPointer) -> _ConvertedRecord {
        let r = parsed.records[k]
        let s = parsed.spans[k]
        func bytes(_ start: Int, _ end: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: input[start..<end]) }
        var c = _ConvertedRecord(body: bytes(s.bodyStart, s.bodyStart + s.bodyCount))
        if r.idEnd >= r.idStart {
            c.id = bytes(r.idStart, r.idEnd)
            c.idIsJSON = r.idIsJSON
        }
        if s.senderCount >= 0 { c.sender = bytes(s.senderStart, s.senderStart + s.senderCount) }
        if let ts = file.driver.layout.timestamp, case let f = parsed.field(k, ts), f.isPresent { c.timestamp = bytes(f.start, f.end) }
        return c
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
        guard let (_, writer) = plan.current else { return }
        for k in 0..<parsed.records.count where !parsed.records[k].isRejected {
            writer.write(convertedRecord(k, file, parsed, input), parsed.verdicts[k], out)
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
