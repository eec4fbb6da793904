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

    /// Every line of the real corpora too, when they are beside the checkout (a wider net than the fixture,
    /// not a quality floor: without them this test says so and passes on the committed lines above).
    func testEveryRealCorpusLineAgreesWithFoundation() throws {
        guard let folder = Corpora.folder else {
            print("JSONScannerTests: no real corpora beside the checkout; the committed lines were checked")
            return
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jsonl.zst") }.sorted()
        XCTAssertFalse(names.isEmpty, "no .jsonl.zst in \(folder.path)")
        for name in names {
            let bytes = try GeneratedFixture.decompressed(folder.appendingPathComponent(name).path)
            for line in bytes.split(separator: 0x0A) { assertAgree(Array(line)) }
        }
    }

    /// Hand-written lines that break the JSON and UTF-8 rules one at a time (and some that only look as if
    /// they do).
    func hostileLines() -> [[UInt8]] {
        let cases: [String] = [
            #"{"body":"a\nb\"c\\d\/e\u0041\u00e9\u20ac\ud83d\ude00"}"#,
            #"{"body":"\ud800"}"#, #"{"body":"\udc00"}"#, #"{"body":"\ud83dx"}"#, #"{"body":"\ud83d\u0041"}"#,
            // A high surrogate takes only U+DC00…U+DFFF after it: the first unit past each end, and the two ends.
            #"{"body":"\ud83d\ue000"}"#, #"{"body":"\ud83d\udbff"}"#, #"{"body":"\udbff\uffff"}"#,
            #"{"body":"\ud800\udc00"}"#, #"{"body":"\udbff\udfff"}"#,
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
        var lines = cases.map { Array($0.utf8) }
        // Depth: Foundation allows 512 nested containers in all and refuses 513.
        for depth in [510, 511, 512, 600] {
            lines.append(Array(("{\"body\":\"x\",\"a\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}").utf8))
        }
        // Invalid UTF-8: lone continuation, overlong, surrogate, too large, truncated sequences.
        let badBytes: [[UInt8]] = [[0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE0, 0x80], [0xF0, 0x9F, 0x99], [0xFF], [0xC3]]
        for bad in badBytes {
            lines.append(Array(#"{"body":"ok "#.utf8) + bad + Array(#" tail"}"#.utf8))
            lines.append(Array(#"{"id":""#.utf8) + bad + Array(#"","body":"x"}"#.utf8))
        }
        return lines
    }

    /// `line` with its trouble moved past the first SIMD blocks: a 40-byte field before everything else, and
    /// 37 bytes (ASCII and Thai) at the start of every string that follows `"body":"`.
    func padded(_ line: [UInt8]) -> [[UInt8]] {
        let field = Array(#"{"pad":"0123456789abcdef0123456789abc","#.utf8)
        let inside = Array("padding ไทย 0123456789 ".utf8)
        var out: [[UInt8]] = []
        if line.first == UInt8(ascii: "{") { out.append(field + line.dropFirst()) }
        let marker = Array(#""body":""#.utf8)
        var grown: [UInt8] = []
        var i = 0
        while i < line.count {
            if line[i...].starts(with: marker) {
                grown += marker + inside
                i += marker.count
            } else {
                grown.append(line[i])
                i += 1
            }
        }
        if grown != line { out.append(grown) }
        return out
    }

    /// A `\u` high surrogate must be followed by a low one, U+DC00…U+DFFF (RFC 8259 §7, Unicode §3.8):
    /// a second unit above U+DFFF (`\ue000`, `\uffff`) or below U+DC00 is no pair, so the line is rejected
    /// under every kernel, never decoded to some scalar. The two ends of the range decode to U+10000 and
    /// U+10FFFF (written here by hand, not by Foundation, which `testHostileLines` compares with too).
    func testASurrogatePairNeedsALowSurrogateInItsRange() {
        let cases: [(String, String?)] = [
            (#"{"body":"\ud83d\ue000"}"#, nil), (#"{"body":"\udbff\uffff"}"#, nil), (#"{"body":"\ud83d\udbff"}"#, nil),
            (#"{"body":"a\ud83d\ue000b"}"#, nil),
            (#"{"body":"\ud800\udc00"}"#, "\u{10000}"), (#"{"body":"\udbff\udfff"}"#, "\u{10FFFF}"),
            (#"{"body":"\ud83d\ude00"}"#, "😀"),
        ]
        for kernel in kernels {
            _JSONScanner.forceKernel(kernel)
            for (line, body) in cases {
                for variant in [Array(line.utf8)] + padded(Array(line.utf8)) {
                    let got = ours(variant)
                    let text = String(decoding: variant, as: UTF8.self)
                    XCTAssertEqual(got.accepted, body != nil, "kernel \(kernel): \(text)")
                    if let body, got.accepted { XCTAssertTrue(got.body?.hasSuffix(body) == true, "kernel \(kernel): \(text) → \(got.body ?? "nil")") }
                }
            }
        }
    }

    func testHostileLines() {
        for line in hostileLines() { assertAgree(line) }
    }

    /// The hostile lines, and the same with their trouble past the first blocks, under every string kernel.
    func testHostileLinesUnderEveryKernel() {
        let lines = hostileLines().flatMap { [$0] + padded($0) }
        for kernel in kernels {
            _JSONScanner.forceKernel(kernel)
            for line in lines { assertAgree(line) }
        }
    }

    /// The kernels to run: the scalar loop and every SIMD one this CPU has (forcing one it lacks is ignored).
    var kernels: [Int] {
        let best = _JSONScanner.forceKernel(nil)
        return best == 3 ? [0, 3] : Array(0...best)
    }

    override func tearDown() { _JSONScanner.forceKernel(nil) }

    /// Each string kernel against a byte-by-byte scan, on every length up to 130 at every alignment, with the
    /// span ending at the last byte of a page whose next page is unmapped (a read past the end would crash),
    /// and starting at the first byte of a page whose previous page is unmapped.
    func testStringKernelsAgreeWithANaiveScanAndStayInTheirSpan() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let raw = mmap(nil, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), raw != MAP_FAILED else {
            throw XCTSkip("mmap failed")
        }
        defer { munmap(raw, 3 * page) }
        XCTAssertEqual(mprotect(raw, page, PROT_NONE), 0)
        XCTAssertEqual(mprotect(raw + 2 * page, page, PROT_NONE), 0)
        let middle = (raw + page).assumingMemoryBound(to: UInt8.self)
        var rng = Fixtures.SeededGenerator(seed: 1507)
        print("kernels \(kernels), seed 1507")
        let plain: [UInt8] = Array("abc xyz 0123 .,;:{}[]".utf8) + [0x7F, 0x20, 0x80, 0xBF, 0xC3, 0xE0, 0xFF]
        let stops: [UInt8] = [0x22, 0x5C, 0x00, 0x0A, 0x1F]
        for length in 0...130 {
            for trial in 0..<12 {
                var bytes = (0..<length).map { _ in plain[Int(rng.next() % UInt64(plain.count))] }
                if trial % 3 != 0 {
                    for _ in 0..<(1 + Int(rng.next() % 2)) where length > 0 {
                        bytes[Int(rng.next() % UInt64(length))] = stops[Int(rng.next() % UInt64(stops.count))]
                    }
                }
                if trial % 2 == 0 { for k in bytes.indices where bytes[k] >= 0x80 { bytes[k] = 0x61 } }
                let stop = bytes.firstIndex { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 } ?? length
                let high = bytes[..<stop].contains { $0 >= 0x80 }
                for kernel in kernels {
                    _JSONScanner.forceKernel(kernel)
                    for place in ["end of page", "start of page"] {
                        let start = place == "end of page" ? middle + page - length : middle
                        start.update(from: bytes, count: length)
                        let got = _JSONScanner.kernelScan(UnsafeRawBufferPointer(start: start, count: length))
                        XCTAssertEqual(got.offset, stop, "kernel \(kernel), \(place), \(bytes)")
                        XCTAssertEqual(got.high, high, "kernel \(kernel), \(place), \(bytes)")
                    }
                }
            }
        }
    }

    /// Each UTF-8 kernel against the byte loop (`_firstInvalidUTF8`, itself Unicode Table 3-7): every
    /// two-byte pair, the lead bytes of 3- and 4-byte sequences with boundary continuations, placed so that
    /// they straddle 16- and 32-byte blocks and end the span; then random mixes of valid and broken scalars.
    func testUTF8KernelsAgreeWithTheByteLoop() throws {
        var rng = Fixtures.SeededGenerator(seed: 2718)
        print("kernels \(kernels), seed 2718")
        var buffer = [UInt8](repeating: 0x61, count: 80)
        func check(_ sequence: [UInt8], label: String, places: [(Int, Int)] = [(14, 0), (31, 17), (0, 3), (30, 0)]) {
            for (position, tail) in places {
                let count = position + sequence.count + tail
                defer { for k in sequence.indices { buffer[position + k] = 0x61 } }
                do {
                    for (k, b) in sequence.enumerated() { buffer[position + k] = b }
                    buffer.withUnsafeBytes { raw in
                        let span = UnsafeRawBufferPointer(rebasing: raw[0..<count])
                        let expected = _firstInvalidUTF8(span) == nil
                        for kernel in kernels {
                            _JSONScanner.forceKernel(kernel)
                            if _JSONScanner.kernelUTF8Valid(span) != expected {
                                XCTFail("kernel \(kernel): \(label) \(sequence.map { String($0, radix: 16) }) at \(position), tail \(tail): expected \(expected)")
                            }
                        }
                    }
                }
            }
        }
        // Pairs: every lead byte of 0x80 and above with every byte, and three ASCII bytes with every high byte.
        for b0 in 0...255 {
            for b1 in 0...255 where b0 >= 0x80 || (b1 >= 0x80 && [0x00, 0x41, 0x7F].contains(b0)) {
                check([UInt8(b0), UInt8(b1)], label: "pair", places: [(14, 0), (31, 17)])
            }
        }
        let edges: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xF5]
        for b0 in 0xC0...0xFF {
            for b1 in edges { for b2 in edges { check([UInt8(b0), b1, b2], label: "triple") } }
            let continuations: [UInt8] = [0x41, 0x80, 0xBF, 0xC0]
            if b0 >= 0xF0 { for b1 in edges { for b2 in continuations { for b3 in continuations { check([UInt8(b0), b1, b2, b3], label: "quad") } } } }
        }
        let scalars: [[UInt8]] = ["a", "é", "ไ", "中", "🙂", "\u{10FFFF}", "\u{FFFF}", "\u{800}"].map { Array($0.utf8) }
        for _ in 0..<3000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(rng.next() % 40) { bytes += scalars[Int(rng.next() % UInt64(scalars.count))] }
            switch rng.next() % 4 {
            case 0 where !bytes.isEmpty: bytes.removeLast()
            case 1 where !bytes.isEmpty: bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(1 << (rng.next() % 8))
            case 2: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: Int(rng.next() % UInt64(bytes.count + 1)))
            default: break
            }
            bytes.withUnsafeBytes { raw in
                let expected = _firstInvalidUTF8(raw) == nil
                for kernel in kernels {
                    _JSONScanner.forceKernel(kernel)
                    XCTAssertEqual(_JSONScanner.kernelUTF8Valid(raw), expected, "kernel \(kernel): \(bytes)")
                }
            }
        }
    }

    /// Every kernel gives the same verdicts and error offsets on hostile and mutated lines, and agrees with
    /// Foundation on the corpora.
    func testEveryKernelAgreesWithFoundationAndWithTheOthers() throws {
        let lines = try corpusLines()
        var rng = Fixtures.SeededGenerator(seed: 77)
        var samples: [[UInt8]] = []
        for _ in 0..<3000 {
            var line = lines[Int(rng.next() % UInt64(lines.count))]
            let position = Int(rng.next() % UInt64(line.count + 1))
            let insert: [[UInt8]] = [[0x5C], [0x22], [0x00], [0x1F], [0xFF], [0xE0, 0xB8], Array("\\u00e9".utf8)]
            line.insert(contentsOf: insert[Int(rng.next() % UInt64(insert.count))], at: position)
            samples.append(line)
        }
        func verdicts() -> [String] {
            samples.map { line in
                line.withUnsafeBytes { raw in
                    let key: [UInt8] = Array("body".utf8)
                    return key.withUnsafeBytes { k in
                        let fields = UnsafeMutableBufferPointer<JSONField>.allocate(capacity: 1)
                        defer { fields.deallocate() }
                        return [k].withUnsafeBufferPointer { keys in
                            if let e = _JSONScanner.scan(raw, keys: keys, fields: fields) { return "\(e.offset) \(e.reason)" }
                            return "ok \(fields[0].rawStart) \(fields[0].rawEnd) \(fields[0].escaped)"
                        }
                    }
                }
            }
        }
        var reference: [String]?
        for kernel in kernels {
            _JSONScanner.forceKernel(kernel)
            for line in lines { assertAgree(line) }
            for line in samples.prefix(500) { assertAgree(line) }
            let mine = verdicts()
            if let reference { XCTAssertEqual(mine, reference, "kernel \(kernel)") } else { reference = mine }
        }
    }

    func testMutatedCorpusLinesAgree() throws {
        let lines = try corpusLines()
        var rng = Fixtures.seededGenerator("JSONScannerTests.testMutatedCorpusLinesAgree", defaultSeed: 42)
        let inserts: [[UInt8]] = [
            "\\", "\"", "\\u", "\\ud83d", "\\ude00", "\\n", "{", "}", "[", "]", ",", ":", "\\u00e9", "null", "1e",
        ].map { Array($0.utf8) } + [[0xFF], [0xE0, 0xB8], [0x00], [0x1F]]
        for _ in 0..<20_000 {
            let line = lines[Int(rng.next() % UInt64(lines.count))]
            assertAgree(Self.mutated(line, inserts: inserts, &rng))
        }
    }

    /// `line` with one edit at a random position: one of `inserts` inserted, a bit flipped, the line cut there,
    /// or the byte there removed.
    static func mutated(_ line: [UInt8], inserts: [[UInt8]], _ rng: inout Fixtures.SeededGenerator) -> [UInt8] {
        var line = line
        let position = Int(rng.next() % UInt64(line.count + 1))
        switch rng.next() % 4 {
        case 0: line.insert(contentsOf: inserts[Int(rng.next() % UInt64(inserts.count))], at: position)
        case 1: if position < line.count { line[position] ^= UInt8(1 << (rng.next() % 8)) }
        case 2: line = Array(line[..<position])
        default: if position < line.count { line.remove(at: position) }
        }
        return line
    }
}
