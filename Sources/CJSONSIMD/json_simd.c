// The JSON string scan: per 16 or 32 bytes, three vector compares (quote, backslash, at most 0x1F) ORed
// into one byte mask whose first set bit is the end of the fast path; the bytes' top bits (movemask) say
// whether any byte >= 0x80 came before it. A block that would run past the end is loaded so that it ends
// at the last byte (it overlaps bytes already seen, which hold no structural byte; their bits are masked
// off), so no byte outside the span is read and no scalar tail is needed past 16 bytes.
//
// Dispatch: x86-64 always has SSE2; AVX2 is checked with CPUID (and XGETBV for the AVX register state)
// once, and its kernel is compiled with a target attribute, so the rest of the package keeps the baseline
// ISA. ARM64 always has NEON. Other CPUs use the scalar loop.
#include "json_simd.h"

#if defined(__x86_64__) || defined(_M_X64)
#define JSON_X86 1
#include <cpuid.h>
#include <immintrin.h>
#elif defined(__aarch64__) || defined(_M_ARM64)
#define JSON_NEON 1
#include <arm_neon.h>
#endif

static inline int structural(uint8_t c) { return c == '"' || c == '\\' || c < 0x20; }

uint64_t json_scan_string_scalar(const uint8_t *p, size_t n) {
    uint8_t high = 0;
    for (size_t i = 0; i < n; i++) {
        if (structural(p[i])) return i | (high & 0x80 ? JSON_SCAN_HIGH_BIT : 0);
        high |= p[i];
    }
    return n | (high & 0x80 ? JSON_SCAN_HIGH_BIT : 0);
}

#if JSON_X86
/// The answer once a block at `i` has a structural byte at bit `k` of `mask`; `high` holds the top bits of
/// the bytes before the block, `h` those of the block.
static inline uint64_t found(size_t i, uint32_t k, uint64_t high, uint64_t h) {
    uint64_t before = k ? h & ((1ull << k) - 1) : 0;
    return (i + k) | ((high | before) ? JSON_SCAN_HIGH_BIT : 0);
}

static uint64_t scan_sse2(const uint8_t *p, size_t n) {
    if (n < 16) return json_scan_string_scalar(p, n);
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), c1f = _mm_set1_epi8(0x1F);
    uint64_t high = 0;
    size_t i = 0;
    for (;;) {
        // The last block ends at the last byte; `skip` bytes at its start were seen already.
        size_t at = i + 16 <= n ? i : n - 16;
        uint32_t skip = (uint32_t)(i - at);
        __m128i v = _mm_loadu_si128((const __m128i *)(p + at));
        __m128i s = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                 _mm_cmpeq_epi8(_mm_max_epu8(v, c1f), c1f));
        uint32_t m = ((uint32_t)_mm_movemask_epi8(s) >> skip) << skip;
        uint32_t h = ((uint32_t)_mm_movemask_epi8(v) >> skip) << skip;
        if (m) return found(at, (uint32_t)__builtin_ctz(m), high, h);
        high |= h;
        if (at + 16 == n) return n | (high ? JSON_SCAN_HIGH_BIT : 0);
        i = at + 16;
    }
}

__attribute__((target("avx2")))
static uint64_t scan_avx2(const uint8_t *p, size_t n) {
    if (n < 32) return scan_sse2(p, n);
    const __m256i quote = _mm256_set1_epi8('"'), backslash = _mm256_set1_epi8('\\'), c1f = _mm256_set1_epi8(0x1F);
    uint64_t high = 0;
    size_t i = 0;
    for (;;) {
        size_t at = i + 32 <= n ? i : n - 32;
        uint32_t skip = (uint32_t)(i - at);
        __m256i v = _mm256_loadu_si256((const __m256i *)(p + at));
        __m256i s = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, backslash)),
                                    _mm256_cmpeq_epi8(_mm256_max_epu8(v, c1f), c1f));
        // skip < 32: the shifts are defined.
        uint32_t m = ((uint32_t)_mm256_movemask_epi8(s) >> skip) << skip;
        uint32_t h = ((uint32_t)_mm256_movemask_epi8(v) >> skip) << skip;
        if (m) return found(at, (uint32_t)__builtin_ctz(m), high, h);
        high |= h;
        if (at + 32 == n) return n | (high ? JSON_SCAN_HIGH_BIT : 0);
        i = at + 32;
    }
}

