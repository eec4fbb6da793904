import Foundation
import TestSupport
import XCTest
import ArchiveIO

/// Issue 33's attacks on splits (hostile use, round three): whatever a split holds, the splits of an archive and
/// their merged counts are one whole-archive run.
extension SplitTests {
    /// A split whose every record is rejected is part of a run that read records: it writes its rejects, its
    /// counts and (as the last split of an XML conversion) the closing tag, exit 0. On main of 2026-11-28 it
    /// exited 65 "no record could be read" and wrote none of them, and a whole run whose only record was longer
    /// than --max-record did the same. Whether nothing of an archive could be read is asked when its splits'
    /// counts are merged.
    func testASplitWhoseEveryRecordIsRejectedKeepsItsRejects() throws {
        let long = record("long", String(repeating: "x", count: 5_000))
        let head = (0..<20).map { record("h\($0)") + "\n" }.joined()
        let tail = (0..<20).map { record("t\($0)") + "\n" }.joined()
        // The over-long record alone in the middle split, then alone in the last one.
        let middle = try archive([head, long + "\n", tail], "middle.jsonl.zst")
        let last = try archive([head, long + "\n"], "last.jsonl.zst")
        // A split of records no JSON reader reads, between splits that hold good ones.
        let broken = (0..<10).map { "{\"id\": \"b\($0)\", \"body\": " + "\n" }.joined()
        let garbled = try archive([head, broken, tail], "garbled.jsonl.zst")
        for (a, what) in [(middle, "over-long record in the middle"), (last, "over-long record last"), (garbled, "broken records in the middle")] {
            let p = try plan(a, ["--split-size", "1", "--lines"])
            XCTAssertEqual(p.ranges.count, a == last ? 2 : 3)
            for options in [["--max-record", "1K"], ["--max-record", "1K", "--output-format", "xml"], ["--max-record", "1K", "--labels-only"]] {
                try splitsAgree(a, p, options, "\(what), \(options)")
                let split = try json(String(decoding: bytes("p1.json"), as: UTF8.self))
                XCTAssertEqual(split["labelled"] as? Int, 0, "\(what): the split labels nothing")
                XCTAssertGreaterThan(split["rejected"] as? Int ?? 0, 0, "\(what): its rejects are counted")
                XCTAssertFalse(bytes("p1.rej").isEmpty, "\(what): its rejects are written")
                if options.contains("xml") {
                    XCTAssertTrue(String(decoding: bytes("whole.out"), as: UTF8.self).hasSuffix("</smses>\n"), what)
                }
            }
        }
        // A whole run whose only record is longer than --max-record read a record: one reject, exit 0.
        let only = try write("only.jsonl", long + "\n")
        let r = try run(["classify", only, "--max-record", "1K", "-o", path("only.out"), "--rejects", path("only.rej"),
                         "--counts", path("only.json"), "-q", "-f"])
        XCTAssertEqual(r.status, 0, r.err)
        let counts = try json(String(decoding: bytes("only.json"), as: UTF8.self))
        XCTAssertEqual(counts["rejected"] as? Int, 1)
        XCTAssertTrue(String(decoding: bytes("only.rej"), as: UTF8.self).contains("\"line\": 1, \"reason\": \"record longer than --max-record"))
        // Its neighbours: export and evaluate read the same record the same way.
        let labelled = try write("only-labelled.jsonl", "{\"id\": \"a\", \"label\": \"junk\", \"body\": \"\(String(repeating: "y", count: 5_000))\"}\n")
        let export = try run(["export", labelled, "--max-record", "1K", "-o", path("ex"), "-q", "-f"])
        XCTAssertEqual(export.status, 0, export.err)
        let evaluate = try run(["evaluate", labelled, "--truth-field", "label", "--map", "junk=junk", "--max-record", "1K", "-q"])
        XCTAssertEqual(evaluate.status, 0, evaluate.err)
        XCTAssertFalse(evaluate.err.contains("no record could be read"), evaluate.err)

        // When no record of the whole archive can be read, the whole run fails, and so does the merge of its
        // splits (each split alone cannot tell), with the same words.
        let nothing = try archive([broken, broken, broken], "nothing.jsonl.zst")
        let p = try plan(nothing, ["--split-size", "1"])
        XCTAssertEqual(p.ranges.count, 3)
        let whole = try run(["classify", nothing, "--no-output", "-q"])
        XCTAssertEqual(whole.status, 65, whole.err)
        XCTAssertTrue(whole.err.contains("no record could be read: all 30 were rejected"), whole.err)
        for (k, range) in p.ranges.enumerated() {
            let split = try run(["classify", nothing, "--range", range, "--no-output", "--counts", path("n\(k).json"), "-q", "-f"])
            XCTAssertEqual(split.status, 0, split.err)
        }
        let merged = try run(["merge-counts", path("n0.json"), path("n1.json"), path("n2.json"), "-q"])
        XCTAssertEqual(merged.status, 65, merged.err)
        XCTAssertTrue(merged.err.contains("no record could be read: all 30 were rejected"), merged.err)
        // Splits that do not make the whole archive merge: the rest may hold records that can be read.
        XCTAssertEqual(try run(["merge-counts", path("n0.json"), path("n1.json"), "-q"]).status, 0)
    }
}

