import Foundation
import TestSupport
import XCTest

/// `--frame-size` on classify, export --zst and generate, end to end. The zstd CLI is the oracle for what an
/// output holds and how many frames it has; the seek table is read here by hand from zstd's
/// `contrib/seekable_format/zstd_seekable_compression_format.md`, not with the code that writes it.
final class SeekableOutputTests: CLITestCase {
    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    func zstdDecoded(_ file: String) throws -> Data {
        let result = try Fixtures.run("zstd", ["-dc", file])
        XCTAssertEqual(result.status, 0, "\(file): \(text(result.stderr))")
        return result.stdout
    }

    /// `zstd -lv`: the zstd frame and skippable frame counts the CLI sees.
    func frameCounts(_ file: String) throws -> (frames: Int, skippable: Int) {
        let listing = text(try Fixtures.run("zstd", ["-lv", file]).stdout)
        func count(_ label: String) -> Int {
            guard let line = listing.split(separator: "\n").first(where: { $0.contains(label) }) else { return 0 }
            return Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) ?? -1
        }
        return (count("# Zstandard Frames"), count("# Skippable Frames"))
    }

    struct Entry: Equatable {
        var compressed: Int
        var decompressed: Int
    }

    /// The seek table at the end of `file`, parsed from the format's text: a skippable frame (magic
    /// 0x184D2A5E, a 4-byte size) of 8- or 12-byte entries, then a 9-byte footer (frame count, a descriptor
    /// whose bit 7 says the entries hold checksums, magic 0x8F92EAB1). Nil when the file does not end in one.
    func seekTable(_ file: String) throws -> (entries: [Entry], checksums: Bool, tableBytes: Int)? {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        guard bytes.count >= 17, u32(bytes.count - 4) == 0x8F92_EAB1 else { return nil }
        let frames = u32(bytes.count - 9)
        let descriptor = bytes[bytes.count - 5]
        XCTAssertEqual(descriptor & 0x7C, 0, "reserved descriptor bits")
        let checksums = descriptor & 0x80 != 0
        let entrySize = checksums ? 12 : 8
        let tableBytes = 8 + frames * entrySize + 9
        let start = bytes.count - tableBytes
        XCTAssertGreaterThanOrEqual(start, 0)
        XCTAssertEqual(u32(start), 0x184D_2A5E, "the table's skippable frame magic")
        XCTAssertEqual(u32(start + 4), tableBytes - 8, "the skippable frame's size")
        let entries = (0..<frames).map { Entry(compressed: u32(start + 8 + $0 * entrySize), decompressed: u32(start + 12 + $0 * entrySize)) }
        return (entries, checksums, tableBytes)
    }

    /// Checks that `file` is in the seekable format with frames of `frameSize` decoded bytes (the last one
    /// shorter), that the frames alone add up to the file, and that the zstd CLI decodes it to `expected`.
    func assertSeekable(_ file: String, frameSize: Int, decodesTo expected: Data, _ label: String) throws {
        XCTAssertEqual(try zstdDecoded(file), expected, "\(label): zstd -dc")
        let table = try XCTUnwrap(try seekTable(file), "\(label): no seek table")
        let frames = max(1, (expected.count + frameSize - 1) / frameSize)
        XCTAssertEqual(table.entries.count, frames, label)
        XCTAssertTrue(table.checksums, label)
        XCTAssertEqual(table.entries.dropLast().map(\.decompressed), Array(repeating: frameSize, count: frames - 1), label)
        XCTAssertEqual(table.entries.map(\.decompressed).reduce(0, +), expected.count, label)
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as! Int
        XCTAssertEqual(table.entries.map(\.compressed).reduce(0, +) + table.tableBytes, size, label)
        let counts = try frameCounts(file)
        XCTAssertEqual(counts.frames, frames, "\(label): zstd -lv")
        XCTAssertEqual(counts.skippable, 1, "\(label): zstd -lv")
    }

    func testClassifyWritesSeekableFramesWithTheSameContentWhateverTheFrameSizeAndThreads() throws {
        let input = GeneratedFixture.jsonl
        let plain = path("labelled.jsonl")
        let reference = try Fixtures.run(bin, ["classify", input, "-o", plain, "--threads", "1", "--quiet"])
        XCTAssertEqual(reference.status, 0, text(reference.stderr))
        let expected = try Data(contentsOf: URL(fileURLWithPath: plain))
        XCTAssertGreaterThan(expected.count, 4 * 65_536)
        var outputs: [String: Data] = [:]
        for (frameSize, argument) in [(64 << 10, "64K"), (100_000, "100000"), (4 << 20, nil)] {
            for threads in ["1", "2"] {
                let out = path("out-\(argument ?? "default")-\(threads).jsonl.zst")
                let frameArguments = argument.map { ["--frame-size", $0] } ?? []
                let result = try Fixtures.run(bin, ["classify", input, "-o", out, "--threads", threads, "--quiet"] + frameArguments)
                XCTAssertEqual(result.status, 0, text(result.stderr))
                try assertSeekable(out, frameSize: frameSize, decodesTo: expected, "classify, frames of \(frameSize), \(threads) threads")
                let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
                if let other = outputs[argument ?? "default"] {
                    XCTAssertEqual(bytes, other, "frames of \(frameSize): the compressed bytes depend on the thread count")
                }
                outputs[argument ?? "default"] = bytes
            }
        }
        // One frame, no table; the rejects file follows the same option.
        let bad = try write("bad.jsonl", String(repeating: "{\"id\": 1, \"body\": \"ok\"}\nnot json at all\n", count: 20_000))
        let single = try Fixtures.run(
            bin, ["classify", bad, "-o", path("one.jsonl.zst"), "--rejects", path("rejects.jsonl.zst"), "--frame-size", "0", "--quiet"])
        XCTAssertEqual(single.status, 0, text(single.stderr))
        XCTAssertNil(try seekTable(path("one.jsonl.zst")))
        XCTAssertEqual(try frameCounts(path("one.jsonl.zst")).frames, 1)
        XCTAssertEqual(try frameCounts(path("rejects.jsonl.zst")).frames, 1)
        let split = try Fixtures.run(
            bin, ["classify", bad, "-o", path("many.jsonl"), "--rejects", path("rejects-many.jsonl.zst"), "--frame-size", "64K", "--quiet"])
        XCTAssertEqual(split.status, 0, text(split.stderr))
        let rejects = try zstdDecoded(path("rejects.jsonl.zst"))
        XCTAssertEqual(rejects.split(separator: 0x0A).count, 20_000)
        try assertSeekable(path("rejects-many.jsonl.zst"), frameSize: 64 << 10, decodesTo: rejects, "rejects, frames of 64K")
    }

    func testGenerateAndExportFollowTheFrameSize() throws {
        let plain = path("gen.jsonl")
        XCTAssertEqual(try Fixtures.run(bin, ["generate", "--count", "6000", "--seed", "4", "-o", plain, "--quiet"]).status, 0)
        let expected = try Data(contentsOf: URL(fileURLWithPath: plain))
        for threads in ["1", "2"] {
            let out = path("gen-\(threads).jsonl.zst")
            let result = try Fixtures.run(
                bin, ["generate", "--count", "6000", "--seed", "4", "-o", out, "--frame-size", "128K", "--threads", threads, "--quiet"])
            XCTAssertEqual(result.status, 0, text(result.stderr))
            try assertSeekable(out, frameSize: 128 << 10, decodesTo: expected, "generate, \(threads) threads")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("gen-1.jsonl.zst"))), try Data(contentsOf: URL(fileURLWithPath: path("gen-2.jsonl.zst"))))

        let input = GeneratedFixture.jsonl
        let reference = try Fixtures.run(bin, ["export", input, "-o", path("sets"), "--format", "jsonl", "--quiet"])
        XCTAssertEqual(reference.status, 0, text(reference.stderr))
        let compressed = try Fixtures.run(bin, ["export", input, "-o", path("sets-zst"), "--format", "jsonl", "--zst", "--frame-size", "64K", "--quiet"])
        XCTAssertEqual(compressed.status, 0, text(compressed.stderr))
        let names = try FileManager.default.contentsOfDirectory(atPath: path("sets")).sorted()
        XCTAssertFalse(names.isEmpty)
        for name in names {
            let expected = try Data(contentsOf: URL(fileURLWithPath: path("sets/\(name)")))
            try assertSeekable(path("sets-zst/\(name).zst"), frameSize: 64 << 10, decodesTo: expected, "export --zst \(name)")
        }
    }

    func testFrameSizesOutsideTheRangeAreUsageErrors() throws {
        let input = try write("in.jsonl", "{\"body\": \"x\"}\n")
        for size in ["1K", "65535", "2G", "-1", "lots"] {
            for command in [["classify", input, "-o", path("o.jsonl.zst")], ["generate", "--count", "1", "-o", path("g.jsonl.zst")],
                ["export", input, "-o", path("e"), "--zst"]]
            {
                let result = try run(command + ["--frame-size", size])
                XCTAssertEqual(result.status, 64, "\(command[0]) --frame-size \(size): \(result.err)")
                XCTAssertTrue(result.err.contains("frame-size"), "\(command[0]) --frame-size \(size): \(result.err)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("o.jsonl.zst")))
    }
}
