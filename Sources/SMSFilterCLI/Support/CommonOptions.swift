import ArgumentParser
import BatchPipeline
import Foundation

// The options many commands share, each declared, helped and defaulted once: a command takes one with
// `@OptionGroup`, where its help should list it. A command whose option of the same name means something
// else declares its own and says why (`explain --quiet`, `export --rules`).

/// `-q/--quiet`: no progress line and no report; errors still go to standard error.
struct QuietOption: ParsableArguments {
    @Flag(name: [.short, .long], help: "Print no progress line and no report (errors still go to standard error).")
    var quiet = false
}

/// `--json`: the command's report as JSON, where ``Console/printSummaryJSON(_:plan:)`` puts it.
struct JSONOption: ParsableArguments {
    @Flag(name: .long, help: "Print the report as JSON instead, on standard output (standard error when an output goes there).")
    var json = false
}

/// `-f/--force`: replace what is already at an output's name (``IOPlan``).
struct ForceOption: ParsableArguments {
    @Flag(name: [.short, .long], help: "Replace existing output files (devices, FIFOs and - need no --force).")
    var force = false
}

/// `--threads`: how many worker threads the command's job runs on (reading, decoding or compressing).
///
/// Checked in each command's `validate()` (`Limits.check(…, Limits.threads, "--threads")`), so that a
/// command reports its problems in the order it always has.
struct ThreadsOption: ParsableArguments {
    @Option(name: .long, parsing: .unconditional, help: "Worker threads, 1 to 256 (default: all cores).")
    var threads: Int?

    /// The threads given, or one per core.
    var count: Int { threads ?? Self.cores }

    /// The number of cores.
    static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }
}

/// `--input-format`: how to read the input when its name and first bytes should not decide.
struct InputFormatOption: ParsableArguments {
    @Option(name: .long, help: "Input format: jsonl, csv, tsv or xml (default: from the name and first bytes).")
    var inputFormat: InputFormat?
}

/// `--rules` where it names the rule set to classify with (explain, classify, evaluate, bench). `export
/// --rules` (classify instead of reading the labels), `learn --rules` (the YAML the model joins) and the
/// rule file argument of check, compile and export-extension mean something else and are their own.
struct RuleOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Rule file (YAML) or compiled rule set (.smsf); default: the embedded rules and model (embedded:rules: the rules alone).", valueName: "file"))
    var rules: String?
}
