import Foundation
import XCTest
@testable import MessageFilter

/// A probe for heap allocations per message, run with a malloc-counting LD_PRELOAD library (a small C shim
/// that counts malloc/calloc/realloc/posix_memalign and prints the total at exit); skipped otherwise:
///
///     SMSFILTER_ALLOC_PROBE=200  LD_PRELOAD=libmc.so .build/debug/smsfilterPackageTests.xctest MessageFilterTests.AllocationProbeTests
///     SMSFILTER_ALLOC_PROBE=6600 LD_PRELOAD=libmc.so …
///
/// The two totals must be equal up to the noise of the test runner (measured: 102,038 and 101,711 in a debug
/// build; with the body conditions, 126,981 and 126,757 for 200, 126,820 and 126,595 for 30,000): classifying thousands more
/// messages (single and batch, with senders and sender conditions, URLs, phone numbers, amounts,
/// `startsWith` and wildcard entities) allocates nothing.
final class AllocationProbeTests: XCTestCase {
    func testClassifyManyMessages() throws {
        guard let n = ProcessInfo.processInfo.environment["SMSFILTER_ALLOC_PROBE"].flatMap(Int.init) else {
            throw XCTSkip("set SMSFILTER_ALLOC_PROBE=<messages> and run under a heap profiler")
        }
        let bodies = ["Rs 2,500 debited from A/c XX1234", "Use coupon SAVE20 today", "รหัส OTP ของคุณคือ 123456",
                      "<#> code 482913 at http://45.12.3.4/x or +44 (0)20 7946 0958", "Your EMI of ₹4,500 via UPI, remind me",
                      "您的验证码是 482913", "You have WON a £1000 prize! Call 09061234567 to claim",
                      "hey are you coming home?", "แจกเครดิตฟรี 100 บาท bit.ly/x", String(repeating: "sale offer ", count: 40)]
        let senders = ["VM-HDFCBK-T", "AD-MYNTRA-P", "56161", "+919876543210"]
        var buffer: [UInt8] = []
        var spans: [MessageSpan] = []
        for i in 0..<64 {
            let s = senders[i % senders.count]
            let b = bodies[i % bodies.count]
            spans.append(MessageSpan(senderStart: buffer.count, senderCount: s.utf8.count,
                                     bodyStart: buffer.count + s.utf8.count, bodyCount: b.utf8.count))
            buffer += Array(s.utf8) + Array(b.utf8)
        }
        let c = Classifier(ruleSet: RuleSet.embeddedDefault)
        // Every body condition and a wildcard entity, so each scanner runs on every message.
        let conditions = Classifier(ruleSet: try RuleSet.parse(yaml: """
            version: 1
            rules:
              - {name: u, action: junk, urls: [shortener, ip, {tld: [xyz]}, {domain: [example.com]}], keywords: [claim]}
              - {name: p, action: junk, phones: [any, {prefix: ["09"]}]}
              - {name: a, action: junk, amounts: [{currency: [GBP, THB], min: 10}, any]}
              - {name: s, action: transaction, startsWith: ["<#>", "OTP"], keywords: [code]}
              - {name: e, action: transaction, sender: {entity: ["HDFC*", "*YNTRA"]}, urls: none}
              - {name: w, action: transaction, keywords: [emi, upi, otp]}
            """, file: "probe.yaml"))
        var verdicts = [Verdict](repeating: Verdict(), count: spans.count)
        var checksum = 0
        buffer.withUnsafeBytes { buf in
            spans.withUnsafeBufferPointer { sp in
                verdicts.withUnsafeMutableBufferPointer { out in
                    for i in 0..<n {
                        let m = sp[i % sp.count]
                        let v = c.classify(sender: UnsafeRawBufferPointer(rebasing: buf[m.senderStart..<(m.senderStart + m.senderCount)]),
                                           body: UnsafeRawBufferPointer(rebasing: buf[m.bodyStart..<(m.bodyStart + m.bodyCount)]))
                        checksum &+= Int(v.rule)
                        checksum &+= Int(conditions.classify(
                            sender: UnsafeRawBufferPointer(rebasing: buf[m.senderStart..<(m.senderStart + m.senderCount)]),
                            body: UnsafeRawBufferPointer(rebasing: buf[m.bodyStart..<(m.bodyStart + m.bodyCount)])).rule)
                        if i % 64 == 0 {
                            c.classify(buffer: buf, messages: sp, into: out)
                            conditions.classify(buffer: buf, messages: sp, into: out)
                        }
                    }
                }
            }
        }
        XCTAssertNotEqual(checksum, 0)
    }
}

