import ArchiveIO
import Foundation

/// Outputs written whole, from bytes already in memory (a JSON table, a report, a count file, a compiled rule
/// set, the files of an extension): through ``OutputFile``, under a temporary name renamed into place, or in
/// place for a device or standard output (`-`). A failure is ``ExitStatus/cannotCreate``.
enum SmallOutput {
    /// Writes `bytes` to `path`. When it cannot be written, throws `<error> (<what>)`.
    static func write(_ bytes: [UInt8], to path: String, existing: OutputFile.Existing, what: String? = nil) throws {
        do {
            let file = try OutputFile(path: path, existing: existing)
            try file.write(bytes)
            try file.finish()
        } catch {
            throw CommandFailure("\(error)" + (what.map { " (\($0))" } ?? ""), .cannotCreate)
        }
    }

    /// Writes every file through ``OutputFile`` (each a temporary file created with `O_EXCL` beside its
    /// destination; devices and FIFOs written in place): all are written first, then all are put in place,
    /// so a failure while writing leaves none of them changed.
    static func writeAll(_ files: [(path: String, bytes: [UInt8])], existing: OutputFile.Existing) throws {
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
