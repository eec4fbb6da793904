// MARK: Internal API
//
// export on the chunk fan-out. A worker labels a chunk's records (their own labels, the rules in one batch
// call, or a field), computes each one's split and duplicate key and formats its training line into the
// chunk's output; the writer, in input order, de-duplicates, applies the per-label cap and writes each line
// to its split's file.

import Dispatch
import MessageFilter
import ArchiveIO

/// One formatted record of a chunk.
struct _ExportLine {
    var start: Int
    var end: Int
    var split: TrainingSplit
    /// Index into the chunk's label table.
    var label: Int
    var idHash: UInt64
    /// The normalised body's hash (0 when duplicates are not tracked).
    var key: UInt64
}

/// A chunk's export results (its attachment), reused chunk after chunk.
final class _ExportTally {
    var lines: [_ExportLine] = []
    var labels: [String] = []
    var noLabel = 0
    /// Records whose fields the training file's format cannot hold (a NUL byte in CSV: ``_FormatLimits``).
    var unwritable = 0
    var withoutId = 0
    var sources: [String: Int] = [:]
    var usedRules = false

    func reset() {
        lines.removeAll(keepingCapacity: true)
        labels.removeAll(keepingCapacity: true)
        noLabel = 0
        unwritable = 0
        withoutId = 0
        sources.removeAll(keepingCapacity: true)
        usedRules = false
    }

    func labelIndex(_ label: String) -> Int {
        if let i = labels.firstIndex(of: label) { return i }
        labels.append(label)
        return labels.count - 1
    }
}

final class _ExportWorker: _ChunkWorker {
    let options: ExportOptions
    let classifier: Classifier
    let scratch = _ParseScratch()
    /// Records that need the rules (auto: those without labels of their own).
    private var pending: [MessageSpan] = []
    private var pendingIndex: [Int] = []
    private var verdicts: [Verdict] = []
    /// Per record of the chunk: whether the rules labelled it.
    private var ruled: [Bool] = []

    init(options: ExportOptions, ruleSet: RuleSet) {
        self.options = options
        classifier = Classifier(ruleSet: ruleSet)
    }

    func process(_ chunk: _Chunk) {
        let tally = (chunk.attachment as? _ExportTally) ?? _ExportTally()
        chunk.attachment = tally
        tally.reset()
        guard chunk.piece == nil, let file = chunk.file else { return }
        scratch.parse(chunk)
        // One scope over the parsed chunk's bytes (records and decoded strings); nothing appends to them.
        chunk.input.withUnsafeBytes { all in labelAndFormat(chunk, all, scratch.parsed, file, tally) }
    }

    /// Labels the records of `chunk` (its bytes `all`) and formats those with a label into its output.
    private func labelAndFormat(_ chunk: _Chunk, _ all: UnsafeRawBufferPointer, _ parsed: _Parsed, _ file: _FileState, _ tally: _ExportTally) {
        var labels = [String?](repeating: nil, count: parsed.records.count)
        ruled.removeAll(keepingCapacity: true)
        ruled.append(contentsOf: repeatElement(false, count: parsed.records.count))
        var source = "rules"
        switch options.labelSource {
        case .field:
            source = "field"
            let slot = file.driver.layout.extra(0)
            for k in 0..<parsed.records.count {
                let f = parsed.field(k, slot)
                if f.isPresent { labels[k] = String(decoding: UnsafeRawBufferPointer(rebasing: all[f.start..<f.end]), as: UTF8.self) }
            }
        case .auto:
            for k in 0..<parsed.records.count where !parsed.records[k].isRejected {
                labels[k] = file.driver.existingLabels(chunk, parsed, k).flatMap(label)
            }
            labelWithRules(all, parsed, &labels, tally)
        case .rules:
            labelWithRules(all, parsed, &labels, tally)
        }
        for k in 0..<parsed.records.count where !parsed.records[k].isRejected {
            guard let label = labels[k] else {
                tally.noLabel += 1
                continue
            }
            if options.format == .csv, holdsNUL(chunk, all, parsed, k) {
                tally.unwritable += 1
                continue
            }
            tally.sources[ruled[k] ? "rules" : source == "field" ? "field" : "filter", default: 0] += 1
            line(chunk, all, parsed, k, label: label, tally)
        }
    }

