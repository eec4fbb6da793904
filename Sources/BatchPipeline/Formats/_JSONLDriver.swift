// MARK: Internal API

import Foundation
import MessageFilter

/// JSON Lines: one object per line, validated by `_JSONScanner`, which also finds the wanted keys.
///
/// A record is written back as it came, byte for byte, with the labels object added before its closing
/// brace; a labels object it already had (the same key) is left out rather than duplicated, and the bytes
/// after the brace (spaces, CR LF) are kept. A trailing comma (`{"a": 1,}`, which Foundation accepts) is
/// rejected: the output must parse with any JSON reader.
final class _JSONLDriver: _FormatDriver {
    let format = InputFormat.jsonl
    let layout: _SlotLayout
    /// Keys in scanner order: id, sender, body, the labels key, then timestamp (when wanted) and extras.
    let keys: _KeyTable
    let bodyName: String
    let options: _ReadOptions
    /// For each slot (timestamp, extras): the key whose value fills it, the first key of the same name
    /// (`--truth-field sender` reads the sender's value; the scanner fills one field per name).
    let slotKeys: [Int]

    static let idKey = 0, senderKey = 1, bodyKey = 2, labelsKey = 3, firstExtraKey = 4

    init(options: _ReadOptions) {
        layout = _SlotLayout(options, own: options.wantsExistingLabels ? 1 : 0)
        var names = [options.fields.id, options.fields.sender, options.fields.body, options.filterKey]
        if options.wantsTimestamp { names.append(options.fields.timestamp) }
        names += options.fields.extra
        keys = _KeyTable(names)
        slotKeys = (0..<(names.count - Self.firstExtraKey)).map { names.firstIndex(of: names[Self.firstExtraKey + $0])! }
        bodyName = options.fields.body
        self.options = options
    }

    func makeFramer() -> _Framer { _LineFramer() }

    /// Why the file cannot be read as asked, from its first whole lines (at most 256), or nil: when every
    /// JSON object among them lacks a required field (the body, or a field option the user gave), the option
    /// names nothing in this file (as a missing CSV column is an error rather than a file of rejects). A key
    /// present with `null` is found. Runs once per file, with Foundation's parser, on the bytes the reader
    /// already holds.
    static func missingFields(_ bytes: UnsafeRawBufferPointer, options: _ReadOptions) -> String? {
        let required = options.requiredFields()
        var missing = Array(repeating: true, count: required.count)
        var objects = 0
        var found: [String] = []
        var seen = Set<String>()
        var start = 0
        var lines = 0
        while start < bytes.count, lines < 256, let newline = _find(0x0A, in: bytes, from: start, to: bytes.count) {
            let line = Data(bytes[start..<newline])
            start = newline + 1
            lines += 1
            guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else { continue }
            objects += 1
            for (k, r) in required.enumerated() where missing[k] && object[r.name] != nil { missing[k] = false }
            if !missing.contains(true) { return nil }
            for key in object.keys.sorted() where found.count < 20 && seen.insert(key).inserted { found.append(key) }
        }
        guard objects > 0, let k = missing.firstIndex(of: true) else { return nil }
        return _ReadOptions.missingMessage(required[k], records: objects, found: found)
    }

    func parseRecords(_ chunk: _Chunk, _ input: UnsafeRawBufferPointer, into parsed: inout _Parsed) {
        let end = chunk.recordBytes
        var lineStart = 0
        var line = 0
        while lineStart < end {
            let newline = _find(0x0A, in: input, from: lineStart, to: end)
            let lineEnd = newline ?? end
            let next = newline.map { $0 + 1 } ?? end
            let text = UnsafeRawBufferPointer(rebasing: input[lineStart..<lineEnd])
            if Self.isBlank(text) {
                chunk.counts.blank += 1
            } else {
                chunk.counts.records += 1
                parseLine(chunk, input, lineStart, lineEnd, next, line, &parsed)
            }
            lineStart = next
            line += 1
        }
    }

