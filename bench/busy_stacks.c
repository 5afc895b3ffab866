/* SPDX-License-Identifier: MIT */
/* A busy program for perf record benchmarks (bench/bench_perf_data.sh): one thread a processor,
 * each descending again and again through a chain of four functions to a depth of 8 to 60 (16
 * to 120 frames, inside perf's default limit of 127) and spinning at the bottom. Which function
 * is at which level follows one of 16 routes, so there are about a thousand distinct stacks
 * however long it runs, as in a real program. It stops when the process has used SECONDS of
 * CPU time, so a recording at a fixed period (`perf record -c`) has as many samples whatever
 * the machine's load.
 *
 *   busy_stacks CPU_SECONDS */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;
static double stop_at;

static double cpu_time(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void step(unsigned route, unsigned level, unsigned depth);

#define LEVEL(name, salt)                                                                      \
    __attribute__((noinline)) static void name(unsigned route, unsigned level, unsigned depth) \
    {                                                                                          \
        if (level == depth) {                                                                  \
            for (uint64_t i = 0; i < 20000u; i++)                                              \
                sink += i * (salt);                                                            \
            return;                                                                            \
        }                                                                                      \
        step(route, level + 1, depth);                                                         \
        __asm__ volatile("" ::: "memory");                                                     \
    }
LEVEL(parse, 3u)
LEVEL(resolve, 5u)
LEVEL(evaluate, 7u)
LEVEL(emit, 11u)

__attribute__((noinline)) static void step(unsigned route, unsigned level, unsigned depth)
{
    switch ((route + level * (route % 3 + 1)) % 4) {
    case 0: parse(route, level, depth); break;
    case 1: resolve(route, level, depth); break;
    case 2: evaluate(route, level, depth); break;
    default: emit(route, level, depth); break;
    }
}

static void *work(void *arg)
{
    uint32_t seed = (uint32_t)(uintptr_t)arg * 2654435761u + 1;
    while (cpu_time() < stop_at) {
        for (int k = 0; k < 64; k++) {
            seed = seed * 1103515245u + 12345u;
            step((seed >> 8) % 16, 0, 8 + (seed >> 16) % 53);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    stop_at = argc > 1 ? atof(argv[1]) : 10.0;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1 || n > 64)
        n = 1;
    pthread_t threads[64];
    for (long i = 1; i < n; i++)
        pthread_create(&threads[i], NULL, work, (void *)(uintptr_t)i);
    work((void *)0);
    for (long i = 1; i < n; i++)
        pthread_join(threads[i], NULL);
    return 0;
}
