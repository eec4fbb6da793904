// MARK: Internal API
//
// Records written in a format other than their own (`classify --output-format`). A converted record keeps
// the fields the reader knows: id, sender, body and timestamp, under the target format's usual names
// (`id`, `sender`, `body`, `ts`; Android XML: `address`, `body`, `date`), and gets its labels as
// `classify` adds them in that format. Values are escaped as the format needs: JSON strings; CSV quoted per
// RFC 4180; XML attributes with `&amp;`-style entities and character references for tab, line feed and
// carriage return (which an XML parser would otherwise turn into spaces).
//
// What a format cannot hold is refused, never changed (`_FormatLimits`): a record with such a character in
// any of its fields is rejected with the reason, as the reader rejects one that comes in with it.
//
//   JSON Lines   any text (control characters as \uXXXX)
//   CSV          no NUL (a file with NUL bytes is taken for binary data)
//   TSV          no NUL, tab, line feed or carriage return (TSV has no quoting)
//   XML 1.0      no C0 control but tab, line feed and carriage return, no U+FFFE or U+FFFF, raw or as
//                character references (`&#0;`, `&#11;` are not well-formed XML 1.0)

import MessageFilter

/// The fields of one record being converted (decoded text; `idIsJSON`: the id is a raw JSON value).
struct _ConvertedRecord {
    var id: UnsafeRawBufferPointer?
    var idIsJSON = false
    var sender: UnsafeRawBufferPointer?
    var body: UnsafeRawBufferPointer
    var timestamp: UnsafeRawBufferPointer?
}

protocol _RecordWriter: AnyObject, Sendable {
    /// What the output starts with (a header row, an XML prolog) and ends with.
    func preamble() -> [UInt8]
    func epilogue() -> [UInt8]
    /// Why `record` cannot be written in this format (a character the format cannot hold), nil when it can.
    func refusal(_ record: _ConvertedRecord) -> String?
    func write(_ record: _ConvertedRecord, _ verdict: Verdict, _ out: _ByteBuffer)
}

extension _ConvertedRecord {
    /// The first field (as the writer writes it) that `problem` finds something in, and what.
    func firstProblem(idAsWritten: Bool = true, _ problem: (UnsafeRawBufferPointer) -> String?) -> String? {
        var fields: [(String, UnsafeRawBufferPointer)] = []
        if let id { fields.append(("id", idIsJSON && idAsWritten ? _DelimitedWriter.unquoted(id) : id)) }
        if let sender { fields.append(("sender", sender)) }
        fields.append(("body", body))
        if let timestamp { fields.append(("timestamp", timestamp)) }
        for (name, value) in fields {
            if let what = problem(value) { return "the \(name) holds \(what)" }
        }
        return nil
    }
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
    init(_ emitter: _Emitter) { self.emitter = emitter }

    func preamble() -> [UInt8] { [] }
    func epilogue() -> [UInt8] { [] }
    func refusal(_ record: _ConvertedRecord) -> String? { nil }

    func write(_ r: _ConvertedRecord, _ v: Verdict, _ out: _ByteBuffer) {
        out.append("{")
        if let id = r.id {
            out.append("\"id\": ")
            if r.idIsJSON { out.append(id) } else { out.appendJSONString(id) }
            out.append(", ")
        }
        if let sender = r.sender {
            out.append("\"sender\": ")
            out.appendJSONString(sender)
            out.append(", ")
        }
        out.append("\"body\": ")
        out.appendJSONString(r.body)
        if let ts = r.timestamp {
            out.append(", \"ts\": ")
            out.appendJSONString(ts)
        }
        out.append(", ")
        emitter.appendKeyedObject(v, out)
        out.append("}\n")
    }
}

final class _DelimitedWriter: _RecordWriter {
    let emitter: _Emitter
    let csv: Bool
    let separator: UInt8

    init(_ emitter: _Emitter, csv: Bool) {
        self.emitter = emitter
        self.csv = csv
        separator = csv ? emitter.csvSeparator : 0x09
    }

    func preamble() -> [UInt8] {
        var names = ["id", "sender", "body", "ts"]
        names += emitter.labelColumnNames
        return Array(names.joined(separator: String(UnicodeScalar(separator))).utf8) + [0x0A]
    }

    func epilogue() -> [UInt8] { [] }

    func refusal(_ record: _ConvertedRecord) -> String? {
        record.firstProblem { _FormatLimits.delimited($0, tsv: !csv) }
    }

    func write(_ r: _ConvertedRecord, _ v: Verdict, _ out: _ByteBuffer) {
        cell(r.id.map { r.idIsJSON ? Self.unquoted($0) : $0 }, out)
        out.append(separator)
        cell(r.sender, out)
        out.append(separator)
        cell(r.body, out)
        out.append(separator)
        cell(r.timestamp, out)
        emitter.appendColumns(v, separator: separator, out)
        out.append(UInt8(ascii: "\n"))
    }

    private func cell(_ value: UnsafeRawBufferPointer?, _ out: _ByteBuffer) {
        guard let value else { return }
        // A tab or line break in a TSV field was refused (``refusal(_:)``): nothing is changed here.
        out.appendDelimitedField(value, quoting: csv, separator: separator)
    }

    /// A JSON string id's content (its quotes off); other JSON values as they are.
    static func unquoted(_ raw: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard raw.count >= 2, raw[0] == UInt8(ascii: "\""), _find(UInt8(ascii: "\\"), in: raw, from: 0, to: raw.count) == nil else { return raw }
        return UnsafeRawBufferPointer(rebasing: raw[1..<(raw.count - 1)])
    }
}

final class _XMLWriter: _RecordWriter {
    let emitter: _Emitter
    init(_ emitter: _Emitter) { self.emitter = emitter }

    func preamble() -> [UInt8] { Array("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<smses>\n".utf8) }
    func epilogue() -> [UInt8] { Array("</smses>\n".utf8) }

    func refusal(_ record: _ConvertedRecord) -> String? { record.firstProblem(_FormatLimits.xml) }

    func write(_ r: _ConvertedRecord, _ v: Verdict, _ out: _ByteBuffer) {
        out.append("  <sms")
        if let id = r.id { attribute("id", r.idIsJSON ? _DelimitedWriter.unquoted(id) : id, out) }
        if let sender = r.sender { attribute("address", sender, out) }
        attribute("body", r.body, out)
        if let ts = r.timestamp { attribute("date", ts, out) }
        emitter.appendAttributes(v, out)
        out.append(" />\n")
    }

    private func attribute(_ name: StaticString, _ value: UnsafeRawBufferPointer, _ out: _ByteBuffer) {
        out.append(UInt8(ascii: " "))
        out.append(name)
        out.append("=\"")
        // Other controls than tab, line feed and carriage return were refused (``refusal(_:)``).
        out.appendXMLAttributeValue(value)
        out.append(UInt8(ascii: "\""))
    }
}
