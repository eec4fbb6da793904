import Dispatch
import Foundation
import MessageFilter
import ArchiveIO

/// The classify job: archives in, labelled records, rejects and counts out, in bounded memory.
///
/// ```
///  inputs ─▶ reader (_RecordReader: decode, frame, chunks of whole records) ─▶ work queue
///                                                                                  │
///            workers × threads (parse ▸ batch classify ▸ emit labels) ◀────────────┘
///                                                                                  │
///  output ◀─ ordered writer (input order, counts, rejects) ◀── completion ─────────┘
/// ```
///
/// Memory is bounded by the chunk pool: `2 × threads + 2` slots of about `3.5 × chunkSize` bytes each
/// (input with room for decoded strings, and output), plus one budget of `maxRecord` bytes shared by every
/// record longer than a chunk, whatever the thread count (each costs about 3× its bytes: input, decoded
/// strings, output; docs/PERFORMANCE.md "Memory by formula"). Output bytes are identical whatever the
/// thread count and chunk size.
public final class Pipeline: Sendable {
    public let ruleSet: RuleSet
    public let options: PipelineOptions

    public init(ruleSet: RuleSet, options: PipelineOptions) {
        self.ruleSet = ruleSet
        self.options = options
    }

    /// Runs the job over `inputs` (paths; `-` is standard input), in order.
    ///
    /// - Returns: the counts, and whether an input was damaged (exit 65).
    /// - Throws: ``PipelineError``: an input missing, an output that cannot be written, a malformed record
    ///   under `strict`, an output name that says another format, a broken accounting invariant. Outputs are
    ///   then abandoned: no file that looks complete is left.
    public func run(inputs: [String]) throws(PipelineError) -> RunResult {
        let started = DispatchTime.now()
        try _Inputs.check(inputs)
        let split = try options.split.map { s throws(PipelineError) in try _Splits.check(s, inputs: inputs, options: options) }
        let (output, rejects) = try openOutputs()
        do throws(PipelineError) {
            var result = try work(inputs, output, rejects, split: split, started: started)
            result.counts.seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            try commit(result.counts, output, rejects)
            return result
        } catch {
            output?.abandon()
            rejects?.abandon()
            throw error
        }
    }

    private func openOutputs() throws(PipelineError) -> (OutputFile?, OutputFile?) {
        let output: OutputFile?
        do {
            output = try options.outputPath.map { path throws(ZstdError) in
                try OutputFile(path: path, compression: options.outputCompression(path), existing: options.existing)
            }
        } catch {
            throw PipelineError(.outputFailed, error.description)
        }
        do {
            let rejects = try options.rejectsPath.map { path throws(ZstdError) in
                try OutputFile(path: path, compression: options.rejectsCompression(path), existing: options.existing)
            }
            return (output, rejects)
        } catch {
            output?.abandon()
            throw PipelineError(.outputFailed, error.description)
        }
    }

    /// Reads, classifies and writes every record.
    private func work(
        _ inputs: [String], _ output: OutputFile?, _ rejects: OutputFile?, split: _ReadSplit?, started: DispatchTime
    ) throws(PipelineError) -> RunResult {
        let threads = max(1, options.threads)
        let emitter = _Emitter(
            ruleSet: ruleSet, filterKey: options.filterKey, explain: options.explain, csvSeparator: options.input.delimiter)
        let plan = _OutputPlan(
            emitter: emitter, labelsOnly: options.labelsOnly, requested: options.outputFormat, path: options.outputPath,
            fields: options.input.fields)
        let pool = _ChunkPool(slots: 2 * threads + 2, chunkSize: options.chunkSize, folders: emitter.folders.count, rules: ruleSet.ruleNames.count)
        var read = options.readOptions
        read.decodeThreads = threads
        read.split = split
        let reader = _RecordReader(inputs: inputs, options: read, pool: pool, collectStats: options.collectStats)
        reader.onOpen = { file, head throws(PipelineError) in try plan.decide(first: file, head: head) }
        // A split writes rejects within its share of the budget, so that an archive's splits together hold
        // what one whole run may (docs/RELIABILITY.md, "A reject keeps its bytes").
        var sinkOptions = options
        if let split, split.isPartial { sinkOptions.maxRejectsBytes = _Splits.rejectsShare(options.maxRejectsBytes, of: split) }
        let sink = _ClassifySink(
            options: sinkOptions, plan: plan, output: output, rejects: rejects, ruleSet: ruleSet, inputs: inputs, progress: reader.progress)
        sink.split = split
        try _FanOut(pool: pool).run(
            reader: reader, threads: threads,
            makeWorker: { _ClassifyWorker(ruleSet: ruleSet, plan: plan, collectStats: options.collectStats) }, sink: sink)
        try sink.finish()
        guard sink.counts.isBalanced else {
            let c = sink.counts
            throw PipelineError(
                .internalError,
                "internal error: accounting invariant broken: \(c.records) records read, \(c.labelled) labelled, \(c.rejected) rejected")
        }
        // A split is part of a run: whether anything of the archive could be read is known once its splits'
        // counts are merged (RunCounts.merged asks then).
        if !sink.damaged, split?.isPartial != true, let failure = PipelineError.nothingRead(
            records: sink.counts.records, rejected: sink.counts.rejectReasons, formats: sink.counts.files.map(\.format)) {
            throw failure
        }
        var result = RunResult(counts: sink.counts, damaged: sink.damaged)
        if options.collectStats {
            var stages = sink.stageNanos
            stages["decode"] = reader.decodeNanos
            stages["frame"] = reader.frameNanos
            result.stages = stages.mapValues { Double($0) / 1e9 }
            result.chunkLatencies = sink.latencies
        }
        return result
    }

