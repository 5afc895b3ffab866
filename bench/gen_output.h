/* SPDX-License-Identifier: MIT */
/* What the .bsprof generators (gen_bsprof.c, gen_bsprof_spread.c) share: writing bytes, varints
 * and NUL-terminated strings to one output file, counting what was written, and deterministic
 * randomness (SplitMix64), so that a seed gives the same file on every machine. Define
 * GEN_PROGRAM (the program's name, for the message of a failed write) before including it. */
#ifndef PK_BENCH_GEN_OUTPUT_H
#define PK_BENCH_GEN_OUTPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out_file;
static uint64_t out_bytes;

static void put_bytes(const void *data, size_t n)
{
    if (fwrite(data, 1, n, out_file) != n) {
        perror(GEN_PROGRAM ": write");
        exit(1);
    }
    out_bytes += n;
}

static void put_varint(uint64_t v)
{
    uint8_t buf[10];
    size_t n = 0;
    while (v >= 0x80) {
        buf[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    buf[n++] = (uint8_t)v;
    put_bytes(buf, n);
}

static void put_cstring(const char *s)
{
    put_bytes(s, strlen(s) + 1);
}

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static uint32_t rng_below(uint32_t n)
{
    return (uint32_t)((rng_next() >> 32) * n >> 32);
}

#endif
