import Foundation
import TestSupport
import XCTest

/// Inputs are recognised, not guessed into CSV (issue 14 item 5). gzip is read by every command that reads
/// records, from a file or a pipe, with the same results as the plain file (the oracle: the plain file, and
/// `gzip` itself); bzip2, xz, lz4, zip, UTF-16 text and binary data get one line that says what the file looks
/// like and the command that converts it, exit 65 (bad input data, as a damaged archive), and no output file.
/// On main a .gz is read as CSV "columns" of binary: every test here fails there.
final class InputRecognitionTests: CLITestCase {
    /// The committed fixture's JSON Lines, plain, and its gzip; the fixture's CSV and its gzip.
    func inputs() throws -> (jsonl: String, jsonlGz: String, csv: String, csvGz: String) {
        let jsonl = path("fx.jsonl")
        let decoded = try Fixtures.run("zstd", ["-dcq", GeneratedFixture.jsonl])
        XCTAssertEqual(decoded.status, 0)
        try decoded.stdout.write(to: URL(fileURLWithPath: jsonl))
        let csv = path("fx.csv")
        try FileManager.default.copyItem(atPath: GeneratedFixture.csv, toPath: csv)
        for file in [jsonl, csv] {
            // -k keeps the plain file; gzip stores the name and time in the header (FNAME, MTIME).
            XCTAssertEqual(try Fixtures.run("gzip", ["-k", "-9", file]).status, 0)
        }
        return (jsonl, jsonl + ".gz", csv, csv + ".gz")
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// A JSON value as text with sorted keys (to compare values that hold dictionaries).
    func sortedJSON(_ value: Any?) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: ["v": value ?? NSNull()], options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// Every file of an export folder, by name.
    func folderContents(_ folder: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            out[name] = try bytes(folder + "/" + name)
        }
        return out
    }

    func testClassifyReadsGzipAsThePlainFileJSONLinesAndCSV() throws {
        let f = try inputs()
        for (plain, gz) in [(f.jsonl, f.jsonlGz), (f.csv, f.csvGz)] {
            for mode in [["--labels-only"], []] {
                var outputs: [Data] = []
                var counts: [[String: Any]] = []
                for (i, input) in [plain, gz].enumerated() {
                    let ext = mode.isEmpty ? (plain.hasSuffix(".csv") ? "csv" : "jsonl") : "jsonl"
                    let out = path("out\(i).\(ext)")
                    let countsFile = path("counts\(i).json")
                    let r = try run(["classify", input, "-o", out, "--counts", countsFile, "-q", "--threads", "2", "-f"] + mode)
                    XCTAssertEqual(r.status, 0, "\(input): \(r.err)")
                    outputs.append(try bytes(out))
                    counts.append(try json(String(decoding: try bytes(countsFile), as: UTF8.self)))
                }
                XCTAssertGreaterThan(outputs[0].count, 10_000)
                XCTAssertEqual(outputs[0], outputs[1], "\(gz) \(mode): not the plain file's output")
                for key in ["folders", "rules", "rejected", "records", "labelled"] {
                    XCTAssertEqual(try sortedJSON(counts[0][key]), try sortedJSON(counts[1][key]), "\(gz) counts \(key)")
                }
            }
        }
    }

