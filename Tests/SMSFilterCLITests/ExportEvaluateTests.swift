import Foundation
import TestSupport
import XCTest

/// `smsfilter export` and `smsfilter evaluate` end to end, through the built binary, on the committed
/// fixture (every figure checked against the fixture's truth labels and the golden labels); the real
/// corpora only for the quality floors.
final class ExportEvaluateTests: CLITestCase {

    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    /// The fixture's records and the golden labels (`classify --rules rules.yaml --labels-only`), in order.
    func fixtureWithGoldenLabels() throws -> [(record: GeneratedFixture.Record, filter: [String: Any])] {
        let records = try GeneratedFixture.records()
        let golden = try GeneratedFixture.decompressed(GeneratedFixture.goldenLabels).split(separator: 0x0A)
        XCTAssertEqual(golden.count, records.count)
        return try zip(records, golden).map { record, line in
            let object = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
            XCTAssertEqual(object["id"] as? String, record.id)
            return (record, object["filter"] as! [String: Any])
        }
    }

    // MARK: evaluate

    /// The quality floors of the default rules, just under the measured accuracies (UCI 5302/5574 = 0.951,
    /// Thai 2342/3514 = 0.666). The only tests here that need the real corpora.
    func testEvaluateQualityFloorsOnTheRealCorpora() throws {
        let cases: [(file: String, map: String, records: Int, minAccuracy: Double)] = [
            ("uci_sms_spam.jsonl.zst", "spam=junk|promotion,ham=other", 5574, 0.95),
            ("thai_sms.jsonl.zst", "OTP=transaction,scam=junk,spam=promotion|junk,OK=other", 3514, 0.66),
        ]
        for c in cases {
            let input = try qualityCorpus(c.file)
            let result = try Fixtures.run(bin, ["evaluate", input, "--map", c.map, "--json-file", "-", "--quiet"])
            XCTAssertEqual(result.status, 0, text(result.stderr))
            let figures = try json(result.stdout)
            XCTAssertEqual(figures["records"] as? Int, c.records, c.file)
            XCTAssertEqual(figures["scored"] as? Int, c.records, c.file)
            XCTAssertGreaterThanOrEqual(figures["accuracy"] as! Double, c.minAccuracy, c.file)
        }
    }

    /// `evaluate --map identity` on the fixture (its labels are folder paths): every figure recomputed from
    /// the truth labels and the golden labels of the same rules.
    func testEvaluateOnTheFixture() throws {
        let rows = try fixtureWithGoldenLabels()
        let report = path("fixture.html")
        let result = try Fixtures.run(bin, [
            "evaluate", GeneratedFixture.jsonl, "--rules", GeneratedFixture.rules, "--map", "identity", "--json-file", "-",
            "--report", report,
        ])
        XCTAssertEqual(result.status, 0, text(result.stderr))
        let figures = try json(result.stdout)
        let n = rows.count
        let correct = rows.filter { $0.filter["folder"] as? String == $0.record.label }.count
        XCTAssertEqual(figures["records"] as? Int, n)
        XCTAssertEqual(figures["scored"] as? Int, n)
        XCTAssertEqual(figures["by"] as? String, "folder")
        XCTAssertEqual(figures["correct"] as? Int, correct)
        XCTAssertEqual(figures["accuracy"] as! Double, Double(correct) / Double(n), accuracy: 0.00005)
        // Predicted folders and per-rule wins are the golden labels' tallies.
        var folders: [String: Int] = [:]
        var wins: [String: Int] = [:]
        for row in rows {
            folders[row.filter["folder"] as! String, default: 0] += 1
            if let rule = row.filter["rule"] as? String { wins[rule, default: 0] += 1 }
        }
        XCTAssertEqual((figures["folders"] as! [String: Int]).filter { $0.value > 0 }, folders)
        let rules = figures["rules"] as! [String: [String: Any]]
        for (name, count) in wins { XCTAssertEqual(rules[name]?["hits"] as? Int, count, name) }
        let cells = (figures["confusion"] as! [String: Any])["cells"] as! [[Int]]
        XCTAssertEqual(cells.flatMap { $0 }.reduce(0, +), n)
        XCTAssertNotNil(figures["neverFired"] as? [String])
        XCTAssertNotNil((figures["conflicts"] as? [String: Any])?["records"] as? Int)
        // The table on stderr and the page.
        let table = text(result.stderr)
        XCTAssertTrue(table.contains("confusion (truth → predicted)"), table)
        XCTAssertTrue(table.contains("rules that never fired"))
        XCTAssertTrue(table.contains(String(format: "accuracy %.1f%%", Double(correct) * 100 / Double(n))), table)
        let html = try String(contentsOfFile: report, encoding: .utf8)
        XCTAssertTrue(html.contains("<svg"))
        XCTAssertFalse(html.lowercased().contains("<script"))
        XCTAssertTrue(html.contains(figures["ruleSet"] as! String))
    }

