/* SPDX-License-Identifier: MIT */
#include "formats/pprof/arena.h"

#include <stdint.h>
#include <stdlib.h>

struct pprof_arena_chunk {
    pprof_arena_chunk *next;
    size_t capacity;
    size_t used;
    max_align_t data[];
};

#define CHUNK_BYTES (64u << 10)

static void *arena_alloc(void *context, size_t size)
{
    pprof_arena *a = context;
    size_t aligned = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
    if (aligned < size)
        return NULL;
    a->cycle_total += aligned;
    pprof_arena_chunk *c = a->head;
    if (!c || c->capacity - c->used < aligned) {
        size_t capacity = aligned > CHUNK_BYTES ? aligned : CHUNK_BYTES;
        if (capacity > SIZE_MAX - sizeof(pprof_arena_chunk))
            return NULL;
        c = malloc(sizeof(pprof_arena_chunk) + capacity);
        if (!c)
            return NULL;
        c->next = a->head;
        c->capacity = capacity;
        c->used = 0;
        a->head = c;
    }
    void *result = (uint8_t *)c->data + c->used;
    c->used += aligned;
    return result;
}

/* Nothing is freed one by one: the arena is reset after each message. */
static void arena_free_nothing(void *context, void *pointer)
{
    (void)context;
    (void)pointer;
}

void pprof_arena_init(pprof_arena *a)
{
    a->head = NULL;
    a->high_water = 0;
    a->cycle_total = 0;
    a->allocator.alloc = arena_alloc;
    a->allocator.free = arena_free_nothing;
    a->allocator.allocator_data = a;
}

void pprof_arena_release(pprof_arena *a)
{
    while (a->head) {
        pprof_arena_chunk *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}

void pprof_arena_reset(pprof_arena *a)
{
    if (a->head && a->head->next) {
        /* Several chunks were needed: replace them by one that holds a whole cycle. */
        size_t want = a->cycle_total;
        pprof_arena_release(a);
        if (want > a->high_water)
            a->high_water = want;
        pprof_arena_chunk *c = malloc(sizeof(pprof_arena_chunk) + a->high_water);
        if (c) {
            c->next = NULL;
            c->capacity = a->high_water;
            c->used = 0;
            a->head = c;
        }
    } else if (a->head) {
        a->head->used = 0;
    }
    a->cycle_total = 0;
}
