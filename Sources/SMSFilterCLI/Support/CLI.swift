import BatchPipeline
import ArgumentParser
import Foundation
import MessageFilter

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum CLI {
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
    /// the command's records (or its other main output: a compiled rule set, a learned rule file) go there
    /// (`recordsOnStandardOutput`), then to standard error. The JSON is written as it is, with the characters a
    /// terminal would obey that JSON leaves raw inside strings (DEL, C1 controls, bidirectional overrides)
    /// written as `\uXXXX` escapes: the same JSON to a parser, harmless on a terminal.
    static func printSummaryJSON(_ json: String, recordsOnStandardOutput: Bool) {
        let text = Data(jsonEscapingTerminalControls(json).utf8)
        if recordsOnStandardOutput { FileHandle.standardError.write(text) } else { FileHandle.standardOutput.write(text) }
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
        throw fail(
            "refusing to write \(what) to a terminal: give -o FILE (.zst or .gz compresses), pipe the output, "
                + "or give -o - to print them here anyway", code: .usage)
    }

    /// Prints `smsfilter: error: …` and returns the exit code of `code` to throw.
    static func fail(_ message: String, code: ExitStatus) -> ExitCode {
        stderr("smsfilter: error: \(message)\n")
        return ExitCode(code)
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }
    static var stdinIsTerminal: Bool { isatty(0) == 1 }

    /// The number of cores.
    static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Loads `--rules` (YAML or .smsf) or the embedded default set: the one rule loader of every command.
    /// Prints the error and exits 66 when the file is missing, 65 when it is bad.
    static func loadRules(_ path: String?) throws -> RuleSet {
        guard let path else { return RuleSet.embeddedDefault }
        do {
            return try RuleSet.load(path: path)
        } catch let error as RuleSetLoadError where error.kind == .fileMissing {
            throw fail("\(path): no such rule file", code: .inputMissing)
        } catch {
            throw fail("\(error)", code: .badInput)
        }
    }

    /// Parses sizes like `4M`, `512K`, `1G`, `65536` (nil when malformed or beyond `Int`).
    static func parseSize(_ text: String) -> Int? {
        let upper = text.uppercased().replacingOccurrences(of: "IB", with: "").replacingOccurrences(of: "B", with: "")
        let units: [(String, Int)] = [("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("T", 1 << 40)]
        for (suffix, factor) in units where upper.hasSuffix(suffix) {
            guard let n = Int(upper.dropLast()) else { return nil }
            let (product, overflow) = n.multipliedReportingOverflow(by: factor)
            return overflow ? nil : product
        }
        return Int(upper)
    }
}

/// Which fields hold the id, sender and body: shared by classify, export, evaluate and learn.
///
/// A field option the user gives must name a field that the file's first records have (checked by the
/// reader, SPEC §7); at its default it need not (files without ids or senders are normal).
struct FieldOptions: ParsableArguments {
    @Option(name: .long, help: "Field, column or attribute holding the record id.")
    var idField = FieldName("id")

    @Option(name: .long, help: "Field, column or attribute holding the sender (XML default: address).")
    var senderField = FieldName("sender")

    @Option(name: .long, help: "Field, column or attribute holding the message text.")
    var bodyField = FieldName("body")

    var names: FieldNames {
        var names = FieldNames(id: idField.name, sender: senderField.name, body: bodyField.name)
        if idField.given { names.required.append(.init(option: "--id-field", name: idField.name)) }
        if senderField.given { names.required.append(.init(option: "--sender-field", name: senderField.name)) }
        return names
    }
}

/// The value of a field option, and whether the user gave it (a default is not required to exist).
struct FieldName: ExpressibleByArgument {
    let name: String
    let given: Bool
    init(argument: String) {
        name = argument
        given = true
    }
    init(_ name: String) {
        self.name = name
        given = false
    }
    var defaultValueDescription: String { name }
}

/// `--frame-size`: decoded bytes per frame of a zstd output in zstd's seekable format, or `0` for one frame
/// without a seek table.
struct FrameSize: ExpressibleByArgument {
    let bytes: Int
    init?(argument: String) {
        // A negative size parses, so that `validate()` says what is allowed (Limits.check(frameSize:)).
        guard let value = CLI.parseSize(argument) else { return nil }
        bytes = value
    }
    init(_ bytes: Int) { self.bytes = bytes }
    /// The frame size for ``OutputFile/Compression/zstd(level:workers:frameSize:)``: nil for one frame.
    var frameSize: Int? { bytes == 0 ? nil : bytes }
    var defaultValueDescription: String { ByteSize(bytes).argument }
}

/// A size given as bytes or with a K/M/G suffix.
struct ByteSize: ExpressibleByArgument {
    let bytes: Int
    init?(argument: String) {
        // Zero and negative sizes parse, so that `validate()` says what is allowed (Limits.check(size:)); every
        // ByteSize option is checked there.
        guard let value = CLI.parseSize(argument) else { return nil }
        bytes = value
    }
    init(_ bytes: Int) { self.bytes = bytes }
    var defaultValueDescription: String { argument }
    /// `64M`, `4K`, `1G`, or the bytes.
    var argument: String {
        bytes % (1 << 30) == 0 ? "\(bytes >> 30)G"
            : bytes % (1 << 20) == 0 ? "\(bytes >> 20)M" : bytes % 1024 == 0 ? "\(bytes >> 10)K" : "\(bytes)"
    }
}