    /// Whether record `k`'s id, body or sender holds a NUL byte, which a CSV file cannot hold (``_FormatLimits``).
    private func holdsNUL(_ chunk: _Chunk, _ all: UnsafeRawBufferPointer, _ parsed: _Parsed, _ k: Int) -> Bool {
        let s = parsed.spans[k]
        if _FormatLimits.delimited(UnsafeRawBufferPointer(rebasing: all[s.bodyStart..<(s.bodyStart + s.bodyCount)]), tsv: false) != nil { return true }
        if s.senderCount > 0,
            _FormatLimits.delimited(UnsafeRawBufferPointer(rebasing: all[s.senderStart..<(s.senderStart + s.senderCount)]), tsv: false) != nil
        {
            return true
        }
        return chunk.idText(parsed.records[k])?.contains(0) ?? false
    }

    /// The label of labels a record carried, as `labelKind` asks (nil when it cannot say).
    private func label(_ e: _ExistingLabels) -> String? {
        switch options.labelKind {
        case .folder: return e.folder
        case .action: return e.action
        case .actionSubAction:
            guard let action = e.action else { return nil }
            return e.subAction.map { "\(action)/\($0)" } ?? action
        }
    }

    /// Classifies, in one batch call, the records still without a label.
    private func labelWithRules(_ buffer: UnsafeRawBufferPointer, _ parsed: _Parsed, _ labels: inout [String?], _ tally: _ExportTally) {
        pending.removeAll(keepingCapacity: true)
        pendingIndex.removeAll(keepingCapacity: true)
        for k in 0..<parsed.records.count where !parsed.records[k].isRejected && labels[k] == nil {
            pending.append(parsed.spans[k])
            pendingIndex.append(k)
        }
        guard !pending.isEmpty else { return }
        tally.usedRules = true
        if verdicts.count < pending.count { verdicts += repeatElement(Verdict(), count: pending.count - verdicts.count) }
        pending.withUnsafeBufferPointer { spans in
            verdicts.withUnsafeMutableBufferPointer { out in
                classifier.classify(buffer: buffer, messages: spans, into: UnsafeMutableBufferPointer(rebasing: out[0..<spans.count]))
            }
        }
        for (j, k) in pendingIndex.enumerated() {
            let v = verdicts[j]
            ruled[k] = true
            labels[k] = _ExportText.label(v.action, v.subAction, v.folder, options.labelKind)
        }
    }

    /// The split, the duplicate key and the formatted line of record `k`.
    private func line(_ chunk: _Chunk, _ all: UnsafeRawBufferPointer, _ parsed: _Parsed, _ k: Int, label: String, _ tally: _ExportTally) {
        let r = parsed.records[k]
        let s = parsed.spans[k]
        let body = UnsafeRawBufferPointer(rebasing: all[s.bodyStart..<(s.bodyStart + s.bodyCount)])
        let id = chunk.idText(r)
        let hash: UInt64
        if let id {
            hash = StableHash.id(id)
        } else {
            tally.withoutId += 1
            hash = StableHash.id(body)
        }
        let key = options.trackDuplicates || options.deduplicate ? StableHash.normalizedBody(body) : 0
        let out = chunk.output
        let start = out.count
        let sender = s.senderCount >= 0 ? UnsafeRawBufferPointer(rebasing: all[s.senderStart..<(s.senderStart + s.senderCount)]) : nil
        format(all, r, body: body, id: id, sender: sender, label: label, out)
        tally.lines.append(_ExportLine(
            start: start, end: out.count, split: options.ratios.split(forHash: hash), label: tally.labelIndex(label), idHash: hash, key: key))
    }

