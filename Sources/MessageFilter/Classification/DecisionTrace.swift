/// How a ``Classifier`` decided, recorded while it decides: caller-owned storage passed to
/// ``Classifier/classify(sender:body:trace:)`` or the batch call, one entry per message classified.
///
/// There is one decision path: `explain` and `evaluate` read what the classifier did instead of deciding
/// again. Recording is off unless a trace is passed (classifying then allocates nothing per message); with
/// a trace, nothing is allocated per message either once its arrays have grown, and `reset()` keeps them.
///
/// ### What is recorded
/// - ``Detail/rules``: the rules that fired on each message (won or lost), in the order weighed: what
///   `evaluate` counts.
/// - ``Detail/full``: every match (phrases, and every body condition the scanners find, also for rules no
///   phrase touched), every rule weighed with why it fired or not, the sender's kind, the number list that
///   decided, and the learned model's scores: what `explain` shows. A number list still decides first, but
///   the rules are weighed and recorded (as not reached).
public final class DecisionTrace {
    public enum Detail: Sendable {
        case rules
        case full
    }

    /// What one rule came to for one message.
    struct Rule {
        var index: Int32
        /// Where it fires (the earliest match; `Int32.max` without text conditions), or why not (negative:
        /// `_Firing`).
        var firing: Int32
        /// Its earliest match (start, end, phrase; -1 without one).
        var start: Int32
        var end: Int32
        var phrase: Int32
        /// The `all` groups present (bit per group).
        var mask: UInt64
        /// The first `unless` phrase present and the first `none` condition present (-1: none).
        var vetoPhrase: Int32
        var vetoCondition: Int32
        var vetoConditionStart: Int32
        var vetoConditionEnd: Int32
        /// How a rule that fired fared against the winner (``Detail/full``; `.notFired` otherwise).
        var fate: Fate = .notFired
    }

    /// How a rule that fired fared: it won, or lost to the model or to the winning rule (by priority, then
    /// position, then file order: the classifier's order).
    enum Fate: UInt8 {
        case notFired, won, lostToModel, lostToPriority, lostToEarlierMatch, lostToFileOrder
    }

    /// One message's entries.
    struct Message {
        var ruleStart = 0
        var ruleCount = 0
        var matchStart = 0
        var matchCount = 0
        var list: NumberListKind?
        var sender: SenderInfo?
        /// Where `startsWith` phrases must start (-1: the rule set has none).
        var anchor: Int32 = -1
        var model: Model?
    }

    /// The learned model's side of one message (``Detail/full``).
    struct Model {
        var scores: [Double]
        var winner: Int
        var norm: Double
        /// Features present, in order of first match, with their first span in the body.
        var features: [(feature: Int32, start: Int32, end: Int32)]
        var decided: Bool
        /// The winner's margin over the runner-up, the message's main script, and why the model did not
        /// decide (`.decides` when it would have).
        var margin: Double
        var script: Script
        var abstention: _ModelAbstention
        /// The firing rule below the model whose action the winner would overrule (-1: none), and the margin
        /// the winner needs to (its calibrated overrule margin; +inf: never; -1: the model's overrules are not
        /// calibrated, so its `margins` entry applies).
        var overruled: Int32 = -1
        var overruleMargin: Double = 0
        /// Whether a rule at or above the model's priority fired, so the model was not asked.
        var outranked = false
        /// The rule whose folder the model's verdict took (-1: none; see `Classifier._refined`), the first
        /// firing rule that vouches for the sender, and the first firing rule (by index) below the model whose
        /// action the model learned too little of (-1: none).
        var refinedBy: Int32 = -1
        var vouchedBy: Int32 = -1
        var yieldedTo: Int32 = -1
        /// The model's winner with the message's links blanked out, when it abstained for a link alone (-1 otherwise).
        var linkFreeWinner: Int32 = -1
    }

    public let detail: Detail
    var messages: [Message] = []
    var rules: [Rule] = []
    var matches: [_RawMatch] = []

    public init(detail: Detail) {
        self.detail = detail
        messages.reserveCapacity(Classifier.batchSize * 4)
        rules.reserveCapacity(1024)
        if detail == .full { matches.reserveCapacity(256) }
    }

    /// Forgets every message (keeping the memory).
    public func reset() {
        messages.removeAll(keepingCapacity: true)
        rules.removeAll(keepingCapacity: true)
        matches.removeAll(keepingCapacity: true)
    }

    /// Messages recorded since the last reset.
    public var count: Int { messages.count }

    /// The rules that fired on message `message` (won or lost to another rule or the model), in the order
    /// they were weighed.
    public func firedRules(message: Int) -> FiredRules {
        let m = messages[message]
        return FiredRules(trace: self, range: m.ruleStart..<(m.ruleStart + m.ruleCount))
    }

    /// The rules that fired on one message.
    public struct FiredRules: Sequence {
        let trace: DecisionTrace
        let range: Range<Int>

        public func makeIterator() -> Iterator { Iterator(trace: trace, position: range.lowerBound, end: range.upperBound) }

        public struct Iterator: IteratorProtocol {
            let trace: DecisionTrace
            var position: Int
            let end: Int

            public mutating func next() -> Int? {
                while position < end {
                    let r = trace.rules[position]
                    position += 1
                    if r.firing >= 0 { return Int(r.index) }
                }
                return nil
            }
        }
    }

    // MARK: Recording (by the classifier)

    func begin(sender: SenderInfo?, anchor: Int32) {
        var m = Message()
        m.ruleStart = rules.count
        m.matchStart = matches.count
        if detail == .full {
            m.sender = sender
            m.anchor = anchor
        }
        messages.append(m)
    }

    @inline(__always)
    func record(match: _RawMatch) {
        matches.append(match)
        messages[messages.count - 1].matchCount += 1
    }

    @inline(__always)
    func record(rule: Rule) {
        if detail == .rules && rule.firing < 0 { return }
        rules.append(rule)
        messages[messages.count - 1].ruleCount += 1
    }

    func record(list: NumberListKind) { messages[messages.count - 1].list = list }

    func record(model: Model) { messages[messages.count - 1].model = model }
}

/// Why a rule did not fire (the negative values of `_classifierFiringPosition` and ``DecisionTrace/Rule/firing``).
enum _Firing {
    static let vetoed: Int32 = -1
    static let noKeyword: Int32 = -2
    static let groupMissing: Int32 = -3
    static let senderFailed: Int32 = -4
    static let senderExcluded: Int32 = -5
}
