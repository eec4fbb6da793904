// MARK: Internal API

import MessageFilter

/// CSV and TSV (syntax in `_DelimitedSyntax`). Columns are found by the header row's names, or by 1-based
/// numbers without one. Every row must have as many fields as the header (or, without one, as the first
/// row): a ragged row is rejected, never shifted, because which field is missing cannot be told.
///
/// A row is written back as it came with the label columns after it; label columns the header already has
/// (`filter_action`…, from an earlier run) are filled in place instead of being added again.
final class _DelimitedDriver: _FormatDriver {
    let format: InputFormat
    let layout: _SlotLayout
    let separator: UInt8
    let quoting: Bool
    /// Column of id, sender, body (-1: none), of the timestamp and extras (layout order), and the number
    /// of fields every row must have (-1: not known, an empty file).
    let id: Int, sender: Int, body: Int
    let slotColumns: [Int]
    let width: Int
    /// The header row as it came (without its terminator), and its terminator (empty without a header).
    let headerRow: [UInt8]
    let headerTerminator: [UInt8]
    /// Where the label columns already are (action, subAction, folder, rule; -1: to be added).
    let labelColumns: [Int]
    /// Each column's name as records converted to another format carry it: the header's, or without one
    /// the column's number (the id, sender, body and timestamp columns that options name by number under
    /// their usual names, `id`, `sender`, `body`, `ts`).
    let columnNames: [[UInt8]]
    let widthSource: String
    let options: _ReadOptions

    struct Columns {
        var id = -1, sender = -1, body = -1
        var slots: [Int] = []
        var labels = [-1, -1, -1, -1]
        var width = -1
    }

    init(format: InputFormat, options: _ReadOptions, columns: Columns, headerRow: [UInt8], headerTerminator: [UInt8]) {
        self.format = format
        quoting = format == .csv
        separator = quoting ? options.record.delimiter : 0x09
        layout = _SlotLayout(options, own: options.wantsExistingLabels ? 3 : 0)
        id = columns.id
        sender = columns.sender
        body = columns.body
        slotColumns = columns.slots
        width = columns.width
        labelColumns = columns.labels
        self.headerRow = headerRow
        self.headerTerminator = headerTerminator
        columnNames = Self.names(headerRow, separator: separator, quoting: quoting, columns: columns, options: options)
        widthSource = headerRow.isEmpty && options.hasHeader == false ? "the first row" : "the header"
        self.options = options
    }

    func makeFramer() -> _Framer { quoting ? _CSVFramer(separator: separator) : _LineFramer() }

    func preamble(_ emitter: _Emitter) -> [UInt8] {
        guard !headerTerminator.isEmpty || !headerRow.isEmpty else { return [] }
        var out = headerRow
        for (k, name) in emitter.labelColumnNames.enumerated() where labelColumns[k] < 0 {
            out.append(separator)
            out += Array(name.utf8)
        }
        return out + (headerTerminator.isEmpty ? [0x0A] : headerTerminator)
    }

    func parseRecords(_ chunk: _Chunk, _ input: UnsafeRawBufferPointer, into parsed: inout _Parsed) {
        let end = chunk.recordBytes
        // A NUL byte is what neither CSV nor TSV can hold (``_FormatLimits``): rows with one are rejected. One
        // search per chunk; rows are searched only when it finds one.
        let hasNUL = _find(0, in: input, from: 0, to: end) != nil
        var start = 0
        var line = 0
        while start < end {
            let row = _DelimitedSyntax.splitRow(input, start, end, separator: separator, quoting: quoting, &parsed.csvFields)
            let recordLine = line
            line += _countNewlines(input, from: start, to: row.next)
            defer { start = row.next }
            if row.contentEnd == start {
                chunk.counts.blank += 1
                continue
            }
            chunk.counts.records += 1
            if chunk.rejectOverlong(start, row.next, line: recordLine, options) { continue }
            if hasNUL, _find(0, in: input, from: start, to: row.contentEnd) != nil {
                chunk.reject(
                    start: start, end: row.contentEnd, line: recordLine,
                    reason: "a NUL byte, which \(quoting ? "CSV" : "TSV") cannot hold", category: "NUL byte")
                continue
            }
            if let problem = row.problem {
                chunk.reject(start: start, end: row.contentEnd, line: recordLine, reason: problem, category: problem.hasPrefix("unterminated") ? "unterminated quoted field" : "malformed row")
                continue
            }
            if width >= 0 && parsed.csvFields.count != width {
                chunk.reject(
                    start: start, end: row.contentEnd, line: recordLine,
                    reason: "the row has \(parsed.csvFields.count) fields; \(widthSource) has \(width)", category: "ragged row")
                continue
            }
            addRecord(chunk, input, start, row, recordLine, &parsed)
        }
    }

