import Foundation

/// Reads a whole small file (a rule file, a manifest, a mapping, a count file) with a cap on its size, so
/// `/dev/zero`, an endless pipe or a file of the wrong kind is an error, never unbounded memory.
public enum BoundedFile {
    /// Why a file was not read.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public enum Kind: Sendable { case missing, folder, tooLarge, unreadable }
        public let kind: Kind
        public let path: String
        public let detail: String
        public var description: String { "\(path): \(detail)" }
    }

    /// The bytes of `path`, at most `limit` of them.
    ///
    /// - Throws: ``Failure``: missing, a folder, larger than `limit` (devices and pipes are read up to it),
    ///   or unreadable (with the system's reason).
    public static func read(_ path: String, limit: Int) throws(Failure) -> Data {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw Failure(kind: .missing, path: path, detail: "no such file")
        }
        if isFolder.boolValue { throw Failure(kind: .folder, path: path, detail: "is a folder, not a file") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Failure(kind: .unreadable, path: path, detail: "cannot open the file (permission denied?)")
        }
        defer { try? handle.close() }
        var data = Data()
        do {
            while data.count <= limit {
                guard let chunk = try handle.read(upToCount: min(1 << 20, limit + 1 - data.count)), !chunk.isEmpty else { break }
                data.append(chunk)
            }
        } catch {
            throw Failure(kind: .unreadable, path: path, detail: "cannot read the file: \((error as NSError).localizedDescription)")
        }
        guard data.count <= limit else {
            throw Failure(kind: .tooLarge, path: path, detail: "larger than \(describe(limit)); this is not the file expected here")
        }
        return data
    }

    static func describe(_ bytes: Int) -> String {
        bytes % (1 << 30) == 0 ? "\(bytes >> 30) GiB" : bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}
