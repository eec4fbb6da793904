import Foundation
import XCTest

/// A test case with a temporary folder of its own for each test (named after the class, removed after the
/// test), and the helpers that make and list files in it.
open class TemporaryFolderTestCase: XCTestCase {
    /// This test's temporary folder (removed after the test).
    public var folder: URL!

    open override func setUpWithError() throws {
        folder = try Fixtures.temporaryFolder(String(describing: type(of: self)))
    }

    open override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A path in this test's folder.
    public func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Writes `text` to `name` in this test's folder; returns its path.
    public func write(_ name: String, _ text: String) throws -> String {
        let path = self.path(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Writes `bytes` to `name` in this test's folder; returns its path.
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = self.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The names in this test's folder, sorted.
    public func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() }
}
