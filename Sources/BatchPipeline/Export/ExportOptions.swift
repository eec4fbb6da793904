import ArchiveIO

/// Settings of one `export` run: turning an archive into train/validation/test files.
public struct ExportOptions: Sendable {
    /// The training-file format.
    public enum OutputFormat: String, Sendable, CaseIterable {
        /// `{"id": …, "label": …, "body": …}` per line.
        case jsonl
        /// `id,label,body` with a header row, RFC 4180 quoting.
        case csv
        /// `__label__LABEL body` per line (fastText's supervised format).
        case fasttext

        /// The file extension (`jsonl`, `csv`, `txt`).
        public var fileExtension: String {
            switch self {
            case .jsonl: "jsonl"
            case .csv: "csv"
            case .fasttext: "txt"
            }
        }
    }

    /// What the label of a record is.
    public enum LabelKind: String, Sendable, CaseIterable {
        /// The folder path: `Transactions/Finance`, `Junk`, `Unknown Senders`.
        case folder
        /// The action: `transaction`, `junk`, `none`.
        case action
        /// The action and the kept sub-action: `transaction/transactionalFinance`, `junk`.
        case actionSubAction = "action-subaction"
    }

    /// Where labels come from.
    public enum LabelSource: Sendable, Equatable {
        /// The labels the record carries (written by `classify`: a `filter` object, `filter_*` columns or
    /// attributes) when it has them; otherwise the rules.
        case auto
        /// Always classify with the rules, ignoring any `filter` object.
        case rules
        /// A field of the record, taken verbatim (e.g. a human label); records without it are skipped.
        case field(String)
    }

    /// How the inputs' records are read: format, fields, header row, longest record, the stdin name.
    public var input = RecordFormat()
    public var format = OutputFormat.jsonl
    public var labelKind = LabelKind.folder
    public var labelSource = LabelSource.auto
    /// The key of the labels object written by `classify`.
    public var filterKey = "filter"
    /// Shares of train, validation and test.
    public var ratios = SplitRatios(train: 80, validation: 10, test: 10)!
    /// Drop records whose normalised body was seen before (the first one is kept).
    public var deduplicate = false
    /// Count duplicates and cross-split leaks (memory: one 64-bit hash and one byte per distinct body).
    /// Off: memory stays flat whatever the input size, and no duplicate or leak is counted.
    public var trackDuplicates = true
    /// Keep at most this many records per label: those with the smallest ``StableHash/selection(_:)`` ranks
    /// (a hash of the id independent of the split, so the kept records spread over the splits as the rest).
    public var maxPerLabel: Int?
    /// fastText's label prefix.
    public var labelPrefix = "__label__"
    /// The folder that receives `train.<ext>`, `validation.<ext>`, `test.<ext>`.
    public var outputFolder = "."
    /// zstd level of the outputs (names get `.zst`); nil: plain.
    public var compressionLevel: Int32?
    /// With ``compressionLevel``: decoded bytes per frame in zstd's seekable format (frames and a seek table);
    /// nil: one frame.
    public var frameSize: Int? = ZstdSeekableEncoder.defaultFrameSize
    /// What the outputs do with a regular file already at their path (``OutputFile/Existing``).
    public var existing = OutputFile.Existing.replace
    /// Worker threads (the same chunk fan-out as `classify`).
    public var threads = 2
    /// Bytes of records per work unit.
    public var chunkSize = 1 << 20
    /// Called about four times a second with the progress so far.
    public var progress: (@Sendable (Progress) -> Void)?

    public init() {}
}
