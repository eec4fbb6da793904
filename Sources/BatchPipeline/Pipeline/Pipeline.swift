import Dispatch
import Foundation
import MessageFilter
import ZstdStream

/// The classify job: archives in, labelled records, rejects and counts out, in bounded memory.
///
/// ```
///  inputs ─▶ reader (zstd decode, cut into chunks of whole records) ─▶ work queue
///                                                                         │
///            workers × threads (parse ▸ batch classify ▸ emit labels) ◀───┘
///                                                                         │
///  output ◀─ ordered writer (input order, counts, rejects) ◀── completion ┘
/// ```
///
/// Memory is bounded by the chunk pool: `2 × threads + 2` slots of about `3.5 × chunkSize` bytes each
/// (input with room for decoded strings, and output), plus one record of up to `maxRecord` bytes when
/// a record is longer than a chunk. Output bytes are identical whatever the thread count and chunk size.
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
    /// - Throws: ``PipelineError``: an input missing (66), an output that cannot be written (73), a
    ///   malformed record under `strict` (65), a broken accounting invariant (70). Outputs are then
    ///   abandoned: no file that looks complete is left.
    public func run(inputs: [String]) throws(PipelineError) -> RunResult {
        let started = DispatchTime.now()
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
        let output: OutputFile?
        let rejects: OutputFile?
        do {
            output = try options.outputPath.map { path throws(ZstdError) in
                let level = options.outputLevel ?? (path.hasSuffix(".zst") ? 1 : nil)
                return try OutputFile(
                    path: path, compression: level.map { .zstd(level: $0, workers: Int32(options.compressionWorkers)) } ?? .none,
                    existing: options.existing)
            }
            rejects = try options.rejectsPath.map { path throws(ZstdError) in
                try OutputFile(
                    path: path, compression: path.hasSuffix(".zst") ? .zstd(level: 3, workers: 0) : .none,
                    existing: options.existing)
            }
        } catch {
            throw PipelineError(.outputFailed, error.description)
        }
        let job = _Job(pipeline: self, inputs: inputs, output: output, rejects: rejects, started: started)
        return try job.run()
    }
}

/// One run's moving parts. Lives for one `run(inputs:)`.
final class _Job: @unchecked Sendable {
    let options: PipelineOptions
    let ruleSet: RuleSet
    let inputs: [String]
    let output: OutputFile?
    let rejects: OutputFile?
    let emitter: _Emitter
    let pool: _ChunkPool
    let work = _WorkQueue()
    let completion = _OrderedCompletion()
    let folders: [Folder]
    let keyNames: [String]

    private let lock = NSLock()
    // Guarded by `lock`.
    private var failure: PipelineError?
    private var inputBytesRead: Int64 = 0
    private var inputBytesTotal: Int64?
    private var currentFile = 0

    // Owned by the writer thread until the workers and writer have finished.
    var counts = RunCounts()
    var damaged = false
    var stageNanos: [String: UInt64] = [:]
    var latencies: [Double] = []
    /// Reader-side stage times (only the reader touches them until it finishes).
    var decodeNanos: UInt64 = 0
    var frameNanos: UInt64 = 0
    var lineBase: [Int]

    /// When the run began (for ``RunCounts/seconds``).
    let started: DispatchTime

    init(pipeline: Pipeline, inputs: [String], output: OutputFile?, rejects: OutputFile?, started: DispatchTime) {
        self.started = started
        options = pipeline.options
        ruleSet = pipeline.ruleSet
        self.inputs = inputs
        self.output = output
        self.rejects = rejects
        emitter = _Emitter(ruleSet: ruleSet, filterKey: options.filterKey, explain: options.explain)
        folders = emitter.folders
        pool = _ChunkPool(
            slots: 2 * max(1, options.threads) + 2, chunkSize: options.chunkSize, folders: folders.count,
            rules: ruleSet.ruleNames.count)
        keyNames = [options.fields.id, options.fields.sender, options.fields.body]
        lineBase = Array(repeating: 1, count: inputs.count)
        counts.ruleSet = ruleSet.checksum
        counts.ruleSource = ruleSet.source
        counts.threads = max(1, options.threads)
        for folder in folders { counts.folders[folder.path] = 0 }
        for name in ruleSet.ruleNames { counts.rules[name] = 0 }
        counts.files = inputs.map { RunCounts.File(path: $0 == "-" ? options.stdinName : $0, format: "") }
    }

