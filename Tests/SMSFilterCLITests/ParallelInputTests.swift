import Foundation
import TestSupport
import XCTest

/// Multi-frame zstd inputs are decoded on `--threads` workers (`ZstdParallelDecoder`, chosen by the record
/// reader for zstd input when threads > 1; issue 15 item 4). Whatever the thread count, classify, export and
/// evaluate must write the same bytes, the same rejects and counts, exit with the same status and print the
/// same error, clean or damaged. Oracles: `--threads 1` (no decoding worker) for everything, and
/// the zstd CLI for what a clean archive holds (the plain file's output) and how many whole records a
/// truncated one holds.
///
/// Archives: pzstd's (frames after skippable size hints, no content size), ours (`generate --frame-size 64K`:
/// many frames and a seek table), frames of several levels concatenated with `cat`; each clean, truncated at
/// several offsets (inside a frame, at a frame boundary, inside the seek table) and with a byte flipped inside
/// a frame (the checksum or a block fails). On main the reader decodes every input on one thread: the tests
/// hold there too; what they guard is that the parallel path changes nothing.
final class ParallelInputTests: CLITestCase {
    static let threadCounts = [1, 2, 8]

    func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
    func save(_ bytes: [UInt8], _ name: String) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    /// `smsfilter generate` JSON Lines (plain) of `count` records.
    func corpus(_ count: Int, seed: Int, _ name: String) throws -> String {
        let r = try run(["generate", "--count", "\(count)", "--seed", "\(seed)", "-o", path(name), "-q", "-f"])
        XCTAssertEqual(r.status, 0, r.err)
        return path(name)
    }

    /// The zstd frames' starts in `bytes` (a frame magic after the first byte; skippable frames ignored).
    func frameStarts(_ bytes: [UInt8]) -> [Int] {
        var starts: [Int] = []
        var k = 1
        while k + 4 <= bytes.count {
            if bytes[k] == 0x28 && bytes[k + 1] == 0xB5 && bytes[k + 2] == 0x2F && bytes[k + 3] == 0xFD { starts.append(k) }
            k += 1
        }
        return starts
    }

    struct Outcome: Equatable {
        var status: Int32
        var err: String
        var files: [String: [UInt8]]
    }

    /// Runs `args(threads)` and collects the exit status, standard error and the named files (absent: empty);
    /// `volatile` keys are dropped from JSON files (timings, the thread count itself).
    func outcome(_ args: [String], files: [String], volatile: Set<String> = ["seconds", "threads", "date"]) throws -> Outcome {
        for f in files { try? FileManager.default.removeItem(atPath: path(f)) }
        let r = try run(args)
        var contents: [String: [UInt8]] = [:]
        for f in files {
            var data = (try? bytes(path(f))) ?? []
            if f.hasSuffix(".json"), !data.isEmpty,
                var object = try JSONSerialization.jsonObject(with: Data(data)) as? [String: Any]
            {
                for key in volatile { object.removeValue(forKey: key) }
                data = Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
            }
            contents[f] = data
        }
        return Outcome(status: r.status, err: r.err, files: contents)
    }

    /// classify at every thread count; asserts every outcome equals `--threads 1`'s and returns that one.
    @discardableResult
    func classifyAgrees(_ input: String, _ what: String, extra: [String] = []) throws -> Outcome {
        var oracle: Outcome?
        for t in Self.threadCounts {
            let o = try outcome(
                ["classify", input, "-o", path("out.jsonl"), "--rejects", path("rej.jsonl"), "--counts", path("counts.json"),
                 "-q", "-f", "--threads", "\(t)"] + extra,
                files: ["out.jsonl", "rej.jsonl", "counts.json"])
            if let oracle {
                XCTAssertEqual(o.status, oracle.status, "\(what), --threads \(t): exit status")
                XCTAssertEqual(o.err, oracle.err, "\(what), --threads \(t): error message")
                for (name, data) in oracle.files {
                    XCTAssertTrue(o.files[name] == data, "\(what), --threads \(t): \(name) differs from --threads 1's")
                }
            } else {
                oracle = o
            }
        }
        return oracle!
    }

