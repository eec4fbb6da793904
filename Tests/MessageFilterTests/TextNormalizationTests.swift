import AhoCorasick
import Foundation
import TestSupport
import XCTest
@testable import MessageFilter

/// `normalize:` (TextNormalization): each step on its own, spans back into the original bytes, phrases and
/// text normalised alike, and the batch, single and String paths agreeing.
final class TextNormalizationTests: XCTestCase {
    /// The precomputed per-scalar facts (`_ScalarFlags`) answer as the functions they are built from, for
    /// every scalar of the Basic Multilingual Plane, every one of the emoji blocks the table also holds
    /// (U+1F000…U+1FAFF) and the astral scalars either side of them, which are asked directly.
    func testScalarFlagsAnswerAsTheFunctions() {
        let flags = _ScalarFlags.shared
        var values = Array(UInt32(0)..<0x10000)
        values += Array(UInt32(0x1EF00)..<0x1FC00) + [0x10000, 0x10348, 0x1D400, 0x20000, 0x2A6D6, 0xE0041, 0x10FFFF, 0x110000]
        for v in values {
            guard let s = Unicode.Scalar(v) else {
                XCTAssertEqual(flags.of(v), 0, "U+\(String(v, radix: 16))")
                XCTAssertFalse(flags.isWord(v), "U+\(String(v, radix: 16))")
                continue
            }
            XCTAssertEqual(flags.of(v), _ScalarFlags.computed(s), "U+\(String(v, radix: 16))")
            XCTAssertEqual(flags.isWord(v), AhoCorasick.isWordScalar(s), "U+\(String(v, radix: 16))")
            XCTAssertEqual(flags.fold(v), AhoCorasick.simpleCaseFold(s).value, "U+\(String(v, radix: 16))")
        }
    }

    func testEachStep() {
        let cases: [(TextNormalization, String, String)] = [
            // Compatibility forms (NFKC): fullwidth, ligature, circled digit, math bold, no-break space.
            (.standard, "ｆｒｅｅ ＦＲＥＥ", "free FREE"),
            (.standard, "ﬁnal ① 𝐁ank\u{00A0}x", "final 1 Bank x"),
            // Invisible controls removed.
            (.standard, "fr\u{200B}ee ca\u{00AD}sh wi\u{2060}n \u{202E}x", "free cash win x"),
            // Look-alikes in words mixed with ASCII letters (Cyrillic е, а, ѕ; Greek ϲ) → ASCII.
            (.standard, "Dеаr ϲuѕtomеr", "Dear customer"),
            // A word of look-alikes only → ASCII; a real Russian word stays Cyrillic, case folded.
            (.standard, "ТАХІ", "TAXI"),
            (.standard, "ДОСТАВКА доставка", "доставка доставка"),
            // Greek and accented Latin: case folded only.
            (.standard, "ΣΑΣ Été", "σασ été"),
            // ASCII is left alone (the automaton folds ASCII case).
            (.standard, "Call 0800 NOW!", "Call 0800 NOW!"),
            (.none, "ｆｒｅｅ", "ｆｒｅｅ"),
            // leet: digits in words with letters, l → i, @ and $ between letters.
            (.leet, "fr33 c1ick p@ypal ca$h 1000 call", "free ciick paypai cash 1000 caii"),
        ]
        for (mode, input, expected) in cases {
            XCTAssertEqual(mode.apply(input), expected, "\(mode) \(input)")
        }
    }

    func testSpansPointIntoTheOriginal() {
        let input = "aｆb\u{200B}c"
        let (text, spans) = TextNormalization.standard.applyWithSpans(input)
        XCTAssertEqual(text, "afbc")
        // ｆ is 3 bytes at 1..<4; the zero-width space (4..<7 after b) is gone.
        XCTAssertEqual(spans, [0..<1, 1..<4, 4..<5, 8..<9])
    }

    func testInvalidUTF8PassesThrough() {
        let n = _TextNormalizer()
        let bytes: [UInt8] = [0x41, 0xFF, 0xEF, 0xBD, 0x86, 0xC3]
        bytes.withUnsafeBytes { n.normalize($0, mode: .standard) }
        XCTAssertEqual(n.copied.bytes, [0x41, 0xFF, 0x66, 0xC3])
        XCTAssertEqual(n.copied.starts, [0, 1, 2, 5])
        XCTAssertEqual(n.copied.ends, [1, 2, 5, 6])
    }

