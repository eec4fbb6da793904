import Dispatch
import Foundation
import MessageFilter
import ArchiveIO

/// `smsfilter export`: archives in (any record format), `train`, `validation` and `test` files out.
///
/// One pass over the input through the same reader and chunk fan-out as `classify`: workers label, split,
/// hash and format each chunk's records; the writer, in input order:
/// 1. (worker) the label: the record's `filter` object (CSV/TSV `filter_*` columns, XML attributes), the
///    rules, or a field (``ExportOptions/LabelSource``);
/// 2. (worker) the split: ``SplitRatios/split(forHash:)`` of ``StableHash/id(_:)`` of the id (of the body
///    when the record has none), so a record keeps its split when the corpus grows;
/// 3. (writer) duplicates: the 64-bit hash of the normalised body (``StableHash/normalizedBody(_:)``) is looked up
///    in a table of one hash and one byte of split bits per distinct body, which counts duplicates and
///    cross-split leaks and, with ``ExportOptions/deduplicate``, drops every repeat after the first;
/// 4. (writer) the cap: with ``ExportOptions/maxPerLabel`` N, a bounded max-heap per label keeps the N records with
///    the smallest ``StableHash/selection(_:)`` ranks, a second hash of the id independent of the split
///    (written in input order at the end);
/// 5. (writer) the record is written to its split's file.
///
/// Memory: the chunk pool, the duplicate table (about 16–40 bytes per distinct body, never the bodies),
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

        // A part of weight 0 gets no record, so no file: `--split 90,10` writes train and validation only.
        var outputs: [OutputFile?] = []
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
                guard options.ratios.weight(of: split) > 0 else {
                    outputs.append(nil)
                    continue
                }
                let compression: OutputFile.Compression = options.compressionLevel.map {
                    .zstd(level: $0, workers: 0, frameSize: options.frameSize)
                } ?? .none
                outputs.append(try OutputFile(path: path(of: split), compression: compression, existing: options.existing))
            }
        } catch {
            for o in outputs { o?.abandon() }
            throw PipelineError(.outputFailed, error.description)
        }
        stats.files = options.ratios.written.map { path(of: $0) }
        stats.notWritten = TrainingSplit.allCases.filter { options.ratios.weight(of: $0) == 0 }.map(\.name)
        do throws(PipelineError) {
            try _ExportJob(exporter: self, outputs: outputs).run(inputs: inputs, stats: &stats)
            for o in outputs {
                do { try o?.finish() } catch { throw PipelineError(.outputFailed, error.description) }
            }
        } catch {
            for o in outputs { o?.abandon() }
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

/// How export writes a training line: the label of a verdict, CSV fields and fastText's rules.
enum _ExportText {
    /// The label of a verdict.
    static func label(_ action: Action, _ subAction: SubAction, _ folder: Folder, _ kind: ExportOptions.LabelKind) -> String {
        switch kind {
        case .folder: folder.path
        case .action: action.name
        case .actionSubAction: subAction == .none ? action.name : "\(action.name)/\(subAction.name)"
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
