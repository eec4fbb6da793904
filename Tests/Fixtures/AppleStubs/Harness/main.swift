// Drives the extension classes that `smsfilter export-extension` generated, linked against the IdentityLookup
// and CallKit stand-ins beside this folder and the built MessageFilter library. ExportExtensionTests compiles
// it with swiftc into the export folder, so that `Bundle.main` finds Rules.smsf, BlockList.txt and
// IdentificationList.tsv there, as the extension finds them in its bundle on iOS.
//
//   harness messages IN.jsonl OUT.tsv   every {"sender", "body"} line through the generated message filter
//                                       class; OUT gets "action<TAB>subAction" (raw values) per line, and every
//                                       answer is compared with the Classifier API on the same bundled rules
//   harness query SENDER BODY           one message through the generated class alone (SENDER "" for none)
//   harness capabilities                the capabilities response, compared with the rule set's capabilities
//   harness calldirectory full|incremental   one Call Directory request; the entries are compared with the
//                                       rule set's lists; prints the outcome
//   harness describe DOMAIN CODE        the generated handler's description of a Call Directory error
//
// Prints one summary line starting with "HARNESS"; exits 1 on any disagreement.

import CallKit
import Foundation
import IdentityLookup
import MessageFilter

// The generated classes' names, substituted by the test (default names when run as is).
typealias FilterClass = MessageFilterExtension
typealias DirectoryClass = CallDirectoryHandler

func fail(_ message: String) -> Never {
    print("HARNESS FAIL \(message)")
    exit(1)
}

func bundledRuleSet() -> RuleSet {
    guard let url = Bundle.main.url(forResource: "Rules", withExtension: "smsf") else { fail("no Rules.smsf beside the harness") }
    do { return try RuleSet.load(path: url.path) } catch { fail("Rules.smsf: \(error)") }
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { fail("usage: harness messages|capabilities|calldirectory|describe …") }

switch arguments[1] {
case "messages":
    guard arguments.count == 4 else { fail("usage: harness messages IN.jsonl OUT.tsv") }
    guard let data = FileManager.default.contents(atPath: arguments[2]) else { fail("cannot read \(arguments[2])") }
    let ruleSet = bundledRuleSet()
    let classifier = Classifier(ruleSet: ruleSet)
    let filter = FilterClass()
    let context = ILMessageFilterExtensionContext()
    var out = ""
    var count = 0
    var mismatches = 0
    var firstMismatch = ""
    for line in data.split(separator: UInt8(ascii: "\n")) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
            fail("line \(count + 1) of \(arguments[2]) is not a JSON object")
        }
        let sender = object["sender"] as? String
        let body = object["body"] as? String
        let request = ILMessageFilterQueryRequest(_testSender: sender, messageBody: body, receiverISOCountryCode: "IN")
        var answer: ILMessageFilterQueryResponse?
        filter.handle(request, context: context) { answer = $0 }
        guard let response = answer else { fail("message \(count + 1): the completion handler was not called") }
        let direct = classifier.classify(sender: sender, body: body ?? "")
        if response.action.rawValue != direct.action.rawValue || response.subAction.rawValue != direct.subAction.rawValue {
            mismatches += 1
            if firstMismatch.isEmpty {
                firstMismatch = "message \(count + 1): extension \(response.action)/\(response.subAction), Classifier \(direct.action)/\(direct.subAction)"
            }
        }
        out += "\(response.action.rawValue)\t\(response.subAction.rawValue)\n"
        count += 1
    }
    guard FileManager.default.createFile(atPath: arguments[3], contents: Data(out.utf8)) else { fail("cannot write \(arguments[3])") }
    if context._testDeferrals != 0 { fail("the extension deferred \(context._testDeferrals) requests to the network") }
    if mismatches > 0 { fail("\(mismatches) of \(count) messages disagree with the Classifier API; first: \(firstMismatch)") }
    print("HARNESS messages=\(count) classifierMismatches=0")

