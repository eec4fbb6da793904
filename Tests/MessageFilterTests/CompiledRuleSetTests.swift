import TestSupport
import XCTest
@testable import MessageFilter

final class CompiledRuleSetTests: XCTestCase {
    func temp() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("smsf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    let bodies: [(String?, String)] = [
        (nil, "Rs 500 debited"), ("AD-FLIPKT-P", "hi"), ("VM-HDFCBK-T", "OTP 1234"), (nil, "big sale"),
        ("56161", ""), (nil, "You won, claim now"), ("+441234567890", "hello"), (nil, "Ваша ДОСТАВКА"),
        (nil, "coupon for order #4"), (nil, "forecast"), (nil, "voucher"),
    ]

    func testRoundTripGivesIdenticalVerdictsAndChecksum() throws {
        let yamlSet = try RuleSet.parse(yaml: ClassifierTests.yaml, file: "t.yaml")
        let path = try temp().appendingPathComponent("t.smsf").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(yamlSet.serialize())))
        let loaded = try RuleSet.load(path: path)
        XCTAssertEqual(loaded.checksum, yamlSet.checksum)
        XCTAssertEqual(loaded.ruleNames, yamlSet.ruleNames)
        XCTAssertEqual(loaded.definition, yamlSet.definition)
        XCTAssertEqual(loaded.serialize(), yamlSet.serialize())
        let a = Classifier(ruleSet: yamlSet)
        let b = Classifier(ruleSet: loaded)
        for (s, body) in bodies { XCTAssertEqual(a.classify(sender: s, body: body), b.classify(sender: s, body: body), body) }
        XCTAssertEqual(RuleSet.embeddedDefault.checksum.count, 16)
        XCTAssertNotEqual(RuleSet.embeddedDefault.checksum, yamlSet.checksum)
    }

    /// The `.smsf` header, pinned: compiled rule sets ship to phones and must stay readable, and the rule
    /// set checksum is what `merge-counts` compares across machines and releases. Magic, version, section
    /// table and the rule-table checksum are literals (format version 6; version 4 added a fourth section, the learned
    /// model's automaton, written empty since issue 23, when the model lost its automaton; version 6 the model's
    /// overrule table, one flag byte when it has none); the automata sections are pinned by AhoCorasick's
    /// `PinnedImageTests`. The checksums are the values this format produced when it was pinned (2026-11-23, v4; the
    /// set without a model keeps its v3 checksum, 8fbb728e5f8938d0: v4 to v6 changed no byte of a model-less rule
    /// table; the set with a model was re-pinned for v6 on 2026-11-26, deliberately: its model's record ends with
    /// the overrule flag): a change to them is a change of every compiled file's identity and must be deliberate.
    func testHeaderIsPinned() throws {
        let rules = """
            version: 1
            normalize: none
            rules:
              - {name: prize, action: junk, keywords: [prize]}
              - {name: greek, action: promotion, caseFold: unicode, keywords: [σας]}
            """
        let set = try RuleSet.parse(yaml: rules, file: "pinned.yaml")
        let withModel = try RuleSet.parse(yaml: rules + "\n" + RuleYAML.learnedModel, file: "pinned.yaml")
        for (set, checksum) in [(set, "8fbb728e5f8938d0"), (withModel, "d46e603e579aa74a")] {
            let bytes = set.serialize()
            func u64(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
            func u32(_ at: Int) -> UInt32 { (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) } }
            XCTAssertEqual(Array(bytes[0..<8]), [0x53, 0x4D, 0x53, 0x46, 0x00, 0x0D, 0x0A, 0x1A], "magic SMSF\\0\\r\\n^Z")
            XCTAssertEqual(u32(8), 6, "format version")
            XCTAssertEqual(u32(12), 4, "sections")
            XCTAssertEqual(u64(16), UInt64(bytes.count), "length")
            XCTAssertEqual(set.checksum, checksum, "the rule set's checksum (rule table v6)")
            let hex = String(u64(32), radix: 16)
            XCTAssertEqual(String(repeating: "0", count: 16 - hex.count) + hex, set.checksum, "bytes 32..<40 hold the rule-table checksum")
            XCTAssertEqual(Array(bytes[40..<64]), [UInt8](repeating: 0, count: 24), "reserved")
            // Section table: rule table, ASCII automaton, Unicode automaton, the former model automaton (empty);
            // 16-byte aligned, in order.
            var end = 64 + 4 * 24
            for (k, kind) in [UInt32(1), 2, 3, 4].enumerated() {
                let entry = 64 + 24 * k
                XCTAssertEqual(u32(entry), kind)
                XCTAssertEqual(u32(entry + 4), 0)
                let offset = Int(u64(entry + 8))
                let length = Int(u64(entry + 16))
                XCTAssertEqual(offset % 16, 0, "section \(kind) aligned")
                XCTAssertGreaterThanOrEqual(offset, end, "section \(kind) after the previous one")
                if kind == 4 {
                    XCTAssertEqual(length, 0, "no model automaton (issue 23: the model's phrases are hashed at load)")
                } else {
                    XCTAssertGreaterThan(length, 0, "section \(kind) present")
                }
                end = offset + length
            }
            XCTAssertEqual(end, bytes.count)
        }
        XCTAssertNotEqual(set.checksum, withModel.checksum)
        // Another keyword is another rule set.
        let other = try RuleSet.parse(yaml: """
            version: 1
            normalize: none
            rules:
              - {name: prize, action: junk, keywords: [prizes]}
              - {name: greek, action: promotion, caseFold: unicode, keywords: [σας]}
            """, file: "pinned.yaml")
        XCTAssertNotEqual(other.checksum, set.checksum)
    }

    func testEveryTruncationIsRefused() throws {
        let set = try RuleSet.parse(yaml: ClassifierTests.yaml, file: "t.yaml")
        let bytes = set.serialize()
        for n in 0..<bytes.count {
            XCTAssertThrowsError(try _SMSFFormat.load(bytes: Array(bytes[0..<n]), path: "t.smsf"), "length \(n)") { e in
                XCTAssertEqual((e as? RuleSetLoadError)?.kind, .damaged)
            }
        }
    }

    /// Every single-bit flip is refused (the checksums catch it) or loads rules that behave identically.
    func testBitFlipsAreRefusedOrHarmless() throws {
        let set = try RuleSet.parse(yaml: ClassifierTests.yaml, file: "t.yaml")
        let bytes = set.serialize()
        let reference = Classifier(ruleSet: set)
        var refused = 0
        for i in 0..<bytes.count {
            for bit in [0, 3, 7] {
                var damaged = bytes
                damaged[i] ^= UInt8(1 << bit)
                if let loaded = try? _SMSFFormat.load(bytes: damaged, path: "t.smsf") {
                    let c = Classifier(ruleSet: loaded)
                    for (s, body) in bodies { XCTAssertEqual(c.classify(sender: s, body: body), reference.classify(sender: s, body: body)) }
                } else {
                    refused += 1
                }
            }
        }
        XCTAssertEqual(refused, bytes.count * 3)  // every byte is covered by a checksum or a check
    }

    /// A hostile file with valid checksums: one byte past the header replaced at random, both checksums
    /// recomputed, so only the structural checks stand between the bytes and the classifier. Either the
    /// file is refused as damaged, or what it loads is a consistent rule set: every verdict names a rule
    /// it has (or none), with that rule's action and validated folder, and a phrase span inside the body.
    func testResignedGarbageIsRefusedOrConsistent() throws {
        let set = try RuleSet.parse(yaml: ClassifierTests.yaml, file: "t.yaml")
        var bytes = set.serialize()
        var rng = Fixtures.seededGenerator("CompiledRuleSetTests.testResignedGarbageIsRefusedOrConsistent", defaultSeed: 0x5EED_5A5F)
        var refused = 0
        var loadedCount = 0
        for round in 0..<300 {
            var d = bytes
            let i = Int.random(in: 64..<d.count, using: &rng)
            d[i] = UInt8.random(in: 0...255, using: &rng)
            // Re-sign so that only the structural checks can catch the damage.
            let defRange: Range<Int> = d.withUnsafeBytes { raw in
                let off = Int(raw.loadUnaligned(fromByteOffset: 64 + 8, as: UInt64.self))
                let len = Int(raw.loadUnaligned(fromByteOffset: 64 + 16, as: UInt64.self))
                return off..<(off + len)
            }
            if defRange.upperBound <= d.count {
                let rs = d.withUnsafeBytes { _Checksum.hash(UnsafeRawBufferPointer(rebasing: $0[defRange])) }
                withUnsafeBytes(of: rs.littleEndian) { for k in 0..<8 { d[32 + k] = $0[k] } }
            }
            let fs = d.withUnsafeBytes { _Checksum.hash(UnsafeRawBufferPointer(rebasing: $0[64...])) }
            withUnsafeBytes(of: fs.littleEndian) { for k in 0..<8 { d[24 + k] = $0[k] } }
            let loaded: RuleSet
            do {
                loaded = try _SMSFFormat.load(bytes: d, path: "t.smsf")
            } catch {
                XCTAssertEqual((error as? RuleSetLoadError)?.kind, .damaged, "round \(round): byte \(i): \(error)")
                refused += 1
                continue
            }
            loadedCount += 1
            let c = Classifier(ruleSet: loaded)
            for (s, body) in bodies {
                let v = c.classify(sender: s, body: body)
                let context = "seed 0x\(String(rng.seed, radix: 16)) round \(round) byte \(i): \(body)"
                guard v.rule >= 0 else {
                    XCTAssertEqual(v.phrase, -1, context)
                    continue
                }
                XCTAssertLessThan(Int(v.rule), loaded.ruleNames.count, context)
                guard Int(v.rule) < loaded.definition.rules.count else { continue }
                let rule = loaded.definition.rules[Int(v.rule)]
                XCTAssertEqual(v.action, rule.action, context)
                XCTAssertEqual(v.requestedSubAction, rule.subAction, context)
                XCTAssertEqual(v.folder, loaded.capabilities.validate(action: rule.action, subAction: rule.subAction).folder, context)
                if v.phrase >= 0 {
                    XCTAssertLessThan(Int(v.phrase), loaded.phraseCount, context)
                    XCTAssertTrue(0 <= v.matchStart && v.matchStart <= v.matchEnd && Int(v.matchEnd) <= body.utf8.count, context)
                }
            }
        }
        print("CompiledRuleSetTests: 300 re-signed damaged files: \(refused) refused, \(loadedCount) loaded")
        XCTAssertEqual(refused + loadedCount, 300)
        XCTAssertGreaterThan(refused, 0, "the structural checks refused nothing")
        bytes[0] = 0
        XCTAssertThrowsError(try _SMSFFormat.load(bytes: bytes, path: "t.smsf"))
    }
}
