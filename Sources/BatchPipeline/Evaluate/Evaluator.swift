import ArchiveIO
import Dispatch
import Foundation
import MessageFilter

/// Settings of one `evaluate` run.
public struct EvaluationOptions: Sendable {
    /// How the inputs' records are read: format, fields, header row, longest record, the stdin name.
    public var input = RecordFormat()
    /// The field holding the corpus's own label.
    public var truthField = "label"
    /// How truth labels map onto actions or folders.
    public var mapping: TruthMapping
    /// Per action or per folder; nil: from the mapping (``TruthMapping/granularity``).
    public var granularity: TruthMapping.Granularity?
    /// How many conflict examples to keep.
    public var conflictExamples = 20
    /// Worker threads (the same chunk fan-out as `classify`).
    public var threads = 2
    /// Bytes of records per work unit.
    public var chunkSize = 1 << 20
    /// Called about four times a second with the progress so far.
    public var progress: (@Sendable (Progress) -> Void)?
    /// Where to write `y_true` and `y_pred` of every scored record, one JSON line each (`--predictions`;
    /// `.zst`/`.gz` compress it by name, `-` is standard output); nil: nowhere.
    public var predictions: String?
    /// What the predictions file does with a regular file already at its path.
    public var existing = OutputFile.Existing.replace

    public init(mapping: TruthMapping) {
        self.mapping = mapping
    }
}

extension EvaluationOptions: _RecordJobOptions {}

/// `smsfilter evaluate`: scores a rule set against a corpus with truth labels.
///
/// The same reader and chunk fan-out as `classify`: workers classify each chunk's records in one batch with
/// the classifier's decision trace (``DecisionTrace``), which lists every rule that fired on a record (won
/// or lost): per-rule fire counts and conflicts (rules of different folders firing on one record) come from
/// it, never from deciding again. The writer adds each chunk's tallies to the report in input order, so the
/// figures do not depend on the thread count. Memory: the chunk pool, counters per rule, per class and per
/// truth label, and at most ``EvaluationOptions/conflictExamples`` examples.
public final class Evaluator {
    public let ruleSet: RuleSet
    public let options: EvaluationOptions

    public init(ruleSet: RuleSet, options: EvaluationOptions) {
        self.ruleSet = ruleSet
        self.options = options
    }

    /// Runs the evaluation over `inputs` (any record format, plain or zstd; `-` is standard input).
    ///
    /// - Throws: ``PipelineError``: an input missing, a damaged archive (after every record before it).
    public func run(inputs: [String]) throws(PipelineError) -> EvaluationReport {
        let started = DispatchTime.now()
        try _Inputs.check(inputs)
        let granularity = options.granularity ?? options.mapping.granularity
        var report = EvaluationReport(ruleSet: ruleSet, mapping: options.mapping, granularity: granularity)
        report.corpus = inputs.map(options.input.name(of:))
        report.truthField = options.truthField
        let context = _EvaluationContext(ruleSet: ruleSet, report: report, conflictExamples: options.conflictExamples, keepsIds: options.predictions != nil)
        let threads = max(1, options.threads)
        let pool = _ChunkPool(slots: 2 * threads + 2, chunkSize: options.chunkSize, folders: 1, rules: 1)
        var read = options.readOptions(threads: threads)
        read.record.fields.extra = [options.truthField]
        let reader = _RecordReader(inputs: inputs, options: read, pool: pool)
        let predictions = try openPredictions()
        let sink = _EvaluationSink(
            report: report, context: context, progress: options.progress, reader: reader.progress, fileCount: inputs.count, predictions: predictions)
        do throws(PipelineError) {
            try _FanOut(pool: pool).run(
                reader: reader, threads: threads, makeWorker: { _EvaluationWorker(ruleSet: self.ruleSet, context: context) }, sink: sink)
            if let damage = sink.damage { throw PipelineError(.badInput, damage) }
            if let failure = PipelineError.nothingRead(records: sink.report.records, rejected: sink.report.skipped) { throw failure }
            do { try predictions?.finish() } catch { throw PipelineError(.outputFailed, error.description) }
        } catch {
            predictions?.abandon()
            throw error
        }
        report = sink.report
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        return report
    }

    /// The `--predictions` file, compressed as its name says (zstd level 3, gzip level 6), or nil.
    private func openPredictions() throws(PipelineError) -> OutputFile? {
        guard let path = options.predictions else { return nil }
        let compression: OutputFile.Compression
        switch OutputFile.compression(namedBy: path) {
        case .zstd: compression = .zstd(level: 3, workers: 0)
        case .gzip: compression = .gzip(level: 6)
        case .none: compression = .none
        }
        do { return try OutputFile(path: path, compression: compression, existing: options.existing) } catch {
            throw PipelineError(.outputFailed, error.description)
        }
    }
}
