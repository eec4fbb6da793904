import Foundation
import MessageFilter

extension LearnReport {
    /// The report as `smsfilter learn` prints it for people: what was read and learnt from, the candidates,
    /// the cross-validated scores, the calibrated margins, operating point and overrules, the scripts the
    /// model speaks on, and where it went (`output`, the `-o` given).
    public func table(output: String?) -> String {
        let r = self
        var s = "records: \(groupedDigits(r.records)) read, \(groupedDigits(r.used)) learnt from ("
        s += zip(r.targets, r.perTarget).map { "\($0) \(groupedDigits($1))" }.joined(separator: ", ") + ")"
        if !r.skipped.isEmpty { s += "; skipped: " + r.skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ") }
        s += "\n"
        if r.sampledOut > 0 { s += "sample: \(groupedDigits(r.sampledOut)) messages left out by --max-examples\n" }
        s += "candidates: \(groupedDigits(r.candidates)) counted (\(r.tableBytes >> 20) MiB"
        if r.prunes > 0 { s += ", pruned \(r.prunes)×, phrases in ≤ \(r.candidateFloor) messages may be missing" }
        s += ")\n"
        if r.folds > 0 {
            s += "cross-validation (\(r.folds) folds, by a hash of the normalised body):\n"
            s += "  target" + String(repeating: " ", count: 24) + "precision  recall      F1  support\n"
            for t in r.scores {
                let name = t.target.count > 28 ? String(t.target.prefix(28)) : t.target
                s += "  " + name.padding(toLength: 28, withPad: " ", startingAt: 0)
                s += String(format: "  %9.4f %7.4f %7.4f %8d\n", t.precision, t.recall, t.f1, t.support)
            }
            s += String(format: "  accuracy %.4f, macro F1 %.4f\n", r.accuracy, r.macroF1)
            if !r.calibration.isEmpty {
                s += String(format: "  without margins: accuracy %.4f, macro F1 %.4f", r.accuracyWithoutMargins, r.macroF1WithoutMargins)
                s += " (" + r.scoresWithoutMargins.map { String(format: "%@ F1 %.4f", $0.target, $0.f1) }.joined(separator: ", ") + ")\n"
            }
            for (i, scores) in r.scoresByInput.enumerated() {
                s += "  \(r.inputs[i].name):\n"
                for t in scores where t.support > 0 || t.falsePositives > 0 {
                    let name = t.target.count > 26 ? String(t.target.prefix(26)) : t.target
                    s += "    " + name.padding(toLength: 26, withPad: " ", startingAt: 0)
                    s += String(format: "  %9.4f %7.4f %7.4f %8d\n", t.precision, t.recall, t.f1, t.support)
                }
            }
        }
        if !r.calibration.isEmpty {
            s += "margins (\(r.calibrationFolds) folds, held out):"
            for c in r.calibration {
                s += " \(c.target) "
                if !c.calibrated {
                    s += "0 (not calibrated: \(c.decisions) decisions)"
                } else if c.margin.isInfinite {
                    s += "never (precision \(Self.share(c.right, c.decisions)) at any margin)"
                } else {
                    s += "\(Self.score(Double(c.margin))) (keeps \(c.kept) of \(c.decisions) decisions, precision \(Self.share(c.keptRight, c.kept)); all: \(Self.share(c.right, c.decisions)))"
                }
                if c.target != r.calibration.last?.target { s += ";" }
            }
            s += "\n"
        }
        if !r.operatingPoint.isEmpty {
            s += "operating point (\(r.calibrationFolds) folds, held out; best macro F1): bias offsets "
            s += zip(r.targets, r.operatingPoint).map { "\($0) \(Self.score(Double($1)))" }.joined(separator: ", ") + "\n"
        }
        if !r.overrules.isEmpty {
            s += "overrules (held out, per main script; margin a target needs to overrule a rule of another action):\n"
            for c in r.overrules where c.cases > 0 || !c.margin.isInfinite {
                s += "  \(c.script.name): \(c.rule.name) rule by \(c.target): "
                if !c.calibrated {
                    s += "never (\(c.cases) case\(c.cases == 1 ? "" : "s"), fewer than \(r.minimumOverrules))\n"
                } else if c.margin.isInfinite {
                    s += "never (\(c.cases) cases, precision \(Self.share(c.right, c.cases)); no margin keeps \(r.minimumOverrules) at the target)\n"
                } else {
                    s += "\(Self.score(Double(c.margin))) (keeps \(c.kept) of \(c.cases) cases, precision \(Self.share(c.keptRight, c.kept)); all: \(Self.share(c.right, c.cases)))\n"
                }
            }
            let silent = r.overrules.filter { $0.cases == 0 && $0.margin.isInfinite }.count
            if silent > 0 { s += "  (\(silent) other pair\(silent == 1 ? "" : "s") of these scripts: no held-out case, never; other scripts: never)\n" }
        }
        if let m = r.model {
            let totals = r.scripts.mapValues { $0.reduce(0, +) }
            s += "scripts (real messages): " + (totals.isEmpty ? "none" : ModelDefinition.scriptSummary(totals))
            if !r.generatedScripts.isEmpty { s += "; generated: " + ModelDefinition.scriptSummary(r.generatedScripts) }
            let speaks = Script.allCases.filter { !m.abstains(on: $0) && (totals[$0] ?? 0) > 0 }
            s += speaks.isEmpty ? "; the model abstains on every script (fewer than \(m.minScriptMessages) real messages of each; see --min-script-messages)\n"
                : "; speaks on \(speaks.map(\.name).joined(separator: ", "))\n"
        }
        if let m = r.model, let output {
            s += "model: \(groupedDigits(m.phrases.count)) phrases × \(m.targets.count) targets → \(output)\n"
        }
        s += String(format: "time: %.2f s\n", r.seconds)
        return s
    }

    /// A margin or bias rounded to four decimals, for people.
    static func score(_ x: Double) -> String { String(format: "%.4f", x) }

    /// `a / b` to four places, `-` for none.
    static func share(_ a: Int, _ b: Int) -> String { b == 0 ? "-" : String(format: "%.4f", Double(a) / Double(b)) }
}
