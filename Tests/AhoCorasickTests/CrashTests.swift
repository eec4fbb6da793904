import AhoCorasick
import Testing

/// Misuse traps (STYLE practice 9): checked in a child process with Swift Testing's exit tests, each
/// with a time limit (Swift Testing enforces `.timeLimit`; XCTest on Linux would not).
@Suite struct CrashTests {
    @Test(.timeLimit(.minutes(2))) func batchSpanOutsideTheBufferTraps() async {
        await #expect(processExitsWith: .failure) {
            let ac = try AhoCorasickBuilder().build(["a"])
            let buffer: [UInt8] = Array("aaaa".utf8)
            let spans = [0..<2, 3..<9]
            buffer.withUnsafeBytes { raw in
                spans.withUnsafeBufferPointer { s in ac.forEachMatch(in: raw, spans: s) { _, _ in } }
            }
        }
    }

    @Test(.timeLimit(.minutes(2))) func batchSpansWithinTheBufferDoNotTrap() async {
        await #expect(processExitsWith: .success) {
            let ac = try AhoCorasickBuilder().build(["a"])
            let buffer: [UInt8] = Array("aaaa".utf8)
            let spans = [0..<2, 3..<4]
            buffer.withUnsafeBytes { raw in
                spans.withUnsafeBufferPointer { s in ac.forEachMatch(in: raw, spans: s) { _, _ in } }
            }
        }
    }
}
