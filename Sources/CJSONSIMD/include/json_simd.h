// SIMD kernels for BatchPipeline's JSON Lines scanner (a C boundary, like CAhoCorasickSIMD: Swift reaches
// the vector compares and byte masks here, with runtime CPU dispatch).
//
// Freestanding: only the compiler's own headers, so the file builds for every platform the package does,
// with the x86-64 and ARM paths selected by #if.
#ifndef JSON_SIMD_H
#define JSON_SIMD_H

#include <stddef.h>
#include <stdint.h>

/// The bit of a `json_scan_string` result that says a byte >= 0x80 came before the offset.
#define JSON_SCAN_HIGH_BIT (1ull << 63)

/// Scans p[0..<n] for the first byte that ends the fast path of a JSON string: a quote, a backslash or a
/// control byte (below 0x20). Returns its offset (n when there is none), with JSON_SCAN_HIGH_BIT set when
/// some byte of 0x80 or above comes before that offset (its UTF-8 must then be validated).
///
/// Never reads outside p[0..<n]. Dispatches once per process to AVX2, SSSE3 or NEON, else a scalar loop.
uint64_t json_scan_string(const uint8_t *p, size_t n);

/// The same with the scalar loop only (for tests and measurements).
uint64_t json_scan_string_scalar(const uint8_t *p, size_t n);

/// 1 when p[0..<n] is well-formed UTF-8 (Unicode Table 3-7: no overlong forms, no surrogates, nothing past
/// U+10FFFF, no sequence cut short), else 0. Never reads outside p[0..<n]; same dispatch.
int json_utf8_valid(const uint8_t *p, size_t n);

/// The same with the scalar loop only (for tests and measurements).
int json_utf8_valid_scalar(const uint8_t *p, size_t n);

/// Which kernels `json_scan_string` and `json_utf8_valid` use: 0 scalar, 1 SSSE3, 2 AVX2, 3 NEON.
int json_simd_kernel(void);

/// Forces a kernel (0 scalar, 1 SSSE3, 2 AVX2, 3 NEON) when the CPU has it; -1 restores the automatic choice.
/// For tests and measurements. Returns the kernel now in use.
int json_simd_force_kernel(int kernel);

#endif
