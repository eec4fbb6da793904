// MARK: Internal API
//
// A single-threaded JSON Lines record stream for `export` and `evaluate`: each input is decoded (zstd or
// plain, by magic bytes), cut into lines, and each line is validated by `_JSONScanner`, which reports the
// spans of the wanted top-level keys. Memory is one read buffer (grown only for a line longer than the
// buffer, up to `maxRecord`) and the caller's reusable scratch; nothing is kept per record.

import Dispatch
import ZstdStream

/// One JSON Lines record as the scanner saw it: the line and the spans of the wanted keys.
struct _ScannedRecord {
    /// The line, without its newline.
    let line: UnsafeRawBufferPointer
    /// One field per wanted key, in the order the keys were given.
    let fields: UnsafeMutableBufferPointer<JSONField>
    /// 1-based line number in its file.
    let lineNumber: Int
    /// Index of the input the record came from.
    let fileIndex: Int

    /// The decoded content of string field `slot` (unescaped), or the raw text of a number or literal;
    /// nil when the field is missing or null. Appends to `out` after clearing it.
    func value(_ slot: Int, into out: inout [UInt8]) -> Bool {
        out.removeAll(keepingCapacity: true)
        let f = fields[slot]
        switch f.kind {
        case .missing, .null:
            return false
        case .string:
            let content = UnsafeRawBufferPointer(rebasing: line[f.contentStart..<f.contentEnd])
            if f.escaped { _JSONUnescape.append(content, to: &out) } else { out.append(contentsOf: content) }
            return true
        case .other:
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[f.rawStart..<f.rawEnd]))
            return true
        }
    }

    /// The raw JSON text of field `slot` (quotes included for a string).
    func raw(_ slot: Int) -> UnsafeRawBufferPointer {
        let f = fields[slot]
        return UnsafeRawBufferPointer(rebasing: line[f.rawStart..<f.rawEnd])
    }
}

/// Why a line was not handed over.
enum _SkipReason: String {
    case invalidJSON = "invalid JSON"
    case invalidUTF8 = "invalid UTF-8"
    case noBody = "no body"
    case tooLong = "record longer than --max-record"
}

/// Where the stream is, for a progress line.
struct _StreamPosition {
    var fileIndex: Int
    var fileCount: Int
    var inputBytesRead: Int64 = 0
    var inputBytesTotal: Int64?
    /// Decoded bytes of every input so far.
    var decodedBytes: Int64 = 0
}

/// Throttles progress reports to about four a second.
struct _ProgressThrottle {
    let started = DispatchTime.now().uptimeNanoseconds
    var last: UInt64 = 0

    /// Calls `report` with the progress when a quarter second has passed since the last call (or `force`).
    mutating func tick(
        _ position: _StreamPosition, records: Int, rejected: Int, force: Bool = false,
        _ report: ((Progress) -> Void)?
    ) {
        guard let report else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard force || now - last > 250_000_000 else { return }
        last = now
        report(
            Progress(
                records: records, rejected: rejected, bytes: position.decodedBytes, inputBytesRead: position.inputBytesRead,
                inputBytesTotal: position.inputBytesTotal, fileIndex: position.fileIndex, fileCount: position.fileCount,
                seconds: Double(now - started) / 1e9))
    }
}

