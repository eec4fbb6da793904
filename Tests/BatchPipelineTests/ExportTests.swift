import Foundation
import MessageFilter
import TestSupport
import XCTest

@testable import BatchPipeline

/// `TrainingSetExporter`: stable splits, formats, de-duplication, leaks and the per-label cap.
final class ExportTests: TemporaryFolderTestCase {
    static let rulesYAML = """
        version: 1
        rules:
          - {name: prize, action: junk, keywords: [prize]}
          - {name: sale, action: promotion, subAction: promotionalOffers, keywords: [sale]}
          - {name: bill, action: transaction, subAction: transactionalPublicServices, keywords: [water bill]}
        """

    static let ruleSet = try! RuleSet.parse(yaml: rulesYAML, file: "test.yaml")

    /// Writes JSON Lines records `{"id", "body", "label"?}` to `name`.
    func writeCorpus(_ name: String, _ records: [(id: String?, body: String, label: String?)]) throws -> String {
        var text = ""
        for r in records {
            var object: [String: Any] = ["body": r.body, "sender": NSNull()]
            if let id = r.id { object["id"] = id }
            if let label = r.label { object["label"] = label }
            text += String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self) + "\n"
        }
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    func export(_ inputs: [String], to out: String, _ configure: (inout ExportOptions) -> Void = { _ in }) throws -> ExportStats {
        var options = ExportOptions()
        options.outputFolder = path(out)
        configure(&options)
        let frozen = options
        return try Deadline.run("TrainingSetExporter.run over \(inputs.map { URL(fileURLWithPath: $0).lastPathComponent })") {
            try TrainingSetExporter(ruleSet: Self.ruleSet, options: frozen).run(inputs: inputs)
        }
    }

