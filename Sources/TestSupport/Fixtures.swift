import Foundation

/// Paths and helpers shared by the test targets.
public enum Fixtures {
    /// The package's root folder (where Package.swift is).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// `shared/corpora`, beside the checkout (nil when it is not there).
    public static var corporaFolder: URL? {
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpora")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

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

    /// A new empty temporary folder.
    public static func temporaryFolder(_ name: String = "smsfilter-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(name)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs a program and returns its exit status, standard output and standard error.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil
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
        let outURL = try temporaryFolder("run").appendingPathComponent("out")
        let errURL = outURL.deletingLastPathComponent().appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        let inPipe = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : inPipe
        try process.run()
        if let stdin {
            inPipe.fileHandleForWriting.write(stdin)
            try inPipe.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        try out.close()
        try err.close()
        let stdout = try Data(contentsOf: outURL)
        let stderr = try Data(contentsOf: errURL)
        try? FileManager.default.removeItem(at: outURL.deletingLastPathComponent())
        return (process.terminationStatus, stdout, stderr)
    }

    /// Deterministic pseudo-random numbers (SplitMix64) for reproducible property tests.
    public struct SeededGenerator: RandomNumberGenerator, Sendable {
        private var state: UInt64
        public init(seed: UInt64) { state = seed }
        public mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
