import Foundation
import XCTest

/// A test case that runs the built `smsfilter` binary, each test in a temporary folder of its own.
open class CLITestCase: TemporaryFolderTestCase {
    /// The built binary.
    public let bin = Fixtures.smsfilterBinary
    /// What ``run(_:stdin:timeout:)`` gives the binary as its standard output (a file unless a test says).
    public var standardOutput = StandardOutput.file

    open override func setUpWithError() throws {
        try super.setUpWithError()
        guard FileManager.default.isExecutableFile(atPath: bin) else {
            XCTFail("the smsfilter binary is not built at \(bin): run `swift build` first (make test does)")
            return
        }
    }

    /// A file of the real corpora, for a quality-floor test only (see ``Corpora/forQualityFloor(_:)``:
    /// skipped, or failed under `SMSFILTER_REQUIRE_CORPORA=1`, when the corpora are missing). Equivalence
    /// tests use ``GeneratedFixture``.
    public func qualityCorpus(_ name: String, test: String = #function) throws -> String {
        try Corpora.file(name, qualityFloor: "\(type(of: self)).\(test.hasSuffix("()") ? String(test.dropLast(2)) : test)")
    }

    /// Runs the binary (with a time limit, see ``Fixtures/run(_:_:stdin:environment:timeout:standardOutput:)``); returns its
    /// status and its output as text.
    public func run(_ args: [String], stdin: Data? = nil, timeout: Double = Deadline.subprocessSeconds) throws
        -> (status: Int32, out: String, err: String)
    {
        let r = try Fixtures.run(bin, args, stdin: stdin, timeout: timeout, standardOutput: standardOutput)
        return (r.status, String(decoding: r.stdout, as: UTF8.self), String(decoding: r.stderr, as: UTF8.self))
    }

    /// Runs `body` once with the binary's standard output a regular file, once a pipe, once a terminal
    /// (``standardOutput``), so that what it asserts is shown not to depend on where the output of the
    /// process that runs `smsfilter` points. Assertion messages should name ``standardOutput``.
    public func underEveryStandardOutput(_ body: () throws -> Void) rethrows {
        let before = standardOutput
        defer { standardOutput = before }
        for kind in StandardOutput.allCases {
            standardOutput = kind
            print("\(name): the binary's standard output is a \(kind)")
            try body()
        }
    }

    /// `text` parsed as a JSON object (the test fails, showing `text`, when it is not one).
    public func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    /// `data` parsed as a JSON object (the test fails, showing `data` as text, when it is not one).
    public func json(_ data: Data) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], String(decoding: data, as: UTF8.self))
    }
}
