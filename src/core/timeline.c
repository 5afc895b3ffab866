/* SPDX-License-Identifier: MIT */
/* Timelines of the model: each thread's timed samples, delta-encoded into one lane of a spool,
 * and read back in time order.
 *
 * A sample is one record of varints: the zigzag distance of its time from the previous sample's
 * (of the same thread, in the order added), then a head of (stack + 1) << 2 with bit 0 set when
 * a duration follows and bit 1 when values follow, the duration, and the values as a mask of
 * the nonzero ones followed by each of those, zigzag. A sample of a sampling profiler (one
 * small value, a few microseconds after the previous) takes 6 to 8 bytes.
 *
 * A thread whose samples were added in time order is read back straight from its lane. One
 * that was not is sorted when a cursor opens: the lane is read in runs of a bounded number of
 * samples, each run sorted in memory (by time, then by the order added) and spooled again, and
 * the cursor merges the runs, so that memory holds a run at a time and a record per run. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/profile_internal.h"
#include "core/spool.h"
#include "core/timeline_internal.h"
#include "core/varint.h"

enum {
    HEAD_DURATION = 1u << 0, /* a duration follows the head */
    HEAD_VALUES = 1u << 1,   /* a mask of nonzero values and the values follow */
    HEAD_STACK_SHIFT = 2,
};

/* The largest record: time, head, duration, mask and every value at their longest. */
#define MAX_RECORD ((4 + PK_MAX_VALUES) * PK_VARINT_MAX_BYTES)
_Static_assert(MAX_RECORD <= PK_SPOOL_MAX_RECORD, "a timed sample must fit a spool record");

/* A run of an out-of-order thread's samples sorted in memory: at most this many samples, and
 * at most this many bytes of their records. */
#define SORT_RUN_SAMPLES (256u * 1024)
#define SORT_RUN_BYTES (8u * 1024 * 1024)
static size_t sort_run_samples = SORT_RUN_SAMPLES;

void pk_timeline_set_sort_run(size_t samples)
{
    sort_run_samples = samples ? samples : SORT_RUN_SAMPLES;
}

void pk_timeline_table_free(pk_timeline_table *t)
{
    pk_spool_free(t->spool);
    free(t->threads);
    memset(t, 0, sizeof *t);
}

void pk_timeline_keep(pk_profile *p, bool keep)
{
    /* Once samples are in, the choice stands: a timeline half kept would be read as whole. */
    if (!p->timeline.started)
        p->timeline.discard = !keep;
}

bool pk_timeline_kept(const pk_profile *p)
{
    return !p->timeline.discard;
}

static pk_status spool_status(const pk_spool *s)
{
    return pk_spool_error(s) == ENOMEM ? PK_ERR_NOMEM : PK_ERR_IO;
}

/* The thread's entry, created (with those before it) when new; NULL when memory runs out. */
static pk_thread_timeline *thread_timeline(pk_timeline_table *t, uint32_t thread)
{
    if (thread >= t->thread_capacity) {
        size_t old = t->thread_capacity;
        if (!PK_ARRAY_RESERVE(t->threads, t->thread_capacity, (size_t)thread + 1))
            return NULL;
        memset(t->threads + old, 0, (t->thread_capacity - old) * sizeof *t->threads);
    }
    return &t->threads[thread];
}

static void note_info(pk_timeline_info *info, int64_t first, int64_t last, uint64_t count)
{
    if (info->count == 0 || first < info->first)
        info->first = first;
    if (info->count == 0 || last > info->last)
        info->last = last;
    info->count = count > UINT64_MAX - info->count ? UINT64_MAX : info->count + count;
    info->measured = true;
}

/* The record's part after the time: head, duration and values. */
static size_t encode_rest(uint8_t *out, uint32_t stack, int64_t duration, const int64_t *values,
                          size_t value_count)
{
    uint64_t mask = 0;
    for (size_t v = 0; values && v < value_count; v++)
        if (values[v] != 0)
            mask |= (uint64_t)1 << v;
    uint64_t head = (uint64_t)(uint32_t)(stack + 1u) << HEAD_STACK_SHIFT;
    if (duration != 0)
        head |= HEAD_DURATION;
    if (mask)
        head |= HEAD_VALUES;
    size_t n = pk_varint_encode(out, head);
    if (duration != 0)
        n += pk_varint_encode(out + n, (uint64_t)duration);
    if (mask) {
        n += pk_varint_encode(out + n, mask);
        for (size_t v = 0; v < value_count; v++)
            if (mask >> v & 1)
                n += pk_varint_encode(out + n, pk_zigzag_encode(values[v]));
    }
    return n;
}

