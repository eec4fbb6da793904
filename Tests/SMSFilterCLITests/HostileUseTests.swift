import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 14's attack list, replayed against the built binary: each test is one attack (or a few of one
/// kind) that lost data, crashed, ran without end or printed something unclear on the main of 2026-11-23.
/// The record-reader attacks (huge records, gzip/bzip2 input, a wrong --body-field on JSON Lines) belong to
/// the reader rewrite (issue 12) and are not here. Every test runs in well under a second or two.
final class HostileUseTests: HostileTestCase {
    var inputBytes = Data()

    override func setUpWithError() throws {
        try super.setUpWithError()
        inputBytes = try Data(contentsOf: URL(fileURLWithPath: input))
    }

    func assertInputUnchanged(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(bytes(input), inputBytes, "the input was changed", file: file, line: line)
    }

    // MARK: Data loss and writes outside the outputs

    /// `evaluate --json IN` and `export --stats IN` took IN as the option's value and overwrote it.
    func testAnInputNameIsNeverSwallowedAsAnOutput() throws {
        try underEveryStandardOutput { try anInputNameIsNeverSwallowedAsAnOutput() }
    }

    func anInputNameIsNeverSwallowedAsAnOutput() throws {
        let evaluate = try run(["evaluate", "--json", input, "--map", "spam=junk,ham=other", "--truth-field", "sender"])
        XCTAssertEqual(evaluate.status, 0, evaluate.err)
        XCTAssertTrue(evaluate.out.contains("\"records\""), "--json is a flag: the figures go to standard output")
        assertInputUnchanged()
        let export = try run(["export", "--stats", input, "--out-dir", path("sets")])
        XCTAssertEqual(export.status, 64, export.err)
        XCTAssertTrue(export.err.contains("--stats-file"), export.err)
        assertInputUnchanged()
        // Named as a file option, an existing file is still replaced only with --force.
        let kept = try run(["export", "-o", path("sets"), "--stats-file", input], stdin: Data(Self.records.utf8))
        XCTAssertEqual(kept.status, 64, kept.err)
        XCTAssertTrue(kept.err.contains("--force"), kept.err)
        assertInputUnchanged()
    }

    func testOutputsThatAreInputsOrEachOtherAreRefusedBeforeAnyWork() throws {
        try underEveryStandardOutput { try outputsThatAreInputsOrEachOtherAreRefusedBeforeAnyWork() }
    }

    func outputsThatAreInputsOrEachOtherAreRefusedBeforeAnyWork() throws {
        let x = path("x.jsonl")
        for (args, names) in [
            (["classify", input, "-o", input], ["-o", "the input"]),
            (["classify", input, "-o", x, "--rejects", x], ["-o", "--rejects"]),
            (["classify", input, "-o", x, "--counts", x], ["-o", "--counts"]),
            (["classify", input, "--no-output", "--rejects", input], ["--rejects", "the input"]),
        ] {
            for force in [false, true] {
                let r = try run(args + (force ? ["--force"] : []))
                XCTAssertEqual(r.status, 64, "\(args): \(r.err)")
                for name in names { XCTAssertTrue(r.err.contains(name), "\(args): \(r.err)") }
                XCTAssertFalse(exists(x), "nothing written: \(args)")
                assertInputUnchanged()
            }
        }
    }

    /// `compile -o FIFO` replaced the FIFO with a regular file (and as root the system's full device and its
    /// standard-output link).
    func testCompileWritesAFIFOInPlace() throws {
        let rules = try write("rules.yaml", "version: 1\nrules:\n  - name: a\n    action: junk\n    keywords: [win]\n")
        let fifo = path("pipe")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // A reader drains the FIFO so the writer does not block.
        let drained = DispatchSemaphore(value: 0)
        let box = ResultBox()
        Thread.detachNewThread {
            box.data = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()
            drained.signal()
        }
        let r = try run(["compile", rules, "-o", fifo])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(drained.wait(timeout: .now() + 20), .success)
        var info = stat()
        XCTAssertEqual(stat(fifo, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFIFO, "the FIFO must still be a FIFO")
        XCTAssertEqual(box.data.prefix(4), Data("SMSF".utf8), "the compiled rules went through the FIFO")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["in.jsonl", "pipe", "rules.yaml"])
    }

