/* SPDX-License-Identifier: MIT */
/* A small CPU-bound program for the gperftools tests: several phases, each with its own call
 * chain, so that no caller is shared by almost every sample (pprof strips such frames). Built
 * with frame pointers and linked with libprofiler; run with CPUPROFILE=FILE.
 *
 * Built twice: plainly (-O0, every function out of line) for the comparisons with pprof, and
 * with DEMO_INLINE at -O2, where the always-inline helpers become inlined frames. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DEMO_INLINE
#define HELPER static inline __attribute__((always_inline))
#else
#define HELPER static __attribute__((noinline))
#endif
#define STEP static __attribute__((noinline))

static volatile uint64_t sink;

HELPER uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ULL;
    x ^= x >> 27;
    return x;
}

HELPER uint64_t mix_twice(uint64_t x)
{
    return mix(mix(x) + 1);
}

STEP uint64_t hash_block(const uint8_t *data, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = mix_twice(h ^ data[i]);
    return h;
}

STEP void hash_phase(unsigned rounds)
{
    uint8_t block[4096];
    for (size_t i = 0; i < sizeof block; i++)
        block[i] = (uint8_t)i;
    for (unsigned r = 0; r < rounds; r++) {
        block[r % sizeof block] ^= (uint8_t)r;
        sink += hash_block(block, sizeof block);
    }
}

static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

STEP void fill_keys(uint64_t *keys, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        keys[i] = mix(seed + i);
}

STEP void sort_phase(unsigned rounds)
{
    size_t n = 1 << 15;
    uint64_t *keys = malloc(n * sizeof *keys);
    if (!keys)
        exit(1);
    for (unsigned r = 0; r < rounds; r++) {
        fill_keys(keys, n, r);
        qsort(keys, n, sizeof *keys, compare_keys);
        sink += keys[n / 2];
    }
    free(keys);
}

STEP uint64_t fib(unsigned n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

STEP void recursion_phase(unsigned rounds)
{
    for (unsigned r = 0; r < rounds; r++)
        sink += fib(24);
}

STEP void multiply(const double *a, const double *b, double *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double s = 0;
            for (size_t k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}

STEP void matrix_phase(unsigned rounds)
{
    size_t n = 96;
    double *m = malloc(3 * n * n * sizeof *m);
    if (!m)
        exit(1);
    for (size_t i = 0; i < 2 * n * n; i++)
        m[i] = (double)(i % 17) / 7.0;
    for (unsigned r = 0; r < rounds; r++)
        multiply(m, m + n * n, m + 2 * n * n, n);
    sink += (uint64_t)m[2 * n * n + 5];
    free(m);
}

int main(int argc, char **argv)
{
    /* Work, not time: the scale argument multiplies every phase. */
    unsigned scale = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1;
    hash_phase(250 * scale);
    sort_phase(10 * scale);
    recursion_phase(150 * scale);
    matrix_phase(60 * scale);
    printf("%llu\n", (unsigned long long)sink);
    return 0;
}
