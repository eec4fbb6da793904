import MessageFilter

/// Why a `BatchPipeline` job (classify, evaluate, export, learn, merging counts) stopped or could not start.
///
/// Opaque, as aho-corasick's `BuildError`: the kind is inside, the message says what happened and where
/// (file, line or byte offset), and the questions below tell a caller what to do with it. The command line
/// maps them to exit statuses in one place.
public struct PipelineError: Error, CustomStringConvertible, Sendable {
    enum Kind: Sendable { case inputMissing, outputFailed, badInput, usage, internalError }
    let kind: Kind
    /// What happened, naming the file and, where known, the line or byte offset: one line, the file names,
    /// field names and header cells it repeats with their line feeds, tabs, controls and invisible characters
    /// escaped (``EchoedText``), so that none can forge another line or hide part of it.
    public let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = EchoedText.escaped(message)
    }

    public var description: String { message }

    /// An input (an archive, a mapping file) does not exist or cannot be opened.
    public var isInputMissing: Bool { kind == .inputMissing }
    /// An output could not be created or written (a full disk, a folder without permission).
    public var isOutputFailure: Bool { kind == .outputFailed }
    /// An input is bad: a damaged archive, a malformed record under `strict`, a file that cannot be read as
    /// asked, labelled data that cannot be learnt from, a broken count file.
    public var isBadInput: Bool { kind == .badInput }
    /// The request contradicts itself (an output name whose suffix says another format, a label mapping
    /// that does not parse).
    public var isUsage: Bool { kind == .usage }
    /// A bug: an invariant the job checks did not hold.
    public var isInternal: Bool { kind == .internalError }

    /// An output that could not be written (for callbacks such as ``PipelineOptions/beforeCommit``).
    public static func outputFailed(_ message: String) -> PipelineError { PipelineError(.outputFailed, message) }
    /// A bug found by a callback.
    public static func internalError(_ message: String) -> PipelineError { PipelineError(.internalError, message) }
}

extension PipelineError {
    /// A run in which records were read but none could be used is a failure (SPEC §7: a run in which no record
    /// parses fails, 65), not an empty output and exit 0: the input was almost surely read in the wrong
    /// format or with the wrong field options. nil when some record was used (or none was read at all: an
    /// empty input is not an error).
    ///
    /// - Parameters:
    ///   - rejected: reject category → records, the records the reader refused.
    ///   - formats: the formats the files were read as (for the hint).
    static func nothingRead(records: Int, rejected: [String: Int], formats: [String] = []) -> PipelineError? {
        // Records refused for what they hold, not for how they were read (longer than --max-record, not
        // writable in the output format), are neither read nor unread: one over-long record alone is a reject,
        // not a run that read nothing.
        let neutral = rejected.filter { isNeutral($0.key) }.values.reduce(0, +)
        let rejected = rejected.filter { !isNeutral($0.key) }
        let records = records - neutral
        let refused = rejected.values.reduce(0, +)
        guard records > 0, refused >= records else { return nil }
        let reasons = rejected.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(3).map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let seen = Array(Set(formats.filter { !$0.isEmpty })).sorted()
        let read = seen.isEmpty ? "" : " (read as \(seen.joined(separator: ", ")))"
        return PipelineError(
            .badInput,
            "no record could be read: all \(records) were rejected (\(reasons))\(read); if the input is in another format, "
                + "say which with --input-format jsonl|csv|tsv|xml, and check the field options")
    }

    /// The reject category of a record longer than `--max-record` (`_ReadOptions.overlongCategory`).
    static let overlongCategory = "record longer than --max-record"

    /// A reject category that says nothing about the format the input was read in.
    static func isNeutral(_ category: String) -> Bool {
        category.hasPrefix(overlongCategory) || category.hasPrefix("not writable as ")
            || category == "a NUL byte, which CSV cannot hold"
    }
}
