/* SPDX-License-Identifier: MIT */
/* Batches filled on a worker thread and consumed by the caller (core/batch_ring.h). */
#include "core/batch_ring.h"

#include <string.h>

#include "core/processors.h"

static void *ring_worker(void *arg)
{
    pk_batch_ring *r = arg;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        while (!r->stop && r->filled - r->returned >= r->count)
            pthread_cond_wait(&r->changed, &r->lock);
        if (r->stop)
            break;
        void *batch = r->batches[r->filled % r->count];
        pthread_mutex_unlock(&r->lock);
        bool more = r->fill(r->context, batch);
        pthread_mutex_lock(&r->lock);
        r->filled++;
        r->last_filled = !more;
        pthread_cond_broadcast(&r->changed);
        if (!more)
            break;
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

void pk_batch_ring_start(pk_batch_ring *r, void *const *batches, size_t count,
                         pk_batch_fill_fn fill, void *context, bool use_thread)
{
    memset(r, 0, sizeof *r);
    r->batches = batches;
    r->count = count;
    r->fill = fill;
    r->context = context;
    if (!use_thread || count < 2 || !pk_several_processors())
        return;
    if (pthread_mutex_init(&r->lock, NULL) != 0)
        return;
    if (pthread_cond_init(&r->changed, NULL) != 0) {
        pthread_mutex_destroy(&r->lock);
        return;
    }
    if (pthread_create(&r->thread, NULL, ring_worker, r) != 0) {
        pthread_cond_destroy(&r->changed);
        pthread_mutex_destroy(&r->lock);
        return;
    }
    r->threaded = true;
}

void *pk_batch_ring_next(pk_batch_ring *r)
{
    if (!r->threaded) {
        if (r->last_filled || r->stop)
            return NULL;
        r->last_filled = !r->fill(r->context, r->batches[0]);
        r->filled++;
        r->taken++;
        r->returned = r->taken - 1;
        return r->batches[0];
    }
    pthread_mutex_lock(&r->lock);
    if (r->taken > r->returned) {
        r->returned = r->taken;
        pthread_cond_broadcast(&r->changed);
    }
    while (r->taken == r->filled && !r->last_filled)
        pthread_cond_wait(&r->changed, &r->lock);
    void *batch = NULL;
    if (r->taken < r->filled)
        batch = r->batches[r->taken++ % r->count];
    pthread_mutex_unlock(&r->lock);
    return batch;
}

void pk_batch_ring_finish(pk_batch_ring *r)
{
    if (!r->threaded) {
        r->stop = true;
        return;
    }
    pthread_mutex_lock(&r->lock);
    r->stop = true;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
    pthread_cond_destroy(&r->changed);
    pthread_mutex_destroy(&r->lock);
    r->threaded = false;
}
