// MARK: Internal API
//
// One driver per record format. A driver is made once per file, when the reader has seen its first bytes
// (`_Drivers.open`, the only place that chooses by format), and kept on the file's `_FileState`: it holds
// what the file's header or options decided (columns, keys) and is read-only afterwards, so every worker
// uses it at once. It does four things:
//
//   boundary  makeFramer(): the reader's framer, which finds where whole records end (`_Framer`)
//   header    decided when the driver is made (CSV/TSV header row, label columns already present)
//   parse     parse(_:into:): a chunk of whole records → records, sender/body spans, wanted fields;
//             malformed records are rejected into the chunk (it owns its rejects and scratch)
//   emit      emitLabelled(…): the records back in their own format with the labels added
//
// Writing records in another format (`classify --output-format`) is `_RecordWriter`'s job.

import MessageFilter

protocol _FormatDriver: AnyObject, Sendable {
    var format: InputFormat { get }
    /// Where the extra fields of a record are in `_Parsed.fields`.
    var layout: _SlotLayout { get }
    /// A framer for one pass over the file (owned by the reader thread).
    func makeFramer() -> _Framer
    /// Parses the chunk's records, `input` (`[0, chunk.recordBytes)` of the chunk), into `parsed` (cleared
    /// first by the caller); appends decoded strings to the chunk within reserved room. Called by `parse`.
    func parseRecords(_ chunk: _Chunk, _ input: UnsafeRawBufferPointer, into parsed: inout _Parsed)
    /// Appends the records of `parsed` with their labels, in this format, to `out` (the bytes between
    /// records, such as XML outside `<sms>` elements, pass through).
    func emitLabelled(_ chunk: _Chunk, _ parsed: _Parsed, _ emitter: _Emitter, into out: _ByteBuffer)
    /// What the output starts with when it is written in this format from this file (the CSV header row
    /// with the label columns); empty for most formats.
    func preamble(_ emitter: _Emitter) -> [UInt8]
    /// The labels a record already carries (a `filter` object, `filter_*` columns or attributes), when
    /// `_ReadOptions.wantsExistingLabels` asked for them.
    func existingLabels(_ chunk: _Chunk, _ parsed: _Parsed, _ k: Int) -> _ExistingLabels?
    /// Every field of record `r` of `input` (the chunk's bytes), in its own order, names and values as text,
    /// but the labels an earlier run added: what the record carries into another format (`_RecordFields`).
    /// Returns why a field cannot be read, or nil.
    func recordFields(_ r: _Record, _ input: UnsafeRawBufferPointer, into out: _RecordFields) -> String?
    /// The field names of the records among `head` (a file's first bytes), in the order they first appear,
    /// but the labels: the columns of CSV or TSV converted from this file.
    func fieldNames(in head: UnsafeRawBufferPointer) -> [[UInt8]]
}

extension _FormatDriver {
    /// Parses the chunk's records (`[0, chunk.recordBytes)`) into `parsed` (cleared first by the caller).
    func parse(_ chunk: _Chunk, into parsed: inout _Parsed) {
        chunk.input.withUnsafeBytes(0..<chunk.recordBytes) { parseRecords(chunk, $0, into: &parsed) }
    }

    /// No preamble (every format but CSV/TSV).
    func preamble(_ emitter: _Emitter) -> [UInt8] { [] }
}

/// The labels a record carried in: what `export` uses instead of classifying it again.
struct _ExistingLabels {
    var action: String?
    var subAction: String?
    var folder: String?
}

extension _ExistingLabels {
    /// The labels in record `k`'s decoded text fields `base`, `base + 1`, `base + 2` (action, sub-action,
    /// folder: CSV/TSV columns, XML attributes); nil without a folder. An empty field counts as absent.
    init?(decodedFields chunk: _Chunk, _ parsed: _Parsed, _ k: Int, from base: Int) {
        func text(_ i: Int) -> String? {
            let f = parsed.field(k, base + i)
            guard f.isPresent, f.end > f.start else { return nil }
            return chunk.input.string(f.start..<f.end)
        }
        guard let folder = text(2) else { return nil }
        self.init(action: text(0), subAction: text(1), folder: folder)
    }
}

