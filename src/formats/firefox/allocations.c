/* SPDX-License-Identifier: MIT */
/* The memory events each thread's native allocations table lists, read once from the profile
 * and spooled by the thread whose table holds them and by its process (one spool, whose memory
 * budget they share), so that each column of a table or of a process's memory counter is a
 * pass over that thread's or process's events alone and memory does not grow with the
 * events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/spool.h"
#include "core/varint.h"
#include "formats/firefox/writer.h"

/* An event as spooled: varints of order, stack + 1, size, address, thread, and kind. */
static bool spool_allocation(pk_spool *spool, uint32_t lane, const pk_memory_event *e)
{
    uint8_t record[6 * PK_VARINT_MAX_BYTES];
    size_t n = pk_varint_encode(record, e->order);
    n += pk_varint_encode(record + n, (uint64_t)e->stack + 1u);
    n += pk_varint_encode(record + n, e->size);
    n += pk_varint_encode(record + n, e->address);
    n += pk_varint_encode(record + n, e->thread);
    n += pk_varint_encode(record + n, e->kind);
    return pk_spool_append(spool, lane, record, n);
}

/* What the process's lane keeps of an event: its order, size and kind (the counter's time and
 * change of bytes); the other fields are written as zeros, which take a byte each. */
static bool spool_process_event(pk_spool *spool, uint32_t lane, const pk_memory_event *e)
{
    pk_memory_event kept = {0};
    kept.order = e->order;
    kept.size = e->size;
    kept.kind = e->kind;
    kept.stack = PK_NONE;
    return spool_allocation(spool, lane, &kept);
}

