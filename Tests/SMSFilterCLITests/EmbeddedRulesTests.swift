import Foundation
import TestSupport
import XCTest

/// `embedded:rules` names the built-in rule file wherever a rule file is taken (issue 32 item 3): `learn
/// --rules` said "no such file" (66), and so did `check` and `export-extension`; `show-rules` prints the file
/// so that a user can start from it.
final class EmbeddedRulesTests: CLITestCase {
    var sample: URL { Fixtures.packageRoot.appendingPathComponent("samples/default-rules.yaml") }

    /// Every command that takes a rule file takes `embedded:rules`, and gives what the same text as a file
    /// (samples/default-rules.yaml, which the binary embeds) gives: `check` the same report, `compile` the same
    /// checksum, `learn` the same model file but for the name of its rules, `export-extension` the same refusal
    /// (the built-in rules declare no capabilities, so no iOS extension: 65, never 66), and classify,
    /// evaluate, export, explain and bench run.
    func testEveryCommandThatTakesARuleFileAcceptsEmbeddedRules() throws {
        let copy = path("default-rules.yaml")
        try FileManager.default.copyItem(at: sample, to: URL(fileURLWithPath: copy))
        func both(_ args: (String) -> [String]) throws -> (embedded: (status: Int32, out: String, err: String), file: (status: Int32, out: String, err: String)) {
            (try run(args("embedded:rules")), try run(args(copy)))
        }
        // check, offline and iOS.
        let check = try both { ["check", $0, "--json"] }
        XCTAssertEqual(check.embedded.status, 0, check.embedded.err)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(check.embedded.out.utf8)) as? [String: Any])
        let fileReport = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(check.file.out.utf8)) as? [String: Any])
        XCTAssertEqual(report["file"] as? String, "embedded:rules")
        for key in ["verdict", "checksum", "rules", "phrases"] { XCTAssertEqual(report[key] as? NSObject, fileReport[key] as? NSObject, key) }
        let ios = try both { ["check", "--target", "ios", $0] }
        XCTAssertEqual(ios.embedded.status, 65, ios.embedded.err)
        XCTAssertEqual(ios.embedded.out.replacingOccurrences(of: "embedded:rules", with: copy), ios.file.out)
        // compile.
        let compile = try both { ["compile", $0, "-o", self.path(($0 == copy ? "f" : "e") + ".smsf"), "--json"] }
        XCTAssertEqual(compile.embedded.status, 0, compile.embedded.err)
        let compiled = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(compile.embedded.out.utf8)) as? [String: Any])
        let compiledFile = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(compile.file.out.utf8)) as? [String: Any])
        XCTAssertEqual(compiled["checksum"] as? String, compiledFile["checksum"] as? String)
        // export-extension: refused on its merits, with check's reason.
        let ext = try run(["export-extension", "embedded:rules", "-o", path("ext")])
        XCTAssertEqual(ext.status, 65, ext.err)
        XCTAssertTrue(ext.err.contains("cannot export an iOS extension") && ext.err.contains("capabilities"), ext.err)
        XCTAssertFalse(ext.err.contains("no such"), ext.err)
        // learn: the model joins the built-in rules; the file equals the one learned with the sample's copy but
        // for the rules' name in the provenance (the checksum is of the same bytes).
        let learn = try both { ["learn", GeneratedFixture.jsonl, "--map", "identity", "--rules", $0, "-o", self.path(($0 == copy ? "f" : "e") + "-model.yaml"), "-q"] }
        XCTAssertEqual(learn.embedded.status, 0, learn.embedded.err)
        XCTAssertEqual(learn.file.status, 0, learn.file.err)
        let learned = try String(contentsOfFile: path("e-model.yaml"), encoding: .utf8)
        let learnedFromFile = try String(contentsOfFile: path("f-model.yaml"), encoding: .utf8)
        XCTAssertTrue(learned.contains(#"rules: {name: "embedded:rules", checksum: ""#), learned)
        XCTAssertEqual(learned.replacingOccurrences(of: #"name: "embedded:rules""#, with: #"name: "default-rules.yaml""#), learnedFromFile)
        XCTAssertTrue(learned.hasPrefix(try String(contentsOf: sample, encoding: .utf8)))
        XCTAssertEqual(try run(["check", path("e-model.yaml"), "-q"]).status, 0)
        // The commands that took it already.
        let input = GeneratedFixture.jsonl
        for args in [
            ["classify", input, "--rules", "embedded:rules", "--no-output", "-q"],
            ["evaluate", input, "--rules", "embedded:rules", "--map", "identity", "-q"],
            ["export", input, "--rules", "embedded:rules", "-o", path("exported"), "-q"],
            ["explain", "--rules", "embedded:rules", "your otp is 1234"],
            ["bench", input, "--rules", "embedded:rules", "--json"],
        ] {
            let r = try run(args)
            XCTAssertEqual(r.status, 0, "\(args.joined(separator: " ")): \(r.err)")
        }
        // A file of that name is still reached as ./embedded:rules.
        try FileManager.default.copyItem(atPath: copy, toPath: path("embedded:rules"))
        let local = try Fixtures.run("sh", ["-c", "cd \"$1\" && \"$2\" check ./embedded:rules --json", "sh", folder.path, bin])
        XCTAssertEqual(local.status, 0)
        let localReport = try XCTUnwrap(JSONSerialization.jsonObject(with: local.stdout) as? [String: Any])
        XCTAssertEqual(localReport["file"] as? String, "./embedded:rules")
    }

    /// `show-rules` prints samples/default-rules.yaml byte for byte (to standard output, or `-o`), it compiles back
    /// to the embedded rule set (same checksum as `embedded:rules`) and checks ready; another name is a usage
    /// error, and `-o` does not replace a file without `--force`.
    func testShowRulesPrintsTheEmbeddedRuleFileByteForByte() throws {
        let expected = try Data(contentsOf: sample)
        let printed = try Fixtures.run(bin, ["show-rules"])
        XCTAssertEqual(printed.status, 0)
        XCTAssertEqual(printed.stdout, expected)
        XCTAssertTrue(printed.stderr.isEmpty)
        XCTAssertEqual(try Fixtures.run(bin, ["show-rules", "embedded:rules"]).stdout, expected)
        let out = path("mine.yaml")
        XCTAssertEqual(try run(["show-rules", "embedded", "-o", out]).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)), expected)
        let again = try run(["show-rules", "-o", out])
        XCTAssertEqual(again.status, 64, again.err)
        XCTAssertTrue(again.err.contains("--force"), again.err)
        XCTAssertEqual(try run(["show-rules", "-o", out, "--force"]).status, 0)
        let other = try run(["show-rules", "samples/default-rules.yaml"])
        XCTAssertEqual(other.status, 64)
        XCTAssertTrue(other.err.contains("embedded"), other.err)
        // It compiles back to the built-in rule set.
        let mine = try run(["compile", out, "-o", path("mine.smsf"), "--json"])
        let builtIn = try run(["compile", "embedded:rules", "-o", path("builtin.smsf"), "--json"])
        XCTAssertEqual(mine.status, 0, mine.err)
        let a = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(mine.out.utf8)) as? [String: Any])
        let b = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(builtIn.out.utf8)) as? [String: Any])
        XCTAssertEqual(a["checksum"] as? String, b["checksum"] as? String)
        XCTAssertEqual(a["rules"] as? Int, b["rules"] as? Int)
        XCTAssertEqual(try run(["check", out, "-q"]).status, 0)
        // The same labels as the embedded rules on the fixture.
        let labels = try run(["classify", GeneratedFixture.jsonl, "--rules", out, "--labels-only", "-o", "-", "-q"])
        let builtInLabels = try run(["classify", GeneratedFixture.jsonl, "--rules", "embedded:rules", "--labels-only", "-o", "-", "-q"])
        XCTAssertEqual(labels.out, builtInLabels.out)
        XCTAssertFalse(labels.out.isEmpty)
    }
}
