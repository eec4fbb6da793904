import Foundation
import MessageFilter

// The operating point's and the overrules' calibration on held-out decisions of the fold models.
extension Learner {
    // MARK: Calibration

    /// One held-out decision of a fold model: the example, the winning target, its score and its margin over the
    /// runner-up.
    struct _HeldOut {
        var example: Int
        var fold: Int
        var winner: Int
        var score: Double
        var margin: Double
    }

    /// The fold models' scores of their held-out messages, computed as the classifier computes them (bias + Σ
    /// weights / √Σ idf², over the phrases each fold model kept). A message the fold model would abstain on anyway
    /// (no phrase present, a script it learned too little of) is left out: it is not a decision.
    func heldOutScores(_ examples: _Examples, models: [ModelDefinition], kept: [[Int]], unionCount: Int,
                       targets: [ModelDefinition.Target]) -> [_HeldOut] {
        var out: [_HeldOut] = []
        forEachHeldOutScore(examples, models: models, kept: kept, unionCount: unionCount, targets: targets.count) { fold, r, scores in
            var best = 0
            for j in scores.indices where scores[j] > scores[best] { best = j }
            var second = -Double.infinity
            for j in scores.indices where j != best { second = max(second, scores[j]) }
            out.append(_HeldOut(example: r, fold: fold, winner: best, score: scores[best], margin: scores[best] - second))
        }
        return out
    }

    /// Calls `body(fold, example, scores)` for each held-out message of each fold model that the model would
    /// decide (a script it speaks on, a phrase it kept present), in fold order then example order, with the
    /// model's scores of it (`targets` of them: bias + Σ weights / √Σ idf², as the classifier computes them).
    /// `scores` is reused between calls.
    func forEachHeldOutScore(_ examples: _Examples, models: [ModelDefinition], kept: [[Int]], unionCount: Int, targets t: Int,
                             _ body: (_ fold: Int, _ example: Int, _ scores: [Double]) -> Void) {
        var weights = [Float](repeating: 0, count: unionCount * t)
        var idf = [Float](repeating: 0, count: unionCount)
        var scores = [Double](repeating: 0, count: t)
        for (fold, model) in models.enumerated() {
            for (p, u) in kept[fold].enumerated() {
                idf[u] = model.phrases[p].idf
                for j in 0..<t { weights[u * t + j] = model.phrases[p].weights[j] }
            }
            for r in 0..<examples.count where Int(examples.folds[r]) == fold && !model.abstains(on: examples.script(r)) {
                var norm = 0.0
                for j in 0..<t { scores[j] = 0 }
                for q in examples.starts[r]..<examples.starts[r + 1] {
                    let u = Int(examples.features[q])
                    guard idf[u] > 0 else { continue }
                    norm += Double(idf[u]) * Double(idf[u])
                    for j in 0..<t { scores[j] += Double(weights[u * t + j]) }
                }
                guard norm > 0 else { continue }
                let inverse = 1 / norm.squareRoot()
                for j in 0..<t { scores[j] = Double(model.bias[j]) + scores[j] * inverse }
                body(fold, r, scores)
            }
            for u in kept[fold] {
                idf[u] = 0
                for j in 0..<t { weights[u * t + j] = 0 }
            }
        }
    }

