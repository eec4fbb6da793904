import Foundation
import TestSupport
import XCTest

@testable import BatchPipeline

/// The scanner's fast paths (a short ASCII string found 8 bytes at a time, a wanted key compared as one
/// masked word, `null`/`true`/`false`/numbers taken without the container walk), each against the path it
/// short-cuts and against Foundation.
extension JSONScannerTests {
    /// The lines to try: the committed ones, and as many again with one byte inserted, flipped, cut or removed.
    func fastPathLines() throws -> [[UInt8]] {
        let lines = try corpusLines() + hostileLines()
        var rng = Fixtures.SeededGenerator(seed: 3141)
        var out = lines
        let inserts: [[UInt8]] = ["\\", "\"", "\\u00e9", "\\n", "null", "tru", "-", "0", ",", "}"].map { Array($0.utf8) } + [[0xFF], [0x1F], [0xC3]]
        for _ in 0..<4000 {
            let line = lines[Int(rng.next() % UInt64(lines.count))]
            out.append(Self.mutated(line, inserts: inserts, &rng))
        }
        return out
    }

    /// `scanString` (with its 8-byte fast path) gives what `scanStringRest` (the whole scan from the first
    /// byte) gives, result, error offset and reason and escape flag, from every quote of every line.
    func testStringFastPathAgreesWithTheWholeScan() throws {
        var checked = 0
        for line in try fastPathLines() {
            line.withUnsafeBytes { s in
                for start in s.indices where s[start] == UInt8(ascii: "\"") {
                    var fastEscaped = false, slowEscaped = false
                    let fast = _JSONScanner.scanString(s, start, s.count, &fastEscaped)
                    let slow = _JSONScanner.scanStringRest(s, start, start + 1, s.count, 0, &slowEscaped)
                    XCTAssertEqual(fast, slow, "from \(start): \(String(decoding: line.prefix(120), as: UTF8.self).debugDescription)")
                    XCTAssertEqual(fastEscaped, slowEscaped, "from \(start)")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 50_000)
    }

    /// A string of every length up to 40 with a quote, backslash escape, `\u` escape or pair, control byte,
    /// byte of 0x80 and above (valid or not) at every position, so that each falls in the first word, the
    /// second, or past both, as a key and as a value, and with the line ending right after it: Foundation
    /// and the scanner agree, and the string fast path agrees with the whole scan.
    func testEveryPositionInTheFirstWordsAgreesWithFoundation() {
        let specials: [[UInt8]] = [
            Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\n"#.utf8), Array(#"\u00e9"#.utf8), Array(#"\ud83d\ude00"#.utf8),
            Array(#"\ud83d"#.utf8), Array(#"\x"#.utf8), [0x1F], [0x00], [0x80], [0xC3, 0xA9], [0xE0, 0xB8, 0x81], [0xC3], [0x22],
        ]
        for length in 0...40 {
            for position in 0...length {
                for special in specials {
                    var content = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    content.insert(contentsOf: special, at: position)
                    let q: [UInt8] = [UInt8(ascii: "\"")]
                    let string = q + content + q
                    let lines: [[UInt8]] = [
                        Array(#"{"body":"#.utf8) + string + Array("}".utf8),
                        Array(#"{"id":"#.utf8) + string + Array(#","body":"x"}"#.utf8),
                        Array("{".utf8) + string + Array(#":1,"body":"x"}"#.utf8),
                        Array("{".utf8) + string + Array(#":"#.utf8) + string + Array("}".utf8),
                    ]
                    for line in lines {
                        assertAgree(line)
                        line.withUnsafeBytes { s in
                            for start in s.indices where s[start] == UInt8(ascii: "\"") {
                                var a = false, b = false
                                XCTAssertEqual(
                                    _JSONScanner.scanString(s, start, s.count, &a), _JSONScanner.scanStringRest(s, start, start + 1, s.count, 0, &b),
                                    "from \(start): \(String(decoding: line, as: UTF8.self).debugDescription)")
                                XCTAssertEqual(a, b)
                            }
                        }
                    }
                }
            }
        }
    }

    /// A non-string value at the top level: `plainValueEnd` ends it where `skipValue` does, or leaves it to
    /// `skipValue` (containers, and anything that is no value, so the error is `skipValue`'s).
    func testPlainValueEndAgreesWithSkipValue() throws {
        let values = ["null", "true", "false", "nul", "tru", "fals", "falsy", "nulll", "n", "t", "f", "-", "-0", "01", "1.", "1.5",
                      "-12.5e+3", "1e", "1E-2", "0", "+1", "NaN", "[1]", "{}", "\"s\""]
        var lines = try fastPathLines()
        for v in values {
            lines.append(Array("{\"id\":\(v)".utf8))
            lines.append(Array("{\"id\":\(v),\"body\":\"x\"}".utf8))
            lines.append(Array("{\"body\":\"x\",\"id\":\(v)}".utf8))
        }
        var checked = 0
        for line in lines {
            line.withUnsafeBytes { s in
                for i in s.indices {
                    guard let fast = _JSONScanner.plainValueEnd(s, i, s.count) else { continue }
                    XCTAssertEqual(_JSONScanner.skipValue(s, i, s.count, depth: 1), .success(fast), "at \(i): \(String(decoding: line.prefix(120), as: UTF8.self).debugDescription)")
                    checked += 1
                }
            }
            assertAgree(line)
        }
        XCTAssertGreaterThan(checked, 10_000)
    }

    /// `digitsEnd` (8 bytes at a time) against a byte loop: every byte value at every position of a run of
    /// 0 to 20 digits, with 0 to 3 bytes after it, so that the run ends in the first word, the second, or the
    /// byte loop.
    func testDigitsEndAgreesWithTheByteLoop() {
        for length in 0...20 {
            for position in 0...length {
                for tail in 0...3 {
                    for byte in 0...255 {
                        var bytes = [UInt8](repeating: UInt8(ascii: "7"), count: length + tail)
                        if position < bytes.count { bytes[position] = UInt8(byte) }
                        let expected = bytes.firstIndex { $0 < 0x30 || $0 > 0x39 } ?? bytes.count
                        bytes.withUnsafeBytes { s in
                            XCTAssertEqual(_JSONScanner.digitsEnd(s, 0, s.count), expected, "\(bytes)")
                        }
                    }
                }
            }
        }
    }

    /// Wanted keys compared as masked 8-byte words (`_KeyTable.prefixes`) fill the same fields as the byte
    /// comparison, for keys of 1 to 23 bytes and their near misses (one byte changed, one more, one fewer,
    /// escaped), anywhere in the line including its last bytes.
    func testKeyPrefixesFindWhatTheByteComparisonFinds() throws {
        let names = ["i", "id", "body", "sender", "abcdefg", "abcdefgh", "abcdefghi", "a_much_longer_key_name", "ts"]
        let table = _KeyTable(names)
        var keys = names.map { Array($0.utf8) }
        for name in names {
            let b = Array(name.utf8)
            keys.append(b.dropLast() + [UInt8(ascii: "X")])
            keys.append(b + [UInt8(ascii: "s")])
            if b.count > 1 { keys.append(Array(b.dropLast())) }
            keys.append(Array("\\u00\(String(b[0], radix: 16))".utf8) + b.dropFirst())
        }
        var rng = Fixtures.SeededGenerator(seed: 2024)
        var lines: [[UInt8]] = try corpusLines().prefix(500).map { $0 }
        for _ in 0..<3000 {
            var line: [UInt8] = Array("{".utf8)
            for m in 0..<(1 + Int(rng.next() % 4)) {
                if m > 0 { line += Array(",".utf8) }
                line += Array("\"".utf8) + keys[Int(rng.next() % UInt64(keys.count))] + Array("\":".utf8)
                line += rng.next() % 2 == 0 ? Array("1".utf8) : Array("\"v\"".utf8)
            }
            line += Array("}".utf8)
            lines.append(line)
        }
        let withPrefixes = UnsafeMutableBufferPointer<JSONField>.allocate(capacity: names.count)
        let without = UnsafeMutableBufferPointer<JSONField>.allocate(capacity: names.count)
        defer {
            withPrefixes.deallocate()
            without.deallocate()
        }
        for line in lines {
            line.withUnsafeBytes { s in
                let a = _JSONScanner.scan(s, keys: table.all, prefixes: table.prefixes, fields: withPrefixes)
                let b = _JSONScanner.scan(s, keys: table.all, fields: without)
                XCTAssertEqual(a, b)
                XCTAssertEqual(Array(withPrefixes), Array(without), String(decoding: line, as: UTF8.self))
            }
        }
        // A direct case: the key of exactly 8 bytes and its near misses, the line ending 4 bytes after it.
        for (key, slot) in [("abcdefgh", 5), ("abcdefgX", -1), ("abcdefghi", 6), ("abcdefg", 4), ("i", 0), ("ts", 8)] {
            let line = Array("{\"\(key)\":1}".utf8)
            line.withUnsafeBytes { s in
                XCTAssertNil(_JSONScanner.scan(s, keys: table.all, prefixes: table.prefixes, fields: withPrefixes))
                XCTAssertEqual(withPrefixes.firstIndex { $0.kind != .missing } ?? -1, slot, key)
            }
        }
    }
}
