import Foundation
import TestSupport
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// What each record format can hold, the same on every path (issue 21 item 6): `--output-format xml` wrote
/// `&#0;` and `&#11;` (not XML 1.0), csv a raw NUL (then refused as binary when read back), tsv turned tabs and
/// line breaks into spaces without a word. Now a record whose fields a format cannot hold is rejected with the
/// reason, when it is converted into that format and when it is read in it, and every format's output reads
/// back, through smsfilter and through an independent reader (Foundation's JSON and XML parsers, Python's
/// `csv` module), to the same bodies.
///
///   JSON Lines   any text
///   CSV          no NUL
///   TSV          no NUL, tab, line feed or carriage return
///   XML 1.0      no C0 control but tab, line feed and carriage return; no U+FFFE, U+FFFF
final class FormatLimitsTests: CLITestCase {
    /// Bodies that probe every escape: separators, quotes, markup, each control class, Unicode edges.
    static let bodies: [String] = [
        "plain words, debited Rs 500", "comma, \"quote\" and 'apostrophe'", "&amp; <tag> &lt; & ; ]]> -->",
        "tab\there", "line\nbreak", "cr\rhere", "crlf\r\nend", "ends with cr\r", "nul\u{0}inside", "vt\u{0B}ff\u{0C}",
        "esc\u{1B}[31mred", "del\u{7F}", "c1\u{85}\u{9B}x", "bidi \u{202E}olleh", "ls\u{2028}ps\u{2029}",
        "bom\u{FEFF}inside", "emoji 🎉 ส่วนลด 優惠 नमस्ते", "  leading and trailing  ", "", "\"starts with a quote",
        "=1+1 formula", "\\ backslash \\n not a newline", "noncharacter \u{FFFE}", "noncharacter \u{FFFF}",
        "win a free prize now",
    ]

    /// Whether `format` can hold `text` (the table above, written independently of the code).
    static func holds(_ format: String, _ text: String) -> Bool {
        let scalars = text.unicodeScalars.map(\.value)
        switch format {
        case "csv": return !scalars.contains(0)
        case "tsv": return !scalars.contains { [0, 9, 10, 13].contains($0) }
        case "xml": return !scalars.contains { ($0 < 0x20 && ![9, 10, 13].contains($0)) || $0 == 0xFFFE || $0 == 0xFFFF }
        default: return true
        }
    }

    func jsonLines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// Bodies by id, from smsfilter's own reading of `path` converted back to JSON Lines.
    func readBack(_ path: String, _ name: String) throws -> (bodies: [String: String], rejects: Int) {
        let back = self.path("\(name)-back.jsonl")
        let rejects = self.path("\(name)-back-rejects.jsonl")
        let r = try run(["classify", path, "--output-format", "jsonl", "-o", back, "--rejects", rejects, "-q"])
        XCTAssertEqual(r.status, 0, "\(name) read back: \(r.err)")
        var bodies: [String: String] = [:]
        for o in try jsonLines(back) { bodies["\(o["id"]!)"] = o["body"] as? String }
        let rejected = (try? String(contentsOfFile: rejects, encoding: .utf8))?.split(separator: "\n").count ?? 0
        return (bodies, rejected)
    }

