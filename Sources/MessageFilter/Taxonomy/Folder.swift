/// The folder a user sees in Messages, the result of a validated action/sub-action pair.
///
/// ``path`` gives the display path: `"Transactions/Finance"`, `"Transactions"` (All Transactions),
/// `"Promotions/Offers"`, `"Junk"`, `"Inbox"` (allow), `"Unknown Senders"` (none).
public enum Folder: Sendable, CaseIterable, Hashable, CustomStringConvertible {
    /// `Unknown Senders (action none)`.
    case unknownSenders
    /// `Inbox (action allow)`.
    case inbox
    /// `Junk`.
    case junk
    /// `Promotions (no sub-action)`.
    case promotions
    /// `Promotions/Others`.
    case promotionsOthers
    /// `Promotions/Offers`.
    case promotionsOffers
    /// `Promotions/Coupons`.
    case promotionsCoupons
    /// `Transactions, "All Transactions" (no sub-action)`.
    case transactions
    /// `Transactions/Others`.
    case transactionsOthers
    /// `Transactions/Finance`.
    case transactionsFinance
    /// `Transactions/Orders`.
    case transactionsOrders
    /// `Transactions/Reminders`.
    case transactionsReminders
    /// `Transactions/Health`.
    case transactionsHealth
    /// `Transactions/Weather`.
    case transactionsWeather
    /// `Transactions/Carrier`.
    case transactionsCarrier
    /// `Transactions/Rewards`.
    case transactionsRewards
    /// `Transactions/Public Services`.
    case transactionsPublicServices

    /// The folder of a *validated* pair: `action` with `subAction` (pass ``SubAction/none`` when dropped).
    ///
    /// - Precondition: `subAction.isValid(with: action)`; an invalid pair must be validated first
    ///   (``Capabilities/validate(action:subAction:)``).
    public init(action: Action, subAction: SubAction) {
        precondition(subAction.isValid(with: action), "validate the pair before asking for its folder")
        switch (action, subAction) {
        case (.none, _): self = .unknownSenders
        case (.allow, _): self = .inbox
        case (.junk, _): self = .junk
        case (.promotion, .promotionalOthers): self = .promotionsOthers
        case (.promotion, .promotionalOffers): self = .promotionsOffers
        case (.promotion, .promotionalCoupons): self = .promotionsCoupons
        case (.promotion, _): self = .promotions
        case (.transaction, .transactionalOthers): self = .transactionsOthers
        case (.transaction, .transactionalFinance): self = .transactionsFinance
        case (.transaction, .transactionalOrders): self = .transactionsOrders
        case (.transaction, .transactionalReminders): self = .transactionsReminders
        case (.transaction, .transactionalHealth): self = .transactionsHealth
        case (.transaction, .transactionalWeather): self = .transactionsWeather
        case (.transaction, .transactionalCarrier): self = .transactionsCarrier
        case (.transaction, .transactionalRewards): self = .transactionsRewards
        case (.transaction, .transactionalPublicServices): self = .transactionsPublicServices
        case (.transaction, _): self = .transactions
        }
    }

    /// The display path, with `/` between a folder and its sub-folder.
    public var path: String {
        switch self {
        case .unknownSenders: "Unknown Senders"
        case .inbox: "Inbox"
        case .junk: "Junk"
        case .promotions: "Promotions"
        case .promotionsOthers: "Promotions/Others"
        case .promotionsOffers: "Promotions/Offers"
        case .promotionsCoupons: "Promotions/Coupons"
        case .transactions: "Transactions"
        case .transactionsOthers: "Transactions/Others"
        case .transactionsFinance: "Transactions/Finance"
        case .transactionsOrders: "Transactions/Orders"
        case .transactionsReminders: "Transactions/Reminders"
        case .transactionsHealth: "Transactions/Health"
        case .transactionsWeather: "Transactions/Weather"
        case .transactionsCarrier: "Transactions/Carrier"
        case .transactionsRewards: "Transactions/Rewards"
        case .transactionsPublicServices: "Transactions/Public Services"
        }
    }

