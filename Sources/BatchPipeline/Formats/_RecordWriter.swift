// MARK: Internal API
//
// Records written in a format other than their own (`classify --output-format`). A converted record keeps
// every field it had (`_RecordFields`: JSON members, CSV/TSV columns, XML attributes, in the record's order;
// Android XML's `address`/`date` and the other formats' `sender`/`ts` renamed to the target's), and gets its
// labels as `classify` adds them in that format, so the converted file reads back to the same records (and
// `evaluate` finds their `label`). Values are escaped as the format needs: JSON strings; CSV quoted per
// RFC 4180; XML attributes with `&amp;`-style entities and character references for tab, line feed and
// carriage return (which an XML parser would otherwise turn into spaces). A JSON value that is not a string
// is written as its JSON text in CSV, TSV and XML (and read back as that text); JSON `null` is an empty cell
// and no attribute.
//
// CSV and TSV need their columns before the first record: they are the first input's (its header, or the
// fields of the records among its first bytes, in the order they first appear). A record with a field that is
// not a column is refused, like a character the format cannot hold; a record without one of them gets an
// empty cell.
//
// What a format cannot hold is refused, never changed (`_FormatLimits`): a record with such a character in
// any of its fields is rejected with the reason, as the reader rejects one that comes in with it.
//
//   JSON Lines   any text (control characters as \uXXXX)
//   CSV          no NUL (a file with NUL bytes is taken for binary data)
//   TSV          no NUL, tab, line feed or carriage return (TSV has no quoting)
//   XML 1.0      no C0 control but tab, line feed and carriage return, no U+FFFE or U+FFFF, raw or as
//                character references (`&#0;`, `&#11;` are not well-formed XML 1.0); names that are XML names

import MessageFilter

protocol _RecordWriter: AnyObject, Sendable {
    /// What the output starts with (a header row, an XML prolog) and ends with.
    func preamble() -> [UInt8]
    func epilogue() -> [UInt8]
    /// Why `record` cannot be written in this format (a character the format cannot hold, a field that is
    /// not a column), nil when it can.
    func refusal(_ record: _RecordFields) -> String?
    func write(_ record: _RecordFields, _ verdict: Verdict, _ out: _ByteBuffer)
}

extension _RecordFields {
    /// The first field whose value `problem` finds something in, and what.
    func firstProblem(_ problem: (UnsafeRawBufferPointer) -> String?) -> String? {
        for k in fields.indices where fields[k].kind != .null {
            if let found = withField(k, { _, value in problem(value) }) {
                return "the field \"\(TerminalSafe.short(name(k)))\" holds \(found)"
            }
        }
        return nil
    }

    /// The field that has the name of a label the writer adds (`filter`, `filter_action`…), if any.
    func labelClash(_ labels: [[UInt8]]) -> String? {
        for k in fields.indices where labels.contains(where: { hasName(k, $0) }) {
            return "the field \"\(name(k))\" has the name of a label classify adds (give another --filter-key)"
        }
        return nil
    }
}

/// A name or value in a message: at most 40 characters.
enum TerminalSafe {
    static func short(_ text: String) -> String { text.count > 40 ? String(text.prefix(40)) + "…" : text }
}

/// What each format can hold, checked the same way when a record is read and when one is written.
enum _FormatLimits {
    /// CSV and TSV: a NUL byte (every reader, ours included, takes a file with NUL bytes for binary data); TSV
    /// also a tab, line feed or carriage return (it has no quoting). Nil when `value` fits.
    static func delimited(_ value: UnsafeRawBufferPointer, tsv: Bool) -> String? {
        for b in value {
            switch b {
            case 0: return "a NUL byte, which \(tsv ? "TSV" : "CSV") cannot hold"
            case 0x09 where tsv: return "a tab, which TSV cannot hold (it has no quoting)"
            case 0x0A where tsv, 0x0D where tsv: return "a line break, which TSV cannot hold (it has no quoting)"
            default: continue
            }
        }
        return nil
    }

    /// XML 1.0's characters: tab, line feed, carriage return and U+0020 up, but not U+FFFE or U+FFFF.
    @inline(__always)
    static func isXMLCharacter(_ scalar: UInt32) -> Bool {
        scalar >= 0x20 ? scalar != 0xFFFE && scalar != 0xFFFF : scalar == 0x09 || scalar == 0x0A || scalar == 0x0D
    }

    /// Why UTF-8 `value` cannot be written in XML 1.0 (``xmlUnfit(_:)``), nil when it fits.
    static func xml(_ value: UnsafeRawBufferPointer) -> String? { xmlUnfit(value).map(xmlRefusal) }

    /// The first character of UTF-8 `value` that XML 1.0 cannot hold, raw or as a reference; nil when it fits.
    static func xmlUnfit(_ value: UnsafeRawBufferPointer) -> UInt32? {
        var i = 0
        while i < value.count {
            let b = value[i]
            if b < 0x20 {
                if !isXMLCharacter(UInt32(b)) { return UInt32(b) }
            } else if b == 0xEF, i + 2 < value.count, value[i + 1] == 0xBF, value[i + 2] >= 0xBE {
                return 0xFFFE + UInt32(value[i + 2] - 0xBE)
            }
            i += 1
        }
        return nil
    }

