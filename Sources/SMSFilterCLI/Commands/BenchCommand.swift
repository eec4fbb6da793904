import AhoCorasick
import ArgumentParser
import BatchPipeline
import Dispatch
import Foundation
import MessageFilter
import ArchiveIO

/// `smsfilter bench`: throughput of the matcher alone and of the whole job.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the matcher alone and the whole classify job on an archive.",
        discussion: """
            Matcher: the input's bodies are loaded into memory first (up to --matcher-bytes), then \
            classified in batches (the rule set's automata and rules: what a worker does per message), \
            --repeat times; the median is reported. "automaton" is the bare Aho-Corasick scan of the rule \
            set's phrases over the same bodies. End to end: decode, frame, parse, match and write \
            (to a temporary .jsonl.zst, or labels only), with each stage's share, per-chunk latency \
            percentiles and peak memory. Bytes are body bytes (matcher) or decoded input bytes (end to end).

            Example:
              smsfilter bench --json corpus.jsonl.zst

            \(ExitStatus.helpSection(
            [.success, .usage, .badInput, .inputMissing, .cannotCreate], saying: [
                .badInput: "damaged input or bad rules", .cannotCreate: "an output (--phrases-file) could not be written",
            ]))
            """
    )

    @Argument(help: "An archive (JSONL, CSV, TSV or XML; plain, .zst or .gz).")
    var input: String

    @OptionGroup var ruleOptions: RuleOptions

    @OptionGroup var threadsOption: ThreadsOption

    @Option(name: .long, parsing: .unconditional, help: "How many times to run each measurement, 1 to 1000 (the median is reported).")
    var `repeat` = 3

    @Option(name: .long, parsing: .unconditional, help: "Body bytes to load for the matcher measurement, 1K to 2G.")
    var matcherBytes = ByteSize(256 << 20)

    @Flag(name: .long, help: "End to end: write labels only instead of whole records.")
    var labelsOnly = false

    @Flag(name: .long, help: "Skip the end-to-end measurement.")
    var matcherOnly = false

    @OptionGroup var jsonOption: JSONOption

    @Option(name: .long, help: ArgumentHelp("Only write the rule set's phrases to this file, one per line, for peer tools.", valueName: "file"))
    var phrasesFile: String?

    @OptionGroup var forceOption: ForceOption

    @OptionGroup var quietOption: QuietOption

    func validate() throws {
        try Limits.check(`repeat`, Limits.repeats, "--repeat")
        try Limits.check(threadsOption.threads, Limits.threads, "--threads")
        try Limits.check(size: matcherBytes, Limits.matcherBytes, "--matcher-bytes")
    }

    func run() throws {
        var plan = IOPlan(force: forceOption.force)
        plan.read(input, as: "the input")
        plan.readRules(ruleOptions.rules)
        plan.write(phrasesFile, as: "--phrases-file")
        try plan.check()
        let ruleSet = try RuleSet.load(option: ruleOptions.rules)
        if let phrasesFile {
            let text = (0..<ruleSet.phraseCount).map { ruleSet.phrase(at: $0) }.filter { !$0.contains("\n") }.joined(separator: "\n") + "\n"
            try SmallOutput.write(Array(text.utf8), to: phrasesFile, existing: plan.existingPolicy)
            return
        }
        let progress = ProgressLine()
        let showProgress = !quietOption.quiet && Console.stderrIsTerminal
        let stage = { (text: String) in if showProgress { progress.show("bench: \(text)…") } }
        defer { progress.clear() }
        guard FileManager.default.fileExists(atPath: input) else { throw CommandFailure("\(EchoedText.escaped(input)): no such file", .inputMissing) }
        let threadCount = threadsOption.count
        let messages: LoadedMessages
        do {
            messages = try LoadedMessages.load(path: input, limit: matcherBytes.bytes)
        } catch {
            throw CommandFailure(error.description, error.exitCode)
        }
        guard !messages.spans.isEmpty else { throw CommandFailure("\(EchoedText.escaped(input)): no record with a body", .badInput) }

        var report: [String: Any] = ["input": input, "ruleSet": ruleSet.checksum, "classifierAutomata": ruleSet.automatonDescriptions]
        report.merge(matcherFigures(ruleSet, messages, threads: threadCount, stage: stage)) { a, _ in a }
        report.merge(automatonFigures(ruleSet, messages, stage: stage)) { a, _ in a }
        report.merge(try ratioFigures(ruleSet, messages, report, stage: stage)) { a, _ in a }
        report.merge(try decoderFigures(threads: threadCount, stage: stage)) { a, _ in a }
        if !matcherOnly { report.merge(try endToEndFigures(ruleSet, threads: threadCount, stage: stage)) { a, _ in a } }
        report["peakResidentBytes"] = peakResidentBytes()
        progress.clear()
        if jsonOption.json {
            let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
            Console.printSummaryJSON(String(decoding: data, as: UTF8.self) + "\n", plan: plan)
        } else {
            Console.stdout(text(report) + "\n")
        }
    }

    // MARK: Stages (each returns its entries of the report)

    /// `matcher` and `matcherThreads`: the classifier on one thread, then on `threadCount`, over the loaded
    /// messages (the median of `--repeat` runs).
    func matcherFigures(_ ruleSet: RuleSet, _ messages: LoadedMessages, threads threadCount: Int, stage: (String) -> Void) -> [String: Any] {
        stage("matcher, 1 thread")
        let matcherSeconds = median((0..<`repeat`).map { _ in Self.classifyAll(ruleSet, messages, threads: 1) })
        stage("matcher, \(threadCount) threads")
        let matcherThreadsSeconds = threadCount > 1
            ? median((0..<`repeat`).map { _ in Self.classifyAll(ruleSet, messages, threads: threadCount) }) : matcherSeconds
        return [
            "matcher": figures(bytes: messages.bodyBytes, records: messages.spans.count, seconds: matcherSeconds, threads: 1),
            "matcherThreads": figures(bytes: messages.bodyBytes, records: messages.spans.count, seconds: matcherThreadsSeconds, threads: threadCount),
        ]
    }

    /// Seconds to classify every message once, one classifier per thread over its share of them.
    static func classifyAll(_ ruleSet: RuleSet, _ messages: LoadedMessages, threads: Int) -> Double {
        let shares = (0..<threads).map { k in (messages.spans.count * k / threads)..<(messages.spans.count * (k + 1) / threads) }
        let classifiers = (0..<threads).map { _ in _Box(Classifier(ruleSet: ruleSet)) }
        let start = DispatchTime.now().uptimeNanoseconds
        messages.buffer.withUnsafeBytes { buffer in
            messages.spans.withUnsafeBufferPointer { spans in
                let box = _Box((buffer, spans))
                DispatchQueue.concurrentPerform(iterations: threads) { k in
                    let (buffer, spans) = box.value
                    let share = shares[k]
                    var verdicts = [Verdict](repeating: Verdict(), count: 4096)
                    var i = share.lowerBound
                    verdicts.withUnsafeMutableBufferPointer { out in
                        while i < share.upperBound {
                            let n = min(4096, share.upperBound - i)
                            classifiers[k].value.classify(
                                buffer: buffer, messages: UnsafeBufferPointer(rebasing: spans[i..<(i + n)]),
                                into: UnsafeMutableBufferPointer(rebasing: out[0..<n]))
                            i += n
                        }
                    }
                }
            }
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// `ratios` (on one thread): the classifier ÷ its bare automaton (`classifierToAutomaton`);
    /// for a rule set with a learned model, also `rulesAlone` and `rulesAloneAutomaton` (the same rules without
    /// the model, classifier and bare automaton, measured in turn with the rule set itself so that the ratios
    /// come from one stretch of time), `rulesAloneToAutomaton` and `withModelToRulesAlone` (rules and model
    /// ÷ the rules alone). Ratios of body MB/s: 1 is the same speed, smaller is slower.
    func ratioFigures(_ ruleSet: RuleSet, _ messages: LoadedMessages, _ report: [String: Any], stage: (String) -> Void) throws -> [String: Any] {
        func mb(_ f: Any?) -> Double { (f as? [String: Any])?["mbPerSecond"] as? Double ?? 0 }
        func ratio(_ a: Double, _ b: Double) -> Double { b > 0 ? a / b : 0 }
        var ratios: [String: Double] = ["classifierToAutomaton": ratio(mb(report["matcher"]), mb(report["automaton"]))]
        var out: [String: Any] = [:]
        if ruleSet.definition.model != nil {
            let alone: RuleSet
            if ruleOptions.rules == nil {
                alone = RuleSet.embeddedDefaultRulesOnly
            } else {
                var definition = ruleSet.definition
                definition.model = nil
                do { alone = try RuleSet(definition: definition, source: ruleSet.source) } catch { throw CommandFailure("\(error)", .badInput) }
            }
            stage("rules alone, 1 thread")
            // In turn with the rule set itself, so both medians come from the same stretch of a noisy machine.
            var withModel: [Double] = []
            var without: [Double] = []
            for _ in 0..<`repeat` {
                withModel.append(Self.classifyAll(ruleSet, messages, threads: 1))
                without.append(Self.classifyAll(alone, messages, threads: 1))
            }
            let aloneFigures = figures(bytes: messages.bodyBytes, records: messages.spans.count, seconds: median(without), threads: 1)
            let pairedFigures = figures(bytes: messages.bodyBytes, records: messages.spans.count, seconds: median(withModel), threads: 1)
            let aloneAutomaton = automatonFigures(alone, messages, stage: stage)["automaton"] as? [String: Any] ?? [:]
            out["rulesAlone"] = aloneFigures
            out["rulesAloneAutomaton"] = aloneAutomaton
            ratios["withModelToRulesAlone"] = ratio(mb(pairedFigures), mb(aloneFigures))
            ratios["rulesAloneToAutomaton"] = ratio(mb(aloneFigures), mb(aloneAutomaton))
        }
        out["ratios"] = ratios
        return out
    }

    /// `automaton`: the bare automaton over the rule set's phrases (ASCII case folding), on one thread.
    func automatonFigures(_ ruleSet: RuleSet, _ messages: LoadedMessages, stage: (String) -> Void) -> [String: Any] {
        var builder = AhoCorasickBuilder()
        builder.caseFolding = .ascii
        let phrases = (0..<ruleSet.phraseCount).map { Pattern(ruleSet.phrase(at: $0)) }
        stage("automaton")
        var automatonSeconds = 0.0
        var automatonKind = "none"
        if let automaton = try? builder.build(phrases) {
            automatonKind = automaton.engineDescription
            let ranges = messages.spans.map { $0.bodyStart..<($0.bodyStart + $0.bodyCount) }
            automatonSeconds = median(
                (0..<`repeat`).map { _ in
                    var hits = 0
                    let start = DispatchTime.now().uptimeNanoseconds
                    messages.buffer.withUnsafeBytes { buffer in
                        ranges.withUnsafeBufferPointer { spans in
                            automaton.forEachMatch(in: buffer, spans: spans) { _, _ in hits += 1 }
                        }
                    }
                    blackHole(hits)
                    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                })
        }
        return [
            "automaton": figures(bytes: messages.bodyBytes, records: messages.spans.count, seconds: automatonSeconds, threads: 1)
                .merging(["engine": automatonKind, "patterns": phrases.count], uniquingKeysWith: { a, _ in a })
        ]
    }

    /// `decode`, `decodeThreads` and `zstdCLI`: the decoder alone (one thread, and with more: the
    /// frame-parallel decoder, which decodes the frames of a multi-frame archive on `threads` workers), beside
    /// the zstd command-line tool on the same file; the three run in turn in each repetition.
    func decoderFigures(threads threadCount: Int, stage: (String) -> Void) throws -> [String: Any] {
        func decodeOnce(threads: Int) throws -> (seconds: Double, bytes: Int, cpu: Double) {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate() }
            let cpuStart = Self.processCPUSeconds()
            let start = DispatchTime.now().uptimeNanoseconds
            let decoder = try ZstdParallelDecoder(path: input, options: .init(threads: threads))
            var bytes = 0
            while true {
                let n = try decoder.read(into: buffer)
                if n == 0 { break }
                bytes += n
            }
            return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, bytes, Self.processCPUSeconds() - cpuStart)
        }
        stage("decoder")
        var decodeRuns: [(seconds: Double, bytes: Int, cpu: Double)] = []
        var parallelRuns: [Double] = []
        var parallelCPU: [Double] = []
        var zstdRuns: [Double] = []
        do {
            for _ in 0..<`repeat` {
                decodeRuns.append(try decodeOnce(threads: 1))
                if threadCount > 1 {
                    let run = try decodeOnce(threads: threadCount)
                    parallelRuns.append(run.seconds)
                    parallelCPU.append(run.cpu)
                }
                if let seconds = Self.timeZstdCLI(input) { zstdRuns.append(seconds) }
            }
        } catch {
            throw CommandFailure("\(error)", .badInput)
        }
        let decodeSeconds = median(decodeRuns.map(\.seconds))
        let zstdSeconds = median(zstdRuns)
        var report: [String: Any] = [:]
        report["decode"] = figures(bytes: decodeRuns[0].bytes, records: 0, seconds: decodeSeconds, threads: 1)
            .merging(["cpuSeconds": median(decodeRuns.map(\.cpu))], uniquingKeysWith: { a, _ in a })
        if !parallelRuns.isEmpty {
            // CPU seconds (all threads): on a shared machine, wall-clock time says little about parallelism.
            report["decodeThreads"] = figures(bytes: decodeRuns[0].bytes, records: 0, seconds: median(parallelRuns), threads: threadCount)
                .merging(["cpuSeconds": median(parallelCPU)], uniquingKeysWith: { a, _ in a })
        }
        if zstdSeconds > 0 {
            report["zstdCLI"] = figures(bytes: decodeRuns[0].bytes, records: 0, seconds: zstdSeconds, threads: 1)
                .merging(["command": "zstd -dc INPUT > /dev/null", "decoderSpeedRatio": zstdSeconds / decodeSeconds], uniquingKeysWith: { a, _ in a })
        }
        return report
    }

    /// `endToEnd`, `stages`, `stageShares` and `chunkLatencyMs`: classify itself on the input (the median run
    /// of `--repeat`), its output in a temporary folder removed afterwards.
    func endToEndFigures(_ ruleSet: RuleSet, threads threadCount: Int, stage: (String) -> Void) throws -> [String: Any] {
        stage("end to end")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("smsfilter-bench-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = PipelineOptions()
        options.threads = threadCount
        options.compressionWorkers = PipelineOptions.defaultCompressionWorkers(threads: threadCount)
        options.collectStats = true
        options.labelsOnly = labelsOnly
        options.outputPath = folder.appendingPathComponent(labelsOnly ? "labels.jsonl" : "out.jsonl.zst").path
        var runs: [RunResult] = []
        for _ in 0..<`repeat` {
            do {
                runs.append(try Pipeline(ruleSet: ruleSet, options: options).run(inputs: [input]))
            } catch {
                throw CommandFailure(error.description, error.exitCode)
            }
        }
        let run = runs.sorted { $0.counts.seconds < $1.counts.seconds }[runs.count / 2]
        var report: [String: Any] = [:]
        report["endToEnd"] = figures(bytes: Int(run.counts.bytes), records: run.counts.records, seconds: run.counts.seconds, threads: threadCount)
        report["stages"] = run.stages
        let total = run.stages.values.reduce(0, +)
        report["stageShares"] = run.stages.mapValues { total > 0 ? ($0 / total * 1000).rounded() / 10 : 0 }
        let latencies = run.chunkLatencies.sorted()
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
        }
        report["chunkLatencyMs"] = ["p50": percentile(0.5) * 1000, "p90": percentile(0.9) * 1000, "p99": percentile(0.99) * 1000, "max": (latencies.last ?? 0) * 1000, "chunks": latencies.count]
        return report
    }

    /// Times `zstd -dc input > /dev/null` (nil when the zstd tool is not installed).
    static func timeZstdCLI(_ input: String) -> Double? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["zstd", "-q", "-dc", input]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        let start = DispatchTime.now().uptimeNanoseconds
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// User and system CPU seconds of the whole process so far (every thread).
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &usage)
        #else
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    func figures(bytes: Int, records: Int, seconds: Double, threads: Int) -> [String: Any] {
        [
            "bytes": bytes, "records": records, "seconds": seconds, "threads": threads,
            "mbPerSecond": seconds > 0 ? Double(bytes) / 1e6 / seconds : 0,
            "messagesPerSecond": seconds > 0 ? Double(records) / seconds : 0,
        ]
    }

    func text(_ report: [String: Any]) -> String {
        func right(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
        // Columns: the stage, MB/s, messages/s (a decoder row counts bytes, not messages: "-"), seconds,
        // threads (and CPU seconds where measured).
        var lines = [
            "stage".padding(toLength: 18, withPad: " ", startingAt: 0)
                + right("MB/s", 10) + right("msg/s", 15) + right("seconds", 10) + "  threads"
        ]
        func row(_ name: String, _ key: String) {
            guard let f = report[key] as? [String: Any] else { return }
            let messages = (f["records"] as? Int ?? 0) > 0 ? String(format: "%.0f", f["messagesPerSecond"] as! Double) : "-"
            lines.append(
                name.padding(toLength: 18, withPad: " ", startingAt: 0)
                    + String(format: "%10.1f", f["mbPerSecond"] as! Double) + right(messages, 15)
                    + String(format: "%10.3f  ", f["seconds"] as! Double) + "\(f["threads"]!)"
                    + ((f["cpuSeconds"] as? Double).map { String(format: " (%.3f s of CPU)", $0) } ?? ""))
        }
        row("zstd -dc", "zstdCLI")
        row("decoder", "decode")
        row("decoder, threads", "decodeThreads")
        row("automaton", "automaton")
        if let automaton = report["automaton"] as? [String: Any], let engine = automaton["engine"] as? String {
            lines.append("  automaton engine: \(engine)")
        }
        for line in report["classifierAutomata"] as? [String] ?? [] { lines.append("  classifier automaton: \(line)") }
        row("matcher", "matcher")
        row("matcher, threads", "matcherThreads")
        row("rules alone", "rulesAlone")
        row("  their automaton", "rulesAloneAutomaton")
        if let r = report["ratios"] as? [String: Double] {
            var parts = [String(format: "classifier ÷ its automaton %.2f×", r["classifierToAutomaton"] ?? 0)]
            if let a = r["rulesAloneToAutomaton"] { parts.append(String(format: "rules alone ÷ their automaton %.2f×", a)) }
            if let m = r["withModelToRulesAlone"] { parts.append(String(format: "rules + model ÷ rules alone %.2f×", m)) }
            lines.append("ratios (1 thread): " + parts.joined(separator: ", "))
        }
        row("end to end", "endToEnd")
        if let shares = report["stageShares"] as? [String: Double] {
            lines.append("stages: " + shares.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)%" }.joined(separator: ", "))
        }
        if let l = report["chunkLatencyMs"] as? [String: Any] {
            lines.append(String(format: "chunk latency: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms", l["p50"] as! Double, l["p90"] as! Double, l["p99"] as! Double))
        }
        lines.append(String(format: "peak memory: %.1f MiB", Double(report["peakResidentBytes"] as! Int) / 1048576))
        return lines.joined(separator: "\n")
    }
}

/// The median, or 0 for no values.
func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }

/// Keeps a value alive so the optimizer cannot drop the work that made it.
@inline(never)
func blackHole<T>(_ value: T) { _ = value }

/// Carries a value into a concurrent closure (each thread uses its own element or reads only).
final class _Box<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
