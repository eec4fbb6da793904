// MARK: Internal API
//
// Reads `--counts` files for `merge-counts`: every field's type is checked and named, never a Swift
// `DecodingError` ("keyNotFound(CodingKeys(stringValue: …") that a user cannot act on.

import Foundation
import MessageFilter

/// A JSON value, decoded with its type kept (a count is an integer, never a string, a fraction or `true`).
enum _JSONValue: Decodable {
    case null, bool(Bool), integer(Int64), number(Double), string(String), array([_JSONValue]), object([String: _JSONValue])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .integer(i)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([_JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: _JSONValue].self))
        }
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "true/false"
        case .integer: "an integer"
        case .number: "a fraction"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

struct _CountFileReader {
    let file: String

    /// `FILE: FIELD: PROBLEM (not a count file …)`: the field at fault as a path (`files[2].records`).
    func fail(_ field: String?, _ problem: String) -> PipelineError {
        PipelineError(
            .badInput,
            "\(file): \(field.map { "\($0): " } ?? "")\(problem) (not a count file written by smsfilter classify --counts, or damaged)")
    }

    func read(_ data: Data) throws(PipelineError) -> RunCounts {
        let root: _JSONValue
        do {
            root = try JSONDecoder().decode(_JSONValue.self, from: data)
        } catch {
            throw fail(nil, "not valid JSON")
        }
        guard case .object(let o) = root else { throw fail(nil, "expected a JSON object, found \(root.typeName)") }
        // Foundation keeps one of two equal keys and says nothing: a hand-edited file could count twice.
        if let key = _JSONDuplicateKeys.first(in: data) { throw fail(key, "the key is given twice") }
        var c = RunCounts()
        c.records = try count(o, "records")
        c.labelled = try count(o, "labelled")
        c.rejected = try count(o, "rejected")
        c.blankLines = try count(o, "blankLines", required: false)
        c.mms = try count(o, "mms", required: false)
        c.rejectsShortened = try count(o, "rejectsShortened", required: false)
        c.rejectsOmitted = try count(o, "rejectsOmitted", required: false)
        c.noRule = try count(o, "noRule", required: false)
        c.folders = try counts(o, "folders")
        c.rules = try counts(o, "rules")
        c.dropped = try counts(o, "dropped")
        c.rejectReasons = try counts(o, "rejectReasons", required: false)
        c.bytes = Int64(try count(o, "bytes"))
        c.compressedBytes = Int64(try count(o, "compressedBytes", required: false))
        c.threads = try count(o, "threads", required: false)
        c.ruleSet = try string(o, "ruleSet") ?? ""
        c.ruleSource = try string(o, "ruleSource", required: false) ?? ""
        switch o["seconds"] {
        case .integer(let i)? where i >= 0: c.seconds = Double(i)
        case .number(let d)? where d >= 0 && d.isFinite: c.seconds = d
        case nil: throw fail("seconds", "missing")
        case let v?: throw fail("seconds", "expected a number of seconds, 0 or more, found \(describe(v))")
        }
        guard case .array(let files)? = o["files"] else {
            throw fail("files", o["files"] == nil ? "missing" : "expected a list of files, found \(o["files"]!.typeName)")
        }
        c.files = []
        for (i, f) in files.enumerated() { c.files.append(try file(f, at: "files[\(i)]")) }
        guard Self.isSum(c.records, c.labelled, c.rejected) else {
            throw fail("records", "\(c.records) is not labelled (\(c.labelled)) + rejected (\(c.rejected))")
        }
        guard let fileRecords = Self.sum(c.files.map(\.records)), fileRecords == c.records else {
            throw fail("files", "their records do not add up to records (\(c.records))")
        }
        guard let folderRecords = Self.sum(Array(c.folders.values)), folderRecords == c.labelled else {
            throw fail("folders", "their counts do not add up to labelled (\(c.labelled))")
        }
        try checkParts(c, o)
        return c
    }

