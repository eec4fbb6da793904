import Foundation
import MessageFilter
import TestSupport
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

@testable import BatchPipeline

final class PipelineTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws { folder = try Fixtures.temporaryFolder("pipeline-tests") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    struct Outcome {
        var output: [UInt8]
        var rejects: [[String: Any]]
        var counts: RunCounts
        var damaged: Bool
    }

    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    func run(_ inputs: [String], _ configure: (inout PipelineOptions) -> Void = { _ in }) throws -> Outcome {
        var options = PipelineOptions()
        let out = folder.appendingPathComponent("out-\(UUID().uuidString)").path
        let rej = folder.appendingPathComponent("rejects-\(UUID().uuidString).jsonl").path
        options.outputPath = out
        options.rejectsPath = rej
        configure(&options)
        let result = try Pipeline(ruleSet: RuleSet.embeddedDefault, options: options).run(inputs: inputs)
        let output = (try? Data(contentsOf: URL(fileURLWithPath: options.outputPath ?? out))).map(Array.init) ?? []
        let rejectLines = (try? String(contentsOfFile: rej, encoding: .utf8))?.split(separator: "\n") ?? []
        let rejects = try rejectLines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertTrue(result.counts.isBalanced)
        return Outcome(output: output, rejects: rejects, counts: result.counts, damaged: result.damaged)
    }

