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
            "Inbox": 9661, "Junk": 2305, "Promotions/Coupons": 951, "Promotions/Offers": 1971, "Promotions/Others": 994,
            "Transactions/Carrier": 1308, "Transactions/Finance": 3245, "Transactions/Health": 681, "Transactions/Orders": 1986,
            "Transactions/Others": 3883, "Transactions/Public Services": 688, "Transactions/Reminders": 1325,
            "Transactions/Rewards": 681, "Transactions/Weather": 321,
        ])
        XCTAssertEqual(languageCounts, ["en": 14385, "hi": 3009, "hinglish": 4605, "th": 4130, "zh": 3871])
        XCTAssertEqual(bodyBytes, 3_605_783, "mean body \(Double(bodyBytes) / Double(lines.count)) bytes (120.19 when pinned)")
        XCTAssertEqual(longest, 3676, "the long tail")
        XCTAssertTrue(senders.trai > 0 && senders.phone > 0 && senders.short > 0 && senders.email > 0, "\(senders)")
    }
}
