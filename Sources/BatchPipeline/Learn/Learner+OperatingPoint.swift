import MessageFilter

// The operating point of a model used without a precision target: per target, an offset added to its bias,
// chosen where the held-out macro F1 of the calibration folds is highest.
extension Learner {
    /// The fold models' held-out scores, one row of `targets` scores per held-out message the fold model would
    /// decide (a phrase present, a script it speaks on), computed as the classifier computes them.
    struct _HeldOutScores {
        var truth: [Int] = []
        var fold: [Int] = []
        /// `scores[row * targets + target]`.
        var scores: [Double] = []
        let targets: Int
    }

    /// Every fold model's scores of its held-out messages.
    func heldOutScoreRows(_ examples: _Examples, models: [ModelDefinition], kept: [[Int]], unionCount: Int, targets t: Int)
        -> _HeldOutScores {
        var out = _HeldOutScores(targets: t)
        forEachHeldOutScore(examples, models: models, kept: kept, unionCount: unionCount, targets: t) { fold, r, scores in
            out.truth.append(Int(examples.targets[r]))
            out.fold.append(fold)
            out.scores.append(contentsOf: scores)
        }
        return out
    }

    /// Shifts the final model's biases (and, under --cv, each fold model's, chosen without its own fold) by the
    /// offsets at which the held-out macro F1 is highest.
    func calibrateOperatingPoint(_ trained: inout _Trained, _ examples: _Examples, unionCount: Int,
                                 targets: [ModelDefinition.Target], report: inout LearnReport) {
        let t = targets.count
        let rows = heldOutScoreRows(examples, models: trained.folds, kept: trained.foldKept, unionCount: unionCount, targets: t)
        let all = Array(0..<rows.truth.count)
        let offsets = Self.bestOffsets(rows, rows: all)
        report.operatingPoint = offsets.map { Float($0) }
        report.calibrationFolds = trained.folds.count
        if trained.final != nil { Self.shift(&trained.final!, by: offsets) }
        for i in trained.folds.indices {
            let own = options.folds > 0 ? Self.bestOffsets(rows, rows: all.filter { rows.fold[$0] != i }) : offsets
            Self.shift(&trained.folds[i], by: own)
        }
    }

    static func shift(_ model: inout ModelDefinition, by offsets: [Double]) {
        for j in model.bias.indices { model.bias[j] = Float(Double(model.bias[j]) + offsets[j]) }
    }

    /// The offsets (the last target's fixed at 0: a common shift changes nothing) that maximise the macro F1 of
    /// the argmax of `scores + offsets` over `rows`: coordinate ascent, each target's offset swept over a grid
    /// of -1…1 in steps of 0.005 (three rounds at most); among equal F1s the offset nearest 0 is kept.
    /// - Complexity: O(rounds × targets × (n log n + grid × targets)).
    static func bestOffsets(_ h: _HeldOutScores, rows: [Int]) -> [Double] {
        let t = h.targets
        var offsets = [Double](repeating: 0, count: t)
        guard t >= 2, !rows.isEmpty else { return offsets }
        var truthCount = [Int](repeating: 0, count: t)
        for r in rows { truthCount[h.truth[r]] += 1 }
        func macroF1(_ tp: [Int], _ predicted: [Int]) -> Double {
            var sum = 0.0
            for k in 0..<t where predicted[k] + truthCount[k] > 0 { sum += 2 * Double(tp[k]) / Double(predicted[k] + truthCount[k]) }
            return sum / Double(t)
        }
        let grid = (0...400).map { -1.0 + Double($0) * 0.005 }
        // (threshold, other winner, truth) per row for the target being swept.
        var flips: [(Double, Int, Int)] = []
        flips.reserveCapacity(rows.count)
        for _ in 0..<3 {
            var changed = false
            for j in 0..<(t - 1) {
                flips.removeAll(keepingCapacity: true)
                for r in rows {
                    var other = -1
                    var best = -Double.infinity
                    for k in 0..<t where k != j {
                        let v = h.scores[r * t + k] + offsets[k]
                        if v > best { best = v; other = k }
                    }
                    // Target j wins when its score + offset exceeds `best`.
                    flips.append((best - h.scores[r * t + j], other, h.truth[r]))
                }
                flips.sort { $0.0 < $1.0 }
                var tp = [Int](repeating: 0, count: t)
                var predicted = [Int](repeating: 0, count: t)
                for f in flips {
                    predicted[f.1] += 1
                    if f.1 == f.2 { tp[f.1] += 1 }
                }
                var next = 0
                var bestF1 = -1.0
                var bestOffset = offsets[j]
                for c in grid {
                    while next < flips.count, flips[next].0 < c {
                        let f = flips[next]
                        predicted[f.1] -= 1
                        if f.1 == f.2 { tp[f.1] -= 1 }
                        predicted[j] += 1
                        if j == f.2 { tp[j] += 1 }
                        next += 1
                    }
                    let f1 = macroF1(tp, predicted)
                    if f1 > bestF1 + 1e-12 || (abs(f1 - bestF1) <= 1e-12 && abs(c) < abs(bestOffset)) {
                        bestF1 = f1
                        bestOffset = c
                    }
                }
                if bestOffset != offsets[j] {
                    offsets[j] = bestOffset
                    changed = true
                }
            }
            if !changed { break }
        }
        return offsets
    }

