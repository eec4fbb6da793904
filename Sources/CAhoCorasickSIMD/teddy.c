// Teddy (Hyperscan's literal matcher, as in Rust's aho-corasick crate): per 16/32-byte block, two
// nibble table look-ups (pshufb / vpshufb / tbl) per fingerprint position give each byte's bucket bits;
// ANDing the positions' bits (the second and third shifted by loading at +1 and +2) leaves a bit set
// exactly where some bucket's patterns may start. Candidates are a superset of match starts: never a
// false negative, so a caller may skip everything before the first one.
//
// Dispatch: x86-64 checks CPUID (and XGETBV for AVX2's register state) once; each kernel is compiled
// with a target attribute, so the rest of the package keeps the baseline x86-64 ISA. ARM64 always has
// NEON. Other CPUs use the scalar loop.
#include "aho_simd.h"

#if defined(__x86_64__) || defined(_M_X64)
#define AHO_X86 1
#include <cpuid.h>
#include <immintrin.h>
#elif defined(__aarch64__) || defined(_M_ARM64)
#define AHO_NEON 1
#include <arm_neon.h>
#endif

static inline int candidate_at(const uint8_t *p, size_t j, const uint8_t *masks, int m, uint8_t orbits) {
    uint8_t bits = 0xFF;
    for (int k = 0; k < m; k++) {
        uint8_t b = (uint8_t)(p[j + (size_t)k] | orbits);
        bits &= masks[32 * k + (b & 15)] & masks[32 * k + 16 + (b >> 4)];
    }
    return bits != 0;
}

size_t aho_teddy_first_scalar(const uint8_t *p, size_t n, const uint8_t *masks, int m, int fold_case_bit) {
    if (n < (size_t)m) return n;
    uint8_t orbits = fold_case_bit ? 0x20 : 0;
    for (size_t j = 0; j + (size_t)m <= n; j++) {
        if (candidate_at(p, j, masks, m, orbits)) return j;
    }
    return n;
}

/// The scalar check of offsets from..<n - m + 1 (the tail after the vector blocks).
static size_t tail(const uint8_t *p, size_t from, size_t n, const uint8_t *masks, int m, int fold_case_bit) {
    if (n < (size_t)m) return n;
    uint8_t orbits = fold_case_bit ? 0x20 : 0;
    for (size_t j = from; j + (size_t)m <= n; j++) {
        if (candidate_at(p, j, masks, m, orbits)) return j;
    }
    return n;
}

#if AHO_X86
__attribute__((target("ssse3")))
static size_t teddy_ssse3(const uint8_t *p, size_t n, const uint8_t *masks, int m, int fold_case_bit) {
    const __m128i nib = _mm_set1_epi8(0x0F);
    const __m128i orbits = _mm_set1_epi8(fold_case_bit ? 0x20 : 0);
    const __m128i lo0 = _mm_loadu_si128((const __m128i *)(masks + 0)), hi0 = _mm_loadu_si128((const __m128i *)(masks + 16));
    const __m128i lo1 = _mm_loadu_si128((const __m128i *)(masks + 32)), hi1 = _mm_loadu_si128((const __m128i *)(masks + 48));
    const __m128i lo2 = _mm_loadu_si128((const __m128i *)(masks + 64)), hi2 = _mm_loadu_si128((const __m128i *)(masks + 80));
    const __m128i zero = _mm_setzero_si128();
    size_t i = 0;
    // Blocks read p[i ..< i + 18]: the bytes of 16 offsets and the two after the last.
    while (i + 18 <= n) {
        __m128i v0 = _mm_or_si128(_mm_loadu_si128((const __m128i *)(p + i)), orbits);
        __m128i v1 = _mm_or_si128(_mm_loadu_si128((const __m128i *)(p + i + 1)), orbits);
        __m128i v2 = _mm_or_si128(_mm_loadu_si128((const __m128i *)(p + i + 2)), orbits);
        __m128i r = _mm_and_si128(_mm_shuffle_epi8(lo0, _mm_and_si128(v0, nib)),
                                  _mm_shuffle_epi8(hi0, _mm_and_si128(_mm_srli_epi16(v0, 4), nib)));
        r = _mm_and_si128(r, _mm_and_si128(_mm_shuffle_epi8(lo1, _mm_and_si128(v1, nib)),
                                           _mm_shuffle_epi8(hi1, _mm_and_si128(_mm_srli_epi16(v1, 4), nib))));
        r = _mm_and_si128(r, _mm_and_si128(_mm_shuffle_epi8(lo2, _mm_and_si128(v2, nib)),
                                           _mm_shuffle_epi8(hi2, _mm_and_si128(_mm_srli_epi16(v2, 4), nib))));
        unsigned bits = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(r, zero)) ^ 0xFFFFu;
        if (bits) {
            size_t j = i + (size_t)__builtin_ctz(bits);
            // A candidate past n - m cannot hold a whole pattern (m <= every pattern's length).
            return j + (size_t)m <= n ? j : n;
        }
        i += 16;
    }
    return tail(p, i, n, masks, m, fold_case_bit);
}

