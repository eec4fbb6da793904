// MARK: Internal API
//
// classify's writer: takes chunks strictly in input order, writes the labelled output (after the preamble
// the first file gives it), the rejects with their absolute line numbers (the chunk's first line from the
// ledger, `_LineLedger`, which never waits here: every earlier chunk is written), merges the counts and
// reports progress. It owns the counts until the job has finished.

import Dispatch
import MessageFilter
import ArchiveIO

final class _ClassifySink: _ChunkSink {
    let options: PipelineOptions
    let plan: _OutputPlan
    let output: OutputFile?
    let rejects: OutputFile?
    let folders: [Folder]
    let ruleNames: [String]
    let progressSource: _ReadProgress
    let fileCount: Int
    /// The inputs as named (for each file's identity, `RunCounts.File.archive`).
    let inputs: [String]

    var counts = RunCounts()
    var damaged = false
    /// The split of the archive this run reads (`classify --range`): its file entry says so, and a split that
    /// stops before the archive's end writes no epilogue (a converted XML document's closing tag).
    var split: _ReadSplit? {
        didSet {
            guard let split, !counts.files.isEmpty else { return }
            counts.files[0].range = RunCounts.File.SplitRange(start: split.start, end: split.end, archiveBytes: split.index.fileSize)
        }
    }
    var stageNanos: [String: UInt64] = [:]
    var latencies: [Double] = []
    private var wrotePreamble = false
    private var streamed = _StreamedReject()
    /// Bytes handed to the rejects file, against ``PipelineOptions/maxRejectsBytes``.
    private var rejectBytes: Int64 = 0
    /// How the over-long record being streamed is kept (decided at its first piece), the most of its bytes
    /// its whole line may hold, its first bytes and its running SHA-256.
    private var streamedForm = _RejectForm.whole
    private var streamedLimit = 0
    private var streamedPrefix: [UInt8] = []
    private var streamedHash = _SHA256()

    /// How a reject is kept in the rejects file (``PipelineOptions/maxRejectsBytes``).
    enum _RejectForm { case whole, short, omitted }

    /// How rejects are kept now; it only moves on (whole, then short, then omitted), so the same rejects in the
    /// same order make the same file whatever the chunks. Whole while each whole line fits in half the budget
    /// (an over-long record's line cut to fit, `_RejectLines.overlongLimit`), then short while each short line
    /// fits in the budget, then only counted: the file never holds more than `--max-rejects-bytes`.
    private var tier = _RejectForm.whole

    private func writeRejects(_ bytes: UnsafeRawBufferPointer) throws(PipelineError) {
        guard let rejects else { return }
        do { try rejects.write(bytes) } catch { throw PipelineError(.outputFailed, "\(error)") }
        rejectBytes += Int64(bytes.count)
    }

    private func writeRejects(_ bytes: [UInt8]) throws(PipelineError) {
        let result: Result<Void, PipelineError> = bytes.withUnsafeBytes { raw in Result { () throws(PipelineError) in try writeRejects(raw) } }
        try result.get()
    }
    private var lastProgress = DispatchTime.now()
    private let started = DispatchTime.now()

    init(options: PipelineOptions, plan: _OutputPlan, output: OutputFile?, rejects: OutputFile?, ruleSet: RuleSet, inputs: [String], progress: _ReadProgress) {
        self.options = options
        self.plan = plan
        self.output = output
        self.rejects = rejects
        folders = plan.emitter.folders
        ruleNames = ruleSet.ruleNames
        progressSource = progress
        fileCount = inputs.count
        self.inputs = inputs
        counts.ruleSet = ruleSet.checksum
        counts.ruleSource = ruleSet.source
        counts.threads = max(1, options.threads)
        for folder in folders { counts.folders[folder.path] = 0 }
        for name in ruleSet.ruleNames { counts.rules[name] = 0 }
        counts.files = inputs.map { RunCounts.File(path: options.input.name(of: $0), format: "") }
    }

    func consume(_ chunk: _Chunk) throws(PipelineError) {
        guard let file = chunk.file else { return }
        if chunk.isFirstOfFile { counts.files[file.index].format = file.format.rawValue }
        let writeStart = options.collectStats ? DispatchTime.now().uptimeNanoseconds : 0
        if !wrotePreamble { try writePreamble(file) }
        if let piece = chunk.piece {
            try writePiece(piece, chunk, file)
        } else {
            try chunk.output.withUnsafeBytes { (bytes) throws(PipelineError) in try write(bytes) }
        }
        if options.collectStats { time(chunk, since: writeStart) }
        for reject in chunk.rejects { try writeReject(reject, chunk, file) }
        if let reject = chunk.tailReject { try writeReject(reject, chunk, file) }
        merge(chunk, into: file.index)
        if chunk.isLastOfFile {
            counts.files[file.index].compressed = chunk.compressed
            counts.files[file.index].compressedBytes = chunk.compressedBytes
            counts.compressedBytes += chunk.compressedBytes
            counts.files[file.index].archive = _ArchiveIdentity.of(inputs[file.index])
            if let error = chunk.fileError {
                counts.files[file.index].error = error
                damaged = true
            }
        }
        report(force: chunk.isLastOfFile)
    }