    /// The margins: per target, the smallest margin over the runner-up at which the fold models' decisions of
    /// it on their held-out messages reach `precision`. A decision is right when the message's true target
    /// lands where the decided one does for the user: junk and promotion are both filtered, none and allow
    /// both unfiltered, a transaction is a transaction (with `--by folder`, by the folders' actions). Below
    /// its margin the model abstains and the rules decide.
    func calibrate(_ examples: _Examples, _ heldOut: [_HeldOut], targets: [ModelDefinition.Target], precision: Double,
                   report: inout LearnReport) -> [Float] {
        let t = targets.count
        func group(_ a: Action) -> Int {
            switch a {
            case .junk, .promotion: 0
            case .none, .allow: 1
            case .transaction: 2
            }
        }
        let groups = targets.map { group($0.action) }
        // Per target: (margin, right) of each held-out decision.
        var decisions = Array(repeating: [(Double, Bool)](), count: t)
        for h in heldOut {
            decisions[h.winner].append((h.margin, groups[h.winner] == groups[Int(examples.targets[h.example])]))
        }
        var margins = [Float](repeating: 0, count: t)
        report.calibration = []
        for j in 0..<t {
            var c = LearnReport.Calibration(target: targets[j].name, margin: 0)
            let d = decisions[j].sorted { $0.0 < $1.0 }
            c.decisions = d.count
            c.right = d.filter(\.1).count
            if d.count < options.minimumCalibrationDecisions {
                c.calibrated = false
                c.kept = c.decisions
                c.keptRight = c.right
            } else if let (i, m) = Self.smallestMargin(d, precision: precision, minimumKept: 1) {
                c.margin = m
                c.kept = d.count - i
                c.keptRight = d[i...].filter(\.1).count
            } else {
                c.margin = .infinity
            }
            margins[j] = c.margin
            report.calibration.append(c)
        }
        return margins
    }

