/* SPDX-License-Identifier: MIT */
/* Timed samples a reader cannot put into the model yet: the readers of JSON formats whose
 * tables may come after the samples (Firefox, speedscope) know a sample's time, its stack as an
 * index of their own and its weight as it streams, but the model stack, the thread and the
 * weight's unit only at the end of the document. The samples are spooled (core/spool.h: a few
 * MiB in memory, the rest in a temporary file) in the order read, and replayed at the end,
 * when the reader appends them to the model's timelines. Memory stays flat.
 *
 * Each record: the reader's thread and stack key, and three numbers as read (integers, or
 * doubles where the file has fractions): a time, a duration and a weight, in whatever units
 * the reader chooses to resolve at the end.
 */
#ifndef PK_CORE_TIMED_PENDING_H
#define PK_CORE_TIMED_PENDING_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pairs.h"
#include "core/spool.h"

typedef struct pk_timed_pending {
    pk_spool *spool; /* NULL until the first record */
    bool failed;     /* an append failed: memory or the temporary file */
    uint64_t count;
} pk_timed_pending;

typedef struct pk_timed_record {
    uint32_t thread, key;
    pk_pair_value time, duration, weight;
} pk_timed_record;

void pk_timed_pending_free(pk_timed_pending *t);
/* False when the spool fails (then every later add fails too). */
bool pk_timed_pending_add(pk_timed_pending *t, const pk_timed_record *record);

/* Calls fn for every record in the order added; stops at the first false fn returns. False
 * when fn stopped or the spool could not be read back (*io_error set then). */
typedef bool (*pk_timed_pending_fn)(void *ctx, const pk_timed_record *record);
bool pk_timed_pending_replay(const pk_timed_pending *t, pk_timed_pending_fn fn, void *ctx,
                             bool *io_error);

#endif