    /// The byte parser of the normalisation tables reads the same entries as a plain `Character`-level split
    /// of the table text (the parser it replaced), entry by entry.
    func testTableParserReadsEveryEntry() {
        func reference(_ table: String) -> [(UInt32, String)] {
            table.split(whereSeparator: { $0 == ";" || $0 == "\n" }).compactMap { item in
                let t = item.drop(while: { $0 == " " || $0 == "\n" })
                guard let colon = t.firstIndex(of: ":") else { return nil }
                return (UInt32(t[..<colon], radix: 16)!, String(t[t.index(after: colon)...]))
            }
        }
        for table in [_NormalizationTables.compatibility, _NormalizationTables.confusables] {
            var parsed: [(UInt32, String)] = []
            _NormalizationLookup.entries(table) { parsed.append(($0, String(decoding: $1, as: UTF8.self))) }
            let expected = reference(table)
            XCTAssertEqual(parsed.count, expected.count)
            XCTAssertGreaterThan(parsed.count, 100)
            for (a, b) in zip(parsed, expected) where a != b { XCTFail("\(a) != \(b)"); break }
        }
        // A few entries by hand: U+00BC ¼ → 1⁄4, U+00AD soft hyphen removed, Cyrillic а looks like a.
        let lookup = _NormalizationLookup.shared
        func replacement(_ v: UInt32) -> [UInt32]? {
            let e = lookup.entry(v)
            guard e >= 0, lookup.replacementStart[e] >= 0 else { return nil }
            let s = Int(lookup.replacementStart[e])
            return Array(lookup.replacements[s..<(s + Int(lookup.replacementCount[e]))])
        }
        XCTAssertEqual(replacement(0xBC), [0x31, 0x2044, 0x34])
        XCTAssertEqual(replacement(0xAD), [])
        XCTAssertEqual(lookup.lookalike[lookup.entry(0x430)], UInt8(ascii: "a"))
        XCTAssertLessThan(lookup.entry(0x41), 0)
    }

    /// Whether `mode` rewrites `bytes` before scanning (`needsRewrite`), checked against the normaliser: a body
    /// it leaves alone (scans in place) normalises to itself, each ASCII byte its own span, and a body the
    /// normaliser changes is rewritten.
    func rewrites(_ bytes: [UInt8], _ mode: TextNormalization) -> Bool {
        let n = _TextNormalizer()
        return bytes.withUnsafeBytes { body in
            n.normalize(body, mode: mode)
            let (output, starts, ends) = n.copied
            var same = output == bytes
            for i in 0..<n.count where same && bytes[i] < 0x80 {
                if Int(starts[i]) != i || Int(ends[i]) != i + 1 { same = false }
            }
            let rewritten = mode.needsRewrite(body)
            if !rewritten { XCTAssertTrue(same, "\(bytes) is scanned in place but normalises to \(output)") }
            // Anything with a changing character must be rewritten.
            if output != bytes { XCTAssertTrue(rewritten, "\(bytes)") }
            return rewritten
        }
    }

