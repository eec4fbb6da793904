import Foundation
import TestSupport
import XCTest

/// Commands given tens of thousands of files (issue 33 item 5): 20,000 input files on the command line took
/// 27 s to start and 100,000 never did (the parser removed each used argument with a walk of the whole
/// list); merge-counts compared each count file with every earlier one (2,500 took 37 s). No absolute time is
/// asserted: the cost of 4N files against N (linear: about 4×, quadratic: 16×), and against the same files
/// read through `--manifest`.
final class ManyFilesTests: HostileTestCase {
    /// `count` one-record files `0.jsonl`, `1.jsonl`… in the folder `name` of this test's folder, and
    /// `arguments` names of them, each file named in turn (relative to the folder, so that 50,000 fit in one
    /// command line).
    func files(_ count: Int, in name: String, arguments: Int? = nil) throws -> (folder: String, names: [String]) {
        let dir = path(name)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for i in 0..<count {
            try Data(#"{"id": \#(i), "body": "hello"}\#n"#.utf8).write(to: URL(fileURLWithPath: dir + "/\(i).jsonl"))
        }
        return (dir, (0..<(arguments ?? count)).map { "\($0 % count).jsonl" })
    }

    /// Runs the binary in `folder`, at most `timeout` seconds; returns the status, standard error and the
    /// seconds it took.
    func timed(_ args: [String], in folder: String, timeout: Double) throws -> (status: Int32, err: String, seconds: Double) {
        let start = Date()
        let r = try Fixtures.run("sh", ["-c", #"cd "$0" && exec "$@""#, folder, bin] + args, timeout: timeout)
        return (r.status, String(decoding: r.stderr, as: UTF8.self), Date().timeIntervalSince(start))
    }

    /// 12,500 and 50,000 files on the command line (1,000 files, each named in turn), the last one missing: the run gets past parsing and the
    /// input checks to that file (exit 66 naming it) in time linear in the files, within a small multiple
    /// of the same 50,000 files named by a manifest.
    func testFiftyThousandInputFilesStartInLinearTime() throws {
        let (dir, names) = try files(1_000, in: "many", arguments: 50_000)
        let manifest = try write("many/manifest.txt", (names + ["missing.jsonl"]).joined(separator: "\n") + "\n")
        let common = ["--no-output", "-q", "--threads", "1"]
        let byManifest = try timed(["classify", "--manifest", manifest] + common, in: dir, timeout: 120)
        XCTAssertEqual(byManifest.status, 66, byManifest.err)
        // Quadratic parsing took 6 s for 5,000 files: give the command line ten times the manifest's time.
        let budget = max(10, 10 * byManifest.seconds)
        var seconds: [Int: Double] = [:]
        for n in [12_500, 50_000] {
            let r = try timed(["classify"] + names.prefix(n) + ["missing.jsonl"] + common, in: dir, timeout: budget)
            XCTAssertEqual(r.status, 66, r.err)
            XCTAssertTrue(r.err.contains("missing.jsonl: no such file"), r.err)
            seconds[n] = r.seconds
        }
        let (small, large) = (seconds[12_500]!, seconds[50_000]!)
        print("12,500 files: \(small) s; 50,000: \(large) s; 50,000 by manifest: \(byManifest.seconds) s")
        XCTAssertLessThan(large, 8 * max(small, 0.05), "4× the files should cost about 4× the time, not 16×")
        XCTAssertLessThan(large, 3 * byManifest.seconds + 1, "the command line should cost about what the manifest does")
    }

    /// Every command that takes many files (export, evaluate, learn, merge-counts) parses 40,000 of them in
    /// time linear in their number: the run gets to the missing last one (exit 66) within the time limit that
    /// 10,000 of them set.
    func testEveryCommandOfManyFilesParsesThemInLinearTime() throws {
        let (dir, names) = try files(1_000, in: "many", arguments: 40_000)
        for command in [
            ["export", "-o", path("sets")], ["evaluate", "--map", "identity", "--truth-field", "body"],
            ["learn", "--truth-field", "id", "--map", "0=junk", "-o", path("m.yaml")], ["merge-counts", "-o", path("c.json")],
        ] {
            let small = try timed(command + names.prefix(10_000) + ["missing.jsonl"], in: dir, timeout: 60)
            XCTAssertEqual(small.status, 66, "\(command[0]): \(small.err)")
            let large = try timed(command + names + ["missing.jsonl"], in: dir, timeout: max(10, 8 * small.seconds))
            XCTAssertEqual(large.status, 66, "\(command[0]): \(large.err)")
            XCTAssertTrue(large.err.contains("missing.jsonl"), "\(command[0]): \(large.err)")
        }
    }

    /// The files folded out of the parser's sight come back in their order, wherever they stand among the
    /// options (before, between, after `--`), and the checks that count them still hold.
    func testFilesAmongOptionsKeepTheirOrder() throws {
        let (dir, names) = try files(300, in: "many")
        var args = ["classify", "--counts", path("c.json"), "-q"] + names.prefix(100)
        args += ["-o", path("out.jsonl"), "--threads", "2"] + names[100..<200] + ["--strict", "--"] + names[200...]
        let r = try timed(args, in: dir, timeout: 120)
        XCTAssertEqual(r.status, 0, r.err)
        let counts = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("c.json")))) as! [String: Any]
        let paths = (counts["files"] as! [[String: Any]]).map { $0["path"] as! String }
        XCTAssertEqual(paths, names)
        let ids = try String(contentsOfFile: path("out.jsonl"), encoding: .utf8).split(separator: "\n").map {
            (try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any])["id"] as! Int
        }
        XCTAssertEqual(ids, Array(0..<300))
        // Standard input twice among 300 files is refused as it is among two.
        let twice = try timed(["classify", "-"] + names + ["-", "--no-output"], in: dir, timeout: 120)
        XCTAssertEqual(twice.status, 64, twice.err)
        XCTAssertTrue(twice.err.hasPrefix("smsfilter: error: Standard input (-) can be read only once.\nUsage: smsfilter classify"), twice.err)
        // learn refuses standard input among its files, wherever it is.
        let learn = try timed(["learn", "--truth-field", "id", "--map", "0=junk", "-o", path("m.yaml")] + names + ["-"], in: dir, timeout: 120)
        XCTAssertEqual(learn.status, 64, learn.err)
        XCTAssertTrue(learn.err.contains("not standard input (-)"), learn.err)
        // A check that compares an option with the files sees all of them, not the first alone.
        let generated = try timed(["learn", "--truth-field", "id", "--map", "0=junk", "--cv", "2", "--generated-input", names.last!] + names,
                                  in: dir, timeout: 120)
        XCTAssertFalse(generated.err.contains("is not one of the inputs"), generated.err)
        XCTAssertNotEqual(generated.status, 64, generated.err)
    }

    /// 1,000 and 4,000 count files: merge-counts looks for a copy among the files of the same elapsed time
    /// only (comparing each with every earlier one took 37 s for 2,500), and still finds one.
    func testMergeCountsOfThousandsOfFilesIsLinear() throws {
        XCTAssertEqual(try run(["classify", input, "--no-output", "-q", "--counts", path("one.json")]).status, 0)
        var template = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("one.json")))) as! [String: Any]
        let dir = path("counts")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var names: [String] = []
        for i in 0..<4_000 {
            var files = template["files"] as! [[String: Any]]
            files[0]["path"] = "\(i).jsonl"
            var archive = files[0]["archive"] as! [String: Any]
            archive["ends"] = String(format: "fnv1a64:%016llx", UInt64(i))
            files[0]["archive"] = archive
            template["files"] = files
            template["seconds"] = 0.001 + Double(i) * 1e-7
            names.append("\(i).json")
            try JSONSerialization.data(withJSONObject: template).write(to: URL(fileURLWithPath: dir + "/" + names.last!))
        }
        let small = try timed(["merge-counts", "-q", "-o", path("m1.json")] + names.prefix(1_000), in: dir, timeout: 120)
        XCTAssertEqual(small.status, 0, small.err)
        let large = try timed(["merge-counts", "-q", "-o", path("m4.json")] + names, in: dir, timeout: max(10, 8 * small.seconds))
        XCTAssertEqual(large.status, 0, large.err)
        let merged = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("m4.json")))) as! [String: Any]
        XCTAssertEqual(merged["records"] as? Int, 4_000 * 5)
        // A copy is still found among them.
        try FileManager.default.copyItem(atPath: dir + "/2999.json", toPath: dir + "/copy.json")
        let copy = try timed(["merge-counts", "-q", "-o", path("m5.json")] + names + ["copy.json"], in: dir, timeout: 120)
        XCTAssertEqual(copy.status, 65, copy.err)
        XCTAssertTrue(copy.err.contains("copy.json holds the same counts as 2999.json"), copy.err)
    }
}