/// What a reader wants from every record (besides id, sender and body, which it always gets).
struct _ReadOptions: Sendable {
    /// The format, fields, header row, record cap, stdin name and window cap (``RecordFormat``).
    var record = RecordFormat()
    var chunkSize = 1 << 20
    /// Threads decoding a multi-frame zstd input (`ZstdParallelDecoder`); 1: one `ZstdDecoder`.
    var decodeThreads = 1
    /// The key, column or attribute prefix of labels written by `classify`.
    var filterKey = "filter"
    /// Decode the timestamp field too (records written in another format keep it).
    var wantsTimestamp = false
    /// Look for labels the records already carry (`export`).
    var wantsExistingLabels = false
    /// Read one split of the (single) input, a multi-frame zstd archive (`classify --range`).
    var split: _ReadSplit?

    /// Why a record longer than `maxRecord` is rejected (streamed or whole, the same words).
    var overlongReason: String { "record longer than --max-record (\(maxRecord) bytes)" }
    static let overlongCategory = PipelineError.overlongCategory
}

extension _Chunk {
    /// Rejects `[start, end)` (terminator included) when it is longer than `maxRecord`; returns whether it did.
    @inline(__always)
    func rejectOverlong(_ start: Int, _ end: Int, line: Int, _ options: _ReadOptions) -> Bool {
        guard end - start > options.maxRecord else { return false }
        reject(start: start, end: end, line: line, reason: options.overlongReason, category: _ReadOptions.overlongCategory)
        return true
    }
}

/// Where a driver puts the extra fields of each record in `_Parsed.fields`: the timestamp (when wanted),
/// then `FieldNames.extra` in order, then whatever the driver needs for the labels a record already carries.
struct _SlotLayout: Sendable {
    /// The timestamp's slot, or nil when it is not wanted.
    let timestamp: Int?
    /// `FieldNames.extra[i]` is in slot `extraBase + i`.
    let extraBase: Int
    let extraCount: Int
    /// The first slot of the driver's own fields, and how many there are.
    let ownBase: Int
    let ownCount: Int
    var count: Int { ownBase + ownCount }

    init(_ options: _ReadOptions, own: Int) {
        timestamp = options.wantsTimestamp ? 0 : nil
        extraBase = options.wantsTimestamp ? 1 : 0
        extraCount = options.fields.extra.count
        ownBase = extraBase + extraCount
        ownCount = own
    }

    func extra(_ i: Int) -> Int { extraBase + i }
}

/// What workers need to know about the file a chunk came from. Immutable once built by the reader.
final class _FileState: Sendable {
    let index: Int
    let path: String
    /// The name used in counts, rejects and errors.
    let displayPath: String
    let driver: any _FormatDriver
    /// Whether the file began with a UTF-8 byte-order mark (skipped by the reader).
    let hadBOM: Bool
    /// Whether an output in the file's own format starts with its preamble (byte-order mark, header row):
    /// false for a split of an archive after its first (`classify --range`).
    let writesPreamble: Bool

    var format: InputFormat { driver.format }

    init(index: Int, path: String, displayPath: String, driver: any _FormatDriver, hadBOM: Bool, writesPreamble: Bool = true) {
        self.index = index
        self.path = path
        self.displayPath = displayPath
        self.driver = driver
        self.hadBOM = hadBOM
        self.writesPreamble = writesPreamble
    }
}

/// One record found in a chunk (offsets into the chunk's input buffer).
struct _Record {
    var rawStart = 0
    /// End of the record's content, before its line terminator.
    var contentEnd = 0
    /// End of the record including its terminator.
    var rawEnd = 0
    /// Where the labels are inserted (JSONL: the closing brace; CSV/TSV: `contentEnd`; XML: after the last
    /// attribute).
    /// Negative: the record was rejected (an XML element left out of the output).
    var insertAt = 0
    /// Newlines between the chunk's start and the record's start.
    var relativeLine = 0
    /// The id value (JSONL: the raw JSON value; CSV/TSV/XML: the field's decoded text in the chunk's
    /// scratch); `idEnd < idStart` when the record has none.
    var idStart = 0
    var idEnd = -1
    var idIsJSON = false
    /// JSONL: no member is left once the labels the record carried are dropped (`{}`), so no comma.
    var emptyObject = false
    /// Bytes of labels the record already carried, left out when it is written again (`dropEnd > dropStart`;
    /// XML: a range of `_Parsed.drops`).
    var dropStart = 0
    var dropEnd = 0
    /// JSONL: the body's raw JSON value (for writing it again unchanged).
    var bodyRawStart = 0
    var bodyRawEnd = 0

    var isRejected: Bool { insertAt < 0 }
}

/// A wanted field beyond id, sender and body: its decoded text in the chunk buffer (`end < start`: absent).
struct _Field {
    var start = 0
    var end = -1
    var isPresent: Bool { end >= start }
}

