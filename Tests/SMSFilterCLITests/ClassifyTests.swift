import Foundation
import TestSupport
import XCTest

/// `smsfilter classify` end to end, through the built binary.
final class ClassifyTests: CLITestCase {

    func testCountsFileAndOutputOnARealCorpus() throws {
        let input = try corpus("thai_sms.jsonl.zst")
        let result = try Fixtures.run(bin, ["classify", input, "-o", path("out.jsonl.zst"), "--counts", path("c.json"), "--threads", "2"])
        XCTAssertEqual(result.status, 0, String(decoding: result.stderr, as: UTF8.self))
        let counts = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("c.json")))) as! [String: Any]
        for key in ["records", "labelled", "rejected", "folders", "rules", "dropped", "files", "bytes", "seconds", "ruleSet"] {
            XCTAssertNotNil(counts[key], "counts JSON lacks \(key)")
        }
        XCTAssertEqual(counts["records"] as? Int, 3514)
        XCTAssertEqual(counts["labelled"] as? Int, 3514)
        let folders = counts["folders"] as! [String: Int]
        XCTAssertEqual(folders.values.reduce(0, +), 3514)
        // The table on stderr names the folders.
        XCTAssertTrue(String(decoding: result.stderr, as: UTF8.self).contains("total"))
        // The output decodes with the zstd CLI, one labelled line per record.
        let decoded = try Fixtures.run("zstd", ["-dc", path("out.jsonl.zst")])
        XCTAssertEqual(decoded.stdout.split(separator: 0x0A).count, 3514)
    }

    func testStdinToStdoutIsAPureFilter() throws {
        let input = Data("{\"id\": 1, \"body\": \"hello\"}\n{\"id\": 2, \"body\": \"Free entry!\"}\n".utf8)
        let result = try Fixtures.run(bin, ["classify", "--quiet"], stdin: input)
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.stderr.isEmpty, String(decoding: result.stderr, as: UTF8.self))
        let lines = result.stdout.split(separator: 0x0A)
        XCTAssertEqual(lines.count, 2)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
            XCTAssertNotNil(object["filter"] as? [String: Any])
        }
    }

    func testTruncatedArchiveExits65AfterWritingEveryRecordBeforeTheDamage() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try corpus("uci_sms_spam.jsonl.zst")))
        try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: path("cut.zst")))
        let result = try Fixtures.run(bin, ["classify", path("cut.zst"), "-o", path("out.jsonl"), "--rejects", path("rej.jsonl")])
        XCTAssertEqual(result.status, 65)
        let stderr = String(decoding: result.stderr, as: UTF8.self)
        XCTAssertTrue(stderr.contains("cut.zst") && stderr.contains("truncated"), stderr)
        let recovered = try Fixtures.run("zstd", ["-dc", path("cut.zst")]).stdout
        let wholeLines = recovered.split(separator: 0x0A, omittingEmptySubsequences: false).count - 1
        let written = try Data(contentsOf: URL(fileURLWithPath: path("out.jsonl"))).split(separator: 0x0A).count
        XCTAssertEqual(written, wholeLines)
    }

    func testExitStatuses() throws {
        XCTAssertEqual(try Fixtures.run(bin, ["classify", path("missing.jsonl")]).status, 66)
        XCTAssertEqual(try Fixtures.run(bin, ["classify", "--threads", "0", "x"]).status, 64)
        XCTAssertEqual(try Fixtures.run(bin, ["classify", "--no-such-option"]).status, 64)
        try Data("{\"body\": \"x\"}\n".utf8).write(to: URL(fileURLWithPath: path("in.jsonl")))
        let unwritable = try Fixtures.run(bin, ["classify", path("in.jsonl"), "-o", path("no/such/dir/out.jsonl")])
        XCTAssertEqual(unwritable.status, 64)  // a missing folder is a usage error, found before any work
        XCTAssertTrue(String(decoding: unwritable.stderr, as: UTF8.self).contains("out.jsonl"))
        try Data("{\"body\": \"x\"}\n{\"body\"\n".utf8).write(to: URL(fileURLWithPath: path("bad.jsonl")))
        let strict = try Fixtures.run(bin, ["classify", "--strict", path("bad.jsonl"), "-o", path("strict.jsonl")])
        XCTAssertEqual(strict.status, 65)
        XCTAssertTrue(String(decoding: strict.stderr, as: UTF8.self).contains("bad.jsonl:2:"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("strict.jsonl")), "no file that looks complete")
    }

    func testFullDiskExits73AndLeavesNoCompleteLookingFile() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full") }
        let input = try corpus("uci_sms_spam.jsonl.zst")
        let result = try Fixtures.run(bin, ["classify", input, "-o", "/dev/full", "--quiet"])
        // A device is written in place; every write fails with ENOSPC: exit 73, and /dev/full stays a device.
        XCTAssertEqual(result.status, 73, String(decoding: result.stderr, as: UTF8.self))
    }

    func testRootHelpListsEverySubcommandInOrder() throws {
        let help = try Fixtures.run(bin, ["--help"])
        XCTAssertEqual(help.status, 0)
        let text = String(decoding: help.stdout, as: UTF8.self)
        let names = ["classify", "explain", "check", "compile", "export", "evaluate", "generate", "bench", "merge-counts", "export-extension", "learn"]
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
        let deadline = Date().addingTimeInterval(20)
        while try FileManager.default.contentsOfDirectory(atPath: outputs.path).count < 2 && Date() < deadline {
            usleep(20_000)
        }
        XCTAssertTrue(process.isRunning, "the run finished before it could be interrupted; make the input larger")
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outputs.path), [], "no temporary or partial file is left")
    }
}
