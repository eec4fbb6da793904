import Foundation
import TestSupport
import XCTest

/// README.md's transcripts are run and compared (issue 20 item 7): every fenced block whose lines start with
/// `$ ` is a transcript. Each `$ ` line is run by `/bin/sh` in a scratch folder with the built `smsfilter`
/// first on the PATH (a `# exit N` comment at its end is the status it must exit with, else 0); the lines
/// after it, up to the next `$ ` line, are its output (standard output, then standard error), compared line by
/// line, where `…` inside a line stands for any text and a line that is only `…` (indented or not) for any
/// number of lines. A transcript that names a corpus of `shared/corpora` runs where the corpora are (linked
/// into the scratch folder), and is skipped without them.
final class ReadmeExampleTests: CLITestCase {
    struct Step {
        var command: String
        var status: Int32
        var output: [String]
    }

    /// The transcripts of README.md, in order.
    static func transcripts() throws -> [[Step]] {
        let text = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks: [[String]] = []
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if let c = current {
                    blocks.append(c)
                    current = nil
                } else {
                    current = []
                }
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks.filter { $0.first?.hasPrefix("$ ") == true }.map { lines in
            var steps: [Step] = []
            for line in lines {
                if line.hasPrefix("$ ") {
                    var command = String(line.dropFirst(2))
                    var status: Int32 = 0
                    if let r = command.range(of: #"\s+# exit (\d+)$"#, options: .regularExpression) {
                        status = Int32(command[r].split(separator: " ").last!)!
                        command.removeSubrange(r)
                    }
                    steps.append(Step(command: command, status: status, output: []))
                } else {
                    steps[steps.count - 1].output.append(line)
                }
            }
            for i in steps.indices {
                while steps[i].output.last?.isEmpty == true { steps[i].output.removeLast() }
            }
            return steps
        }
    }

    /// Whether `got` matches the shown `want` lines (`…` wildcards, see the type's comment).
    static func matches(_ got: ArraySlice<String>, _ want: ArraySlice<String>) -> Bool {
        guard let w = want.first else { return got.isEmpty }
        if w.trimmingCharacters(in: .whitespaces) == "…" {
            var rest = got
            while true {
                if matches(rest, want.dropFirst()) { return true }
                if rest.isEmpty { return false }
                rest = rest.dropFirst()
            }
        }
        guard let g = got.first, lineMatches(g, w) else { return false }
        return matches(got.dropFirst(), want.dropFirst())
    }

    static func lineMatches(_ got: String, _ want: String) -> Bool {
        let parts = want.components(separatedBy: "…")
        guard parts.count > 1 else { return got == want }
        guard got.hasPrefix(parts[0]) else { return false }
        var rest = got.dropFirst(parts[0].count)
        for (i, part) in parts.enumerated().dropFirst() {
            if i == parts.count - 1 { return rest.hasSuffix(part) }
            guard let r = rest.range(of: part) else { return false }
            rest = rest[r.upperBound...]
        }
        return true
    }

    func testTheWildcardsMatchWhatTheySay() {
        XCTAssertTrue(Self.matches(["a", "b", "c"], ["a", "  …", "c"]))
        XCTAssertTrue(Self.matches(["a", "c"], ["a", "…", "c"]))
        XCTAssertFalse(Self.matches(["a", "b"], ["a", "…", "c"]))
        XCTAssertTrue(Self.lineMatches("time: 0.11 s", "time: … s"))
        XCTAssertFalse(Self.lineMatches("time: 0.11 ms", "time: … s"))
        XCTAssertFalse(Self.matches(["a", "x"], ["a", "b"]))
    }

    func testEveryReadmeTranscriptRunsAsShown() throws {
        let transcripts = try Self.transcripts()
        XCTAssertGreaterThanOrEqual(transcripts.count, 3, "README.md has fewer transcripts than expected")
        let corpusNames = ["uci_sms_spam.jsonl.zst", "thai_sms.jsonl.zst"]
        let binFolder = URL(fileURLWithPath: bin).deletingLastPathComponent().path
        let env = ["PATH": "\(binFolder):/usr/local/bin:/usr/bin:/bin", "HOME": folder.path, "LC_ALL": "C.UTF-8"]
        var ran = 0
        for (n, steps) in transcripts.enumerated() {
            let scratch = folder.appendingPathComponent("t\(n)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            // The README names the repository's samples/ from the repository's root.
            try FileManager.default.createSymbolicLink(atPath: scratch.appendingPathComponent("samples").path,
                                                       withDestinationPath: Fixtures.packageRoot.appendingPathComponent("samples").path)
            let needs = corpusNames.filter { name in steps.contains { $0.command.contains(name) } }
            if !needs.isEmpty {
                guard let corpora = Corpora.folder else {
                    if Corpora.required { XCTFail("README transcript \(n + 1) needs \(needs) and the corpora are missing") }
                    continue
                }
                for name in needs {
                    try FileManager.default.createSymbolicLink(atPath: scratch.appendingPathComponent(name).path,
                                                               withDestinationPath: corpora.appendingPathComponent(name).path)
                }
            }
            for step in steps {
                let r = try Fixtures.run("/bin/sh", ["-c", "cd '\(scratch.path)' && \(step.command)"], environment: env)
                let text = String(decoding: r.stdout + r.stderr, as: UTF8.self)
                var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                while lines.last?.isEmpty == true { lines.removeLast() }
                XCTAssertEqual(r.status, step.status, "README: `\(step.command)` exited \(r.status):\n\(text)")
                XCTAssertTrue(Self.matches(lines[...], step.output[...]),
                              "README: `\(step.command)` printed\n\(text)\nbut README.md shows\n\(step.output.joined(separator: "\n"))")
                ran += 1
            }
        }
        XCTAssertGreaterThan(ran, 0)
    }
}