    private func addRecord(
        _ chunk: _Chunk, _ input: UnsafeRawBufferPointer, _ start: Int, _ row: _DelimitedSyntax.Row, _ line: Int,
        _ parsed: inout _Parsed
    ) {
        guard body >= 0, body < parsed.csvFields.count else {
            chunk.reject(start: start, end: row.contentEnd, line: line, reason: "the row has no column \(body + 1) for the body", category: "no body")
            return
        }
        let (bodyStart, bodyEnd) = _DelimitedSyntax.fieldText(parsed.csvFields[body], input, chunk)
        guard chunk.input.withUnsafeBytes(bodyStart..<bodyEnd, _isValidUTF8) else {
            chunk.reject(start: start, end: row.contentEnd, line: line, reason: "invalid UTF-8 in the body", category: "invalid UTF-8")
            return
        }
        var record = _Record()
        record.rawStart = start
        record.contentEnd = row.contentEnd
        record.rawEnd = row.next
        record.insertAt = row.contentEnd
        record.relativeLine = line
        if id >= 0 && id < parsed.csvFields.count {
            (record.idStart, record.idEnd) = _DelimitedSyntax.fieldText(parsed.csvFields[id], input, chunk)
        }
        var senderSpan = (0, -1)
        if sender >= 0 && sender < parsed.csvFields.count {
            let (s, e) = _DelimitedSyntax.fieldText(parsed.csvFields[sender], input, chunk)
            if e > s { senderSpan = (s, e - s) }
        }
        parsed.append(record, MessageSpan(senderStart: senderSpan.0, senderCount: senderSpan.1, bodyStart: bodyStart, bodyCount: bodyEnd - bodyStart))
        for (slot, column) in slotColumns.enumerated() where column >= 0 && column < parsed.csvFields.count {
            let (s, e) = _DelimitedSyntax.fieldText(parsed.csvFields[column], input, chunk)
            parsed.setField(slot, s, e)
        }
    }

    func emitLabelled(_ chunk: _Chunk, _ parsed: _Parsed, _ emitter: _Emitter, into out: _ByteBuffer) {
        chunk.input.withUnsafeBytes { emitRecords(chunk, $0, parsed, emitter, into: out) }
    }

    /// Writes the labelled records of `input` (the chunk's bytes) to `out`.
    private func emitRecords(_ chunk: _Chunk, _ input: UnsafeRawBufferPointer, _ parsed: _Parsed, _ emitter: _Emitter, into out: _ByteBuffer) {
        let inPlace = labelColumns.contains { $0 >= 0 }
        var fields: [(Int, Int, Bool)] = []
        for k in 0..<parsed.records.count {
            let r = parsed.records[k]
            let v = parsed.verdicts[k]
            if inPlace {
                writeReplacing(r, v, input, emitter, &fields, out)
            } else {
                out.append(input, r.rawStart..<r.contentEnd)
                emitter.appendColumns(v, separator: separator, out)
            }
            out.append(input, r.contentEnd..<r.rawEnd)
            if r.rawEnd == r.contentEnd { out.append(UInt8(ascii: "\n")) }
        }
    }

    /// A row whose header already has label columns: those fields get the new labels, the others are copied.
    private func writeReplacing(
        _ r: _Record, _ v: Verdict, _ input: UnsafeRawBufferPointer, _ emitter: _Emitter, _ fields: inout [(Int, Int, Bool)],
        _ out: _ByteBuffer
    ) {
        _ = _DelimitedSyntax.splitRow(input, r.rawStart, r.contentEnd, separator: separator, quoting: quoting, &fields)
        for (i, field) in fields.enumerated() {
            if i > 0 { out.append(separator) }
            if let label = labelColumns.firstIndex(of: i) {
                emitter.appendCell(label, v, separator: separator, out)
            } else {
                // The raw field, quotes included.
                let (s, e, quoted) = field
                out.append(input, (quoted ? s - 1 : s)..<(quoted ? e + 1 : e))
            }
        }
        for label in 0..<4 where labelColumns[label] < 0 {
            out.append(separator)
            emitter.appendCell(label, v, separator: separator, out)
        }
    }

    func existingLabels(_ chunk: _Chunk, _ parsed: _Parsed, _ k: Int) -> _ExistingLabels? {
        guard layout.ownCount == 3, labelColumns[2] >= 0 else { return nil }
        return _ExistingLabels(decodedFields: chunk, parsed, k, from: layout.ownBase)
    }
}

extension _DelimitedDriver {
    /// ``columnNames``: the header row's names, or without a header the columns' numbers (and the usual names
    /// of the columns that options name).
    static func names(_ headerRow: [UInt8], separator: UInt8, quoting: Bool, columns: Columns, options: _ReadOptions) -> [[UInt8]] {
        if !headerRow.isEmpty {
            return headerRow.withUnsafeBytes { _DelimitedSyntax.names($0, separator: separator, quoting: quoting) }.map { Array($0.utf8) }
        }
        guard columns.width > 0 else { return [] }
        var names = (1...columns.width).map { Array(String($0).utf8) }
        let timestamp = Int(options.fields.timestamp).map { $0 - 1 } ?? -1
        for (column, name) in [(columns.id, "id"), (columns.sender, "sender"), (columns.body, "body"), (timestamp, "ts")]
        where column >= 0 && column < names.count {
            names[column] = Array(name.utf8)
        }
        return names
    }

