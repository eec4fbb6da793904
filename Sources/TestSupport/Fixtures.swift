import Foundation

/// Paths and helpers shared by the test targets.
public enum Fixtures {
    /// The package's root folder (where Package.swift is).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// The real corpora (``Corpora/folder``): `shared/corpora` beside the checkout unless `SMSFILTER_CORPORA`
    /// says otherwise; nil when absent. Only quality-floor tests use them (``Corpora/forQualityFloor(_:)``).
    public static var corporaFolder: URL? { Corpora.folder }

    /// The built `smsfilter` executable: `$SMSFILTER_BIN` when set, else the one beside the test bundle
    /// (`swift build` puts both in the same folder; `make test` builds it before running the tests).
    public static var smsfilterBinary: String {
        if let path = ProcessInfo.processInfo.environment["SMSFILTER_BIN"] { return path }
        var url = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = url.appendingPathComponent("smsfilter")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            url.deleteLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/smsfilter").path
    }

    /// The records of a committed JSON Lines fixture, `Tests/Fixtures/<name>`, one `Record` a line.
    public static func jsonLines<Record: Decodable>(_ name: String, of: Record.Type = Record.self) throws -> [Record] {
        let url = packageRoot.appendingPathComponent("Tests/Fixtures").appendingPathComponent(name)
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
    }

    /// A new empty temporary folder.
    public static func temporaryFolder(_ name: String = "smsfilter-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(name)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs a program and returns its exit status, standard output and standard error.
    ///
    /// The program gets `timeout` seconds (scaled by ``Deadline/scale``; default
    /// ``Deadline/subprocessSeconds``): a program still running then is sent SIGTERM, then SIGKILL, and this
    /// throws ``DeadlineExceeded`` naming the command line. Standard input comes from a file (never a pipe
    /// the child might not drain), standard error goes to a file, standard output to what `standardOutput`
    /// says (a file by default; a pipe or a pseudo-terminal, drained by a thread of this process): the
    /// child's standard output never depends on where the test process's own points.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil,
        timeout: Double = Deadline.subprocessSeconds, standardOutput: StandardOutput = .file
    ) throws -> (status: Int32, stdout: Data, stderr: Data) {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        if let environment { process.environment = environment }
        let scratch = try temporaryFolder("run")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("out")
        let errURL = scratch.appendingPathComponent("err")
        let inURL = scratch.appendingPathComponent("in")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        var input: FileHandle?
        if let stdin {
            try stdin.write(to: inURL)
            input = try FileHandle(forReadingFrom: inURL)
        }
        let drain = try _StandardOutputDrain(standardOutput, file: out)
        process.standardOutput = drain.childEnd
        process.standardError = err
        process.standardInput = input ?? FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            drain.abandon()
            throw error
        }
        drain.started()
        let limit = Deadline.scaled(timeout)
        if exited.wait(timeout: .now() + limit) == .timedOut {
            process.terminate()
            if exited.wait(timeout: .now() + 5) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                exited.wait()
            }
            _ = drain.finish(seconds: 5)
            try? out.close()
            try? err.close()
            let command = ([executable] + arguments).map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
            throw DeadlineExceeded(what: "`\(command)` to exit", seconds: limit)
        }
        process.waitUntilExit()
        let drained = drain.finish(seconds: Deadline.scaled(30))
        try out.close()
        try err.close()
        try input?.close()
        let stdout = try drained ?? Data(contentsOf: outURL)
        let stderr = try Data(contentsOf: errURL)
        return (process.terminationStatus, stdout, stderr)
    }

    /// A seeded generator for a randomised test: the seed is `SMSFILTER_SEED` when set (to reproduce a
    /// failure, or to try other seeds), else `defaultSeed`; it is printed with the test's name either way, so
    /// a failure in a log can be repeated.
    public static func seededGenerator(_ test: String, defaultSeed: UInt64) -> SeededGenerator {
        let environment = ProcessInfo.processInfo.environment["SMSFILTER_SEED"]
        let seed = environment.flatMap { text in
            text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        } ?? defaultSeed
        print("\(test): seed 0x\(String(seed, radix: 16)) (SMSFILTER_SEED=0x\(String(seed, radix: 16)) repeats it)")
        return SeededGenerator(seed: seed)
    }

    /// Deterministic pseudo-random numbers (SplitMix64) for reproducible property tests.
    public struct SeededGenerator: RandomNumberGenerator, Sendable {
        private var state: UInt64
        /// The seed it started from (for failure messages).
        public let seed: UInt64
        public init(seed: UInt64) {
            state = seed
            self.seed = seed
        }
        public mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
