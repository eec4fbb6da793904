// matcher-tool: quick Matcher measurements in GB/s, and the fixture files for the peers script.
//
//   swift run -c release matcher-tool                 measure (median of 7 repetitions each)
//   swift run -c release matcher-tool fixtures DIR    write DIR/bodies-{real,generated}.txt, DIR/keywords-{50,5000}.txt
import AhoCorasick
import Foundation
import MatcherFixtures

/// Nanoseconds of the wall clock, or with MATCHER_TOOL_CLOCK=cpu of this process's CPU time (steadier than the
/// wall clock on a machine shared with other work; `Benchmarks/peers/run-hyperscan-c.sh` sets it, and its C
/// peer counts the same clock).
let cpuClock = ProcessInfo.processInfo.environment["MATCHER_TOOL_CLOCK"] == "cpu"
func now() -> UInt64 {
    guard cpuClock else { return DispatchTime.now().uptimeNanoseconds }
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

/// Seconds of `repetitions` runs of `body`: the median, or the minimum with MATCHER_TOOL_MIN=1 (steadier
/// on a busy machine).
func time(_ repetitions: Int = 7, _ body: () -> Void) -> Double {
    var samples: [Double] = []
    // MATCHER_TOOL_ONCE=1: one run each (for callgrind, which counts instructions, not time).
    let repetitions = ProcessInfo.processInfo.environment["MATCHER_TOOL_ONCE"] == "1" ? 1 : repetitions
    for _ in 0..<repetitions {
        let start = now()
        body()
        samples.append(Double(now() - start) / 1e9)
    }
    return ProcessInfo.processInfo.environment["MATCHER_TOOL_MIN"] == "1" ? samples.min()! : median(samples)
}

/// One batch scan, a function of its own so that callgrind can count just it
/// (`--toggle-collect='*measuredBatch*'`).
@inline(never)
func measuredBatch(_ ac: AhoCorasick, _ raw: UnsafeRawBufferPointer, _ spans: UnsafeBufferPointer<Range<Int>>) -> Int {
    var count = 0
    ac.forEachMatch(in: raw, spans: spans) { _, _ in count += 1 }
    return count
}

let arguments = CommandLine.arguments
let environment = ProcessInfo.processInfo.environment
/// MATCHER_FIXTURES_DIR=DIR: read the bodies and keywords `matcher-tool fixtures DIR` wrote (fast under
/// valgrind) instead of decoding the corpora and generating the bodies.
func lines(_ path: String) -> [[UInt8]] {
    let data = FileManager.default.contents(atPath: path) ?? Data()
    return data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map { Array($0) }
}
let fixturesDir = environment["MATCHER_FIXTURES_DIR"]
let real = fixturesDir.map { lines($0 + "/bodies-real.txt") } ?? MatcherFixtures.realBodies()
let generated = fixturesDir.map { lines($0 + "/bodies-generated.txt") } ?? MatcherFixtures.generatedBodies()
let keywords5000 = fixturesDir.map { lines($0 + "/keywords-5000.txt").map { String(decoding: $0, as: UTF8.self) } }
    ?? MatcherFixtures.keywords(5000, from: real + generated)

if arguments.count >= 3 && arguments[1] == "fixtures" {
    let folder = arguments[2]
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try MatcherFixtures.write(bodies: real, to: folder + "/bodies-real.txt")
    try MatcherFixtures.write(bodies: generated, to: folder + "/bodies-generated.txt")
    try MatcherFixtures.write(keywords: MatcherFixtures.keywords50, to: folder + "/keywords-50.txt")
    try MatcherFixtures.write(keywords: keywords5000, to: folder + "/keywords-5000.txt")
    print("wrote \(real.count) real and \(generated.count) generated bodies, 50 and 5000 keywords to \(folder)")
    exit(0)
}

let filter = arguments.count >= 2 ? arguments[1] : ""

for (corpusName, bodies) in [("real", real), ("generated", generated)] {
    let (buffer, spans) = MatcherFixtures.chunk(bodies)
    let bytes = spans.reduce(0) { $0 + $1.count }
    print("corpus \(corpusName): \(bodies.count) bodies, \(bytes) bytes, mean \(bytes / max(bodies.count, 1)) bytes")
    // "rare5": five keywords that few bodies have (where a prefilter pays off).
    let rare5 = ["lottery", "pre-approved", "kyc", "verify", "blocked"]
    // MATCHER_TOOL_KEYWORDS=FILE (one per line): one more set, "file" (e.g. a rule set's phrases from
    // `smsfilter bench - --phrases-file FILE`).
    let fromFile = environment["MATCHER_TOOL_KEYWORDS"].map { lines($0).map { String(decoding: $0, as: UTF8.self) } } ?? []
    for (keywordName, keywords) in [("50", MatcherFixtures.keywords50), ("5000", keywords5000), ("rare5", rare5), ("file", fromFile)]
    where !keywords.isEmpty {
        for folding in [CaseFolding.none, .ascii] {
            for (engine, prefilter) in [(EngineChoice.auto, true), (.dfa, false), (.dfa, true), (.compact, false), (.compact, true), (.nfa, false)] {
                let label = "\(corpusName) kw=\(keywordName) fold=\(folding) \(engine)\(prefilter ? "+pf" : "")"
                // FILTER: comma-separated parts the label must contain, or "=LABEL" for exactly one.
                if filter.hasPrefix("=") ? label != filter.dropFirst() : !filter.isEmpty && !filter.split(separator: ",").allSatisfy({ label.contains($0) }) { continue }
                var builder = AhoCorasickBuilder()
                builder.caseFolding = folding
                builder.engine = engine
                builder.prefilter = prefilter
                let ac = try builder.build(keywords)
                var count = 0
                let batch = buffer.withUnsafeBytes { raw in
                    spans.withUnsafeBufferPointer { spanBuffer in
                        time { count = measuredBatch(ac, raw, spanBuffer) }
                    }
                }
                let batchCount = count
                let single = buffer.withUnsafeBytes { raw in
                    time {
                        count = 0
                        for span in spans {
                            ac.forEachMatch(in: UnsafeRawBufferPointer(rebasing: raw[span])) { _ in
                                count += 1
                                return true
                            }
                        }
                    }
                }
                let gb = Double(bytes) / 1e9
                print(
                    String(
                        format: "  %@  batch %.3f GB/s  single %.3f GB/s  matches %d%@  [%@]", label,
                        gb / batch, gb / single, batchCount,
                        batchCount == count ? "" : " MISMATCH single=\(count)", ac.engineDescription))
            }
        }
    }
}

if filter.isEmpty || filter == "build" {
    for count in [5000, 10_000, 100_000] {
        let keywords = MatcherFixtures.randomKeywords(count)
        var builder = AhoCorasickBuilder()
        builder.caseFolding = .ascii
        var ac: AhoCorasick? = nil
        let compile = time(3) { ac = try! builder.build(keywords) }
        let bytes = ac!.serialize()
        let mapped = MappedBytes(copying: bytes)
        let load = time(7) { _ = try! AhoCorasick(serialized: mapped) }
        print(
            String(
                format: "compile %d keywords (auto -> %@, %d bytes): %.3f s; load %.2f ms", count,
                ac!.engineDescription, bytes.count, compile, load * 1000))
    }
}

if filter == "buildprofile" {
    let keywords = MatcherFixtures.randomKeywords(100_000)
    for engine in [EngineChoice.auto, .nfa, .auto, .nfa] {
        var builder = AhoCorasickBuilder()
        builder.caseFolding = .ascii
        builder.engine = engine
        let start = now()
        let ac = try builder.build(keywords)
        print("100000 keywords \(engine): \(Double(now() - start) / 1e9) s  \(ac.engineDescription)")
    }
}

if filter == "loadprofile" {
    var builder = AhoCorasickBuilder()
    builder.caseFolding = .ascii
    let mapped = MappedBytes(copying: try builder.build(MatcherFixtures.randomKeywords(100_000)).serialize())
    let seconds = time(100) { _ = try! AhoCorasick(serialized: mapped) }
    print(String(format: "load 100000-keyword NFA: %.2f ms", seconds * 1000))
}

if filter == "unicode" {
    var builder = AhoCorasickBuilder()
    builder.caseFolding = .unicode
    let start = now()
    let first = try builder.build(["σας", "привет", "été"])
    let firstSeconds = Double(now() - start) / 1e9
    let second = time(5) { _ = try! builder.build(["σας", "привет", "été"]) }
    print(String(format: "first .unicode build %.1f ms (fold table), later builds %.3f ms; %d states", firstSeconds * 1000, second * 1000, first.stateCount))
    let (buffer, spans) = MatcherFixtures.chunk(real)
    let bytes = spans.reduce(0) { $0 + $1.count }
    let ac = try builder.build(MatcherFixtures.keywords50)
    var count = 0
    let seconds = buffer.withUnsafeBytes { raw in
        spans.withUnsafeBufferPointer { s in time { count = 0; ac.forEachMatch(in: raw, spans: s) { _, _ in count += 1 } } }
    }
    print(String(format: "real kw=50 fold=unicode: %.2f GB/s, %d matches", Double(bytes) / 1e9 / seconds, count))
}
