// Counts heap allocations for AllocationProbeTests (Linux, glibc): load with LD_PRELOAD; the test reads the
// count through `smsfilter_malloc_count`. Every allocation entry point forwards to glibc's own.
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static _Atomic unsigned long long allocations;

unsigned long long smsfilter_malloc_count(void) { return atomic_load(&allocations); }

void *malloc(size_t size) {
    atomic_fetch_add(&allocations, 1);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    atomic_fetch_add(&allocations, 1);
    return __libc_calloc(count, size);
}

void *realloc(void *old, size_t size) {
    atomic_fetch_add(&allocations, 1);
    return __libc_realloc(old, size);
}

void *memalign(size_t alignment, size_t size) {
    atomic_fetch_add(&allocations, 1);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    atomic_fetch_add(&allocations, 1);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    atomic_fetch_add(&allocations, 1);
    void *p = __libc_memalign(alignment, size);
    if (p == NULL) return 12;  // ENOMEM
    *out = p;
    return 0;
}
