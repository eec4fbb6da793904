import ArgumentParser

/// `smsfilter help --man`: a man page (roff, `man(7)` macros) generated from the command tree, so it says
/// what `--help` says: the root's overview, then each subcommand's whole help (usage, options, defaults,
/// examples and exit statuses) as preformatted text, and the exit statuses of ``ExitStatus``.
///
///     smsfilter help --man > smsfilter.1 && man ./smsfilter.1
enum ManPage {
    /// The width of each command's help in the page: a terminal of 80 columns, less the page's margin.
    static let helpColumns = 80 - 2

    static func text(root: any ParsableCommand.Type, version: String) -> String {
        let configuration = root.configuration
        var out = [
            ".TH SMSFILTER 1 \"\" \"smsfilter \(version)\" \"User Commands\"",
            ".SH NAME",
            "smsfilter \\- " + escaped(lowercasedFirst(configuration.abstract)),
            ".SH SYNOPSIS",
            ".B smsfilter",
            ".I subcommand",
            "[\\fIoptions\\fR] [\\fIinputs\\fR ...]",
            ".br",
            ".B smsfilter",
            ".B \\-\\-version",
            ".br",
            ".B smsfilter",
            ".I subcommand",
            ".B \\-\\-help",
            ".SH DESCRIPTION",
            escaped(configuration.abstract),
            "Every subcommand and its options follow, as its \\fB\\-\\-help\\fR prints them.",
            ".SH COMMANDS",
        ]
        for command in configuration.subcommands {
            let name = command.configuration.commandName ?? "\(command)"
            out.append(".SS \(escaped(name))")
            out.append(escaped(command.configuration.abstract))
            out.append(".PP")
            out.append(".nf")
            let help = root.helpMessage(for: command, columns: helpColumns)
            out.append(contentsOf: help.split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) })
            out.append(".fi")
        }
        out += [
            ".SH EXIT STATUS",
            ".TP", "0", "success",
            ".TP", "\(ExitStatus.usage.rawValue)", "usage: a bad option or value, an output that is an input or exists without \\-\\-force",
            ".TP", "\(ExitStatus.badInput.rawValue)", "bad input: a damaged archive, bad rules, a bad record under \\-\\-strict",
            ".TP", "\(ExitStatus.inputMissing.rawValue)", "an input is missing",
            ".TP", "\(ExitStatus.internalError.rawValue)", "internal error",
            ".TP", "\(ExitStatus.cannotCreate.rawValue)", "an output could not be created or written",
            ".TP", "128 + n", "stopped by signal n (130 for Ctrl-C); temporary files removed",
            ".SH SHELL COMPLETION",
            "Completion scripts come from \\fBsmsfilter \\-\\-generate\\-completion\\-script bash|zsh|fish\\fR.",
            ".SH SEE ALSO",
            "\\fBzstd\\fR(1), the project's README.md and docs/ (RULES.md for the rule files).",
        ]
        return out.joined(separator: "\n") + "\n"
    }

    /// `text` safe in roff: backslashes as `\e`, characters beyond ASCII as `\[uXXXX]` (groff and mandoc
    /// read them whatever the locale), and a line that starts with `.` or `'` (a request) guarded with `\&`.
    static func escaped(_ text: String) -> String {
        var line = ""
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                line += "\\e"
            } else if scalar.value > 0x7F {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                line += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            } else {
                line.unicodeScalars.append(scalar)
            }
        }
        if line.hasPrefix(".") || line.hasPrefix("'") { line = "\\&" + line }
        return line
    }

    private static func lowercasedFirst(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
