/* SPDX-License-Identifier: MIT */
/* Timelines: a thread's samples in time order, beside the per-(thread, stack) sums.
 *
 * The sums (profile.h) serve reports and every aggregate output. Outputs that show time (the
 * Firefox Profiler's tracks and stack chart, speedscope's time order) need each sample where it
 * happened: for every thread whose input has times, the profile keeps the sequence of its
 * samples, each with its time, its stack, its values and, for a traced span, its duration.
 *
 * Two kinds of timed sample:
 *   - a sample at an instant (duration 0): a sampling profiler saw this stack at that time and
 *     its values are what the sample weighs (a count, a CPU time, a period);
 *   - a span (duration > 0): the stack was the innermost one from time for duration, as a
 *     tracer (Trace Event B/E/X, speedscope's evented profiles, method traces) recorded it. A
 *     thread's spans do not overlap: a reader turns nested enter/exit events into the sequence
 *     of stacks that were innermost, each for the time until the next change, as the Firefox
 *     Profiler's own importers do; a gap between spans is time where nothing was open.
 *
 * Times are int64 nanoseconds on one clock for the whole profile: the input's own (perf's
 * timestamps, V8's and Chrome's trace clock, a Firefox profile's start plus its offsets), whose
 * zero is not in general the epoch. Outputs show them relative to the earliest timed sample
 * (pk_timeline_bounds); pk_metadata's start_time, when known, says when that was.
 *
 * Memory stays flat: samples are delta-encoded into a spool (kept in memory up to a few MiB,
 * then in an unnamed temporary file), one lane per thread, and read back with a cursor. A reader
 * may add a thread's samples out of time order (V8's negative time deltas, interleaved trace
 * chunks, merged profiles): the cursor returns them in time order all the same, equal times in
 * the order they were added, sorting out of memory in bounded runs where it must.
 *
 * Whether a profile keeps the samples themselves is a choice made before reading
 * (pk_timeline_keep; pk_read_options.no_timeline): reports and outputs that show no time do not
 * need them, and then only what each thread's times were (measured or not, how many, first and
 * last) is kept, which costs nothing per sample.
 */
#ifndef PROFKIT_TIMELINE_H
#define PROFKIT_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/error.h"
#include "profkit/export.h"
#include "profkit/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One sample of a thread's timeline, as a cursor returns it. */
typedef struct pk_timed_sample {
    int64_t time;          /* ns on the profile's clock */
    int64_t duration;      /* ns; 0 for a sample at an instant, > 0 for a span */
    uint32_t stack;        /* PK_NONE for an empty stack (idle, nothing open) */
    const int64_t *values; /* pk_value_type_count entries, valid until the next call */
} pk_timed_sample;

/* What a thread's times are, whether or not the samples themselves were kept. */
typedef struct pk_timeline_info {
    bool measured;   /* the input gave this thread's samples times (else its layout is placed) */
    uint64_t count;  /* timed samples added */
    int64_t first;   /* earliest time; PK_TIME_UNKNOWN without samples */
    int64_t last;    /* latest time + duration; PK_TIME_UNKNOWN without samples */
} pk_timeline_info;

/* Whether to keep the timed samples for pk_timeline_open (the default) or only each thread's
 * pk_timeline_info. Call before the first timed sample: once one was added, the choice stands
 * (a call then changes nothing), so that a timeline is never kept in part. */
PK_API void pk_timeline_keep(pk_profile *p, bool keep);
PK_API bool pk_timeline_kept(const pk_profile *p);

/* Adds a timed sample: values (one per value type, NULL for none) are added to the row of
 * (thread, stack) as pk_add_sample adds them, and the sample is appended to the thread's
 * timeline. duration is 0 for a sample at an instant, else the span's length. PK_ERR_USAGE, adding
 * nothing, for a thread or stack the profile does not have, a time of PK_TIME_UNKNOWN, a
 * negative duration, or a span that ends past INT64_MAX. */
PK_API pk_status pk_add_timed_sample(pk_profile *p, uint32_t thread, uint32_t stack, int64_t time,
                                     int64_t duration, const int64_t *values);
/* Appends to the thread's timeline only, leaving the rows alone: for a reader that adds to its
 * rows through pk_sample_row_add, and for copies. The caller keeps the two consistent: the
 * values of a thread's timed samples sum to what they added to its rows. Refuses what
 * pk_add_timed_sample refuses. */
PK_API pk_status pk_timeline_append(pk_profile *p, uint32_t thread, uint32_t stack, int64_t time,
                                    int64_t duration, const int64_t *values);

/* Gives up the thread's timeline, for a reader that meets a sample of the thread without a
 * usable time (none in the input, or one that pk_timeline_append refuses) and adds it to the
 * rows only: a timeline must hold every sample of its thread, or a writer that shows time
 * would leave that sample out. The thread is then untimed (its pk_timeline_info not measured,
 * a cursor over it ends at once), whatever is appended to it later; a warning says so once the
 * thread has, or gets, a timed sample. PK_ERR_USAGE for a thread the profile does not have. */
PK_API pk_status pk_timeline_drop(pk_profile *p, uint32_t thread);

/* The thread's pk_timeline_info. */
PK_API void pk_timeline_info_get(const pk_profile *p, uint32_t thread, pk_timeline_info *out);
/* The earliest and latest times over all threads (PK_TIME_UNKNOWN when no thread is timed).
 * Returns whether any thread is timed. */
PK_API bool pk_timeline_bounds(const pk_profile *p, int64_t *first, int64_t *last);

/* Reading a thread's timeline back, in time order. Open returns PK_ERR_UNSUPPORTED when the
 * profile did not keep timed samples (pk_timeline_keep), PK_ERR_USAGE for a thread the profile
 * does not have, PK_ERR_NOMEM when memory runs out (PK_ERR_IO when the temporary file of an
 * out-of-order thread's sort fails); a thread without timed samples gives a cursor that ends
 * at once. The profile must not change
 * while a cursor is open. next fills *s and returns true, or returns false at the end or on a
 * read error, which close reports (PK_ERR_IO), freeing the cursor. */
typedef struct pk_timeline_cursor pk_timeline_cursor;
PK_API pk_status pk_timeline_open(const pk_profile *p, uint32_t thread, pk_timeline_cursor **out);
PK_API bool pk_timeline_next(pk_timeline_cursor *c, pk_timed_sample *s);
PK_API pk_status pk_timeline_close(pk_timeline_cursor *c);

#ifdef __cplusplus
}
#endif

#endif
