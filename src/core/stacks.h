/* SPDX-License-Identifier: MIT */
/* The stacks of a profile: each distinct sequence of frames stored once.
 *
 * A stack is a prefix (an earlier stack, or none) followed by a run of its own frames in a
 * shared pool. A reader that builds stacks one frame at a time makes runs of one frame: a prefix
 * tree. A reader that has whole sequences (a sample's call chain) stores each as one run, so a
 * profile of deep stacks that share few prefixes costs a run per distinct stack, not a node per
 * distinct prefix. Equal sequences are one stack however they were built: stacks are found by
 * a hash of the whole sequence, extended frame by frame, and compared frame by frame.
 */
#ifndef PK_CORE_STACKS_H
#define PK_CORE_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pk_stack_entry {
    uint64_t hash;   /* of the whole sequence */
    uint32_t prefix; /* PK_NONE: the run starts at the root */
    uint32_t depth;  /* frames in the whole stack */
    uint32_t first;  /* the run: pool[first, first + length) */
    uint32_t length; /* >= 1 */
} pk_stack_entry;

typedef struct pk_stack_slot {
    uint32_t stack; /* stack + 1; 0 = empty */
    uint32_t hash;  /* high bits of the mixed hash that placed it: most mismatches end here */
} pk_stack_slot;

typedef struct pk_stack_store {
    pk_stack_entry *entries;
    size_t count, capacity;
    uint32_t *pool;
    size_t pool_count, pool_capacity;
    pk_stack_slot *slots;
    size_t mask;    /* slot count - 1 */
    size_t indexed; /* entries[0, indexed) are in slots; the rest are placed when next needed */
} pk_stack_store;

void pk_stack_store_free(pk_stack_store *s);
/* Frees the table that finds stacks, for a store read only by index from then on:
 * pk_stack_store_intern rebuilds it. */
void pk_stack_store_drop_index(pk_stack_store *s);

/* The stack of prefix's frames (none for PK_NONE) followed by frames[0..n), interned; n == 0
 * gives prefix itself. frame_count bounds valid frames. PK_NONE when memory runs out or an index
 * is out of range. */
uint32_t pk_stack_store_intern(pk_stack_store *s, uint32_t prefix, const uint32_t *frames,
                               size_t n, size_t frame_count);
/* Adds a stack that the caller knows is unlike every stack of the store, without placing it
 * in the table that finds stacks: a reader that hands over stacks it has already made distinct
 * pays for that table only if something interns into the store later (which places every
 * stack added so far first). The same arguments and failures as pk_stack_store_intern. */
uint32_t pk_stack_store_append(pk_stack_store *s, uint32_t prefix, const uint32_t *frames,
                               size_t n, size_t frame_count);
/* Takes pool[0, count) (room for capacity frames, from malloc) as the store's pool, for a store
 * that has no stacks and no frames yet (false, and nothing taken, otherwise): the store frees it
 * from then on. A reader that built its distinct sequences in one array hands them over with
 * pk_stack_store_append_run, without copying their frames. */
bool pk_stack_store_take_pool(pk_stack_store *s, uint32_t *pool, size_t count, size_t capacity);
/* pk_stack_store_append of the frames pool[first, first + n) already in the pool. Runs taken
 * so must be appended in the order they lie in the pool (the symbolization pass gives the pool
 * back front to back as it copies the stacks in order). */
uint32_t pk_stack_store_append_run(pk_stack_store *s, uint32_t prefix, size_t first, size_t n,
                                   size_t frame_count);
/* Places in the table that finds stacks every stack appended since it was last brought up to
 * date (building the table when there is none and there are stacks), so that pk_stack_store_find probes the table
 * alone; false when memory runs out. */
bool pk_stack_store_index(pk_stack_store *s);
/* The same lookup as pk_stack_store_intern without interning: PK_NONE when there is no such
 * stack. Stacks appended since the table was last brought up to date are compared one by one. */
uint32_t pk_stack_store_find(const pk_stack_store *s, uint32_t prefix, const uint32_t *frames,
                             size_t n);

#endif