    func testExportEvaluateLearnAndBenchReadGzipAsThePlainFile() throws {
        let f = try inputs()
        for (plain, gz) in [(f.jsonl, f.jsonlGz), (f.csv, f.csvGz)] {
            var exported: [[String: Data]] = []
            var learnt: [String] = []
            var evaluated: [[String: String]] = []
            var benched: [String] = []
            for (i, input) in [plain, gz].enumerated() {
                let export = try run(["export", input, "--label-field", "label", "-o", path("export\(i)"), "-q", "-f"])
                XCTAssertEqual(export.status, 0, "export \(input): \(export.err)")
                exported.append(try folderContents(path("export\(i)")))

                let learn = try run(["learn", "--map", "identity", "--by", "action", "--min-documents", "1", "-o", path("learnt\(i).yaml"), "-q", "-f", input])
                XCTAssertEqual(learn.status, 0, "learn \(input): \(learn.err)")
                // The model names its source file with the file's checksum (of the raw bytes): compare the rest.
                let model = String(decoding: try bytes(path("learnt\(i).yaml")), as: UTF8.self)
                learnt.append(model.split(separator: "\n").filter { !$0.contains("checksum: ") }.joined(separator: "\n"))

                let evaluate = try run(["evaluate", input, "--rules", GeneratedFixture.rules, "--map", "identity", "--json-file", "-", "-q"])
                XCTAssertEqual(evaluate.status, 0, "evaluate \(input): \(evaluate.err)")
                let o = try json(evaluate.out)
                var figures: [String: String] = [:]
                for key in ["records", "scored", "correct", "accuracy", "classes", "confusion"] {
                    let data = try JSONSerialization.data(withJSONObject: ["v": o[key] ?? NSNull()], options: [.sortedKeys])
                    figures[key] = String(decoding: data, as: UTF8.self)
                }
                evaluated.append(figures)

                let bench = try run(["bench", input, "--matcher-only", "--repeat", "1", "--threads", "1", "--json", "-q"])
                XCTAssertEqual(bench.status, 0, "bench \(input): \(bench.err)")
                let matcher = try XCTUnwrap(try json(bench.out)["matcher"] as? [String: Any])
                benched.append("records \(matcher["records"] ?? "-") bytes \(matcher["bytes"] ?? "-")")
            }
            XCTAssertEqual(exported[0].count, 3)
            XCTAssertGreaterThan(exported[0].values.map(\.count).reduce(0, +), 1000)
            XCTAssertEqual(exported[0], exported[1], "export \(gz)")
            XCTAssertGreaterThan(learnt[0].count, 1000)
            XCTAssertEqual(learnt[0], learnt[1], "learn \(gz)")
            XCTAssertEqual(evaluated[0], evaluated[1], "evaluate \(gz)")
            XCTAssertTrue(evaluated[0]["records"] != "{\"v\":0}", "evaluate \(plain) read no records")
            XCTAssertEqual(benched[0], benched[1], "bench \(gz)")
        }
    }

    func testStandardInputGzipFromAPipeAndFromAFile() throws {
        let f = try inputs()
        let plain = try run(["classify", f.jsonl, "--labels-only", "-o", path("plain.jsonl"), "-q"])
        XCTAssertEqual(plain.status, 0, plain.err)
        // A pipe cannot be read twice: the bytes read to recognise it must reach the decoder.
        let piped = try Fixtures.run(
            "bash", ["-c", "cat \"$1\" | \"$2\" classify - --labels-only -o \"$3\" -q", "-", f.jsonlGz, bin, path("piped.jsonl")])
        XCTAssertEqual(piped.status, 0, String(decoding: piped.stderr, as: UTF8.self))
        XCTAssertEqual(try bytes(path("piped.jsonl")), try bytes(path("plain.jsonl")))
        let redirected = try run(["classify", "-", "--labels-only", "-o", path("stdin.jsonl"), "-q"], stdin: try bytes(f.jsonlGz))
        XCTAssertEqual(redirected.status, 0, redirected.err)
        XCTAssertEqual(try bytes(path("stdin.jsonl")), try bytes(path("plain.jsonl")))
        // Two members (as pigz or `cat a.gz b.gz` write): the records of both, in order.
        let twice = path("twice.jsonl.gz")
        try (try bytes(f.jsonlGz) + (try bytes(f.jsonlGz))).write(to: URL(fileURLWithPath: twice))
        XCTAssertEqual(try run(["classify", twice, "--labels-only", "-o", path("twice.jsonl"), "-q"]).status, 0)
        let once = try bytes(path("plain.jsonl"))
        XCTAssertEqual(try bytes(path("twice.jsonl")), once + once)
    }

