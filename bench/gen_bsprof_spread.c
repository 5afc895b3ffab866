/* SPDX-License-Identifier: MIT */
/* Writes a deterministic .bsprof file of the shape other recorders give, beside gen_bsprof's
 * channel: many path elements, a line offset in every CPU entry, CPU and wall increments spread
 * over the whole 32-bit range (most of their varints five bytes long), and call-count entries
 * nearly as frequent as CPU entries.
 *
 * usage: gen_bsprof_spread [--size SIZE] [--seed N] [--paths N] [--calls-percent N]
 *                          [--max-offset N] [--cpu-max N] OUTPUT
 *
 * SIZE is a byte count with an optional K, M or G suffix (default 1M); the file ends with the
 * first complete entry past it. --paths is the number of path elements (default 3000): a call
 * tree of 600 functions in 40 files under 4 modules, each element defined just before its first
 * use, as a device streams them. Entries pick a path element with a skew (a few hot ones, a long
 * tail). --calls-percent (default 45) is the share of call-count entries (counts 1 to 8), CPU
 * entries take the rest, each with a line offset from 1 to --max-offset (default 60) and CPU
 * and wall increments uniform in 0 to --cpu-max (default 4294967295).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_PROGRAM "gen_bsprof_spread"
#include "gen_output.h"

#define FUNCTIONS 600
#define FILES 40
#define MODULES 4

/* String IDs: 1..FILES the files, then the function names, then the module names. */
static bool string_defined[FILES + FUNCTIONS + MODULES + 1];

static uint32_t string_id(uint32_t id)
{
    if (!string_defined[id]) {
        char text[64];
        if (id <= FILES)
            snprintf(text, sizeof text, "pkg:/components/part%02u/Logic%02u.brs", id % 7, id);
        else if (id <= FILES + FUNCTIONS)
            snprintf(text, sizeof text, "handler_%u_%s", id - FILES,
                     (const char *[]){"onEvent", "update", "render", "fetch"}[id % 4]);
        else
            snprintf(text, sizeof text, "Module%u", id - FILES - FUNCTIONS);
        put_varint((uint64_t)id << 3 | 0);
        put_cstring(text);
        string_defined[id] = true;
    }
    return id;
}

typedef struct path_def {
    uint32_t caller; /* 0 for a root */
    uint32_t function;
    uint32_t module;
    bool defined;
} path_def;

static path_def *paths;
static uint32_t path_count = 3000;
static bool module_defined[MODULES + 1];
static uint64_t path_definitions;

/* Defines path element id (and its callers first) when the stream has not yet done so. */
static void define_path(uint32_t id)
{
    path_def *p = &paths[id];
    if (p->defined)
        return;
    if (p->caller)
        define_path(p->caller);
    uint32_t function = p->function;
    uint32_t file = string_id(1 + function % FILES);
    uint32_t name = string_id(FILES + 1 + function);
    if (!p->caller && !module_defined[p->module]) {
        uint32_t module_name = string_id(FILES + FUNCTIONS + p->module);
        put_varint((uint64_t)p->module << 3 | 1);
        put_varint(module_name);
        module_defined[p->module] = true;
    }
    put_varint((uint64_t)id << 3 | 2);
    put_varint(p->caller);
    if (!p->caller)
        put_varint(p->module);
    else
        put_varint(1 + (id * 2654435761u >> 7) % 60);
    put_varint(file);
    put_varint(1 + function * 37 % 900);
    put_varint(name);
    p->defined = true;
    path_definitions++;
}

/* A skewed pick in [1, n]: a quarter of the picks among the first 1%, the rest uniform. */
static uint32_t pick_path(uint32_t n)
{
    uint32_t hot = n / 100 ? n / 100 : 1;
    return 1 + (rng_below(4) == 0 ? rng_below(hot) : rng_below(n));
}

