import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 21's output attacks (items 1, 2, 4–8, 15, 16, the gzip padding of 17, 21–23), replayed against the
/// built binary, with their neighbours: each test is one class of attack that crashed, wrote outside the
/// outputs, or wrote something that could not be read back on the main of 2026-11-26.
///
/// No test here names a real system path (`/dev/stdout`, `/dev/stderr`, `/dev/full`) as an output: a test
/// whose output guard has a bug must not be able to damage the machine. Links of the test's own, in its own
/// temporary folder, stand in for them (a link to `/proc/self/fd/1` is `/dev/stdout`).
final class HostileOutputTests: HostileTestCase {
    override class var records: String { lines(3) }
    override class var labelledBodies: (spam: String, ham: String) { ("win a free prize now", "see you at home tonight") }

    var rules = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        rules = try write("rules.yaml", """
            version: 1
            capabilities: [transactionalFinance]
            rules:
              - {name: bank, action: transaction, subAction: transactionalFinance, keywords: [debited]}

            """)
    }


    /// Runs the binary with `folder` as its current folder (so that relative names land in the test's folder).
    func runHere(_ args: [String], in folder: String? = nil) throws -> (status: Int32, out: Data, err: String) {
        let r = try Fixtures.run("sh", ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", folder ?? self.folder.path, bin] + args)
        return (r.status, r.stdout, String(decoding: r.stderr, as: UTF8.self))
    }

    /// Whether `path` is a symbolic link (not followed).
    func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    // MARK: 1. Any name, any length

    /// Any one-character output name crashed with SIGILL in Foundation's `deletingLastPathComponent`.
    func testOneCharacterOutputNamesAreOrdinaryNames() throws {
        let corpus = try labelled()
        XCTAssertEqual(try run(["classify", input, "--no-output", "--counts", path("counts.json"), "-q"]).status, 0)
        for (args, written) in [
            (["classify", "in.jsonl", "-o", "x", "-q"], ["x"]),
            (["classify", "in.jsonl", "--no-output", "--counts", "c", "--rejects", "r", "-q"], ["c", "r"]),
            (["generate", "--count", "3", "-o", "z", "-q"], ["z"]),
            (["compile", "rules.yaml", "-o", "s"], ["s"]),
            (["learn", corpus, "--map", "spam=junk,ham=none", "-o", "m", "-q"], ["m"]),
            (["evaluate", corpus, "--map", "spam=junk,ham=none", "--report", "h", "--json-file", "j", "-q"], ["h", "j"]),
            (["merge-counts", "counts.json", "-o", "k"], ["k"]),
            (["export", "in.jsonl", "-o", "e", "--stats-file", "t", "-q"], ["e", "t"]),
            (["export-extension", "rules.yaml", "-o", "v", "-q"], ["v"]),
            (["bench", "in.jsonl", "--phrases-file", "p", "-q"], ["p"]),
        ] {
            let r = try runHere(args)
            XCTAssertEqual(r.status, 0, "\(args): \(r.err)")
            XCTAssertFalse(r.err.contains("crashed"), r.err)
            for name in written { XCTAssertTrue(exists(path(name)), "\(args) wrote \(name)") }
        }
        // Outside the current folder too, and a name that is a slash short of a folder.
        let nested = try runHere(["classify", "in.jsonl", "-o", "./y", "-q"])
        XCTAssertEqual(nested.status, 0, nested.err)
        XCTAssertTrue(exists(path("y")))
        let empty = try runHere(["classify", "in.jsonl", "-o", ""])
        XCTAssertEqual(empty.status, 64, empty.err)
        XCTAssertTrue(empty.err.contains("empty name"), empty.err)
    }

    // MARK: 2. Links to file descriptors are written in place

    /// With standard output redirected to a file, `-o /dev/stdout -f` replaced the machine's `/dev/stdout` link
    /// with a regular file. Stand-ins here: links of the test's own to `/proc/self/fd/1` (what `/dev/stdout`
    /// is), to it through another link, and to the folder `/proc/self/fd`. Standard output of the child is a
    /// regular file (``Fixtures/run``), the case that was broken.
    func testLinksToStandardOutputAreWrittenInPlaceNeverReplaced() throws {
        let stdoutLink = path("my-stdout")
        XCTAssertEqual(symlink("/proc/self/fd/1", stdoutLink), 0)
        let viaLink = path("via-link")
        XCTAssertEqual(symlink(stdoutLink, viaLink), 0)
        let fds = path("fds")
        XCTAssertEqual(symlink("/proc/self/fd", fds), 0)
        guard exists("/proc/self/fd/1") else { throw XCTSkip("no /proc here") }
        let corpus = try labelled()
        for target in [stdoutLink, viaLink, fds + "/1"] {
            for force in [false, true] {
                for (args, expected) in [
                    (["classify", input, "-o", target, "-q"], "\"filter\""),
                    (["classify", input, "--no-output", "--counts", target, "-q"], "\"records\""),
                    (["classify", input, "--no-output", "--rejects", target, "-q"], ""),
                    (["generate", "--count", "2", "-o", target, "-q"], "\"body\""),
                    (["compile", rules, "-o", target], "SMSF"),
                    (["evaluate", corpus, "--map", "spam=junk,ham=none", "--report", target, "-q"], "<html"),
                    (["evaluate", corpus, "--map", "spam=junk,ham=none", "--json-file", target, "-q"], "\"accuracy\""),
                    (["learn", corpus, "--map", "spam=junk,ham=none", "-o", target, "-q"], "model:"),
                ] {
                    let all = args + (force ? ["-f"] : [])
                    let r = try Fixtures.run(bin, all)
                    let err = String(decoding: r.stderr, as: UTF8.self)
                    XCTAssertEqual(r.status, 0, "\(all): \(err)")
                    XCTAssertTrue(isLink(stdoutLink) && isLink(viaLink) && isLink(fds), "\(all): a link was replaced")
                    if !expected.isEmpty {
                        XCTAssertTrue(String(decoding: r.stdout, as: UTF8.self).contains(expected), "\(all) wrote through standard output")
                    }
                    let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
                    XCTAssertEqual(left, [], "\(all): no temporary file")
                }
            }
        }
        // Whatever standard output is (a file above; a pipe, a terminal), the link is written through, never replaced.
        for standardOutput in StandardOutput.allCases {
            for args in [["classify", input, "-o", stdoutLink, "-q"], ["classify", input, "--no-output", "--counts", viaLink, "-q", "-f"]] {
                let r: (status: Int32, stdout: Data, stderr: Data)
                do { r = try Fixtures.run(bin, args, standardOutput: standardOutput) } catch is PseudoTerminalUnavailable { continue }
                XCTAssertEqual(r.status, 0, "\(standardOutput): \(args): \(String(decoding: r.stderr, as: UTF8.self))")
                XCTAssertTrue(String(decoding: r.stdout, as: UTF8.self).contains(args.contains("--counts") ? "\"records\"" : "\"filter\""), "\(standardOutput)")
                XCTAssertTrue(isLink(stdoutLink) && isLink(viaLink), "\(standardOutput): a link was replaced")
            }
        }
        // Standard error the same way; and the records and a summary on one descriptor are one output twice.
        let stderrLink = path("my-stderr")
        XCTAssertEqual(symlink("/proc/self/fd/2", stderrLink), 0)
        let toStderr = try Fixtures.run(bin, ["classify", input, "-o", stderrLink, "-f", "-q"])
        XCTAssertEqual(toStderr.status, 0)
        XCTAssertTrue(String(decoding: toStderr.stderr, as: UTF8.self).contains("\"filter\""))
        XCTAssertTrue(isLink(stderrLink))
        let twice = try Fixtures.run(bin, ["classify", input, "-o", stdoutLink, "--counts", viaLink, "-f"])
        XCTAssertEqual(twice.status, 64)
        XCTAssertTrue(String(decoding: twice.stderr, as: UTF8.self).contains("are the same file"))
    }

    /// A link into another process's descriptors is refused before any work (this test process's, standing
    /// in for any other: a guard with a bug replaces only the test's own link).
    func testALinkToAnotherProcesssDescriptorIsRefused() throws {
        guard exists("/proc/self/fd") else { throw XCTSkip("no /proc here") }
        let held = try write("held.txt", "precious\n")
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: held))
        defer { try? handle.close() }
        let link = path("theirs")
        XCTAssertEqual(symlink("/proc/\(getpid())/fd/\(handle.fileDescriptor)", link), 0)
        for force in [false, true] {
            let r = try run(["classify", input, "-o", link, "-q"] + (force ? ["-f"] : []))
            XCTAssertEqual(r.status, 64, r.err)
            XCTAssertTrue(r.err.contains("another process"), r.err)
            XCTAssertTrue(isLink(link))
            XCTAssertEqual(try String(contentsOfFile: held, encoding: .utf8), "precious\n")
        }
    }

    /// Neighbours of item 2: devices were written in place whatever they were, so a link named like an output
    /// (or planted in an output folder) could lead the run onto a disk, or hang it on a FIFO nobody reads. A
    /// block device is never written; a file a command names inside its output folder must be a file. (The
    /// stand-in disk is a node of the test's own with a major number no driver has: a guard with a bug
    /// could only fail to open it.)
    func testBlockDevicesAndDevicesInOutputFoldersAreRefused() throws {
        let disk = path("disk")
        guard mknod(disk, S_IFBLK | 0o600, dev_t((240 << 8) | 77)) == 0 else { throw XCTSkip("cannot make a device node here (not root)") }
        let link = path("innocent.jsonl")
        XCTAssertEqual(symlink(disk, link), 0)
        for target in [disk, link] {
            for force in [false, true] {
                let r = try run(["classify", input, "-o", target, "-q"] + (force ? ["-f"] : []))
                XCTAssertEqual(r.status, 64, r.err)
                XCTAssertTrue(r.err.contains("block device"), r.err)
            }
        }
        // A FIFO planted under a name the command writes into its folder: refused at once, not a hang.
        try FileManager.default.createDirectory(atPath: path("ext"), withIntermediateDirectories: false)
        XCTAssertEqual(mkfifo(path("ext/README.md"), 0o600), 0)
        try FileManager.default.createDirectory(atPath: path("sets"), withIntermediateDirectories: false)
        XCTAssertEqual(mkfifo(path("pipe"), 0o600), 0)
        XCTAssertEqual(symlink(path("pipe"), path("sets/train.jsonl")), 0)
        for args in [["export-extension", rules, "-o", path("ext"), "-f"], ["export", input, "-o", path("sets"), "-f"]] {
            let r = try run(args, timeout: 30)
            XCTAssertEqual(r.status, 64, "\(args): \(r.err)")
            XCTAssertTrue(r.err.contains("not a file"), r.err)
        }
        // An explicitly named FIFO is still written in place (zstd's convention): testCompileWritesAFIFOInPlace.
    }

    // MARK: 5. Files a rule file names are inputs

    /// `export-extension r.yaml -o DIR -f`, where DIR holds the rule file's own `blockList:` list, rewrote
    /// it (its comments lost). The same for every command that loads rules and every output option.
    func testTheNumberListsOfARuleFileAreNeverWrittenOver() throws {
        try FileManager.default.createDirectory(atPath: path("ext"), withIntermediateDirectories: false)
        let block = try write("ext/BlockList.txt", "# my numbers\n+14155550100\n")
        let ident = try write("ext/IdentificationList.tsv", "# who\n+14155550101\tBank\n")
        let listRules = try write("ext/lists.yaml", """
            version: 1
            capabilities: [transactionalFinance]
            blockList: BlockList.txt
            identificationList: "IdentificationList.tsv"
            rules:
              - name: bank
                action: transaction
                subAction: transactionalFinance
                keywords: [debited]

            """)
        let original = [bytes(block), bytes(ident)]
        let absolute = path("ext/../ext/BlockList.txt")
        for force in [false, true] {
            for args in [
                ["export-extension", listRules, "-o", path("ext")],
                ["compile", listRules, "-o", block],
                ["compile", listRules, "-o", absolute],
                ["classify", "--rules", listRules, input, "-o", ident],
                ["classify", "--rules", listRules, input, "--no-output", "--counts", block],
                ["export", "--rules", listRules, input, "-o", path("sets"), "--stats-file", ident],
                ["learn", try labelled(), "--rules", listRules, "--map", "spam=junk,ham=none", "-o", block],
            ] {
                let all = args + (force ? ["-f"] : [])
                let r = try run(all)
                XCTAssertEqual(r.status, 64, "\(all): \(r.err)")
                XCTAssertTrue(r.err.contains("blockList of") || r.err.contains("identificationList of"), "\(all): \(r.err)")
                XCTAssertEqual([bytes(block), bytes(ident)], original, "\(all) changed a number list")
            }
        }
        // A folder without the lists is still written.
        let other = try run(["export-extension", listRules, "-o", path("elsewhere"), "-q"])
        XCTAssertEqual(other.status, 0, other.err)
    }

    // MARK: 23. An output that cannot be created is 73, for every output option

    func testAnOutputThatCannotBeCreatedIs73ForEveryOption() throws {
        let file = try write("plain.txt", "x\n")
        let corpus = try labelled()
        let counts = path("counts.json")
        XCTAssertEqual(try run(["classify", input, "--no-output", "--counts", counts, "-q"]).status, 0)
        let places = [
            ("a missing folder", path("missing/out")),
            ("a folder that is a file", file + "/out"),
            ("a folder", folder.path),
            ("a name ending with /", folder.path + "/new/"),
        ]
        let commands: [(String, (String) -> [String])] = [
            ("-o", { ["classify", self.input, "-o", $0] }),
            ("--counts", { ["classify", self.input, "--no-output", "--counts", $0] }),
            ("--rejects", { ["classify", self.input, "--no-output", "--rejects", $0] }),
            ("-o", { ["generate", "--count", "1", "-o", $0] }),
            ("-o", { ["compile", self.rules, "-o", $0] }),
            ("-o", { ["learn", corpus, "--map", "spam=junk,ham=none", "-o", $0] }),
            ("--report", { ["evaluate", corpus, "--map", "spam=junk,ham=none", "--report", $0] }),
            ("--json-file", { ["evaluate", corpus, "--map", "spam=junk,ham=none", "--json-file", $0] }),
            ("-o", { ["merge-counts", counts, "-o", $0] }),
            ("--stats-file", { ["export", self.input, "-o", self.path("sets"), "--stats-file", $0] }),
            ("--phrases-file", { ["bench", self.input, "--phrases-file", $0] }),
        ]
        for (option, command) in commands {
            for (what, place) in places {
                for force in [false, true] {
                    let args = command(place) + (force ? ["-f"] : [])
                    let r = try run(args)
                    XCTAssertEqual(r.status, 73, "\(option) at \(what): \(args): \(r.err)")
                    XCTAssertTrue(r.err.contains(option), "\(args): \(r.err)")
                }
            }
        }
        // Output folders: a parent that is missing or a file, or a file where the folder should be.
        for command in [
            { (p: String) in ["export", self.input, "-o", p] },
            { (p: String) in ["export-extension", self.rules, "-o", p] },
        ] {
            for place in [path("missing/out"), file + "/out", file] {
                let r = try run(command(place) + ["-f"])
                XCTAssertEqual(r.status, 73, "\(command(place)): \(r.err)")
            }
        }
        XCTAssertFalse(exists(path("sets")) || exists(path("missing")) || exists(path("new")))
        // What saying it otherwise fixes stays a usage error: an existing file without -f, an output that is an input.
        XCTAssertEqual(try run(["classify", input, "-o", file]).status, 64)
        XCTAssertEqual(try run(["classify", input, "-o", input, "-f"]).status, 64)
    }
    // MARK: 4. Large frames cannot crash

    /// `classify … --frame-size 1G` (an accepted value) aborted with "failed to allocate 1073741824 bytes" and
    /// left a 0-byte temporary file: one 1 GiB frame buffer (and its compressed bound) per compression worker
    /// was allocated up front. Under a 2.5 GB address-space limit, every command that writes seekable zstd
    /// now finishes at 8 threads, and the bytes are what `zstd -dc` reads.
    func testOneGigabyteFramesFitInBoundedMemory() throws {
        let plain = path("plain.jsonl")
        XCTAssertEqual(try run(["classify", input, "-o", plain, "-q"]).status, 0)
        let limit = "ulimit -v 2500000 && exec \"$@\""
        for (args, output) in [
            (["classify", input, "-o", path("big.jsonl.zst"), "--frame-size", "1G", "--threads", "8", "-q"], path("big.jsonl.zst")),
            (["generate", "--count", "50", "-o", path("gen.jsonl.zst"), "--frame-size", "1G", "--threads", "8", "-q"], path("gen.jsonl.zst")),
            (["export", input, "-o", path("sets"), "--zst", "--frame-size", "1G", "--threads", "8", "-q"], path("sets/train.jsonl.zst")),
        ] {
            let r = try Fixtures.run("sh", ["-c", limit, "sh", bin] + args)
            XCTAssertEqual(r.status, 0, "\(args): \(String(decoding: r.stderr, as: UTF8.self))")
            XCTAssertEqual(try Fixtures.run("zstd", ["-t", "-q", output]).status, 0, "\(output) is whole")
        }
        XCTAssertEqual(try Fixtures.run("zstd", ["-dc", path("big.jsonl.zst")]).stdout, bytes(plain))
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(left, [], "no temporary file")
        // The pipeline's own buffers (bounded by the memory formula) stop the run when even that much cannot be
        // had, but remove the temporary files first: a 64M chunk pool under a 900 MB limit.
        let oom = try Fixtures.run("sh", [
            "-c", "ulimit -v 900000 && exec \"$@\"", "sh", bin, "classify", input, "-o", path("oom.jsonl"),
            "--rejects", path("oom-rejects.jsonl"), "--chunk-size", "64M", "--threads", "1", "-q",
        ])
        XCTAssertNotEqual(oom.status, 0)
        XCTAssertTrue(String(decoding: oom.stderr, as: UTF8.self).contains("out of memory"))
        let afterOOM = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") || $0.hasPrefix("oom") }
        XCTAssertEqual(afterOOM, [], "no temporary file after running out of memory")
    }

    // MARK: 7. A .gz name is gzip

    /// `-o x.jsonl.gz` wrote plain text under a gzip name. Records and rejects are compressed as their name
    /// says (`gzip -dc` is the oracle); every other output refuses a `.gz` or `.zst` name instead of lying.
    func testGzipNamesAreGzipAndOtherOutputsRefuseCompressedNames() throws {
        let plain = path("plain.jsonl")
        XCTAssertEqual(try run(["classify", input, "-o", plain, "-q"]).status, 0)
        let bad = try write("bad.jsonl", Self.records + "{\"id\": 9, \"body\": \n")
        for (args, gz, expected) in [
            (["classify", input, "-o", path("x.jsonl.gz"), "-q"], path("x.jsonl.gz"), bytes(plain)),
            (["classify", input, "-o", path("x9.jsonl.gz"), "--level", "9", "--threads", "4", "-q"], path("x9.jsonl.gz"), bytes(plain)),
            (["classify", bad, "--no-output", "--rejects", path("r.jsonl.gz"), "-q"], path("r.jsonl.gz"), nil),
            (["classify", input, "--output-format", "csv", "-o", path("x.csv.GZ"), "-q"], path("x.csv.GZ"), nil),
            (["generate", "--count", "20", "-o", path("g.jsonl.gz"), "-q"], path("g.jsonl.gz"), nil),
        ] as [([String], String, Data?)] {
            let r = try run(args)
            XCTAssertEqual(r.status, 0, "\(args): \(r.err)")
            let oracle = try Fixtures.run("gzip", ["-dc", gz])
            XCTAssertEqual(oracle.status, 0, "\(gz) is gzip")
            if let expected { XCTAssertEqual(oracle.stdout, expected, "\(gz) holds what the plain output holds") }
            XCTAssertFalse(oracle.stdout.isEmpty)
        }
        XCTAssertTrue(String(decoding: try Fixtures.run("gzip", ["-dc", path("r.jsonl.gz")]).stdout, as: UTF8.self).contains("\"reason\""))
        // smsfilter reads its own gzip output back.
        let back = try run(["classify", path("x.csv.GZ"), "--no-output", "--counts", path("back.json"), "-q"])
        XCTAssertEqual(back.status, 0, back.err)
        // The name's format is seen through .gz; gzip levels are zlib's.
        let named = try run(["classify", input, "-o", path("x.csv.gz")])
        XCTAssertEqual(named.status, 64, named.err)
        XCTAssertTrue(named.err.contains("the name says csv"), named.err)
        for level in ["0", "10", "-3", "19"] {
            let r = try run(["classify", input, "-o", path("l.jsonl.gz"), "--level", level])
            XCTAssertEqual(r.status, 64, r.err)
            XCTAssertTrue(r.err.contains("from 1 to 9"), r.err)
        }
        // Outputs written uncompressed refuse a compressed name, before any work.
        let corpus = try labelled()
        let counts = path("counts.json")
        XCTAssertEqual(try run(["classify", input, "--no-output", "--counts", counts, "-q"]).status, 0)
        for (args, option) in [
            (["classify", input, "--no-output", "--counts", path("c.json.gz")], "--counts"),
            (["classify", input, "--no-output", "--counts", path("c.json.zst")], "--counts"),
            (["evaluate", corpus, "--map", "spam=junk,ham=none", "--report", path("r.html.gz")], "--report"),
            (["evaluate", corpus, "--map", "spam=junk,ham=none", "--json-file", path("e.json.zst")], "--json-file"),
            (["compile", rules, "-o", path("r.smsf.gz")], "-o"),
            (["learn", corpus, "--map", "spam=junk,ham=none", "-o", path("m.yaml.gz")], "-o"),
            (["merge-counts", counts, "-o", path("m.json.gz")], "-o"),
            (["export", input, "-o", path("sets"), "--stats-file", path("s.json.gz")], "--stats-file"),
            (["bench", input, "--phrases-file", path("p.txt.zst")], "--phrases-file"),
        ] {
            let r = try run(args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.err)")
            XCTAssertTrue(r.err.contains(option) && r.err.contains("uncompressed"), "\(args): \(r.err)")
        }
        let made = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssertFalse(made.contains { $0.hasPrefix("c.json.") || $0.hasPrefix("r.html") || $0.hasPrefix("m.") || $0 == "sets" }, "\(made)")
    }
    // MARK: 16, 17. What is inside a compressed input

    /// Binary data inside a `.gz` or `.zst` got "no column body (columns: <binary dump>)" (megabytes of it on
    /// the terminal) or exit 0 with every line rejected; the first decoded bytes are now recognised as a
    /// plain file's are, by every command that reads records, from files and standard input.
    func testBinaryInsideACompressedFileGetsTheOneLine() throws {
        var rng = Fixtures.SeededGenerator(seed: 0x2116)
        let random = Data((0..<6000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        try random.write(to: URL(fileURLWithPath: path("random.bin")))
        try Data(count: 200_000).write(to: URL(fileURLWithPath: path("zeros.bin")))
        XCTAssertEqual(try Fixtures.run("gzip", ["-k", path("random.bin")]).status, 0)
        XCTAssertEqual(try Fixtures.run("gzip", ["-k", path("zeros.bin")]).status, 0)
        XCTAssertEqual(try Fixtures.run("zstd", ["-q", path("random.bin"), "-o", path("random.bin.zst")]).status, 0)
        XCTAssertEqual(try Fixtures.run("gzip", ["-k", input]).status, 0)
        XCTAssertEqual(try Fixtures.run("zstd", ["-q", input + ".gz", "-o", path("twice.jsonl.zst")]).status, 0)
        let corpus = try labelled()
        let cases: [(String, String)] = [
            (path("random.bin.gz"), "binary data"), (path("zeros.bin.gz"), "binary data"),
            (path("random.bin.zst"), "binary data"), (path("twice.jsonl.zst"), "compressed twice"),
        ]
        for (file, phrase) in cases {
            for args in [
                ["classify", file, "-o", path("out.jsonl")], ["export", file, "-o", path("sets")],
                ["evaluate", file, "--map", "spam=junk,ham=none"], ["learn", file, corpus, "--map", "spam=junk,ham=none", "-o", path("m.yaml")],
                ["bench", file, "--repeat", "1"],
            ] {
                let r = try run(args)
                XCTAssertEqual(r.status, 65, "\(args): \(r.err.prefix(300))")
                XCTAssertTrue(r.err.contains("decompressed") && r.err.contains(phrase), "\(args): \(r.err.prefix(300))")
                XCTAssertLessThan(r.err.utf8.count, 600, "one short line: \(args)")
                XCTAssertFalse(exists(path("out.jsonl")) || exists(path("m.yaml")))
            }
        }
        let piped = try run(["classify", "-", "--no-output"], stdin: try Data(contentsOf: URL(fileURLWithPath: path("random.bin.gz"))))
        XCTAssertEqual(piped.status, 65)
        XCTAssertTrue(piped.err.contains("standard input: decompressed (gzip)"), piped.err)
        // Damage inside the first decoded bytes is still reported as damage, after the records before it.
        var text = ""
        for i in 0..<400 { text += "{\"id\": \(i), \"body\": \"hello number \(i)\"}\n" }
        let long = try write("long.jsonl", text)
        XCTAssertEqual(try Fixtures.run("gzip", ["-k", long]).status, 0)
        var gz = try Data(contentsOf: URL(fileURLWithPath: long + ".gz"))
        gz = gz.prefix(gz.count / 2)
        try gz.write(to: URL(fileURLWithPath: path("cut.jsonl.gz")))
        let cut = try run(["classify", path("cut.jsonl.gz"), "-o", path("cut-out.jsonl"), "-q"])
        XCTAssertEqual(cut.status, 65, cut.err)
        XCTAssertTrue(cut.err.contains("truncated") || cut.err.contains("incomplete"), cut.err)
        // A header row of megabytes (or binary read as text) never floods the terminal.
        let wide = (0..<5000).map { "column\($0)" + String(repeating: "x", count: 100) }.joined(separator: ",")
        let csv = try write("wide.csv", wide + "\n" + Array(repeating: "1", count: 5000).joined(separator: ",") + "\n")
        let named = try run(["classify", csv, "--no-output"])
        XCTAssertEqual(named.status, 65)
        XCTAssertTrue(named.err.contains("and 4980 more"), String(named.err.prefix(300)))
        XCTAssertLessThan(named.err.utf8.count, 2000)
    }

    /// Zero padding after the last gzip member was exit 65; `gzip -dc` accepts it.
    func testZeroPaddingAfterAGzipMemberIsAccepted() throws {
        XCTAssertEqual(try Fixtures.run("gzip", ["-k", input]).status, 0)
        var padded = try Data(contentsOf: URL(fileURLWithPath: input + ".gz"))
        padded.append(Data(count: 10_000))
        try padded.write(to: URL(fileURLWithPath: path("padded.jsonl.gz")))
        XCTAssertEqual(try Fixtures.run("gzip", ["-dc", path("padded.jsonl.gz")]).status, 0, "the oracle accepts it")
        let plain = try run(["classify", input, "-o", path("plain.jsonl"), "-q"])
        XCTAssertEqual(plain.status, 0)
        let r = try run(["classify", path("padded.jsonl.gz"), "-o", path("padded.jsonl"), "-q"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(bytes(path("padded.jsonl")), bytes(path("plain.jsonl")))
    }
    // MARK: 8. Names written into outputs

    /// Control characters in `--model-name` were accepted and split TSV rows (rule names were already refused).
    func testModelNamesAreCheckedAsRuleNamesAre() throws {
        let corpus = try labelled()
        for name in ["a\tb", "a\nb", "\u{1B}[2J", "x\u{85}", ""] {
            let r = try run(["learn", corpus, "--map", "spam=junk,ham=none", "-o", path("m.yaml"), "--model-name", name])
            XCTAssertEqual(r.status, 64, "\(name.debugDescription): \(r.err)")
            XCTAssertTrue(r.err.contains("--model-name"), r.err)
            XCTAssertFalse(exists(path("m.yaml")))
        }
        let good = try run(["learn", corpus, "--map", "spam=junk,ham=none", "-o", path("m.yaml"), "--model-name", "my model", "-q"])
        XCTAssertEqual(good.status, 0, good.err)
        // A hand-edited model section is refused by every command that loads it.
        let text = try String(contentsOfFile: path("m.yaml"), encoding: .utf8)
        let edited = try write("edited.yaml", text.replacingOccurrences(of: "name: \"my model\"", with: "name: \"a\\tb\""))
        XCTAssertNotEqual(text, try String(contentsOfFile: edited, encoding: .utf8))
        for args in [["check", edited], ["classify", "--rules", edited, input, "--no-output"], ["compile", edited, "-o", path("e.smsf")]] {
            let r = try run(args)
            XCTAssertEqual(r.status, 65, "\(args): \(r.err)\(r.out)")
            XCTAssertTrue((r.err + r.out).contains("model.name"), "\(args): \(r.err)\(r.out)")
        }
    }
    /// Neighbours of `--model-name`: other text a user gives that is written into outputs. `export
    /// --label-prefix` (the start of every fastText line) took ESC; an identification list's labels (shown by
    /// iOS, written into the extension's list and into labels) took any control character and invalid UTF-8.
    func testOtherNamesWrittenIntoOutputsRefuseControlCharacters() throws {
        for prefix in ["__l\u{1B}[2J", "__l\u{0B}", "__l\u{85}", "a b", ""] {
            let r = try run(["export", input, "-o", path("ft"), "--format", "fasttext", "--label-prefix", prefix])
            XCTAssertEqual(r.status, 64, "\(prefix.debugDescription): \(r.err)")
            XCTAssertTrue(r.err.contains("--label-prefix"), r.err)
        }
        XCTAssertFalse(exists(path("ft")))
        for label in ["Bank\u{1B}[2J", "Bank\u{0}", "Bank\u{85}"] {
            let list = try write("ids.tsv", "+14155550100\t\(label)\n")
            let listRules = try write("ids.yaml", "version: 1\nidentificationList: \(list)\nrules:\n  - name: a\n    action: junk\n    keywords: [win]\n")
            let r = try run(["check", listRules])
            XCTAssertEqual(r.status, 65, "\(label.debugDescription): \(r.out)")
            XCTAssertTrue(r.out.contains("control characters"), r.out)
        }
        try Data([0x2B, 0x31, 0x34, 0x31, 0x35, 0x09, 0x42, 0xFF, 0x0A]).write(to: URL(fileURLWithPath: path("ids.tsv")))
        XCTAssertEqual(try run(["check", path("ids.yaml")]).status, 65, "a label that is not UTF-8")
        _ = try write("ids.tsv", "+14155550100\tMy Bänk ✓\n")
        XCTAssertEqual(try run(["check", path("ids.yaml")]).status, 0)
    }

    // MARK: 15. One rule for --json

    /// `--json` went to standard error for classify, export, evaluate, compile, generate and export-extension
    /// and to standard output for the others: `classify … -o out --json | jq` printed nothing. Now the summary
    /// goes to standard output unless the records (or a compiled rule set, a learned rule file) go there.
    func testTheJSONSummaryGoesToStandardOutputUnlessRecordsDo() throws {
        let corpus = try labelled()
        func object(_ data: Data, _ what: String) -> [String: Any]? {
            let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            XCTAssertNotNil(o, "\(what): one JSON object: \(String(decoding: data.prefix(200), as: UTF8.self))")
            return o
        }
        let toStdout: [[String]] = [
            ["classify", input, "-o", path("o.jsonl"), "--json"],
            ["classify", input, "--no-output", "--json"],
            ["export", input, "-o", path("sets"), "--json"],
            ["evaluate", corpus, "--map", "spam=junk,ham=none", "--json"],
            ["generate", "--count", "3", "-o", path("g.jsonl"), "--json"],
            ["compile", rules, "-o", path("r.smsf"), "--json"],
            ["export-extension", rules, "-o", path("ext"), "--json"],
            ["learn", corpus, "--map", "spam=junk,ham=none", "-o", path("m.yaml"), "--json"],
            ["check", rules, "--json"],
            ["explain", "--rules", rules, "--json", "Rs 5 debited"],
            ["bench", input, "--matcher-only", "--repeat", "1", "--json", "-q"],
        ]
        for args in toStdout {
            let r = try Fixtures.run(bin, args)
            XCTAssertEqual(r.status, 0, "\(args): \(String(decoding: r.stderr, as: UTF8.self))")
            _ = object(r.stdout, "\(args) standard output")
            XCTAssertFalse(String(decoding: r.stderr, as: UTF8.self).contains("{"), "\(args): nothing JSON on standard error")
        }
        // Records (or the main output) on standard output: the summary goes to standard error.
        for (args, first) in [
            (["classify", input, "-o", "-", "--json"], "{\"id\""),
            (["classify", input, "--json"], "{\"id\""),
            (["generate", "--count", "3", "--json"], "{\"id\""),
            (["compile", rules, "-o", "-", "--json"], "SMSF"),
            (["learn", corpus, "--map", "spam=junk,ham=none", "-o", "-", "--json"], "#"),
        ] {
            let r = try Fixtures.run(bin, args)
            XCTAssertEqual(r.status, 0, "\(args)")
            XCTAssertTrue(r.stdout.starts(with: Data(first.utf8)), "\(args): the records come first on standard output")
            _ = object(r.stderr, "\(args) standard error")
        }
        // Characters a terminal obeys that JSON leaves raw (C1, bidi overrides) are escaped, and parse back.
        let odd = try write("odd\u{9B}2J\u{202E}.jsonl", Self.records)
        let r = try Fixtures.run(bin, ["classify", odd, "--no-output", "--json"])
        let text = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertFalse(text.unicodeScalars.contains { $0.value == 0x9B || $0.value == 0x202E }, text)
        let files = object(r.stdout, "odd name")?["files"] as? [[String: Any]]
        XCTAssertEqual(files?.first?["path"] as? String, odd)
    }
    /// Issue 33, item 4: `-o` naming a link to standard output (`/proc/self/fd/1` through a link of the test's
    /// own) with `--json` wrote the summary into the same stream as the records, the `.smsf`, the learned rule
    /// file or evaluate's figures (`classify`, `compile`, `generate`, `learn`, `evaluate`; `plan -o` too, and
    /// the counts of `classify --counts`). The summary now goes to standard error whenever an output is
    /// standard output's file (the same device and inode), as it does for `-o -`: standard output holds the
    /// output alone, whether it is a file or a pipe.
    func testTheJSONSummaryNeverLandsInAnOutputReachedThroughALink() throws {
        let corpus = try labelled()
        let link = try StandIn.standardOutputLink(in: folder)
        let linkToLink = path("stdout-again")
        try FileManager.default.createSymbolicLink(atPath: linkToLink, withDestinationPath: link)
        let archive = path("g.jsonl.zst")
        XCTAssertEqual(try run(["generate", "--count", "200", "-o", archive, "-q"]).status, 0)
        func json(_ data: Data) -> [String: Any]? { try? JSONSerialization.jsonObject(with: data) as? [String: Any] }
        func jsonLines(_ data: Data) -> Bool {
            let lines = data.split(separator: 0x0A)
            return !lines.isEmpty && lines.allSatisfy { json(Data($0))?["id"] != nil }
        }
        // Each command, and what its standard output must then be: the output alone.
        let cases: [([String], (Data) -> Bool)] = [
            (["classify", input, "-o", link, "--json"], jsonLines),
            (["classify", input, "-o", linkToLink, "--json"], jsonLines),
            (["classify", input, "--no-output", "--counts", link, "--json"], { json($0)?["files"] != nil }),
            (["generate", "--count", "3", "-o", link, "--json"], jsonLines),
            (["compile", rules, "-o", link, "--json"], { $0.starts(with: Data("SMSF".utf8)) && !$0.contains(Data("\"checksum\"".utf8)) }),
            (["learn", corpus, "--map", "spam=junk,ham=none", "-o", link, "--json"], {
                String(decoding: $0, as: UTF8.self).hasPrefix("#") && !$0.contains(Data("\"candidateTableBytes\"".utf8))
            }),
            (["evaluate", corpus, "--map", "spam=junk,ham=none", "--json-file", link, "--json"], { json($0)?["records"] != nil }),
            (["plan", archive, "-o", link, "--json"], { json($0)?["splits"] != nil }),
        ]
        for kind in [StandardOutput.file, .pipe] {
            for (args, isTheOutputAlone) in cases {
                let r = try Fixtures.run(bin, args, standardOutput: kind)
                let err = String(decoding: r.stderr, as: UTF8.self)
                XCTAssertEqual(r.status, 0, "\(args) (standard output a \(kind)): \(err)")
                XCTAssertTrue(isTheOutputAlone(r.stdout),
                    "\(args) (standard output a \(kind)): standard output holds the output alone: \(String(decoding: r.stdout.suffix(300), as: UTF8.self))")
                XCTAssertNotNil(json(r.stderr), "\(args) (standard output a \(kind)): the summary is one JSON object on standard error: \(err.prefix(300))")
            }
        }
        // plan's table goes beside its JSON the same way.
        let r = try Fixtures.run(bin, ["plan", archive, "-o", link])
        XCTAssertNotNil(json(r.stdout), String(decoding: r.stdout, as: UTF8.self))
        XCTAssertTrue(String(decoding: r.stderr, as: UTF8.self).contains("split"), String(decoding: r.stderr, as: UTF8.self))
        // A link to standard output is not standard output when standard output is elsewhere: the summary
        // stays on standard output when the records go to a file.
        let plain = try Fixtures.run(bin, ["classify", input, "-o", path("o.jsonl"), "--json"])
        XCTAssertNotNil(json(plain.stdout))
    }

    // MARK: 22. The rejects file has a bound

    /// A rejects file had no bound (a 4.7 MB gzip of zeros read as JSON Lines wrote 1.43 GB of base64). Rejects
    /// are now whole up to `--max-rejects-bytes`, then short (first 256 bytes, length, SHA-256) up to twice it,
    /// then counted only; the counts say how many of each. Python's `hashlib` is the oracle for the hashes, and
    /// the file is the same at every thread count and chunk size.
    /// Issue 33 item 7: a 32 KB zstd bomb (one 1 GiB line) under `--max-rejects-bytes 1K` wrote a 1.43 GB
    /// rejects file (its line streamed whole because it started under the budget); here a 24 MiB line. The file
    /// now never holds more than the budget: the bomb's line is cut where it would leave half of it (its first
    /// bytes in `recordBase64`, its length and the SHA-256 of all its bytes, `"shortened": true`), later
    /// rejects are short while they fit, then counted; the same bytes whether an over-long record streams in
    /// pieces or fits in a chunk, at every thread count.
    func testTheRejectsFileNeverHoldsMoreThanTheBudget() throws {
        let lineBytes = 24 << 20
        let bomb = path("bomb.jsonl.zst")
        // The bomb: one line of `a`s, then a few bad lines and over-long ones that fit in a chunk, and a good record.
        let tail = (0..<40).map { k in k % 10 == 3 ? "{over-long \(k) " + String(repeating: "b", count: 3000) : "{broken \(k)" }
            .joined(separator: "\n") + "\n{\"id\": 1, \"body\": \"fine\"}\n"
        let make = try Fixtures.run("sh", ["-c", "python3 -c 'import sys; sys.stdout.buffer.write(b\"a\" * int(sys.argv[1]) + b\"\\n\" + sys.argv[2].encode())' \"$1\" \"$2\" | zstd -q -19 -o \"$3\"", "sh", "\(lineBytes)", tail, bomb])
        XCTAssertEqual(make.status, 0, String(decoding: make.stderr, as: UTF8.self))
        XCTAssertLessThan(bytes(bomb)?.count ?? .max, 64 << 10, "a small archive")
        for budget in [1024, 4096] {
            var files: [Data] = []
            for (threads, chunk) in budget == 1024 ? [("1", "4K"), ("2", "1M"), ("4", "64K")] : [("2", "256K")] {
                let rejects = path("bomb-\(budget)-\(threads).rej")
                let counts = path("bomb-\(budget)-\(threads).json")
                let r = try run(["classify", bomb, "--no-output", "--rejects", rejects, "--counts", counts, "--max-rejects-bytes", "\(budget)",
                                 "--max-record", "1K", "--threads", threads, "--chunk-size", chunk, "-q", "-f"])
                XCTAssertEqual(r.status, 0, r.err)
                let written = bytes(rejects) ?? Data()
                files.append(written)
                let c = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: counts))) as? [String: Any])
                XCTAssertEqual(c["rejected"] as? Int, 41)
                let lines = String(decoding: written, as: UTF8.self).split(separator: "\n")
                XCTAssertEqual(c["rejectsShortened"] as? Int, lines.filter { $0.contains("\"shortened\": true") }.count)
                XCTAssertEqual(c["rejectsOmitted"] as? Int, 41 - lines.count)
            }
            XCTAssertEqual(Set(files).count, 1, "budget \(budget): the same rejects at every thread count and chunk size")
            XCTAssertLessThanOrEqual(files[0].count, budget, "budget \(budget): the rejects file holds at most the budget")
            // The bomb's line: its first bytes, its whole length and the SHA-256 of all its bytes (Python's hashlib).
            let first = try XCTUnwrap(String(decoding: files[0], as: UTF8.self).split(separator: "\n").first)
            let check = try Fixtures.run("python3", ["-c", """
                import base64, hashlib, json, sys
                r = json.loads(sys.argv[1]); n = int(sys.argv[2])
                record = b'a' * n + b'\\n'
                prefix = base64.b64decode(r['recordBase64'])
                assert r['line'] == 1 and r['shortened'] is True and r['length'] == len(record), r
                assert r['sha256'] == hashlib.sha256(record).hexdigest(), r
                assert 0 < len(prefix) < int(sys.argv[3]) // 2 and record.startswith(prefix), len(prefix)
                """, String(first), "\(lineBytes)", "\(budget)"])
            XCTAssertEqual(check.status, 0, String(decoding: check.stderr, as: UTF8.self))
        }
    }

    func testTheRejectsFileIsBoundedAndSaysSo() throws {
        var rng = Fixtures.SeededGenerator(seed: 0x2122)
        var text = ""
        for i in 0..<3000 {
            if i % 500 == 7 {
                text += "{broken and over-long \(i) " + String(repeating: "y", count: 3000) + "\n"
            } else {
                text += "{broken json \(i) " + String(repeating: "x", count: Int(rng.next() % 600)) + " ส่วนลด\n"
            }
        }
        text += "{\"id\": 1, \"body\": \"fine\"}\n"
        let garbage = try write("garbage.jsonl", text)
        var files: [Data] = []
        for (threads, chunk) in [("1", "4K"), ("4", "1M"), ("2", "64K")] {
            let rejects = path("rejects-\(threads).jsonl")
            let counts = path("counts-\(threads).json")
            let r = try run([
                "classify", garbage, "--no-output", "--rejects", rejects, "--counts", counts, "--max-rejects-bytes", "64K",
                "--max-record", "2K", "--threads", threads, "--chunk-size", chunk, "-q",
            ])
            XCTAssertEqual(r.status, 0, r.err)
            files.append(try Data(contentsOf: URL(fileURLWithPath: rejects)))
        }
        XCTAssertEqual(Set(files).count, 1, "the same rejects at every thread count and chunk size")
        let data = files[0]
        XCTAssertLessThanOrEqual(data.count, 65_536, "never more than the budget (issue 33 item 7)")
        // Every line is JSON; whole ones first, then short ones, each short one as the oracle hashes the record.
        let script = """
            import hashlib, json, sys
            raw = open(sys.argv[1], 'rb').read().split(b'\\n')
            out = {'whole': 0, 'short': 0, 'bad': [], 'order': True, 'seenShort': False}
            for line in open(sys.argv[2], encoding='utf-8'):
                r = json.loads(line)
                record = raw[r['line'] - 1]
                if r.get('reason', '').startswith('record longer'):
                    record += b'\\n'
                if r.get('shortened'):
                    out['short'] += 1
                    out['seenShort'] = True
                    # A short line keeps 256 bytes; an over-long record's line cut at half the budget, what fitted.
                    cut = 'recordBase64' in r
                    prefix = r['prefix'].encode() if 'prefix' in r \\
                        else __import__('base64').b64decode(r['recordBase64'] if cut else r['prefixBase64'])
                    if r['sha256'] != hashlib.sha256(record).hexdigest() or r['length'] != len(record) \\
                       or not record.startswith(prefix) or (len(prefix) > 256 and not cut):
                        out['bad'].append(r['line'])
                else:
                    out['whole'] += 1
                    if out['seenShort'] and r['length'] > 256:
                        out['order'] = False
            print(json.dumps(out))
            """
        let oracle = try Fixtures.run("python3", ["-c", script, garbage, path("rejects-1.jsonl")])
        XCTAssertEqual(oracle.status, 0, String(decoding: oracle.stderr, as: UTF8.self))
        let seen = try XCTUnwrap(JSONSerialization.jsonObject(with: oracle.stdout) as? [String: Any])
        XCTAssertEqual(seen["bad"] as? [Int], [], "every short reject's prefix, length and SHA-256 are the record's")
        XCTAssertEqual(seen["order"] as? Bool, true, "after the first short reject, only records of 256 bytes or less are whole")
        let counts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("counts-1.json")))) as? [String: Any])
        let whole = seen["whole"] as! Int, short = seen["short"] as! Int
        XCTAssertGreaterThan(short, 0)
        XCTAssertEqual(counts["rejected"] as? Int, 3000)
        XCTAssertEqual(counts["rejectsShortened"] as? Int, short)
        XCTAssertEqual(counts["rejectsOmitted"] as? Int, 3000 - whole - short)
        XCTAssertGreaterThan(counts["rejectsOmitted"] as? Int ?? 0, 0)
        XCTAssertEqual((counts["rejectReasons"] as? [String: Int])?.values.reduce(0, +), 3000, "every reject is counted by reason")
        // The table says so, and merge-counts adds them up.
        let table = try run(["classify", garbage, "--no-output", "--rejects", path("t.jsonl"), "--max-rejects-bytes", "64K"])
        XCTAssertTrue(table.err.contains("rejects past --max-rejects-bytes"), table.err)
        // Another archive (merge-counts refuses two runs of one) with the same bad lines under a name of the same
        // length, and one more good record after them: the same rejects, byte for byte.
        let other = try write("garbag2.jsonl", text + "{\"id\": 2, \"body\": \"fine\"}\n")
        let second = try run(["classify", other, "--no-output", "--rejects", path("t2.jsonl"), "--max-rejects-bytes", "64K",
                              "--max-record", "2K", "--counts", path("counts-other.json"), "-q"])
        XCTAssertEqual(second.status, 0, second.err)
        let merged = try run(["merge-counts", path("counts-1.json"), path("counts-other.json")])
        XCTAssertEqual(merged.status, 0, merged.err)
        let sum = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(merged.out.utf8)) as? [String: Any])
        XCTAssertEqual(sum["rejectsShortened"] as? Int, 2 * short)
        // Under the default budget (1G) every reject is whole, as before.
        let all = try run(["classify", garbage, "--no-output", "--rejects", path("all.jsonl"), "--counts", path("all.json"), "-q"])
        XCTAssertEqual(all.status, 0)
        let allCounts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("all.json")))) as? [String: Any])
        XCTAssertEqual(allCounts["rejectsShortened"] as? Int, 0)
        XCTAssertEqual(try String(contentsOfFile: path("all.jsonl"), encoding: .utf8).split(separator: "\n").count, 3000)
        for bad in ["0", "512", "2T"] {
            let r = try run(["classify", garbage, "--no-output", "--max-rejects-bytes", bad])
            XCTAssertEqual(r.status, 64, r.err)
        }
    }
}
