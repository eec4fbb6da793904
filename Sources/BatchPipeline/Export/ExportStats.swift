import Foundation

/// What an `export` run did: records per split and label, duplicates, leaks, skipped records.
public struct ExportStats: Sendable {
    /// Non-blank lines read.
    public var records = 0
    /// Records written to the three files.
    public var written = 0
    /// Lines skipped, by reason (`invalid JSON`, `no body`, `no label`, `record longer than --max-record`).
    public var skipped: [String: Int] = [:]
    /// Records whose normalised body was seen before (whether or not they were dropped).
    public var duplicates = 0
    /// Duplicates dropped by de-duplication.
    public var duplicatesDropped = 0
    /// Distinct normalised bodies seen.
    public var distinctBodies = 0
    /// Distinct normalised bodies present in more than one split (possible only without de-duplication).
    public var leakedBodies = 0
    /// Records whose normalised body was already in another split.
    public var leakedRecords = 0
    /// Records left out by `maxPerLabel`.
    public var cappedOut = 0
    /// Records without an id (their split comes from a hash of the body instead).
    public var withoutId = 0
    /// Where labels came from: `filter`, `rules`, `field` → records.
    public var labelSources: [String: Int] = [:]
    /// split name → label → records written.
    public var splits: [String: [String: Int]] = [:]
    /// The output files.
    public var files: [String] = []
    /// The parts not written because `--split` gives them weight 0 (`90,10`: `test`).
    public var notWritten: [String] = []
    /// The rule set's checksum when rules labelled records.
    public var ruleSet: String?
    public var ratios = ""
    public var labelKind = ""
    public var format = ""
    public var deduplicated = false
    public var duplicatesTracked = true
    public var maxPerLabel: Int?
    public var seconds = 0.0

    public init() {}

    /// Every label, sorted.
    public var labels: [String] { Set(splits.values.flatMap(\.keys)).sorted() }

    /// The JSON object written by `--stats`.
    public func jsonObject() -> [String: Any] {
        var object: [String: Any] = [
            "records": records, "written": written, "skipped": skipped, "duplicates": duplicates,
            "duplicatesDropped": duplicatesDropped, "distinctBodies": distinctBodies, "leakedBodies": leakedBodies,
            "leakedRecords": leakedRecords, "cappedOut": cappedOut, "withoutId": withoutId, "labelSources": labelSources,
            "files": files, "notWritten": notWritten, "ratios": ratios, "labelKind": labelKind, "format": format, "deduplicated": deduplicated,
            "duplicatesTracked": duplicatesTracked, "seconds": seconds,
            "ruleSet": ruleSet.map { $0 as Any } ?? NSNull(),
            "maxPerLabel": maxPerLabel.map { $0 as Any } ?? NSNull(),
        ]
        var splitObject: [String: Any] = [:]
        for split in TrainingSplit.allCases {
            let perLabel = splits[split.name] ?? [:]
            splitObject[split.name] = ["records": perLabel.values.reduce(0, +), "labels": perLabel]
        }
        object["splits"] = splitObject
        var labelObject: [String: Any] = [:]
        for label in labels {
            var row: [String: Int] = [:]
            for split in TrainingSplit.allCases { row[split.name] = splits[split.name]?[label] ?? 0 }
            labelObject[label] = row
        }
        object["labels"] = labelObject
        return object
    }

    /// `jsonObject()` as pretty-printed JSON with sorted keys.
    public func jsonData() throws -> Data {
        try JSONSerialization.data(withJSONObject: jsonObject(), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// The per-split, per-label table printed on standard error.
    public func table() -> String {
        let names = TrainingSplit.allCases.map(\.name)
        let width = max(24, (labels.map(\.count).max() ?? 0) + 2)
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
        var out = pad("label", width) + names.map { lpad($0, 12) }.joined() + lpad("total", 12) + "\n"
        for label in labels {
            let counts = names.map { splits[$0]?[label] ?? 0 }
            out += pad(label, width) + counts.map { lpad(String($0), 12) }.joined() + lpad(String(counts.reduce(0, +)), 12) + "\n"
        }
        let totals = names.map { splits[$0]?.values.reduce(0, +) ?? 0 }
        out += pad("total", width) + totals.map { lpad(String($0), 12) }.joined() + lpad(String(written), 12) + "\n"
        out += "records read \(records), written \(written)"
        if !skipped.isEmpty {
            out += ", skipped " + skipped.sorted { $0.key < $1.key }.map { "\($0.value) (\($0.key))" }.joined(separator: ", ")
        }
        out += "\n"
        if duplicatesTracked {
            out += "duplicates \(duplicates) (\(distinctBodies) distinct bodies)"
            out += deduplicated ? ", dropped \(duplicatesDropped)" : ", cross-split leaks: \(leakedBodies) bodies, \(leakedRecords) records"
            out += "\n"
        }
        if let maxPerLabel { out += "at most \(maxPerLabel) per label: \(cappedOut) left out\n" }
        if withoutId > 0 { out += "\(withoutId) records without an id (split by body hash)\n" }
        for name in notWritten { out += "\(name): no file (its weight in --split \(ratios) is 0)\n" }
        for (name, total) in zip(names, totals) where total == 0 && !notWritten.contains(name) && written > 0 {
            out += "\(name): an empty file: none of the \(written) records written fell in its share "
                + "(a record's part is chosen by a hash of its id, so a small input can leave a part empty)\n"
        }
        out += "labels from " + labelSources.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        out += String(format: "; %.2f s\n", seconds)
        return out
    }
}