    func lines(_ out: String, _ split: TrainingSplit, ext: String = "jsonl") throws -> [String] {
        let text = try String(contentsOfFile: path("\(out)/\(split.name).\(ext)"), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    func ids(_ out: String, _ split: TrainingSplit) throws -> Set<String> {
        Set(try lines(out, split).map { line in
            (try! JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any])["id"] as! String
        })
    }

    static func bodies(_ n: Int, from start: Int = 0) -> [(id: String?, body: String, label: String?)] {
        let words = ["win a prize now", "big sale today", "your water bill is due", "see you at lunch", "call me later"]
        return (start..<(start + n)).map { ("rec-\($0)", "\(words[$0 % words.count]) #\($0)", nil) }
    }

    // MARK: Splits

    func testSplitsAreStableAcrossRunsAndWhenTheCorpusGrows() throws {
        let small = try writeCorpus("small.jsonl", Self.bodies(3000))
        let more = try writeCorpus("more.jsonl", Self.bodies(1500, from: 3000))
        let a = try export([small], to: "a")
        let again = try export([small], to: "a2")
        XCTAssertEqual(a.written, 3000)
        for split in TrainingSplit.allCases {
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: path("a/\(split.name).jsonl"))),
                try Data(contentsOf: URL(fileURLWithPath: path("a2/\(split.name).jsonl"))), "\(split) differs between runs")
        }
        XCTAssertEqual(again.splits, a.splits)
        // The grown corpus, with the new records both after and before the old ones.
        _ = try export([small, more], to: "b")
        _ = try export([more, small], to: "c")
        for split in TrainingSplit.allCases {
            let old = try ids("a", split)
            XCTAssertFalse(old.isEmpty)
            XCTAssertTrue(old.isSubset(of: try ids("b", split)), "a record changed split when the corpus grew (\(split))")
            XCTAssertEqual(try ids("b", split), try ids("c", split), "the split depends on the order")
        }
        // The shares are close to 80/10/10.
        let train = try ids("b", .train).count, validation = try ids("b", .validation).count, test = try ids("b", .test).count
        XCTAssertEqual(train + validation + test, 4500)
        XCTAssertEqual(Double(train) / 4500, 0.8, accuracy: 0.03)
        XCTAssertEqual(Double(validation) / 4500, 0.1, accuracy: 0.02)
        XCTAssertEqual(Double(test) / 4500, 0.1, accuracy: 0.02)
    }

    func testSplitDependsOnTheIdOnly() {
        let ratios = SplitRatios("80,10,10")!
        XCTAssertEqual(ratios, SplitRatios(train: 80, validation: 10, test: 10))
        XCTAssertEqual(SplitRatios("90,10"), SplitRatios(train: 90, validation: 10, test: 0))
        XCTAssertNil(SplitRatios("80,10,x"))
        XCTAssertNil(SplitRatios("0,0,0"))
        XCTAssertNil(SplitRatios("-1,50,51"))
        XCTAssertNil(SplitRatios("1,2,3,4"))
        XCTAssertEqual(StableHash.id("uci_sms_spam:1"), StableHash.id(Array("uci_sms_spam:1".utf8)))
        let onlyTrain = SplitRatios("1,0,0")!
        let onlyTest = SplitRatios("0,0,5")!
        for i in 0..<1000 {
            let h = StableHash.id("id-\(i)")
            XCTAssertEqual(onlyTrain.split(forHash: h), .train)
            XCTAssertEqual(onlyTest.split(forHash: h), .test)
        }
    }

    /// Fixed values: the hashes and the splits must never change between releases (records would move
    /// between train and test). The literals were computed independently, in Python, from the documented
    /// definitions: FNV-1a 64 of the UTF-8 bytes, then the SplitMix64 finaliser; `selection` is the
    /// finaliser of the id hash xor 0x5851F42D4C957F2D; the split is the top 53 bits scaled to the total.
    func testHashesAndSplitsArePinned() {
        let pinned: [(id: String, hash: UInt64, selection: UInt64, split801010: TrainingSplit, split9010: TrainingSplit)] = [
            ("", 0xF52A_15E9_A9B5_E89B, 0x7308_91C7_0EEB_8B49, .test, .validation),
            ("uci_sms_spam:1", 0x70F3_27DC_97F8_210E, 0xB743_47E2_6A45_65B2, .train, .train),
            ("gen:1", 0x97DB_DBC4_6408_3996, 0x4DF3_6069_7962_7510, .train, .train),
            ("gen:3", 0xF6A1_448F_9278_F539, 0xA214_1A39_DB53_8E69, .test, .validation),
            ("thai_sms:42", 0x02D3_524B_CE23_3BF0, 0x0FA6_F799_4983_C122, .train, .train),
            ("ไทย", 0xDD25_EC7E_B1AB_BB04, 0x97B2_A238_5B8B_9538, .validation, .train),
            ("a", 0x02C0_BDBF_4814_20F8, 0x5064_0485_7FFE_47BF, .train, .train),
        ]
        let r801010 = SplitRatios("80,10,10")!
        let r9010 = SplitRatios("90,10")!
        for p in pinned {
            let h = StableHash.id(p.id)
            XCTAssertEqual(h, p.hash, "id hash of \(p.id.debugDescription)")
            XCTAssertEqual(StableHash.selection(h), p.selection, "selection rank of \(p.id.debugDescription)")
            XCTAssertEqual(r801010.split(forHash: h), p.split801010, "80,10,10 split of \(p.id.debugDescription)")
            XCTAssertEqual(r9010.split(forHash: h), p.split9010, "90,10 split of \(p.id.debugDescription)")
        }
        // Every id of 5,000 against the independent re-implementation (OracleHash): some fall exactly on a
        // boundary between two parts.
        for k in 0..<5000 {
            let id = "gen:\(k)"
            let h = StableHash.id(id)
            XCTAssertEqual(h, OracleHash.id(id), id)
            XCTAssertEqual(r801010.split(forHash: h).name, OracleHash.split(h, (80, 10, 10)), id)
            XCTAssertEqual(SplitRatios("1,1,1")!.split(forHash: h).name, OracleHash.split(h, (1, 1, 1)), id)
        }
        // The de-duplication key: lowercased, whitespace runs collapsed (Unicode White_Space), trimmed.
        let bodies: [(String, UInt64)] = [
            ("  Hello   World\t", 0x05CB_5851_12BE_1151), ("ÉCOLE  ouverte", 0x4E5A_46A8_BB4D_871E),
            ("รับ เงิน\u{A0}ฟรี", 0xA9E3_47C7_74F3_9134),
        ]
        for (body, hash) in bodies {
            XCTAssertEqual(Array(body.utf8).withUnsafeBytes { StableHash.normalizedBody($0) }, hash, body.debugDescription)
        }
    }

    // MARK: Formats

    func testFastTextLinesParse() throws {
        let records: [(id: String?, body: String, label: String?)] = [
            ("1", "line one\nline two\tand a tab\r\nend", "Transactions/Public Services"),
            ("2", "__label__evil injected label", "Junk"),
            ("3", "two  __label__x labels\u{0B}here\u{0C}", "Promotions/Offers"),
            ("4", "", "Inbox"),
            ("5", "ok __label__", "Unknown Senders"),
        ]
        let input = try writeCorpus("ft.jsonl", records)
        let stats = try export([input], to: "ft") {
            $0.format = .fasttext
            $0.labelSource = .field("label")
            $0.ratios = SplitRatios("1,0,0")!
        }
        XCTAssertEqual(stats.written, 5)
        let out = try lines("ft", .train, ext: "txt")
        XCTAssertEqual(out.count, 5)
        var labels: [String] = []
        for line in out {
            XCTAssertFalse(line.contains("\t") || line.contains("\r") || line.contains("\u{0B}") || line.contains("\u{0C}"), line)
            let tokens = line.split(separator: " ")
            XCTAssertEqual(tokens.filter { $0.hasPrefix("__label__") }.count, 1, "not exactly one label: \(line)")
            XCTAssertTrue(tokens[0].hasPrefix("__label__"))
            labels.append(String(tokens[0].dropFirst("__label__".count)))
        }
        XCTAssertEqual(labels, ["Transactions/Public_Services", "Junk", "Promotions/Offers", "Inbox", "Unknown_Senders"])
        XCTAssertEqual(out[0], "__label__Transactions/Public_Services line one line two and a tab  end")
        XCTAssertEqual(out[1], "__label__Junk -__label__evil injected label")
        // Another prefix.
        _ = try export([input], to: "ft2") {
            $0.format = .fasttext
            $0.labelSource = .field("label")
            $0.labelPrefix = "LBL:"
            $0.ratios = SplitRatios("1,0,0")!
        }
        XCTAssertEqual(try lines("ft2", .train, ext: "txt")[0], "LBL:Transactions/Public_Services line one line two and a tab  end")
    }

    func testCSVQuotingAndJSONLKeepTheBody() throws {
        let body = "a, \"quoted\" body\nwith a newline"
        let input = try writeCorpus("csv.jsonl", [("x,1", body, "Junk")])
        _ = try export([input], to: "csv") {
            $0.format = .csv
            $0.labelSource = .field("label")
            $0.ratios = SplitRatios("1,0,0")!
        }
        let text = try String(contentsOfFile: path("csv/train.csv"), encoding: .utf8)
        XCTAssertEqual(text, "id,label,body,sender\n\"x,1\",Junk,\"a, \"\"quoted\"\" body\nwith a newline\",\n")
        _ = try export([input], to: "jsonl") {
            $0.labelSource = .field("label")
            $0.ratios = SplitRatios("1,0,0")!
        }
        let line = try lines("jsonl", .train)[0]
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        XCTAssertEqual(object["body"] as? String, body)
        XCTAssertEqual(object["id"] as? String, "x,1")
        XCTAssertEqual(object["label"] as? String, "Junk")
        // Validation and test have weight 0: no file for them (issue 35), and nothing else is left in the folder.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("jsonl")).sorted(), ["train.jsonl"])
    }

    // MARK: Labels

    func testLabelsFromFilterObjectsRulesAndFields() throws {
        let text = """
            {"id": "a", "body": "hello there", "filter": {"action": "junk", "subAction": null, "folder": "Junk", "rule": "x"}}
            {"id": "b", "body": "big sale on shoes"}
            {"id": "c", "body": "your water bill", "filter": {"action": "transaction", "subAction": "transactionalFinance", "folder": "Transactions/Finance", "rule": null}}
            not json
            {"id": "d"}

            """
        try text.write(toFile: path("mixed.jsonl"), atomically: true, encoding: .utf8)
        func labels(_ out: String) throws -> [String: String] {
            var map: [String: String] = [:]
            for split in TrainingSplit.allCases {
                for line in try lines(out, split) {
                    let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                    map[o["id"] as! String] = o["label"] as? String
                }
            }
            return map
        }
        let auto = try export([path("mixed.jsonl")], to: "auto")
        XCTAssertEqual(try labels("auto"), ["a": "Junk", "b": "Promotions/Offers", "c": "Transactions/Finance"])
        XCTAssertEqual(auto.labelSources, ["filter": 2, "rules": 1])
        XCTAssertEqual(auto.records, 5)
        XCTAssertEqual(auto.skipped, ["invalid JSON": 1, "no body": 1])
        XCTAssertEqual(auto.ruleSet, Self.ruleSet.checksum)
        _ = try export([path("mixed.jsonl")], to: "rules") {
            $0.labelSource = .rules
            $0.labelKind = .actionSubAction
        }
        XCTAssertEqual(
            try labels("rules"), ["a": "none", "b": "promotion/promotionalOffers", "c": "transaction/transactionalPublicServices"])
        _ = try export([path("mixed.jsonl")], to: "action") { $0.labelKind = .action }
        XCTAssertEqual(try labels("action"), ["a": "junk", "b": "promotion", "c": "transaction"])
        let field = try export([path("mixed.jsonl")], to: "field") { $0.labelSource = .field("rule") }
        XCTAssertEqual(field.skipped["no label"], 3)
    }

    // MARK: Duplicates, leaks, caps

    func testDeduplicationCountsOnAConstructedCorpus() throws {
        let records: [(id: String?, body: String, label: String?)] = [
            ("1", "Hello World", "a"),
            ("2", "hello   world", "a"),  // duplicate of 1 (case, spaces)
            ("3", "  HELLO\tworld\n", "b"),  // duplicate of 1 (tab, newline, edges)
            ("4", "other", "a"),
            ("5", "Other", "b"),  // duplicate of 4
            ("6", "unique one", "a"),
            ("7", "ÉCOLE  ouverte", "a"),
            ("8", "école ouverte", "b"),  // duplicate of 7 (Unicode case)
            ("9", "hello world!", "a"),  // not a duplicate
            (nil, "no id here", "a"),
        ]
        let input = try writeCorpus("dups.jsonl", records)
        let kept = try export([input], to: "dedup") {
            $0.deduplicate = true
            $0.labelSource = .field("label")
        }
        XCTAssertEqual(kept.records, 10)
        XCTAssertEqual(kept.duplicates, 4)
        XCTAssertEqual(kept.duplicatesDropped, 4)
        XCTAssertEqual(kept.distinctBodies, 6)
        XCTAssertEqual(kept.written, 6)
        XCTAssertEqual(kept.leakedBodies, 0)
        XCTAssertEqual(kept.withoutId, 1)
        let keptIds = try TrainingSplit.allCases.flatMap { try lines("dedup", $0) }.compactMap {
            (try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any])["id"] as? String
        }
        XCTAssertEqual(Set(keptIds), ["1", "4", "6", "7", "9"])

        // Without de-duplication: everything is written, and leaks are the bodies found in several splits.
        let all = try export([input], to: "all") { $0.labelSource = .field("label") }
        XCTAssertEqual(all.written, 10)
        XCTAssertEqual(all.duplicates, 4)
        XCTAssertEqual(all.duplicatesDropped, 0)
        let ratios = SplitRatios(train: 80, validation: 10, test: 10)!
        func split(_ id: String) -> TrainingSplit { ratios.split(forHash: StableHash.id(id)) }
        let groups = [["1", "2", "3"], ["4", "5"], ["7", "8"]]
        let expectedBodies = groups.filter { Set($0.map(split)).count > 1 }.count
        let expectedRecords = groups.map { Set($0.map(split)).count - 1 }.reduce(0, +)
        XCTAssertEqual(all.leakedBodies, expectedBodies)
        XCTAssertEqual(all.leakedRecords, expectedRecords)

        // A constructed leak: two ids known to land in different splits, with the same body.
        var second = 1
        while split("leak-\(second)") == split("leak-0") { second += 1 }
        let pair = ["leak-0", "leak-\(second)"]
        let leakInput = try writeCorpus("leak.jsonl", pair.map { ($0, "Same Body", "a") })
        let leak = try export([leakInput], to: "leak") { $0.labelSource = .field("label") }
        XCTAssertEqual(leak.leakedBodies, 1)
        XCTAssertEqual(leak.leakedRecords, 1)
        XCTAssertEqual(leak.duplicates, 1)

        // No tracking at all.
        let untracked = try export([input], to: "untracked") {
            $0.labelSource = .field("label")
            $0.trackDuplicates = false
        }
        XCTAssertEqual(untracked.duplicates, 0)
        XCTAssertEqual(untracked.distinctBodies, 0)
        XCTAssertEqual(untracked.written, 10)
    }

    func testMaxPerLabelKeepsTheSmallestSelectionRanks() throws {
        var records: [(id: String?, body: String, label: String?)] = []
        for i in 0..<300 { records.append(("r\(i)", "body \(i)", i % 3 == 0 ? "rare" : "common")) }
        let input = try writeCorpus("cap.jsonl", records)
        let stats = try export([input], to: "cap") {
            $0.labelSource = .field("label")
            $0.maxPerLabel = 40
        }
        XCTAssertEqual(stats.written, 80)
        XCTAssertEqual(stats.cappedOut, 220)
        var perLabel: [String: Int] = [:]
        for split in TrainingSplit.allCases {
            for (label, n) in stats.splits[split.name] ?? [:] { perLabel[label, default: 0] += n }
        }
        XCTAssertEqual(perLabel, ["rare": 40, "common": 40])
        // The choice does not favour a split: validation and test get their share.
        XCTAssertGreaterThan(stats.splits["train"]!.values.reduce(0, +), 50)
        XCTAssertGreaterThan(stats.splits["validation"]!.values.reduce(0, +) + stats.splits["test"]!.values.reduce(0, +), 5)
        // Exactly the 40 smallest hashes per label, written in input order.
        for label in ["rare", "common"] {
            let expected = records.filter { $0.label == label }.map { $0.id! }
                .sorted { StableHash.selection(StableHash.id($0)) < StableHash.selection(StableHash.id($1)) }.prefix(40)
            var got: [String] = []
            for split in TrainingSplit.allCases {
                for line in try lines("cap", split) {
                    let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                    if o["label"] as? String == label { got.append(o["id"] as! String) }
                }
            }
            XCTAssertEqual(Set(got), Set(expected))
        }
        let train = try lines("cap", .train).map { Int(($0.split(separator: "\"")[3]).dropFirst())! }
        XCTAssertEqual(train, train.sorted(), "capped records are not in input order")
        // Deterministic.
        let again = try export([input], to: "cap2") {
            $0.labelSource = .field("label")
            $0.maxPerLabel = 40
        }
        XCTAssertEqual(again.splits, stats.splits)
        XCTAssertEqual(try lines("cap", .train), try lines("cap2", .train))
    }

    func testCompressedOutputsAndStatsJSON() throws {
        let input = try writeCorpus("z.jsonl", Self.bodies(200))
        let stats = try export([input], to: "z") { $0.compressionLevel = 3 }
        XCTAssertTrue(stats.files.allSatisfy { $0.hasSuffix(".jsonl.zst") })
        var total = 0
        for file in stats.files {
            let decoder = try ZstdDecoderForTests.decode(file)
            total += decoder.split(separator: "\n").count
        }
        XCTAssertEqual(total, 200)
        let object = try JSONSerialization.jsonObject(with: stats.jsonData()) as! [String: Any]
        for key in ["records", "written", "duplicates", "leakedBodies", "leakedRecords", "splits", "labels", "ratios", "files"] {
            XCTAssertNotNil(object[key], key)
        }
        let labels = object["labels"] as! [String: [String: Int]]
        XCTAssertEqual(labels.values.map { $0.values.reduce(0, +) }.reduce(0, +), 200)
        XCTAssertTrue(stats.table().contains("total"))
    }

    func testMissingInputThrows66() {
        XCTAssertThrowsError(try export([path("nope.jsonl")], to: "x")) { error in
            XCTAssertEqual((error as? PipelineError)?.isInputMissing, true)
        }
    }
}

import ArchiveIO

/// Reads a whole (zstd or plain) file as text.
enum ZstdDecoderForTests {
    static func decode(_ path: String) throws -> String {
        try Deadline.run("ZstdDecoder.read of \(path) until the end") {
            let decoder = try ZstdDecoder(path: path)
            var out: [UInt8] = []
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
            defer { buffer.deallocate() }
            while true {
                let n = try decoder.read(into: buffer)
                if n == 0 { break }
                out += buffer[0..<n]
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
