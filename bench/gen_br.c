/* SPDX-License-Identifier: MIT */
/* Writes a large realistic BR profiler file to standard output: 60 modules, labelled frames
 * (FUNCTION NAME, GOSUB, main routine) along the paths of a random call tree of 40000 lines,
 * each group one sample with its backtrace (nearest caller first), and with --timed a TIME
 * SPENT IN LINE record per group. Like a program sampled over time, half of the samples stay
 * on the previous line, a fifth move to its caller, the rest jump anywhere.
 * Usage: gen_br MEGABYTES [SEED] [--timed] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODULES 60
#define NODES 40000
#define MAX_DEPTH 24

static uint64_t rng_state;

static uint32_t next_random(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 33);
}

typedef struct node {
    int parent;
    int depth;
    uint16_t module;
    uint32_t line;
    uint8_t clause;
    uint8_t label; /* 7 function, 8 gosub, 9 main */
    char function[24];
} node;

static node nodes[NODES];
static int mapped[MODULES + 1];
static uint64_t written;

static void put(const void *data, size_t n)
{
    fwrite(data, 1, n, stdout);
    written += n;
}

static void put_frame(uint8_t type, const node *n)
{
    uint8_t rec[8] = {type, (uint8_t)(n->module >> 8), (uint8_t)n->module,
                      (uint8_t)(n->line >> 24), (uint8_t)(n->line >> 16), (uint8_t)(n->line >> 8),
                      (uint8_t)n->line, n->clause};
    put(rec, sizeof rec);
    if (n->label == 7) {
        uint8_t head[2] = {7, (uint8_t)strlen(n->function)};
        put(head, 2);
        put(n->function, head[1]);
    } else {
        put(&n->label, 1);
    }
}

static void map_module(uint16_t module)
{
    if (mapped[module])
        return;
    mapped[module] = 1;
    char name[64];
    if (module % 3)
        snprintf(name, sizeof name, "C:\\APPS\\LEDGER\\MOD%02u.BR", module);
    else
        snprintf(name, sizeof name, "/srv/br/lib/library%02u.wb", module);
    size_t len = strlen(name);
    uint8_t head[5] = {1, (uint8_t)(module >> 8), (uint8_t)module, (uint8_t)(len >> 8),
                       (uint8_t)len};
    put(head, sizeof head);
    put(name, len);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gen_br MEGABYTES [SEED] [--timed]\n");
        return 2;
    }
    uint64_t limit = strtoull(argv[1], NULL, 10) << 20;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    int timed = argc > 3 && strcmp(argv[3], "--timed") == 0;
    for (int i = 0; i < NODES; i++) {
        node *n = &nodes[i];
        n->parent = i == 0 ? -1 : (int)(next_random() % (uint32_t)(i < 64 ? i : i / 2 + 1));
        if (n->parent >= 0 && nodes[n->parent].depth >= MAX_DEPTH - 1)
            n->parent = (int)(next_random() % 64);
        n->depth = n->parent < 0 ? 1 : nodes[n->parent].depth + 1;
        n->module = (uint16_t)(1 + next_random() % MODULES);
        n->line = 10 * (1 + next_random() % 9000);
        n->clause = (uint8_t)(1 + next_random() % 3);
        uint32_t kind = next_random() % 10;
        n->label = i == 0 || kind == 0 ? 9 : kind < 3 ? 8 : 7;
        snprintf(n->function, sizeof n->function, "FN%c%04u%s", 'A' + (int)(next_random() % 26),
                 next_random() % 10000, next_random() % 4 ? "" : "$");
    }
    setvbuf(stdout, NULL, _IOFBF, 1 << 20);
    int leaf = 0;
    while (written < limit) {
        uint32_t step = next_random() % 10;
        if (step >= 7 || leaf == 0)
            leaf = (int)(next_random() % NODES);
        else if (step >= 5)
            leaf = nodes[leaf].parent;
        for (int k = leaf; k >= 0; k = nodes[k].parent)
            map_module(nodes[k].module);
        put_frame(3, &nodes[leaf]);
        if (timed) {
            uint64_t ns = 1000 + next_random() % 5000000;
            uint8_t rec[9] = {4};
            for (int i = 0; i < 8; i++)
                rec[1 + i] = (uint8_t)(ns >> (56 - 8 * i));
            put(rec, sizeof rec);
        }
        for (int k = nodes[leaf].parent; k >= 0; k = nodes[k].parent)
            put_frame(5, &nodes[k]);
        uint8_t end = 6;
        put(&end, 1);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
