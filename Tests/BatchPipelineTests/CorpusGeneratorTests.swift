import Foundation
import TestSupport
import XCTest
import ArchiveIO

@testable import BatchPipeline

final class CorpusGeneratorTests: XCTestCase {
    func generate(count: Int, seed: UInt64) throws -> [UInt8] {
        let folder = try Fixtures.temporaryFolder("gen")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("g.jsonl").path
        try Deadline.run("CorpusGenerator(seed: \(seed)).write(count: \(count))") {
            let file = try OutputFile(path: path)
            try CorpusGenerator(seed: seed).write(count: count, to: file)
            try file.finish()
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func testDeterministicValidJSONWithEveryFolderLanguageAndSenderKind() throws {
        let a = try generate(count: 30_000, seed: 7)
        XCTAssertEqual(a, try generate(count: 30_000, seed: 7), "same seed, same bytes")
        XCTAssertNotEqual(a, try generate(count: 30_000, seed: 8))
        var labels = Set<String>()
        var labelCounts: [String: Int] = [:]
        var languageCounts: [String: Int] = [:]
        var bodyBytes = 0
        var longest = 0
        var senders = (trai: 0, phone: 0, short: 0, email: 0)
        let lines = a.split(separator: 0x0A)
        XCTAssertEqual(lines.count, 30_000)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
            labels.insert(object["label"] as! String)
            labelCounts[object["label"] as! String, default: 0] += 1
            languageCounts[object["lang"] as! String, default: 0] += 1
            let body = (object["body"] as! String).utf8.count
            bodyBytes += body
            longest = max(longest, body)
            let sender = object["sender"] as! String
            if sender.range(of: #"^[A-Z]{2}-[A-Z0-9]+(-[PSTG])?$"#, options: .regularExpression) != nil { senders.trai += 1 }
            if sender.hasPrefix("+") { senders.phone += 1 }
            if sender.allSatisfy(\.isNumber) { senders.short += 1 }
            if sender.contains("@") { senders.email += 1 }
        }
        // Fixed values of seed 7 (the generator is deterministic: a change of its model shows here).
        XCTAssertEqual(labels.count, 14, "twelve sub-action folders, Junk and Inbox: \(labels.sorted())")
        XCTAssertEqual(labelCounts, [
            "Inbox": 9695, "Junk": 2247, "Promotions/Coupons": 924, "Promotions/Offers": 1957, "Promotions/Others": 953,
            "Transactions/Carrier": 1318, "Transactions/Finance": 3202, "Transactions/Health": 705, "Transactions/Orders": 1959,
            "Transactions/Others": 3991, "Transactions/Public Services": 679, "Transactions/Reminders": 1368,
            "Transactions/Rewards": 665, "Transactions/Weather": 337,
        ])
        XCTAssertEqual(languageCounts, ["en": 14405, "hi": 2964, "hinglish": 4504, "th": 4192, "zh": 3935])
        XCTAssertEqual(bodyBytes, 3_520_299, "mean body \(Double(bodyBytes) / Double(lines.count)) bytes (117.34 when pinned)")
        XCTAssertEqual(longest, 3804, "the long tail")
        XCTAssertTrue(senders.trai > 0 && senders.phone > 0 && senders.short > 0 && senders.email > 0, "\(senders)")
    }

    /// Issue 35: 10,876 of 39,128 "Inbox" chats ended with a bank's sign-off ("T&C apply. Thank you for
    /// banking with us."), and every +1 number had 11 national digits. Chats now carry no business text, and
    /// every phone number has its country's length (US 10, China 11, Thailand 9, India 10 national digits).
    func testChatsCarryNoAdTextAndNumbersHaveTheirNationalLengths() throws {
        let text = try generate(count: 20_000, seed: 3)
        let signOffs = ["T&C", "banking with us", "Reply STOP", "helpline", "visit our website", "already done",
                        "dhanyavaad", "jaankari", "नियम", "धन्यवाद", "退订", "感谢您的支持", "客服", "ขอบคุณที่ใช้บริการ", "*137", "1234"]
        let national = ["+1": 10, "+86": 11, "+66": 9, "+91": 10]
        var chats = 0, phones = 0
        for line in text.split(separator: 0x0A) {
            let object = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
            let body = object["body"] as! String, sender = object["sender"] as! String
            if object["label"] as! String == "Inbox" {
                chats += 1
                for phrase in signOffs { XCTAssertFalse(body.contains(phrase), "a chat with business text: \(body)") }
            }
            if sender.hasPrefix("+") {
                phones += 1
                let code = try XCTUnwrap(national.keys.first { sender.hasPrefix($0) }, sender)
                XCTAssertEqual(sender.count - code.count, national[code], "\(sender): national digits")
            }
        }
        XCTAssertGreaterThan(chats, 5000)
        XCTAssertGreaterThan(phones, 5000)
    }
}