/* The distance from base to time, as the two's complement wrap makes it: any two int64 times
 * have one, and adding it back to base gives time again. */
static uint64_t time_delta(int64_t time, int64_t base)
{
    return pk_zigzag_encode((int64_t)((uint64_t)time - (uint64_t)base));
}

/* Warns, once per thread, that a thread with timed samples has its timeline dropped. */
static void tell_dropped(pk_profile *p, uint32_t thread, pk_thread_timeline *tt)
{
    if (tt->drop_told)
        return;
    tt->drop_told = true;
    pk_warn(p, "thread %s: some samples have no time on the profile's clock, so its timeline "
               "is left out (its samples are placed, as for an input without times)",
            pk_str(p, pk_thread_at(p, thread)->name));
}

pk_status pk_timeline_drop(pk_profile *p, uint32_t thread)
{
    if (thread >= p->thread_count)
        return PK_ERR_USAGE;
    pk_thread_timeline *tt = thread_timeline(&p->timeline, thread);
    if (!tt)
        return PK_ERR_NOMEM;
    if (tt->dropped)
        return PK_OK;
    tt->dropped = true;
    /* Its records stay in the spool's lane, unread: a cursor ends at once at a count of 0. */
    if (tt->info.count)
        tell_dropped(p, thread, tt);
    tt->info = (pk_timeline_info){.count = 0};
    tt->out_of_order = false;
    return PK_OK;
}

pk_status pk_timeline_append(pk_profile *p, uint32_t thread, uint32_t stack, int64_t time,
                             int64_t duration, const int64_t *values)
{
    if (thread >= p->thread_count || (stack != PK_NONE && stack >= p->stacks.count) ||
        time == PK_TIME_UNKNOWN || duration < 0 || (time > 0 && duration > INT64_MAX - time))
        return PK_ERR_USAGE;
    pk_timeline_table *t = &p->timeline;
    pk_thread_timeline *tt = thread_timeline(t, thread);
    if (!tt)
        return PK_ERR_NOMEM;
    t->started = true;
    if (tt->dropped) {
        tell_dropped(p, thread, tt);
        return PK_OK;
    }
    if (!t->discard) {
        if (!t->spool && !(t->spool = pk_spool_new()))
            return PK_ERR_NOMEM;
        uint8_t record[MAX_RECORD];
        int64_t base = tt->info.count ? tt->last_time : 0;
        size_t n = pk_varint_encode(record, time_delta(time, base));
        n += encode_rest(record + n, stack, duration, values, p->value_count);
        if (!pk_spool_append(t->spool, thread, record, n))
            return spool_status(t->spool);
    }
    if (tt->info.count && time < tt->last_time)
        tt->out_of_order = true;
    tt->last_time = time;
    note_info(&tt->info, time, time + duration, 1);
    return PK_OK;
}

pk_status pk_add_timed_sample(pk_profile *p, uint32_t thread, uint32_t stack, int64_t time,
                              int64_t duration, const int64_t *values)
{
    /* Checked first, so that a refused sample adds to no row either. */
    if (time == PK_TIME_UNKNOWN || duration < 0 || (time > 0 && duration > INT64_MAX - time))
        return PK_ERR_USAGE;
    pk_status status = pk_add_sample(p, thread, stack, values);
    return status != PK_OK ? status : pk_timeline_append(p, thread, stack, time, duration, values);
}

pk_status pk_timeline_add_info(pk_profile *p, uint32_t thread, const pk_timeline_info *info)
{
    if (thread >= p->thread_count)
        return PK_ERR_USAGE;
    if (!info->measured || info->count == 0)
        return PK_OK;
    pk_thread_timeline *tt = thread_timeline(&p->timeline, thread);
    if (!tt)
        return PK_ERR_NOMEM;
    p->timeline.started = true;
    if (tt->dropped) {
        tell_dropped(p, thread, tt);
        return PK_OK;
    }
    /* Samples that come after these may not be in order with them. */
    if (tt->info.count)
        tt->out_of_order = true;
    tt->last_time = info->last;
    note_info(&tt->info, info->first, info->last, info->count);
    return PK_OK;
}

