import Foundation
import MessageFilter
import ArchiveIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files a command reads and writes, checked together before any work is done (SPEC §6,
/// docs/RELIABILITY.md).
///
/// An input that does not exist is exit status 66, said before anything about the outputs.
///
/// Every command lists its inputs (archives, rule files and the number lists they name, manifests, mapping
/// and count files) and its outputs (`-o`, `--rejects`, `--counts`, `--json-file`, `--stats-file`,
/// `--report`, `--phrases-file`, and the files a command writes into an output folder), then calls
/// ``check()`` first thing in `run()`. One rule for every output option:
/// - exit status 64 (usage: the command as given is refused, and saying it otherwise fixes it), with the
///   options named: an output that is an input or another output (the same device and inode: hard links,
///   symbolic links, `/dev/stdout` and `-` alike; or the same resolved path; `--force` never allows this);
///   an existing regular file (or symbolic link) without `-f/--force` (character devices, FIFOs, `-` and links
///   to this process's own descriptors need none); an empty name; a link into `/proc` to another process's
///   descriptor; a block device; a file of an output folder that is a device, a pipe or a link to one;
///   a name ending in `.gz` or `.zst` for an output that is written uncompressed (all but records and rejects);
///   a name ending in a compression or archive suffix that is never written (`.bz2`, `.xz`, `.lz4`, `.zstd`,
///   `.zip`, `.7z`, `.br`…: ``OutputFile/unwrittenCompression(namedBy:)``), for every output and output folder;
/// - exit status 73 (sysexits' EX_CANTCREAT: the output cannot be created where it is named): its folder
///   does not exist, is not a folder or cannot be written; the name is a folder (or ends with `/`) where a
///   file is wanted, or is not a folder where a folder is wanted.
///
/// `/dev/null` may be named by several outputs. The outputs are then opened with ``existingPolicy``, so a
/// file that appears between this check and the end of the run is still never replaced without `--force`.
struct IOPlan {
    struct Entry {
        /// How messages name it: `-o`, `--rejects` for outputs; `the input`, `the rule file (--rules)` for inputs.
        var option: String
        var path: String
        /// An input this run reads (missing: exit 66), not one only protected (another shard's archive).
        var isRead = true
        /// A file written into an output folder under a name of the command's (`export`, `export-extension`):
        /// it may only be a regular file or missing, never a link someone left there to a device or a pipe.
        var inFolder = false
        /// An output compressed as its name says (`.gz` gzip, `.zst` zstd: records and rejects); every other
        /// output is plain, and a `.gz` or `.zst` name for it is refused rather than a lie.
        var compressedByName = false
    }

    private(set) var inputs: [Entry] = []
    private(set) var outputs: [Entry] = []
    private(set) var folders: [Entry] = []
    /// `-f/--force`: replace existing regular files.
    var force: Bool

    init(force: Bool) { self.force = force }

    /// What ``OutputFile`` does with an existing regular file.
    var existingPolicy: OutputFile.Existing { force ? .replace : .keep }

    mutating func read(_ path: String?, as option: String) {
        if let path { inputs.append(Entry(option: option, path: path)) }
    }

    /// `--rules`: a rule file read, unless it names the embedded rules (`embedded:rules`), and the number
    /// lists it names (`blockList:`, `identificationList:`), which loading it reads too.
    mutating func readRules(_ path: String?, as option: String = "the rule file (--rules)") {
        guard let path, path != RuleSet.embeddedRulesOnlyPath else { return }
        read(path, as: option)
        for list in RuleSet.filesNamed(byRuleFile: path) {
            // Not required here: a list that is missing is the rule file's error, said when it is loaded.
            inputs.append(Entry(option: "the \(list.key) of \(path),", path: list.path, isRead: false))
        }
    }

    mutating func read(_ paths: [String], as option: String) {
        for path in paths { read(path, as: option) }
    }

    /// Files this run does not read but must not write over either (the other shards' archives of a
    /// manifest): checked when they exist, never required to.
    mutating func protect(_ paths: [String], as option: String) {
        for path in paths { inputs.append(Entry(option: option, path: path, isRead: false)) }
    }

    /// An output; `compressedByName`: it is compressed as its name says (records, rejects), else it is
    /// written plain and a name ending in `.gz` or `.zst` is refused (exit 64).
    mutating func write(_ path: String?, as option: String, compressedByName: Bool = false) {
        if let path { outputs.append(Entry(option: option, path: path, compressedByName: compressedByName)) }
    }

    /// An output folder (created when missing, its parent must exist) and the names written into it.
    mutating func writeFolder(_ path: String, as option: String, files: [String]) {
        folders.append(Entry(option: option, path: path))
        for name in files {
            outputs.append(Entry(option: option, path: Self.child(name, of: path), inFolder: true, compressedByName: true))
        }
    }

    /// Whether an output of this plan is standard output: named `-`, or a name that leads to the file this
    /// process's standard output holds (the same device and inode: a link to `/proc/self/fd/1` or
    /// `/dev/stdout`, a link of one's own to one of them, the file the shell redirected standard output to).
    /// `/dev/null` is not. A `--json` summary then goes to standard error (``Console/printSummaryJSON(_:plan:)``),
    /// never into the records.
    var writesStandardOutput: Bool {
        let standardOutput = Self.identity("-", stream: 1)
        guard standardOutput.node != nil else { return outputs.contains { $0.path == "-" } }
        return outputs.contains {
            $0.path == "-" || Self.same(Self.identity($0.path, stream: 1), standardOutput, bothWritten: true)
        }
    }

    /// Refuses the plan (see the type's documentation); prints `smsfilter: error: …` and throws the exit code.
    func check() throws {
        if let (message, code) = problem() { throw CommandFailure(message, code) }
    }

    /// The first problem, with its exit status; nil when the plan is safe.
    func problem() -> (String, ExitStatus)? {
        // An input that is missing is the first thing to say (exit 66), before any output's problem.
        for input in inputs where input.isRead && input.path != "-" && Self.kind(input.path) == .missing {
            return ("\(EchoedText.escaped(input.path)): no such file (\(input.option))", .inputMissing)
        }
        // Identity first: "add --force" would be the wrong advice for an output that is an input.
        if let p = identityProblem() { return p }
        for folder in folders {
            if let p = folderProblem(folder) { return p }
        }
        for output in outputs where output.path != "-" {
            if let p = outputProblem(output) { return p }
        }
        return nil
    }

    private func identityProblem() -> (String, ExitStatus)? {
        let readIDs = inputs.map { (entry: $0, id: Self.identity($0.path, stream: 0)) }
        let writeIDs = outputs.map { (entry: $0, id: Self.identity($0.path, stream: 1)) }
        for (i, out) in writeIDs.enumerated() {
            for input in readIDs where Self.same(input.id, out.id, bothWritten: false) {
                return ("\(describe(out.entry)) is \(input.entry.option) \(EchoedText.escaped(input.entry.path)): "
                    + "refusing to write over a file this command reads", .usage)
            }
            for other in writeIDs[..<i] where Self.same(other.id, out.id, bothWritten: true) {
                return ("\(describe(other.entry)) and \(describe(out.entry)) are the same file: give each output its own name", .usage)
            }
        }
        return nil
    }

    private func describe(_ e: Entry) -> String {
        e.path == "-" ? "\(e.option) - (standard output)" : "\(e.option) \(EchoedText.escaped(e.path))"
    }

    private func outputProblem(_ e: Entry) -> (String, ExitStatus)? {
        if e.path.isEmpty { return ("\(e.option): an empty name; name a file", .usage) }
        if let p = unwrittenCompressionProblem(e) { return p }
        if !e.compressedByName, OutputFile.compression(namedBy: e.path) != .none {
            let suffix = e.path.lowercased().hasSuffix(".gz") ? ".gz" : ".zst"
            return ("\(describe(e)): the name ends with \(suffix), but \(e.option) is written uncompressed; "
                + "name it without \(suffix) (only records and rejects are compressed by their name)", .usage)
        }
        switch Self.kind(e.path) {
        case .folder:
            return ("\(describe(e)): is a folder; name a file", .cannotCreate)
        case .regular, .danglingLink:
            if force { return nil }
            return ("\(describe(e)): a file is already there; add -f/--force to replace it", .usage)
        case .special where e.inFolder:
            return ("\(describe(e)): is a device, a pipe or a link to one, not a file; the command names the files of its folder itself: remove it", .usage)
        case .special:
            return nil
        case .blockDevice:
            return ("\(describe(e)): is a block device (a disk); refusing to write over it", .usage)
        case .foreignDescriptor:
            return ("\(describe(e)): leads into /proc to another process's file descriptor; name the file itself", .usage)
        case .missing:
            if e.path.hasSuffix("/") { return ("\(describe(e)): names a folder (it ends with /); name a file", .cannotCreate) }
            // A file of an output folder that does not exist yet: the folder is checked and created instead.
            let parent = Self.parent(of: e.path)
            if folders.contains(where: { Self.parent(of: Self.child("x", of: $0.path)) == parent && Self.kind($0.path) == .missing }) {
                return nil
            }
            return parentProblem(e)
        }
    }

    private func folderProblem(_ e: Entry) -> (String, ExitStatus)? {
        if e.path.isEmpty { return ("\(e.option): an empty name; name a folder", .usage) }
        let trimmed = e.path.hasSuffix("/") ? String(e.path.dropLast()) : e.path
        if let (suffix, format) = OutputFile.unwrittenCompression(namedBy: trimmed)
            ?? [".gz", ".zst"].first(where: { trimmed.lowercased().hasSuffix($0) }).map({ ($0, $0 == ".gz" ? "gzip" : "zstd") }) {
            return ("\(describe(e)): the name ends with \(suffix) (\(format)), but \(e.option) is a folder of plain files; "
                + "name it without \(suffix) (compress the folder afterwards if you need an archive)", .usage)
        }
        switch Self.kind(e.path) {
        case .folder:
            return access(e.path, W_OK | X_OK) == 0 ? nil : ("\(describe(e)): cannot write in this folder (\(String(cString: strerror(errno))))", .cannotCreate)
        case .missing:
            return parentProblem(e)
        default:
            return ("\(describe(e)): is not a folder; name a folder (it is created when missing)", .cannotCreate)
        }
    }

    /// A name ending in a compression suffix that smsfilter does not write (`.bz2`, `.xz`, `.zip`…): refused
    /// with the one-line advice, as such an input is (a plain file under that name would be a lie).
    private func unwrittenCompressionProblem(_ e: Entry) -> (String, ExitStatus)? {
        guard let (suffix, format) = OutputFile.unwrittenCompression(namedBy: e.path) else { return nil }
        let stem = String(e.path.dropLast(suffix.count))
        let name = _PathText.name(of: stem)
        if !e.compressedByName {
            return ("\(describe(e)): the name ends with \(suffix) (\(format)), but \(e.option) is written uncompressed; "
                + "name it without \(suffix), such as \(name)", .usage)
        }
        let tool = Self.compressor[suffix.lowercased()]
        let pipe = tool.map { "; or pipe: -o - | \($0) > \(_PathText.name(of: e.path))" } ?? ""
        return ("\(describe(e)): the name ends with \(suffix) (\(format)), which smsfilter does not write; "
            + "name it \(name).zst (zstd) or \(name).gz (gzip)\(pipe)", .usage)
    }

    /// The command that writes each suffix from standard input, for the advice.
    private static let compressor = [
        ".bz2": "bzip2", ".xz": "xz", ".lzma": "xz --format=lzma", ".lz4": "lz4", ".lz": "lzip", ".lzo": "lzop",
        ".br": "brotli", ".zstd": "zstd", ".gzip": "gzip",
    ]

    /// The folder that will hold `e` must exist and be writable (exit 73 otherwise).
    private func parentProblem(_ e: Entry) -> (String, ExitStatus)? {
        let parent = Self.parent(of: e.path)
        switch Self.kind(parent) {
        case .folder:
            if access(parent, W_OK | X_OK) != 0 {
                return ("\(describe(e)): cannot write in the folder \(parent) (\(String(cString: strerror(errno))))", .cannotCreate)
            }
            return nil
        case .missing, .danglingLink:
            return ("\(describe(e)): the folder \(parent) does not exist", .cannotCreate)
        default:
            return ("\(describe(e)): \(parent) is not a folder", .cannotCreate)
        }
    }

    // MARK: Identities

    enum Kind { case missing, regular, folder, special, blockDevice, danglingLink, foreignDescriptor }

    /// What is at `path`, as ``OutputFile`` will see it when it opens it.
    static func kind(_ path: String) -> Kind {
        switch OutputFile.target(of: path) {
        case .missing: return .missing
        case .regular: return .regular
        case .folder: return .folder
        case .special, .descriptor(own: true): return .special
        case .blockDevice: return .blockDevice
        case .descriptor(own: false): return .foreignDescriptor
        case .danglingLink: return .danglingLink
        }
    }

    /// `folder/name`, spelled so that ``parent(of:)`` gives `folder` back.
    static func child(_ name: String, of folder: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The folder that holds `path` (`.` for a bare name; never Foundation's `deletingLastPathComponent`,
    /// which traps on a one-character name).
    static func parent(of path: String) -> String { _PathText.folder(of: path) }

    /// What a path (or `-`, standard input or output) refers to.
    struct Identity {
        /// Device and inode when the file exists.
        var node: (dev: UInt64, ino: UInt64, mode: UInt32)?
        /// The absolute path with symbolic links resolved (of the parent, when the file does not exist yet).
        var resolved: String?
    }

    static func identity(_ path: String, stream fd: Int32) -> Identity {
        var info = stat()
        if path == "-" {
            guard fstat(fd, &info) == 0 else { return Identity(node: nil, resolved: "-\(fd)") }
            return Identity(node: (UInt64(info.st_dev), UInt64(info.st_ino), UInt32(info.st_mode)), resolved: nil)
        }
        var id = Identity(node: nil, resolved: nil)
        if stat(path, &info) == 0 { id.node = (UInt64(info.st_dev), UInt64(info.st_ino), UInt32(info.st_mode)) }
        if let real = realpath(path, nil) {
            id.resolved = String(cString: real)
            free(real)
        } else if let real = realpath(parent(of: path), nil) {
            id.resolved = String(cString: real) + "/" + _PathText.name(of: path)
            free(real)
        }
        return id
    }

    /// Whether two identities are one file that a write would damage. Reading and writing one character
    /// device (a terminal, /dev/null) harms nothing; two outputs on one device interleave, except /dev/null.
    static func same(_ a: Identity, _ b: Identity, bothWritten: Bool) -> Bool {
        if let x = a.node, let y = b.node {
            guard x.dev == y.dev && x.ino == y.ino else { return false }
            let isCharacterDevice = x.mode & UInt32(S_IFMT) == UInt32(S_IFCHR)
            if !isCharacterDevice { return true }
            return bothWritten && !isDevNull(x)
        }
        if let p = a.resolved, let q = b.resolved { return p == q }
        return false
    }

    private static func isDevNull(_ node: (dev: UInt64, ino: UInt64, mode: UInt32)) -> Bool {
        var info = stat()
        guard stat("/dev/null", &info) == 0 else { return false }
        return UInt64(info.st_dev) == node.dev && UInt64(info.st_ino) == node.ino
    }
}
