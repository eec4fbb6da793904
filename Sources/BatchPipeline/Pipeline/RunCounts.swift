import Foundation

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