    /// Writes the counts (``PipelineOptions/beforeCommit``), then puts the outputs in place.
    private func commit(_ counts: RunCounts, _ output: OutputFile?, _ rejects: OutputFile?) throws(PipelineError) {
        if let beforeCommit = options.beforeCommit { try beforeCommit(counts) }
        do {
            try output?.finish()
            try rejects?.finish()
        } catch {
            throw PipelineError(.outputFailed, error.description)
        }
    }
}

/// Checks a split (`PipelineOptions.split`) before anything starts.
enum _Splits {
    /// The split as the reader takes it: one input, a zstd archive whose frames start (or end) at both
    /// offsets.
    ///
    /// - Throws: ``PipelineError``: usage (not one file, not zstd, offsets that are not frame boundaries),
    ///   input missing (the archive cannot be read).
    static func check(_ split: ArchiveSplit, inputs: [String], options: PipelineOptions) throws(PipelineError) -> _ReadSplit {
        guard inputs.count == 1, let path = inputs.first, path != "-" else {
            throw PipelineError(.usage, "--range reads one archive, named as a file (not standard input)")
        }
        try _SeekableInput.check(path, for: "--range")
        let index: ZstdFrameIndex
        do {
            guard let found = try ZstdFrameIndex.read(path: path) else {
                throw PipelineError(
                    .usage, "\(path): --range reads zstd archives of several frames; this is not zstd (classify it whole)")
            }
            index = found
        } catch let error as PipelineError {
            throw error
        } catch {
            throw PipelineError(.inputMissing, "\(error)")
        }
        guard split.start >= 0, split.start < split.end, split.end <= index.fileSize else {
            throw PipelineError(
                .usage, "--range \(split.start):\(split.end): expected START < END ≤ \(index.fileSize) (the size of \(path))")
        }
        for (name, offset) in [("START", split.start), ("END", split.end)] where !index.isBoundary(offset) {
            let (before, after) = index.boundaries(around: offset)
            let near = [before, after].compactMap { $0 }.map(String.init).joined(separator: " and ")
            throw PipelineError(
                .usage,
                "\(path): --range \(name) \(offset) is not a frame boundary (the nearest are \(near); smsfilter plan lists the splits)")
        }
        if let first = split.firstLine, !(1...ArchiveSplit.maxFirstLine).contains(first) {
            throw PipelineError(.usage, "--first-line \(first): expected 1 to \(ArchiveSplit.maxFirstLine)")
        }
        let linesMatter = options.rejectsPath != nil || options.labelsOnly || options.strict
        return _ReadSplit(start: split.start, end: split.end, index: index, firstLine: split.firstLine, linesMatter: linesMatter)
    }
}

extension _Splits {
    /// A split's share of the rejects budget: `budget × its compressed bytes / the archive's` (rounded down),
    /// so that the shares of an archive's splits add up to at most the budget. Known from the split alone
    /// (no plan needed): every split of any plan of the archive gets the same share for the same bytes.
    static func rejectsShare(_ budget: Int64, of split: _ReadSplit) -> Int64 {
        let size = split.index.fileSize
        guard size > 0 else { return budget }
        let product = budget.multipliedFullWidth(by: split.end - split.start)
        return size.dividingFullWidth((product.high, product.low)).quotient
    }
}

/// Checks inputs before anything starts (missing, a folder, unreadable: exit 66).
enum _Inputs {
    static func check(_ inputs: [String]) throws(PipelineError) {
        for path in inputs where path != "-" {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw PipelineError(.inputMissing, "\(path): no such file")
            }
            if isFolder.boolValue { throw PipelineError(.inputMissing, "\(path): is a folder, not a file") }
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw PipelineError(.inputMissing, "\(path): not readable (permission denied)")
            }
        }
    }
}

/// Whether `path` exists, and whether it is a folder.
func _fileExists(_ path: String, _ isFolder: inout Bool) -> Bool {
    var folder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &folder) else { return false }
    isFolder = folder.boolValue
    return true
}
