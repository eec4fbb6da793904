import Foundation
import TestSupport
import XCTest
@testable import MessageFilter

/// Classifying allocates nothing per message once a classifier is warm (RULES.md §8).
///
/// The test compiles `Tests/Fixtures/MallocCounter/malloc_counter.c` (a shim counting every malloc, calloc,
/// realloc and aligned allocation) with the toolchain's clang and runs itself again in a child process with
/// the shim in `LD_PRELOAD`. The child classifies 64 messages (single and batch, with senders and sender
/// conditions; with the default rules, then with rules using every body condition and a wildcard entity)
/// to warm up, reads the count, classifies 6,400 more, reads it again and asserts that the two readings
/// are equal and that every verdict is the one the warm-up gave. Linux (glibc) only.
final class AllocationProbeTests: XCTestCase {
    static let bodies = [
        "Rs 2,500 debited from A/c XX1234", "Use coupon SAVE20 today", "รหัส OTP ของคุณคือ 123456", "您的验证码是 482913",
        "<#> code 482913 at http://45.12.3.4/x or +44 (0)20 7946 0958", "Your EMI of ₹4,500 via UPI, remind me",
        "You have WON a £1000 prize! Call 09061234567 to claim", "hey are you coming home?", "แจกเครดิตฟรี 100 บาท bit.ly/x",
        "Dеаr ϲuѕtomеr, your ＯＴＰ is 1234", String(repeating: "sale offer ", count: 40),
    ]
    /// Every body condition and a wildcard entity, so each scanner runs on every message.
    static let conditionRules = """
        version: 1
        rules:
          - {name: u, action: junk, urls: [shortener, ip, {tld: [xyz]}, {domain: [example.com]}], keywords: [claim]}
          - {name: p, action: junk, phones: [any, {prefix: ["09"]}]}
          - {name: a, action: junk, amounts: [{currency: [GBP, THB], min: 10}, any]}
          - {name: s, action: transaction, startsWith: ["<#>", "OTP"], keywords: [code]}
          - {name: e, action: transaction, sender: {entity: ["HDFC*", "*YNTRA"]}, urls: none}
          - {name: w, action: transaction, keywords: [emi, upi, otp]}
        """
    static let senders = ["VM-HDFCBK-T", "AD-MYNTRA-P", "56161", "+919876543210", "alerts@bank.example.com"]
    static let childVariable = "SMSFILTER_ALLOCATION_PROBE_CHILD"

    func testClassifyingAllocatesNothingPerMessage() throws {
        #if os(Linux)
        if ProcessInfo.processInfo.environment[Self.childVariable] == "1" {
            try probe()
        } else {
            try runChild()
        }
        #else
        throw XCTSkip("the allocation probe interposes glibc's malloc (Linux only)")
        #endif
    }

    #if os(Linux)
    /// The parent: build the shim, run this test under it, read its verdict.
    func runChild() throws {
        let folder = try Fixtures.temporaryFolder("malloc-counter")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/MallocCounter/malloc_counter.c").path
        let shim = folder.appendingPathComponent("libmalloc_counter.so").path
        var built: (status: Int32, stdout: Data, stderr: Data)?
        for compiler in ["clang", "cc"] {
            guard let r = try? Fixtures.run(compiler, ["-shared", "-fPIC", "-O1", "-o", shim, source], timeout: 120) else { continue }
            built = r
            if r.status == 0 { break }
        }
        guard let built, built.status == 0 else {
            XCTFail("cannot compile \(source) with clang or cc: \(built.map { String(decoding: $0.stderr, as: UTF8.self) } ?? "no compiler")")
            return
        }
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = shim
        environment[Self.childVariable] = "1"
        let testBinary = ProcessInfo.processInfo.arguments[0]
        let child = try Fixtures.run(
            testBinary, ["MessageFilterTests.AllocationProbeTests/testClassifyingAllocatesNothingPerMessage"], environment: environment,
            timeout: 300)
        let out = String(decoding: child.stdout, as: UTF8.self) + String(decoding: child.stderr, as: UTF8.self)
        XCTAssertEqual(child.status, 0, "the probe failed in the child:\n\(out)")
        XCTAssertTrue(out.contains("ALLOCATION-PROBE counter found"), "the child did not run under the shim:\n\(out)")
        for name in ["default rules", "body conditions"] {
            XCTAssertTrue(out.contains("ALLOCATION-PROBE 6400 messages: 0 allocations (\(name))"), out)
        }
    }

