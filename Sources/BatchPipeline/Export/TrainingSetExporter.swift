import Dispatch
import Foundation
import MessageFilter
import ZstdStream

/// `smsfilter export`: JSON Lines archives in, `train`, `validation` and `test` files out.
///
/// One pass over the input, in input order:
/// 1. the label: the record's `filter` object, the rules, or a field (``ExportOptions/LabelSource``);
/// 2. the split: ``SplitRatios/split(forHash:)`` of ``StableHash/id(_:)`` of the id (of the body when the
///    record has none), so a record keeps its split when the corpus grows;
/// 3. duplicates: the 64-bit hash of the normalised body (``StableHash/normalizedBody(_:)``) is looked up
///    in a table of one hash and one byte of split bits per distinct body, which counts duplicates and
///    cross-split leaks and, with ``ExportOptions/deduplicate``, drops every repeat after the first;
/// 4. the cap: with ``ExportOptions/maxPerLabel`` N, a bounded max-heap per label keeps the N records with
///    the smallest ``StableHash/selection(_:)`` ranks, a second hash of the id independent of the split
///    (written in input order at the end);
/// 5. the record is written to its split's file.
///
/// Memory: one read buffer, the duplicate table (about 16–40 bytes per distinct body, never the bodies),
/// and with a cap, N formatted records per label.
public final class TrainingSetExporter {
    public let options: ExportOptions
    /// The rules that label records without a `filter` object (or every record with ``ExportOptions/LabelSource/rules``).
    public let ruleSet: RuleSet

    public init(ruleSet: RuleSet, options: ExportOptions) {
        self.ruleSet = ruleSet
        self.options = options
    }

    /// The output path of `split`.
    public func path(of split: TrainingSplit) -> String {
        let name = "\(split.name).\(options.format.fileExtension)" + (options.compressionLevel != nil ? ".zst" : "")
        return (options.outputFolder as NSString).appendingPathComponent(name)
    }

    /// Runs the export.
    ///
    /// - Throws: ``PipelineError``: an input missing (66), an output that cannot be written (73), a
    ///   damaged archive (65). Outputs are then abandoned: no finished-looking file is left.
    public func run(inputs: [String]) throws(PipelineError) -> ExportStats {
        let started = DispatchTime.now()
        var stats = ExportStats()
        stats.ratios = options.ratios.description
        stats.labelKind = options.labelKind.rawValue
        stats.format = options.format.rawValue
        stats.deduplicated = options.deduplicate
        stats.duplicatesTracked = options.trackDuplicates || options.deduplicate
        stats.maxPerLabel = options.maxPerLabel
        for split in TrainingSplit.allCases { stats.splits[split.name] = [:] }

        var outputs: [OutputFile] = []
        do {
            var isFolder = false
            if !_fileExists(options.outputFolder, &isFolder) {
                try FileManager.default.createDirectory(atPath: options.outputFolder, withIntermediateDirectories: true)
            }
        } catch {
            throw PipelineError(.outputFailed, "\(options.outputFolder): cannot create the folder: \(error.localizedDescription)")
        }
        do {
            for split in TrainingSplit.allCases {
                let compression: OutputFile.Compression = options.compressionLevel.map { .zstd(level: $0, workers: 0) } ?? .none
                outputs.append(try OutputFile(path: path(of: split), compression: compression, existing: options.existing))
            }
        } catch {
            for o in outputs { o.abandon() }
            throw PipelineError(.outputFailed, error.description)
        }
        stats.files = TrainingSplit.allCases.map { path(of: $0) }
        do throws(PipelineError) {
            try _ExportJob(exporter: self, outputs: outputs).run(inputs: inputs, stats: &stats)
            for o in outputs {
                do { try o.finish() } catch { throw PipelineError(.outputFailed, error.description) }
            }
        } catch {
            for o in outputs { o.abandon() }
            throw error
        }
        stats.seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        return stats
    }
}

