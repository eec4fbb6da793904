import Foundation
import TestSupport
import XCTest

@testable import ArchiveIO

/// The `gzip` command-line tool is the oracle: what it writes we must decode to the same bytes; what it
/// decodes from a truncated file we must hand out before the error; a file it refuses we must refuse with an
/// offset, after every byte of the members before the damage. Each test fails on main (no GzipDecoder there).
final class GzipDecoderTests: TemporaryFolderTestCase {
    // MARK: Helpers

    /// Text-like bytes with some binary noise (compressible, with matches and literals).
    func sampleBytes(_ count: Int, seed: UInt64) -> [UInt8] { codecSample(count, seed: seed) }

    /// `gzip ARGS < input`, its standard output (the test fails when gzip fails).
    func gzip(_ args: [String], _ input: [UInt8]) throws -> [UInt8] {
        let r = try Fixtures.run("gzip", args, stdin: Data(input))
        XCTAssertEqual(r.status, 0, String(decoding: r.stderr, as: UTF8.self))
        return Array(r.stdout)
    }

    /// Reads until the end or an error with `chunk`-byte reads; returns every byte handed out and the error.
    func drain(_ decoder: GzipDecoder, chunk: Int) throws -> (bytes: [UInt8], error: ZstdError?) {
        try drainWithDeadline("GzipDecoder", chunk: chunk, decoder.read(into:))
    }

    func decode(_ bytes: [UInt8], chunk: Int = 64 << 10, name: String = "in.gz") throws -> (bytes: [UInt8], error: ZstdError?) {
        let path = try write(name, bytes)
        return try drain(try GzipDecoder(path: path), chunk: chunk)
    }

    // MARK: Round trips against the gzip CLI

    func testRoundTripsAtManySizesLevelsAndReadSizes() throws {
        let sizes = [0, 1, 2, 100, 32_767, 32_768, 32_769, 131_071, 131_072, 131_073, 1 << 20, 3 << 20 + 17]
        for (index, size) in sizes.enumerated() {
            let data = sampleBytes(size, seed: UInt64(index + 1))
            for level in ["-1", "-6", "-9"] where level == "-6" || size == 1 << 20 || size < 1000 {
                let compressed = try gzip(["-c", "-n", level], data)
                for chunk in [1, 7, 4096, 1 << 20] where chunk > 7 || size <= 131_073 {
                    let (out, error) = try decode(compressed, chunk: chunk)
                    XCTAssertNil(error, "size \(size) \(level) chunk \(chunk): \(String(describing: error))")
                    XCTAssertEqual(out.count, data.count, "size \(size) \(level) chunk \(chunk)")
                    XCTAssertTrue(out == data, "size \(size) \(level) chunk \(chunk): bytes differ")
                }
            }
        }
    }

    func testIncompressibleDataAndAStoredFileName() throws {
        var rng = Fixtures.seededGenerator("testIncompressibleDataAndAStoredFileName", defaultSeed: 0x6A21)
        let data = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let path = try write("noise.bin", data)
        // gzip -k stores the file name and time in the header (FNAME, MTIME): the decoder skips them.
        let r = try Fixtures.run("gzip", ["-k", "-f", path])
        XCTAssertEqual(r.status, 0)
        let out = try drain(try GzipDecoder(path: path + ".gz"), chunk: 10_000)
        XCTAssertNil(out.error)
        XCTAssertTrue(out.bytes == data)
    }