    func testEvaluateUsageErrors() throws {
        let input = GeneratedFixture.jsonl
        XCTAssertEqual(try Fixtures.run(bin, ["evaluate", input]).status, 64)
        XCTAssertEqual(try Fixtures.run(bin, ["evaluate", input, "--map", "spam=jank"]).status, 64)
        XCTAssertEqual(try Fixtures.run(bin, ["evaluate", path("missing.jsonl"), "--map", "spam=junk"]).status, 66)
        XCTAssertEqual(try Fixtures.run(bin, ["evaluate", input, "--map-file", path("missing.yaml")]).status, 66)
        XCTAssertEqual(try Fixtures.run(bin, ["evaluate", input, "--map", "spam=junk", "--rules", path("missing.yaml")]).status, 66)
        // A map file, YAML: the fixture's labels folded to actions.
        try "Junk: junk\nInbox: other\n".write(toFile: path("map.yaml"), atomically: true, encoding: .utf8)
        let ok = try Fixtures.run(bin, ["evaluate", input, "--map-file", path("map.yaml"), "--quiet", "--json-file", path("e.json")])
        XCTAssertEqual(ok.status, 0, text(ok.stderr))
        XCTAssertTrue(ok.stderr.isEmpty)
        let figures = try json(Data(contentsOf: URL(fileURLWithPath: path("e.json"))))
        XCTAssertEqual(figures["by"] as? String, "action")
        let records = try GeneratedFixture.records()
        XCTAssertEqual(figures["scored"] as? Int, records.filter { $0.label == "Junk" || $0.label == "Inbox" }.count)
    }