    /// The overrule margins (docs/RULES.md §10): for each held-out decision of a fold model where the best firing
    /// base rule below the model has another action than the winner's and nothing else stops the model (no rule
    /// at or above its priority or number list decided, it does not yield to that rule (an action it learned too
    /// little of in the message's script), the sender does not keep it from the verdict, the threshold is met),
    /// the model would overrule the rule; the overrule is right when the message's true action is the winner's
    /// (none and allow count as one). Per main script of the message and (rule action, target) pair, the smallest
    /// margin at which at least ``LearnOptions/minimumOverrules`` held-out overrules at or above it reach
    /// `precision`; with fewer cases, or none precise enough, never. Scripts without a held-out overrule are left
    /// out of the table (never).
    func calibrateOverrules(_ examples: _Examples, _ heldOut: [_HeldOut], models: [ModelDefinition], targets: [ModelDefinition.Target],
                            precision: Double, report: inout LearnReport) -> [Script: [Action: [Float]]] {
        func same(_ a: Action) -> Action { ModelDefinition.overruleRow(a) }
        return overruleTable(examples, heldOut, models: models, targets: targets, honouringYields: true, report: &report,
                             point: { ($0.decision.margin, same($0.truth) == same($0.winner)) }) { cases, _, _, minimum, c in
            // Sorted by margin, and by rightness among equal margins, so that the order never depends on the
            // order of the folds.
            let d = cases.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : (!$0.1 && $1.1) }
            c.cases = d.count
            c.right = d.filter(\.1).count
            if d.count >= minimum {
                c.calibrated = true
                if let (k, m) = Self.smallestMargin(d, precision: precision, minimumKept: minimum) {
                    c.margin = m
                    c.kept = d.count - k
                    c.keptRight = d[k...].filter(\.1).count
                }
            }
        }
    }

    /// The overrule table's walk, the same for every calibration of it: the held-out overrule cases
    /// (`overruleCases`), each as `point` makes it, grouped per main script, rule row and winning target; then per
    /// script with a case, per rule row and per target of another action, one calibration that `calibrate` fills
    /// in from the cell's points (`byRow`: the script's whole table, `target`: the cell's target, `minimum`: the
    /// fewest cases that calibrate). Its margin goes into the table (+inf: never), the calibration into the report.
    func overruleTable<Point>(_ examples: _Examples, _ heldOut: [_HeldOut], models: [ModelDefinition],
                              targets: [ModelDefinition.Target], honouringYields: Bool, report: inout LearnReport,
                              point: (_OverruleCase) -> Point,
                              calibrate: (_ cell: [Point], _ byRow: [[[Point]]], _ target: Int, _ minimum: Int,
                                          _ c: inout LearnReport.OverruleCalibration) -> Void) -> [Script: [Action: [Float]]] {
        let t = targets.count
        let rows = ModelDefinition.overruleRows
        var cases: [Script: [[[Point]]]] = [:]
        for o in overruleCases(examples, heldOut, models: models, targets: targets, honouringYields: honouringYields) {
            cases[o.script, default: Array(repeating: Array(repeating: [], count: t), count: rows.count)][o.row][o.decision.winner]
                .append(point(o))
        }
        var table: [Script: [Action: [Float]]] = [:]
        report.overrules = []
        let minimum = max(1, options.minimumOverrules)
        report.minimumOverrules = minimum
        for script in Script.allCases {
            guard let byRow = cases[script] else { continue }
            for (i, row) in rows.enumerated() {
                var margins = [Float](repeating: .infinity, count: t)
                for j in 0..<t where ModelDefinition.overruleRow(targets[j].action) != row {
                    var c = LearnReport.OverruleCalibration(script: script, rule: row, target: targets[j].name)
                    calibrate(byRow[i][j], byRow, j, minimum, &c)
                    margins[j] = c.margin
                    report.overrules.append(c)
                }
                table[script, default: [:]][row] = margins
            }
        }
        return table
    }

    /// A held-out decision where the fold model would overrule the best firing base rule below it.
    struct _OverruleCase {
        var script: Script
        /// The rule's row in ``ModelDefinition/overruleRows``.
        var row: Int
        var decision: _HeldOut
        var rule: Action
        var winner: Action
        var truth: Action
    }

    /// The held-out decisions (`heldOut`, in order) where the fold model would overrule the best firing base rule
    /// below it and nothing else stops it: no rule at or above its priority or number list decided, the sender
    /// does not keep it from the verdict (a TRAI header from junk, a vouched sender from all but transaction), the
    /// threshold is met; with `honouringYields`, it does not yield to that rule either (an action it learned too
    /// little of in the message's script).
    func overruleCases(_ examples: _Examples, _ heldOut: [_HeldOut], models: [ModelDefinition], targets: [ModelDefinition.Target],
                       honouringYields: Bool) -> [_OverruleCase] {
        let rows = ModelDefinition.overruleRows
        var out: [_OverruleCase] = []
        for h in heldOut {
            let c = examples.contexts[h.example]
            let model = models[h.fold]
            guard c & _Examples.decidedAbove == 0, let rule = _Examples.action(c), model.isOverrule(of: rule, by: h.winner) else { continue }
            let winner = targets[h.winner].action
            let script = examples.script(h.example)
            if honouringYields && model.yields(to: rule, on: script, with: h.winner) { continue }
            if winner == .junk && c & _Examples.traiSender != 0 { continue }
            if winner != .transaction && c & _Examples.vouched != 0 { continue }
            if let threshold = model.threshold, h.score < Double(threshold) { continue }
            out.append(_OverruleCase(script: script, row: rows.firstIndex(of: ModelDefinition.overruleRow(rule))!, decision: h,
                                     rule: rule, winner: winner, truth: targets[Int(examples.targets[h.example])].action))
        }
        return out
    }

    /// The smallest margin m at which the decisions at or above m (`d`, sorted by margin) are at least
    /// `minimumKept` and reach `precision`: m is 0 (every decision) or the margin of a decision, taken at the first
    /// of the decisions that share it. Returns the index of the first decision kept and m (as a Float, never above
    /// the margin it stands for), or nil when no margin gets there.
    static func smallestMargin(_ d: [(Double, Bool)], precision: Double, minimumKept: Int) -> (Int, Float)? {
        var rightFrom = [Int](repeating: 0, count: d.count + 1)
        for i in stride(from: d.count - 1, through: 0, by: -1) { rightFrom[i] = rightFrom[i + 1] + (d[i].1 ? 1 : 0) }
        for i in 0..<d.count where i == 0 || d[i].0 != d[i - 1].0 {
            if d.count - i < minimumKept { return nil }
            if Double(rightFrom[i]) >= precision * Double(d.count - i) {
                var m: Float = i == 0 ? 0 : Float(d[i].0)
                if Double(m) > d[i].0 { m = m.nextDown }
                return (i, m)
            }
        }
        return nil
    }
}
