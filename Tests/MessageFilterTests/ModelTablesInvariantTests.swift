import XCTest
@testable import MessageFilter

// The learned model's tables (`_ModelTables`) and the classifier's model scratch checked by their invariants
// (`_invariantProblem`, which `_checkInvariants` traps on under MESSAGEFILTER_INTERNAL_CHECKS): sound tables
// pass, and each kind of damage the scan's unchecked reads would suffer from is named.

final class ModelTablesInvariantTests: XCTestCase {
    /// The default model compiled afresh (its own tables, so that damaging them touches no shared rule set).
    static func defaultModelAlone() throws -> RuleSet {
        var d = RuleSetDefinition()
        d.normalization = .standard
        return try RuleSet(definition: d.withModel(DefaultModel.definition), source: "default model alone")
    }

    func testSoundTablesPass() throws {
        let set = try Self.defaultModelAlone()
        let model = try XCTUnwrap(set.model)
        XCTAssertNil(model.table.withTables { $0._invariantProblem() })
        XCTAssertNil(try XCTUnwrap(RuleSet.embeddedDefault.model).table.withTables { $0._invariantProblem() })
        XCTAssertNil(try XCTUnwrap(Classifier(ruleSet: set).modelScratch)._invariantProblem(for: model))
        // Tables built without rows (the scan's own tests) and of no phrase at all.
        XCTAssertNil(_ModelFeatureTable(patterns: [Array("abc".utf8)], kinds: [.part]).withTables { $0._invariantProblem() })
        XCTAssertNil(_ModelFeatureTable(patterns: [], kinds: []).withTables { $0._invariantProblem() })
    }

    /// Writes `value` at `index` of `buffer` (a table the model owns), runs `check`, and writes the old value back.
    func damage<T>(_ buffer: UnsafeBufferPointer<T>, at index: Int, to value: T, _ check: () -> String?) -> String? {
        let p = UnsafeMutablePointer(mutating: buffer.baseAddress!) + index
        let old = p.pointee
        p.pointee = value
        defer { p.pointee = old }
        return check()
    }

    func testDamagedTablesAreNamed() throws {
        try XCTUnwrap(try Self.defaultModelAlone().model).table.withTables { try damageEach($0) }
    }

    func damageEach(_ t: _ModelTables) throws {
        let check = { t._invariantProblem() }
        XCTAssertGreaterThan(t.featureCount, 100)
        XCTAssertGreaterThan(t.runs.partLength.count, 1)
        // A slot naming a feature past the last (its hit would write past the per-feature buffers).
        let filled = try XCTUnwrap(t.index.slots.firstIndex { $0 != 0 })
        let beyond = t.index.slots[filled] & ~0xFFFF_FFFF | UInt64(t.featureCount + 1)
        XCTAssertEqual(damage(t.index.slots, at: filled, to: beyond, check)?.contains("names feature"), true)
        // A feature in two slots.
        let empty = try XCTUnwrap(t.index.slots.firstIndex(of: 0))
        XCTAssertEqual(damage(t.index.slots, at: empty, to: t.index.slots[filled], check)?.contains("in two slots"), true)
        // A pattern running backwards, and the starts not spanning the bytes.
        XCTAssertEqual(damage(t.index.patternStart, at: 1, to: Int32(t.index.patternBytes.count + 1), check)?.contains("runs backwards"), true)
        XCTAssertEqual(damage(t.index.patternStart, at: t.featureCount, to: 0, check)?.contains("do not span"), true)
        // Part lengths out of order, longer than the longest part, a need of nothing known.
        XCTAssertEqual(damage(t.runs.partLength, at: 1, to: t.runs.partLength[0], check)?.contains("longest first"), true)
        XCTAssertEqual(damage(t.runs.partLength, at: 0, to: t.runs.maxPartScalars + 1, check)?.contains("longest first"), true)
        XCTAssertEqual(damage(t.runs.partNeed, at: 0, to: 8, check)?.contains("needs 8"), true)
        // A row's trim flag neither 0 nor 1, an idf that is not finite.
        XCTAssertEqual(damage(t.weights.rows, at: t.weights.targets + 1, to: 0.5, check)?.contains("row has"), true)
        XCTAssertEqual(damage(t.weights.rows, at: t.weights.targets, to: .nan, check)?.contains("row has"), true)
        // Every damage undone.
        XCTAssertNil(t._invariantProblem())
    }

    /// The text phrases' lists (`_TextPhrases`, read unchecked by the scan per match state): sound lists pass,
    /// and state starts that do not span the features or run backwards, a feature past the last and a feature
    /// of no length are each named.
    func testDamagedTextPhraseListsAreNamed() throws {
        // Text phrases that overlap (several per match state) among phrases of other kinds.
        let list: [(ModelDefinition.MatchKind, String)] = [(.word, "free"), (.text, "ree e"), (.text, "e en"), (.part, "win"),
                                                           (.text, "ee"), (.text, "é"), (.text, "ฟรี")]
        let model = try XCTUnwrap(try ModelTextTests.model(.standard, phrases: list).model)
        let phrases = try XCTUnwrap(model.textPhrases)
        let features = model.featureCount
        XCTAssertGreaterThan(phrases.matchStateCount, 2)
        XCTAssertNil(phrases._invariantProblem(featureCount: features))
        XCTAssertEqual(phrases._invariantProblem(featureCount: features + 1)?.contains("list entries"), true)
        phrases.withLists { starts, listed, length in
            /// Writes `value` at `p[i]`, runs the check, and writes the old value back.
            func damage(_ p: UnsafePointer<Int32>, _ i: Int, _ value: Int32) -> String? {
                let q = UnsafeMutablePointer(mutating: p) + i
                let old = q.pointee
                q.pointee = value
                defer { q.pointee = old }
                return phrases._invariantProblem(featureCount: features)
            }
            XCTAssertEqual(damage(starts, 0, 1)?.contains("do not span"), true)
            XCTAssertEqual(damage(starts, 1, starts[2] + 1)?.contains("match state 2 run backwards"), true)
            XCTAssertEqual(damage(listed, 0, Int32(features))?.contains("lists feature \(features)"), true)
            XCTAssertEqual(damage(length, Int(listed[0]), 0)?.contains("length is not positive"), true)
        }
        // Every damage undone.
        XCTAssertNil(phrases._invariantProblem(featureCount: features))
    }

    /// A scratch made for another model cannot serve this one's scan.
    func testAScratchOfAnotherModelIsNamed() throws {
        let big = try XCTUnwrap(try Self.defaultModelAlone().model)
        let small = try ModelPrecedenceTests.ruleSet(threshold: "null")
        let s = try XCTUnwrap(Classifier(ruleSet: small).modelScratch)
        XCTAssertNil(s._invariantProblem(for: try XCTUnwrap(small.model)))
        XCTAssertNotNil(s._invariantProblem(for: big))
    }
}