enum _RecordStream {
    /// Reads every input in order and calls `record` for each well-formed JSON object line with a string
    /// body (`bodySlot`), and `skip` for each other non-blank line.
    ///
    /// - Throws: ``PipelineError``: `inputMissing` for an input that cannot be opened, `badInput` for
    ///   a damaged archive (after every record before the damage was handed over).
    static func read(
        inputs: [String], keys: [String], bodySlot: Int, maxRecord: Int = 64 << 20,
        record: (_ScannedRecord) throws(PipelineError) -> Void,
        skip: (_SkipReason, Int, Int) -> Void,
        progress: (_StreamPosition) -> Void = { _ in }
    ) throws(PipelineError) {
        for path in inputs where path != "-" {
            var isFolder = false
            guard _fileExists(path, &isFolder) else { throw PipelineError(.inputMissing, "\(path): no such file") }
            if isFolder { throw PipelineError(.inputMissing, "\(path): is a folder, not a file") }
        }
        let state = _FileState(index: 0, path: "", format: .jsonl, keys: keys)
        let fields = UnsafeMutableBufferPointer<JSONField>.allocate(capacity: keys.count)
        defer { fields.deallocate() }
        fields.initialize(repeating: JSONField())
        let keyBuffers = UnsafeBufferPointer(state.keyBuffers)
        let buffer = _ByteBuffer(capacity: 1 << 20)
        var decoded: Int64 = 0
        for (fileIndex, path) in inputs.enumerated() {
            let decoder: ZstdDecoder
            do {
                decoder = path == "-" ? try ZstdDecoder(fileDescriptor: 0, path: "<stdin>") : try ZstdDecoder(path: path)
            } catch {
                throw PipelineError(.inputMissing, error.description)
            }
            buffer.removeAll()
            var position = _StreamPosition(fileIndex: fileIndex, fileCount: inputs.count, decodedBytes: decoded)
            if path != "-" {
                var info = stat()
                if stat(path, &info) == 0 { position.inputBytesTotal = Int64(info.st_size) }
            }
            var lineNumber = 1
            var eof = false
            var damage: String?
            var skippingLong = false
            while !eof {
                // Fill the buffer after the carried partial line.
                let room = max(1 << 20, buffer.count)
                buffer.reserve(room)
                let target = UnsafeMutableRawBufferPointer(start: buffer.storage + buffer.count, count: room)
                do {
                    let n = try decoder.read(into: target)
                    if n == 0 { eof = true } else { buffer.count += n }
                    decoded += Int64(n)
                } catch {
                    damage = error.description
                    eof = true
                }
                position.inputBytesRead = decoder.compressedBytesConsumed
                position.decodedBytes = decoded
                progress(position)
                let bytes = buffer.bytes
                var start = 0
                while start < bytes.count {
                    let newline = _find(0x0A, in: bytes, from: start, to: bytes.count)
                    guard let end = newline ?? (eof ? bytes.count : nil) else { break }
                    defer {
                        start = end + 1
                        lineNumber += 1
                    }
                    if skippingLong {
                        skippingLong = false
                        continue
                    }
                    let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                    if _JSONLParser.isBlank(line) { continue }
                    if let error = _JSONScanner.scan(line, keys: keyBuffers, fields: fields) {
                        skip(error.reason.description == "invalid UTF-8" ? .invalidUTF8 : .invalidJSON, fileIndex, lineNumber)
                        continue
                    }
                    guard fields[bodySlot].kind == .string else {
                        skip(.noBody, fileIndex, lineNumber)
                        continue
                    }
                    try record(_ScannedRecord(line: line, fields: fields, lineNumber: lineNumber, fileIndex: fileIndex))
                }
                // Carry the partial line to the front.
                let rest = bytes.count - min(start, bytes.count)
                if rest > 0 && start > 0 { memmove(buffer.storage, buffer.storage + start, rest) }
                buffer.count = rest
                if skippingLong {
                    // Still inside the overlong line: nothing to keep.
                    buffer.removeAll()
                } else if rest >= maxRecord {
                    // A line longer than the limit: skipped with its line number, read past.
                    skip(.tooLong, fileIndex, lineNumber)
                    buffer.removeAll()
                    skippingLong = true
                }
            }
            buffer.shrink(to: 4 << 20)
            if let damage { throw PipelineError(.badInput, damage) }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether `path` exists, and whether it is a folder.
func _fileExists(_ path: String, _ isFolder: inout Bool) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0 else { return false }
    isFolder = (info.st_mode & S_IFMT) == S_IFDIR
    return true
}
