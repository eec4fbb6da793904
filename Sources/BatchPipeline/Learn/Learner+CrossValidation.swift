import Dispatch
import Foundation
import MessageFilter
import ArchiveIO

extension Learner {
    // MARK: Cross-validation

    func crossValidate(inputs: [String], labels: [String: Int?], targets: [ModelDefinition.Target], models: [ModelDefinition],
                       candidates: PhraseCandidates, report: inout LearnReport) throws(PipelineError) {
        var classifiers: [Classifier] = []
        var plain: [Classifier] = []  // the same without margins
        for model in models {
            var d = options.base ?? RuleSetDefinition()
            d.normalization = options.normalization
            d.model = model
            var p = model
            p.margins = []
            do {
                classifiers.append(Classifier(ruleSet: try RuleSet(definition: d, source: "learn --cv")))
                plain.append(model.margins.isEmpty ? classifiers.last! : Classifier(ruleSet: try RuleSet(definition: d.withModel(p), source: "learn --cv")))
            } catch {
                throw PipelineError(.badInput, "cannot build a fold's rule set: \(error)")
            }
        }
        let byFolder = targets.contains { $0.subAction != .none }
        var scores = targets.map { LearnReport.TargetScore(target: $0.name) }
        var plainScores = scores
        var byInput = Array(repeating: scores, count: inputs.count)
        var correct = 0
        var plainCorrect = 0
        var total = 0
        var confusion = Array(repeating: [String: [String: Int]](), count: inputs.count)
        let k = options.folds
        do {
            try _LearnInput.read(
                inputs: inputs, input: options.input, truthField: options.truthField,
                record: { r in
                    guard let entry = labels[String(decoding: r.label, as: UTF8.self)], let truth = entry else { return }
                    let fold = candidates.withNormalized(r.body) { Self.fold($0, k) }
                    func predict(_ c: Classifier) -> (Int?, Folder) {
                        let v = c.classify(sender: r.sender, body: r.body)
                        return (targets.firstIndex {
                            byFolder ? Folder(action: $0.action, subAction: $0.subAction) == v.folder : $0.action == v.action
                        }, v.folder)
                    }
                    let (predicted, folder) = predict(classifiers[fold])
                    confusion[r.fileIndex][String(decoding: r.label, as: UTF8.self), default: [:]][folder.path, default: 0] += 1
                    let plainPredicted = plain[fold] === classifiers[fold] ? predicted : predict(plain[fold]).0
                    total += 1
                    if predicted == truth { correct += 1 }
                    if plainPredicted == truth { plainCorrect += 1 }
                    plainScores[truth].support += 1
                    if plainPredicted == truth {
                        plainScores[truth].truePositives += 1
                    } else {
                        plainScores[truth].falseNegatives += 1
                        if let p = plainPredicted { plainScores[p].falsePositives += 1 }
                    }
                    for i in [nil, r.fileIndex] as [Int?] {
                        func count(_ s: inout [LearnReport.TargetScore]) {
                            s[truth].support += 1
                            if predicted == truth {
                                s[truth].truePositives += 1
                            } else {
                                s[truth].falseNegatives += 1
                                if let p = predicted { s[p].falsePositives += 1 }
                            }
                        }
                        if let i { count(&byInput[i]) } else { count(&scores) }
                    }
                }, skip: { _, _, _ in })
        } catch {
            throw error
        }
        report.folds = k
        report.scores = scores
        if inputs.count > 1 { report.scoresByInput = byInput }
        report.accuracy = total == 0 ? 0 : Double(correct) / Double(total)
        report.scoresWithoutMargins = plainScores
        report.confusionByInput = confusion
        report.accuracyWithoutMargins = total == 0 ? 0 : Double(plainCorrect) / Double(total)
    }

    /// The fold of a message: a hash of its normalised body (ASCII case folded), so duplicates share a fold.
    static func fold(_ text: UnsafeRawBufferPointer, _ k: Int) -> Int {
        var h = StableHash.fnvOffsetBasis
        for b in text { h = StableHash.fnv1a(h, b >= 0x41 && b <= 0x5A ? b | 0x20 : b) }
        return Int(StableHash.finish(h) % UInt64(k))
    }
}