__attribute__((target("avx2")))
static size_t teddy_avx2(const uint8_t *p, size_t n, const uint8_t *masks, int m, int fold_case_bit) {
    const __m256i nib = _mm256_set1_epi8(0x0F);
    const __m256i orbits = _mm256_set1_epi8(fold_case_bit ? 0x20 : 0);
    const __m256i lo0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(masks + 0)));
    const __m256i hi0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(masks + 16)));
    const __m256i lo1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(masks + 32)));
    const __m256i hi1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(masks + 48)));
    const __m256i lo2 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(masks + 64)));
    const __m256i hi2 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(masks + 80)));
    const __m256i zero = _mm256_setzero_si256();
    size_t i = 0;
    // Blocks read p[i ..< i + 34].
    while (i + 34 <= n) {
        __m256i v0 = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(p + i)), orbits);
        __m256i v1 = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(p + i + 1)), orbits);
        __m256i v2 = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(p + i + 2)), orbits);
        __m256i r = _mm256_and_si256(_mm256_shuffle_epi8(lo0, _mm256_and_si256(v0, nib)),
                                     _mm256_shuffle_epi8(hi0, _mm256_and_si256(_mm256_srli_epi16(v0, 4), nib)));
        r = _mm256_and_si256(r, _mm256_and_si256(_mm256_shuffle_epi8(lo1, _mm256_and_si256(v1, nib)),
                                                 _mm256_shuffle_epi8(hi1, _mm256_and_si256(_mm256_srli_epi16(v1, 4), nib))));
        r = _mm256_and_si256(r, _mm256_and_si256(_mm256_shuffle_epi8(lo2, _mm256_and_si256(v2, nib)),
                                                 _mm256_shuffle_epi8(hi2, _mm256_and_si256(_mm256_srli_epi16(v2, 4), nib))));
        unsigned bits = ~(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(r, zero));
        if (bits) {
            size_t j = i + (size_t)__builtin_ctz(bits);
            return j + (size_t)m <= n ? j : n;
        }
        i += 32;
    }
    // One 16-byte block may still fit before the scalar tail.
    if (i + 18 <= n) {
        size_t j = teddy_ssse3(p + i, n - i, masks, m, fold_case_bit);
        return j == n - i ? n : i + j;
    }
    return tail(p, i, n, masks, m, fold_case_bit);
}

static int cpu_kernel(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int ssse3 = (c >> 9) & 1;
    int osxsave = (c >> 27) & 1;
    int avx = (c >> 28) & 1;
    int avx2 = 0;
    if (osxsave && avx) {
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        (void)hi;
        if ((lo & 6) == 6 && __get_cpuid_count(7, 0, &a, &b, &c, &d)) avx2 = (b >> 5) & 1;
    }
    return avx2 ? 2 : ssse3 ? 1 : 0;
}
#endif

#if AHO_NEON
static size_t teddy_neon(const uint8_t *p, size_t n, const uint8_t *masks, int m, int fold_case_bit) {
    const uint8x16_t nib = vdupq_n_u8(0x0F);
    const uint8x16_t orbits = vdupq_n_u8(fold_case_bit ? 0x20 : 0);
    const uint8x16_t lo0 = vld1q_u8(masks + 0), hi0 = vld1q_u8(masks + 16);
    const uint8x16_t lo1 = vld1q_u8(masks + 32), hi1 = vld1q_u8(masks + 48);
    const uint8x16_t lo2 = vld1q_u8(masks + 64), hi2 = vld1q_u8(masks + 80);
    size_t i = 0;
    while (i + 18 <= n) {
        uint8x16_t v0 = vorrq_u8(vld1q_u8(p + i), orbits);
        uint8x16_t v1 = vorrq_u8(vld1q_u8(p + i + 1), orbits);
        uint8x16_t v2 = vorrq_u8(vld1q_u8(p + i + 2), orbits);
        uint8x16_t r = vandq_u8(vqtbl1q_u8(lo0, vandq_u8(v0, nib)), vqtbl1q_u8(hi0, vshrq_n_u8(v0, 4)));
        r = vandq_u8(r, vandq_u8(vqtbl1q_u8(lo1, vandq_u8(v1, nib)), vqtbl1q_u8(hi1, vshrq_n_u8(v1, 4))));
        r = vandq_u8(r, vandq_u8(vqtbl1q_u8(lo2, vandq_u8(v2, nib)), vqtbl1q_u8(hi2, vshrq_n_u8(v2, 4))));
        if (vmaxvq_u8(r) != 0) {
            // 4 bits per byte: the first nonzero byte is the first nonzero nibble of the narrowed mask.
            uint8x8_t narrowed = vshrn_n_u16(vreinterpretq_u16_u8(vtstq_u8(r, r)), 4);
            uint64_t bits = vget_lane_u64(vreinterpret_u64_u8(narrowed), 0);
            size_t j = i + (size_t)(__builtin_ctzll(bits) >> 2);
            return j + (size_t)m <= n ? j : n;
        }
        i += 16;
    }
    return tail(p, i, n, masks, m, fold_case_bit);
}
#endif

// 0 scalar, 1 SSSE3, 2 AVX2, 3 NEON; -1 not yet decided. Relaxed atomics: every thread that finds -1
// computes the same value.
static int chosen = -1;

static int detect(void) {
#if AHO_X86
    return cpu_kernel();
#elif AHO_NEON
    return 3;
#else
    return 0;
#endif
}

int aho_teddy_kernel(void) {
    int k = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
    if (k < 0) {
        k = detect();
        __atomic_store_n(&chosen, k, __ATOMIC_RELAXED);
    }
    return k;
}

int aho_teddy_force_kernel(int kernel) {
    int best = detect();
    int k = aho_teddy_kernel();
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

size_t aho_teddy_first(const uint8_t *p, size_t n, const uint8_t *masks, int m, int fold_case_bit) {
    switch (aho_teddy_kernel()) {
#if AHO_X86
    case 2: return teddy_avx2(p, n, masks, m, fold_case_bit);
    case 1: return teddy_ssse3(p, n, masks, m, fold_case_bit);
#endif
#if AHO_NEON
    case 3: return teddy_neon(p, n, masks, m, fold_case_bit);
#endif
    default: return aho_teddy_first_scalar(p, n, masks, m, fold_case_bit);
    }
}
