/// The options of a job that reads records on worker threads through `_RecordReader` (export, evaluate):
/// what the records look like and how much is read at once. `readOptions(threads:)` is the one place they
/// become the reader's.
protocol _RecordJobOptions {
    var inputFormat: InputFormat? { get }
    var hasHeader: Bool { get }
    var fields: FieldNames { get }
    var maxRecord: Int { get }
    var chunkSize: Int { get }
    var stdinName: String { get }
}

extension _RecordJobOptions {
    /// The reader's options for these settings, decoding on `threads` threads; the job adds its own
    /// (extra fields, labels it looks for).
    func readOptions(threads: Int) -> _ReadOptions {
        var read = _ReadOptions()
        read.inputFormat = inputFormat
        read.hasHeader = hasHeader
        read.fields = fields
        read.maxRecord = maxRecord
        read.chunkSize = chunkSize
        read.stdinName = stdinName
        read.decodeThreads = threads
        return read
    }
}

extension ExportOptions: _RecordJobOptions {}
