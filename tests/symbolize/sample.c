/* SPDX-License-Identifier: MIT */
/* A program for the symbolizer's tests (test_symbolize.c), which builds it in several ways
 * (DWARF 4 and 5, PIE and not, stripped, with separate debug files) and runs it: it records the
 * return addresses of calls made from the places below and prints, one per line,
 *   LABEL ADDRESS
 * for each, then its own /proc/self/maps, so that the test knows where the code of each place
 * was mapped. The lines marked "at: NAME" are the lines the test expects for NAME. */
#include <stdio.h>

#define SAMPLE_MAX 16

static const char *labels[SAMPLE_MAX];
static void *addresses[SAMPLE_MAX];
static int count;

/* Called from every place: its return address is a code address inside the caller. */
__attribute__((noinline)) void sample_record(const char *label)
{
    if (count < SAMPLE_MAX) {
        labels[count] = label;
        addresses[count++] = __builtin_return_address(0);
    }
    /* Keeps the call a call (not a jump) and the function out of identical-code folding. */
    __asm__ volatile("" ::: "memory");
}

/* Two levels of inlining into outer: the address in innermost's code is named outer, then
 * middle, then innermost. outer starts two pages into the code, so that the code spans more
 * than a page and a mapping can start inside it. */
static inline __attribute__((always_inline)) void innermost(int depth)
{
    sample_record("inlined"); /* at: inlined */
    __asm__ volatile("" ::"r"(depth) : "memory");
}

static inline __attribute__((always_inline)) void middle(int depth)
{
    innermost(depth + 1); /* at: innermost called */
    __asm__ volatile("" ::"r"(depth) : "memory");
}

__attribute__((noinline, aligned(8192))) void outer(void)
{
    middle(1); /* at: middle called */
    __asm__ volatile("" ::: "memory");
}

/* Two places in one function without inlining. */
__attribute__((noinline)) void plain(void)
{
    sample_record("plain"); /* at: plain */
    sample_record("plain again"); /* at: plain again */
    __asm__ volatile("" ::: "memory");
}

/* A function whose symbol is a C++ mangled name (mangled(int)): named by demangling when only
 * the symbol table names it. */
__attribute__((noinline)) void mangled(int) __asm__("_Z7mangledi");
__attribute__((noinline)) void mangled(int n)
{
    sample_record("mangled"); /* at: mangled */
    __asm__ volatile("" ::"r"(n) : "memory");
}

#ifdef SAMPLE_ASM
/* In sample_asm.S: code with lines but no function in the debug information. */
void asm_leaf(void);
#endif

int main(void)
{
    outer();
    plain();
    mangled(3);
#ifdef SAMPLE_ASM
    asm_leaf();
#endif
    for (int i = 0; i < count; i++)
        printf("%s %p\n", labels[i], addresses[i]);
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps)
        return 1;
    char line[4096];
    while (fgets(line, sizeof line, maps))
        fputs(line, stdout);
    fclose(maps);
    return 0;
}
