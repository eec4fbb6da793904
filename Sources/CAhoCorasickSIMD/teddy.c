// Teddy (Hyperscan's literal matcher, as in Rust's aho-corasick crate): per 16/32-byte block, two
// nibble table look-ups (pshufb / vpshufb / tbl) per fingerprint position give each byte's bucket bits;
// ANDing the positions' bits (the second and third shifted by loading at +1 and +2) leaves a bit set
// where some bucket's patterns may start. Each such candidate is then verified against the bucket's
// entries (the patterns' first 8 bytes at most), so the offset returned is where a pattern prefix
// really occurs: never past a match start, and in text without matches usually the end.
//
// Dispatch: simd_dispatch.h (CSIMDDispatch), shared with the other C kernels: CPUID once on x86-64
// (each kernel compiled with a target attribute, the rest of the package keeps the baseline ISA), NEON
// always on ARM64, the scalar loop elsewhere.
#include "aho_simd.h"

#include "simd_dispatch.h"

static inline uint32_t u32_at(const uint8_t *s, size_t offset) {
    uint32_t v;
    __builtin_memcpy(&v, s + offset, 4);
    return v;
}


/// Whether a pattern prefix may occur at p[j...] (j < n): the prefix hash set has the hash of the next
/// L bytes for some length L present.
static inline int verify(const uint8_t *p, size_t n, size_t j, const uint8_t *section) {
    size_t left = n - j;
    uint64_t w = 0;
    __builtin_memcpy(&w, p + j, left >= 4 ? 4 : left);
    if (u32_at(section, 4) & 1) w |= 0x20202020ull;
    uint32_t lengths = u32_at(section, 8);
    const uint8_t *set = section + 112;
    for (uint32_t length = 1; length <= 4; length++) {
        if (!(lengths >> length & 1) || length > left) continue;
        uint32_t h = aho_teddy_hash(w & ((1ull << (8 * length)) - 1), length);
        if (set[h >> 3] >> (h & 7) & 1) return 1;
    }
    return 0;
}

static inline unsigned bucket_bits_at(const uint8_t *p, size_t j, const uint8_t *masks, int m, uint8_t orbits) {
    unsigned bits = 0xFF;
    for (int k = 0; k < m; k++) {
        uint8_t b = (uint8_t)(p[j + (size_t)k] | orbits);
        bits &= masks[32 * k + (b & 15)] & masks[32 * k + 16 + (b >> 4)];
    }
    return bits;
}

/// Whether offset j (< n) is a verified candidate.
static inline int offset_verified(const uint8_t *p, size_t n, size_t j, const uint8_t *section) {
    int m = (int)u32_at(section, 0);
    if (j + (size_t)m > n) return 0;
    unsigned bits = bucket_bits_at(p, j, section + 16, m, (u32_at(section, 4) & 1) ? 0x20 : 0);
    return bits && verify(p, n, j, section);
}

/// The scalar check of offsets from ..< n - m + 1.
static size_t scalar_from(const uint8_t *p, size_t from, size_t n, const uint8_t *section) {
    int m = (int)u32_at(section, 0);
    const uint8_t *masks = section + 16;
    uint8_t orbits = (u32_at(section, 4) & 1) ? 0x20 : 0;
    for (size_t j = from; j + (size_t)m <= n; j++) {
        unsigned bits = bucket_bits_at(p, j, masks, m, orbits);
        if (bits && verify(p, n, j, section)) return j;
    }
    return n;
}

size_t aho_teddy_first_scalar(const uint8_t *p, size_t n, const uint8_t *section) {
    return scalar_from(p, 0, n, section);
}

/// Verifies the candidates of one block: `bits` has bit i set where offset i + i0 is a candidate.
/// Returns the first verified offset or SIZE_MAX.
static inline size_t verify_block(const uint8_t *p, size_t n, size_t i0, uint32_t bits, int m,
                                  const uint8_t *section) {
    while (bits) {
        unsigned i = (unsigned)__builtin_ctz(bits);
        bits &= bits - 1;
        size_t j = i0 + i;
        // A candidate past n - m cannot hold a whole pattern (m <= every pattern's length).
        if (j + (size_t)m > n) return (size_t)-1;
        if (verify(p, n, j, section)) return j;
    }
    return (size_t)-1;
}

