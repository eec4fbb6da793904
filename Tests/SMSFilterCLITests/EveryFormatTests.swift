import Foundation
import TestSupport
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Every command reads every format (issue 12): evaluate, export and learn read CSV, TSV and XML as classify
/// does, classify converts with `--output-format`, and an output name that says another format is refused.
/// The oracle is the same records as JSON Lines (the committed fixture's CSV holds records 1–300 of its JSON
/// Lines, the XML records 601–900). Each test fails with the binary of 2026-11-23 (`SMSFILTER_BIN`).
final class EveryFormatTests: CLITestCase {
    /// The fixture's JSON Lines records `range` (0-based) as a plain file.
    func jsonlSlice(_ range: Range<Int>, _ name: String) throws -> String {
        let lines = try GeneratedFixture.jsonlLines()[range].map { $0 + [0x0A] }.joined()
        try Data(Array(lines)).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    /// The figures that do not depend on where the records came from.
    func figures(_ o: [String: Any]) -> [String: String] {
        var out: [String: String] = [:]
        for key in ["records", "scored", "correct", "accuracy", "classes", "confusion", "rules", "folders", "conflicts", "labels", "skipped"] {
            if let v = o[key], let data = try? JSONSerialization.data(withJSONObject: ["v": v], options: [.sortedKeys]) {
                out[key] = String(decoding: data, as: UTF8.self)
            }
        }
        return out
    }

    func testEvaluateOnCSVGivesTheFiguresOfTheSameRecordsAsJSONLines() throws {
        let jsonl = try jsonlSlice(0..<GeneratedFixture.otherFormatCount, "same.jsonl")
        var results: [[String: String]] = []
        for input in [GeneratedFixture.csv, jsonl] {
            let r = try run(["evaluate", input, "--rules", GeneratedFixture.rules, "--map", "identity", "--json-file", "-", "-q", "--threads", "2"])
            XCTAssertEqual(r.status, 0, r.err)
            let o = try json(r.out)
            XCTAssertEqual(o["records"] as? Int, GeneratedFixture.otherFormatCount, input)
            XCTAssertEqual(o["scored"] as? Int, GeneratedFixture.otherFormatCount, input)
            results.append(figures(o))
        }
        XCTAssertEqual(results[0], results[1])
        XCTAssertEqual(results[0].count, 11)
    }

    /// The lines of every split, parsed.
    func exported(_ folder: String) throws -> [[String: String?]] {
        var rows: [[String: String?]] = []
        for split in ["train", "validation", "test"] {
            let text = try String(contentsOfFile: path("\(folder)/\(split).jsonl"), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let o = try json(String(line))
                rows.append(["split": split, "id": o["id"] as? String, "label": o["label"] as? String, "body": o["body"] as? String])
            }
        }
        return rows
    }

    func testExportReadsCSVAndXML() throws {
        let n = GeneratedFixture.otherFormatCount
        // CSV: the same lines as from the same records in JSON Lines (labels from a field, splits by id).
        let jsonl = try jsonlSlice(0..<n, "csv-records.jsonl")
        for (input, out) in [(GeneratedFixture.csv, "from-csv"), (jsonl, "from-jsonl")] {
            let r = try run(["export", input, "--label-field", "label", "-o", path(out), "-q"])
            XCTAssertEqual(r.status, 0, r.err)
        }
        let fromCSV = try exported("from-csv")
        XCTAssertEqual(fromCSV.count, n)
        let lines = { (rows: [[String: String?]]) in rows.map { r in ["split", "id", "label", "body"].map { (r[$0] ?? nil) ?? "-" }.joined(separator: "\t") }.sorted() }
        XCTAssertEqual(lines(fromCSV), lines(try exported("from-jsonl")))
        // XML (no ids: split by body): the rules label the same bodies the same way.
        let xmlRecords = try jsonlSlice((2 * n)..<(3 * n), "xml-records.jsonl")
        for (input, out) in [(GeneratedFixture.xml, "from-xml"), (xmlRecords, "from-xml-jsonl")] {
            let r = try run(["export", input, "--rules", GeneratedFixture.rules, "-o", path(out), "-q"])
            XCTAssertEqual(r.status, 0, r.err)
        }
        let fromXML = try exported("from-xml")
        XCTAssertEqual(fromXML.count, n)
        let pairs = { (rows: [[String: String?]]) in rows.map { "\(($0["label"] ?? nil) ?? "-")\t\(($0["body"] ?? nil) ?? "-")" }.sorted() }
        XCTAssertEqual(pairs(fromXML), pairs(try exported("from-xml-jsonl")))
    }

    /// `--output-format` converts while labelling: CSV into JSON Lines (every line parses, with the CSV's id,
    /// body and labels), JSON Lines into CSV and into well-formed XML.
    func testClassifyConvertsBetweenFormats() throws {
        let n = GeneratedFixture.otherFormatCount
        let labels = try run(["classify", GeneratedFixture.csv, "--labels-only", "-o", path("labels.jsonl"), "-q"])
        XCTAssertEqual(labels.status, 0, labels.err)
        let expected = try String(contentsOfFile: path("labels.jsonl"), encoding: .utf8).split(separator: "\n").map { try json(String($0)) }
        let r = try run(["classify", GeneratedFixture.csv, "--output-format", "jsonl", "-o", path("converted.jsonl"), "-q"])
        XCTAssertEqual(r.status, 0, r.err)
        let lines = try String(contentsOfFile: path("converted.jsonl"), encoding: .utf8).split(separator: "\n").map { try json(String($0)) }
        let records = try GeneratedFixture.records()
        XCTAssertEqual(lines.count, n)
        for (k, line) in lines.enumerated() {
            XCTAssertEqual(line["id"] as? String, records[k].id)
            XCTAssertEqual(line["body"] as? String, records[k].body)
            XCTAssertEqual(line["sender"] as? String, records[k].sender)
            XCTAssertEqual(line["filter"] as? NSDictionary, expected[k]["filter"] as? NSDictionary, records[k].id)
        }
        let jsonl = try jsonlSlice(0..<n, "records.jsonl")
        XCTAssertEqual(try run(["classify", jsonl, "--output-format", "xml", "-o", path("converted.xml"), "-q"]).status, 0)
        let xml = try Data(contentsOf: URL(fileURLWithPath: path("converted.xml")))
        XCTAssertTrue(XMLParser(data: xml).parse())
        XCTAssertEqual(String(decoding: xml, as: UTF8.self).components(separatedBy: "<sms ").count - 1, n)
        XCTAssertEqual(try run(["classify", jsonl, "--output-format", "csv", "-o", path("converted.csv"), "-q"]).status, 0)
        let csv = try run(["classify", path("converted.csv"), "--labels-only", "-o", path("again.jsonl"), "-q"])
        XCTAssertEqual(csv.status, 0, csv.err)
        XCTAssertEqual(try String(contentsOfFile: path("again.jsonl"), encoding: .utf8), try String(contentsOfFile: path("labels.jsonl"), encoding: .utf8))
    }

    /// An output name whose suffix says another format than the one written is a usage error (64), and
    /// nothing is written.
    func testAnOutputSuffixThatContradictsTheFormatIsRefused() throws {
        let csv = try write("export.csv", "id,body\n1,hello\n")
        let cases: [[String]] = [
            ["classify", csv, "-o", path("x.jsonl")],
            ["classify", csv, "--output-format", "xml", "-o", path("x.csv.zst")],
            ["classify", csv, "--labels-only", "-o", path("x.csv")],
        ]
        for args in cases {
            let r = try run(args + ["-q"])
            XCTAssertEqual(r.status, 64, "\(args): \(r.err)")
            XCTAssertTrue(r.err.contains("the name says"), r.err)
        }
        for name in ["x.jsonl", "x.csv.zst", "x.csv"] { XCTAssertFalse(FileManager.default.fileExists(atPath: path(name)), name) }
        XCTAssertEqual(try run(["classify", csv, "--output-format", "jsonl", "-o", path("ok.jsonl"), "-q"]).status, 0)
    }

    /// learn reads CSV: the same records learn the same model as from JSON Lines.
    func testLearnReadsCSV() throws {
        let jsonl = try jsonlSlice(0..<GeneratedFixture.otherFormatCount, "learn.jsonl")
        var models: [String] = []
        for (input, out) in [(GeneratedFixture.csv, "csv.yaml"), (jsonl, "jsonl.yaml")] {
            let r = try run(["learn", "--map", "identity", "--by", "action", "--min-documents", "1", "-o", path(out), "-q", input])
            XCTAssertEqual(r.status, 0, r.err)
            let text = try String(contentsOfFile: path(out), encoding: .utf8)
            // The model's phrases and weights, without the provenance (which names the input).
            models.append(text.components(separatedBy: "\n").filter { !$0.contains("input") && !$0.contains("checksum") && !$0.contains(".csv") && !$0.contains(".jsonl") }.joined(separator: "\n"))
        }
        XCTAssertEqual(models[0], models[1])
        XCTAssertTrue(models[0].contains("phrases:"))
    }
}
