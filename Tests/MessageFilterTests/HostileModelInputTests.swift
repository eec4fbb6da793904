import Foundation
import TestSupport
import XCTest

@testable import MessageFilter

/// Numbers in a `model:` section are checked like a rule's, never trusted (issue 21 item 3): the rule parser
/// was fixed for `priority: -9223372036854775808` in issue 14, the model parser and the `.smsf` model codec
/// were not (`abs(Int.min)` trapped).
final class HostileModelInputTests: XCTestCase {
    static func model(priority: String) -> String {
        """
        version: 1
        rules: []
        model:
          name: m
          priority: \(priority)
          targets: [junk, none]
          bias: [0.5, -0.5]
          phrases:
            - [word, "win", 1.5, 1.0, -1.0]

        """
    }

    func testModelPrioritiesAtTheEdgesOfIntAreErrorsNotTraps() {
        for p in ["-9223372036854775808", "9223372036854775807", "-1000001", "1000001"] {
            let issues = RuleSet.resolve(yaml: Self.model(priority: p), file: "m.yaml").issues
            XCTAssertEqual(issues.map(\.field), ["model.priority"], p)
        }
        for p in ["-1000000", "1000000", "0"] {
            XCTAssertEqual(RuleSet.resolve(yaml: Self.model(priority: p), file: "m.yaml").issues, [], p)
        }
    }

    /// A compiled rule set whose checksum is right but whose model priority is Int.min (a re-signed file):
    /// refused as damaged.
    func testAResignedCompiledModelWithTheSmallestPriorityIsRefused() throws {
        var definition = try RuleSet.parse(yaml: Self.model(priority: "5"), file: "m.yaml").definition
        for forged in [Int.min, Int.max, 1_000_001] {
            definition.model!.priority = forged
            let set = try RuleSet(definition: definition, source: "forged")
            let folder = try Fixtures.temporaryFolder("hostile-model")
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("forged.smsf").path
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(set.serialize())))
            XCTAssertThrowsError(try RuleSet.load(path: path), "\(forged)") { error in
                XCTAssertEqual((error as? RuleSetLoadError)?.kind, .damaged, "\(error)")
                XCTAssertTrue("\(error)".contains("model priority"), "\(error)")
            }
        }
    }
}
