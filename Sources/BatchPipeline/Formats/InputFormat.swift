/// The record formats `classify` reads (SPEC §5).
public enum InputFormat: String, Sendable, CaseIterable {
    /// JSON Lines: one JSON object per line.
    case jsonl
    /// Comma-separated values, RFC 4180 quoting (quoted fields may hold commas, quotes and newlines).
    case csv
    /// Tab-separated values: one record per line, no quoting.
    case tsv
    /// Android "SMS Backup & Restore" XML: `<smses><sms address=… body=… …/></smses>`.
    case xml

    /// Guesses the format from the first bytes of decoded input: `{` is JSON Lines, `<` XML; otherwise a
    /// tab in the first line means TSV, else CSV. An explicit `--input-format` always wins.
    public static func sniff(_ bytes: UnsafeRawBufferPointer, path: String?) -> InputFormat {
        if let path, let format = named(by: path) { return format }
        var i = 0
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { i = 3 }
        while i < bytes.count && _JSONScanner.isSpace(bytes[i]) { i += 1 }
        guard i < bytes.count else { return .jsonl }
        if bytes[i] == UInt8(ascii: "{") { return .jsonl }
        if bytes[i] == UInt8(ascii: "<") { return .xml }
        while i < bytes.count && bytes[i] != 0x0A {
            if bytes[i] == 0x09 { return .tsv }
            i += 1
        }
        return .csv
    }
}

extension InputFormat {
    /// The format a file name says (`.jsonl`, `.ndjson`, `.csv`, `.tsv`, `.xml`, each maybe with `.zst` or `.gz`),
    /// or nil when it says none.
    public static func named(by path: String) -> InputFormat? {
        var lower = path.lowercased()
        if lower.hasSuffix(".zst") { lower.removeLast(4) } else if lower.hasSuffix(".gz") { lower.removeLast(3) }
        for (suffix, format) in [(".tsv", InputFormat.tsv), (".csv", .csv), (".xml", .xml), (".jsonl", .jsonl), (".ndjson", .jsonl)]
        where lower.hasSuffix(suffix) {
            return format
        }
        return nil
    }
}

/// Which fields hold the id, sender and body.
///
/// For JSON Lines these are key names. For CSV and TSV they are header names, or 1-based column
/// numbers (`"3"`) when the input has no header row. For Android XML they are attribute names of `<sms>`
/// (defaults `address` for the sender, `body`, and `date` for the id when `id` is absent).
public struct FieldNames: Sendable, Equatable {
    public var id: String
    public var sender: String
    public var body: String
    public var timestamp: String
    /// Extra fields to extract (e.g. a truth label for `evaluate`).
    public var extra: [String]
    /// Fields besides the body that must be found: each names a field, column or attribute that at least one
    /// of a file's first records has, or the file is refused before any output (SPEC §7: a name that matches
    /// nothing is an error listing the fields found). The body is always checked. Callers list the field
    /// options a user gave and the fields the command cannot work without (a truth label); a field at its
    /// default is not required, because files without ids or senders are normal. A field present in some
    /// records (or present but null) is found: the others are read as records without it.
    public var required: [Required] = []

    /// A field that must be found, with the option that named it (for the message).
    public struct Required: Sendable, Equatable {
        public var option: String
        public var name: String
        public init(option: String, name: String) {
            self.option = option
            self.name = name
        }
    }

    public init(id: String = "id", sender: String = "sender", body: String = "body", timestamp: String = "ts", extra: [String] = []) {
        self.id = id
        self.sender = sender
        self.body = body
        self.timestamp = timestamp
        self.extra = extra
    }
}
