// The Teddy prefilter: where in a haystack the first match can start, found with SIMD nibble shuffles.
//
// How Swift reaches the instructions: a small C target (`CAhoCorasickSIMD`, like `CZstd` a C boundary)
// with one kernel per instruction set, each compiled with a `target` attribute and picked once per
// process by CPUID (AVX2, else SSSE3; NEON on ARM64; else a scalar loop). Chosen by measurement
// (callgrind instructions of a 16-byte nibble look-up loop over 10 MiB; docs/PERFORMANCE.md, "Engines and prefilter"):
//   - the clang `_Builtin_intrinsics.intel` module from Swift: 19.7 M instructions (1.9 per byte), the
//     same `pshufb` loop as C, but only when the whole module is built with `-Xcc -mssse3`; without it
//     the compiler crashes ("Cannot select X86ISD::PSHUFB"), and Swift has no per-function target
//     attribute, so there can be no runtime fallback for CPUs without the feature;
//   - Swift `SIMD16<UInt8>` with the table look-up written per lane (Swift's SIMD types have no dynamic
//     byte shuffle): 70.8 M instructions (6.8 per byte), 3.6× the intrinsics;
//   - C with `__attribute__((target("ssse3")))` / `"avx2"`: the intrinsics' code, in a baseline x86-64
//     build, with runtime dispatch. So C.
//
// The ARM64 NEON kernel cannot run here (x86-64); `Scripts/check-simd.sh` (run by `make test`)
// type-checks it with `clang --target=arm64-apple-macos13 -fsyntax-only`, and the scalar kernel it
// shares its verification with is tested on every platform.

import CAhoCorasickSIMD

/// The prefilter section inside a validated image (layout: `aho_simd.h`).
///
/// `@unchecked Sendable`: a pointer into immutable image memory that the automaton keeps alive.
struct _TeddyTables: @unchecked Sendable {
    let section: UnsafePointer<UInt8>

    /// The offset of the first place in `p[0..<n]` where a pattern's first bytes (4 at most) may occur,
    /// or `n`: no match starts before it.
    @inline(__always)
    func firstCandidate(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        Int(aho_teddy_first(p, n, section))
    }

    /// The section's size.
    static let size = Int(AHO_TEDDY_SIZE)

    /// Checks the section at `at` of `raw` (within `raw` by the layout check). Every value of the
    /// nibble tables and the hash set is safe; only the header matters for memory safety.
    static func validate(_ raw: UnsafeRawBufferPointer, _ at: Int) throws -> _TeddyTables {
        func u32(_ offset: Int) -> UInt32 { UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + offset, as: UInt32.self)) }
        guard (1...3).contains(u32(0)), u32(4) <= 1, u32(8) & ~0b11110 == 0, u32(8) != 0, u32(12) == 0 else {
            throw AhoCorasickLoadError(.corrupt("Teddy prefilter header"))
        }
        return _TeddyTables(section: (raw.baseAddress! + at).assumingMemoryBound(to: UInt8.self))
    }
}

/// Builds the Teddy section for `patterns` (already case-folded), or nil when Teddy does not apply: no
/// patterns, or more than 64 distinct fingerprints (8 buckets of up to 8; past that nearly every offset
/// is a candidate).
///
/// Fingerprints are the first m bytes (m = the shortest pattern's length, at most 3), grouped in 8
/// buckets by sorted order so that fingerprints sharing leading bytes share a bucket and the AND across
/// positions keeps its selectivity. The hash set holds every pattern's first min(length, 4) bytes, which
/// the kernels look candidates up in.
func _teddySection(_ patterns: [[UInt8]], foldCaseBit: Bool) -> [UInt8]? {
    guard let shortest = patterns.map(\.count).min(), shortest >= 1 else { return nil }
    let m = min(3, shortest)
    let or: UInt8 = foldCaseBit ? 0x20 : 0
    let fingerprints = Set(patterns.map { $0.prefix(m).map { $0 | or } }).sorted { $0.lexicographicallyPrecedes($1) }
    guard fingerprints.count <= 64 else { return nil }
    var section = [UInt8](repeating: 0, count: _TeddyTables.size)
    func put32(_ offset: Int, _ v: UInt32) { for k in 0..<4 { section[offset + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) } }
    var lengths: UInt32 = 0
    for pattern in patterns {
        let prefix = pattern.prefix(4).map { $0 | or }
        var key: UInt64 = 0
        for (k, byte) in prefix.enumerated() { key |= UInt64(byte) << (8 * UInt64(k)) }
        let h = Int(aho_teddy_hash(key, UInt32(prefix.count)))
        section[112 + h >> 3] |= UInt8(1) << UInt8(h & 7)
        lengths |= 1 << UInt32(prefix.count)
    }
    put32(0, UInt32(m))
    put32(4, foldCaseBit ? 1 : 0)
    put32(8, lengths)
    for k in m..<3 {
        for i in 0..<32 { section[16 + 32 * k + i] = 0xFF }
    }
    for (index, fingerprint) in fingerprints.enumerated() {
        let bit = UInt8(1) << UInt8(index * 8 / fingerprints.count)
        for k in 0..<m {
            let b = fingerprint[k]
            section[16 + 32 * k + Int(b & 15)] |= bit
            section[16 + 32 * k + 16 + Int(b >> 4)] |= bit
        }
    }
    return section
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
