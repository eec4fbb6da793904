/// What a filter decides for a message: `ILMessageFilterAction`, with Apple's names and raw values.
///
/// | case | raw | folder |
/// |---|---|---|
/// | ``none`` | 0 | `Unknown Senders` |
/// | ``allow`` | 1 | `Inbox` |
/// | ``junk`` | 2 | `Junk` |
/// | ``promotion`` | 3 | `Promotions` (and its sub-folders) |
/// | ``transaction`` | 4 | `Transactions` (and its sub-folders) |
public enum Action: Int, Sendable, CaseIterable, Hashable, CustomStringConvertible {
    /// Not enough information: the message is shown unfiltered among unknown senders.
    case none = 0
    /// Shown normally.
    case allow = 1
    /// Filtered as junk.
    case junk = 2
    /// Filtered as promotional.
    case promotion = 3
    /// Filtered as transactional.
    case transaction = 4

    /// Apple's name of the action (`"transaction"`).
    public var name: String {
        switch self {
        case .none: "none"
        case .allow: "allow"
        case .junk: "junk"
        case .promotion: "promotion"
        case .transaction: "transaction"
        }
    }

    public var description: String { name }

    /// Whether the action is ``junk`` or ``promotion``: the two that a spam/ham judgement counts as one (both
    /// take the message out of the inbox as unsolicited), where a transaction and the unfiltered actions do not.
    @inline(__always)
    public var isJunkOrPromotion: Bool { self == .junk || self == .promotion }

    /// The action with Apple's name `name`, or nil.
    public init?(name: String) {
        guard let action = Action.allCases.first(where: { $0.name == name }) else { return nil }
        self = action
    }

    /// The sub-actions that form a valid pair with this action (always including ``SubAction/none``).
    ///
    /// - Complexity: O(1) amortised (a constant table).
    public var validSubActions: [SubAction] {
        switch self {
        case .none, .allow, .junk: [.none]
        case .promotion: [.none] + SubAction.promotional
        case .transaction: [.none] + SubAction.transactional
        }
    }
}

/// The sub-folder a filter asks for: `ILMessageFilterSubAction` (iOS 16), with Apple's names and raw values.
///
/// Transactional sub-actions (10000…10008) pair only with ``Action/transaction``, promotional ones
/// (20000…20002) only with ``Action/promotion``; ``none`` pairs with every action.
public enum SubAction: Int, Sendable, CaseIterable, Hashable, CustomStringConvertible {
    /// No sub-folder.
    case none = 0
    /// Transactions › Others.
    case transactionalOthers = 10000
    /// Transactions › Finance.
    case transactionalFinance = 10001
    /// Transactions › Orders.
    case transactionalOrders = 10002
    /// Transactions › Reminders.
    case transactionalReminders = 10003
    /// Transactions › Health.
    case transactionalHealth = 10004
    /// Transactions › Weather.
    case transactionalWeather = 10005
    /// Transactions › Carrier.
    case transactionalCarrier = 10006
    /// Transactions › Rewards.
    case transactionalRewards = 10007
    /// Transactions › Public Services (Apple's header calls it "Government").
    case transactionalPublicServices = 10008
    /// Promotions › Others.
    case promotionalOthers = 20000
    /// Promotions › Offers.
    case promotionalOffers = 20001
    /// Promotions › Coupons.
    case promotionalCoupons = 20002

    /// The nine transactional sub-actions, in raw-value order.
    public static let transactional: [SubAction] = allCases.filter { $0.rawValue / 10000 == 1 }
    /// The three promotional sub-actions, in raw-value order.
    public static let promotional: [SubAction] = allCases.filter { $0.rawValue / 10000 == 2 }
    /// The twelve sub-actions other than ``none``: what a rule set without `capabilities` supports.
    public static let all: [SubAction] = transactional + promotional

    /// The action this sub-action belongs to (``Action/none`` for ``none``).
    public var parent: Action {
        switch rawValue / 10000 {
        case 1: .transaction
        case 2: .promotion
        default: .none
        }
    }

    /// Apple's name of the sub-action (`"transactionalFinance"`).
    public var name: String {
        switch self {
        case .none: "none"
        case .transactionalOthers: "transactionalOthers"
        case .transactionalFinance: "transactionalFinance"
        case .transactionalOrders: "transactionalOrders"
        case .transactionalReminders: "transactionalReminders"
        case .transactionalHealth: "transactionalHealth"
        case .transactionalWeather: "transactionalWeather"
        case .transactionalCarrier: "transactionalCarrier"
        case .transactionalRewards: "transactionalRewards"
        case .transactionalPublicServices: "transactionalPublicServices"
        case .promotionalOthers: "promotionalOthers"
        case .promotionalOffers: "promotionalOffers"
        case .promotionalCoupons: "promotionalCoupons"
        }
    }

    public var description: String { name }

    /// The sub-action with Apple's name `name`, or nil.
    public init?(name: String) {
        guard let sub = SubAction.allCases.first(where: { $0.name == name }) else { return nil }
        self = sub
    }

    /// Whether `self` forms a valid pair with `action` (what iOS checks before honouring a sub-action).
    public func isValid(with action: Action) -> Bool {
        self == .none || parent == action
    }
}

/// Why a verdict's sub-action was dropped (the action is always kept).
public enum DropReason: String, Sendable, CaseIterable, Hashable {
    /// The sub-action does not belong to the action (a promotional sub-action with `transaction`, any
    /// sub-action with `junk`, `allow` or `none`).
    case invalidPair
    /// The rule set did not declare the sub-action in its capabilities.
    case notDeclared
}
