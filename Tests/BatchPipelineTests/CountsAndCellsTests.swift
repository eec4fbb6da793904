import Foundation
import MessageFilter
import TestSupport
import XCTest

@testable import BatchPipeline

/// Count files are checked field by field, sums never overflow, added CSV/TSV cells are safe, and a run's
/// outputs are put in place only after its counts are written (issue 14, items 1, 4, 6 and 7).
final class CountsAndCellsTests: TemporaryFolderTestCase {
    /// A count file of a real run of the pipeline.
    func countsJSON() throws -> [String: Any] {
        let input = path("in.jsonl")
        try "{\"id\": 1, \"body\": \"Rs 5 debited\"}\nnot json\n{\"id\": 3, \"body\": \"win a prize\"}\n"
            .write(toFile: input, atomically: true, encoding: .utf8)
        var options = PipelineOptions()
        options.threads = 1
        let result = try Pipeline(ruleSet: RuleSet.embeddedDefault, options: options).run(inputs: [input])
        return try JSONSerialization.jsonObject(with: try result.counts.jsonData()) as! [String: Any]
    }

    func write(_ object: [String: Any], _ name: String) throws -> String {
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    func testAGoodCountFileReadsBackEqual() throws {
        let object = try countsJSON()
        let read = try RunCounts.read(path: try write(object, "good.json"))
        XCTAssertEqual(read.records, 3)
        XCTAssertEqual(read.rejected, 1)
        XCTAssertEqual(read.files.count, 1)
        XCTAssertEqual(try JSONSerialization.jsonObject(with: try read.jsonData()) as! NSDictionary, object as NSDictionary)
    }

    func testEveryBrokenFieldIsNamed() throws {
        let good = try countsJSON()
        let cases: [(String, (inout [String: Any]) -> Void)] = [
            ("records", { $0["records"] = 2.5 }),
            ("records", { $0["records"] = true }),
            ("labelled", { $0["labelled"] = -1 }),
            ("rejected", { $0["rejected"] = nil }),
            ("folders", { $0["folders"] = [1, 2] }),
            ("folders.Junk", { o in var f = o["folders"] as! [String: Any]; f["Junk"] = "3"; o["folders"] = f }),
            ("folders", { o in var f = o["folders"] as! [String: Any]; f["Junk"] = (f["Junk"] as! Int) + 1; o["folders"] = f }),
            ("files[0].records", { o in var f = o["files"] as! [[String: Any]]; f[0]["records"] = nil; o["files"] = f }),
            ("files[0]", { o in var f = o["files"] as! [[String: Any]]; f[0]["labelled"] = 0; o["files"] = f }),
            ("files", { o in o["files"] = [] }),
            ("records", { o in o["labelled"] = Int.max; o["rejected"] = Int.max }),
            ("seconds", { $0["seconds"] = "fast" }),
            ("ruleSet", { $0["ruleSet"] = 7 }),
        ]
        for (i, (field, change)) in cases.enumerated() {
            var object = good
            change(&object)
            let file = try write(object, "bad-\(i).json")
            XCTAssertThrowsError(try RunCounts.read(path: file), field) { error in
                let e = error as! PipelineError
                XCTAssertTrue(e.isBadInput)
                XCTAssertTrue(e.message.hasPrefix("\(file): \(field): "), e.description)
                XCTAssertFalse(e.description.contains("DecodingError") || e.description.contains("CodingKeys"), e.description)
            }
        }
        XCTAssertThrowsError(try RunCounts.read(path: "/dev/zero"))
        try "{".write(toFile: path("cut.json"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try RunCounts.read(path: path("cut.json"))) { error in
            XCTAssertTrue("\(error)".contains("not valid JSON"), "\(error)")
        }
    }

    func testMergedSumsNeverOverflow() throws {
        var a = RunCounts()
        a.records = Int.max - 1
        a.labelled = Int.max - 1
        a.folders = ["Junk": Int.max - 1]
        var b = RunCounts()
        b.records = 2
        b.labelled = 2
        b.folders = ["Junk": 2]
        XCTAssertThrowsError(try RunCounts.merged([("a.json", a), ("b.json", b)])) { error in
            XCTAssertTrue("\(error)".contains("b.json: records"), "\(error)")
        }
        b.records = 1
        b.labelled = 1
        b.folders = ["Junk": 1]
        XCTAssertEqual(try RunCounts.merged([("a.json", a), ("b.json", b)]).records, Int.max)
        b.folders = ["Junk": 2]
        XCTAssertThrowsError(try RunCounts.merged([("a.json", a), ("b.json", b)])) { error in
            XCTAssertTrue("\(error)".contains("folders.Junk"), "\(error)")
        }
    }

    func testAddedCellsAreNeutralisedAndQuoted() {
        func cell(_ s: String, csv: Bool) -> String { String(decoding: _Emitter.cell(Array(s.utf8), csv: csv), as: UTF8.self) }
        XCTAssertEqual(cell("bank-debit", csv: true), "bank-debit")
        XCTAssertEqual(cell("=1+1", csv: true), "'=1+1")
        XCTAssertEqual(cell("@SUM(A1)", csv: false), "'@SUM(A1)")
        XCTAssertEqual(cell("+1", csv: true), "'+1")
        XCTAssertEqual(cell("-1", csv: true), "'-1")
        XCTAssertEqual(cell("=HYPERLINK(\"u\",\"x\")", csv: true), "\"'=HYPERLINK(\"\"u\"\",\"\"x\"\")\"")
        XCTAssertEqual(cell("a,b", csv: true), "\"a,b\"")
        XCTAssertEqual(cell("a\tb", csv: true), "\"a\tb\"")
        XCTAssertEqual(cell("a\tb", csv: false), "\"a\tb\"")
        XCTAssertEqual(cell("a\nb", csv: false), "\"a\nb\"")
        XCTAssertEqual(cell("a,b", csv: false), "a,b")
        XCTAssertEqual(cell("\tx", csv: false), "\"'\tx\"")
    }

    func testSplitWeightsAreBounded() {
        XCTAssertNil(SplitRatios("9223372036854775807,9223372036854775807,1"))
        XCTAssertNil(SplitRatios("1000001,0,0"))
        XCTAssertNotNil(SplitRatios("1000000,1000000,1000000"))
        XCTAssertEqual(SplitRatios("1000000,1000000,1000000")?.split(forHash: UInt64.max), .test)
    }

    /// A `beforeCommit` that fails (a counts file on a full disk) leaves neither output nor rejects.
    func testOutputsAreAbandonedWhenTheCountsCannotBeWritten() throws {
        let input = path("in.jsonl")
        try "{\"body\": \"x\"}\nbroken\n".write(toFile: input, atomically: true, encoding: .utf8)
        var options = PipelineOptions()
        options.outputPath = path("out.jsonl")
        options.rejectsPath = path("rejects.jsonl")
        options.beforeCommit = { counts throws(PipelineError) in
            XCTAssertEqual(counts.records, 2)
            XCTAssertGreaterThan(counts.seconds, 0)
            throw PipelineError.outputFailed("counts.json: No space left on device")
        }
        XCTAssertThrowsError(try Pipeline(ruleSet: RuleSet.embeddedDefault, options: options).run(inputs: [input])) { error in
            XCTAssertEqual((error as? PipelineError)?.isOutputFailure, true)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["in.jsonl"])
    }
}
