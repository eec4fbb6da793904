import Foundation
import TestSupport
import XCTest

@testable import MessageFilter

/// A learned model's `overrules:` table (docs/RULES.md §10, row 6b): read from YAML, written back as `learn`
/// writes it, carried through a compiled `.smsf`, and refused when damaged (in YAML with the field named, in a
/// re-signed `.smsf` as damaged); a model without the table stays without one.
final class OverruleTableTests: XCTestCase {
    static func yaml(overrules: String?) -> String {
        """
        version: 1
        rules: []
        model:
          name: m
          priority: 5
          targets: [none, junk, transaction, promotion]
          bias: [0.5, -0.5, -0.5, -0.5]
        \(overrules.map { "  overrules: \($0)\n" } ?? "")  phrases:
            - [word, "win", 1.5, -1.0, 1.0, 0, 0]

        """
    }

    /// Parses, writes the model's YAML back, re-parses, compiles to `.smsf` and loads it: the same table each time.
    func roundTrip(_ overrules: String?, file: StaticString = #filePath, line: UInt = #line) throws -> [Script: [Action: [Float]]]? {
        let set = try RuleSet.parse(yaml: Self.yaml(overrules: overrules), file: "m.yaml")
        let model = try XCTUnwrap(set.definition.model, file: file, line: line)
        let rewritten = "version: 1\nrules: []\n" + model.yaml()
        let again = try RuleSet.parse(yaml: rewritten, file: "again.yaml")
        XCTAssertEqual(again.definition.model?.overrules, model.overrules, rewritten, file: file, line: line)
        let folder = try Fixtures.temporaryFolder("overrules")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("m.smsf").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(set.serialize())))
        let loaded = try RuleSet.load(path: path)
        XCTAssertEqual(loaded.definition.model?.overrules, model.overrules, file: file, line: line)
        XCTAssertEqual(loaded.checksum, set.checksum, file: file, line: line)
        return model.overrules
    }

    func testATableSurvivesYAMLAndSMSFInCanonicalForm() throws {
        let tables = try XCTUnwrap(try roundTrip("{thai: {transaction: {junk: 2}}, latin: {junk: {none: 0.25, transaction: never}, none: {junk: 1.5, promotion: 0}}}"))
        // Per script given, one row per rule action (none, junk, promotion, transaction), one margin per target; left
        // out or the row's own action: never.
        XCTAssertEqual(Set(tables.keys), [.latin, .thai])
        let table = try XCTUnwrap(tables[.latin])
        let never = Float.infinity
        XCTAssertEqual(table[.none], [never, 1.5, never, 0])
        XCTAssertEqual(table[.junk], [0.25, never, never, never])
        XCTAssertEqual(table[.promotion], [never, never, never, never])
        XCTAssertEqual(table[.transaction], [never, never, never, never])
        XCTAssertEqual(Set(table.keys), [.none, .junk, .promotion, .transaction])
        XCTAssertEqual(tables[.thai]?[.transaction], [never, 2, never, never])
        let model = try XCTUnwrap(try RuleSet.parse(yaml: Self.yaml(overrules: "{latin: {junk: {none: 0.25}}}"), file: "m.yaml").definition.model)
        XCTAssertTrue(model.yaml().contains("\n  overrules:\n    latin:\n      none: {\"junk\": never, \"transaction\": never, \"promotion\": never}\n      junk: {\"none\": 0.25, \"transaction\": never, \"promotion\": never}\n"), model.yaml())
        // The margin a target needs, by script: a script left out never overrules; the same action is no overrule.
        XCTAssertEqual(model.overruleMargin(rule: .junk, target: 0, script: .latin), 0.25)
        XCTAssertEqual(model.overruleMargin(rule: .junk, target: 0, script: .thai), .infinity)
        XCTAssertEqual(model.overruleMargin(rule: .allow, target: 1, script: .latin), .infinity)  // allow is row none
        XCTAssertNil(model.overruleMargin(rule: .junk, target: 1, script: .latin))
        XCTAssertNil(model.overruleMargin(rule: .allow, target: 0, script: .latin))
        // An empty table: calibrated, nothing overrules.
        XCTAssertEqual(try roundTrip("{}"), [:])
    }

    func testAModelWithoutATableHasNone() throws {
        XCTAssertNil(try roundTrip(nil))
        let yaml = try RuleSet.parse(yaml: Self.yaml(overrules: nil), file: "m.yaml").definition.model!.yaml()
        XCTAssertFalse(yaml.contains("overrules"), yaml)
        // The compiled model has no overrule margins: it overrules a rule below it whenever it decides.
        let set = try RuleSet.parse(yaml: Self.yaml(overrules: nil), file: "m.yaml")
        XCTAssertEqual(set.model?.overrule.isEmpty, true)
        let with = try RuleSet.parse(yaml: Self.yaml(overrules: "{latin: {junk: {none: 1}}}"), file: "m.yaml")
        XCTAssertEqual(with.model?.overrule.count, Script.allCases.count * 5 * 4)
    }

    func testBadTablesAreErrorsNamingTheField() {
        let cases: [(String, String)] = [
            ("{latin: {junk: {none: -0.5}}}", "model.overrules.latin.junk.none"),
            ("{latin: {junk: {none: .nan}}}", "model.overrules.latin.junk.none"),
            ("{latin: {junk: {none: soon}}}", "model.overrules.latin.junk.none"),
            ("{latin: {junk: {junk: 1}}}", "model.overrules.latin.junk.junk"),  // a target with the rule's own action
            ("{latin: {junk: {spam: 1}}}", "model.overrules.latin.junk"),  // not a target
            ("{latin: {allow: {junk: 1}}}", "model.overrules.latin.allow"),  // allow rules are row none
            ("{latin: {block: {junk: 1}}}", "model.overrules.latin.block"),
            ("{klingon: {junk: {none: 1}}}", "model.overrules.klingon"),
            ("{junk: {none: 1}}", "model.overrules.junk"),  // the script level is missing
            ("[1, 2]", "model.overrules"),
            ("{latin: {junk: 1}}", "model.overrules.latin.junk"),
            ("{latin: [1]}", "model.overrules.latin"),
        ]
        for (table, field) in cases {
            let issues = RuleSet.resolve(yaml: Self.yaml(overrules: table), file: "m.yaml").issues
            XCTAssertEqual(issues.map(\.field), [field], table)
        }
        XCTAssertEqual(RuleSet.resolve(yaml: Self.yaml(overrules: "{latin: {junk: {none: 0}}}"), file: "m.yaml").issues, [])
    }

    /// A compiled model whose checksum is right but whose overrule table is not (a negative margin, NaN):
    /// refused as damaged, naming the table.
    func testAResignedCompiledModelWithADamagedTableIsRefused() throws {
        var definition = try RuleSet.parse(yaml: Self.yaml(overrules: "{latin: {junk: {none: 1}}}"), file: "m.yaml").definition
        for forged: Float in [-1, -.infinity, .nan, -0.000001] {
            definition.model!.overrules![.latin]![.junk]![0] = forged
            let set = try RuleSet(definition: definition, source: "forged")
            let folder = try Fixtures.temporaryFolder("overrules-forged")
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("forged.smsf").path
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(set.serialize())))
            XCTAssertThrowsError(try RuleSet.load(path: path), "\(forged)") { error in
                XCTAssertEqual((error as? RuleSetLoadError)?.kind, .damaged, "\(error)")
                XCTAssertTrue("\(error)".contains("model overrule margin"), "\(error)")
            }
        }
    }
}
