import Foundation
import TestSupport
import XCTest

/// Issue 35 item 6: the conventions data engineers know, each found missing on the main of 2026-12-07 by a
/// new user: `--version` did not name the embedded rule set and model (counts files cite a checksum nothing
/// mapped back), `-q` silenced an explicitly asked `--json`, `plan` said "0 decoded bytes (estimated)" and
/// talked of frames for a plain or gzip archive.
final class ConventionTests: HostileTestCase {
    /// `1,234`.
    func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return out
    }

    /// `--version` names the embedded rule set, rules and model with the checksums that the other commands
    /// cite: the `ruleSet` of a default classify's counts, of a `--rules embedded:rules` run's, and what
    /// `check` says of `samples/default-model.yaml` and `samples/default-rules.yaml`.
    func testVersionNamesTheEmbeddedRuleSetAndModelWithTheirChecksums() throws {
        let version = try run(["--version"])
        XCTAssertEqual(version.status, 0, version.err)
        XCTAssertTrue(version.out.hasPrefix("smsfilter 0.1.0 (libzstd "), version.out)
        let counts = try json(try run(["classify", input, "--no-output", "--json", "-q"]).out)
        let rulesOnly = try json(try run(["classify", input, "--no-output", "--json", "-q", "--rules", "embedded:rules"]).out)
        let root = Fixtures.packageRoot.path
        let model = try json(try run(["check", root + "/samples/default-model.yaml", "--json"]).out)
        let rules = try json(try run(["check", root + "/samples/default-rules.yaml", "--json"]).out)
        let all = try XCTUnwrap(counts["ruleSet"] as? String)
        XCTAssertNotEqual(all, rulesOnly["ruleSet"] as? String)
        XCTAssertEqual(rules["checksum"] as? String, rulesOnly["ruleSet"] as? String, "embedded:rules is samples/default-rules.yaml")
        let lines = version.out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, version.out)
        XCTAssertTrue(lines[1].contains("checksum \(all), the \"ruleSet\" of counts files"), lines[1])
        XCTAssertTrue(lines[2].contains("\(rules["rules"]!) rules, \(rules["phrases"]!) phrases")
            && lines[2].hasSuffix("alone (--rules embedded:rules): checksum \(rulesOnly["ruleSet"]!)"), lines[2])
        let m = try XCTUnwrap(model["model"] as? [String: Any])
        XCTAssertTrue(lines[3].contains("model: \"\(m["name"]!)\", \(m["phrases"]!) phrases × \((m["targets"] as! [Any]).count) targets")
            && lines[3].hasSuffix("(samples/default-model.yaml): checksum \(model["checksum"]!)"), lines[3])
    }

    /// `-q` silences tables and progress, never a `--json` asked for on the same command line: the JSON comes
    /// out whole (and only it) on every command that has both flags.
    func testQuietDoesNotSilenceAnAskedJSON() throws {
        let rules = try write("rules.yaml", "version: 1\nrules:\n  - name: prize\n    action: junk\n    keywords: [prize]\n")
        let corpus = try labelled()
        let counts = path("c.json")
        XCTAssertEqual(try run(["classify", input, "--no-output", "--counts", counts, "-q"]).status, 0)
        // Each run writes its outputs under new names (`n`), so that none needs -f.
        let commands: [((String) -> [String], String)] = [
            ({ _ in ["classify", self.input, "--no-output"] }, "records"),
            ({ _ in ["evaluate", corpus, "--map", "spam=junk,ham=none"] }, "accuracy"),
            ({ n in ["export", self.input, "-o", self.path("sets" + n)] }, "splits"),
            ({ n in ["generate", "--count", "3", "-o", self.path("g\(n).jsonl")] }, "records"),
            ({ _ in ["plan", self.input] }, "splits"),
            ({ _ in ["check", rules] }, "verdict"),
            ({ n in ["compile", rules, "-o", self.path("r\(n).smsf")] }, "checksum"),
            ({ n in ["export-extension", rules, "-o", self.path("ext" + n)] }, "checksum"),
            ({ _ in ["explain", "win a prize"] }, "folder"),
            ({ n in ["learn", corpus, "--map", "spam=junk,ham=none", "-o", self.path("m\(n).yaml")] }, "phrases"),
        ]
        for (args, key) in commands {
            for quiet in ["-q", "--quiet"] {
                let r = try run(args(quiet) + [quiet, "--json"])
                XCTAssertEqual(r.status, 0, "\(args(quiet)): \(r.err)")
                let object = try json(r.out)
                XCTAssertNotNil(object[key], "\(args(quiet)) \(quiet) --json: \(r.out.prefix(300))")
                XCTAssertEqual(r.err, "", "\(args(quiet)): -q still silences the rest")
            }
            // -q alone still prints nothing (explain -q: the folder alone).
            let silent = try run(args("-alone") + ["-q"])
            XCTAssertEqual(silent.status, 0, "\(args("-alone")): \(silent.err)")
            XCTAssertTrue(silent.err.isEmpty && (silent.out.isEmpty || silent.out == "Junk\n"), "\(args("-alone")) -q: \(silent.out) \(silent.err)")
        }
    }

    /// A plain, gzip or single-frame zstd archive is one split, said plainly with why; its decoded size is
    /// the file's (plain), the frames' (zstd) or unknown (gzip), never "0 decoded bytes (estimated)".
    func testPlanSaysPlainlyWhenAnArchiveIsOneSplit() throws {
        let text = (0..<200).map { "{\"id\": \($0), \"body\": \"message \($0)\"}\n" }.joined()
        let plain = try write("p.jsonl", text)
        XCTAssertEqual(try Fixtures.run("gzip", ["-k", plain]).status, 0)
        XCTAssertEqual(try Fixtures.run("zstd", ["-q", plain, "-o", plain + ".zst"]).status, 0)
        let size = text.utf8.count
        for (file, container, why, decoded) in [
            (plain, "plain", "plain (uncompressed) input", "\(grouped(size)) decoded bytes"),
            (plain + ".gz", "gzip", "gzip: one stream with no points where decoding can start", "compressed bytes (gzip does not say its decoded size)"),
            (plain + ".zst", "zstd", "one zstd frame: zstd archives can be cut only between frames", "\(grouped(size)) decoded bytes"),
        ] {
            let r = try run(["plan", file])
            XCTAssertEqual(r.status, 0, r.err)
            let lines = r.out.split(separator: "\n").map(String.init)
            XCTAssertTrue(lines[0].hasPrefix("\(file): \(container)") && lines[0].hasSuffix(decoded), lines[0])
            XCTAssertTrue(lines[1].hasPrefix("one split, the whole archive: \(why)"), lines[1])
            XCTAssertFalse(r.out.contains("estimated") || r.out.contains(" 0 decoded") || r.out.contains("first frame's ratio"), r.out)
            let object = try json(try run(["plan", file, "--json"]).out)
            XCTAssertEqual(object["splittable"] as? Bool, false)
            XCTAssertEqual(object["decodedBytes"] as? Int, container == "gzip" ? nil : size, "\(container): \(object)")
            XCTAssertEqual(object["decodedExact"] as? Bool, container != "gzip", "\(container)")
        }
    }

    /// `check --strict` fails (65) on a rule file that has warnings and no error, says why, and passes one
    /// without warnings; without --strict the same file is ready (0).
    func testCheckStrictFailsOnWarnings() throws {
        let warned = try write("warned.yaml", """
            version: 1
            capabilities: [transactionalFinance]
            rules:
              - name: bank
                action: transaction
                subAction: transactionalFinance
                keywords: [debited]
              - name: weather
                action: transaction
                subAction: transactionalWeather
                keywords: [forecast]

            """)
        let clean = try write("clean.yaml", "version: 1\nrules:\n  - name: bank\n    action: junk\n    keywords: [prize]\n")
        let lax = try run(["check", warned])
        XCTAssertEqual(lax.status, 0, lax.out)
        XCTAssertTrue(lax.out.contains("0 errors, 1 warning") && lax.out.contains("verdict: ready (checksum "), lax.out)
        let strict = try run(["check", "--strict", warned])
        XCTAssertEqual(strict.status, 65, strict.out)
        XCTAssertTrue(strict.out.hasSuffix("verdict: failure (--strict: 1 warning)\n"), strict.out)
        let json = try json(try run(["check", "--strict", "--json", warned]).out)
        XCTAssertEqual(json["verdict"] as? String, "failure")
        XCTAssertEqual(json["strict"] as? Bool, true)
        XCTAssertEqual(try run(["check", "--strict", "-q", warned]).status, 65)
        let ok = try run(["check", "--strict", clean])
        XCTAssertEqual(ok.status, 0, ok.out)
        XCTAssertTrue(ok.out.contains("verdict: ready (checksum "), ok.out)
    }

    /// A semicolon-separated CSV (a European spreadsheet's export) got "no column body"; now the error says
    /// to give --delimiter, and with it every command that reads records reads it, quoted separators
    /// included, and classify writes it back with the same separator (label cells quoted when they hold it).
    func testCSVDelimiter() throws {
        let csv = try write("semi.csv", #"""
            id;sender;body;label
            1;AD-HDFCBK;Rs 500 debited from a/c XX12;ham
            2;+14155550100;"WIN a free cruise; claim now ""today""";spam
            3;+14155550101;see you at 6?;ham

            """#)
        let guess = try run(["classify", csv, "-o", path("x.csv")])
        XCTAssertEqual(guess.status, 65, guess.err)
        XCTAssertTrue(guess.err.contains("the header looks ;-separated: give --delimiter ';'"), guess.err)
        let rules = try write("rules.yaml", "version: 1\nrules:\n  - name: \"prize; cruise\"\n    action: junk\n    keywords: [cruise]\n")
        let r = try run(["classify", csv, "--delimiter", ";", "--rules", rules, "-o", "-", "-q"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.out, #"""
            id;sender;body;label;filter_action;filter_subAction;filter_folder;filter_rule
            1;AD-HDFCBK;Rs 500 debited from a/c XX12;ham;none;;Unknown Senders;
            2;+14155550100;"WIN a free cruise; claim now ""today""";spam;junk;;Junk;"prize; cruise"
            3;+14155550101;see you at 6?;ham;none;;Unknown Senders;

            """#)
        // The labelled file reads back with the same option: the labels are found in place.
        let labelled = try write("labelled.csv", r.out)
        let again = try run(["classify", labelled, "--delimiter", ";", "--rules", rules, "-o", "-", "-q"])
        XCTAssertEqual(again.out, r.out, "classifying the output again replaces its labels in place")
        // The body with a quoted separator reaches the classifier whole: the same verdicts as JSON Lines.
        let jsonl = try run(["classify", csv, "--delimiter", ";", "--rules", rules, "--labels-only", "-q"])
        XCTAssertEqual(jsonl.out.split(separator: "\n").map { $0.contains("\"folder\": \"Junk\"") }, [false, true, false], jsonl.out)
        let e = try run(["evaluate", csv, "--delimiter", ";", "--rules", rules, "--map", "spam=junk,ham=none", "--json", "-q"])
        XCTAssertEqual(e.status, 0, e.err)
        XCTAssertEqual(try json(e.out)["accuracy"] as? Double, 1.0, e.out)
        for bad in ["a", "7", "\"", ";;", "\\t"] {
            let refused = try run(["classify", csv, "--delimiter", bad, "-o", path("y.csv")])
            XCTAssertEqual(refused.status, 64, "\(bad): \(refused.err)")
            XCTAssertTrue(refused.err.contains("Please give --delimiter as one ASCII punctuation character"), refused.err)
        }
        let tsv = try run(["classify", csv, "--delimiter", ";", "--input-format", "tsv", "-o", path("y.csv")])
        XCTAssertEqual(tsv.status, 64, tsv.err)
    }

    /// `bench`'s table has a header row, and its decoder rows (which count bytes, not messages) show "-" for
    /// messages per second, never "0 msg/s".
    func testBenchTableHasHeadersAndNoZeroRates() throws {
        let r = try run(["bench", input, "--repeat", "1", "--matcher-only", "--matcher-bytes", "4K"])
        XCTAssertEqual(r.status, 0, r.err)
        let lines = r.out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first?.split(separator: " ", omittingEmptySubsequences: true), ["stage", "MB/s", "msg/s", "seconds", "threads"], r.out)
        // Fixed columns: the stage in 18, MB/s in 10, msg/s in 15.
        func messagesCell(_ line: String) -> String {
            String(Array(line).dropFirst(28).prefix(15)).trimmingCharacters(in: .whitespaces)
        }
        let decoders = lines.filter { $0.hasPrefix("decoder") || $0.hasPrefix("zstd -dc") }
        XCTAssertGreaterThanOrEqual(decoders.count, 2, r.out)
        for line in decoders { XCTAssertEqual(messagesCell(line), "-", line) }
        let matchers = lines.filter { $0.hasPrefix("matcher") || $0.hasPrefix("automaton") || $0.hasPrefix("rules alone") }
        XCTAssertGreaterThanOrEqual(matchers.count, 3, r.out)
        for line in matchers { XCTAssertGreaterThan(Double(messagesCell(line)) ?? 0, 0, line) }
        XCTAssertFalse(r.out.dropFirst(lines[0].count).contains("msg/s"), "no unit in the rows, the header says it: \(r.out)")
    }

    /// `export --split 80,20` wrote an empty test file; a part of weight 0 now gets no file (and the table says
    /// so), and a part of positive weight that a small input leaves empty is written and explained.
    func testExportSplitWritesNoFileForAPartOfWeightZero() throws {
        let r = try run(["export", input, "-o", path("sets"), "--split", "80,20"])
        XCTAssertEqual(r.status, 0, r.err)
        let files = try FileManager.default.contentsOfDirectory(atPath: path("sets")).sorted()
        XCTAssertEqual(files, ["train.jsonl", "validation.jsonl"])
        XCTAssertTrue(r.err.contains("test: no file (its weight in --split 80,20,0 is 0)"), r.err)
        let stats = try json(try run(["export", input, "-o", path("sets2"), "--split", "80,20", "--json"]).out)
        XCTAssertEqual(stats["notWritten"] as? [String], ["test"])
        XCTAssertEqual((stats["files"] as? [String])?.map { ($0 as NSString).lastPathComponent }, ["train.jsonl", "validation.jsonl"])
        // Five records, a third part of 1 in 1000: written, empty, and said why.
        let thin = try run(["export", input, "-o", path("sets3"), "--split", "500,499,1"])
        XCTAssertEqual(thin.status, 0, thin.err)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("sets3/test.jsonl"))).count, 0)
        XCTAssertTrue(thin.err.contains("test: an empty file: none of the 5 records written fell in its share"), thin.err)
    }

    /// `export-extension` (and `compile`) said "exported 1 rules" for a file with a model and no rule; they
    /// count rules and the model apart, in good English, and say when a file holds nothing.
    func testExtensionExportCountsRulesAndModelApart() throws {
        let root = Fixtures.packageRoot.path
        let model = try run(["export-extension", root + "/samples/default-model.yaml", "-o", path("ext1")])
        XCTAssertEqual(model.status, 0, model.err)
        XCTAssertTrue(model.err.hasPrefix("exported no rules and model \"default-model\" (checksum "), model.err)
        let empty = try write("empty.yaml", "version: 1\nrules: []\n")
        let none = try run(["export-extension", empty, "-o", path("ext2")])
        XCTAssertTrue(none.err.hasPrefix("exported no rules (checksum "), none.err)
        XCTAssertTrue(none.err.contains("capabilities: none\n") && none.err.contains("has no rule and no model"), none.err)
        let one = try write("one.yaml", "version: 1\nrules:\n  - name: prize\n    action: junk\n    keywords: [prize]\n")
        XCTAssertTrue(try run(["export-extension", one, "-o", path("ext3")]).err.hasPrefix("exported 1 rule (checksum "))
        XCTAssertTrue(try run(["compile", one, "-o", path("one.smsf")]).err.hasPrefix("compiled 1 rule, 1 phrase → "))
        let json = try json(try run(["export-extension", root + "/samples/default-model.yaml", "-o", path("ext4"), "--json"]).out)
        XCTAssertEqual(json["rules"] as? Int, 0)
        XCTAssertEqual(json["model"] as? String, "default-model")
    }
}

extension HostileUseTests {
    /// Issue 35 item 6: `generate`'s progress line was redrawn 2,273 times (once per megabyte) with no rate;
    /// now at most four times a second, each with records/s and an ETA.
    func testGenerateProgressShowsARateAndRedrawsAFewTimesASecond() throws {
        let started = Date()
        let r = try runInTerminal(["generate", "--count", "400000", "--seed", "5", "-o", path("g.jsonl")])
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(r.status, 0, r.output)
        let draws = r.output.components(separatedBy: "\r").dropFirst().map { $0.replacingOccurrences(of: "\u{1B}[2K", with: "") }
            .filter { $0.contains("records  ") && !$0.contains(" in ") }
        XCTAssertGreaterThan(draws.count, 0, "a progress line was drawn: \(r.output.debugDescription)")
        XCTAssertLessThanOrEqual(Double(draws.count), 4 * seconds + 1, "\(draws.count) redraws in \(seconds) s")
        for line in draws { XCTAssertTrue(line.contains(" records/s  ETA "), line) }
    }
}
