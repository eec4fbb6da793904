import Foundation
import TestSupport
import XCTest

/// A field option that names nothing in a JSON Lines file is an error listing the fields found, as a
/// missing CSV column is (issue 14 item 5): not a run that rejects every record and exits 0.
final class FieldOptionTests: CLITestCase {
    func testAWrongBodyFieldOnJSONLinesIsAnErrorListingTheFields() throws {
        let input = try write("in.jsonl", """
            {"id": 1, "text": "win a prize", "from": "x"}
            {"id": 2, "text": "see you", "from": "y"}

            """)
        for command in [["classify", input, "-o", path("out.jsonl")], ["evaluate", input, "--map", "identity"],
                        ["export", input, "-o", path("sets")]] {
            let result = try Fixtures.run(bin, command + ["--body-field", "body"])
            let stderr = String(decoding: result.stderr, as: UTF8.self)
            XCTAssertEqual(result.status, 65, "\(command[0]): \(stderr)")
            XCTAssertTrue(stderr.contains("no record among the first 2 has a \"body\" field (fields found: from, id, text)"), stderr)
            XCTAssertTrue(stderr.contains("--body-field"), stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.jsonl")), "no output on a refused input")
        // Named correctly, the same file is read; one record without the field among others is a reject.
        let ok = try Fixtures.run(bin, ["classify", input, "--body-field", "text", "--labels-only", "-o", "-", "-q"])
        XCTAssertEqual(ok.status, 0, String(decoding: ok.stderr, as: UTF8.self))
        XCTAssertEqual(ok.stdout.split(separator: 0x0A).count, 2)
        let mixed = try write("mixed.jsonl", "{\"a\": 1}\n{\"body\": \"x\"}\n")
        let partly = try Fixtures.run(bin, ["classify", mixed, "--labels-only", "-o", "-", "-q"])
        XCTAssertEqual(partly.status, 0, String(decoding: partly.stderr, as: UTF8.self))
        XCTAssertEqual(partly.stdout.split(separator: 0x0A).count, 1)
    }
}