    /// `--predictions` on the fixture (`--map identity`): one line per scored record, in input order, whose
    /// `predicted` is the golden folder and whose y_true/y_pred give the headline by scikit-learn's formula;
    /// refused (64) over an input, beside `--json-file -` on standard output, or over a file without `--force`.
    /// `--ignore-case` folds the fixture's labels written in capitals; a mapping that says two things of one
    /// label ignoring case is a usage error.
    func testEvaluatePredictionsAndIgnoreCase() throws {
        let rows = try fixtureWithGoldenLabels()
        let predictions = path("pred.jsonl.zst")
        let result = try Fixtures.run(bin, [
            "evaluate", GeneratedFixture.jsonl, "--rules", GeneratedFixture.rules, "--map", "identity", "--json-file", "-", "--quiet",
            "--predictions", predictions,
        ])
        XCTAssertEqual(result.status, 0, text(result.stderr))
        let figures = try json(result.stdout)
        let lines = try text(Fixtures.run("zstd", ["-dcq", predictions]).stdout).split(separator: "\n").map { try json(Data($0.utf8)) }
        XCTAssertEqual(lines.count, rows.count)
        XCTAssertEqual(lines.map { $0["id"] as? String }, rows.map(\.record.id))
        XCTAssertEqual(lines.map { $0["predicted"] as? String }, rows.map { $0.filter["folder"] as? String })
        XCTAssertEqual(lines.map { $0["y_true"] as? String }, rows.map(\.record.label))
        let yTrue = lines.map { $0["y_true"] as! String }, yPred = lines.map { $0["y_pred"] as! String }
        XCTAssertEqual(figures["macroF1"] as! Double, ScikitLearnPinTests.rounded(ScikitLearnPinTests.formula(yTrue, yPred).macro), accuracy: 1e-9)

        let input = GeneratedFixture.jsonl
        XCTAssertEqual(try Fixtures.run(bin, ["evaluate", input, "--map", "identity", "--predictions", input]).status, 64)
        XCTAssertEqual(try Fixtures.run(bin, ["evaluate", input, "--map", "identity", "--predictions", "-", "--json-file", "-"]).status, 64)
        XCTAssertEqual(try Fixtures.run(bin, ["evaluate", input, "--map", "identity", "--predictions", predictions, "-q"]).status, 64)
        XCTAssertEqual(try Fixtures.run(bin, ["evaluate", input, "--map", "Junk=junk,JUNK=other", "--ignore-case"]).status, 64)

        // The fixture's labels in capitals: unmapped without --ignore-case, the same figures with it.
        let shouted = try text(Data(GeneratedFixture.decompressed(input))).split(separator: "\n").map { line -> String in
            var o = try json(Data(line.utf8))
            o["label"] = (o["label"] as? String)?.uppercased()
            return String(decoding: try JSONSerialization.data(withJSONObject: o), as: UTF8.self)
        }.joined(separator: "\n") + "\n"
        let upper = try write("upper.jsonl", shouted)
        let plain = try json(Fixtures.run(bin, ["evaluate", upper, "--rules", GeneratedFixture.rules, "--map", "identity", "--json-file", "-", "-q"]).stdout)
        XCTAssertEqual(plain["scored"] as? Int, 0)
        let folded = try json(Fixtures.run(bin, [
            "evaluate", upper, "--rules", GeneratedFixture.rules, "--map", "identity", "--ignore-case", "--json-file", "-", "-q",
        ]).stdout)
        for key in ["scored", "correct", "accuracy", "macroF1", "macroF1Labels"] {
            XCTAssertEqual(folded[key] as? NSNumber, figures[key] as? NSNumber, key)
        }
        XCTAssertEqual(folded["ignoreCase"] as? Bool, true)
    }

    // MARK: export

    /// `export --dedup` on the fixture: the de-duplication and every record's split recomputed by the test
    /// (its own body normalisation, `OracleHash` for the splits), the fastText lines well formed.
    func testExportOnTheFixture() throws {
        let records = try GeneratedFixture.records()
        let result = try Fixtures.run(bin, [
            "export", GeneratedFixture.jsonl, "--out-dir", path("sets"), "--format", "fasttext", "--dedup", "--label-field", "label",
            "--stats-file", path("stats.json"),
        ])
        XCTAssertEqual(result.status, 0, text(result.stderr))
        let stats = try json(Data(contentsOf: URL(fileURLWithPath: path("stats.json"))))
        XCTAssertEqual(stats["records"] as? Int, records.count)
        // Duplicates: the same body once lowercased and with whitespace runs collapsed; the first is kept.
        var seen = Set<String>()
        var kept: [GeneratedFixture.Record] = []
        for r in records {
            let key = r.body.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
            if seen.insert(key).inserted { kept.append(r) }
        }
        XCTAssertEqual(stats["distinctBodies"] as? Int, seen.count)
        XCTAssertEqual(stats["duplicatesDropped"] as? Int, records.count - kept.count)
        XCTAssertEqual(stats["written"] as? Int, kept.count)
        XCTAssertGreaterThan(records.count - kept.count, 0, "the generator repeats some bodies")
        XCTAssertEqual(stats["leakedBodies"] as? Int, 0)
        // Each kept record is in the split its id hashes to, with its truth label, in input order.
        var expected: [String: [String]] = ["train": [], "validation": [], "test": []]
        for r in kept {
            // (Generated bodies hold no tab, newline or "__label__", which fastText lines rewrite.)
            XCTAssertFalse(r.body.contains("\t") || r.body.contains("\n") || r.body.contains("__label__"), r.id)
            expected[OracleHash.split(OracleHash.id(r.id), (80, 10, 10))]!.append(
                "__label__\(r.label.replacingOccurrences(of: " ", with: "_")) \(r.body)")
        }
        for split in ["train", "validation", "test"] {
            let content = try String(contentsOfFile: path("sets/\(split).txt"), encoding: .utf8)
            let lines = content.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines, expected[split]!, split)
            let perSplit = (stats["splits"] as! [String: [String: Any]])[split]!["records"] as! Int
            XCTAssertEqual(lines.count, perSplit)
        }
        XCTAssertTrue(text(result.stderr).contains("total"))

