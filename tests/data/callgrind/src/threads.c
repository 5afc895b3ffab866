/* Two worker threads doing different work, for --separate-threads=yes. */
#include <pthread.h>
#include <stdio.h>

static long __attribute__((noinline)) spin(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += i ^ (s >> 3);
    return s;
}

static long __attribute__((noinline)) count_bits(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += __builtin_popcountl((unsigned long)i);
    return s;
}

static void *worker_a(void *arg) { *(long *)arg = spin(20000); return NULL; }
static void *worker_b(void *arg) { *(long *)arg = count_bits(30000); return NULL; }

int main(void)
{
    pthread_t a, b;
    long ra = 0, rb = 0;
    pthread_create(&a, NULL, worker_a, &ra);
    pthread_create(&b, NULL, worker_b, &rb);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%ld %ld\n", ra, rb);
    return 0;
}
