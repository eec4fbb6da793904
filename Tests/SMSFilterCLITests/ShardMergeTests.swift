import Foundation
import TestSupport
import XCTest

/// `--manifest`/`--shard` and `merge-counts`: sharded runs add up to the single-machine run.
final class ShardMergeTests: XCTestCase {
    func testShardsPartitionTheManifestAndMergedCountsEqualOneRun() throws {
        let bin = Fixtures.smsfilterBinary
        let folder = try Fixtures.temporaryFolder("shards")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Seven archives: the fixture's four zstd frames as files of their own, and its CSV, TSV and XML.
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: GeneratedFixture.jsonl)))
        let ends = try GeneratedFixture.frameEnds()
        var archives: [String] = []
        for (k, (start, end)) in zip([0] + ends.dropLast(), ends).enumerated() {
            let path = folder.appendingPathComponent("frame-\(k).jsonl.zst").path
            try Data(bytes[start..<end]).write(to: URL(fileURLWithPath: path))
            archives.append(path)
        }
        archives += [GeneratedFixture.csv, GeneratedFixture.tsv, GeneratedFixture.xml]
        let manifest = folder.appendingPathComponent("manifest.txt").path
        try ("# archives\n" + archives.joined(separator: "\n") + "\n\n").write(toFile: manifest, atomically: true, encoding: .utf8)
        let whole = folder.appendingPathComponent("whole.json").path
        XCTAssertEqual(try Fixtures.run(bin, ["classify", "--manifest", manifest, "--no-output", "--counts", whole, "-q"]).status, 0)
        var shardFiles: [String] = []
        var seen: [String] = []
        for k in 1...3 {
            let counts = folder.appendingPathComponent("shard-\(k).json").path
            let result = try Fixtures.run(bin, ["classify", "--manifest", manifest, "--shard", "\(k)/3", "--no-output", "--counts", counts, "-q"])
            XCTAssertEqual(result.status, 0, String(decoding: result.stderr, as: UTF8.self))
            shardFiles.append(counts)
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: counts))) as! [String: Any]
            seen += (object["files"] as! [[String: Any]]).map { $0["path"] as! String }
        }
        XCTAssertEqual(seen.sorted(), archives.sorted(), "every archive in exactly one shard")
        let merged = try Fixtures.run(bin, ["merge-counts"] + shardFiles)
        XCTAssertEqual(merged.status, 0, String(decoding: merged.stderr, as: UTF8.self))
        let total = try JSONSerialization.jsonObject(with: merged.stdout) as! [String: Any]
        let reference = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: whole))) as! [String: Any]
        for key in ["records", "labelled", "rejected", "bytes", "ruleSet"] {
            XCTAssertEqual("\(total[key]!)", "\(reference[key]!)", key)
        }
        XCTAssertEqual(reference["records"] as? Int, GeneratedFixture.recordCount + 3 * GeneratedFixture.otherFormatCount)
        XCTAssertEqual(reference["rejected"] as? Int, 0)
        XCTAssertEqual(total["folders"] as! [String: Int], reference["folders"] as! [String: Int])
        XCTAssertEqual(total["rules"] as! [String: Int], reference["rules"] as! [String: Int])
        // Count files of another rule set are refused.
        var other = reference
        other["ruleSet"] = "deadbeef"
        let otherPath = folder.appendingPathComponent("other.json").path
        try JSONSerialization.data(withJSONObject: other).write(to: URL(fileURLWithPath: otherPath))
        let refused = try Fixtures.run(bin, ["merge-counts", whole, otherPath])
        XCTAssertEqual(refused.status, 65)
        XCTAssertTrue(String(decoding: refused.stderr, as: UTF8.self).contains("different rule sets"))
    }
}
