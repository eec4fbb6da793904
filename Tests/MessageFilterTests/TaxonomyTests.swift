import XCTest
@testable import MessageFilter

final class TaxonomyTests: XCTestCase {
    func testRawValuesAreApples() {
        XCTAssertEqual(Action.allCases.map(\.rawValue), [0, 1, 2, 3, 4])
        XCTAssertEqual(SubAction.transactional.map(\.rawValue), Array(10000...10008))
        XCTAssertEqual(SubAction.promotional.map(\.rawValue), [20000, 20001, 20002])
        XCTAssertEqual(SubAction.all.count, 12)
        XCTAssertEqual(SubAction(name: "transactionalPublicServices"), .transactionalPublicServices)
        XCTAssertNil(SubAction(name: "finance"))
    }

    /// Every action × sub-action pair, with all twelve supported: valid pairs keep the sub-action,
    /// invalid ones drop it (invalidPair) and keep the action.
    func testEveryPairTable() {
        let expectedFolder: [SubAction: String] = [
            .transactionalOthers: "Transactions/Others", .transactionalFinance: "Transactions/Finance",
            .transactionalOrders: "Transactions/Orders", .transactionalReminders: "Transactions/Reminders",
            .transactionalHealth: "Transactions/Health", .transactionalWeather: "Transactions/Weather",
            .transactionalCarrier: "Transactions/Carrier", .transactionalRewards: "Transactions/Rewards",
            .transactionalPublicServices: "Transactions/Public Services",
            .promotionalOthers: "Promotions/Others", .promotionalOffers: "Promotions/Offers",
            .promotionalCoupons: "Promotions/Coupons",
        ]
        let parentFolder: [Action: String] = [.none: "Unknown Senders", .allow: "Inbox", .junk: "Junk",
                                              .promotion: "Promotions", .transaction: "Transactions"]
        var checked = 0
        for action in Action.allCases {
            for sub in SubAction.allCases {
                let v = Capabilities.all.validate(action: action, subAction: sub)
                XCTAssertEqual(v.action, action)
                let valid = sub == .none || (action == .transaction && sub.rawValue < 20000)
                    || (action == .promotion && sub.rawValue >= 20000)
                if valid {
                    XCTAssertEqual(v.subAction, sub, "\(action) + \(sub)")
                    XCTAssertNil(v.dropped)
                    XCTAssertEqual(v.folder.path, sub == .none ? parentFolder[action]! : expectedFolder[sub]!)
                } else {
                    XCTAssertEqual(v.subAction, .none, "\(action) + \(sub)")
                    XCTAssertEqual(v.dropped, .invalidPair, "\(action) + \(sub)")
                    XCTAssertEqual(v.folder.path, parentFolder[action]!)
                }
                checked += 1
            }
        }
        XCTAssertEqual(checked, 5 * 13)
    }

    /// WWDC22: transaction + promotionalCoupons goes to All Transactions.
    func testWWDCExample() {
        let v = Capabilities.all.validate(action: .transaction, subAction: .promotionalCoupons)
        XCTAssertEqual(v.folder, .transactions)
        XCTAssertEqual(v.folder.path, "Transactions")
        XCTAssertEqual(v.dropped, .invalidPair)
        XCTAssertEqual(v.action, .transaction)
    }

    func testNotDeclaredComesAfterPairCheck() {
        let caps = Capabilities(declaring: [.transactionalFinance, .promotionalCoupons])
        XCTAssertEqual(caps.validate(action: .transaction, subAction: .transactionalFinance).folder, .transactionsFinance)
        let orders = caps.validate(action: .transaction, subAction: .transactionalOrders)
        XCTAssertEqual(orders.dropped, .notDeclared)
        XCTAssertEqual(orders.folder, .transactions)
        // Invalid and undeclared: the pair check comes first.
        XCTAssertEqual(caps.validate(action: .promotion, subAction: .transactionalOrders).dropped, .invalidPair)
        XCTAssertTrue(caps.isShippableOnIOS)
        XCTAssertFalse(Capabilities.all.isShippableOnIOS)
        XCTAssertEqual(Capabilities(declaring: Array(SubAction.all.prefix(5))).subActions.count, 5)
    }

    func testFolderPathsAreDistinct() {
        XCTAssertEqual(Set(Folder.allCases.map(\.path)).count, Folder.allCases.count)
        XCTAssertEqual(Folder.allCases.count, 17)
    }
}