    /// Each kind no decoder reads: exit 65, one line on standard error naming the file and what it looks like,
    /// no output file; the suggested command, run as printed, gives a file that classifies as the plain one.
    func testOtherCompressorsAndBinaryGetOneLineWithTheConversionAndNoOutput() throws {
        let f = try inputs()
        XCTAssertEqual(try run(["classify", f.jsonl, "--labels-only", "-o", path("plain.jsonl"), "-q"]).status, 0)
        let cases: [(name: String, make: [String], looks: String, converts: Bool)] = [
            ("fx.jsonl.bz2", ["bzip2", "-kc"], "a bzip2 archive", true),
            ("fx.jsonl.xz", ["xz", "-kc"], "an xz archive", true),
            ("fx.jsonl.lz4", ["lz4", "-qc"], "an lz4 archive", true),
            ("fx.jsonl.zip", ["zip", "-q", "-", "-"], "a zip archive", true),
            ("fx.jsonl.utf16", ["iconv", "-f", "UTF-8", "-t", "UTF-16"], "UTF-16 text", true),
            ("fx.bin", ["head", "-c", "3000", "/dev/urandom"], "binary data", false),
            // A zstd archive whose magic number is damaged: binary, not CSV columns.
            ("broken-magic.zst", ["bash", "-c", "printf 'XX'; zstd -qc | tail -c +3"], "binary data", false),
        ]
        for c in cases {
            let target = path(c.name)
            let made = try Fixtures.run(
                "bash", ["-c", "\"${@:2}\" < \"$1\" > \"\(target)\"", "-", f.jsonl] + c.make)
            XCTAssertEqual(made.status, 0, "\(c.make): \(String(decoding: made.stderr, as: UTF8.self))")
            for command in [["classify", target, "-o", path("out.jsonl")], ["export", target, "--label-field", "label", "-o", path("exported")],
                            ["evaluate", target, "--map", "identity", "--json-file", path("out.json")]] {
                let r = try run(command)
                XCTAssertEqual(r.status, 65, "\(command): \(r.err)")
                let lines = r.err.split(separator: "\n")
                XCTAssertEqual(lines.count, 1, "\(command): \(r.err)")
                XCTAssertTrue(r.err.contains("\(target): this looks like \(c.looks)"), r.err)
                XCTAssertTrue(r.out.isEmpty, "\(command) printed \(r.out.prefix(200))")
                XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.jsonl")), "\(command) wrote an output")
                XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.json")), "\(command) wrote an output")
                // export makes its folder before reading (an empty folder is left): no file in it.
                XCTAssertEqual(((try? FileManager.default.contentsOfDirectory(atPath: path("exported"))) ?? []).count, 0, "\(command)")
                XCTAssertEqual(r.err.contains("Convert it: "), c.converts, r.err)
            }
            guard c.converts, let line = try run(["classify", target, "-o", path("out.jsonl")]).err.components(separatedBy: "Convert it: ").last else { continue }
            let converted = try Fixtures.run("bash", ["-c", "cd \"$1\" && " + line.trimmingCharacters(in: .whitespacesAndNewlines), "-", folder.path])
            XCTAssertEqual(converted.status, 0, "\(line): \(String(decoding: converted.stderr, as: UTF8.self))")
            let zst = try XCTUnwrap(line.components(separatedBy: "zstd -o ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
            let r = try run(["classify", zst, "--labels-only", "-o", path("converted.jsonl"), "-q", "-f"])
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssertEqual(try bytes(path("converted.jsonl")), try bytes(path("plain.jsonl")), "\(line)")
            try FileManager.default.removeItem(atPath: zst)
        }
        // Standard input: the same line, naming standard input.
        let piped = try Fixtures.run("bash", ["-c", "bzip2 -c < \"$1\" | \"$2\" classify - -o \"$3\"", "-", f.jsonl, bin, path("out.jsonl")])
        let err = String(decoding: piped.stderr, as: UTF8.self)
        XCTAssertEqual(piped.status, 65, err)
        XCTAssertTrue(err.contains("standard input: this looks like a bzip2 archive"), err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.jsonl")))
    }

    func testTruncatedGzipExits65AfterEveryRecordBeforeTheCutWithTheOffset() throws {
        let f = try inputs()
        let gz = try bytes(f.jsonlGz)
        let cut = gz.count * 2 / 3
        let truncated = path("cut.jsonl.gz")
        try gz.prefix(cut).write(to: URL(fileURLWithPath: truncated))
        let r = try run(["classify", truncated, "--labels-only", "-o", path("cut.jsonl"), "-q"])
        XCTAssertEqual(r.status, 65, r.err)
        XCTAssertTrue(r.err.contains("truncated gzip data"), r.err)
        XCTAssertTrue(r.err.contains("offset \(cut)"), r.err)
        // Every whole record gzip decodes from the cut file is labelled (the oracle: gzip -dc).
        let oracle = try Fixtures.run("gzip", ["-dc"], stdin: gz.prefix(cut))
        let wholeLines = oracle.stdout.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().count
        let written = try bytes(path("cut.jsonl")).split(separator: 0x0A).count
        XCTAssertGreaterThan(wholeLines, 100)
        XCTAssertEqual(written, wholeLines)
    }
}
