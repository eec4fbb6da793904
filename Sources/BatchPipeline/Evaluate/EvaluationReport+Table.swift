import Foundation
import MessageFilter

/// The table `evaluate` prints on standard error.
extension EvaluationReport {
    static func percent(_ x: Double?) -> String { x.map { String(format: "%.1f%%", $0 * 100) } ?? "–" }

    static func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
    static func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }

    /// The table printed on standard error.
    public func table(maxRules: Int = 25) -> String {
        let cw = max(22, (scores.scoredClasses.map { scores.names[$0].count }.max() ?? 0) + 2)
        return summaryText() + classText(cw) + labelText(cw) + confusionText() + ruleText(maxRules) + conflictText()
            + String(format: "%.2f s\n", seconds)
    }

    private func summaryText() -> String {
        var out = "evaluate: \(corpus.joined(separator: ", ")) with \(ruleSource) (\(ruleSetChecksum.prefix(16)))\n"
        out += "records \(records), scored \(scored), correct \(correct), accuracy \(Self.percent(accuracy)), macro F1 (per class, as scikit-learn) \(Self.percent(macroF1)), per truth label \(Self.percent(macroF1Labels))"
        if withoutTruth > 0 { out += ", without truth \(withoutTruth)" }
        if ignored > 0 { out += ", ignored \(ignored)" }
        if !unmapped.isEmpty { out += ", unmapped " + unmapped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
        if !skipped.isEmpty { out += ", skipped " + skipped.sorted { $0.key < $1.key }.map { "\($0.value) (\($0.key))" }.joined(separator: ", ") }
        return out + "\n\n"
    }

    private func classText(_ cw: Int) -> String {
        var out = Self.pad("per class", cw) + ["predicted", "correct", "support", "precision", "recall", "F1"].map { Self.lpad($0, 11) }.joined()
            + "  accepts\n"
        for c in scores.scoredClasses {
            out += Self.pad(scores.names[c], cw)
            out += [String(scores.predicted(c)), String(scores.truePositives(c)), String(scores.support(c)), Self.percent(scores.precision(c)),
                    Self.percent(scores.recall(c)), Self.percent(scores.f1(c))].map { Self.lpad($0, 11) }.joined()
            out += "  " + (scoreIsTarget[c] ? scoreAccepts[c].map { classNames[$0] }.joined(separator: ", ") : "(only predicted: no label maps here)") + "\n"
        }
        return out
    }

    private func labelText(_ cw: Int) -> String {
        var out = "\n" + Self.pad("per truth label", cw) + ["records", "correct", "precision", "recall", "F1"].map { Self.lpad($0, 11) }.joined() + "  accepted\n"
        for (i, label) in labels.enumerated() where labelTotals[i].records > 0 {
            let t = labelTotals[i]
            out += Self.pad(label, cw) + [String(t.records), String(t.correct), Self.percent(t.precision), Self.percent(t.recall), Self.percent(t.f1)]
                .map { Self.lpad($0, 11) }.joined() + "  " + targetText(label) + "\n"
        }
        return out
    }

    /// The confusion matrix (folder names shortened to keep the table narrow).
    private func confusionText() -> String {
        let columns = confusionColumns
        func short(_ name: String) -> String {
            name.replacingOccurrences(of: "Transactions/", with: "T/").replacingOccurrences(of: "Promotions/", with: "P/")
                .replacingOccurrences(of: "Unknown Senders", with: "Unknown").replacingOccurrences(of: "Public Services", with: "Public")
        }
        func rowName(_ label: String) -> String { targetText(label) == label ? label : "\(label) (\(targetText(label)))" }
        let lw = max(18, (confusionRows.map { rowName(labels[$0]).count }.max() ?? 0) + 2)
        let colWidth = columns.map { max(7, short(classNames[$0]).count + 2) }
        var out = "\nconfusion (truth → predicted)"
        if granularity == .folder { out += "; T/ = Transactions/, P/ = Promotions/" }
        out += "\n" + Self.pad("", lw)
        for (k, c) in columns.enumerated() { out += Self.lpad(short(classNames[c]), colWidth[k]) }
        out += "\n"
        for i in confusionRows {
            out += Self.pad(rowName(labels[i]), lw)
            for (k, c) in columns.enumerated() { out += Self.lpad(String(confusion[i][c]), colWidth[k]) }
            out += "\n"
        }
        return out
    }

    private func ruleText(_ maxRules: Int) -> String {
        let totalTP = ruleTruePositives
        let fired = rules.filter { $0.fired > 0 }.sorted { ($1.hits, $0.name) < ($0.hits, $1.name) }
        let rw = max(24, (fired.prefix(maxRules).map(\.name.count).max() ?? 0) + 2)
        var out = "\n" + Self.pad("rule", rw) + ["hits", "precision", "share TP", "fired", "folder"].map { Self.lpad($0, 11) }.joined() + "\n"
        for r in fired.prefix(maxRules) {
            out += Self.pad(r.name, rw)
            out += [String(r.hits), Self.percent(r.precision), Self.percent(totalTP > 0 ? Double(r.correct) / Double(totalTP) : nil), String(r.fired)]
                .map { Self.lpad($0, 11) }.joined() + "  " + r.folderText + "\n"
        }
        if fired.count > maxRules { out += "… \(fired.count - maxRules) more rules fired (see --json)\n" }
        let never = neverFired
        out += "\nrules that never fired: \(never.count) of \(rules.count)"
        if !never.isEmpty { out += ": " + never.prefix(30).joined(separator: ", ") + (never.count > 30 ? ", …" : "") }
        return out
    }

    private func conflictText() -> String {
        var out = "\nconflicts (rules of different folders fired on one record): \(conflicts)\n"
        for (pair, n) in sortedConflictPairs.prefix(10) {
            out += "  \(n)  \(rules[pair.winner].name) (\(rules[pair.winner].folder.path)) won over \(rules[pair.other].name) (\(rules[pair.other].folder.path))\n"
        }
        return out
    }
}
