import Foundation

/// Time limits for tests that run a pipeline or a subprocess.
///
/// swift-corelibs-xctest (Linux) does not enforce `executionTimeAllowance`, so a deadlocked pipeline or a
/// child that never exits would hang `swift test` until someone kills it. Every such test goes through
/// ``run(_:seconds:_:)`` (in-process work, on a thread of its own) or ``Fixtures/run(_:_:stdin:environment:timeout:standardOutput:)``
/// (a subprocess, killed when late), which throw ``DeadlineExceeded`` naming what they waited for.
///
/// The limits are generous (a debug build on two busy cores); `SMSFILTER_DEADLINE_SCALE` multiplies them
/// (`Scripts/mutate.sh` shortens them so that a mutation that deadlocks costs little).
public enum Deadline {
    /// `SMSFILTER_DEADLINE_SCALE` (default 1).
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["SMSFILTER_DEADLINE_SCALE"], let value = Double(text), value > 0
        else { return 1 }
        return value
    }()

    /// The default limit for an in-process pipeline run, in seconds (before scaling).
    public static let pipelineSeconds: Double = 120
    /// The default limit for a subprocess, in seconds (before scaling).
    public static let subprocessSeconds: Double = 240

    /// `seconds` × ``scale``.
    public static func scaled(_ seconds: Double) -> Double { seconds * scale }

    /// Runs `body` on a thread of its own and waits at most `seconds` (scaled) for it.
    ///
    /// On time-out the thread cannot be stopped: it is left running (blocked, typically) and this throws
    /// ``DeadlineExceeded`` naming `what`, so the test fails with a message instead of hanging. Keep XCTest
    /// assertions out of `body` (return what to check): a late thread would report into another test.
    ///
    /// - Parameters:
    ///   - what: what is waited for, e.g. "Pipeline.run over fixture.jsonl.zst (8 threads, 4 KiB chunks)".
    ///   - seconds: the limit before scaling.
    /// - Returns: what `body` returned; rethrows what it threw.
    public static func run<T>(_ what: String, seconds: Double = pipelineSeconds, _ body: @escaping () throws -> T) throws -> T {
        let slot = _Slot<T>()
        let work = _Unchecked(body)
        let thread = Thread {
            let result = Result { try work.value() }
            slot.finish(result)
        }
        thread.stackSize = 8 << 20
        thread.name = "deadline: \(what)"
        thread.start()
        let limit = scaled(seconds)
        guard slot.done.wait(timeout: .now() + limit) == .success else {
            throw DeadlineExceeded(what: what, seconds: limit)
        }
        return try slot.take().get()
    }
}

/// A test waited longer than its limit.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    /// What was waited for.
    public let what: String
    /// The limit, in seconds (scaled).
    public let seconds: Double

    public init(what: String, seconds: Double) {
        self.what = what
        self.seconds = seconds
    }

    public var description: String {
        "timed out after \(String(format: "%.0f", seconds)) s waiting for \(what) (a deadlock or a hang; "
            + "SMSFILTER_DEADLINE_SCALE multiplies the limit)"
    }
}

/// The result of a deadline thread, handed over once under a semaphore.
private final class _Slot<T>: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: Result<T, Error>?

    func finish(_ value: Result<T, Error>) {
        lock.lock()
        result = value
        lock.unlock()
        done.signal()
    }

    func take() -> Result<T, Error> {
        lock.lock()
        defer { lock.unlock() }
        return result!
    }
}

/// Carries a non-Sendable closure to the deadline thread. Sound because the caller waits for the thread (or
/// gives up on it and never touches the closure's captures again).
private struct _Unchecked<T>: @unchecked Sendable {
    let value: () throws -> T
    init(_ value: @escaping () throws -> T) { self.value = value }
}
