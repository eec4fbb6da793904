import ArgumentParser
import BatchPipeline

/// How to read the records of the input files: format, field names, header row and worker threads. One
/// `@OptionGroup` for the commands that read records on all cores (classify, export, evaluate); learn, which
/// reads on one thread, takes its ``RecordFormatOptions`` part alone. Each option is declared, helped and
/// defaulted once.
///
/// The checks of these values stay in each command's `validate()` (`Limits.check(input.threads, …)`), so that
/// a command reports its problems in the order it always has.
struct InputOptions: ParsableArguments {
    @OptionGroup var format: RecordFormatOptions

    @OptionGroup var threadsOption: ThreadsOption

    /// `--threads` as given (nil: all cores).
    var threads: Int? { threadsOption.threads }

    /// Sets the reader's part of a job's options: the format, header row and fields, the worker threads (all
    /// cores by default) and the chunk size that goes with them. The one place these options become the
    /// library's.
    func apply<Options: RecordReadingOptions>(to options: inout Options) {
        format.apply(to: &options)
        options.threads = threadsOption.count
        options.chunkSize = PipelineOptions.defaultChunkSize(threads: options.threads)
    }
}

/// What the records look like: the input format, the field names, whether CSV/TSV has a header row, and
/// the longest record read (`--max-record`, offered by every command that reads records).
struct RecordFormatOptions: ParsableArguments {
    @OptionGroup var inputFormatOption: InputFormatOption

    /// `--input-format` as given (nil: from the name and first bytes).
    var inputFormat: InputFormat? { inputFormatOption.inputFormat }

    @OptionGroup var fields: FieldOptions

    @Flag(name: .long, help: "CSV/TSV input has no header row (name fields by 1-based column number).")
    var noHeader = false

    @Option(name: .long, parsing: .unconditional, help: "Longest record read, 1K to 1G; a longer one is rejected and counted.")
    var maxRecord = ByteSize(RecordLimits.defaultMaxRecord)

    @Option(name: .long, help: ArgumentHelp("CSV field separator, such as ';' or '|' (default ','); implies --input-format csv.", valueName: "char"))
    var delimiter: String?

    func validate() throws {
        guard let delimiter else { return }
        guard delimiter.utf8.count == 1, let byte = delimiter.utf8.first, RecordFormat.isValidDelimiter(byte) else {
            let tab = delimiter == "\t" || delimiter == "\\t" ? " (a tab-separated file is --input-format tsv)" : ""
            throw ValidationError("Please give --delimiter as one ASCII punctuation character or a space, such as ';' or '|', not a letter, digit or quote\(tab).")
        }
        if let inputFormat, inputFormat != .csv {
            throw ValidationError("Please drop --delimiter: it is CSV's field separator, and --input-format is \(inputFormat.rawValue).")
        }
    }

    /// Sets the format, header row, fields and longest record of a job's options (its ``RecordFormat``).
    func apply<Options: RecordFormatSettings>(to options: inout Options) {
        options.input.inputFormat = inputFormat
        options.input.hasHeader = !noHeader
        options.input.fields = fields.names
        options.input.maxRecord = maxRecord.bytes
        if let byte = delimiter?.utf8.first {
            options.input.delimiter = byte
            options.input.inputFormat = .csv
        }
    }
}

/// The options of a BatchPipeline job that say what its records look like, as
/// ``RecordFormatOptions/apply(to:)`` sets them.
protocol RecordFormatSettings {
    var input: RecordFormat { get set }
}

/// The options of a BatchPipeline job that reads records on worker threads, as ``InputOptions/apply(to:)``
/// sets them.
protocol RecordReadingOptions: RecordFormatSettings {
    var threads: Int { get set }
    var chunkSize: Int { get set }
}

/// The options of a job that scores or trains against each record's truth label (evaluate, learn).
protocol TruthLabelSettings: RecordFormatSettings {
    var truthField: String { get set }
    var granularity: TruthMapping.Granularity? { get set }
}

extension TruthLabelSettings {
    /// Reads the truth label from `field` (`--truth-field`): without it nothing can be scored or learned, so
    /// it must be found, given or not.
    mutating func readTruth(from field: String, by granularity: TruthMapping.Granularity?) {
        input.fields.required.append(.init(option: "--truth-field", name: field))
        truthField = field
        self.granularity = granularity
    }
}

extension PipelineOptions: RecordReadingOptions {}
extension ExportOptions: RecordReadingOptions {}
extension EvaluationOptions: RecordReadingOptions, TruthLabelSettings {}
extension LearnOptions: TruthLabelSettings {}
