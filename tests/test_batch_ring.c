/* SPDX-License-Identifier: MIT */
/* The batch ring: every batch the producer fills reaches the consumer once and in order, on a
 * worker thread and without one, with one slot or several; a consumer that stops early ends the
 * worker; a last batch that holds nothing still arrives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/batch_ring.h"

#define ITEMS 64

/* A batch: numbers in sequence. */
typedef struct number_batch {
    uint64_t items[ITEMS];
    size_t count;
} number_batch;

typedef struct counter {
    uint64_t next;  /* the next number to produce */
    uint64_t limit; /* numbers 0 .. limit - 1 */
    size_t per_batch;
    uint64_t fills;
} counter;

static bool fill_numbers(void *context, void *batch)
{
    counter *c = context;
    number_batch *b = batch;
    c->fills++;
    b->count = 0;
    while (b->count < c->per_batch && c->next < c->limit)
        b->items[b->count++] = c->next++;
    return c->next < c->limit;
}

/* Consumes up to stop_after batches (0: all); returns the numbers seen, checking their order. */
static uint64_t run(size_t slots, bool thread, uint64_t limit, size_t per_batch,
                    uint64_t stop_after, uint64_t *batches_seen)
{
    number_batch storage[8];
    void *batches[8];
    for (size_t i = 0; i < 8; i++)
        batches[i] = &storage[i];
    counter c = {0, limit, per_batch, 0};
    pk_batch_ring ring;
    pk_batch_ring_start(&ring, batches, slots, fill_numbers, &c, thread);
    if (!thread || slots < 2)
        assert_false(pk_batch_ring_threaded(&ring));
    uint64_t expect = 0, seen = 0;
    for (number_batch *b; (b = pk_batch_ring_next(&ring));) {
        for (size_t i = 0; i < b->count; i++)
            assert_int_equal(b->items[i], expect++);
        seen++;
        if (stop_after && seen == stop_after)
            break;
    }
    pk_batch_ring_finish(&ring);
    assert_false(pk_batch_ring_threaded(&ring));
    /* The producer's state is the caller's again: it filled at least what was seen. */
    assert_true(c.fills >= seen);
    *batches_seen = seen;
    return expect;
}

static void test_all_in_order(void **state)
{
    (void)state;
    const size_t slot_counts[] = {1, 2, 4, 8};
    for (size_t s = 0; s < 4; s++) {
        for (int thread = 0; thread < 2; thread++) {
            uint64_t batches;
            assert_int_equal(run(slot_counts[s], thread, 100000, 37, 0, &batches), 100000);
            /* 100000 / 37 rounded up; the last one ends the production. */
            assert_int_equal(batches, 2703);
        }
    }
}

static void test_empty_last_batch(void **state)
{
    (void)state;
    for (int thread = 0; thread < 2; thread++) {
        uint64_t batches;
        /* No numbers: one batch, empty, and the end. */
        assert_int_equal(run(4, thread, 0, 10, 0, &batches), 0);
        assert_int_equal(batches, 1);
        /* An exact multiple: the batch that reaches the limit is the last. */
        assert_int_equal(run(4, thread, 640, 64, 0, &batches), 640);
        assert_int_equal(batches, 10);
    }
}

static void test_stop_early(void **state)
{
    (void)state;
    for (int thread = 0; thread < 2; thread++) {
        uint64_t batches;
        assert_int_equal(run(4, thread, 1000000, 10, 3, &batches), 30);
        assert_int_equal(batches, 3);
        assert_int_equal(run(2, thread, 1000000, 10, 1, &batches), 10);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_in_order),
        cmocka_unit_test(test_empty_last_batch),
        cmocka_unit_test(test_stop_early),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