    func testConcatenatedMembersDecodeAsOneStreamAsGzipDoes() throws {
        var archive: [UInt8] = []
        var expected: [UInt8] = []
        for i in 0..<6 {
            // Member 2 is an empty file's member (20 bytes): it adds nothing.
            let part = i == 2 ? [] : sampleBytes(50_000 + i * 777, seed: UInt64(100 + i))
            expected += part
            archive += try gzip(["-c", "-\(i + 1)"], part)
        }
        let oracle = try Fixtures.run("gzip", ["-dc"], stdin: Data(archive))
        XCTAssertEqual(oracle.status, 0)
        XCTAssertTrue(Array(oracle.stdout) == expected, "the oracle reads the members as one stream")
        for chunk in [1, 333, 1 << 16] {
            let out = try decode(archive, chunk: chunk)
            XCTAssertNil(out.error, "chunk \(chunk)")
            XCTAssertTrue(out.bytes == expected, "chunk \(chunk): \(out.bytes.count) of \(expected.count) bytes")
        }
    }

    func testTheBytesReadToRecogniseTheInputAreNotLost() throws {
        let data = sampleBytes(200_000, seed: 7)
        let compressed = try gzip(["-c"], data)
        let path = try write("probe.gz", compressed)
        let probe = try InputProbe(path: path)
        XCTAssertEqual(probe.kind, .gzip)
        XCTAssertEqual(probe.firstBytes.count, InputKind.sniffLength)
        let decoder = try GzipDecoder(
            fileDescriptor: probe.fileDescriptor, path: path, initialBytes: probe.firstBytes,
            options: .init(closeWhenDone: true))
        let out = try drain(decoder, chunk: 5000)
        XCTAssertNil(out.error)
        XCTAssertTrue(out.bytes == data)
        XCTAssertEqual(decoder.compressedBytesConsumed, Int64(compressed.count))
    }

    // MARK: Damage

    /// A truncated file: the error is `.truncated` at the offset where the input ended, and the bytes handed
    /// out before it are exactly what `gzip -dc` writes from the same truncated file.
    func testTruncatedAtManyOffsetsHandsOutWhatGzipDecodesThenSaysWhere() throws {
        let data = sampleBytes(400_000, seed: 11)
        let compressed = try gzip(["-c", "-n"], data)
        var rng = Fixtures.seededGenerator("testTruncatedAtManyOffsets", defaultSeed: 0x7A11)
        var cuts = [1, 2, 9, 10, 11, compressed.count / 2, compressed.count - 8, compressed.count - 4, compressed.count - 1]
        cuts += (0..<15).map { _ in Int.random(in: 12..<compressed.count - 8, using: &rng) }
        for cut in cuts {
            let truncated = Array(compressed.prefix(cut))
            let oracle = try Fixtures.run("gzip", ["-dc"], stdin: Data(truncated))
            XCTAssertNotEqual(oracle.status, 0, "gzip accepts a file cut at \(cut)")
            let (out, error) = try decode(truncated, chunk: 8192, name: "cut.gz")
            XCTAssertEqual(error?.code, .truncated, "cut at \(cut): \(String(describing: error))")
            XCTAssertEqual(error?.offset, Int64(cut), "cut at \(cut)")
            XCTAssertEqual(error?.path, folder.appendingPathComponent("cut.gz").path)
            XCTAssertTrue(error?.description.contains("truncated gzip data") == true, String(describing: error))
            XCTAssertTrue(data.starts(with: out), "cut at \(cut): the bytes handed out are not the file's start")
            XCTAssertEqual(out.count, oracle.stdout.count, "cut at \(cut): gzip -dc decodes a different amount")
        }
    }

