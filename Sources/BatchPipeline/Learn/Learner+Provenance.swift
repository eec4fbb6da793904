import Foundation
import MessageFilter

// What a learned model says of where it came from, and the small text helpers of the learner's reports.
extension Learner {
    static func name(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }

    /// Whether a record's id says `smsfilter generate` wrote it (`gen:N`).
    static func isGenerated(id: UnsafeRawBufferPointer?) -> Bool {
        guard let id, id.count > 4 else { return false }
        return id[0] == 0x67 && id[1] == 0x65 && id[2] == 0x6E && id[3] == 0x3A
    }

    /// `s` as a JSON string, quotes included (the pipeline's escaper: `_ByteBuffer.jsonString`).
    static func json(_ s: String) -> String { String(decoding: _ByteBuffer.jsonString(s), as: UTF8.self) }

    /// The provenance block (YAML, deterministic: no dates, file names without folders).
    func provenance(_ report: LearnReport, model: ModelDefinition) -> String {
        var y = "learnedBy: smsfilter learn\n"
        y += "inputs:\n"
        for i in report.inputs { y += "  - {name: \(ModelDefinition.quotedYAML(i.name)), checksum: \"\(i.checksum)\", records: \(i.records)}\n" }
        y += "records: {read: \(report.records), used: \(report.used)"
        if report.sampledOut > 0 { y += ", sampledOut: \(report.sampledOut)" }
        y += "}\n"
        y += "perTarget: {\(zip(report.targets, report.perTarget).map { "\(ModelDefinition.quotedYAML($0)): \($1)" }.joined(separator: ", "))}\n"
        if !report.skipped.isEmpty {
            y += "skipped: {\(report.skipped.sorted { $0.key < $1.key }.map { "\(ModelDefinition.quotedYAML($0.key)): \($0.value)" }.joined(separator: ", "))}\n"
        }
        let c = options.candidates
        y += "options: {truthField: \(ModelDefinition.quotedYAML(options.truthField)), by: \(model.isByFolder ? "folder" : "action"), normalize: \(options.normalization.name), "
        y += "maxPhrases: \(options.maxPhrases), minDocuments: \(options.minDocuments), wordNGrams: \(c.wordNGrams), minWordLength: \(c.minWordLength), "
        y += "charNGrams: \"\(c.charNGrams.lowerBound)-\(c.charNGrams.upperBound)\", "
        y += c.digitNGrams.upperBound < 1 ? "digitNGrams: none, " : "digitNGrams: \"\(c.digitNGrams.lowerBound)-\(c.digitNGrams.upperBound)\", "
        y += c.textNGrams.upperBound < 1 ? "textNGrams: none, " : "textNGrams: \"\(c.textNGrams.lowerBound)-\(c.textNGrams.upperBound)\", "
        y += "cost: \(options.cost), tolerance: \(options.tolerance), seed: \(options.seed), "
        y += "precisionTarget: \(options.precisionTarget.map { "\($0)" } ?? "null"), minScriptMessages: \(options.minScriptMessages)"
        if model.overrules != nil { y += ", minOverrules: \(options.minimumOverrules)" }
        if options.linksNeedCompany { y += ", links: company" }
        y += "}\n"
        if options.base != nil {
            y += "rules: {name: \(ModelDefinition.quotedYAML(options.baseName ?? "?")), checksum: \"\(options.baseChecksum ?? "?")\", priority: \(model.priority)}\n"
        }
        if !report.calibration.isEmpty {
            y += "calibration:\n  folds: \(report.calibrationFolds)\n"
            for c in report.calibration {
                y += "  \(ModelDefinition.quotedYAML(c.target)): {margin: \(c.margin.isInfinite ? "never" : "\(c.margin)"), "
                y += "decisions: \(c.decisions), right: \(c.right), kept: \(c.kept), keptRight: \(c.keptRight)\(c.calibrated ? "" : ", calibrated: false")}\n"
            }
        }
        if !report.operatingPoint.isEmpty {
            y += "operatingPoint:  # per target, the offset added to its bias: the best held-out macro F1 of \(report.calibrationFolds) folds\n"
            for (k, o) in report.operatingPoint.enumerated() { y += "  \(ModelDefinition.quotedYAML(report.targets[k])): \(o)\n" }
        }
        if !report.overrules.isEmpty {
            y += "overruleCalibration:  # per main script, the pairs with held-out overrules (the others: never)\n"
            for c in report.overrules where c.cases > 0 {
                y += "  \(c.script.name) \(c.rule.name) by \(ModelDefinition.quotedYAML(c.target)): {margin: \(c.margin.isInfinite ? "never" : "\(c.margin)"), "
                y += "cases: \(c.cases), right: \(c.right), kept: \(c.kept), keptRight: \(c.keptRight)\(c.calibrated ? "" : ", calibrated: false")}\n"
            }
        }
        y += "candidates: {counted: \(report.candidates), prunes: \(report.prunes), floor: \(report.candidateFloor)}\n"
        y += "phrases: \(model.phrases.count)\n"
        if report.folds > 0 {
            y += "crossValidation:\n  folds: \(report.folds)\n"
            y += "  accuracy: \(Self.fixed(report.accuracy))\n  macroF1: \(Self.fixed(report.macroF1))\n"
            if !report.calibration.isEmpty {
                y += "  withoutMargins: {accuracy: \(Self.fixed(report.accuracyWithoutMargins)), macroF1: \(Self.fixed(report.macroF1WithoutMargins))}\n"
            }
            func line(_ s: LearnReport.TargetScore) -> String {
                "{precision: \(Self.fixed(s.precision)), recall: \(Self.fixed(s.recall)), f1: \(Self.fixed(s.f1)), support: \(s.support)}"
            }
            for s in report.scores { y += "  \(ModelDefinition.quotedYAML(s.target)): \(line(s))\n" }
            if !report.scoresByInput.isEmpty {
                y += "  byInput:\n"
                for (i, scores) in report.scoresByInput.enumerated() {
                    y += "    \(ModelDefinition.quotedYAML(report.inputs[i].name)):\n"
                    for s in scores where s.support > 0 || s.falsePositives > 0 { y += "      \(ModelDefinition.quotedYAML(s.target)): \(line(s))\n" }
                }
            }
        }
        return y
    }

    static func fixed(_ x: Double) -> String { String(format: "%.4f", x) }
}
