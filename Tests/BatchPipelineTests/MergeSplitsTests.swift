import Foundation
import XCTest

@testable import BatchPipeline

/// `RunCounts.merged` joining the file entries of one archive's splits (issue 33): adjacent splits join in
/// archive order whatever order the count files come in, the first split's error is kept, an archive is known
/// by its identity and not its path, and entries of one archive that overlap are refused.
final class MergeSplitsTests: XCTestCase {
    static let archiveBytes: Int64 = 300
    static let identity = RunCounts.File.Archive(bytes: archiveBytes, ends: "fnv1a64:" + String(repeating: "ab", count: 8))

    /// The counts of one run over `start..<end` of the archive (nil: all of it), `records` labelled.
    func run(
        _ range: Range<Int64>?, records: Int, path: String = "a.jsonl.zst", error: String? = nil,
        archive: RunCounts.File.Archive? = identity
    ) -> RunCounts {
        var file = RunCounts.File(path: path, format: "jsonl")
        file.records = records
        file.labelled = records
        file.bytes = Int64(10 * records)
        file.compressedBytes = range.map { $0.upperBound - $0.lowerBound } ?? Self.archiveBytes
        file.error = error
        file.range = range.map { RunCounts.File.SplitRange(start: $0.lowerBound, end: $0.upperBound, archiveBytes: Self.archiveBytes) }
        file.archive = archive
        var counts = RunCounts()
        counts.records = records
        counts.labelled = records
        counts.noRule = records
        counts.folders = ["Inbox": records]
        counts.bytes = file.bytes
        counts.compressedBytes = file.compressedBytes
        counts.files = [file]
        counts.ruleSet = "r"
        return counts
    }

    /// Two adjacent splits that both carry an error (each split's run met damage): the joined entry keeps the
    /// first split's (the damage a whole run meets first), in whichever order the count files are given. A
    /// planted bug that kept the second passed every test before.
    func testAdjacentSplitsWithErrorsKeepTheFirstError() throws {
        let first = run(0..<100, records: 3, error: "damage in the first split")
        let second = run(100..<300, records: 4, error: "damage in the second split")
        for order in [[("s0.json", first), ("s1.json", second)], [("s1.json", second), ("s0.json", first)]] {
            let merged = try RunCounts.merged(order)
            XCTAssertEqual(merged.files.count, 1)
            XCTAssertEqual(merged.files[0].error, "damage in the first split", "\(order.map(\.0))")
            XCTAssertNil(merged.files[0].range, "the two cover the archive")
            XCTAssertEqual(merged.files[0].records, 7)
            XCTAssertEqual(merged.files[0].compressedBytes, Self.archiveBytes)
        }
        // An error in the second split only is kept too.
        let clean = run(0..<100, records: 3)
        XCTAssertEqual(try RunCounts.merged([("s0.json", clean), ("s1.json", second)]).files[0].error, "damage in the second split")
    }

    /// Splits join by identity across paths; a whole run beside a split, or two whole runs in two count files,
    /// are refused; without identities (older count files) splits join by path.
    func testAnArchiveIsKnownByItsIdentity() throws {
        let a = run(0..<100, records: 3, path: "a.jsonl.zst")
        let b = run(100..<300, records: 4, path: "../elsewhere/a.jsonl.zst")
        let joined = try RunCounts.merged([("s0.json", a), ("s1.json", b)])
        XCTAssertEqual(joined.files.count, 1)
        XCTAssertEqual(joined.files[0].path, "a.jsonl.zst", "the first split's name")
        XCTAssertEqual(joined.files[0].archive, Self.identity)
        let other = RunCounts.File.Archive(bytes: Self.archiveBytes, ends: "fnv1a64:" + String(repeating: "cd", count: 8))
        let apart = try RunCounts.merged([("s0.json", a), ("s1.json", run(100..<300, records: 4, archive: other))])
        XCTAssertEqual(apart.files.count, 2, "another archive of the same name and size")
        for parts in [[("w.json", run(nil, records: 7)), ("s1.json", b)], [("s0.json", a), ("w.json", run(nil, records: 7))],
                      [("w.json", run(nil, records: 7)), ("copy.json", run(nil, records: 7, path: "copy.zst"))]] {
            XCTAssertThrowsError(try RunCounts.merged(parts), "\(parts.map(\.0))") { error in
                let message = (error as? PipelineError)?.message ?? ""
                XCTAssertTrue(message.contains("counted twice") && message.contains(parts[0].0) && message.contains(parts[1].0), message)
            }
        }
        XCTAssertThrowsError(try RunCounts.merged([("s0.json", run(0..<200, records: 3)), ("s1.json", b)])) { error in
            XCTAssertTrue(((error as? PipelineError)?.message ?? "").contains("overlap"), "\(error)")
        }
        // One run that read the archive twice (classify a a) wrote both entries: not a double count of two files.
        var twice = run(nil, records: 7)
        twice.files += twice.files
        twice.records *= 2
        XCTAssertEqual(try RunCounts.merged([("twice.json", twice)]).files.count, 2)
        // Count files without an identity: splits are matched by path, whole runs not at all.
        let old0 = run(0..<100, records: 3, archive: nil), old1 = run(100..<300, records: 4, archive: nil)
        XCTAssertEqual(try RunCounts.merged([("s0.json", old0), ("s1.json", old1)]).files.count, 1)
        XCTAssertEqual(try RunCounts.merged([("w.json", run(nil, records: 7, archive: nil)), ("v.json", run(nil, records: 7, archive: nil))]).files.count, 2)
    }
}