    /// What the output ends with (a converted XML document's closing tag); written once every chunk is.
    func finish() throws(PipelineError) {
        guard !plan.labelsOnly, wrotePreamble, !wroteSameFormat, let (_, writer) = plan.current else { return }
        if let split, split.end < split.index.fileSize { return }
        try write(writer.epilogue())
    }

    /// Whether the output is in the first file's own format (then it carries its own framing, such as the XML
    /// prolog and closing tag, and gets no epilogue).
    private var wroteSameFormat = false

    private func writePreamble(_ file: _FileState) throws(PipelineError) {
        wrotePreamble = true
        guard !plan.labelsOnly, let (format, writer) = plan.current else { return }
        if format == file.format {
            guard file.writesPreamble else {
                wroteSameFormat = true
                return
            }
            wroteSameFormat = true
            var bytes: [UInt8] = file.hadBOM ? [0xEF, 0xBB, 0xBF] : []
            bytes += file.driver.preamble(plan.emitter)
            try write(bytes)
        } else if file.writesPreamble {
            try write(writer.preamble())
        }
    }

    private func write(_ bytes: [UInt8]) throws(PipelineError) {
        guard let output, !bytes.isEmpty else { return }
        do { try output.write(bytes) } catch { throw PipelineError(.outputFailed, error.description) }
    }

    private func write(_ bytes: UnsafeRawBufferPointer) throws(PipelineError) {
        guard let output, bytes.count > 0 else { return }
        do { try output.write(bytes) } catch { throw PipelineError(.outputFailed, error.description) }
    }

    /// A piece of an over-long record: into the rejects as it streams, or (XML bytes that pass through)
    /// into the output when it is written as XML.
    private func writePiece(_ piece: _Piece, _ chunk: _Chunk, _ file: _FileState) throws(PipelineError) {
        // The record's line: its first piece's first line (in order, so the ledger never waits here).
        let line = piece.passThrough ? 0 : chunk.firstLine() - piece.linesBefore
        try chunk.input.withUnsafeBytes(0..<chunk.recordBytes) { (bytes) throws(PipelineError) in try writePiece(piece, line, bytes, file) }
    }

    /// Writes the piece's bytes, `bytes` (the chunk's records), of the record at `line`.
    private func writePiece(_ piece: _Piece, _ line: Int, _ bytes: UnsafeRawBufferPointer, _ file: _FileState) throws(PipelineError) {
        if piece.passThrough {
            if !plan.labelsOnly, plan.current?.format == file.format { try write(bytes) }
            return
        }
        if piece.isFirst {
            if options.strict { throw PipelineError(.badInput, "\(file.displayPath):\(line): \(piece.reason) (--strict)") }
            counts.rejectReasons[_RejectLines.category(piece.reason), default: 0] += 1
        }
        guard rejects != nil else { return }
        if piece.isFirst {
            streamedPrefix = []
            streamedHash = _SHA256()
            if tier == .whole {
                // Its length is not known yet: its line is cut where it would leave half the budget.
                streamedLimit = _RejectLines.overlongLimit(
                    room: options.maxRejectsBytes / 2 - rejectBytes, file: file.displayPath, line: line, reason: piece.reason)
                if streamedLimit == 0 { tier = .short }
            }
            streamedForm = tier
            if streamedForm == .omitted { counts.rejectsOmitted += 1 }
        }
        switch streamedForm {
        case .omitted:
            return
        case .short:
            // Its length is known only at the last piece: the first bytes and the hash are kept until then.
            streamedPrefix += bytes.prefix(_RejectLines.shortPrefix - streamedPrefix.count)
            streamedHash.update(bytes)
            if piece.isLast {
                let text = _RejectLines.short(
                    file.displayPath, line, piece.reason, length: piece.length, prefix: streamedPrefix, sha256: streamedHash.finish())
                if rejectBytes + Int64(text.count) <= options.maxRejectsBytes {
                    counts.rejectsShortened += 1
                    try writeRejects(text)
                } else {
                    tier = .omitted
                    counts.rejectsOmitted += 1
                }
            }
        case .whole:
            // The first piece holds `--max-record` bytes: its text is made and written a slice at a time, so the
            // writer never holds more than a slice's base64 beside it.
            streamedHash.update(bytes)
            let cut = piece.isLast && piece.length > streamedLimit
            let sha256 = cut ? streamedHash.finish() : nil
            var start = 0
            repeat {
                let end = min(bytes.count, start + _StreamedReject.slice)
                var part = piece
                part.isFirst = piece.isFirst && start == 0
                part.isLast = piece.isLast && end == bytes.count
                try writeRejects(streamed.text(part, line: line, UnsafeRawBufferPointer(rebasing: bytes[start..<end]), file: file.displayPath,
                                               limit: streamedLimit, sha256: sha256))
                start = end
            } while start < bytes.count
            if cut {
                counts.rejectsShortened += 1
                tier = .short
            }
        }
    }

