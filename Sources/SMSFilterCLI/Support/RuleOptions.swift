import ArgumentParser
import Foundation
import MessageFilter
import ArchiveIO

/// Helpers for the rule subcommands (compile, check, explain).
enum RuleCLI {
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
            throw CommandFailure("\(error)", .cannotCreate)
        }
    }
}
