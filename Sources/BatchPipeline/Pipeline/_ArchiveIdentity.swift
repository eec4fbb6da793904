// MARK: Internal API
//
// What identifies an archive across runs, for `merge-counts` (`RunCounts.File.archive`): its size and the
// 64-bit FNV-1a of its first and last 4 KiB (all of it when it is at most 8 KiB). Not its path: a split run from
// another folder names the same archive differently, and two folders may hold different archives of one
// name. Two runs of one archive (splits, or a whole run beside a split) so meet in `merge-counts` whatever
// their paths; an archive changed in its middle only, to the byte, keeps its identity (the bound of a sample).

import Foundation

enum _ArchiveIdentity {
    /// Bytes hashed at each end of the file: few, so that a manifest of many small files pays little (a few
    /// microseconds a file; SHA-256 of 64 KiB ends took 5 ms a file), and enough to tell archives apart.
    static let sample = 4 << 10

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
        var hash = StableHash.fnvOffsetBasis
        for (offset, count) in [(UInt64(0), head), (size - tail, tail)] where count > 0 {
            guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.read(upToCount: Int(count)), data.count == Int(count)
            else { return nil }
            hash = data.reduce(hash, StableHash.fnv1a)
        }
        let hex = String(hash, radix: 16)
        return RunCounts.File.Archive(bytes: Int64(size), ends: "fnv1a64:" + String(repeating: "0", count: 16 - hex.count) + hex)
    }
}