    /// The other relations every count file written by `classify` (or `merge-counts`) holds: folders are
    /// folder paths; each labelled record was decided by one rule or by none (`rules` + `noRule` =
    /// `labelled`); each rejected record has one reason (`rejectReasons` add up to `rejected`); a record
    /// drops at most one sub-action, for one of two reasons; the files' decoded bytes add up to `bytes`; the
    /// rejects written short or only counted are among the rejected.
    private func checkParts(_ c: RunCounts, _ o: [String: _JSONValue]) throws(PipelineError) {
        let paths = Set(Folder.allCases.map(\.path))
        if let unknown = c.folders.keys.sorted().first(where: { !paths.contains($0) }) {
            throw fail("folders", "\"\(unknown.prefix(60))\" is not a folder (folders: \(Folder.allCases.map(\.path).joined(separator: ", ")))")
        }
        guard let ruleRecords = Self.sum(Array(c.rules.values)), let decided = Self.sum([ruleRecords, c.noRule]), decided == c.labelled else {
            throw fail("rules", "their counts and noRule (\(c.noRule)) do not add up to labelled (\(c.labelled))")
        }
        if o["rejectReasons"] != nil {
            guard let reasons = Self.sum(Array(c.rejectReasons.values)), reasons == c.rejected else {
                throw fail("rejectReasons", "they do not add up to rejected (\(c.rejected))")
            }
        } else if c.rejected > 0 {
            throw fail("rejectReasons", "missing, and rejected is \(c.rejected)")
        }
        if let other = c.dropped.keys.sorted().first(where: { $0 != "invalidPair" && $0 != "notDeclared" }) {
            throw fail("dropped", "unknown reason \"\(other.prefix(60))\" (reasons: invalidPair, notDeclared)")
        }
        guard let dropped = Self.sum(Array(c.dropped.values)), dropped <= c.labelled else {
            throw fail("dropped", "more sub-actions dropped than records labelled (\(c.labelled))")
        }
        guard let fileBytes = Self.sum(c.files.map { Int($0.bytes) }), fileBytes == Int(c.bytes) else {
            throw fail("files", "their bytes do not add up to bytes (\(c.bytes))")
        }
        // Rejects kept short or only counted (--max-rejects-bytes) are rejects.
        guard let kept = Self.sum([c.rejectsShortened, c.rejectsOmitted]), kept <= c.rejected else {
            throw fail("rejectsShortened", "with rejectsOmitted, more than rejected (\(c.rejected))")
        }
    }

    /// Whether `total == a + b`, without overflowing.
    static func isSum(_ total: Int, _ a: Int, _ b: Int) -> Bool {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return !overflow && sum == total
    }

    /// The sum of `values`, nil when it overflows.
    static func sum(_ values: [Int]) -> Int? {
        var total = 0
        for v in values {
            let (s, overflow) = total.addingReportingOverflow(v)
            if overflow { return nil }
            total = s
        }
        return total
    }

    /// One entry of `files`, balanced (records = labelled + rejected).
    private func file(_ value: _JSONValue, at: String) throws(PipelineError) -> RunCounts.File {
        guard case .object(let f) = value else { throw fail(at, "expected an object, found \(value.typeName)") }
        var file = RunCounts.File(path: try string(f, "path", at: at) ?? "", format: try string(f, "format", at: at, required: false) ?? "")
        file.records = try count(f, "records", at: at)
        file.labelled = try count(f, "labelled", at: at)
        file.rejected = try count(f, "rejected", at: at)
        file.bytes = Int64(try count(f, "bytes", at: at, required: false))
        file.compressedBytes = Int64(try count(f, "compressedBytes", at: at, required: false))
        switch f["compressed"] {
        case .bool(let b)?: file.compressed = b
        case nil: break
        case let v?: throw fail("\(at).compressed", "expected true or false, found \(describe(v))")
        }
        switch f["error"] {
        case .string(let e)?: file.error = e
        case nil, .null?: break
        case let v?: throw fail("\(at).error", "expected a string or null, found \(describe(v))")
        }
        guard Self.isSum(file.records, file.labelled, file.rejected) else {
            throw fail(at, "records (\(file.records)) is not labelled (\(file.labelled)) + rejected (\(file.rejected))")
        }
        switch f["range"] {
        case .object(let r)?:
            let field = "\(at).range"
            let range = RunCounts.File.SplitRange(
                start: Int64(try count(r, "start", at: field)), end: Int64(try count(r, "end", at: field)),
                archiveBytes: Int64(try count(r, "archiveBytes", at: field)))
            guard range.start < range.end, range.end <= range.archiveBytes else {
                throw fail(field, "expected start < end ≤ archiveBytes, found \(range.start), \(range.end), \(range.archiveBytes)")
            }
            file.range = range
        case nil, .null?: break
        case let v?: throw fail("\(at).range", "expected an object (start, end, archiveBytes), found \(describe(v))")
        }
        switch f["archive"] {
        case .object(let a)?:
            let field = "\(at).archive"
            let archive = RunCounts.File.Archive(
                bytes: Int64(try count(a, "bytes", at: field)), ends: try string(a, "ends", at: field) ?? "")
            let parts = archive.ends.split(separator: ":", omittingEmptySubsequences: false)
            let hex = parts.count == 2 ? parts[1].utf8 : Substring().utf8
            guard parts.count == 2, (1...16).contains(parts[0].count), parts[0].allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber) }),
                (1...128).contains(hex.count), hex.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            else {
                throw fail("\(field).ends", "expected a hash named by its function, such as fnv1a64:0123456789abcdef")
            }
            if let range = file.range, range.archiveBytes != archive.bytes {
                throw fail(field, "bytes (\(archive.bytes)) is not the range's archiveBytes (\(range.archiveBytes))")
            }
            file.archive = archive
        case nil, .null?: break
        case let v?: throw fail("\(at).archive", "expected an object (bytes, ends), found \(describe(v))")
        }
        return file
    }

    private func describe(_ v: _JSONValue) -> String {
        switch v {
        case .integer(let i): "\(i)"
        case .number(let d): "\(d)"
        case .string(let s): "the string \"\(s.prefix(40))\""
        default: v.typeName
        }
    }

    private func count(_ o: [String: _JSONValue], _ key: String, at: String? = nil, required: Bool = true) throws(PipelineError) -> Int {
        let field = at.map { "\($0).\(key)" } ?? key
        switch o[key] {
        case .integer(let i)? where i >= 0: return Int(i)
        case nil where !required: return 0
        case nil: throw fail(field, "missing")
        case let v?: throw fail(field, "expected a count (an integer, 0 or more), found \(describe(v))")
        }
    }

    private func counts(_ o: [String: _JSONValue], _ key: String, required: Bool = true) throws(PipelineError) -> [String: Int] {
        switch o[key] {
        case .object(let map)?:
            var out: [String: Int] = [:]
            for (name, _) in map { out[name] = try count(map, name, at: key) }
            return out
        case nil where !required: return [:]
        case nil: throw fail(key, "missing")
        case let v?: throw fail(key, "expected an object of counts, found \(describe(v))")
        }
    }

    private func string(_ o: [String: _JSONValue], _ key: String, at: String? = nil, required: Bool = true) throws(PipelineError) -> String? {
        let field = at.map { "\($0).\(key)" } ?? key
        switch o[key] {
        case .string(let s)?: return s
        case nil where !required: return nil
        case nil: throw fail(field, "missing")
        case let v?: throw fail(field, "expected a string, found \(describe(v))")
        }
    }
}

