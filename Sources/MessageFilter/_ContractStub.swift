// TEMPORARY stand-in for the MessageFilter contract, so BatchPipeline builds and runs before the real
// module lands (branch `filter`). Deleted when that branch is merged.
import AhoCorasick

public enum Action: Int, Sendable, CaseIterable { case none = 0, allow = 1, junk = 2, promotion = 3, transaction = 4 }
public enum SubAction: Int, Sendable, CaseIterable {
    case none = 0
    case transactionalOthers = 10000, transactionalFinance, transactionalOrders, transactionalReminders,
        transactionalHealth, transactionalWeather, transactionalCarrier, transactionalRewards,
        transactionalPublicServices
    case promotionalOthers = 20000, promotionalOffers, promotionalCoupons
}
public enum Folder: Sendable, CaseIterable, Hashable {
    case transactions, promotions, junk, inbox, unknownSenders
    public var path: String {
        switch self {
        case .transactions: return "Transactions"
        case .promotions: return "Promotions"
        case .junk: return "Junk"
        case .inbox: return "Inbox"
        case .unknownSenders: return "Unknown Senders"
        }
    }
}
public enum DropReason: String, Sendable { case invalidPair, notDeclared }
public struct MessageSpan: Sendable {
    public var senderStart: Int
    public var senderCount: Int
    public var bodyStart: Int
    public var bodyCount: Int
    public init(senderStart: Int, senderCount: Int, bodyStart: Int, bodyCount: Int) {
        self.senderStart = senderStart
        self.senderCount = senderCount
        self.bodyStart = bodyStart
        self.bodyCount = bodyCount
    }
}
public struct Verdict: Sendable, Equatable {
    public var action: Action = .none
    public var subAction: SubAction = .none
    public var requestedSubAction: SubAction = .none
    public var dropped: DropReason? = nil
    public var folder: Folder = .unknownSenders
    public var rule: Int32 = -1
    public var matchStart: Int32 = -1
    public var matchEnd: Int32 = -1
    public var phrase: Int32 = -1
    public var label: Int32 = -1
    public init() {}
}
public final class RuleSet: Sendable {
    public let ruleNames: [String] = ["stub-free"]
    public let checksum = "0000000000000000"
    public let source = "embedded default rules"
    public static let embeddedDefault = RuleSet()
    public static func load(path: String) throws -> RuleSet { RuleSet() }
    public func phrase(at index: Int) -> String { "free" }
    public func label(at index: Int) -> String { "" }
}
public final class Classifier {
    public init(ruleSet: RuleSet) {}
    public func classify(sender: UnsafeRawBufferPointer?, body: UnsafeRawBufferPointer) -> Verdict {
        var v = Verdict()
        let needle = Array("free".utf8)
        if body.count >= 4 {
            for i in 0...(body.count - 4) where body[i] | 0x20 == needle[0] && body[i + 1] | 0x20 == needle[1]
                && body[i + 2] | 0x20 == needle[2] && body[i + 3] | 0x20 == needle[3] {
                v.action = .junk
                v.folder = .junk
                v.rule = 0
                v.phrase = 0
                v.matchStart = Int32(i)
                v.matchEnd = Int32(i + 4)
                break
            }
        }
        return v
    }
    public func classify(sender: String?, body: String) -> Verdict {
        var body = body
        return body.withUTF8 { classify(sender: nil, body: UnsafeRawBufferPointer($0)) }
    }
    public func classify(
        buffer: UnsafeRawBufferPointer, messages: UnsafeBufferPointer<MessageSpan>,
        into verdicts: UnsafeMutableBufferPointer<Verdict>
    ) {
        for (k, m) in messages.enumerated() {
            let sender = m.senderCount < 0 ? nil : UnsafeRawBufferPointer(rebasing: buffer[m.senderStart..<(m.senderStart + m.senderCount)])
            verdicts[k] = classify(sender: sender, body: UnsafeRawBufferPointer(rebasing: buffer[m.bodyStart..<(m.bodyStart + m.bodyCount)]))
        }
    }
}
