/* SPDX-License-Identifier: MIT */
/* Enter/exit events of one thread as a timed call tree: the one mechanism that turns begin/end
 * (and complete, with a duration) events into rows and timeline spans. The Chrome trace reader's
 * duration events and ART's method traces use it.
 *
 * Each slice of the thread's time between two boundaries goes to the innermost open event's
 * stack, as a row value and as a span of the thread's timeline (start, length, stack), so the
 * rows keep the order of the stack chart; where nothing is open the timeline has a gap. An end
 * closes the innermost open begin of its frame (any begin when the frame is PK_NONE), and what
 * was opened inside it and is still open with it (counted as overlapping). Memory: the open
 * events and the reorder window, never the number of events.
 */
#ifndef PK_CORE_CALL_SPANS_H
#define PK_CORE_CALL_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/profile.h"

enum pk_span_phase { PK_SPAN_END = 0, PK_SPAN_BEGIN = 1, PK_SPAN_COMPLETE = 2 };

/* An event's second clock when it has none. */
#define PK_SPAN_NO_CPU INT64_MIN

typedef struct pk_call_spans pk_call_spans;

/* Where the slices go: rows and timeline of `thread` in p; the slice's length on the events'
 * clock to value time_value, the second clock's advance to cpu_value (PK_NONE: no second clock). */
typedef struct pk_call_spans_target {
    pk_profile *p;
    uint32_t thread;
    uint32_t time_value;
    uint32_t cpu_value;
} pk_call_spans_target;

/* What the events got wrong, summed over threads by the callers of finish. */
typedef struct pk_call_spans_counts {
    uint64_t unmatched_ends; /* ends with no open begin of their frame: ignored */
    uint64_t overlapping;    /* events closed with an enclosing one, or cut at its end */
    uint64_t late;           /* events earlier than one placed before them: placed at its time */
    uint64_t unclosed;       /* begins never ended: closed at the thread's last time */
} pk_call_spans_counts;

/* A thread's events. window: how many events are held back to put them in time order (at equal
 * times an end before a begin, a begin before a complete, a longer complete before a shorter
 * one); 0 places them in the order given. NULL when memory runs out. */
pk_call_spans *pk_call_spans_new(size_t window);
void pk_call_spans_free(pk_call_spans *t);
/* An event: phase, time and (complete events) duration, the second clock at the event
 * (PK_SPAN_NO_CPU when none), its frame. False when memory runs out. */
bool pk_call_spans_add(pk_call_spans *t, const pk_call_spans_target *to, int phase, int64_t ts,
                       int64_t dur, int64_t cpu, uint32_t frame);
/* Places every event held back, closes what is open; adds the counts of oddities to *counts. */
bool pk_call_spans_finish(pk_call_spans *t, const pk_call_spans_target *to,
                          pk_call_spans_counts *counts);

#endif