extension SplitTests {
    /// Bytes after (or between) zstd frames that are no frame are damage wherever they are read from: a split
    /// that starts on them reports the damage at the offset the whole run names, exit 65, and writes no record;
    /// `plan --lines` says the plan is damaged. On main of 2026-11-28 the range decoder took the bytes for an
    /// uncompressed file: `plan --lines` said `damaged: false` and the last split labelled the plain JSON lines,
    /// exit 0, which no zstd reader decodes.
    func testASplitSeesDamageWhereTheWholeRunDoes() throws {
        let first = (0..<30).map { record("a\($0)") + "\n" }.joined()
        let second = (0..<30).map { record("b\($0)") + "\n" }.joined()
        let plain = (0..<20).map { record("c\($0)") + "\n" }.joined()
        _ = try archive([first, second], "frames.jsonl.zst")
        let framesBytes = bytes("frames.jsonl.zst")
        let cases: [(String, [UInt8])] = [
            ("plain JSON lines after the frames", framesBytes + Array(plain.utf8)),
            ("plain JSON lines between frames", framesBytes + Array(plain.utf8) + framesBytes),
        ]
        for (what, content) in cases {
            let a = path("garbled-\(cases.firstIndex { $0.0 == what }!).jsonl.zst")
            try Data(content).write(to: URL(fileURLWithPath: a))
            let garbage = framesBytes.count
            // The whole run: the records before the damage, then the damage at its offset.
            let whole = try run(["classify", a, "-o", path("w.out"), "--counts", path("w.json"), "-q", "-f"])
            XCTAssertEqual(whole.status, 65, "\(what): \(whole.err)")
            XCTAssertTrue(whole.err.contains("compressed bytes \(garbage)..<"), "\(what): \(whole.err)")
            // plan --lines decodes every split: damaged, exit 65, the split that holds the bytes names them.
            let lines = try run(["plan", a, "--split-size", "1", "--lines", "--json"])
            XCTAssertEqual(lines.status, 65, "\(what): \(lines.err)")
            let object = try json(lines.out)
            XCTAssertEqual(object["damaged"] as? Bool, true, what)
            let splits = try XCTUnwrap(object["splits"] as? [[String: Any]])
            let damaged = splits.filter { $0["error"] != nil }
            XCTAssertEqual(damaged.count, 1, "\(what): \(splits)")
            XCTAssertEqual(damaged.first?["start"] as? Int, garbage, what)
            XCTAssertTrue((damaged.first?["error"] as? String ?? "").contains("compressed bytes \(garbage)..<"), "\(what): \(damaged)")
            // Each split as the whole run: the clean ones exit 0, the one that holds the bytes 65 with the whole
            // run's message and no record; their outputs joined are the whole run's, their merged counts too.
            let p = try plan(a, ["--split-size", "1"])
            var joined: [UInt8] = []
            var countFiles: [String] = []
            for (k, range) in p.ranges.enumerated() {
                let r = try run(["classify", a, "--range", range, "-o", path("s\(k).out"), "--counts", path("s\(k).json"), "-q", "-f"])
                let start = Int(range.split(separator: ":")[0])!
                if start == garbage {
                    XCTAssertEqual(r.status, 65, "\(what), split \(range): \(r.err)")
                    XCTAssertTrue(r.err.contains("compressed bytes \(garbage)..<"), "\(what): \(r.err)")
                    XCTAssertEqual(bytes("s\(k).out"), [], "\(what): no record of the bytes after the damage")
                    break
                }
                XCTAssertEqual(r.status, 0, "\(what), split \(range): \(r.err)")
                joined += bytes("s\(k).out")
                countFiles.append(path("s\(k).json"))
            }
            countFiles.append(path("s\(countFiles.count).json"))
            XCTAssertTrue(joined == bytes("w.out"), "\(what): the splits' records joined are the whole run's")
            let merged = try run(["merge-counts", "-q", "-f", "-o", path("merged.json")] + countFiles)
            XCTAssertEqual(merged.status, 0, merged.err)
            let mergedCounts = try counts("merged.json")
            let wholeCounts = try counts("w.json")
            for key in ["records", "labelled", "rejected", "folders", "rules"] {
                XCTAssertEqual(mergedCounts[key] as? NSObject, wholeCounts[key] as? NSObject, "\(what): \(key)")
            }
            // The damage is named once, in the split's entry as in the whole run's.
            let mergedFiles = try XCTUnwrap(mergedCounts["files"] as? [[String: Any]])
            let wholeFiles = try XCTUnwrap(wholeCounts["files"] as? [[String: Any]])
            XCTAssertNotNil(wholeFiles.first?["error"] as? String, what)
            XCTAssertEqual(mergedFiles.first?["error"] as? String, wholeFiles.first?["error"] as? String, what)
        }
    }
}

