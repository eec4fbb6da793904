import ArgumentParser
import BatchPipeline
import Foundation
import MessageFilter
import ArchiveIO

/// `smsfilter export`: training sets from labelled (or unlabelled) archives.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write train, validation and test files (JSONL, CSV or fastText) from an SMS archive.",
        discussion: """
            Reads the records as classify does (JSON Lines, CSV, TSV or Android XML, plain, zstd or gzip; on all \
            cores). Labels come from each record's "filter" object, filter_* columns or attributes \
            (written by classify); records without them are classified with the embedded rules. With --rules every record is classified with those rules; \
            with --label-field the label is taken from that field. The split is decided by a hash of the \
            record id alone (of the body when there is no id), so a record keeps its split when the corpus \
            grows. Duplicates are bodies equal after lowercasing and collapsing whitespace; they are counted \
            (and cross-split leaks with them) in memory of about 16-40 bytes per distinct body, and dropped \
            with --dedup. fastText labels have whitespace replaced by _ (Transactions/Public_Services).

            The per-split, per-label table goes to standard error (--json: as JSON on standard output) and, \
            as JSON, to --stats-file. The output folder is created when missing (its parent must exist); files \
            already in it are replaced only with -f.

            Examples:
              smsfilter classify archive.jsonl.zst -o labelled.jsonl.zst
              smsfilter export labelled.jsonl.zst -o sets --format fasttext --dedup \\
                  --stats-file stats.json
              smsfilter export corpus.jsonl.zst --label-field label --split 90,5,5 \\
                  --max-per-label 50000 -o label-sets

            \(ExitStatus.helpSection(
            [.success, .usage, .badInput, .inputMissing, .cannotCreate], saying: [.badInput: "damaged input"]))
            """
    )

    @Argument(help: "Input files (JSONL, CSV, TSV or XML; plain, .zst or .gz); - or nothing reads standard input.")
    var inputs: [String] = []

    @Option(name: [.short, .long], help: ArgumentHelp("Folder that receives train.<ext>, validation.<ext> and test.<ext>.", valueName: "folder"))
    var output: String?

    @Option(name: .customLong("out-dir"), help: .hidden)
    var outDirAlias: String?

    @Option(name: .long, help: "Training-file format: jsonl, csv or fasttext.")
    var format: ExportOptions.OutputFormat = .jsonl

    @Option(name: .long, help: "The label: folder, action or action-subaction.")
    var label: ExportOptions.LabelKind = .folder

    // Not ``RuleOptions``: without it export reads the labels the records carry; there is no default rule set.
    @Option(name: .long, help: ArgumentHelp("Classify every record with this rule file (YAML or .smsf) instead of using its filter object.", valueName: "file"))
    var rules: String?

    @Option(name: .long, help: "Take each record's label verbatim from this field instead.")
    var labelField: String?

    @Option(name: .long, parsing: .unconditional, help: "Weights of train, validation and test (whole numbers up to 1000000), e.g. 80,10,10; a part of weight 0 (90,10) gets no file.")
    var split = SplitRatios(train: 80, validation: 10, test: 10)!

    @Flag(name: .long, help: "Drop records whose body (lowercased, whitespace collapsed) was seen before.")
    var dedup = false

    @Flag(name: .long, help: "Do not count duplicates and leaks (memory then stays flat whatever the input).")
    var noDuplicateCheck = false

    @Option(name: .long, parsing: .unconditional, help: "Keep at most N records per label, 1 or more (a deterministic choice by a hash of the id).")
    var maxPerLabel: Int?

    @Option(name: .long, help: "fastText's label prefix.")
    var labelPrefix = "__label__"

    @Flag(name: .long, help: "Compress the outputs with zstd (names get .zst).")
    var zst = false

    @Option(name: .long, parsing: .unconditional, help: "zstd level with --zst, -7 to 19.")
    var level: Int32 = 3

    @Option(
        name: .long, parsing: .unconditional,
        help: "Decoded bytes per frame with --zst, 64K to 1G, plus a seek table (zstd's seekable format); 0: one frame.")
    var frameSize = FrameSize(ZstdSeekableEncoder.defaultFrameSize)

    @Option(name: .long, help: ArgumentHelp("Write the per-split, per-label table as JSON to this file (- is standard output).", valueName: "file"))
    var statsFile: String?

    @OptionGroup var input: InputOptions

    @Option(name: .long, help: "Key (column or attribute prefix) of the labels written by classify.")
    var filterKey = "filter"

    @OptionGroup var forceOption: ForceOption

    @OptionGroup var quietOption: QuietOption

    @OptionGroup var jsonOption: JSONOption

    /// `-o` (or its old spelling `--out-dir`).
    var outputFolder: String { output ?? outDirAlias ?? "" }

    func validate() throws {
        // Checked once every file is back (``ArgumentFolding``), not against the first file alone.
        if ArgumentFolding.validationDeferred { return }
        if let maxPerLabel, maxPerLabel < 1 { throw ValidationError("Please give a --max-per-label of 1 or more.") }
        // Written at the start of every fastText line: a space would end the label, a control character
        // (ESC, NUL…) would reach every reader of the file.
        if labelPrefix.isEmpty || labelPrefix.contains(where: { $0.isWhitespace })
            || labelPrefix.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw ValidationError("Please give a --label-prefix without spaces or control characters, such as __label__.")
        }
        if rules != nil && labelField != nil { throw ValidationError("Please give either --rules or --label-field, not both.") }
        if dedup && noDuplicateCheck { throw ValidationError("Please drop --no-duplicate-check: --dedup needs it.") }
        if output == nil && outDirAlias == nil { throw ValidationError("Please name the output folder with -o DIR.") }
        if output != nil && outDirAlias != nil { throw ValidationError("Please give -o/--output once (--out-dir is its old name).") }
        try Limits.check(level, Limits.level, "--level")
        try Limits.check(input.threads, Limits.threads, "--threads")
        try Limits.check(size: input.format.maxRecord, Limits.maxRecord, "--max-record")
        try Limits.check(frameSize: frameSize)
        try FilterKey.validate(filterKey)
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input (-) can be read only once.") }
        if inputs.isEmpty && Console.stdinIsTerminal { throw ValidationError("Please name input files, or pipe records into standard input.") }
    }

    /// The files written into the output folder.
    var fileNames: [String] {
        split.written.map { "\($0.name).\(format.fileExtension)" + (zst ? ".zst" : "") }
    }

    func run() throws {
        var plan = IOPlan(force: forceOption.force)
        plan.read(inputs.isEmpty ? ["-"] : inputs, as: "the input")
        plan.readRules(rules)
        plan.writeFolder(outputFolder, as: "-o", files: fileNames)
        plan.write(statsFile, as: "--stats-file")
        try plan.check()
        let ruleSet = try RuleSet.load(option: rules)
        var options = ExportOptions()
        options.format = format
        options.labelKind = label
        options.labelSource = labelField.map { .field($0) } ?? (rules != nil ? .rules : .auto)
        input.apply(to: &options)
        if let labelField { options.input.fields.required.append(.init(option: "--label-field", name: labelField)) }
        options.filterKey = filterKey
        options.ratios = split
        options.deduplicate = dedup
        options.trackDuplicates = !noDuplicateCheck
        options.maxPerLabel = maxPerLabel
        options.labelPrefix = labelPrefix
        options.outputFolder = outputFolder
        options.existing = plan.existingPolicy
        options.compressionLevel = zst ? level : nil
        options.frameSize = frameSize.frameSize
        let result = try ProgressLine.running(shown: !quietOption.quiet && Console.stderrIsTerminal) { progress throws(PipelineError) in
            options.progress = progress
            return try TrainingSetExporter(ruleSet: ruleSet, options: options).run(inputs: inputs.isEmpty ? ["-"] : inputs)
        }
        let data: [UInt8]
        do {
            data = Array(try result.jsonData()) + [0x0A]
        } catch {
            throw CommandFailure("cannot encode the stats: \(error)", .internalError)
        }
        if let statsFile { try SmallOutput.write(data, to: statsFile, existing: plan.existingPolicy, what: "the stats") }
        if jsonOption.json {
            Console.printSummaryJSON(String(decoding: data, as: UTF8.self), plan: plan)
        } else if !quietOption.quiet {
            Console.stderr(result.table())
        }
    }
}

extension ExportOptions.OutputFormat: ExpressibleByArgument {}
extension ExportOptions.LabelKind: ExpressibleByArgument {}

extension SplitRatios: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

extension ExportCommand: ManyFiles {
    var namedFiles: [String] {
        get { inputs }
        set { inputs = newValue }
    }
}
