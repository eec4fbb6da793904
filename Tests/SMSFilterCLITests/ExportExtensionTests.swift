import Foundation
import TestSupport
import XCTest

/// `smsfilter export-extension` end to end: the files it writes, what it refuses, the generated Swift
/// type-checked against IdentityLookup/CallKit stand-ins (`Tests/Fixtures/AppleStubs`), a harness that
/// drives the generated classes over the committed fixture and compares every answer with the Classifier API
/// (in the harness), with `smsfilter classify` (every message) and with `smsfilter explain --json` (a sample),
/// the Call Directory handler's requests, and `Scripts/check-portability.sh`.
///
/// Needs the debug build (`swift build --build-tests`): the harness links the built MessageFilter,
/// AhoCorasick and Yams objects.
final class ExportExtensionTests: CLITestCase {
    var dir: URL { folder }

    // MARK: Helpers



    func read(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    static let stubsFolder = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/AppleStubs")
    static let samples = Fixtures.packageRoot.appendingPathComponent("samples")

    /// Where SwiftPM put the build products of the `smsfilter` binary under test.
    struct BuildProducts {
        /// The build folder (`.build/<triple>/debug`).
        var folder: URL
        /// `-I` folders: the .swiftmodule files.
        var modules: URL
        /// `-fmodule-map-file` for the C modules the Swift modules import (Yams's CYaml).
        var moduleMaps: [String]
        /// The object files of MessageFilter, AhoCorasick, Yams and CYaml.
        var objects: [String]

        static func find() throws -> BuildProducts {
            let binary = URL(fileURLWithPath: Fixtures.smsfilterBinary).resolvingSymlinksInPath()
            let folder = binary.deletingLastPathComponent()
            let modules = folder.appendingPathComponent("Modules")
            guard FileManager.default.fileExists(atPath: modules.appendingPathComponent("MessageFilter.swiftmodule").path) else {
                throw XCTSkip("no MessageFilter.swiftmodule in \(modules.path): run `swift build --build-tests` first")
            }
            // The checkouts folder: beside the triple folder (.build/checkouts), else under the package.
            var checkouts = Fixtures.packageRoot.appendingPathComponent(".build/checkouts")
            var up = folder
            for _ in 0..<3 {
                up.deleteLastPathComponent()
                let candidate = up.appendingPathComponent("checkouts")
                if FileManager.default.fileExists(atPath: candidate.path) {
                    checkouts = candidate
                    break
                }
            }
            var maps: [String] = []
            if let e = FileManager.default.enumerator(atPath: checkouts.path) {
                while let p = e.nextObject() as? String {
                    if p.hasSuffix("/include/module.modulemap"), p.contains("/Sources/") {
                        maps.append(checkouts.appendingPathComponent(p).path)
                    }
                }
            }
            // AhoCorasick's C target (the prefilter's SIMD kernels): SwiftPM writes its module map into its
            // build folder.
            let simdMap = folder.appendingPathComponent("CAhoCorasickSIMD.build/module.modulemap")
            if FileManager.default.fileExists(atPath: simdMap.path) { maps.append(simdMap.path) }
            var objects: [String] = []
            for module in ["MessageFilter", "AhoCorasick", "CAhoCorasickSIMD", "Yams", "CYaml"] {
                let m = folder.appendingPathComponent("\(module).build")
                guard let e = FileManager.default.enumerator(atPath: m.path) else { throw XCTSkip("no \(m.path)") }
                // Swift targets list their current sources in `sources`: link only their objects, so that
                // objects of since-deleted files left in an incremental build folder are not linked too.
                let listed = (try? String(contentsOf: m.appendingPathComponent("sources"), encoding: .utf8))
                    .map { Set($0.split(separator: "\n").map { URL(fileURLWithPath: String($0)).lastPathComponent + ".o" }) }
                while let p = e.nextObject() as? String {
                    guard p.hasSuffix(".o") else { continue }
                    if let listed, !listed.contains(URL(fileURLWithPath: p).lastPathComponent) { continue }
                    objects.append(m.appendingPathComponent(p).path)
                }
            }
            return BuildProducts(folder: folder, modules: modules, moduleMaps: maps.sorted(), objects: objects.sorted())
        }

        var searchArguments: [String] {
            ["-I", modules.path] + moduleMaps.flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] }
        }
    }

    /// Compiles the IdentityLookup and CallKit stand-ins into `folder` (modules and objects).
    func buildStubs(in folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for module in ["IdentityLookup", "CallKit"] {
            let r = try Fixtures.run("swiftc", [
                "-swift-version", "6", "-warnings-as-errors", "-parse-as-library", "-wmo", "-module-name", module,
                "-emit-module", "-emit-module-path", folder.appendingPathComponent("\(module).swiftmodule").path,
                "-c", Self.stubsFolder.appendingPathComponent("\(module)/\(module).swift").path,
                "-o", folder.appendingPathComponent("\(module).o").path,
            ], timeout: 600)
            XCTAssertEqual(r.status, 0, "stub \(module): " + String(decoding: r.stderr, as: UTF8.self))
            if r.status != 0 { throw XCTSkip("the \(module) stub does not compile") }
        }
    }

    /// Exports `rules` into a new folder and returns it.
    func export(_ rules: String, _ extra: [String] = [], name: String = "out") throws -> URL {
        let out = dir.appendingPathComponent(name)
        let r = try run(["export-extension", rules, "-o", out.path] + extra)
        XCTAssertEqual(r.status, 0, r.err)
        return out
    }

    /// Compiles the harness with the generated classes of `export` into `export/harness`.
    func buildHarness(_ export: URL, stubs: URL, products: BuildProducts,
                      filterClass: String = "MessageFilterExtension", directoryClass: String = "CallDirectoryHandler") throws -> String {
        var main = try read(Self.stubsFolder.appendingPathComponent("Harness/main.swift"))
        main = main.replacingOccurrences(of: "typealias FilterClass = MessageFilterExtension", with: "typealias FilterClass = \(filterClass)")
            .replacingOccurrences(of: "typealias DirectoryClass = CallDirectoryHandler", with: "typealias DirectoryClass = \(directoryClass)")
        let mainFile = stubs.appendingPathComponent("harness-\(UUID().uuidString)/main.swift")
        try FileManager.default.createDirectory(at: mainFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try main.write(to: mainFile, atomically: true, encoding: .utf8)
        let harness = export.appendingPathComponent("harness").path
        let r = try Fixtures.run("swiftc", [
            "-swift-version", "6", "-warnings-as-errors", "-module-name", "Harness", "-I", stubs.path,
        ] + products.searchArguments + [
            export.appendingPathComponent("\(filterClass).swift").path,
            export.appendingPathComponent("\(directoryClass).swift").path,
            mainFile.path,
            stubs.appendingPathComponent("IdentityLookup.o").path, stubs.appendingPathComponent("CallKit.o").path,
        ] + products.objects + ["-o", harness], timeout: 600)
        XCTAssertEqual(r.status, 0, "harness: " + String(decoding: r.stderr, as: UTF8.self))
        return harness
    }

    func harness(_ path: String, _ args: [String]) throws -> (status: Int32, out: String) {
        let r = try Fixtures.run(path, args)
        return (r.status, String(decoding: r.stdout, as: UTF8.self))
    }

    // MARK: The files

    func testExportWritesEveryFileDeterministically() throws {
        let rules = Self.samples.appendingPathComponent("example-rules.yaml").path
        let out = dir.appendingPathComponent("out")
        let first = try run(["export-extension", rules, "-o", out.path])
        XCTAssertEqual(first.status, 0, first.err)
        XCTAssertTrue(first.out.isEmpty)
        XCTAssertTrue(first.err.hasPrefix("exported 9 rules (checksum "), first.err)
        XCTAssertTrue(first.err.contains("\ncapabilities: transactionalFinance, transactionalOrders, transactionalReminders, promotionalOffers, promotionalCoupons\n"), first.err)
        XCTAssertTrue(first.err.contains("\nblock list: 3 numbers, identification list: 2 numbers\n"), first.err)
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        XCTAssertEqual(names, [
            "BlockList.txt", "CallDirectoryExtension-Info.plist", "CallDirectoryHandler.swift", "IdentificationList.tsv",
            "MessageFilterExtension-Info.plist", "MessageFilterExtension.swift", "README.md", "Rules.smsf",
        ])

        // Rules.smsf is the same rule set (same checksum) and passes the iOS check.
        let check = try run(["check", "--target", "ios", "--json", out.appendingPathComponent("Rules.smsf").path])
        XCTAssertEqual(check.status, 0, check.out)
        let yamlCheck = try run(["check", "--json", rules])
        let checksum = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(yamlCheck.out.utf8)) as? [String: Any])?["checksum"] as? String)
        XCTAssertTrue(check.out.contains("\"checksum\" : \"\(checksum)\""), check.out)

        let filter = try read(out.appendingPathComponent("MessageFilterExtension.swift"))
        XCTAssertTrue(filter.contains("response.transactionalSubActions = [.transactionalFinance, .transactionalOrders, .transactionalReminders]"))
        XCTAssertTrue(filter.contains("response.promotionalSubActions = [.promotionalOffers, .promotionalCoupons]"))
        XCTAssertTrue(filter.contains("Bundle.main.url(forResource: \"Rules\", withExtension: \"smsf\")"))
        XCTAssertTrue(filter.contains("RuleSet.load(path: url.path)"))
        XCTAssertTrue(filter.contains("static let expectedRulesChecksum = \"\(checksum)\""))
        let directory = try read(out.appendingPathComponent("CallDirectoryHandler.swift"))
        XCTAssertTrue(directory.contains("static let batchSize = 5000"))
        XCTAssertTrue(directory.contains("context.cancelRequest(withError:"))
        XCTAssertTrue(directory.contains("if context.isIncremental {"))
        XCTAssertTrue(directory.contains("CXErrorCodeCallDirectoryManagerError.Code(rawValue: nsError.code)"))
        for source in [filter, directory] {
            XCTAssertFalse(source.contains("_test"), "generated code uses a member the SDK does not have")
        }

        XCTAssertEqual(try read(out.appendingPathComponent("BlockList.txt")).split(separator: "\n").filter { !$0.hasPrefix("#") },
                       ["911400000001", "919000000013", "919812345678"])
        XCTAssertEqual(try read(out.appendingPathComponent("IdentificationList.tsv")).split(separator: "\n").filter { !$0.hasPrefix("#") },
                       ["911800111222\tAcme Bank helpline", "919876500000\tCity Hospital"])
        XCTAssertTrue(try read(out.appendingPathComponent("MessageFilterExtension-Info.plist"))
            .contains("<string>com.apple.identitylookup.message-filter</string>"))
        XCTAssertTrue(try read(out.appendingPathComponent("CallDirectoryExtension-Info.plist"))
            .contains("<string>$(PRODUCT_MODULE_NAME).CallDirectoryHandler</string>"))

        let readme = try read(out.appendingPathComponent("README.md"))
        for needle in [
            "com.apple.identitylookup.message-filter", "com.apple.callkit.call-directory", "**AhoCorasick**",
            "**MessageFilter**", "Copy Bundle Resources", "at most 5", "Filter Unknown Senders",
            "Call Blocking & Identification", "iOS 16", "`transactionalFinance`, `transactionalOrders`",
        ] {
            XCTAssertTrue(readme.contains(needle), "README lacks \(needle)")
        }

        // The same rules give the same bytes (and existing files are replaced with --force).
        let again = try export(rules, ["--force"], name: "out")
        XCTAssertEqual(again.standardizedFileURL.path, out.standardizedFileURL.path)
        let other = try export(rules, name: "other")
        for name in names {
            XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent(name)), try Data(contentsOf: other.appendingPathComponent(name)), name)
        }
    }

    func testRefusesRuleSetsThatCannotShipOnIOS() throws {
        let six = try write("six.yaml", """
            version: 1
            capabilities: [transactionalFinance, transactionalOrders, transactionalHealth, transactionalWeather, promotionalOffers, promotionalCoupons]
            rules:
              - {name: a, action: junk, keywords: [x]}
            """)
        let out = dir.appendingPathComponent("never")
        let r = try run(["export-extension", six, "-o", out.path])
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.err.hasPrefix("smsfilter: error: \(six): cannot export an iOS extension: `smsfilter check --target ios` fails with 1 error:"), r.err)
        XCTAssertTrue(r.err.contains("declares 6 sub-actions"), r.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "nothing may be written")

        // No capabilities declared (all twelve), and several errors at once.
        let defaults = try run(["export-extension", Self.samples.appendingPathComponent("default-rules.yaml").path, "-o", out.path])
        XCTAssertEqual(defaults.status, 65)
        XCTAssertTrue(defaults.err.contains("none declared"), defaults.err)
        let bad = try write("bad.yaml", "version: 1\ncapabilities: [finance]\nrules:\n  - name: a\n    action: transact\n    keywords: [x]\n")
        let many = try run(["export-extension", bad, "-o", out.path])
        XCTAssertEqual(many.status, 65)
        XCTAssertTrue(many.err.contains("fails with 2 errors:"), many.err)
        XCTAssertTrue(many.err.contains("\(bad):2: capabilities"), many.err)
        XCTAssertTrue(many.err.contains("\(bad):5: rules[0].action"), many.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))

        XCTAssertEqual(try run(["export-extension", dir.appendingPathComponent("nope.yaml").path, "-o", out.path]).status, 66)
        let example = Self.samples.appendingPathComponent("example-rules.yaml").path
        XCTAssertEqual(try run(["export-extension", example]).status, 64)
        XCTAssertEqual(try run(["export-extension", example, "-o", out.path, "--message-filter-class", "2bad"]).status, 64)
        XCTAssertEqual(try run(["export-extension", example, "-o", out.path, "--batch-size", "0"]).status, 64)
        XCTAssertEqual(try run(["export-extension", example, "-o", out.path, "--message-filter-class", "X", "--call-directory-class", "X"]).status, 64)
        // The output exists as a file.
        let file = try write("file", "")
        XCTAssertEqual(try run(["export-extension", example, "-o", file]).status, 73)  // not a folder: cannot be created
        XCTAssertTrue(try run(["--help"]).out.contains("export-extension"))
        let help = try run(["export-extension", "--help"])
        XCTAssertEqual(help.status, 0)
        for option in ["-o, --output <folder>", "--message-filter-class", "--call-directory-class", "--batch-size", "--quiet",
                       "MessageFilterExtension)", "CallDirectoryHandler)", "5000)"] {
            XCTAssertTrue(help.out.contains(option), "help lacks \(option)")
        }
        // --quiet prints nothing.
        let quiet = try run(["export-extension", example, "-o", dir.appendingPathComponent("quiet").path, "--quiet"])
        XCTAssertEqual(quiet.status, 0)
        XCTAssertEqual(quiet.out + quiet.err, "")
    }

    // MARK: Type-checking

    func testGeneratedSourcesTypeCheckAgainstTheStubs() throws {
        let products = try BuildProducts.find()
        let stubs = dir.appendingPathComponent("stubs")
        try buildStubs(in: stubs)
        let example = Self.samples.appendingPathComponent("example-rules.yaml").path
        let exports: [(URL, String, String)] = [
            (try export(example), "MessageFilterExtension", "CallDirectoryHandler"),
            (try export(example, ["--message-filter-class", "AcmeFilter", "--call-directory-class", "AcmeCalls", "--batch-size", "7"], name: "custom"),
             "AcmeFilter", "AcmeCalls"),
        ]
        for (out, filterClass, directoryClass) in exports {
            // Each file alone, as in its own extension target; no warnings either.
            for (file, module) in [(filterClass, "MessageFilterExtension"), (directoryClass, "CallDirectoryExtension")] {
                let r = try Fixtures.run("swiftc", [
                    "-typecheck", "-swift-version", "6", "-warnings-as-errors", "-parse-as-library", "-module-name", module,
                    "-I", stubs.path,
                ] + products.searchArguments + [out.appendingPathComponent("\(file).swift").path], timeout: 600)
                XCTAssertEqual(r.status, 0, "\(file).swift: " + String(decoding: r.stderr, as: UTF8.self))
            }
        }
        // A wrong name does not type-check (the check has teeth).
        let broken = dir.appendingPathComponent("Broken.swift")
        try (try read(exports[0].0.appendingPathComponent("MessageFilterExtension.swift")))
            .replacingOccurrences(of: ".promotionalCoupons]", with: ".promotionalCoupon]")
            .write(to: broken, atomically: true, encoding: .utf8)
        let r = try Fixtures.run("swiftc", ["-typecheck", "-swift-version", "6", "-parse-as-library", "-I", stubs.path]
            + products.searchArguments + [broken.path], timeout: 600)
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(String(decoding: r.stderr, as: UTF8.self).contains("promotionalCoupon"))
    }

    // MARK: The harness on the fixture

    /// Apple's raw values, written out independently of the code under test.
    static let actionRaw = ["none": 0, "allow": 1, "junk": 2, "promotion": 3, "transaction": 4]
    static let subActionRaw = [
        "transactionalOthers": 10000, "transactionalFinance": 10001, "transactionalOrders": 10002,
        "transactionalReminders": 10003, "transactionalHealth": 10004, "transactionalWeather": 10005,
        "transactionalCarrier": 10006, "transactionalRewards": 10007, "transactionalPublicServices": 10008,
        "promotionalOthers": 20000, "promotionalOffers": 20001, "promotionalCoupons": 20002,
    ]

    /// Senders cycled over the fixture's messages: none, TRAI headers, numbers on the
    /// example block and identification lists, a short code, a plain number.
    static let senders: [String?] = [
        nil, nil, nil, "VM-HDFCBK-T", "AD-SHOPIN-P", "+91 98123 45678", "+91 98765 00000", "56161", "+1 408 555 0001",
        "JX-GOVTIN-G",
    ]

    struct Message { var sender: String?; var body: String }

    /// The committed fixture's bodies, with its own senders on odd records and the senders above cycled over
    /// the even ones (so the block and identification lists decide some).
    func corpusMessages() throws -> [Message] {
        try GeneratedFixture.records().enumerated().map { i, r in
            Message(sender: i % 2 == 1 ? r.sender : Self.senders[(i / 2) % Self.senders.count], body: r.body)
        }
    }

    /// Runs the harness over every message, and compares its answers with `smsfilter classify` (every message)
    /// and `smsfilter explain --json` (`explainSample` messages spread over the fixture).
    func checkAgreement(export out: URL, harness harnessPath: String, messages: [Message], explainSample: Int) throws -> [String: Int] {
        var jsonl = Data()
        for (i, m) in messages.enumerated() {
            let object: [String: Any] = ["id": String(i), "sender": m.sender ?? NSNull(), "body": m.body]
            jsonl.append(try JSONSerialization.data(withJSONObject: object))
            jsonl.append(0x0A)
        }
        let input = dir.appendingPathComponent("messages-\(UUID().uuidString).jsonl")
        try jsonl.write(to: input)
        let answers = dir.appendingPathComponent("answers.tsv")
        let h = try harness(harnessPath, ["messages", input.path, answers.path])
        XCTAssertEqual(h.status, 0, h.out)
        XCTAssertTrue(h.out.contains("HARNESS messages=\(messages.count) classifierMismatches=0"), h.out)
        let lines = try read(answers).split(separator: "\n")
        XCTAssertEqual(lines.count, messages.count)
        let got = lines.map { l -> (Int, Int) in
            let f = l.split(separator: "\t")
            return (Int(f[0]) ?? -1, Int(f[1]) ?? -1)
        }

        // Every message against the binary's classify (same Rules.smsf).
        let rules = out.appendingPathComponent("Rules.smsf").path
        let classified = try Fixtures.run(Fixtures.smsfilterBinary, ["classify", "--rules", rules, "--labels-only", "--quiet", input.path])
        XCTAssertEqual(classified.status, 0, String(decoding: classified.stderr, as: UTF8.self))
        var folders: [String: Int] = [:]
        var classifyMismatches = 0
        for (i, line) in classified.stdout.split(separator: UInt8(ascii: "\n")).enumerated() {
            let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let filter = try XCTUnwrap(o["filter"] as? [String: Any])
            let action = Self.actionRaw[filter["action"] as? String ?? ""] ?? -1
            let sub = (filter["subAction"] as? String).map { Self.subActionRaw[$0] ?? -1 } ?? 0
            folders[filter["folder"] as? String ?? "?", default: 0] += 1
            XCTAssertEqual(o["id"] as? String, String(i))
            if got[i] != (action, sub) {
                classifyMismatches += 1
                if classifyMismatches <= 5 { XCTFail("message \(i) \(messages[i]): extension \(got[i]), classify \(filter)") }
            }
        }
        XCTAssertEqual(classifyMismatches, 0)
        XCTAssertEqual(folders.values.reduce(0, +), messages.count)

        // A sample against explain --json, one process per message.
        let step = max(1, messages.count / explainSample)
        var explained = 0
        for i in stride(from: 0, to: messages.count, by: step) {
            let m = messages[i]
            var args = ["explain", "--json", "--rules", rules]
            if let s = m.sender { args += ["--sender", s] }
            let r = try Fixtures.run(Fixtures.smsfilterBinary, args + ["--", m.body])
            XCTAssertEqual(r.status, 0, String(decoding: r.stderr, as: UTF8.self))
            let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
            let action = Self.actionRaw[o["action"] as? String ?? ""] ?? -1
            let sub = (o["subAction"] as? String).map { Self.subActionRaw[$0] ?? -1 } ?? 0
            XCTAssertTrue(got[i] == (action, sub), "message \(i) \(m): extension \(got[i]), explain \(action)/\(sub)")
            explained += 1
        }
        print("EXPORT-HARNESS \(out.lastPathComponent): \(messages.count) messages agree with the Classifier API and classify, "
              + "\(explained) with explain --json; folders \(folders.sorted { $0.key < $1.key })")
        return folders
    }

    func testGeneratedMessageFilterAgreesWithExplainOnTheFixture() throws {
        let messages = try corpusMessages()
        let products = try BuildProducts.find()
        let stubs = dir.appendingPathComponent("stubs")
        try buildStubs(in: stubs)

        // 1. The shipped example: five sub-actions, sender rules, block and identification lists.
        let example = try export(Self.samples.appendingPathComponent("example-rules.yaml").path, name: "example")
        let exampleHarness = try buildHarness(example, stubs: stubs, products: products)
        let caps = try harness(exampleHarness, ["capabilities"])
        XCTAssertEqual(caps.status, 0, caps.out)
        XCTAssertEqual(caps.out, "HARNESS transactional=10001,10002,10003 promotional=20001,20002\n")
        let folders = try checkAgreement(export: example, harness: exampleHarness, messages: messages, explainSample: 150)
        XCTAssertGreaterThan(folders["Junk"] ?? 0, 0)
        XCTAssertGreaterThan(folders["Inbox"] ?? 0, 0)  // identification list
        XCTAssertGreaterThan(folders["Transactions/Finance"] ?? 0, 0)

        // 2. The default rules cut to five sub-actions (many rules now lose their sub-action: notDeclared),
        //    under custom class names.
        var yaml = try read(Self.samples.appendingPathComponent("default-rules.yaml"))
        let range = try XCTUnwrap(yaml.range(of: "\nrules:"))
        yaml.insert(contentsOf: "\ncapabilities: [transactionalFinance, transactionalOrders, transactionalPublicServices, promotionalOffers, promotionalCoupons]",
                    at: range.lowerBound)
        let five = try write("default-five.yaml", yaml)
        let defaults = try export(five, ["--message-filter-class", "DefaultFilter", "--call-directory-class", "DefaultCalls"], name: "default-five")
        let defaultsHarness = try buildHarness(defaults, stubs: stubs, products: products, filterClass: "DefaultFilter", directoryClass: "DefaultCalls")
        let caps2 = try harness(defaultsHarness, ["capabilities"])
        XCTAssertEqual(caps2.out, "HARNESS transactional=10001,10002,10008 promotional=20001,20002\n")
        let folders2 = try checkAgreement(export: defaults, harness: defaultsHarness, messages: messages, explainSample: 150)
        XCTAssertGreaterThan(folders2["Transactions"] ?? 0, 0)  // sub-actions dropped as not declared
        XCTAssertNil(folders2["Transactions/Health"])
    }

    /// Rules with every body condition (URLs, phone numbers, amounts, startsWith, wildcard entities,
    /// sender AND body, short whole words): the generated extension, which evaluates them with the
    /// bundled Rules.smsf through the same MessageFilter code, answers exactly as the Classifier API,
    /// `smsfilter classify` and `smsfilter explain` do, on both corpora and on messages made to hit them.
    func testGeneratedMessageFilterEvaluatesBodyConditionsIdentically() throws {
        let corpus = try corpusMessages()
        let products = try BuildProducts.find()
        let stubs = dir.appendingPathComponent("stubs")
        try buildStubs(in: stubs)
        let rules = try write("conditions.yaml", """
            version: 1
            capabilities: [transactionalFinance, transactionalOthers, transactionalPublicServices, promotionalOffers, promotionalCoupons]
            rules:
              - {name: retriever, action: transaction, subAction: transactionalOthers, priority: 9, startsWith: ["<#>"]}
              - {name: short-link, action: junk, priority: 8, urls: [shortener, messenger], keywords: [free, claim, "ฟรี", "รับ"]}
              - {name: ip-link, action: junk, priority: 8, urls: ip}
              - {name: odd-tld, action: junk, priority: 7, urls: [{tld: [xyz, top, vip]}]}
              - {name: premium, action: junk, priority: 6, phones: [{prefix: ["09", "+449", "087"]}]}
              - {name: big-money, action: junk, priority: 6, amounts: [{currency: [GBP, USD], min: 100}]}
              - {name: baht, action: promotion, subAction: promotionalOffers, priority: 5, amounts: {currency: [THB]}, keywords: ["ลด", "%"]}
              - {name: tax, action: transaction, subAction: transactionalPublicServices, priority: 9, sender: {entity: ["*CTAXKR", "UIDAI*"]}}
              - {name: bank, action: transaction, subAction: transactionalFinance, priority: 4, sender: {entity: ["HDFC*"]}, keywords: [debited]}
              - {name: short-words, action: transaction, subAction: transactionalFinance, priority: 3, keywords: [emi, upi, otp]}
              - {name: chat, action: allow, priority: 0, keywords: [you], urls: none, phones: none}
              - {name: any-link, action: promotion, subAction: promotionalCoupons, priority: 1, urls: any}
            """)
        let made: [Message] = [
            Message(sender: nil, body: "<#> 482913 FA+9qCX9VSu"),
            Message(sender: nil, body: "code <#> 482913"),
            Message(sender: nil, body: "Claim your FREE gift: https://bit.ly/3xYz"),
            Message(sender: nil, body: "login at http://45.12.3.4/secure"),
            Message(sender: nil, body: "win at lucky.vip today"),
            Message(sender: nil, body: "Call 09061701461 now"),
            Message(sender: nil, body: "You won £1,000!"),
            Message(sender: nil, body: "ลด 50% เหลือ 199 บาท"),
            Message(sender: "VM-CTAXKR-G", body: "Property tax due"),
            Message(sender: "AD-HDFCBN-T", body: "Rs 500 debited"),
            Message(sender: "AD-ICICIB-T", body: "Rs 500 debited"),
            Message(sender: nil, body: "remind me about the EMI"),
            Message(sender: nil, body: "see you at www.example.com"),
            Message(sender: nil, body: "love you"),
        ]
        let out = try export(rules, name: "conditions")
        let h = try buildHarness(out, stubs: stubs, products: products)
        let folders = try checkAgreement(export: out, harness: h, messages: made + corpus, explainSample: 60)
        for folder in ["Junk", "Inbox", "Transactions/Others", "Transactions/Finance", "Transactions/Public Services", "Promotions/Offers", "Promotions/Coupons"] {
            XCTAssertGreaterThan(folders[folder] ?? 0, 0, folder)
        }
        // The made messages one by one through the generated class alone.
        let expected = ["4 10000", "0 0", "2 0", "2 0", "2 0", "2 0", "2 0", "3 20001", "4 10008", "4 10001", "0 0", "4 10001", "3 20002", "1 0"]
        for (m, want) in zip(made, expected) {
            let r = try harness(h, ["query", m.sender ?? "", m.body])
            XCTAssertEqual(r.out, "HARNESS action=\(want.split(separator: " ")[0]) subAction=\(want.split(separator: " ")[1])\n", m.body)
        }
    }

    // MARK: Call Directory

    func testCallDirectoryHandlerLoadsTheListsInBatchesAndReportsErrors() throws {
        let products = try BuildProducts.find()
        let stubs = dir.appendingPathComponent("stubs")
        try buildStubs(in: stubs)

        // The example lists: full and incremental loads.
        let example = try export(Self.samples.appendingPathComponent("example-rules.yaml").path, name: "example")
        let h = try buildHarness(example, stubs: stubs, products: products)
        XCTAssertEqual(try harness(h, ["calldirectory", "full"]).out, "HARNESS completed blocked=3 identified=2 calls=5\n")
        XCTAssertEqual(try harness(h, ["calldirectory", "incremental"]).out, "HARNESS completed blocked=3 identified=2 calls=7\n")

        // Unknown raw codes are named by their raw value, never switched on as a case.
        XCTAssertEqual(try harness(h, ["describe", "calldirectory", "102"]).out, "HARNESS Call Directory error unrecognised code (raw 102)\n")
        XCTAssertEqual(try harness(h, ["describe", "calldirectory", "5"]).out,
                       "HARNESS Call Directory error maximumEntriesExceeded (about 1.5 million is the practical limit) (raw 5)\n")
        XCTAssertTrue(try harness(h, ["describe", "calldirectory", "3"]).out.contains("entriesOutOfOrder (raw 3)"))

        // Long lists across many read chunks (64 KiB) and batches (batch size 1000).
        var block = "# generated\n"
        var n: Int64 = 14_085_550_000
        for i in 0..<30_000 {
            block += "+\(n)\n"
            n += Int64(1 + i % 7)
        }
        var ids = ""
        var m: Int64 = 441_000_000_000
        for i in 0..<4_321 {
            ids += "\(m)\tCaller \(i) · ☎\n"
            m += 3
        }
        _ = try write("big-block.txt", block)
        _ = try write("big-ids.tsv", ids)
        let big = try write("big.yaml", """
            version: 1
            capabilities: [transactionalFinance]
            blockList: big-block.txt
            identificationList: big-ids.tsv
            rules:
              - {name: a, action: transaction, subAction: transactionalFinance, keywords: [debited]}
            """)
        let bigOut = try export(big, ["--batch-size", "1000"], name: "big")
        let bigHarness = try buildHarness(bigOut, stubs: stubs, products: products)
        XCTAssertEqual(try harness(bigHarness, ["calldirectory", "full"]).out, "HARNESS completed blocked=30000 identified=4321 calls=34321\n")
        XCTAssertEqual(try harness(bigHarness, ["calldirectory", "incremental"]).out, "HARNESS completed blocked=30000 identified=4321 calls=34323\n")

        // Damaged bundled lists: the request is cancelled with an error naming file and line.
        func damaged(_ file: String, _ text: String) throws -> String {
            let copy = dir.appendingPathComponent("damaged-\(UUID().uuidString)")
            try FileManager.default.copyItem(at: example, to: copy)
            try text.write(to: copy.appendingPathComponent(file), atomically: true, encoding: .utf8)
            return try harness(copy.appendingPathComponent("harness").path, ["calldirectory", "full"]).out
        }
        XCTAssertEqual(try damaged("BlockList.txt", "# x\n919000000013\n911400000001\n"),
                       "HARNESS cancelled domain=CallDirectoryHandler code=1 description=BlockList.txt:3: 911400000001 is smaller than the entry before it (CallKit: entriesOutOfOrder)\n")
        XCTAssertEqual(try damaged("BlockList.txt", "919000000013\n919000000013"),
                       "HARNESS cancelled domain=CallDirectoryHandler code=1 description=BlockList.txt:2: duplicate entry 919000000013 (CallKit: duplicateEntries)\n")
        XCTAssertEqual(try damaged("BlockList.txt", "91900000001x\n"),
                       "HARNESS cancelled domain=CallDirectoryHandler code=1 description=BlockList.txt:1: unexpected text after the number\n")
        XCTAssertEqual(try damaged("BlockList.txt", "99999999999999999999\n"),
                       "HARNESS cancelled domain=CallDirectoryHandler code=1 description=BlockList.txt:1: number too large\n")
        XCTAssertEqual(try damaged("IdentificationList.tsv", "911800111222\n"),
                       "HARNESS cancelled domain=CallDirectoryHandler code=2 description=IdentificationList.tsv:1: expected a number, a tab and a label\n")
        // A missing list.
        let missing = dir.appendingPathComponent("missing")
        try FileManager.default.copyItem(at: example, to: missing)
        try FileManager.default.removeItem(at: missing.appendingPathComponent("IdentificationList.tsv"))
        XCTAssertTrue(try harness(missing.appendingPathComponent("harness").path, ["calldirectory", "full"]).out
            .hasPrefix("HARNESS cancelled domain=CallDirectoryHandler code=2 description=IdentificationList.tsv: not in the extension's bundle"))
        // Without a usable Rules.smsf the message filter answers none for everything instead of crashing.
        let missingHarness = missing.appendingPathComponent("harness").path
        XCTAssertEqual(try harness(missingHarness, ["query", "", "Rs 500 debited from A/c XX12"]).out, "HARNESS action=4 subAction=10001\n")
        XCTAssertEqual(try harness(missingHarness, ["query", "+91 98123 45678", "hi"]).out, "HARNESS action=2 subAction=0\n")
        let rulesFile = missing.appendingPathComponent("Rules.smsf")
        let compiled = try Data(contentsOf: rulesFile)
        try compiled.prefix(compiled.count / 2).write(to: rulesFile)
        let damagedRules = try Fixtures.run(missingHarness, ["query", "", "Rs 500 debited from A/c XX12"])
        XCTAssertEqual(String(decoding: damagedRules.stdout, as: UTF8.self), "HARNESS action=0 subAction=0\n")
        XCTAssertTrue(String(decoding: damagedRules.stderr, as: UTF8.self).contains("cannot load Rules.smsf: "))
        try FileManager.default.removeItem(at: rulesFile)
        let noRules = try Fixtures.run(missingHarness, ["query", "", "Rs 500 debited from A/c XX12"])
        XCTAssertEqual(String(decoding: noRules.stdout, as: UTF8.self), "HARNESS action=0 subAction=0\n")
        XCTAssertTrue(String(decoding: noRules.stderr, as: UTF8.self).contains("Rules.smsf is not in the extension's bundle"))
    }

    // MARK: Portability

    func testPortabilityCheck() throws {
        let script = Fixtures.packageRoot.appendingPathComponent("Scripts/check-portability.sh").path
        let real = try Fixtures.run("bash", [script])
        XCTAssertEqual(real.status, 0, String(decoding: real.stdout + real.stderr, as: UTF8.self))
        XCTAssertTrue(String(decoding: real.stdout, as: UTF8.self).hasPrefix("check-portability: ok: "))
        XCTAssertTrue(String(decoding: real.stdout, as: UTF8.self).contains("MessageFilter [AhoCorasick,Yams]"))

        let fixture = dir.appendingPathComponent("Sources/Portable")
        try FileManager.default.createDirectory(at: fixture, withIntermediateDirectories: true)
        try """
            #if canImport(Glibc)
                import Glibc
            #elseif canImport(Darwin)
                import Darwin
            #endif
            // import Glibc (a comment)
            let text = "import Glibc"
            """.write(to: fixture.appendingPathComponent("Guarded.swift"), atomically: true, encoding: .utf8)
        let guarded = try Fixtures.run("bash", [script, fixture.path])
        XCTAssertEqual(guarded.status, 0, String(decoding: guarded.stderr, as: UTF8.self))

        let unguarded = fixture.appendingPathComponent("Unguarded.swift")
        try "import Foundation\nimport Glibc\n\nlet x = 1\n".write(to: unguarded, atomically: true, encoding: .utf8)
        let failing = try Fixtures.run("bash", [script, fixture.path])
        XCTAssertEqual(failing.status, 1)
        let err = String(decoding: failing.stderr, as: UTF8.self)
        XCTAssertTrue(err.contains("\(unguarded.path):2: unguarded Linux-only import of Glibc"), err)
        XCTAssertTrue(err.contains("check-portability: FAILED: 1 problem(s) in 2 Swift file(s)"), err)

        // Nesting, #else of an Apple-only branch, Linux-only API, iOS-unavailable Foundation API, and
        // unbalanced directives.
        try """
            #if canImport(Darwin)
                import Darwin
            #else
                #if DEBUG
                    @_implementationOnly import Musl
                #endif
            #endif
            #if DEBUG
            internal import FoundationNetworking
            #endif
            let flags = O_RDONLY | O_DIRECT
            let p = Process()
            #if os(Linux)
            let q = MAP_POPULATE
            #endif
            #endif
            """.write(to: unguarded, atomically: true, encoding: .utf8)
        let several = try Fixtures.run("bash", [script, unguarded.path])
        XCTAssertEqual(several.status, 1)
        let lines = String(decoding: several.stderr, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 5, lines.joined(separator: "\n"))
        XCTAssertTrue(lines[0].hasPrefix("\(unguarded.path):9: unguarded Linux-only import of FoundationNetworking"), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("\(unguarded.path):11: Linux-only API O_DIRECT"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("\(unguarded.path):12: Foundation API Process is not available on iOS"), lines[2])
        XCTAssertTrue(lines[3].hasPrefix("\(unguarded.path):16: #endif without #if"), lines[3])

        // A dependency that does not build for iOS.
        let package = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
            .replacingOccurrences(of: "dependencies: [\"AhoCorasick\", .product(name: \"Yams\", package: \"Yams\")]",
                                  with: "dependencies: [\"AhoCorasick\", \"ArchiveIO\", .product(name: \"Yams\", package: \"Yams\")]")
        let packagePath = try write("Package.swift", package)
        let dep = try Fixtures.run("bash", [script, "--package", packagePath, "--targets", "AhoCorasick MessageFilter",
                                            Fixtures.packageRoot.appendingPathComponent("Sources/AhoCorasick").path])
        XCTAssertEqual(dep.status, 1)
        XCTAssertTrue(String(decoding: dep.stderr, as: UTF8.self).contains("target MessageFilter depends on \"ArchiveIO\""),
                      String(decoding: dep.stderr, as: UTF8.self))
    }
}