pk_status fx_allocations_collect(fx_writer *w, pk_error *err)
{
    const pk_profile *p = w->p;
    size_t threads = pk_thread_count(p);
    w->thread_has_events = calloc(threads ? threads : 1, sizeof *w->thread_has_events);
    w->process_allocations = calloc(threads ? threads : 1, sizeof *w->process_allocations);
    if (!w->thread_has_events || !w->process_allocations)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    if (pk_memory_event_count(p) == 0)
        return PK_OK;
    pk_memory_cursor *events;
    pk_status st = pk_memory_events_open(p, &events);
    if (st == PK_ERR_UNSUPPORTED)
        return pk_error_set(err, st, PK_NO_OFFSET,
                            "the profile kept only the sums of its memory events");
    if (st != PK_OK || !(w->allocations = pk_spool_new())) {
        pk_memory_events_close(events);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    /* A free sits in the table of the thread whose allocation it releases: the front end pairs
     * frees with allocations by address within one table (threadId still names the thread
     * that freed). It counts against that thread's process too, which the allocation grew. */
    pk_memory_event e;
    bool ok = true;
    while (ok && pk_memory_events_next(events, &e)) {
        if (e.owner >= threads)
            continue;
        w->thread_has_events[e.owner] = true;
        if (e.size != 0) { /* an unmatched free: its size is unknown */
            uint32_t process = w->thread_process[e.owner];
            ok = spool_allocation(w->allocations, e.owner, &e) &&
                 spool_process_event(w->allocations, (uint32_t)threads + process, &e);
            w->process_allocations[process]++;
        }
    }
    if (pk_memory_events_close(events) != PK_OK)
        return pk_error_set(err, PK_ERR_IO, PK_NO_OFFSET, "cannot read back the memory events");
    if (!ok)
        return pk_error_set(err, pk_spool_error(w->allocations) == ENOMEM ? PK_ERR_NOMEM
                                                                          : PK_ERR_IO,
                            PK_NO_OFFSET, "cannot spool the memory events");
    return PK_OK;
}

void fx_allocations_begin(const pk_spool *spool, uint32_t lane, fx_allocations *it)
{
    it->at = it->end = NULL;
    it->failed = false;
    it->active = spool != NULL;
    if (it->active)
        pk_spool_reader_init(&it->reader, spool, lane);
}

bool fx_allocations_next(fx_allocations *it, fx_allocation *a)
{
    if (!it->active)
        return false;
    if (it->at == it->end) {
        size_t n;
        if (!pk_spool_reader_next(&it->reader, &it->at, &n))
            return false;
        it->end = it->at + n;
    }
    uint64_t stack, thread, kind;
    if (pk_varint_decode(&it->at, it->end, &a->order) != PK_VARINT_OK ||
        pk_varint_decode(&it->at, it->end, &stack) != PK_VARINT_OK ||
        pk_varint_decode(&it->at, it->end, &a->size) != PK_VARINT_OK ||
        pk_varint_decode(&it->at, it->end, &a->address) != PK_VARINT_OK ||
        pk_varint_decode(&it->at, it->end, &thread) != PK_VARINT_OK ||
        pk_varint_decode(&it->at, it->end, &kind) != PK_VARINT_OK) {
        it->failed = true;
        return false;
    }
    a->stack = (uint32_t)(stack - 1);
    a->thread = (uint32_t)thread;
    a->kind = (uint8_t)kind;
    return true;
}

bool fx_allocations_end(fx_allocations *it)
{
    bool ok = !it->failed && (!it->active || it->reader.error == 0);
    if (it->active)
        pk_spool_reader_free(&it->reader);
    return ok;
}

/* The entries of a column over one lane's events, into the array the caller opened; a spool
 * that cannot be read back fails the output (the column would be short). */
static void write_event_entries(fx_writer *w, const pk_spool *spool, uint32_t lane,
                                fx_event_column column)
{
    pk_json *j = &w->json;
    fx_allocations it;
    fx_allocation e;
    fx_allocations_begin(spool, lane, &it);
    while (fx_allocations_next(&it, &e)) {
        switch (column) {
        case FX_EVENT_TIME:
            fx_out_ms(pk_json_value(j), fx_event_time(w, e.order));
            break;
        case FX_EVENT_BYTES: {
            pk_output *out = pk_json_value(j);
            if (e.kind != PK_MEM_ALLOC)
                pk_out_putc(out, '-');
            pk_out_u64(out, e.size);
            break;
        }
        case FX_EVENT_STACK:
            fx_index_or_null(j, fx_local_stack(w, e.stack));
            break;
        case FX_EVENT_ADDRESS:
            pk_json_u64(j, e.address);
            break;
        case FX_EVENT_THREAD: {
            const pk_thread *t = pk_thread_at(w->p, e.thread);
            pk_json_i64(j, t->tid >= 0 ? t->tid : (int64_t)e.thread);
            break;
        }
        case FX_EVENT_ONE:
            pk_json_i64(j, 1);
            break;
        }
    }
    if (!fx_allocations_end(&it))
        pk_out_fail(pk_json_value(j), EIO);
}

void fx_write_event_column(fx_writer *w, uint32_t thread, const char *key,
                           fx_event_column column)
{
    fx_column_begin(&w->json, key);
    write_event_entries(w, w->allocations, thread, column);
    pk_json_array_end(&w->json);
}

/* A column of a process's counter: a first sample of nothing live at the start of the run, so
 * that the track covers the whole run and not only from the first event on, then one per event
 * of the process. */
static void write_counter_column(fx_writer *w, uint32_t process, const char *key,
                                 fx_event_column column)
{
    pk_json *j = &w->json;
    fx_column_begin(j, key);
    if (column == FX_EVENT_TIME)
        fx_out_ms(pk_json_value(j), 0);
    else
        pk_json_i64(j, 0);
    write_event_entries(w, w->allocations, (uint32_t)pk_thread_count(w->p) + process, column);
    pk_json_array_end(j);
}

bool fx_counters_bounds(const pk_profile *p, int64_t *first, int64_t *last)
{
    bool any = false;
    for (uint32_t i = 0; i < pk_counter_count(p); i++) {
        const pk_counter *c = pk_counter_at(p, i);
        if (c->samples == 0 || !fx_counter_written(p, c))
            continue;
        *first = any && *first < c->first ? *first : c->first;
        *last = any && *last > c->last ? *last : c->last;
        any = true;
    }
    return any;
}

bool fx_counter_written(const pk_profile *p, const pk_counter *c)
{
    return strcmp(pk_str(p, c->unit), "bytes") == 0;
}

/* A counter of the model: its levels as the front end's memory counter holds them, each
 * sample's change since the one before (the first from nothing), which the track adds up. */
static pk_status write_model_counter(fx_writer *w, uint32_t counter)
{
    const pk_profile *p = w->p;
    const pk_counter *c = pk_counter_at(p, counter);
    pk_json *j = &w->json;
    uint32_t thread = c->thread != PK_NONE ? c->thread : 0;
    uint32_t main = pk_thread_count(p) > 0 ? w->thread_process[thread] : 0;
    char pid[24];
    snprintf(pid, sizeof pid, "%lld",
             pk_thread_count(p) > 0 ? (long long)fx_thread_pid(pk_thread_at(p, main)) : 0LL);
    pk_json_line_break(j);
    pk_json_object_begin(j);
    pk_json_member_string(j, "name", pk_str(p, c->name));
    pk_json_member_string(j, "category", "Memory");
    pk_json_member_string(j, "description",
                          c->description != PK_NONE ? pk_str(p, c->description) : "");
    pk_json_member_string(j, "pid", pid);
    pk_json_member_u64(j, "mainThreadIndex", main);
    pk_json_key(j, "samples");
    pk_json_object_begin(j);
    pk_json_member_u64(j, "length", c->samples);
    /* Two passes over the spooled samples, one per column. */
    pk_status status = PK_OK;
    for (int column = 0; column < 2 && status == PK_OK; column++) {
        fx_column_begin(j, column == 0 ? "time" : "count");
        pk_counter_cursor *cursor;
        status = pk_counter_open(p, counter, &cursor);
        if (status != PK_OK)
            break;
        int64_t time, level, previous = 0;
        while (pk_counter_next(cursor, &time, &level)) {
            if (column == 0)
                fx_out_ms(pk_json_value(j), pk_sub_saturating(time, w->time_origin));
            else
                pk_json_i64(j, pk_sub_saturating(level, previous));
            previous = level;
        }
        status = pk_counter_close(cursor);
        pk_json_array_end(j);
    }
    pk_json_object_end(j);
    pk_json_object_end(j);
    return status;
}

/* One memory counter per process, the live bytes of all its threads over time: the front end
 * draws every memory counter as a track of the counter's process labelled just "Memory"
 * (docs/formats/firefox.md), so counters of one process's threads could not be told apart.
 * Then the model's counters in bytes (massif's memory over time). */
pk_status fx_write_counters(fx_writer *w)
{
    const pk_profile *p = w->p;
    pk_json *j = &w->json;
    pk_json_key(j, "counters");
    pk_json_array_begin(j);
    for (uint32_t i = 0; i < pk_counter_count(p); i++) {
        const pk_counter *c = pk_counter_at(p, i);
        if (c->samples == 0 || !fx_counter_written(p, c))
            continue;
        pk_status status = write_model_counter(w, i);
        if (status != PK_OK)
            return status;
    }
    for (uint32_t t = 0; t < pk_thread_count(p); t++) {
        if (!w->process_allocations || w->process_allocations[t] == 0)
            continue; /* not a main thread, or a process without events of known size */
        char pid[24];
        snprintf(pid, sizeof pid, "%lld", (long long)fx_thread_pid(pk_thread_at(p, t)));
        pk_json_line_break(j);
        pk_json_object_begin(j);
        pk_json_member_string(j, "name", "Live memory");
        pk_json_member_string(j, "category", "Memory");
        pk_json_member_string(j, "description",
                              "bytes allocated and not freed by the threads of the process");
        pk_json_member_string(j, "pid", pid);
        pk_json_member_u64(j, "mainThreadIndex", t);
        pk_json_key(j, "samples");
        pk_json_object_begin(j);
        pk_json_member_u64(j, "length", w->process_allocations[t] + 1);
        write_counter_column(w, t, "time", FX_EVENT_TIME);
        write_counter_column(w, t, "count", FX_EVENT_BYTES); /* the change of live bytes */
        write_counter_column(w, t, "number", FX_EVENT_ONE);  /* operations since the last */
        pk_json_object_end(j);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
    return PK_OK;
}
