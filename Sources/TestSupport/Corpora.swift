import Foundation
import XCTest

/// The real corpora (UCI English spam, Thai SMS) in `shared/corpora` beside the checkout.
///
/// Only the quality-floor tests use them: every equivalence test (orderings, chunkings, damage accounting,
/// export and evaluate end to end) runs on the committed ``GeneratedFixture`` so that a fresh clone tests
/// the same things. Environment:
/// - `SMSFILTER_CORPORA=none` hides the corpora (to check what a fresh clone runs); `SMSFILTER_CORPORA=PATH`
///   points at another folder.
/// - `SMSFILTER_REQUIRE_CORPORA=1` (set by `.ci/run` when `../shared/corpora` exists) turns the
///   quality floors' skip into a failure.
public enum Corpora {
    /// Where the corpora are, or nil.
    public static var folder: URL? {
        let environment = ProcessInfo.processInfo.environment
        if let override = environment["SMSFILTER_CORPORA"], !override.isEmpty {
            if override == "none" { return nil }
            let url = URL(fileURLWithPath: override)
            return FileManager.default.fileExists(atPath: url.path) ? url : nil
        }
        let url = Fixtures.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpora")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Whether a missing corpus is a failure (`SMSFILTER_REQUIRE_CORPORA=1`).
    public static var required: Bool { ProcessInfo.processInfo.environment["SMSFILTER_REQUIRE_CORPORA"] == "1" }

    /// Why the corpora are missing, for messages.
    static var absence: String {
        ProcessInfo.processInfo.environment["SMSFILTER_CORPORA"].map { "SMSFILTER_CORPORA=\($0)" }
            ?? "\(Fixtures.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpora").path) not found"
    }

    /// The corpora folder for a quality-floor test. When it is missing: throws `XCTSkip` (and prints, once per
    /// process, the one line saying that only the quality floors are skipped), or, with
    /// `SMSFILTER_REQUIRE_CORPORA=1`, throws ``CorporaMissing`` so the test fails.
    /// - Parameter test: the test's name, for the messages.
    public static func forQualityFloor(_ test: String) throws -> URL {
        if let folder { return folder }
        if required { throw CorporaMissing(test: test, reason: absence) }
        _announceOnce()
        throw XCTSkip("quality floor needs the real corpora (\(absence))")
    }

    /// The path of one corpus file, for a quality-floor test (see ``forQualityFloor(_:)``).
    public static func file(_ name: String, qualityFloor test: String) throws -> String {
        try forQualityFloor(test).appendingPathComponent(name).path
    }

    private static let announcement: Void = {
        print("smsfilter tests: no real corpora (\(absence)): the quality-floor tests are skipped; every other test runs on Tests/Fixtures/generated (SMSFILTER_REQUIRE_CORPORA=1 makes this a failure)")
    }()

    private static func _announceOnce() { _ = announcement }
}

/// A quality-floor test ran without the corpora under `SMSFILTER_REQUIRE_CORPORA=1`.
public struct CorporaMissing: Error, CustomStringConvertible {
    public let test: String
    public let reason: String
    public var description: String {
        "\(test): SMSFILTER_REQUIRE_CORPORA=1 but the real corpora are missing (\(reason))"
    }
}
