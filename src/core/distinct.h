/* SPDX-License-Identifier: MIT */
/* Adding to a profile what the caller knows is new: a reader that has already made its stacks
 * distinct hands them over without the lookups interning does (a hash table probe per stack and
 * per row, mostly cache misses). The tables that find stacks and rows are built only when
 * something is interned into the profile afterwards; a profile that is only read by index, or
 * copied (as the symbolization pass copies the profile read), never builds them.
 */
#ifndef PK_CORE_DISTINCT_H
#define PK_CORE_DISTINCT_H

#include <stddef.h>
#include <stdint.h>

#include "profkit/profile.h"

/* The stack of frames[0..count), root first, which must be unlike every stack of p; PK_NONE for
 * count 0, an invalid frame, or when memory runs out. */
uint32_t pk_add_distinct_stack(pk_profile *p, const uint32_t *frames, size_t count);
/* pk_add_sample for a (thread, stack) that has no row in p yet. */
pk_status pk_add_distinct_sample(pk_profile *p, uint32_t thread, uint32_t stack,
                                 const int64_t *values);

#endif