    /// Bodies by id, as an independent reader sees `path`.
    func oracle(_ path: String, _ format: String) throws -> [String: String] {
        switch format {
        case "xml":
            #if canImport(FoundationXML) || canImport(Darwin)
            let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: path)))
            let collector = BodyCollector()
            parser.delegate = collector
            XCTAssertTrue(parser.parse(), "well-formed XML 1.0: \(parser.parserError.map { "\($0)" } ?? "")")
            return collector.bodies
            #else
            throw XCTSkip("no XMLParser here")
            #endif
        case "csv", "tsv":
            let script = """
                import csv, json, sys
                rows = []
                with open(sys.argv[1], newline='', encoding='utf-8') as f:
                    if sys.argv[2] == 'csv':
                        reader = csv.reader(f)
                        header = next(reader)
                        rows = [dict(zip(header, r)) for r in reader]
                    else:
                        lines = f.read().split('\\n')
                        header = lines[0].split('\\t')
                        rows = [dict(zip(header, l.split('\\t'))) for l in lines[1:] if l != '']
                print(json.dumps({r['id']: r['body'] for r in rows}))
                """
            let r = try Fixtures.run("python3", ["-c", script, path, format])
            XCTAssertEqual(r.status, 0, String(decoding: r.stderr, as: UTF8.self))
            return try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdout) as? [String: String])
        default:
            var bodies: [String: String] = [:]
            for o in try jsonLines(path) { bodies["\(o["id"]!)"] = o["body"] as? String }
            return bodies
        }
    }

    func testEveryFormatReadsBackToTheSameBodiesAndRefusesWhatItCannotHold() throws {
        var lines = ""
        for (i, body) in Self.bodies.enumerated() {
            let object: [String: Any] = ["id": "r\(i)", "sender": "+1415555\(1000 + i)", "body": body]
            lines += String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self) + "\n"
        }
        let input = try write("in.jsonl", lines)
        let expected = Dictionary(uniqueKeysWithValues: Self.bodies.enumerated().map { ("r\($0)", $1) })
        for format in ["jsonl", "csv", "tsv", "xml"] {
            let out = path("out.\(format)")
            let rejects = path("\(format)-rejects.jsonl")
            let r = try run(["classify", input, "--output-format", format, "-o", out, "--rejects", rejects, "--counts", path("\(format).json"), "-q"])
            XCTAssertEqual(r.status, 0, "\(format): \(r.err)")
            // Exactly the records the format cannot hold are rejected, each saying why; none is changed.
            let rejected = Set(try jsonLines(rejects).map { reject -> String in
                let reason = reject["reason"] as? String ?? ""
                XCTAssertTrue(reason.hasPrefix("not writable as \(format): ") && reason.contains("cannot hold"), reason)
                let record = try? JSONSerialization.jsonObject(with: Data((reject["record"] as? String ?? "").utf8)) as? [String: Any]
                return record?["id"] as? String ?? "?"
            })
            let refused = Set(expected.filter { !Self.holds(format, $0.value) }.keys)
            XCTAssertEqual(rejected, refused, format)
            let counts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("\(format).json")))) as? [String: Any])
            XCTAssertEqual(counts["rejected"] as? Int, refused.count, format)
            XCTAssertEqual(counts["records"] as? Int, Self.bodies.count, format)
            let kept = expected.filter { Self.holds(format, $0.value) }
            // An independent reader sees the same bodies…
            XCTAssertEqual(try oracle(out, format), kept, "\(format) through an independent reader")
            // …and so does smsfilter, converting back and reading it in its own format, with no reject.
            let back = try readBack(out, format)
            XCTAssertEqual(back.rejects, 0, format)
            XCTAssertEqual(back.bodies, kept, "\(format) read back by smsfilter")
            let same = try run(["classify", out, "-o", path("again.\(format)"), "--rejects", path("again-rejects.jsonl"), "-q", "-f"])
            XCTAssertEqual(same.status, 0, same.err)
            XCTAssertEqual(try oracle(path("again.\(format)"), format), kept, "\(format) written again in its own format")
        }
    }

    /// Records refused by the output format were read all the same: a run in which every record is refused
    /// that way is not a run in which nothing could be read (65, "say which with --input-format"), and the
    /// counts give the refusals one reason each format.
    func testRecordsTheOutputFormatCannotHoldAreCountedUnderOneReason() throws {
        let input = try write("tabs.jsonl", "{\"id\": 1, \"body\": \"a\\tb\"}\n{\"id\": 2, \"sender\": \"x\\ty\", \"body\": \"c\"}\n")
        let r = try run(["classify", input, "--output-format", "tsv", "-o", path("out.tsv"), "--counts", path("c.json"), "-q"])
        XCTAssertEqual(r.status, 0, r.err)
        let counts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("c.json")))) as? [String: Any])
        XCTAssertEqual(counts["rejectReasons"] as? [String: Int], ["not writable as tsv": 2])
        XCTAssertEqual(try String(contentsOfFile: path("out.tsv"), encoding: .utf8).split(separator: "\n").count, 1, "the header only")
    }

    /// The reader refuses what the format cannot hold the same way, so that a file passed through in its own
    /// format stays a file of that format: a NUL in a CSV or TSV row past the first 4 KiB (the first 4 KiB
    /// would be refused as binary), a control character raw or as a reference in XML. References that XML 1.0
    /// allows (`&#9;`, surrogate pairs as Android writes emoji) still read.
    func testTheReaderRefusesWhatAFormatCannotHold() throws {
        let padding = (0..<200).map { "\($0),hello number \($0) padding the first four kilobytes" }
        let csv = try write("n.csv", (["id,body"] + padding + ["999,a\u{0}b win", "1000,ok"]).joined(separator: "\n") + "\n")
        let tsv = try write("n.tsv", (["id\tbody"] + padding.map { $0.replacingOccurrences(of: ",", with: "\t") } + ["999\ta\u{0}b", "1000\tok"]).joined(separator: "\n") + "\n")
        let xml = try write("n.xml", """
            <?xml version='1.0' encoding='UTF-8'?>
            <smses>
            <sms id="1" body="emoji &#55357;&#56832; and a tab &#9; here" />
            <sms id="2" body="raw \u{01} control" />
            <sms id="3" body="vertical tab &#11;" />
            <sms id="4" body="fine" contact_name="raw \u{1B} in another attribute" />
            <sms id="5" body="noncharacter &#xFFFF;" />
            <sms id="6" body="ok" />
            <sms id="7" body="a raw < in a value" />
            </smses>

            """)
        for (file, refusedIDs, reason) in [(csv, ["999"], "a NUL byte, which CSV cannot hold"), (tsv, ["999"], "a NUL byte, which TSV cannot hold"),
                                          (xml, ["2", "3", "4", "5", "7"], "XML")] {
            let out = path("pass-\(URL(fileURLWithPath: file).lastPathComponent)")
            let rejects = path("pass-rejects.jsonl")
            let r = try run(["classify", file, "-o", out, "--rejects", rejects, "-q", "-f"])
            XCTAssertEqual(r.status, 0, r.err)
            let rejected = try jsonLines(rejects)
            XCTAssertEqual(rejected.count, refusedIDs.count, "\(file): \(rejected)")
            for reject in rejected { XCTAssertTrue((reject["reason"] as? String ?? "").contains(reason), "\(reject)") }
            let written = try Data(contentsOf: URL(fileURLWithPath: out))
            XCTAssertFalse(written.contains(0), "no NUL passes through")
            XCTAssertEqual(try run(["classify", out, "--no-output", "--rejects", path("again.jsonl"), "-q", "-f"]).status, 0)
            XCTAssertEqual(try String(contentsOfFile: path("again.jsonl"), encoding: .utf8), "", "the output reads back whole")
        }
        // Android writes emoji as two surrogate references, which strict XML 1.0 parsers refuse and Android's
        // reader (and ours) joins: they pass through as they came, every original byte kept.
        let passed = try String(contentsOfFile: path("pass-n.xml"), encoding: .utf8)
        XCTAssertTrue(passed.contains("&#55357;&#56832;"))
        let back = try run(["classify", path("pass-n.xml"), "--output-format", "jsonl", "-o", path("pass-back.jsonl"), "-q"])
        XCTAssertEqual(back.status, 0, back.err)
        XCTAssertTrue(try String(contentsOfFile: path("pass-back.jsonl"), encoding: .utf8).contains("emoji 😀 and a tab \\t here"))
        #if canImport(FoundationXML) || canImport(Darwin)
        let strict = passed.replacingOccurrences(of: "&#55357;&#56832;", with: "😀")
        let parser = XMLParser(data: Data(strict.utf8))
        let collector = BodyCollector()
        parser.delegate = collector
        XCTAssertTrue(parser.parse(), "what passed through is otherwise well-formed XML 1.0: \(parser.parserError.map { "\($0)" } ?? "")")
        XCTAssertEqual(collector.bodies, ["1": "emoji 😀 and a tab \t here", "6": "ok"])
        #endif
    }

    /// `export --format csv` wrote a raw NUL too: such a record is skipped and counted with the reason.
    func testExportRefusesWhatCSVCannotHold() throws {
        let input = try write("in.jsonl", "{\"id\": \"a\", \"body\": \"nul\\u0000here\"}\n{\"id\": \"b\", \"body\": \"fine, \\\"quoted\\\"\\ttab\"}\n"
            + "{\"id\": \"c\", \"sender\": \"a\\u0000b\", \"body\": \"nul in the sender\"}\n")
        let r = try Fixtures.run(bin, ["export", input, "-o", path("sets"), "--format", "csv", "--split", "1,0,0", "--json"])
        XCTAssertEqual(r.status, 0)
        let stats = try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        XCTAssertEqual((stats["skipped"] as? [String: Int])?["a NUL byte, which CSV cannot hold"], 2, "\(stats)")
        XCTAssertEqual(stats["records"] as? Int, 3)
        let train = try Data(contentsOf: URL(fileURLWithPath: path("sets/train.csv")))
        XCTAssertFalse(train.contains(0))
        XCTAssertTrue(String(decoding: train, as: UTF8.self).contains("\"fine, \"\"quoted\"\"\ttab\""))
    }
}

#if canImport(FoundationXML) || canImport(Darwin)
/// Collects `<sms id=… body=…>` attributes as an XML 1.0 parser reports them.
final class BodyCollector: NSObject, XMLParserDelegate {
    var bodies: [String: String] = [:]
    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        guard elementName == "sms", let id = attributes["id"] else { return }
        bodies[id] = attributes["body"] ?? ""
    }
}
#endif
