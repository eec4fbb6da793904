import Foundation
import TestSupport
import XCTest

/// No command, with any argument order, can change a file it reads (issue 14, SPEC §6): every command
/// runs with every output option pointed at each of its inputs (spelled as given, as `./name`, through a
/// symbolic link and through a hard link) and at another output, with and without `--force`; each run must
/// be refused with exit status 64, and every input must keep its exact bytes.
final class OutputSafetyTests: CLITestCase {
    /// The files the commands read, and their bytes before any run.
    var inputs: [String: String] = [:]
    var original: [String: Data] = [:]

    override func setUpWithError() throws {
        try super.setUpWithError()
        inputs["records"] = try write("in.jsonl", """
            {"id": 1, "body": "Rs 500 debited from a/c XX12", "label": "ham"}
            {"id": 2, "body": "WIN a free cruise, click now", "label": "spam"}

            """)
        inputs["rules"] = try write("rules.yaml", "version: 1\nrules:\n  - name: win\n    action: junk\n    keywords: [win]\n")
        inputs["manifest"] = try write("manifest.txt", inputs["records"]! + "\n")
        inputs["map"] = try write("map.yaml", "spam: junk\nham: other\n")
        let counts = path("counts.json")
        XCTAssertEqual(try run(["classify", inputs["records"]!, "--no-output", "--counts", counts, "-q"]).status, 0)
        inputs["counts"] = counts
        inputs["counts2"] = path("counts2.json")
        try FileManager.default.copyItem(atPath: counts, toPath: inputs["counts2"]!)
        let smsf = path("rules.smsf")
        XCTAssertEqual(try run(["compile", inputs["rules"]!, "-o", smsf, "--quiet"]).status, 0)
        inputs["smsf"] = smsf
        for (_, file) in inputs { original[file] = try Data(contentsOf: URL(fileURLWithPath: file)) }
    }

    /// Every spelling of `file` that reaches the same bytes.
    func spellings(of file: String) throws -> [String] {
        let name = (file as NSString).lastPathComponent
        let link = path("link-\(name)")
        let hard = path("hard-\(name)")
        if !FileManager.default.fileExists(atPath: link) {
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
            try FileManager.default.linkItem(atPath: file, toPath: hard)
        }
        return [file, folder.path + "/./" + name, link, hard]
    }

    func assertRefused(_ args: [String], _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for force in [false, true] {
            let r = try run(args + (force ? ["--force"] : []))
            XCTAssertEqual(r.status, 64, "\(what)\(force ? " --force" : ""): \(args.joined(separator: " ")): \(r.err)", file: file, line: line)
            XCTAssertTrue(r.err.contains("refusing to write over") || r.err.contains("same file"), "\(what): \(r.err)", file: file, line: line)
            for (path, bytes) in original {
                XCTAssertEqual(try? Data(contentsOf: URL(fileURLWithPath: path)), bytes, "\(what) changed \(path)", file: file, line: line)
            }
        }
    }

    /// The commands, each with its inputs (by key) and its output options (a file each; `folder` options
    /// write the listed names into a folder).
    struct Case {
        var command: [String]
        var inputs: [String]
        var fileOutputs: [String]
        var folderOutput: (option: String, files: [String])?
    }

    func cases() -> [Case] {
        let r = inputs
        return [
            Case(command: ["classify", r["records"]!, "--rules", r["rules"]!], inputs: ["records", "rules"],
                 fileOutputs: ["-o", "--out", "--rejects", "--counts"]),
            Case(command: ["classify", "--manifest", r["manifest"]!, "--no-output"], inputs: ["manifest", "records"],
                 fileOutputs: ["--rejects", "--counts"]),
            Case(command: ["evaluate", r["records"]!, "--map-file", r["map"]!, "--rules", r["rules"]!, "-q"],
                 inputs: ["records", "map", "rules"], fileOutputs: ["--json-file", "--report"]),
            Case(command: ["export", r["records"]!, "--rules", r["rules"]!, "-q"], inputs: ["records", "rules"],
                 fileOutputs: ["--stats-file"], folderOutput: ("-o", ["train.jsonl", "validation.jsonl", "test.jsonl"])),
            Case(command: ["compile", r["rules"]!], inputs: ["rules"], fileOutputs: ["-o"]),
            Case(command: ["compile", r["smsf"]!], inputs: ["smsf"], fileOutputs: ["-o"]),
            Case(command: ["merge-counts", r["counts"]!, r["counts2"]!], inputs: ["counts", "counts2"], fileOutputs: ["-o", "--out"]),
            Case(command: ["bench", r["records"]!, "--rules", r["rules"]!], inputs: ["records", "rules"], fileOutputs: ["--phrases-file"]),
            Case(command: ["learn", r["records"]!, "--map-file", r["map"]!, "--rules", r["rules"]!, "--cv", "2", "-q"],
                 inputs: ["records", "map", "rules"], fileOutputs: ["-o", "--folds-file"]),
            Case(command: ["export-extension", r["smsf"]!], inputs: ["smsf"], fileOutputs: [],
                 folderOutput: ("-o", ["Rules.smsf", "README.md", "MessageFilterExtension.swift"])),
        ]
    }

