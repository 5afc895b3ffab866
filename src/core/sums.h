/* SPDX-License-Identifier: MIT */
/* Sums of a file's numbers per key, kept in the order the keys first appear: what a reader
 * adds up per (profile, stack) while the stacks cannot be built yet (their frames are defined
 * later in the document), to be turned into rows at the end in that order, so the model's
 * sample order follows the file. Memory grows with the distinct keys, not with the numbers.
 *
 * Integers are summed exactly (saturating); numbers with fractions apart, as doubles, so that
 * a reader can scale both into the model's integer unit once the unit is known.
 */
#ifndef PK_CORE_SUMS_H
#define PK_CORE_SUMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"
#include "core/pairs.h"

typedef struct pk_sum {
    uint64_t key;
    int64_t integer;  /* the integers, saturating */
    double fraction;  /* the doubles */
    uint64_t count;   /* numbers added */
} pk_sum;

typedef struct pk_sums {
    pk_sum *items; /* in order of first appearance */
    size_t count, cap;
    pk_u64map index;
} pk_sums;

void pk_sums_init(pk_sums *s);
void pk_sums_free(pk_sums *s);
/* Adds value to key's sum, created when absent. False when memory runs out. */
bool pk_sums_add(pk_sums *s, uint64_t key, pk_pair_value value);
/* A sum in a unit scale times larger (the integers saturating), rounded to an integer. */
int64_t pk_sum_scaled(const pk_sum *sum, int64_t scale);

#endif
