// MARK: Internal API
//
// The rejects file: one JSON object per rejected record, `{"file": …, "line": …, "reason": …, "length": …,
// "record": …}` (`recordBase64` when the bytes are not UTF-8). A record longer than `--max-record` comes in
// pieces (`_Piece`) and is written as it streams, always as `recordBase64`, its length last:
// `{"file": …, "line": …, "reason": …, "recordBase64": "…", "length": …}`; one that fits in a chunk is
// written the same way, so that the rejects do not depend on the chunk size.

import Foundation

enum _RejectLines {
    /// Hands the line of one whole reject to `emit` in parts: a long record is turned into text a slice
    /// (``_StreamedReject/slice``) at a time, so the writer holds at most a slice's text beside the record.
    static func write(
        _ file: String, _ line: Int, _ reject: _Reject, _ emit: (UnsafeRawBufferPointer) throws(PipelineError) -> Void
    ) throws(PipelineError) {
        let slice = _StreamedReject.slice
        let out = _ByteBuffer(capacity: min(reject.raw.count, slice) * 6 + 256)
        func flush() throws(PipelineError) {
            try out.withUnsafeBytes(emit)
            out.removeAll()
        }
        head(file, line, reject.reason, out)
        try reject.raw.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in Result { () throws(PipelineError) in
            func base64() throws(PipelineError) {
                var start = 0
                while start < raw.count {
                    let end = min(raw.count, start + slice)
                    out.append(Array(Data(raw[start..<end]).base64EncodedString().utf8))
                    try flush()
                    start = end
                }
            }
            if reject.category == _ReadOptions.overlongCategory {
                // Whole in a chunk or streamed in pieces, depending on the chunk size: the same line either way.
                out.append(", \"recordBase64\": \"")
                try base64()
                out.append("\", \"length\": ")
                out.appendDecimal(reject.length)
                out.append("}\n")
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
                try base64()
                out.append("\"")
            }
            out.append("}\n")
            try flush()
        } }.get()
    }

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

/// Writes a streamed reject piece by piece: base64 in groups of three bytes, carrying up to two over.
struct _StreamedReject {
    /// The most bytes of a piece turned into text at once (a multiple of 3).
    static let slice = 3 << 18
    private var pending: [UInt8] = []

    /// The text for one piece of the record at `line` (the head on the first, the length and the end on the last).
    mutating func text(_ piece: _Piece, line: Int, _ bytes: UnsafeRawBufferPointer, file: String) -> [UInt8] {
        let out = _ByteBuffer(capacity: bytes.count * 4 / 3 + 256)
        if piece.isFirst {
            pending = []
            _RejectLines.head(file, line, piece.reason, out)
            out.append(", \"recordBase64\": \"")
        }
        var data = pending
        data.append(contentsOf: bytes)
        if piece.isLast {
            pending = []
        } else {
            let whole = data.count / 3 * 3
            pending = Array(data[whole...])
            data.removeLast(data.count - whole)
        }
        out.append(Array(Data(data).base64EncodedString().utf8))
        if piece.isLast {
            out.append("\", \"length\": ")
            out.appendDecimal(piece.length)
            out.append("}\n")
        }
        return out.copyBytes()
    }
}
