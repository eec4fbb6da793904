// SIMD kernels for AhoCorasick (a C boundary, like CZstd: Swift reaches pshufb/vpshufb/tbl here).
//
// Freestanding: only the compiler's own headers (stdint.h, stddef.h, the intrinsics headers), so the
// file builds for every platform the package does, with the x86-64 and ARM paths selected by #if.
#ifndef AHO_SIMD_H
#define AHO_SIMD_H

#include <stddef.h>
#include <stdint.h>

/// The offset of the first Teddy candidate in p[0..<n], or n when there is none.
///
/// A candidate is an offset j <= n - m where, for some bucket bit, every fingerprint position k < m has
/// the bit set in lo[k][p[j+k] & 15] & hi[k][p[j+k] >> 4]. `masks` holds 3 positions × (16 low-nibble
/// bytes, 16 high-nibble bytes); positions k >= m must be all-ones. With `fold_case_bit`, 0x20 is ORed
/// into every haystack byte first (the tables were built from bytes ORed the same way).
///
/// Never reads outside p[0..<n]. Dispatches once per process to AVX2, SSSE3 or NEON, else scalar.
size_t aho_teddy_first(const uint8_t *p, size_t n, const uint8_t *masks, int m, int fold_case_bit);

/// The same with the scalar loop only (for tests and measurements).
size_t aho_teddy_first_scalar(const uint8_t *p, size_t n, const uint8_t *masks, int m, int fold_case_bit);

/// Which kernel `aho_teddy_first` uses: 0 scalar, 1 SSSE3, 2 AVX2, 3 NEON.
int aho_teddy_kernel(void);

/// Forces a kernel (0 scalar, 1 SSSE3, 2 AVX2, 3 NEON) when the CPU has it; -1 restores automatic
/// choice. For tests and measurements. Returns the kernel now in use.
int aho_teddy_force_kernel(int kernel);

#endif
