/* SPDX-License-Identifier: MIT */
/* Generates a large heaptrack recording, as heaptrack_interpret writes it (file format 3), on
 * standard output; compress it with `zstd` as heaptrack does.
 *
 *   gen_heaptrack [--events N] [--functions N] [--stacks N] [--live N] [--seed N]
 *
 * A program of FUNCTIONS functions (default 2,000) in four modules, with C++-like names of
 * 20 to 120 characters, files and lines; STACKS distinct call stacks (default 20,000) grown as
 * a tree from main (each a recent stack plus one to three frames, so that they share prefixes as
 * a real program's do), each with one to four allocation sizes; then EVENTS allocation events
 * (default 20 million, about half allocations and half frees): a live set of at most LIVE
 * blocks (default 100,000) whose oldest or a random one is freed, and one allocation in four
 * freed right away (heaptrack's temporary allocations). A time stamp every 5,000 events and the
 * RSS every 50,000, as heaptrack's timer writes them. New sites keep appearing as events go, as
 * in a real run (their records come before their first allocation).
 *
 * Prints what it wrote (allocations, frees, stacks, sizes) on standard error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static uint64_t strings;
static uint64_t put_string(const char *s)
{
    printf("s %zx %s\n", strlen(s), s);
    return ++strings;
}

int main(int argc, char **argv)
{
    uint64_t events = 20000000, functions = 2000, stacks = 20000, live_max = 100000;
    for (int i = 1; i + 1 < argc; i += 2) {
        uint64_t v = strtoull(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--events") == 0)
            events = v;
        else if (strcmp(argv[i], "--functions") == 0)
            functions = v;
        else if (strcmp(argv[i], "--stacks") == 0)
            stacks = v;
        else if (strcmp(argv[i], "--live") == 0)
            live_max = v;
        else if (strcmp(argv[i], "--seed") == 0)
            rng_state = v | 1;
        else {
            fprintf(stderr, "usage: gen_heaptrack [--events N] [--functions N] [--stacks N] "
                            "[--live N] [--seed N]\n");
            return 2;
        }
    }
    if (functions < 2 || stacks < 1 || live_max < 1)
        return 2;
    static char buf[1 << 16];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    printf("v 10400 3\nX ./bench_program --run\nI 1000 5e298d\n");
    uint64_t modules[4];
    const char *module_names[4] = {"/usr/bin/bench_program", "/usr/lib/libbench_core.so.1",
                                   "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
                                   "/lib/x86_64-linux-gnu/libc.so.6"};
    for (int m = 0; m < 4; m++)
        modules[m] = put_string(module_names[m]);
    /* functions: name, file, module; their instruction pointers are made as stacks use them */
    uint64_t *fn_name = malloc(functions * sizeof *fn_name);
    uint64_t *fn_file = malloc(functions * sizeof *fn_file);
    uint64_t *trace_parent = malloc((stacks + 1) * sizeof *trace_parent);
    /* the first allocation info of each trace and how many it has (none for a trace that is
     * only a caller) */
    uint64_t *info_of_trace = calloc(stacks + 1, sizeof *info_of_trace);
    uint64_t *infos_of_trace = calloc(stacks + 1, sizeof *infos_of_trace);
    uint64_t *live = malloc(live_max * sizeof *live);
    if (!fn_name || !fn_file || !trace_parent || !info_of_trace ||
        !infos_of_trace || !live)
        return 1;
    char name[256];
    uint64_t files[64];
    for (int f = 0; f < 64; f++) {
        snprintf(name, sizeof name, "/home/dev/bench/src/component_%02d/module_%d.cpp", f / 4,
                 f);
        files[f] = put_string(name);
    }
    for (uint64_t f = 0; f < functions; f++) {
        int len = 20 + (int)(rng() % 100);
        int n = snprintf(name, sizeof name, "bench::component_%" PRIu64 "::Worker<int>::step_%" PRIu64 "(",
                         f % 97, f);
        while (n < len && n < (int)sizeof name - 8)
            n += snprintf(name + n, sizeof name - (size_t)n, "%s", "const std::string&, ");
        snprintf(name + n, sizeof name - (size_t)n, "int)");
        fn_name[f] = f == 0 ? put_string("main") : put_string(name);
        fn_file[f] = files[f % 64];
    }
    uint64_t ips = 0, traces = 0, infos = 0;
    uint64_t address = 0x55d0c0de1000ull;
    /* a new stack: a recent one (or main's) plus one to three frames */
    trace_parent[0] = 0;
    uint64_t allocations = 0, frees = 0, live_count = 0, time = 0, n = 0;
    while (n < events) {
        if (traces < stacks && (traces < 64 || rng() % 256 == 0)) {
            uint64_t parent = traces == 0 ? 0 : traces - rng() % (traces < 50 ? traces : 50);
            uint64_t depth = 1 + rng() % 3;
            for (uint64_t d = 0; d < depth && traces < stacks; d++) {
                uint64_t f = traces == 0 && d == 0 ? 0 : 1 + rng() % (functions - 1);
                address += 16 + rng() % 4096;
                if (rng() % 8 == 0) /* an inlined frame */
                    printf("i %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64
                           " %" PRIx64 " %" PRIx64 " %" PRIx64 "\n",
                           address, modules[f % 4], fn_name[f], fn_file[f], 10 + rng() % 2000,
                           fn_name[(f + 1) % functions], fn_file[f], 10 + rng() % 2000);
                else
                    printf("i %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 "\n",
                           address, modules[f % 4], fn_name[f], fn_file[f], 10 + rng() % 2000);
                ips++;
                printf("t %" PRIx64 " %" PRIx64 "\n", ips, parent);
                traces++;
                trace_parent[traces] = parent;
                parent = traces;
            }
            /* its sizes: one to four allocation infos */
            uint64_t sizes = 1 + rng() % 4;
            info_of_trace[traces] = infos;
            infos_of_trace[traces] = sizes;
            for (uint64_t s = 0; s < sizes; s++) {
                printf("a %" PRIx64 " %" PRIx64 "\n", 8 + (rng() % 64) * (1 + rng() % 64),
                       traces);
                infos++;
            }
        }
        /* an allocation at a stack with sizes (skewed towards a few hot ones) */
        uint64_t t = traces - (rng() % 4 == 0 ? rng() % traces : rng() % (traces < 16 ? traces : 16));
        if (infos_of_trace[t] == 0)
            t = traces; /* the last stack made always has sizes */
        uint64_t info = info_of_trace[t] + rng() % infos_of_trace[t];
        printf("+ %" PRIx64 "\n", info);
        allocations++;
        n++;
        if (rng() % 4 == 0) {
            printf("- %" PRIx64 "\n", info);
            frees++;
            n++;
        } else if (live_count < live_max) {
            live[live_count++] = info;
        } else {
            uint64_t k = rng() % live_count;
            printf("- %" PRIx64 "\n", live[k]);
            frees++;
            n++;
            live[k] = info;
        }
        if (n % 5000 < 2) {
            time += 1 + rng() % 3;
            printf("c %" PRIx64 "\n", time);
            if (n % 50000 < 2)
                printf("R %" PRIx64 "\n", 2000 + live_count / 64);
        }
    }
    /* the program frees half of what is live before it ends */
    for (uint64_t k = 0; k < live_count / 2; k++) {
        printf("- %" PRIx64 "\n", live[k]);
        frees++;
    }
    printf("c %" PRIx64 "\n", time + 1);
    fflush(stdout);
    fprintf(stderr, "%" PRIu64 " allocations, %" PRIu64 " frees, %" PRIu64 " stacks, %" PRIu64
                    " allocation infos, %" PRIu64 " instruction pointers\n",
            allocations, frees, traces, infos, ips);
    free(fn_name);
    free(fn_file);
    free(trace_parent);
    free(info_of_trace);
    free(infos_of_trace);
    free(live);
    return ferror(stdout) ? 1 : 0;
}