    // MARK: Overrules without a precision target

    /// With base rules and no precision target: per main script and (rule action, target) pair, the margin at
    /// which the model overrules a firing base rule below it, chosen where the held-out messages gain most:
    /// overruling a message helps when the model's winner is its true action and the rule's is not, and hurts the
    /// other way round, so the margin kept is the one that maximises (model right − rule right) over the overrules
    /// at or above it (0: always; never when no margin gains). The model alone is the table of zeros and the rules
    /// first the table of nevers, so the joined file is at least as right as the better of the two on the
    /// held-out messages. Pairs with fewer than ``LearnOptions/minimumOverrules`` cases take the choice of all the
    /// script's cases of that target. A rule action the model has no target of is judged as the labels can judge
    /// it, filtered (junk, promotion) or not: a spam/ham model's `none` never overrules a transaction rule (both
    /// say "not spam"), so the rules' Transactions folders stay, while its junk overrules one where held-out
    /// spam paid off. A margin calibrated this way replaces the yield to a rule of an action the model learned
    /// too little of (``ModelDefinition/yields(to:on:with:)``).
    func calibrateOverrulesForF1(_ trained: inout _Trained, _ examples: _Examples, unionCount: Int,
                                 targets: [ModelDefinition.Target], report: inout LearnReport) {
        let heldOut = heldOutScores(examples, models: trained.folds, kept: trained.foldKept, unionCount: unionCount, targets: targets)
        let table = overruleTableForF1(examples, heldOut, models: trained.folds, targets: targets, report: &report)
        trained.final?.overrules = table
        for i in trained.folds.indices {
            if options.folds > 0 {
                var scratch = LearnReport()
                trained.folds[i].overrules = overruleTableForF1(examples, heldOut.filter { $0.fold != i }, models: trained.folds, targets: targets,
                                                                report: &scratch)
            } else {
                trained.folds[i].overrules = table
            }
        }
    }

    func overruleTableForF1(_ examples: _Examples, _ heldOut: [_HeldOut], models: [ModelDefinition], targets: [ModelDefinition.Target],
                            report: inout LearnReport) -> [Script: [Action: [Float]]] {
        func same(_ a: Action) -> Action { ModelDefinition.overruleRow(a) }
        // Per case: (margin, gain) with gain +1 model right, -1 rule right, 0 neither.
        func point(_ o: _OverruleCase) -> (Double, Int) {
            let truth = same(o.truth), rule = o.rule, winner = o.winner
            // A rule action the model has no target of is judged as the user's labels can judge it: filtered
            // (junk, promotion) or not. A spam/ham model's "none" says "not spam", which a transaction rule agrees with.
            let known = targets.contains { same($0.action) == same(rule) }
            func right(_ a: Action) -> Bool { known ? a == truth : a.isJunkOrPromotion == truth.isJunkOrPromotion }
            return (o.decision.margin, (right(same(winner)) ? 1 : 0) - (right(same(rule)) ? 1 : 0))
        }
        return overruleTable(examples, heldOut, models: models, targets: targets, honouringYields: false, report: &report,
                             point: point) { cases, byRow, j, minimum, c in
            let d = cases.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            c.cases = d.count
            c.right = d.filter { $0.1 > 0 }.count
            c.calibrated = d.count >= minimum
            // Too few cases: the pooled choice over the script's rule rows for this target.
            let basis = c.calibrated ? d : byRow.map { $0[j] }.joined().sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            let (k, m) = Self.bestGainMargin(basis)
            c.margin = m
            if m.isFinite, c.calibrated {
                c.kept = d.count - k
                c.keptRight = d[k...].filter { $0.1 > 0 }.count
            } else if m.isFinite {
                let kept = d.filter { $0.0 >= Double(m) }
                c.kept = kept.count
                c.keptRight = kept.filter { $0.1 > 0 }.count
            }
        }
    }

    /// The margin m maximising Σ gain over the cases at or above it (`d` sorted by margin): 0 (every case) or
    /// midway between the last case left out and the first kept (as a Float never above the first kept, and
    /// above the last left out); +inf when no suffix gains (a tie keeps the smaller set, the rule). Returns the
    /// index of the first case kept and m.
    static func bestGainMargin(_ d: [(Double, Int)]) -> (Int, Float) {
        var suffix = 0
        var best = 0
        var bestIndex = d.count
        for i in stride(from: d.count - 1, through: 0, by: -1) {
            suffix += d[i].1
            if (i == 0 || d[i].0 != d[i - 1].0), suffix > best {
                best = suffix
                bestIndex = i
            }
        }
        guard bestIndex < d.count else { return (d.count, .infinity) }
        // Midway between the last case left out and the first kept: a margin at the first kept case's own
        // value would leave a gap below it that no held-out case argued for.
        let midpoint = bestIndex == 0 ? 0 : (d[bestIndex - 1].0 + d[bestIndex].0) / 2
        var m = Float(midpoint)
        if Double(m) > d[bestIndex].0 { m = m.nextDown }
        if Double(m) <= (bestIndex == 0 ? -Double.infinity : d[bestIndex - 1].0) { m = Float(d[bestIndex].0) }
        return (bestIndex, m)
    }
}
