/* SPDX-License-Identifier: MIT */
/* Adding to a profile what the caller knows is new: a reader that has already made its stacks
 * distinct hands them over without the lookups interning does (a hash table probe per stack and
 * per row, mostly cache misses). The tables that find stacks and rows are built only when
 * something is interned into the profile afterwards; a profile that is only read by index, or
 * copied (as the symbolization pass copies the profile read), never builds them while it is
 * read: pk_profile_complete, when the reader is done, builds the one that finds stacks, so that
 * pk_find_stack_frames on a profile read is a probe of the table, not a comparison with every
 * stack handed over (the symbolization pass's copy drops it again as it consumes the profile).
 */
#ifndef PK_CORE_DISTINCT_H
#define PK_CORE_DISTINCT_H

#include <stddef.h>
#include <stdint.h>

#include "profkit/profile.h"

/* The stack of frames[0..count), root first, which must be unlike every stack of p; PK_NONE for
 * count 0, an invalid frame, or when memory runs out. */
uint32_t pk_add_distinct_stack(pk_profile *p, const uint32_t *frames, size_t count);
/* Hands p the array pool[0, count) (room for capacity frames, from malloc) as the frames of
 * the stacks to be added with pk_add_distinct_run; p frees it from then on. Only while p has
 * no stacks: false, and nothing taken, otherwise. */
bool pk_take_stack_pool(pk_profile *p, uint32_t *pool, size_t count, size_t capacity);
/* pk_add_distinct_stack of the frames pool[first, first + count) of the array handed over with
 * pk_take_stack_pool, without copying them; runs are added in the order they lie in it. */
uint32_t pk_add_distinct_run(pk_profile *p, size_t first, size_t count);
/* pk_add_sample for a (thread, stack) that has no row in p yet. */
pk_status pk_add_distinct_sample(pk_profile *p, uint32_t thread, uint32_t stack,
                                 const int64_t *values);
/* The step after a reader (pk_reader_read calls it): the table that finds stacks holds every
 * stack, those handed over as distinct included. false when memory runs out. */
bool pk_profile_complete(pk_profile *p);

#endif
