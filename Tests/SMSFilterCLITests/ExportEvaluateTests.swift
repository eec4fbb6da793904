import Foundation
import TestSupport
import XCTest

/// `smsfilter export` and `smsfilter evaluate` end to end, through the built binary, on the real corpora.
final class ExportEvaluateTests: CLITestCase {

    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    // MARK: evaluate

    func testEvaluateDefaultRulesOnBothCorpora() throws {
        let cases: [(file: String, map: String, records: Int, minAccuracy: Double)] = [
            ("uci_sms_spam.jsonl.zst", "spam=junk|promotion,ham=other", 5574, 0.85),
            ("thai_sms.jsonl.zst", "OTP=transaction,scam=junk,spam=promotion|junk,OK=other", 3514, 0.5),
        ]
        for c in cases {
            let input = try corpus(c.file)
            let report = path("\(c.file).html")
            let result = try Fixtures.run(bin, ["evaluate", input, "--map", c.map, "--json-file", "-", "--report", report])
            XCTAssertEqual(result.status, 0, text(result.stderr))
            let json = try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
            XCTAssertEqual(json["records"] as? Int, c.records)
            XCTAssertEqual(json["scored"] as? Int, c.records)
            XCTAssertGreaterThan(json["accuracy"] as! Double, c.minAccuracy, c.file)
            let confusion = json["confusion"] as! [String: Any]
            let cells = confusion["cells"] as! [[Int]]
            XCTAssertEqual(cells.flatMap { $0 }.reduce(0, +), c.records)
            XCTAssertEqual((json["folders"] as! [String: Int]).values.reduce(0, +), c.records)
            let rules = json["rules"] as! [String: [String: Any]]
            let hits = rules.values.map { $0["hits"] as! Int }.reduce(0, +)
            XCTAssertLessThanOrEqual(hits, c.records)
            XCTAssertEqual((json["ruleSet"] as? String)?.isEmpty, false)
            XCTAssertNotNil(json["neverFired"] as? [String])
            XCTAssertNotNil((json["conflicts"] as? [String: Any])?["records"] as? Int)
            // The table on stderr and the page.
            let table = text(result.stderr)
            XCTAssertTrue(table.contains("confusion (truth → predicted)"), table)
            XCTAssertTrue(table.contains("rules that never fired"))
            let html = try String(contentsOfFile: report, encoding: .utf8)
            XCTAssertTrue(html.contains("<svg"))
            XCTAssertFalse(html.lowercased().contains("<script"))
            XCTAssertTrue(html.contains(json["ruleSet"] as! String))
        }
    }

