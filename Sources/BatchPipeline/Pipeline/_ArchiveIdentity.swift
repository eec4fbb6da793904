// MARK: Internal API
//
// What identifies an archive across runs, for `merge-counts` (`RunCounts.File.archive`): its size and the
// SHA-256 of its first and last 64 KiB (all of it when it is at most 128 KiB). Not its path: a split run from
// another folder names the same archive differently, and two folders may hold different archives of one
// name. Two runs of one archive (splits, or a whole run beside a split) so meet in `merge-counts` whatever
// their paths; an archive changed in its middle only, to the byte, keeps its identity (the bound of a sample).

import Foundation

enum _ArchiveIdentity {
    /// Bytes hashed at each end of the file.
    static let sample = 64 << 10

    /// The identity of the regular file at `path`; nil for standard input, a pipe, a device, or a file that
    /// cannot be read (nothing but a regular file is opened, so a FIFO never blocks here).
    static func of(_ path: String) -> RunCounts.File.Archive? {
        guard path != "-" else { return nil }
        let path = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular, let handle = FileHandle(forReadingAtPath: path)
        else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return nil }
        let head = min(size, UInt64(sample))
        let tail = min(size - head, UInt64(sample))
        var hash = _SHA256()
        for (offset, count) in [(UInt64(0), head), (size - tail, tail)] where count > 0 {
            guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.read(upToCount: Int(count)), data.count == Int(count)
            else { return nil }
            data.withUnsafeBytes { hash.update($0) }
        }
        return RunCounts.File.Archive(bytes: Int64(size), endsSHA256: hash.finish())
    }
}
