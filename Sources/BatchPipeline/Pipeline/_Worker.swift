// MARK: Internal API
//
// A worker turns one chunk of whole records into labelled output: parse (format-specific) → one batch
// classification → emit. All of its scratch is allocated once and reused, so steady-state work allocates
// nothing per message (rejects, rare, allocate their own copies).

import Dispatch
import MessageFilter

/// What a parser found in a chunk. Passed `inout` through a whole chunk, so the hot loops touch local
/// storage rather than class properties (which would pay a dynamic exclusivity check per access).
struct _Parsed {
    var records: [_Record] = []
    var spans: [MessageSpan] = []
    var verdicts: [Verdict] = []
    /// CSV: field boundaries of the current record (start, end, quoted).
    var csvFields: [(Int, Int, Bool)] = []
}

final class _Worker {
    let classifier: Classifier
    let emitter: _Emitter
    let options: PipelineOptions
    var parsed = _Parsed()
    let fields: UnsafeMutableBufferPointer<JSONField>

    init(ruleSet: RuleSet, emitter: _Emitter, options: PipelineOptions, keyCount: Int) {
        classifier = Classifier(ruleSet: ruleSet)
        self.emitter = emitter
        self.options = options
        fields = .allocate(capacity: keyCount)
        fields.initialize(repeating: JSONField())
        parsed.records.reserveCapacity(16_384)
        parsed.spans.reserveCapacity(16_384)
        parsed.verdicts.reserveCapacity(16_384)
        parsed.csvFields.reserveCapacity(64)
    }

    deinit { fields.deallocate() }

    func process(_ chunk: _Chunk) {
        // One exclusive access to `parsed` for the whole chunk.
        var out = _Parsed()
        swap(&out, &parsed)
        defer { swap(&out, &parsed) }
        out.records.removeAll(keepingCapacity: true)
        out.spans.removeAll(keepingCapacity: true)
        guard let file = chunk.file else { return }
        // Decoded strings go after the records; they are never longer than their source, so reserving
        // the records' size up front means the buffer cannot move while we parse.
        chunk.input.count = chunk.recordBytes
        chunk.input.reserve(chunk.recordBytes + 16)
        let t0 = options.collectStats ? DispatchTime.now().uptimeNanoseconds : 0
        switch file.format {
        case .jsonl: _JSONLParser.parse(chunk, file, self, &out)
        case .csv, .tsv: _DelimitedParser.parse(chunk, file, self, &out)
        case .xml: _XMLParser.parse(chunk, file, self, &out)
        }
        let t1 = options.collectStats ? DispatchTime.now().uptimeNanoseconds : 0
        classify(chunk, &out)
        let t2 = options.collectStats ? DispatchTime.now().uptimeNanoseconds : 0
        emit(chunk, file, out)
        if options.collectStats {
            let t3 = DispatchTime.now().uptimeNanoseconds
            chunk.parseNanos = t1 - t0
            chunk.classifyNanos = t2 - t1
            chunk.emitNanos = t3 - t2
        }
    }

    private func classify(_ chunk: _Chunk, _ parsed: inout _Parsed) {
        let n = parsed.spans.count
        if parsed.verdicts.count < n {
            parsed.verdicts.append(contentsOf: repeatElement(Verdict(), count: n - parsed.verdicts.count))
        }
        let buffer = UnsafeRawBufferPointer(start: chunk.input.storage, count: chunk.input.count)
        let classifier = self.classifier
        parsed.spans.withUnsafeBufferPointer { messages in
            parsed.verdicts.withUnsafeMutableBufferPointer { out in
                classifier.classify(
                    buffer: buffer, messages: messages, into: UnsafeMutableBufferPointer(rebasing: out[0..<n]))
            }
        }
    }

    private func emit(_ chunk: _Chunk, _ file: _FileState, _ parsed: _Parsed) {
        let records = parsed.records
        let verdicts = parsed.verdicts
        let emitter = self.emitter
        let labelsOnly = options.labelsOnly
        var counts = chunk.counts
        defer { chunk.counts = counts }
        let input = UnsafeRawBufferPointer(start: chunk.input.storage, count: chunk.input.count)
        let out = chunk.output
        var passthroughFrom = 0
        for k in 0..<records.count {
            let record = records[k]
            let verdict = verdicts[k]
            if record.insertAt < 0 {
                // A rejected XML element: left out of the output.
                if !labelsOnly {
                    out.append(UnsafeRawBufferPointer(rebasing: input[passthroughFrom..<record.rawStart]))
                }
                passthroughFrom = record.rawEnd
                continue
            }
            counts.labelled += 1
            counts.folders[emitter.folderIndex(verdict.folder)] += 1
            if verdict.rule >= 0 { counts.rules[Int(verdict.rule)] += 1 } else { counts.noRule += 1 }
            if let dropped = verdict.dropped {
                if dropped == .invalidPair { counts.invalidPair += 1 } else { counts.notDeclared += 1 }
            }
            if labelsOnly {
                emitter.appendLabelLine(record, verdict, input, chunk.firstLine, out)
                continue
            }
            switch file.format {
            case .jsonl:
                out.append(UnsafeRawBufferPointer(rebasing: input[record.rawStart..<record.insertAt]))
                out.append(record.emptyObject ? "" : ", ")
                emitter.appendKeyedObject(verdict, out)
                out.append("}\n")
            case .csv, .tsv:
                out.append(UnsafeRawBufferPointer(rebasing: input[record.rawStart..<record.contentEnd]))
                emitter.appendColumns(verdict, separator: file.separator, out)
                out.append(UnsafeRawBufferPointer(rebasing: input[record.contentEnd..<record.rawEnd]))
                if record.rawEnd == record.contentEnd { out.append(UInt8(ascii: "\n")) }
            case .xml:
                // Everything between records (prolog, other elements, whitespace) passes through.
                out.append(UnsafeRawBufferPointer(rebasing: input[passthroughFrom..<record.insertAt]))
                emitter.appendAttributes(verdict, out)
                out.append(UnsafeRawBufferPointer(rebasing: input[record.insertAt..<record.rawEnd]))
                passthroughFrom = record.rawEnd
            }
        }
        if file.format == .xml && !labelsOnly {
            out.append(UnsafeRawBufferPointer(rebasing: input[passthroughFrom..<chunk.recordBytes]))
        }
    }

    // MARK: Helpers for the parsers

    /// Rejects the record `[start, end)` of the chunk.
    func reject(_ chunk: _Chunk, start: Int, end: Int, line: Int, reason: String) {
        chunk.counts.rejected += 1
        let input = UnsafeRawBufferPointer(start: chunk.input.storage, count: chunk.recordBytes)
        chunk.rejects.append(
            _Reject(relativeLine: line, reason: reason, raw: Array(input[start..<end]), length: end - start))
    }

    /// Appends a decoded string to the chunk's scratch area; returns its span in the chunk buffer.
    @inline(__always)
    func appendScratch(_ chunk: _Chunk, _ produce: (_ByteBuffer) -> Void) -> (Int, Int) {
        let start = chunk.input.count
        produce(chunk.input)
        return (start, chunk.input.count)
    }
}