    /// The separator a one-column CSV header seems to use instead (`;`, `|`, `:`, or a tab), when one of them
    /// splits it into names among which the body's is: a semicolon-separated export read with commas.
    static func otherSeparator(_ names: [String], quoting: Bool, _ options: _ReadOptions) -> String? {
        guard quoting, names.count == 1, let only = names.first else { return nil }
        for candidate in [";", "|", ":", "\t"] where candidate != String(UnicodeScalar(options.record.delimiter)) {
            if only.components(separatedBy: candidate).contains(options.fields.body) { return candidate == "\t" ? "\\t" : candidate }
        }
        return nil
    }

    /// Reads the header (or, without one, the first row's width) and makes the driver; `.needMore` until the
    /// first row is whole.
    static func open(format: InputFormat, _ bytes: UnsafeRawBufferPointer, eof: Bool, options: _ReadOptions, name: String) -> _Opening {
        let quoting = format == .csv
        let separator: UInt8 = quoting ? options.record.delimiter : 0x09
        var state = _CSVState.fieldStart
        var openQuote = 0
        var firstEnd: Int?
        if quoting {
            var scanned = 0
            while firstEnd == nil && scanned < bytes.count {
                let next = min(bytes.count, scanned + 4096)
                _DelimitedSyntax.scanCSV(
                    bytes, from: scanned, to: next, separator: separator, state: &state, openQuote: &openQuote, lastEnd: &firstEnd,
                    firstRowOnly: true)
                scanned = next
            }
        } else {
            firstEnd = _find(0x0A, in: bytes, from: 0, to: bytes.count).map { $0 + 1 }
        }
        if firstEnd == nil && !eof { return .needMore }
        let rowEnd = firstEnd ?? bytes.count
        var contentEnd = rowEnd
        if contentEnd > 0 && bytes[contentEnd - 1] == 0x0A { contentEnd -= 1 }
        if contentEnd > 0 && bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
        let row = UnsafeRawBufferPointer(rebasing: bytes[0..<contentEnd])
        let names = _DelimitedSyntax.names(row, separator: separator, quoting: quoting)
        var columns = Columns()
        let header = options.hasHeader ? names : nil
        func column(_ name: String) -> Int {
            if let header, let i = header.firstIndex(of: name) { return i }
            if let n = Int(name), n >= 1 { return n - 1 }
            return -1
        }
        if bytes.isEmpty {
            // An empty file: no header, no rows.
            return .ready(_DelimitedDriver(format: format, options: options, columns: columns, headerRow: [], headerTerminator: []), headerBytes: 0)
        }
        columns.width = names.count
        columns.body = column(options.fields.body)
        guard columns.body >= 0 else {
            let known = header.map { " (columns: \(_namesFound($0)))" } ?? ""
            return .failed("\(name): no column \"\(EchoedText.escaped(options.fields.body))\" for the body\(known); "
                + (otherSeparator(names, quoting: quoting, options).map { "the header looks \($0)-separated: give --delimiter '\($0)'" }
                    ?? "name it with --body-field"))
        }
        // Every field option the user gave (and a command's required fields) must name a column: a header
        // name, or a column number within the first row.
        for r in options.requiredFields().dropFirst() {
            let c = column(r.name)
            guard c < 0 || c >= names.count else { continue }
            let known = header.map { "columns: \(_namesFound($0))" } ?? "the first row has \(names.count) columns"
            return .failed("\(name): no column \"\(EchoedText.escaped(r.name))\" for \(r.option) (\(known))")
        }
        columns.id = column(options.fields.id)
        columns.sender = column(options.fields.sender)
        if options.wantsTimestamp { columns.slots.append(column(options.fields.timestamp)) }
        for extra in options.fields.extra { columns.slots.append(column(extra)) }
        if let header {
            columns.labels = ["action", "subAction", "folder", "rule"].map { header.firstIndex(of: "\(options.filterKey)_\($0)") ?? -1 }
        }
        if options.wantsExistingLabels { columns.slots += columns.labels[0..<3] }
        guard options.hasHeader else {
            return .ready(_DelimitedDriver(format: format, options: options, columns: columns, headerRow: [], headerTerminator: []), headerBytes: 0)
        }
        let driver = _DelimitedDriver(
            format: format, options: options, columns: columns, headerRow: Array(row),
            headerTerminator: Array(bytes[contentEnd..<rowEnd]))
        return .ready(driver, headerBytes: rowEnd)
    }
}
