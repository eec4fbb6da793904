import Foundation
import XCTest
@testable import MessageFilter

/// Links are evidence only with company (docs/RULES.md §10, "Links"; issue 34 item 3): a model that files a
/// message in Junk or Promotions only because of its links abstains when, with the links blanked out, the
/// message still holds model evidence and reads as something it would not file; the rules below decide.
final class LinkEvidenceTests: XCTestCase {
    // "http" and "bit" push hard towards junk (as the link phrases of a model learned from spam do); "hello"
    // towards none, "prize" towards junk.
    static let yaml = """
        version: 1
        defaultCountryCode: 44
        rules:
          - {name: prize-link, action: junk, priority: -3, keywords: [prize], urls: [any]}
          - {name: chat, action: allow, priority: -10, keywords: [hey]}
        model:
          name: learned
          priority: 60
          threshold: null
          targets: [none, junk]
          bias: [0.1, -0.1]
          margins: [0, 0]
          minScriptMessages: 0
          links: LINKS
          phrases:
            - [word, "http", 1, -2, 3]
            - [word, "bit", 1, -2, 3]
            - [word, "hello", 1, 1, 0]
            - [word, "prize", 1, -1, 2]
        """

    static func classifier(links: String = "company") throws -> Classifier {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("links.yaml").path
        try yaml.replacingOccurrences(of: "LINKS", with: links).write(toFile: path, atomically: true, encoding: .utf8)
        return Classifier(ruleSet: try RuleSet.load(path: path))
    }

    /// The explanation, checked against the one-message and the batch verdicts.
    func explain(_ body: String, links: String = "company", file: StaticString = #filePath, line: UInt = #line) throws -> Explanation {
        checkedExplanation(try Self.classifier(links: links), body: body, file: file, line: line)
    }

    /// Chat with a link: junk only for the link; without it the model says none: it abstains, nothing files it.
    func testALinkAloneFilesNothing() throws {
        for body in ["hello, see http://example.com/x", "hello! bit.ly/3abc", "HELLO http://example.com and https://example.org/y"] {
            let e = try explain(body)
            XCTAssertEqual(e.model?.targets[e.model!.winner], "junk", body)
            XCTAssertEqual(e.model?.abstention, "linkAlone", body)
            XCTAssertEqual(e.verdict.action, .none, body)
            XCTAssertEqual(e.verdict.folder.path, "Unknown Senders", body)
            XCTAssertTrue(e.steps.contains { $0.contains("it says junk for the link alone: without the message's links it says none") }, "\(e.steps)")
        }
        // The rules below still decide: an allow rule files it in the Inbox.
        XCTAssertEqual(try explain("hey hello http://example.com/x").verdict.folder.path, "Inbox")
    }

    /// A link with company: other spam evidence keeps the model's verdict. A link with nothing else the model
    /// knows is a link alone too (no evidence without it): the model abstains.
    func testALinkWithCompanyStaysEvidence() throws {
        let prize = try explain("hello, claim your prize http://example.com/x")
        XCTAssertNil(prize.model?.abstention)
        XCTAssertEqual(prize.ruleName, "learned")
        XCTAssertEqual(prize.verdict.folder.path, "Junk")
        let bare = try explain("see http://example.com/x")
        XCTAssertEqual(bare.model?.abstention, "linkAlone")
        XCTAssertEqual(bare.verdict.folder.path, "Unknown Senders")
        XCTAssertTrue(bare.steps.contains { $0.contains("without the message's links none of its phrases is left") }, "\(bare.steps)")
        // Evidence inside the link is the link's: blanked with it. The rules below still see the link.
        let inside = try explain("see http://example.com/prize")
        XCTAssertEqual(inside.model?.abstention, "linkAlone")
        XCTAssertEqual(inside.ruleName, "prize-link")
        XCTAssertEqual(inside.verdict.folder.path, "Junk")
        // No link: "http" as a word is a phrase like any other.
        XCTAssertEqual(try explain("hello, the http spec").verdict.folder.path, "Junk")
    }

