import Foundation
import MessageFilter

extension LearnReport {
    /// The report as `smsfilter learn --json` prints it (the object `JSONSerialization` writes), with
    /// `output`, the `-o` given.
    public func jsonObject(output: String?) -> [String: Any] {
        let r = self
        var o: [String: Any] = [
            "records": r.records, "used": r.used, "skipped": r.skipped, "sampledOut": r.sampledOut,
            "targets": r.targets, "perTarget": Dictionary(uniqueKeysWithValues: zip(r.targets, r.perTarget)),
            "candidates": r.candidates, "candidateTableBytes": r.tableBytes, "prunes": r.prunes, "seconds": r.seconds,
            "inputs": r.inputs.map { ["name": $0.name, "checksum": $0.checksum, "records": $0.records] as [String: Any] },
        ]
        if let m = r.model {
            o["phrases"] = m.phrases.count
            o["output"] = output ?? NSNull()
            o["minScriptMessages"] = m.minScriptMessages
        }
        o["scripts"] = Dictionary(uniqueKeysWithValues: r.scripts.map { ($0.key.name, Dictionary(uniqueKeysWithValues: zip(r.targets, $0.value))) })
        o["generatedScripts"] = Dictionary(uniqueKeysWithValues: r.generatedScripts.map { ($0.key.name, $0.value) })
        if !r.calibration.isEmpty {
            o["calibration"] = r.calibration.map {
                ["target": $0.target, "margin": $0.margin.isInfinite ? "never" : Double($0.margin) as Any, "decisions": $0.decisions,
                 "right": $0.right, "kept": $0.kept, "keptRight": $0.keptRight, "calibrated": $0.calibrated] as [String: Any]
            }
        }
        if !r.operatingPoint.isEmpty {
            o["operatingPoint"] = Dictionary(uniqueKeysWithValues: zip(r.targets, r.operatingPoint.map(Double.init)))
        }
        if !r.overrules.isEmpty || r.minimumOverrules > 0 {
            o["minimumOverrules"] = r.minimumOverrules
            o["overrules"] = r.overrules.map {
                ["script": $0.script.name, "rule": $0.rule.name, "target": $0.target, "margin": $0.margin.isInfinite ? "never" : Double($0.margin) as Any,
                 "cases": $0.cases, "right": $0.right, "kept": $0.kept, "keptRight": $0.keptRight, "calibrated": $0.calibrated] as [String: Any]
            }
        }
        if r.folds > 0 {
            func targets(_ scores: [LearnReport.TargetScore]) -> [[String: Any]] {
                scores.map {
                    ["target": $0.target, "precision": $0.precision, "recall": $0.recall, "f1": $0.f1, "support": $0.support,
                     "truePositives": $0.truePositives, "falsePositives": $0.falsePositives, "falseNegatives": $0.falseNegatives] as [String: Any]
                }
            }
            var cv: [String: Any] = ["folds": r.folds, "accuracy": r.accuracy, "macroF1": r.macroF1, "targets": targets(r.scores)]
            if !r.scoresWithoutMargins.isEmpty {
                cv["withoutMargins"] = ["accuracy": r.accuracyWithoutMargins, "macroF1": r.macroF1WithoutMargins,
                                        "targets": targets(r.scoresWithoutMargins)] as [String: Any]
            }
            if !r.scoresByInput.isEmpty {
                cv["byInput"] = r.scoresByInput.enumerated().map {
                    ["input": r.inputs[$0].name, "targets": targets($1), "confusion": r.confusionByInput[$0]] as [String: Any]
                }
            } else if let c = r.confusionByInput.first {
                cv["confusion"] = c
            }
            o["crossValidation"] = cv
        }
        return o
    }
}
