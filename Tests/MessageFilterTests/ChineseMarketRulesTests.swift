import XCTest
@testable import MessageFilter

/// The Chinese promotion and scam rules written from how Chinese shops, estate agents, schools, lenders and
/// casinos advertise by SMS (docs/RULES.md §7, "Markets"), one case each way: the ad is filed, the same words
/// in a friend's text are not; a carrier's or shop's ad is no Carrier or Rewards transaction.
final class ChineseMarketRulesTests: XCTestCase {
    func verdict(_ body: String) -> Verdict {
        Classifier(ruleSet: RuleSet.embeddedDefault).classify(sender: nil, body: body)
    }

    func testAdsAreFiled() {
        XCTAssertEqual(verdict("本店新款到货，全场八折，欢迎光临！地址：中山路12号").folder.path, "Promotions/Others")
        XCTAssertEqual(verdict("凭此短信到店消费可获精美礼品一份").folder.path, "Promotions/Others")
        XCTAssertEqual(verdict("地铁口精装修现房，首付10万起，咨询电话400-123-4567").folder.path, "Promotions/Others")
        XCTAssertEqual(verdict("无抵押贷款，当天放款，额度最高50万").folder.path, "Junk")
        XCTAssertEqual(verdict("新用户注册送88元彩金，每日返水").folder.path, "Junk")
        // A carrier's ad is an ad, not a carrier notice: "充值" with a gift is Promotions.
        XCTAssertTrue(verdict("充值100元送50元话费，活动期间有效，回T退订").folder.path.hasPrefix("Promotions"))
        XCTAssertEqual(verdict("您本月套餐内流量已使用80%，剩余200MB。【中国移动】").folder.path, "Transactions/Carrier")
    }

    func testFriendsAreNotFiled() {
        for chat in ["我们去商场吧，听说在打折", "你的课程几点结束？我在门口等你", "周末要不要一起去健身？",
                     "那家店的衣服包邮吗？", "我刚付了首付，好累"] {
            let v = verdict(chat)
            XCTAssertFalse(v.action == .junk || v.action == .promotion, "\(chat): \(v.folder.path)")
        }
    }
}
