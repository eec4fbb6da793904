// The Zstd suite: ArchiveIO's decoder and encoder on a generated JSON Lines corpus.
//
// One iteration = the whole file (throughput = files per second; the corpus size is printed in the
// benchmark's name). Fixtures are written once, outside the measurement.
import BatchPipeline
import Benchmark
import Foundation
import ArchiveIO

final class ZstdFixtures: @unchecked Sendable {
    static let shared = ZstdFixtures()
    let compressedPath: String
    let plain: [UInt8]

    private init() {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("smsfilter-bench-zstd-\(getpid())")
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let plainPath = folder.appendingPathComponent("corpus.jsonl").path
        let file = try! OutputFile(path: plainPath)
        try! CorpusGenerator(seed: 1).write(count: 200_000, to: file)  // about 47 MB
        try! file.finish()
        plain = Array(try! Data(contentsOf: URL(fileURLWithPath: plainPath)))
        compressedPath = folder.appendingPathComponent("corpus.jsonl.zst").path
        let compressed = try! OutputFile(path: compressedPath, compression: .zstd(level: 3, workers: 0))
        try! compressed.write(plain)
        try! compressed.finish()
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident], timeUnits: .milliseconds,
        maxDuration: .seconds(3), maxIterations: 50,
        thresholds: [
            .wallClock: BenchmarkThresholds(relative: [.p50: 35.0]),
            .mallocCountTotal: BenchmarkThresholds(absolute: [.p50: 20]),
        ])

    Benchmark("decode 47 MB generated JSONL (1 MiB reads)") { benchmark in
        let fixtures = ZstdFixtures.shared
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let decoder = try ZstdDecoder(path: fixtures.compressedPath)
            var total = 0
            while true {
                let n = try decoder.read(into: buffer)
                if n == 0 { break }
                total &+= n
            }
            blackHole(total)
        }
        benchmark.stopMeasurement()
    }

    Benchmark("encode 47 MB generated JSONL, level 1") { benchmark in
        let fixtures = ZstdFixtures.shared
        let fd = open("/dev/null", O_WRONLY)
        defer { close(fd) }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let encoder = try ZstdEncoder(fileDescriptor: fd, level: 1)
            try fixtures.plain.withUnsafeBytes { raw in
                var i = 0
                while i < raw.count {
                    let n = min(1 << 20, raw.count - i)
                    try encoder.write(UnsafeRawBufferPointer(rebasing: raw[i..<(i + n)]))
                    i += n
                }
            }
            try encoder.finish()
        }
        benchmark.stopMeasurement()
    }
}
