extension ModelDefinition {
    /// The `model:` section as YAML text (top-level key `model:`, two-space indentation), as `smsfilter learn`
    /// writes it. Deterministic: numbers in their shortest exact form, phrases double-quoted with escapes.
    public func yaml() -> String {
        var out = "model:\n"
        out += "  name: \(Self.quoted(name))\n"
        out += "  priority: \(priority)\n"
        out += "  threshold: \(threshold.map { "\($0)" } ?? "null")\n"
        out += "  targets: [\(targets.map { Self.quoted($0.name) }.joined(separator: ", "))]\n"
        out += "  bias: [\(bias.map { "\($0)" }.joined(separator: ", "))]\n"
        if !margins.isEmpty {
            out += "  # per target: the margin over the runner-up the score needs for the model to decide (never: it does not)\n"
            out += "  margins: [\(margins.map { $0.isInfinite ? "never" : "\($0)" }.joined(separator: ", "))]\n"
        }
        if let overrules {
            out += "  # per main script: a rule below the model fired with the action on the left (none: none or allow) and\n"
            out += "  # the winner has another action: the margin over the runner-up it needs to overrule that rule (never: it\n"
            out += "  # does not, nor on a script left out; learn --rules)\n"
            out += overrules.isEmpty ? "  overrules: {}\n" : "  overrules:\n"
            let table = Self.canonicalOverrules(overrules, targets: targets)
            for script in Script.allCases where table[script] != nil {
                out += "    \(script.name):\n"
                for row in Self.overruleRows {
                    let entries = targets.indices.filter { Self.overruleRow(targets[$0].action) != row }.map { t -> String in
                        let m = table[script]![row]![t]
                        return "\(Self.quoted(targets[t].name)): \(m.isInfinite ? "never" : "\(m)")"
                    }
                    out += "      \(row.name): {\(entries.joined(separator: ", "))}\n"
                }
            }
        }
        if linksNeedCompany {
            out += "  # a link is evidence only with company: without other evidence for the verdict, the model abstains\n"
            out += "  links: company\n"
        }
        if let scripts {
            out += "  # real training messages per main script, per target; the model abstains on a script below minScriptMessages\n"
            out += "  minScriptMessages: \(minScriptMessages)\n"
            let rows = Script.allCases.compactMap { s in scripts[s].map { "\(s.name): [\($0.map(String.init).joined(separator: ", "))]" } }
            out += "  scripts: {\(rows.joined(separator: ", "))}\n"
            if !generatedScripts.isEmpty { out += "  generatedScripts: {\(Self.scriptList(generatedScripts))}\n" }
        }
        if !provenance.isEmpty {
            out += "  provenance:\n"
            for line in provenance.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
                out += "    \(line)\n"
            }
        }
        out += "  # kind (word: whole words; part: anywhere), phrase, idf, then one weight per target (idf included)\n"
        out += "  phrases:\n"
        for p in phrases {
            out += "    - [\(p.kind.name), \(Self.quoted(p.text)), \(p.idf), \(p.weights.map { "\($0)" }.joined(separator: ", "))]\n"
        }
        return out
    }

    /// `latin 5574, thai 3340` (scripts in ``Script`` order, zeros left out).
    public static func scriptSummary(_ counts: [Script: Int]) -> String {
        Script.allCases.compactMap { s in counts[s].flatMap { $0 > 0 ? "\(s.name) \($0)" : nil } }.joined(separator: ", ")
    }

    static func scriptList(_ counts: [Script: Int]) -> String {
        Script.allCases.compactMap { s in counts[s].flatMap { $0 > 0 ? "\(s.name): \($0)" : nil } }.joined(separator: ", ")
    }

    /// `s` as a YAML double-quoted scalar.
    public static func quotedYAML(_ s: String) -> String { quoted(s) }

    /// A YAML double-quoted scalar.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            // Everything outside YAML's printable set, and its line and byte-order marks, as \u or \U escapes.
            case "\u{00}"..."\u{1F}", "\u{7F}"..."\u{9F}", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFE}", "\u{FFFF}":
                out += "\\u" + String(String(u.value, radix: 16, uppercase: true).leftPadded(to: 4))
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
