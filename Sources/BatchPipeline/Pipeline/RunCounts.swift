import Foundation
import MessageFilter

/// Everything a run counted (SPEC §6). Written as JSON by `--counts` and as a table on stderr.
///
/// The accounting invariant `records == labelled + rejected` is checked at the end of every run.
public struct RunCounts: Codable, Sendable, Equatable {
    /// Counts of one input file.
    public struct File: Codable, Sendable, Equatable {
        public var path: String
        public var format: String
        public var records = 0
        public var labelled = 0
        public var rejected = 0
        /// Decoded bytes read.
        public var bytes: Int64 = 0
        /// Raw (compressed) bytes read.
        public var compressedBytes: Int64 = 0
        /// Whether the file was zstd-compressed.
        public var compressed = false
        /// Why the file could not be read to its end (a damaged archive, a read error), if it could not.
        public var error: String?
        /// Set when the run read one split of the archive (`classify --range`): these counts are the records
        /// that start in its frames. `merge-counts` joins the entries of adjacent splits of one archive, and
        /// drops the range once they cover it all.
        public var range: SplitRange?

        /// Compressed offsets `start..<end` of an archive of `archiveBytes` bytes.
        public struct SplitRange: Codable, Sendable, Equatable {
            public var start: Int64
            public var end: Int64
            public var archiveBytes: Int64

            public init(start: Int64, end: Int64, archiveBytes: Int64) {
                self.start = start
                self.end = end
                self.archiveBytes = archiveBytes
            }
        }

        public init(path: String, format: String) {
            self.path = path
            self.format = format
        }
    }

    /// Records read (labelled + rejected).
    public var records = 0
    public var labelled = 0
    public var rejected = 0
    /// Blank lines skipped (they hold no record).
    public var blankLines = 0
    /// XML `<mms>` elements passed through (not records: they are neither labelled nor rejected).
    public var mms = 0
    /// Folder path → records labelled into it (every folder is listed, with 0 when empty).
    public var folders: [String: Int] = [:]
    /// Rule name → records it decided (every rule is listed).
    public var rules: [String: Int] = [:]
    /// Records no rule decided (`Unknown Senders` unless a number list decided them).
    public var noRule = 0
    /// Sub-actions dropped by validation: `invalidPair`, `notDeclared` → count.
    public var dropped: [String: Int] = ["invalidPair": 0, "notDeclared": 0]
    /// Reject reason → count.
    public var rejectReasons: [String: Int] = [:]
    /// Rejects written short (first bytes, length, SHA-256) because the rejects file held `--max-rejects-bytes`.
    public var rejectsShortened = 0
    /// Rejects not written at all because the rejects file held twice `--max-rejects-bytes` (still counted in
    /// `rejected` and `rejectReasons`).
    public var rejectsOmitted = 0
    public var files: [File] = []
    /// Decoded bytes read, all files.
    public var bytes: Int64 = 0
    /// Raw bytes read, all files.
    public var compressedBytes: Int64 = 0
    public var seconds: Double = 0
    /// The rule set's checksum (count files of different rule sets are never merged).
    public var ruleSet: String = ""
    /// Where the rule set came from.
    public var ruleSource: String = ""
    public var threads = 0

    public init() {}

    /// Whether records = labelled + rejected, overall and per file.
    public var isBalanced: Bool {
        records == labelled + rejected && files.allSatisfy { $0.records == $0.labelled + $0.rejected }
            && files.reduce(0, { $0 + $1.records }) == records
    }

    /// Pretty, key-sorted JSON.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }

