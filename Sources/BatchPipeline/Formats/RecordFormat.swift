/// How the records of a job's inputs are read: their format, field names and header row, the longest record
/// processed whole, the name standard input goes by and the zstd window cap. One value, carried by every job
/// that reads records (``PipelineOptions/input``, ``ExportOptions/input``, ``EvaluationOptions/input``,
/// ``LearnOptions/input``); each default is written here only, and ``_ReadOptions/init(_:)`` is the one place
/// it becomes the reader's.
public struct RecordFormat: Sendable, Equatable {
    /// The record format; nil: guessed from each input's name and first bytes (``InputFormat/sniff(_:path:)``).
    public var inputFormat: InputFormat?
    /// The id, sender and body fields, and the fields a job requires.
    public var fields = FieldNames()
    /// CSV/TSV: whether the first row names the columns (else columns are 1-based numbers).
    public var hasHeader = true
    /// The longest record processed whole; a longer one is rejected (skipped and counted) with its length.
    public var maxRecord = RecordLimits.defaultMaxRecord
    /// The name standard input (`-`) goes by in counts, rejects, reports and errors.
    public var stdinName = "<stdin>"
    /// zstd decoding window cap.
    public var maxWindowBytes = 128 << 20
    /// CSV's field separator (`--delimiter`): a comma by default, or another ASCII character (`;`, `|`); it
    /// separates the fields of CSV records read and written (TSV's is always a tab). ``isValidDelimiter(_:)``
    /// says which bytes can be one.
    public var delimiter = UInt8(ascii: ",")

    /// Whether `byte` can separate CSV fields: printable ASCII or a space, but not a letter, a digit, the
    /// quote (which opens a quoted field) or a tab (TSV's).
    public static func isValidDelimiter(_ byte: UInt8) -> Bool {
        guard byte >= 0x20 && byte < 0x7F, byte != UInt8(ascii: "\"") else { return false }
        let isAlphanumeric = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        return !isAlphanumeric
    }

    public init() {}

    /// The name `input` goes by in counts and reports: itself, or ``stdinName`` for `-`.
    public func name(of input: String) -> String {
        input == "-" ? stdinName : input
    }
}

extension _ReadOptions {
    /// The reader's options for records of `format`; the job adds its own (chunk size, decoding threads,
    /// extra fields, labels it looks for).
    init(_ format: RecordFormat) {
        self.init()
        record = format
    }

    // The reader's own names for the parts of ``record`` (set them through ``record``).
    var inputFormat: InputFormat? { record.inputFormat }
    var fields: FieldNames { record.fields }
    var hasHeader: Bool { record.hasHeader }
    var maxRecord: Int { record.maxRecord }
    var stdinName: String { record.stdinName }
    var maxWindowBytes: Int { record.maxWindowBytes }
}