    /// `links: evidence` (a learned model's default): a link weighs like any phrase; the model decides.
    func testLinksAsEvidenceDecide() throws {
        for body in ["hello, see http://example.com/x", "see http://example.com/x"] {
            let e = try explain(body, links: "evidence")
            XCTAssertNil(e.model?.abstention, body)
            XCTAssertEqual(e.verdict.folder.path, "Junk", body)
        }
    }

    /// The setting survives YAML → `.smsf` → load, and a bad value is refused with its field named.
    func testTheSettingIsKeptAndChecked() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for links in ["company", "evidence"] {
            let path = dir.appendingPathComponent("\(links).yaml").path
            try Self.yaml.replacingOccurrences(of: "LINKS", with: links).write(toFile: path, atomically: true, encoding: .utf8)
            let set = try RuleSet.load(path: path)
            XCTAssertEqual(set.definition.model?.linksNeedCompany, links == "company")
            let compiled = dir.appendingPathComponent("\(links).smsf").path
            XCTAssertTrue(FileManager.default.createFile(atPath: compiled, contents: Data(set.serialize())))
            XCTAssertEqual(try RuleSet.load(path: compiled).definition.model?.linksNeedCompany, links == "company")
            XCTAssertEqual(set.definition.model!.yaml().contains("links: company"), links == "company")
        }
        let bad = dir.appendingPathComponent("bad.yaml").path
        try Self.yaml.replacingOccurrences(of: "LINKS", with: "sometimes").write(toFile: bad, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try RuleSet.load(path: bad)) {
            XCTAssertTrue("\($0)".contains("model.links"), "\($0)")
            XCTAssertTrue("\($0)".contains("got \"sometimes\""), "the value given is named: \($0)")
        }
        // A value with a character that could hide or reorder the message is named escaped.
        try Self.yaml.replacingOccurrences(of: "LINKS", with: "\"evi\u{202E}dence\"").write(toFile: bad, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try RuleSet.load(path: bad)) { XCTAssertTrue("\($0)".contains("got \"evi\\u{202E}dence\""), "\($0)") }
    }

    /// A compiled model's flag byte with a bit no version defines is refused, the byte named.
    func testUnknownBitsOfTheModelFlagByteAreRefusedByValue() throws {
        var m = ModelDefinition()
        m.targets = [.init(action: .junk), .init(action: .none)]
        var w = _ByteWriter()
        _ModelCodec._encodeScope(m, into: &w)
        // Two margins (4 bytes each) and the script minimum (8 bytes), then the flag byte.
        let flagAt = 2 * 4 + 8
        XCTAssertEqual(w.buffer[flagAt], 0)
        for flags: UInt8 in [1, 2, 3] {
            var bytes = w.buffer
            bytes[flagAt] = flags
            var decoded = m
            XCTAssertNoThrow(try bytes.withUnsafeBytes { raw in
                var r = _ByteReader(raw)
                try _ModelCodec._decodeScope(&r, into: &decoded)
            })
            XCTAssertEqual(decoded.linksNeedCompany, flags & 2 != 0)
        }
        for flags: UInt8 in [4, 7, 0x80] {
            var bytes = w.buffer
            bytes[flagAt] = flags
            var decoded = m
            XCTAssertThrowsError(try bytes.withUnsafeBytes { raw in
                var r = _ByteReader(raw)
                try _ModelCodec._decodeScope(&r, into: &decoded)
            }) { XCTAssertTrue("\($0)".contains("model flag byte 0x\(String(flags, radix: 16, uppercase: true))"), "\($0)") }
        }
    }

    /// The model's scores and phrases in the explanation are the whole message's, not the link-free text's.
    func testTheExplanationShowsTheWholeMessage() throws {
        let e = try explain("hello, see http://example.com/x")
        XCTAssertEqual(Set(e.model!.contributions.map(\.phrase)), ["http", "hello"])
        XCTAssertGreaterThan(e.model!.scores[1], e.model!.scores[0])
    }
}