/// The scan every vector kernel runs, KERNEL_BLOCK(q) giving the candidate bits of the BLOCK offsets at q
/// (it reads q[0 ..< BLOCK + 2]: the bytes of BLOCK offsets and the two after the last). A macro, not a
/// function: each expansion is compiled under its kernel's target attribute.
///   1. Whole blocks while a block's bytes are in the haystack, verifying each block's candidates.
///   2. Fewer bytes left than a block reads but more offsets than it covers: the first offsets one by one.
///   3. The last bytes copied into a zeroed buffer, so that one more vector block covers them; offsets
///      past n - m are dropped by `verify_block`, and `verify` reads the original.
#define AHO_SCAN(BLOCK, KERNEL_BLOCK)                                                     \
    size_t i = 0;                                                                          \
    while (i + (BLOCK + 2) <= n) {                                                         \
        uint32_t bits = KERNEL_BLOCK(p + i);                                               \
        if (bits) {                                                                        \
            size_t j = verify_block(p, n, i, bits, m, section);                            \
            if (j != (size_t)-1) return j;                                                 \
        }                                                                                  \
        i += BLOCK;                                                                        \
    }                                                                                      \
    while (i + BLOCK < n) {                                                                \
        if (offset_verified(p, n, i, section)) return i;                                   \
        i += 1;                                                                            \
    }                                                                                      \
    if (i < n) {                                                                           \
        uint8_t padded[BLOCK + 2] = {0};                                                   \
        __builtin_memcpy(padded, p + i, n - i);                                            \
        uint32_t bits = KERNEL_BLOCK(padded);                                              \
        size_t j = verify_block(p, n, i, bits, m, section);                                \
        if (j != (size_t)-1) return j;                                                     \
    }                                                                                      \
    return n;

#if SIMD_X86
__attribute__((target("ssse3")))
static size_t teddy_ssse3(const uint8_t *p, size_t n, const uint8_t *section) {
    int m = (int)u32_at(section, 0);
    const uint8_t *masks = section + 16;
    const __m128i nib = _mm_set1_epi8(0x0F);
    const __m128i orbits = _mm_set1_epi8((u32_at(section, 4) & 1) ? 0x20 : 0);
    const __m128i lo0 = _mm_loadu_si128((const __m128i *)(masks + 0)), hi0 = _mm_loadu_si128((const __m128i *)(masks + 16));
    const __m128i lo1 = _mm_loadu_si128((const __m128i *)(masks + 32)), hi1 = _mm_loadu_si128((const __m128i *)(masks + 48));
    const __m128i lo2 = _mm_loadu_si128((const __m128i *)(masks + 64)), hi2 = _mm_loadu_si128((const __m128i *)(masks + 80));
    const __m128i zero = _mm_setzero_si128();
    // The candidate bits of the 16 offsets at q (reads q[0 ..< 18]).
#define SSSE3_BLOCK(q)                                                                                        \
    ({                                                                                                        \
        __m128i v0 = _mm_or_si128(_mm_loadu_si128((const __m128i *)(q)), orbits);                          \
        __m128i v1 = _mm_or_si128(_mm_loadu_si128((const __m128i *)((q) + 1)), orbits);                    \
        __m128i v2 = _mm_or_si128(_mm_loadu_si128((const __m128i *)((q) + 2)), orbits);                    \
        __m128i x = _mm_and_si128(_mm_shuffle_epi8(lo0, _mm_and_si128(v0, nib)),                          \
                                  _mm_shuffle_epi8(hi0, _mm_and_si128(_mm_srli_epi16(v0, 4), nib)));      \
        x = _mm_and_si128(x, _mm_and_si128(_mm_shuffle_epi8(lo1, _mm_and_si128(v1, nib)),                   \
                                           _mm_shuffle_epi8(hi1, _mm_and_si128(_mm_srli_epi16(v1, 4), nib)))); \
        x = _mm_and_si128(x, _mm_and_si128(_mm_shuffle_epi8(lo2, _mm_and_si128(v2, nib)),                   \
                                           _mm_shuffle_epi8(hi2, _mm_and_si128(_mm_srli_epi16(v2, 4), nib)))); \
        (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, zero)) ^ 0xFFFFu;                                     \
    })
    AHO_SCAN(16, SSSE3_BLOCK)
#undef SSSE3_BLOCK
}

__attribute__((target("avx2")))
static size_t teddy_avx2(const uint8_t *p, size_t n, const uint8_t *section) {
    int m = (int)u32_at(section, 0);
    const uint8_t *masks = section + 16;
    const __m256i nib = _mm256_set1_epi8(0x0F);
    const __m256i orbits = _mm256_set1_epi8((u32_at(section, 4) & 1) ? 0x20 : 0);
    const __m256i lo0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(masks + 0)));
    const __m256i hi0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(masks + 16)));
    const __m256i lo1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(masks + 32)));
    const __m256i hi1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(masks + 48)));
    const __m256i lo2 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(masks + 64)));
    const __m256i hi2 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(masks + 80)));
    const __m256i zero = _mm256_setzero_si256();
    // The candidate bits of the 32 offsets at q (reads q[0 ..< 34]).