/// Finds a key given twice in one object of a JSON text that Foundation has already parsed (so it is valid
/// JSON): Foundation's decoders keep one of the two values without a word.
enum _JSONDuplicateKeys {
    /// The path of the first key given twice (`files[1].records`), or nil.
    static func first(in data: Data) -> String? {
        let bytes = [UInt8](data)
        var i = 0
        var found: String?
        value(bytes, &i, path: "", depth: 0, &found)
        return found
    }

    private static func skipSpace(_ b: [UInt8], _ i: inout Int) {
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
    }

    /// Skips the string at `i` (its opening quote); returns its decoded text.
    private static func string(_ b: [UInt8], _ i: inout Int) -> String {
        let start = i
        i += 1
        var escaped = false
        while i < b.count, b[i] != UInt8(ascii: "\"") {
            if b[i] == UInt8(ascii: "\\") { escaped = true; i += 1 }
            i += 1
        }
        i += 1
        let raw = Data(b[start..<min(i, b.count)])
        if !escaped { return String(decoding: raw.dropFirst().dropLast(), as: UTF8.self) }
        return (try? JSONSerialization.jsonObject(with: raw, options: .fragmentsAllowed) as? String) ?? String(decoding: raw, as: UTF8.self)
    }

    private static func value(_ b: [UInt8], _ i: inout Int, path: String, depth: Int, _ found: inout String?) {
        skipSpace(b, &i)
        guard i < b.count, found == nil, depth < 10_000 else { return }
        switch b[i] {
        case UInt8(ascii: "{"):
            i += 1
            var keys = Set<String>()
            while true {
                skipSpace(b, &i)
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { i += 1; return }  // `}` (or damage)
                let key = string(b, &i)
                let at = path.isEmpty ? key : "\(path).\(key)"
                if !keys.insert(key).inserted { found = at; return }
                skipSpace(b, &i)
                i += 1  // `:`
                value(b, &i, path: at, depth: depth + 1, &found)
                if found != nil { return }
                skipSpace(b, &i)
                guard i < b.count, b[i] == UInt8(ascii: ",") else { i += 1; return }
                i += 1
            }
        case UInt8(ascii: "["):
            i += 1
            var k = 0
            while true {
                skipSpace(b, &i)
                guard i < b.count, b[i] != UInt8(ascii: "]") else { i += 1; return }
                value(b, &i, path: "\(path)[\(k)]", depth: depth + 1, &found)
                if found != nil { return }
                k += 1
                skipSpace(b, &i)
                guard i < b.count, b[i] == UInt8(ascii: ",") else { i += 1; return }
                i += 1
            }
        case UInt8(ascii: "\""):
            _ = string(b, &i)
        default:
            while i < b.count, !(b[i] == UInt8(ascii: ",") || b[i] == UInt8(ascii: "]") || b[i] == UInt8(ascii: "}")
                                  || b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D) { i += 1 }
        }
    }
}
