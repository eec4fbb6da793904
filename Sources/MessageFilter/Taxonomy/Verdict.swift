/// Where one message's sender and body lie in a shared buffer (for batch classification).
public struct MessageSpan: Sendable, Hashable {
    /// Byte offset of the sender.
    public var senderStart: Int
    /// Sender length in bytes; -1 when the message has no sender.
    public var senderCount: Int
    /// Byte offset of the body.
    public var bodyStart: Int
    /// Body length in bytes.
    public var bodyCount: Int

    /// A span; pass `senderCount: -1` for no sender.
    public init(senderStart: Int, senderCount: Int, bodyStart: Int, bodyCount: Int) {
        self.senderStart = senderStart
        self.senderCount = senderCount
        self.bodyStart = bodyStart
        self.bodyCount = bodyCount
    }
}

/// The validated decision for one message. Plain values only, so producing one allocates nothing;
/// names and phrases are looked up in the ``RuleSet`` (``RuleSet/ruleNames``, ``RuleSet/phrase(at:)``,
/// ``RuleSet/label(at:)``).
public struct Verdict: Sendable, Equatable {
    /// The action (never changed by validation).
    public var action: Action = .none
    /// The sub-action after validation (``SubAction/none`` when dropped).
    public var subAction: SubAction = .none
    /// The sub-action the deciding rule asked for.
    public var requestedSubAction: SubAction = .none
    /// Why the requested sub-action was dropped, if it was.
    public var dropped: DropReason?
    /// The folder the message lands in.
    public var folder: Folder = .unknownSenders
    /// The deciding rule's index in ``RuleSet/ruleNames``; -1 when no rule fired (and for number lists).
    public var rule: Int32 = -1
    /// Byte span in the body of the deciding phrase; -1 when none.
    public var matchStart: Int32 = -1
    /// End (exclusive) of the deciding phrase's span; -1 when none.
    public var matchEnd: Int32 = -1
    /// The deciding phrase (``RuleSet/phrase(at:)``); -1 when none.
    public var phrase: Int32 = -1
    /// The identification-list label (``RuleSet/label(at:)``); -1 when none.
    public var label: Int32 = -1
    /// Which number list decided, if one did.
    public var list: NumberListKind?

    /// The verdict when nothing fired: action `none`, folder `Unknown Senders`.
    public init() {}
}

/// The number list that decided a verdict.
public enum NumberListKind: String, Sendable, Hashable {
    /// The sender is on the block list (verdict junk).
    case blockList
    /// The sender is on the identification list (verdict allow, with its label).
    case identificationList
}