/// A record held back by the per-label cap.
struct _HeldRecord {
    var hash: UInt64
    var sequence: Int
    var split: TrainingSplit
    var label: String
    var line: [UInt8]
    /// Heap order: the largest (hash, sequence) on top, so it is the one evicted.
    func isAbove(_ other: _HeldRecord) -> Bool { (hash, sequence) > (other.hash, other.sequence) }
}

/// A max-heap of at most `capacity` records: keeps the `capacity` smallest.
struct _BoundedHeap {
    let capacity: Int
    var items: [_HeldRecord] = []

    /// Offers `item`; returns whether a record was left out (either `item` or the evicted top).
    mutating func offer(_ item: _HeldRecord) -> Bool {
        if items.count < capacity {
            items.append(item)
            siftUp(items.count - 1)
            return false
        }
        guard let top = items.first, top.isAbove(item) else { return true }
        items[0] = item
        siftDown(0)
        return true
    }

    private mutating func siftUp(_ start: Int) {
        var i = start
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i].isAbove(items[parent]) else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1
            let r = l + 1
            var top = i
            if l < items.count && items[l].isAbove(items[top]) { top = l }
            if r < items.count && items[r].isAbove(items[top]) { top = r }
            if top == i { return }
            items.swapAt(i, top)
            i = top
        }
    }
}

/// One export run's state.
final class _ExportJob {
    let options: ExportOptions
    let ruleSet: RuleSet
    let outputs: [OutputFile]
    lazy var classifier = Classifier(ruleSet: ruleSet)
    let line = _ByteBuffer(capacity: 64 * 1024)
    var id: [UInt8] = []
    var body: [UInt8] = []
    var sender: [UInt8] = []
    var labelBytes: [UInt8] = []
    /// Normalised-body hash → bit per split seen (1 << split); bit 7: seen.
    var seen: [UInt64: UInt8] = [:]
    var heaps: [String: _BoundedHeap] = [:]
    var sequence = 0
    let filterFields = UnsafeMutableBufferPointer<JSONField>.allocate(capacity: 3)
    let filterKeys: _FileState

    static let idSlot = 0, senderSlot = 1, bodySlot = 2, filterSlot = 3, labelSlot = 4

    init(exporter: TrainingSetExporter, outputs: [OutputFile]) {
        options = exporter.options
        ruleSet = exporter.ruleSet
        self.outputs = outputs
        filterFields.initialize(repeating: JSONField())
        filterKeys = _FileState(index: 0, path: "", format: .jsonl, keys: ["action", "subAction", "folder"])
    }

    deinit { filterFields.deallocate() }

    func run(inputs: [String], stats: inout ExportStats) throws(PipelineError) {
        var keys = [options.fields.id, options.fields.sender, options.fields.body, options.filterKey]
        if case .field(let name) = options.labelSource { keys.append(name) }
        if options.format == .csv {
            for o in outputs { try write(o, Array("id,label,body\n".utf8)) }
        }
        var usedRules = false
        var throttle = _ProgressThrottle()
        try _RecordStream.read(
            inputs: inputs, keys: keys, bodySlot: Self.bodySlot, maxRecord: options.maxRecord,
            record: { (r) throws(PipelineError) in
                stats.records += 1
                try self.process(r, &stats, &usedRules)
            },
            skip: { reason, _, _ in
                stats.records += 1
                stats.skipped[reason.rawValue, default: 0] += 1
            },
            progress: { position in
                throttle.tick(position, records: stats.records, rejected: stats.skipped.values.reduce(0, +), self.options.progress)
            })
        if usedRules { stats.ruleSet = ruleSet.checksum }
        if options.trackDuplicates || options.deduplicate {
            stats.distinctBodies = seen.count
            for mask in seen.values where (mask & 0x07).nonzeroBitCount > 1 { stats.leakedBodies += 1 }
        }
        if options.maxPerLabel != nil {
            let held = heaps.values.flatMap(\.items).sorted { $0.sequence < $1.sequence }
            heaps = [:]
            for record in held {
                stats.written += 1
                stats.splits[record.split.name, default: [:]][record.label, default: 0] += 1
                try write(outputs[record.split.rawValue], record.line)
            }
        }
    }

