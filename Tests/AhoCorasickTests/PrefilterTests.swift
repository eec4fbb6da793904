import AhoCorasick
import TestSupport
import XCTest

/// The Teddy prefilter on every SIMD kernel this CPU has (and the scalar one), against the naive
/// matcher: a candidate may never be a false negative, whatever the block boundaries.
final class PrefilterTests: XCTestCase {
    override func tearDown() {
        AhoCorasick._forcePrefilterKernel(nil)
        super.tearDown()
    }

    /// The kernels to run: the scalar loop and every one the CPU has (forcing one it lacks is ignored).
    var kernels: [String] {
        let best = AhoCorasick._forcePrefilterKernel(nil)
        var names = ["scalar"]
        if best == "ssse3" || best == "avx2" { names.append("ssse3") }
        if best == "avx2" { names.append("avx2") }
        if best == "neon" { names.append("neon") }
        return names
    }

    func testKernelsAgainstOracle() throws {
        let seed: UInt64 = 0x7EDD_0001
        print("PrefilterTests seed \(seed), kernels \(kernels)")
        var rng = Fixtures.SeededGenerator(seed: seed)
        // Letters of both cases, and bytes that differ from a letter only in bit 5 (`@` and a backquote,
        // `[` and `{`), so the case-bit masking is exercised both ways.
        let alphabet: [UInt8] = Array("abcxyzABCXYZ@`[{ 0".utf8) + [0xC3, 0xA9, 0xE0, 0xB8]
        for round in 0..<60 {
            let patterns = (0..<Int.random(in: 1...40, using: &rng)).map { _ in
                Pattern((0..<Int.random(in: 1...5, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            }
            // Long haystacks (up to 300 bytes) so matches fall in every position of 16- and 32-byte blocks,
            // including the last bytes (the kernels never read past the end: AddressSanitizer in the fuzzer).
            let haystacks = (0..<4).map { _ in
                (0..<Int.random(in: 0...300, using: &rng)).map { _ in
                    Int.random(in: 0..<8, using: &rng) == 0 ? alphabet.randomElement(using: &rng)! : UInt8(ascii: "-")
                }
            }
            for folding in [CaseFolding.none, .ascii] {
                for kind in [MatchKind.standard, .leftmostFirst] {
                    var builder = AhoCorasickBuilder()
                    builder.caseFolding = folding
                    builder.matchKind = kind
                    let ac = try builder.build(patterns)
                    let oracle = NaiveMatcher(patterns, matchKind: kind, caseFolding: folding)
                    for kernel in kernels {
                        AhoCorasick._forcePrefilterKernel(kernel)
                        for haystack in haystacks {
                            XCTAssertEqual(
                                ac.matches(in: haystack), oracle.matches(in: haystack),
                                "round \(round) \(folding) \(kind) \(kernel) hasPrefilter=\(ac.hasPrefilter) haystack \(haystack)")
                        }
                        // Batches: a span that ends at the buffer's end, empty spans, overlapping spans.
                        let buffer = haystacks.joined(separator: [0x2D]).map { $0 }
                        let spans = [0..<buffer.count, 0..<0, (buffer.count / 3)..<buffer.count, 0..<(buffer.count / 2)]
                        var batch = [[Match]](repeating: [], count: spans.count)
                        buffer.withUnsafeBytes { raw in
                            spans.withUnsafeBufferPointer { s in
                                ac.forEachMatch(in: raw, spans: s) { k, match in batch[k].append(match) }
                            }
                        }
                        for (k, span) in spans.enumerated() {
                            XCTAssertEqual(batch[k], oracle.matches(in: Array(buffer[span])), "round \(round) \(kernel) span \(k)")
                        }
                    }
                }
            }
        }
    }

    /// Many spans, most without a candidate: the batch skips them, and reports exactly what single scans do.
    func testBatchSkipsSpansWithoutCandidates() throws {
        var builder = AhoCorasickBuilder()
        builder.caseFolding = .ascii
        let ac = try builder.build(["debited", "otp", "a/c"])
        XCTAssertTrue(ac.hasPrefilter)
        var buffer: [UInt8] = []
        var spans: [Range<Int>] = []
        for k in 0..<500 {
            let body = k % 7 == 0 ? "your A/C was DEBITED, OTP \(k)" : "hello there, meeting at \(k) tomorrow"
            spans.append(buffer.count..<buffer.count + body.utf8.count)
            buffer += Array(body.utf8)
        }
        for kernel in kernels {
            AhoCorasick._forcePrefilterKernel(kernel)
            var batch = [[Match]](repeating: [], count: spans.count)
            buffer.withUnsafeBytes { raw in
                spans.withUnsafeBufferPointer { s in ac.forEachMatch(in: raw, spans: s) { k, m in batch[k].append(m) } }
            }
            for (k, span) in spans.enumerated() {
                XCTAssertEqual(batch[k], ac.matches(in: Array(buffer[span])), "\(kernel) span \(k)")
                XCTAssertEqual(batch[k].count, k % 7 == 0 ? 3 : 0)
            }
        }
    }
}
