/* SPDX-License-Identifier: MIT */
/* Writes a large realistic Apple Sampler file to standard output: 8000 symbols in 40 libraries,
 * 8 threads, rows leaf first (as stack walkers record them) along the paths of a random call
 * tree of 100000 nodes under the thread-start frames, ids chosen so that many contain TAB and
 * LF bytes. Like a program sampled over time, half of a thread's samples stay in the previous
 * function, a fifth move to its caller, the rest jump anywhere.
 * Usage: gen_sampler MEGABYTES [SEED] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYMBOLS 8000
#define LIBRARIES 40
#define THREADS 8
#define NODES 100000
#define MAX_DEPTH 64

static uint64_t rng_state;

static uint32_t next_random(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 33);
}

static int parent[NODES];
static int depth[NODES];
static uint32_t symbol_of[NODES];
static uint64_t written;

static void put(const void *data, size_t n)
{
    fwrite(data, 1, n, stdout);
    written += n;
}

static void put_u32(uint32_t v)
{
    uint8_t d[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    put(d, 4);
}

/* Symbol i's id: spread out, with TAB (0x09) and LF (0x0a) bytes in many of them. */
static uint32_t symbol_id(uint32_t i)
{
    return 0x00090a00u + i * 0x10001u;
}

static void put_symbol(uint32_t id, const char *name, const char *library)
{
    put("\t", 1);
    put_u32(id);
    put("\t", 1);
    put_u32(0);
    put("\t", 1);
    put(name, strlen(name));
    put("\t", 1);
    put(library, strlen(library));
    put("\t", 1);
    put(library, strlen(library));
    put("\n", 1);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gen_sampler MEGABYTES [SEED]\n");
        return 2;
    }
    uint64_t limit = strtoull(argv[1], NULL, 10) << 20;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    setvbuf(stdout, NULL, _IOFBF, 1 << 20);

    put("@supersamplerV1.0\n@symboltableV1.1\n", 35);
    char name[128], library[128];
    for (uint32_t t = 1; t <= THREADS; t++) {
        snprintf(name, sizeof name, "Thread_%04X", t);
        put_symbol(t, name, name);
    }
    for (uint32_t i = 0; i < SYMBOLS; i++) {
        uint32_t lib = i < 2 ? 0 : 1 + next_random() % (LIBRARIES - 1);
        if (lib == 0)
            snprintf(library, sizeof library, "/usr/lib/system/libsystem_pthread.dylib");
        else if (lib % 4 == 0)
            snprintf(library, sizeof library,
                     "Carbon.framework/HIToolbox.framework/Versions/A/HIToolbox%u", lib);
        else
            snprintf(library, sizeof library, "/Applications/Ledger.app/Contents/MacOS/lib%u.dylib",
                     lib);
        if (i == 0)
            snprintf(name, sizeof name, "thread_start");
        else if (i == 1)
            snprintf(name, sizeof name, "_pthread_start");
        else if (i % 5 == 0)
            snprintf(name, sizeof name, "-[LedgerDocument%u recalculateRange:withOptions:]", i);
        else
            snprintf(name, sizeof name, "ledger::Engine%u::step(unsigned long, bool)", i);
        put_symbol(symbol_id(i), name, library);
    }
    put("@end\n", 5);

    /* The tree: nodes 0 and 1 are thread_start and _pthread_start. */
    parent[0] = -1, depth[0] = 1, symbol_of[0] = symbol_id(0);
    parent[1] = 0, depth[1] = 2, symbol_of[1] = symbol_id(1);
    for (int i = 2; i < NODES; i++) {
        int p = 1 + (int)(next_random() % (uint32_t)(i < 100 ? i - 1 : i / 3));
        if (depth[p] >= MAX_DEPTH)
            p = 1;
        parent[i] = p;
        depth[i] = depth[p] + 1;
        symbol_of[i] = symbol_id(2 + next_random() % (SYMBOLS - 2));
    }
    uint32_t frames[MAX_DEPTH + 2];
    uint64_t per_thread = limit / THREADS + 1;
    for (uint32_t t = 1; t <= THREADS && written < limit; t++) {
        char header[32];
        snprintf(header, sizeof header, "@threadV1.0\t%04X\n", t);
        put(header, strlen(header));
        uint64_t stop = written + per_thread;
        int leaf = 1;
        while (written < stop && written < limit) {
            uint32_t step = next_random() % 10;
            if (step >= 7 || leaf < 2)
                leaf = 2 + (int)(next_random() % (NODES - 2));
            else if (step >= 5)
                leaf = parent[leaf];
            uint32_t n = 0;
            for (int k = leaf; k >= 0; k = parent[k])
                frames[n++] = symbol_of[k];
            put("\t", 1);
            put_u32(1);
            put_u32(0);
            put_u32(1);
            put_u32(n);
            for (uint32_t i = 0; i < n; i++)
                put_u32(frames[i]);
            put("\n", 1);
        }
    }
    put("@end\n", 5);
    return fflush(stdout) == 0 ? 0 : 1;
}
