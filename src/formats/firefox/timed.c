/* SPDX-License-Identifier: MIT */
/* Threads written from their timelines: the samples where they happened.
 *
 * A thread whose input gave its samples times (pk_timeline_info.measured), in a profile that
 * kept them (pk_timeline_kept), is written from its timeline cursor in time order, each sample
 * at its own time relative to the earliest timed sample of the profile (time 0 of the output,
 * shared with the placed threads). What is written:
 *   - a sample at an instant: a sample at its time, weighing its value; consecutive instants
 *     of one stack become one sample weighing their sum (the weight column is for that), which
 *     the stack chart shows the same way, from its time to the next sample's;
 *   - a span: a sample at its start weighing its value (spans contiguous on one stack, one),
 *     and, where nothing follows at its end, a sample of the empty stack weighing nothing, so
 *     that the stack chart ends it there: as the Firefox Profiler's own Chrome importer writes
 *     traced events;
 *   - an instant whose value written is 0 is left out, as rows of weight 0 are.
 *
 * One pass over the cursor collects a thread (the stacks its samples reach, how many samples
 * are written) and spools the samples written, delta-encoded, into a spool of its own; each of
 * the three columns is then a pass over that spool. Memory stays flat: the spool keeps a few
 * MiB in memory and the rest in a temporary file.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/arith.h"
#include "core/spool.h"
#include "core/units.h"
#include "core/varint.h"
#include "formats/firefox/writer.h"
#include "profkit/timeline.h"

bool fx_timed_prepare(fx_writer *w)
{
    const pk_profile *p = w->p;
    size_t threads = pk_thread_count(p);
    w->thread_timed = calloc(threads ? threads : 1, sizeof *w->thread_timed);
    if (!w->thread_timed)
        return false;
    w->timed_thread_count = 0;
    w->timed_ns = 0;
    w->timed_interval_ns = 0;
    int64_t first, last;
    bool timed = pk_timeline_kept(p) && pk_timeline_bounds(p, &first, &last);
    /* Counters share the profile's clock: time 0 is the earliest of timed samples and counter
     * samples, and the range reaches the latest of either. */
    int64_t counters_first, counters_last;
    if (fx_counters_bounds(p, &counters_first, &counters_last)) {
        first = timed && first < counters_first ? first : counters_first;
        last = timed && last > counters_last ? last : counters_last;
        w->time_origin = first;
        w->timed_ns = last > first ? pk_sub_saturating(last, first) : 0;
    }
    if (!timed)
        return true;
    w->time_origin = first;
    w->timed_ns = last > first ? pk_sub_saturating(last, first) : 0;
    for (uint32_t t = 0; t < threads; t++) {
        pk_timeline_info info;
        pk_timeline_info_get(p, t, &info);
        if (!info.measured || info.count == 0)
            continue;
        w->thread_timed[t] = true;
        w->timed_thread_count++;
        /* The densest thread's mean distance between samples stands for the sampling period
         * when the metadata does not give one: the stack chart gives a last sample as long. */
        if (info.count > 1 && info.last > info.first) {
            double mean = ((double)info.last - (double)info.first) / (double)(info.count - 1);
            if (w->timed_interval_ns == 0 || mean < w->timed_interval_ns)
                w->timed_interval_ns = mean;
        }
    }
    /* The metadata's sampling period, when it is a time, comes first. */
    const pk_metadata *md = pk_metadata_get(p);
    int64_t unit_ns = pk_unit_ns(pk_str(p, md->period_unit));
    if (md->period > 0 && unit_ns > 0)
        w->timed_interval_ns = (double)md->period * (double)unit_ns;
    return true;
}

typedef struct timed_collector {
    fx_writer *w;
    pk_spool *spool;
    int64_t previous_time;
    bool ok;
} timed_collector;

/* Spools one written sample: varints of stack + 1, the time's change since the previous
 * sample and the weight (both zigzag). */
static void emit(timed_collector *c, uint32_t stack, int64_t time, int64_t weight)
{
    uint8_t record[3 * PK_VARINT_MAX_BYTES];
    size_t n = pk_varint_encode(record, (uint64_t)stack + 1u);
    n += pk_varint_encode(record + n, pk_zigzag_encode(pk_sub_saturating(time, c->previous_time)));
    n += pk_varint_encode(record + n, pk_zigzag_encode(weight));
    c->previous_time = time;
    if (c->ok)
        c->ok = pk_spool_append(c->spool, 0, record, n);
    fx_mark_stack(c->w, stack);
    c->w->sample_count++;
}

