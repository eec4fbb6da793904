// The Matcher suite: AhoCorasick throughput on SMS bodies, allocations per scan, compile and load times.
//
// One iteration = one scan of every body of a corpus (throughput = scans per second; multiply by the
// corpus size that `matcher-tool` prints to get bytes per second). Fixtures are built once, outside the
// measurement, by MatcherFixtures (the same bodies and keywords the peers script reads).
import AhoCorasick
import Benchmark
import MatcherFixtures

/// Built lazily so that the benchmark listing does not pay for it.
final class Fixtures: @unchecked Sendable {
    static let shared = Fixtures()
    let real: (buffer: [UInt8], spans: [Range<Int>])
    let generated: (buffer: [UInt8], spans: [Range<Int>])
    let keywords5000: [String]
    let keywords100k: [String]

    private init() {
        let realBodies = MatcherFixtures.realBodies()
        let generatedBodies = MatcherFixtures.generatedBodies()
        real = MatcherFixtures.chunk(realBodies)
        generated = MatcherFixtures.chunk(generatedBodies)
        keywords5000 = MatcherFixtures.keywords(5000, from: realBodies + generatedBodies)
        keywords100k = MatcherFixtures.randomKeywords(100_000)
    }
}

func automaton(_ keywords: [String], _ engine: EngineChoice = .auto, folding: CaseFolding = .ascii) -> AhoCorasick {
    var builder = AhoCorasickBuilder()
    builder.caseFolding = folding
    builder.engine = engine
    return try! builder.build(keywords)
}

let scanMetrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

let benchmarks: @Sendable () -> Void = {
    // Allocations must stay exactly as recorded (0 per scan). Times may drift 75%: on 2 cores shared with
    // other builds, p90 wall clock moved by -60%…+50% between two runs of the same code, so only gross
    // regressions (a lost lockstep path, an allocation per match) are caught.
    // Names have no spaces: `thresholds update` writes `Thresholds/<target>.<name>.p90.json` with spaces
    // turned into underscores, but `thresholds check` looks the name up unchanged (package-benchmark 1.38.1).
    let allocationsExact = BenchmarkThresholds(absolute: [.p50: 0, .p90: 0])
    let timeLoose = BenchmarkThresholds(relative: [.p50: 75.0, .p90: 75.0])
    Benchmark.defaultConfiguration = .init(
        metrics: scanMetrics, timeUnits: .microseconds, maxDuration: .seconds(2), maxIterations: 1000,
        thresholds: [.mallocCountTotal: allocationsExact, .wallClock: timeLoose, .throughput: timeLoose])
    let oneShot: [BenchmarkMetric: BenchmarkThresholds] = [.mallocCountTotal: timeLoose, .wallClock: timeLoose]

    for (corpusName, corpus) in [("real", \Fixtures.real), ("generated", \Fixtures.generated)] {
        for keywordCount in [50, 5000] {
            for engine in [EngineChoice.dfa, .compact, .nfa] {
                // Batch: every body of the corpus as spans of one buffer, lockstep where possible.
                Benchmark("scan-batch-\(corpusName)-\(keywordCount)-keywords-\(engine)") { benchmark, ac in
                    let (buffer, spans) = Fixtures.shared[keyPath: corpus]
                    var count = 0
                    buffer.withUnsafeBytes { raw in
                        spans.withUnsafeBufferPointer { spanBuffer in
                            benchmark.startMeasurement()
                            for _ in benchmark.scaledIterations {
                                ac.forEachMatch(in: raw, spans: spanBuffer) { _, _ in count &+= 1 }
                            }
                            benchmark.stopMeasurement()
                        }
                    }
                    blackHole(count)
                } setup: {
                    automaton(keywordCount == 50 ? MatcherFixtures.keywords50 : Fixtures.shared.keywords5000, engine)
                }
            }
            // Single: one forEachMatch call per body.
            Benchmark("scan-single-\(corpusName)-\(keywordCount)-keywords") { benchmark, ac in
                let (buffer, spans) = Fixtures.shared[keyPath: corpus]
                var count = 0
                buffer.withUnsafeBytes { raw in
                    benchmark.startMeasurement()
                    for _ in benchmark.scaledIterations {
                        for span in spans {
                            ac.forEachMatch(in: UnsafeRawBufferPointer(rebasing: raw[span])) { _ in
                                count &+= 1
                                return true
                            }
                        }
                    }
                    benchmark.stopMeasurement()
                }
                blackHole(count)
            } setup: {
                automaton(keywordCount == 50 ? MatcherFixtures.keywords50 : Fixtures.shared.keywords5000)
            }
        }
    }

    Benchmark(
        "compile-100000-keywords",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal], timeUnits: .milliseconds, maxIterations: 5, thresholds: oneShot)
    ) { benchmark, keywords in
        for _ in benchmark.scaledIterations {
            blackHole(automaton(keywords))
        }
    } setup: {
        Fixtures.shared.keywords100k
    }

    for (name, count) in [("5000", 5000), ("100000", 100_000)] {
        Benchmark(
            "load-serialized-\(name)-keywords",
            configuration: .init(
                metrics: [.wallClock, .mallocCountTotal], timeUnits: .milliseconds, maxIterations: 50,
                thresholds: oneShot)
        ) { benchmark, mapped in
            for _ in benchmark.scaledIterations {
                blackHole(try! AhoCorasick(serialized: mapped))
            }
        } setup: {
            let keywords = count == 5000 ? Fixtures.shared.keywords5000 : Fixtures.shared.keywords100k
            return MappedBytes(copying: automaton(keywords).serialize())
        }
    }
}
