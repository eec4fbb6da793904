import Foundation
import TestSupport
import XCTest

/// `smsfilter classify` end to end, through the built binary.
final class ClassifyTests: CLITestCase {

    /// The fixture through the binary: the counts file agrees with the labelled output line by line (decoded
    /// by the zstd CLI), and the labels are the golden file's.
    func testCountsFileAndOutputOnTheFixture() throws {
        let result = try Fixtures.run(bin, [
            "classify", GeneratedFixture.jsonl, "--rules", GeneratedFixture.rules, "-o", path("out.jsonl.zst"),
            "--counts", path("c.json"), "--threads", "2", "--chunk-size", "16K",
        ])
        XCTAssertEqual(result.status, 0, String(decoding: result.stderr, as: UTF8.self))
        let counts = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("c.json")))) as! [String: Any]
        for key in ["records", "labelled", "rejected", "folders", "rules", "dropped", "files", "bytes", "seconds", "ruleSet"] {
            XCTAssertNotNil(counts[key], "counts JSON lacks \(key)")
        }
        let n = GeneratedFixture.recordCount
        XCTAssertEqual(counts["records"] as? Int, n)
        XCTAssertEqual(counts["labelled"] as? Int, n)
        XCTAssertEqual(counts["rejected"] as? Int, 0)
        XCTAssertEqual(counts["bytes"] as? Int, try GeneratedFixture.decompressed(GeneratedFixture.jsonl).count)
        // The table on stderr names the folders.
        let table = String(decoding: result.stderr, as: UTF8.self)
        XCTAssertTrue(table.contains("total") && table.contains("Transactions/Finance"), table)
        // The output decodes with the zstd CLI; its labels are the golden file's, and the counts are its tallies.
        let decoded = try GeneratedFixture.decompressed(path("out.jsonl.zst")).split(separator: 0x0A)
        let golden = try GeneratedFixture.decompressed(GeneratedFixture.goldenLabels).split(separator: 0x0A)
        XCTAssertEqual(decoded.count, n)
        var folders: [String: Int] = [:]
        var rules: [String: Int] = [:]
        for (line, goldenLine) in zip(decoded, golden) {
            let object = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
            let expected = try JSONSerialization.jsonObject(with: Data(goldenLine)) as! [String: Any]
            let filter = object["filter"] as! [String: Any]
            XCTAssertEqual(object["id"] as? String, expected["id"] as? String)
            XCTAssertEqual(NSDictionary(dictionary: filter), NSDictionary(dictionary: expected["filter"] as! [String: Any]))
            folders[filter["folder"] as! String, default: 0] += 1
            if let rule = filter["rule"] as? String { rules[rule, default: 0] += 1 }
        }
        XCTAssertEqual((counts["folders"] as! [String: Int]).filter { $0.value > 0 }, folders)
        XCTAssertEqual((counts["rules"] as! [String: Int]).filter { $0.value > 0 }, rules)
        XCTAssertEqual(counts["noRule"] as? Int, n - rules.values.reduce(0, +))
    }

    /// `--labels-only` of the fixture is the golden file byte for byte, whatever the threads and chunks.
    func testLabelsOnlyIsTheGoldenFile() throws {
        let golden = try GeneratedFixture.decompressed(GeneratedFixture.goldenLabels)
        for (threads, chunk) in [("1", "1M"), ("8", "4K")] {
            let r = try Fixtures.run(bin, [
                "classify", GeneratedFixture.jsonl, "--rules", GeneratedFixture.rules, "--labels-only", "--quiet",
                "--threads", threads, "--chunk-size", chunk,
            ])
            XCTAssertEqual(r.status, 0, String(decoding: r.stderr, as: UTF8.self))
            XCTAssertTrue(Array(r.stdout) == golden, "threads \(threads), chunk \(chunk): differs from the golden file")
        }
    }

    func testStdinToStdoutIsAPureFilter() throws {
        let input = Data("{\"id\": 1, \"body\": \"hello\"}\n{\"id\": 2, \"body\": \"Free entry!\"}\n".utf8)
        let result = try Fixtures.run(bin, ["classify", "--quiet"], stdin: input)
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.stderr.isEmpty, String(decoding: result.stderr, as: UTF8.self))
        let lines = result.stdout.split(separator: 0x0A)
        XCTAssertEqual(lines.count, 2)
        // Each record comes back whole, in order, with its label. The default is the rules plus the default
        // model at priority 95: "hello" holds a model phrase and the model says none; on "Free entry!" the
        // promotional-wording rule fires, an action the model learned from only 14 English messages, so the
        // model yields (docs/RULES.md §10, row 8) and the best rule, premium-rate-and-adult, decides.
        let expected: [(Int, String, String?)] = [(1, "Unknown Senders", "default-model"), (2, "Junk", "premium-rate-and-adult")]
        for ((line, input), (id, folder, rule)) in zip(zip(lines, input.split(separator: 0x0A)), expected) {
            XCTAssertTrue(line.starts(with: input.dropLast()), String(decoding: line, as: UTF8.self))
            let object = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
            let filter = try XCTUnwrap(object["filter"] as? [String: Any])
            XCTAssertEqual(object["id"] as? Int, id)
            XCTAssertEqual(filter["folder"] as? String, folder)
            XCTAssertEqual(filter["rule"] as? String, rule)
        }
    }

    func testTruncatedArchiveExits65AfterWritingEveryRecordBeforeTheDamage() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: GeneratedFixture.jsonl))
        // Inside the third of four zstd frames.
        try bytes.prefix(bytes.count * 5 / 8).write(to: URL(fileURLWithPath: path("cut.zst")))
        let result = try Fixtures.run(bin, ["classify", path("cut.zst"), "-o", path("out.jsonl"), "--rejects", path("rej.jsonl"),
                                            "--counts", path("c.json"), "--quiet"])
        XCTAssertEqual(result.status, 65)
        let stderr = String(decoding: result.stderr, as: UTF8.self)
        XCTAssertTrue(stderr.contains("cut.zst") && stderr.contains("truncated"), stderr)
        let recovered = try Fixtures.run("zstd", ["-dc", path("cut.zst")]).stdout
        let wholeLines = recovered.split(separator: 0x0A, omittingEmptySubsequences: false).count - 1
        XCTAssertGreaterThan(wholeLines, 1000)
        let written = try Data(contentsOf: URL(fileURLWithPath: path("out.jsonl"))).split(separator: 0x0A).count
        XCTAssertEqual(written, wholeLines)
        // The record cut in two is in the rejects, counted.
        let partial = recovered.last != 0x0A
        let rejects = try Data(contentsOf: URL(fileURLWithPath: path("rej.jsonl"))).split(separator: 0x0A)
        XCTAssertEqual(rejects.count, partial ? 1 : 0)
        let counts = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("c.json")))) as! [String: Any]
        XCTAssertEqual(counts["labelled"] as? Int, wholeLines)
        XCTAssertEqual(counts["rejected"] as? Int, partial ? 1 : 0)
        XCTAssertTrue(((counts["files"] as? [[String: Any]])?.first?["error"] as? String)?.contains("truncated") == true)
    }

    func testExitStatuses() throws {
        XCTAssertEqual(try Fixtures.run(bin, ["classify", path("missing.jsonl")]).status, 66)
        XCTAssertEqual(try Fixtures.run(bin, ["classify", "--threads", "0", "x"]).status, 64)
        XCTAssertEqual(try Fixtures.run(bin, ["classify", "--no-such-option"]).status, 64)
        try Data("{\"body\": \"x\"}\n".utf8).write(to: URL(fileURLWithPath: path("in.jsonl")))
        let unwritable = try Fixtures.run(bin, ["classify", path("in.jsonl"), "-o", path("no/such/dir/out.jsonl")])
        XCTAssertEqual(unwritable.status, 73)  // a missing folder: the output cannot be created (found before any work)
        XCTAssertTrue(String(decoding: unwritable.stderr, as: UTF8.self).contains("out.jsonl"))
        try Data("{\"body\": \"x\"}\n{\"body\"\n".utf8).write(to: URL(fileURLWithPath: path("bad.jsonl")))
        let strict = try Fixtures.run(bin, ["classify", "--strict", path("bad.jsonl"), "-o", path("strict.jsonl")])
        XCTAssertEqual(strict.status, 65)
        XCTAssertTrue(String(decoding: strict.stderr, as: UTF8.self).contains("bad.jsonl:2:"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("strict.jsonl")), "no file that looks complete")
    }

    /// A device that answers every write with ENOSPC (a private stand-in for the system's full device, made
    /// in this test's folder): exit 73 with the reason, the device stays a device, and neither the counts
    /// file nor the rejects file (nor a temporary file) is left behind.
    func testFullDiskExits73AndLeavesNoCompleteLookingFile() throws {
        guard let full = StandIn.fullDevice(in: folder) else {
            throw XCTSkip("this process may not make a device node (not root, or not Linux): no full device to write to")
        }
        let outputs = folder.appendingPathComponent("outputs")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        let result = try Fixtures.run(bin, [
            "classify", GeneratedFixture.jsonl, "-o", full, "--quiet",
            "--counts", outputs.appendingPathComponent("c.json").path, "--rejects", outputs.appendingPathComponent("r.jsonl").path,
        ])
        let stderr = String(decoding: result.stderr, as: UTF8.self)
        XCTAssertEqual(result.status, 73, stderr)
        XCTAssertTrue(stderr.contains(full) && stderr.contains("No space left on device"), stderr)
        var info = stat()
        XCTAssertEqual(lstat(full, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFCHR, "the full device must still be a character device")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outputs.path), [],
                       "a failed run leaves no counts, rejects or temporary file")
    }

    func testRootHelpListsEverySubcommandInOrder() throws {
        let help = try Fixtures.run(bin, ["--help"])
        XCTAssertEqual(help.status, 0)
        let text = String(decoding: help.stdout, as: UTF8.self)
        let names = ["classify", "explain", "check", "compile", "export", "evaluate", "generate", "bench", "merge-counts", "export-extension", "learn", "show-rules"]
        var last = text.startIndex
        for name in names {
            guard let range = text.range(of: "\n  \(name) ", range: last..<text.endIndex) else {
                XCTFail("root help lacks \(name) (or lists it out of order):\n\(text)")
                return
            }
            last = range.upperBound
        }
    }

    func testHelpAndVersion() throws {
        let help = try Fixtures.run(bin, ["classify", "--help"])
        XCTAssertEqual(help.status, 0)
        let text = String(decoding: help.stdout, as: UTF8.self)
        for option in ["--rules", "--output", "--counts", "--rejects", "--format", "--input-format", "--threads", "--chunk-size", "--strict", "--explain", "--quiet", "--labels-only"] {
            XCTAssertTrue(text.contains(option), "help lacks \(option)")
        }
        let version = try Fixtures.run(bin, ["--version"])
        XCTAssertTrue(String(decoding: version.stdout, as: UTF8.self).hasPrefix("smsfilter "))
    }
}

