import Foundation
import TestSupport
import XCTest

@testable import BatchPipeline

/// Foundation's JSONSerialization is the oracle for the hand-written JSON Lines scanner.
final class JSONScannerTests: XCTestCase {
    struct Scanned: Equatable {
        var accepted: Bool
        var id: String?
        var sender: String?
        var body: String?
        var bodyKind: JSONField.Kind
    }

    /// Our scanner's view of a line: accepted or not, and the decoded id/sender/body.
    func ours(_ line: [UInt8]) -> Scanned {
        let keys: [[UInt8]] = ["id", "sender", "body"].map { Array($0.utf8) }
        let fields = UnsafeMutableBufferPointer<JSONField>.allocate(capacity: 3)
        defer { fields.deallocate() }
        return line.withUnsafeBytes { raw in
            keys[0].withUnsafeBytes { k0 in
                keys[1].withUnsafeBytes { k1 in
                    keys[2].withUnsafeBytes { k2 in
                        let keyBuffers = [k0, k1, k2]
                        return keyBuffers.withUnsafeBufferPointer { keyPointer in
                            if _JSONScanner.scan(raw, keys: keyPointer, fields: fields) != nil {
                                return Scanned(accepted: false, bodyKind: .missing)
                            }
                            func text(_ f: JSONField) -> String? {
                                guard f.kind == .string else { return nil }
                                let content = UnsafeRawBufferPointer(rebasing: raw[f.contentStart..<f.contentEnd])
                                if !f.escaped { return String(decoding: content, as: UTF8.self) }
                                var out: [UInt8] = []
                                _JSONUnescape.append(content, to: &out)
                                return String(decoding: out, as: UTF8.self)
                            }
                            func rawText(_ f: JSONField) -> String? {
                                f.kind == .other ? String(decoding: raw[f.rawStart..<f.rawEnd], as: UTF8.self) : text(f)
                            }
                            return Scanned(
                                accepted: true, id: rawText(fields[0]), sender: rawText(fields[1]), body: text(fields[2]),
                                bodyKind: fields[2].kind)
                        }
                    }
                }
            }
        }
    }

    /// Foundation's view of the same line.
    ///
    /// One known difference, allowed by RFC 8259 ("an implementation may set limits on the range and
    /// precision of numbers"): Foundation refuses a number beyond Double's range (`1e400`), while the
    /// scanner checks only the grammar of the values it skips. Such a line is given to Foundation again with
    /// those numbers replaced by 0, so everything else about it is still compared.
    func foundation(_ line: [UInt8]) -> Scanned {
        var parsed = try? JSONSerialization.jsonObject(with: Data(line))
        if parsed == nil, let tamed = Self.replacingOutOfRangeNumbers(line) {
            parsed = try? JSONSerialization.jsonObject(with: Data(tamed))
        }
        guard let object = parsed, let dict = object as? [String: Any] else {
            return Scanned(accepted: false, bodyKind: .missing)
        }
        func text(_ value: Any?) -> String? {
            switch value {
            case let s as String: return s
            case nil, is NSNull: return nil
            default: return "<other>"
            }
        }
        let kind: JSONField.Kind
        switch dict["body"] {
        case nil: kind = .missing
        case is NSNull: kind = .null
        case is String: kind = .string
        default: kind = .other
        }
        return Scanned(
            accepted: true, id: text(dict["id"]), sender: text(dict["sender"]), body: kind == .string ? text(dict["body"]) : nil,
            bodyKind: kind)
    }

    /// `line` with every number outside strings that does not fit a Double (infinite, or written non-zero
    /// but read as zero) replaced by `0`; nil when there is none.
    static func replacingOutOfRangeNumbers(_ line: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var changed = false
        var inString = false
        var i = 0
        let numberBytes = Set("-+.0123456789eE".utf8)
        while i < line.count {
            let b = line[i]
            if inString {
                out.append(b)
                if b == UInt8(ascii: "\\"), i + 1 < line.count {
                    out.append(line[i + 1])
                    i += 2
                    continue
                }
                if b == UInt8(ascii: "\"") { inString = false }
                i += 1
                continue
            }
            if b == UInt8(ascii: "\"") {
                inString = true
                out.append(b)
                i += 1
                continue
            }
            if numberBytes.contains(b) {
                var j = i
                while j < line.count && numberBytes.contains(line[j]) { j += 1 }
                let token = String(decoding: line[i..<j], as: UTF8.self)
                let mantissa = token.prefix { $0 != "e" && $0 != "E" }
                if let value = Double(token), mantissa.count < token.count,
                    value.isInfinite || (value == 0 && mantissa.contains(where: { "123456789".contains($0) }))
                {
                    out.append(UInt8(ascii: "0"))
                    changed = true
                } else {
                    out += line[i..<j]
                }
                i = j
                continue
            }
            out.append(b)
            i += 1
        }
        return changed ? out : nil
    }

    func assertAgree(_ line: [UInt8], file: StaticString = #filePath, lineNumber: UInt = #line) {
        var a = ours(line)
        let b = foundation(line)
        // Non-string ids/senders: Foundation gives numbers/objects; compare only that both saw "something".
        if b.id == "<other>" { a.id = a.id == nil ? nil : "<other>" }
        if b.sender == "<other>" { a.sender = a.sender == nil ? nil : "<other>" }
        XCTAssertEqual(a, b, "line: \(String(decoding: line.prefix(200), as: UTF8.self).debugDescription)", file: file, line: lineNumber)
    }

