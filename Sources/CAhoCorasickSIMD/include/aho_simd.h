// SIMD kernels for AhoCorasick (a C boundary, like CZstd: Swift reaches pshufb/vpshufb/tbl here).
//
// Freestanding: only the compiler's own headers (stdint.h, stddef.h, the intrinsics headers), so the
// file builds for every platform the package does, with the x86-64 and ARM paths selected by #if.
#ifndef AHO_SIMD_H
#define AHO_SIMD_H

#include <stddef.h>
#include <stdint.h>

/// The Teddy section of a serialized automaton (little-endian), validated by the Swift loader:
///
///     0    u32  fingerprint length m (1…3)
///     4    u32  flags: bit 0 = OR 0x20 into haystack bytes first (ASCII case folding)
///     8    u32  prefix lengths present: bit L (1…4) set when some pattern's first min(length, 4) bytes
///               are L bytes long
///     12   u32  0
///     16   96   3 positions × (16 low-nibble bytes, 16 high-nibble bytes) of bucket bits; positions k >= m
///               are all-ones
///     112  4096 a 32,768-bit set of prefix hashes: bit aho_teddy_hash(L, first L bytes) for each pattern,
///               L = min(length, 4), bytes ORed like the haystack
#define AHO_TEDDY_SIZE 4208
#define AHO_TEDDY_HASH_BITS 15

/// The hash of a prefix of `length` (1…4) bytes packed little-endian in `key` (no other bits set).
static inline uint32_t aho_teddy_hash(uint64_t key, uint32_t length) {
    return (uint32_t)(((key | (uint64_t)length << 32) * 0x9E3779B97F4A7C15ull) >> (64 - AHO_TEDDY_HASH_BITS));
}

/// The offset of the first place in p[0..<n] where some entry matches (with the fold ORed in), or n.
///
/// A candidate is an offset j <= n - m where, for some bucket bit, every fingerprint position k < m has
/// the bit set in lo[k][p[j+k] & 15] & hi[k][p[j+k] >> 4]; each candidate is then looked up in the
/// prefix hash set for every length present. Every pattern's prefix is in the set, so no match starts
/// before the offset returned (the set may answer yes for a few other offsets: then a match may start
/// later, never earlier).
///
/// Never reads outside p[0..<n]. Dispatches once per process to AVX2, SSSE3 or NEON, else scalar.
size_t aho_teddy_first(const uint8_t *p, size_t n, const uint8_t *section);

/// The same with the scalar loop only (for tests and measurements).
size_t aho_teddy_first_scalar(const uint8_t *p, size_t n, const uint8_t *section);

/// Which kernel `aho_teddy_first` uses: 0 scalar, 1 SSSE3, 2 AVX2, 3 NEON.
int aho_teddy_kernel(void);

/// Forces a kernel (0 scalar, 1 SSSE3, 2 AVX2, 3 NEON) when the CPU has it; -1 restores automatic
/// choice. For tests and measurements. Returns the kernel now in use.
int aho_teddy_force_kernel(int kernel);

#endif
