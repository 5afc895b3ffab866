/* SPDX-License-Identifier: MIT */
/* A producer and a consumer of batches, on two threads when the process may use two
 * processors: a worker thread fills batches (fill) while the caller takes the filled ones in
 * order, through a bounded ring of batches the caller provides. With a single processor, or when
 * the thread cannot be started, the caller's own thread fills each batch as it asks for it; the
 * batches and their order are the same either way.
 *
 *     pk_batch_ring ring;
 *     pk_batch_ring_start(&ring, slots, 4, fill, &producer, true);
 *     for (void *batch; (batch = pk_batch_ring_next(&ring));) ...consume batch...
 *     pk_batch_ring_finish(&ring);    (also after stopping early: the worker ends)
 *
 * The producer's state belongs to fill until pk_batch_ring_finish returns; a batch belongs to
 * the consumer from pk_batch_ring_next until the next call. */
#ifndef PK_CORE_BATCH_RING_H
#define PK_CORE_BATCH_RING_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fills batch with the next part of the work. Returns false when this batch is the last one (it
 * is still handed over; it may hold nothing). */
typedef bool (*pk_batch_fill_fn)(void *context, void *batch);

typedef struct pk_batch_ring {
    void *const *batches;
    size_t count;
    pk_batch_fill_fn fill;
    void *context;
    bool threaded;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    /* Batches filled, taken by the consumer, and given back by it (the one it holds is taken,
     * not given back): the worker fills while fewer than count are neither empty nor given back. */
    uint64_t filled, taken, returned;
    bool last_filled; /* fill said its batch was the last */
    bool stop;        /* the consumer wants no more batches */
} pk_batch_ring;

/* Starts the ring over count (>= 1) batches; with use_thread, a worker thread fills them when the
 * process may use more than one processor. */
void pk_batch_ring_start(pk_batch_ring *r, void *const *batches, size_t count,
                         pk_batch_fill_fn fill, void *context, bool use_thread);
/* Gives back the batch returned last and returns the next filled one, NULL after the last. */
void *pk_batch_ring_next(pk_batch_ring *r);
/* Stops the producer after the batch it is filling, if any, and ends the worker. */
void pk_batch_ring_finish(pk_batch_ring *r);
/* True when batches are filled on a worker thread. */
static inline bool pk_batch_ring_threaded(const pk_batch_ring *r)
{
    return r->threaded;
}

#endif
