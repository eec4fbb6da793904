import Foundation
import MessageFilter
import TestSupport
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

@testable import BatchPipeline

/// Thread-safe box for a value set by another thread.
final class _Taken: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int?
    func set(_ v: Int?) { lock.lock(); value = v; lock.unlock() }
    func get() -> Int? { lock.lock(); defer { lock.unlock() }; return value }
}

/// The classify pipeline in process. Equivalence tests run on the committed fixture
/// (`Tests/Fixtures/generated`); every run has a deadline (`Deadline.run`).
final class PipelineTests: TemporaryFolderTestCase {
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

    func run(_ inputs: [String], ruleSet: RuleSet = RuleSet.embeddedDefault, _ configure: (inout PipelineOptions) -> Void = { _ in }) throws -> Outcome {
        var options = PipelineOptions()
        let out = folder.appendingPathComponent("out-\(UUID().uuidString)").path
        let rej = folder.appendingPathComponent("rejects-\(UUID().uuidString).jsonl").path
        options.outputPath = out
        options.rejectsPath = rej
        configure(&options)
        let what = "Pipeline.run over \(inputs.map { URL(fileURLWithPath: $0).lastPathComponent }) "
            + "(\(options.threads) threads, \(options.chunkSize)-byte chunks)"
        let frozen = options
        let result = try Deadline.run(what) { try Pipeline(ruleSet: ruleSet, options: frozen).run(inputs: inputs) }
        let output = (try? Data(contentsOf: URL(fileURLWithPath: options.outputPath ?? out))).map(Array.init) ?? []
        let rejectLines = (try? String(contentsOfFile: rej, encoding: .utf8))?.split(separator: "\n") ?? []
        let rejects = try rejectLines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertTrue(result.counts.isBalanced)
        return Outcome(output: output, rejects: rejects, counts: result.counts, damaged: result.damaged)
    }

    func decompress(_ bytes: [UInt8]) throws -> [UInt8] {
        Array(try Fixtures.run("zstd", ["-dc"], stdin: Data(bytes)).stdout)
    }

    /// The verdict the MessageFilter API gives a fixture record (the oracle for the pipeline's labels).
    func expectedFilter(_ classifier: Classifier, _ sender: String?, _ body: String) -> [String: String?] {
        let v = classifier.classify(sender: sender, body: body)
        return [
            "action": "\(v.action)", "subAction": v.subAction == .none ? nil : "\(v.subAction)", "folder": v.folder.path,
            "rule": v.rule >= 0 ? classifier.ruleSet.ruleNames[Int(v.rule)] : nil,
        ]
    }

    /// A `filter` object of the output, as strings (nil for JSON null).
    func filterStrings(_ object: [String: Any]) -> [String: String?] {
        var out: [String: String?] = [:]
        for key in ["action", "subAction", "folder", "rule"] { out[key] = object[key] as? String }
        return out
    }

    // MARK: Labels equal the MessageFilter API, record by record

    /// Every record of the fixture (four zstd frames), labelled through the pipeline with tiny chunks and
    /// two threads, carries the verdict the Classifier API gives it; its original bytes are kept.
    func testFixtureLabelsEqualPerRecordClassification() throws {
        let records = try GeneratedFixture.records()
        let outcome = try run([GeneratedFixture.jsonl]) { $0.threads = 2; $0.chunkSize = 4096 }
        let inputLines = try GeneratedFixture.jsonlLines()
        let outputLines = outcome.output.split(separator: 0x0A)
        XCTAssertEqual(outputLines.count, GeneratedFixture.recordCount)
        XCTAssertEqual(outcome.counts.records, GeneratedFixture.recordCount)
        XCTAssertEqual(outcome.counts.labelled, GeneratedFixture.recordCount)
        XCTAssertEqual(outcome.counts.rejected, 0)
        XCTAssertFalse(outcome.damaged)
        XCTAssertEqual(outcome.counts.files.map(\.compressed), [true])
        let classifier = Classifier(ruleSet: RuleSet.embeddedDefault)
        var folders: [String: Int] = [:]
        var rules: [String: Int] = [:]
        for (k, (input, output)) in zip(inputLines, outputLines).enumerated() {
            let labelled = try JSONSerialization.jsonObject(with: Data(output)) as! [String: Any]
            let record = records[k]
            let want = expectedFilter(classifier, record.sender, record.body)
            XCTAssertEqual(filterStrings(labelled["filter"] as! [String: Any]), want, record.id)
            XCTAssertEqual(labelled["id"] as? String, record.id)
            folders[want["folder"]!!, default: 0] += 1
            if case let rule?? = want["rule"] { rules[rule, default: 0] += 1 }
            // Every original field is kept byte for byte: the output line starts with the input minus its `}`.
            XCTAssertTrue(output.starts(with: input.dropLast()), record.id)
        }
        for (path, count) in outcome.counts.folders { XCTAssertEqual(count, folders[path] ?? 0, path) }
        for (rule, count) in outcome.counts.rules { XCTAssertEqual(count, rules[rule] ?? 0, rule) }
        XCTAssertGreaterThanOrEqual(folders.count, 12, "the fixture reaches most folders: \(folders)")
    }

