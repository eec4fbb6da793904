import Foundation
import TestSupport
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The framing rules of the one record reader (issue 12), per format, through the built binary: each test
/// is a case the three readers of 2026-11-23 got wrong (run against that binary with `SMSFILTER_BIN`, each
/// fails). Oracles: Foundation's JSON and XML parsers, counts written by hand, the input bytes.
final class FramingTests: CLITestCase {
    struct Run {
        var status: Int32
        var output: [UInt8]
        var err: String
        var rejects: [[String: Any]]
        var counts: [String: Any]
        var text: String { String(decoding: output, as: UTF8.self) }
    }

    /// `classify INPUT -o out --rejects … --counts …` with `extra` arguments.
    func classify(_ input: String, _ extra: [String] = [], output name: String = "out") throws -> Run {
        let out = path(name)
        for file in [out, path("rejects.jsonl"), path("counts.json")] { try? FileManager.default.removeItem(atPath: file) }
        let r = try run(["classify", input, "-o", out, "--rejects", path("rejects.jsonl"), "--counts", path("counts.json"), "-q"] + extra)
        let output = (try? Data(contentsOf: URL(fileURLWithPath: out))).map(Array.init) ?? []
        let lines = ((try? String(contentsOfFile: path("rejects.jsonl"), encoding: .utf8)) ?? "").split(separator: "\n")
        let rejects = try lines.map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let counts = (try? Data(contentsOf: URL(fileURLWithPath: path("counts.json"))))
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
        return Run(status: r.status, output: output, err: r.err, rejects: rejects, counts: counts)
    }