    private func writeReject(_ reject: _Reject, _ chunk: _Chunk, _ file: _FileState) throws(PipelineError) {
        let line = chunk.firstLine() + reject.relativeLine
        if options.strict { throw PipelineError(.badInput, "\(file.displayPath):\(line): \(reject.reason) (--strict)") }
        counts.rejectReasons[_RejectLines.category(reject.reason), default: 0] += 1
        guard rejects != nil else { return }
        let path = file.displayPath
        let budget = options.maxRejectsBytes
        let overlong = reject.category == _ReadOptions.overlongCategory
        if tier == .whole {
            if overlong {
                // As when it streams (the same line whatever the chunk size): cut where it would leave half the budget.
                let limit = _RejectLines.overlongLimit(room: budget / 2 - rejectBytes, file: path, line: line, reason: reject.reason)
                if limit > 0 {
                    try _RejectLines.write(path, line, reject, overlongLimit: limit) { (part: UnsafeRawBufferPointer) throws(PipelineError) in
                        try writeRejects(part)
                    }
                    if reject.raw.count > limit {
                        counts.rejectsShortened += 1
                        tier = .short
                    }
                    return
                }
            } else if rejectBytes + _RejectLines.size(path, line, reject) <= budget / 2 {
                try _RejectLines.write(path, line, reject) { (part: UnsafeRawBufferPointer) throws(PipelineError) in try writeRejects(part) }
                return
            }
            tier = .short
        }
        if tier == .short {
            if reject.raw.count <= _RejectLines.shortPrefix && !overlong {
                // No longer than a short line's prefix: kept whole, it costs no more.
                if rejectBytes + _RejectLines.size(path, line, reject) <= budget {
                    try _RejectLines.write(path, line, reject) { (part: UnsafeRawBufferPointer) throws(PipelineError) in try writeRejects(part) }
                    return
                }
            } else {
                var hash = _SHA256()
                reject.raw.withUnsafeBytes { hash.update($0) }
                let text = _RejectLines.short(
                    path, line, reject.reason, length: reject.length, prefix: Array(reject.raw.prefix(_RejectLines.shortPrefix)),
                    sha256: hash.finish())
                if rejectBytes + Int64(text.count) <= budget {
                    counts.rejectsShortened += 1
                    try writeRejects(text)
                    return
                }
            }
            tier = .omitted
        }
        counts.rejectsOmitted += 1
    }

    private func merge(_ chunk: _Chunk, into i: Int) {
        let c = chunk.counts
        counts.records += c.records
        counts.labelled += c.labelled
        counts.rejected += c.rejected
        counts.blankLines += c.blank
        counts.mms += c.mms
        counts.noRule += c.noRule
        counts.dropped["invalidPair", default: 0] += c.invalidPair
        counts.dropped["notDeclared", default: 0] += c.notDeclared
        for (k, n) in c.folders.enumerated() where n > 0 { counts.folders[folders[k].path, default: 0] += n }
        for (k, n) in c.rules.enumerated() where n > 0 { counts.rules[ruleNames[k], default: 0] += n }
        counts.bytes += Int64(chunk.decodedBytes)
        counts.files[i].records += c.records
        counts.files[i].labelled += c.labelled
        counts.files[i].rejected += c.rejected
        counts.files[i].bytes += Int64(chunk.decodedBytes)
    }

    private func time(_ chunk: _Chunk, since writeStart: UInt64) {
        let now = DispatchTime.now().uptimeNanoseconds
        stageNanos["write", default: 0] += now - writeStart
        stageNanos["parse", default: 0] += chunk.parseNanos
        stageNanos["match", default: 0] += chunk.classifyNanos
        stageNanos["emit", default: 0] += chunk.emitNanos
        latencies.append(Double(now - chunk.queuedAt) / 1e9)
    }

    private func report(force: Bool) {
        guard let progress = options.progress else { return }
        let now = DispatchTime.now()
        guard force || now.uptimeNanoseconds - lastProgress.uptimeNanoseconds > 250_000_000 else { return }
        lastProgress = now
        let (file, read, total) = progressSource.snapshot()
        progress(
            Progress(
                records: counts.records, rejected: counts.rejected, bytes: counts.bytes, inputBytesRead: read, inputBytesTotal: total,
                fileIndex: file, fileCount: fileCount, seconds: Double(now.uptimeNanoseconds - started.uptimeNanoseconds) / 1e9))
    }
}
