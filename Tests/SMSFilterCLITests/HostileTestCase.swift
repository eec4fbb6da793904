import Foundation
import TestSupport
import XCTest

/// The prologue of the hostile-use test classes (HostileInputTests, HostileUseTests, HostileOutputTests): a
/// few records written to `in.jsonl` in the test's folder before each test (``input``), and small file
/// helpers.
class HostileTestCase: CLITestCase {
    /// The records the hostile tests read, one JSON line each: one for each of the default rules' main
    /// folders.
    static let recordLines = [
        #"{"id": 1, "sender": "AD-HDFCBK", "body": "Rs 500 debited from a/c XX12 on 01-11"}"#,
        #"{"id": 2, "sender": "+14155550100", "body": "WIN a free cruise!!! Click http://spam.example now"}"#,
        #"{"id": 3, "sender": "+14155550101", "body": "see you at 6?"}"#,
        #"{"id": 4, "sender": "VM-OFFERS", "body": "Flat 50% off, use coupon SAVE50"}"#,
        #"{"id": 5, "sender": "+14155550102", "body": "your OTP is 123456"}"#,
    ]

    /// The records of ``input``, each line ended by a newline: all of ``recordLines`` unless a class writes
    /// fewer.
    class var records: String { Self.lines(recordLines.count) }

    /// The first `count` of ``recordLines``, each ended by a newline.
    static func lines(_ count: Int) -> String { recordLines.prefix(count).map { $0 + "\n" }.joined() }

    /// `in.jsonl`, holding ``records``.
    var input = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        input = try write("in.jsonl", Self.records)
    }

    /// The two bodies of ``labelled()``.
    class var labelledBodies: (spam: String, ham: String) { ("win a prize", "home at six") }

    /// A small labelled corpus for `learn` and `evaluate`, written to `labelled.jsonl`: 20 records, the spam and
    /// ham bodies of ``labelledBodies`` in turn (labelled so), each ending in its number; returns its path.
    func labelled() throws -> String {
        let (spam, ham) = Self.labelledBodies
        var lines = ""
        for i in 0..<20 {
            lines += "{\"id\": \(i), \"body\": \"\(i % 2 == 0 ? spam : ham) \(i)\", \"label\": \"\(i % 2 == 0 ? "spam" : "ham")\"}\n"
        }
        return try write("labelled.jsonl", lines)
    }

    func bytes(_ path: String) -> Data? { try? Data(contentsOf: URL(fileURLWithPath: path)) }
    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
}
