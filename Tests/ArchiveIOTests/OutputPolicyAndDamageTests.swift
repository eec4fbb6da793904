import Foundation
import TestSupport
import XCTest

@testable import ArchiveIO

/// ``OutputFile``'s existing-file policy and temporary names, and where ``ZstdDecoder`` says damage is
/// (issue 14).
final class OutputPolicyAndDamageTests: TemporaryFolderTestCase {
    func testKeepRefusesAnExistingFileAndNeverReplacesOneThatAppears() throws {
        let target = path("out.txt")
        try "old\n".write(toFile: target, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try OutputFile(path: target, existing: .keep)) { error in
            XCTAssertEqual((error as? ZstdError)?.errno, EEXIST)
        }
        try FileManager.default.createSymbolicLink(atPath: path("dangling"), withDestinationPath: path("nowhere"))
        XCTAssertThrowsError(try OutputFile(path: path("dangling"), existing: .keep))

        // A file that appears while writing is kept; nothing else is left behind.
        let late = path("late.txt")
        let file = try OutputFile(path: late, existing: .keep)
        try file.write("new\n")
        try "someone else's\n".write(toFile: late, atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try file.finish()) { error in
            XCTAssertEqual((error as? ZstdError)?.errno, EEXIST)
            XCTAssertTrue("\(error)".contains("appeared"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: late, encoding: .utf8), "someone else's\n")
        XCTAssertEqual(try listing(), ["dangling", "late.txt", "out.txt"])

        // Replace (the default) still replaces.
        let replacing = try OutputFile(path: target)
        try replacing.write("new\n")
        try replacing.finish()
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "new\n")
    }

    func testAFolderIsRefusedWhenTheFileIsCreatedNotAtTheEnd() throws {
        for existing in [OutputFile.Existing.keep, .replace] {
            XCTAssertThrowsError(try OutputFile(path: folder.path, existing: existing)) { error in
                XCTAssertEqual((error as? ZstdError)?.errno, EISDIR)
                XCTAssertTrue("\(error)".contains("folder"), "\(error)")
            }
        }
        XCTAssertThrowsError(try OutputFile(path: path("missing/out.txt"))) { error in
            XCTAssertTrue("\(error)".contains("does not exist"), "\(error)")
        }
    }

    /// Temporary names carry 64 random bits: two writers of one path never share one, and files planted at
    /// the old predictable names (`.NAME.tmp-PID-N`) are neither opened nor followed.
    func testTemporaryNamesAreUnpredictableAndNeverFollowLinks() throws {
        let victim = path("victim")
        try "precious".write(toFile: victim, atomically: true, encoding: .utf8)
        let pid = ProcessInfo.processInfo.processIdentifier
        for n in 0..<64 { try FileManager.default.createSymbolicLink(atPath: path(".out.smsf.tmp-\(pid)-\(n)"), withDestinationPath: victim) }
        let a = try OutputFile(path: path("out.smsf"))
        let b = try OutputFile(path: path("out.smsf"))
        XCTAssertNotEqual(a.temporaryPath, b.temporaryPath)
        try a.write("a")
        try a.finish()
        b.abandon()
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious")
        XCTAssertEqual(try String(contentsOfFile: path("out.smsf"), encoding: .utf8), "a")
    }

    // MARK: Damage

    /// A compressed corpus of many blocks (zstd's command-line tool is the encoder).
    func archive(check: Bool) throws -> Data {
        var text = ""
        var generator = Fixtures.SeededGenerator(seed: 14)
        for i in 0..<12_000 {
            text += "{\"id\": \(i), \"body\": \"message \(UInt32.random(in: 0...UInt32.max, using: &generator)) for a/c \(i % 977)\"}\n"
        }
        let plain = path("plain.jsonl")
        try text.write(toFile: plain, atomically: true, encoding: .utf8)
        let out = path("a.zst")
        try? FileManager.default.removeItem(atPath: out)
        XCTAssertEqual(try Fixtures.run("zstd", ["-q", "-3", check ? "--check" : "--no-check", plain, "-o", out]).status, 0)
        return try Data(contentsOf: URL(fileURLWithPath: out))
    }

    func decodeError(_ data: Data, fromPipe: Bool) throws -> ZstdError? {
        let damaged = path("damaged.zst")
        try data.write(to: URL(fileURLWithPath: damaged))
        let decoder: ZstdDecoder
        var pipe: Pipe?
        if fromPipe {
            pipe = Pipe()
            let writer = pipe!.fileHandleForWriting
            Thread.detachNewThread {
                writer.write(data)
                try? writer.close()
            }
            decoder = try ZstdDecoder(fileDescriptor: pipe!.fileHandleForReading.fileDescriptor)
        } else {
            decoder = try ZstdDecoder(path: damaged)
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        // The writer thread finishes whatever happens (no SIGPIPE): drain what the decoder left.
        defer { _ = pipe?.fileHandleForReading.readDataToEndOfFile() }
        do {
            while try decoder.read(into: buffer) > 0 {}
            return nil
        } catch {
            return error
        }
    }

    func testDamageIsReportedWhereItIsNotAtOffsetZero() throws {
        var generator = Fixtures.SeededGenerator(seed: 2026)
        print("seed 2026")
        for check in [false, true] {
            let clean = try archive(check: check)
            var located = 0
            for _ in 0..<12 {
                let at = Int.random(in: 64..<(clean.count - 8), using: &generator)
                var data = clean
                for k in 0..<4 { data[at + k] ^= 0xA5 }
                for fromPipe in [false, true] {
                    guard let error = try decodeError(data, fromPipe: fromPipe), error.code == .corrupt else { continue }
                    let range = try XCTUnwrap(error.damagedRange, "\(error)")
                    XCTAssertEqual(error.offset, range.lowerBound)
                    // libzstd detects damage in the block that holds it or, when the damage decoded
                    // silently, a later one: the range never ends before the damage.
                    XCTAssertGreaterThan(range.upperBound, Int64(at), "damage at \(at): \(error)")
                    XCTAssertLessThanOrEqual(range.upperBound, Int64(clean.count), "\(error)")
                    XCTAssertTrue("\(error)".contains("compressed bytes \(range.lowerBound)..<\(range.upperBound)"), "\(error)")
                    if check {
                        // A wrong checksum names the whole frame (the file holds one).
                        if error.libzstdName?.contains("checksum") == true {
                            XCTAssertEqual(range.lowerBound, 0, "\(error)")
                        }
                    } else if !fromPipe {
                        // Read back from the file: one block, at most 128 KiB + its header.
                        XCTAssertLessThanOrEqual(range.count, (128 << 10) + 3, "\(error)")
                        if range.contains(Int64(at)) { located += 1 }
                    }
                }
            }
            if !check { XCTAssertGreaterThan(located, 0, "no damage was located in its own block") }
        }
    }
}
