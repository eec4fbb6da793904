import ArgumentParser
import Foundation

/// A command that takes any number of files as its one positional argument (classify, export, evaluate,
/// learn, merge-counts): ``ArgumentFolding`` hands them over here after parsing.
protocol ManyFiles: ParsableCommand {
    /// The files named on the command line, in their order.
    var namedFiles: [String] { get set }
}

/// Parses a command line with many files in time linear in its length.
///
/// ArgumentParser removes each argument it has used from its list one at a time, each removal a walk of the
/// list (`SplitArguments.removeAll(in:)`, swift-argument-parser 1.8.2): N files cost N² steps (20,000 files
/// took 27 s to start, 100,000 never did). So the files of a ``ManyFiles`` command are folded before parsing:
/// the parser sees every option and the first file only, in their places, and the command gets every file
/// back, in order, then validates: while the parser parses a folded command line, the command's own
/// `validate()` waits (``validationDeferred``), since its checks count and compare the files (standard input
/// named twice, `--generated-input` among the inputs); its option groups' checks run as they always do.
///
/// An argument is a file when the command's own option table (ArgumentParser's `--experimental-dump-help`
/// description of it) says it is: not an option or flag, not the value of an option that takes one (the next
/// argument; with the default parsing only when it does not look like an option), or anything after `--`.
/// A command line the table cannot read for certain (an unknown option, grouped short options that take a
/// value, a parsing strategy other than the default and `unconditional`) is parsed as it is.
enum ArgumentFolding {
    /// Set while the parser parses a folded command line (a ``ManyFiles`` command's `validate()` returns at
    /// once), cleared before the command is validated with every file. Only the main thread, before any
    /// other starts, touches it.
    nonisolated(unsafe) static var validationDeferred = false

    /// The command line to parse (`arguments` without the subcommand's files but the first), the files and
    /// the command they belong to; nil when nothing is folded.
    struct Folded {
        var arguments: [String]
        var files: [String]
        var command: any ManyFiles.Type
    }

    /// Folds `arguments` (the program's arguments without its name) for one of `root`'s subcommands.
    static func fold(_ arguments: [String], root: ParsableCommand.Type) -> Folded? {
        guard let name = arguments.first,
              let command = root.configuration.subcommands.first(where: {
                  $0._commandName == name || $0.configuration.aliases.contains(name)
              }) as? any ManyFiles.Type,
              let table = OptionTable(command)
        else { return nil }
        guard let (kept, files) = table.split(arguments.dropFirst()), files.count > 1 else { return nil }
        return Folded(arguments: [name] + kept, files: files, command: command)
    }

    /// The usage error for `error`, thrown by `command`'s `validate()` once its files are back, as the parser
    /// prints one (`Error: …`, the subcommand's usage and where its help is).
    static func usageMessage(for error: ValidationError, command: ParsableCommand.Type, root: ParsableCommand.Type) -> String {
        let message = error.message
        let usage = root.usageString(for: command)
        return "Error: \(message)\nUsage: \(usage)\n  See '\(root._commandName) \(command._commandName) --help' for more information.\n"
    }

    /// Which arguments of one command take a value, which do not, and whether its one positional argument
    /// takes many.
    struct OptionTable {
        /// Spellings (`--rules`, `-o`) of the options that take the next argument as their value.
        var valued: Set<String> = []
        /// The same, of the options parsed `.unconditional`ly (the value may start with `-`).
        var unconditional: Set<String> = []
        /// Spellings of the flags (no value).
        var flags: Set<String> = []

        /// The table of `command`, nil unless its only positional argument is repeated and every option is
        /// parsed with the default strategy or `.unconditional`ly.
        init?(_ command: ParsableCommand.Type) {
            guard let dump = try? JSONSerialization.jsonObject(with: Data(command._dumpHelp().utf8)) as? [String: Any],
                  let info = dump["command"] as? [String: Any],
                  let arguments = info["arguments"] as? [[String: Any]]
            else { return nil }
            var positionals = 0
            for argument in arguments {
                let kind = argument["kind"] as? String
                let strategy = argument["parsingStrategy"] as? String ?? "default"
                if kind == "positional" {
                    guard argument["isRepeating"] as? Bool == true, strategy == "default" else { return nil }
                    positionals += 1
                    continue
                }
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
                    guard let text = name["name"] as? String else { return nil }
                    return (name["kind"] as? String == "long" ? "--" : "-") + text
                }
                switch (kind, strategy) {
                case ("flag", _): flags.formUnion(names)
                case ("option", "default"): valued.formUnion(names)
                case ("option", "unconditional"):
                    valued.formUnion(names)
                    unconditional.formUnion(names)
                default: return nil
                }
            }
            guard positionals == 1 else { return nil }
        }

        /// `arguments` with every file but the first taken out, and the files; nil when an argument cannot be
        /// read for certain.
        func split(_ arguments: ArraySlice<String>) -> (kept: [String], files: [String])? {
            var kept: [String] = [], files: [String] = []
            kept.reserveCapacity(arguments.count)
            var i = arguments.startIndex
            var afterTerminator = false
            func file(_ text: String) {
                if files.isEmpty { kept.append(text) }
                files.append(text)
            }
            while i < arguments.endIndex {
                let argument = arguments[i]
                i += 1
                if afterTerminator || argument == "-" || !argument.hasPrefix("-") {
                    file(argument)
                    continue
                }
                kept.append(argument)
                if argument == "--" {
                    afterTerminator = true
                } else if valued.contains(argument) {
                    // The option's value, as the parser takes it; without one the parser says what is missing.
                    if i < arguments.endIndex, arguments[i] == "--" { return nil }
                    if i < arguments.endIndex, unconditional.contains(argument) || Self.isValue(arguments[i]) {
                        kept.append(arguments[i])
                        i += 1
                    }
                } else if argument.hasPrefix("--") {
                    // `--name=value`, or a flag; anything else is the parser's to refuse.
                    let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
                    guard argument.contains("=") ? valued.contains(name) : flags.contains(argument) else { return nil }
                } else {
                    // `-q`, or short flags grouped (`-qf`): each must be a flag.
                    guard flags.contains(argument)
                        || argument.dropFirst().allSatisfy({ flags.contains("-" + String($0)) })
                    else { return nil }
                }
            }
            return (kept, files)
        }

        /// Whether the parser takes `text` as a value, not an option (its default parsing strategy).
        static func isValue(_ text: String) -> Bool { text == "-" || !text.hasPrefix("-") }
    }
}
