import ArgumentParser
import BatchPipeline
import Foundation
import MessageFilter
import ZstdStream

/// `smsfilter export`: training sets from labelled (or unlabelled) archives.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write train, validation and test files (JSONL, CSV or fastText) from an SMS archive.",
        discussion: """
            Labels come from each record's "filter" object (written by classify); records without one are \
            classified with the embedded rules. With --rules every record is classified with those rules; \
            with --label-field the label is taken from that field. The split is decided by a hash of the \
            record id alone (of the body when there is no id), so a record keeps its split when the corpus \
            grows. Duplicates are bodies equal after lowercasing and collapsing whitespace; they are counted \
            (and cross-split leaks with them) in memory of about 16-40 bytes per distinct body, and dropped \
            with --dedup. fastText labels have whitespace replaced by _ (Transactions/Public_Services).

            Examples:
              smsfilter classify archive.jsonl.zst -o labelled.jsonl.zst
              smsfilter export labelled.jsonl.zst --out-dir sets --format fasttext --dedup --stats stats.json
              smsfilter export corpus.jsonl.zst --label-field label --split 90,5,5 --max-per-label 50000 --out-dir sets

            Exit status: 0 success, 64 usage, 65 damaged input, 66 input missing, 73 an output could not be written.
            """
    )

    @Argument(help: "Input JSON Lines archives (plain or .zst); - or nothing reads standard input.")
    var inputs: [String] = []

    @Option(name: .long, help: "Folder that receives train.<ext>, validation.<ext> and test.<ext>.")
    var outDir: String

    @Option(name: .long, help: "Training-file format: jsonl, csv or fasttext.")
    var format: ExportOptions.OutputFormat = .jsonl

    @Option(name: .long, help: "The label: folder, action or action-subaction.")
    var label: ExportOptions.LabelKind = .folder

    @Option(name: .long, help: "Classify every record with this rule file (YAML or .smsf) instead of using its filter object.")
    var rules: String?

    @Option(name: .long, help: "Take each record's label verbatim from this field instead.")
    var labelField: String?

    @Option(name: .long, help: "Weights of train, validation and test, e.g. 80,10,10.")
    var split = SplitRatios(train: 80, validation: 10, test: 10)!

    @Flag(name: .long, help: "Drop records whose body (lowercased, whitespace collapsed) was seen before.")
    var dedup = false

    @Flag(name: .long, help: "Do not count duplicates and leaks (memory then stays flat whatever the input).")
    var noDuplicateCheck = false

    @Option(name: .long, help: "Keep at most N records per label (a deterministic choice by a hash of the id).")
    var maxPerLabel: Int?

    @Option(name: .long, help: "fastText's label prefix.")
    var labelPrefix = "__label__"

    @Flag(name: .long, help: "Compress the outputs with zstd (names get .zst).")
    var zst = false

    @Option(name: .long, help: "zstd level with --zst.")
    var level: Int32 = 3

    @Option(name: .long, help: "Write the per-split, per-label table as JSON to this file (- is standard output).")
    var stats: String?

    @OptionGroup var fields: FieldOptions

    @Option(name: .long, help: "Key of the labels object written by classify.")
    var filterKey = "filter"

    @Flag(name: [.short, .long], help: "Print no table.")
    var quiet = false

    func validate() throws {
        if let maxPerLabel, maxPerLabel < 1 { throw ValidationError("Please give a --max-per-label of 1 or more.") }
        if labelPrefix.isEmpty || labelPrefix.contains(where: { $0.isWhitespace }) {
            throw ValidationError("Please give a --label-prefix without spaces, such as __label__.")
        }
        if rules != nil && labelField != nil { throw ValidationError("Please give either --rules or --label-field, not both.") }
        if dedup && noDuplicateCheck { throw ValidationError("Please drop --no-duplicate-check: --dedup needs it.") }
        if level < -7 || level > 22 { throw ValidationError("Please give a --level from -7 to 22.") }
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input (-) can be read only once.") }
        if inputs.isEmpty && CLI.stdinIsTerminal { throw ValidationError("Please name input files, or pipe records into standard input.") }
    }

    func run() throws {
        let ruleSet = try CLI.loadRules(rules)
        var options = ExportOptions()
        options.format = format
        options.labelKind = label
        options.labelSource = labelField.map { .field($0) } ?? (rules != nil ? .rules : .auto)
        options.fields = fields.names
        options.filterKey = filterKey
        options.ratios = split
        options.deduplicate = dedup
        options.trackDuplicates = !noDuplicateCheck
        options.maxPerLabel = maxPerLabel
        options.labelPrefix = labelPrefix
        options.outputFolder = outDir
        options.compressionLevel = zst ? level : nil
        let progress = ProgressLine()
        if !quiet && CLI.stderrIsTerminal { options.progress = { progress.update($0) } }
        let result: ExportStats
        do {
            result = try TrainingSetExporter(ruleSet: ruleSet, options: options).run(inputs: inputs.isEmpty ? ["-"] : inputs)
        } catch {
            progress.clear()
            throw CLI.fail(error.description, code: error.exitCode)
        }
        progress.clear()
        if let stats {
            do {
                let data = try result.jsonData()
                let file = try OutputFile(path: stats)
                try file.write(Array(data) + [0x0A])
                try file.finish()
            } catch {
                throw CLI.fail("\(stats): cannot write the stats: \(error)", code: 73)
            }
        }
        if !quiet { CLI.stderr(result.table()) }
    }
}

extension ExportOptions.OutputFormat: ExpressibleByArgument {}
extension ExportOptions.LabelKind: ExpressibleByArgument {}

extension SplitRatios: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}