    /// The human table printed on stderr at the end of a run.
    public func table() -> String {
        var lines: [String] = []
        let width = max(24, (folders.keys.map(\.count).max() ?? 0) + 2)
        func row(_ name: String, _ value: Int) -> String {
            let share = records > 0 ? String(format: "%6.2f%%", Double(value) * 100 / Double(records)) : ""
            return name.padding(toLength: width, withPad: " ", startingAt: 0)
                + String(value).leftPadded(12) + "  " + share
        }
        lines.append("folder".padding(toLength: width, withPad: " ", startingAt: 0) + "records".leftPadded(12))
        for (name, value) in folders.sorted(by: { $0.key < $1.key }) where value > 0 {
            lines.append(row(name, value))
        }
        lines.append(row("rejected", rejected))
        lines.append(row("total", records))
        let mb = Double(bytes) / 1_000_000
        let rate = seconds > 0 ? String(format: "%.1f MB/s, %.0f records/s", mb / seconds, Double(records) / seconds) : ""
        lines.append(String(format: "%.1f MB in %.2f s", mb, seconds) + (rate.isEmpty ? "" : " (\(rate))")
            + ", \(threads) thread\(threads == 1 ? "" : "s")")
        if mms > 0 { lines.append("mms elements passed through unlabelled: \(mms)") }
        if rejectsShortened > 0 || rejectsOmitted > 0 {
            lines.append("rejects past --max-rejects-bytes: \(rejectsShortened) written short (first bytes, length, SHA-256), \(rejectsOmitted) only counted")
        }
        if dropped.values.contains(where: { $0 > 0 }) {
            lines.append("sub-actions dropped: invalidPair \(dropped["invalidPair"] ?? 0), notDeclared \(dropped["notDeclared"] ?? 0)")
        }
        for file in files where file.error != nil {
            lines.append("error: \(file.error!)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

extension RunCounts {
    /// Sums count files exactly. `seconds` is summed (the work done), `threads` is the largest.
    ///
    /// - Throws: ``PipelineError`` (bad input) when the files come from different rule sets (their `ruleSet` checksums
    ///   differ: their rule and folder counts would not mean the same thing), or when a sum would overflow.
    public static func merged(_ parts: [(name: String, counts: RunCounts)]) throws(PipelineError) -> RunCounts {
        guard let first = parts.first else { return RunCounts() }
        var total = RunCounts()
        total.ruleSet = first.counts.ruleSet
        total.ruleSource = first.counts.ruleSource
        total.dropped = [:]
        for (name, part) in parts {
            guard part.ruleSet == total.ruleSet else {
                throw PipelineError(
                    .badInput,
                    "\(name) was counted with rule set \(part.ruleSet), \(first.name) with \(total.ruleSet): counts of different rule sets cannot be merged")
            }
            func add<T: FixedWidthInteger>(_ a: inout T, _ b: T, _ field: String) throws(PipelineError) {
                let (sum, overflow) = a.addingReportingOverflow(b)
                guard !overflow else {
                    throw PipelineError(.badInput, "\(name): \(field): the total would exceed \(T.max); refusing to merge")
                }
                a = sum
            }
            func add(_ a: inout [String: Int], _ b: [String: Int], _ field: String) throws(PipelineError) {
                for (key, value) in b { try add(&a[key, default: 0], value, "\(field).\(key)") }
            }
            try add(&total.records, part.records, "records")
            try add(&total.labelled, part.labelled, "labelled")
            try add(&total.rejected, part.rejected, "rejected")
            try add(&total.blankLines, part.blankLines, "blankLines")
            try add(&total.mms, part.mms, "mms")
            try add(&total.rejectsShortened, part.rejectsShortened, "rejectsShortened")
            try add(&total.rejectsOmitted, part.rejectsOmitted, "rejectsOmitted")
            try add(&total.noRule, part.noRule, "noRule")
            try add(&total.bytes, part.bytes, "bytes")
            try add(&total.compressedBytes, part.compressedBytes, "compressedBytes")
            total.seconds += part.seconds
            total.threads = max(total.threads, part.threads)
            total.files += part.files
            try add(&total.folders, part.folders, "folders")
            try add(&total.rules, part.rules, "rules")
            try add(&total.dropped, part.dropped, "dropped")
            try add(&total.rejectReasons, part.rejectReasons, "rejectReasons")
        }
        total.files = try joiningSplits(total.files)
        // Splits joined into whole archives are one run: when nothing of them could be read, the merge fails as
        // that run does (a split alone cannot tell).
        let joined = parts.contains { $0.counts.files.contains { $0.range != nil } }
        if joined, total.files.allSatisfy({ $0.range == nil && $0.error == nil }),
            let failure = PipelineError.nothingRead(records: total.records, rejected: total.rejectReasons, formats: total.files.map(\.format)) {
            throw PipelineError(.badInput, "the splits merged: \(failure.message)")
        }
        return total
    }

    /// The file entries with those of adjacent splits of one archive joined (a `classify --range` run each):
    /// summed, the first error kept, and without a range once they cover the whole archive, so that the splits
    /// of an archive merge into exactly the entry a whole-archive run writes. Entries without a range, and
    /// splits that do not touch, stay as they are.
    ///
    /// - Throws: ``PipelineError`` (bad input) when two splits of an archive overlap (counted twice).
    static func joiningSplits(_ files: [File]) throws(PipelineError) -> [File] {
        guard files.contains(where: { $0.range != nil }) else { return files }
        var order: [String] = []
        var splits: [String: [File]] = [:]
        var out: [(String?, File)] = []
        for file in files {
            guard file.range != nil else {
                out.append((nil, file))
                continue
            }
            if splits[file.path] == nil {
                order.append(file.path)
                out.append((file.path, file))  // where the archive's joined entries go
            }
            splits[file.path, default: []].append(file)
        }
        var joined: [String: [File]] = [:]
        for path in order {
            let parts = splits[path]!.sorted { $0.range!.start < $1.range!.start }
            var result: [File] = []
            for part in parts {
                guard var last = result.last, let a = last.range, let b = part.range, a.end >= b.start, a.archiveBytes == b.archiveBytes else {
                    result.append(part)
                    continue
                }
                guard a.end == b.start else {
                    throw PipelineError(
                        .badInput,
                        "\(path): the splits \(a.start):\(a.end) and \(b.start):\(b.end) overlap: their records would be counted twice")
                }
                last.records += part.records
                last.labelled += part.labelled
                last.rejected += part.rejected
                last.bytes += part.bytes
                last.compressedBytes += part.compressedBytes
                last.compressed = last.compressed || part.compressed
                last.error = last.error ?? part.error
                if last.format.isEmpty { last.format = part.format }
                last.range = File.SplitRange(start: a.start, end: b.end, archiveBytes: a.archiveBytes)
                result[result.count - 1] = last
            }
            for k in result.indices {
                if let r = result[k].range, r.start == 0, r.end == r.archiveBytes { result[k].range = nil }
            }
            joined[path] = result
        }
        var files: [File] = []
        for (path, file) in out {
            guard let path else {
                files.append(file)
                continue
            }
            files += joined[path]!
        }
        return files
    }

    /// Reads a count file written by `classify --counts`, checking every field's type and the accounting.
    ///
    /// - Throws: ``PipelineError`` (bad input) naming the file and the field: a field missing or of the wrong type, a
    ///   negative count, records ≠ labelled + rejected (overall or in a file), the files' records not adding
    ///   up to the total, or the folders' counts not adding up to the labelled records.
    public static func read(path: String) throws(PipelineError) -> RunCounts {
        let data: Data
        do {
            data = try BoundedFile.read(path, limit: 256 << 20)
        } catch {
            throw _CountFileReader(file: path).fail(nil, error.detail)
        }
        return try _CountFileReader(file: path).read(data)
    }
}
