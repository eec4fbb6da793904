// MARK: Internal API
//
// `plan` and `classify --range` read an archive at offsets (the frame index, a split's frames, the frames
// before it): they need a regular file. A pipe cannot seek ("Illegal seek", after the bytes it held were
// consumed), and opening a FIFO that has no writer blocks for ever; so the kind of file is asked with
// `stat` before anything opens it.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

enum _SeekableInput {
    /// Refuses what is not a regular file (after links): standard input, a pipe or FIFO, a device, a socket.
    ///
    /// - Parameter reader: who reads it, for the message (`plan`, `--range`).
    /// - Throws: ``PipelineError`` usage naming the file and what it is; input missing when it does not exist.
    static func check(_ path: String, for reader: String) throws(PipelineError) {
        let save = "; save it to a file first (it is read at offsets, not from start to end)"
        guard path != "-" else { throw PipelineError(.usage, "\(reader) reads a file, not standard input\(save)") }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw PipelineError(.inputMissing, "\(path): \(errno == ENOENT ? "no such file" : String(cString: strerror(errno)))")
        }
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFIFO: kind = "a pipe (FIFO)"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFSOCK: kind = "a socket"
        case S_IFDIR: throw PipelineError(.inputMissing, "\(path): is a folder, not a file")
        default: kind = "not a regular file"
        }
        throw PipelineError(.usage, "\(path): \(reader) reads a regular file, and this is \(kind)\(save)")
    }
}
