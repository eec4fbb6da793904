import ArgumentParser
import MessageFilter

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one error printer: every error of the tool, the parser's included, goes out as
/// `smsfilter: error: …` on standard error, with the user's text in it escaped (``EchoedText``: a line feed,
/// tab, escape or bidirectional override in an argument cannot forge or hide a line of the message), and
/// the process exits with the error's status.
enum ErrorReport {
    /// Prints `smsfilter: error: <message>` (the message's own line feeds kept, control characters escaped).
    static func print(_ message: String) {
        Console.stderr("smsfilter: error: \(message)\n")
    }

    /// Prints what went wrong in a command's run, then exits with its status: a ``CommandFailure``'s message,
    /// nothing more for an `ExitCode` (the command has said why), the parser's message for its own errors.
    static func exit(with error: any Error, root: any ParsableCommand.Type, arguments: [String]) -> Never {
        switch error {
        case let failure as CommandFailure:
            print(failure.message)
            _exitProcess(failure.status.rawValue)
        case let code as ExitCode:
            _exitProcess(code.rawValue)
        default:
            exitRefused(error, root: root, arguments: arguments)
        }
    }

    /// A command line the parser (or a command's `validate()`) refused: `smsfilter: error: …` like every other
    /// error, with a better "did you mean" for a misspelled subcommand or option (``Suggestions``) and every
    /// argument the message repeats escaped. Help and version requests go out as the parser writes them.
    static func exitRefused(
        _ error: any Error, root: any ParsableCommand.Type, arguments: [String], message: String? = nil
    ) -> Never {
        let code = root.exitCode(for: error)
        guard code != .success else { root.exit(withError: error) }
        var text: String
        if let better = Suggestions.message(for: arguments, root: root) {
            text = "smsfilter: error: " + better
        } else {
            text = message ?? root.fullMessage(for: error)
            if text.hasPrefix("Error: ") { text = "smsfilter: error: " + text.dropFirst("Error: ".count) }
        }
        if !text.hasSuffix("\n") { text += "\n" }
        Console.stderr(escapingArguments(text, arguments))
        _exitProcess(code.rawValue)
    }

    /// `message` with each argument of the command line it repeats escaped (``EchoedText``), so that only the
    /// message's own line feeds start lines: whole arguments, the value of `--name=value`, and (quoted as
    /// the parser quotes them) the single letters of grouped short options.
    static func escapingArguments(_ message: String, _ arguments: [String]) -> String {
        var whole: Set<String> = [], quoted: Set<String> = []
        for argument in arguments where argument.unicodeScalars.contains(where: EchoedText.isUnsafe) {
            whole.insert(argument)
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                whole.insert(String(argument[..<equals]))
                whole.insert(String(argument[argument.index(after: equals)...]))
            } else if argument.hasPrefix("-") {
                for scalar in argument.unicodeScalars.dropFirst() { quoted.insert("'-\(scalar)'") }
            }
        }
        var text = message
        // Quoted fragments first (each is quoted, so no whole argument holds one unescaped afterwards), then
        // the longest arguments first, so that one inside another is escaped as part of the longer.
        for fragment in quoted.sorted(by: { $0.count > $1.count }) {
            text = text.replacingOccurrences(of: fragment, with: EchoedText.escaped(fragment))
        }
        for argument in whole.sorted(by: { $0.unicodeScalars.count > $1.unicodeScalars.count })
        where argument.unicodeScalars.contains(where: EchoedText.isUnsafe) {
            text = text.replacingOccurrences(of: argument, with: EchoedText.escaped(argument))
        }
        return text
    }
}

/// `exit(3)`, named so that ParsableCommand's own `exit` does not shadow it.
func _exitProcess(_ status: Int32) -> Never {
    #if canImport(Glibc)
    Glibc.exit(status)
    #else
    Darwin.exit(status)
    #endif
}
