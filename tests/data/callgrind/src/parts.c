/* Two phases with a dump between them (a client request), for --combine-dumps=yes. */
#include <stdio.h>
#include <valgrind/callgrind.h>

static long __attribute__((noinline)) phase_one(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += i * 3;
    return s;
}

static long __attribute__((noinline)) phase_two(int n)
{
    long s = 1;
    for (int i = 1; i < n; i++)
        s = (s * i) % 1000003;
    return s;
}

int main(void)
{
    long a = phase_one(5000);
    CALLGRIND_DUMP_STATS_AT("after phase one");
    long b = phase_two(7000);
    printf("%ld %ld\n", a, b);
    return 0;
}