    /// A body `standard` would leave alone is not rewritten (it is scanned in place), and the normaliser
    /// indeed returns it unchanged, each byte its own span; bodies it changes are rewritten.
    func testBodiesLeftAloneAreExactlyTheUnchangedOnes() {
        var rng = Fixtures.seededGenerator("testBodiesLeftAloneAreExactlyTheUnchangedOnes", defaultSeed: 0x7E57)
        let pieces = ["สวัสดี", "ครับ", "ฟรี", "验证码", "您好", "नमस्ते", "abc", "ABC", " ", "1", "é", "É", "ｆ", "а", "Ⱥ",
                      "\u{200B}", "😀", "ß", "ſ", "ǅ", "\u{301}", "Ω", "ω", "ก", "๑", "٣", "ﬁ", "…", "\u{FEFF}"]
        var unchanged = 0, changed = 0
        for round in 0..<3000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 1...8, using: &rng) { bytes += Array(pieces.randomElement(using: &rng)!.utf8) }
            if round % 10 == 0 { bytes.insert([0xFF, 0xC3, 0xE0, 0x80][Int.random(in: 0...3, using: &rng)], at: Int.random(in: 0...bytes.count, using: &rng)) }
            if rewrites(bytes, .standard) { changed += 1 } else { unchanged += 1 }
        }
        XCTAssertGreaterThan(unchanged, 100)
        XCTAssertGreaterThan(changed, 100)
    }

    /// The same under `leet`: a body left alone (no ASCII letter, nothing `standard` changes, no spaced-out
    /// run) normalises to itself, each byte its own span; every body the normaliser changes is rewritten.
    func testLeetBodiesLeftAloneAreUnchanged() {
        var rng = Fixtures.seededGenerator("testLeetBodiesLeftAloneAreUnchanged", defaultSeed: 0x1EE7)
        let pieces = ["สวัสดี", "ครับ", "ก", "验证码", "您", "好", "नमस्ते", "क", "1", "23", "0", " ", ".", "-", "_", "*", "·", "•",
                      "/", ":", "@", "$", "a", "l", "L", "é", "а", "ｆ", "\u{200B}", "\u{A0}", "😀", "٣", "๑", "…", "\u{301}", "\n"]
        var unchanged = 0, changed = 0
        for round in 0..<4000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 1...9, using: &rng) { bytes += Array(pieces.randomElement(using: &rng)!.utf8) }
            if round % 10 == 0 { bytes.insert([0xFF, 0xC3, 0xE0, 0x80][Int.random(in: 0...3, using: &rng)], at: Int.random(in: 0...bytes.count, using: &rng)) }
            if rewrites(bytes, .leet) { changed += 1 } else { unchanged += 1 }
        }
        XCTAssertGreaterThan(unchanged, 100)
        XCTAssertGreaterThan(changed, 100)
        // By hand: a spaced-out run and a lone digit among letters are rewritten; Thai and Chinese alone are not.
        for (text, rewritten) in [("1 2 3", true), ("你 好 吗", true), ("fr33", true), ("l", true), ("สวัสดีครับ 123", false),
                                  ("验证码 123456", false), ("12 34", false)] {
            var b = Array(text.utf8)
            b.withUnsafeMutableBytes { XCTAssertEqual(TextNormalization.leet.needsRewrite(UnsafeRawBufferPointer($0)), rewritten, text) }
        }
    }

    /// `standard`'s one-pass rewrite of bodies whose characters all normalise on their own (`appendLocal`)
    /// writes exactly what the two steps (`decode`, `emitWords`) write, bytes and spans, alone and appended
    /// after other bodies; bodies with a decorating mark, a bidi control or a look-alike letter go to the steps.
    func testLocalRewriteEqualsTheSteps() {
        var rng = Fixtures.seededGenerator("testLocalRewriteEqualsTheSteps", defaultSeed: 0x10CA1)
        let pieces = ["สวัสดี", "คำ", "ทำ", "\u{E33}", "验证码", "您好", "，", "。", "！", "：", "नमस्ते", "abc", "ABC", " ", "1",
                      "\n", "é", "É", "e\u{301}", "a\u{336}", "ｆ", "Ｆ", "а", "А", "Ⱥ", "ß", "ſ", "ǅ", "Ω", "ω", "ﬁ", "\u{FDFA}",
                      "\u{200B}", "\u{FE0F}", "😀", "𝐀", "٣", "…", "\u{FEFF}", "\u{A0}", "\u{202E}", "\u{202C}", "\u{2029}",
                      "\u{3099}", "か\u{3099}", "ก", "๑", "①", "™", "ｶ"]
        let local = _TextNormalizer(capacity: 4)
        let steps = _TextNormalizer(capacity: 4)
        steps.usesLocalPath = false
        var taken = 0, declined = 0
        for round in 0..<4000 {
            if round % 7 == 0 {
                local.reset()
                steps.reset()
            }
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 1...10, using: &rng) { bytes += Array(pieces.randomElement(using: &rng)!.utf8) }
            if round % 9 == 0 { bytes.insert([0xFF, 0xC3, 0xE0, 0x80, 0xED][Int.random(in: 0...4, using: &rng)], at: Int.random(in: 0...bytes.count, using: &rng)) }
            bytes.withUnsafeBytes { body in
                let before = local.count
                if local.appendLocal(body) {
                    taken += 1
                } else {
                    declined += 1
                    XCTAssertEqual(local.count, before)
                    _ = local.append(body, mode: .standard)
                }
                XCTAssertEqual(steps.append(body, mode: .standard), before..<local.count)
                XCTAssertEqual(local.copied.bytes, steps.copied.bytes, "\(bytes)")
                XCTAssertEqual(local.copied.starts, steps.copied.starts, "\(bytes)")
                XCTAssertEqual(local.copied.ends, steps.copied.ends, "\(bytes)")
            }
        }
        XCTAssertGreaterThan(taken, 500)
        XCTAssertGreaterThan(declined, 500)
        // By hand: Thai with SARA AM and Chinese with fullwidth punctuation take the one pass.
        for (text, isLocal) in [("คำ ทำ", true), ("你好，世界！", true), ("pаypal", false), ("l\u{336}o", false), ("a\u{202E}b", false)] {
            var b = Array(text.utf8)
            let n = _TextNormalizer()
            b.withUnsafeMutableBytes { XCTAssertEqual(n.appendLocal(UnsafeRawBufferPointer($0)), isLocal, text) }
        }
    }
}

extension _TextNormalizer {
    /// The output so far and its source spans, copied out of `withOutput`.
    var copied: (bytes: [UInt8], starts: [Int32], ends: [Int32]) { withOutput { (Array($0), Array($1), Array($2)) } }
}