static int cpu_kernel(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 1;
    int osxsave = (c >> 27) & 1;
    int avx = (c >> 28) & 1;
    int avx2 = 0;
    if (osxsave && avx) {
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        (void)hi;
        if ((lo & 6) == 6 && __get_cpuid_count(7, 0, &a, &b, &c, &d)) avx2 = (b >> 5) & 1;
    }
    return avx2 ? 2 : 1;
}
#endif

#if JSON_NEON
/// One bit per byte of a 0x00/0xFF mask, in 4-bit groups: byte k is bits 4k..4k+3 (the `shrn` narrowing).
static inline uint64_t neon_mask(uint8x16_t m) {
    return vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(m), 4)), 0);
}

static uint64_t scan_neon(const uint8_t *p, size_t n) {
    if (n < 16) return json_scan_string_scalar(p, n);
    const uint8x16_t quote = vdupq_n_u8('"'), backslash = vdupq_n_u8('\\'), c1f = vdupq_n_u8(0x1F);
    uint64_t high = 0;
    size_t i = 0;
    for (;;) {
        size_t at = i + 16 <= n ? i : n - 16;
        uint32_t skip = (uint32_t)(i - at) * 4;
        uint8x16_t v = vld1q_u8(p + at);
        uint8x16_t s = vorrq_u8(vorrq_u8(vceqq_u8(v, quote), vceqq_u8(v, backslash)), vcleq_u8(v, c1f));
        uint64_t m = neon_mask(s), h = neon_mask(vcltzq_s8(vreinterpretq_s8_u8(v)));
        // skip < 64: the shifts are defined.
        m = (m >> skip) << skip;
        h = (h >> skip) << skip;
        if (m) {
            uint32_t bit = (uint32_t)__builtin_ctzll(m);
            uint64_t before = bit ? h & ((1ull << bit) - 1) : 0;
            return (at + bit / 4) | ((high | before) ? JSON_SCAN_HIGH_BIT : 0);
        }
        high |= h;
        if (at + 16 == n) return n | (high ? JSON_SCAN_HIGH_BIT : 0);
        i = at + 16;
    }
}
#endif

// 0 scalar, 1 SSE2, 2 AVX2, 3 NEON; -1 not yet decided. Relaxed atomics: every thread that finds -1
// computes the same value.
static int chosen = -1;

static int detect(void) {
#if JSON_X86
    return cpu_kernel();
#elif JSON_NEON
    return 3;
#else
    return 0;
#endif
}

int json_simd_kernel(void) {
    int k = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
    if (k < 0) {
        k = detect();
        __atomic_store_n(&chosen, k, __ATOMIC_RELAXED);
    }
    return k;
}

int json_simd_force_kernel(int kernel) {
    int best = detect();
    int k = json_simd_kernel();
    if (kernel < 0) {
        k = best;
    } else if (kernel == 0) {
        k = 0;
    } else if (kernel == 3 && best == 3) {
        k = 3;
    } else if (kernel <= 2 && best <= 2 && kernel <= best) {
        k = kernel;
    }
    __atomic_store_n(&chosen, k, __ATOMIC_RELAXED);
    return k;
}

uint64_t json_scan_string(const uint8_t *p, size_t n) {
    switch (json_simd_kernel()) {
#if JSON_X86
    case 2: return scan_avx2(p, n);
    case 1: return scan_sse2(p, n);
#endif
#if JSON_NEON
    case 3: return scan_neon(p, n);
#endif
    default: return json_scan_string_scalar(p, n);
    }
}
