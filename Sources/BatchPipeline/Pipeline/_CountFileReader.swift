// MARK: Internal API
//
// Reads `--counts` files for `merge-counts`: every field's type is checked and named, never a Swift
// `DecodingError` ("keyNotFound(CodingKeys(stringValue: …") that a user cannot act on.

import Foundation

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
        return c
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
