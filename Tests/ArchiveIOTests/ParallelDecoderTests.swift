import Foundation
import TestSupport
import XCTest

@testable import ArchiveIO

/// ``ZstdParallelDecoder``: the zstd CLI is the oracle for what a clean archive holds, and ``ZstdDecoder``
/// (itself checked against the CLI) for what a damaged one delivers and how the damage is reported: the
/// parallel decoder must hand out the same bytes and throw the same error, offsets included.
final class ParallelDecoderTests: ZstdFileTestCase {
    // MARK: Archives

    struct Archive {
        var name: String
        var path: String
        var data: [UInt8]
        var bytes: [UInt8]
    }

    /// pzstd's output: frames of 2 MiB (level 1) without a content size, each after a 4-byte skippable hint.
    func pzstdArchive(_ size: Int = 5_000_000) throws -> Archive {
        let data = codecSample(size, seed: 31)
        let plain = try write("pz.bin", data)
        let result = try Fixtures.run("pzstd", ["-q", "-p", "2", "-1", "-c", plain])
        XCTAssertEqual(result.status, 0)
        return Archive(name: "pzstd", path: try write("pz.zst", Array(result.stdout)), data: data, bytes: Array(result.stdout))
    }

    /// zstd frames of several levels, with and without checksums and content sizes, between skippable frames.
    func concatenatedArchive() throws -> Archive {
        var data: [UInt8] = []
        var bytes = skippable(Array("index".utf8), variant: 3)
        for i in 0..<6 {
            let part = codecSample(90_000 + 37_000 * i, seed: UInt64(40 + i))
            data += part
            let plain = try write("c\(i).bin", part)
            switch i % 3 {
            case 0: bytes += try zstdCLI(["-\(i + 1)", "-c", plain])
            case 1: bytes += try zstdCLI(["-\(i + 1)", "--no-check", "-c", plain])
            default: bytes += try zstdCLI(["-\(i + 1)", "-c"], stdin: Data(part))  // no content size
            }
            bytes += skippable(codecSample(i * 5, seed: 99), variant: UInt32(i))
        }
        return Archive(name: "concatenated", path: try write("cat.zst", bytes), data: data, bytes: bytes)
    }

    /// Our seekable output with small frames.
    func seekableArchive(_ size: Int = 1_200_000, frameSize: Int = 64 << 10) throws -> Archive {
        let data = codecSample(size, seed: 51)
        let target = path("seek.zst")
        let file = try OutputFile(path: target, compression: .zstd(level: 3, workers: 1, frameSize: frameSize))
        try data.withUnsafeBytes { try file.write($0) }
        try file.finish()
        return Archive(name: "seekable", path: target, data: data, bytes: try Array(Data(contentsOf: URL(fileURLWithPath: target))))
    }

    /// A large frame with a content size, small frames, a large frame without one, small frames: with a small
    /// `maxFrameBytes` the decoder switches between its serial and parallel paths.
    func mixedArchive() throws -> Archive {
        var data: [UInt8] = []
        var bytes: [UInt8] = []
        let parts = [700_000, 50_000, 60_000, 650_000, 40_000, 30_000]
        for (i, size) in parts.enumerated() {
            let part = codecSample(size, seed: UInt64(60 + i))
            data += part
            bytes += i == 3 ? try zstdCLI(["-3", "-c"], stdin: Data(part)) : try zstdCLI(["-3", "-c", try write("m\(i)", part)])
        }
        return Archive(name: "mixed", path: try write("mixed.zst", bytes), data: data, bytes: bytes)
    }

    // MARK: Decoding

    struct Outcome: Equatable {
        var bytes: [UInt8]
        var error: ZstdError?
    }

    func drain(_ read: (UnsafeMutableRawBufferPointer) throws -> Int, chunk: Int) -> Outcome {
        let (bytes, error, largest) = readToEnd(chunk: chunk, read)
        XCTAssertLessThanOrEqual(largest, chunk)
        if error != nil {
            // After an error the decoder stays failed.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
            defer { buffer.deallocate() }
            XCTAssertThrowsError(try read(buffer))
        }
        return Outcome(bytes: bytes, error: error as? ZstdError)
    }