static uint64_t parse_size(const char *text)
{
    char *end;
    uint64_t v = strtoull(text, &end, 10);
    const char *suffixes = "KMG";
    const char *suffix = *end ? strchr(suffixes, *end & ~0x20) : NULL;
    if (suffix) {
        v <<= 10 * (1 + (suffix - suffixes));
        end++;
    }
    if (*end || end == text) {
        fprintf(stderr, "gen_bsprof_spread: bad size %s\n", text);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    uint64_t target_size = 1u << 20, seed = 20261129;
    uint32_t calls_percent = 45, max_offset = 60, cpu_max = UINT32_MAX;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
            target_size = parse_size(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--paths") == 0 && i + 1 < argc &&
                 (path_count = (uint32_t)strtoul(argv[++i], NULL, 10)) >= 1 &&
                 path_count <= 1000000)
            ;
        else if (strcmp(argv[i], "--calls-percent") == 0 && i + 1 < argc &&
                 (calls_percent = (uint32_t)strtoul(argv[++i], NULL, 10)) <= 100)
            ;
        else if (strcmp(argv[i], "--max-offset") == 0 && i + 1 < argc &&
                 (max_offset = (uint32_t)strtoul(argv[++i], NULL, 10)) >= 1)
            ;
        else if (strcmp(argv[i], "--cpu-max") == 0 && i + 1 < argc)
            cpu_max = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf(stderr, "usage: gen_bsprof_spread [--size SIZE] [--seed N] [--paths N] "
                            "[--calls-percent N] [--max-offset N] [--cpu-max N] OUTPUT\n");
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "gen_bsprof_spread: no output file\n");
        return 2;
    }
    rng_state = seed;
    /* The call tree: the first elements are the modules' roots, every later one is called
     * from an earlier one, most often from a recent one (calls nest a few levels deep). */
    paths = calloc((size_t)path_count + 1, sizeof *paths);
    if (!paths)
        return 1;
    for (uint32_t id = 1; id <= path_count; id++) {
        paths[id].function = rng_below(FUNCTIONS);
        paths[id].module = 1 + rng_below(MODULES);
        if (id > MODULES) {
            uint32_t back = 1 + rng_below(id - 1 < 64 ? id - 1 : 64);
            paths[id].caller = rng_below(3) == 0 ? 1 + rng_below(id - 1) : id - back;
            paths[id].module = paths[paths[id].caller].module;
        }
    }
    out_file = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
    if (!out_file) {
        perror(path);
        return 1;
    }
    static char buffer[1 << 20];
    setvbuf(out_file, buffer, _IOFBF, sizeof buffer);

    /* The header: version 1.0.0, padded to 96 bytes, line data on, memory operations off. */
    static const char *const texts[6] = {"Spread Channel", "", "1.0.0", "Roku", "3941X",
                                         "11.5.0.4312"};
    const uint64_t header_size = 96;
    put_bytes("bsprof\0\0", 8);
    put_varint(1);
    put_varint(0);
    put_varint(0);
    put_varint(header_size);
    const uint8_t one_f32le[4] = {0x00, 0x00, 0x80, 0x3f};
    put_bytes(one_f32le, 4);
    put_bytes(one_f32le, 4);
    put_varint(1);
    put_varint(0);
    put_varint(1764400000000ULL);
    for (int i = 0; i < 6; i++)
        put_cstring(texts[i]);
    while (out_bytes < header_size)
        put_bytes("", 1);

    uint64_t cpu_entries = 0, call_entries = 0, long_values = 0, wall_total = 0;
    while (out_bytes < target_size) {
        uint32_t id = pick_path(path_count);
        define_path(id);
        if (rng_below(100) < calls_percent) {
            put_varint((uint64_t)id << 3 | 5);
            put_varint(1 + rng_below(8));
            call_entries++;
        } else {
            uint32_t cpu = (uint32_t)(rng_next() % ((uint64_t)cpu_max + 1));
            uint32_t wall = (uint32_t)(rng_next() % ((uint64_t)cpu_max + 1));
            put_varint((uint64_t)id << 3 | 4);
            put_varint(1 + rng_below(max_offset));
            put_varint(cpu);
            put_varint(wall);
            long_values += (cpu >= 1u << 28) + (wall >= 1u << 28);
            wall_total += wall;
            cpu_entries++;
        }
    }
    put_varint(0);
    put_varint(1764400000000ULL + 60000 + wall_total / 1000000);
    if (fclose(out_file) != 0) {
        perror(path);
        return 1;
    }
    fprintf(stderr,
            "gen_bsprof_spread: %s: %" PRIu64 " bytes, %" PRIu64 " entries (%" PRIu64
            " cpu, %" PRIu64 " call-count), %" PRIu64 " path elements defined, %" PRIu64
            " five-byte values\n",
            path, out_bytes, cpu_entries + call_entries, cpu_entries, call_entries,
            path_definitions, long_values);
    free(paths);
    return 0;
}
