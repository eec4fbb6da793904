import Foundation
import TestSupport
import XCTest

/// What every subcommand's `--help` says alike: the options shared through one option group give the same
/// help line in every command, and every subcommand ends its discussion with the one generated
/// "Exit status:" paragraph (`ExitStatus.helpSection`), whose numbers are the tool's statuses in order.
final class SharedHelpTests: CLITestCase {
    /// The statuses of `ExitStatus` (Sources/SMSFilterCLI/Support/ExitStatus.swift).
    static let statuses = [0, 64, 65, 66, 70, 73]

    /// Options whose help is the command's own on purpose, each with why (a comment at the declaration says
    /// the same): they mean something else there.
    static let distinct: Set<String> = [
        "explain --json", "explain --quiet",  // the explanation itself in another form, not a report
        "export --rules", "learn --rules",  // classify instead of reading labels; the YAML a model joins
    ]

    var subcommands: [String] { HelpTests.pinned.keys.filter { $0 != "smsfilter" }.sorted() }

    func help(_ command: String) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "80"
        let r = try Fixtures.run(bin, [command, "--help"], environment: environment)
        XCTAssertEqual(r.status, 0)
        return String(decoding: r.stdout, as: UTF8.self)
    }

    /// Each option of a help's OPTIONS section, by each of its names (`-q`, `--quiet`), with its help text
    /// (continuation lines joined).
    static func options(in help: String) -> [(names: [String], text: String)] {
        var out: [(names: [String], text: String)] = []
        var inOptions = false
        for line in help.components(separatedBy: "\n") {
            if line == "OPTIONS:" { inOptions = true; continue }
            guard inOptions, !line.isEmpty else { continue }
            if line.hasPrefix("  -") {
                // "  -q, --quiet             Print …", or the names alone on a line when they are long.
                let head = line.dropFirst(2)
                let parts = head.components(separatedBy: "  ").filter { !$0.isEmpty }
                let names = (parts.first ?? "").split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) }
                    .filter { $0.hasPrefix("-") }
                out.append((names, parts.dropFirst().joined(separator: " ").trimmingCharacters(in: .whitespaces)))
            } else if var last = out.popLast() {
                last.text += (last.text.isEmpty ? "" : " ") + line.trimmingCharacters(in: .whitespaces)
                out.append(last)
            }
        }
        return out
    }

    func testSharedOptionsHaveOneHelpLineInEveryCommand() throws {
        // Option → help text → the commands that say it.
        var texts: [String: [String: [String]]] = [:]
        for command in subcommands {
            for option in Self.options(in: try help(command)) {
                guard let long = option.names.last, long.hasPrefix("--"), long != "--help", long != "--version" else { continue }
                if Self.distinct.contains("\(command) \(long)") { continue }
                texts[long, default: [:]][option.text, default: []].append(command)
            }
        }
        // The options of the shared groups (Support/CommonOptions.swift, InputOptions.swift, FieldOptions.swift).
        let shared = [
            "--quiet", "--json", "--force", "--threads", "--input-format", "--rules",
            "--id-field", "--sender-field", "--body-field", "--no-header", "--max-record", "--delimiter",
        ]
        for option in shared {
            let byText = texts[option] ?? [:]
            XCTAssertGreaterThanOrEqual(byText.values.reduce(0) { $0 + $1.count }, 2, "\(option) is shared")
            XCTAssertEqual(byText.count, 1, "\(option) has \(byText.count) help texts: " + byText.map { "\($0.value.sorted().joined(separator: ", ")): \"\($0.key)\"" }.sorted().joined(separator: "; "))
        }
    }

    func testEverySubcommandEndsWithTheOneExitStatusParagraph() throws {
        for command in subcommands {
            let text = try help(command)
            let paragraphs = text.components(separatedBy: "\n\n").map { $0.replacingOccurrences(of: "\n", with: " ") }
            let sections = paragraphs.filter { $0.hasPrefix("Exit status:") }
            XCTAssertEqual(sections.count, 1, "\(command) --help has one Exit status paragraph")
            guard let section = sections.first else { continue }
            // The paragraph comes last before the usage, and nothing else in the help names a status by "Exit status".
            let index = paragraphs.firstIndex(of: section)!
            XCTAssertTrue(paragraphs.indices.contains(index + 1) && paragraphs[index + 1].hasPrefix("USAGE:"), "\(command): the Exit status paragraph ends the discussion")
            XCTAssertEqual(text.components(separatedBy: "Exit status:").count, 2, command)
            // "Exit status: 0 …, 64 …, …": each status once, in order, from ExitStatus.
            let regex = try NSRegularExpression(pattern: "(?:^Exit status: |, )([0-9]+) ")
            let numbers = regex.matches(in: section, range: NSRange(section.startIndex..., in: section)).map {
                Int(section[Range($0.range(at: 1), in: section)!])!
            }
            XCTAssertEqual(numbers.first, 0, "\(command): \(section)")
            XCTAssertTrue(numbers.contains(64), "\(command): \(section)")
            XCTAssertEqual(numbers, numbers.sorted(), "\(command): \(section)")
            XCTAssertEqual(Set(numbers).count, numbers.count, "\(command): \(section)")
            XCTAssertTrue(Set(numbers).isSubset(of: Self.statuses), "\(command): \(section)")
            XCTAssertTrue(section.hasSuffix("."), "\(command): \(section)")
        }
    }
}
