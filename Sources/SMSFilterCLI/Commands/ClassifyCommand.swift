import ArgumentParser
import BatchPipeline
import Foundation
import MessageFilter
import ArchiveIO

/// `smsfilter classify`: the main job.
struct ClassifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Label every record of SMS archives with an iOS message-filter folder.",
        discussion: """
            Reads JSON Lines, CSV, TSV or Android "SMS Backup & Restore" XML, plain, zstd- or gzip-compressed \
            (detected by magic bytes), from files or standard input (-), and writes each record back in \
            its own format (or --output-format's) with a "filter" object added (JSON Lines), filter_* \
            columns (CSV/TSV) or filter_* attributes (XML); labels a record already has are replaced. \
            Malformed records are counted and written to --rejects with their file, line, reason and \
            bytes; the run goes on. Counts go to --counts as JSON and to standard \
            error as a table (--json: as JSON on standard output, or on standard error when the records go \
            there).

            Every output is checked before any work: none may be an input or another output, and an \
            existing file is replaced only with -f. Records are not written to a terminal unless -o - \
            asks for it.

            Examples:
              smsfilter classify archive.jsonl.zst -o labelled.jsonl.zst \\
                  --counts counts.json
              zstd -dc shard.zst | smsfilter classify --labels-only > labels.jsonl
              smsfilter classify --rules my.yaml --input-format csv \\
                  --body-field text export.csv -o out.csv

            \(ExitStatus.helpSection(
            [.success, .usage, .badInput, .inputMissing, .internalError, .cannotCreate], saying: [
                .badInput: "damaged input or a bad record under --strict",
            ]))
            """
    )

    @Argument(help: "Input files (JSONL, CSV, TSV or XML; plain, .zst or .gz); - or nothing reads standard input.")
    var inputs: [String] = []

    @Option(name: .long, help: ArgumentHelp("A file listing input archives, one per line (# comments allowed).", valueName: "file"))
    var manifest: String?

    @Option(name: .long, parsing: .unconditional, help: "Process only the K-th of N deterministic shares of the inputs, as K/N with 1 ≤ K ≤ N.")
    var shard: Shard?

    @Option(
        name: .long, parsing: .unconditional,
        help: "Classify only the records that start in these frames of one zstd archive (JSON Lines or TSV, a regular file): compressed offsets START:END at frame boundaries, as smsfilter plan lists them. The run keeps its rejects within its share of --max-rejects-bytes (by compressed bytes).",
        transform: ByteRange.parse)
    var range: ByteRange?

    @Option(name: .long, parsing: .unconditional, help: "With --range: the archive's line number where the range starts, 1 to 4611686018427387904 (plan --lines), so lines before it need not be counted.")
    var firstLine: Int?

    @OptionGroup var ruleOptions: RuleOptions

    @Option(name: [.short, .long], help: ArgumentHelp("Where labelled records go (- is standard output; a .zst name is zstd, .gz gzip).", valueName: "file"))
    var output: String?

    @Option(name: .customLong("out"), help: .hidden)
    var outAlias: String?

    @Flag(name: .long, help: "Write no labelled records, only counts (and rejects).")
    var noOutput = false

    @Option(name: .long, help: ArgumentHelp("Write the counts as JSON to this file.", valueName: "file"))
    var counts: String?

    @Option(name: .long, help: ArgumentHelp("Write rejected records (file, line, reason, record) as JSON Lines to this file (.zst, .gz compress).", valueName: "file"))
    var rejects: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: "The most bytes --rejects holds, 1K to 1T: rejects whole while they fit in half of it, then their first 256 bytes, length and SHA-256 while those fit, then only counted.")
    var maxRejectsBytes = ByteSize(1 << 30)

    @Option(name: .long, help: "What to write per record: records (whole records plus labels) or labels (id and labels only).")
    var format: OutputFormat = .records

    @Flag(name: .long, help: "Same as --format labels: one {\"id\": …, \"filter\": {…}} line per record.")
    var labelsOnly = false

    @Option(name: .long, help: "The name standard input goes by in counts and rejects (and its format is guessed from).")
    var inputName: String?

    @OptionGroup var input: InputOptions

    @Option(name: .long, help: "Write records as jsonl, csv, tsv or xml (default: the input's format).")
    var outputFormat: InputFormat?

    @Option(name: .long, help: "Name of the added labels (JSON key, column/attribute prefix): letters, digits, _ - .")
    var filterKey = "filter"

    @Option(name: .long, parsing: .unconditional, help: "Bytes of records per work unit, 4K to 64M (default 768K at 1 thread, 512K at 2, less above).")
    var chunkSize: ByteSize?

    @Option(name: .long, parsing: .unconditional, help: "Compression level of the output: zstd -7 to 19, gzip (.gz) 1 to 9 (default 1 for a .zst or .gz name).")
    var level: Int32?

    @Option(name: .long, parsing: .unconditional, help: "zstd compression threads for the output, 0 to 256 (default: 1 per 8 --threads, 0 with 1).")
    var compressionThreads: Int?

    @Option(
        name: .long, parsing: .unconditional,
        help: "Decoded bytes per frame of .zst outputs, 64K to 1G, plus a seek table (zstd's seekable format: readers decode the frames in parallel); 0: one frame.")
    var frameSize = FrameSize(ZstdSeekableEncoder.defaultFrameSize)

    @Flag(name: .long, help: "Stop with exit status \(ExitStatus.badInput.rawValue) at the first malformed record.")
    var strict = false

    @Flag(name: .long, help: "Add the deciding phrase and its byte span to each label.")
    var explain = false

    @OptionGroup var forceOption: ForceOption

    @OptionGroup var quietOption: QuietOption

    @OptionGroup var jsonOption: JSONOption

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case records, labels }

    /// `-o` (or its old spelling `--out`); nil when neither was given.
    var outputPath: String? { output ?? outAlias }

    func validate() throws {
        // Checked once every file is back (``ArgumentFolding``), not against the first file alone.
        if ArgumentFolding.validationDeferred { return }
        if output != nil && outAlias != nil { throw ValidationError("Please give -o/--output once (--out is its old name).") }
        if noOutput && outputPath != nil { throw ValidationError("Please give either -o or --no-output, not both.") }
        try Limits.check(input.threads, Limits.threads, "--threads")
        try Limits.check(size: chunkSize, Limits.chunkSize, "--chunk-size")
        try Limits.check(size: input.format.maxRecord, Limits.maxRecord, "--max-record")
        try Limits.check(size: maxRejectsBytes, Limits.maxRejectsBytes, "--max-rejects-bytes")
        try Limits.check(level, Limits.level, "--level")
        try Limits.checkGzipLevel(level, output: noOutput ? nil : outputPath)
        try Limits.check(compressionThreads, Limits.compressionThreads, "--compression-threads")
        try Limits.check(frameSize: frameSize)
        if let chunkSize { try Limits.checkChunkPool(threads: input.threads ?? ThreadsOption.cores, chunkSize: chunkSize.bytes) }
        try FilterKey.validate(filterKey)
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input (-) can be read only once.") }
        if let shard, shard.k < 1 || shard.k > shard.n {
            throw ValidationError("Please give --shard as K/N with 1 ≤ K ≤ N, for example 3/8.")
        }
        if let firstLine {
            guard range != nil else { throw ValidationError("Please give --first-line with --range only.") }
            try Limits.check(firstLine, Limits.firstLine, "--first-line")
        }
        if range != nil && (inputs.count != 1 || inputs == ["-"] || manifest != nil || shard != nil) {
            throw ValidationError("Please give --range with exactly one archive file (no manifest, shard or standard input).")
        }
        if inputs.isEmpty && manifest == nil && Console.stdinIsTerminal {
            throw ValidationError("Please name input files, or pipe records into standard input.")
        }
    }

    /// The inputs named on the command line and in the manifest, cut to this shard.
    /// Every input named (the whole manifest), and those of this shard.
    func selectedInputs() throws -> (all: [String], selected: [String]) {
        var all = inputs
        if let manifest {
            do {
                all += try Manifest.read(path: manifest)
            } catch {
                throw CommandFailure("\(error) (the manifest)", .inputMissing)
            }
        }
        guard let shard else { return (all, all) }
        return (all, all.filter { Manifest.belongs($0, shard: shard.k, of: shard.n) })
    }

    func run() throws {
        let (all, selected) = try selectedInputs()
        let readsStandardInput = selected.isEmpty && manifest == nil && shard == nil
        let plan = ioPlan(all: all, selected: readsStandardInput ? ["-"] : selected)
        try plan.check()
        if !noOutput { try Console.refuseRecordsToTerminal(output: outputPath) }

        let ruleSet = try RuleSet.load(option: ruleOptions.rules)
        if selected.isEmpty && (manifest != nil || shard != nil) && !quietOption.quiet {
            Console.stderr("smsfilter: this shard holds no input\n")
        }
        var options = pipelineOptions(existing: plan.existingPolicy)
        let countsFile = try openCounts(existing: plan.existingPolicy)
        options.beforeCommit = Self.countsWriter(countsFile)
        // The progress line would land among the records when both go to the same terminal.
        let recordsOnTerminal = options.outputPath == "-" && Console.stdoutIsTerminal
        let result = try ProgressLine.running(
            shown: !quietOption.quiet && Console.stderrIsTerminal && !recordsOnTerminal, abandon: { countsFile?.value.abandon() }
        ) { progress throws(PipelineError) in
            options.progress = progress
            return try Pipeline(ruleSet: ruleSet, options: options).run(inputs: readsStandardInput ? ["-"] : selected)
        }
        // An explicitly asked --json is printed even with -q (which silences the table and the progress).
        if jsonOption.json {
            Console.printSummaryJSON(
                String(decoding: (try? result.counts.jsonData()) ?? Data(), as: UTF8.self),
                plan: plan)
        } else if !quietOption.quiet {
            Console.stderr(result.counts.table())
        }
        for file in result.counts.files where file.error != nil {
            ErrorReport.print("\(file.error!) (every record before the damage was written)")
        }
        if result.damaged { throw ExitCode(.badInput) }
    }

    /// What this run reads and writes (``IOPlan``): `selected` are the inputs it reads, `all` every
    /// archive named (another shard reads the rest of a manifest: they are protected too).
    func ioPlan(all: [String], selected: [String]) -> IOPlan {
        var plan = IOPlan(force: forceOption.force)
        plan.read(selected, as: "the input")
        let selectedSet = Set(selected)
        plan.protect(all.filter { !selectedSet.contains($0) }, as: "an archive of the manifest")
        plan.readRules(ruleOptions.rules)
        plan.read(manifest, as: "the manifest (--manifest)")
        plan.write(
            noOutput ? nil : outputPath ?? "-", as: output != nil ? "-o" : outAlias != nil ? "--out" : "standard output",
            compressedByName: true)
        plan.write(rejects, as: "--rejects", compressedByName: true)
        plan.write(counts, as: "--counts")
        return plan
    }

    func pipelineOptions(existing: OutputFile.Existing) -> PipelineOptions {
        var options = PipelineOptions()
        input.apply(to: &options)
        options.outputFormat = outputFormat
        options.outputPath = noOutput ? nil : outputPath ?? "-"
        options.outputLevel = level
        options.labelsOnly = labelsOnly || format == .labels
        options.filterKey = filterKey
        options.explain = explain
        options.compressionWorkers = compressionThreads ?? PipelineOptions.defaultCompressionWorkers(threads: options.threads)
        options.outputFrameSize = frameSize.frameSize
        if let chunkSize { options.chunkSize = chunkSize.bytes }
        options.strict = strict
        options.rejectsPath = rejects
        options.maxRejectsBytes = Int64(maxRejectsBytes.bytes)
        options.existing = existing
        options.split = range.map { ArchiveSplit(start: $0.start, end: $0.end, firstLine: firstLine) }
        if let inputName { options.input.stdinName = inputName }
        return options
    }

    /// The `--counts` file, opened before the run (its folder is known good by then).
    func openCounts(existing: OutputFile.Existing) throws -> _Box<OutputFile>? {
        guard let counts else { return nil }
        do {
            return _Box(try OutputFile(path: counts, existing: existing))
        } catch {
            throw CommandFailure("\(error)", .cannotCreate)
        }
    }

    /// Writes the counts once every record is written, before the labelled output and the rejects are put in
    /// place (``PipelineOptions/beforeCommit``): a counts file that cannot be written (a full disk,
    /// /dev/full) then leaves no finished-looking output either.
    static func countsWriter(_ file: _Box<OutputFile>?) -> (@Sendable (RunCounts) throws(PipelineError) -> Void)? {
        guard let file else { return nil }
        return { counts throws(PipelineError) in
            do {
                try file.value.write(Array(try counts.jsonData()))
                try file.value.finish()
            } catch let error as ZstdError {
                throw PipelineError.outputFailed(error.description)
            } catch {
                throw PipelineError.internalError("cannot encode the counts: \(error)")
            }
        }
    }
}

extension InputFormat: ExpressibleByArgument {}

/// `K/N`: the K-th of N shares.
struct Shard: ExpressibleByArgument {
    let k: Int
    let n: Int
    init?(argument: String) {
        let parts = argument.split(separator: "/")
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1 else { return nil }
        self.k = k
        self.n = n
    }
}

extension ClassifyCommand: ManyFiles {
    var namedFiles: [String] {
        get { inputs }
        set { inputs = newValue }
    }
}