    private func write(_ output: OutputFile, _ bytes: [UInt8]) throws(PipelineError) {
        do { try output.write(bytes) } catch { throw PipelineError(.outputFailed, error.description) }
    }

    private func process(_ r: _ScannedRecord, _ stats: inout ExportStats, _ usedRules: inout Bool) throws(PipelineError) {
        _ = r.value(Self.bodySlot, into: &body)
        // The label.
        var label: String
        switch options.labelSource {
        case .field:
            guard r.value(Self.labelSlot, into: &labelBytes) else {
                stats.skipped["no label", default: 0] += 1
                return
            }
            label = String(decoding: labelBytes, as: UTF8.self)
            stats.labelSources["field", default: 0] += 1
        case .auto, .rules:
            if options.labelSource == .auto, let fromFilter = filterLabel(r) {
                label = fromFilter
                stats.labelSources["filter", default: 0] += 1
            } else {
                let hasSender = r.value(Self.senderSlot, into: &sender) && r.fields[Self.senderSlot].kind == .string
                let verdict = body.withUnsafeBytes { b in
                    hasSender ? sender.withUnsafeBytes { classifier.classify(sender: $0, body: b) } : classifier.classify(sender: nil, body: b)
                }
                label = Self.label(verdict.action, verdict.subAction, verdict.folder, options.labelKind)
                stats.labelSources["rules", default: 0] += 1
                usedRules = true
            }
        }
        // The split: by the id, or by the body when there is no id.
        let hash: UInt64
        if r.value(Self.idSlot, into: &id) {
            hash = StableHash.id(id)
        } else {
            stats.withoutId += 1
            hash = StableHash.id(body)
        }
        let split = options.ratios.split(forHash: hash)
        // Duplicates and leaks.
        if options.trackDuplicates || options.deduplicate {
            let key = body.withUnsafeBytes { StableHash.normalizedBody($0) }
            let bit = UInt8(1) << UInt8(split.rawValue)
            if let mask = seen[key] {
                stats.duplicates += 1
                if options.deduplicate {
                    stats.duplicatesDropped += 1
                    return
                }
                if mask & bit == 0 {
                    stats.leakedRecords += 1
                    seen[key] = mask | bit
                }
            } else {
                seen[key] = 0x80 | bit
            }
        }
        // The line.
        line.removeAll()
        format(r, label: label)
        if let cap = options.maxPerLabel {
            sequence += 1
            let held = _HeldRecord(hash: StableHash.selection(hash), sequence: sequence, split: split, label: label, line: Array(line.bytes))
            var heap = heaps.removeValue(forKey: label) ?? _BoundedHeap(capacity: cap)
            if heap.offer(held) { stats.cappedOut += 1 }
            heaps[label] = heap
            return
        }
        stats.written += 1
        stats.splits[split.name, default: [:]][label, default: 0] += 1
        do { try outputs[split.rawValue].write(line.bytes) } catch { throw PipelineError(.outputFailed, error.description) }
    }

    /// The label from the record's `filter` object, or nil when it has none usable.
    private func filterLabel(_ r: _ScannedRecord) -> String? {
        guard r.fields[Self.filterSlot].kind == .other else { return nil }
        let raw = r.raw(Self.filterSlot)
        guard _JSONScanner.scan(raw, keys: UnsafeBufferPointer(filterKeys.keyBuffers), fields: filterFields) == nil else { return nil }
        func text(_ k: Int) -> String? {
            let f = filterFields[k]
            guard f.kind == .string else { return nil }
            var out: [UInt8] = []
            let content = UnsafeRawBufferPointer(rebasing: raw[f.contentStart..<f.contentEnd])
            if f.escaped { _JSONUnescape.append(content, to: &out) } else { out.append(contentsOf: content) }
            return String(decoding: out, as: UTF8.self)
        }
        switch options.labelKind {
        case .folder: return text(2)
        case .action: return text(0)
        case .actionSubAction:
            guard let action = text(0) else { return nil }
            return text(1).map { "\(action)/\($0)" } ?? action
        }
    }

