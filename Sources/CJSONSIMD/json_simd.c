// SIMD kernels of the JSON Lines scanner.
//
// The string scan: per 16 or 32 bytes, three vector compares (quote, backslash, at most 0x1F) ORed into one
// byte mask whose first set bit is the end of the fast path; the bytes' top bits (movemask) say whether any
// byte >= 0x80 came before it. A block that would run past the end is loaded so that it ends at the last
// byte (it overlaps bytes already seen, which hold no structural byte; their bits are masked off), so no
// byte outside the span is read and no scalar tail is needed past 16 bytes.
//
// UTF-8 validation: the lookup algorithm of Keiser and Lemire ("Validating UTF-8 in less than one
// instruction per byte", Software: Practice and Experience 51(5), 2021), as simdjson implements it: three
// 16-entry table look-ups (the high nibble of the previous byte, its low nibble, the high nibble of the
// byte) flag every invalid two-byte pattern (too short, too long, overlong, surrogate, too large, two
// continuations), and a comparison with the bytes two and three back checks that 3- and 4-byte sequences
// have their continuations. A block of ASCII only skips the look-ups. The last partial block goes through a
// zero-padded copy (zeros are ASCII), and a sequence cut short by the end is an error.
//
// Dispatch: simd_dispatch.h (CSIMDDispatch), shared with the other C kernels: CPUID once on x86-64
// (each kernel compiled with a target attribute, the rest of the package keeps the baseline ISA), NEON
// always on ARM64, the scalar loops elsewhere.
#include "json_simd.h"

#include "simd_dispatch.h"

static inline int structural(uint8_t c) { return c == '"' || c == '\\' || c < 0x20; }

uint64_t json_scan_string_scalar(const uint8_t *p, size_t n) {
    uint8_t high = 0;
    for (size_t i = 0; i < n; i++) {
        if (structural(p[i])) return i | (high & 0x80 ? JSON_SCAN_HIGH_BIT : 0);
        high |= p[i];
    }
    return n | (high & 0x80 ? JSON_SCAN_HIGH_BIT : 0);
}

int json_utf8_valid_scalar(const uint8_t *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint8_t b = p[i];
        if (b < 0x80) {
            i++;
            continue;
        }
        size_t need;
        uint8_t lo = 0x80, hi = 0xBF;
        if (b >= 0xC2 && b <= 0xDF) {
            need = 1;
        } else if (b >= 0xE0 && b <= 0xEF) {
            need = 2;
            if (b == 0xE0) lo = 0xA0;
            if (b == 0xED) hi = 0x9F;
        } else if (b >= 0xF0 && b <= 0xF4) {
            need = 3;
            if (b == 0xF0) lo = 0x90;
            if (b == 0xF4) hi = 0x8F;
        } else {
            return 0;
        }
        if (n - i <= need) return 0;
        if (p[i + 1] < lo || p[i + 1] > hi) return 0;
        for (size_t k = 2; k <= need; k++) {
            if (p[i + k] < 0x80 || p[i + k] > 0xBF) return 0;
        }
        i += need + 1;
    }
    return 1;
}

// The look-up tables of the UTF-8 check (simdjson's `utf8_lookup4`). Each bit is an error kind; a byte
// pair is invalid when a bit is set in all three look-ups.
#define TOO_SHORT (1 << 0)   // 11______ 0_______ or 11______ 11______
#define TOO_LONG (1 << 1)    // 0_______ 10______
#define OVERLONG_3 (1 << 2)  // 11100000 100_____
#define TOO_LARGE (1 << 3)   // 11110100 1001____ and above
#define SURROGATE (1 << 4)   // 11101101 101_____
#define OVERLONG_2 (1 << 5)  // 1100000_ 10______
#define TOO_LARGE_1000 (1 << 6)  // 11110101 1000____ and above
#define OVERLONG_4 (1 << 6)  // 11110000 1000____
#define TWO_CONTS (1 << 7)   // 10______ 10______
#define CARRY (TOO_SHORT | TOO_LONG | TWO_CONTS)

static const uint8_t byte_1_high[16] = {
    TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
    TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
    TOO_SHORT | OVERLONG_2,
    TOO_SHORT,
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
};
static const uint8_t byte_1_low[16] = {
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    CARRY | OVERLONG_2,
    CARRY,
    CARRY,
    CARRY | TOO_LARGE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
};
static const uint8_t byte_2_high[16] = {
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
};
// The last three bytes of a block that start a sequence the block does not finish: >= 0xF0, 0xE0, 0xC0.
static const uint8_t incomplete_max[32] = {
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0xF0 - 1, 0xE0 - 1, 0xC0 - 1,
};

