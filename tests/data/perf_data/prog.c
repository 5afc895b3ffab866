/* SPDX-License-Identifier: MIT */
/* A small program for perf record: two threads of work with distinct call paths. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static void spin(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i * 2654435761u;
}

static void leaf_a(void) { spin(3000000); }
static void leaf_b(void) { spin(1500000); }

static void recurse(int depth)
{
    if (depth == 0) {
        leaf_a();
        return;
    }
    recurse(depth - 1);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20; i++)
        leaf_b();
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    for (int i = 0; i < 20; i++) {
        recurse(4);
        leaf_b();
    }
    pthread_join(t, NULL);
    printf("%lu\n", sink);
    return 0;
}
