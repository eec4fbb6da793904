import Foundation
import XCTest

/// A test case that runs the built `smsfilter` binary, each test in a temporary folder of its own.
open class CLITestCase: XCTestCase {
    /// This test's temporary folder (removed after the test).
    public var folder: URL!
    /// The built binary.
    public let bin = Fixtures.smsfilterBinary

    open override func setUpWithError() throws {
        folder = try Fixtures.temporaryFolder(String(describing: type(of: self)))
        guard FileManager.default.isExecutableFile(atPath: bin) else {
            XCTFail("the smsfilter binary is not built at \(bin): run `swift build` first (make test does)")
            return
        }
    }

    open override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A path in this test's folder.
    public func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// A corpus of `shared/corpora`; skips the test when the folder is not beside the checkout.
    public func corpus(_ name: String) throws -> String {
        guard let corpora = Fixtures.corporaFolder else { throw XCTSkip("shared/corpora is not beside the checkout") }
        return corpora.appendingPathComponent(name).path
    }

    /// Runs the binary; returns its status and its output as text.
    public func run(_ args: [String], stdin: Data? = nil) throws -> (status: Int32, out: String, err: String) {
        let r = try Fixtures.run(bin, args, stdin: stdin)
        return (r.status, String(decoding: r.stdout, as: UTF8.self), String(decoding: r.stderr, as: UTF8.self))
    }

    /// Writes `text` to `name` in this test's folder; returns its path.
    public func write(_ name: String, _ text: String) throws -> String {
        let path = self.path(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