/// Ctrl-C leaves nothing behind.
final class InterruptTests: XCTestCase {
    func testInterruptRemovesUnfinishedOutputsAndExits130() throws {
        let folder = try Fixtures.temporaryFolder("interrupt")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.jsonl").path
        let outputs = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        XCTAssertEqual(try Fixtures.run(Fixtures.smsfilterBinary, ["generate", "--count", "400000", "--out", input, "-q"]).status, 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixtures.smsfilterBinary)
        process.arguments = [
            "classify", input, "-q", "--threads", "1", "-o", outputs.appendingPathComponent("out.jsonl.zst").path,
            "--rejects", outputs.appendingPathComponent("rejects.jsonl").path,
        ]
        try process.run()
        // Wait until the temporary files exist, then interrupt.
        let deadline = Date().addingTimeInterval(Deadline.scaled(60))
        while try FileManager.default.contentsOfDirectory(atPath: outputs.path).count < 2 && Date() < deadline {
            usleep(20_000)
        }
        XCTAssertTrue(process.isRunning, "the run finished before it could be interrupted; make the input larger")
        process.interrupt()
        // Wait for the exit with a time limit (a hung signal handler must fail the test, not hang it).
        let exitDeadline = Date().addingTimeInterval(Deadline.scaled(60))
        while process.isRunning && Date() < exitDeadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw DeadlineExceeded(what: "smsfilter classify to exit after SIGINT", seconds: Deadline.scaled(60))
        }
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outputs.path), [], "no temporary or partial file is left")
    }
}
