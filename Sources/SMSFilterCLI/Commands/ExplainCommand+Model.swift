import Foundation
import MessageFilter

/// The learned model's part of `smsfilter explain`.
extension ExplainCommand {
    static func modelText(_ e: Explanation) -> String {
        guard let m = e.model else { return "" }
        var out = "model \"\(m.name)\" (priority \(m.priority)"
        if let t = m.threshold { out += ", threshold \(Classifier.format(t))" }
        out += "): " + zip(m.targets, m.scores).map { "\($0) \(Classifier.format($1))" }.joined(separator: ", ")
        out += m.decided ? " → decided \(m.targets[m.winner])" : " → did not decide"
        if let r = m.refinedBy { out += " (folder \(e.verdict.folder.path) from rule \"\(r)\")" }
        out += "\n"
        out += "  \(m.targets[m.winner]) leads by \(Classifier.format(m.margin))"
        if let rule = m.overrules, let action = m.overrulesAction {
            out += m.decided ? "; overrules" : "; would overrule"
            out += " rule \"\(rule)\" (\(action.name)) with \(m.targets[m.winner]): margin \(Classifier.format(m.margin)), needs \(m.marginNeeded.isInfinite ? "never" : Classifier.format(m.marginNeeded))"
            out += m.overruleCalibrated ? " (calibrated overrule margin)" : " (no overrule margin calibrated; its own margin)"
        } else if m.marginNeeded > 0 {
            out += m.marginNeeded.isInfinite ? " (never decided: no margin reached the precision target)" : " (needs \(Classifier.format(m.marginNeeded)))"
        }
        out += "; main script \(m.script.name)"
        if let n = m.realMessages { out += ", learned from \(n) real message\(n == 1 ? "" : "s") of it (needs \(m.minScriptMessages))" }
        out += "\n"
        if !m.contributions.isEmpty {
            out += "  strongest of \(m.phraseCount) model phrase\(m.phraseCount == 1 ? "" : "s") (towards \(m.targets[m.winner])):\n"
            for c in m.contributions {
                out += "    \(c.start)..<\(c.end) \"\(c.text)\" \(c.evidence)"
                if c.text != c.phrase { out += " (phrase \"\(c.phrase)\")" }
                out += String(format: " %+.4f", c.contribution)
                out += " [" + zip(m.targets, c.weights).map { "\($0) \(Classifier.format($1))" }.joined(separator: ", ") + "]\n"
            }
        }
        return out
    }

    static func modelJSON(_ e: Explanation) -> [String: Any]? {
        guard let m = e.model else { return nil }
        return [
            "name": m.name, "priority": m.priority, "threshold": m.threshold.map { $0 as Any } ?? NSNull(),
            "targets": m.targets, "scores": m.scores, "bias": m.bias, "norm": m.norm, "winner": m.targets[m.winner],
            "decided": m.decided, "refinedBy": m.refinedBy.map { $0 as Any } ?? NSNull(), "phrasesPresent": m.phraseCount,
            "margin": m.margin, "marginNeeded": m.marginNeeded.isInfinite ? "never" : m.marginNeeded as Any, "script": m.script.name,
            "realMessages": m.realMessages.map { $0 as Any } ?? NSNull(), "minScriptMessages": m.minScriptMessages,
            "abstention": m.abstention.map { $0 as Any } ?? NSNull(),
            "overrules": m.overrules.map { ["rule": $0, "action": m.overrulesAction!.name, "calibrated": m.overruleCalibrated] as Any } ?? NSNull(),
            "phrases": m.contributions.map { c -> [String: Any] in
                ["phrase": c.phrase, "kind": c.kind.name, "evidence": c.evidence, "span": [c.start, c.end], "text": c.text, "weights": c.weights,
                 "contribution": c.contribution]
            },
        ]
    }
}

extension Classifier {
    /// A score rounded to four decimals, for people.
    static func format(_ x: Double) -> String { String(format: "%.4f", x) }
}
