import Foundation
import TestSupport
import XCTest

/// Every `--help`, pinned word for word at 80 columns (as argument-parser's own example tests pin theirs):
/// a renamed option, a changed default or a help line that wraps differently shows up here first. After
/// a deliberate change, print the new text with `COLUMNS=80 smsfilter <command> --help` and paste it.
///
/// And every example in the help runs as printed, pasted into a shell (continuation lines included), on
/// small fixture files: an example that wraps mid-command or names an option that does not exist fails.
final class HelpTests: CLITestCase {
    func help(_ command: String) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "80"
        let result = try Fixtures.run(bin, (command == "smsfilter" ? [] : [command]) + ["--help"], environment: environment)
        XCTAssertEqual(result.status, 0)
        return String(decoding: result.stdout, as: UTF8.self)
    }

    func testEveryHelpIsPinned() throws {
        for (command, expected) in Self.pinned.sorted(by: { $0.key < $1.key }) {
            let actual = try help(command)
            if actual != expected {
                let a = actual.components(separatedBy: "\n"), e = expected.components(separatedBy: "\n")
                let line = Array(zip(a, e)).firstIndex(where: { $0 != $1 }) ?? min(a.count, e.count)
                XCTFail("smsfilter \(command) --help differs at line \(line + 1):\n  got:      \(line < a.count ? a[line] : "<end>")\n  expected: \(line < e.count ? e[line] : "<end>")")
            }
        }
        let root = try help("smsfilter")
        for command in Self.pinned.keys where command != "smsfilter" {
            XCTAssertTrue(root.contains("  \(command) "), "the root help lists \(command)")
        }
    }

    /// The examples of a help text: the indented lines after "Example:" or "Examples:", continuation lines
    /// (a line ending in ` \\`) joined as a shell joins them.
    static func examples(in help: String) -> [String] {
        var examples: [String] = []
        var inExamples = false
        var pending = ""
        for line in help.components(separatedBy: "\n") {
            if line == "Example:" || line == "Examples:" {
                inExamples = true
                continue
            }
            guard inExamples else { continue }
            guard line.hasPrefix("  ") else {
                inExamples = false
                continue
            }
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasSuffix(" \\") {
                pending += text.dropLast(2) + " "
            } else {
                examples.append(pending + text)
                pending = ""
            }
        }
        return examples
    }

    /// Small files under the names the examples use.
    func makeFixtures(in dir: URL) throws {
        func at(_ name: String) -> String { dir.appendingPathComponent(name).path }
        func zstd(_ source: String, _ target: String) throws {
            XCTAssertEqual(try Fixtures.run("zstd", ["-q", "-f", at(source), "-o", at(target)]).status, 0)
        }
        XCTAssertEqual(try run(["generate", "--count", "300", "--seed", "1", "-o", at("generated.jsonl"), "-q"]).status, 0)
        for name in ["archive.jsonl.zst", "corpus.jsonl.zst", "generated.jsonl.zst", "shard.zst"] { try zstd("generated.jsonl", name) }
        // Several frames (plan's examples): the archive compressed twice, concatenated.
        let frame = try Data(contentsOf: URL(fileURLWithPath: at("archive.jsonl.zst")))
        try (frame + frame).write(to: URL(fileURLWithPath: at("big.jsonl.zst")))
        try (0..<40).map { "{\"id\": \($0), \"body\": \"\($0 % 2 == 0 ? "WIN a prize, claim now" : "see you soon")\", \"label\": \"\($0 % 2 == 0 ? "spam" : "ham")\"}\n" }
            .joined().write(toFile: at("uci.jsonl"), atomically: true, encoding: .utf8)
        try zstd("uci.jsonl", "uci_sms_spam.jsonl.zst")
        try (0..<40).map { "{\"id\": \($0), \"body\": \"\(["your OTP is 1234", "you won a lottery", "50% off today", "ok see you"][$0 % 4])\", \"label\": \"\(["OTP", "scam", "spam", "OK"][$0 % 4])\"}\n" }
            .joined().write(toFile: at("thai.jsonl"), atomically: true, encoding: .utf8)
        try zstd("thai.jsonl", "thai_sms.jsonl.zst")
        try "OTP: transaction\nscam: junk\nspam: [promotion, junk]\nOK: other\n".write(toFile: at("thai-map.yaml"), atomically: true, encoding: .utf8)
        try "version: 1\nrules:\n  - name: win\n    action: junk\n    keywords: [win]\n".write(toFile: at("my.yaml"), atomically: true, encoding: .utf8)
        try "id,text\n1,you win\n2,hello\n".write(toFile: at("export.csv"), atomically: true, encoding: .utf8)
        let samples = Fixtures.packageRoot.appendingPathComponent("samples")
        for (source, target) in [("example-rules.yaml", "rules.yaml"), ("example-block.txt", "example-block.txt"), ("example-ids.tsv", "example-ids.tsv")] {
            try FileManager.default.copyItem(atPath: samples.appendingPathComponent(source).path, toPath: at(target))
        }
        // Two shards: two archives (merge-counts refuses two runs of one archive: they count it twice).
        for k in 1...2 {
            let shard = at("shard-\(k).jsonl")
            try FileManager.default.copyItem(atPath: at("generated.jsonl"), toPath: shard)
            try FileHandle(forWritingAtPath: shard).map { handle in
                try handle.seekToEnd()
                try handle.write(contentsOf: Data("{\"id\": \"shard-\(k)\", \"body\": \"hello\"}\n".utf8))
                try handle.close()
            }
            let r = try run(["classify", shard, "--no-output", "--counts", at("shard-\(k).counts.json"), "-q"])
            XCTAssertEqual(r.status, 0, r.err)
        }
    }

    func testEveryHelpExampleRunsAsPrinted() throws {
        let fixtures = folder.appendingPathComponent("fixtures")
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: false)
        try makeFixtures(in: fixtures)
        let binFolder = (bin as NSString).deletingLastPathComponent
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = binFolder + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        var count = 0
        for command in Self.pinned.keys.sorted() where command != "smsfilter" {
            let examples = Self.examples(in: try help(command))
            XCTAssertFalse(examples.isEmpty, "\(command) --help has an example")
            // Each command's examples run in order in a copy of the fixtures (an example may use the one before).
            let work = folder.appendingPathComponent("run-\(command)")
            try FileManager.default.copyItem(at: fixtures, to: work)
            for example in examples {
                XCTAssertTrue(example.hasPrefix("smsfilter ") || example.hasPrefix("zstd "), "an example starts a command: \(example)")
                // The only change made to an example: the generator's ten million records are cut to a thousand.
                let line = example.replacingOccurrences(of: "--count 10000000", with: "--count 1000")
                let r = try Fixtures.run("sh", ["-c", "cd \"$1\" && \(line)", "sh", work.path], environment: environment)
                XCTAssertEqual(r.status, 0, "\(command): \(example)\n\(String(decoding: r.stderr, as: UTF8.self))")
                count += 1
            }
        }
        XCTAssertGreaterThanOrEqual(count, 16)
    }

    static let pinned: [String: String] = [
        "smsfilter": #"""
OVERVIEW: Label huge SMS archives into the folders of Apple's SMS message
filters, offline and fast.

USAGE: smsfilter <subcommand>

OPTIONS:
  --version               Show the version.
  -h, --help              Show help information.

SUBCOMMANDS:
  classify                Label every record of SMS archives with an iOS
                          message-filter folder.
  explain                 Show why a message lands in its folder: phrases
                          matched, rules weighed, validation steps.
  check                   Check a rule file in three phases (resolve, confirm,
                          verdict) and say whether it is ready.
  compile                 Compile a rule file into a compiled rule set (.smsf)
                          that loads by mapping the file.
  export                  Write train, validation and test files (JSONL, CSV or
                          fastText) from an SMS archive.
  evaluate                Score a rule set against a corpus with truth labels:
                          per class, per rule, confusion and conflicts.
  generate                Write a deterministic, realistic synthetic SMS corpus
                          with a true folder per record.
  bench                   Measure the matcher alone and the whole classify job
                          on an archive.
  plan                    List the splits of a multi-frame zstd archive for
                          classify --range runs.
  merge-counts            Sum the count files of several classify runs into
                          one, exactly.
  export-extension        Write an iOS message filter and Call Directory
                          extension (Swift sources, compiled rules, README) for
                          a rule set.
  learn                   Learn phrase weights from labelled records and write
                          them as the model: section of a rule file.
  show-rules              Print the built-in rule file (YAML), to start a rule
                          file of your own from it.

  See 'smsfilter help <subcommand>' for detailed help.

"""#,
        "classify": #"""
OVERVIEW: Label every record of SMS archives with an iOS message-filter folder.

Reads JSON Lines, CSV, TSV or Android "SMS Backup & Restore" XML, plain, zstd-
or gzip-compressed (detected by magic bytes), from files or standard input (-),
and writes each record back in its own format (or --output-format's) with a
"filter" object added (JSON Lines), filter_* columns (CSV/TSV) or filter_*
attributes (XML); labels a record already has are replaced. Malformed records
are counted and written to --rejects with their file, line, reason and bytes;
the run goes on. Counts go to --counts as JSON and to standard error as a table
(--json: as JSON on standard output, or on standard error when the records go
there).

Every output is checked before any work: none may be an input or another
output, and an existing file is replaced only with -f. Records are not written
to a terminal unless -o - asks for it.

Examples:
  smsfilter classify archive.jsonl.zst -o labelled.jsonl.zst \
      --counts counts.json
  zstd -dc shard.zst | smsfilter classify --labels-only > labels.jsonl
  smsfilter classify --rules my.yaml --input-format csv \
      --body-field text export.csv -o out.csv

Exit status: 0 success, 64 usage, 65 damaged input or a bad record under
--strict, 66 input missing, 70 internal error, 73 an output could not be
written.

USAGE: smsfilter classify [<options>] [<inputs> ...]

ARGUMENTS:
  <inputs>                Input files (JSONL, CSV, TSV or XML; plain, .zst or
                          .gz); - or nothing reads standard input.

OPTIONS:
  --manifest <file>       A file listing input archives, one per line (#
                          comments allowed).
  --shard <shard>         Process only the K-th of N deterministic shares of
                          the inputs, as K/N with 1 ≤ K ≤ N.
  --range <range>         Classify only the records that start in these frames
                          of one zstd archive (JSON Lines or TSV, a regular
                          file): compressed offsets START:END at frame
                          boundaries, as smsfilter plan lists them. The run
                          keeps its rejects within its share of
                          --max-rejects-bytes (by compressed bytes).
  --first-line <first-line>
                          With --range: the archive's line number where the
                          range starts, 1 to 4611686018427387904 (plan
                          --lines), so lines before it need not be counted.
  --rules <file>          Rule file (YAML) or compiled rule set (.smsf);
                          default: the embedded rules and model
                          (embedded:rules: the rules alone).
  -o, --output <file>     Where labelled records go (- is standard output; a
                          .zst name is zstd, .gz gzip).
  --no-output             Write no labelled records, only counts (and rejects).
  --counts <file>         Write the counts as JSON to this file.
  --rejects <file>        Write rejected records (file, line, reason, record)
                          as JSON Lines to this file (.zst, .gz compress).
  --max-rejects-bytes <max-rejects-bytes>
                          The most bytes --rejects holds, 1K to 1T: rejects
                          whole while they fit in half of it, then their first
                          256 bytes, length and SHA-256 while those fit, then
                          only counted. (default: 1G)
  --format <format>       What to write per record: records (whole records plus
                          labels) or labels (id and labels only). (values:
                          records, labels; default: records)
  --labels-only           Same as --format labels: one {"id": …, "filter": {…}}
                          line per record.
  --input-name <input-name>
                          The name standard input goes by in counts and rejects
                          (and its format is guessed from).
  --input-format <input-format>
                          Input format: jsonl, csv, tsv or xml (default: from
                          the name and first bytes). (values: jsonl, csv, tsv,
                          xml)
  --id-field <id-field>   Field, column or attribute holding the record id.
                          (default: id)
  --sender-field <sender-field>
                          Field, column or attribute holding the sender (XML
                          default: address). (default: sender)
  --body-field <body-field>
                          Field, column or attribute holding the message text.
                          (default: body)
  --no-header             CSV/TSV input has no header row (name fields by
                          1-based column number).
  --max-record <max-record>
                          Longest record read, 1K to 1G; a longer one is
                          rejected and counted. (default: 64M)
  --delimiter <char>      CSV field separator, such as ';' or '|' (default
                          ','); implies --input-format csv.
  --threads <threads>     Worker threads, 1 to 256 (default: all cores).
  --output-format <output-format>
                          Write records as jsonl, csv, tsv or xml (default: the
                          input's format). (values: jsonl, csv, tsv, xml)
  --filter-key <filter-key>
                          Name of the added labels (JSON key, column/attribute
                          prefix): letters, digits, _ - . (default: filter)
  --chunk-size <chunk-size>
                          Bytes of records per work unit, 4K to 64M (default
                          768K at 1 thread, 512K at 2, less above).
  --level <level>         Compression level of the output: zstd -7 to 19, gzip
                          (.gz) 1 to 9 (default 1 for a .zst or .gz name).
  --compression-threads <compression-threads>
                          zstd compression threads for the output, 0 to 256
                          (default: 1 per 8 --threads, 0 with 1).
  --frame-size <frame-size>
                          Decoded bytes per frame of .zst outputs, 64K to 1G,
                          plus a seek table (zstd's seekable format: readers
                          decode the frames in parallel); 0: one frame.
                          (default: 4M)
  --strict                Stop with exit status 65 at the first malformed
                          record.
  --explain               Add the deciding phrase and its byte span to each
                          label.
  -f, --force             Replace existing output files (devices, FIFOs and -
                          need no --force).
  -q, --quiet             Print no progress line and no report (errors still go
                          to standard error).
  --json                  Print the report as JSON instead, on standard output
                          (standard error when an output goes there).
  --version               Show the version.
  -h, --help              Show help information.


"""#,
        "explain": #"""
OVERVIEW: Show why a message lands in its folder: phrases matched, rules
weighed, validation steps.

With --input, explains the records of a file instead (any format classify
reads; - is standard input): every record, or those whose id --id gives, each
as a block headed by its id and line (with --json: one JSON object per line,
with "file", "line" and "id"). Records the reader refuses (broken JSON, no
body) are listed with the reason.

Examples:
  smsfilter explain --sender AD-HDFCBK "Rs 500 debited from a/c XX12"
  smsfilter explain --input archive.jsonl.zst --id gen:17 --json

Exit status: 0 success, 64 usage, 65 bad rules, damaged input or an --id not
found, 66 rule file or input missing.

USAGE: smsfilter explain [<options>] [<text>]

ARGUMENTS:
  <text>                  The message body.

OPTIONS:
  --rules <file>          Rule file (YAML) or compiled rule set (.smsf);
                          default: the embedded rules and model
                          (embedded:rules: the rules alone).
  --sender <sender>       The message's sender (phone number, short code,
                          alphanumeric or TRAI header).
  --input <file>          Explain the records of this file (- is standard
                          input) instead of TEXT.
  --id <id>               With --input: only the records with this id
                          (repeatable).
  --input-format <input-format>
                          Input format: jsonl, csv, tsv or xml (default: from
                          the name and first bytes). (values: jsonl, csv, tsv,
                          xml)
  --id-field <id-field>   Field, column or attribute holding the record id.
                          (default: id)
  --sender-field <sender-field>
                          Field, column or attribute holding the sender (XML
                          default: address). (default: sender)
  --body-field <body-field>
                          Field, column or attribute holding the message text.
                          (default: body)
  --no-header             CSV/TSV input has no header row (name fields by
                          1-based column number).
  --max-record <max-record>
                          Longest record read, 1K to 1G; a longer one is
                          rejected and counted. (default: 64M)
  --delimiter <char>      CSV field separator, such as ';' or '|' (default
                          ','); implies --input-format csv.
  --json                  Print the explanation as JSON (the filter keys at top
                          level, with matches and steps).
  -q, --quiet             Print only the folder.
  --version               Show the version.
  -h, --help              Show help information.


"""#,
        "check": #"""
OVERVIEW: Check a rule file in three phases (resolve, confirm, verdict) and say
whether it is ready.

Warnings (a sub-action that iOS would drop, a rule that can never fire, a
keyword claimed by rules of different folders) leave the rules ready; --strict
makes them a failure too, for a CI step that must keep a rule file free of
them.

Example:
  smsfilter check --target ios --strict rules.yaml

Exit status: 0 ready, 64 usage, 65 failure (the report says why; with --strict,
warnings too), 66 rule file missing.

USAGE: smsfilter check <rules> [--target <target>] [--json] [--quiet] [--strict]

ARGUMENTS:
  <rules>                 The rule file to check (YAML or .smsf;
                          embedded:rules: the built-in one).

OPTIONS:
  --target <target>       What the rules must be fit for: offline or ios (at
                          most five sub-actions). (values: offline, ios;
                          default: offline)
  --json                  Print the report as JSON instead, on standard output
                          (standard error when an output goes there).
  -q, --quiet             Print no progress line and no report (errors still go
                          to standard error).
  --strict                Fail (65) on warnings too, not only on errors.
  --version               Show the version.
  -h, --help              Show help information.


"""#,
        "compile": #"""
OVERVIEW: Compile a rule file into a compiled rule set (.smsf) that loads by
mapping the file.

Example:
  smsfilter compile rules.yaml -o rules.smsf

Exit status: 0 success, 64 usage, 65 bad rules, 66 rule file missing, 73 the
output could not be written.

USAGE: smsfilter compile <input> --output <file> [--force] [--quiet] [--json]

ARGUMENTS:
  <input>                 The rule file (YAML, or a .smsf to rewrite;
                          embedded:rules: the built-in one).

OPTIONS:
  -o, --output <file>     The compiled rule set to write.
  -f, --force             Replace existing output files (devices, FIFOs and -
                          need no --force).
  -q, --quiet             Print no progress line and no report (errors still go
                          to standard error).
  --json                  Print the report as JSON instead, on standard output
                          (standard error when an output goes there).
  --version               Show the version.
  -h, --help              Show help information.


"""#,
        "export": #"""
OVERVIEW: Write train, validation and test files (JSONL, CSV or fastText) from
an SMS archive.

Reads the records as classify does (JSON Lines, CSV, TSV or Android XML, plain,
zstd or gzip; on all cores). Labels come from each record's "filter" object,
filter_* columns or attributes (written by classify); records without them are
classified with the embedded rules. With --rules every record is classified
with those rules; with --label-field the label is taken from that field. The
split is decided by a hash of the record id alone (of the body when there is no
id), so a record keeps its split when the corpus grows. Duplicates are bodies
equal after lowercasing and collapsing whitespace; they are counted (and
cross-split leaks with them) in memory of about 16-40 bytes per distinct body,
and dropped with --dedup. fastText labels have whitespace replaced by _
(Transactions/Public_Services).

The per-split, per-label table goes to standard error (--json: as JSON on
standard output) and, as JSON, to --stats-file. The output folder is created
when missing (its parent must exist); files already in it are replaced only
with -f.

Examples:
  smsfilter classify archive.jsonl.zst -o labelled.jsonl.zst
  smsfilter export labelled.jsonl.zst -o sets --format fasttext --dedup \
      --stats-file stats.json
  smsfilter export corpus.jsonl.zst --label-field label --split 90,5,5 \
      --max-per-label 50000 -o label-sets

Exit status: 0 success, 64 usage, 65 damaged input, 66 input missing, 73 an
output could not be written.

USAGE: smsfilter export [<options>] [<inputs> ...]

ARGUMENTS:
  <inputs>                Input files (JSONL, CSV, TSV or XML; plain, .zst or
                          .gz); - or nothing reads standard input.

OPTIONS:
  -o, --output <folder>   Folder that receives train.<ext>, validation.<ext>
                          and test.<ext>.
  --format <format>       Training-file format: jsonl, csv or fasttext.
                          (values: jsonl, csv, fasttext; default: jsonl)
  --label <label>         The label: folder, action or action-subaction.
                          (values: folder, action, action-subaction; default:
                          folder)
  --rules <file>          Classify every record with this rule file (YAML or
                          .smsf) instead of using its filter object.
  --label-field <label-field>
                          Take each record's label verbatim from this field
                          instead.
  --split <split>         Weights of train, validation and test (whole numbers
                          up to 1000000), e.g. 80,10,10; a part of weight 0
                          (90,10) gets no file. (default: 80,10,10)
  --dedup                 Drop records whose body (lowercased, whitespace
                          collapsed) was seen before.
  --no-duplicate-check    Do not count duplicates and leaks (memory then stays
                          flat whatever the input).
  --max-per-label <max-per-label>
                          Keep at most N records per label, 1 or more (a
                          deterministic choice by a hash of the id).
  --label-prefix <label-prefix>
                          fastText's label prefix. (default: __label__)
  --zst                   Compress the outputs with zstd (names get .zst).
  --level <level>         zstd level with --zst, -7 to 19. (default: 3)
  --frame-size <frame-size>
                          Decoded bytes per frame with --zst, 64K to 1G, plus a
                          seek table (zstd's seekable format); 0: one frame.
                          (default: 4M)
  --stats-file <file>     Write the per-split, per-label table as JSON to this
                          file (- is standard output).
  --input-format <input-format>
                          Input format: jsonl, csv, tsv or xml (default: from
                          the name and first bytes). (values: jsonl, csv, tsv,
                          xml)
  --id-field <id-field>   Field, column or attribute holding the record id.
                          (default: id)
  --sender-field <sender-field>
                          Field, column or attribute holding the sender (XML
                          default: address). (default: sender)
  --body-field <body-field>
                          Field, column or attribute holding the message text.
                          (default: body)
  --no-header             CSV/TSV input has no header row (name fields by
                          1-based column number).
  --max-record <max-record>
                          Longest record read, 1K to 1G; a longer one is
                          rejected and counted. (default: 64M)
  --delimiter <char>      CSV field separator, such as ';' or '|' (default
                          ','); implies --input-format csv.
  --threads <threads>     Worker threads, 1 to 256 (default: all cores).
  --filter-key <filter-key>
                          Key (column or attribute prefix) of the labels
                          written by classify. (default: filter)
  -f, --force             Replace existing output files (devices, FIFOs and -
                          need no --force).
  -q, --quiet             Print no progress line and no report (errors still go
                          to standard error).
  --json                  Print the report as JSON instead, on standard output
                          (standard error when an output goes there).
  --version               Show the version.
  -h, --help              Show help information.


"""#,
        "evaluate": #"""
OVERVIEW: Score a rule set against a corpus with truth labels: per class, per
rule, confusion and conflicts.

Reads the records as classify does (JSON Lines, CSV, TSV or Android XML, plain,
zstd or gzip; on all cores). Each record is classified; its truth label
(--truth-field) is mapped to the actions or folders it may land in (--map or
--map-file). Targets: an action (none, allow, junk, promotion, transaction: any
folder of it), a folder path (Transactions/Finance), other (none or allow),
ignore (not scored); several as a|b. Scoring is per folder when a target is a
sub-folder, per action otherwise (--by to choose). The macro F1 is
scikit-learn's f1_score(average="macro") on one class per record: y_true is the
label's targets (spam=junk|promotion: junk|promotion), y_pred the same when the
prediction is accepted, else the targets of the first label that accepts it,
else the action or folder predicted; --predictions writes both per record.
Also: precision, recall and F1 per class and per truth label, a confusion
matrix (truth label × prediction), per-rule hits, precision and share of true
positives, conflicts (rules of different folders firing on one record) and
rules that never fire.

The figures go to standard error as tables (--json: as one JSON object on
standard output), to --json-file as JSON and to --report as a self-contained
HTML page.

Examples:
  smsfilter evaluate uci_sms_spam.jsonl.zst \
      --map 'spam=junk|promotion,ham=other' --report uci.html
  smsfilter evaluate thai_sms.jsonl.zst --map-file thai-map.yaml \
      --json-file thai.json
  smsfilter evaluate generated.jsonl.zst --map identity
  smsfilter evaluate uci_sms_spam.jsonl.zst --ignore-case \
      --map 'SPAM=junk|promotion,ham=other' --predictions uci-pred.jsonl

Exit status: 0 success, 64 usage, 65 damaged input or bad rules, 66 input
missing, 73 an output could not be written.

USAGE: smsfilter evaluate [<options>] [<inputs> ...]

ARGUMENTS:
  <inputs>                Input files (JSONL, CSV, TSV or XML; plain, .zst or
                          .gz); - or nothing reads standard input.

OPTIONS:
  --rules <file>          Rule file (YAML) or compiled rule set (.smsf);
                          default: the embedded rules and model
                          (embedded:rules: the rules alone).
  --truth-field <truth-field>
                          Field holding the truth label. (default: label)
  --map <map>             Truth label → targets, e.g.
                          spam=junk|promotion,ham=other (identity: the labels
                          are folder paths).
  --map-file <file>       A JSON or flat YAML file mapping truth labels to
                          targets.
  --by <by>               Score per action or per folder (default: from the
                          mapping). (values: action, folder)
  --ignore-case           Truth labels that differ only in case are one label
                          (spam, Spam, SPAM).
  --predictions <file>    Write y_true and y_pred of every scored record, one
                          JSON line each, to this file (.zst or .gz:
                          compressed; - is standard output), for scikit-learn.
  --json-file <file>      Write the figures as JSON to this file (- is standard
                          output).
  --report <file>         Write a self-contained HTML report to this file.
  --conflict-examples <conflict-examples>
                          How many conflict examples to keep, 0 to 100000.
                          (default: 20)
  --input-format <input-format>
                          Input format: jsonl, csv, tsv or xml (default: from
                          the name and first bytes). (values: jsonl, csv, tsv,
                          xml)
  --id-field <id-field>   Field, column or attribute holding the record id.
                          (default: id)
  --sender-field <sender-field>
                          Field, column or attribute holding the sender (XML
                          default: address). (default: sender)
  --body-field <body-field>
                          Field, column or attribute holding the message text.
                          (default: body)
  --no-header             CSV/TSV input has no header row (name fields by
                          1-based column number).
  --max-record <max-record>
                          Longest record read, 1K to 1G; a longer one is
                          rejected and counted. (default: 64M)
  --delimiter <char>      CSV field separator, such as ';' or '|' (default
                          ','); implies --input-format csv.
  --threads <threads>     Worker threads, 1 to 256 (default: all cores).
  -f, --force             Replace existing output files (devices, FIFOs and -
                          need no --force).
  -q, --quiet             Print no progress line and no report (errors still go
                          to standard error).
  --json                  Print the report as JSON instead, on standard output
                          (standard error when an output goes there).
  --version               Show the version.
  -h, --help              Show help information.


"""#,
        "generate": #"""
OVERVIEW: Write a deterministic, realistic synthetic SMS corpus with a true
folder per record.

Each line: {"id", "sender", "body", "ts", "label", "lang"}, where label is the
folder the message belongs in. All twelve sub-actions, junk and scams,
promotions, OTPs and personal chat; TRAI headers, short codes, alphanumerics,
E.164 numbers and e-mail senders; English, Hinglish, Hindi, Chinese and Thai.
The same --seed and --count give the same bytes.

Records are not written to a terminal unless -o - asks for it.

Example:
  smsfilter generate --count 10000000 --seed 1 -o corpus-10m.jsonl.zst

Exit status: 0 success, 64 usage, 73 the output could not be written.

USAGE: smsfilter generate --count <count> [--seed <seed>] [--output <file>] [--level <level>] [--threads <threads>] [--frame-size <frame-size>] [--force] [--quiet] [--json]

OPTIONS:
  --count <count>         Number of records, 0 to 1000000000000.
  --seed <seed>           Seed of the pseudo-random generator, 0 to
                          18446744073709551615. (default: 1)
  -o, --output <file>     Output file (a .zst name is zstd, .gz gzip); - is
                          standard output.
  --level <level>         Compression level: zstd -7 to 19, gzip (.gz) 1 to 9.
                          (default: 3)
  --threads <threads>     Worker threads, 1 to 256 (default: all cores).
  --frame-size <frame-size>
                          Decoded bytes per frame of a .zst output, 64K to 1G,
                          plus a seek table (zstd's seekable format); 0: one
                          frame. (default: 4M)
  -f, --force             Replace existing output files (devices, FIFOs and -
                          need no --force).
  -q, --quiet             Print no progress line and no report (errors still go
                          to standard error).
  --json                  Print the report as JSON instead, on standard output
                          (standard error when an output goes there).
  --version               Show the version.
  -h, --help              Show help information.


"""#,
        "bench": #"""
OVERVIEW: Measure the matcher alone and the whole classify job on an archive.

Matcher: the input's bodies are loaded into memory first (up to
--matcher-bytes), then classified in batches (the rule set's automata and
rules: what a worker does per message), --repeat times; the median is reported.
"automaton" is the bare Aho-Corasick scan of the rule set's phrases over the
same bodies. End to end: decode, frame, parse, match and write (to a temporary
.jsonl.zst, or labels only), with each stage's share, per-chunk latency
percentiles and peak memory. Bytes are body bytes (matcher) or decoded input
bytes (end to end).

Example:
  smsfilter bench --json corpus.jsonl.zst

Exit status: 0 success, 64 usage, 65 damaged input or bad rules, 66 input
missing, 73 an output (--phrases-file) could not be written.

USAGE: smsfilter bench <input> [--rules <file>] [--threads <threads>] [--repeat <repeat>] [--matcher-bytes <matcher-bytes>] [--labels-only] [--matcher-only] [--json] [--phrases-file <file>] [--force] [--quiet]

ARGUMENTS:
  <input>                 An archive (JSONL, CSV, TSV or XML; plain, .zst or
                          .gz).

OPTIONS:
  --rules <file>          Rule file (YAML) or compiled rule set (.smsf);
                          default: the embedded rules and model
                          (embedded:rules: the rules alone).
  --threads <threads>     Worker threads, 1 to 256 (default: all cores).
  --repeat <repeat>       How many times to run each measurement, 1 to 1000
                          (the median is reported). (default: 3)
  --matcher-bytes <matcher-bytes>
                          Body bytes to load for the matcher measurement, 1K to
                          2G. (default: 256M)
  --labels-only           End to end: write labels only instead of whole
                          records.
  --matcher-only          Skip the end-to-end measurement.
  --json                  Print the report as JSON instead, on standard output
                          (standard error when an output goes there).
  --phrases-file <file>   Only write the rule set's phrases to this file, one
                          per line, for peer tools.
  -f, --force             Replace existing output files (devices, FIFOs and -
                          need no --force).
  -q, --quiet             Print no progress line and no report (errors still go
                          to standard error).
  --version               Show the version.
  -h, --help              Show help information.


"""#,
        "plan": #"""
OVERVIEW: List the splits of a multi-frame zstd archive for classify --range
runs.

zstd archives can be cut only between frames. The frames are found without
decoding (the seek table of a seekable archive, or the frame and block headers:
pzstd, concatenated frames) and taken in order into splits of at least
--split-size decoded bytes, each with its compressed byte range (for classify
--range START:END), frames and decoded size. A record that crosses a split's
edge is read by the split it starts in, so the splits' outputs joined in order
are one whole-archive run's. Single-frame, gzip and plain archives are one
split, and so are CSV and XML (where a record starts depends on every byte
before it); the plan says why.

--lines decodes every split to count its lines: exact decoded sizes (pzstd
frames do not say theirs), and the archive's line number where each split
starts (classify --first-line), so that split runs number rejects as a
whole-archive run does without decoding what precedes them.

Examples:
  smsfilter plan big.jsonl.zst --split-size 256M
  smsfilter plan big.jsonl.zst --lines --json -o plan.json

The archive must be a regular file (it is read at offsets): a pipe, a FIFO or
standard input is refused at once.

Exit status: 0 success, 64 usage (an archive that is not a regular file
included), 65 damaged archive (--lines) or unreadable input, 66 input missing,
73 the plan could not be written.

USAGE: smsfilter plan <archive> [--split-size <split-size>] [--lines] [--range <range>] [--input-format <input-format>] [--threads <threads>] [--output <file>] [--force] [--quiet] [--json]

ARGUMENTS:
  <archive>               The archive (a file).

OPTIONS:
  --split-size <split-size>
                          Decoded bytes per split, at least (1 to 1T).
                          (default: 256M)
  --lines                 Decode every split to count its lines and decoded
                          bytes exactly.
  --range <range>         Plan only these frames (compressed offsets START:END
                          at frame boundaries).
  --input-format <input-format>
                          Input format: jsonl, csv, tsv or xml (default: from
                          the name and first bytes). (values: jsonl, csv, tsv,
                          xml)
  --threads <threads>     Worker threads, 1 to 256 (default: all cores).
  -o, --output <file>     Write the plan as JSON to this file.
  -f, --force             Replace existing output files (devices, FIFOs and -
                          need no --force).
  -q, --quiet             Print no progress line and no report (errors still go
                          to standard error).
  --json                  Print the report as JSON instead, on standard output
                          (standard error when an output goes there).
  --version               Show the version.
  -h, --help              Show help information.


"""#,
        "show-rules": #"""
OVERVIEW: Print the built-in rule file (YAML), to start a rule file of your own
from it.

Prints the rule file built into smsfilter byte for byte
(samples/default-rules.yaml in the source): the rules --rules embedded:rules
classifies with, and that the default joins to the embedded model. Edit a copy
and give it to --rules, check, compile or export-extension (an iOS extension
needs capabilities: with at most five sub-actions; smsfilter check --target ios
says what to change).

Examples:
  smsfilter show-rules > my-rules.yaml
  smsfilter show-rules embedded -o my-rules.yaml --force
  smsfilter check my-rules.yaml

Exit status: 0 success, 64 usage, 73 the output could not be written.

USAGE: smsfilter show-rules [<name>] [--output <file>] [--force]

ARGUMENTS:
  <name>                  Which rule file: embedded (also embedded:rules), the
                          built-in one. (default: embedded)

OPTIONS:
  -o, --output <file>     Write it to this file instead of standard output (-
                          is standard output).
  -f, --force             Replace existing output files (devices, FIFOs and -
                          need no --force).
  --version               Show the version.
  -h, --help              Show help information.


"""#,
        "merge-counts": #"""
OVERVIEW: Sum the count files of several classify runs into one, exactly.

Refuses count files made with different rule sets (each names its rule set's
checksum), and count files that are damaged: a field missing or of the wrong
type, a negative count, or records that are not labelled + rejected. Sums that
would overflow are refused too.

An archive is known by its bytes (its size and a hash of its first and last 4
KiB, files[].archive), not by the path a run named it by. The splits of an
archive (classify --range) join into its entry where they meet; counts of one
archive that overlap (two splits, a whole run and a split, whole runs in two
count files, a copy of the archive included) would count its records twice and
are refused. When the splits join into archives of which no record could be
read, the merge fails as one whole run fails.

Example:
  smsfilter merge-counts shard-*.counts.json -o total.json

Exit status: 0 success, 64 usage (a count file named twice), 65 a count file
that is damaged, of another rule set, a copy of another, or counts that overlap
or overflow, 66 a count file missing, 73 the output could not be written.

USAGE: smsfilter merge-counts [<files> ...] [--output <file>] [--force] [--quiet]

ARGUMENTS:
  <files>                 Count files written by classify --counts.

OPTIONS:
  -o, --output <file>     Write the merged counts here instead of standard
                          output.
  -f, --force             Replace existing output files (devices, FIFOs and -
                          need no --force).
  -q, --quiet             Print no progress line and no report (errors still go
                          to standard error).
  --version               Show the version.
  -h, --help              Show help information.


"""#,
        "export-extension": #"""
OVERVIEW: Write an iOS message filter and Call Directory extension (Swift
sources, compiled rules, README) for a rule set.

Writes into DIR: the message filter extension class (capabilities query and
message query, classifying with the MessageFilter library and the bundled
Rules.smsf), the Call Directory handler (block and identification lists from
BlockList.txt and IdentificationList.tsv, in ascending order and bounded
batches), the NSExtension Info.plist entries, and a README on adding them to an
Xcode project. DIR is created when missing (its parent must exist). Files of
the same names are replaced only with -f; other files in DIR are left alone.

The rule set must pass `smsfilter check --target ios` (at most five sub-actions
declared, no errors); otherwise nothing is written and the exit status is 65.

Example:
  smsfilter export-extension rules.yaml -o FilterExtension

Exit status: 0 success, 64 usage, 65 rules not shippable on iOS, 66 rule file
missing, 73 DIR could not be written.

USAGE: smsfilter export-extension <rules> --output <folder> [--message-filter-class <message-filter-class>] [--call-directory-class <call-directory-class>] [--batch-size <batch-size>] [--force] [--quiet] [--json]

ARGUMENTS:
  <rules>                 The rule file (YAML or .smsf; embedded:rules: the
                          built-in one); it must pass `smsfilter check --target
                          ios`.

OPTIONS:
  -o, --output <folder>   The folder to write the extension files into (created
                          when missing).
  --message-filter-class <message-filter-class>
                          The message filter extension's class name. (default:
                          MessageFilterExtension)
  --call-directory-class <call-directory-class>
                          The Call Directory extension's class name. (default:
                          CallDirectoryHandler)
  --batch-size <batch-size>
                          Call Directory entries handed to CallKit per batch, 1
                          to 1000000, each batch in its own autorelease pool.
                          (default: 5000)
  -f, --force             Replace existing output files (devices, FIFOs and -
                          need no --force).
  -q, --quiet             Print no progress line and no report (errors still go
                          to standard error).
  --json                  Print the report as JSON instead, on standard output
                          (standard error when an output goes there).
  --version               Show the version.
  -h, --help              Show help information.


"""#,
        "learn": #"""
OVERVIEW: Learn phrase weights from labelled records and write them as the
model: section of a rule file.

Reads labelled records (JSON Lines, CSV, TSV or Android XML; plain, .zst or
.gz), maps each truth label to a target (an action or a folder) with --map, and
learns one weight per phrase per target and a bias per target: word uni- and
bigrams and text n-grams (1 to 4 characters of the normalised text, across
words, spaces and symbols, in every script: Thai, Chinese and Japanese
included) by default; the --max-phrases phrases in most messages; binary
TF-IDF, L2-normalised, one-vs-rest linear SVMs (defaults chosen by
cross-validation on English, Thai and Chinese corpora: docs/QUALITY.md). The
classifier finds the model's phrases as learn found them and adds their weights
(docs/RULES.md, "Learned models"). The model records how many real messages of
each script it learned from and abstains on a script with fewer than
--min-script-messages. On held-out folds it picks its operating point: by
default the bias per target at which the held-out macro F1 is highest, so the
model decides every message it has evidence on; with --precision-target P, per
target the smallest margin over the runner-up at which its decisions reach P
(junk and promotion count as one, both filtered), and it abstains below it,
leaving the message to the rules. Records of `smsfilter generate` (ids gen:N)
and --generated-input files count as generated, not real. --cv K prints
cross-validated precision, recall and F1 per target (folds by a hash of the
normalised body, so duplicates share a fold); with -o as well, the figures go
into the model's provenance. Same inputs and options, same bytes.

Examples:
  smsfilter learn --truth-field label --map 'spam=junk,ham=none' \
      -o m.yaml uci.jsonl
  smsfilter classify --rules m.yaml --labels-only uci.jsonl
  smsfilter learn --cv 5 thai_sms.jsonl.zst \
      --map 'OTP=transaction,scam=junk,spam=promotion,OK=none'
  smsfilter learn --rules my.yaml --priority 50 --map 'spam=junk,ham=none' \
      -o combined.yaml uci_sms_spam.jsonl.zst

Exit status: 0 success, 64 usage, 65 bad data (labels missing from the map, one
class, no records, a damaged archive), 66 input missing, 73 an output could not
be written.

USAGE: smsfilter learn [<options>] [<inputs> ...]

ARGUMENTS:
  <inputs>                Labelled input files (JSONL, CSV, TSV or XML; plain,
                          .zst or .gz); read two or three times, so not
                          standard input.

OPTIONS:
  --truth-field <truth-field>
                          Field holding the truth label. (default: label)
  --map <map>             Truth label → target, e.g. spam=junk,ham=none (one
                          target per label; LABEL=ignore leaves it out).
  --map-file <map-file>   A JSON or flat YAML file mapping truth labels to
                          targets.
  --by <by>               Targets are actions or folders (default: from the
                          mapping). (values: action, folder)
  --rules <rules>         A YAML rule file whose rules the model joins (its
                          text is copied into the output); embedded:rules: the
                          built-in one.
  -o, --output <output>   The rule file to write (YAML; required unless --cv).
  -f, --force             Replace existing output files (devices, FIFOs and -
                          need no --force).
  --input-format <input-format>
                          Input format: jsonl, csv, tsv or xml (default: from
                          the name and first bytes). (values: jsonl, csv, tsv,
                          xml)
  --id-field <id-field>   Field, column or attribute holding the record id.
                          (default: id)
  --sender-field <sender-field>
                          Field, column or attribute holding the sender (XML
                          default: address). (default: sender)
  --body-field <body-field>
                          Field, column or attribute holding the message text.
                          (default: body)
  --no-header             CSV/TSV input has no header row (name fields by
                          1-based column number).
  --max-record <max-record>
                          Longest record read, 1K to 1G; a longer one is
                          rejected and counted. (default: 64M)
  --delimiter <char>      CSV field separator, such as ';' or '|' (default
                          ','); implies --input-format csv.
  --normalize <normalize> Text normalisation: none, standard or leet (default:
                          the --rules file's, else standard).
  --max-phrases <max-phrases>
                          Largest vocabulary, 1 to 1000000000: the phrases
                          found in most messages. (default: 30000)
  --min-documents <min-documents>
                          A phrase must be in at least this many messages, 1 to
                          1000000000. (default: 2)
  --word-ngrams <word-ngrams>
                          Longest word n-gram, 0 (none) to 5. (default: 2)
  --min-word-length <min-word-length>
                          Shortest word (in characters) a word n-gram may hold,
                          1 to 16. (default: 2)
  --text-ngrams <text-ngrams>
                          Text n-gram lengths (substrings of the normalised
                          text across words, spaces and symbols), as N or
                          MIN-MAX from 1 to 16 (none: no text n-grams).
                          (default: 1-4)
  --char-ngrams <char-ngrams>
                          Character n-gram lengths within runs of Thai, Chinese
                          and Japanese, as N or MIN-MAX from 1 to 16 (none:
                          none; text n-grams hold them). (default: none)
  --digit-ngrams <digit-ngrams>
                          Lengths of the pieces of words that hold a digit, as
                          MIN-MAX from 1 to 16 (none: none; text n-grams hold
                          them). (default: none)
  --precision-target <precision-target>
                          Precision, from 0.5 to 1, that the model's held-out
                          decisions of each target must reach; it abstains
                          below the margin that gets there (none: it decides at
                          its best held-out macro F1). (default: none)
  --operating-point <operating-point>
                          Without --precision-target: best-f1 (each target's
                          bias shifted to the best held-out macro F1) or argmax
                          (the plain decisions). (values: best-f1, argmax;
                          default: best-f1)
  --links <links>         evidence (a link's phrases weigh like any other's) or
                          company (the model files a message in Junk or
                          Promotions for its links only when, with the links
                          blanked out, it still would; else it abstains and the
                          rules decide). (values: evidence, company; default:
                          evidence)
  --min-script-messages <min-script-messages>
                          Real messages of a script the model needs to speak on
                          it, and of an action in a script to overrule a rule
                          of that action or to overrule a rule with it, 0 to
                          1000000000 (0: always). (default: 100)
  --min-overrules <min-overrules>
                          With --rules: held-out overrules, 1 to 1000000000, of
                          a rule action by a target, in a main script, needed
                          to calibrate the margin at which the model overrules
                          such a rule there (and needed at or above it); with
                          fewer it never does. (default: 20)
  --generated-input <file>
                          An input whose records are generated, not real
                          (repeatable; ids gen:N are generated anyway).
  --cost <cost>           The SVM's regularisation constant C, positive.
                          (default: 1.0)
  --tolerance <tolerance> The solver's stopping tolerance, positive. (default:
                          0.01)
  --seed <seed>           Seed of the solver's pass order, 0 to
                          18446744073709551615. (default: 1)
  --cv <cv>               Cross-validate with K folds, 2 to 100, and print
                          precision, recall and F1 per target.
  --folds-file <folds-file>
                          Write each record's fold (file, line, id, fold) as
                          JSON Lines to this file.
  --model-name <model-name>
                          The model's name in verdicts and counts. (default:
                          model)
  --priority <priority>   Hand rules of this priority (-1000000 to 1000000) or
                          higher decide before the model (default: with
                          --rules, one above the highest rule, so the model
                          sees every rule's verdict and overrules one only
                          where held-out overrules of its kind paid off; else
                          0).
  --threshold <threshold> The winning score must reach this for the model to
                          decide (default: it always decides).
  --max-candidates <max-candidates>
                          Candidates counted at once (memory bound of the
                          counting table), 1024 to 1000000000. (default:
                          2000000)
  --max-examples <max-examples>
                          Training messages held at once, 16 to 1000000000;
                          beyond, a deterministic sample. (default: 2000000)
  -q, --quiet             Print no progress line and no report (errors still go
                          to standard error).
  --json                  Print the report as JSON instead, on standard output
                          (standard error when an output goes there).
  --version               Show the version.
  -h, --help              Show help information.


"""#,
    ]
}