    /// One record of a split. The sender is kept (last, so that readers of the three older columns are
    /// unchanged): an exported test split must exercise sender rules in `evaluate` as the archive would.
    private func format(
        _ all: UnsafeRawBufferPointer, _ r: _Record, body: UnsafeRawBufferPointer, id: [UInt8]?, sender: UnsafeRawBufferPointer?, label: String,
        _ out: _ByteBuffer
    ) {
        switch options.format {
        case .jsonl:
            // JSON Lines input keeps its raw id and body values; other formats' text is encoded.
            out.append("{\"id\": ")
            if r.idIsJSON {
                out.append(all, r.idStart..<r.idEnd)
            } else if let id {
                id.withUnsafeBytes { out.appendJSONString($0) }
            } else {
                out.append("null")
            }
            out.append(", \"label\": ")
            out.appendJSONString(label)
            out.append(", \"body\": ")
            if r.bodyRawEnd > r.bodyRawStart { out.append(all, r.bodyRawStart..<r.bodyRawEnd) } else { out.appendJSONString(body) }
            out.append(", \"sender\": ")
            if let sender { out.appendJSONString(sender) } else { out.append("null") }
            out.append("}\n")
        case .csv:
            if let id { id.withUnsafeBytes { _ExportText.appendCSV($0, out) } }
            out.append(UInt8(ascii: ","))
            var l = label
            l.withUTF8 { _ExportText.appendCSV(UnsafeRawBufferPointer($0), out) }
            out.append(UInt8(ascii: ","))
            _ExportText.appendCSV(body, out)
            out.append(UInt8(ascii: ","))
            if let sender { _ExportText.appendCSV(sender, out) }
            out.append(UInt8(ascii: "\n"))
        case .fasttext:
            out.append(Array(options.labelPrefix.utf8))
            out.append(Array(_ExportText.fastTextLabel(label).utf8))
            out.append(UInt8(ascii: " "))
            _ExportText.appendFastTextBody(body, prefix: Array(options.labelPrefix.utf8), out)
            out.append(UInt8(ascii: "\n"))
        }
    }
}

/// The writer side: duplicates, the cap, the files, the stats.
final class _ExportSink: _ChunkSink {
    let options: ExportOptions
    /// Per part (``TrainingSplit/rawValue``); nil for a part of weight 0, which no record is given.
    let outputs: [OutputFile?]
    var stats: ExportStats
    var usedRules = false
    var damage: String?
    /// Normalised-body hash → bit per split seen (1 << split); bit 7: seen.
    var seen: [UInt64: UInt8] = [:]
    var heaps: [String: _BoundedHeap] = [:]
    private var sequence = 0
    private var throttle = _ProgressThrottle()
    private let readProgress: _ReadProgress
    private let fileCount: Int
    private var bytes: Int64 = 0

    init(options: ExportOptions, outputs: [OutputFile?], stats: ExportStats, reader: _ReadProgress, fileCount: Int) {
        self.options = options
        self.outputs = outputs
        self.stats = stats
        readProgress = reader
        self.fileCount = fileCount
    }

    func consume(_ chunk: _Chunk) throws(PipelineError) {
        bytes += Int64(chunk.decodedBytes)
        if let tally = chunk.attachment as? _ExportTally, chunk.piece == nil {
            stats.records += tally.lines.count + tally.noLabel + tally.unwritable
            if tally.noLabel > 0 { stats.skipped["no label", default: 0] += tally.noLabel }
            if tally.unwritable > 0 { stats.skipped["a NUL byte, which CSV cannot hold", default: 0] += tally.unwritable }
            stats.withoutId += tally.withoutId
            for (source, n) in tally.sources { stats.labelSources[source, default: 0] += n }
            usedRules = usedRules || tally.usedRules
            try chunk.output.withUnsafeBytes { (lines) throws(PipelineError) in
                for line in tally.lines { try add(line, tally.labels[line.label], lines) }
            }
        }
        chunk.forEachRejected { category, _ in
            stats.records += 1
            stats.skipped[category, default: 0] += 1
        }
        if chunk.isLastOfFile, damage == nil, let error = chunk.fileError { damage = error }
        let (file, read, total) = readProgress.snapshot()
        throttle.tick(
            records: stats.records, rejected: stats.skipped.values.reduce(0, +), bytes: bytes, file: file, fileCount: fileCount,
            read: read, total: total, options.progress)
    }

