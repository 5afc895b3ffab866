/* SPDX-License-Identifier: MIT */
/* Counters: a quantity over time beside the samples, such as the memory a program held at each
 * of massif's snapshots or the resident set size heaptrack recorded, which the Firefox Profiler
 * draws as a track.
 *
 * A counter belongs to a thread (the Firefox Profiler draws it in that thread's process) and
 * counts in one unit ("bytes" for memory). Its samples are levels: what the quantity was at
 * each time, on the profile's clock (the timelines' nanoseconds, profkit/timeline.h). A reader
 * appends them in time order; equal times are allowed. Memory stays flat: the samples go to a
 * spool (in memory up to a few MiB, then an unnamed temporary file), one lane per counter.
 *
 * A counter whose input measures time in something else than time (massif's instructions or
 * bytes allocated) says so in its description; its "nanoseconds" are then one unit of that
 * measure each (docs/formats/massif.md).
 */
#ifndef PROFKIT_COUNTERS_H
#define PROFKIT_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/error.h"
#include "profkit/export.h"
#include "profkit/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_counter {
    uint32_t name;        /* string: "heap", "RSS" */
    uint32_t description; /* string: what it counts, PK_NONE for none */
    uint32_t unit;        /* string: "bytes", "count", ... */
    uint32_t thread;      /* the thread it belongs to (in its process), PK_NONE for none */
    uint64_t samples;     /* samples appended */
    int64_t first, last;  /* the first and last sample's times; PK_TIME_UNKNOWN without */
    int64_t min, max;     /* the lowest and highest level; 0 without samples */
} pk_counter;

/* Adds a counter named name, counting in unit, of thread (PK_NONE for none). Returns its index,
 * or PK_NONE when memory runs out or thread is not one of the profile's. */
PK_API uint32_t pk_add_counter(pk_profile *p, const char *name, const char *description,
                               const char *unit, uint32_t thread);
PK_API size_t pk_counter_count(const pk_profile *p);
PK_API const pk_counter *pk_counter_at(const pk_profile *p, uint32_t counter);

/* Appends the counter's level at time (ns on the profile's clock). PK_ERR_USAGE for a counter
 * the profile does not have or a time before the last one appended; PK_ERR_NOMEM or PK_ERR_IO
 * when memory or the temporary file fails. */
PK_API pk_status pk_counter_append(pk_profile *p, uint32_t counter, int64_t time, int64_t level);

/* Reading a counter's samples back, in the order appended. Open returns PK_ERR_USAGE for a
 * counter the profile does not have, PK_ERR_NOMEM when memory runs out. next fills *time and
 * *level and returns true, or returns false at the end or on a read error, which close reports
 * (PK_ERR_IO), freeing the cursor. The profile must not change while a cursor is open. */
typedef struct pk_counter_cursor pk_counter_cursor;
PK_API pk_status pk_counter_open(const pk_profile *p, uint32_t counter, pk_counter_cursor **out);
PK_API bool pk_counter_next(pk_counter_cursor *c, int64_t *time, int64_t *level);
PK_API pk_status pk_counter_close(pk_counter_cursor *c);

#ifdef __cplusplus
}
#endif

#endif