    public var description: String { path }
}

/// The sub-actions a rule set declares it supports (`ILMessageFilterCapabilitiesQueryResponse`).
///
/// A rule set that declares nothing supports all twelve (offline labelling). iOS lets a shipped filter
/// declare at most ``iosLimit`` in total, transactional and promotional together.
public struct Capabilities: Sendable, Hashable {
    /// The most sub-actions an iOS message filter may declare (WWDC22 "Explore SMS message filters").
    public static let iosLimit = 5

    /// Bit `i` set: `SubAction.all[i]` is declared.
    var _mask: UInt16

    /// Whether the rule set declared its capabilities (false: all twelve are supported implicitly).
    public let isDeclared: Bool

    /// All twelve sub-actions, not declared (the default).
    public static let all = Capabilities(_mask: 0x0FFF, isDeclared: false)

    init(_mask: UInt16, isDeclared: Bool) {
        self._mask = _mask
        self.isDeclared = isDeclared
    }

    /// Declares exactly `subActions` (``SubAction/none`` is ignored).
    public init(declaring subActions: [SubAction]) {
        var mask: UInt16 = 0
        for sub in subActions {
            if let i = SubAction.all.firstIndex(of: sub) { mask |= 1 << UInt16(i) }
        }
        self.init(_mask: mask, isDeclared: true)
    }

    /// The supported sub-actions, in raw-value order.
    public var subActions: [SubAction] {
        SubAction.all.enumerated().filter { _mask & (1 << UInt16($0.offset)) != 0 }.map(\.element)
    }

    /// Whether `subAction` is supported (``SubAction/none`` always is).

    public func supports(_ subAction: SubAction) -> Bool {
        switch subAction {
        case .none: return true
        case .transactionalOthers: return _mask & 0x001 != 0
        case .transactionalFinance: return _mask & 0x002 != 0
        case .transactionalOrders: return _mask & 0x004 != 0
        case .transactionalReminders: return _mask & 0x008 != 0
        case .transactionalHealth: return _mask & 0x010 != 0
        case .transactionalWeather: return _mask & 0x020 != 0
        case .transactionalCarrier: return _mask & 0x040 != 0
        case .transactionalRewards: return _mask & 0x080 != 0
        case .transactionalPublicServices: return _mask & 0x100 != 0
        case .promotionalOthers: return _mask & 0x200 != 0
        case .promotionalOffers: return _mask & 0x400 != 0
        case .promotionalCoupons: return _mask & 0x800 != 0
        }
    }

    /// Whether a filter declaring these capabilities could ship on iOS (at most five sub-actions).
    public var isShippableOnIOS: Bool { subActions.count <= Capabilities.iosLimit }

    /// The result of validating a pair the way iOS does.
    public struct Validation: Sendable, Hashable {
        /// The action (never changed by validation).
        public var action: Action
        /// The sub-action kept (``SubAction/none`` when dropped).
        public var subAction: SubAction
        /// Why the requested sub-action was dropped, if it was.
        public var dropped: DropReason?
        /// The folder the message lands in.
        public var folder: Folder
    }

    /// Validates `subAction` for `action`: (1) an invalid pair drops the sub-action (`invalidPair`),
    /// (2) a sub-action not supported drops it (`notDeclared`); the action is always kept.
    ///
    /// - Complexity: O(1), no allocation.

    public func validate(action: Action, subAction: SubAction) -> Validation {
        if !subAction.isValid(with: action) {
            return Validation(action: action, subAction: .none, dropped: .invalidPair,
                              folder: Folder(action: action, subAction: .none))
        }
        if !supports(subAction) {
            return Validation(action: action, subAction: .none, dropped: .notDeclared,
                              folder: Folder(action: action, subAction: .none))
        }
        return Validation(action: action, subAction: subAction, dropped: nil,
                          folder: Folder(action: action, subAction: subAction))
    }
}