/* A pending sample (instants merged, contiguous spans merged) is written once the next one is
 * known: a span that nothing follows at its end is closed by an empty sample there. */
typedef struct timed_pending {
    bool have, span;
    uint32_t stack;
    int64_t time, end, weight;
} timed_pending;

static void flush(timed_collector *c, const timed_pending *pending, bool next_known,
                  int64_t next_time)
{
    if (!pending->have)
        return;
    emit(c, pending->stack, pending->time, pending->weight);
    if (pending->span && (!next_known || next_time > pending->end))
        emit(c, PK_NONE, pending->end, 0);
}

pk_status fx_timed_collect(fx_writer *w, uint32_t thread)
{
    pk_spool_free(w->timed_samples);
    w->timed_samples = pk_spool_new();
    if (!w->timed_samples)
        return PK_ERR_NOMEM;
    pk_timeline_cursor *cursor;
    pk_status status = pk_timeline_open(w->p, thread, &cursor);
    if (status != PK_OK)
        return status;
    timed_collector c = {w, w->timed_samples, w->time_origin, true};
    timed_pending pending = {0};
    pk_timed_sample s;
    while (pk_timeline_next(cursor, &s)) {
        int64_t weight = w->value == PK_NONE || !s.values ? 0 : s.values[w->value];
        bool span = s.duration > 0;
        if (!span && weight == 0)
            continue;
        int64_t end = pk_add_saturating(s.time, s.duration);
        if (pending.have && pending.stack == s.stack && pending.span == span &&
            (!span || s.time == pending.end)) {
            pending.weight = pk_add_saturating(pending.weight, weight);
            if (end > pending.end)
                pending.end = end;
            continue;
        }
        flush(&c, &pending, true, s.time);
        pending = (timed_pending){true, span, s.stack, s.time, end, weight};
    }
    flush(&c, &pending, false, 0);
    status = pk_timeline_close(cursor);
    if (status != PK_OK)
        return status;
    if (!c.ok)
        return pk_spool_error(w->timed_samples) == ENOMEM ? PK_ERR_NOMEM : PK_ERR_IO;
    return PK_OK;
}

typedef enum timed_column { TIMED_STACK, TIMED_TIME, TIMED_WEIGHT } timed_column;

/* One column over the spooled samples, into the array the caller opened; a spool that cannot
 * be read back fails the output (the column would be short). */
static void write_entries(fx_writer *w, timed_column column)
{
    pk_json *j = &w->json;
    pk_spool_reader reader;
    pk_spool_reader_init(&reader, w->timed_samples, 0);
    const uint8_t *at, *end;
    size_t n;
    int64_t time = w->time_origin;
    bool ok = true;
    while (ok && pk_spool_reader_next(&reader, &at, &n)) {
        for (end = at + n; ok && at < end;) {
            uint64_t stack, delta, weight;
            ok = pk_varint_decode(&at, end, &stack) == PK_VARINT_OK &&
                 pk_varint_decode(&at, end, &delta) == PK_VARINT_OK &&
                 pk_varint_decode(&at, end, &weight) == PK_VARINT_OK;
            if (!ok)
                break;
            time = pk_add_saturating(time, pk_zigzag_decode(delta));
            switch (column) {
            case TIMED_STACK:
                fx_index_or_null(j, fx_local_stack(w, (uint32_t)(stack - 1)));
                break;
            case TIMED_TIME:
                fx_out_ms(pk_json_value(j), pk_sub_saturating(time, w->time_origin));
                break;
            case TIMED_WEIGHT:
                fx_weight(w, pk_zigzag_decode(weight));
                break;
            }
        }
    }
    if (!ok || reader.error != 0)
        pk_out_fail(pk_json_value(j), EIO);
    pk_spool_reader_free(&reader);
}

void fx_timed_write_columns(fx_writer *w)
{
    static const char *const keys[] = {"stack", "time", "weight"};
    for (int column = TIMED_STACK; column <= TIMED_WEIGHT; column++) {
        fx_column_begin(&w->json, keys[column]);
        write_entries(w, (timed_column)column);
        pk_json_array_end(&w->json);
    }
}
