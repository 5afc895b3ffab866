/* SPDX-License-Identifier: MIT */
/* One thread's duration events as a timed call tree (trace.h).
 *
 * Events wait in a min-heap ordered by time until more than TRACE_REORDER_WINDOW are held, then
 * the earliest is placed: at equal times an end comes before a beginning (one event ends where
 * the next starts), a B before an X (its length is unknown) and a longer X before a shorter one
 * (the parent first). Placing an event first gives the time since the previous boundary to the
 * stack open until then, so each slice of the thread's time goes to the innermost open event,
 * and the rows keep the order of the stack chart. Each slice is also a span of the thread's
 * timeline (its start, its length, the innermost stack), as the Firefox Profiler's Chrome
 * importer turns events into samples; where nothing is open, the timeline has a gap. Memory:
 * the window and the open events, never the number of events.
 */
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/hashmap.h"
#include "formats/trace/trace.h"
#include "profkit/timeline.h"

typedef struct timeline_item {
    int64_t ts;
    int64_t dur; /* X: its duration; B: INT64_MAX; E: 0 */
    uint64_t seq;
    uint32_t frame;
    uint8_t phase;
} timeline_item;

typedef struct open_event {
    uint32_t frame;
    uint32_t stack;
    int64_t end;   /* X: when it ends; B: INT64_MAX */
    bool complete; /* an X */
} open_event;

struct trace_timeline {
    timeline_item *heap;
    size_t count, cap;
    uint64_t seq;
    open_event *open;
    size_t depth, open_cap;
    bool started;
    int64_t cursor;    /* the last boundary placed */
    int64_t last_time; /* the latest time seen: where B events left open end */
    size_t open_begins; /* B events among the open ones */
    pk_u64map begins_of; /* frame -> how many open B events have it, so that an E that matches
                          * none is known without a search (a search then pops what it passes:
                          * the cost of E events stays linear) */
    bool deferred_end; /* an E that matched nothing, in case a B at its time follows */
    uint32_t deferred_frame;
    int64_t deferred_ts;
    trace_timeline_counts counts;
    int64_t values[PK_MAX_VALUES]; /* a slice's values: only the trace's value is set */
};

trace_timeline *trace_timeline_new(void)
{
    trace_timeline *t = calloc(1, sizeof(trace_timeline));
    if (t)
        pk_u64map_init(&t->begins_of);
    return t;
}

void trace_timeline_free(trace_timeline *t)
{
    if (!t)
        return;
    free(t->heap);
    free(t->open);
    pk_u64map_free(&t->begins_of);
    free(t);
}

static bool before(const timeline_item *a, const timeline_item *b)
{
    if (a->ts != b->ts)
        return a->ts < b->ts;
    bool a_end = a->phase == TRACE_END, b_end = b->phase == TRACE_END;
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

static bool heap_push(trace_timeline *t, const timeline_item *item)
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
static timeline_item heap_replace_top(trace_timeline *t, const timeline_item *in)
{
    timeline_item top = t->heap[0];
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

static timeline_item heap_pop(trace_timeline *t)
{
    timeline_item last = t->heap[--t->count];
    if (!t->count)
        return last;
    return heap_replace_top(t, &last);
}

typedef struct placing {
    trace_timeline *t;
    pk_profile *p;
    uint32_t thread, value;
} placing;

/* The time from the last boundary to `to` goes to the innermost open event. */
static bool slice(placing *c, int64_t to)
{
    trace_timeline *t = c->t;
    if (!t->started) {
        t->started = true;
        t->cursor = to;
        return true;
    }
    if (to <= t->cursor)
        return true;
    if (t->depth) {
        t->values[c->value] = to - t->cursor;
        uint32_t stack = t->open[t->depth - 1].stack;
        pk_status status =
            pk_add_timed_sample(c->p, c->thread, stack, t->cursor, to - t->cursor, t->values);
        if (status == PK_ERR_USAGE) /* at the clock's very ends: in the rows only */
            status = pk_add_sample_value(c->p, c->thread, stack, c->value, to - t->cursor);
        if (status != PK_OK)
            return false;
    }
    t->cursor = to;
    return true;
}

/* Closes the innermost open event. */
static void open_event_pop(trace_timeline *t)
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
static bool has_open_begin(const trace_timeline *t, uint32_t frame)
{
    if (frame == PK_NONE)
        return t->open_begins > 0;
    const uint32_t *count = pk_u64map_find(&t->begins_of, frame);
    return count && *count;
}

/* X events that ended by `to` close, innermost first. */
static bool close_ended(placing *c, int64_t to)
{
    trace_timeline *t = c->t;
    while (t->depth && t->open[t->depth - 1].complete && t->open[t->depth - 1].end <= to) {
        if (!slice(c, t->open[t->depth - 1].end))
            return false;
        open_event_pop(t);
    }
    return true;
}

static bool open_event_push(placing *c, uint32_t frame, int64_t end, bool complete)
{
    trace_timeline *t = c->t;
    uint32_t prefix = t->depth ? t->open[t->depth - 1].stack : PK_NONE;
    uint32_t stack = pk_intern_stack(c->p, prefix, frame);
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

static bool place(placing *c, const timeline_item *item)
{
    trace_timeline *t = c->t;
    int64_t ts = item->ts;
    if (t->started && ts < t->cursor) {
        t->counts.late++;
        ts = t->cursor;
    }
    bool deferred = t->deferred_end && t->deferred_frame == item->frame && t->deferred_ts == ts;
    t->deferred_end = false;
    if (!close_ended(c, ts) || !slice(c, ts))
        return false;
    if (ts > t->last_time)
        t->last_time = ts;
    switch (item->phase) {
    case TRACE_BEGIN:
        if (deferred) {
            /* B and E at one time, the E placed first: an event of no length. */
            t->counts.unmatched_ends--;
            return true;
        }
        return open_event_push(c, item->frame, INT64_MAX, false);
    case TRACE_COMPLETE: {
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

bool trace_timeline_add(trace_timeline *t, pk_profile *p, uint32_t thread, uint32_t value,
                        int phase, int64_t ts, int64_t dur, uint32_t frame)
{
    timeline_item item = {ts, phase == TRACE_BEGIN ? INT64_MAX : phase == TRACE_END ? 0 : dur,
                          t->seq++, frame, (uint8_t)phase};
    if (t->count < TRACE_REORDER_WINDOW)
        return heap_push(t, &item);
    /* The window is full: the earliest of it and the new event is placed. */
    placing c = {t, p, thread, value};
    if (before(&item, &t->heap[0]))
        return place(&c, &item);
    timeline_item next = heap_replace_top(t, &item);
    return place(&c, &next);
}

bool trace_timeline_finish(trace_timeline *t, pk_profile *p, uint32_t thread, uint32_t value,
                           trace_timeline_counts *counts)
{
    placing c = {t, p, thread, value};
    while (t->count) {
        timeline_item next = heap_pop(t);
        if (!place(&c, &next))
            return false;
    }
    while (t->depth) {
        const open_event *o = &t->open[t->depth - 1];
        if (!o->complete)
            t->counts.unclosed++;
        if (!slice(&c, o->complete ? o->end : t->last_time))
            return false;
        open_event_pop(t);
    }
    counts->unmatched_ends += t->counts.unmatched_ends;
    counts->overlapping += t->counts.overlapping;
    counts->late += t->counts.late;
    counts->unclosed += t->counts.unclosed;
    return true;
}