    /// The CSV, TSV (zstd) and Android XML fixtures hold the same generated records as slices of the JSON
    /// Lines fixture: labels-only output of each carries the Classifier API's verdict for its record.
    func testEveryFormatLabelsEqualPerRecordClassification() throws {
        let records = try GeneratedFixture.records()
        let classifier = Classifier(ruleSet: RuleSet.embeddedDefault)
        let n = GeneratedFixture.otherFormatCount
        // (file, the records it holds, whether it has ids, the line of its first record)
        let cases: [(String, ArraySlice<GeneratedFixture.Record>, Bool, Int, String)] = [
            (GeneratedFixture.csv, records[0..<n], true, 2, "csv"),
            (GeneratedFixture.tsv, records[n..<(2 * n)], true, 2, "tsv"),
            (GeneratedFixture.xml, records[(2 * n)..<(3 * n)], false, 3, "xml"),
        ]
        for (path, slice, hasIds, firstLine, format) in cases {
            for (threads, chunk) in [(1, 1 << 20), (3, 1024)] {
                let outcome = try run([path]) {
                    $0.labelsOnly = true
                    $0.explain = true
                    $0.threads = threads
                    $0.chunkSize = chunk
                    if format == "xml" { $0.input.fields = FieldNames(id: "id", sender: "address", body: "body") }
                }
                let context = "\(format) threads \(threads) chunk \(chunk)"
                XCTAssertEqual(outcome.counts.labelled, n, context)
                XCTAssertEqual(outcome.counts.rejected, 0, "\(context): \(outcome.rejects.prefix(2))")
                XCTAssertEqual(outcome.counts.files.first?.format, format, context)
                let lines = outcome.output.split(separator: 0x0A)
                XCTAssertEqual(lines.count, n, context)
                for (k, (line, record)) in zip(lines, slice).enumerated() {
                    let object = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
                    if hasIds {
                        XCTAssertEqual(object["id"] as? String, record.id, context)
                    } else {
                        XCTAssertEqual(object["line"] as? Int, firstLine + k, context)
                    }
                    let filter = object["filter"] as! [String: Any]
                    XCTAssertEqual(filterStrings(filter), expectedFilter(classifier, record.sender, record.body), "\(context) \(record.id)")
                    // The deciding phrase's span in the decoded body: any decoding slip before it moves it.
                    let v = classifier.classify(sender: record.sender, body: record.body)
                    XCTAssertEqual(filter["span"] as? [Int], v.phrase >= 0 ? [Int(v.matchStart), Int(v.matchEnd)] : nil, "\(context) \(record.id)")
                }
            }
        }
    }

    /// The golden `--labels-only` output of the fixture (Tests/Fixtures/generated), byte for byte, with
    /// the frozen rules, from one thread to eight and from tiny chunks to whole ones.
    func testLabelsOnlyOutputEqualsTheGoldenFile() throws {
        let rules = try RuleSet.load(path: GeneratedFixture.rules)
        let golden = try GeneratedFixture.decompressed(GeneratedFixture.goldenLabels)
        XCTAssertEqual(golden.split(separator: 0x0A).count, GeneratedFixture.recordCount)
        for (threads, chunk) in [(1, 1 << 20), (2, 4096), (8, 700)] {
            let outcome = try run([GeneratedFixture.jsonl], ruleSet: rules) {
                $0.labelsOnly = true
                $0.threads = threads
                $0.chunkSize = chunk
            }
            XCTAssertTrue(outcome.output == golden, "threads \(threads) chunk \(chunk): differs from \(GeneratedFixture.goldenLabels) "
                + "(rebuild it with Scripts/make-fixture.sh --golden only after a deliberate change)")
        }
    }