    func testEvaluateUsageErrors() throws {
        let input = try corpus("uci_sms_spam.jsonl.zst")
        XCTAssertEqual(try Fixtures.run(bin, ["evaluate", input]).status, 64)
        XCTAssertEqual(try Fixtures.run(bin, ["evaluate", input, "--map", "spam=jank"]).status, 64)
        XCTAssertEqual(try Fixtures.run(bin, ["evaluate", path("missing.jsonl"), "--map", "spam=junk"]).status, 66)
        XCTAssertEqual(try Fixtures.run(bin, ["evaluate", input, "--map-file", path("missing.yaml")]).status, 66)
        XCTAssertEqual(try Fixtures.run(bin, ["evaluate", input, "--map", "spam=junk", "--rules", path("missing.yaml")]).status, 66)
        // A map file, YAML.
        try "spam: [junk, promotion]\nham: other\n".write(toFile: path("map.yaml"), atomically: true, encoding: .utf8)
        let ok = try Fixtures.run(bin, ["evaluate", input, "--map-file", path("map.yaml"), "--quiet", "--json-file", path("e.json")])
        XCTAssertEqual(ok.status, 0, text(ok.stderr))
        XCTAssertTrue(ok.stderr.isEmpty)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("e.json")))) as! [String: Any]
        XCTAssertEqual(json["by"] as? String, "action")
    }

    // MARK: export

    func testExportOnARealCorpus() throws {
        let input = try corpus("thai_sms.jsonl.zst")
        let result = try Fixtures.run(
            bin, ["export", input, "--out-dir", path("sets"), "--format", "fasttext", "--dedup", "--stats-file", path("stats.json")])
        XCTAssertEqual(result.status, 0, text(result.stderr))
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("stats.json")))) as! [String: Any]
        XCTAssertEqual(stats["records"] as? Int, 3514)
        let written = stats["written"] as! Int
        let dropped = stats["duplicatesDropped"] as! Int
        XCTAssertGreaterThan(dropped, 0, "the Thai corpus has repeated OTP texts")
        XCTAssertEqual(written + dropped, 3514)
        XCTAssertEqual(stats["leakedBodies"] as? Int, 0)
        var lines = 0
        for split in ["train", "validation", "test"] {
            let content = try String(contentsOfFile: path("sets/\(split).txt"), encoding: .utf8)
            let rows = content.split(separator: "\n")
            lines += rows.count
            for row in rows {
                XCTAssertEqual(row.split(separator: " ").filter { $0.hasPrefix("__label__") }.count, 1)
                XCTAssertFalse(row.contains("\t"))
            }
            let perSplit = (stats["splits"] as! [String: [String: Any]])[split]!["records"] as! Int
            XCTAssertEqual(rows.count, perSplit)
        }
        XCTAssertEqual(lines, written)
        XCTAssertTrue(text(result.stderr).contains("total"))

        // Without --dedup, leaks are counted.
        let leaky = try Fixtures.run(bin, ["export", input, "--out-dir", path("leaky"), "--stats-file", "-", "--quiet"])
        XCTAssertEqual(leaky.status, 0, text(leaky.stderr))
        let leakStats = try JSONSerialization.jsonObject(with: leaky.stdout) as! [String: Any]
        XCTAssertEqual(leakStats["written"] as? Int, 3514)
        XCTAssertGreaterThan(leakStats["leakedBodies"] as! Int, 0)
    }

    /// Labelled by classify with 1 and with 2 threads, then exported: identical training files; and the
    /// labels come from the filter objects (no rule set named in the stats).
    func testSplitsIdenticalAcrossThreadCountsOfTheLabellingRun() throws {
        let input = try corpus("uci_sms_spam.jsonl.zst")
        var outputs: [[Data]] = []
        for threads in ["1", "2"] {
            let labelled = path("labelled-\(threads).jsonl.zst")
            let classify = try Fixtures.run(bin, ["classify", input, "-o", labelled, "--threads", threads, "--chunk-size", "64K", "--quiet"])
            XCTAssertEqual(classify.status, 0, text(classify.stderr))
            let export = try Fixtures.run(
                bin, ["export", labelled, "--out-dir", path("sets-\(threads)"), "--format", "csv", "--label", "action", "--stats-file", "-", "--quiet"])
            XCTAssertEqual(export.status, 0, text(export.stderr))
            let stats = try JSONSerialization.jsonObject(with: export.stdout) as! [String: Any]
            XCTAssertEqual(stats["labelSources"] as? [String: Int], ["filter": 5574])
            outputs.append(try ["train", "validation", "test"].map { try Data(contentsOf: URL(fileURLWithPath: path("sets-\(threads)/\($0).csv"))) })
        }
        XCTAssertEqual(outputs[0], outputs[1])
        // The same records classified on the fly give the same files.
        let direct = try Fixtures.run(bin, ["export", input, "--out-dir", path("direct"), "--format", "csv", "--label", "action", "--quiet"])
        XCTAssertEqual(direct.status, 0, text(direct.stderr))
        XCTAssertEqual(outputs[0], try ["train", "validation", "test"].map { try Data(contentsOf: URL(fileURLWithPath: path("direct/\($0).csv"))) })
    }

    func testExportUsageErrors() throws {
        let input = try corpus("uci_sms_spam.jsonl.zst")
        XCTAssertEqual(try Fixtures.run(bin, ["export", input]).status, 64)  // no --out-dir
        XCTAssertEqual(try Fixtures.run(bin, ["export", input, "--out-dir", path("x"), "--split", "80,10"]).status, 0)
        XCTAssertEqual(try Fixtures.run(bin, ["export", input, "--out-dir", path("x"), "--split", "a,b,c"]).status, 64)
        XCTAssertEqual(try Fixtures.run(bin, ["export", input, "--out-dir", path("x"), "--label-prefix", "a b"]).status, 64)
        XCTAssertEqual(try Fixtures.run(bin, ["export", path("missing.jsonl"), "--out-dir", path("x")]).status, 66)
    }

    // MARK: The HTML report in a real browser

    /// Renders the evaluation page in headless Chromium with Scripts/render-report.sh and checks the PNG.
    /// Runs when SMSFILTER_BROWSER_TESTS=1 (the script then installs chromium if needed) or when a
    /// chromium is already installed; skipped otherwise.
    func testReportRendersInAHeadlessBrowser() throws {
        let browserInstalled = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
            .contains { FileManager.default.isExecutableFile(atPath: $0) }
        guard ProcessInfo.processInfo.environment["SMSFILTER_BROWSER_TESTS"] == "1" || browserInstalled else {
            throw XCTSkip("no chromium installed; set SMSFILTER_BROWSER_TESTS=1 to install one and run this test")
        }
        let input = try corpus("thai_sms.jsonl.zst")
        let report = path("thai.html")
        let evaluate = try Fixtures.run(
            bin, ["evaluate", input, "--map", "OTP=transaction,scam=junk,spam=promotion|junk,OK=other", "--report", report, "--quiet"])
        XCTAssertEqual(evaluate.status, 0, text(evaluate.stderr))
        let script = Fixtures.packageRoot.appendingPathComponent("Scripts/render-report.sh").path
        let png = path("thai.png")
        let render = try Fixtures.run("/bin/bash", [script, report, png])
        XCTAssertEqual(render.status, 0, text(render.stderr))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
        XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "not a PNG")
        // A blank page renders far smaller, and the script calls it blank.
        try "<!DOCTYPE html><html><body></body></html>".write(toFile: path("blank.html"), atomically: true, encoding: .utf8)
        let blank = try Fixtures.run("/bin/bash", [script, path("blank.html"), path("blank.png")])
        XCTAssertEqual(blank.status, 1, text(blank.stderr))
        let blankSize = (try? Data(contentsOf: URL(fileURLWithPath: path("blank.png"))).count) ?? 0
        XCTAssertGreaterThan(bytes.count, 10 * max(blankSize, 1000))
    }
}