/// What a parser found in a chunk. Owned by one worker (or one sequential reader) and reused chunk after
/// chunk; passed `inout` through a whole chunk, so the hot loops touch local storage rather than class
/// properties (which would pay a dynamic exclusivity check per access).
struct _Parsed {
    var records: [_Record] = []
    /// One per record (a rejected XML element has an empty one), in record order.
    var spans: [MessageSpan] = []
    var verdicts: [Verdict] = []
    /// `fieldsPerRecord` extra fields per record, record-major: timestamp (when wanted), then
    /// `FieldNames.extra`, then the existing-label fields the driver asked for.
    var fields: [_Field] = []
    var fieldsPerRecord = 0
    /// XML: byte ranges of a record's existing label attributes, left out on output.
    var drops: [Range<Int>] = []
    /// CSV: field boundaries of the current row (start, end, quoted).
    var csvFields: [(Int, Int, Bool)] = []
    /// The JSON scanner's per-key results (allocated by the owner, see `_ParseScratch`).
    var jsonFields: UnsafeMutableBufferPointer<JSONField>

    init(jsonFields: UnsafeMutableBufferPointer<JSONField>) {
        self.jsonFields = jsonFields
        records.reserveCapacity(16_384)
        spans.reserveCapacity(16_384)
        verdicts.reserveCapacity(16_384)
        csvFields.reserveCapacity(64)
    }

    mutating func removeAll(fieldsPerRecord: Int) {
        records.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        drops.removeAll(keepingCapacity: true)
        self.fieldsPerRecord = fieldsPerRecord
    }

    /// The extra field `slot` of record `k`.
    @inline(__always)
    func field(_ k: Int, _ slot: Int) -> _Field { fields[k * fieldsPerRecord + slot] }

    /// Appends a record and its message span (and `fieldsPerRecord` absent fields, to be filled).
    @inline(__always)
    mutating func append(_ record: _Record, _ span: MessageSpan) {
        records.append(record)
        spans.append(span)
        var n = fieldsPerRecord
        while n > 0 {
            fields.append(_Field())
            n -= 1
        }
    }

    @inline(__always)
    mutating func setField(_ slot: Int, _ start: Int, _ end: Int) {
        fields[(records.count - 1) * fieldsPerRecord + slot] = _Field(start: start, end: end)
    }

    /// Checks what a driver left (only with `-DBATCHPIPELINE_INTERNAL_CHECKS`): one span and
    /// `fieldsPerRecord` fields per record; every record kept lies in `[0, recordBytes)` with its insertion
    /// point inside it; every span and present field lies in the chunk's `[0, inputBytes)`.
    @inline(__always)
    func _checkInvariants(recordBytes: Int, inputBytes: Int) {
        #if BATCHPIPELINE_INTERNAL_CHECKS
        precondition(spans.count == records.count, "\(spans.count) spans for \(records.count) records")
        precondition(fields.count == records.count * fieldsPerRecord, "\(fields.count) fields for \(records.count) records")
        for (k, r) in records.enumerated() where !r.isRejected {
            precondition(0 <= r.rawStart && r.rawStart <= r.insertAt && r.insertAt <= r.rawEnd && r.rawEnd <= recordBytes, "record \(k) out of bounds")
            precondition(r.dropStart <= r.dropEnd, "record \(k): drops \(r.dropStart)..<\(r.dropEnd)")
            let s = spans[k]
            precondition(s.bodyStart >= 0 && s.bodyCount >= 0 && s.bodyStart + s.bodyCount <= inputBytes, "record \(k): body out of bounds")
            precondition(s.senderCount < 0 || (s.senderStart >= 0 && s.senderStart + s.senderCount <= inputBytes), "record \(k): sender out of bounds")
        }
        for f in fields where f.isPresent { precondition(f.start >= 0 && f.end <= inputBytes, "a field out of bounds") }
        #endif
    }
}

/// The most JSON keys (or XML attributes) a driver looks up per record.
let _maxWantedKeys = 16

/// A worker's (or sequential reader's) parse scratch: `_Parsed` and the memory it points into.
final class _ParseScratch {
    var parsed: _Parsed

    init() {
        let fields = UnsafeMutableBufferPointer<JSONField>.allocate(capacity: _maxWantedKeys)
        fields.initialize(repeating: JSONField())
        parsed = _Parsed(jsonFields: fields)
    }