    func writeBytes(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    /// A rule file whose one rule fires on `keyword` (junk).
    func rules(_ keyword: String) throws -> String {
        try write("rules.yaml", "version: 1\nrules:\n  - name: hit\n    action: junk\n    keywords: [\"\(keyword)\"]\n")
    }

    // MARK: CSV

    /// `1,a,5" screen coupon`: a quote inside an unquoted field is an ordinary byte; it opens nothing, and the
    /// 100,000 rows after it are read (the old reader swallowed them into one field: records 1).
    func testCSVQuoteInsideAnUnquotedFieldIsAnOrdinaryByte() throws {
        var text = "id,sender,body\n1,a,5\" screen coupon\n"
        for k in 2...100_001 { text += "\(k),s,hello \(k)\n" }
        let input = try write("quote.csv", text)
        let r = try classify(input, ["--labels-only"], output: "labels.jsonl")
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.counts["records"] as? Int, 100_001)
        XCTAssertEqual(r.counts["rejected"] as? Int, 0)
        let lines = r.output.split(separator: 0x0A)
        XCTAssertEqual(lines.count, 100_001)
        let last = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try XCTUnwrap(lines.last))) as? [String: Any])
        XCTAssertEqual(last["id"] as? String, "100001")
    }

    /// A quoted field that never closes is cut at the first newline after its quote, at `--max-record` or at
    /// the end of the file; that row is rejected with its bytes and every row after it is read again.
    func testCSVUnclosedQuoteIsCutAndTheRowsAfterItAreReadAgain() throws {
        var text = "id,sender,body\n1,x,\"never closed, win a prize\n"
        for k in 2...2_000 { text += "\(k),s,row \(k)\n" }
        let input = try write("open.csv", text)
        for extra in [[], ["--max-record", "4K"]] {
            let r = try classify(input, extra)
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssertEqual(r.counts["records"] as? Int, 2_000, "\(extra)")
            XCTAssertEqual(r.counts["labelled"] as? Int, 1_999, "\(extra)")
            XCTAssertEqual(r.rejects.count, 1, "\(extra)")
            XCTAssertEqual(r.rejects.first?["line"] as? Int, 2)
            XCTAssertEqual(r.rejects.first?["reason"] as? String, "unterminated quoted field")
            XCTAssertEqual(r.rejects.first?["record"] as? String, "1,x,\"never closed, win a prize\n")
            let rows = r.text.split(separator: "\n")
            XCTAssertEqual(rows.count, 2_000, "the header and every row after the cut")
            XCTAssertTrue(rows[1].hasPrefix("2,s,row 2,"), String(rows[1]))
        }
    }

    /// Rows with fewer or more fields than the header are rejected (never labelled with shifted columns);
    /// every row written has the header's fields plus the four label columns.
    func testCSVRaggedRowsAreRejectedNeverShifted() throws {
        let text = "id,sender,body,note\n1,a,win a prize,x\n2,b,short row\n3,c,too,many,fields\n4,d,fine,y\n"
        let r = try classify(try write("ragged.csv", text), ["--rules", try rules("prize")])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.counts["labelled"] as? Int, 2)
        XCTAssertEqual(r.counts["rejected"] as? Int, 2)
        XCTAssertEqual(r.rejects.map { $0["line"] as? Int }, [3, 4])
        XCTAssertEqual(r.rejects.first?["reason"] as? String, "the row has 3 fields; the header has 4")
        for row in r.text.split(separator: "\n") { XCTAssertEqual(row.split(separator: ",", omittingEmptySubsequences: false).count, 8, String(row)) }
        XCTAssertTrue(r.text.contains("1,a,win a prize,x,junk,,Junk,hit\n"), r.text)
    }

    /// An Excel UTF-8 byte-order mark before the header: the first column is found by its name, and the
    /// output keeps the mark (Excel needs it to read UTF-8).
    func testCSVByteOrderMarkIsSkippedAndKept() throws {
        let input = try writeBytes("bom.csv", [0xEF, 0xBB, 0xBF] + Array("body,id\nwin a prize,1\n".utf8))
        let r = try classify(input, ["--rules", try rules("prize"), "--id-field", "id"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.counts["labelled"] as? Int, 1)
        XCTAssertEqual(r.output, [0xEF, 0xBB, 0xBF] + Array("body,id,filter_action,filter_subAction,filter_folder,filter_rule\nwin a prize,1,junk,,Junk,hit\n".utf8))
    }

    /// Labelling a file labelled before fills its `filter_*` columns in place: no column twice.
    func testCSVLabelsAlreadyThereAreReplaced() throws {
        let input = try write("in.csv", "id,body\n1,win a prize\n2,hello\n")
        XCTAssertEqual(try classify(input, [], output: "once.csv").status, 0)
        let r = try classify(path("once.csv"), ["--rules", try rules("hello")], output: "twice.csv")
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.text, "id,body,filter_action,filter_subAction,filter_folder,filter_rule\n"
            + "1,win a prize,none,,Unknown Senders,\n2,hello,junk,,Junk,hit\n")
    }

    /// CR LF line ends stay CR LF: the header's and every row's.
    func testCSVLineEndsAreKept() throws {
        let r = try classify(try write("crlf.csv", "id,body\r\n1,win a prize\r\n2,hi\r\n"), ["--rules", try rules("prize")])
        XCTAssertEqual(r.text, "id,body,filter_action,filter_subAction,filter_folder,filter_rule\r\n1,win a prize,junk,,Junk,hit\r\n2,hi,none,,Unknown Senders,\r\n")
    }

    // MARK: TSV

    /// TSV: ragged rows rejected, a byte-order mark skipped.
    func testTSVRaggedRowsAndByteOrderMark() throws {
        let input = try writeBytes("t.tsv", [0xEF, 0xBB, 0xBF] + Array("id\tbody\n1\twin a prize\n2\tx\ty\n3\tok\n".utf8))
        let r = try classify(input, ["--rules", try rules("prize")])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.counts["labelled"] as? Int, 2)
        XCTAssertEqual(r.rejects.first?["line"] as? Int, 3)
        XCTAssertEqual(r.rejects.first?["reason"] as? String, "the row has 3 fields; the header has 2")
    }

    // MARK: XML

    /// An unclosed comment is damage: exit 65, the error names its byte offset, the counts file says so;
    /// records before it are labelled and its bytes still reach the output.
    func testXMLUnclosedCommentIsDamageWithItsOffset() throws {
        let head = "<?xml version='1.0'?>\n<smses>\n  <sms address=\"1\" body=\"win a prize\" />\n  "
        let text = head + "<!-- never closed\n  <sms address=\"2\" body=\"inside\" />\n</smses>\n"
        let r = try classify(try write("c.xml", text), ["--rules", try rules("prize")])
        XCTAssertEqual(r.status, 65, r.err)
        XCTAssertTrue(r.err.contains("unclosed comment (<!--) at byte offset \(head.utf8.count)"), r.err)
        XCTAssertEqual(r.counts["labelled"] as? Int, 1)
        XCTAssertTrue(r.text.hasSuffix("<!-- never closed\n  <sms address=\"2\" body=\"inside\" />\n</smses>\n"), r.text)
        let file = (r.counts["files"] as? [[String: Any]])?.first
        XCTAssertNotNil(file?["error"] as? String)
    }

    /// Text in CDATA and in attribute values is never taken for `<sms>`; `<mms>` elements pass through and
    /// are counted under their own key.
    func testXMLCDATAAndAttributeValuesAreNotRecordsAndMMSIsCounted() throws {
        let text = """
            <?xml version='1.0'?>
            <smses>
              <![CDATA[ <sms address="9" body="win a prize in cdata" /> ]]>
              <mms date="1" text='a > b <sms body="win a prize in an attribute"/>'><parts><part text="x" /></parts></mms>
              <mms date="2"><parts /></mms>
              <sms address="1" body="real" />
            </smses>

            """
        let r = try classify(try write("m.xml", text), ["--rules", try rules("prize")])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.counts["records"] as? Int, 1)
        XCTAssertEqual(r.counts["mms"] as? Int, 2)
        XCTAssertEqual(r.counts["rules"] as? [String: Int], ["hit": 0])
        let expected = text.replacingOccurrences(
            of: "<sms address=\"1\" body=\"real\" />",
            with: "<sms address=\"1\" body=\"real\" filter_action=\"none\" filter_subAction=\"\" filter_folder=\"Unknown Senders\" filter_rule=\"\" />")
        XCTAssertEqual(r.text, expected)
    }

    /// Android writes emoji as two references to UTF-16 surrogates: they decode to the one character (the
    /// old reader rejected every such message and left it out of the output).
    func testXMLSurrogatePairReferencesDecodeToTheCharacter() throws {
        let text = "<smses>\n<sms address=\"1\" body=\"party &#55357;&#56832; now\" />\n<sms address=\"2\" body=\"lone &#55357; x\" />\n</smses>\n"
        let r = try classify(try write("e.xml", text), ["--rules", try rules("😀"), "--explain"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.counts["labelled"] as? Int, 1)
        XCTAssertEqual(r.counts["rules"] as? [String: Int], ["hit": 1])
        XCTAssertEqual(r.rejects.count, 1, "a lone surrogate is refused")
        XCTAssertTrue((r.rejects.first?["reason"] as? String ?? "").contains("surrogate"))
    }

    /// Labelling a file labelled before replaces its `filter_*` attributes: still well-formed XML.
    func testXMLLabelsAlreadyThereAreReplaced() throws {
        let input = try write("in.xml", "<smses>\n<sms address=\"1\" body=\"win a prize\" />\n</smses>\n")
        XCTAssertEqual(try classify(input, [], output: "once.xml").status, 0)
        let r = try classify(path("once.xml"), ["--rules", try rules("prize")], output: "twice.xml")
        XCTAssertEqual(r.text, "<smses>\n<sms address=\"1\" body=\"win a prize\" filter_action=\"junk\" filter_subAction=\"\" filter_folder=\"Junk\" filter_rule=\"hit\" />\n</smses>\n")
        XCTAssertTrue(XMLParser(data: Data(r.output)).parse())
    }

    /// A tag other than `<sms>` longer than `--max-record` (an MMS part holding a video) passes through to the
    /// output, streamed: it is not a record and nothing is rejected.
    func testXMLOverlongNonRecordTagPassesThrough() throws {
        let video = String(repeating: "QUJD", count: 4_000)
        let text = "<smses>\n<mms date=\"1\"><parts><part data=\"\(video)\" /></parts></mms>\n<sms address=\"1\" body=\"after\" />\n</smses>\n"
        let r = try classify(try write("v.xml", text), ["--max-record", "4K", "--chunk-size", "4K"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.counts["records"] as? Int, 1)
        XCTAssertEqual(r.counts["rejected"] as? Int, 0)
        XCTAssertTrue(r.text.contains("<part data=\"\(video)\" />"))
    }

    // MARK: JSON Lines

    /// Line numbers stay exact after an over-long record, in the rejects and in `--labels-only`; the
    /// over-long record's bytes reach the rejects whole (base64), as it streams.
    func testJSONLinesLineNumbersAndBytesAfterAnOverlongRecord() throws {
        let long = "{\"id\": \"2\", \"body\": \"\(String(repeating: "x", count: 3000))\"}"
        let text = "{\"id\": \"1\", \"body\": \"a\"}\n\(long)\n{\"body\": \"no id\"}\nnot json\n{\"body\": \"no id either\"}\n"
        let r = try classify(try write("l.jsonl", text), ["--max-record", "1K", "--labels-only", "--chunk-size", "4K"], output: "labels.jsonl")
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.rejects.map { $0["line"] as? Int }, [2, 4])
        // Whole in a chunk or streamed in pieces (then always as base64): the bytes with their newline.
        for chunk in ["4K", "64K"] {
            let r = try classify(try write("l.jsonl", text), ["--max-record", "1K", "--labels-only", "--chunk-size", chunk], output: "labels.jsonl")
            let reject = r.rejects.first ?? [:]
            let bytes = (reject["record"] as? String).map { Array($0.utf8) }
                ?? (reject["recordBase64"] as? String).flatMap { Data(base64Encoded: $0) }.map(Array.init)
            XCTAssertEqual(bytes, Array((long + "\n").utf8), chunk)
        }
        XCTAssertEqual(r.rejects.first?["length"] as? Int, long.utf8.count + 1)
        let labels = try r.output.split(separator: 0x0A).map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
        XCTAssertEqual(labels.map { $0["line"] as? Int }, [nil, 3, 5])
    }

    /// A trailing comma (`{"body": "x",}`, which Foundation accepts) is rejected, so that every output line
    /// parses with any JSON reader (the old writer produced `…"x",, "filter": …`).
    func testJSONLinesTrailingCommaIsRejected() throws {
        let text = "{\"id\": \"t\", \"body\": \"x\",}\n{\"id\": \"u\", \"body\": \"y\", \"a\": [1, 2,]}\n{\"id\": \"v\", \"body\": \"z\"}\n"
        let r = try classify(try write("t.jsonl", text))
        XCTAssertEqual(r.counts["rejected"] as? Int, 2)
        XCTAssertTrue((r.rejects.first?["reason"] as? String ?? "").contains("trailing comma"), "\(r.rejects)")
        XCTAssertEqual(r.text, "{\"id\": \"v\", \"body\": \"z\", \"filter\": {\"action\": \"none\", \"subAction\": null, \"folder\": \"Unknown Senders\", \"rule\": null}}\n")
    }

    /// A record that already has the labels key gets it replaced, not a second one; CR LF is kept.
    func testJSONLinesLabelsAlreadyThereAreReplacedAndLineEndsKept() throws {
        let text = "{\"filter\": {\"action\": \"junk\"}, \"id\": 1, \"body\": \"hello\"}\r\n"
            + "{\"id\": 2, \"body\": \"win a prize\", \"filter\": {\"action\": \"junk\"}}\n{\"filter\": null, \"body\": \"x\"}\n"
        let r = try classify(try write("f.jsonl", text), ["--rules", try rules("prize")])
        XCTAssertEqual(r.status, 0, r.err)
        let none = "\"filter\": {\"action\": \"none\", \"subAction\": null, \"folder\": \"Unknown Senders\", \"rule\": null}"
        let hit = "\"filter\": {\"action\": \"junk\", \"subAction\": null, \"folder\": \"Junk\", \"rule\": \"hit\"}"
        XCTAssertEqual(r.text, "{\"id\": 1, \"body\": \"hello\", \(none)}\r\n{\"id\": 2, \"body\": \"win a prize\", \(hit)}\n{\"body\": \"x\", \(none)}\n")
        for line in r.output.split(separator: 0x0A) {
            XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        }
    }

    // MARK: Every format

    /// A UTF-8 byte-order mark is skipped in JSON Lines and XML as in CSV: named or from standard input (where
    /// the format is guessed from the first bytes after it), and kept in the output.
    func testJSONLinesAndXMLByteOrderMarkIsSkippedAndKept() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let jsonl = Array("{\"id\": \"1\", \"body\": \"win a prize\"}\n".utf8)
        let xml = Array("<?xml version='1.0'?>\n<smses>\n<sms address=\"1\" body=\"win a prize\" />\n</smses>\n".utf8)
        let rules = try rules("prize")
        let labelledJSONL = Array("{\"id\": \"1\", \"body\": \"win a prize\", \"filter\": {\"action\": \"junk\", \"subAction\": null, \"folder\": \"Junk\", \"rule\": \"hit\"}}\n".utf8)
        let labelledXML = Array("<?xml version='1.0'?>\n<smses>\n<sms address=\"1\" body=\"win a prize\" filter_action=\"junk\" filter_subAction=\"\" filter_folder=\"Junk\" filter_rule=\"hit\" />\n</smses>\n".utf8)
        for (name, bytes, expected) in [("b.jsonl", jsonl, labelledJSONL), ("b.xml", xml, labelledXML)] {
            let r = try classify(try writeBytes(name, bom + bytes), ["--rules", rules])
            XCTAssertEqual(r.status, 0, "\(name): \(r.err)")
            XCTAssertEqual(r.counts["labelled"] as? Int, 1, name)
            XCTAssertEqual(r.output, bom + expected, name)
            let piped = try run(["classify", "--rules", rules, "-q"], stdin: Data(bom + bytes))
            XCTAssertEqual(piped.status, 0, "\(name) on standard input: \(piped.err)")
            XCTAssertEqual(Array(piped.out.utf8), bom + expected, "\(name) on standard input")
        }
    }

    /// CR LF line ends stay CR LF in XML too, inside a tag and between elements.
    func testXMLLineEndsAreKept() throws {
        let text = "<smses>\r\n<sms address=\"1\" body=\"a\"\r\n  date=\"2\" />\r\n</smses>\r\n"
        let r = try classify(try write("crlf.xml", text))
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.text, "<smses>\r\n<sms address=\"1\" body=\"a\"\r\n  date=\"2\" filter_action=\"none\" filter_subAction=\"\" filter_folder=\"Unknown Senders\" filter_rule=\"\" />\r\n</smses>\r\n")
    }

    /// XML: a processing instruction (`<?…?>`) and a DOCTYPE pass through and are never records, whatever
    /// they hold.
    func testXMLProcessingInstructionsAreNotRecords() throws {
        let text = """
            <?xml version='1.0'?>
            <?note <sms address="9" body="win a prize in a PI" /> ?>
            <!DOCTYPE smses>
            <smses>
              <sms address="1" body="real" />
            </smses>

            """
        let r = try classify(try write("pi.xml", text), ["--rules", try rules("prize")])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.counts["records"] as? Int, 1)
        XCTAssertEqual(r.counts["rules"] as? [String: Int], ["hit": 0])
        XCTAssertTrue(r.text.hasPrefix("<?xml version='1.0'?>\n<?note <sms address=\"9\" body=\"win a prize in a PI\" /> ?>\n"), r.text)
    }

    /// XML: the input ending inside a CDATA section or a tag is damage (exit 65) with the construct's byte
    /// offset; the records before it are labelled, an unfinished `<sms` tag is rejected with its bytes, and
    /// every byte reaches the output or the rejects.
    func testXMLUnclosedCDATAAndTagAreDamageWithTheirOffsets() throws {
        let head = "<smses>\n<sms address=\"1\" body=\"real\" />\n"
        let cdata = try classify(try write("cdata.xml", head + "<![CDATA[ <sms address=\"9\" body=\"x\" />\n</smses>\n"))
        XCTAssertEqual(cdata.status, 65, cdata.err)
        XCTAssertTrue(cdata.err.contains("unclosed CDATA section (<![CDATA[) at byte offset \(head.utf8.count)"), cdata.err)
        XCTAssertEqual(cdata.counts["records"] as? Int, 1)
        XCTAssertTrue(cdata.text.hasSuffix("<![CDATA[ <sms address=\"9\" body=\"x\" />\n</smses>\n"), cdata.text)
        let tail = "<sms address=\"2\" body=\"never closed\n"
        let tag = try classify(try write("tag.xml", head + tail))
        XCTAssertEqual(tag.status, 65, tag.err)
        XCTAssertTrue(tag.err.contains("unclosed tag (<) at byte offset \(head.utf8.count)"), tag.err)
        XCTAssertEqual(tag.counts["records"] as? Int, 2)
        XCTAssertEqual(tag.counts["labelled"] as? Int, 1)
        XCTAssertEqual(tag.rejects.first?["line"] as? Int, 3)
        XCTAssertEqual(tag.rejects.first?["record"] as? String, tail)
    }

    /// Every hostile case above in one run per format gives the same output, rejects and counts whatever the
    /// thread count and chunk size (over-long records whole in a chunk or streamed in pieces alike).
    func testHostileInputsGiveTheSameBytesWhateverThreadsAndChunks() throws {
        let long = String(repeating: "y", count: 6_000)
        var csv = "id,sender,body\n1,a,5\" screen coupon\n2,b,\(long)\n3,c,short\n4,d,\"never closed\n"
        var jsonl = "{\"id\": \"1\", \"body\": \"x\",}\n{\"id\": \"2\", \"body\": \"\(long)\"}\r\n"
        var xml = "<smses>\n<!-- <sms body=\"no\" /> -->\n<mms text='a > b'><part data=\"\(long)\" /></mms>\n"
            + "<sms address=\"1\" body=\"\(long)\" />\n<sms address=\"2\" body=\"&#55357;&#56832;\" filter_action=\"junk\" />\n"
        for k in 0..<400 {
            csv += "\(k + 10),s,row \(k) win a prize\n"
            jsonl += "{\"id\": \(k), \"body\": \"row \(k) win a prize\", \"filter\": null}\n"
            xml += "<sms address=\"\(k)\" body=\"row \(k) win a prize\" />\n"
        }
        xml += "</smses>\n"
        let rules = try rules("prize")
        for (name, text) in [("h.csv", csv), ("h.jsonl", jsonl), ("h.xml", xml)] {
            let input = try write(name, text)
            var reference: (output: [UInt8], rejects: String, counts: [String: Any])?
            for (threads, chunk) in [("1", "1M"), ("2", "4K"), ("8", "4K")] {
                let r = try classify(input, ["--rules", rules, "--max-record", "4K", "--threads", threads, "--chunk-size", chunk], output: "o-" + name)
                XCTAssertEqual(r.status, 0, "\(name) \(threads) \(chunk): \(r.err)")
                XCTAssertFalse(r.rejects.isEmpty, name)
                let rejects = try String(contentsOfFile: path("rejects.jsonl"), encoding: .utf8)
                var counts = r.counts
                for key in ["seconds", "recordsPerSecond", "bytesPerSecond", "threads", "chunkSize", "started", "finished"] { counts[key] = nil }
                guard let ref = reference else {
                    reference = (r.output, rejects, counts)
                    continue
                }
                XCTAssertTrue(r.output == ref.output, "\(name): output differs with \(threads) threads, \(chunk) chunks")
                XCTAssertEqual(rejects, ref.rejects, "\(name): rejects differ with \(threads) threads, \(chunk) chunks")
                XCTAssertEqual(counts as NSDictionary, ref.counts as NSDictionary, "\(name): counts differ with \(threads) threads, \(chunk) chunks")
            }
        }
    }
}
