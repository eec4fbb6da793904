/// The options of a job that reads records on worker threads through `_RecordReader` (export, evaluate):
/// what the records look like (``RecordFormat``) and how much is read at once.
protocol _RecordJobOptions {
    var input: RecordFormat { get }
    var chunkSize: Int { get }
}

extension _RecordJobOptions {
    /// The reader's options for these settings, decoding on `threads` threads; the job adds its own
    /// (extra fields, labels it looks for).
    func readOptions(threads: Int) -> _ReadOptions {
        var read = _ReadOptions(input)
        read.chunkSize = chunkSize
        read.decodeThreads = threads
        return read
    }
}

extension ExportOptions: _RecordJobOptions {}
