// MARK: Internal API
//
// Every field of a record, for writing it in another format (`classify --output-format`): the drivers read a
// record's fields in its own order (JSON members, CSV/TSV columns, XML attributes), names and values as UTF-8
// text, leaving out the labels an earlier run added; `_RecordWriter` writes them all, so a converted file
// reads back to the same records.
//
//   JSON Lines   every member; a string's value decoded, null kept as null, any other value (number,
//                true/false, object, array) as its JSON text
//   CSV/TSV      every column by its header name (without a header: its number, the fields the options
//                name by number under their usual names id, sender, body, ts)
//   XML          every attribute of the <sms> element, references decoded
//
// The fields that options name by a format's default (Android XML's `address` and `date`, the other
// formats' `sender` and `ts`) are renamed to the target format's default, so that the converted file is
// read with default options as the original was; a field keeps its name when the new one is taken.

/// How a field's value was written: text (a JSON string, every CSV cell and XML attribute), JSON `null`, or
/// another JSON value whose JSON text is kept as written.
enum _FieldKind: UInt8 {
    case text, null, json
}

/// One field: its name and value as ranges of ``_RecordFields/bytes``.
struct _FieldSpan {
    var name: Range<Int>
    var value: Range<Int>
    var kind: _FieldKind
}

/// The fields of one record, refilled record after record by one worker (its storage is kept).
final class _RecordFields {
    private(set) var bytes: [UInt8] = []
    private(set) var fields: [_FieldSpan] = []
    /// A CSV/TSV row's fields (start, end, quoted), for the driver that splits it.
    var cells: [(Int, Int, Bool)] = []

    init() {
        bytes.reserveCapacity(4096)
        fields.reserveCapacity(32)
    }

    func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
    }

    /// Appends a field: `name` and `value` fill their parts of ``bytes`` through the closures.
    func append(kind: _FieldKind, name: (inout [UInt8]) -> Void, value: (inout [UInt8]) -> Void) {
        let nameStart = bytes.count
        name(&bytes)
        let valueStart = bytes.count
        value(&bytes)
        fields.append(_FieldSpan(name: nameStart..<valueStart, value: valueStart..<bytes.count, kind: kind))
    }

    /// Whether field `k` is named `name`.
    func hasName(_ k: Int, _ name: [UInt8]) -> Bool { bytes[fields[k].name].elementsEqual(name) }

    /// The index of the first field named `name`.
    func index(of name: [UInt8]) -> Int? { fields.indices.first { hasName($0, name) } }

    func name(_ k: Int) -> String { String(decoding: bytes[fields[k].name], as: UTF8.self) }

    /// Calls `body` with field `k`'s name and value.
    func withField<R>(_ k: Int, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> R) -> R {
        let f = fields[k]
        return bytes.withUnsafeBytes { raw in
            body(UnsafeRawBufferPointer(rebasing: raw[f.name]), UnsafeRawBufferPointer(rebasing: raw[f.value]))
        }
    }

    /// Renames the first field named `from` to `to`, unless a field is named `to` already.
    func rename(_ from: [UInt8], to: [UInt8]) {
        guard let k = index(of: from), index(of: to) == nil else { return }
        let start = bytes.count
        bytes += to
        fields[k].name = start..<bytes.count
    }

    /// Renames as `renames` says (``_RecordFields/renames(from:to:fields:)``).
    func apply(_ renames: [([UInt8], [UInt8])]) {
        for (from, to) in renames { rename(from, to: to) }
    }

    /// The fields that options read under a format's default name and that the target format knows by
    /// another: Android XML's `address` and `date` are the other formats' `sender` and `ts`. A name given by
    /// an option (`--sender-field from`) stays.
    static func renames(from source: InputFormat, to target: InputFormat, fields: FieldNames) -> [([UInt8], [UInt8])] {
        guard (source == .xml) != (target == .xml) else { return [] }
        var pairs: [(String, String)] = []
        if fields.sender == "sender" { pairs.append(("address", "sender")) }
        if fields.timestamp == "ts" { pairs.append(("date", "ts")) }
        if target == .xml { pairs = pairs.map { ($1, $0) } }
        return pairs.map { (Array($0.utf8), Array($1.utf8)) }
    }
}