    func testNoOutputOptionCanChangeAnInput() throws {
        var runs = 0
        for c in cases() {
            for option in c.fileOutputs {
                for key in c.inputs {
                    for spelling in try spellings(of: inputs[key]!) {
                        var args = c.command + [option, spelling]
                        // A command with a folder output needs one; give it a fresh folder.
                        if let folderOutput = c.folderOutput { args += [folderOutput.option, path("fresh-\(runs)")] }
                        // The binary's standard output a file, a pipe or a terminal in turn: no verdict may depend on it.
                        standardOutput = StandardOutput.allCases[runs % StandardOutput.allCases.count]
                        try assertRefused(args, "\(c.command[0]) \(option) at \(key) (standard output a \(standardOutput))")
                        runs += 1
                    }
                }
            }
            // The output folder holding an input under a name the command writes.
            if let folderOutput = c.folderOutput {
                for key in c.inputs {
                    for name in folderOutput.files {
                        let holder = path("holder-\(runs)")
                        try FileManager.default.createDirectory(atPath: holder, withIntermediateDirectories: false)
                        let planted = holder + "/" + name
                        try FileManager.default.linkItem(atPath: inputs[key]!, toPath: planted)
                        standardOutput = StandardOutput.allCases[runs % StandardOutput.allCases.count]
                        try assertRefused(c.command + [folderOutput.option, holder], "\(c.command[0]) \(folderOutput.option) holding \(key) as \(name) (standard output a \(standardOutput))")
                        runs += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(runs, 120)
    }

    func testNoTwoOutputsCanBeOneFile() throws {
        try underEveryStandardOutput { try noTwoOutputsCanBeOneFile() }
    }

    func noTwoOutputsCanBeOneFile() throws {
        for c in cases() {
            let options = c.fileOutputs.filter { $0 != "--out" }
            for (i, a) in options.enumerated() {
                for b in options[(i + 1)...] {
                    let target = path("shared-\(a)-\(b)")
                    var args = c.command + [a, target, b, target]
                    if let folderOutput = c.folderOutput { args += [folderOutput.option, path("fresh-\(a)-\(b)")] }
                    try assertRefused(args, "\(c.command[0]) \(a) and \(b) (standard output a \(standardOutput))")
                    XCTAssertFalse(FileManager.default.fileExists(atPath: target))
                }
            }
            if let folderOutput = c.folderOutput {
                for a in options {
                    let out = path("sets-\(a)-\(standardOutput)")
                    let inside = out + "/" + folderOutput.files[0]
                    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
                    try assertRefused(c.command + [folderOutput.option, out, a, inside], "\(c.command[0]) \(a) inside \(folderOutput.option)")
                }
            }
        }
        // Standard output named twice: as `-` and through a link to whatever the process's standard output
        // is (a private stand-in for the system's link, which a broken guard could replace).
        let stdoutLink = try StandIn.standardOutputLink(in: folder, name: "stdout-\(standardOutput)")
        try assertRefused(["evaluate", inputs["records"]!, "--map", "spam=junk", "--json-file", "-", "--report", stdoutLink], "stdout twice (\(standardOutput))")
    }

    /// Standard output named twice is refused whatever it is: a regular file, a pipe or a terminal.
    func testStandardOutputNamedTwiceIsRefusedWhateverItIs() throws {
        let stdoutLink = try StandIn.standardOutputLink(in: folder)
        try underEveryStandardOutput {
            try assertRefused(["evaluate", inputs["records"]!, "--map", "spam=junk", "--json-file", "-", "--report", stdoutLink], "stdout twice (\(standardOutput))")
            try assertRefused(["classify", inputs["records"]!, "-o", "-", "--counts", stdoutLink], "stdout twice (\(standardOutput))")
        }
        var info = stat()
        XCTAssertEqual(lstat(stdoutLink, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFLNK, "the stand-in is still a link")
    }

    /// A dangling symbolic link at an output's name is a file already there, as any link is: refused
    /// without `-f/--force` (exit 64, the link and the folder untouched, its target never created), and
    /// with `--force` replaced by the finished file, never followed. The same under every kind of standard
    /// output of the process (a file, a pipe, a terminal): nothing here depends on it.
    func testADanglingLinkIsAFileAlreadyThere() throws {
        let records = inputs["records"]!
        let rules = inputs["rules"]!
        let cases: [[String]] = [
            ["classify", records, "--rules", rules, "-q", "-o"],
            ["classify", records, "--rules", rules, "--no-output", "-q", "--counts"],
            ["classify", records, "--rules", rules, "--no-output", "-q", "--rejects"],
            ["compile", rules, "--quiet", "-o"],
            ["evaluate", records, "--map", "spam=junk,ham=none", "--rules", rules, "-q", "--json-file"],
        ]
        let link = path("dangling")
        let target = path("nowhere")
        try underEveryStandardOutput {
            for args in cases {
                let what = "\(args[0]) \(args.last!) at a dangling link, standard output a \(standardOutput)"
                try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
                let before = try listing()
                let refused = try run(args + [link])
                XCTAssertEqual(refused.status, 64, "\(what): \(refused.err)")
                XCTAssertTrue(refused.err.contains("a file is already there"), "\(what): \(refused.err)")
                XCTAssertEqual(try? FileManager.default.destinationOfSymbolicLink(atPath: link), target, what)
                XCTAssertFalse(FileManager.default.fileExists(atPath: target), "\(what): the link was written through")
                XCTAssertEqual(try listing(), before, what)
                let forced = try run(args + [link, "--force"])
                XCTAssertEqual(forced.status, 0, "\(what) --force: \(forced.err)")
                var info = stat()
                XCTAssertEqual(lstat(link, &info), 0, what)
                XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG, "\(what) --force: the finished file replaces the link")
                if args.last != "--rejects" { XCTAssertGreaterThan(info.st_size, 0, what) }
                XCTAssertFalse(FileManager.default.fileExists(atPath: target), "\(what) --force: the link was followed")
                try FileManager.default.removeItem(atPath: link)
            }
        }
    }
}
