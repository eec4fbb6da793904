import Foundation
import TestSupport
import XCTest

/// Issue 35 item 3: an output whose name says a compression smsfilter does not write (`.bz2`, `.xz`, `.lz4`,
/// `.zstd`, `.zip`, `.7z`, `.br`…) was written as plain text under that name, exit 0 (`-o t.jsonl.bz2`),
/// while the same names as inputs are refused with a one-line advice. Every output option of every command
/// now refuses them before any work, with one line that names the option and says what to write instead.
final class OutputNameTests: HostileTestCase {
    /// Every output option of every command, as (arguments before the output's name, the option, what follows
    /// it, whether the output is a folder). The inputs exist, so that only the output's name can be refused.
    func everyOutput() throws -> [(args: [String], option: String, rest: [String])] {
        let rules = try write("rules.yaml", "version: 1\nrules:\n  - name: bank\n    action: junk\n    keywords: [prize]\n")
        let corpus = try labelled()
        let counts = path("counts.json")
        XCTAssertEqual(try run(["classify", input, "--no-output", "--counts", counts, "-q"]).status, 0)
        let map = ["--map", "spam=junk,ham=none"]
        return [
            (["classify", input, "-o"], "-o", ["-q"]),
            (["classify", input, "--no-output", "--rejects"], "--rejects", ["-q"]),
            (["classify", input, "--no-output", "--counts"], "--counts", ["-q"]),
            (["generate", "--count", "5", "-o"], "-o", ["-q"]),
            (["export", input, "-o"], "-o", ["-q"]),
            (["export", input, "-o", path("sets"), "--stats-file"], "--stats-file", ["-q"]),
            (["export-extension", rules, "-o"], "-o", ["-q"]),
            (["evaluate", corpus] + map + ["--report"], "--report", ["-q"]),
            (["evaluate", corpus] + map + ["--json-file"], "--json-file", ["-q"]),
            (["compile", rules, "-o"], "-o", ["-q"]),
            (["learn", corpus] + map + ["-o"], "-o", ["-q"]),
            (["learn", corpus] + map + ["--cv", "2", "-o", path("m.yaml"), "--folds-file"], "--folds-file", ["-q"]),
            (["merge-counts", counts, "-o"], "-o", ["-q"]),
            (["plan", input, "-o"], "-o", ["-q"]),
            (["bench", input, "--phrases-file"], "--phrases-file", []),
        ]
    }

    func testEveryOutputRefusesACompressionItDoesNotWrite() throws {
        let outputs = try everyOutput()
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        for suffix in [".bz2", ".xz", ".lz4", ".zstd", ".zip", ".7z", ".br", ".XZ", ".tar.gz"] {
            for (args, option, rest) in outputs {
                let name = path("out.jsonl" + suffix)
                let r = try run(args + [name] + rest)
                XCTAssertEqual(r.status, 64, "\(args) \(suffix): \(r.err)")
                XCTAssertTrue(r.err.hasPrefix("smsfilter: error: \(option) \(name): the name ends with \(suffix) ("), "\(args): \(r.err)")
                XCTAssertEqual(r.err.filter { $0 == "\n" }.count, 1, "one line: \(r.err)")
                XCTAssertTrue(r.err.contains("name it"), "the advice says what to name it: \(r.err)")
                XCTAssertFalse(exists(name), "\(args): nothing is written under \(name)")
            }
        }
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)), before, "no output anywhere")
    }

    /// The advice fits the output: records and rejects can be .zst or .gz (or piped into the tool the name
    /// asks for); an output written plain is named without the suffix; a folder is named without it.
    func testTheAdviceFitsTheOutput() throws {
        let records = try run(["classify", input, "-o", path("t.jsonl.bz2")])
        XCTAssertTrue(records.err.contains("(bzip2), which smsfilter does not write; name it t.jsonl.zst (zstd) or t.jsonl.gz (gzip); or pipe: -o - | bzip2 > t.jsonl.bz2"), records.err)
        let zstd = try run(["classify", input, "--no-output", "--rejects", path("r.jsonl.zstd")])
        XCTAssertTrue(zstd.err.contains("(zstd, which smsfilter writes under the name .zst)") && zstd.err.contains("name it r.jsonl.zst"), zstd.err)
        let counts = try run(["classify", input, "--no-output", "--counts", path("c.json.xz")])
        XCTAssertTrue(counts.err.contains("(xz), but --counts is written uncompressed; name it without .xz, such as c.json"), counts.err)
        let sets = try run(["export", input, "-o", path("sets.zip")])
        XCTAssertTrue(sets.err.contains("(zip), but -o is a folder of plain files; name it without .zip"), sets.err)
        let gzFolder = try run(["export", input, "-o", path("sets.gz/")])
        XCTAssertEqual(gzFolder.status, 64, gzFolder.err)
        XCTAssertTrue(gzFolder.err.contains("the name ends with .gz (gzip), but -o is a folder"), gzFolder.err)
        // Names that only look alike are written as before.
        for name in ["t.jsonl.zst", "t.jsonl.gz", "t.jsonl", "x.bz2.jsonl", "zip", "t.jsonl.z1"] {
            let r = try run(["classify", input, "-o", path(name), "-q"])
            XCTAssertEqual(r.status, 0, "\(name): \(r.err)")
        }
    }
}