case "query":
    // One message through the generated class alone (no comparison, so it also runs without Rules.smsf).
    guard arguments.count == 4 else { fail("usage: harness query SENDER|\"\" BODY") }
    let request = ILMessageFilterQueryRequest(
        _testSender: arguments[2].isEmpty ? nil : arguments[2], messageBody: arguments[3], receiverISOCountryCode: nil)
    var answer: ILMessageFilterQueryResponse?
    FilterClass().handle(request, context: ILMessageFilterExtensionContext()) { answer = $0 }
    guard let response = answer else { fail("the completion handler was not called") }
    print("HARNESS action=\(response.action.rawValue) subAction=\(response.subAction.rawValue)")

case "capabilities":
    let ruleSet = bundledRuleSet()
    var answer: ILMessageFilterCapabilitiesQueryResponse?
    FilterClass().handle(ILMessageFilterCapabilitiesQueryRequest(), context: ILMessageFilterExtensionContext()) { answer = $0 }
    guard let response = answer else { fail("the capabilities completion handler was not called") }
    let declared = ruleSet.capabilities.subActions
    let expectedT = declared.filter { $0.parent == .transaction }.map(\.rawValue)
    let expectedP = declared.filter { $0.parent == .promotion }.map(\.rawValue)
    let t = response.transactionalSubActions.map(\.rawValue)
    let p = response.promotionalSubActions.map(\.rawValue)
    if t != expectedT || p != expectedP { fail("capabilities \(t) \(p), rule set declares \(expectedT) \(expectedP)") }
    print("HARNESS transactional=\(t.map(String.init).joined(separator: ",")) promotional=\(p.map(String.init).joined(separator: ","))")

case "calldirectory":
    guard arguments.count == 3, arguments[2] == "full" || arguments[2] == "incremental" else {
        fail("usage: harness calldirectory full|incremental")
    }
    let incremental = arguments[2] == "incremental"
    let context = CXCallDirectoryExtensionContext(_testIncremental: incremental)
    let handler = DirectoryClass()
    handler.beginRequest(with: context)
    if context.delegate !== handler { fail("the handler did not make itself the context's delegate") }
    switch context._testOutcome {
    case .pending:
        fail("the request neither completed nor was cancelled")
    case .cancelled(let domain, let code, let description):
        print("HARNESS cancelled domain=\(domain) code=\(code) description=\(description)")
        exit(0)
    case .completed:
        break
    }
    if let error = context._testReportedError { fail("CallKit would report \(DirectoryClass.describe(error))") }
    let ruleSet = bundledRuleSet()
    let def = ruleSet.definition
    var expected: [CXCallDirectoryExtensionContext._TestCall] = incremental ? [.removeAllBlocks, .removeAllIdentifications] : []
    expected += def.blockList.map { .block($0) }
    expected += def.identificationNumbers.enumerated().map { .identify($0.element, ruleSet.label(at: Int(def.identificationLabels[$0.offset]))) }
    if context._testCalls != expected {
        let firstDifference = zip(context._testCalls, expected).enumerated().first { $0.element.0 != $0.element.1 }
        fail("\(context._testCalls.count) calls, expected \(expected.count); first difference: \(firstDifference.map { "#\($0.offset) \($0.element.0) vs \($0.element.1)" } ?? "length")")
    }
    print("HARNESS completed blocked=\(def.blockList.count) identified=\(def.identificationNumbers.count) calls=\(context._testCalls.count)")

case "describe":
    guard arguments.count == 4, let code = Int(arguments[3]) else { fail("usage: harness describe DOMAIN CODE") }
    let domain = arguments[2] == "calldirectory" ? CXErrorDomainCallDirectoryManager : arguments[2]
    print("HARNESS \(DirectoryClass.describe(NSError(domain: domain, code: code)))")

default:
    fail("unknown command \(arguments[1])")
}