extension SplitTests {
    /// Runs the binary in `folder` (the archive named relative to it, as a user in another folder would).
    func run(in folder: String, _ args: [String]) throws -> (status: Int32, err: String) {
        let r = try Fixtures.run("sh", ["-c", "cd \"$0\" && exec \"$@\"", folder, bin] + args)
        return (r.status, String(decoding: r.stderr, as: UTF8.self))
    }

    /// `merge-counts` knows an archive by its bytes (its size and a hash of its first and last 4 KiB,
    /// `files[].archive`), not by the path a run named it by: a whole run beside a split of the same archive,
    /// or two whole runs of it (a copy), are refused as counted twice; splits named by other paths (from
    /// another folder, a copy) join into the archive's entry; splits of different archives of one name stay
    /// apart. On main of 2026-11-28 a whole run and a split merged (exit 0, more records than the archive
    /// holds), and splits were matched by the path as written.
    func testMergeCountsKnowsAnArchiveByItsBytesNotItsPath() throws {
        let pieces = (0..<3).map { f in (0..<10).map { record("m\(f)-\($0)") + "\n" }.joined() }
        let a = try archive(pieces, "m.jsonl.zst")
        let p = try plan(a, ["--split-size", "1"])
        XCTAssertEqual(p.ranges.count, 3)
        XCTAssertEqual(try run(["classify", a, "--no-output", "--counts", path("whole.json"), "-q", "-f"]).status, 0)
        for (k, range) in p.ranges.enumerated() {
            let r = try run(["classify", a, "--range", range, "--no-output", "--counts", path("s\(k).json"), "-q", "-f"])
            XCTAssertEqual(r.status, 0, r.err)
        }
        // A whole run and a split of it; a whole run and all its splits; two whole runs (one of a copy).
        try FileManager.default.createDirectory(atPath: path("copy"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: a, toPath: path("copy/m.jsonl.zst"))
        let copied = try run(in: path("copy"), ["classify", "m.jsonl.zst", "--no-output", "--counts", path("copy.json"), "-q", "-f"])
        XCTAssertEqual(copied.status, 0, copied.err)
        for files in [["whole.json", "s1.json"], ["s0.json", "whole.json"], ["s0.json", "s1.json", "s2.json", "whole.json"], ["whole.json", "copy.json"]] {
            let r = try run(["merge-counts", "-q"] + files.map(path))
            XCTAssertEqual(r.status, 65, "\(files): \(r.err)")
            XCTAssertTrue(r.err.contains("would be counted twice"), "\(files): \(r.err)")
            XCTAssertTrue(r.err.contains(files.contains("copy.json") ? "copy.json" : "whole.json"), "the message names the count files: \(r.err)")
        }
        // The last split run in another folder on the same bytes (a copy there, named relatively): the three
        // join into the whole run's entry.
        let moved = try run(in: path("copy"), ["classify", "m.jsonl.zst", "--range", p.ranges[2], "--no-output", "--counts", path("s2-copy.json"), "-q", "-f"])
        XCTAssertEqual(moved.status, 0, moved.err)
        let merged = try run(["merge-counts", "-q", "-o", path("merged.json"), path("s0.json"), path("s1.json"), path("s2-copy.json")])
        XCTAssertEqual(merged.status, 0, merged.err)
        XCTAssertEqual(try counts("merged.json"), try counts("whole.json"), "the splits join into the whole run's counts")
        // Another archive of the same name in another folder: its split is not this archive's.
        try FileManager.default.createDirectory(atPath: path("other"), withIntermediateDirectories: true)
        let other = try archive(pieces.map { $0.replacingOccurrences(of: "prize", with: "price") + record("extra") + "\n" }, "other/m.jsonl.zst")
        let op = try plan(other, ["--split-size", "1"])
        let foreign = try run(in: path("other"), ["classify", "m.jsonl.zst", "--range", op.ranges[2], "--no-output", "--counts", path("foreign.json"), "-q", "-f"])
        XCTAssertEqual(foreign.status, 0, foreign.err)
        let apart = try run(["merge-counts", path("s0.json"), path("s1.json"), path("foreign.json")])
        XCTAssertEqual(apart.status, 0, apart.err)
        let files = try XCTUnwrap(try json(apart.out)["files"] as? [[String: Any]])
        XCTAssertEqual(files.count, 2, "splits 0-1 of one archive and split 2 of another: \(files)")
        XCTAssertTrue(files.allSatisfy { $0["range"] != nil }, "neither covers its archive: \(files)")
        // A count file whose identity is not what classify writes is refused, naming the field.
        var broken = try json(String(decoding: bytes("s0.json"), as: UTF8.self))
        var entries = try XCTUnwrap(broken["files"] as? [[String: Any]])
        entries[0]["archive"] = ["bytes": 5, "ends": "sha256 00"]
        broken["files"] = entries
        try JSONSerialization.data(withJSONObject: broken).write(to: URL(fileURLWithPath: path("broken.json")))
        let refused = try run(["merge-counts", path("broken.json"), path("s1.json")])
        XCTAssertEqual(refused.status, 65)
        XCTAssertTrue(refused.err.contains("files[0].archive"), refused.err)
    }
}

extension SplitTests {
    /// `plan` and `classify --range` read an archive at offsets, so they need a regular file: a FIFO with no
    /// writer, a pipe (through a link of the test's own to this process's standard input) and standard input
    /// are usage errors that say what the file is, at once. On main of 2026-11-28 a pipe was exit 66 "Illegal
    /// seek" and a FIFO without a writer blocked for ever.
    func testPlanAndRangeRefusePipesAtOnce() throws {
        let a = try archive([record("a") + "\n", record("b") + "\n"], "p.jsonl.zst")
        let fifo = path("fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let link = path("stdin-link")
        XCTAssertEqual(symlink("/proc/self/fd/0", link), 0)
        let size = bytes("p.jsonl.zst").count
        for command in [["plan"], ["plan", "--lines"], ["classify", "--range", "0:\(size)", "--no-output"]] {
            let what = command.prefix(2).joined(separator: " ")
            // A FIFO nobody writes to: answered within the time limit, not waited on.
            let r = try Fixtures.run(bin, command + [fifo], timeout: 30)
            let err = String(decoding: r.stderr, as: UTF8.self)
            XCTAssertEqual(r.status, 64, "\(what) on a FIFO: \(err)")
            XCTAssertTrue(err.contains("fifo: \(command[0] == "plan" ? "plan" : "--range") reads a regular file, and this is a pipe (FIFO)"), err)
            // A pipe: the archive's bytes through `cat`.
            let piped = try Fixtures.run("sh", ["-c", "f=$1; shift; cat \"$f\" | exec \"$0\" \"$@\"", bin, a] + command + [link], timeout: 30)
            let pipedErr = String(decoding: piped.stderr, as: UTF8.self)
            XCTAssertEqual(piped.status, 64, "\(what) on a pipe: \(pipedErr)")
            XCTAssertTrue(pipedErr.contains("is a pipe (FIFO); save it to a file first"), pipedErr)
            XCTAssertFalse(pipedErr.contains("Illegal seek"), pipedErr)
        }
        let stdin = try run(["plan", "-"], stdin: Data(bytes("p.jsonl.zst")))
        XCTAssertEqual(stdin.status, 64, stdin.err)
        XCTAssertTrue(stdin.err.contains("plan reads a file, not standard input"), stdin.err)
        // A regular file reached through a link is read as itself.
        XCTAssertEqual(symlink(a, path("link.jsonl.zst")), 0)
        XCTAssertEqual(try run(["plan", path("link.jsonl.zst"), "-q"]).status, 0)
    }

    /// A size option out of range is quoted as the user wrote it: `0` (or `0k`) said "got 0G" on main of
    /// 2026-11-28, in every command that takes a size.
    func testASizeOutOfRangeIsQuotedAsGiven() throws {
        let a = try archive([record("a") + "\n"], "s.jsonl.zst")
        let cases: [[String]] = [
            ["plan", a, "--split-size"], ["classify", a, "--no-output", "--max-record"], ["classify", a, "--no-output", "--chunk-size"],
            ["classify", a, "--no-output", "--max-rejects-bytes"], ["classify", a, "-o", path("x.jsonl.zst"), "--frame-size"],
            ["export", a, "-o", path("ex"), "--max-record"], ["export", a, "-o", path("ex"), "--zst", "--frame-size"],
            ["evaluate", a, "--map", "x=junk", "--max-record"], ["generate", "--count", "10", "-o", path("g.jsonl.zst"), "--frame-size"],
            ["bench", a, "--matcher-bytes"],
        ]
        for command in cases {
            let values = command.last == "--frame-size" ? ["5", "-1k"] : ["0", "0k", "-1M"]
            for value in values {
                let r = try run(command + [value])
                XCTAssertEqual(r.status, 64, "\(command) \(value): \(r.err)")
                XCTAssertTrue(r.err.contains("(got \(value))"), "\(command) \(value): \(r.err)")
                XCTAssertFalse(r.err.contains("got 0G"), r.err)
            }
        }
    }
}

extension SplitTests {
    /// `plan --json` without `--lines`: a split's `decodedStart` is given while every frame before it says its
    /// size, and only then. Frames whose size is estimated (the zstd CLI reading standard input records none)
    /// leave the splits after the first estimated one without it; `--lines` gives every split its exact one.
    /// (A planted bug that gave estimated offsets passed every test before.)
    func testPlanGivesNoDecodedStartAfterAnEstimatedSplit() throws {
        let pieces = (0..<5).map { f in (0..<(20 + 5 * f)).map { record("e\(f)-\($0)") + "\n" }.joined() }
        // Two frames that say their size (compressed from files), then three that do not (from standard input).
        var bytes: [UInt8] = []
        for (k, piece) in pieces.enumerated() {
            let source = try write("piece-\(k).jsonl", piece)
            let frame = k < 2 ? try Fixtures.run("zstd", ["-q", "-c", "-1", source]) : try Fixtures.run("zstd", ["-q", "-c", "-1"], stdin: Data(piece.utf8))
            bytes += Array(frame.stdout)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path("mixed.jsonl.zst")))
        let estimated = try plan(path("mixed.jsonl.zst"), ["--split-size", "1"])
        let splits = try XCTUnwrap(estimated.object["splits"] as? [[String: Any]])
        XCTAssertEqual(splits.count, 5)
        XCTAssertEqual(splits.map { $0["decodedExact"] as? Bool }, [true, true, false, false, false])
        var at = 0
        for (k, split) in splits.enumerated() {
            if k <= 2 {
                XCTAssertEqual(split["decodedStart"] as? Int, at, "split \(k): every frame before it says its size")
                at += pieces[k].utf8.count
            } else {
                XCTAssertNil(split["decodedStart"], "split \(k) comes after an estimated one: \(split)")
            }
        }
        XCTAssertEqual(estimated.object["decodedExact"] as? Bool, false)
        let counted = try plan(path("mixed.jsonl.zst"), ["--split-size", "1", "--lines"])
        let exact = try XCTUnwrap(counted.object["splits"] as? [[String: Any]])
        var offset = 0
        for (k, split) in exact.enumerated() {
            XCTAssertEqual(split["decodedStart"] as? Int, offset, "split \(k) with --lines")
            offset += pieces[k].utf8.count
        }
    }
}

extension SplitTests {
    /// `--max-rejects-bytes` bounds an archive's rejects however it is split: a split run gets the share
    /// `budget × its compressed bytes / the archive's` (rounded down), so the splits' rejects together stay
    /// within what one whole run may write (twice the budget, plus a line per split for the reject that
    /// crosses a bound), each split keeps the policy within its share (whole, then short, then only counted),
    /// and the merged `rejectsShortened` and `rejectsOmitted` say what the joined rejects hold. Under a budget
    /// no split reaches, the joined rejects are the whole run's, byte for byte. On main of 2026-11-28 each
    /// split had the whole budget: 8 splits wrote about 8 times what the whole run may.
    func testSplitsShareTheRejectsBudget() throws {
        var rng = Fixtures.seededGenerator("SplitTests.testSplitsShareTheRejectsBudget", defaultSeed: 0x5EED_0033)
        var pieces: [String] = []
        for f in 0..<8 {
            var text = ""
            for k in 0..<40 {
                if k % 4 == 0 {
                    text += record("g\(f)-\(k)") + "\n"
                } else {
                    text += "{broken \(f)-\(k) " + String(repeating: "z", count: Int.random(in: 50...600, using: &rng)) + "\n"
                }
            }
            pieces.append(text)
        }
        let a = try archive(pieces, "budget.jsonl.zst")
        let archiveBytes = bytes("budget.jsonl.zst").count
        let p = try plan(a, ["--split-size", "1", "--lines"])
        XCTAssertEqual(p.ranges.count, 8)
        let budget = 4096
        let whole = try run(["classify", a, "--no-output", "--rejects", path("whole.rej"), "--counts", path("whole.json"),
                             "--max-rejects-bytes", "\(budget)", "-q", "-f"])
        XCTAssertEqual(whole.status, 0, whole.err)
        XCTAssertLessThanOrEqual(bytes("whole.rej").count, budget)
        var joined: [UInt8] = []
        var countFiles: [String] = []
        for (k, range) in p.ranges.enumerated() {
            let r = try run(["classify", a, "--range", range, "--first-line", "\(p.firstLines[k]!)", "--no-output",
                             "--rejects", path("r\(k).rej"), "--counts", path("r\(k).json"), "--max-rejects-bytes", "\(budget)", "-q", "-f"])
            XCTAssertEqual(r.status, 0, r.err)
            // The split's share, and the policy within it: whole lines while each fits in half the share, then
            // short ones (or whole ones of 256 bytes or less) while each fits in the share, then none.
            let bounds = range.split(separator: ":").map { Int($0)! }
            let share = budget * (bounds[1] - bounds[0]) / archiveBytes
            var held = 0
            var seenShort = false
            for line in String(decoding: bytes("r\(k).rej"), as: UTF8.self).split(separator: "\n") {
                held += line.utf8.count + 1
                XCTAssertLessThanOrEqual(held, share, "split \(k): the file holds more than its share \(share)")
                let short = line.contains("\"shortened\": true")
                seenShort = seenShort || short
                if !short && line.utf8.count > 256 + 200 {
                    XCTAssertFalse(seenShort, "split \(k): a whole line after a short one")
                    XCTAssertLessThanOrEqual(held, share / 2, "split \(k): a whole line past half its share \(share)")
                }
            }
            joined += bytes("r\(k).rej")
            countFiles.append(path("r\(k).json"))
        }
        XCTAssertLessThanOrEqual(joined.count, budget, "the splits together hold what one run may")
        let merged = try run(["merge-counts", "-q", "-f", "-o", path("merged.json")] + countFiles)
        XCTAssertEqual(merged.status, 0, merged.err)
        let total = try counts("merged.json"), single = try counts("whole.json")
        for key in ["records", "labelled", "rejected", "rejectReasons", "folders", "rules"] {
            XCTAssertEqual(total[key] as? NSObject, single[key] as? NSObject, key)
        }
        let lines = String(decoding: joined, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(total["rejectsShortened"] as? Int, lines.filter { $0.contains("\"shortened\": true") }.count)
        XCTAssertEqual(total["rejectsOmitted"] as? Int, (total["rejected"] as! Int) - lines.count)
        XCTAssertGreaterThan(total["rejectsOmitted"] as? Int ?? 0, 0, "the budget was reached")
        // Under a budget no split's share reaches, the joined rejects are the whole run's.
        try splitsAgree(a, p, ["--max-rejects-bytes", "1M"], "a budget no split reaches")
    }
}
