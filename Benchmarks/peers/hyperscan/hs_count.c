// hs_count: Hyperscan's C API on the matcher fixtures, the peer of smsfilter's automaton (issue 23 item 5).
//
//   cc -O2 -o hs_count hs_count.c -lhs          (Debian: apt-get install libhyperscan-dev)
//   hs_count KEYWORDS.txt BODIES.txt [REPETITIONS]
//
// KEYWORDS: one literal per line; BODIES: one message body per line (both written by
// `matcher-tool fixtures DIR`). Like with like against `matcher-tool` with `fold=ascii`: the keywords are
// compiled as literals (hs_compile_lit_multi, no regex escaping) with HS_FLAG_CASELESS (ASCII case folding,
// the only folding Hyperscan has outside UTF-8 mode), block mode, and every match is reported to a callback
// that counts it; one hs_scan per body (what a pipeline does per message), the bodies already in memory.
// Prints one line: "<MB/s> <matches> <bodies> <bytes>", MB/s of body bytes, median of the repetitions
// (default 7); the scratch space is allocated once, outside the timing. HS_COUNT_CLOCK=cpu times process CPU.
#include <hs/hs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)n + 1);
    if (!data || fread(data, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "%s: read failed\n", path); exit(1); }
    fclose(f);
    data[n] = 0;
    *size = (size_t)n;
    return data;
}

/// Splits `data` at newlines into (start, length) pairs; the last line must end with a newline.
static size_t split_lines(char *data, size_t size, char ***starts, size_t **lengths, int skip_empty) {
    size_t capacity = 1024, count = 0, begin = 0;
    *starts = malloc(capacity * sizeof(char *));
    *lengths = malloc(capacity * sizeof(size_t));
    for (size_t i = 0; i < size; i++) {
        if (data[i] != '\n') continue;
        if (!(skip_empty && i == begin)) {
            if (count == capacity) {
                capacity *= 2;
                *starts = realloc(*starts, capacity * sizeof(char *));
                *lengths = realloc(*lengths, capacity * sizeof(size_t));
            }
            (*starts)[count] = data + begin;
            (*lengths)[count] = i - begin;
            count++;
        }
        begin = i + 1;
    }
    return count;
}

static int on_match(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *context) {
    (void)id; (void)from; (void)to; (void)flags;
    ++*(unsigned long long *)context;
    return 0;  // go on: every match counted
}

/// Seconds of the wall clock, or with HS_COUNT_CLOCK=cpu of this process's CPU time (as matcher-tool's
/// MATCHER_TOOL_CLOCK=cpu: steadier on a machine shared with other work).
static clockid_t clock_id = CLOCK_MONOTONIC;

static double now(void) {
    struct timespec t;
    clock_gettime(clock_id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: hs_count KEYWORDS.txt BODIES.txt [REPETITIONS]\n"); return 2; }
    int repetitions = argc > 3 ? atoi(argv[3]) : 7;
    const char *clock_name = getenv("HS_COUNT_CLOCK");
    if (clock_name && strcmp(clock_name, "cpu") == 0) clock_id = CLOCK_PROCESS_CPUTIME_ID;
    if (repetitions < 1) repetitions = 1;
    size_t keywords_size, bodies_size;
    char *keywords_data = read_file(argv[1], &keywords_size);
    char *bodies_data = read_file(argv[2], &bodies_size);
    char **keywords, **bodies;
    size_t *keyword_lengths, *body_lengths;
    size_t keyword_count = split_lines(keywords_data, keywords_size, &keywords, &keyword_lengths, 1);
    size_t body_count = split_lines(bodies_data, bodies_size, &bodies, &body_lengths, 0);

    unsigned int *flags = malloc(keyword_count * sizeof(unsigned int));
    unsigned int *ids = malloc(keyword_count * sizeof(unsigned int));
    for (size_t i = 0; i < keyword_count; i++) { flags[i] = HS_FLAG_CASELESS; ids[i] = (unsigned int)i; }
    hs_database_t *database = NULL;
    hs_compile_error_t *error = NULL;
    if (hs_compile_lit_multi((const char *const *)keywords, flags, ids, keyword_lengths, (unsigned int)keyword_count,
                             HS_MODE_BLOCK, NULL, &database, &error) != HS_SUCCESS) {
        fprintf(stderr, "hs_compile_lit_multi: %s (expression %d)\n", error->message, error->expression);
        return 1;
    }
    hs_scratch_t *scratch = NULL;
    if (hs_alloc_scratch(database, &scratch) != HS_SUCCESS) { fprintf(stderr, "hs_alloc_scratch failed\n"); return 1; }

    size_t bytes = 0;
    for (size_t i = 0; i < body_count; i++) bytes += body_lengths[i];
    double *seconds = malloc((size_t)repetitions * sizeof(double));
    unsigned long long matches = 0;
    for (int r = 0; r < repetitions; r++) {
        matches = 0;
        double start = now();
        for (size_t i = 0; i < body_count; i++) {
            if (hs_scan(database, bodies[i], (unsigned int)body_lengths[i], 0, scratch, on_match, &matches) != HS_SUCCESS) {
                fprintf(stderr, "hs_scan failed on body %zu\n", i + 1);
                return 1;
            }
        }
        seconds[r] = now() - start;
    }
    qsort(seconds, (size_t)repetitions, sizeof(double), compare_doubles);
    double median = seconds[repetitions / 2];
    printf("%.1f %llu %zu %zu\n", (double)bytes / median / 1e6, matches, body_count, bytes);
    hs_free_scratch(scratch);
    hs_free_database(database);
    return 0;
}
