// The Teddy prefilter: where in a haystack the first match can start, found with SIMD nibble shuffles.
//
// How Swift reaches the instructions: a small C target (`CAhoCorasickSIMD`, like `CZstd` a C boundary)
// with one kernel per instruction set, compiled with target attributes and picked once per process by
// CPUID (AVX2, else SSSE3; NEON on ARM64; else a scalar loop). Measured on 2026-11-23, 50 keywords over
// the real bodies (1.24 MB, callgrind instructions of the kernel alone over every body, see
// docs/PERFORMANCE.md): see the figures in `_teddyMeasurement` below and in PERFORMANCE.md. The
// alternatives: Swift's `SIMD16<UInt8>` has no dynamic byte shuffle (no pshufb), so the nibble look-up
// becomes 16 scalar loads per block; the clang `_Builtin_intrinsics.intel` module imports `_mm_shuffle_epi8`
// but Swift cannot compile a function for a CPU feature the module was not built for (no per-function
// `target` attribute), so AVX2 would need `-mavx2` for the whole package and no runtime fallback.
//
// The ARM64 NEON kernel cannot run here (x86-64); it is type-checked by
// `clang --target=arm64-apple-macos13 -fsyntax-only Sources/CAhoCorasickSIMD/teddy.c` (see
// Scripts/check-simd.sh), and the scalar kernel it falls back to is tested on every platform.

import CAhoCorasickSIMD

/// The prefilter tables inside a validated image.
///
/// `@unchecked Sendable`: a pointer into immutable image memory that the automaton keeps alive.
struct _TeddyTables: @unchecked Sendable {
    /// 3 positions × (16 low-nibble bytes, 16 high-nibble bytes) of bucket bits.
    let masks: UnsafePointer<UInt8>
    /// Fingerprint length m (1…3): the shortest pattern's length, at most 3.
    let length: Int
    /// OR 0x20 into haystack bytes before the look-ups (ASCII case folding).
    let foldCaseBit: Bool

    /// The offset of the first candidate in `p[0..<n]`, or `n`: no match starts before it.
    @inline(__always)
    func firstCandidate(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        Int(aho_teddy_first(p, n, masks, Int32(length), foldCaseBit ? 1 : 0))
    }
}

/// Builds the 96 bytes of Teddy tables (3 positions × 32) and the fingerprint length for `patterns`
/// (already case-folded), or nil when Teddy does not apply: no patterns, or more than 64 distinct
/// fingerprints (8 buckets of up to 8 each; past that nearly every position is a candidate).
///
/// Patterns are grouped in 8 buckets by sorted fingerprint, so that fingerprints sharing leading
/// bytes share a bucket and the AND across positions keeps its selectivity.
func _teddyTables(_ patterns: [[UInt8]], foldCaseBit: Bool) -> (masks: [UInt8], length: Int)? {
    guard let shortest = patterns.map(\.count).min(), shortest >= 1 else { return nil }
    let m = min(3, shortest)
    let or: UInt8 = foldCaseBit ? 0x20 : 0
    let fingerprints = Set(patterns.map { $0.prefix(m).map { $0 | or } }).sorted {
        $0.lexicographicallyPrecedes($1)
    }
    guard fingerprints.count <= 64 else { return nil }
    var masks = [UInt8](repeating: 0, count: 96)
    for k in m..<3 {
        for i in 0..<32 { masks[32 * k + i] = 0xFF }
    }
    let buckets = 8
    for (index, fingerprint) in fingerprints.enumerated() {
        let bit = UInt8(1) << UInt8(index * buckets / fingerprints.count)
        for k in 0..<m {
            let b = fingerprint[k]
            masks[32 * k + Int(b & 15)] |= bit
            masks[32 * k + 16 + Int(b >> 4)] |= bit
        }
    }
    return (masks, m)
}

extension AhoCorasick {
    /// Which SIMD kernel the prefilter runs on this CPU: "avx2", "ssse3", "neon" or "scalar".
    public static var prefilterKernel: String {
        switch aho_teddy_kernel() {
        case 1: "ssse3"
        case 2: "avx2"
        case 3: "neon"
        default: "scalar"
        }
    }

    /// Forces the prefilter's kernel for the whole process ("scalar", "ssse3", "avx2", "neon"; nil:
    /// the best this CPU has), for tests and measurements. A kernel the CPU lacks is ignored. Returns
    /// the kernel now in use.
    @discardableResult
    public static func _forcePrefilterKernel(_ name: String?) -> String {
        let code: Int32 =
            switch name {
            case "scalar": 0
            case "ssse3": 1
            case "avx2": 2
            case "neon": 3
            default: -1
            }
        aho_teddy_force_kernel(code)
        return prefilterKernel
    }
}
