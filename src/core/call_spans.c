/* SPDX-License-Identifier: MIT */
/* One thread's enter/exit (begin/end) events as a timed call tree (call_spans.h): the Trace
 * Event Format's duration events, ART's method traces.
 *
 * Events wait in a min-heap ordered by time until more than the window are held, then
 * the earliest is placed: at equal times an end comes before a beginning (one event ends where
 * the next starts), a B before an X (its length is unknown) and a longer X before a shorter one
 * (the parent first). Placing an event first gives the time since the previous boundary to the
 * stack open until then, so each slice of the thread's time goes to the innermost open event,
 * and the rows keep the order of the stack chart. Each slice is also a span of the thread's
 * timeline (its start, its length, the innermost stack), as the Firefox Profiler's Chrome
 * importer turns events into samples; where nothing is open, the timeline has a gap. Memory:
 * the window and the open events, never the number of events. With a window of 0 the
 * events are placed in the order given (a format whose order is the truth, and whose clock is too
 * coarse to order events that share a tick).
 *
 * A second clock (a thread's CPU time, given at each B and E) is sliced alongside: each slice
 * also weighs the second clock's advance over it, into a value of its own.
 */
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/hashmap.h"
#include "core/call_spans.h"
#include "profkit/timeline.h"

typedef struct span_item {
    int64_t ts;
    int64_t dur; /* X: its duration; B: INT64_MAX; E: 0 */
    int64_t cpu; /* the second clock at the event; PK_SPAN_NO_CPU when not given */
    uint64_t seq;
    uint32_t frame;
    uint8_t phase;
} span_item;

typedef struct open_event {
    uint32_t frame;
    uint32_t stack;
    int64_t end;   /* X: when it ends; B: INT64_MAX */
    bool complete; /* an X */
} open_event;

struct pk_call_spans {
    size_t window;
    span_item *heap;
    size_t count, cap;
    uint64_t seq;
    open_event *open;
    size_t depth, open_cap;
    bool started;
    int64_t cursor;    /* the last boundary placed */
    int64_t last_time; /* the latest time seen: where B events left open end */
    bool cpu_started;
    int64_t cpu_cursor; /* the second clock at the last boundary that gave it */
    size_t open_begins; /* B events among the open ones */
    pk_u64map begins_of; /* frame -> how many open B events have it, so that an E that matches
                          * none is known without a search (a search then pops what it passes:
                          * the cost of E events stays linear) */
    bool deferred_end; /* an E that matched nothing, in case a B at its time follows */
    uint32_t deferred_frame;
    int64_t deferred_ts;
    pk_call_spans_counts counts;
    int64_t values[PK_MAX_VALUES]; /* a slice's values: only the trace's value is set */
};

pk_call_spans *pk_call_spans_new(size_t window)
{
    pk_call_spans *t = calloc(1, sizeof(pk_call_spans));
    if (t) {
        t->window = window;
        pk_u64map_init(&t->begins_of);
    }
    return t;
}

void pk_call_spans_free(pk_call_spans *t)
{
    if (!t)
        return;
    free(t->heap);
    free(t->open);
    pk_u64map_free(&t->begins_of);
    free(t);
}

static bool before(const span_item *a, const span_item *b)
{
    if (a->ts != b->ts)
        return a->ts < b->ts;
    bool a_end = a->phase == PK_SPAN_END, b_end = b->phase == PK_SPAN_END;
    if (a_end != b_end)
        return a_end;
    if (a->dur != b->dur)
        return a->dur > b->dur;
    return a->seq < b->seq;
}

/* The window is a 4-ary heap: half the levels of a binary one, and the four children of a
 * node side by side in memory. A full window of a busy thread is larger than the cache, so the
 * levels walked are what placing an event costs. */
#define HEAP_ARITY 4

static bool heap_push(pk_call_spans *t, const span_item *item)
{
    if (!PK_ARRAY_RESERVE(t->heap, t->cap, t->count + 1))
        return false;
    size_t i = t->count++;
    while (i > 0) {
        size_t parent = (i - 1) / HEAP_ARITY;
        if (!before(item, &t->heap[parent]))
            break;
        t->heap[i] = t->heap[parent];
        i = parent;
    }
    t->heap[i] = *item;
    return true;
}