    private func add(_ line: _ExportLine, _ label: String, _ output: UnsafeRawBufferPointer) throws(PipelineError) {
        if options.trackDuplicates || options.deduplicate {
            let bit = UInt8(1) << UInt8(line.split.rawValue)
            if let mask = seen[line.key] {
                stats.duplicates += 1
                if options.deduplicate {
                    stats.duplicatesDropped += 1
                    return
                }
                if mask & bit == 0 {
                    stats.leakedRecords += 1
                    seen[line.key] = mask | bit
                }
            } else {
                seen[line.key] = 0x80 | bit
            }
        }
        let bytes = UnsafeRawBufferPointer(rebasing: output[line.start..<line.end])
        if let cap = options.maxPerLabel {
            sequence += 1
            let held = _HeldRecord(hash: StableHash.selection(line.idHash), sequence: sequence, split: line.split, label: label, line: Array(bytes))
            var heap = heaps.removeValue(forKey: label) ?? _BoundedHeap(capacity: cap)
            if heap.offer(held) { stats.cappedOut += 1 }
            heaps[label] = heap
            return
        }
        stats.written += 1
        stats.splits[line.split.name, default: [:]][label, default: 0] += 1
        do { try outputs[line.split.rawValue]!.write(bytes) } catch { throw PipelineError(.outputFailed, error.description) }
    }

    /// The held records (with a cap), in input order; the duplicate figures.
    func finish() throws(PipelineError) {
        if options.trackDuplicates || options.deduplicate {
            stats.distinctBodies = seen.count
            for mask in seen.values where (mask & 0x07).nonzeroBitCount > 1 { stats.leakedBodies += 1 }
        }
        guard options.maxPerLabel != nil else { return }
        let held = heaps.values.flatMap(\.items).sorted { $0.sequence < $1.sequence }
        heaps = [:]
        for record in held {
            stats.written += 1
            stats.splits[record.split.name, default: [:]][record.label, default: 0] += 1
            do { try outputs[record.split.rawValue]!.write(record.line) } catch { throw PipelineError(.outputFailed, error.description) }
        }
    }
}

/// One export run: the reader, the workers and the writer.
struct _ExportJob {
    let options: ExportOptions
    let ruleSet: RuleSet
    let outputs: [OutputFile?]

    init(exporter: TrainingSetExporter, outputs: [OutputFile?]) {
        options = exporter.options
        ruleSet = exporter.ruleSet
        self.outputs = outputs
    }

    func run(inputs: [String], stats: inout ExportStats) throws(PipelineError) {
        if options.format == .csv {
            for o in outputs.compactMap({ $0 }) {
                do { try o.write(Array("id,label,body,sender\n".utf8)) } catch { throw PipelineError(.outputFailed, error.description) }
            }
        }
        let threads = max(1, options.threads)
        let pool = _ChunkPool(slots: 2 * threads + 2, chunkSize: options.chunkSize, folders: 1, rules: 1)
        var read = options.readOptions(threads: threads)
        if case .field(let name) = options.labelSource { read.record.fields.extra = [name] }
        read.wantsExistingLabels = options.labelSource == .auto
        read.filterKey = options.filterKey
        let reader = _RecordReader(inputs: inputs, options: read, pool: pool)
        let sink = _ExportSink(options: options, outputs: outputs, stats: stats, reader: reader.progress, fileCount: inputs.count)
        let (options, ruleSet) = (self.options, self.ruleSet)
        try _FanOut(pool: pool).run(
            reader: reader, threads: threads, makeWorker: { _ExportWorker(options: options, ruleSet: ruleSet) }, sink: sink)
        try sink.finish()
        if let damage = sink.damage { throw PipelineError(.badInput, damage) }
        // Records without a label were read: only the reader's refusals count as "nothing read".
        if let failure = PipelineError.nothingRead(records: sink.stats.records, rejected: sink.stats.skipped.filter { $0.key != "no label" }) {
            throw failure
        }
        stats = sink.stats
        if sink.usedRules { stats.ruleSet = ruleSet.checksum }
    }
}
