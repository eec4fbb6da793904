import Foundation
import TestSupport
import XCTest
import ZstdStream

@testable import BatchPipeline

final class CorpusGeneratorTests: XCTestCase {
    func generate(count: Int, seed: UInt64) throws -> [UInt8] {
        let folder = try Fixtures.temporaryFolder("gen")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("g.jsonl").path
        let file = try OutputFile(path: path)
        try CorpusGenerator(seed: seed).write(count: count, to: file)
        try file.finish()
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func testDeterministicValidJSONWithEveryFolderLanguageAndSenderKind() throws {
        let a = try generate(count: 30_000, seed: 7)
        XCTAssertEqual(a, try generate(count: 30_000, seed: 7), "same seed, same bytes")
        XCTAssertNotEqual(a, try generate(count: 30_000, seed: 8))
        var labels = Set<String>()
        var languages = Set<String>()
        var bodyBytes = 0
        var longest = 0
        var senders = (trai: 0, phone: 0, short: 0, email: 0)
        let lines = a.split(separator: 0x0A)
        XCTAssertEqual(lines.count, 30_000)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
            labels.insert(object["label"] as! String)
            languages.insert(object["lang"] as! String)
            let body = (object["body"] as! String).utf8.count
            bodyBytes += body
            longest = max(longest, body)
            let sender = object["sender"] as! String
            if sender.range(of: #"^[A-Z]{2}-[A-Z0-9]+(-[PSTG])?$"#, options: .regularExpression) != nil { senders.trai += 1 }
            if sender.hasPrefix("+") { senders.phone += 1 }
            if sender.allSatisfy(\.isNumber) { senders.short += 1 }
            if sender.contains("@") { senders.email += 1 }
        }
        XCTAssertEqual(labels.count, 14, "twelve sub-action folders, Junk and Inbox: \(labels.sorted())")
        XCTAssertEqual(languages, ["en", "hinglish", "hi", "zh", "th"])
        let mean = Double(bodyBytes) / Double(lines.count)
        XCTAssertTrue((120...160).contains(mean), "mean body \(mean) bytes")
        XCTAssertGreaterThan(longest, 2000, "a long tail")
        XCTAssertTrue(senders.trai > 0 && senders.phone > 0 && senders.short > 0 && senders.email > 0, "\(senders)")
    }
}