#if SIMD_X86
/// The answer once a block at `i` has a structural byte at bit `k` of `mask`; `high` holds the top bits of
/// the bytes before the block, `h` those of the block.
static inline uint64_t found(size_t i, uint32_t k, uint64_t high, uint64_t h) {
    uint64_t before = k ? h & ((1ull << k) - 1) : 0;
    return (i + k) | ((high | before) ? JSON_SCAN_HIGH_BIT : 0);
}

__attribute__((target("ssse3")))
static uint64_t scan_ssse3(const uint8_t *p, size_t n) {
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
    if (n < 32) return scan_ssse3(p, n);
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

/// The UTF-8 check of one 16-byte block `v` after `prev`; ORs its errors into `*error`, returns the
/// incomplete-sequence flags of its end.
__attribute__((target("ssse3")))
static inline __m128i utf8_block_ssse3(__m128i v, __m128i prev, __m128i prev_incomplete, __m128i *error) {
    if (_mm_movemask_epi8(v) == 0) {
        *error = _mm_or_si128(*error, prev_incomplete);
        return _mm_setzero_si128();
    }
    const __m128i nib = _mm_set1_epi8(0x0F);
    __m128i prev1 = _mm_alignr_epi8(v, prev, 15);
    __m128i b1h = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)byte_1_high), _mm_and_si128(_mm_srli_epi16(prev1, 4), nib));
    __m128i b1l = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)byte_1_low), _mm_and_si128(prev1, nib));
    __m128i b2h = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)byte_2_high), _mm_and_si128(_mm_srli_epi16(v, 4), nib));
    __m128i sc = _mm_and_si128(_mm_and_si128(b1h, b1l), b2h);
    __m128i prev2 = _mm_alignr_epi8(v, prev, 14);
    __m128i prev3 = _mm_alignr_epi8(v, prev, 13);
    __m128i third = _mm_subs_epu8(prev2, _mm_set1_epi8((char)(0xE0 - 0x80)));
    __m128i fourth = _mm_subs_epu8(prev3, _mm_set1_epi8((char)(0xF0 - 0x80)));
    __m128i must23 = _mm_and_si128(_mm_or_si128(third, fourth), _mm_set1_epi8((char)0x80));
    *error = _mm_or_si128(*error, _mm_xor_si128(must23, sc));
    return _mm_subs_epu8(v, _mm_loadu_si128((const __m128i *)(incomplete_max + 16)));
}

__attribute__((target("ssse3")))
static int utf8_ssse3(const uint8_t *p, size_t n) {
    __m128i error = _mm_setzero_si128(), prev = _mm_setzero_si128(), incomplete = _mm_setzero_si128();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        incomplete = utf8_block_ssse3(v, prev, incomplete, &error);
        prev = v;
    }
    if (i < n) {
        uint8_t padded[16] = {0};
        __builtin_memcpy(padded, p + i, n - i);
        __m128i v = _mm_loadu_si128((const __m128i *)padded);
        incomplete = utf8_block_ssse3(v, prev, incomplete, &error);
    }
    error = _mm_or_si128(error, incomplete);
    return _mm_movemask_epi8(_mm_cmpeq_epi8(error, _mm_setzero_si128())) == 0xFFFF;
}

__attribute__((target("avx2")))
static inline __m256i utf8_block_avx2(__m256i v, __m256i prev, __m256i prev_incomplete, __m256i *error) {
    if (_mm256_movemask_epi8(v) == 0) {
        *error = _mm256_or_si256(*error, prev_incomplete);
        return _mm256_setzero_si256();
    }
    const __m256i nib = _mm256_set1_epi8(0x0F);
    // The block shifted right by N bytes, with the last N bytes of `prev` shifted in.
    __m256i carried = _mm256_permute2x128_si256(prev, v, 0x21);
    __m256i prev1 = _mm256_alignr_epi8(v, carried, 15);
    __m256i prev2 = _mm256_alignr_epi8(v, carried, 14);
    __m256i prev3 = _mm256_alignr_epi8(v, carried, 13);
    __m256i t1h = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)byte_1_high));
    __m256i t1l = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)byte_1_low));
    __m256i t2h = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)byte_2_high));
    __m256i b1h = _mm256_shuffle_epi8(t1h, _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nib));
    __m256i b1l = _mm256_shuffle_epi8(t1l, _mm256_and_si256(prev1, nib));
    __m256i b2h = _mm256_shuffle_epi8(t2h, _mm256_and_si256(_mm256_srli_epi16(v, 4), nib));
    __m256i sc = _mm256_and_si256(_mm256_and_si256(b1h, b1l), b2h);
    __m256i third = _mm256_subs_epu8(prev2, _mm256_set1_epi8((char)(0xE0 - 0x80)));
    __m256i fourth = _mm256_subs_epu8(prev3, _mm256_set1_epi8((char)(0xF0 - 0x80)));
    __m256i must23 = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
    *error = _mm256_or_si256(*error, _mm256_xor_si256(must23, sc));
    return _mm256_subs_epu8(v, _mm256_loadu_si256((const __m256i *)incomplete_max));
}