    func parallel(
        _ path: String, threads: Int = 2, maxFrameBytes: Int = 32 << 20, framesInFlight: Int? = nil, chunk: Int = 1 << 20
    ) throws -> (Outcome, ZstdParallelDecoder) {
        let decoder = try ZstdParallelDecoder(
            path: path, options: .init(threads: threads, maxFrameBytes: maxFrameBytes, framesInFlight: framesInFlight))
        return (drain({ try decoder.read(into: $0) }, chunk: chunk), decoder)
    }

    func serial(_ path: String, chunk: Int = 1 << 20) throws -> Outcome {
        let decoder = try ZstdDecoder(path: path)
        return drain({ try decoder.read(into: $0) }, chunk: chunk)
    }

    // MARK: Clean archives

    func testEveryKindOfArchiveDecodesToWhatTheCLIDecodes() throws {
        let archives = [try pzstdArchive(), try concatenatedArchive(), try seekableArchive(), try mixedArchive()]
        for archive in archives {
            let oracle = try zstdCLI(["-dc", archive.path])
            XCTAssertTrue(oracle == archive.data, "\(archive.name): the archive itself")
            for threads in [2, 3] {
                for maxFrameBytes in [32 << 20, 256 << 10, 100_000] {
                    for chunk in [4096, (1 << 20) + 17] {
                        let (outcome, decoder) = try parallel(archive.path, threads: threads, maxFrameBytes: maxFrameBytes, chunk: chunk)
                        let label = "\(archive.name), \(threads) threads, frames up to \(maxFrameBytes), reads of \(chunk)"
                        XCTAssertNil(outcome.error, "\(label): \(String(describing: outcome.error))")
                        XCTAssertTrue(outcome.bytes == oracle, "\(label): \(outcome.bytes.count) bytes, expected \(oracle.count)")
                        XCTAssertEqual(decoder.compressedBytesConsumed, Int64(archive.bytes.count), label)
                        XCTAssertEqual(decoder.isCompressed, true)
                        if maxFrameBytes == 32 << 20 {
                            XCTAssertGreaterThan(decoder.parallelFrames, 1, "\(label): decoded on the workers")
                        }
                    }
                }
            }
        }
        // Read by a byte at a time through the switches between paths.
        let mixed = try mixedArchive()
        let (outcome, decoder) = try parallel(mixed.path, maxFrameBytes: 256 << 10, chunk: 7)
        XCTAssertTrue(outcome.bytes == mixed.data)
        XCTAssertEqual(decoder.parallelFrames, 4)
    }

    func testOneThreadIsTheSingleFrameDecoderAndOneLargeFrameTakesTheSerialPath() throws {
        let data = codecSample(3 << 20, seed: 3)
        let single = try write("s.zst", try zstdCLI(["-3", "-c", try write("s.bin", data)]))
        let (one, d1) = try parallel(single, threads: 1)
        XCTAssertTrue(one.bytes == data)
        XCTAssertEqual(d1.parallelFrames, 0)
        // 3 MiB in one frame, frames up to 1 MiB in parallel: the serial path, no worker.
        let (outcome, decoder) = try parallel(single, threads: 2, maxFrameBytes: 1 << 20)
        XCTAssertTrue(outcome.bytes == data)
        XCTAssertEqual(decoder.parallelFrames, 0)
    }

    func testPlainEmptyAndTinyInputsPassThrough() throws {
        for bytes: [UInt8] in [[], [1], [0x28, 0xB5], Array("plain text, not zstd\n".utf8), codecSample(300_000, seed: 9)] {
            let file = try write("plain", bytes)
            let (outcome, decoder) = try parallel(file, chunk: 1000)
            XCTAssertNil(outcome.error)
            XCTAssertEqual(outcome.bytes, bytes)
            XCTAssertEqual(decoder.isCompressed, false)
        }
        // An empty zstd frame, and a file of only a skippable frame.
        let empty = try write("empty.zst", try zstdCLI(["-c"], stdin: Data()))
        XCTAssertEqual(try parallel(empty).0, Outcome(bytes: [], error: nil))
        let skip = try write("skip.zst", skippable([1, 2, 3]))
        XCTAssertEqual(try parallel(skip).0, try serial(skip))
    }

