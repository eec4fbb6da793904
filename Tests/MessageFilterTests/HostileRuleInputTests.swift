import Foundation
import TestSupport
import XCTest

@testable import MessageFilter

/// Numbers and sizes from rule files are checked, never trusted (issue 14, item 4).
final class HostileRuleInputTests: XCTestCase {
    func folder() throws -> URL {
        let url = try Fixtures.temporaryFolder("hostile-rules")
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func rule(priority: String) -> String {
        "version: 1\nrules:\n  - name: a\n    action: junk\n    priority: \(priority)\n    keywords: [win]\n"
    }

    func testPrioritiesAtTheEdgesOfIntAreErrorsNotTraps() {
        for p in ["-9223372036854775808", "9223372036854775807", "-1000001", "1000001"] {
            let issues = RuleSet.resolve(yaml: rule(priority: p), file: "r.yaml").issues
            XCTAssertEqual(issues.map(\.field), ["rules[0].priority"], p)
        }
        for p in ["-1000000", "1000000", "0"] {
            XCTAssertEqual(RuleSet.resolve(yaml: rule(priority: p), file: "r.yaml").issues, [], p)
        }
    }

    /// A compiled rule set whose checksum is right but whose priority is Int.min (a "re-signed" file):
    /// refused as damaged, never a trap in abs().
    func testAResignedCompiledRuleSetWithTheSmallestPriorityIsRefused() throws {
        var definition = try RuleSet.parse(yaml: rule(priority: "5"), file: "r.yaml").definition
        definition.rules[0].priority = Int.min
        let set = try RuleSet(definition: definition, source: "forged")
        let path = try folder().appendingPathComponent("forged.smsf").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(set.serialize())))
        XCTAssertThrowsError(try RuleSet.load(path: path)) { error in
            XCTAssertEqual((error as? RuleSetLoadError)?.kind, .damaged, "\(error)")
            XCTAssertTrue("\(error)".contains("priority"), "\(error)")
        }
    }

    func testRuleNamesWithControlCharactersAreRefused() {
        for name in ["a\\tb", "a\\nb", "a\\0b", "a\\rb", "\\e[31mred"] {
            let yaml = "version: 1\nrules:\n  - name: \"\(name)\"\n    action: junk\n    keywords: [x]\n"
            XCTAssertEqual(RuleSet.resolve(yaml: yaml, file: "r.yaml").issues.map(\.field), ["rules[0].name"], name)
        }
    }

    /// Issue 33 item 8: `x`, `x\u{200B}` and Cyrillic `х` were three rules. Names holding an invisible or
    /// reordering character (bidirectional overrides and isolates, zero-width spaces and joiners, the BOM)
    /// are refused as control characters are, and a name that looks like an earlier one (the same skeleton:
    /// NFKC, case folded, Cyrillic and Greek look-alikes read as Latin) is refused naming both and the line
    /// of the first.
    func testRuleNamesThatHideOrImitateAreRefused() {
        for name in ["a\\u202Eb", "x\\u200B", "a\\u2066b", "a\\uFEFF", "a\\u200Db", "a\\u00ADb"] {
            let yaml = "version: 1\nrules:\n  - name: \"\(name)\"\n    action: junk\n    keywords: [x]\n"
            XCTAssertEqual(RuleSet.resolve(yaml: yaml, file: "r.yaml").issues.map(\.field), ["rules[0].name"], name)
        }
        for (first, second) in [("x", "\u{0445}"), ("pay", "\u{0440}\u{0430}\u{0443}"), ("Bank", "bank"), ("ok", "\u{03BF}k"),
                                ("ﬁle", "file"), ("abc", "ＡＢＣ")] {
            let yaml = "version: 1\nrules:\n  - name: \"\(first)\"\n    action: junk\n    keywords: [x]\n"
                + "  - name: \"\(second)\"\n    action: junk\n    keywords: [y]\n"
            let issues = RuleSet.resolve(yaml: yaml, file: "r.yaml").issues
            XCTAssertEqual(issues.map(\.field), ["rules[1].name"], "\(first) / \(second)")
            XCTAssertEqual(issues.first?.line, 6, "\(first) / \(second)")
            let message = issues.first?.message ?? ""
            XCTAssertTrue(message.contains("\"\(second)\" looks like \"\(first)\" (rules[0], line 3)"), message)
        }
        // Names that only share letters are fine.
        let fine = "version: 1\nrules:\n  - name: x\n    action: junk\n    keywords: [x]\n  - name: xx\n    action: junk\n    keywords: [y]\n"
            + "  - name: \"\u{0436}\"\n    action: junk\n    keywords: [z]\n"
        XCTAssertEqual(RuleSet.resolve(yaml: fine, file: "r.yaml").issues, [])
    }

    /// The one escaping helper: line feeds, tabs, controls, bidirectional and zero-width characters shown as
    /// escapes; everything else (emoji, Thai, a backslash) as it is.
    func testEchoedTextEscapesWhatCouldForgeAMessage() {
        XCTAssertEqual(EchoedText.escaped("a\nb\tc\rd\u{1B}e\u{7F}"), "a\\nb\\tc\\rd\\x1Be\\x7F")
        XCTAssertEqual(EchoedText.escaped("a\u{202E}b\u{200B}c\u{2066}d\u{FEFF}\u{85}"), "a\\u{202E}b\\u{200B}c\\u{2066}d\\u{FEFF}\\u{0085}")
        XCTAssertEqual(EchoedText.escaped("ส่วนลด 🎉 a\\b"), "ส่วนลด 🎉 a\\b")
    }

    func testAliasExpansionIsBoundedByTheExpandedSize() {
        // 300 keywords of 100 bytes, used by 1,200 rules: 36 MB written out, from a 35 KB file.
        let keywords = (0..<300).map { "\"\(String(repeating: "x", count: 96))\($0)\"" }.joined(separator: ", ")
        var yaml = "version: 1\nrules:\n  - name: r0\n    action: junk\n    keywords: &kw [\(keywords)]\n"
        for i in 1..<1_200 { yaml += "  - name: r\(i)\n    action: junk\n    keywords: *kw\n" }
        let issues = RuleSet.resolve(yaml: yaml, file: "r.yaml").issues
        XCTAssertEqual(issues.count, 1)
        XCTAssertTrue(issues.first?.message.contains("aliases") == true, "\(issues)")
        // The same anchor used by 100 rules (3 MB written out) is fine.
        var fine = "version: 1\nrules:\n  - name: r0\n    action: junk\n    keywords: &kw [\(keywords)]\n"
        for i in 1..<100 { fine += "  - name: r\(i)\n    action: junk\n    keywords: *kw\n" }
        XCTAssertEqual(RuleSet.resolve(yaml: fine, file: "r.yaml").issues, [])
    }

    func testExpandedSizeCountsEveryUseOfAnAlias() throws {
        let yaml = "a: &x [abc, defg]\nb: *x\nc: *x\n"
        // Written out: a, b, c (1 byte each) and three lists of abc, defg (7 bytes), 8 bytes per node:
        // root + 3 keys + 3 lists + 6 items = 13 nodes.
        XCTAssertEqual(try _YAMLBudget.expandedSize(ofYAML: yaml), 3 + 3 * 7 + 13 * _YAMLBudget.bytesPerNode)
        XCTAssertNil(try _YAMLBudget.expandedSize(ofYAML: yaml, limit: 50))
    }

    func testNumberListsRefuseDevicesFoldersAndOverlongLines() throws {
        let dir = try folder()
        let long = dir.appendingPathComponent("long.txt").path
        // A line far past the cap, then valid lines: refused at the long line, after one read.
        var data = Data(repeating: UInt8(ascii: "7"), count: 3 << 20)
        data.append(contentsOf: Array("\n1\n2\n".utf8))
        try data.write(to: URL(fileURLWithPath: long))
        for (path, kind, text) in [
            ("/dev/zero", NumberListError.Kind.unreadable, "not a regular file"),
            (dir.path, .unreadable, "is a folder"),
            (long, .invalidEntry, "longer than 4096 bytes"),
            (dir.appendingPathComponent("missing.txt").path, .unreadable, "no such file"),
        ] {
            XCTAssertThrowsError(try NumberListReader.readBlockList(path: path)) { error in
                let e = error as! NumberListError
                XCTAssertEqual(e.kind, kind, path)
                XCTAssertTrue(e.description.contains(text), e.description)
                XCTAssertFalse(e.description.contains("Error Domain"), e.description)
            }
        }
        // Lines that straddle the 1 MiB reads are still read whole (the newline search resumes where it stopped).
        var many = ""
        for i in 0..<200_000 { many += "\(10_000_000_000 + i * 3)\n" }
        let manyPath = dir.appendingPathComponent("many.txt").path
        try many.write(toFile: manyPath, atomically: true, encoding: .utf8)
        let numbers = try NumberListReader.readBlockList(path: manyPath)
        XCTAssertEqual(numbers.count, 200_000)
        XCTAssertEqual(numbers.last, 10_000_000_000 + 199_999 * 3)
    }

    func testBoundedFileRefusesWhatIsTooLarge() throws {
        XCTAssertThrowsError(try BoundedFile.read("/dev/zero", limit: 1 << 20)) { error in
            XCTAssertEqual((error as? BoundedFile.Failure)?.kind, .tooLarge)
        }
        let dir = try folder()
        XCTAssertThrowsError(try BoundedFile.read(dir.path, limit: 1 << 20)) { error in
            XCTAssertEqual((error as? BoundedFile.Failure)?.kind, .folder)
        }
        let small = dir.appendingPathComponent("s.txt").path
        try "hello".write(toFile: small, atomically: true, encoding: .utf8)
        XCTAssertEqual(try BoundedFile.read(small, limit: 5), Data("hello".utf8))
        XCTAssertThrowsError(try BoundedFile.read(small, limit: 4))
    }
}