    /// Member A is clean, member B damaged at many offsets. When gzip refuses the file (status not 0: an
    /// error, or trailing garbage after A), the decoder throws with an offset at or after the damage and within
    /// the file, having handed out all of A first; when gzip accepts it (damage in a field nobody checks: the
    /// time, the OS byte), the decoder gives what gzip gives.
    func testDamageAtManyOffsetsIsReportedWithAnOffsetAfterEveryByteOfTheMembersBefore() throws {
        let a = sampleBytes(150_000, seed: 21)
        let b = sampleBytes(150_000, seed: 22)
        let memberA = try gzip(["-c", "-n"], a)
        let memberB = try gzip(["-c", "-n"], b)
        var rng = Fixtures.seededGenerator("testDamageAtManyOffsets", defaultSeed: 0xDA3A)
        var places = Array(0..<10) + [memberB.count - 8, memberB.count - 5, memberB.count - 1]
        places += (0..<25).map { _ in Int.random(in: 10..<memberB.count - 8, using: &rng) }
        var refused = 0
        for place in places {
            var damagedB = memberB
            damagedB[place] ^= UInt8.random(in: 1...255, using: &rng)
            let file = memberA + damagedB
            let at = memberA.count + place
            let oracle = try Fixtures.run("gzip", ["-dc"], stdin: Data(file))
            let (out, error) = try decode(file, chunk: 4096, name: "damaged.gz")
            if oracle.status == 0 {
                XCTAssertNil(error, "byte \(at): gzip accepts it, the decoder says \(String(describing: error))")
                XCTAssertTrue(out == Array(oracle.stdout), "byte \(at): not what gzip decodes")
                continue
            }
            refused += 1
            guard let error else {
                XCTFail("byte \(at): gzip refuses the file (\(String(decoding: oracle.stderr, as: UTF8.self))), the decoder does not")
                continue
            }
            XCTAssertTrue([.corrupt, .truncated].contains(error.code), "byte \(at): \(error)")
            let offset = try XCTUnwrap(error.offset, "byte \(at): no offset in \(error)")
            // Damage in B's magic number is reported where B starts (the bytes there do not start a member).
            XCTAssertGreaterThanOrEqual(offset, Int64(place < 2 ? memberA.count : at), "byte \(at): \(error)")
            XCTAssertLessThanOrEqual(offset, Int64(file.count), "byte \(at): \(error)")
            XCTAssertTrue(error.description.contains("compressed byte offset \(offset)"), error.description)
            XCTAssertTrue(error.description.hasPrefix(folder.appendingPathComponent("damaged.gz").path + ": "), error.description)
            XCTAssertTrue(out.starts(with: a), "byte \(at): member A (\(a.count) bytes) was not handed out whole first")
        }
        XCTAssertGreaterThan(refused, places.count / 2, "most damage must be found")
    }

    func testBytesAfterTheLastMemberAreAnErrorAfterEverythingBeforeThem() throws {
        let data = sampleBytes(70_000, seed: 31)
        let compressed = try gzip(["-c"], data)
        for tail in [[UInt8(0x1F)], [0x1F, 0x8C], Array("garbage".utf8), [0, 0, 0, 7]] {
            let (out, error) = try decode(compressed + tail, chunk: 1000)
            XCTAssertTrue(out == data)
            // One byte that may start a member: the input ended inside it. Anything else: not a member.
            XCTAssertEqual(error?.code, tail == [0x1F] ? .truncated : .corrupt, "\(tail)")
            XCTAssertEqual(error?.offset, Int64(compressed.count + (tail == [0x1F] ? 1 : 0) + (tail == [0, 0, 0, 7] ? 3 : 0)), "\(tail)")
        }
    }