void pk_timeline_info_get(const pk_profile *p, uint32_t thread, pk_timeline_info *out)
{
    const pk_timeline_table *t = &p->timeline;
    if (thread < t->thread_capacity && t->threads[thread].info.count) {
        *out = t->threads[thread].info;
        return;
    }
    *out = (pk_timeline_info){.measured = false, .count = 0, .first = PK_TIME_UNKNOWN,
                              .last = PK_TIME_UNKNOWN};
}

bool pk_timeline_bounds(const pk_profile *p, int64_t *first, int64_t *last)
{
    const pk_timeline_table *t = &p->timeline;
    pk_timeline_info all = {.count = 0};
    for (size_t i = 0; i < t->thread_capacity && i < p->thread_count; i++) {
        const pk_timeline_info *info = &t->threads[i].info;
        if (info->count)
            note_info(&all, info->first, info->last, info->count);
    }
    if (first)
        *first = all.count ? all.first : PK_TIME_UNKNOWN;
    if (last)
        *last = all.count ? all.last : PK_TIME_UNKNOWN;
    return all.count > 0;
}

bool pk_profile_times_measured(const pk_profile *p)
{
    const pk_timeline_table *t = &p->timeline;
    if (!pk_timeline_bounds(p, NULL, NULL))
        return false;
    for (size_t row = 0; row < p->sample_count; row++) {
        uint32_t thread = p->sample_threads[row];
        if (thread >= t->thread_capacity || t->threads[thread].info.count == 0)
            return false;
    }
    return true;
}

/* ---- reading back ------------------------------------------------------------------------ */

/* One stream of records being decoded: a thread's lane, or a sorted run. */
typedef struct lane_decoder {
    pk_spool_reader reader;
    const uint8_t *at, *end;
    int64_t time; /* of the record decoded last (the base of the next delta) */
    /* The record decoded last. */
    int64_t duration;
    uint32_t stack;
    int64_t *values;       /* value_count entries */
    const uint8_t *rest;   /* its bytes after the time, and how many */
    size_t rest_length;
} lane_decoder;

struct pk_timeline_cursor {
    size_t value_count;
    pk_spool *runs;          /* the sorted runs of an out-of-order thread, one lane each */
    lane_decoder *decoders;  /* the thread's lane, or one per run */
    size_t decoder_count;
    uint32_t *heap;          /* decoders with a record, earliest (then lowest run) on top */
    size_t heap_count;
    int64_t *decoded_values; /* value_count per decoder */
    int64_t *values;         /* the values handed out by next */
    bool primed;             /* every decoder has its first record (or ended) */
    bool failed;
};

enum decode_result { DECODE_END, DECODE_OK, DECODE_FAILED };

static bool decode_u64(const uint8_t **at, const uint8_t *end, uint64_t *v)
{
    return pk_varint_decode(at, end, v) == PK_VARINT_OK;
}

/* The next record of d; its bytes never straddle chunks. */
static enum decode_result decode_next(lane_decoder *d, size_t value_count)
{
    if (d->at == d->end) {
        size_t n;
        if (!pk_spool_reader_next(&d->reader, &d->at, &n))
            return d->reader.error ? DECODE_FAILED : DECODE_END;
        d->end = d->at + n;
    }
    uint64_t delta, head, duration = 0, mask = 0;
    if (!decode_u64(&d->at, d->end, &delta))
        return DECODE_FAILED;
    d->rest = d->at;
    if (!decode_u64(&d->at, d->end, &head) ||
        ((head & HEAD_DURATION) && !decode_u64(&d->at, d->end, &duration)) ||
        ((head & HEAD_VALUES) && !decode_u64(&d->at, d->end, &mask)))
        return DECODE_FAILED;
    if (value_count < PK_MAX_VALUES && mask >> value_count)
        return DECODE_FAILED;
    memset(d->values, 0, value_count * sizeof *d->values);
    for (size_t v = 0; mask >> v; v++) {
        uint64_t u;
        if ((mask >> v & 1) && !decode_u64(&d->at, d->end, &u))
            return DECODE_FAILED;
        if (mask >> v & 1)
            d->values[v] = pk_zigzag_decode(u);
        if (v == 63)
            break;
    }
    if (head >> HEAD_STACK_SHIFT > UINT32_MAX || duration > INT64_MAX)
        return DECODE_FAILED;
    d->rest_length = (size_t)(d->at - d->rest);
    d->time = (int64_t)((uint64_t)d->time + (uint64_t)pk_zigzag_decode(delta));
    d->duration = (int64_t)duration;
    d->stack = (uint32_t)(head >> HEAD_STACK_SHIFT) - 1u; /* 0 (none) wraps to PK_NONE */
    return DECODE_OK;
}