/* Takes the earliest item out and puts `in` in its place, in one walk down the heap. */
static span_item heap_replace_top(pk_call_spans *t, const span_item *in)
{
    span_item top = t->heap[0];
    size_t i = 0;
    for (;;) {
        size_t first = HEAP_ARITY * i + 1;
        if (first >= t->count)
            break;
        size_t last = first + HEAP_ARITY < t->count ? first + HEAP_ARITY : t->count;
        size_t child = first;
        for (size_t c = first + 1; c < last; c++)
            if (before(&t->heap[c], &t->heap[child]))
                child = c;
        if (!before(&t->heap[child], in))
            break;
        t->heap[i] = t->heap[child];
        i = child;
    }
    t->heap[i] = *in;
    return top;
}

static span_item heap_pop(pk_call_spans *t)
{
    span_item last = t->heap[--t->count];
    if (!t->count)
        return last;
    return heap_replace_top(t, &last);
}

typedef struct placing {
    pk_call_spans *t;
    const pk_call_spans_target *to;
} placing;

/* The second clock's advance to `cpu` (PK_SPAN_NO_CPU: none known, none counted); a clock that
 * goes back counts nothing. */
static int64_t cpu_advance(pk_call_spans *t, int64_t cpu)
{
    if (cpu == PK_SPAN_NO_CPU)
        return 0;
    int64_t advance = t->cpu_started && cpu > t->cpu_cursor ? cpu - t->cpu_cursor : 0;
    if (!t->cpu_started || cpu > t->cpu_cursor)
        t->cpu_cursor = cpu;
    t->cpu_started = true;
    return advance;
}

/* The time from the last boundary to `to` goes to the innermost open event, and so does the
 * second clock's advance to `cpu`. */
static bool slice(placing *c, int64_t to, int64_t cpu)
{
    pk_call_spans *t = c->t;
    const pk_call_spans_target *target = c->to;
    if (!t->started) {
        t->started = true;
        t->cursor = to;
        cpu_advance(t, cpu);
        return true;
    }
    if (to < t->cursor || (to == t->cursor && cpu == PK_SPAN_NO_CPU))
        return true;
    int64_t cpu_slice = target->cpu_value == PK_NONE ? 0 : cpu_advance(t, cpu);
    if (t->depth && (to > t->cursor || cpu_slice > 0)) {
        uint32_t stack = t->open[t->depth - 1].stack;
        t->values[target->time_value] = to - t->cursor;
        if (target->cpu_value != PK_NONE)
            t->values[target->cpu_value] = cpu_slice;
        pk_status status = pk_add_timed_sample(target->p, target->thread, stack, t->cursor,
                                               to - t->cursor, t->values);
        if (status == PK_ERR_USAGE) { /* at the clock's very ends: in the rows only */
            status = pk_timeline_drop(target->p, target->thread);
            if (status == PK_OK)
                status = pk_add_sample_value(target->p, target->thread, stack,
                                             target->time_value, to - t->cursor);
            if (status == PK_OK && target->cpu_value != PK_NONE)
                status = pk_add_sample_value(target->p, target->thread, stack,
                                             target->cpu_value, cpu_slice);
        }
        if (status != PK_OK)
            return false;
    }
    t->cursor = to;
    return true;
}

/* Closes the innermost open event. */
static void open_event_pop(pk_call_spans *t)
{
    const open_event *o = &t->open[--t->depth];
    if (!o->complete) {
        uint32_t *count = pk_u64map_find(&t->begins_of, o->frame);
        if (count && *count)
            --*count;
        t->open_begins--;
    }
}

/* Whether an E of frame (PK_NONE: no name) has an open B to end. */
static bool has_open_begin(const pk_call_spans *t, uint32_t frame)
{
    if (frame == PK_NONE)
        return t->open_begins > 0;
    const uint32_t *count = pk_u64map_find(&t->begins_of, frame);
    return count && *count;
}

/* X events that ended by `to` close, innermost first. */
static bool close_ended(placing *c, int64_t to)
{
    pk_call_spans *t = c->t;
    while (t->depth && t->open[t->depth - 1].complete && t->open[t->depth - 1].end <= to) {
        if (!slice(c, t->open[t->depth - 1].end, PK_SPAN_NO_CPU))
            return false;
        open_event_pop(t);
    }
    return true;
}