    deinit { parsed.jsonFields.deallocate() }

    /// Parses `chunk` with its file's driver into `parsed` (one exclusive access for the whole chunk).
    func parse(_ chunk: _Chunk) {
        var out = _Parsed(jsonFields: parsed.jsonFields)
        swap(&out, &parsed)
        defer { swap(&out, &parsed) }
        guard let file = chunk.file, chunk.piece == nil else {
            out.removeAll(fieldsPerRecord: 0)
            return
        }
        out.removeAll(fieldsPerRecord: file.driver.layout.count)
        // Decoded strings go after the records; they are never longer than their source, so reserving the
        // records' size up front means the buffer cannot move while the parser runs (it appends them inside
        // its `withUnsafeBytes` scope; `-DBATCHPIPELINE_INTERNAL_CHECKS` traps if the buffer would move).
        chunk.input.removeLast(from: chunk.recordBytes)
        chunk.input.reserve(chunk.recordBytes + 16)
        file.driver.parse(chunk, into: &out)
        out._checkInvariants(recordBytes: chunk.recordBytes, inputBytes: chunk.input.count)
    }
}

/// Interned key buffers for the JSON scanner and attribute lookups: stable raw pointers over `keys`.
final class _KeyTable: @unchecked Sendable {
    let keys: [[UInt8]]
    /// `keys` as raw buffers over a stable allocation (freed in deinit). Read-only after init.
    let buffers: UnsafeMutableBufferPointer<UnsafeRawBufferPointer>
    /// Each key's first 8 bytes as one word (`_keyPrefix`), for the JSON scanner's key comparison. Read-only
    /// after init.
    let prefixStorage: UnsafeMutableBufferPointer<UInt64>

    init(_ names: [String]) {
        precondition(names.count <= _maxWantedKeys, "at most \(_maxWantedKeys) wanted keys")
        keys = names.map { Array($0.utf8) }
        buffers = .allocate(capacity: max(1, keys.count))
        prefixStorage = .allocate(capacity: max(1, keys.count))
        prefixStorage.initialize(repeating: 0)
        for (i, key) in keys.enumerated() {
            let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, key.count), alignment: 1)
            storage.copyBytes(from: key)
            buffers[i] = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(storage)[0..<key.count])
            prefixStorage[i] = _keyPrefix(key)
        }
        _checkInvariants()
    }

    /// Each buffer holds its key's bytes, each prefix its first 8 (only with `-DBATCHPIPELINE_INTERNAL_CHECKS`).
    @inline(__always)
    func _checkInvariants() {
        #if BATCHPIPELINE_INTERNAL_CHECKS
        precondition(keys.count <= _maxWantedKeys)
        for (i, key) in keys.enumerated() {
            precondition(Array(buffers[i]) == key, "key buffer \(i) differs from its key")
            precondition(prefixStorage[i] == _keyPrefix(key), "key prefix \(i) differs from its key")
        }
        #endif
    }

    deinit {
        for i in 0..<keys.count { UnsafeMutableRawPointer(mutating: buffers[i].baseAddress)?.deallocate() }
        buffers.deallocate()
        prefixStorage.deallocate()
    }

    var count: Int { keys.count }
    var all: UnsafeBufferPointer<UnsafeRawBufferPointer> { UnsafeBufferPointer(rebasing: buffers[0..<keys.count]) }
    var prefixes: UnsafeBufferPointer<UInt64> { UnsafeBufferPointer(rebasing: prefixStorage[0..<keys.count]) }
    func name(_ i: Int) -> String { String(decoding: keys[i], as: UTF8.self) }
}

/// A key's first 8 bytes as a little-endian word (byte 0 lowest), zeros after a shorter key: what
/// `_JSONScanner.wantedSlot` compares a key of the line with, masked to the key's length.
func _keyPrefix(_ key: [UInt8]) -> UInt64 {
    var word: UInt64 = 0
    for (k, byte) in key.prefix(8).enumerated() { word |= UInt64(byte) << UInt64(8 * k) }
    return word
}

/// The field or column names found in a file, for a message: at most 20, each cut at 40 characters, and how
/// many more there are, so that a header row of megabytes (or binary data read as one) never floods the
/// terminal.
func _namesFound(_ names: [String]) -> String {
    var shown = names.prefix(20).map { EchoedText.escaped($0.count > 40 ? String($0.prefix(40)) + "…" : $0) }
    if names.count > 20 { shown.append("… and \(names.count - 20) more") }
    return shown.joined(separator: ", ")
}
