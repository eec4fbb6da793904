/// Per-class precision, recall and F1 and their macro mean, as scikit-learn computes them from one truth and
/// one prediction per record (`sklearn.metrics.precision_recall_fscore_support` with `average=None`,
/// `f1_score(average="macro")`, `accuracy_score`), kept as a confusion matrix of counts over named classes.
///
/// The classes scored are scikit-learn's `unique_labels(y_true, y_pred)`: every class that is some record's
/// truth or some record's prediction. For a class c with tp records predicted c whose truth is c, fp others
/// predicted c and fn records of truth c predicted otherwise: precision = tp / (tp + fp), recall = tp /
/// (tp + fn), F1 = 2·tp / (2·tp + fp + fn), each 0 where its denominator is 0 (`zero_division=0`). So a class
/// that is only predicted (no record has it as its truth) has F1 0 and pulls the mean down, and so does a
/// class that is never predicted. The macro F1 is the unweighted mean of the F1 over the scored classes.
public struct ClassScores: Sendable, Equatable {
    /// Class names, in the order classes were declared (scikit-learn sorts them; the order changes no figure).
    public private(set) var names: [String]
    /// `counts[truth][predicted]`: records.
    public private(set) var counts: [[Int]]

    /// Classes named `names`, every count 0.
    public init(names: [String]) {
        self.names = names
        counts = Array(repeating: Array(repeating: 0, count: names.count), count: names.count)
    }

    /// The confusion of two sequences of class names, as scikit-learn reads `y_true` and `y_pred`; the classes
    /// are the sorted union of the names.
    /// - Precondition: `yTrue.count == yPred.count`.
    public init(yTrue: [String], yPred: [String]) {
        precondition(yTrue.count == yPred.count, "y_true and y_pred differ in length")
        let names = Set(yTrue + yPred).sorted()
        self.init(names: names)
        let index = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        for (t, p) in zip(yTrue, yPred) { add(truth: index[t]!, predicted: index[p]!) }
    }

    /// Counts one record (or `count` of them) of truth class `truth` predicted as `predicted`.
    public mutating func add(truth: Int, predicted: Int, count: Int = 1) {
        counts[truth][predicted] += count
    }

    /// Adds `other`'s counts (the same classes).
    public mutating func add(_ other: ClassScores) {
        precondition(other.names == names, "the classes differ")
        for t in counts.indices {
            for p in counts.indices { counts[t][p] += other.counts[t][p] }
        }
    }

    /// The index of class `name`, or nil.
    public func index(of name: String) -> Int? { names.firstIndex(of: name) }

    /// Records whose truth is class `c` (scikit-learn's `support`).
    public func support(_ c: Int) -> Int { counts[c].reduce(0, +) }
    /// Records predicted as class `c`.
    public func predicted(_ c: Int) -> Int { counts.reduce(0) { $0 + $1[c] } }
    /// Records of truth `c` predicted `c`.
    public func truePositives(_ c: Int) -> Int { counts[c][c] }
    public func falsePositives(_ c: Int) -> Int { predicted(c) - truePositives(c) }
    public func falseNegatives(_ c: Int) -> Int { support(c) - truePositives(c) }

    /// tp / (tp + fp); 0 when nothing was predicted `c` (zero_division=0).
    public func precision(_ c: Int) -> Double {
        let n = predicted(c)
        return n > 0 ? Double(truePositives(c)) / Double(n) : 0
    }

    /// tp / (tp + fn); 0 when no record's truth is `c`.
    public func recall(_ c: Int) -> Double {
        let n = support(c)
        return n > 0 ? Double(truePositives(c)) / Double(n) : 0
    }

    /// 2·tp / (2·tp + fp + fn), the harmonic mean of precision and recall; 0 when tp is 0.
    public func f1(_ c: Int) -> Double {
        let tp = truePositives(c)
        guard tp > 0 else { return 0 }
        return Double(2 * tp) / Double(2 * tp + falsePositives(c) + falseNegatives(c))
    }

    /// The classes scored: some record's truth or some record's prediction (`unique_labels(y_true, y_pred)`),
    /// in declaration order.
    public var scoredClasses: [Int] { names.indices.filter { support($0) > 0 || predicted($0) > 0 } }

    /// The records counted.
    public var total: Int { counts.reduce(0) { $0 + $1.reduce(0, +) } }

    /// `f1_score(y_true, y_pred, average="macro")`: the mean F1 over ``scoredClasses``; nil without records.
    public var macroF1: Double? {
        let cs = scoredClasses
        guard !cs.isEmpty else { return nil }
        return cs.map(f1).reduce(0, +) / Double(cs.count)
    }

    /// `accuracy_score(y_true, y_pred)`: the share of records predicted as their truth; nil without records.
    public var accuracy: Double? {
        let n = total
        guard n > 0 else { return nil }
        return Double(names.indices.reduce(0) { $0 + counts[$1][$1] }) / Double(n)
    }
}
