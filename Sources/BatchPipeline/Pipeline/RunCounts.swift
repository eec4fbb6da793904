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
        /// What identifies the archive read (a regular file), for `merge-counts`: its size and a hash of its
        /// first and last 4 KiB. Entries of one archive (by this, not by path) are joined when they are
        /// adjacent splits and refused when they overlap (a whole run counts all of it). nil: standard input,
        /// a pipe, or a count file written before it existed (then splits are matched by path).
        public var archive: Archive?

        /// An archive's identity (``archive``).
        public struct Archive: Codable, Sendable, Equatable, Hashable {
            public var bytes: Int64
            /// A hash of its first and last 4 KiB (of all of it when it is at most 8 KiB), named by its function:
            /// `fnv1a64:` and 16 hexadecimal digits.
            public var ends: String

            public init(bytes: Int64, ends: String) {
                self.bytes = bytes
                self.ends = ends
            }
        }

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
    /// Rejects written short (first bytes, length, SHA-256) because their whole line did not fit in half of
    /// `--max-rejects-bytes`.
    public var rejectsShortened = 0
    /// Rejects not written at all because their short line did not fit in `--max-rejects-bytes` (still counted in
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
        var sourced: [(source: String, file: File)] = []
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
            sourced += part.files.map { (name, $0) }
            try add(&total.folders, part.folders, "folders")
            try add(&total.rules, part.rules, "rules")
            try add(&total.dropped, part.dropped, "dropped")
            try add(&total.rejectReasons, part.rejectReasons, "rejectReasons")
        }
        total.files = try joiningSplits(sourced)
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
    /// of an archive merge into exactly the entry a whole-archive run writes. An archive is known by its
    /// identity (``File/archive``: size and the SHA-256 of its ends), whatever path each run named it by; in
    /// count files without one, splits are matched by path. Entries of other archives, and splits that do not
    /// touch, stay as they are.
    ///
    /// - Parameter files: each entry with the count file it comes from.
    /// - Throws: ``PipelineError`` (bad input) when two entries of one archive overlap: two splits, a whole
    ///   run and a split, or two whole runs from different count files (its records would be counted twice).
    static func joiningSplits(_ files: [(source: String, file: File)]) throws(PipelineError) -> [File] {
        var order: [String] = []
        var groups: [String: [(source: String, file: File)]] = [:]
        var out: [(key: String?, file: File)] = []
        for (source, file) in files {
            guard let key = archiveKey(file) else {
                out.append((nil, file))
                continue
            }
            if groups[key] == nil {
                order.append(key)
                out.append((key, file))  // where the archive's joined entries go
            }
            groups[key, default: []].append((source, file))
        }
        var joined: [String: [File]] = [:]
        for key in order { joined[key] = try join(groups[key]!) }
        var result: [File] = []
        for (key, file) in out {
            guard let key else {
                result.append(file)
                continue
            }
            result += joined[key]!
        }
        return result
    }

    /// Which archive an entry counts: its identity; without one, a split's archive size and path; nil for a
    /// whole run without one (never compared).
    private static func archiveKey(_ file: File) -> String? {
        if let archive = file.archive { return "\(archive.bytes) \(archive.ends)" }
        if let range = file.range { return "\(range.archiveBytes) \(file.path)" }
        return nil
    }

    /// The entries of one archive: overlaps refused, adjacent splits joined.
    private static func join(_ entries: [(source: String, file: File)]) throws(PipelineError) -> [File] {
        func span(_ file: File) -> Range<Int64> { file.range.map { $0.start..<$0.end } ?? 0..<(file.archive?.bytes ?? 0) }
        let parts = entries.sorted { span($0.file).lowerBound < span($1.file).lowerBound }
        for (i, a) in parts.enumerated() {
            // Sorted by start: the first entry starting at or after a's end ends the entries that can overlap
            // it (walking them all made thousands of splits take minutes).
            for b in parts[(i + 1)...] {
                if span(b.file).lowerBound >= span(a.file).upperBound { break }
                if span(b.file).isEmpty { continue }
                // One run may read a file twice (classify a a): its count file says so, and is not a double count.
                if a.file.range == nil && b.file.range == nil && a.source == b.source { continue }
                throw overlap(a, b)
            }
        }
        var result: [File] = []
        for (_, part) in parts {
            guard var last = result.last, let a = last.range, let b = part.range, a.end == b.start else {
                result.append(part)
                continue
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
        return result
    }

    /// Two entries of one archive that overlap, said with the count files they come from.
    private static func overlap(_ a: (source: String, file: File), _ b: (source: String, file: File)) -> PipelineError {
        func what(_ entry: (source: String, file: File)) -> String {
            let range = entry.file.range.map { "the split \($0.start):\($0.end) of \(entry.file.path)" } ?? "all of \(entry.file.path)"
            return "\(entry.source) counts \(range)"
        }
        let same = a.file.archive != nil ? " (one archive: the same size and the same first and last 4 KiB)" : ""
        if let x = a.file.range, let y = b.file.range {
            return PipelineError(
                .badInput,
                "\(a.file.path): the splits \(x.start):\(x.end) and \(y.start):\(y.end) overlap (\(a.source), \(b.source))\(same): "
                    + "their records would be counted twice")
        }
        return PipelineError(.badInput, "\(what(a)) and \(what(b))\(same): its records would be counted twice")
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
