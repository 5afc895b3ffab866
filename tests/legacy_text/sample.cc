// SPDX-License-Identifier: MIT
// Writes tcmalloc's sampled heap profile (heap_v2/RATE: MallocExtension::GetHeapSample) and its
// heap growth stacks (GetHeapGrowthStacks) of a program that leaks, for the legacy text
// fixtures (tests/data/legacy_text/make.sh). Run with TCMALLOC_SAMPLE_PARAMETER=RATE.
#include <gperftools/malloc_extension.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

static void *volatile kept[4096];

__attribute__((noinline)) static void *make_buffer(size_t n)
{
    void *p = malloc(n);
    if (p)
        memset(p, 1, n);
    return p;
}

__attribute__((noinline)) static void leak_small(int i) { kept[i] = make_buffer(100 + i % 50); }
__attribute__((noinline)) static void leak_big(int i) { kept[3000 + i] = make_buffer(1 << 20); }

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    for (int i = 0; i < 3000; i++)
        leak_small(i);
    for (int i = 0; i < 8; i++)
        leak_big(i);
    std::string sample, growth;
    MallocExtension::instance()->GetHeapSample(&sample);
    MallocExtension::instance()->GetHeapGrowthStacks(&growth);
    FILE *a = fopen(argv[1], "w"), *b = fopen(argv[2], "w");
    if (!a || !b)
        return 1;
    fwrite(sample.data(), 1, sample.size(), a);
    fwrite(growth.data(), 1, growth.size(), b);
    return fclose(a) || fclose(b);
}
