// MARK: Internal API
//
// The rejects file: one JSON object per rejected record, `{"file": …, "line": …, "reason": …, "length": …,
// "record": …}` (`recordBase64` when the bytes are not UTF-8). A record longer than `--max-record` comes in
// pieces (`_Piece`) and is written as it streams, always as `recordBase64`, its length last:
// `{"file": …, "line": …, "reason": …, "recordBase64": "…", "length": …}`; one that fits in a chunk is
// written the same way, so that the rejects do not depend on the chunk size. Under `--max-rejects-bytes` such a
// line may be cut: its `recordBase64` then holds the record's first bytes, and the line ends with the length,
// the SHA-256 of all its bytes and `"shortened": true` (`overlongLimit`, `overlongTail`).

import Foundation

enum _RejectLines {
    /// Hands the line of one whole reject to `emit` in parts: a long record is turned into text a slice
    /// (``_StreamedReject/slice``) at a time, so the writer holds at most a slice's text beside the record.
    /// An over-long record longer than `overlongLimit` bytes is cut there (see the file's header).
    static func write(
        _ file: String, _ line: Int, _ reject: _Reject, overlongLimit: Int = .max,
        _ emit: (UnsafeRawBufferPointer) throws(PipelineError) -> Void
    ) throws(PipelineError) {
        let slice = _StreamedReject.slice
        let out = _ByteBuffer(capacity: min(reject.raw.count, slice) * 6 + 256)
        func flush() throws(PipelineError) {
            try out.withUnsafeBytes(emit)
            out.removeAll()
        }
        head(file, line, reject.reason, out)
        try reject.raw.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in Result { () throws(PipelineError) in
            func base64(upTo count: Int) throws(PipelineError) {
                var start = 0
                while start < count {
                    let end = min(count, start + slice)
                    out.append(Array(Data(raw[start..<end]).base64EncodedString().utf8))
                    try flush()
                    start = end
                }
            }
            if reject.category == _ReadOptions.overlongCategory {
                // Whole in a chunk or streamed in pieces, depending on the chunk size: the same line either way.
                out.append(", \"recordBase64\": \"")
                let cut = raw.count > overlongLimit
                try base64(upTo: min(raw.count, overlongLimit))
                var hash = _SHA256()
                if cut { hash.update(raw) }
                out.append(overlongTail(length: reject.length, sha256: cut ? hash.finish() : nil))
                try flush()
                return
            }
            out.append(", \"length\": ")
            out.appendDecimal(reject.length)
            if _isValidUTF8(raw) {
                out.append(", \"record\": \"")
                var start = 0
                while start < raw.count {
                    let end = min(raw.count, start + slice)
                    out.appendJSONEscaped(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
                    try flush()
                    start = end
                }
                out.append("\"")
            } else {
                out.append(", \"recordBase64\": \"")
                try base64(upTo: raw.count)
                out.append("\"")
            }
            out.append("}\n")
            try flush()
        } }.get()
    }

    /// The bytes of the whole line of `reject` (what ``write(_:_:_:overlongLimit:_:)`` would emit, uncut).
    static func size(_ file: String, _ line: Int, _ reject: _Reject) -> Int64 {
        var n: Int64 = 0
        let counted: Result<Void, PipelineError> = Result { () throws(PipelineError) in
            try write(file, line, reject) { (part: UnsafeRawBufferPointer) in n += Int64(part.count) }
        }
        _ = counted
        return n
    }

    /// The most bytes of an over-long record whose line fits in `room` bytes (a multiple of 3, so that its
    /// base64 is a prefix of the whole record's), 0 when not even three do: the head, `"recordBase64"`, four
    /// characters per three bytes and the longest tail (``overlongTailMost``).
    static func overlongLimit(room: Int64, file: String, line: Int, reason: String) -> Int {
        let out = _ByteBuffer(capacity: 256)
        head(file, line, reason, out)
        let fixed = Int64(out.count + ", \"recordBase64\": \"".utf8.count + overlongTailMost)
        guard room - fixed >= 4 else { return 0 }
        return Int(min((room - fixed) / 4 * 3, Int64(Int.max / 2)))
    }

    /// The end of an over-long record's line: its length, and for a line cut short the SHA-256 of all its bytes.
    static func overlongTail(length: Int, sha256: String?) -> [UInt8] {
        var text = "\", \"length\": \(length)"
        if let sha256 { text += ", \"sha256\": \"\(sha256)\", \"shortened\": true" }
        return Array((text + "}\n").utf8)
    }