    /// Clean: the plain file's output (the zstd CLI decoded it). Truncated: exit 65, the message names the
    /// file and "truncated", and the records written are the whole lines `zstd -dc` recovers.
    func checkArchive(_ archive: String, plain: String, _ name: String) throws {
        let plainOutcome = try classifyAgrees(plain, "\(name): plain")
        let clean = try classifyAgrees(archive, "\(name): clean")
        XCTAssertEqual(clean.status, 0, clean.err)
        XCTAssertTrue(clean.files["out.jsonl"] == plainOutcome.files["out.jsonl"], "\(name): not the plain file's output")
        XCTAssertGreaterThan(clean.files["out.jsonl"]!.count, 100_000)

        let data = try bytes(archive)
        let starts = frameStarts(data)
        XCTAssertGreaterThanOrEqual(starts.count, 2, "\(name) is not multi-frame")
        let cuts = [starts[0] / 2 + 7, starts[starts.count / 2], starts[starts.count / 2] + 333, starts.last! + 100, data.count - 9]
        for cut in cuts {
            let damaged = try save(Array(data.prefix(cut)), "cut-\(cut).zst")
            let o = try classifyAgrees(damaged, "\(name) cut at \(cut)")
            let recovered = try Fixtures.run("zstd", ["-dcq", damaged])
            if recovered.status == 0 {
                // A cut inside a trailing skippable frame (the seek table) loses no record: zstd agrees.
                XCTAssertTrue(o.status == 0 || o.status == 65, "\(name) cut at \(cut): \(o.status) \(o.err)")
            } else {
                XCTAssertEqual(o.status, 65, "\(name) cut at \(cut): \(o.err)")
                XCTAssertTrue(o.err.contains("cut-\(cut).zst"), o.err)
            }
            let wholeLines = recovered.stdout.split(separator: 0x0A, omittingEmptySubsequences: false).count - 1
            let written = o.files["out.jsonl"]!.split(separator: 0x0A).count
            XCTAssertEqual(written, wholeLines, "\(name) cut at \(cut): records written vs zstd -dc's whole lines")
        }
        for (i, start) in [starts[1], starts[starts.count - 1]].enumerated() {
            var flipped = data
            let at = min(start + 400 + 97 * i, data.count - 1)
            flipped[at] ^= 0x5A
            let damaged = try save(flipped, "flip-\(at).zst")
            let o = try classifyAgrees(damaged, "\(name) flipped at \(at)")
            XCTAssertEqual(o.status, 65, "\(name) flipped at \(at): \(o.err)")
            XCTAssertTrue(o.err.contains("flip-\(at).zst"), o.err)
        }
    }

    func testPzstdArchiveGivesTheSameResultsAtEveryThreadCount() throws {
        let plain = try corpus(22_000, seed: 21, "pz.jsonl")
        let r = try Fixtures.run("pzstd", ["-q", "-p", "2", "-1", "-c", plain])
        XCTAssertEqual(r.status, 0)
        let archive = try save(Array(r.stdout), "pz.jsonl.zst")
        try checkArchive(archive, plain: plain, "pzstd")
    }

    func testSeekableArchiveGivesTheSameResultsAtEveryThreadCount() throws {
        let plain = try corpus(6_000, seed: 22, "seek.jsonl")
        let made = try run(["generate", "--count", "6000", "--seed", "22", "--frame-size", "64K", "-o", path("seek.jsonl.zst"), "-q", "-f"])
        XCTAssertEqual(made.status, 0, made.err)
        try checkArchive(path("seek.jsonl.zst"), plain: plain, "seekable 64K")
    }

    func testConcatenatedFramesGiveTheSameResultsAtEveryThreadCount() throws {
        let plain = try corpus(6_000, seed: 23, "cat.jsonl")
        let lines = try bytes(plain).split(separator: 0x0A, omittingEmptySubsequences: false)
        var archive: [UInt8] = []
        // Pieces of unequal sizes, at several levels, one without a checksum and content size (from a pipe).
        let bounds = [0, 700, 2_100, 2_101, 4_000, lines.count - 1]
        for (i, (lo, hi)) in zip(bounds, bounds.dropFirst()).enumerated() {
            let piece = Array(lines[lo..<hi].joined(separator: [0x0A])) + [0x0A]
            let args = i == 2 ? ["-q", "-c", "--no-check", "-\(i + 1)"] : ["-q", "-c", "-\(i + 1)"]
            let r = try Fixtures.run("zstd", args, stdin: Data(piece))
            XCTAssertEqual(r.status, 0)
            archive += Array(r.stdout)
        }
        try checkArchive(try save(archive, "cat.jsonl.zst"), plain: plain, "concatenated")
    }