static bool open_event_push(placing *c, uint32_t frame, int64_t end, bool complete)
{
    pk_call_spans *t = c->t;
    uint32_t prefix = t->depth ? t->open[t->depth - 1].stack : PK_NONE;
    uint32_t stack = pk_intern_stack(c->to->p, prefix, frame);
    if (stack == PK_NONE || !PK_ARRAY_RESERVE(t->open, t->open_cap, t->depth + 1))
        return false;
    if (!complete) {
        uint32_t *count;
        bool inserted;
        if (!pk_u64map_put(&t->begins_of, frame, 0, &count, &inserted))
            return false;
        ++*count;
        t->open_begins++;
    }
    t->open[t->depth++] = (open_event){frame, stack, end, complete};
    return true;
}

static bool place(placing *c, const span_item *item)
{
    pk_call_spans *t = c->t;
    int64_t ts = item->ts;
    if (t->started && ts < t->cursor) {
        t->counts.late++;
        ts = t->cursor;
    }
    bool deferred = t->deferred_end && t->deferred_frame == item->frame && t->deferred_ts == ts;
    t->deferred_end = false;
    if (!close_ended(c, ts) || !slice(c, ts, item->cpu))
        return false;
    if (ts > t->last_time)
        t->last_time = ts;
    switch (item->phase) {
    case PK_SPAN_BEGIN:
        if (deferred) {
            /* B and E at one time, the E placed first: an event of no length. */
            t->counts.unmatched_ends--;
            return true;
        }
        return open_event_push(c, item->frame, INT64_MAX, false);
    case PK_SPAN_COMPLETE: {
        int64_t end = pk_add_saturating(ts, item->dur < 0 ? 0 : item->dur);
        if (t->depth && t->open[t->depth - 1].complete && end > t->open[t->depth - 1].end) {
            t->counts.overlapping++; /* ends after its parent: cut at the parent's end */
            end = t->open[t->depth - 1].end;
        }
        if (end > t->last_time)
            t->last_time = end;
        return open_event_push(c, item->frame, end, true);
    }
    default: {
        /* An E ends the innermost B of its name (any B when it has no name); events opened
         * inside that B and still open overlap it and end with it. */
        if (has_open_begin(t, item->frame)) {
            for (size_t i = t->depth; i-- > 0;) {
                const open_event *o = &t->open[i];
                if (!o->complete && (item->frame == PK_NONE || o->frame == item->frame)) {
                    t->counts.overlapping += t->depth - 1 - i;
                    while (t->depth > i)
                        open_event_pop(t);
                    return true;
                }
            }
        }
        t->counts.unmatched_ends++;
        t->deferred_end = true;
        t->deferred_frame = item->frame;
        t->deferred_ts = ts;
        return true;
    }
    }
}

bool pk_call_spans_add(pk_call_spans *t, const pk_call_spans_target *to, int phase, int64_t ts,
                       int64_t dur, int64_t cpu, uint32_t frame)
{
    span_item item = {ts,    phase == PK_SPAN_BEGIN ? INT64_MAX : phase == PK_SPAN_END ? 0 : dur,
                      cpu,   t->seq++,
                      frame, (uint8_t)phase};
    placing c = {t, to};
    if (!t->window)
        return place(&c, &item);
    if (t->count < t->window)
        return heap_push(t, &item);
    /* The window is full: the earliest of it and the new event is placed. */
    if (before(&item, &t->heap[0]))
        return place(&c, &item);
    span_item next = heap_replace_top(t, &item);
    return place(&c, &next);
}

bool pk_call_spans_finish(pk_call_spans *t, const pk_call_spans_target *to,
                          pk_call_spans_counts *counts)
{
    placing c = {t, to};
    while (t->count) {
        span_item next = heap_pop(t);
        if (!place(&c, &next))
            return false;
    }
    while (t->depth) {
        const open_event *o = &t->open[t->depth - 1];
        if (!o->complete)
            t->counts.unclosed++;
        if (!slice(&c, o->complete ? o->end : t->last_time, PK_SPAN_NO_CPU))
            return false;
        open_event_pop(t);
    }
    counts->unmatched_ends += t->counts.unmatched_ends;
    counts->overlapping += t->counts.overlapping;
    counts->late += t->counts.late;
    counts->unclosed += t->counts.unclosed;
    return true;
}