    /// `U+000B`.
    static func codePoint(_ scalar: UInt32) -> String {
        let hex = String(scalar, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    static func xmlRefusal(_ scalar: UInt32) -> String { "the character \(codePoint(scalar)), which XML 1.0 cannot hold" }
}

final class _JSONLWriter: _RecordWriter {
    let emitter: _Emitter
    let labels: [[UInt8]]
    init(_ emitter: _Emitter) {
        self.emitter = emitter
        labels = [emitter.filterKey]
    }

    func preamble() -> [UInt8] { [] }
    func epilogue() -> [UInt8] { [] }
    func refusal(_ record: _RecordFields) -> String? { record.labelClash(labels) }

    func write(_ r: _RecordFields, _ v: Verdict, _ out: _ByteBuffer) {
        out.append("{")
        for k in r.fields.indices {
            let kind = r.fields[k].kind
            r.withField(k) { name, value in
                out.appendJSONString(name)
                out.append(": ")
                switch kind {
                case .text: out.appendJSONString(value)
                case .null: out.append("null")
                case .json: out.append(value)
                }
            }
            out.append(", ")
        }
        emitter.appendKeyedObject(v, out)
        out.append("}\n")
    }
}

final class _DelimitedWriter: _RecordWriter {
    let emitter: _Emitter
    let csv: Bool
    let separator: UInt8
    /// The columns before the labels: the first input's fields (``_RecordFields``).
    let columns: [[UInt8]]
    let labels: [[UInt8]]

    init(_ emitter: _Emitter, csv: Bool, columns: [[UInt8]]) {
        self.emitter = emitter
        self.csv = csv
        self.columns = columns
        separator = csv ? emitter.csvSeparator : 0x09
        labels = emitter.labelColumnNames.map { Array($0.utf8) }
    }

    func preamble() -> [UInt8] {
        let out = _ByteBuffer(capacity: 256)
        for (k, name) in (columns + labels).enumerated() {
            if k > 0 { out.append(separator) }
            name.withUnsafeBytes { out.appendDelimitedField($0, quoting: csv, separator: separator) }
        }
        out.append(UInt8(ascii: "\n"))
        return out.copyBytes()
    }

    func epilogue() -> [UInt8] { [] }

    func refusal(_ record: _RecordFields) -> String? {
        if let clash = record.labelClash(labels) { return clash }
        for k in record.fields.indices where !columns.contains(where: { record.hasName(k, $0) }) {
            return "the field \"\(TerminalSafe.short(record.name(k)))\" is not a column: the columns are the fields of the first input's "
                + "first records (\(columns.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ", ")))"
        }
        return record.firstProblem { _FormatLimits.delimited($0, tsv: !csv) }
    }

    func write(_ r: _RecordFields, _ v: Verdict, _ out: _ByteBuffer) {
        for (c, column) in columns.enumerated() {
            if c > 0 { out.append(separator) }
            // A tab or line break in a TSV field was refused (``refusal(_:)``): nothing is changed here.
            if let k = r.index(of: column), r.fields[k].kind != .null {
                r.withField(k) { _, value in out.appendDelimitedField(value, quoting: csv, separator: separator) }
            }
        }
        emitter.appendColumns(v, separator: separator, out)
        out.append(UInt8(ascii: "\n"))
    }
}

final class _XMLWriter: _RecordWriter {
    let emitter: _Emitter
    let labels: [[UInt8]]
    init(_ emitter: _Emitter) {
        self.emitter = emitter
        labels = emitter.labelColumnNames.map { Array($0.utf8) }
    }

    func preamble() -> [UInt8] { Array("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<smses>\n".utf8) }
    func epilogue() -> [UInt8] { Array("</smses>\n".utf8) }

    func refusal(_ record: _RecordFields) -> String? {
        if let clash = record.labelClash(labels) { return clash }
        for k in record.fields.indices where !record.withField(k, { name, _ in Self.isName(name) }) {
            return "the field \"\(TerminalSafe.short(record.name(k)))\" cannot be an XML attribute (not an XML name)"
        }
        return record.firstProblem(_FormatLimits.xml)
    }

    /// Whether `name` is an XML attribute name: a letter, `_` or `:` (or a non-ASCII character), then those,
    /// digits, `-` and `.`.
    static func isName(_ name: UnsafeRawBufferPointer) -> Bool {
        guard let first = name.first else { return false }
        func letter(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") || b == UInt8(ascii: "_") || b == UInt8(ascii: ":") || b >= 0x80 }
        return letter(first) && name.allSatisfy { letter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }

    func write(_ r: _RecordFields, _ v: Verdict, _ out: _ByteBuffer) {
        out.append("  <sms")
        for k in r.fields.indices where r.fields[k].kind != .null {
            r.withField(k) { name, value in
                out.append(UInt8(ascii: " "))
                out.append(name)
                out.append("=\"")
                // Other controls than tab, line feed and carriage return were refused (``refusal(_:)``).
                out.appendXMLAttributeValue(value)
                out.append(UInt8(ascii: "\""))
            }
        }
        emitter.appendAttributes(v, out)
        out.append(" />\n")
    }
}
