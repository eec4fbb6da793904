// MARK: Internal API

import MessageFilter

/// CSV (RFC 4180: quoted fields may hold separators, doubled quotes and newlines) and TSV (no quoting).
/// The header row, if any, was taken off by the reader; records start at the chunk's first byte.
enum _DelimitedParser {
    /// Finds the end of the record starting at `start`: the index of its terminating `\n` (or `end`), and
    /// whether it ended inside an open quote.
    @inline(__always)
    static func recordEnd(_ input: UnsafeRawBufferPointer, _ start: Int, _ end: Int, quoting: Bool) -> (Int, Bool) {
        if !quoting { return (_find(0x0A, in: input, from: start, to: end) ?? end, false) }
        var i = start
        var inQuotes = false
        while i < end {
            let c = input[i]
            if c == UInt8(ascii: "\"") {
                inQuotes.toggle()
            } else if c == 0x0A && !inQuotes {
                return (i, false)
            }
            i += 1
        }
        return (end, inQuotes)
    }

    /// Index just after the last complete record in `input` (nil when there is none). At the end of the
    /// input everything is complete.
    static func lastBoundary(_ input: UnsafeRawBufferPointer, quoting: Bool) -> Int? {
        if !quoting {
            return _findLast(0x0A, in: input, from: 0, to: input.count).map { $0 + 1 }
        }
        var i = 0
        var inQuotes = false
        var last: Int?
        while i < input.count {
            let c = input[i]
            if c == UInt8(ascii: "\"") {
                inQuotes.toggle()
            } else if c == 0x0A && !inQuotes {
                last = i + 1
            }
            i += 1
        }
        return last
    }

    static func parse(_ chunk: _Chunk, _ file: _FileState, _ worker: _Worker, _ out: inout _Parsed) {
        let input = UnsafeRawBufferPointer(start: chunk.input.storage, count: chunk.recordBytes)
        let quoting = file.format == .csv
        let end = chunk.recordBytes
        var start = 0
        var line = 0
        while start < end {
            let (terminator, openQuote) = recordEnd(input, start, end, quoting: quoting)
            let next = terminator < end ? terminator + 1 : end
            var contentEnd = terminator
            if contentEnd > start && input[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            let recordLine = line
            line += _countNewlines(input, from: start, to: next)
            defer { start = next }
            if contentEnd == start {
                chunk.counts.blank += 1
                continue
            }
            chunk.counts.records += 1
            if openQuote {
                worker.reject(chunk, start: start, end: contentEnd, line: recordLine, reason: "unterminated quoted field")
                continue
            }
            // Split into fields.
            out.csvFields.removeAll(keepingCapacity: true)
            var f = start
            var malformed: String?
            while true {
                if quoting && f < contentEnd && input[f] == UInt8(ascii: "\"") {
                    var i = f + 1
                    var closed = false
                    while i < contentEnd {
                        if input[i] == UInt8(ascii: "\"") {
                            if i + 1 < contentEnd && input[i + 1] == UInt8(ascii: "\"") {
                                i += 2
                                continue
                            }
                            closed = true
                            break
                        }
                        i += 1
                    }
                    if !closed {
                        malformed = "unterminated quoted field"
                        break
                    }
                    out.csvFields.append((f + 1, i, true))
                    i += 1
                    if i == contentEnd { break }
                    if input[i] != file.separator {
                        malformed = "a quoted field must be followed by a separator (byte \(i - start + 1))"
                        break
                    }
                    f = i + 1
                } else {
                    let sep = _find(file.separator, in: input, from: f, to: contentEnd) ?? contentEnd
                    out.csvFields.append((f, sep, false))
                    if sep == contentEnd { break }
                    f = sep + 1
                }
            }
            if let malformed {
                worker.reject(chunk, start: start, end: contentEnd, line: recordLine, reason: malformed)
                continue
            }
            let columns = file.columns
            guard columns.body < out.csvFields.count else {
                worker.reject(
                    chunk, start: start, end: contentEnd, line: recordLine,
                    reason: "the row has \(out.csvFields.count) fields; the body is column \(columns.body + 1)")
                continue
            }
            let (bodyStart, bodyEnd) = fieldSpan(out.csvFields[columns.body], input, chunk, worker)
            guard _isValidUTF8(UnsafeRawBufferPointer(rebasing: chunk.input.bytes[bodyStart..<bodyEnd])) else {
                worker.reject(chunk, start: start, end: contentEnd, line: recordLine, reason: "invalid UTF-8 in the body")
                continue
            }
            var record = _Record()
            record.rawStart = start
            record.contentEnd = contentEnd
            record.rawEnd = next
            record.insertAt = contentEnd
            record.relativeLine = recordLine
            if columns.id >= 0 && columns.id < out.csvFields.count {
                (record.idStart, record.idEnd) = fieldSpan(out.csvFields[columns.id], input, chunk, worker)
            }
            var senderStart = 0
            var senderCount = -1
            if columns.sender >= 0 && columns.sender < out.csvFields.count {
                let (s, e) = fieldSpan(out.csvFields[columns.sender], input, chunk, worker)
                if e > s {
                    senderStart = s
                    senderCount = e - s
                }
            }
            out.records.append(record)
            out.spans.append(
                MessageSpan(senderStart: senderStart, senderCount: senderCount, bodyStart: bodyStart, bodyCount: bodyEnd - bodyStart))
        }
        chunk.counts.newlines = line
    }

    /// A field's text: in place, or (quoted with doubled quotes) decoded into the scratch area.
    @inline(__always)
    static func fieldSpan(_ field: (Int, Int, Bool), _ input: UnsafeRawBufferPointer, _ chunk: _Chunk, _ worker: _Worker) -> (Int, Int) {
        let (s, e, quoted) = field
        guard quoted, _find(UInt8(ascii: "\""), in: input, from: s, to: e) != nil else { return (s, e) }
        return worker.appendScratch(chunk) { out in
            var i = s
            while i < e {
                out.append(input[i])
                i += input[i] == UInt8(ascii: "\"") ? 2 : 1
            }
        }
    }

    /// Splits one header row into field names.
    static func headerNames(_ row: UnsafeRawBufferPointer, separator: UInt8, quoting: Bool) -> [String] {
        var names: [String] = []
        var i = 0
        var current: [UInt8] = []
        var inQuotes = false
        while i < row.count {
            let c = row[i]
            if quoting && c == UInt8(ascii: "\"") {
                if inQuotes && i + 1 < row.count && row[i + 1] == UInt8(ascii: "\"") {
                    current.append(c)
                    i += 2
                    continue
                }
                inQuotes.toggle()
            } else if c == separator && !inQuotes {
                names.append(String(decoding: current, as: UTF8.self))
                current = []
            } else if c != 0x0D || i != row.count - 1 {
                current.append(c)
            }
            i += 1
        }
        names.append(String(decoding: current, as: UTF8.self))
        return names
    }
}
