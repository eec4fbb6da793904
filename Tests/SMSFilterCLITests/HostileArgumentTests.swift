import Foundation
import TestSupport
import XCTest

/// An argument with a line feed, a tab, an escape sequence or a right-to-left override cannot forge or hide
/// lines in an error message, whoever writes the message (the argument parser, its "did you mean", a
/// command's own checks): every error goes out through the one printer, each repeated argument escaped
/// as `EchoedText` escapes it, and the exit status is the one the same mistake with a plain argument gets.
final class HostileArgumentTests: CLITestCase {
    /// A line feed, a tab, ESC [31m (red) and U+202E (right-to-left override).
    static let hostile = "x\ny\tz\u{1B}[31m\u{202E}q"
    /// `hostile` as EchoedText writes it (typed by hand, it is a harmless argument of the same mistake).
    static let escaped = #"x\ny\tz\x1B[31m\u{202E}q"#

    /// Whether `text` holds a character that could forge or hide a line: anything but a line feed that is a
    /// control or format character.
    func unsafe(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 != "\n" && ($0.properties.generalCategory == .control || $0.properties.generalCategory == .format) }
    }

    func testParserErrorsEchoArgumentsEscaped() throws {
        let h = Self.hostile
        let cases: [[String]] = [
            ["classify", "--zzzz" + h],  // an unknown option ("did you mean" finds none)
            ["classify", "--threads", h],  // a bad value
            ["classify", "--threads=" + h],
            ["classify", "--input-format", h, "in.jsonl"],  // a value not among the choices
            ["learn", "--links", h, "--map", "a=junk", "-o", "m.yaml", "in.jsonl"],
            ["plan", "--range", h, "in.jsonl"],  // a value the command's parser refuses
            ["clasify" + h],  // a mistyped subcommand
            [h],
            ["show-rules", h],  // a command's own check (ValidationError)
            ["export-extension", "r.yaml", "-o", "out", "--message-filter-class", h],
            ["learn", "--char-ngrams", h, "--map", "a=junk", "-o", "m.yaml", "in.jsonl"],
            // a check that runs once every file of a many-file command is back
            ["learn", "a.jsonl", "b.jsonl", "--generated-input", h, "--map", "a=junk", "-o", "m.yaml"],
        ]
        for arguments in cases {
            let raw = try run(arguments)
            let plain = try run(arguments.map { $0.replacingOccurrences(of: h, with: Self.escaped) })
            let shown = arguments.map { $0.replacingOccurrences(of: h, with: "<hostile>") }.joined(separator: " ")
            XCTAssertEqual(raw.status, 64, "\(shown): \(raw.err)")
            XCTAssertEqual(raw.status, plain.status, shown)
            XCTAssertFalse(unsafe(raw.err), "\(shown): \(raw.err.debugDescription)")
            XCTAssertTrue(raw.err.hasPrefix("smsfilter: error: "), "\(shown): \(raw.err)")
            XCTAssertTrue(raw.err.contains(Self.escaped), "\(shown): the argument is named, escaped: \(raw.err)")
            // Line for line the message of the same mistake made with a harmless argument.
            XCTAssertEqual(raw.err, plain.err, shown)
        }
    }

    /// Errors of a command's run that name a file the user gave: one line, the name escaped, the status of
    /// the error kind (66: missing).
    func testRunErrorsEchoFileNamesEscaped() throws {
        let missing = path(Self.hostile)
        let input = try write("in.jsonl", "{\"id\": 1, \"body\": \"hello\"}\n")
        let cases: [[String]] = [
            ["classify", "--rules", missing, input, "--no-output", "-q"],
            ["check", missing],
            ["export-extension", missing, "-o", path("ext")],
            ["compile", missing, "-o", path("out.smsf")],
            ["bench", missing],
            ["evaluate", "--map-file", missing, input],
        ]
        for arguments in cases {
            let r = try run(arguments)
            XCTAssertEqual(r.status, 66, "\(arguments[0]): \(r.err)")
            XCTAssertFalse(unsafe(r.err), "\(arguments[0]): \(r.err.debugDescription)")
            XCTAssertEqual(r.err.components(separatedBy: "\n").count, 2, "\(arguments[0]): one line: \(r.err.debugDescription)")
            XCTAssertTrue(r.err.contains(Self.escaped + ": no such "), "\(arguments[0]): \(r.err)")
        }
    }

    func testGroupedShortOptionsEchoTheLetterEscaped() throws {
        for (letter, shown) in [("\n", #"\n"#), ("\t", #"\t"#), ("\u{1B}", #"\x1B"#), ("\u{202E}", #"\u{202E}"#)] {
            let r = try run(["classify", "-q" + letter])
            XCTAssertEqual(r.status, 64, r.err)
            XCTAssertFalse(unsafe(r.err), r.err.debugDescription)
            XCTAssertTrue(r.err.hasPrefix("smsfilter: error: Unknown option '-\(shown)'\n"), r.err.debugDescription)
        }
    }

    /// A mistyped `--links` names the value given and the two it may be.
    func testMistypedLinksValueIsNamed() throws {
        let r = try run(["learn", "--links", "evidense", "--map", "a=junk", "-o", path("m.yaml"), path("in.jsonl")])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.err.hasPrefix("smsfilter: error: The value 'evidense' is invalid for '--links <links>'. Please provide one of 'evidence' and 'company'.\n"), r.err)
    }
}
