import Foundation
import MessageFilter

/// Deterministic sharding of a manifest of archives.
public enum Manifest {
    /// The archives listed in a manifest: one path or URI per line; blank lines and `#` comments skipped.
    /// - Throws: ``PipelineError`` (input missing) when it cannot be read.
    public static func read(path: String) throws(PipelineError) -> [String] {
        let data: Data
        do { data = try BoundedFile.read(path, limit: 1 << 30) } catch { throw PipelineError(.inputMissing, "\(path): \(error.detail)") }
        let text = String(decoding: data, as: UTF8.self)
        return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// Whether `entry` belongs to shard `k` of `n` (1-based): by a 64-bit FNV-1a hash of the entry, so an
    /// archive keeps its shard when the manifest grows or is reordered.
    public static func belongs(_ entry: String, shard k: Int, of n: Int) -> Bool {
        Int(StableHash.fnv1a(entry.utf8) % UInt64(n)) == k - 1
    }
}