    // MARK: Determinism

    /// Whole-record output (zstd) of the fixture is the same bytes for 1, 2 and 8 threads and chunks from
    /// 512 bytes (many chunks finishing out of order) to 1 MiB.
    func testOutputIdenticalForThreadCountsAndChunkSizes() throws {
        var reference: [UInt8]?
        var referenceCounts: RunCounts?
        for threads in [1, 2, 8] {
            for chunk in [512, 4096, 1 << 20] {
                let outcome = try run([GeneratedFixture.jsonl]) {
                    $0.threads = threads
                    $0.chunkSize = chunk
                    $0.outputPath = self.folder.appendingPathComponent("o-\(threads)-\(chunk).jsonl.zst").path
                }
                let plain = try decompress(outcome.output)
                XCTAssertEqual(plain.split(separator: 0x0A).count, GeneratedFixture.recordCount)
                if let reference {
                    XCTAssertTrue(plain == reference, "threads \(threads), chunk \(chunk)")
                    XCTAssertEqual(outcome.counts.folders, referenceCounts!.folders)
                    XCTAssertEqual(outcome.counts.rules, referenceCounts!.rules)
                    XCTAssertEqual(outcome.counts.bytes, referenceCounts!.bytes)
                } else {
                    reference = plain
                    referenceCounts = outcome.counts
                }
            }
        }
        // The ids come out in input order.
        let ids = reference!.split(separator: 0x0A).map { (try! JSONSerialization.jsonObject(with: Data($0)) as! [String: Any])["id"] as! String }
        XCTAssertEqual(ids, (1...GeneratedFixture.recordCount).map { "gen:\($0)" })
    }

