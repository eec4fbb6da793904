// simd_dispatch.h: the runtime CPU dispatch shared by the package's C SIMD kernels (CAhoCorasickSIMD's
// Teddy prefilter, CJSONSIMD's JSON string scanner).
//
// Kernels are numbered the same in every library: 0 scalar, 1 SSSE3, 2 AVX2, 3 NEON. x86-64 asks CPUID
// once (SSSE3; AVX2 only when XGETBV says the OS saves the AVX registers); each kernel is compiled with a
// target attribute, so the rest of the package keeps the baseline x86-64 ISA. ARM64 always has NEON. Other
// CPUs use the scalar loops.
//
// Each library keeps its own choice (an `int` starting at -1, "not yet decided") and passes it here, so
// that a test forcing one library's kernel leaves the other's alone. Relaxed atomics: every thread that
// finds -1 computes the same value.
//
// Header only (static inline): a kernel's object file needs no other object to link.
#ifndef SIMD_DISPATCH_H
#define SIMD_DISPATCH_H

#if defined(__x86_64__) || defined(_M_X64)
#define SIMD_X86 1
#include <cpuid.h>
#include <immintrin.h>
#elif defined(__aarch64__) || defined(_M_ARM64)
#define SIMD_NEON 1
#include <arm_neon.h>
#endif

/// The kernels, numbered as every library's `*_kernel()` and `*_force_kernel()` report them.
enum { SIMD_KERNEL_SCALAR = 0, SIMD_KERNEL_SSSE3 = 1, SIMD_KERNEL_AVX2 = 2, SIMD_KERNEL_NEON = 3 };

/// The best kernel this CPU runs (asks the CPU every call: use `simd_kernel`).
static inline int simd_best_kernel(void) {
#if SIMD_X86
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return SIMD_KERNEL_SCALAR;
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
    return avx2 && ssse3 ? SIMD_KERNEL_AVX2 : ssse3 ? SIMD_KERNEL_SSSE3 : SIMD_KERNEL_SCALAR;
#elif SIMD_NEON
    return SIMD_KERNEL_NEON;
#else
    return SIMD_KERNEL_SCALAR;
#endif
}

/// The kernel in use by the library whose choice is `*chosen` (decided on first use).
static inline int simd_kernel(int *chosen) {
    int k = __atomic_load_n(chosen, __ATOMIC_RELAXED);
    if (k < 0) {
        k = simd_best_kernel();
        __atomic_store_n(chosen, k, __ATOMIC_RELAXED);
    }
    return k;
}

/// Makes `kernel` the library's choice when this CPU runs it (-1: the best again; 0: scalar, always),
/// and returns the kernel now in use (for tests and benchmarks).
static inline int simd_force_kernel(int *chosen, int kernel) {
    int best = simd_best_kernel();
    int k = simd_kernel(chosen);
    if (kernel < 0) {
        k = best;
    } else if (kernel == SIMD_KERNEL_SCALAR) {
        k = SIMD_KERNEL_SCALAR;
    } else if (kernel == SIMD_KERNEL_NEON && best == SIMD_KERNEL_NEON) {
        k = SIMD_KERNEL_NEON;
    } else if (kernel <= SIMD_KERNEL_AVX2 && best <= SIMD_KERNEL_AVX2 && kernel <= best) {
        k = kernel;
    }
    __atomic_store_n(chosen, k, __ATOMIC_RELAXED);
    return k;
}

#endif
