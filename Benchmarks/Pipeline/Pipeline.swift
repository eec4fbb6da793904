// The Pipeline suite: the classifier over preloaded bodies, and the whole classify job.
//
// Allocations per message are read off two sizes: the job on 100,000 and on 200,000 records; the
// difference of their mallocCountTotal divided by 100,000 is the steady-state allocations per message
// (docs/PERFORMANCE.md records it; the target is 0).
import BatchPipeline
import Benchmark
import Foundation
import MessageFilter
import ArchiveIO

final class PipelineFixtures: @unchecked Sendable {
    static let shared = PipelineFixtures()
    let folder: URL
    let small: String
    let large: String
    let messages: LoadedMessages

    private init() {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("smsfilter-bench-pipeline-\(getpid())")
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.folder = folder
        func corpus(_ count: Int) -> String {
            let path = folder.appendingPathComponent("corpus-\(count).jsonl.zst").path
            let file = try! OutputFile(path: path, compression: .zstd(level: 3, workers: 0))
            try! CorpusGenerator(seed: 1).write(count: count, to: file)
            try! file.finish()
            return path
        }
        small = corpus(100_000)
        large = corpus(200_000)
        messages = try! LoadedMessages.load(path: small)
    }

    func run(_ input: String, labelsOnly: Bool, threads: Int) throws -> RunResult {
        var options = PipelineOptions()
        options.threads = threads
        options.labelsOnly = labelsOnly
        options.outputPath = labelsOnly ? "/dev/null" : folder.appendingPathComponent("out.jsonl.zst").path
        return try Pipeline(ruleSet: RuleSet.embeddedDefault, options: options).run(inputs: [input])
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident], timeUnits: .milliseconds,
        maxDuration: .seconds(5), maxIterations: 20,
        thresholds: [.wallClock: BenchmarkThresholds(relative: [.p50: 35.0])])

    Benchmark("classifier batch, 100k generated bodies, embedded rules",
              configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .milliseconds,
                                   thresholds: [.mallocCountTotal: BenchmarkThresholds(absolute: [.p50: 0])])) { benchmark in
        let fixtures = PipelineFixtures.shared
        let classifier = Classifier(ruleSet: RuleSet.embeddedDefault)
        var verdicts = [Verdict](repeating: Verdict(), count: fixtures.messages.spans.count)
        // Warm up the classifier's scratch outside the measurement.
        fixtures.messages.buffer.withUnsafeBytes { buffer in
            fixtures.messages.spans.withUnsafeBufferPointer { spans in
                verdicts.withUnsafeMutableBufferPointer { classifier.classify(buffer: buffer, messages: spans, into: $0) }
            }
        }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            fixtures.messages.buffer.withUnsafeBytes { buffer in
                fixtures.messages.spans.withUnsafeBufferPointer { spans in
                    verdicts.withUnsafeMutableBufferPointer { classifier.classify(buffer: buffer, messages: spans, into: $0) }
                }
            }
        }
        benchmark.stopMeasurement()
        blackHole(verdicts)
    }

    for (name, labelsOnly) in [("→ .jsonl.zst", false), ("--labels-only", true)] {
        for (size, key) in [("100k", \PipelineFixtures.small), ("200k", \PipelineFixtures.large)] {
            Benchmark("classify \(size) generated records \(name), 2 threads") { benchmark in
                let fixtures = PipelineFixtures.shared
                let input = fixtures[keyPath: key]
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    blackHole(try fixtures.run(input, labelsOnly: labelsOnly, threads: 2))
                }
                benchmark.stopMeasurement()
            }
        }
    }
}
