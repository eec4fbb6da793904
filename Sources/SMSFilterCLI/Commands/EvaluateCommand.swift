import ArgumentParser
import BatchPipeline
import Foundation
import MessageFilter
import ArchiveIO

/// `smsfilter evaluate`: how well a rule set agrees with a corpus's own labels.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Score a rule set against a corpus with truth labels: per class, per rule, confusion and conflicts.",
        discussion: """
            Reads the records as classify does (JSON Lines, CSV, TSV or Android XML, plain, zstd or gzip; on all \
            cores). Each record is classified; its truth label (--truth-field) is mapped to the actions or folders \
            it may land in (--map or --map-file). Targets: an action (none, allow, junk, promotion, \
            transaction: any folder of it), a folder path (Transactions/Finance), other (none or allow), \
            ignore (not scored); several as a|b. Scoring is per folder when a target is a sub-folder, per \
            action otherwise (--by to choose). The macro F1 is scikit-learn's f1_score(average="macro") \
            on one class per record: y_true is the label's targets (spam=junk|promotion: junk|promotion), \
            y_pred the same when the prediction is accepted, else the targets of the first label that \
            accepts it, else the action or folder predicted; --predictions writes both per record. Also: \
            precision, recall and F1 per class and per truth label, a confusion matrix (truth label × \
            prediction), per-rule hits, precision and share of true positives, conflicts (rules of \
            different folders firing on one record) and rules that never fire.

            The figures go to standard error as tables (--json: as one JSON object on standard output), to \
            --json-file as JSON and to --report as a self-contained HTML page.

            Examples:
              smsfilter evaluate uci_sms_spam.jsonl.zst \\
                  --map 'spam=junk|promotion,ham=other' --report uci.html
              smsfilter evaluate thai_sms.jsonl.zst --map-file thai-map.yaml \\
                  --json-file thai.json
              smsfilter evaluate generated.jsonl.zst --map identity
              smsfilter evaluate uci_sms_spam.jsonl.zst --ignore-case \\
                  --map 'SPAM=junk|promotion,ham=other' --predictions uci-pred.jsonl

            \(ExitStatus.helpSection(
            [.success, .usage, .badInput, .inputMissing, .cannotCreate], saying: [.badInput: "damaged input or bad rules"]))
            """
    )

    @Argument(help: "Input files (JSONL, CSV, TSV or XML; plain, .zst or .gz); - or nothing reads standard input.")
    var inputs: [String] = []

    @OptionGroup var ruleOptions: RuleOptions

    @Option(name: .long, help: "Field holding the truth label.")
    var truthField = "label"

    @Option(name: .long, help: "Truth label → targets, e.g. spam=junk|promotion,ham=other (identity: the labels are folder paths).")
    var map: String?

    @Option(name: .long, help: ArgumentHelp("A JSON or flat YAML file mapping truth labels to targets.", valueName: "file"))
    var mapFile: String?

    @Option(name: .long, help: "Score per action or per folder (default: from the mapping).")
    var by: TruthMapping.Granularity?

    @Flag(name: .long, help: "Truth labels that differ only in case are one label (spam, Spam, SPAM).")
    var ignoreCase = false

    @Option(name: .long, help: ArgumentHelp("Write y_true and y_pred of every scored record, one JSON line each, to this file (.zst or .gz: compressed; - is standard output), for scikit-learn.", valueName: "file"))
    var predictions: String?

    @Option(name: .long, help: ArgumentHelp("Write the figures as JSON to this file (- is standard output).", valueName: "file"))
    var jsonFile: String?

    @Option(name: .long, help: ArgumentHelp("Write a self-contained HTML report to this file.", valueName: "file"))
    var report: String?

    @Option(name: .long, parsing: .unconditional, help: "How many conflict examples to keep, 0 to 100000.")
    var conflictExamples = 20

    @OptionGroup var input: InputOptions

    @OptionGroup var forceOption: ForceOption

    @OptionGroup var quietOption: QuietOption

    @OptionGroup var jsonOption: JSONOption

    func validate() throws {
        // Checked once every file is back (``ArgumentFolding``), not against the first file alone.
        if ArgumentFolding.validationDeferred { return }
        if (map == nil) == (mapFile == nil) {
            throw ValidationError("Please give the label mapping with --map (e.g. spam=junk,ham=other) or --map-file, one of them.")
        }
        try Limits.check(conflictExamples, Limits.conflictExamples, "--conflict-examples")
        try Limits.check(input.threads, Limits.threads, "--threads")
        try Limits.check(size: input.format.maxRecord, Limits.maxRecord, "--max-record")
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input (-) can be read only once.") }
        if inputs.isEmpty && Console.stdinIsTerminal { throw ValidationError("Please name input files, or pipe records into standard input.") }
    }

    func run() throws {
        var plan = IOPlan(force: forceOption.force)
        plan.read(inputs.isEmpty ? ["-"] : inputs, as: "the input")
        plan.readRules(ruleOptions.rules)
        plan.read(mapFile, as: "the mapping file (--map-file)")
        plan.write(jsonFile, as: "--json-file")
        plan.write(report, as: "--report")
        plan.write(predictions, as: "--predictions", compressedByName: true)
        try plan.check()
        var mapping: TruthMapping
        do {
            if let map {
                mapping = try TruthMapping.parse(map)
            } else {
                guard FileManager.default.fileExists(atPath: mapFile!) else { throw CommandFailure("\(EchoedText.escaped(mapFile!)): no such mapping file", .inputMissing) }
                mapping = try TruthMapping.load(path: mapFile!)
            }
            if ignoreCase { mapping = try mapping.ignoringCase() }
        } catch let error as PipelineError {
            throw CommandFailure(error.message, .usage)
        }
        let ruleSet = try RuleSet.load(option: ruleOptions.rules)
        var options = EvaluationOptions(mapping: mapping)
        input.apply(to: &options)
        options.readTruth(from: truthField, by: by)
        options.conflictExamples = conflictExamples
        options.predictions = predictions
        options.existing = plan.existingPolicy
        let result = try ProgressLine.running(shown: !quietOption.quiet && Console.stderrIsTerminal) { progress throws(PipelineError) in
            options.progress = progress
            return try Evaluator(ruleSet: ruleSet, options: options).run(inputs: inputs.isEmpty ? ["-"] : inputs)
        }
        let data: [UInt8]
        do {
            data = Array(try result.jsonData()) + [0x0A]
        } catch {
            throw CommandFailure("cannot encode the figures: \(error)", .internalError)
        }
        if let jsonFile { try SmallOutput.write(data, to: jsonFile, existing: plan.existingPolicy, what: "the JSON figures") }
        if let report {
            try SmallOutput.write(Array(result.html().utf8), to: report, existing: plan.existingPolicy, what: "the HTML report")
        }
        if jsonOption.json {
            // With --json-file on standard output, the figures are there already: the summary goes beside them.
            Console.printSummaryJSON(String(decoding: data, as: UTF8.self), plan: plan)
        } else if !quietOption.quiet {
            Console.stderr(result.table())
        }
        if result.records > 0 && result.scored == 0 && !quietOption.quiet {
            Console.stderr("smsfilter: warning: no record was scored: is --truth-field \"\(EchoedText.escaped(truthField))\" right, and are its labels in the mapping?\n")
        }
    }
}

extension TruthMapping.Granularity: ExpressibleByArgument {}

extension EvaluateCommand: ManyFiles {
    var namedFiles: [String] {
        get { inputs }
        set { inputs = newValue }
    }
}