    /// The writer's hand-over releases chunks strictly in sequence: a later chunk that finishes first
    /// waits for the earlier one.
    func testOrderedCompletionReleasesChunksInSequence() throws {
        let completion = _OrderedCompletion()
        let chunks = (0..<4).map { k -> _Chunk in
            let chunk = _Chunk(capacity: 16, folders: 1, rules: 1)
            chunk.sequence = k
            return chunk
        }
        completion.complete(chunks[2])
        completion.complete(chunks[1])
        // Chunk 0 is not finished: taking must wait (give it half a second to go wrong).
        let early = DispatchSemaphore(value: 0)
        let taken = _Taken()
        Thread {
            taken.set(completion.takeNext()?.sequence)
            early.signal()
        }.start()
        XCTAssertEqual(early.wait(timeout: .now() + 0.5), .timedOut, "the writer took chunk \(taken.get() ?? -1) before chunk 0 was finished")
        completion.complete(chunks[0])
        XCTAssertEqual(early.wait(timeout: .now() + Deadline.scaled(10)), .success, "the writer was not woken when chunk 0 finished")
        XCTAssertEqual(taken.get(), 0)
        completion.complete(chunks[3])
        completion.finish(total: 4)
        let rest = try Deadline.run("_OrderedCompletion.takeNext after finish(total: 4)", seconds: 10) {
            [completion.takeNext()?.sequence, completion.takeNext()?.sequence, completion.takeNext()?.sequence, completion.takeNext()?.sequence]
        }
        XCTAssertEqual(rest, [1, 2, 3, nil])
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
            XCTAssertTrue(error.isBadInput)
            XCTAssertTrue(error.message.contains("s.jsonl:2:"), error.message)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    /// The fixture cut at points inside each zstd frame (and at a frame's end): every record the `zstd` CLI
    /// recovers whole is labelled, a record cut in two is rejected (counted, with its bytes), nothing is
    /// lost, and the file is reported damaged.
    func testTruncatedArchiveKeepsEveryRecordBeforeTheDamage() throws {
        let archive = Array(try Data(contentsOf: URL(fileURLWithPath: GeneratedFixture.jsonl)))
        let ends = try GeneratedFixture.frameEnds()
        XCTAssertEqual(ends.count, GeneratedFixture.frameCount)
        let starts = [0] + ends.dropLast()
        var cuts: [Int] = []
        for (start, end) in zip(starts, ends) {
            cuts += [start + (end - start) / 3, start + (end - start) * 2 / 3, end - 3]
        }
        var partials = 0
        for cut in cuts {
            let path = try file("cut-\(cut).jsonl.zst", Array(archive[..<cut]))
            // What the zstd CLI recovers from the same bytes, cut to whole lines, is the oracle.
            let recovered = Array(try Fixtures.run("zstd", ["-dc", path]).stdout)
            let wholeLines = recovered.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().count
            let partial = recovered.last != 0x0A && !recovered.isEmpty
            if partial { partials += 1 }
            for (threads, chunk) in [(1, 8192), (3, 1000)] {
                let outcome = try run([path]) { $0.threads = threads; $0.chunkSize = chunk }
                let context = "cut at \(cut) of \(archive.count), threads \(threads)"
                XCTAssertTrue(outcome.damaged, context)
                XCTAssertTrue(outcome.counts.files[0].error?.contains("truncated") == true, "\(context): \(outcome.counts.files[0].error ?? "no error")")
                XCTAssertEqual(outcome.counts.labelled, wholeLines, context)
                XCTAssertEqual(outcome.output.split(separator: 0x0A).count, wholeLines, context)
                // The record cut in two is rejected whole, with its bytes: counted, never lost.
                XCTAssertEqual(outcome.counts.rejected, partial ? 1 : 0, context)
                XCTAssertEqual(outcome.counts.records, wholeLines + (partial ? 1 : 0), context)
                if partial {
                    let tail = recovered[(recovered.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0)...]
                    XCTAssertEqual(outcome.rejects.count, 1, context)
                    XCTAssertEqual(outcome.rejects.first?["reason"] as? String, "record cut off by damaged input", context)
                    XCTAssertEqual(outcome.rejects.first?["line"] as? Int, wholeLines + 1, context)
                    // The bytes are kept: as text, or as base64 when the cut split a UTF-8 sequence.
                    let reject = outcome.rejects.first ?? [:]
                    let kept = (reject["record"] as? String).map { Array($0.utf8) }
                        ?? (reject["recordBase64"] as? String).flatMap { Data(base64Encoded: $0) }.map(Array.init)
                    XCTAssertEqual(kept, Array(tail), context)
                }
            }
        }
        XCTAssertGreaterThanOrEqual(partials, 6, "most cuts fall inside a record")
        // A cut exactly at a frame's end leaves a shorter but valid archive: nothing is damaged.
        let path = try file("two-frames.jsonl.zst", Array(archive[..<ends[1]]))
        let outcome = try run([path]) { $0.chunkSize = 4096 }
        XCTAssertFalse(outcome.damaged)
        XCTAssertEqual(outcome.counts.labelled, 2 * GeneratedFixture.recordCount / GeneratedFixture.frameCount)
        XCTAssertEqual(outcome.counts.rejected, 0)
    }

    func testHugeRecordsAndMaxRecord() throws {
        let big = String(repeating: "free entry win cash ", count: 500_000)  // 10 MB body
        let lines = ["{\"id\": 1, \"body\": \"short\"}", "{\"id\": 2, \"body\": \"\(big)\"}", "{\"id\": 3, \"body\": \"after\"}"]
        let path = try file("huge.jsonl", Array((lines.joined(separator: "\n") + "\n").utf8))
        let whole = try run([path]) { $0.chunkSize = 64 * 1024 }
        XCTAssertEqual(whole.counts.labelled, 3)
        XCTAssertEqual(whole.output.split(separator: 0x0A).count, 3)
        XCTAssertGreaterThan(whole.output.count, 10_000_000)
        let limited = try run([path]) { $0.chunkSize = 64 * 1024; $0.input.maxRecord = 1 << 20 }
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
            XCTAssertTrue((error as! PipelineError).isInputMissing)
        }
        let a = try file("a.jsonl", Array("{\"body\": \"one\"}\n".utf8))
        XCTAssertThrowsError(try run([a]) { $0.outputPath = "/nonexistent-folder/out.jsonl" }) { error in
            XCTAssertTrue((error as! PipelineError).isOutputFailure)
            XCTAssertTrue((error as! PipelineError).message.contains("/nonexistent-folder/out.jsonl"))
        }
    }

    // MARK: Decoding