__attribute__((target("avx2")))
static int utf8_avx2(const uint8_t *p, size_t n) {
    __m256i error = _mm256_setzero_si256(), prev = _mm256_setzero_si256(), incomplete = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(p + i));
        incomplete = utf8_block_avx2(v, prev, incomplete, &error);
        prev = v;
    }
    if (i < n) {
        uint8_t padded[32] = {0};
        __builtin_memcpy(padded, p + i, n - i);
        __m256i v = _mm256_loadu_si256((const __m256i *)padded);
        incomplete = utf8_block_avx2(v, prev, incomplete, &error);
    }
    error = _mm256_or_si256(error, incomplete);
    return _mm256_testz_si256(error, error) ? 1 : 0;
}
#endif

#if SIMD_NEON
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

static inline uint8x16_t utf8_block_neon(uint8x16_t v, uint8x16_t prev, uint8x16_t prev_incomplete, uint8x16_t *error) {
    if (vmaxvq_u8(v) < 0x80) {
        *error = vorrq_u8(*error, prev_incomplete);
        return vdupq_n_u8(0);
    }
    const uint8x16_t nib = vdupq_n_u8(0x0F);
    uint8x16_t prev1 = vextq_u8(prev, v, 15);
    uint8x16_t prev2 = vextq_u8(prev, v, 14);
    uint8x16_t prev3 = vextq_u8(prev, v, 13);
    uint8x16_t b1h = vqtbl1q_u8(vld1q_u8(byte_1_high), vshrq_n_u8(prev1, 4));
    uint8x16_t b1l = vqtbl1q_u8(vld1q_u8(byte_1_low), vandq_u8(prev1, nib));
    uint8x16_t b2h = vqtbl1q_u8(vld1q_u8(byte_2_high), vshrq_n_u8(v, 4));
    uint8x16_t sc = vandq_u8(vandq_u8(b1h, b1l), b2h);
    uint8x16_t third = vqsubq_u8(prev2, vdupq_n_u8(0xE0 - 0x80));
    uint8x16_t fourth = vqsubq_u8(prev3, vdupq_n_u8(0xF0 - 0x80));
    uint8x16_t must23 = vandq_u8(vorrq_u8(third, fourth), vdupq_n_u8(0x80));
    *error = vorrq_u8(*error, veorq_u8(must23, sc));
    return vqsubq_u8(v, vld1q_u8(incomplete_max + 16));
}

static int utf8_neon(const uint8_t *p, size_t n) {
    uint8x16_t error = vdupq_n_u8(0), prev = vdupq_n_u8(0), incomplete = vdupq_n_u8(0);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        uint8x16_t v = vld1q_u8(p + i);
        incomplete = utf8_block_neon(v, prev, incomplete, &error);
        prev = v;
    }
    if (i < n) {
        uint8_t padded[16] = {0};
        __builtin_memcpy(padded, p + i, n - i);
        uint8x16_t v = vld1q_u8(padded);
        incomplete = utf8_block_neon(v, prev, incomplete, &error);
    }
    error = vorrq_u8(error, incomplete);
    return vmaxvq_u8(error) == 0;
}
#endif

// This library's kernel (simd_dispatch.h): -1 until first used.
static int chosen = -1;

int json_simd_kernel(void) { return simd_kernel(&chosen); }

int json_simd_force_kernel(int kernel) { return simd_force_kernel(&chosen, kernel); }

uint64_t json_scan_string(const uint8_t *p, size_t n) {
    switch (json_simd_kernel()) {
#if SIMD_X86
    case SIMD_KERNEL_AVX2: return scan_avx2(p, n);
    case SIMD_KERNEL_SSSE3: return scan_ssse3(p, n);
#endif
#if SIMD_NEON
    case SIMD_KERNEL_NEON: return scan_neon(p, n);
#endif
    default: return json_scan_string_scalar(p, n);
    }
}

int json_utf8_valid(const uint8_t *p, size_t n) {
    switch (json_simd_kernel()) {
#if SIMD_X86
    case SIMD_KERNEL_AVX2: return utf8_avx2(p, n);
    case SIMD_KERNEL_SSSE3: return utf8_ssse3(p, n);
#endif
#if SIMD_NEON
    case SIMD_KERNEL_NEON: return utf8_neon(p, n);
#endif
    default: return json_utf8_valid_scalar(p, n);
    }
}