// MARK: Reading a record's fields, per format

extension _JSONLDriver {
    /// The members of record `r`'s object (validated by the scanner when it was parsed), but its labels.
    func recordFields(_ r: _Record, _ s: UnsafeRawBufferPointer, into out: _RecordFields) -> String? {
        out.removeAll()
        let end = r.contentEnd
        var i = _JSONScanner.skipSpace(s, r.rawStart, end)
        guard i < end, s[i] == UInt8(ascii: "{") else { return "not a JSON object" }
        i = _JSONScanner.skipSpace(s, i + 1, end)
        let labels = keys.keys[Self.labelsKey]
        while i < end && s[i] == UInt8(ascii: "\"") {
            var keyEscaped = false
            guard case .success(let keyEnd) = _JSONScanner.scanString(s, i, end, &keyEscaped) else { return "invalid JSON" }
            let key = UnsafeRawBufferPointer(rebasing: s[(i + 1)..<(keyEnd - 1)])
            i = _JSONScanner.skipSpace(s, keyEnd, end)
            guard i < end, s[i] == UInt8(ascii: ":") else { return "invalid JSON" }
            i = _JSONScanner.skipSpace(s, i + 1, end)
            guard i < end else { return "invalid JSON" }
            let valueStart = i
            var kind = _FieldKind.json
            var valueEscaped = false
            if s[i] == UInt8(ascii: "\"") {
                guard case .success(let next) = _JSONScanner.scanString(s, i, end, &valueEscaped) else { return "invalid JSON" }
                kind = .text
                i = next
            } else if _JSONScanner.literal(s, i, end, "null") {
                kind = .null
                i += 4
            } else {
                guard case .success(let next) = _JSONScanner.skipValue(s, i, end, depth: 1) else { return "invalid JSON" }
                i = next
            }
            let value = kind == .text
                ? UnsafeRawBufferPointer(rebasing: s[(valueStart + 1)..<(i - 1)]) : UnsafeRawBufferPointer(rebasing: s[valueStart..<i])
            out.append(
                kind: kind, name: { Self.decoded(key, escaped: keyEscaped, into: &$0) },
                value: { kind == .null ? () : Self.decoded(value, escaped: valueEscaped, into: &$0) })
            if out.hasName(out.fields.count - 1, labels) { out.dropLast() }
            i = _JSONScanner.skipSpace(s, i, end)
            guard i < end, s[i] == UInt8(ascii: ",") else { break }
            i = _JSONScanner.skipSpace(s, i + 1, end)
        }
        return nil
    }

    private static func decoded(_ raw: UnsafeRawBufferPointer, escaped: Bool, into out: inout [UInt8]) {
        if escaped { _JSONUnescape.append(raw, to: &out) } else { out.append(contentsOf: raw) }
    }
}

extension _RecordFields {
    /// Drops the last field (its bytes stay until ``removeAll()``).
    func dropLast() { fields.removeLast() }
}

extension _DelimitedDriver {
    func fieldNames(in head: UnsafeRawBufferPointer) -> [[UInt8]] {
        columnNames.enumerated().filter { !labelColumns.contains($0.offset) }.map(\.element)
    }

    /// The columns of record `r` under ``columnNames``, but the label columns.
    func recordFields(_ r: _Record, _ input: UnsafeRawBufferPointer, into out: _RecordFields) -> String? {
        out.removeAll()
        _ = _DelimitedSyntax.splitRow(input, r.rawStart, r.contentEnd, separator: separator, quoting: quoting, &out.cells)
        for (c, cell) in out.cells.enumerated() where c < columnNames.count && !labelColumns.contains(c) {
            let (s, e, quoted) = cell
            out.append(kind: .text, name: { $0 += columnNames[c] }) { value in
                var i = s
                while i < e {
                    value.append(input[i])
                    // A quoted field's doubled quote is one quote.
                    i += quoted && input[i] == UInt8(ascii: "\"") ? 2 : 1
                }
            }
        }
        return nil
    }
}