#define AVX2_BLOCK(q)                                                                                              \
    ({                                                                                                             \
        __m256i v0 = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(q)), orbits);                          \
        __m256i v1 = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)((q) + 1)), orbits);                    \
        __m256i v2 = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)((q) + 2)), orbits);                    \
        __m256i x = _mm256_and_si256(_mm256_shuffle_epi8(lo0, _mm256_and_si256(v0, nib)),                        \
                                     _mm256_shuffle_epi8(hi0, _mm256_and_si256(_mm256_srli_epi16(v0, 4), nib)));  \
        x = _mm256_and_si256(x, _mm256_and_si256(_mm256_shuffle_epi8(lo1, _mm256_and_si256(v1, nib)),             \
                                                 _mm256_shuffle_epi8(hi1, _mm256_and_si256(_mm256_srli_epi16(v1, 4), nib)))); \
        x = _mm256_and_si256(x, _mm256_and_si256(_mm256_shuffle_epi8(lo2, _mm256_and_si256(v2, nib)),             \
                                                 _mm256_shuffle_epi8(hi2, _mm256_and_si256(_mm256_srli_epi16(v2, 4), nib)))); \
        ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, zero));                                               \
    })
    AHO_SCAN(32, AVX2_BLOCK)
#undef AVX2_BLOCK
}
#endif

#if SIMD_NEON
static size_t teddy_neon(const uint8_t *p, size_t n, const uint8_t *section) {
    int m = (int)u32_at(section, 0);
    const uint8_t *masks = section + 16;
    const uint8x16_t nib = vdupq_n_u8(0x0F);
    const uint8x16_t orbits = vdupq_n_u8((u32_at(section, 4) & 1) ? 0x20 : 0);
    const uint8x16_t lo0 = vld1q_u8(masks + 0), hi0 = vld1q_u8(masks + 16);
    const uint8x16_t lo1 = vld1q_u8(masks + 32), hi1 = vld1q_u8(masks + 48);
    const uint8x16_t lo2 = vld1q_u8(masks + 64), hi2 = vld1q_u8(masks + 80);
    static const uint8_t weights[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t weight = vld1q_u8(weights);
    // The candidate bits of the 16 offsets at q (reads q[0 ..< 18]): one bit per nonzero byte, by ANDing
    // with per-lane weights and adding across each half.
#define NEON_BLOCK(q)                                                                                          \
    ({                                                                                                         \
        uint8x16_t v0 = vorrq_u8(vld1q_u8(q), orbits);                                                         \
        uint8x16_t v1 = vorrq_u8(vld1q_u8((q) + 1), orbits);                                                   \
        uint8x16_t v2 = vorrq_u8(vld1q_u8((q) + 2), orbits);                                                   \
        uint8x16_t x = vandq_u8(vqtbl1q_u8(lo0, vandq_u8(v0, nib)), vqtbl1q_u8(hi0, vshrq_n_u8(v0, 4)));       \
        x = vandq_u8(x, vandq_u8(vqtbl1q_u8(lo1, vandq_u8(v1, nib)), vqtbl1q_u8(hi1, vshrq_n_u8(v1, 4))));     \
        x = vandq_u8(x, vandq_u8(vqtbl1q_u8(lo2, vandq_u8(v2, nib)), vqtbl1q_u8(hi2, vshrq_n_u8(v2, 4))));     \
        uint8x16_t t = vandq_u8(vtstq_u8(x, x), weight);                                                       \
        (uint32_t)vaddv_u8(vget_low_u8(t)) | ((uint32_t)vaddv_u8(vget_high_u8(t)) << 8);                       \
    })
    AHO_SCAN(16, NEON_BLOCK)
#undef NEON_BLOCK
}
#endif

// This library's kernel (simd_dispatch.h): -1 until first used.
static int chosen = -1;

int aho_teddy_kernel(void) { return simd_kernel(&chosen); }

int aho_teddy_force_kernel(int kernel) { return simd_force_kernel(&chosen, kernel); }

size_t aho_teddy_first(const uint8_t *p, size_t n, const uint8_t *section) {
    switch (aho_teddy_kernel()) {
#if SIMD_X86
    case SIMD_KERNEL_AVX2: return teddy_avx2(p, n, section);
    case SIMD_KERNEL_SSSE3: return teddy_ssse3(p, n, section);
#endif
#if SIMD_NEON
    case SIMD_KERNEL_NEON: return teddy_neon(p, n, section);
#endif
    default: return aho_teddy_first_scalar(p, n, section);
    }
}
