import ArgumentParser
import Foundation
import MessageFilter
import ArchiveIO

/// A failure of a rule subcommand, printed as `smsfilter: error: …` with its exit status.
struct RuleCommandError: Error, CustomStringConvertible {
    let message: String
    let status: ExitStatus
    var description: String { message }
}

/// Helpers for the rule subcommands (compile, check, explain).
enum RuleCLI {
    /// Prints `smsfilter: error: <error>` on stderr and returns the exit code to throw.
    static func exit(_ error: RuleCommandError) -> ExitCode {
        CLI.stderr("smsfilter: error: \(error.message)\n")
        return ExitCode(error.status)
    }

    /// Runs `body`, turning a ``RuleCommandError`` into its message and exit status.
    static func run(_ body: () throws -> Void) throws {
        do { try body() } catch let error as RuleCommandError { throw exit(error) }
    }

    /// JSON text of `object` (sorted keys, no escaped slashes), with a final newline.
    static func json(_ object: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object,
                                                options: [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Writes every file through ``OutputFile`` (each a temporary file created with `O_EXCL` beside its
    /// destination; devices and FIFOs written in place): all are written first, then all are put in place,
    /// so a failure while writing leaves none of them changed.
    static func write(_ files: [(path: String, bytes: [UInt8])], existing: OutputFile.Existing) throws {
        var open: [OutputFile] = []
        do {
            for file in files {
                let output = try OutputFile(path: file.path, existing: existing)
                open.append(output)
                try output.write(file.bytes)
            }
            for output in open { try output.finish() }
        } catch {
            for output in open { output.abandon() }
            throw RuleCommandError(message: "\(error)", status: .cannotCreate)
        }
    }
}
