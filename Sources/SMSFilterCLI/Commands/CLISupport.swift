import BatchPipeline
import ArgumentParser
import Foundation
import MessageFilter

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A runtime failure of a subcommand: printed as `smsfilter: error: …` with its exit status (SPEC §7).
struct CLIFailure: Error, CustomStringConvertible {
    let message: String
    let exitCode: Int32
    var description: String { message }
}

enum CLI {
    /// Writes `text` to standard error.
    static func stderr(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Prints `smsfilter: error: …` and exits with `code`.
    static func fail(_ message: String, code: Int32) -> ExitCode {
        stderr("smsfilter: error: \(message)\n")
        return ExitCode(code)
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }
    static var stdinIsTerminal: Bool { isatty(0) == 1 }

    /// The number of cores.
    static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Loads `--rules` (YAML or .smsf) or the embedded default set; exit 66 when missing, 65 when bad.
    static func loadRules(_ path: String?) throws -> RuleSet {
        guard let path else { return RuleSet.embeddedDefault }
        guard FileManager.default.fileExists(atPath: path) else {
            throw fail("\(path): no such rule file", code: 66)
        }
        do {
            return try RuleSet.load(path: path)
        } catch {
            throw fail("\(error)", code: 65)
        }
    }

    /// Parses sizes like `4M`, `512K`, `1G`, `65536`.
    static func parseSize(_ text: String) -> Int? {
        let upper = text.uppercased().replacingOccurrences(of: "IB", with: "").replacingOccurrences(of: "B", with: "")
        let units: [(String, Int)] = [("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30)]
        for (suffix, factor) in units where upper.hasSuffix(suffix) {
            return Int(upper.dropLast()).map { $0 * factor }
        }
        return Int(upper)
    }
}

/// Which fields hold the id, sender and body: shared by classify, export and evaluate.
struct FieldOptions: ParsableArguments {
    @Option(name: .long, help: "Field, column or attribute holding the record id.")
    var idField = "id"

    @Option(name: .long, help: "Field, column or attribute holding the sender (XML default: address).")
    var senderField = "sender"

    @Option(name: .long, help: "Field, column or attribute holding the message text.")
    var bodyField = "body"

    var names: FieldNames { FieldNames(id: idField, sender: senderField, body: bodyField) }
}

/// A size given as bytes or with a K/M/G suffix.
struct ByteSize: ExpressibleByArgument {
    let bytes: Int
    init?(argument: String) {
        guard let value = CLI.parseSize(argument), value > 0 else { return nil }
        bytes = value
    }
    init(_ bytes: Int) { self.bytes = bytes }
    var defaultValueDescription: String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20)M" : bytes % 1024 == 0 ? "\(bytes >> 10)K" : "\(bytes)"
    }
}

/// A live progress line on standard error, redrawn in place (only when stderr is a terminal).
final class ProgressLine: @unchecked Sendable {
    private let lock = NSLock()
    private var shown = false

    func update(_ p: BatchPipeline.Progress) {
        let mb = Double(p.bytes) / 1e6
        var text = String(format: "%@ records  %.1f MB  %.1f MB/s  %.0f rec/s  %@",
            Self.grouped(p.records), mb, p.seconds > 0 ? mb / p.seconds : 0,
            p.seconds > 0 ? Double(p.records) / p.seconds : 0, Self.clock(p.seconds))
        if let total = p.inputBytesTotal, total > 0, p.inputBytesRead > 0, p.seconds > 1 {
            let fraction = min(1, Double(p.inputBytesRead) / Double(total))
            let eta = p.seconds / fraction * (1 - fraction)
            text += String(format: "  %3.0f%%  ETA %@", fraction * 100, Self.clock(eta))
        }
        if p.fileCount > 1 { text += "  file \(p.fileIndex + 1)/\(p.fileCount)" }
        if p.rejected > 0 { text += "  \(Self.grouped(p.rejected)) rejected" }
        lock.lock()
        shown = true
        CLI.stderr("\r\u{1B}[2K" + text)
        lock.unlock()
    }

    func clear() {
        lock.lock()
        if shown { CLI.stderr("\r\u{1B}[2K") }
        shown = false
        lock.unlock()
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%02d:%02d", s / 60, s % 60)
    }

    static func grouped(_ n: Int) -> String { groupedDigits(n) }
}
