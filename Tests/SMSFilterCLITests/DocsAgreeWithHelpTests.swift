import Foundation
import TestSupport
import XCTest

/// The defaults the documentation states are the binary's (issue 21 item 21: docs/RULES.md said
/// `--max-phrases` 20,000 and `--char-ngrams` 2–4 where `learn --help` said 10,000 and 3). Every
/// `` `--option` (value) `` and `` `--option` (default value) `` in RULES.md's "Learned models" section is
/// compared with the `(default: …)` that `learn --help` prints; README's way to get the binary is checked to be the one that builds it.
final class DocsAgreeWithHelpTests: CLITestCase {
    /// `--option` → its default, from a help text (options wrap over lines at 80 columns).
    static func defaults(inHelp help: String) -> [String: String] {
        var out: [String: String] = [:]
        var current: String?
        var text = ""
        func flush() {
            if let current, let range = text.range(of: #"\(default: ([^)]*)\)"#, options: .regularExpression) {
                out[current] = String(text[range].dropFirst("(default: ".count).dropLast())
            }
        }
        for line in help.components(separatedBy: "\n") {
            if let match = line.range(of: #"^  (-\w, )?--[a-z-]+"#, options: .regularExpression) {
                flush()
                current = String(line[match].split(separator: " ").last!)
                text = String(line[match.upperBound...])
            } else {
                text += " " + line.trimmingCharacters(in: .whitespaces)
            }
        }
        flush()
        return out
    }

    /// Numbers without grouping or dashes of another kind: `2,000,000` → `2000000`, `2–4` → `2-4`, `1.0` → `1`.
    static func normalised(_ value: String) -> String {
        let plain = value.replacingOccurrences(of: ",", with: "").replacingOccurrences(of: "–", with: "-")
        if let number = Double(plain), number == number.rounded() { return String(Int(number)) }
        return plain
    }

    func testRulesDocumentStatesLearnsDefaults() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "80"
        let help = String(decoding: try Fixtures.run(bin, ["learn", "--help"], environment: environment).stdout, as: UTF8.self)
        let defaults = Self.defaults(inHelp: help)
        XCTAssertEqual(defaults["--max-phrases"], "10000", "the help parses")
        let rules = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/RULES.md"), encoding: .utf8)
        let start = try XCTUnwrap(rules.range(of: "## 10. Learned models"))
        let end = rules.range(of: "### The embedded default model", range: start.upperBound..<rules.endIndex)?.lowerBound ?? rules.endIndex
        let section = String(rules[start.lowerBound..<end]).replacingOccurrences(of: "\n   ", with: " ").replacingOccurrences(of: "\n  ", with: " ")
        let regex = try NSRegularExpression(pattern: #"`(--[a-z-]+)` \((?:default )?([^)]+)\)"#)
        let matches = regex.matches(in: section, range: NSRange(section.startIndex..., in: section))
        XCTAssertGreaterThanOrEqual(matches.count, 8, "the section states the defaults")
        for match in matches {
            let option = String(section[Range(match.range(at: 1), in: section)!])
            var stated = String(section[Range(match.range(at: 2), in: section)!])
            // "(2,000,000; about 50 bytes …)": the value is what comes before a semicolon.
            if let semicolon = stated.firstIndex(of: ";") { stated = String(stated[..<semicolon]) }
            // "(above)", "(below)": a reference to where the default is stated, not a value.
            guard stated.contains(where: \.isNumber) else { continue }
            let binary = try XCTUnwrap(defaults[option], "\(option) is an option of learn")
            XCTAssertEqual(Self.normalised(stated), Self.normalised(binary), "docs/RULES.md says \(option) (\(stated)); learn --help says \(binary)")
        }
    }

    /// README's "Just the binary" commands are real: the make target exists and the hand command names the product.
    func testReadmeSaysHowToGetTheBinary() throws {
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        XCTAssertTrue(readme.contains("swift build -c release --static-swift-stdlib --product smsfilter"))
        XCTAssertTrue(readme.contains(".build/release/smsfilter --help"))
        // One file to copy (issue 35): every release build of the Makefile links the Swift runtime in.
        let makefile = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Makefile"), encoding: .utf8)
        XCTAssertTrue(makefile.contains("build: deps") && makefile.contains("$(SWIFT) build $(RELEASE_FLAGS) --product smsfilter"))
        XCTAssertTrue(makefile.contains("RELEASE_FLAGS := -c release $(if $(filter Linux,$(shell uname -s)),--static-swift-stdlib,)"))
        XCTAssertFalse(makefile.contains("build -c release --product"), "a release build without the static runtime")
        XCTAssertTrue(makefile.contains("\tbash Scripts/check-one-file.sh $(BIN) $(SAMPLE)") && makefile.contains("\t$(MAKE) test-one-file"))
        let package = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        XCTAssertTrue(package.contains(".executable(name: \"smsfilter\""))
    }
}