    func testAPipeDecodesTheSame() throws {
        let archive = try seekableArchive()
        let pipe = Pipe()
        let writer = pipe.fileHandleForWriting
        let bytes = archive.bytes
        Thread.detachNewThread {
            writer.write(Data(bytes))
            try? writer.close()
        }
        let decoder = try ZstdParallelDecoder(fileDescriptor: pipe.fileHandleForReading.fileDescriptor, options: .init(threads: 3))
        let outcome = drain({ try decoder.read(into: $0) }, chunk: 65_536)
        XCTAssertNil(outcome.error)
        XCTAssertTrue(outcome.bytes == archive.data)
        XCTAssertGreaterThan(decoder.parallelFrames, 10)
    }

    /// Bytes read before the decoder was made (the record reader's `InputProbe` reads the first 4 KiB to
    /// recognise the input) are decoded first, as `ZstdDecoder` does with them: from a pipe (stdin), and from
    /// a damaged file, where the damage is read back with `pread` and its offsets count the initial bytes.
    func testInitialBytesAreDecodedFirstAsTheSingleThreadDecoderDoes() throws {
        let archive = try seekableArchive(600_000)
        for take in [0, 1, 4, 3, 4096] {
            let pipe = Pipe()
            let writer = pipe.fileHandleForWriting
            let rest = Array(archive.bytes[take...])
            Thread.detachNewThread {
                writer.write(Data(rest))
                try? writer.close()
            }
            let decoder = try ZstdParallelDecoder(
                fileDescriptor: pipe.fileHandleForReading.fileDescriptor, initialBytes: Array(archive.bytes[..<take]),
                options: .init(threads: 2))
            let outcome = drain({ try decoder.read(into: $0) }, chunk: 65_536)
            XCTAssertNil(outcome.error, "pipe, \(take) initial bytes")
            XCTAssertTrue(outcome.bytes == archive.data, "pipe, \(take) initial bytes")
            XCTAssertGreaterThanOrEqual(decoder.parallelFrames, 5)
            XCTAssertEqual(decoder.compressedBytesConsumed, Int64(archive.bytes.count))
        }
        // Damaged files, opened and probed as the record reader does (`threads: 1` walking the frames, as the
        // reader uses it, and 2 threads): the same bytes and error as the parallel decoder reading the file
        // itself (checked against ZstdDecoder by the tests above), and the same error as ZstdDecoder, whose
        // bytes are a prefix of ours (it loses what the failing libzstd call decoded: all of a wrong-checksum
        // frame's last read, the blocks before a damaged one in that read).
        var rng = Fixtures.SeededGenerator(seed: 78)
        print("seed 78")
        for archive in [archive, try pzstdArchive(4_500_000)] {
            for round in 0..<12 {
                var damaged = archive.bytes
                let at = 4096 + Int(rng.next() % UInt64(archive.bytes.count - 4096))
                if round % 3 == 2 { damaged.removeSubrange(at...) } else { damaged[at] ^= 0x40 }
                let file = try write("probed.zst", damaged)
                let label = "\(archive.name), round \(round), damage at \(at)"
                let (oracle, oracleDecoder) = try parallel(file)
                for threads in [1, 2] {
                    let probe = try InputProbe(path: file)
                    XCTAssertEqual(probe.kind, .zstd)
                    let decoder = try ZstdParallelDecoder(
                        fileDescriptor: probe.fileDescriptor, path: file, initialBytes: probe.firstBytes,
                        options: .init(closeWhenDone: true, threads: threads, streamingWhenSingleThreaded: false))
                    let o = drain({ try decoder.read(into: $0) }, chunk: threads == 1 ? 100_003 : 1 << 20)
                    XCTAssertTrue(o.bytes == oracle.bytes, "\(label), \(threads) threads: \(o.bytes.count) bytes, expected \(oracle.bytes.count)")
                    XCTAssertEqual(o.error?.description, oracle.error?.description, "\(label), \(threads) threads")
                    if threads == 1 { XCTAssertEqual(decoder.parallelFrames, 0, "one thread starts no worker") }
                    // What the counts report as read: the same whatever path decoded the damaged frame.
                    XCTAssertEqual(decoder.compressedBytesConsumed, oracleDecoder.compressedBytesConsumed, "\(label), \(threads) threads")
                    if let range = o.error?.damagedRange { XCTAssertEqual(decoder.compressedBytesConsumed, range.upperBound, label) }
                }
                let streaming = try serial(file)
                XCTAssertEqual(streaming.error?.description, oracle.error?.description, label)
                XCTAssertTrue(oracle.bytes.starts(with: streaming.bytes), "\(label): ZstdDecoder's bytes are a prefix of ours")
                if round % 3 == 2 {
                    XCTAssertNotNil(oracle.error, "a truncated archive")
                    XCTAssertEqual(oracle.bytes, streaming.bytes, "\(label): truncation loses nothing either way")
                }
            }
        }
    }