    /// The child, under the shim.
    func probe() throws {
        typealias Counter = @convention(c) () -> UInt64
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "smsfilter_malloc_count") else {
            XCTFail("smsfilter_malloc_count not found: LD_PRELOAD did not load the shim")
            return
        }
        print("ALLOCATION-PROBE counter found")
        let count = unsafeBitCast(symbol, to: Counter.self)
        var buffer: [UInt8] = []
        var spans: [MessageSpan] = []
        for i in 0..<64 {
            let s = Self.senders[i % Self.senders.count]
            let b = Self.bodies[i % Self.bodies.count]
            spans.append(MessageSpan(senderStart: buffer.count, senderCount: s.utf8.count,
                                     bodyStart: buffer.count + s.utf8.count, bodyCount: b.utf8.count))
            buffer += Array(s.utf8) + Array(b.utf8)
        }
        let classifiers = [
            ("default rules", Classifier(ruleSet: RuleSet.embeddedDefaultRulesOnly)),
            ("default rules and model", Classifier(ruleSet: RuleSet.embeddedDefault)),
            ("body conditions", Classifier(ruleSet: try RuleSet.parse(yaml: Self.conditionRules, file: "probe.yaml"))),
        ]
        for (name, c) in classifiers {
            // What each message must get, from the String API (allocates; before the measurement).
            let expected: [Int32] = (0..<64).map { i in
                c.classify(sender: Self.senders[i % Self.senders.count], body: Self.bodies[i % Self.bodies.count]).rule
            }
            // The messages reach several rules and, through the model's refinement, several folders.
            let folders = Set((0..<64).map { i in
                c.classify(sender: Self.senders[i % Self.senders.count], body: Self.bodies[i % Self.bodies.count]).folder.path
            })
            XCTAssertGreaterThan(Set(expected).count + folders.count, 6, "the messages reach several rules and folders (\(name): \(folders))")
            var verdicts = [Verdict](repeating: Verdict(), count: spans.count)
            let messages = 6400
            var mismatches = 0
            var before: UInt64 = 0
            var after: UInt64 = 0
            buffer.withUnsafeBytes { buf in
                spans.withUnsafeBufferPointer { sp in
                    verdicts.withUnsafeMutableBufferPointer { out in
                        // Warm-up: every message once, single and batch.
                        var i = 0
                        while i < sp.count {
                            let m = sp[i]
                            _ = c.classify(sender: UnsafeRawBufferPointer(rebasing: buf[m.senderStart..<(m.senderStart + m.senderCount)]),
                                           body: UnsafeRawBufferPointer(rebasing: buf[m.bodyStart..<(m.bodyStart + m.bodyCount)]))
                            i += 1
                        }
                        c.classify(buffer: buf, messages: sp, into: out)
                        before = count()
                        i = 0
                        while i < messages {
                            let k = i % sp.count
                            let m = sp[k]
                            let v = c.classify(sender: UnsafeRawBufferPointer(rebasing: buf[m.senderStart..<(m.senderStart + m.senderCount)]),
                                               body: UnsafeRawBufferPointer(rebasing: buf[m.bodyStart..<(m.bodyStart + m.bodyCount)]))
                            if v.rule != expected[k] { mismatches += 1 }
                            if k == 0 {
                                c.classify(buffer: buf, messages: sp, into: out)
                                var j = 0
                                while j < sp.count {
                                    if out[j].rule != expected[j] { mismatches += 1 }
                                    j += 1
                                }
                            }
                            i += 1
                        }
                        after = count()
                    }
                }
            }
            print("ALLOCATION-PROBE \(messages) messages: \(after - before) allocations (\(name))")
            XCTAssertEqual(after - before, 0, "allocations while classifying warm (\(name))")
            XCTAssertEqual(mismatches, 0, "verdicts differ from the String API's (\(name))")
        }
    }
    #endif
}
