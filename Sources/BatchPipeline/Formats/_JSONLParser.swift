// MARK: Internal API

import MessageFilter

/// JSON Lines: one object per line; `id`, `sender` and `body` pulled out by `_JSONScanner`.
enum _JSONLParser {
    static func parse(_ chunk: _Chunk, _ file: _FileState, _ worker: _Worker, _ out: inout _Parsed) {
        let input = UnsafeRawBufferPointer(start: chunk.input.storage, count: chunk.recordBytes)
        let keys = UnsafeBufferPointer(file.keyBuffers)
        let fields = worker.fields
        var lineStart = 0
        var line = 0
        let end = chunk.recordBytes
        while lineStart < end {
            let newline = _find(0x0A, in: input, from: lineStart, to: end)
            let lineEnd = newline ?? end
            let next = newline.map { $0 + 1 } ?? end
            defer {
                lineStart = next
                line += 1
            }
            let text = UnsafeRawBufferPointer(rebasing: input[lineStart..<lineEnd])
            if isBlank(text) {
                chunk.counts.blank += 1
                continue
            }
            chunk.counts.records += 1
            if let error = _JSONScanner.scan(text, keys: keys, fields: fields) {
                let reason: String
                if error.reason.description == "invalid UTF-8" {
                    reason = "invalid UTF-8 at byte \(error.offset + 1) of the line"
                } else {
                    reason = "invalid JSON: \(error.reason) at byte \(error.offset + 1)"
                }
                worker.reject(chunk, start: lineStart, end: lineEnd, line: line, reason: reason)
                continue
            }
            let body = fields[_FileState.bodySlot]
            guard body.kind == .string else {
                let key = String(decoding: file.keys[_FileState.bodySlot], as: UTF8.self)
                let reason: String
                switch body.kind {
                case .missing: reason = "no \"\(key)\" field"
                case .null: reason = "\"\(key)\" is null"
                default: reason = "\"\(key)\" is not a string"
                }
                worker.reject(chunk, start: lineStart, end: lineEnd, line: line, reason: reason)
                continue
            }
            var record = _Record()
            record.rawStart = lineStart
            record.contentEnd = lineEnd
            record.rawEnd = next
            record.relativeLine = line
            // The closing brace: the last non-space byte (the scanner guarantees it is `}`).
            var close = lineEnd - 1
            while _JSONScanner.isSpace(input[close]) { close -= 1 }
            record.insertAt = close
            var before = close - 1
            while _JSONScanner.isSpace(input[before]) { before -= 1 }
            record.emptyObject = input[before] == UInt8(ascii: "{")
            let id = fields[_FileState.idSlot]
            if id.kind == .string || id.kind == .other {
                record.idStart = lineStart + id.rawStart
                record.idEnd = lineStart + id.rawEnd
                record.idIsJSON = true
            }
            let (bodyStart, bodyEnd) = stringSpan(body, lineStart, input, chunk, worker)
            var senderStart = 0
            var senderCount = -1
            let sender = fields[_FileState.senderSlot]
            switch sender.kind {
            case .string:
                let (s, e) = stringSpan(sender, lineStart, input, chunk, worker)
                senderStart = s
                senderCount = e - s
            case .other:
                // A number (or anything else) as sender: its raw text.
                senderStart = lineStart + sender.rawStart
                senderCount = sender.rawEnd - sender.rawStart
            default:
                break
            }
            out.records.append(record)
            out.spans.append(
                MessageSpan(senderStart: senderStart, senderCount: senderCount, bodyStart: bodyStart, bodyCount: bodyEnd - bodyStart))
        }
        chunk.counts.newlines = line
    }

    /// The content of a string field in the chunk buffer: in place when it has no escapes, else decoded
    /// into the chunk's scratch area.
    @inline(__always)
    static func stringSpan(
        _ field: JSONField, _ lineStart: Int, _ input: UnsafeRawBufferPointer, _ chunk: _Chunk, _ worker: _Worker
    ) -> (Int, Int) {
        let start = lineStart + field.contentStart
        let end = lineStart + field.contentEnd
        guard field.escaped else { return (start, end) }
        return worker.appendScratch(chunk) { out in
            _JSONUnescape.forEachByte(UnsafeRawBufferPointer(rebasing: input[start..<end])) { out.append($0) }
        }
    }

    @inline(__always)
    static func isBlank(_ text: UnsafeRawBufferPointer) -> Bool {
        for byte in text where !_JSONScanner.isSpace(byte) { return false }
        return true
    }
}