    /// Standard input: the reader hands the bytes it read to recognise the input to the parallel decoder.
    func testStandardInputGivesTheSameResultsAtEveryThreadCount() throws {
        _ = try corpus(6_000, seed: 24, "stdin.jsonl")
        let made = try run(["generate", "--count", "6000", "--seed", "24", "--frame-size", "64K", "-o", path("stdin.jsonl.zst"), "-q", "-f"])
        XCTAssertEqual(made.status, 0, made.err)
        let data = try bytes(path("stdin.jsonl.zst"))
        let plainOut = try run(["classify", "-", "--labels-only", "-q", "--threads", "1"], stdin: try Data(contentsOf: URL(fileURLWithPath: path("stdin.jsonl"))))
        XCTAssertEqual(plainOut.status, 0)
        for (input, name) in [(data, "clean"), (Array(data.prefix(data.count / 2)), "cut")] {
            var first: (status: Int32, out: String, err: String)?
            for t in Self.threadCounts {
                let r = try run(["classify", "-", "--labels-only", "-q", "--threads", "\(t)"], stdin: Data(input))
                if let first {
                    XCTAssertEqual(r.status, first.status, "stdin \(name), --threads \(t)")
                    XCTAssertEqual(r.out, first.out, "stdin \(name), --threads \(t): output")
                    XCTAssertEqual(r.err, first.err, "stdin \(name), --threads \(t): error")
                } else {
                    first = r
                }
            }
            if name == "clean" {
                XCTAssertEqual(first!.status, 0)
                XCTAssertEqual(first!.out, plainOut.out)
            } else {
                XCTAssertEqual(first!.status, 65)
                XCTAssertTrue(first!.err.contains("truncated"), first!.err)
            }
        }
    }

    /// export and evaluate read through the same source: the same files, figures, status and message.
    func testExportAndEvaluateGiveTheSameResultsAtEveryThreadCount() throws {
        let made = try run(["generate", "--count", "6000", "--seed", "25", "--frame-size", "64K", "-o", path("ee.jsonl.zst"), "-q", "-f"])
        XCTAssertEqual(made.status, 0, made.err)
        let data = try bytes(path("ee.jsonl.zst"))
        let starts = frameStarts(data)
        var flipped = data
        flipped[starts[starts.count / 2] + 300] ^= 0x33
        let inputs = [
            ("clean", path("ee.jsonl.zst")), ("cut", try save(Array(data.prefix(starts[starts.count / 3] + 51)), "ee-cut.zst")),
            ("flipped", try save(flipped, "ee-flip.zst")),
        ]
        for (name, input) in inputs {
            var exportOracle: Outcome?
            var evaluateOracle: Outcome?
            for t in Self.threadCounts {
                try? FileManager.default.removeItem(atPath: path("exp"))
                let e = try outcome(
                    ["export", input, "--label-field", "label", "-o", path("exp"), "--stats-file", path("stats.json"), "-q", "-f",
                     "--threads", "\(t)"],
                    files: ["stats.json", "exp/train.jsonl", "exp/validation.jsonl", "exp/test.jsonl"])
                let v = try outcome(
                    ["evaluate", input, "--map", "identity", "--json-file", path("ev.json"), "-q", "--threads", "\(t)"],
                    files: ["ev.json"])
                if let exportOracle, let evaluateOracle {
                    XCTAssertEqual(e, exportOracle, "export \(name), --threads \(t)")
                    XCTAssertEqual(v, evaluateOracle, "evaluate \(name), --threads \(t)")
                } else {
                    exportOracle = e
                    evaluateOracle = v
                    XCTAssertEqual(e.status, name == "clean" ? 0 : 65, "export \(name): \(e.err)")
                    XCTAssertEqual(v.status, name == "clean" ? 0 : 65, "evaluate \(name): \(v.err)")
                    if name == "clean" { XCTAssertGreaterThan(e.files["exp/train.jsonl"]!.count, 10_000, "export \(name)") }
                }
            }
        }
    }
}
