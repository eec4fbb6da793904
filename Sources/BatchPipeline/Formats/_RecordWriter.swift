// MARK: Internal API
//
// Records written in a format other than their own (`classify --output-format`). A converted record keeps
// the fields the reader knows: id, sender, body and timestamp, under the target format's usual names
// (`id`, `sender`, `body`, `ts`; Android XML: `address`, `body`, `date`), and gets its labels as
// `classify` adds them in that format. Values are escaped as the format needs: JSON strings; CSV quoted per
// RFC 4180; TSV, which has no quoting, with tabs and line breaks turned into spaces; XML attributes with
// `&amp;`-style entities and character references for control characters.

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
    func write(_ record: _ConvertedRecord, _ verdict: Verdict, _ out: _ByteBuffer)
}

final class _JSONLWriter: _RecordWriter {
    let emitter: _Emitter
    init(_ emitter: _Emitter) { self.emitter = emitter }

    func preamble() -> [UInt8] { [] }
    func epilogue() -> [UInt8] { [] }

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
        separator = csv ? UInt8(ascii: ",") : 0x09
    }

    func preamble() -> [UInt8] {
        var names = ["id", "sender", "body", "ts"]
        names += emitter.labelColumnNames
        return Array(names.joined(separator: csv ? "," : "\t").utf8) + [0x0A]
    }

    func epilogue() -> [UInt8] { [] }

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
        if csv {
            out.appendDelimitedField(value, quoting: true)
            return
        }
        for b in value { out.append(b == 0x09 || b == 0x0A || b == 0x0D ? 0x20 : b) }
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
        for b in value {
            switch b {
            case UInt8(ascii: "&"): out.append("&amp;")
            case UInt8(ascii: "<"): out.append("&lt;")
            case UInt8(ascii: ">"): out.append("&gt;")
            case UInt8(ascii: "\""): out.append("&quot;")
            case 0..<0x20:
                out.append("&#")
                out.appendDecimal(Int(b))
                out.append(UInt8(ascii: ";"))
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