    /// Bodies that hold every escape of their format: a rule whose keyword is the decoded text (written
    /// here by hand) must fire, at the span written here, in every format.
    func testEscapesDecodeToTheExactBody() throws {
        let rules = try RuleSet.parse(yaml: """
            version: 1
            rules:
              - {name: xml, action: junk, keywords: ["\\"q\\" & <t> 'a' 7A é😀 z"]}
              - {name: csv, action: promotion, keywords: ["say \\"hi\\", then\\nbye"]}
              - {name: json, action: allow, keywords: ["tab\\tq\\" \\\\ é😀 /"]}
              - {name: tsv, action: transaction, keywords: ["plain, \\"as is\\""]}
            """, file: "escapes.yaml")
        let xml = "<?xml version='1.0'?>\n<smses>\n"
            + "  <sms address=\"1\" body=\"ab &quot;q&quot; &amp; &lt;t&gt; &apos;a&apos; &#55;&#x41; &#233;&#x1F600; z\" />\n"
            + "  <sms address='2' body='ab &quot;q&quot; &amp; &lt;t&gt; &apos;a&apos; &#55;&#x41; &#xE9;&#128512; z' />\n"
            + "</smses>\n"
        let csv = "id,body\r\n1,\"ab say \"\"hi\"\", then\nbye\"\r\n"
        let jsonl = #"{"id": "1", "body": "ab tab\tq\" \\ \u00e9\ud83d\ude00 \/"}"# + "\n"
        let tsv = "id\tbody\n1\tab plain, \"as is\"\n"
        let cases: [(String, String, String)] = [("e.xml", xml, "xml"), ("e.csv", csv, "csv"), ("e.jsonl", jsonl, "json"), ("e.tsv", tsv, "tsv")]
        for (name, text, rule) in cases {
            let path = try file(name, Array(text.utf8))
            let outcome = try run([path], ruleSet: rules) {
                $0.labelsOnly = true
                $0.explain = true
            }
            XCTAssertEqual(outcome.counts.rejected, 0, "\(name): \(outcome.rejects)")
            let lines = outcome.output.split(separator: 0x0A)
            XCTAssertEqual(lines.count, name == "e.xml" ? 2 : 1, name)
            for line in lines {
                let filter = (try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any])["filter"] as! [String: Any]
                XCTAssertEqual(filter["rule"] as? String, rule, "\(name): the decoded body is not the expected text")
                let keyword = rules.definition.rules.first { $0.name == rule }!.keywords[0]
                XCTAssertEqual(filter["span"] as? [Int], [3, 3 + keyword.utf8.count], name)
            }
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
        // The header keeps its CR LF, as every row does (issue 12: "CRLF kept").
        XCTAssertTrue(text.hasPrefix("id,sender,body,filter_action,filter_subAction,filter_folder,filter_rule\r\n"), text)
        XCTAssertTrue(text.contains("1,VM-HDFCBK,\"Rs 500 debited, a/c \"\"XX12\"\"\nthanks\","))
    }

    /// Where a chunk ends, the CSV framer must read a doubled quote (`""`) inside a quoted field as one
    /// literal quote that keeps the field open: a framer that took it for the field's end would see the
    /// newline after it as the row's end, and a chunk cut there splits one record into two broken ones
    /// (the doubled-quote and quoted-newline tests above read one whole chunk, where the parser alone
    /// decides). 3,000 rows whose quoted body holds `""` before a newline, the newline far from the row's
    /// end, read in chunks of 512 bytes to 1 MiB at 1 and 2 threads: every row is labelled, in order, and
    /// the keyword that spans the doubled quote and the newline fires at the span written here by hand.
    func testCSVDoubledQuoteBeforeAQuotedNewlineAtEveryChunkEdge() throws {
        let rules = try RuleSet.parse(yaml: """
            version: 1
            rules:
              - {name: across, action: junk, keywords: ["hi\\" then\\nbye"]}
            """, file: "across.yaml")
        let tail = String(repeating: "z", count: 60)
        var csv = "id,body\n"
        for k in 1...3_000 { csv += "\(k),\"say \"\"hi\"\" then\nbye \(k) \(tail)\"\n" }
        let path = try file("doubled.csv", Array(csv.utf8))
        for (threads, chunk) in [(1, 512), (2, 512), (1, 4096), (2, 4096), (2, 1 << 20)] {
            let outcome = try run([path], ruleSet: rules) {
                $0.labelsOnly = true
                $0.explain = true
                $0.threads = threads
                $0.chunkSize = chunk
            }
            let what = "\(threads) threads, \(chunk)-byte chunks"
            XCTAssertEqual(outcome.counts.records, 3_000, what)
            XCTAssertEqual(outcome.counts.rejected, 0, "\(what): \(outcome.rejects.prefix(2))")
            let lines = outcome.output.split(separator: 0x0A)
            XCTAssertEqual(lines.count, 3_000, what)
            for (k, line) in lines.enumerated() {
                let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
                let filter = try XCTUnwrap(object["filter"] as? [String: Any])
                // The decoded body is `say "hi" then⏎bye K zz…`: the keyword starts at byte 5.
                guard object["id"] as? String == "\(k + 1)", filter["rule"] as? String == "across",
                    filter["span"] as? [Int] == [5, 17]
                else {
                    XCTFail("\(what): row \(k + 1) reads as \(String(decoding: line, as: UTF8.self))")
                    break
                }
            }
        }
    }

