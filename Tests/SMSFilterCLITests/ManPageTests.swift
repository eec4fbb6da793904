import Foundation
import TestSupport
import XCTest

/// Issue 35 item 6: no man page, completions undocumented. `smsfilter help --man` prints a man page
/// generated from the command tree (each subcommand's whole `--help`), and argument-parser's completion
/// scripts cover every subcommand.
final class ManPageTests: CLITestCase {
    static let subcommands = ["classify", "explain", "check", "compile", "export", "evaluate", "generate", "bench", "plan",
                              "merge-counts", "export-extension", "learn"]

    /// The man page has a section per subcommand holding its `--help` line for line, the exit statuses,
    /// only ASCII (other characters as roff escapes), and groff renders it without a warning.
    func testTheManPageIsTheHelpOfEveryCommand() throws {
        let r = try run(["help", "--man"])
        XCTAssertEqual(r.status, 0, r.err)
        let page = r.out
        XCTAssertTrue(page.hasPrefix(".TH SMSFILTER 1 \"\" \"smsfilter 0.1.0\" \"User Commands\"\n.SH NAME\nsmsfilter \\- label huge SMS archives"), String(page.prefix(200)))
        XCTAssertTrue(page.unicodeScalars.allSatisfy(\.isASCII), "non-ASCII characters are escaped")
        for name in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS", "SHELL COMPLETION", "SEE ALSO"] {
            XCTAssertTrue(page.contains("\n.SH \(name)\n"), name)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "78"
        for command in Self.subcommands {
            XCTAssertTrue(page.contains("\n.SS \(command)\n"), command)
            // Every line of its --help is in the page (roff escapes aside), in its section.
            let help = String(decoding: try Fixtures.run(bin, [command, "--help"], environment: environment).stdout, as: UTF8.self)
            let section = try XCTUnwrap(page.components(separatedBy: "\n.SS \(command)\n").last?.components(separatedBy: "\n.fi\n").first)
            for line in help.split(separator: "\n") where line.unicodeScalars.allSatisfy(\.isASCII) && !line.contains("\\") {
                XCTAssertTrue(section.contains(line.hasPrefix(".") ? "\\&" + line : String(line)), "\(command): \(line)")
            }
        }
        XCTAssertTrue(page.contains(".TP\n64\nusage"), "the exit statuses")
        let file = try write("smsfilter.1", page)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") else { throw XCTSkip("no groff to render the page") }
        let rendered = try Fixtures.run("groff", ["-man", "-Tutf8", "-ww", file])
        XCTAssertEqual(rendered.status, 0)
        XCTAssertEqual(String(decoding: rendered.stderr, as: UTF8.self), "", "groff warns of nothing")
        let text = String(decoding: rendered.stdout, as: UTF8.self)
        XCTAssertTrue(text.contains("Truth label → target"), "an escaped arrow renders as the arrow")
    }

    /// `--generate-completion-script` (argument-parser's) writes a bash script that bash parses, and zsh and
    /// fish scripts; each names every subcommand.
    func testCompletionScriptsCoverEverySubcommand() throws {
        for shell in ["bash", "zsh", "fish"] {
            let r = try run(["--generate-completion-script", shell])
            XCTAssertEqual(r.status, 0, "\(shell): \(r.err)")
            for command in Self.subcommands { XCTAssertTrue(r.out.contains(command), "\(shell) completes \(command)") }
            if shell == "bash" {
                let script = try write("smsfilter.bash", r.out)
                XCTAssertEqual(try Fixtures.run("bash", ["-n", script]).status, 0, "bash parses it")
            }
        }
    }
}
