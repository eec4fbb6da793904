import Foundation
import TestSupport
import XCTest
import ArchiveIO

/// Issue 33's attacks on splits (hostile use, round three): whatever a split holds, the splits of an archive and
/// their merged counts are one whole-archive run.
extension SplitTests {
    /// A split whose every record is rejected is part of a run that read records: it writes its rejects, its
    /// counts and (as the last split of an XML conversion) the closing tag, exit 0. On main of 2026-11-28 it
    /// exited 65 "no record could be read" and wrote none of them, and a whole run whose only record was longer
    /// than --max-record did the same. Whether nothing of an archive could be read is asked when its splits'
    /// counts are merged.
    func testASplitWhoseEveryRecordIsRejectedKeepsItsRejects() throws {
        let long = record("long", String(repeating: "x", count: 5_000))
        let head = (0..<20).map { record("h\($0)") + "\n" }.joined()
        let tail = (0..<20).map { record("t\($0)") + "\n" }.joined()
        // The over-long record alone in the middle split, then alone in the last one.
        let middle = try archive([head, long + "\n", tail], "middle.jsonl.zst")
        let last = try archive([head, long + "\n"], "last.jsonl.zst")
        // A split of records no JSON reader reads, between splits that hold good ones.
        let broken = (0..<10).map { "{\"id\": \"b\($0)\", \"body\": " + "\n" }.joined()
        let garbled = try archive([head, broken, tail], "garbled.jsonl.zst")
        for (a, what) in [(middle, "over-long record in the middle"), (last, "over-long record last"), (garbled, "broken records in the middle")] {
            let p = try plan(a, ["--split-size", "1", "--lines"])
            XCTAssertEqual(p.ranges.count, a == last ? 2 : 3)
            for options in [["--max-record", "1K"], ["--max-record", "1K", "--output-format", "xml"], ["--max-record", "1K", "--labels-only"]] {
                try splitsAgree(a, p, options, "\(what), \(options)")
                let split = try json(String(decoding: bytes("p1.json"), as: UTF8.self))
                XCTAssertEqual(split["labelled"] as? Int, 0, "\(what): the split labels nothing")
                XCTAssertGreaterThan(split["rejected"] as? Int ?? 0, 0, "\(what): its rejects are counted")
                XCTAssertFalse(bytes("p1.rej").isEmpty, "\(what): its rejects are written")
                if options.contains("xml") {
                    XCTAssertTrue(String(decoding: bytes("whole.out"), as: UTF8.self).hasSuffix("</smses>\n"), what)
                }
            }
        }
        // A whole run whose only record is longer than --max-record read a record: one reject, exit 0.
        let only = try write("only.jsonl", long + "\n")
        let r = try run(["classify", only, "--max-record", "1K", "-o", path("only.out"), "--rejects", path("only.rej"),
                         "--counts", path("only.json"), "-q", "-f"])
        XCTAssertEqual(r.status, 0, r.err)
        let counts = try json(String(decoding: bytes("only.json"), as: UTF8.self))
        XCTAssertEqual(counts["rejected"] as? Int, 1)
        XCTAssertTrue(String(decoding: bytes("only.rej"), as: UTF8.self).contains("\"line\": 1, \"reason\": \"record longer than --max-record"))
        // Its neighbours: export and evaluate read the same record the same way.
        let labelled = try write("only-labelled.jsonl", "{\"id\": \"a\", \"label\": \"junk\", \"body\": \"\(String(repeating: "y", count: 5_000))\"}\n")
        let export = try run(["export", labelled, "--max-record", "1K", "-o", path("ex"), "-q", "-f"])
        XCTAssertEqual(export.status, 0, export.err)
        let evaluate = try run(["evaluate", labelled, "--truth-field", "label", "--map", "junk=junk", "--max-record", "1K", "-q"])
        XCTAssertEqual(evaluate.status, 0, evaluate.err)
        XCTAssertFalse(evaluate.err.contains("no record could be read"), evaluate.err)

        // When no record of the whole archive can be read, the whole run fails, and so does the merge of its
        // splits (each split alone cannot tell), with the same words.
        let nothing = try archive([broken, broken, broken], "nothing.jsonl.zst")
        let p = try plan(nothing, ["--split-size", "1"])
        XCTAssertEqual(p.ranges.count, 3)
        let whole = try run(["classify", nothing, "--no-output", "-q"])
        XCTAssertEqual(whole.status, 65, whole.err)
        XCTAssertTrue(whole.err.contains("no record could be read: all 30 were rejected"), whole.err)
        for (k, range) in p.ranges.enumerated() {
            let split = try run(["classify", nothing, "--range", range, "--no-output", "--counts", path("n\(k).json"), "-q", "-f"])
            XCTAssertEqual(split.status, 0, split.err)
        }
        let merged = try run(["merge-counts", path("n0.json"), path("n1.json"), path("n2.json"), "-q"])
        XCTAssertEqual(merged.status, 65, merged.err)
        XCTAssertTrue(merged.err.contains("no record could be read: all 30 were rejected"), merged.err)
        // Splits that do not make the whole archive merge: the rest may hold records that can be read.
        XCTAssertEqual(try run(["merge-counts", path("n0.json"), path("n1.json"), "-q"]).status, 0)
    }
}
