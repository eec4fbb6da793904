/// Limits on records that several options and folders share, each written once.
public enum RecordLimits {
    /// The default of `--max-record` and of every `maxRecord` option: 64 MiB. A longer record is rejected,
    /// streamed past in pieces, never held whole.
    public static let defaultMaxRecord = 64 << 20
}