    private func parseLine(
        _ chunk: _Chunk, _ input: UnsafeRawBufferPointer, _ lineStart: Int, _ lineEnd: Int, _ next: Int, _ line: Int,
        _ parsed: inout _Parsed
    ) {
        if chunk.rejectOverlong(lineStart, next, line: line, options) { return }
        let text = UnsafeRawBufferPointer(rebasing: input[lineStart..<lineEnd])
        let fields = UnsafeMutableBufferPointer(rebasing: parsed.jsonFields[0..<keys.count])
        if let error = _JSONScanner.scan(text, keys: keys.all, prefixes: keys.prefixes, fields: fields, allowTrailingCommas: false) {
            let invalidUTF8 = error.reason.description == "invalid UTF-8"
            chunk.reject(
                start: lineStart, end: lineEnd, line: line,
                reason: invalidUTF8 ? "invalid UTF-8 at byte \(error.offset + 1) of the line" : "invalid JSON: \(error.reason) at byte \(error.offset + 1)",
                category: invalidUTF8 ? "invalid UTF-8" : "invalid JSON")
            return
        }
        let body = fields[Self.bodyKey]
        guard body.kind == .string else {
            let reason = body.kind == .missing ? "no \"\(bodyName)\" field" : body.kind == .null ? "\"\(bodyName)\" is null" : "\"\(bodyName)\" is not a string"
            chunk.reject(start: lineStart, end: lineEnd, line: line, reason: reason, category: "no body")
            return
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
        locateLabels(fields[Self.labelsKey], lineStart, input, &record)
        let id = fields[Self.idKey]
        if id.kind == .string || id.kind == .other {
            record.idStart = lineStart + id.rawStart
            record.idEnd = lineStart + id.rawEnd
            record.idIsJSON = true
        }
        record.bodyRawStart = lineStart + body.rawStart
        record.bodyRawEnd = lineStart + body.rawEnd
        let (bodyStart, bodyEnd) = Self.text(body, lineStart, input, chunk)
        var sender = (0, -1)
        let s = fields[Self.senderKey]
        if s.kind == .string || s.kind == .other {
            let (a, b) = Self.text(s, lineStart, input, chunk)
            sender = (a, b - a)
        }
        parsed.append(record, MessageSpan(senderStart: sender.0, senderCount: sender.1, bodyStart: bodyStart, bodyCount: bodyEnd - bodyStart))
        fillSlots(fields, lineStart, input, chunk, &parsed)
    }

    /// The timestamp, extras and (for `export`) the raw labels object of the record just appended.
    private func fillSlots(
        _ fields: UnsafeMutableBufferPointer<JSONField>, _ lineStart: Int, _ input: UnsafeRawBufferPointer, _ chunk: _Chunk,
        _ parsed: inout _Parsed
    ) {
        guard layout.count > 0 else { return }
        var slot = 0
        while slot < layout.ownBase {
            let f = fields[slotKeys[slot]]
            if f.kind == .string || f.kind == .other {
                let (a, b) = Self.text(f, lineStart, input, chunk)
                parsed.setField(slot, a, b)
            }
            slot += 1
        }
        if layout.ownCount > 0 {
            let f = fields[Self.labelsKey]
            if f.kind == .other { parsed.setField(layout.ownBase, lineStart + f.rawStart, lineStart + f.rawEnd) }
        }
    }

    /// The member holding labels the record already carries (same key), to be left out when it is written
    /// with its new labels: with the comma before it, or (first member) the comma after it.
    private func locateLabels(_ f: JSONField, _ lineStart: Int, _ input: UnsafeRawBufferPointer, _ record: inout _Record) {
        guard f.kind != .missing else {
            var before = record.insertAt - 1
            while _JSONScanner.isSpace(input[before]) { before -= 1 }
            record.emptyObject = input[before] == UInt8(ascii: "{")
            return
        }
        let valueStart = lineStart + f.rawStart
        let valueEnd = lineStart + f.rawEnd
        // Back over `"key" :` (the key holds no quote: labels keys are plain names).
        var i = valueStart - 1
        while _JSONScanner.isSpace(input[i]) { i -= 1 }
        i -= 1  // the colon
        while _JSONScanner.isSpace(input[i]) { i -= 1 }
        i -= 1  // the key's closing quote
        while input[i] != UInt8(ascii: "\"") { i -= 1 }
        let keyStart = i
        i -= 1
        while _JSONScanner.isSpace(input[i]) { i -= 1 }
        if input[i] == UInt8(ascii: ",") {
            record.dropStart = i
            record.dropEnd = valueEnd
            return
        }
        // The first member: drop it with the comma after it, or it was the only one.
        var j = valueEnd
        while _JSONScanner.isSpace(input[j]) { j += 1 }
        if input[j] == UInt8(ascii: ",") {
            j += 1
            while _JSONScanner.isSpace(input[j]) { j += 1 }
            record.dropStart = keyStart
            record.dropEnd = j
        } else {
            record.dropStart = keyStart
            record.dropEnd = valueEnd
            record.emptyObject = true
        }
    }

    /// A field's text in the chunk buffer: a string's content (decoded into scratch when it has escapes), or
    /// the raw text of any other value.
    @inline(__always)
    static func text(_ f: JSONField, _ lineStart: Int, _ input: UnsafeRawBufferPointer, _ chunk: _Chunk) -> (Int, Int) {
        guard f.kind == .string else { return (lineStart + f.rawStart, lineStart + f.rawEnd) }
        let start = lineStart + f.contentStart
        let end = lineStart + f.contentEnd
        guard f.escaped else { return (start, end) }
        return chunk.appendScratch { out in
            _JSONUnescape.forEachByte(UnsafeRawBufferPointer(rebasing: input[start..<end])) { out.append($0) }
        }
    }

    @inline(__always)
    static func isBlank(_ text: UnsafeRawBufferPointer) -> Bool {
        for byte in text where !_JSONScanner.isSpace(byte) { return false }
        return true
    }

    func emitLabelled(_ chunk: _Chunk, _ parsed: _Parsed, _ emitter: _Emitter, into out: _ByteBuffer) {
        chunk.input.withUnsafeBytes { emitRecords(chunk, $0, parsed, emitter, into: out) }
    }

    /// Writes the labelled records of `input` (the chunk's bytes) to `out`.
    private func emitRecords(_ chunk: _Chunk, _ input: UnsafeRawBufferPointer, _ parsed: _Parsed, _ emitter: _Emitter, into out: _ByteBuffer) {
        for k in 0..<parsed.records.count {
            let r = parsed.records[k]
            if r.dropEnd > r.dropStart {
                out.append(input, r.rawStart..<r.dropStart)
                out.append(input, r.dropEnd..<r.insertAt)
            } else {
                out.append(input, r.rawStart..<r.insertAt)
            }
            out.append(r.emptyObject ? "" : ", ")
            emitter.appendKeyedObject(parsed.verdicts[k], out)
            out.append(UInt8(ascii: "}"))
            // What followed the brace (spaces, CR LF), and a newline when the input's last line had none.
            out.append(input, (r.insertAt + 1)..<r.rawEnd)
            if r.rawEnd == r.contentEnd { out.append(UInt8(ascii: "\n")) }
        }
    }

    func existingLabels(_ chunk: _Chunk, _ parsed: _Parsed, _ k: Int) -> _ExistingLabels? {
        guard layout.ownCount > 0 else { return nil }
        let f = parsed.field(k, layout.ownBase)
        guard f.isPresent else { return nil }
        return chunk.input.withUnsafeBytes(f.start..<f.end) { raw in
            let table = _KeyTable(["action", "subAction", "folder"])
            let fields = UnsafeMutableBufferPointer<JSONField>.allocate(capacity: 3)
            defer { fields.deallocate() }
            fields.initialize(repeating: JSONField())
            guard _JSONScanner.scan(raw, keys: table.all, fields: fields) == nil else { return nil }
            func text(_ i: Int) -> String? {
                let v = fields[i]
                guard v.kind == .string else { return nil }
                var out: [UInt8] = []
                let content = UnsafeRawBufferPointer(rebasing: raw[v.contentStart..<v.contentEnd])
                if v.escaped { _JSONUnescape.append(content, to: &out) } else { out.append(contentsOf: content) }
                return String(decoding: out, as: UTF8.self)
            }
            return _ExistingLabels(action: text(0), subAction: text(1), folder: text(2))
        }
    }
}
