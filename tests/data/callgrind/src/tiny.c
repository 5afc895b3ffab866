#include <stdio.h>

static unsigned long leaf(unsigned long n)
{
    unsigned long s = 0;
    for (unsigned long i = 0; i < n; i++)
        s += i * i;
    return s;
}

static unsigned long middle(unsigned long n)
{
    return leaf(n) + leaf(n / 2);
}

int main(void)
{
    unsigned long total = 0;
    for (int i = 0; i < 100; i++)
        total += middle(1000);
    printf("%lu\n", total);
    return 0;
}
