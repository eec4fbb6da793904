// MARK: Internal API
//
// The one place that chooses by format: a file's driver when the reader has its first bytes, and the writer
// of records converted to another format.

import MessageFilter

/// What the first bytes of a file (after any byte-order mark) allow.
enum _Opening {
    /// The driver, and how many bytes at the start are a header row (taken off before framing).
    case ready(any _FormatDriver, headerBytes: Int)
    /// The header row is not whole yet.
    case needMore
    /// The file cannot be read as asked (no body column…).
    case failed(String)
}

enum _Drivers {
    /// The driver of a file: its format given, or guessed from its name and first bytes.
    /// - Parameter name: the file's path (nil for standard input without a name) for the guess.
    static func open(_ bytes: UnsafeRawBufferPointer, eof: Bool, name: String?, displayName: String, options: _ReadOptions) -> _Opening {
        let format = options.inputFormat ?? InputFormat.sniff(bytes, path: name)
        switch format {
        case .jsonl:
            if let problem = _JSONLDriver.missingFields(bytes, options: options) { return .failed("\(displayName): \(problem)") }
            return .ready(_JSONLDriver(options: options), headerBytes: 0)
        case .xml:
            if let problem = _XMLDriver.missingFields(bytes, options: options) { return .failed("\(displayName): \(problem)") }
            return .ready(_XMLDriver(options: options), headerBytes: 0)
        case .csv, .tsv: return _DelimitedDriver.open(format: format, bytes, eof: eof, options: options, name: displayName)
        }
    }

    /// The writer of labelled records in `format` converted from other formats; `columns`: CSV's and TSV's
    /// columns before the labels.
    static func writer(_ format: InputFormat, _ emitter: _Emitter, columns: [[UInt8]]) -> any _RecordWriter {
        switch format {
        case .jsonl: return _JSONLWriter(emitter)
        case .csv, .tsv: return _DelimitedWriter(emitter, csv: format == .csv, columns: columns)
        case .xml: return _XMLWriter(emitter)
        }
    }
}

extension _ReadOptions {
    /// The fields a file must have (body first), as (option, name) pairs; `xmlNames` maps the defaults to
    /// Android's attribute names (`address`, `date`).
    func requiredFields(xmlNames: Bool = false) -> [FieldNames.Required] {
        var list = [FieldNames.Required(option: "--body-field", name: fields.body)]
        for r in fields.required where !list.contains(r) {
            var r = r
            if xmlNames, r.option == "--sender-field", r.name == "sender" { r.name = "address" }
            list.append(r)
        }
        return list
    }

    /// The message for a required field that no record among the first `records` has.
    static func missingMessage(_ field: FieldNames.Required, records: Int, found: [String], what: String = "record", kind: String = "field") -> String {
        let list = found.isEmpty ? "none" : _namesFound(found)
        let fix = field.option == "--body-field" ? "name the body's \(kind) with --body-field" : "check \(field.option)"
        return "no \(what) among the first \(records) has a \"\(EchoedText.escaped(field.name))\" \(kind) (\(kind)s found: \(list)); \(fix)"
    }
}