    /// A symbolic link planted at the temporary name `compile` and `export-extension` used
    /// (`.NAME.tmp-PID`, opened with O_TRUNC) got its target overwritten.
    func testPlantedTemporaryLinksAreNeverFollowed() throws {
        let rules = try write("rules.yaml", "version: 1\nrules:\n  - name: a\n    action: junk\n    keywords: [win]\n")
        let victim = try write("victim.txt", "precious\n")
        // `exec` keeps the shell's process id, so `$$` is the id smsfilter runs as.
        let compile = try Fixtures.run("sh", ["-c", """
            cd "$1" && ln -s victim.txt ".out.smsf.tmp-$$" && ln -s victim.txt ".out.smsf.tmp-$$-1" && \
            exec "$2" compile rules.yaml -o out.smsf
            """, "sh", folder.path, bin])
        XCTAssertEqual(compile.status, 0, String(decoding: compile.stderr, as: UTF8.self))
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious\n")
        XCTAssertEqual(bytes(path("out.smsf"))?.prefix(4), Data("SMSF".utf8))
        let ext = try Fixtures.run("sh", ["-c", """
            mkdir "$1/ext" && cd "$1/ext" && ln -s ../victim.txt ".README.md.tmp-$$" && \
            ln -s ../victim.txt ".Rules.smsf.tmp-$$" && exec "$2" export-extension "$3" -o .
            """, "sh", folder.path, bin, Fixtures.packageRoot.appendingPathComponent("samples/example-rules.yaml").path])
        XCTAssertEqual(ext.status, 0, String(decoding: ext.stderr, as: UTF8.self))
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious\n")
        _ = rules
    }

    /// `--counts` naming a folder or a full device was found only after the whole job, with -o and --rejects
    /// already finished (exit 73 and a half-written result set).
    func testACountsFileThatCannotBeWrittenLeavesNoFinishedOutput() throws {
        try underEveryStandardOutput { try aCountsFileThatCannotBeWrittenLeavesNoFinishedOutput() }
    }

