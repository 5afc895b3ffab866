/* Small program for callgrind fixtures: recursion, several functions, an inlined helper. */
#include <stdio.h>
#include <stdlib.h>

#include "square.h"

static long __attribute__((noinline)) fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static long __attribute__((noinline)) sum_squares(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += square(i);
    return s;
}

static long __attribute__((noinline)) work(int n)
{
    return fib(n) + sum_squares(n * 100);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 15;
    long r = 0;
    for (int i = 0; i < 3; i++)
        r += work(n);
    printf("%ld\n", r);
    return 0;
}