    func corpus(_ name: String) throws -> [UInt8] {
        guard let folder = Fixtures.corporaFolder else { throw XCTSkip("shared/corpora is not beside the checkout") }
        return Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    func decompress(_ bytes: [UInt8]) throws -> [UInt8] {
        Array(try Fixtures.run("zstd", ["-dc"], stdin: Data(bytes)).stdout)
    }

    // MARK: Labels equal the MessageFilter API, record by record

    func testCorporaLabelsEqualPerRecordClassification() throws {
        for name in ["uci_sms_spam.jsonl.zst", "thai_sms.jsonl.zst"] {
            let path = try file(name, try corpus(name))
            let outcome = try run([path]) { $0.threads = 2; $0.chunkSize = 64 * 1024 }
            let plain = try decompress(try corpus(name))
            let inputLines = plain.split(separator: 0x0A)
            let outputLines = outcome.output.split(separator: 0x0A)
            XCTAssertEqual(inputLines.count, outputLines.count)
            XCTAssertEqual(outcome.counts.records, inputLines.count)
            XCTAssertEqual(outcome.counts.rejected, 0)
            let classifier = Classifier(ruleSet: RuleSet.embeddedDefault)
            var folders: [String: Int] = [:]
            for (input, output) in zip(inputLines, outputLines) {
                let object = try JSONSerialization.jsonObject(with: Data(input)) as! [String: Any]
                let labelled = try JSONSerialization.jsonObject(with: Data(output)) as! [String: Any]
                let verdict = classifier.classify(sender: object["sender"] as? String, body: object["body"] as! String)
                let filter = labelled["filter"] as! [String: Any]
                XCTAssertEqual(filter["folder"] as? String, verdict.folder.path)
                XCTAssertEqual(filter["action"] as? String, "\(verdict.action)")
                XCTAssertEqual(filter["rule"] as? String, verdict.rule >= 0 ? RuleSet.embeddedDefault.ruleNames[Int(verdict.rule)] : nil)
                folders[verdict.folder.path, default: 0] += 1
                // Every original field is kept byte for byte: the output line starts with the input minus its `}`.
                let prefix = input[input.startIndex..<input.index(before: input.endIndex)]
                XCTAssertTrue(output.starts(with: prefix))
            }
            for (path, count) in folders { XCTAssertEqual(outcome.counts.folders[path], count, path) }
        }
    }

    // MARK: Determinism

    func testOutputIdenticalForThreadCountsAndChunkSizes() throws {
        let path = try file("uci.jsonl.zst", try corpus("uci_sms_spam.jsonl.zst"))
        var reference: [UInt8]?
        var referenceCounts: RunCounts?
        for threads in [1, 2, 8] {
            for chunk in [4096, 65_536, 1 << 20] {
                let outcome = try run([path]) {
                    $0.threads = threads
                    $0.chunkSize = chunk
                    $0.outputPath = self.folder.appendingPathComponent("o-\(threads)-\(chunk).jsonl.zst").path
                }
                let plain = try decompress(outcome.output)
                if let reference {
                    XCTAssertTrue(plain == reference, "threads \(threads), chunk \(chunk)")
                    XCTAssertEqual(outcome.counts.folders, referenceCounts!.folders)
                    XCTAssertEqual(outcome.counts.rules, referenceCounts!.rules)
                } else {
                    reference = plain
                    referenceCounts = outcome.counts
                }
            }
        }
    }

    // MARK: Bad input

    func testMalformedLinesAreRejectedWithLineNumbersAndTheRestLabelled() throws {
        let lines = [
            #"{"id": 1, "body": "Rs 500 debited from a/c"}"#,
            #"{"id": 2, "body": "broken"#,
            "",
            #"{"id": 3, "sender": "AX-HDFCBK", "body": "your OTP is 1234"}"#,
            #"{"id": 4}"#,
            #"{"id": 5, "body": 42}"#,
            #"not json at all"#,
            #"{"id": 6, "body": "last, no newline"}"#,
        ]
        var bytes = Array(lines.joined(separator: "\n").utf8)
        bytes.insert(contentsOf: Array(#"{"id": 7, "body": "bad "#.utf8) + [0xFF, 0xFE] + Array(#"utf8"}"#.utf8) + [0x0A], at: 0)
        let path = try file("bad.jsonl", bytes)
        let outcome = try run([path]) { $0.chunkSize = 4096 }
        XCTAssertEqual(outcome.counts.records, 8)
        XCTAssertEqual(outcome.counts.labelled, 3)
        XCTAssertEqual(outcome.counts.rejected, 5)
        XCTAssertEqual(outcome.counts.blankLines, 1)
        let byLine = Dictionary(uniqueKeysWithValues: outcome.rejects.map { ($0["line"] as! Int, $0) })
        XCTAssertEqual(Set(byLine.keys), [1, 3, 6, 7, 8])
        XCTAssertTrue((byLine[1]!["reason"] as! String).contains("invalid UTF-8"))
        XCTAssertNotNil(byLine[1]!["recordBase64"], "invalid UTF-8 is kept as base64, never lost")
        XCTAssertTrue((byLine[3]!["reason"] as! String).contains("invalid JSON"))
        XCTAssertEqual(byLine[3]!["record"] as? String, lines[1])
        XCTAssertEqual(byLine[6]!["reason"] as? String, #"no "body" field"#)
        XCTAssertEqual(byLine[7]!["reason"] as? String, #""body" is not a string"#)
        XCTAssertEqual(byLine[3]!["file"] as? String, path)
        let ids = outcome.output.split(separator: 0x0A).map { (try! JSONSerialization.jsonObject(with: Data($0)) as! [String: Any])["id"] as! Int }
        XCTAssertEqual(ids, [1, 3, 6])
    }

    func testStrictStopsAtTheFirstBadRecordAndLeavesNoOutput() throws {
        let path = try file("s.jsonl", Array("{\"body\": \"ok\"}\n{\"body\": \n{\"body\": \"ok\"}\n".utf8))
        let out = folder.appendingPathComponent("strict.jsonl").path
        XCTAssertThrowsError(try run([path]) { $0.strict = true; $0.outputPath = out }) { error in
            let error = error as! PipelineError
            XCTAssertEqual(error.exitCode, 65)
            XCTAssertTrue(error.message.contains("s.jsonl:2:"), error.message)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testTruncatedArchiveKeepsEveryRecordBeforeTheDamage() throws {
        let archive = try corpus("uci_sms_spam.jsonl.zst")
        let cut = Array(archive[..<(archive.count / 2)])
        let path = try file("cut.jsonl.zst", cut)
        let outcome = try run([path]) { $0.chunkSize = 8192 }
        XCTAssertTrue(outcome.damaged)
        XCTAssertTrue(outcome.counts.files[0].error!.contains("truncated"), outcome.counts.files[0].error!)
        // What the zstd CLI recovers from the same bytes, cut to whole lines, is all labelled.
        let recovered = Array(try Fixtures.run("zstd", ["-dc", path]).stdout)
        let wholeLines = recovered.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().count
        XCTAssertGreaterThan(wholeLines, 1000)
        XCTAssertEqual(outcome.counts.labelled, wholeLines)
        // The partial last record is rejected, not lost.
        XCTAssertEqual(outcome.counts.rejected, recovered.last == 0x0A ? 0 : 1)
        XCTAssertEqual(outcome.output.split(separator: 0x0A).count, wholeLines)
    }

    func testHugeRecordsAndMaxRecord() throws {
        let big = String(repeating: "free entry win cash ", count: 500_000)  // 10 MB body
        let lines = ["{\"id\": 1, \"body\": \"short\"}", "{\"id\": 2, \"body\": \"\(big)\"}", "{\"id\": 3, \"body\": \"after\"}"]
        let path = try file("huge.jsonl", Array((lines.joined(separator: "\n") + "\n").utf8))
        let whole = try run([path]) { $0.chunkSize = 64 * 1024 }
        XCTAssertEqual(whole.counts.labelled, 3)
        XCTAssertEqual(whole.output.split(separator: 0x0A).count, 3)
        XCTAssertGreaterThan(whole.output.count, 10_000_000)
        let limited = try run([path]) { $0.chunkSize = 64 * 1024; $0.maxRecord = 1 << 20 }
        XCTAssertEqual(limited.counts.labelled, 2)
        XCTAssertEqual(limited.counts.rejected, 1)
        XCTAssertEqual(limited.rejects.first?["line"] as? Int, 2)
        XCTAssertEqual(limited.rejects.first?["length"] as? Int, lines[1].utf8.count + 1)
        XCTAssertTrue((limited.rejects.first?["reason"] as! String).contains("--max-record"))
    }

    func testEmptyFileAndSeveralFiles() throws {
        let empty = try file("empty.jsonl", [])
        let a = try file("a.jsonl", Array("{\"body\": \"one\"}\n{\"body\": \"two\"}\n".utf8))
        let b = try file("b.jsonl", Array("{\"body\": \"three\"}".utf8))
        let outcome = try run([empty, a, b])
        XCTAssertEqual(outcome.counts.records, 3)
        XCTAssertEqual(outcome.counts.files.map(\.records), [0, 2, 1])
        XCTAssertEqual(String(decoding: outcome.output, as: UTF8.self).components(separatedBy: "\n").count, 4)
    }

    func testMissingInputAndUnwritableOutput() throws {
        XCTAssertThrowsError(try run([folder.appendingPathComponent("nope.jsonl").path])) { error in
            XCTAssertEqual((error as! PipelineError).exitCode, 66)
        }
        let a = try file("a.jsonl", Array("{\"body\": \"one\"}\n".utf8))
        XCTAssertThrowsError(try run([a]) { $0.outputPath = "/nonexistent-folder/out.jsonl" }) { error in
            XCTAssertEqual((error as! PipelineError).exitCode, 73)
            XCTAssertTrue((error as! PipelineError).message.contains("/nonexistent-folder/out.jsonl"))
        }
    }

    // MARK: Other formats

    func testCSVWithQuotedNewlinesAndHeader() throws {
        let csv = "id,sender,body\r\n1,VM-HDFCBK,\"Rs 500 debited, a/c \"\"XX12\"\"\nthanks\"\r\n2,,free entry win\r\n3,x,\"unterminated\r\n"
        let path = try file("in.csv", Array(csv.utf8))
        let outcome = try run([path])
        XCTAssertEqual(outcome.counts.records, 3)
        XCTAssertEqual(outcome.counts.labelled, 2)
        XCTAssertEqual(outcome.counts.rejected, 1)
        XCTAssertEqual(outcome.rejects.first?["line"] as? Int, 5)
        let text = String(decoding: outcome.output, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("id,sender,body,filter_action,filter_subAction,filter_folder,filter_rule\n"), text)
        XCTAssertTrue(text.contains("1,VM-HDFCBK,\"Rs 500 debited, a/c \"\"XX12\"\"\nthanks\","))
    }

    func testTSVPositionalColumns() throws {
        let tsv = "1\tAD-FOO\tWin a FREE prize\n2\t12345\thello there\n"
        let path = try file("in.tsv", Array(tsv.utf8))
        let outcome = try run([path]) {
            $0.hasHeader = false
            $0.fields = FieldNames(id: "1", sender: "2", body: "3")
        }
        XCTAssertEqual(outcome.counts.labelled, 2)
        let rows = String(decoding: outcome.output, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(rows[0].split(separator: "\t", omittingEmptySubsequences: false).count, 7)
    }

    func testAndroidXMLStreamsWithoutEntityExpansion() throws {
        let xml = """
            <?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
            <!DOCTYPE smses [<!ENTITY lol "lololol">]>
            <smses count="3">
              <sms protocol="0" address="+919812345678" date="1" type="1" body="Rs 500 debited &amp; credited &#x1F600; a/b>c" />
              <!-- <sms body="inside a comment" /> -->
              <sms address="AX-HDFCBK" body="expand &lol; please" date="2" />
              <mms date="3"><parts><part text="not an sms" /></parts></mms>
              <sms address="12345" body='free entry' date="4"/>
            </smses>

            """
        let path = try file("backup.xml", Array(xml.utf8))
        let outcome = try run([path]) { $0.chunkSize = 4096 }
        XCTAssertEqual(outcome.counts.records, 3)
        XCTAssertEqual(outcome.counts.labelled, 2)
        XCTAssertEqual(outcome.counts.rejected, 1)
        XCTAssertTrue((outcome.rejects[0]["reason"] as! String).contains("unknown entity &lol;"))
        XCTAssertEqual(outcome.rejects[0]["line"] as? Int, 6)
        let text = String(decoding: outcome.output, as: UTF8.self)
        XCTAssertTrue(text.contains("<mms date=\"3\"><parts><part text=\"not an sms\" /></parts></mms>"))
        XCTAssertTrue(text.contains("<!-- <sms body=\"inside a comment\" /> -->"))
        XCTAssertTrue(text.contains("filter_folder="))
        XCTAssertFalse(text.contains("expand &lol;"), "a rejected record is not in the output")
        XCTAssertTrue(text.hasSuffix("</smses>\n"))
        // The output is still well-formed XML (Foundation's parser, without the DTD line).
        let wellFormed = text.replacingOccurrences(of: "<!DOCTYPE smses [<!ENTITY lol \"lololol\">]>\n", with: "")
        XCTAssertTrue(XMLParser(data: Data(wellFormed.utf8)).parse())
    }

    func testLabelsOnlyUsesIdsOrLineNumbers() throws {
        let path = try file("l.jsonl", Array("{\"id\": \"a\", \"body\": \"x\"}\n\n{\"body\": \"y\"}\n".utf8))
        let outcome = try run([path]) { $0.labelsOnly = true }
        let lines = outcome.output.split(separator: 0x0A).map { try! JSONSerialization.jsonObject(with: Data($0)) as! [String: Any] }
        XCTAssertEqual(lines.count, 2)
        XCTAssertEqual(lines[0]["id"] as? String, "a")
        XCTAssertEqual(lines[1]["line"] as? Int, 3)
        XCTAssertNotNil(lines[1]["filter"] as? [String: Any])
    }
}

final class PipelineXMLOverlongTests: XCTestCase {
    /// An XML element longer than --max-record is rejected with its length and the next elements are
    /// labelled (the format is sniffed, not given).
    func testOverlongXMLElementIsRejectedAndTheRestLabelled() throws {
        let folder = try Fixtures.temporaryFolder("xml-overlong")
        defer { try? FileManager.default.removeItem(at: folder) }
        let big = String(repeating: "win cash now ", count: 20_000)  // 260 KB attribute
        // No newline between the elements: the over-long one must end at its `>`, not at a newline.
        let xml = "<?xml version='1.0'?>\n<smses><sms address=\"1\" body=\"short one\" /><sms address=\"2\" body=\"\(big)\" /><sms address=\"3\" body=\"after\" /></smses>\n"
        let input = folder.appendingPathComponent("backup.xml").path
        try Data(xml.utf8).write(to: URL(fileURLWithPath: input))
        var options = PipelineOptions()
        options.chunkSize = 4096
        options.maxRecord = 64 * 1024
        options.outputPath = folder.appendingPathComponent("out.xml").path
        let result = try Pipeline(ruleSet: RuleSet.embeddedDefault, options: options).run(inputs: [input])
        XCTAssertEqual(result.counts.rejected, 1)
        XCTAssertEqual(result.counts.labelled, 2)
        XCTAssertTrue(result.counts.isBalanced)
        let text = try String(contentsOfFile: options.outputPath!, encoding: .utf8)
        XCTAssertTrue(text.contains("body=\"after\""), text.suffix(300).description)
    }
}
