/* SPDX-License-Identifier: MIT */
/* Writes a large realistic folded-stacks file to standard output: a random call tree walked
 * depth first (so neighbouring lines share prefixes, like flamegraph.pl's sorted input), with
 * C++-, kernel- and JIT-style frame names, every line a distinct stack.
 * Usage: gen_folded MEGABYTES [SEED] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 48
#define NAMES 6000

static uint64_t rng_state;

static uint32_t next_random(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 33);
}

static char names[NAMES][64];
static uint32_t path[MAX_DEPTH];
static uint64_t written, limit;

static void make_names(void)
{
    static const char *const spaces[] = {"app", "net", "db", "std", "io", "json", "gc", "ui"};
    for (int i = 0; i < NAMES; i++) {
        switch (i % 10) {
        case 0:
            snprintf(names[i], sizeof names[i], "do_syscall_%d_[k]", i);
            break;
        case 1:
            snprintf(names[i], sizeof names[i], "Lcom/example/Worker%d;.run_[j]", i);
            break;
        default:
            snprintf(names[i], sizeof names[i], "%s::Handler%d::process(int, char const*)",
                     spaces[i % 8], i);
        }
    }
}

static void emit(int depth, uint32_t count)
{
    char line[MAX_DEPTH * 64 + 32];
    size_t len = 0;
    for (int d = 0; d < depth; d++) {
        size_t n = strlen(names[path[d]]);
        if (d)
            line[len++] = ';';
        memcpy(line + len, names[path[d]], n);
        len += n;
    }
    len += (size_t)snprintf(line + len, sizeof line - len, " %u\n", count);
    fwrite(line, 1, len, stdout);
    written += len;
}

static void walk(int depth)
{
    if (written >= limit)
        return;
    /* Some samples stop here; deeper nodes have fewer children. */
    if (depth > 1 && next_random() % 4 == 0)
        emit(depth, 1 + next_random() % 50);
    if (depth == MAX_DEPTH)
        return;
    uint32_t children = depth < 3 ? 6 + next_random() % 6 : next_random() % (depth < 12 ? 4 : 3);
    if (children == 0 && depth > 1) {
        emit(depth, 1 + next_random() % 200);
        return;
    }
    for (uint32_t c = 0; c < children && written < limit; c++) {
        path[depth] = next_random() % NAMES;
        walk(depth + 1);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gen_folded MEGABYTES [SEED]\n");
        return 2;
    }
    limit = strtoull(argv[1], NULL, 10) << 20;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    make_names();
    path[0] = 0;
    strcpy(names[0], "my-server");
    while (written < limit)
        walk(1);
    return fflush(stdout) == 0 ? 0 : 1;
}