    /// The label of a verdict.
    static func label(_ action: Action, _ subAction: SubAction, _ folder: Folder, _ kind: ExportOptions.LabelKind) -> String {
        switch kind {
        case .folder: folder.path
        case .action: action.name
        case .actionSubAction: subAction == .none ? action.name : "\(action.name)/\(subAction.name)"
        }
    }

    /// Formats one output line into `line`.
    private func format(_ r: _ScannedRecord, label: String) {
        switch options.format {
        case .jsonl:
            line.append("{\"id\": ")
            if r.fields[Self.idSlot].kind == .missing { line.append("null") } else { line.append(r.raw(Self.idSlot)) }
            line.append(", \"label\": ")
            line.appendJSONString(label)
            line.append(", \"body\": ")
            line.append(r.raw(Self.bodySlot))
            line.append("}\n")
        case .csv:
            let hasId = r.fields[Self.idSlot].kind != .missing && r.fields[Self.idSlot].kind != .null
            if hasId { id.withUnsafeBytes { Self.appendCSV($0, line) } }
            line.append(UInt8(ascii: ","))
            var l = label
            l.withUTF8 { Self.appendCSV(UnsafeRawBufferPointer($0), line) }
            line.append(UInt8(ascii: ","))
            body.withUnsafeBytes { Self.appendCSV($0, line) }
            line.append(UInt8(ascii: "\n"))
        case .fasttext:
            line.append(Array(options.labelPrefix.utf8))
            line.append(Array(Self.fastTextLabel(label).utf8))
            line.append(UInt8(ascii: " "))
            body.withUnsafeBytes { Self.appendFastTextBody($0, prefix: Array(options.labelPrefix.utf8), line) }
            line.append(UInt8(ascii: "\n"))
        }
    }

    /// A CSV field, quoted when it holds a comma, quote, CR or LF (RFC 4180).
    static func appendCSV(_ field: UnsafeRawBufferPointer, _ out: _ByteBuffer) {
        out.appendDelimitedField(field, quoting: true)
    }

    /// A label made safe for fastText: every whitespace or control character becomes `_`
    /// (`Transactions/Public Services` → `Transactions/Public_Services`); slashes are kept.
    static func fastTextLabel(_ label: String) -> String {
        String(String.UnicodeScalarView(label.unicodeScalars.map {
            $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F ? "_" : $0
        }))
    }

    /// A body on one fastText line: tabs, newlines, CR, vertical tabs, form feeds and NUL become spaces,
    /// and a word that begins with the label prefix gets one character put before it (`_`, or `-` when
    /// the prefix itself begins with `_`), so the line has exactly one label.
    static func appendFastTextBody(_ body: UnsafeRawBufferPointer, prefix: [UInt8], _ out: _ByteBuffer) {
        let guardByte: UInt8 = prefix.first == UInt8(ascii: "_") ? UInt8(ascii: "-") : UInt8(ascii: "_")
        var atWordStart = true
        var i = 0
        while i < body.count {
            var b = body[i]
            let isSpace = b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0B || b == 0x0C || b == 0x0D || b == 0
            if isSpace { b = 0x20 }
            if atWordStart && !isSpace && !prefix.isEmpty && i + prefix.count <= body.count {
                var same = true
                for k in 0..<prefix.count where body[i + k] != prefix[k] {
                    same = false
                    break
                }
                if same { out.append(guardByte) }
            }
            out.append(b)
            atWordStart = isSpace
            i += 1
        }
    }
}