        // Without --dedup, every record is written and the bodies found in several splits are leaks.
        let leaky = try Fixtures.run(bin, ["export", GeneratedFixture.jsonl, "--out-dir", path("leaky"), "--stats-file", "-", "--quiet"])
        XCTAssertEqual(leaky.status, 0, text(leaky.stderr))
        let leakStats = try json(leaky.stdout)
        XCTAssertEqual(leakStats["written"] as? Int, records.count)
        var splitsOfBody: [String: Set<String>] = [:]
        for r in records {
            let key = r.body.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
            splitsOfBody[key, default: []].insert(OracleHash.split(OracleHash.id(r.id), (80, 10, 10)))
        }
        XCTAssertEqual(leakStats["leakedBodies"] as? Int, splitsOfBody.values.filter { $0.count > 1 }.count)
    }

    /// Labelled by classify with 1, 2 and 8 threads (tiny chunks), then exported: identical training files;
    /// and the labels come from the filter objects (no rule set named in the stats).
    func testSplitsIdenticalAcrossThreadCountsOfTheLabellingRun() throws {
        var outputs: [[Data]] = []
        for threads in ["1", "2", "8"] {
            let labelled = path("labelled-\(threads).jsonl.zst")
            let classify = try Fixtures.run(
                bin, ["classify", GeneratedFixture.jsonl, "-o", labelled, "--threads", threads, "--chunk-size", "4K", "--quiet"])
            XCTAssertEqual(classify.status, 0, text(classify.stderr))
            let export = try Fixtures.run(
                bin, ["export", labelled, "--out-dir", path("sets-\(threads)"), "--format", "csv", "--label", "action", "--stats-file", "-", "--quiet"])
            XCTAssertEqual(export.status, 0, text(export.stderr))
            let stats = try json(export.stdout)
            XCTAssertEqual(stats["labelSources"] as? [String: Int], ["filter": GeneratedFixture.recordCount])
            outputs.append(try ["train", "validation", "test"].map { try Data(contentsOf: URL(fileURLWithPath: path("sets-\(threads)/\($0).csv"))) })
        }
        XCTAssertEqual(outputs[0], outputs[1])
        XCTAssertEqual(outputs[0], outputs[2])
        // The same records classified on the fly give the same files.
        let direct = try Fixtures.run(
            bin, ["export", GeneratedFixture.jsonl, "--out-dir", path("direct"), "--format", "csv", "--label", "action", "--quiet"])
        XCTAssertEqual(direct.status, 0, text(direct.stderr))
        XCTAssertEqual(outputs[0], try ["train", "validation", "test"].map { try Data(contentsOf: URL(fileURLWithPath: path("direct/\($0).csv"))) })
        let rows = outputs[0].map { String(decoding: $0, as: UTF8.self).split(separator: "\n").count - 1 }.reduce(0, +)
        XCTAssertEqual(rows, GeneratedFixture.recordCount)
    }

    // MARK: --max-record

    /// `export` and `evaluate` offer `--max-record` as classify does (one option of the record-format group):
    /// a record longer than it is neither scored nor written but counted as classify rejects it, under
    /// classify's reason, and the records around it are read as usual; with the default limit it is read.
    func testExportAndEvaluateHonourMaxRecord() throws {
        let long = "{\"id\": \"2\", \"label\": \"Junk\", \"body\": \"\(String(repeating: "x", count: 3000))\"}"
        let input = try write("long.jsonl", "{\"id\": \"1\", \"label\": \"Junk\", \"body\": \"a\"}\n\(long)\n{\"id\": \"3\", \"label\": \"Inbox\", \"body\": \"b\"}\n")
        // classify: the over-long record is rejected (line 2), with its reason.
        let classify = try Fixtures.run(bin, ["classify", input, "-o", path("labels.jsonl"), "--rejects", path("rejects.jsonl"), "--max-record", "1K", "-q"])
        XCTAssertEqual(classify.status, 0, text(classify.stderr))
        let reject = try json(Data(contentsOf: URL(fileURLWithPath: path("rejects.jsonl"))))
        XCTAssertEqual(reject["line"] as? Int, 2)
        let reason = "record longer than --max-record"
        XCTAssertTrue((reject["reason"] as? String ?? "").contains("--max-record"), "\(reject)")
        for (limit, skipped, kept) in [(["--max-record", "1K"], [reason: 1], 2), ([], [:], 3)] {
            let evaluate = try Fixtures.run(bin, ["evaluate", input, "--map", "identity", "--json-file", "-", "--quiet"] + limit)
            XCTAssertEqual(evaluate.status, 0, text(evaluate.stderr))
            let figures = try json(evaluate.stdout)
            XCTAssertEqual(figures["skipped"] as? [String: Int], skipped, "evaluate \(limit)")
            XCTAssertEqual(figures["scored"] as? Int, kept, "evaluate \(limit)")
            let folder = path("sets\(limit.count)")
            let export = try Fixtures.run(bin, ["export", input, "-o", folder, "--label-field", "label", "--format", "csv", "--stats-file", "-", "--quiet"] + limit)
            XCTAssertEqual(export.status, 0, text(export.stderr))
            let stats = try json(export.stdout)
            XCTAssertEqual(stats["skipped"] as? [String: Int], skipped, "export \(limit)")
            XCTAssertEqual(stats["written"] as? Int, kept, "export \(limit)")
            let rows = try ["train", "validation", "test"].map { try String(contentsOfFile: "\(folder)/\($0).csv", encoding: .utf8) }
            XCTAssertEqual(rows.joined().contains(String(repeating: "x", count: 3000)), kept == 3, "export \(limit)")
        }
        // Out of range, as classify says it.
        for command in [["evaluate", input, "--map", "identity"], ["export", input, "-o", path("bad")]] {
            let r = try Fixtures.run(bin, command + ["--max-record", "100G"])
            XCTAssertEqual(r.status, 64, command[0])
            XCTAssertTrue(text(r.stderr).contains("1K to 1G"), "\(command[0]): \(text(r.stderr))")
        }
    }

    func testExportUsageErrors() throws {
        let input = GeneratedFixture.jsonl
        XCTAssertEqual(try Fixtures.run(bin, ["export", input]).status, 64)  // no --out-dir
        let twoWay = try Fixtures.run(bin, ["export", input, "--out-dir", path("x"), "--split", "90,10", "--stats-file", "-", "--quiet"])
        XCTAssertEqual(twoWay.status, 0, text(twoWay.stderr))
        let splits = try json(twoWay.stdout)["splits"] as! [String: [String: Any]]
        XCTAssertEqual(splits["test"]?["records"] as? Int, 0, "90,10 has no test part")
        XCTAssertEqual(try Fixtures.run(bin, ["export", input, "--out-dir", path("y"), "--split", "a,b,c"]).status, 64)
        XCTAssertEqual(try Fixtures.run(bin, ["export", input, "--out-dir", path("y"), "--label-prefix", "a b"]).status, 64)
        XCTAssertEqual(try Fixtures.run(bin, ["export", path("missing.jsonl"), "--out-dir", path("y")]).status, 66)
    }
}