    func testFramesInFlightBoundTheReadAhead() throws {
        let archive = try seekableArchive(2_000_000, frameSize: 64 << 10)
        for inFlight in [1, 2, 5] {
            let (outcome, decoder) = try parallel(archive.path, threads: 3, framesInFlight: inFlight, chunk: 10_000)
            XCTAssertTrue(outcome.bytes == archive.data)
            XCTAssertLessThanOrEqual(decoder.peakItemsInFlight, inFlight)
            XCTAssertEqual(decoder.parallelFrames, 31)
        }
    }

    // MARK: Damage: the same bytes and the same error as ZstdDecoder

    /// The parallel decoder throws the single-thread decoder's error and hands out the same bytes, or more of
    /// the damaged frame: libzstd drops the output of the call that fails (the single-thread decoder reads
    /// here with a 4 KiB buffer, so at most 4 KiB), and with a buffer that holds a whole frame it decodes a
    /// frame that is whole in its input in one pass, handing out none of it when it fails; the parallel
    /// decoder always hands out the blocks before the failing one, and the content of a frame whose only
    /// fault is its checksum.
    func assertSameAsSerial(_ file: String, _ label: String, maxFrameBytes: [Int] = [32 << 20, 100_000]) throws -> Outcome {
        let expected = try serial(file, chunk: 4096)
        for limit in maxFrameBytes {
            let (got, _) = try parallel(file, threads: 2, maxFrameBytes: limit)
            XCTAssertEqual(withoutName(got.error), withoutName(expected.error), "\(label), frames up to \(limit)")
            XCTAssertEqual(got.error?.libzstdName == nil, expected.error?.libzstdName == nil, "\(label)")
            if expected.error == nil {
                XCTAssertTrue(got.bytes == expected.bytes, "\(label), frames up to \(limit): bytes differ")
            } else {
                XCTAssertTrue(got.bytes.starts(with: expected.bytes), "\(label), frames up to \(limit): not a prefix")
                XCTAssertLessThanOrEqual(got.bytes.count - expected.bytes.count, 4096, "\(label), frames up to \(limit): bytes")
            }
        }
        return expected
    }

    /// The error without libzstd's name for it: the name of a corruption depends on the decoding context's
    /// history (libzstd keeps a buffer sized for an earlier, larger frame, and a damaged block that overflows
    /// the smaller buffer of a fresh context is "Destination buffer is too small" there, "Data corruption
    /// detected" in the larger one); everything else must match.
    func withoutName(_ error: ZstdError?) -> ZstdError? {
        error.map {
            ZstdError($0.code, offset: $0.offset, damagedRange: $0.damagedRange, errno: $0.errno, path: $0.path, detail: $0.detail)
        }
    }