    func aCountsFileThatCannotBeWrittenLeavesNoFinishedOutput() throws {
        let out = path("out.jsonl")
        let folderCounts = try run(["classify", input, "-o", out, "--rejects", path("rejects.jsonl"), "--counts", folder.path])
        XCTAssertEqual(folderCounts.status, 73, folderCounts.err)
        XCTAssertTrue(folderCounts.err.contains("--counts") && folderCounts.err.contains("folder"), folderCounts.err)
        XCTAssertFalse(exists(out))
        XCTAssertFalse(exists(path("rejects.jsonl")))
        // A full device: a private stand-in made in the test's folder, never the system's.
        guard let device = StandIn.fullDevice(in: folder) else { return }
        let full = try run(["classify", input, "-o", out, "--rejects", path("rejects.jsonl"), "--counts", device])
        XCTAssertEqual(full.status, 73, full.err)
        XCTAssertTrue(full.err.contains(device), full.err)
        XCTAssertFalse(exists(out), "the labelled output must not look finished when its counts could not be written")
        XCTAssertFalse(exists(path("rejects.jsonl")))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["full", "in.jsonl"], "no temporary file left")
        try FileManager.default.removeItem(atPath: device)
    }

    /// Forgetting -o wrote every record into the terminal, with the progress line spliced into them.
    func testRecordsAreNotWrittenToATerminalUnlessAskedFor() throws {
        let refused = try runInTerminal(["classify", input])
        XCTAssertEqual(refused.status, 64, refused.output)
        XCTAssertTrue(refused.output.contains("refusing to write records to a terminal") && refused.output.contains("-o -"), refused.output)
        XCTAssertFalse(refused.output.contains("debited"), "no record reached the terminal")
        let generate = try runInTerminal(["generate", "--count", "3"])
        XCTAssertEqual(generate.status, 64, generate.output)
        let asked = try runInTerminal(["classify", input, "-o", "-", "-q"])
        XCTAssertEqual(asked.status, 0, asked.output)
        XCTAssertTrue(asked.output.contains("\"filter\": {\"action\": \"transaction\""), asked.output)
        let countsOnly = try runInTerminal(["classify", input, "--no-output", "-q"])
        XCTAssertEqual(countsOnly.status, 0, countsOnly.output)
    }

    // MARK: Crashes and unbounded memory

    /// `priority: -9223372036854775808` crashed check, compile, classify and export-extension (abs overflow).
    func testTheSmallestPriorityIsAnErrorNotACrash() throws {
        let rules = try write("min.yaml", """
            version: 1
            rules:
              - name: a
                action: junk
                priority: -9223372036854775808
                keywords: [win]

            """)
        for args in [
            ["check", rules], ["compile", rules, "-o", path("min.smsf")], ["classify", "--rules", rules, input, "--no-output"],
            ["export-extension", rules, "-o", path("ext")], ["explain", "--rules", rules, "win"],
        ] {
            let r = try run(args)
            XCTAssertEqual(r.status, 65, "\(args): \(r.err)\(r.out)")
            XCTAssertTrue((r.err + r.out).contains("priority"), "\(args): \(r.err)\(r.out)")
        }
    }

    func testFlagsOutOfRangeAreUsageErrorsThatSayWhatIsAllowed() throws {
        for (args, allowed) in [
            (["classify", input, "--chunk-size", "10G"], "4K to 64M"),
            (["classify", input, "--max-record", "100G"], "1K to 1G"),
            (["classify", input, "--level", "22"], "-7 to 19"),
            (["classify", input, "--threads", "100000"], "1 to 256"),
            (["classify", input, "--threads", "256", "--chunk-size", "64M"], "at most"),
            (["classify", input, "--compression-threads", "-1"], "0 to 256"),
            (["classify", input, "--chunk-size", "99999999999999999G"], "4K to 64M"),
            (["generate", "--count", "1", "--level", "99", "-o", path("g.jsonl")], "-7 to 19"),
            (["export", input, "-o", path("s"), "--zst", "--level", "22"], "-7 to 19"),
            (["bench", input, "--matcher-bytes", "100G"], "1K to 2G"),
            (["bench", input, "--repeat", "0"], "1 to 1000"),
            (["export", input, "-o", path("s"), "--split=9223372036854775807,9223372036854775807,1"], "1000000"),
        ] {
            let r = try run(args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.err)")
            XCTAssertTrue(r.err.contains(allowed), "\(args) should say \(allowed): \(r.err)")
            XCTAssertFalse(r.err.contains("Missing value"), r.err)
        }
        // A negative level is a value, not a missing one.
        let fast = try run(["classify", input, "--level", "-5", "-o", path("fast.jsonl.zst"), "-q"])
        XCTAssertEqual(fast.status, 0, fast.err)
        XCTAssertEqual(try Fixtures.run("zstd", ["-dc", path("fast.jsonl.zst")]).stdout.split(separator: 0x0A).count, 5)
    }

    func testMergeCountsRefusesSumsThatOverflow() throws {
        let counts = path("c.json")
        XCTAssertEqual(try run(["classify", input, "--no-output", "--counts", counts, "-q"]).status, 0)
        var object = try JSONSerialization.jsonObject(with: bytes(counts)!) as! [String: Any]
        let big = Int.max - 10
        let rejected = object["rejected"] as! Int
        object["records"] = big
        object["labelled"] = big - rejected
        var files = object["files"] as! [[String: Any]]
        files[0]["records"] = big
        files[0]["labelled"] = big - rejected
        object["files"] = files
        var folders = object["folders"] as! [String: Int]
        folders = folders.mapValues { _ in 0 }
        folders["Junk"] = big - rejected
        object["folders"] = folders
        // Every labelled record decided by no rule, so that rules + noRule = labelled still holds.
        object["rules"] = (object["rules"] as! [String: Int]).mapValues { _ in 0 }
        object["noRule"] = big - rejected
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path("huge.json")))
        // A second run's file (the same file twice, or a copy, is refused as counted twice).
        object["seconds"] = 1.5
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path("huge2.json")))
        let r = try run(["merge-counts", path("huge.json"), path("huge2.json")])
        XCTAssertEqual(r.status, 65, r.err)
        XCTAssertTrue(r.err.contains("huge2.json") && r.err.contains("records") && r.err.contains("exceed"), r.err)
    }

    /// A 380 KB rule file that reuses one 30,000-keyword anchor in 3,000 rules grew past 2.5 GB in `check`.
    func testYAMLAliasAmplificationIsRefusedByItsExpandedSize() throws {
        let keywords = (0..<30_000).map { "k\($0)" }.joined(separator: ", ")
        var text = "version: 1\nrules:\n  - name: r0\n    action: junk\n    keywords: &kw [\(keywords)]\n"
        for i in 1..<3_000 { text += "  - name: r\(i)\n    action: junk\n    keywords: *kw\n" }
        let bomb = try write("bomb.yaml", text)
        let r = try run(["check", bomb])
        XCTAssertEqual(r.status, 65, r.out + r.err)
        XCTAssertTrue(r.out.contains("aliases"), r.out)
    }

    /// `blockList: /dev/zero` grew without end; a folder printed a raw NSError; a 500 MB line took 87 s.
    func testNumberListsAreRegularFilesWithBoundedLines() throws {
        try FileManager.default.createDirectory(atPath: path("lists"), withIntermediateDirectories: false)
        // 8 MiB without a newline stands in for the 500 MB line: refused after the first read either way.
        try Data(repeating: UInt8(ascii: "1"), count: 8 << 20).write(to: URL(fileURLWithPath: path("long.txt")))
        for (list, expected) in [("/dev/zero", "not a regular file"), (path("lists"), "is a folder"), (path("long.txt"), "line longer than 4096 bytes")] {
            let rules = try write("list.yaml", "version: 1\nblockList: \(list)\nrules:\n  - name: a\n    action: junk\n    keywords: [x]\n")
            let r = try run(["check", rules])
            XCTAssertEqual(r.status, 65, r.out + r.err)
            XCTAssertTrue(r.out.contains(expected), r.out)
            XCTAssertFalse(r.out.contains("Error Domain") || r.out.contains("NSError"), r.out)
        }
    }

    // MARK: Wrong results and unclear messages

    func testMergeCountsNamesTheFileAndFieldOfABrokenCountFile() throws {
        let counts = path("c.json")
        XCTAssertEqual(try run(["classify", input, "--no-output", "--counts", counts, "-q"]).status, 0)
        let good = try JSONSerialization.jsonObject(with: bytes(counts)!) as! [String: Any]
        for (name, change, field) in [
            ("negative.json", { (o: inout [String: Any]) in o["labelled"] = -5 }, "labelled"),
            ("unbalanced.json", { (o: inout [String: Any]) in o["labelled"] = (o["labelled"] as! Int) + 1 }, "records"),
            ("string.json", { (o: inout [String: Any]) in o["records"] = "5" }, "records"),
            ("missing.json", { (o: inout [String: Any]) in o["folders"] = nil }, "folders"),
            ("file.json", { (o: inout [String: Any]) in
                var files = o["files"] as! [[String: Any]]
                files[0]["rejected"] = 3
                o["files"] = files
            }, "files[0]"),
        ] as [(String, (inout [String: Any]) -> Void, String)] {
            var object = good
            change(&object)
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path(name)))
            let r = try run(["merge-counts", counts, path(name)])
            XCTAssertEqual(r.status, 65, "\(name): \(r.err)")
            XCTAssertTrue(r.err.contains("\(name): \(field)"), "\(name): \(r.err)")
            for swiftism in ["DecodingError", "keyNotFound", "typeMismatch", "CodingKeys", "dataCorrupted"] {
                XCTAssertFalse(r.err.contains(swiftism), r.err)
            }
        }
    }

    func testAddedLabelsCannotInjectMarkupOrFormulas() throws {
        let key = try run(["classify", input, "--filter-key", "x=\"1\" evil", "-o", path("o.xml")])
        XCTAssertEqual(key.status, 64, key.err)
        XCTAssertTrue(key.err.contains("--filter-key"), key.err)
        let tab = try write("tab.yaml", "version: 1\nrules:\n  - name: \"a\\tb\"\n    action: junk\n    keywords: [win]\n")
        XCTAssertEqual(try run(["check", tab]).status, 65)
        let nul = try write("nul.yaml", "version: 1\nrules:\n  - name: \"a\\0b\"\n    action: junk\n    keywords: [win]\n")
        XCTAssertEqual(try run(["check", nul]).status, 65)
        let formula = try write("formula.yaml", """
            version: 1
            rules:
              - name: '=HYPERLINK("http://evil.example","open")'
                action: junk
                keywords: [win]

            """)
        let csv = try write("in.csv", "id,body\n1,you win\n2,hello\n")
        let r = try run(["classify", "--rules", formula, csv, "-o", path("out.csv"), "-q"])
        XCTAssertEqual(r.status, 0, r.err)
        let out = try String(contentsOfFile: path("out.csv"), encoding: .utf8)
        XCTAssertTrue(out.contains(",\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"open\"\")\"\n"), out)
        XCTAssertFalse(out.contains(",=HYPERLINK"), out)
        XCTAssertFalse(out.utf8.contains(0), "no NUL byte")
    }

    func testGeneratedSwiftIdentifiersAreValidated() throws {
        let example = Fixtures.packageRoot.appendingPathComponent("samples/example-rules.yaml").path
        for name in ["class", "_", "struct", "String", "Bundle", "self"] {
            let r = try run(["export-extension", example, "-o", path("ext-\(name)"), "--message-filter-class", name])
            XCTAssertEqual(r.status, 64, "\(name): \(r.err)")
            XCTAssertTrue(r.err.contains("--message-filter-class"), r.err)
            XCTAssertFalse(exists(path("ext-\(name)")))
        }
        XCTAssertEqual(try run(["export-extension", example, "-o", path("ext"), "--call-directory-class", "CallFilterHandler"]).status, 0)
    }

    /// Header text with escape sequences was echoed raw to the terminal.
    func testTerminalMessagesEscapeControlCharacters() throws {
        let csv = try write("evil.csv", "id,\u{1B}]0;pwned\u{07}\u{1B}[31mred,\u{9B}2J\n1,hello\n")
        let r = try run(["classify", csv, "--no-output"])
        XCTAssertEqual(r.status, 65, r.err)
        XCTAssertTrue(r.err.contains("\\x1B]0;pwned\\x07"), r.err)
        XCTAssertFalse(r.err.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B }, r.err)
        let name = path("a\u{1B}[2Jb.jsonl")
        let missing = try run(["classify", name])
        XCTAssertEqual(missing.status, 66)
        XCTAssertFalse(missing.err.unicodeScalars.contains { $0.value == 0x1B }, missing.err)
    }

    /// Issue 33 item 8: a line feed or tab in a CSV header cell, a JSON key, a field option or a file name was
    /// printed raw, so one error could pass for two (or for a table). Each is now escaped where it is echoed
    /// (`\n`, `\t`, `\u{202E}`, `\u{200B}`): every error below is one line.
    func testEchoedNamesCannotForgeLinesOfAMessage() throws {
        func oneLine(_ args: [String], _ status: Int32, _ shows: [String]) throws {
            let r = try run(args)
            XCTAssertEqual(r.status, status, "\(args): \(r.err)")
            let lines = r.err.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(args) should print one line: \(r.err)")
            XCTAssertFalse(r.err.contains("\t") || r.err.unicodeScalars.contains { [0x202E, 0x200B].contains($0.value) }, r.err)
            for text in shows { XCTAssertTrue(r.err.contains(text), "\(args) should show \(text): \(r.err)") }
        }
        let csv = try write("h.csv", "id,\"bo\ndy\",\"a\tb\"\n1,hello,x\n")
        try oneLine(["classify", csv, "--no-output"], 65, [#"bo\ndy"#, #"a\tb"#])
        let jsonl = try write("k.jsonl", #"{"id": 1, "te\nxt\t": "x", "b\u202Ec": "y"}"# + "\n")
        try oneLine(["classify", jsonl, "--no-output"], 65, [#"te\nxt\t"#, #"b\u{202E}c"#])
        try oneLine(["classify", input, "--no-output", "--sender-field", "x\ny\u{200B}"], 65, [#"x\ny\u{200B}"#])
        let named = path("a\nb\u{202E}.jsonl")
        try Data(#"{"id": 1, "text": "x"}"#.utf8 + [0x0A]).write(to: URL(fileURLWithPath: named))
        try oneLine(["classify", named, "--no-output"], 65, [#"a\nb\u{202E}.jsonl"#])
        try oneLine(["classify", path("z\tz\n.jsonl"), "--no-output"], 66, [#"z\tz\n.jsonl: no such file"#])
        XCTAssertEqual(try run(["classify", input, "-o", path("o\n.jsonl"), "-q"]).status, 0)
        try oneLine(["classify", input, "-o", path("o\n.jsonl")], 64, [#"o\n.jsonl: a file is already there"#])
        // Rule names that imitate one another are refused by check and by every command that loads rules.
        let rules = try write("r.yaml", "version: 1\nrules:\n  - {name: x, action: junk, keywords: [a]}\n  - {name: \"\u{0445}\", action: junk, keywords: [b]}\n")
        for args in [["check", rules], ["classify", input, "--rules", rules, "--no-output"], ["explain", "--rules", rules, "a"]] {
            let r = try run(args)
            XCTAssertEqual(r.status, 65, "\(args): \(r.err)")
            XCTAssertTrue((r.out + r.err).contains("looks like \"x\""), "\(args): \(r.out)\(r.err)")
        }
    }

    /// A corrupt archive damaged at byte 36,287 was reported "at offset 0".
    func testDamageInAnArchiveIsLocated() throws {
        let plain = path("gen.jsonl")
        XCTAssertEqual(try run(["generate", "--count", "4000", "--seed", "7", "-o", plain, "-q"]).status, 0)
        for check in [true, false] {
            let archive = path("gen-\(check).jsonl.zst")
            XCTAssertEqual(try Fixtures.run("zstd", ["-q", "-3", check ? "--check" : "--no-check", plain, "-o", archive]).status, 0)
            var data = try Data(contentsOf: URL(fileURLWithPath: archive))
            XCTAssertGreaterThan(data.count, 36_300)
            data[36_287] ^= 0xFF
            data[36_288] ^= 0xA5
            try data.write(to: URL(fileURLWithPath: archive))
            let r = try run(["classify", archive, "--no-output", "-q"])
            XCTAssertEqual(r.status, 65, r.err)
            // "in compressed bytes A..<B": the block (or with --check, the frame) that holds the damage.
            let range = try XCTUnwrap(r.err.range(of: #"compressed bytes (\d+)\.\.<(\d+)"#, options: .regularExpression), r.err)
            let numbers = r.err[range].split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            XCTAssertEqual(numbers.count, 2, r.err)
            XCTAssertLessThanOrEqual(numbers[0], 36_287, r.err)
            XCTAssertGreaterThan(numbers[1], 36_287, r.err)
            XCTAssertLessThan(numbers[1] - numbers[0], check ? data.count + 1 : 140_000, r.err)
            XCTAssertFalse(r.err.contains("offset 0"), r.err)
        }
    }

    func testMisspellingsGetTheRightSuggestion() throws {
        let command = try run(["clasify", input])
        XCTAssertEqual(command.status, 64)
        XCTAssertTrue(command.err.contains("Did you mean 'classify'?"), command.err)
        let option = try run(["classify", input, "--labels"])
        XCTAssertEqual(option.status, 64)
        XCTAssertTrue(option.err.contains("Did you mean '--labels-only'?"), option.err)
        XCTAssertFalse(option.err.contains("--level"), option.err)
        let export = try run(["export", input, "--out-dri", path("x")])
        XCTAssertTrue(export.err.contains("Did you mean '--output'?"), export.err)
        XCTAssertTrue(command.err.hasPrefix("smsfilter: error: "), command.err)
    }

    /// The progress line ignored the terminal's width (stale lines in a 50-column terminal) and TERM=dumb.
    func testTheProgressLineFitsTheTerminal() throws {
        let big = path("big.jsonl")
        XCTAssertEqual(try run(["generate", "--count", "20000", "--seed", "3", "-o", big, "-q"]).status, 0)
        for term in ["xterm-256color", "dumb"] {
            let r = try runInTerminal(["classify", big, "-o", path("o-\(term).jsonl")], columns: 50, term: term)
            XCTAssertEqual(r.status, 0, r.output)
            let progress = r.output.components(separatedBy: "\n").first ?? ""
            let lines = progress.components(separatedBy: "\r").map { $0.replacingOccurrences(of: "\u{1B}[2K", with: "") }
            XCTAssertTrue(lines.contains { $0.contains("records") }, "a progress line was drawn: \(r.output.debugDescription)")
            for line in lines { XCTAssertLessThanOrEqual(line.count, 49, "wider than the terminal: \(line.debugDescription)") }
            if term == "dumb" { XCTAssertFalse(r.output.contains("\u{1B}"), r.output.debugDescription) }
        }
    }

    // MARK: A terminal
    final class ResultBox: @unchecked Sendable { var data = Data() }

    /// Runs the binary with standard output and standard error on a new pseudo-terminal of `columns`
    /// columns (output processing off, so `\r` and `\n` arrive as written); standard input is the null device.
    func runInTerminal(_ args: [String], columns: UInt16 = 80, term: String = "xterm") throws -> (status: Int32, output: String) {
        let (master, slave): (Int32, Int32)
        do { (master, slave) = try openPseudoTerminal(columns: columns) } catch { throw XCTSkip("\(error)") }
        defer { close(master) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bin)
        process.arguments = args
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = term
        environment["COLUMNS"] = nil
        process.environment = environment
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        close(slave)
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(master, &buffer, buffer.count)
            if n <= 0 { break }
            output.append(contentsOf: buffer[0..<n])
        }
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
