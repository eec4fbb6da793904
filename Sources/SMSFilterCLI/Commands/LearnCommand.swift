import ArgumentParser
import BatchPipeline
import Foundation
import MessageFilter
import ArchiveIO

/// `smsfilter learn`: a linear model over phrases, learned from labelled records, written as a rule file.
struct LearnCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "learn",
        abstract: "Learn phrase weights from labelled records and write them as the model: section of a rule file.",
        discussion: """
            Reads labelled records (JSON Lines, CSV, TSV or Android XML; plain, .zst or .gz), maps each truth label to a target (an action or \
            a folder) with --map, and learns one weight per phrase per target and a bias per target: word \
            uni- and bigrams and text n-grams (1 to 4 characters of the normalised text, across words, spaces \
            and symbols, in every script: Thai, Chinese and Japanese included) by default; the --max-phrases \
            phrases in most messages; binary TF-IDF, L2-normalised, one-vs-rest linear SVMs (defaults chosen \
            by cross-validation on English, Thai and Chinese corpora: docs/QUALITY.md). The classifier finds \
            the model's phrases as learn found them and adds their weights (docs/RULES.md, "Learned models"). \
            The model records how many real messages of each script it learned from and abstains on a script \
            with fewer than --min-script-messages. On held-out folds it picks its operating point: by default \
            the bias per target at which the held-out macro F1 is highest, so the model decides every message \
            it has evidence on; with --precision-target P, per target the smallest margin over the runner-up \
            at which its decisions reach P (junk and promotion count as one, both filtered), and it abstains \
            below it, leaving the message to the rules. Records of `smsfilter generate` (ids gen:N) and --generated-input files count \
            as generated, not real. \
            --cv K prints cross-validated precision, recall and F1 per target (folds by a hash of the \
            normalised body, so duplicates share a fold); with -o as well, the figures go into the model's \
            provenance. Same inputs and options, same bytes.

            Examples:
              smsfilter learn --truth-field label --map 'spam=junk,ham=none' \\
                  -o m.yaml uci.jsonl
              smsfilter classify --rules m.yaml --labels-only uci.jsonl
              smsfilter learn --cv 5 thai_sms.jsonl.zst \\
                  --map 'OTP=transaction,scam=junk,spam=promotion,OK=none'
              smsfilter learn --rules my.yaml --priority 50 --map 'spam=junk,ham=none' \\
                  -o combined.yaml uci_sms_spam.jsonl.zst

            \(ExitStatus.helpSection(
            [.success, .usage, .badInput, .inputMissing, .cannotCreate], saying: [
                .badInput: "bad data (labels missing from the map, one class, no records, a damaged archive)",
            ]))
            """
    )

    @Argument(help: "Labelled input files (JSONL, CSV, TSV or XML; plain, .zst or .gz); read two or three times, so not standard input.")
    var inputs: [String] = []

    @Option(name: .long, help: "Field holding the truth label.")
    var truthField = "label"

    @Option(name: .long, help: "Truth label → target, e.g. spam=junk,ham=none (one target per label; LABEL=ignore leaves it out).")
    var map: String?

    @Option(name: .long, help: "A JSON or flat YAML file mapping truth labels to targets.")
    var mapFile: String?

    @Option(name: .long, help: "Targets are actions or folders (default: from the mapping).")
    var by: TruthMapping.Granularity?

    // Not ``RuleOptions``: the YAML rule file the learned model joins, not the rule set to classify with.
    @Option(name: .long, help: "A YAML rule file whose rules the model joins (its text is copied into the output); embedded:rules: the built-in one.")
    var rules: String?

    @Option(name: [.short, .customLong("output")], help: "The rule file to write (YAML; required unless --cv).")
    var output: String?

    @OptionGroup var forceOption: ForceOption

    @OptionGroup var input: RecordFormatOptions

    @Option(name: .long, help: "Text normalisation: none, standard or leet (default: the --rules file's, else standard).")
    var normalize: String?

    @Option(name: .long, parsing: .unconditional, help: "Largest vocabulary, 1 to 1000000000: the phrases found in most messages.")
    var maxPhrases = LearnOptions.defaultMaxPhrases

    @Option(name: .long, parsing: .unconditional, help: "A phrase must be in at least this many messages, 1 to 1000000000.")
    var minDocuments = 2

    @Option(name: .long, parsing: .unconditional, help: "Longest word n-gram, 0 (none) to 5.")
    var wordNgrams = 2

    @Option(name: .long, parsing: .unconditional, help: "Shortest word (in characters) a word n-gram may hold, 1 to 16.")
    var minWordLength = 2

    @Option(name: .long, parsing: .unconditional, help: "Text n-gram lengths (substrings of the normalised text across words, spaces and symbols), as N or MIN-MAX from 1 to 16 (none: no text n-grams).")
    var textNgrams = "1-4"

    @Option(name: .long, parsing: .unconditional, help: "Character n-gram lengths within runs of Thai, Chinese and Japanese, as N or MIN-MAX from 1 to 16 (none: none; text n-grams hold them).")
    var charNgrams = "none"

    @Option(name: .long, parsing: .unconditional, help: "Lengths of the pieces of words that hold a digit, as MIN-MAX from 1 to 16 (none: none; text n-grams hold them).")
    var digitNgrams = "none"

    @Option(name: .long, parsing: .unconditional, help: "Precision, from 0.5 to 1, that the model's held-out decisions of each target must reach; it abstains below the margin that gets there (none: it decides at its best held-out macro F1).")
    var precisionTarget = "none"

    @Option(name: .long, help: "Without --precision-target: best-f1 (each target's bias shifted to the best held-out macro F1) or argmax (the plain decisions).")
    var operatingPoint: OperatingPoint = .bestF1

    enum OperatingPoint: String, ExpressibleByArgument, CaseIterable {
        case bestF1 = "best-f1"
        case argmax
    }

    @Option(name: .long, help: "evidence (a link's phrases weigh like any other's) or company (the model files a message in Junk or Promotions for its links only when, with the links blanked out, it still would; else it abstains and the rules decide).")
    var links: Links = .evidence

    enum Links: String, ExpressibleByArgument, CaseIterable {
        case evidence
        case company
    }

    @Option(name: .long, parsing: .unconditional, help: "Real messages of a script the model needs to speak on it, and of an action in a script to overrule a rule of that action or to overrule a rule with it, 0 to 1000000000 (0: always).")
    var minScriptMessages = 100

    @Option(name: .long, parsing: .unconditional, help: "With --rules: held-out overrules, 1 to 1000000000, of a rule action by a target, in a main script, needed to calibrate the margin at which the model overrules such a rule there (and needed at or above it); with fewer it never does.")
    var minOverrules = 20

    @Option(name: .long, help: ArgumentHelp("An input whose records are generated, not real (repeatable; ids gen:N are generated anyway).", valueName: "file"))
    var generatedInput: [String] = []

    @Option(name: .long, parsing: .unconditional, help: "The SVM's regularisation constant C, positive.")
    var cost = 1.0

    @Option(name: .long, parsing: .unconditional, help: "The solver's stopping tolerance, positive.")
    var tolerance = 0.01

    @Option(name: .long, parsing: .unconditional, help: "Seed of the solver's pass order, 0 to 18446744073709551615.")
    var seed = Seed(1)

    @Option(name: .long, parsing: .unconditional, help: "Cross-validate with K folds, 2 to 100, and print precision, recall and F1 per target.")
    var cv: Int?

    @Option(name: .long, help: "Write each record's fold (file, line, id, fold) as JSON Lines to this file.")
    var foldsFile: String?

    @Option(name: .long, help: "The model's name in verdicts and counts.")
    var modelName = "model"

    @Option(name: .long, parsing: .unconditional, help: "Hand rules of this priority (-1000000 to 1000000) or higher decide before the model (default: with --rules, one above the highest rule, so the model sees every rule's verdict and overrules one only where held-out overrules of its kind paid off; else 0).")
    var priority: Int?

    @Option(name: .long, parsing: .unconditional, help: "The winning score must reach this for the model to decide (default: it always decides).")
    var threshold: Float?

    @Option(name: .long, parsing: .unconditional, help: "Candidates counted at once (memory bound of the counting table), 1024 to 1000000000.")
    var maxCandidates = 2_000_000

    @Option(name: .long, parsing: .unconditional, help: "Training messages held at once, 16 to 1000000000; beyond, a deterministic sample.")
    var maxExamples = 2_000_000

    @OptionGroup var quietOption: QuietOption

    @OptionGroup var jsonOption: JSONOption

    static func precision(_ text: String) throws -> Double? {
        if text == "none" { return nil }
        guard let p = Double(text), p >= 0.5, p <= 1 else {
            throw ValidationError("Please give --precision-target from 0.5 to 1, or none.")
        }
        return p
    }

    static func range(_ text: String, _ option: String) throws -> ClosedRange<Int> {
        // Empty pieces kept: `-1` is not `1` (nor `2-` or `-`).
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        if parts.count == 1, let n = parts[0], (1...16).contains(n) { return n...n }
        guard parts.count == 2, let a = parts[0], let b = parts[1], a >= 1, b >= a, b <= 16 else {
            throw ValidationError("Please give \(option) as N or MIN-MAX from 1 to 16, e.g. 2-4 (got \(text)).")
        }
        return a...b
    }

    /// N or MIN-MAX (1…16), or `none` (0...0).
    static func lengths(_ text: String, _ option: String) throws -> ClosedRange<Int> {
        text == "none" ? 0...0 : try range(text, option)
    }

    func validate() throws {
        // Checked once every file is back (``ArgumentFolding``), not against the first file alone.
        if ArgumentFolding.validationDeferred { return }
        if inputs.isEmpty { throw ValidationError("Please name the labelled input files.") }
        if inputs.contains("-") { throw ValidationError("learn reads its inputs more than once: give files, not standard input (-).") }
        if (map == nil) == (mapFile == nil) {
            throw ValidationError("Please give the label mapping with --map (e.g. spam=junk,ham=none) or --map-file, one of them.")
        }
        if output == nil && cv == nil { throw ValidationError("Please give -o/--output for the model (or --cv K to cross-validate only).") }
        try seed.check("--seed")
        try Limits.check(cv, 2...100, "--cv")
        if !RuleDefinition.isValidName(modelName) {
            throw ValidationError("Please give a --model-name that is not empty and has no control characters (tab, newline, NUL, …).")
        }
        try Limits.check(maxPhrases, Limits.learnCount, "--max-phrases")
        try Limits.check(minDocuments, Limits.learnCount, "--min-documents")
        if !(0...5).contains(wordNgrams) { throw ValidationError("Please give --word-ngrams from 0 (none) to 5 (got \(wordNgrams)).") }
        try Limits.check(minWordLength, 1...16, "--min-word-length")
        if cost <= 0 || !cost.isFinite { throw ValidationError("Please give a positive --cost.") }
        if tolerance <= 0 || !tolerance.isFinite { throw ValidationError("Please give a positive --tolerance.") }
        try Limits.check(maxCandidates, Limits.maxCandidates, "--max-candidates")
        try Limits.check(size: input.maxRecord, Limits.maxRecord, "--max-record")
        try Limits.check(maxExamples, Limits.maxExamples, "--max-examples")
        if let normalize, TextNormalization(name: normalize) == nil {
            throw ValidationError("Please give --normalize as none, standard or leet.")
        }
        if let threshold, !threshold.isFinite { throw ValidationError("Please give a finite --threshold.") }
        if try Self.precision(precisionTarget) != nil, operatingPoint == .argmax {
            throw ValidationError("--operating-point argmax and --precision-target both choose where the model decides: give one of them.")
        }
        try Limits.check(minScriptMessages, 0...Limits.learnCount.upperBound, "--min-script-messages")
        try Limits.check(minOverrules, Limits.learnCount, "--min-overrules")
        let named = Set(inputs)
        for g in generatedInput where !named.contains(g) {
            throw ValidationError("--generated-input \(g) is not one of the inputs; name it among the inputs too.")
        }
        // Not abs(): abs(Int.min) traps.
        try Limits.check(priority, -1_000_000...1_000_000, "--priority")
        _ = try Self.lengths(charNgrams, "--char-ngrams")
        _ = try Self.lengths(digitNgrams, "--digit-ngrams")
        _ = try Self.lengths(textNgrams, "--text-ngrams")
    }

    func run() throws {
        let plan = try ioPlan()
        let mapping = try Self.mapping(map, file: mapFile)
        let base = try rules.map(Self.baseRules)
        let normalization = try normalization(base: base)
        var options = try learnOptions(mapping: mapping, base: base, normalization: normalization)
        let report = try ProgressLine.running(shown: !quietOption.quiet && Console.stderrIsTerminal) { progress throws(PipelineError) in
            options.progress = progress
            return try Learner(options: options).run(inputs: inputs)
        }
        if let output, let model = report.model {
            try writeRuleFile(model, to: output, base: base, normalization: normalization, existing: plan.existingPolicy)
        }
        if jsonOption.json {
            Console.printSummaryJSON(JSONText.pretty(report.jsonObject(output: output)), plan: plan)
        } else if !quietOption.quiet {
            let table = report.table(output: output)
            if output == nil { Console.stdout(table) } else { Console.stderr(table) }
        }
    }

    /// What learn reads and writes, checked (``IOPlan``).
    func ioPlan() throws -> IOPlan {
        var plan = IOPlan(force: forceOption.force)
        plan.read(inputs, as: "the input")
        plan.readRules(rules)
        plan.read(mapFile, as: "the mapping file (--map-file)")
        plan.write(output, as: "-o")
        plan.write(foldsFile, as: "--folds-file")
        try plan.check()
        return plan
    }

    /// The --rules file the model joins: its text (copied into the output) and its rules (parsed for
    /// cross-validation).
    struct BaseRules {
        let path: String
        let text: String
        let definition: RuleSetDefinition
        /// Whether the file names its normalisation (the output then says it once, in the file's words).
        var saysNormalize: Bool { text.split(separator: "\n").contains { $0.hasPrefix("normalize:") } }
    }

    static func baseRules(_ path: String) throws -> BaseRules {
        // `embedded:rules`: the built-in rule file's text, as `samples/default-rules.yaml` holds it.
        let data = path == RuleSet.embeddedRulesOnlyPath ? Data(DefaultRules.yaml.utf8) : try Self.readRuleFile(path)
        guard let text = String(data: data, encoding: .utf8),
              !(data.count >= 4 && data.prefix(4) == Data("SMSF".utf8)) else {
            throw CommandFailure("\(EchoedText.escaped(path)): give the YAML rule file (learn copies its text; a compiled .smsf cannot be)", .usage)
        }
        let (definition, issues) = RuleSet.resolve(yaml: text, file: path)
        if !issues.isEmpty { throw CommandFailure(issues.map(\.description).joined(separator: "\n"), .badInput) }
        if definition.model != nil { throw CommandFailure("\(EchoedText.escaped(path)): already has a model: section", .badInput) }
        return BaseRules(path: path, text: text, definition: definition)
    }

    /// --normalize, else the base rules', else standard; --normalize may not contradict a base file that names
    /// its own (rules and model see the same text).
    func normalization(base: BaseRules?) throws -> TextNormalization {
        var normalization = base?.definition.normalization ?? .standard
        if let normalize, let m = TextNormalization(name: normalize) {
            if let base, base.saysNormalize, m != normalization {
                throw CommandFailure("--normalize \(m.name) contradicts \(EchoedText.escaped(base.path))'s normalize: \(normalization.name) (rules and model see the same text)", .usage)
            }
            normalization = m
        }
        return normalization
    }

    /// The library's options from the command line (all but the progress line).
    func learnOptions(mapping: TruthMapping, base: BaseRules?, normalization: TextNormalization) throws -> LearnOptions {
        var options = LearnOptions(mapping: mapping)
        input.apply(to: &options)
        options.readTruth(from: truthField, by: by)
        options.normalization = normalization
        options.candidates.wordNGrams = wordNgrams
        options.candidates.minWordLength = minWordLength
        options.candidates.charNGrams = try Self.lengths(charNgrams, "--char-ngrams")
        options.candidates.digitNGrams = try Self.lengths(digitNgrams, "--digit-ngrams")
        options.candidates.textNGrams = try Self.lengths(textNgrams, "--text-ngrams")
        options.precisionTarget = try Self.precision(precisionTarget)
        options.bestF1 = operatingPoint == .bestF1
        options.minScriptMessages = minScriptMessages
        options.linksNeedCompany = links == .company
        options.generatedInputs = Set(inputs.indices.filter { generatedInput.contains(inputs[$0]) })
        options.maxPhrases = maxPhrases
        options.minDocuments = UInt32(minDocuments)
        options.cost = cost
        options.tolerance = tolerance
        options.seed = seed.value!
        options.folds = cv ?? 0
        options.trainModel = output != nil
        options.maxCandidates = maxCandidates
        options.maxExamples = maxExamples
        options.base = base?.definition
        options.minimumOverrules = minOverrules
        if let base {
            options.baseName = URL(fileURLWithPath: base.path).lastPathComponent
            options.baseChecksum = base.path == RuleSet.embeddedRulesOnlyPath
                ? Learner.checksum(bytes: Array(base.text.utf8)) : Learner.checksum(path: base.path)
        }
        options.modelName = modelName
        options.priority = priority ?? base.map { b in min(1_000_001, (b.definition.rules.map(\.priority).max() ?? -1) + 1) } ?? 0
        options.threshold = threshold
        options.foldsFile = foldsFile
        options.replaceExisting = forceOption.force
        return options
    }

    /// Writes the rule file: the base rules' text (or an empty rule list), the normalisation unless the base
    /// names it, and the model; it must load as written.
    func writeRuleFile(
        _ model: ModelDefinition, to output: String, base: BaseRules?, normalization: TextNormalization, existing: OutputFile.Existing
    ) throws {
        var text = base?.text ?? "# Learned by `smsfilter learn`; see docs/RULES.md, \"Learned models\".\nversion: 1\nrules: []\n"
        if !text.hasSuffix("\n") { text += "\n" }
        if !(base?.saysNormalize ?? false) { text += "normalize: \(normalization.name)\n" }
        text += model.yaml()
        // The file must load as written (list paths of a base file resolve from the output's folder).
        let (_, issues) = RuleSet.resolve(yaml: text, file: output)
        if !issues.isEmpty {
            throw CommandFailure("the rule file learn would write does not load: \(issues.map(\.description).joined(separator: "\n"))", .badInput)
        }
        do {
            let file = try OutputFile(path: output, existing: existing)
            try file.write(text)
            try file.finish()
        } catch {
            throw CommandFailure("\(error)", .cannotCreate)
        }
    }

    static func mapping(_ text: String?, file: String?) throws -> TruthMapping {
        do {
            if let text { return try TruthMapping.parse(text) }
            return try TruthMapping.load(path: file!)
        } catch {
            throw CommandFailure(error.message, .usage)
        }
    }

    static func readRuleFile(_ path: String) throws -> Data {
        do {
            return try BoundedFile.read(path, limit: RuleSet.maxRuleFileBytes)
        } catch {
            throw CommandFailure(error.description, error.kind == .missing ? .inputMissing : .usage)
        }
    }
}

extension LearnCommand: ManyFiles {
    var namedFiles: [String] {
        get { inputs }
        set { inputs = newValue }
    }
}
