import Foundation
import TestSupport
import XCTest

@testable import MessageFilter

/// A model's name is checked as a rule's is (issue 21 item 8): control characters in it split TSV rows and
/// reach terminals. In YAML, in a compiled `.smsf` (re-signed, so only the decoder's check can catch it) and
/// through `RuleDefinition.isValidName`, which `learn --model-name` uses.
final class ModelNameTests: XCTestCase {
    static let names = ["a\tb", "a\nb", "a\u{0}b", "a\rb", "\u{1B}[31mred", "a\u{85}b", "a\u{7F}b", ""]

    func testModelNamesWithControlCharactersAreRefusedInYAML() {
        // (DEL is not printable YAML: the parser refuses it before the name is looked at.)
        for name in Self.names where name != "a\u{7F}b" {
            let escaped = name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" ? String($0) : String(format: "\\u%04X", $0.value) }.joined()
            let yaml = ModelTests.yaml.replacingOccurrences(of: "name: learned", with: "name: \"\(escaped)\"")
            let issues = RuleSet.resolve(yaml: yaml, file: "m.yaml").issues
            XCTAssertEqual(issues.map(\.field), ["model.name"], name.debugDescription)
        }
        XCTAssertEqual(RuleSet.resolve(yaml: ModelTests.yaml, file: "m.yaml").issues, [])
    }

    func testACompiledModelWhoseNameHasControlCharactersIsRefused() throws {
        for name in Self.names {
            var definition = try RuleSet.parse(yaml: ModelTests.yaml, file: "m.yaml").definition
            definition.model?.name = name
            let bytes = try RuleSet(definition: definition, source: "forged").serialize()
            XCTAssertThrowsError(try _SMSFFormat.load(bytes: bytes, path: "forged.smsf"), name.debugDescription) { error in
                XCTAssertTrue("\(error)".contains("model name"), "\(error)")
            }
        }
    }

    func testOneRuleForRuleAndModelNames() {
        for name in Self.names { XCTAssertFalse(RuleDefinition.isValidName(name), name.debugDescription) }
        for name in ["model", "learned-2026", "ชื่อ", "名字", "a b", "=HYPERLINK()"] {
            XCTAssertTrue(RuleDefinition.isValidName(name), name)
        }
    }
}
