import Foundation
import TestSupport
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Issue 35 item 4: `--output-format csv|tsv|xml` kept only id, sender, body and timestamp, so `label`,
/// `lang` and every other field were lost and a converted file could not be evaluated. A converted record
/// now carries every field, and the conversions read back to the same records. Oracles: Foundation's JSON
/// parser and XMLParser, never smsfilter's own readers, compare the records.
final class ConversionTests: CLITestCase {
    /// A generated corpus (id, sender, body, ts, label, lang on every record).
    func corpus(_ count: Int = 1500) throws -> String {
        let path = self.path("gen.jsonl")
        XCTAssertEqual(try run(["generate", "--count", "\(count)", "--seed", "35", "-o", path, "-q"]).status, 0)
        return path
    }

    /// JSON Lines parsed by Foundation, each record's values as text (a number as its decimal text, as CSV,
    /// TSV and XML hold it), the labels left out.
    func records(_ path: String) throws -> [[String: String]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            var record: [String: String] = [:]
            for (key, value) in object where key != "filter" {
                record[key] = (value as? String) ?? "\(value)"
            }
            return record
        }
    }

    /// The attributes of every `<sms>` element, by XMLParser, the labels left out.
    final class Elements: NSObject, XMLParserDelegate {
        var found: [[String: String]] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            if name == "sms" { found.append(attributes.filter { !$0.key.hasPrefix("filter_") }) }
        }
    }

    func elements(_ path: String) throws -> [[String: String]] {
        let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: path)))
        let elements = Elements()
        parser.delegate = elements
        XCTAssertTrue(parser.parse(), "\(path) is well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")
        return elements.found
    }

    func convert(_ input: String, to format: String, _ output: String, _ extra: [String] = []) throws {
        let r = try run(["classify", input, "--output-format", format, "-o", output, "-q"] + extra)
        XCTAssertEqual(r.status, 0, "\(input) → \(format): \(r.err)")
    }

    /// JSON Lines → CSV, TSV and XML → JSON Lines: every record with every field and its value (Android XML's
    /// address and date read back as sender and ts); the labels of every record the same at each step.
    func testJSONLThroughEveryFormatReadsBackToTheSameRecords() throws {
        let source = try corpus()
        let original = try records(source)
        XCTAssertEqual(Set(original[0].keys), ["id", "sender", "body", "ts", "label", "lang"])
        let labels = try run(["classify", source, "--labels-only", "-q"]).out
        for format in ["csv", "tsv", "xml"] {
            let converted = path("gen.\(format)"), back = path("back-\(format).jsonl")
            try convert(source, to: format, converted, ["--rejects", path("rejects-\(format).jsonl")])
            XCTAssertEqual(try String(contentsOfFile: path("rejects-\(format).jsonl"), encoding: .utf8), "", "\(format): nothing refused")
            try convert(converted, to: "jsonl", back)
            XCTAssertEqual(try records(back), original, "\(format) reads back to the same records")
            let again = try run(["classify", converted, "--labels-only", "-q"]).out
            XCTAssertEqual(again.split(separator: "\n").count, original.count)
            XCTAssertEqual(try labelsByID(again), try labelsByID(labels), "\(format): the same labels")
        }
        // XML holds the records under Android's names, which an SMS backup reader expects.
        let xml = try elements(path("gen.xml"))
        XCTAssertEqual(Set(xml[0].keys), ["id", "address", "body", "date", "label", "lang"])
        XCTAssertEqual(xml.map { $0["address"] }, original.map { $0["sender"] })
        XCTAssertEqual(xml.map { $0["date"] }, original.map { $0["ts"] })
    }

    func labelsByID(_ text: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let filter = try XCTUnwrap(object["filter"] as? [String: Any])
            out["\(object["id"]!)"] = "\(filter["folder"]!) \(filter["rule"] ?? "")"
        }
        return out
    }

    /// A converted file can be evaluated: `evaluate --map identity` gives the same figures on the JSON Lines
    /// and on its CSV, TSV and XML conversions (before issue 35 they had no `label` to score).
    func testAConvertedFileCanBeEvaluated() throws {
        let source = try corpus(1000)
        func figures(_ file: String) throws -> [String: Any] {
            let r = try run(["evaluate", file, "--map", "identity", "--json", "-q"])
            XCTAssertEqual(r.status, 0, "\(file): \(r.err)")
            return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        }
        let want = try figures(source)
        XCTAssertEqual(want["scored"] as? Int, 1000)
        for format in ["csv", "tsv", "xml"] {
            let converted = path("gen.\(format)")
            try convert(source, to: format, converted)
            let got = try figures(converted)
            for key in ["records", "scored", "accuracy", "macroF1", "correct"] {
                XCTAssertEqual("\(got[key] ?? "nil")", "\(want[key] ?? "nil")", "\(format): \(key)")
            }
            XCTAssertEqual(
                try JSONSerialization.data(withJSONObject: got["confusion"] ?? [:], options: .sortedKeys),
                try JSONSerialization.data(withJSONObject: want["confusion"] ?? [:], options: .sortedKeys), "\(format): the confusion matrix")
        }
    }

    /// An Android SMS backup → CSV → XML keeps every attribute of every `<sms>` (protocol, type, read,
    /// contact_name, readable_date…) with its value, entities and emoji references included.
    func testXMLThroughCSVKeepsEveryAttribute() throws {
        let xml = try write("backup.xml", """
            <?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
            <smses count="3">
              <sms protocol="0" address="+15550100" date="1700000000000" type="1" subject="null" body="Rs 500 debited &amp; credited &lt;ok&gt;" toa="null" sc_toa="null" service_center="null" read="1" status="-1" locked="0" date_sent="0" sub_id="1" readable_date="Nov 14, 2023 22:13:20" contact_name="Bank" />
              <sms protocol="0" address="VM-OFFERS" date="1700000001000" type="1" body="Flat 50% off, &#55357;&#56832; use coupon SAVE50&#10;today" read="0" status="-1" locked="0" contact_name="(Unknown)" />
              <mms date="1700000002000" />
              <sms address="+15550101" date="1700000003000" body='single "quoted"' type="2" />
            </smses>

            """)
        // The oracle reads the emoji as one character: Android's pair of surrogate references is not XML 1.0.
        let plain = try write("plain.xml", try String(contentsOfFile: xml, encoding: .utf8).replacingOccurrences(of: "&#55357;&#56832;", with: "😀"))
        let original = try elements(plain)
        try convert(xml, to: "csv", path("b.csv"))
        let csv = try String(contentsOfFile: path("b.csv"), encoding: .utf8)
        XCTAssertTrue(csv.hasPrefix("protocol,sender,ts,type,subject,body,toa,sc_toa,service_center,read,status,locked,date_sent,sub_id,readable_date,contact_name,filter_action"), csv)
        try convert(path("b.csv"), to: "xml", path("back.xml"))
        let back = try elements(path("back.xml"))
        XCTAssertEqual(back.count, 3)
        // CSV has a cell for every column: an attribute a record lacked comes back empty.
        for (was, now) in zip(original, back) {
            XCTAssertEqual(now.filter { !$0.value.isEmpty }, was.filter { !$0.value.isEmpty })
        }
        XCTAssertEqual(back[1]["body"], "Flat 50% off, 😀 use coupon SAVE50\ntoday")
    }

    /// CSV with extra columns, quoted separators and line breaks → JSON Lines → CSV: the same bytes as the CSV
    /// labelled in its own format.
    func testCSVThroughJSONLIsTheSameCSV() throws {
        let csv = try write("in.csv", """
            id,sender,body,label,region,score
            1,AD-HDFCBK,"Rs 500 debited, a/c XX12",ham,"North, East",0.5
            2,+15550100,"WIN a ""free"" cruise
            now",spam,,1
            3,,see you at six,ham,West,

            """)
        let own = try run(["classify", csv, "-o", "-", "-q"])
        XCTAssertEqual(own.status, 0, own.err)
        try convert(csv, to: "jsonl", path("mid.jsonl"))
        let mid = try records(path("mid.jsonl"))
        XCTAssertEqual(mid[0], ["id": "1", "sender": "AD-HDFCBK", "body": "Rs 500 debited, a/c XX12", "label": "ham", "region": "North, East", "score": "0.5"])
        try convert(path("mid.jsonl"), to: "csv", path("back.csv"))
        XCTAssertEqual(try String(contentsOfFile: path("back.csv"), encoding: .utf8), own.out)
    }

    /// Records of JSON Lines whose fields differ: CSV's columns are the fields of the first input's first
    /// records in the order they first appear; a record without one gets an empty cell; a record with a field
    /// that is not a column is refused with the field named (rejects, never dropped); JSON values that are not
    /// strings are written as their JSON text, null as an empty cell (XML: no attribute).
    func testFieldsOfJSONRecordsBecomeColumns() throws {
        let input = try write("mixed.jsonl", """
            {"id": "a", "body": "hello there", "n": 5, "ok": true, "meta": {"k": [1, 2]}, "gone": null}
            {"id": "b", "body": "no extras"}

            """)
        let late = try write("late.jsonl", "{\"id\": \"c\", \"body\": \"a new field\", \"surprise\": \"x\"}\n")
        let r = try run(["classify", input, late, "--output-format", "csv", "-o", path("m.csv"), "--rejects", path("r.jsonl"), "-q"])
        XCTAssertEqual(r.status, 0, r.err)
        let lines = try String(contentsOfFile: path("m.csv"), encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines[0], "id,body,n,ok,meta,gone,filter_action,filter_subAction,filter_folder,filter_rule")
        XCTAssertTrue(lines[1].hasPrefix("a,hello there,5,true,\"{\"\"k\"\": [1, 2]}\",,"), String(lines[1]))
        XCTAssertTrue(lines[2].hasPrefix("b,no extras,,,,,"), String(lines[2]))
        XCTAssertEqual(lines.count, 3)
        let reject = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("r.jsonl")))) as? [String: Any])
        XCTAssertEqual(reject["file"] as? String, late)
        XCTAssertTrue((reject["reason"] as? String ?? "").hasPrefix("not writable as csv: the field \"surprise\" is not a column"), "\(reject)")
        let xml = try run(["classify", input, "--output-format", "xml", "-o", "-", "-q"])
        XCTAssertTrue(xml.out.contains(#"<sms id="a" body="hello there" n="5" ok="true" meta="{&quot;k&quot;: [1, 2]}" filter_action"#), xml.out)
    }

    /// What a format cannot hold in a name is refused like a value it cannot hold: a key that is no XML name,
    /// a CSV column named like the labels classify adds.
    func testNamesAFormatCannotHoldAreRefused() throws {
        let input = try write("names.jsonl", "{\"body\": \"one\", \"my key\": 1}\n{\"body\": \"two\", \"ok\": 2}\n")
        let r = try run(["classify", input, "--output-format", "xml", "-o", path("n.xml"), "--rejects", path("r.jsonl"), "-q"])
        XCTAssertEqual(r.status, 0, r.err)
        let reasons = try String(contentsOfFile: path("r.jsonl"), encoding: .utf8)
        XCTAssertTrue(reasons.contains(#"not writable as xml: the field \"my key\" cannot be an XML attribute (not an XML name)"#), reasons)
        XCTAssertEqual(try elements(path("n.xml")).map { $0["body"] }, ["two"])
        let clash = try write("clash.csv", "body,filter\nhello,x\n")
        let j = try run(["classify", clash, "--output-format", "jsonl", "-o", path("c.jsonl"), "--rejects", path("rc.jsonl"), "-q"])
        XCTAssertEqual(j.status, 0, j.err)
        XCTAssertTrue(try String(contentsOfFile: path("rc.jsonl"), encoding: .utf8).contains(#"the field \"filter\" has the name of a label classify adds"#))
    }
}