    /// The committed lines: the generated fixture (2,000 records in five scripts, with senders) and
    /// samples/sample.jsonl.zst (1,838 real messages from the public corpora and hand-written ones).
    func corpusLines() throws -> [[UInt8]] {
        var lines = try GeneratedFixture.jsonlLines()
        let sample = Fixtures.packageRoot.appendingPathComponent("samples/sample.jsonl.zst").path
        lines += try GeneratedFixture.decompressed(sample).split(separator: 0x0A).map(Array.init)
        XCTAssertEqual(lines.count, GeneratedFixture.recordCount + 1838)
        return lines
    }

    func testEveryCommittedLineAgreesWithFoundation() throws {
        for line in try corpusLines() { assertAgree(line) }
    }

    func testHostileLines() {
        let cases: [String] = [
            #"{"body":"a\nb\"c\\d\/e\u0041\u00e9\u20ac\ud83d\ude00"}"#,
            #"{"body":"\ud800"}"#, #"{"body":"\udc00"}"#, #"{"body":"\ud83dx"}"#, #"{"body":"\ud83d\u0041"}"#,
            #"{"body":"\x"}"#, #"{"body":"\u12"}"#, #"{"body":"\u12G4"}"#,
            #"{"body":"a","body":"b"}"#, #"{"body":1,"body":"b"}"#, #"{"body":"b","body":null}"#,
            #"{"id":{"x":[1,2,{"y":null}]},"body":"nested"}"#, #"{"meta":{"body":"inner"},"body":"outer"}"#,
            #"{"meta":{"body":"inner"}}"#, #"{"body":["not","text"]}"#, #"{"body":null}"#, #"{}"#, #"[]"#, #""body""#,
            #"{"body":"x",}"#, #"{"a":[1,],"body":"x"}"#, #"{,"body":"x"}"#, #"{"body":"x",,}"#, #"{"a":[,1],"body":"x"}"#,
            #"{"body":"x"} trailing"#, #"{"body":"x"}}"#, #"{"body":"x""#, #"{"body":"x"#, #"{"body""#, #"{"body":}"#,
            #"{"id":01,"body":"x"}"#, #"{"id":-0,"body":"x"}"#, #"{"id":1.,"body":"x"}"#, #"{"id":.5,"body":"x"}"#,
            #"{"id":1e5,"body":"x"}"#, #"{"id":1E+2,"body":"x"}"#, #"{"id":1e,"body":"x"}"#, #"{"id":-,"body":"x"}"#,
            #"{"id":+1,"body":"x"}"#, #"{"id":NaN,"body":"x"}"#, #"{"id":tru,"body":"x"}"#, #"{"id":true,"body":"x"}"#,
            #"{"id":nul,"body":"x"}"#, #"{"id":null,"sender":false,"body":"x"}"#,
            #"{"ts":1e400,"body":"huge exponent"}"#, #"{"ts":-1E+999,"body":"x"}"#, #"{"ts":2e-400,"body":"tiny"}"#,
            "{\"body\":\"tab\tinside\"}", "{\"body\":\"nul\u{0}inside\"}", "{\"body\":\"del\u{7f}\"}",
            " \t{\"body\":\"x\"}\t \r", "\u{FEFF}{\"body\":\"bom\"}", #"{"\u0062ody":"escaped key"}"#, #"{"b\u006fdy":"k"}"#,
            #"{"body":"ไทย 中文 हिन्दी 🙂"}"#, #"{"sender":"VM-HDFCBK","body":"Rs 500 debited"}"#,
            "{\"body\":\"" + String(repeating: "a", count: 100_000) + "\"}",
        ]
        for text in cases { assertAgree(Array(text.utf8)) }
        // Depth: Foundation allows 512 nested containers in all and refuses 513.
        for depth in [510, 511, 512, 600] {
            let line = "{\"body\":\"x\",\"a\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
            assertAgree(Array(line.utf8))
        }
        // Invalid UTF-8: lone continuation, overlong, surrogate, too large, truncated sequences.
        let badBytes: [[UInt8]] = [[0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE0, 0x80], [0xF0, 0x9F, 0x99], [0xFF], [0xC3]]
        for bad in badBytes {
            assertAgree(Array(#"{"body":"ok "#.utf8) + bad + Array(#" tail"}"#.utf8))
            assertAgree(Array(#"{"id":""#.utf8) + bad + Array(#"","body":"x"}"#.utf8))
        }
    }

    func testMutatedCorpusLinesAgree() throws {
        let lines = try corpusLines()
        var rng = Fixtures.seededGenerator("JSONScannerTests.testMutatedCorpusLinesAgree", defaultSeed: 42)
        let inserts: [[UInt8]] = [
            "\\", "\"", "\\u", "\\ud83d", "\\ude00", "\\n", "{", "}", "[", "]", ",", ":", "\\u00e9", "null", "1e",
        ].map { Array($0.utf8) } + [[0xFF], [0xE0, 0xB8], [0x00], [0x1F]]
        for _ in 0..<20_000 {
            var line = lines[Int(rng.next() % UInt64(lines.count))]
            let position = Int(rng.next() % UInt64(line.count + 1))
            switch rng.next() % 4 {
            case 0: line.insert(contentsOf: inserts[Int(rng.next() % UInt64(inserts.count))], at: position)
            case 1: if position < line.count { line[position] ^= UInt8(1 << (rng.next() % 8)) }
            case 2: line = Array(line[..<position])
            default: if position < line.count { line.remove(at: position) }
            }
            assertAgree(line)
        }
    }
}
