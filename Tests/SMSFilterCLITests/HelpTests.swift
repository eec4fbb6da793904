import Foundation
import TestSupport
import XCTest

/// Every `--help`, pinned word for word at 80 columns (as argument-parser's own example tests pin theirs) in
/// Tests/Fixtures/help/<command>.txt: a renamed option, a changed default or a help line that wraps
/// differently shows up here first. After a deliberate change, `bash Scripts/pin-help.sh` writes every
/// command's text again from the built binary (read the diff).
///
/// And every example in the help runs as printed, pasted into a shell (continuation lines included), on
/// small fixture files: an example that wraps mid-command or names an option that does not exist fails.
final class HelpTests: CLITestCase {
    func help(_ command: String) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "80"
        let result = try Fixtures.run(bin, (command == "smsfilter" ? [] : [command]) + ["--help"], environment: environment)
        XCTAssertEqual(result.status, 0)
        return String(decoding: result.stdout, as: UTF8.self)
    }

    func testEveryHelpIsPinned() throws {
        XCTAssertNotNil(Self.pinned["smsfilter"], "the root's help is pinned: \(Self.pinned.keys.sorted())")
        for (command, expected) in Self.pinned.sorted(by: { $0.key < $1.key }) {
            let actual = try help(command)
            if actual != expected {
                let a = actual.components(separatedBy: "\n"), e = expected.components(separatedBy: "\n")
                let line = Array(zip(a, e)).firstIndex(where: { $0 != $1 }) ?? min(a.count, e.count)
                XCTFail("smsfilter \(command) --help differs at line \(line + 1):\n  got:      \(line < a.count ? a[line] : "<end>")\n  expected: \(line < e.count ? e[line] : "<end>")")
            }
        }
        let root = try help("smsfilter")
        for command in Self.pinned.keys where command != "smsfilter" {
            XCTAssertTrue(root.contains("  \(command) "), "the root help lists \(command)")
        }
        // And every subcommand the root help lists is pinned (a lost pin file fails here).
        let listed = root.components(separatedBy: "SUBCOMMANDS:\n").last!.components(separatedBy: "\n")
            .filter { $0.range(of: "^  [a-z][a-z-]+ ", options: .regularExpression) != nil }.map { String($0.split(separator: " ")[0]) }
        XCTAssertGreaterThan(listed.count, 1, root)
        XCTAssertEqual(Set(listed).subtracting(Self.pinned.keys), [], "subcommands without a pinned help")
    }

    /// The examples of a help text: the indented lines after "Example:" or "Examples:", continuation lines
    /// (a line ending in ` \\`) joined as a shell joins them.
    static func examples(in help: String) -> [String] {
        var examples: [String] = []
        var inExamples = false
        var pending = ""
        for line in help.components(separatedBy: "\n") {
            if line == "Example:" || line == "Examples:" {
                inExamples = true
                continue
            }
            guard inExamples else { continue }
            guard line.hasPrefix("  ") else {
                inExamples = false
                continue
            }
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasSuffix(" \\") {
                pending += text.dropLast(2) + " "
            } else {
                examples.append(pending + text)
                pending = ""
            }
        }
        return examples
    }

    /// Small files under the names the examples use.
    func makeFixtures(in dir: URL) throws {
        func at(_ name: String) -> String { dir.appendingPathComponent(name).path }
        func zstd(_ source: String, _ target: String) throws {
            XCTAssertEqual(try Fixtures.run("zstd", ["-q", "-f", at(source), "-o", at(target)]).status, 0)
        }
        XCTAssertEqual(try run(["generate", "--count", "300", "--seed", "1", "-o", at("generated.jsonl"), "-q"]).status, 0)
        for name in ["archive.jsonl.zst", "corpus.jsonl.zst", "generated.jsonl.zst", "shard.zst"] { try zstd("generated.jsonl", name) }
        // Several frames (plan's examples): the archive compressed twice, concatenated.
        let frame = try Data(contentsOf: URL(fileURLWithPath: at("archive.jsonl.zst")))
        try (frame + frame).write(to: URL(fileURLWithPath: at("big.jsonl.zst")))
        try (0..<40).map { "{\"id\": \($0), \"body\": \"\($0 % 2 == 0 ? "WIN a prize, claim now" : "see you soon")\", \"label\": \"\($0 % 2 == 0 ? "spam" : "ham")\"}\n" }
            .joined().write(toFile: at("uci.jsonl"), atomically: true, encoding: .utf8)
        try zstd("uci.jsonl", "uci_sms_spam.jsonl.zst")
        try (0..<40).map { "{\"id\": \($0), \"body\": \"\(["your OTP is 1234", "you won a lottery", "50% off today", "ok see you"][$0 % 4])\", \"label\": \"\(["OTP", "scam", "spam", "OK"][$0 % 4])\"}\n" }
            .joined().write(toFile: at("thai.jsonl"), atomically: true, encoding: .utf8)
        try zstd("thai.jsonl", "thai_sms.jsonl.zst")
        try "OTP: transaction\nscam: junk\nspam: [promotion, junk]\nOK: other\n".write(toFile: at("thai-map.yaml"), atomically: true, encoding: .utf8)
        try "version: 1\nrules:\n  - name: win\n    action: junk\n    keywords: [win]\n".write(toFile: at("my.yaml"), atomically: true, encoding: .utf8)
        try "id,text\n1,you win\n2,hello\n".write(toFile: at("export.csv"), atomically: true, encoding: .utf8)
        let samples = Fixtures.packageRoot.appendingPathComponent("samples")
        for (source, target) in [("example-rules.yaml", "rules.yaml"), ("example-block.txt", "example-block.txt"), ("example-ids.tsv", "example-ids.tsv")] {
            try FileManager.default.copyItem(atPath: samples.appendingPathComponent(source).path, toPath: at(target))
        }
        // Two shards: two archives (merge-counts refuses two runs of one archive: they count it twice).
        for k in 1...2 {
            let shard = at("shard-\(k).jsonl")
            try FileManager.default.copyItem(atPath: at("generated.jsonl"), toPath: shard)
            try FileHandle(forWritingAtPath: shard).map { handle in
                try handle.seekToEnd()
                try handle.write(contentsOf: Data("{\"id\": \"shard-\(k)\", \"body\": \"hello\"}\n".utf8))
                try handle.close()
            }
            let r = try run(["classify", shard, "--no-output", "--counts", at("shard-\(k).counts.json"), "-q"])
            XCTAssertEqual(r.status, 0, r.err)
        }
    }

    func testEveryHelpExampleRunsAsPrinted() throws {
        let fixtures = folder.appendingPathComponent("fixtures")
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: false)
        try makeFixtures(in: fixtures)
        let binFolder = (bin as NSString).deletingLastPathComponent
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = binFolder + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        var count = 0
        for command in Self.pinned.keys.sorted() where command != "smsfilter" {
            let examples = Self.examples(in: try help(command))
            XCTAssertFalse(examples.isEmpty, "\(command) --help has an example")
            // Each command's examples run in order in a copy of the fixtures (an example may use the one before).
            let work = folder.appendingPathComponent("run-\(command)")
            try FileManager.default.copyItem(at: fixtures, to: work)
            for example in examples {
                XCTAssertTrue(example.hasPrefix("smsfilter ") || example.hasPrefix("zstd "), "an example starts a command: \(example)")
                // The only change made to an example: the generator's ten million records are cut to a thousand.
                let line = example.replacingOccurrences(of: "--count 10000000", with: "--count 1000")
                let r = try Fixtures.run("sh", ["-c", "cd \"$1\" && \(line)", "sh", work.path], environment: environment)
                XCTAssertEqual(r.status, 0, "\(command): \(example)\n\(String(decoding: r.stderr, as: UTF8.self))")
                count += 1
            }
        }
        XCTAssertGreaterThanOrEqual(count, 16)
    }

    /// The pinned help texts, by command (`smsfilter` is the root's): `Tests/Fixtures/help/<command>.txt`.
    /// Empty when that folder cannot be read (``testEveryHelpIsPinned()`` fails then).
    static let pinned: [String: String] = {
        let folder = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/help")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".txt") }
        return Dictionary(uniqueKeysWithValues: names.compactMap { name in
            (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)).map { (String(name.dropLast(4)), $0) }
        })
    }()
}
