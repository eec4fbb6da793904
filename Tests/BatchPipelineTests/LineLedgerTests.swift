import Foundation
import MessageFilter
import TestSupport
import XCTest

@testable import BatchPipeline

/// Line numbers resolved by order (`_LineLedger`): the reader no longer counts newlines, the threads that
/// take the chunks do. Every line number the pipeline gives (labels of records without an id, rejects of
/// every kind, evaluate's ids, learn's records and skips) is checked against a naive count over the decoded
/// file, at 1 to 4 threads (and 8) and chunks from a few hundred bytes to a megabyte.
final class LineLedgerTests: TemporaryFolderTestCase {
    static let runs: [(threads: Int, chunk: Int)] = [(1, 1 << 20), (1, 256), (2, 333), (3, 700), (4, 4096), (4, 256), (8, 300)]
    static let maxRecord = 1024

    // MARK: The ledger itself

    /// 8 threads take 4 000 chunks in order (as from the work queue), publish their counts after a random
    /// pause (so the counts arrive out of order; anchors every 500 chunks) and then ask for their first
    /// lines: every answer is the prefix sum from the last anchor, nothing hangs, and nothing is held once
    /// every chunk is released. Then the same counts published from shuffled lists before any question.
    func testFirstLinesArePrefixSumsWhateverOrderTheCountsArrive() throws {
        let n = 4000
        var rng = SystemRandomNumberGenerator()
        let counts = (0..<n).map { _ in Int.random(in: 0...40, using: &rng) }
        let anchors: [Int: Int] = Dictionary(uniqueKeysWithValues: stride(from: 0, to: n, by: 500).map { ($0, 1 + $0 * 7) })
        var expected = [Int](repeating: 0, count: n)
        var line = 1
        for k in 0..<n {
            if let a = anchors[k] { line = a }
            expected[k] = line
            line += counts[k]
        }
        let threads = 8
        // Taken in order, published in whatever order the pauses give.
        let ledger = _LineLedger()
        let answers = _Answers(n)
        let queue = _Answers(1)
        try Deadline.run("8 threads publishing to the ledger out of order", seconds: 60) {
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                while let k = queue.take(below: n) {
                    usleep(UInt32.random(in: 0...200))
                    ledger.publish(k, anchor: anchors[k], newlines: counts[k])
                    answers.set(k, ledger.firstLine(of: k))
                }
            }
        }
        XCTAssertEqual(answers.all, expected)
        for k in 0..<n { ledger.release(k) }
        XCTAssertEqual(ledger.entries, 0)
        // Every count published first, from shuffled lists: the fold does not depend on the order.
        let shuffled = _LineLedger()
        let order = Array(0..<n).shuffled()
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for i in stride(from: t, to: n, by: threads) { shuffled.publish(order[i], anchor: anchors[order[i]], newlines: counts[order[i]]) }
        }
        XCTAssertEqual((0..<n).map { shuffled.firstLine(of: $0) }, expected)
    }

    /// A count published ahead of the chunks before it stays pending; the first line of a chunk waits for
    /// them and no longer.
    func testFirstLineWaitsForEveryEarlierCount() throws {
        let ledger = _LineLedger()
        ledger.publish(0, anchor: 3, newlines: 5)
        ledger.publish(2, anchor: nil, newlines: 1)
        XCTAssertEqual(ledger.firstLine(of: 0), 3)
        let answer = _Answers(1)
        let done = DispatchSemaphore(value: 0)
        Thread {
            answer.set(0, ledger.firstLine(of: 2))
            done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: .now() + 0.3), .timedOut, "chunk 2's first line came before chunk 1's count")
        ledger.publish(1, anchor: nil, newlines: 4)
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(answer.all, [12])
        XCTAssertEqual(ledger.firstLine(of: 1), 8)
        XCTAssertEqual(ledger.entries, 3)
        for k in 0..<3 { ledger.release(k) }
        XCTAssertEqual(ledger.entries, 0)
    }

    // MARK: Oracles

    /// The 1-based line of the first occurrence of `marker` in `decoded`: a naive count of the newlines
    /// before it.
    static func line(of marker: String, in decoded: [UInt8]) -> Int? {
        let m = Array(marker.utf8)
        guard m.count <= decoded.count else { return nil }
        var newlines = 0
        for i in 0...(decoded.count - m.count) {
            if decoded[i] == m[0] && Array(decoded[i..<(i + m.count)]) == m { return newlines + 1 }
            if decoded[i] == 0x0A { newlines += 1 }
        }
        return nil
    }

    /// The first marker `#m<k>#` in `bytes`.
    static func marker(in bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let start = text.range(of: "#m") else { return nil }
        guard let end = text[start.upperBound...].firstIndex(of: "#") else { return nil }
        return String(text[start.lowerBound...end])
    }

    /// Every marker of `decoded`, in order, with its naive line.
    static func markerLines(_ decoded: [UInt8]) -> [String: Int] {
        var out: [String: Int] = [:]
        var line = 1
        var i = 0
        while i < decoded.count {
            if decoded[i] == 0x0A { line += 1 }
            if decoded[i] == UInt8(ascii: "#"), i + 1 < decoded.count, decoded[i + 1] == UInt8(ascii: "m") {
                var j = i + 2
                while j < decoded.count, decoded[j] >= 0x30 && decoded[j] <= 0x39 { j += 1 }
                if j < decoded.count, decoded[j] == UInt8(ascii: "#"), j > i + 2 {
                    let m = String(decoding: decoded[i...j], as: UTF8.self)
                    if out[m] == nil { out[m] = line }
                    i = j
                }
            }
            i += 1
        }
        return out
    }

    // MARK: Corpora

    /// JSON Lines without ids (an optional byte-order mark): records, blank lines, malformed JSON, invalid
    /// UTF-8, records longer than `maxRecord` (some longer than any chunk here), every record marked.
    static func jsonl(count: Int, bom: Bool, seed: UInt64) -> (bytes: [UInt8], valid: [String], rejected: [String]) {
        var rng = Fixtures.SeededGenerator(seed: seed)
        var out: [UInt8] = bom ? [0xEF, 0xBB, 0xBF] : []
        var valid: [String] = []
        var rejected: [String] = []
        for k in 0..<count {
            let m = "#m\(k)#"
            switch rng.next() % 16 {
            case 0: out += Array("\n   \n".utf8)
            case 1:
                out += Array("{\"body\": \"\(m) broken\n".utf8)
                rejected.append(m)
            case 2:
                out += Array("{\"body\": \"\(m) bad ".utf8) + [0xFF, 0xFE] + Array("\"}\n".utf8)
                rejected.append(m)
            case 3:
                let long = String(repeating: "x", count: maxRecord + Int(rng.next() % 3000))
                out += Array("{\"body\": \"\(m) \(long)\"}\n".utf8)
                rejected.append(m)
            default:
                let words = ["prize sale", "sale code 55", "code 1234", "hello", "prize", "free entry"]
                out += Array("{\"body\": \"\(m) \(words[Int(rng.next() % 6)]) \(k)\", \"label\": \"\(k % 2 == 0 ? "spam" : "ham")\"}\n".utf8)
                valid.append(m)
            }
        }
        return (out, valid, rejected)
    }

    /// CSV with a header row and a byte-order mark, no id column: plain rows, quoted bodies that span
    /// lines, rows longer than `maxRecord`, and one quote that never closes: in the middle (`atEnd` false;
    /// only rows without a quote follow it, so it is cut whatever the chunk size, and the rows after it are
    /// read again) or on the last row.
    static func csv(count: Int, seed: UInt64, atEnd: Bool) -> (bytes: [UInt8], valid: [String], rejected: [String]) {
        var rng = Fixtures.SeededGenerator(seed: seed)
        var out: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("body,label\n".utf8)
        var valid: [String] = []
        var rejected: [String] = []
        for k in 0..<count {
            let m = "#m\(k)#"
            let quotesAllowed = atEnd || k < count / 2
            if !atEnd && k == count / 2 {
                out += Array("\"\(m) never closes,spam\n".utf8)
                rejected.append(m)
                continue
            }
            switch rng.next() % 12 {
            case 0 where quotesAllowed:
                out += Array("\"\(m) spans\nthree\nlines, prize\",spam\n".utf8)
                valid.append(m)
            case 1:
                out += Array("\(m) \(String(repeating: "y", count: maxRecord + Int(rng.next() % 2500))),ham\n".utf8)
                rejected.append(m)
            default:
                out += Array("\(m) sale today \(k),ham\n".utf8)
                valid.append(m)
            }
        }
        if atEnd {
            out += Array("\"#m\(count)# the last quote never closes\n".utf8)
            rejected.append("#m\(count)#")
        }
        return (out, valid, rejected)
    }

    /// An Android XML backup, no ids: elements on one line, bodies that span lines, comments over two
    /// lines, `<sms>` elements longer than `maxRecord` that span many lines (streamed in pieces when the
    /// chunk is smaller: their line is the first piece's).
    static func xml(count: Int, seed: UInt64) -> (bytes: [UInt8], valid: [String], rejected: [String]) {
        var rng = Fixtures.SeededGenerator(seed: seed)
        var out = Array("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<!-- a comment\nover two lines -->\n<smses count=\"\(count)\">\n".utf8)
        var valid: [String] = []
        var rejected: [String] = []
        for k in 0..<count {
            let m = "#m\(k)#"
            switch rng.next() % 10 {
            case 0:
                out += Array("  <sms address=\"1\" body=\"\(m) spans\nlines, prize\" label=\"spam\" date=\"1\" />\n".utf8)
                valid.append(m)
            case 1:
                let lines = String(repeating: String(repeating: "z", count: 90) + "\n", count: maxRecord / 91 + 1 + Int(rng.next() % 30))
                out += Array("  <sms address=\"2\" body=\"\(m) \(lines)\" label=\"ham\" />\n".utf8)
                rejected.append(m)
            case 2:
                out += Array("  <!-- a note\n  over two lines -->\n".utf8)
            default:
                out += Array("  <sms address=\"3\" body=\"\(m) sale today\" label=\"ham\" />\n".utf8)
                valid.append(m)
            }
        }
        out += Array("</smses>\n".utf8)
        return (out, valid, rejected)
    }

    func zstd(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = try write(name + ".raw", bytes)
        let out = folder.appendingPathComponent(name).path
        let result = try Fixtures.run("zstd", ["-q", "-3", "-f", path, "-o", out])
        XCTAssertEqual(result.status, 0)
        return out
    }

    struct Outcome {
        var labelLines: [Int]
        var rejects: [(line: Int, marker: String?, reason: String)]
        var counts: RunCounts
    }

    func classify(_ path: String, threads: Int, chunk: Int, configure: (inout PipelineOptions) -> Void = { _ in }) throws -> Outcome {
        var options = PipelineOptions()
        options.labelsOnly = true
        options.threads = threads
        options.chunkSize = chunk
        options.input.maxRecord = Self.maxRecord
        options.outputPath = folder.appendingPathComponent("out-\(UUID().uuidString).jsonl").path
        options.rejectsPath = folder.appendingPathComponent("rejects-\(UUID().uuidString).jsonl").path
        configure(&options)
        let frozen = options
        let result = try Deadline.run("classify \(URL(fileURLWithPath: path).lastPathComponent) (\(threads) threads, \(chunk)-byte chunks)") {
            try Pipeline(ruleSet: RuleSet.embeddedDefault, options: frozen).run(inputs: [path])
        }
        XCTAssertTrue(result.counts.isBalanced)
        let output = try String(contentsOfFile: options.outputPath!, encoding: .utf8).split(separator: "\n")
        let labelLines = try output.map { try XCTUnwrap((try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["line"] as? Int) }
        let rejectText = (try? String(contentsOfFile: options.rejectsPath!, encoding: .utf8)) ?? ""
        let rejects = try rejectText.split(separator: "\n").map { text -> (Int, String?, String) in
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
            // Whole (`record`, `recordBase64`) or short, past the rejects budget (`prefix`).
            let raw = (object["record"] as? String ?? object["prefix"] as? String).map { Array($0.utf8) }
                ?? (object["recordBase64"] as? String).flatMap { Data(base64Encoded: $0) }.map(Array.init) ?? []
            return (object["line"] as! Int, Self.marker(in: raw), object["reason"] as! String)
        }
        return Outcome(labelLines: labelLines, rejects: rejects, counts: result.counts)
    }

    /// The labels and rejects of `path` (decoded: `decoded`) carry the naive lines of their markers, and
    /// every run gives the same.
    func checkLines(
        _ path: String, decoded: [UInt8], valid: [String], rejected: [String], what: String,
        configure: (inout PipelineOptions) -> Void = { _ in }
    ) throws {
        let lines = Self.markerLines(decoded)
        let wantLabels = valid.map { lines[$0]! }
        let wantRejects = rejected.map { lines[$0]! }.sorted()
        XCTAssertGreaterThan(rejected.count, 5, what)
        for (threads, chunk) in Self.runs {
            let context = "\(what), \(threads) threads, \(chunk)-byte chunks"
            let outcome = try classify(path, threads: threads, chunk: chunk, configure: configure)
            XCTAssertEqual(outcome.labelLines, wantLabels, context)
            XCTAssertEqual(outcome.rejects.map(\.line).sorted(), wantRejects, context)
            for r in outcome.rejects {
                // The reject's own bytes hold its marker, on the line it is given.
                XCTAssertEqual(r.marker.flatMap { lines[$0] }, r.line, "\(context): \(r.reason)")
            }
        }
    }

    // MARK: classify

    func testJSONLinesLabelsAndRejectsCarryTheNaiveLines() throws {
        let corpus = Self.jsonl(count: 600, bom: false, seed: 1)
        try checkLines(try write("plain.jsonl", corpus.bytes), decoded: corpus.bytes, valid: corpus.valid, rejected: corpus.rejected, what: "jsonl")
    }

    func testZstdJSONLinesWithAByteOrderMarkCarryTheNaiveLines() throws {
        let corpus = Self.jsonl(count: 600, bom: true, seed: 2)
        let path = try zstd(corpus.bytes, "bom.jsonl.zst")
        try checkLines(path, decoded: Array(corpus.bytes.dropFirst(3)), valid: corpus.valid, rejected: corpus.rejected, what: "jsonl.zst with BOM")
    }

    func testCSVWithHeaderMultiLineRowsAndUnclosedQuotesCarriesTheNaiveLines() throws {
        for atEnd in [false, true] {
            let corpus = Self.csv(count: 300, seed: 3, atEnd: atEnd)
            let path = try write("rows-\(atEnd).csv", corpus.bytes)
            try checkLines(path, decoded: corpus.bytes, valid: corpus.valid, rejected: corpus.rejected, what: "csv, unclosed quote at the end: \(atEnd)")
        }
    }

    /// XML, and again with a rejects budget so small that most over-long records are kept short (their
    /// line then comes from the last piece: the first piece's first line through `_Piece.linesBefore`).
    func testXMLWithElementsSpanningLinesCarriesTheNaiveLines() throws {
        let corpus = Self.xml(count: 300, seed: 7)
        let path = try write("backup.xml", corpus.bytes)
        // 40 000 bytes: the first few whole (in the first half), the rest short (none left out: they all fit).
        for budget in [Int64(1) << 30, 40_000] {
            try checkLines(path, decoded: corpus.bytes, valid: corpus.valid, rejected: corpus.rejected, what: "xml, rejects budget \(budget)") {
                $0.input.fields = FieldNames(id: "id", sender: "address", body: "body")
                $0.maxRejectsBytes = budget
            }
        }
    }

    /// A zstd archive cut short: the records before the damage carry their lines, the one cut off is
    /// rejected at the line after the last whole one (the `zstd` CLI's recovered bytes are the oracle).
    func testDamagedArchiveLinesEqualTheRecoveredBytesLines() throws {
        let corpus = Self.jsonl(count: 800, bom: false, seed: 4)
        let archive = Array(try Data(contentsOf: URL(fileURLWithPath: try zstd(corpus.bytes, "whole.jsonl.zst"))))
        for cut in [archive.count / 3, archive.count * 2 / 3, archive.count - 5] {
            let path = try write("cut-\(cut).jsonl.zst", Array(archive[..<cut]))
            let recovered = Array(try Fixtures.run("zstd", ["-dc", path]).stdout)
            let wholeEnd = (recovered.lastIndex(of: 0x0A) ?? -1) + 1
            let whole = Array(recovered[..<wholeEnd])
            let lines = Self.markerLines(whole)
            let wantLabels = corpus.valid.compactMap { lines[$0] }
            let wantRejects = corpus.rejected.compactMap { lines[$0] }.sorted()
            let cutLine = whole.filter { $0 == 0x0A }.count + 1
            let partial = wholeEnd < recovered.count
            for (threads, chunk) in Self.runs {
                let context = "cut at \(cut), \(threads) threads, \(chunk)-byte chunks"
                let outcome = try classify(path, threads: threads, chunk: chunk)
                XCTAssertTrue(outcome.counts.files[0].error != nil, context)
                XCTAssertEqual(outcome.labelLines, wantLabels, context)
                let damage = outcome.rejects.filter { $0.reason == "record cut off by damaged input" }
                XCTAssertEqual(damage.map(\.line), partial ? [cutLine] : [], context)
                XCTAssertEqual(outcome.rejects.filter { $0.reason != "record cut off by damaged input" }.map(\.line).sorted(), wantRejects, context)
            }
        }
    }

    // MARK: evaluate and learn

    /// evaluate's conflict examples of records without an id are named "line N": N is the naive line of
    /// the example's body.
    func testEvaluateIdsOfRecordsWithoutAnIdAreTheirLines() throws {
        let corpus = Self.jsonl(count: 600, bom: true, seed: 5)
        let path = try zstd(corpus.bytes, "eval.jsonl.zst")
        let lines = Self.markerLines(Array(corpus.bytes.dropFirst(3)))
        var reference: [String]?
        for (threads, chunk) in Self.runs {
            var options = EvaluationOptions(mapping: try TruthMapping.parse("spam=junk,ham=none"))
            options.threads = threads
            options.chunkSize = chunk
            options.conflictExamples = 10_000
            options.input.maxRecord = Self.maxRecord
            let frozen = options
            let report = try Deadline.run("evaluate (\(threads) threads, \(chunk)-byte chunks)") {
                try Evaluator(ruleSet: EvaluateTests.ruleSet, options: frozen).run(inputs: [path])
            }
            let context = "\(threads) threads, \(chunk)-byte chunks"
            XCTAssertGreaterThan(report.conflictExamples.count, 20, context)
            for example in report.conflictExamples {
                let marker = Self.marker(in: Array(example.body.utf8))
                XCTAssertEqual(example.id, marker.flatMap { lines[$0] }.map { "line \($0)" }, context)
            }
            let ids = report.conflictExamples.map(\.id)
            if let reference { XCTAssertEqual(ids, reference, context) } else { reference = ids }
        }
    }

    /// learn's reader (the sequential one): each record's line and each skipped record's line are the
    /// naive lines of their markers.
    func testLearnInputLinesAreTheNaiveLines() throws {
        let corpus = Self.csv(count: 300, seed: 6, atEnd: false)
        let path = try write("learn.csv", corpus.bytes)
        let lines = Self.markerLines(corpus.bytes)
        var format = RecordFormat()
        format.maxRecord = Self.maxRecord
        var got: [Int] = []
        var skipped: [Int] = []
        try _LearnInput.read(
            inputs: [path], input: format, truthField: "label",
            record: { r in got.append(r.line); XCTAssertEqual(Self.marker(in: Array(r.body)).flatMap { lines[$0] }, r.line) },
            skip: { _, _, line in skipped.append(line) })
        XCTAssertEqual(got, corpus.valid.map { lines[$0]! })
        XCTAssertEqual(skipped.sorted(), corpus.rejected.map { lines[$0]! }.sorted())
    }

    /// The same through XML: an over-long element's skip line comes from its last piece (`linesBefore`).
    func testLearnInputLinesOfXMLAreTheNaiveLines() throws {
        let corpus = Self.xml(count: 300, seed: 8)
        let path = try write("learn.xml", corpus.bytes)
        let lines = Self.markerLines(corpus.bytes)
        for chunk in [256, 1 << 20] {
            var format = RecordFormat()
            format.maxRecord = Self.maxRecord
            format.fields = FieldNames(id: "id", sender: "address", body: "body")
            var options = _ReadOptions(format)
            options.chunkSize = chunk
            var got: [Int] = []
            var skipped: [Int] = []
            let reader = _SequentialReader(inputs: [path], options: options)
            try reader.run(chunk: { chunk, parsed in
                for k in 0..<parsed.records.count where !parsed.records[k].isRejected {
                    got.append(chunk.firstLine() + parsed.records[k].relativeLine)
                }
            }, rejected: { _, _, line in skipped.append(line) })
            XCTAssertEqual(got, corpus.valid.map { lines[$0]! }, "\(chunk)-byte chunks")
            XCTAssertEqual(skipped.sorted(), corpus.rejected.map { lines[$0]! }.sorted(), "\(chunk)-byte chunks")
        }
    }
}

/// Answers set by many threads.
final class _Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int]
    init(_ n: Int) { values = Array(repeating: 0, count: n) }
    func set(_ k: Int, _ v: Int) { lock.lock(); values[k] = v; lock.unlock() }
    var all: [Int] { lock.lock(); defer { lock.unlock() }; return values }
    /// Used as a counter (its first value): the next number below `n`, or nil.
    func take(below n: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard values[0] < n else { return nil }
        values[0] += 1
        return values[0] - 1
    }
}