    /// Zero bytes after the last member (a tape or disk block's padding) were exit 65; `gzip -dc` (the
    /// oracle) decodes the members and ignores them, at any length, whatever the read sizes.
    func testZeroPaddingAfterTheLastMemberIsTheEndAsGzipReadsIt() throws {
        let data = sampleBytes(70_000, seed: 37)
        let members = try gzip(["-c"], Array(data.prefix(30_000))) + (try gzip(["-c"], Array(data.dropFirst(30_000))))
        for zeros in [1, 2, 511, 512, 131_071, 131_072, 300_000] {
            let padded = members + [UInt8](repeating: 0, count: zeros)
            let oracle = try Fixtures.run("gzip", ["-dc"], stdin: Data(padded))
            XCTAssertEqual(oracle.status, 0, "gzip -dc accepts \(zeros) zeros")
            XCTAssertTrue(Array(oracle.stdout) == data)
            for chunk in [1000, 64 << 10] {
                let (out, error) = try decode(padded, chunk: chunk)
                XCTAssertNil(error, "\(zeros) zeros, \(chunk)-byte reads")
                XCTAssertTrue(out == data, "\(zeros) zeros")
            }
        }
        // From a pipe too: the first bytes handed over as the recogniser read them.
        let padded = members + [UInt8](repeating: 0, count: 5000)
        let pipe = Pipe()
        let writer = Thread { try? pipe.fileHandleForWriting.write(contentsOf: Data(padded)); try? pipe.fileHandleForWriting.close() }
        writer.start()
        let decoder = try GzipDecoder(fileDescriptor: pipe.fileHandleForReading.fileDescriptor)
        let (out, error) = try drain(decoder, chunk: 4096)
        XCTAssertNil(error)
        XCTAssertTrue(out == data)
        // After the zeros, anything else is damage, with every byte before it handed out.
        let (before, damage) = try decode(members + [0, 0, 0x1F, 0x8B] + (try gzip(["-c"], [1, 2, 3])), chunk: 1000)
        XCTAssertTrue(before == data)
        XCTAssertEqual(damage?.code, .corrupt)
        XCTAssertEqual(damage?.offset, Int64(members.count + 2))
    }

    func testAfterAnErrorTheDecoderStaysFailed() throws {
        let compressed = try gzip(["-c"], sampleBytes(10_000, seed: 41))
        let decoder = try GzipDecoder(path: try write("half.gz", Array(compressed.prefix(compressed.count / 2))))
        let first = try drain(decoder, chunk: 512).error
        XCTAssertEqual(first?.code, .truncated)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        XCTAssertThrowsError(try decoder.read(into: buffer)) { XCTAssertEqual($0 as? ZstdError, first) }
    }

    /// Random bytes behind a gzip header and fully random files: every run ends (an error or the end), never
    /// a crash or a hang (``Deadline``), and never more output than a few MiB from 4 KiB of input.
    func testRandomBytesNeverCrashOrHang() throws {
        var rng = Fixtures.seededGenerator("testRandomBytesNeverCrashOrHang", defaultSeed: 0x9A2D)
        for round in 0..<200 {
            let count = Int.random(in: 0...4096, using: &rng)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if round % 2 == 0 { bytes = [0x1F, 0x8B, 0x08, 0] + bytes }
            let (out, error) = try decode(bytes, chunk: 3000, name: "random.gz")
            XCTAssertLessThanOrEqual(out.count, 4 << 20, "round \(round)")
            if !bytes.isEmpty { XCTAssertNotNil(error, "round \(round): random bytes decoded without an error") }
        }
    }
}

/// ``InputKind/sniff(firstBytes:)``: what each compressor's CLI writes is recognised from its first bytes;
/// text (ASCII, Thai, emoji, a few Latin-1 bytes) is text; random bytes are binary.
final class InputKindTests: TemporaryFolderTestCase {
    func firstBytes(of tool: String, _ args: [String], _ input: String) throws -> [UInt8] {
        let r = try Fixtures.run(tool, args, stdin: Data(input.utf8))
        XCTAssertEqual(r.status, 0, "\(tool) \(args)")
        return Array(r.stdout.prefix(InputKind.sniffLength))
    }

