import ArchiveIO
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the tool prints for people and where: standard output and standard error with control characters
/// escaped (``TerminalText``), the `--json` report's one rule, and which of the three streams is a terminal.
enum Console {
    /// Writes `text` to standard error, control characters escaped (``TerminalText/escaped(_:)``).
    static func stderr(_ text: String) {
        FileHandle.standardError.write(Data(TerminalText.escaped(text).utf8))
    }

    /// Writes human-readable `text` (a report, a table, an explanation) to standard output, control
    /// characters escaped. JSON goes out as it is (its strings escape control characters themselves).
    static func stdout(_ text: String) {
        FileHandle.standardOutput.write(Data(TerminalText.escaped(text).utf8))
    }

    /// Prints a `--json` summary where SPEC §7 says, one rule for every command: to standard output, unless
    /// an output of the command goes there (its records, a compiled rule set, a learned rule file, the
    /// figures: named `-` or through a link to standard output, ``IOPlan/writesStandardOutput``), then to
    /// standard error, so that it never lands inside that output. The JSON is written as it is, with the
    /// characters a terminal would obey that JSON leaves raw inside strings (DEL, C1 controls, bidirectional
    /// overrides) written as `\uXXXX` escapes: the same JSON to a parser, harmless on a terminal.
    static func printSummaryJSON(_ json: String, plan: IOPlan?) {
        let text = Data(jsonEscapingTerminalControls(json).utf8)
        if plan?.writesStandardOutput == true { FileHandle.standardError.write(text) } else { FileHandle.standardOutput.write(text) }
    }

    /// `json` with DEL, C1 controls and bidirectional overrides written as `\uXXXX` (they can only be inside
    /// strings; C0 controls are escaped by every JSON encoder already, and the newlines between values stay).
    static func jsonEscapingTerminalControls(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { $0.value >= 0x7F && TerminalText.needsEscape($0) }) else { return json }
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if scalar.value >= 0x7F && TerminalText.needsEscape(scalar) {
                out.append(contentsOf: String(format: "\\u%04X", scalar.value).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Refuses to write records to a terminal unless `-o -` asked for it (zstd's convention): forgetting
    /// `-o` on a big archive would otherwise fill the screen. `output` is the `-o` value (nil: not given).
    static func refuseRecordsToTerminal(output: String?, what: String = "records") throws {
        guard output == nil, stdoutIsTerminal else { return }
        throw CommandFailure(
            "refusing to write \(what) to a terminal: give -o FILE (.zst or .gz compresses), pipe the output, "
                + "or give -o - to print them here anyway", .usage)
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }
    static var stdinIsTerminal: Bool { isatty(0) == 1 }
}
