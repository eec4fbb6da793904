import Foundation
import TestSupport
import XCTest

extension ExportExtensionTests {
    /// A learned model survives learn → compile → load → export-extension: the generated message filter,
    /// linked against the IdentityLookup stand-in, answers every message as `smsfilter classify` does with
    /// the same model (normalisation included).
    func testLearnedModelScoresIdenticallyInTheGeneratedExtension() throws {
        let products = try BuildProducts.find()
        var records = ""
        let spam = ["WIN a FREE prize now", "free entry call 09061 now", "claim your £1000 cash", "ｆｒｅｅ prize, Dеаr ϲuѕtomеr"]
        let ham = ["see you at home", "are you coming for dinner", "ok call me later", "thanks for the lunch"]
        for i in 0..<200 {
            let pool = i % 3 == 0 ? spam : ham
            let object: [String: Any] = ["body": pool[i % 4] + " " + pool[(i / 4) % 4], "label": i % 3 == 0 ? "spam" : "ham"]
            records += String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self) + "\n"
        }
        let train = try write("train.jsonl", records)
        // iOS needs declared capabilities: a base file with them and one hand rule above the model.
        let base = try write("base.yaml", """
            version: 1
            capabilities: [transactionalOthers]
            rules:
              - {name: otp, action: transaction, subAction: transactionalOthers, priority: 90, keywords: [otp]}

            """)
        let learnt = try run(["learn", "-q", "--map", "spam=junk,ham=none", "--rules", base, "--priority", "10", "-o", path("m.yaml"), train])
        XCTAssertEqual(learnt.status, 0, learnt.err)
        XCTAssertEqual(try run(["compile", "--quiet", path("m.yaml"), "-o", path("m.smsf")]).status, 0)
        let out = try export(path("m.smsf"))
        let stubs = dir.appendingPathComponent("stubs")
        try buildStubs(in: stubs)
        let harnessPath = try buildHarness(out, stubs: stubs, products: products)
        var messages: [Message] = []
        for (i, body) in (spam + ham + ["your otp is 4321, free prize", "ＷＩＮ ｎｏｗ", "hello", "", "fr\u{200B}ee £5"]).enumerated() {
            messages.append(Message(sender: i % 2 == 0 ? nil : "+447700900123", body: body))
        }
        // And 1,500 messages of the committed fixture (the same on every clone).
        for record in try GeneratedFixture.records().prefix(1500) {
            messages.append(Message(sender: nil, body: record.body))
        }
        let folders = try checkAgreement(export: out, harness: harnessPath, messages: messages, explainSample: 8)
        XCTAssertGreaterThan(folders["Junk"] ?? 0, 0)
        XCTAssertGreaterThan(folders["Unknown Senders"] ?? 0, 0)
        XCTAssertGreaterThan(folders["Transactions/Others"] ?? 0, 0)
    }
}