/// Throughput of the embedded default rules on the real corpora, printed, never asserted (SPEC §8: timing
/// lives in benchmarks). Run in release: `swift build -c release --build-tests -Xswiftc -enable-testing` then
/// `SMSFILTER_THROUGHPUT=1 .build/release/smsfilterPackageTests.xctest MessageFilterTests.ThroughputProbeTests`.
final class ThroughputProbeTests: XCTestCase {
    func testDefaultRulesThroughput() throws {
        guard ProcessInfo.processInfo.environment["SMSFILTER_THROUGHPUT"] != nil else { throw XCTSkip("set SMSFILTER_THROUGHPUT=1") }
        var records: [DefaultRulesTests.Record] = []
        for name in ["uci_sms_spam.jsonl.zst", "thai_sms.jsonl.zst"] { records += try DefaultRulesTests.corpus(name) ?? [] }
        var buffer: [UInt8] = []
        var spans: [MessageSpan] = []
        for r in records {
            spans.append(MessageSpan(senderStart: 0, senderCount: -1, bodyStart: buffer.count, bodyCount: r.body.utf8.count))
            buffer += Array(r.body.utf8)
        }
        let c = Classifier(ruleSet: RuleSet.embeddedDefault)
        var verdicts = [Verdict](repeating: Verdict(), count: spans.count)
        let rounds = 20
        var sink = 0
        var t0 = Date()
        buffer.withUnsafeBytes { buf in
            for _ in 0..<rounds {
                for m in spans {
                    sink &+= Int(c.classify(sender: nil, body: UnsafeRawBufferPointer(rebasing: buf[m.bodyStart..<(m.bodyStart + m.bodyCount)])).rule)
                }
            }
        }
        let single = Date().timeIntervalSince(t0)
        t0 = Date()
        buffer.withUnsafeBytes { buf in
            spans.withUnsafeBufferPointer { sp in
                verdicts.withUnsafeMutableBufferPointer { out in for _ in 0..<rounds { c.classify(buffer: buf, messages: sp, into: out) } }
            }
        }
        let batch = Date().timeIntervalSince(t0)
        // The matcher alone (every automaton, counting matches).
        var matches = 0
        t0 = Date()
        buffer.withUnsafeBytes { buf in
            for _ in 0..<rounds {
                for m in spans {
                    let body = UnsafeRawBufferPointer(rebasing: buf[m.bodyStart..<(m.bodyStart + m.bodyCount)])
                    for matcher in c.ruleSet.matchers { matcher?.forEachMatch(in: body) { _, _, _ in matches &+= 1 } }
                }
            }
        }
        let scan = Date().timeIntervalSince(t0)
        let engines = c.ruleSet.matchers.compactMap { $0 }.flatMap { [$0.narrow, $0.wide].compactMap { $0 } }
            .map { "\($0.engineKind) \($0.stateCount) states \($0.memoryUsage / 1024) KiB" }
        print(String(format: "THROUGHPUT matcher only: %.0f MB/s, %.1f matches per message; ", Double(buffer.count * rounds) / 1e6 / scan,
                     Double(matches) / Double(spans.count * rounds)) + engines.joined(separator: ", "))
        let mb = Double(buffer.count * rounds) / 1e6
        let msgs = Double(spans.count * rounds)
        print(String(format: "THROUGHPUT single: %.0f MB/s, %.2f M msg/s; batch: %.0f MB/s, %.2f M msg/s (%d bodies, %.1f MB, sink %d)",
                     mb / single, msgs / single / 1e6, mb / batch, msgs / batch / 1e6, spans.count, Double(buffer.count) / 1e6, sink))
    }
}
