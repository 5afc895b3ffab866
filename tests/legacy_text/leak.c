/* SPDX-License-Identifier: MIT */
/* A small program that allocates and leaks, for the legacy text (heap profile) tests: small
 * blocks leaked from one call path, big blocks churned (allocated and freed) from another, one
 * large block leaked from a third, on the main thread and on a second one. Built with frame
 * pointers; run with tcmalloc (LD_PRELOAD=libtcmalloc.so HEAPPROFILE=PREFIX) or jemalloc
 * (LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=prof:true,prof_final:true,...). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void *volatile kept[128];

__attribute__((noinline)) static void *make_buffer(size_t n)
{
    void *p = malloc(n);
    if (p)
        memset(p, 1, n);
    return p;
}

__attribute__((noinline)) static void leak_small(int i)
{
    kept[i % 64] = make_buffer(100 + (size_t)i);
}

__attribute__((noinline)) static void churn(void)
{
    for (int i = 0; i < 1000; i++)
        free(make_buffer(4096));
}

__attribute__((noinline)) static void leak_big(void)
{
    kept[63] = make_buffer((size_t)1 << 20);
}

__attribute__((noinline)) static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 40; i++)
        kept[64 + i] = make_buffer(3000);
    return NULL;
}

int main(void)
{
    for (int i = 0; i < 60; i++)
        leak_small(i);
    churn();
    leak_big();
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) == 0)
        pthread_join(t, NULL);
    return kept[0] == NULL;
}