extension _XMLDriver {
    /// The attributes of record `r`'s `<sms` tag, references decoded, but its label attributes.
    func recordFields(_ r: _Record, _ input: UnsafeRawBufferPointer, into out: _RecordFields) -> String? {
        out.removeAll()
        return Self.attributes(input, from: r.rawStart + 4, to: r.rawEnd, leavingOut: labelNames, into: out)
    }

    /// The label attributes an earlier run added (`filter_action`…).
    var labelNames: ArraySlice<[UInt8]> { names.keys[labelBase...] }

    /// Reads the attributes from `start` (just after `<sms`) to the end of the tag (`>` or `/>`, before
    /// `end`) into `out`, but those named in `leavingOut`; returns why a value cannot be decoded, or nil.
    static func attributes(
        _ input: UnsafeRawBufferPointer, from start: Int, to end: Int, leavingOut: ArraySlice<[UInt8]>, into out: _RecordFields
    ) -> String? {
        var i = start
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        while true {
            while i < end && isSpace(input[i]) { i += 1 }
            guard i < end, input[i] != UInt8(ascii: "/"), input[i] != UInt8(ascii: ">") else { return nil }
            let nameStart = i
            while i < end && input[i] != UInt8(ascii: "=") && !isSpace(input[i]) && input[i] != UInt8(ascii: ">") { i += 1 }
            let name = UnsafeRawBufferPointer(rebasing: input[nameStart..<i])
            while i < end && isSpace(input[i]) { i += 1 }
            guard i < end, input[i] == UInt8(ascii: "=") else { return "an attribute without a value" }
            i += 1
            while i < end && isSpace(input[i]) { i += 1 }
            guard i < end, input[i] == UInt8(ascii: "\"") || input[i] == UInt8(ascii: "'"),
                let close = _find(input[i], in: input, from: i + 1, to: end)
            else { return "an attribute value that is not quoted" }
            let valueStart = i + 1
            i = close + 1
            guard !leavingOut.contains(where: { name.elementsEqual($0) }) else { continue }
            var failure: String?
            out.append(kind: .text, name: { $0.append(contentsOf: name) }) { value in
                failure = _XMLText.decodeValue(input, valueStart, close) { value.append($0) }
            }
            if let failure { return failure }
        }
    }

    /// The attribute names of the `<sms>` elements among `head` (a file's first bytes), in the order they
    /// first appear, but the label attributes.
    func fieldNames(in head: UnsafeRawBufferPointer) -> [[UInt8]] {
        var names: [[UInt8]] = []
        let fields = _RecordFields()
        var i = 0
        while let lt = _find(UInt8(ascii: "<"), in: head, from: i, to: head.count) {
            i = lt + 1
            guard _XMLSyntax.isStartTag("sms", at: lt, head, head.count) else { continue }
            fields.removeAll()
            guard Self.attributes(head, from: lt + 4, to: head.count, leavingOut: labelNames, into: fields) == nil else { continue }
            for k in fields.fields.indices where !names.contains(where: { fields.hasName(k, $0) }) {
                names.append(Array(fields.bytes[fields.fields[k].name]))
            }
        }
        return names
    }
}

extension _JSONLDriver {
    /// The member names of the objects among `head`'s whole lines (a file's first bytes), in the order they
    /// first appear, but the labels.
    func fieldNames(in head: UnsafeRawBufferPointer) -> [[UInt8]] {
        var names: [[UInt8]] = []
        let fields = _RecordFields()
        let found = UnsafeMutableBufferPointer<JSONField>.allocate(capacity: keys.count)
        found.initialize(repeating: JSONField())
        defer { found.deallocate() }
        var start = 0
        while start < head.count, let newline = _find(0x0A, in: head, from: start, to: head.count) {
            defer { start = newline + 1 }
            let line = UnsafeRawBufferPointer(rebasing: head[start..<newline])
            // Only a valid object, as the parser takes it, gives names.
            guard _JSONScanner.scan(line, keys: keys.all, fields: found, allowTrailingCommas: false) == nil else { continue }
            var r = _Record()
            r.rawStart = start
            r.contentEnd = newline
            guard recordFields(r, head, into: fields) == nil else { continue }
            for k in fields.fields.indices where !names.contains(where: { fields.hasName(k, $0) }) {
                names.append(Array(fields.bytes[fields.fields[k].name]))
            }
        }
        return names
    }
}
