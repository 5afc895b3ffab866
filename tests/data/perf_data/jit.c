/* SPDX-License-Identifier: MIT */
/* A stand-in for a JIT compiler, for perf record: it copies two small x86-64 functions into
 * anonymous executable memory and writes their names to /tmp/perf-PID.map (or to the file named
 * by its first argument), the `START SIZE name` lines node --perf-basic-prof and the Java agents
 * write, and prints the map's path. A third function is left out of the map: perf names it
 * `[unknown]`.
 *
 * Each function is `push rbp; mov rbp, rsp; mov rcx, rdi; 1: dec rcx; jnz 1b; pop rbp; ret`:
 * a busy loop of rdi turns with a frame, so frame-pointer callchains go through it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const unsigned char loop_code[] = {0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xf9, 0x48,
                                          0xff, 0xc9, 0x75, 0xfb, 0x5d, 0xc3};

typedef void jitted(unsigned long turns);

__attribute__((noinline)) static void run(jitted *f, unsigned long turns)
{
    f(turns);
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
    unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED)
        return 1;
    for (int i = 0; i < 3; i++)
        memcpy(code + 64 * i, loop_code, sizeof loop_code);
    char path[64];
    snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
    FILE *map = fopen(argc > 1 ? argv[1] : path, "w");
    if (!map)
        return 1;
    fprintf(map, "%lx %zx JS:*hot /srv/app/math.js:1:14\n", (unsigned long)code,
            sizeof loop_code);
    fprintf(map, "%lx %zx LazyCompile:warm\n", (unsigned long)(code + 64), sizeof loop_code);
    fclose(map);
    printf("%s\n", argc > 1 ? argv[1] : path);
    fflush(stdout);
    for (int round = 0; round < 4; round++) {
        run((jitted *)code, 150000000ul);
        run((jitted *)(code + 64), 75000000ul);
        run((jitted *)(code + 128), 40000000ul);
    }
    return 0;
#else
    (void)argc;
    (void)argv;
    return 2;
#endif
}