    func testTruncationAtManyOffsetsMatchesTheSingleThreadDecoder() throws {
        for archive in [try seekableArchive(600_000), try concatenatedArchive(), try pzstdArchive(4_400_000)] {
            let n = archive.bytes.count
            var cuts = Set(stride(from: 1, to: n, by: max(1, n / (archive.name == "pzstd" ? 12 : 30))))
            // Around every frame boundary the seek table knows of, and the table itself.
            if let table = try ZstdSeekTable.read(path: archive.path) {
                var at = 0
                for entry in table.entries.prefix(6) {
                    at += Int(entry.compressedSize)
                    cuts.formUnion([at - 5, at - 4, at - 1, at, at + 1, at + 4, at + 9])
                }
            }
            cuts.formUnion([1, 3, 4, 5, 8, 12, 20, n - 1, n - 4, n - 9, n - 10])
            for cut in cuts.sorted() where cut > 0 && cut < n {
                let file = try write("cut.zst", Array(archive.bytes[..<cut]))
                let outcome = try assertSameAsSerial(file, "\(archive.name) cut at \(cut)")
                let oracle = try Fixtures.run("zstd", ["-dc", file])
                XCTAssertGreaterThanOrEqual(outcome.bytes.count, oracle.stdout.count, "\(archive.name) cut at \(cut): the CLI recovered more")
                // Fewer than 4 bytes are not recognised as zstd: they pass through as plain bytes.
                if oracle.status != 0 && cut >= 4 { XCTAssertNotNil(outcome.error, "\(archive.name) cut at \(cut)") }
            }
        }
    }

    func testDamageAtManyOffsetsMatchesTheSingleThreadDecoder() throws {
        var rng = Fixtures.SeededGenerator(seed: 77)
        print("seed 77")
        for archive in [try seekableArchive(600_000), try concatenatedArchive(), try pzstdArchive(4_500_000)] {
            var errors = 0
            let n = archive.bytes.count
            var positions = Array(0..<40)  // headers of the first frames
            for _ in 0..<(archive.name == "pzstd" ? 25 : 70) { positions.append(Int(rng.next() % UInt64(n))) }
            for position in positions {
                var damaged = archive.bytes
                let flips = 1 + Int(rng.next() % 4)
                for k in 0..<flips where position + k < n { damaged[position + k] ^= UInt8(1 << (rng.next() % 8)) }
                let file = try write("damaged.zst", damaged)
                let outcome = try assertSameAsSerial(file, "\(archive.name) damaged at \(position)")
                if let error = outcome.error {
                    errors += 1
                    XCTAssertTrue([.corrupt, .truncated, .windowTooLarge].contains(error.code), "\(error)")
                }
            }
            XCTAssertGreaterThan(errors, positions.count / 3, archive.name)
        }
    }

    func testWindowOverTheCapIsRefusedAsTheSingleThreadDecoderRefusesIt() throws {
        let data = codecSample(3 << 20, seed: 11)
        let big = try zstdCLI(["-3", "--long=22", "-c", try write("w.bin", data)])
        let small = try zstdCLI(["-1", "-c"], stdin: Data(codecSample(1000, seed: 2)))
        let file = try write("w.zst", small + big + small)
        let options = ZstdDecoder.Options(maxWindowBytes: 1 << 20)
        let single = try ZstdDecoder(path: file, options: options)
        let expected = drain({ try single.read(into: $0) }, chunk: 1 << 16)
        let decoder = try ZstdParallelDecoder(path: file, options: .init(maxWindowBytes: 1 << 20, threads: 2))
        let got = drain({ try decoder.read(into: $0) }, chunk: 1 << 16)
        XCTAssertEqual(got.error?.code, .windowTooLarge)
        XCTAssertEqual(got, expected)
    }

    func testReadFailuresMatchTheSingleThreadDecoder() throws {
        #if DEBUG
        let archive = try seekableArchive(900_000)
        for limit in [0, 2, 100, 70_000, 150_001, archive.bytes.count - 3] {
            _ZstdFaultInjection.failReads(afterBytes: limit)
            let expected = try serial(archive.path)
            _ZstdFaultInjection.failReads(afterBytes: limit)
            let (got, _) = try parallel(archive.path, threads: 2)
            _ZstdFaultInjection.failReads(afterBytes: nil)
            XCTAssertEqual(got.error?.code, .readFailed, "limit \(limit)")
            XCTAssertEqual(got.error?.errno, EIO)
            XCTAssertEqual(got, expected, "limit \(limit)")
        }
        #else
        throw XCTSkip("fault injection exists in debug builds only")
        #endif
    }
}