    func testEachCompressorsOutputIsRecognised() throws {
        let text = String(repeating: "{\"body\":\"your OTP is 1234\"}\n", count: 500)
        XCTAssertEqual(InputKind.sniff(firstBytes: try firstBytes(of: "gzip", ["-c"], text)), .gzip)
        XCTAssertEqual(InputKind.sniff(firstBytes: try firstBytes(of: "zstd", ["-c", "-q"], text)), .zstd)
        XCTAssertEqual(InputKind.sniff(firstBytes: try firstBytes(of: "bzip2", ["-c"], text)), .bzip2)
        XCTAssertEqual(InputKind.sniff(firstBytes: try firstBytes(of: "xz", ["-c"], text)), .xz)
        XCTAssertEqual(InputKind.sniff(firstBytes: try firstBytes(of: "lz4", ["-c", "-q"], text)), .lz4)
        let zipped = folder.appendingPathComponent("x.zip").path
        let source = folder.appendingPathComponent("x.jsonl")
        try Data(text.utf8).write(to: source)
        XCTAssertEqual(try Fixtures.run("zip", ["-q", "-j", zipped, source.path]).status, 0)
        XCTAssertEqual(InputKind.sniff(firstBytes: Array(try Data(contentsOf: URL(fileURLWithPath: zipped)).prefix(4096))), .zip)
        XCTAssertEqual(InputKind.sniff(firstBytes: [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C, 0, 4]), .sevenZip)
        XCTAssertEqual(InputKind.sniff(firstBytes: [0xFF, 0xFE] + Array("i\0d\0".utf8)), .utf16Text)
    }

    func testTextIsTextAndRandomBytesAreBinary() throws {
        XCTAssertEqual(InputKind.sniff(firstBytes: []), .text)
        XCTAssertEqual(InputKind.sniff(firstBytes: Array("id,body\n".utf8)), .text)
        XCTAssertEqual(InputKind.sniff(firstBytes: [0xEF, 0xBB, 0xBF] + Array("id,body\n".utf8)), .text)
        let thai = String(repeating: "{\"body\":\"ส่วนลด 50% 優惠 🙂\"}\r\n\t", count: 200)
        XCTAssertEqual(InputKind.sniff(firstBytes: Array(thai.utf8.prefix(InputKind.sniffLength))), .text, "a sequence cut by the sample's end is not damage")
        // A few Latin-1 bytes in UTF-8 text: text (its records are rejected one by one, not the file).
        XCTAssertEqual(InputKind.sniff(firstBytes: Array("caf\u{E9} ".utf8) + [0xE9] + Array(String(repeating: "plain text ", count: 20).utf8)), .text)
        XCTAssertEqual(InputKind.sniff(firstBytes: Array("a\0b".utf8)), .binary)
        var rng = Fixtures.seededGenerator("testTextIsTextAndRandomBytesAreBinary", defaultSeed: 0xB1A7)
        // (A few dozen random bytes can pass as text by chance; such a file then fails record by record.)
        for count in [64, 256, 4096] {
            for _ in 0..<50 {
                // No NUL byte: the control characters and invalid UTF-8 must tell.
                let bytes = (0..<count).map { _ in UInt8.random(in: 1...255, using: &rng) }
                XCTAssertEqual(InputKind.sniff(firstBytes: bytes), .binary, "\(bytes.prefix(16))")
            }
        }
    }

    func testTheRefusalSaysWhatItLooksLikeAndHowToConvertIt() {
        XCTAssertEqual(
            InputKind.bzip2.refusalMessage(path: "x.jsonl.bz2", tool: "smsfilter"),
            "x.jsonl.bz2: this looks like a bzip2 archive; smsfilter reads zstd, gzip and plain UTF-8 text. Convert it: bzip2 -dc x.jsonl.bz2 | zstd -o x.jsonl.zst")
        XCTAssertEqual(
            InputKind.zip.refusalMessage(path: "my data.zip", tool: "t"),
            "my data.zip: this looks like a zip archive; t reads zstd, gzip and plain UTF-8 text. Convert it: unzip -p 'my data.zip' | zstd -o 'my data.zst'")
        let binary = InputKind.binary.refusal(path: nil, tool: "t")
        XCTAssertEqual(binary.code, .unsupportedInput)
        XCTAssertTrue(binary.description.hasPrefix("standard input: this looks like binary data"), binary.description)
        XCTAssertFalse(binary.description.contains("\n"))
        for kind in InputKind.allCases {
            XCTAssertEqual(kind.isReadable, [.zstd, .gzip, .text].contains(kind), "\(kind)")
        }
    }
}