    var failed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return failure != nil
    }

    func fail(_ error: PipelineError) {
        lock.lock()
        if failure == nil { failure = error }
        lock.unlock()
    }

    func run() throws(PipelineError) -> RunResult {
        let group = DispatchGroup()
        let threads = max(1, options.threads)
        for _ in 0..<threads {
            let worker = _Worker(ruleSet: ruleSet, emitter: emitter, options: options, keyCount: keyNames.count)
            let box = _Unchecked(worker)
            DispatchQueue.global(qos: .userInitiated).async(group: group) {
                while let chunk = self.work.pop() {
                    box.value.process(chunk)
                    self.completion.complete(chunk)
                }
            }
        }
        let writerDone = DispatchSemaphore(value: 0)
        let writer = Thread { [self] in
            writeLoop()
            writerDone.signal()
        }
        writer.name = "smsfilter-writer"
        writer.start()

        let total = readAll()
        work.close()
        completion.finish(total: total)
        group.wait()
        writerDone.wait()

        lock.lock()
        let failure = self.failure
        lock.unlock()
        if let failure {
            output?.abandon()
            rejects?.abandon()
            throw failure
        }
        guard counts.isBalanced else {
            output?.abandon()
            rejects?.abandon()
            throw PipelineError(
                .internalError,
                "internal error: accounting invariant broken: \(counts.records) records read, \(counts.labelled) labelled, \(counts.rejected) rejected")
        }
        counts.seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        if let beforeCommit = options.beforeCommit {
            do throws(PipelineError) {
                try beforeCommit(counts)
            } catch {
                output?.abandon()
                rejects?.abandon()
                throw error
            }
        }
        do {
            try output?.finish()
            try rejects?.finish()
        } catch {
            output?.abandon()
            rejects?.abandon()
            throw PipelineError(.outputFailed, error.description)
        }
        var result = RunResult(counts: counts, damaged: damaged)
        if options.collectStats {
            stageNanos["decode"] = decodeNanos
            stageNanos["frame"] = frameNanos
            result.stages = stageNanos.mapValues { Double($0) / 1e9 }
            result.chunkLatencies = latencies
        }
        return result
    }

    // MARK: Reader

    /// Reads every input, cuts chunks and queues them; returns the number of chunks queued.
    private func readAll() -> Int {
        var sequence = 0
        let carry = _ByteBuffer(capacity: 64 * 1024)
        for (index, path) in inputs.enumerated() {
            if failed { break }
            lock.lock()
            currentFile = index
            inputBytesRead = 0
            inputBytesTotal = path == "-" ? nil : (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? nil
            lock.unlock()
            carry.removeAll()
            let decoder: ZstdDecoder
            do {
                decoder = path == "-"
                    ? try ZstdDecoder(fileDescriptor: 0, path: options.stdinName, options: .init(maxWindowBytes: options.maxWindowBytes))
                    : try ZstdDecoder(path: path, options: .init(maxWindowBytes: options.maxWindowBytes))
            } catch {
                fail(PipelineError(.inputMissing, error.description))
                break
            }
            sequence = readFile(index: index, path: path, decoder: decoder, carry: carry, sequence: sequence)
        }
        return sequence
    }

    private func readFile(index: Int, path: String, decoder: ZstdDecoder, carry: _ByteBuffer, sequence start: Int) -> Int {
        var sequence = start
        var file: _FileState?
        var eof = false
        var fileError: String?
        var firstChunk = true
        var nextLine = 1
        while !eof {
            if failed { return sequence }
            let chunk = pool.take()
            chunk.input.append(carry.bytes)
            carry.removeAll()
            var limit = options.chunkSize
            var boundary = 0
            var preambleBytes = 0
            var overlong = false
            while true {
                // Fill up to `limit` bytes.
                while chunk.input.count < limit && !eof {
                    chunk.input.reserve(limit - chunk.input.count)
                    let room = UnsafeMutableRawBufferPointer(
                        start: chunk.input.storage + chunk.input.count, count: limit - chunk.input.count)
                    let t0 = options.collectStats ? DispatchTime.now().uptimeNanoseconds : 0
                    defer { if options.collectStats { decodeNanos += DispatchTime.now().uptimeNanoseconds - t0 } }
                    do {
                        let n = try decoder.read(into: room)
                        if n == 0 { eof = true } else { chunk.input.count += n }
                    } catch {
                        fileError = error.description
                        eof = true
                    }
                    lock.lock()
                    inputBytesRead = decoder.compressedBytesConsumed
                    lock.unlock()
                }
                let bytes = chunk.input.bytes
                if file == nil {
                    // The first bytes of the file: pick the format, read a CSV header.
                    switch makeFileState(index: index, path: path, bytes: bytes, eof: eof) {
                    case .needMore:
                        if limit >= options.maxRecord {
                            fail(PipelineError(.badInput, "\(displayName(path)): the header row is longer than --max-record"))
                            pool.put(chunk)
                            return sequence
                        }
                        limit *= 2
                        continue
                    case .failed(let error):
                        fail(error)
                        pool.put(chunk)
                        return sequence
                    case .ready(let state, let header):
                        file = state
                        preambleBytes = header
                    }
                }
                let format = file!.format
                let frameStart = options.collectStats ? DispatchTime.now().uptimeNanoseconds : 0
                defer { if options.collectStats { frameNanos += DispatchTime.now().uptimeNanoseconds - frameStart } }
                let body = UnsafeRawBufferPointer(rebasing: bytes[preambleBytes...])
                if eof && fileError == nil {
                    boundary = bytes.count
                    break
                }
                if let b = lastBoundary(format, body) {
                    boundary = preambleBytes + b
                    break
                }
                if eof {
                    boundary = preambleBytes
                    break
                }
                if chunk.input.count - preambleBytes >= options.maxRecord {
                    overlong = true
                    break
                }
                limit = min(limit * 2, options.maxRecord + preambleBytes + options.chunkSize)
            }
            let state = file!
            chunk.file = state
            chunk.sequence = sequence
            sequence += 1
            if firstChunk && preambleBytes > 0 {
                // The header row: written once, before the first file's records, with the label columns.
                let header = UnsafeRawBufferPointer(rebasing: chunk.input.bytes[0..<preambleBytes])
                var end = preambleBytes
                while end > 0 && (header[end - 1] == 0x0A || header[end - 1] == 0x0D) { end -= 1 }
                if index == 0 && !options.labelsOnly {
                    chunk.preamble = Array(header[0..<end]) + emitter.headerColumns(separator: state.separator) + [0x0A]
                }
                chunk.counts.newlines = 0
                lineBaseAdd(index, _countNewlines(header, from: 0, to: preambleBytes))
                // Drop the header from the chunk so records start at 0.
                let rest = chunk.input.count - preambleBytes
                if rest > 0 { memmove(chunk.input.storage, chunk.input.storage + preambleBytes, rest) }
                chunk.input.count = rest
                boundary -= preambleBytes
                chunk.decodedBytes += preambleBytes
            }
            firstChunk = false
            if overlong {
                // An over-long record ends at the next newline (an XML element at the next `>`).
                let skipByte: UInt8 = state.format == .xml ? UInt8(ascii: ">") : 0x0A
                skipOverlong(chunk: chunk, decoder: decoder, carry: carry, skipByte: skipByte, eof: &eof, fileError: &fileError)
            } else {
                let all = chunk.input.bytes
                carry.append(UnsafeRawBufferPointer(rebasing: all[boundary...]))
                chunk.recordBytes = boundary
                chunk.input.count = boundary
                chunk.decodedBytes += boundary
            }
            if options.labelsOnly {
                chunk.firstLine = nextLine
                nextLine += _countNewlines(chunk.input.bytes, from: 0, to: chunk.recordBytes)
            }
            if eof {
                chunk.isLastOfFile = true
                if let fileError {
                    chunk.fileError = fileError
                    // A record cut off by the damage: rejected whole, never lost.
                    if carry.count > 0 {
                        chunk.counts.records += 1
                        chunk.counts.rejected += 1
                        chunk.rejects.append(
                            _Reject(
                                relativeLine: _countNewlines(chunk.input.bytes, from: 0, to: chunk.recordBytes),
                                reason: "record cut off by damaged input", raw: Array(carry.bytes), length: carry.count))
                        chunk.decodedBytes += carry.count
                        carry.removeAll()
                    }
                }
                chunk.compressed = decoder.isCompressed ?? false
                chunk.compressedBytes = decoder.compressedBytesConsumed
            }
            if options.collectStats { chunk.queuedAt = DispatchTime.now().uptimeNanoseconds }
            work.push(chunk)
        }
        return sequence
    }

    /// A record longer than `maxRecord`: counted and rejected with its length, read past without keeping it.
    private func skipOverlong(
        chunk: _Chunk, decoder: ZstdDecoder, carry: _ByteBuffer, skipByte: UInt8, eof: inout Bool, fileError: inout String?
    ) {
        var length = chunk.input.count
        var newlines = _countNewlines(chunk.input.bytes, from: 0, to: chunk.input.count)
        chunk.input.count = 0
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: options.chunkSize, alignment: 16)
        defer { scratch.deallocate() }
        var ended = false
        while !ended && !eof {
            let n: Int
            do {
                n = try decoder.read(into: scratch)
            } catch {
                fileError = error.description
                eof = true
                break
            }
            if n == 0 {
                eof = true
                break
            }
            let got = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(scratch)[0..<n])
            if let hit = _find(skipByte, in: got, from: 0, to: n) {
                length += hit + 1
                newlines += _countNewlines(got, from: 0, to: hit + 1)
                carry.append(UnsafeRawBufferPointer(rebasing: got[(hit + 1)...]))
                ended = true
            } else {
                length += n
                newlines += _countNewlines(got, from: 0, to: n)
            }
        }
        chunk.recordBytes = 0
        chunk.decodedBytes += length
        chunk.counts.records = 1
        chunk.counts.rejected = 1
        chunk.counts.newlines = newlines
        chunk.rejects.append(
            _Reject(
                relativeLine: 0, reason: "record longer than --max-record (\(options.maxRecord) bytes): \(length) bytes",
                raw: [], length: length))
    }

    /// Header rows the writer must add to a file's line numbers (set by the reader, taken by the writer).
    private func lineBaseAdd(_ index: Int, _ n: Int) {
        lock.lock()
        pendingHeaderLines[index, default: 0] += n
        lock.unlock()
    }

    // Guarded by `lock`.
    private var pendingHeaderLines: [Int: Int] = [:]

    private func displayName(_ path: String) -> String { path == "-" ? options.stdinName : path }

    private func lastBoundary(_ format: InputFormat, _ bytes: UnsafeRawBufferPointer) -> Int? {
        switch format {
        case .jsonl, .tsv: return _findLast(0x0A, in: bytes, from: 0, to: bytes.count).map { $0 + 1 }
        case .csv: return _DelimitedParser.lastBoundary(bytes, quoting: true)
        case .xml: return _XMLParser.lastBoundary(bytes)
        }
    }

    enum _StateResult {
        case ready(_FileState, headerBytes: Int)
        case needMore
        case failed(PipelineError)
    }

    private func makeFileState(index: Int, path: String, bytes: UnsafeRawBufferPointer, eof: Bool) -> _StateResult {
        let format = options.inputFormat ?? InputFormat.sniff(bytes, path: path == "-" ? (options.stdinName == "<stdin>" ? nil : options.stdinName) : path)
        let fields = options.fields
        switch format {
        case .jsonl:
            return .ready(_FileState(index: index, path: path, displayPath: displayName(path), format: format, keys: keyNames), headerBytes: 0)
        case .xml:
            // SMS Backup & Restore names the sender `address`; there is no id (labels fall back to lines).
            let sender = fields.sender == "sender" ? "address" : fields.sender
            return .ready(
                _FileState(index: index, path: path, displayPath: displayName(path), format: format, keys: [fields.id, sender, fields.body]),
                headerBytes: 0)
        case .csv, .tsv:
            let quoting = format == .csv
            let separator: UInt8 = quoting ? UInt8(ascii: ",") : 0x09
            func column(_ name: String, _ names: [String]?) -> Int? {
                if let names, let i = names.firstIndex(of: name) { return i }
                if let n = Int(name), n >= 1 { return n - 1 }
                return nil
            }
            var names: [String]?
            var headerBytes = 0
            if options.hasHeader {
                let (end, open) = _DelimitedParser.recordEnd(bytes, 0, bytes.count, quoting: quoting)
                if (end == bytes.count || open) && !eof { return .needMore }
                headerBytes = min(bytes.count, end + 1)
                names = _DelimitedParser.headerNames(
                    UnsafeRawBufferPointer(rebasing: bytes[0..<min(end, bytes.count)]), separator: separator, quoting: quoting)
            }
            guard let body = column(fields.body, names) else {
                let known = names.map { " (columns: \($0.joined(separator: ", ")))" } ?? ""
                return .failed(
                    PipelineError(
                        .badInput,
                        "\(displayName(path)): no column \"\(fields.body)\" for the body\(known); name it with --body-field"))
            }
            let id = column(fields.id, names) ?? -1
            let sender = column(fields.sender, names) ?? -1
            return .ready(
                _FileState(
                    index: index, path: path, displayPath: displayName(path), format: format, keys: keyNames, columns: (id, sender, body)),
                headerBytes: headerBytes)
        }
    }

    // MARK: Writer

    private func writeLoop() {
        var lastProgress = DispatchTime.now()
        let started = lastProgress
        while let chunk = completion.takeNext() {
            defer { pool.put(chunk) }
            if failed { continue }
            guard let file = chunk.file else { continue }
            let i = file.index
            if let extra = pendingHeaderLinesTake(i) { lineBase[i] += extra }
            let writeStart = options.collectStats ? DispatchTime.now().uptimeNanoseconds : 0
            do {
                if let output {
                    if !chunk.preamble.isEmpty { try output.write(chunk.preamble) }
                    try output.write(chunk.output.bytes)
                }
            } catch {
                fail(PipelineError(.outputFailed, error.description))
                continue
            }
            if options.collectStats {
                let now = DispatchTime.now().uptimeNanoseconds
                stageNanos["write", default: 0] += now - writeStart
                stageNanos["parse", default: 0] += chunk.parseNanos
                stageNanos["match", default: 0] += chunk.classifyNanos
                stageNanos["emit", default: 0] += chunk.emitNanos
                latencies.append(Double(now - chunk.queuedAt) / 1e9)
            }
            for reject in chunk.rejects {
                let line = lineBase[i] + reject.relativeLine
                if options.strict {
                    fail(PipelineError(.badInput, "\(file.displayPath):\(line): \(reject.reason) (--strict)"))
                    break
                }
                counts.rejectReasons[Self.category(reject.reason), default: 0] += 1
                if let rejects {
                    do { try rejects.write(Self.rejectLine(file.displayPath, line, reject)) } catch {
                        fail(PipelineError(.outputFailed, error.description))
                        break
                    }
                }
            }
            lineBase[i] += chunk.counts.newlines
            merge(chunk, into: i)
            if chunk.isLastOfFile {
                counts.files[i].compressed = chunk.compressed
                counts.files[i].compressedBytes = chunk.compressedBytes
                counts.compressedBytes += chunk.compressedBytes
                if let error = chunk.fileError {
                    counts.files[i].error = error
                    damaged = true
                }
            }
            if let progress = options.progress {
                let now = DispatchTime.now()
                if now.uptimeNanoseconds - lastProgress.uptimeNanoseconds > 250_000_000 || chunk.isLastOfFile {
                    lastProgress = now
                    lock.lock()
                    let snapshot = Progress(
                        records: counts.records, rejected: counts.rejected, bytes: counts.bytes, inputBytesRead: inputBytesRead,
                        inputBytesTotal: inputBytesTotal, fileIndex: currentFile, fileCount: inputs.count,
                        seconds: Double(now.uptimeNanoseconds - started.uptimeNanoseconds) / 1e9)
                    lock.unlock()
                    progress(snapshot)
                }
            }
        }
    }

    private func pendingHeaderLinesTake(_ index: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        return pendingHeaderLines.removeValue(forKey: index)
    }

    private func merge(_ chunk: _Chunk, into i: Int) {
        let c = chunk.counts
        counts.records += c.records
        counts.labelled += c.labelled
        counts.rejected += c.rejected
        counts.blankLines += c.blank
        counts.noRule += c.noRule
        counts.dropped["invalidPair", default: 0] += c.invalidPair
        counts.dropped["notDeclared", default: 0] += c.notDeclared
        for (k, n) in c.folders.enumerated() where n > 0 { counts.folders[folders[k].path, default: 0] += n }
        for (k, n) in c.rules.enumerated() where n > 0 { counts.rules[ruleSet.ruleNames[k], default: 0] += n }
        counts.bytes += Int64(chunk.decodedBytes)
        counts.files[i].format = chunk.file?.format.rawValue ?? ""
        counts.files[i].records += c.records
        counts.files[i].labelled += c.labelled
        counts.files[i].rejected += c.rejected
        counts.files[i].bytes += Int64(chunk.decodedBytes)
    }

    static func category(_ reason: String) -> String {
        if let colon = reason.firstIndex(of: ":") { return String(reason[..<colon]) }
        if let at = reason.range(of: " at byte") { return String(reason[..<at.lowerBound]) }
        return reason
    }

    /// `{"file": …, "line": …, "reason": …, "length": …, "record": …}` (`recordBase64` for bytes that are
    /// not UTF-8; no record when it was too long to keep).
    static func rejectLine(_ file: String, _ line: Int, _ reject: _Reject) -> [UInt8] {
        let out = _ByteBuffer(capacity: reject.raw.count + 128)
        out.append("{\"file\": ")
        out.appendJSONString(file)
        out.append(", \"line\": ")
        out.appendDecimal(line)
        out.append(", \"reason\": ")
        out.appendJSONString(reject.reason)
        out.append(", \"length\": ")
        out.appendDecimal(reject.length)
        if !reject.raw.isEmpty || reject.length == 0 {
            reject.raw.withUnsafeBytes { raw in
                if _isValidUTF8(raw) {
                    out.append(", \"record\": ")
                    out.appendJSONString(raw)
                } else {
                    out.append(", \"recordBase64\": \"")
                    out.append(Array(Data(reject.raw).base64EncodedString().utf8))
                    out.append("\"")
                }
            }
        }
        out.append("}\n")
        return Array(out.bytes)
    }
}

/// Hands a non-Sendable value to exactly one other thread.
struct _Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
