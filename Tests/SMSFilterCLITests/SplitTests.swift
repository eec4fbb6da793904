import Foundation
import TestSupport
import XCTest
import ArchiveIO

/// One archive in several runs (issue 24): `smsfilter plan` lists the splits of a multi-frame zstd archive,
/// `classify --range START:END` reads the records that start in a split's frames. The oracle is one
/// `classify` of the whole archive: the splits' outputs and rejects joined in order, and their counts merged
/// by `merge-counts`, must be exactly its outputs, rejects and counts. Archives are made by the zstd CLI, one
/// frame per piece of text, so each test puts the frame boundaries exactly where its edge case needs them
/// (a record exactly at a boundary, a boundary between CR and LF, a record over three splits), with or
/// without a seek table.
final class SplitTests: CLITestCase {
    // MARK: Fixtures

    /// An archive of one zstd frame per piece (made by the zstd CLI, with its checksum), with a seek table
    /// (without checksums) when asked.
    func archive(_ pieces: [String], _ name: String, seekTable: Bool = false) throws -> String {
        try archive(pieces.map { Array($0.utf8) }, name, seekTable: seekTable)
    }

    func archive(_ pieces: [[UInt8]], _ name: String, seekTable: Bool = false) throws -> String {
        var bytes: [UInt8] = []
        var entries: [ZstdSeekTable.Entry] = []
        for piece in pieces {
            let frame = try Fixtures.run("zstd", ["-q", "-c", "-1"], stdin: Data(piece))
            XCTAssertEqual(frame.status, 0)
            bytes += Array(frame.stdout)
            entries.append(ZstdSeekTable.Entry(compressedSize: UInt32(frame.stdout.count), decompressedSize: UInt32(piece.count)))
        }
        if seekTable { bytes += ZstdSeekTable(entries: entries).serialized() }
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    struct Plan {
        var ranges: [String]
        var firstLines: [Int?]
        var object: [String: Any]
    }

    func plan(_ archive: String, _ extra: [String] = []) throws -> Plan {
        let r = try run(["plan", archive, "--json"] + extra)
        XCTAssertEqual(r.status, 0, r.err)
        let object = try json(r.out)
        let splits = try XCTUnwrap(object["splits"] as? [[String: Any]])
        return Plan(ranges: splits.map { $0["range"] as! String }, firstLines: splits.map { $0["firstLine"] as? Int }, object: object)
    }

    func bytes(_ name: String) -> [UInt8] { (try? Array(Data(contentsOf: URL(fileURLWithPath: path(name))))) ?? [] }

    /// Counts as compared: what a run measured about itself (time, threads) left out.
    func counts(_ name: String) throws -> NSDictionary {
        var object = try json(String(decoding: bytes(name), as: UTF8.self))
        object["seconds"] = nil
        object["threads"] = nil
        return object as NSDictionary
    }

    /// Classifies `archive` whole and in the splits of `plan` (with the plan's first lines, or counting the
    /// lines before each split itself); asserts the joined outputs, rejects and merged counts equal the whole
    /// run's. Returns each split's labelled output.
    @discardableResult
    func splitsAgree(
        _ archive: String, _ plan: Plan, _ options: [String] = [], firstLines: Bool = true, _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [[UInt8]] {
        let whole = try run(["classify", archive, "-o", path("whole.out"), "--rejects", path("whole.rej"), "--counts", path("whole.json"), "-q", "-f"] + options)
        XCTAssertEqual(whole.status, 0, whole.err, file: file, line: line)
        var outputs: [[UInt8]] = []
        var rejects: [UInt8] = []
        var countFiles: [String] = []
        for (k, range) in plan.ranges.enumerated() {
            var args = ["classify", archive, "--range", range, "-o", path("p\(k).out"), "--rejects", path("p\(k).rej"),
                        "--counts", path("p\(k).json"), "-q", "-f", "--threads", "\(1 + k % 2)"] + options
            if firstLines, let first = plan.firstLines[k] { args += ["--first-line", "\(first)"] }
            let r = try run(args)
            XCTAssertEqual(r.status, 0, "\(what), split \(k) (\(range)): \(r.err)", file: file, line: line)
            outputs.append(bytes("p\(k).out"))
            rejects += bytes("p\(k).rej")
            countFiles.append(path("p\(k).json"))
        }
        XCTAssertEqual(outputs.flatMap { $0 }, bytes("whole.out"), "\(what): the splits' outputs joined", file: file, line: line)
        XCTAssertEqual(rejects, bytes("whole.rej"), "\(what): the splits' rejects joined", file: file, line: line)
        let merged = try run(["merge-counts", "-q", "-f", "-o", path("merged.json")] + countFiles)
        XCTAssertEqual(merged.status, 0, merged.err, file: file, line: line)
        XCTAssertEqual(try counts("merged.json"), try counts("whole.json"), "\(what): merged counts", file: file, line: line)
        return outputs
    }

    func record(_ id: String, _ body: String = "free prize, claim now") -> String { "{\"id\": \"\(id)\", \"body\": \"\(body)\"}" }

    // MARK: The edge rules

    /// A record that starts exactly where a split starts belongs to that split; the split before it does not
    /// read on.
    func testARecordExactlyAtABoundaryBelongsToTheSplitItStartsIn() throws {
        let a = try archive(["\(record("a"))\n\(record("b"))\n", "\(record("c"))\n\(record("d"))\n", "\(record("e"))\n"], "at.jsonl.zst")
        let p = try plan(a, ["--split-size", "1", "--lines"])
        XCTAssertEqual(p.ranges.count, 3)
        XCTAssertEqual(p.firstLines, [1, 3, 5])
        let outputs = try splitsAgree(a, p, ["--labels-only"], "boundary at a record start")
        let ids = outputs.map { String(decoding: $0, as: UTF8.self).split(separator: "\n").map { $0.prefix(11) } }
        XCTAssertEqual(ids, [["{\"id\": \"a\",", "{\"id\": \"b\","], ["{\"id\": \"c\",", "{\"id\": \"d\","], ["{\"id\": \"e\","]])
    }

    /// A boundary between the CR and the LF of a record's terminator: the record is the earlier split's (it
    /// reads the LF from the next frame), the next split starts after the LF.
    func testABoundaryInsideACRLFLeavesTheRecordToTheSplitItStartsIn() throws {
        let a = try archive(["\(record("a"))\r\n\(record("b"))\r", "\n\(record("c"))\r\n{broken\r", "\n\(record("d"))"], "crlf.jsonl.zst", seekTable: true)
        let p = try plan(a, ["--split-size", "1", "--lines"])
        XCTAssertEqual(p.ranges.count, 3)
        XCTAssertEqual(p.firstLines, [1, 2, 4], "line numbers count the LFs before each split")
        let outputs = try splitsAgree(a, p, [], "boundary inside CRLF")
        XCTAssertEqual(String(decoding: outputs[0], as: UTF8.self).components(separatedBy: "\r\n").count, 3, "a and b, each with its CRLF")
        XCTAssertTrue(String(decoding: outputs[1], as: UTF8.self).hasPrefix("{\"id\": \"c\""))
        let rejects = String(decoding: bytes("whole.rej"), as: UTF8.self)
        XCTAssertTrue(rejects.contains("\"line\": 4"), "the broken record is on the archive's line 4: \(rejects)")
    }

    /// A record longer than --max-record over three splits: the first streams it to the rejects (reading on
    /// through the second split into the third), the second owns nothing, the third starts after it.
    func testAnOverLongRecordSpanningThreeSplits() throws {
        let long = record("long", String(repeating: "x", count: 5000))
        let chars = Array(long.utf8)
        let a = try archive(
            [Array("\(record("a"))\n".utf8) + chars[0..<1000], Array(chars[1000..<3000]), Array(chars[3000...]) + Array("\n\(record("z"))\n".utf8)],
            "long.jsonl.zst")
        let p = try plan(a, ["--split-size", "1", "--lines"])
        XCTAssertEqual(p.ranges.count, 3)
        let outputs = try splitsAgree(a, p, ["--max-record", "1K"], "an over-long record over three splits")
        XCTAssertEqual(outputs[1], [], "the middle split owns no record")
        let middle = try json(String(decoding: bytes("p1.json"), as: UTF8.self))
        XCTAssertEqual(middle["records"] as? Int, 0)
        XCTAssertEqual(middle["bytes"] as? Int, 0, "its bytes are the first split's")
        let first = try json(String(decoding: bytes("p0.json"), as: UTF8.self))
        XCTAssertEqual(first["rejected"] as? Int, 1)
        XCTAssertTrue(String(decoding: bytes("p0.rej"), as: UTF8.self).contains("\"line\": 2"))
        // Without --first-line, a split counts the lines before it: the same rejects.
        try splitsAgree(a, p, ["--max-record", "1K"], firstLines: false, "counting the lines before each split")
    }

    /// Damage inside a split: that split's run exits 65 and names the damaged bytes (inside its range); the
    /// other splits run clean.
    func testDamageInsideASplitFailsThatSplitOnly() throws {
        var pieces: [String] = []
        for f in 0..<4 { pieces.append((0..<40).map { record("r\(f)-\($0)", "message \($0) of frame \(f) with some text") + "\n" }.joined()) }
        let clean = try archive(pieces, "clean.jsonl.zst")
        let p = try plan(clean, ["--split-size", "1"])
        XCTAssertEqual(p.ranges.count, 4)
        var damaged = Array(try Data(contentsOf: URL(fileURLWithPath: clean)))
        let third = p.ranges[2].split(separator: ":").map { Int($0)! }
        damaged[third[0] + (third[1] - third[0]) / 2] ^= 0x5A
        try Data(damaged).write(to: URL(fileURLWithPath: path("damaged.jsonl.zst")))
        let lines = try plan(clean, ["--split-size", "1", "--lines"]).firstLines
        for (k, range) in p.ranges.enumerated() {
            let r = try run(
                ["classify", path("damaged.jsonl.zst"), "--range", range, "--labels-only", "--first-line", "\(lines[k]!)", "-o", path("d\(k).out"),
                 "--counts", path("d\(k).json"), "-q", "-f"])
            if k == 2 {
                XCTAssertEqual(r.status, 65, r.err)
                XCTAssertTrue(r.err.contains("corrupt zstd data in compressed bytes"), r.err)
                let place = r.err.components(separatedBy: "compressed bytes ")
                let offsets = (place.count > 1 ? place[1] : "").prefix { $0 != " " }.components(separatedBy: "..<")
                let at = try XCTUnwrap(Int(offsets[0]), r.err)
                XCTAssertTrue(third[0] <= at && at < third[1], "the damage \(offsets) is reported at the archive's offsets, inside \(range)")
                let counts = try json(String(decoding: bytes("d2.json"), as: UTF8.self))
                XCTAssertNotNil(((counts["files"] as? [[String: Any]])?.first?["error"]) as? String)
            } else {
                XCTAssertEqual(r.status, 0, "split \(k): \(r.err)")
            }
        }
        // Without --first-line the split after the damage cannot count the lines before it, and says so.
        let r = try run(["classify", path("damaged.jsonl.zst"), "--range", p.ranges[3], "--labels-only", "-q", "--no-output"])
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.err.contains("(reading the frames before --range \(p.ranges[3]))"), r.err)
    }

    // MARK: Every split size, every variant

    /// Generated records with every kind of reject, blank lines and CRLF, in many frames: for split sizes from
    /// one frame to the whole archive, seekable and not, whole records and labels only, the splits add up to
    /// the whole-archive run.
    func testEverySplitSizeAddsUpToTheWholeArchiveRun() throws {
        let generated = try run(["generate", "--count", "1500", "--seed", "24", "-o", path("g.jsonl"), "-q", "-f"])
        XCTAssertEqual(generated.status, 0, generated.err)
        var lines = String(decoding: bytes("g.jsonl"), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for k in stride(from: 7, to: lines.count - 1, by: 97) { lines[k] = "{\"id\": \"bad\(k)\", \"body\": " }
        for k in stride(from: 11, to: lines.count - 1, by: 89) { lines[k] += "\r" }
        for k in stride(from: 13, to: lines.count - 1, by: 101) { lines[k] = "" }
        lines[700] = record("long", String(repeating: "y", count: 30_000))
        func pieces(_ text: [UInt8]) -> [[UInt8]] {
            var pieces: [[UInt8]] = []
            var at = 0
            var size = 19_000
            while at < text.count {
                let end = min(text.count, at + size)
                pieces.append(Array(text[at..<end]))
                at = end
                size = size == 19_000 ? 37_000 : 19_000
            }
            return pieces
        }
        let text = Array(lines.joined(separator: "\n").utf8)
        for seekTable in [false, true] {
            let a = try archive(pieces(text), "all\(seekTable ? ".seek" : "").jsonl.zst", seekTable: seekTable)
            for splitSize in seekTable ? ["1", "100K", "1G"] : ["60K"] {
                let p = try plan(a, ["--split-size", splitSize, "--lines"])
                let what = "split size \(splitSize), \(seekTable ? "seek table" : "frame headers")"
                try splitsAgree(a, p, ["--max-record", "16K", "--rules", "embedded:rules"], what)
            }
        }
        // Records without an id: --labels-only writes each one's line number; splits count the lines before them.
        let anonymous = lines.map { $0.replacingOccurrences(of: #"^\{"id": "[^"]*", "#, with: "{", options: .regularExpression) }
        let b = try archive(pieces(Array(anonymous.joined(separator: "\n").utf8)), "anon.jsonl.zst")
        let p = try plan(b, ["--split-size", "100K", "--lines"])
        let outputs = try splitsAgree(b, p, ["--labels-only", "--max-record", "16K"], firstLines: false, "labels only, line numbers")
        XCTAssertTrue(String(decoding: outputs[1], as: UTF8.self).hasPrefix("{\"line\": "), "records without an id are named by their line")
        try splitsAgree(b, p, ["--labels-only", "--max-record", "16K"], "labels only, plan's first lines")
    }

    /// TSV with a header row: every split reads the header from the archive's start; only the first writes it.
    func testTSVSplitsReadTheHeaderFromTheArchivesStart() throws {
        var rows = ["id\tsender\tbody"]
        for k in 0..<300 { rows.append("t\(k)\tVM-HDFCBK\tYour OTP is \(k) free prize \(String(repeating: "z", count: k % 50))") }
        let text = Array((rows.joined(separator: "\n") + "\n").utf8)
        let pieces = stride(from: 0, to: text.count, by: 2_000).map { Array(text[$0..<min(text.count, $0 + 2_000)]) }
        let a = try archive(pieces, "t.tsv.zst")
        let p = try plan(a, ["--split-size", "5000", "--lines"])
        XCTAssertGreaterThan(p.ranges.count, 3)
        let outputs = try splitsAgree(a, p, [], "TSV")
        XCTAssertTrue(String(decoding: outputs[0], as: UTF8.self).hasPrefix("id\tsender\tbody\tfilter_action"))
        XCTAssertFalse(String(decoding: outputs[1], as: UTF8.self).contains("filter_action"))
    }

    // MARK: What is refused, and said plainly

    func testRangeRefusesWhatItCannotSplit() throws {
        let csvText = "id,body\n1,\"two\nlines\"\n2,plain\n"
        let csv = try archive([String(csvText.prefix(12)), String(csvText.dropFirst(12))], "q.csv.zst")
        let p = try plan(csv, ["--split-size", "1"])
        XCTAssertEqual(p.object["splittable"] as? Bool, false)
        XCTAssertTrue((p.object["reason"] as? String ?? "").contains("quoted field"), "\(p.object)")
        let boundary = try XCTUnwrap(try ZstdFrameIndex.read(path: csv)?.frames.last?.start)
        var r = try run(["classify", csv, "--range", "\(boundary):\(bytes("q.csv.zst").count)", "-o", path("x.csv"), "-q", "-f"])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.err.contains("--range reads JSON Lines and TSV archives only, and this is CSV"), r.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.csv")), "no output left behind")

        let jsonl = try archive(["\(record("a"))\n", "\(record("b"))\n"], "b.jsonl.zst")
        let second = try XCTUnwrap(try ZstdFrameIndex.read(path: jsonl)?.frames.last?.start)
        r = try run(["classify", jsonl, "--range", "1:\(second)", "-q", "--no-output"])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.err.contains("--range START 1 is not a frame boundary (the nearest are 0 and \(second)"), r.err)
        r = try run(["classify", jsonl, "--first-line", "3", "-q", "--no-output"])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.err.contains("--first-line with --range only"), r.err)
        r = try run(["classify", "--range", "0:\(second)", "-q", "--no-output", "-"], stdin: Data(bytes("b.jsonl.zst")))
        XCTAssertEqual(r.status, 64, r.err)
        // --first-line at Int64's edge: a line number counted on from it would overflow (it crashed once), so
        // it is refused with its range (Pipeline checks it, so the library refuses it too); the largest allowed works.
        let size = bytes("b.jsonl.zst").count
        let maxFirstLine = 1 << 62  // BatchPipeline's ArchiveSplit.maxFirstLine
        for huge in ["\(Int.max)", "\(Int.max - 1000)", "\(maxFirstLine + 1)"] {
            r = try run(["classify", jsonl, "--range", "\(second):\(size)", "--first-line", huge, "--labels-only", "-q", "-o", path("h.out"), "-f"])
            XCTAssertEqual(r.status, 64, "\(huge): \(r.err)")
            XCTAssertTrue(r.err.contains("--first-line"), r.err)
        }
        r = try run(["classify", jsonl, "--range", "\(second):\(size)", "--first-line", "\(maxFirstLine)",
                     "--labels-only", "-q", "-o", path("m.out"), "-f"])
        XCTAssertEqual(r.status, 0, r.err)

        let plain = try write("plain.jsonl", "\(record("a"))\n")
        r = try run(["classify", plain, "--range", "0:10", "-q", "--no-output"])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.err.contains("not zstd"), r.err)
    }

    /// A malformed --range (of classify or plan) is a usage error that names the value and says what is
    /// expected and what is wrong with it: a negative START is a value, not a missing one; START ≥ END and
    /// offsets past Int64 are not ArgumentParser's bare "is invalid".
    func testAMalformedRangeSaysWhatIsExpected() throws {
        let jsonl = try archive(["\(record("a"))\n", "\(record("b"))\n"], "r.jsonl.zst")
        let expected = "expected START:END with 0 ≤ START < END"
        let cases: [(String, String)] = [
            ("-9223372036854775808:5", "START is negative"),
            ("-1:5", "START is negative"),
            ("5:3", "START is not below END"),
            ("7:7", "START is not below END"),
            ("9223372036854775807:9223372036854775807", "START is not below END"),
            ("9223372036854775806:9223372036854775808", "END is past 9223372036854775807, the largest offset"),
            ("9223372036854775808:9223372036854775809", "START is past 9223372036854775807, the largest offset"),
            ("0:x", "END is not a whole number"),
            (":5", "START is not a whole number"),
            ("5", expected),
            ("1:2:3", expected),
        ]
        for (value, why) in cases {
            for command in [["classify", jsonl, "--range", value, "-q", "--no-output"], ["plan", jsonl, "--range", value, "-q"]] {
                let r = try run(command)
                XCTAssertEqual(r.status, 64, "\(command): \(r.err)")
                XCTAssertTrue(r.err.contains("The value '\(value)' is invalid for '--range <range>': \(expected)"), "\(command): \(r.err)")
                XCTAssertTrue(r.err.contains(why), "\(command): \(r.err)")
                XCTAssertFalse(r.err.contains("Missing value"), "\(command): \(r.err)")
            }
        }
        // The largest offsets that parse reach the archive, which says they are past its end.
        let r = try run(["classify", jsonl, "--range", "9223372036854775806:9223372036854775807", "-q", "--no-output"])
        XCTAssertEqual(r.status, 64, r.err)
        XCTAssertFalse(r.err.contains("is invalid for '--range"), r.err)
    }

    func testPlanSaysPlainlyWhenAnArchiveIsOneSplit() throws {
        let text = (0..<200).map { record("s\($0)") + "\n" }.joined()
        let one = try archive([text], "one.jsonl.zst")
        let p = try plan(one, ["--split-size", "1"])
        XCTAssertEqual(p.object["splittable"] as? Bool, false)
        XCTAssertEqual(p.ranges, ["0:\(bytes("one.jsonl.zst").count)"])
        XCTAssertTrue((p.object["reason"] as? String ?? "").hasPrefix("one zstd frame"), "\(p.object)")
        let table = try run(["plan", one])
        XCTAssertTrue(table.out.contains("one split, the whole archive: one zstd frame"), table.out)

        let gz = try Fixtures.run("gzip", ["-c"], stdin: Data(text.utf8))
        try gz.stdout.write(to: URL(fileURLWithPath: path("g.jsonl.gz")))
        let g = try plan(path("g.jsonl.gz"))
        XCTAssertEqual(g.object["container"] as? String, "gzip")
        XCTAssertTrue((g.object["reason"] as? String ?? "").hasPrefix("gzip"), "\(g.object)")

        let many = try archive([text, text], "two.jsonl.zst")
        let m = try plan(many)
        XCTAssertEqual(m.object["splittable"] as? Bool, true)
        XCTAssertEqual(m.ranges.count, 1)
        XCTAssertTrue((m.object["reason"] as? String ?? "").hasPrefix("one split"), "\(m.object)")
    }

    /// The plan's decoded offsets and first lines against the decoded bytes (zstd -dc).
    func testPlanOffsetsAndLinesMatchTheDecodedArchive() throws {
        let pieces = (0..<6).map { f in (0..<(10 + f * 7)).map { record("p\(f)-\($0)", String(repeating: "w", count: $0 % 13)) + "\n" }.joined() }
        // Each piece loses its last 3 bytes, so that every boundary falls inside a record. Frames the zstd CLI
        // writes from standard input do not say their decoded size; a seek table does.
        let streamed = try archive(pieces.map { String($0.dropLast(3)) }, "o.jsonl.zst")
        let seekable = try archive(pieces.map { String($0.dropLast(3)) }, "o.seek.jsonl.zst", seekTable: true)
        let decoded = Array(try Fixtures.run("zstd", ["-dcq", streamed]).stdout)
        for (a, extra) in [(streamed, ["--lines"]), (seekable, []), (seekable, ["--lines"])] {
            let r = try run(["plan", a, "--json", "--split-size", "1500"] + extra)
            let object = try json(r.out)
            XCTAssertEqual(object["decodedExact"] as? Bool, true)
            let splits = try XCTUnwrap(object["splits"] as? [[String: Any]])
            if a == seekable {
                XCTAssertEqual(splits.count, 3, "frames of 309, 544, 789 | 1018, 1270 | 1493 bytes in splits of at least 1500")
            }  // else grouped by estimated sizes (--lines makes the sizes exact, not the grouping)
            var at = 0
            for split in splits {
                XCTAssertEqual(split["decodedStart"] as? Int, at)
                let size = try XCTUnwrap(split["decodedBytes"] as? Int)
                if extra.contains("--lines") {
                    XCTAssertEqual(split["firstLine"] as? Int, 1 + decoded[..<at].filter { $0 == 0x0A }.count)
                    XCTAssertEqual(split["lines"] as? Int, decoded[at..<(at + size)].filter { $0 == 0x0A }.count)
                }
                at += size
            }
            XCTAssertEqual(at, decoded.count)
        }
        let estimated = try run(["plan", streamed, "--json", "--split-size", "1500"])
        XCTAssertEqual(try json(estimated.out)["decodedExact"] as? Bool, false, "sizes the frames do not say are estimated")
        XCTAssertTrue(try run(["plan", streamed]).out.contains("~ estimated from the first frame's ratio"))
    }

    /// merge-counts joins adjacent splits of one archive and refuses overlapping ones.
    func testMergeCountsJoinsSplitsAndRefusesOverlaps() throws {
        let a = try archive(["\(record("a"))\n", "\(record("b"))\n", "\(record("c"))\n"], "m.jsonl.zst")
        let p = try plan(a, ["--split-size", "1"])
        for (k, range) in p.ranges.enumerated() {
            XCTAssertEqual(try run(["classify", a, "--range", range, "--no-output", "--counts", path("m\(k).json"), "-q", "-f"]).status, 0)
        }
        let gap = try run(["merge-counts", path("m0.json"), path("m2.json")])
        XCTAssertEqual(gap.status, 0, gap.err)
        let files = try XCTUnwrap(try json(gap.out)["files"] as? [[String: Any]])
        XCTAssertEqual(files.count, 2, "splits that do not touch stay apart, with their ranges")
        XCTAssertNotNil(files[0]["range"])
        // Splits 0 and 1 as one run, and split 1 again: two different count files whose ranges overlap. (The
        // same file twice, or a copy, is refused before any range is looked at.)
        let first = try XCTUnwrap(p.ranges[0].split(separator: ":").first)
        let second = try XCTUnwrap(p.ranges[1].split(separator: ":").last)
        XCTAssertEqual(try run(["classify", a, "--range", "\(first):\(second)", "--no-output", "--counts", path("m01.json"), "-q", "-f"]).status, 0)
        let overlap = try run(["merge-counts", path("m01.json"), path("m1.json")])
        XCTAssertEqual(overlap.status, 65)
        XCTAssertTrue(overlap.err.contains("overlap"), overlap.err)
        let all = try run(["merge-counts", path("m2.json"), path("m0.json"), path("m1.json")])
        let joined = try XCTUnwrap(try json(all.out)["files"] as? [[String: Any]])
        XCTAssertEqual(joined.count, 1)
        XCTAssertNil(joined[0]["range"], "the whole archive: no range, as a whole-archive run writes it")
    }
}
