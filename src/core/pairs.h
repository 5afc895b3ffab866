/* SPDX-License-Identifier: MIT */
/* Pairing two parallel arrays of a document that arrive one after the other (a profile's
 * `samples` and `timeDeltas`, or `samples` and `weights`), in either order, without holding
 * either: the first is spooled (core/spool.h: out of memory beyond a few MiB) and the second
 * takes its values back in order as it streams. Values are the numbers of a JSON document:
 * integers, or doubles where a file has fractions.
 */
#ifndef PK_CORE_PAIRS_H
#define PK_CORE_PAIRS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/spool.h"

typedef struct pk_pair_value {
    bool is_double;
    int64_t i; /* when !is_double */
    double d;  /* when is_double */
} pk_pair_value;

typedef struct pk_pairs {
    pk_spool *spool;      /* the first array's values, until the second pairs them */
    pk_spool_reader reader;
    bool reading;
    int queued_kind;      /* 0 or 1: which array is queued; -1 when nothing is */
    uint64_t queued;      /* values appended */
    uint64_t taken;       /* values paired */
    const unsigned char *chunk, *chunk_end;
} pk_pairs;

void pk_pairs_init(pk_pairs *q);
void pk_pairs_free(pk_pairs *q);
/* Offers a value of kind (0 or 1). *paired is set when it completes a pair: *other is the value
 * of the other kind at the same index. False when the spool fails. */
bool pk_pairs_offer(pk_pairs *q, int kind, pk_pair_value value, bool *paired,
                    pk_pair_value *other);
/* The values still queued, one at a time: true with *kind and *value, false when none is left
 * (or the spool could not be read back: q->reader.error). */
bool pk_pairs_take_unpaired(pk_pairs *q, int *kind, pk_pair_value *value);

static inline pk_pair_value pk_pair_int(int64_t i)
{
    return (pk_pair_value){false, i, (double)i};
}

#endif
