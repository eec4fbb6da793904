/// Problems found in a rule file, each naming the file, line and field, and what would be valid.
///
/// ```
/// rules.yaml:14: rules[3].subAction: unknown sub-action "finance"; valid: transactionalFinance, …; did you mean "transactionalFinance"?
/// ```
public struct RuleFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One problem.
    public struct Issue: Sendable, Hashable, CustomStringConvertible {
        /// The rule file.
        public var file: String
        /// The 1-based line (0 when unknown).
        public var line: Int
        /// The field, as a path (`rules[3].subAction`; empty for the whole file).
        public var field: String
        /// What is wrong, and what would be valid.
        public var message: String

        public var description: String { _describeIssue(file: file, line: line, field: field, message: message) }
    }

    /// Every problem found, in file order.
    public var issues: [Issue]

    public var description: String { issues.map(\.description).joined(separator: "\n") }
}

/// Suggestions for misspelt names.
enum _Suggest {
    /// The closest of `candidates` to `word` if it is close enough to be a likely typo.
    static func closest(to word: String, in candidates: [String]) -> String? {
        let w = Array(word.lowercased().unicodeScalars)
        var best: (String, Int)?
        for c in candidates {
            let cl = c.lowercased()
            if cl.hasSuffix(word.lowercased()) || cl.hasPrefix(word.lowercased()), word.count >= 3 {
                return c
            }
            let d = distance(w, Array(cl.unicodeScalars))
            if d <= max(2, c.count / 3), d < (best?.1 ?? Int.max) { best = (c, d) }
        }
        return best?.0
    }

    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var prev = row[0]
            row[0] = i
            for j in 1...b.count {
                let cur = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1))
                prev = cur
            }
        }
        return row[b.count]
    }

    /// `unknown <what> "<word>"; valid: a, b, c; did you mean "b"?`
    static func unknown(_ what: String, _ word: String, valid: [String]) -> String {
        var s = "unknown \(what) \"\(word)\"; valid: \(valid.joined(separator: ", "))"
        if let c = closest(to: word, in: valid) { s += "; did you mean \"\(c)\"?" }
        return s
    }
}

/// `file:line: field: message` (the line and field left out when unknown), for every rule-file diagnostic.
func _describeIssue(file: String, line: Int, field: String, message: String) -> String {
    var s = file
    if line > 0 { s += ":\(line)" }
    s += ": "
    if !field.isEmpty { s += "\(field): " }
    // One line: the file, the names and values it repeats escaped (``EchoedText``).
    return EchoedText.escaped(s + message)
}