    /// The longest ``overlongTail(length:sha256:)``: a 20-digit length and a hash.
    static let overlongTailMost = "\", \"length\": 00000000000000000000, \"sha256\": \"\", \"shortened\": true}\n".utf8.count + 64

    /// The most bytes of a record a short reject keeps (past `--max-rejects-bytes`).
    static let shortPrefix = 256

    /// A reject past `--max-rejects-bytes`: `{"file", "line", "reason", "length", "prefix" (or
    /// "prefixBase64"), "sha256", "shortened": true}`. The prefix is the record's first ``shortPrefix`` bytes
    /// (cut back to a whole character when they are text), the SHA-256 is of all its bytes.
    static func short(_ file: String, _ line: Int, _ reason: String, length: Int, prefix: [UInt8], sha256: String) -> [UInt8] {
        let out = _ByteBuffer(capacity: prefix.count * 6 + 512)
        head(file, line, reason, out)
        out.append(", \"length\": ")
        out.appendDecimal(length)
        var text = prefix
        // A character cut by the prefix's end is left out (at most 3 bytes of a 4-byte sequence).
        for drop in 0...min(3, text.count) {
            let candidate = Array(text.dropLast(drop))
            if candidate.withUnsafeBytes(_isValidUTF8) {
                text = candidate
                break
            }
            if drop == min(3, text.count) { text = [] }
        }
        if !text.isEmpty || prefix.isEmpty {
            out.append(", \"prefix\": \"")
            text.withUnsafeBytes { out.appendJSONEscaped($0) }
            out.append("\"")
        } else {
            out.append(", \"prefixBase64\": \"")
            out.append(Array(Data(prefix).base64EncodedString().utf8))
            out.append("\"")
        }
        out.append(", \"sha256\": \"")
        out.append(Array(sha256.utf8))
        out.append("\", \"shortened\": true}\n")
        return out.copyBytes()
    }

    static func head(_ file: String, _ line: Int, _ reason: String, _ out: _ByteBuffer) {
        out.append("{\"file\": ")
        out.appendJSONString(file)
        out.append(", \"line\": ")
        out.appendDecimal(line)
        out.append(", \"reason\": ")
        out.appendJSONString(reason)
    }

    /// The short category of a reason, for the counts' `rejectReasons` (up to its colon or " at byte").
    static func category(_ reason: String) -> String {
        if let colon = reason.firstIndex(of: ":") { return String(reason[..<colon]) }
        if let at = reason.range(of: " at byte") { return String(reason[..<at.lowerBound]) }
        return reason
    }
}

/// Writes a streamed reject piece by piece: base64 in groups of three bytes, carrying up to two over, of at
/// most `limit` bytes of the record (a multiple of 3; past it the line is cut, `_RejectLines.overlongTail`).
struct _StreamedReject {
    /// The most bytes of a piece turned into text at once (a multiple of 3).
    static let slice = 3 << 18
    private var pending: [UInt8] = []
    /// Bytes of the record taken into the text so far.
    private var taken = 0

    /// The text for one piece of the record at `line` (the head on the first, the tail on the last: `sha256`,
    /// the hash of all the record's bytes, is given on the last piece of a record longer than `limit`).
    mutating func text(_ piece: _Piece, line: Int, _ bytes: UnsafeRawBufferPointer, file: String, limit: Int,
                       sha256: String?) -> [UInt8] {
        let out = _ByteBuffer(capacity: bytes.count * 4 / 3 + 256)
        if piece.isFirst {
            pending = []
            taken = 0
            _RejectLines.head(file, line, piece.reason, out)
            out.append(", \"recordBase64\": \"")
        }
        let accept = max(0, min(bytes.count, limit - taken))
        taken += accept
        var data = pending
        data.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<accept]))
        if piece.isLast || taken == limit {
            pending = []
        } else {
            let whole = data.count / 3 * 3
            pending = Array(data[whole...])
            data.removeLast(data.count - whole)
        }
        out.append(Array(Data(data).base64EncodedString().utf8))
        if piece.isLast { out.append(_RejectLines.overlongTail(length: piece.length, sha256: sha256)) }
        return out.copyBytes()
    }
}
