import Foundation
import TestSupport
import XCTest

/// Issue 35 item 5: `explain -` took "-" for the message, and nothing explained the records of a file, which
/// is how a batch is debugged. `explain --input FILE|-` explains the records of any format classify reads
/// (all, or `--id`), one block or one JSON line per record. The oracles: `explain --json TEXT --sender S`
/// of each record alone, and `classify --labels-only` of the file.
final class ExplainInputTests: CLITestCase {
    func object(_ line: Substring) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
    }

    /// Every record of a generated archive, in JSON Lines, CSV, TSV, XML and zstd: one JSON line each, in
    /// order, naming its file, line and id, equal to the explanation of its body and sender alone, and in the
    /// folder classify gives it.
    func testEveryRecordOfEveryFormatIsExplainedAsTheMessageAlone() throws {
        let source = path("gen.jsonl")
        XCTAssertEqual(try run(["generate", "--count", "40", "--seed", "51", "-o", source, "-q"]).status, 0)
        var inputs = [source]
        for format in ["csv", "tsv", "xml"] {
            XCTAssertEqual(try run(["classify", source, "--output-format", format, "-o", path("gen.\(format)"), "-q"]).status, 0)
            inputs.append(path("gen.\(format)"))
        }
        XCTAssertEqual(try Fixtures.run("zstd", ["-q", source, "-o", path("gen.jsonl.zst")]).status, 0)
        inputs.append(path("gen.jsonl.zst"))
        let records = try String(contentsOfFile: source, encoding: .utf8).split(separator: "\n").map(object)
        let labels = try run(["classify", source, "--labels-only", "-q"]).out.split(separator: "\n").map(object)
        for input in inputs {
            let r = try run(["explain", "--input", input, "--json"])
            XCTAssertEqual(r.status, 0, "\(input): \(r.err)")
            let lines = r.out.split(separator: "\n")
            XCTAssertEqual(lines.count, records.count, "\(input): one JSON line per record")
            for (k, line) in lines.enumerated() {
                var got = try object(line)
                let record = records[k]
                XCTAssertEqual(got["id"] as? String, record["id"] as? String, "\(input) record \(k)")
                XCTAssertEqual(got["file"] as? String, input)
                XCTAssertEqual(got["line"] as? Int, input.hasSuffix(".xml") ? k + 3 : input.hasSuffix("sv") ? k + 2 : k + 1, "\(input): its line")
                XCTAssertEqual(got["folder"] as? String, (labels[k]["filter"] as? [String: Any])?["folder"] as? String)
                if k % 10 == 0 {
                    // The explanation of the record is the explanation of its message alone.
                    var args = ["explain", "--json", record["body"] as! String]
                    if let sender = record["sender"] as? String { args += ["--sender", sender] }
                    let alone = try object(Substring(try run(args).out.replacingOccurrences(of: "\n", with: "")))
                    for key in ["file", "line", "id"] { got[key] = nil }
                    XCTAssertEqual(
                        try JSONSerialization.data(withJSONObject: got, options: .sortedKeys),
                        try JSONSerialization.data(withJSONObject: alone, options: .sortedKeys), "\(input) record \(k)")
                }
            }
        }
    }

    /// `--id` picks records (repeatable, every record of that id); an id that no record has is an error that
    /// names it (65); records the reader refuses are listed in place with the reason; `-` reads standard
    /// input; the text output is one block per record headed by its id and line; `-q` one line per record.
    func testIdsStandardInputRefusedRecordsAndTheTextBlocks() throws {
        let lines = """
            {"id": "a", "sender": "AD-HDFCBK", "body": "Rs 500 debited from a/c XX12"}
            {"id": "b", "body": "WIN a \\"free\\" cruise!!! Click http://spam.example now"}
            not json
            {"id": "c", "body": null}
            {"id": "a", "body": "see you at six"}

            """
        let file = try write("in.jsonl", lines)
        let picked = try run(["explain", "--input", file, "--id", "a", "--id", "b", "-q"])
        XCTAssertEqual(picked.status, 0, picked.err)
        XCTAssertEqual(picked.out, "a\tTransactions/Finance\nb\tJunk\na\tInbox\n")
        let missing = try run(["explain", "--input", file, "--id", "b", "--id", "zz"])
        XCTAssertEqual(missing.status, 65, missing.err)
        XCTAssertTrue(missing.err.contains("no record with the id \"zz\" (--id)"), missing.err)
        XCTAssertTrue(missing.out.hasPrefix("record \"b\", \(file) line 2\nbody: \"WIN a \\\"free\\\" cruise!!!"), missing.out)
        let all = try run(["explain", "--input", "-", "-q"], stdin: Data(lines.utf8))
        XCTAssertEqual(all.status, 0, all.err)
        XCTAssertEqual(all.out.split(separator: "\n").map(String.init), [
            "a\tTransactions/Finance", "b\tJunk", "line 3\trefused: invalid JSON: a record must be a JSON object at byte 1",
            "line 4\trefused: \"body\" is null", "a\tInbox",
        ])
        let text = try run(["explain", "--input", file])
        let blocks = text.out.components(separatedBy: "\n\n")
        XCTAssertEqual(blocks.count, 5, text.out)
        XCTAssertTrue(blocks[0].hasPrefix("record \"a\", \(file) line 1\nsender: AD-HDFCBK\nbody: \"Rs 500 debited from a/c XX12\"\nrules: "), blocks[0])
        XCTAssertTrue(blocks[0].hasSuffix("folder: Transactions/Finance"), blocks[0])
        XCTAssertEqual(blocks[2], "record at \(file) line 3: refused by the reader: invalid JSON: a record must be a JSON object at byte 1")
        let json = try run(["explain", "--input", file, "--json"]).out.split(separator: "\n")
        XCTAssertEqual(try object(json[3]) as NSDictionary, ["file": file, "line": 4, "refused": "\"body\" is null"] as NSDictionary)
        // "-" alone is no message: the error says how to read standard input.
        let dash = try run(["explain", "-"])
        XCTAssertEqual(dash.status, 64, dash.err)
        XCTAssertTrue(dash.err.contains("Please give --input - to explain the records on standard input"), dash.err)
        XCTAssertEqual(try run(["explain", "--input", path("nope.jsonl")]).status, 66)
        XCTAssertEqual(try run(["explain", "--input", file, "some text"]).status, 64)
    }
}
