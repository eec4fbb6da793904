import ArgumentParser
import Foundation

/// "Did you mean" for a misspelled subcommand or long option, better than the parser's own guess:
/// a name the user's word begins (`--labels` → `--labels-only`) wins over the nearest by edit distance
/// (which would say `--level`), and an unknown subcommand is named as one.
enum Suggestions {
    /// A message for the first unknown subcommand or long option in `arguments` (without the program
    /// name) of the command tree `root`, or nil when every name is known (the parser's own message is right then).
    static func message(for arguments: [String], root: any ParsableCommand.Type) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let commands = root.configuration.subcommands
        let names = commands.map { $0._commandName }
        guard first != "help" else { return nil }
        guard let command = commands.first(where: { $0._commandName == first }) else {
            var text = "unknown command '\(first)'."
            if let best = best(first, among: names) { text += " Did you mean '\(best)'?" }
            return text + "\nCommands: \(names.joined(separator: ", ")). See 'smsfilter --help'."
        }
        let known = longOptions(of: command, includeHidden: true)
        let visible = longOptions(of: command, includeHidden: false)
        for argument in arguments.dropFirst() {
            if argument == "--" { break }
            guard argument.hasPrefix("--"), argument.count > 2 else { continue }
            let name = String(argument.prefix(while: { $0 != "=" }))
            if known.contains(name) { continue }
            var text = "unknown option '\(name)' for '\(first)'."
            // The hidden names are the old spellings of -o/--output (--out, --out-dir): suggest the new one.
            if let best = best(name, among: known.sorted()).map({ visible.contains($0) ? $0 : "--output" }) {
                text += " Did you mean '\(best)'?"
            }
            return text + "\nSee 'smsfilter \(first) --help' for its options."
        }
        return nil
    }

    /// Every long option of `command` (with its hidden aliases when `includeHidden`), read from its help.
    static func longOptions(of command: ParsableCommand.Type, includeHidden: Bool) -> Set<String> {
        let help = command.helpMessage(includeHidden: includeHidden, columns: 10_000)
        var names: Set<String> = ["--help"]
        var current = ""
        var inName = false
        var previous: Character = " "
        for c in help {
            if inName {
                if c.isLetter || c.isNumber || c == "-" {
                    current.append(c)
                    continue
                }
                if current.count > 2 { names.insert(current) }
                inName = false
            }
            if c == "-" && previous == "-" {
                current = "--"
                inName = true
            }
            previous = inName ? " " : c
        }
        if inName && current.count > 2 { names.insert(current) }
        return names
    }

    /// The candidate `word` is a prefix of (the shortest), else the nearest within a third of its length.
    static func best(_ word: String, among candidates: [String]) -> String? {
        if let prefixed = candidates.filter({ $0.hasPrefix(word) && $0 != word }).min(by: { $0.count < $1.count }) {
            return prefixed
        }
        let limit = max(2, word.count / 3)
        let scored = candidates.map { ($0, distance(word, $0)) }.filter { $0.1 <= limit }
        return scored.min(by: { $0.1 < $1.1 })?.0
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var diagonal = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let up = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1))
                diagonal = up
            }
        }
        return row[b.count]
    }
}
