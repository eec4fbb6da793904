import Foundation

/// The committed corpus in `Tests/Fixtures/generated` (made by `Scripts/make-fixture.sh` with
/// `smsfilter generate --count 2000 --seed 16`), on which every equivalence test runs, with or without the
/// real corpora. See that folder's README.md.
///
/// | file | what |
/// |---|---|
/// | `fixture.jsonl.zst` | all 2,000 records, JSON Lines, four concatenated zstd frames of 500 records |
/// | `fixture.csv` | records 1–300, CSV with a header row and CRLF line ends, plain |
/// | `fixture.tsv.zst` | records 301–600, TSV with a header row, one zstd frame |
/// | `fixture.xml` | records 601–900, Android "SMS Backup & Restore" XML, plain |
/// | `rules.yaml` | a frozen copy of the default rules (the golden output's rules) |
/// | `labels-only.golden.jsonl.zst` | `smsfilter classify --rules rules.yaml --labels-only fixture.jsonl.zst` |
public enum GeneratedFixture {
    /// `Tests/Fixtures/generated`.
    public static let folder = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/generated")

    /// The path of a file in the fixture folder.
    public static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// `fixture.jsonl.zst`.
    public static var jsonl: String { path("fixture.jsonl.zst") }
    /// `fixture.csv`.
    public static var csv: String { path("fixture.csv") }
    /// `fixture.tsv.zst`.
    public static var tsv: String { path("fixture.tsv.zst") }
    /// `fixture.xml`.
    public static var xml: String { path("fixture.xml") }
    /// `rules.yaml`.
    public static var rules: String { path("rules.yaml") }
    /// `labels-only.golden.jsonl.zst`.
    public static var goldenLabels: String { path("labels-only.golden.jsonl.zst") }

    /// Records in `fixture.jsonl.zst` (fixed by the script).
    public static let recordCount = 2000
    /// zstd frames in `fixture.jsonl.zst`.
    public static let frameCount = 4
    /// Records in each of the CSV, TSV and XML files.
    public static let otherFormatCount = 300

    /// A whole file decompressed by the `zstd` command-line tool (the oracle, not our decoder); plain files
    /// come back as they are (`zstd -dcf`).
    public static func decompressed(_ path: String) throws -> [UInt8] {
        let r = try Fixtures.run("zstd", ["-dcf", path], timeout: 60)
        guard r.status == 0 else {
            throw FixtureError("zstd -dcf \(path) failed: \(String(decoding: r.stderr, as: UTF8.self))")
        }
        return Array(r.stdout)
    }

    /// The JSON Lines records of `fixture.jsonl.zst`, each line's bytes (without its newline).
    public static func jsonlLines() throws -> [[UInt8]] {
        let lines = try decompressed(jsonl).split(separator: 0x0A).map(Array.init)
        guard lines.count == recordCount else { throw FixtureError("\(jsonl) has \(lines.count) lines, not \(recordCount)") }
        return lines
    }

    /// One record of the fixture, as Foundation's JSON parser reads it.
    public struct Record: Sendable, Equatable {
        public var id: String
        public var sender: String
        public var body: String
        public var label: String
        public var lang: String
    }

    /// The records of `fixture.jsonl.zst`, parsed with `JSONSerialization` (the oracle for our scanner).
    public static func records() throws -> [Record] {
        try jsonlLines().map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                let id = object["id"] as? String, let sender = object["sender"] as? String,
                let body = object["body"] as? String, let label = object["label"] as? String,
                let lang = object["lang"] as? String
            else { throw FixtureError("a fixture line lacks a field: \(String(decoding: line, as: UTF8.self))") }
            return Record(id: id, sender: sender, body: body, label: label, lang: lang)
        }
    }

    /// The bytes of `fixture.jsonl.zst`'s zstd frames, each frame separately (found by decompressing
    /// prefixes: a frame ends where `zstd -dc` of the prefix succeeds).
    public static func frameEnds() throws -> [Int] {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: jsonl)))
        var ends: [Int] = []
        // A zstd frame starts with the magic 28 B5 2F FD; look for the magic after each frame's start.
        let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
        var k = 4
        while k + 4 <= bytes.count {
            if Array(bytes[k..<(k + 4)]) == magic { ends.append(k) }
            k += 1
        }
        ends.append(bytes.count)
        return ends
    }
}

/// A fixture file is not what the tests expect.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