    func testTSVPositionalColumns() throws {
        let tsv = "1\tAD-FOO\tWin a FREE prize\n2\t12345\thello there\n"
        let path = try file("in.tsv", Array(tsv.utf8))
        let outcome = try run([path]) {
            $0.input.hasHeader = false
            $0.input.fields = FieldNames(id: "1", sender: "2", body: "3")
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

    /// The one XML escaper (issue 25): record fields and verdict attributes alike escape `&`, `<`, `>` and
    /// `"` (the verdict's copy used not to escape `>`) and write tab, line feed and carriage return as
    /// references, so that an XML parser reads back exactly the body and the rule name written.
    func testXMLOutputEscapesBodiesAndRuleNamesAlikeAndReadsBack() throws {
        let name = "a>b<c&d\"e'f"
        let rules = try RuleSet.parse(yaml: """
            version: 1
            rules:
              - {name: '\(name.replacingOccurrences(of: "'", with: "''"))', action: junk, keywords: ["prize"]}
            """, file: "xml-names.yaml")
        let body = "win a prize <now> & \"more\"\tthen\nnext\rend"
        let line = try JSONSerialization.data(withJSONObject: ["id": "1", "body": body])
        let path = try file("names.jsonl", Array(line) + [0x0A])
        let outcome = try run([path], ruleSet: rules) { $0.outputFormat = .xml }
        XCTAssertEqual(outcome.counts.labelled, 1)
        let text = String(decoding: outcome.output, as: UTF8.self)
        XCTAssertTrue(text.contains("filter_rule=\"a&gt;b&lt;c&amp;d&quot;e'f\""), text)
        XCTAssertTrue(text.contains("body=\"win a prize &lt;now&gt; &amp; &quot;more&quot;&#9;then&#10;next&#13;end\""), text)

        final class Attributes: NSObject, XMLParserDelegate {
            var sms: [[String: String]] = []
            func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
                        qualifiedName: String?, attributes: [String: String] = [:]) {
                if element == "sms" { sms.append(attributes) }
            }
        }
        let parser = XMLParser(data: Data(outcome.output))
        let attributes = Attributes()
        parser.delegate = attributes
        XCTAssertTrue(parser.parse(), "the XML output is well-formed")
        XCTAssertEqual(attributes.sms.count, 1)
        XCTAssertEqual(attributes.sms.first?["filter_rule"], name)
        XCTAssertEqual(attributes.sms.first?["body"], body)
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
        options.input.maxRecord = 64 * 1024
        options.outputPath = folder.appendingPathComponent("out.xml").path
        let frozen = options
        let result = try Deadline.run("Pipeline.run over an XML file with an over-long element") {
            try Pipeline(ruleSet: RuleSet.embeddedDefault, options: frozen).run(inputs: [input])
        }
        XCTAssertEqual(result.counts.rejected, 1)
        XCTAssertEqual(result.counts.labelled, 2)
        XCTAssertTrue(result.counts.isBalanced)
        let text = try String(contentsOfFile: options.outputPath!, encoding: .utf8)
        XCTAssertTrue(text.contains("body=\"after\""), text.suffix(300).description)
    }
}