/* A sample of a run being sorted: its time, and where its other bytes are in the run's buffer
 * (in the order added, which breaks ties). */
typedef struct run_entry {
    int64_t time;
    size_t offset;
    size_t length;
} run_entry;

static int compare_run_entries(const void *a, const void *b)
{
    const run_entry *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Sorts the entries of one run and spools them as lane `lane` of c->runs. */
static bool spool_run(pk_timeline_cursor *c, uint32_t lane, run_entry *entries, size_t count,
                      const uint8_t *bytes)
{
    qsort(entries, count, sizeof *entries, compare_run_entries);
    int64_t base = 0;
    for (size_t i = 0; i < count; i++) {
        uint8_t record[MAX_RECORD];
        size_t n = pk_varint_encode(record, time_delta(entries[i].time, base));
        memcpy(record + n, bytes + entries[i].offset, entries[i].length);
        if (!pk_spool_append(c->runs, lane, record, n + entries[i].length))
            return false;
        base = entries[i].time;
    }
    return true;
}

/* Reads the thread's lane in runs, sorting and spooling each: how many runs, or SIZE_MAX when
 * memory, the spool or the lane fail. */
static size_t spool_sorted_runs(pk_timeline_cursor *c, const pk_spool *lanes, uint32_t thread)
{
    run_entry *entries = NULL;
    size_t entry_capacity = 0, count = 0, runs = 0;
    uint8_t *bytes = NULL;
    size_t byte_capacity = 0, byte_count = 0;
    int64_t values[PK_MAX_VALUES];
    lane_decoder d = {.values = values};
    pk_spool_reader_init(&d.reader, lanes, thread);
    bool ok = (c->runs = pk_spool_new()) != NULL;
    enum decode_result r = DECODE_OK;
    while (ok) {
        r = decode_next(&d, c->value_count);
        if (r == DECODE_FAILED) {
            ok = false;
            break;
        }
        bool full = count >= sort_run_samples || byte_count + MAX_RECORD > SORT_RUN_BYTES;
        if (count > 0 && (r == DECODE_END || full)) {
            ok = runs < UINT32_MAX && spool_run(c, (uint32_t)runs, entries, count, bytes);
            runs++;
            count = byte_count = 0;
        }
        if (r == DECODE_END)
            break;
        /* A record's bytes after its time hold at least its head: so the reserve below grows
         * bytes to hold them. */
        assert(d.rest_length > 0);
        if (!PK_ARRAY_RESERVE(entries, entry_capacity, count + 1) ||
            !PK_ARRAY_RESERVE(bytes, byte_capacity, byte_count + d.rest_length)) {
            ok = false;
            break;
        }
        memcpy(bytes + byte_count, d.rest, d.rest_length);
        entries[count++] = (run_entry){d.time, byte_count, d.rest_length};
        byte_count += d.rest_length;
    }
    pk_spool_reader_free(&d.reader);
    free(entries);
    free(bytes);
    return ok ? runs : SIZE_MAX;
}

static bool heap_before(const pk_timeline_cursor *c, uint32_t a, uint32_t b)
{
    int64_t ta = c->decoders[a].time, tb = c->decoders[b].time;
    return ta < tb || (ta == tb && a < b);
}

static void heap_down(pk_timeline_cursor *c, size_t i)
{
    for (;;) {
        size_t least = i, l = 2 * i + 1, r = l + 1;
        if (l < c->heap_count && heap_before(c, c->heap[l], c->heap[least]))
            least = l;
        if (r < c->heap_count && heap_before(c, c->heap[r], c->heap[least]))
            least = r;
        if (least == i)
            return;
        uint32_t swap = c->heap[i];
        c->heap[i] = c->heap[least];
        c->heap[least] = swap;
        i = least;
    }
}

static void cursor_free(pk_timeline_cursor *c)
{
    for (size_t i = 0; i < c->decoder_count; i++)
        pk_spool_reader_free(&c->decoders[i].reader);
    free(c->decoders);
    free(c->heap);
    free(c->decoded_values);
    free(c->values);
    pk_spool_free(c->runs);
    free(c);
}

static bool cursor_decoders(pk_timeline_cursor *c, size_t count, const pk_spool *spool,
                            bool lane_per_decoder, uint32_t lane)
{
    size_t values = c->value_count ? c->value_count : 1;
    c->decoders = calloc(count ? count : 1, sizeof *c->decoders);
    c->heap = calloc(count ? count : 1, sizeof *c->heap);
    c->decoded_values = calloc((count ? count : 1) * values, sizeof *c->decoded_values);
    c->values = calloc(values, sizeof *c->values);
    if (!c->decoders || !c->heap || !c->decoded_values || !c->values)
        return false;
    c->decoder_count = count;
    for (size_t i = 0; i < count; i++) {
        c->decoders[i].values = c->decoded_values + i * values;
        pk_spool_reader_init(&c->decoders[i].reader, spool,
                             lane_per_decoder ? (uint32_t)i : lane);
    }
    return true;
}

pk_status pk_timeline_open(const pk_profile *p, uint32_t thread, pk_timeline_cursor **out)
{
    *out = NULL;
    const pk_timeline_table *t = &p->timeline;
    if (t->discard)
        return PK_ERR_UNSUPPORTED;
    if (thread >= p->thread_count)
        return PK_ERR_USAGE;
    pk_timeline_cursor *c = calloc(1, sizeof *c);
    if (!c)
        return PK_ERR_NOMEM;
    c->value_count = p->value_count;
    const pk_thread_timeline *tt = thread < t->thread_capacity ? &t->threads[thread] : NULL;
    bool ok;
    if (!tt || tt->info.count == 0 || !t->spool) {
        ok = cursor_decoders(c, 0, NULL, false, 0);
    } else if (!tt->out_of_order) {
        ok = cursor_decoders(c, 1, t->spool, false, thread);
    } else {
        size_t runs = spool_sorted_runs(c, t->spool, thread);
        ok = runs != SIZE_MAX && cursor_decoders(c, runs, c->runs, true, 0);
    }
    if (!ok) {
        int error = c->runs ? pk_spool_error(c->runs) : 0;
        cursor_free(c);
        return error && error != ENOMEM ? PK_ERR_IO : PK_ERR_NOMEM;
    }
    *out = c;
    return PK_OK;
}

/* Every decoder's first record, and the heap over those that have one. */
static bool prime(pk_timeline_cursor *c)
{
    c->primed = true;
    for (size_t i = 0; i < c->decoder_count; i++) {
        enum decode_result r = decode_next(&c->decoders[i], c->value_count);
        if (r == DECODE_FAILED)
            return false;
        if (r == DECODE_OK)
            c->heap[c->heap_count++] = (uint32_t)i;
    }
    for (size_t i = c->heap_count / 2; i-- > 0;)
        heap_down(c, i);
    return true;
}

bool pk_timeline_next(pk_timeline_cursor *c, pk_timed_sample *s)
{
    if (c->failed || (!c->primed && !prime(c))) {
        c->failed = true;
        return false;
    }
    if (c->heap_count == 0)
        return false;
    lane_decoder *d = &c->decoders[c->heap[0]];
    *s = (pk_timed_sample){.time = d->time, .duration = d->duration, .stack = d->stack,
                           .values = c->values};
    memcpy(c->values, d->values, c->value_count * sizeof *c->values);
    enum decode_result r = decode_next(d, c->value_count);
    if (r == DECODE_FAILED) {
        c->failed = true;
        return false;
    }
    if (r == DECODE_END)
        c->heap[0] = c->heap[--c->heap_count];
    if (c->heap_count > 1)
        heap_down(c, 0);
    return true;
}

pk_status pk_timeline_close(pk_timeline_cursor *c)
{
    if (!c)
        return PK_OK;
    pk_status status = c->failed ? PK_ERR_IO : PK_OK;
    cursor_free(c);
    return status;
}
