/* The memory events each thread's native allocations table lists, read once from the profile
 * and spooled by the thread whose table holds them, so that each of the table's columns is a
 * pass over that thread's events alone and memory does not grow with the events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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

pk_status fx_allocations_collect(fx_writer *w, pk_error *err)
{
    const pk_profile *p = w->p;
    size_t threads = pk_thread_count(p);
    w->thread_has_events = calloc(threads ? threads : 1, sizeof *w->thread_has_events);
    w->thread_allocations = calloc(threads ? threads : 1, sizeof *w->thread_allocations);
    if (!w->thread_has_events || !w->thread_allocations)
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
     * that freed). */
    pk_memory_event e;
    bool ok = true;
    while (ok && pk_memory_events_next(events, &e)) {
        if (e.owner >= threads)
            continue;
        w->thread_has_events[e.owner] = true;
        if (e.size != 0) { /* an unmatched free: its size is unknown */
            ok = spool_allocation(w->allocations, e.owner, &e);
            w->thread_allocations[e.owner]++;
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

void fx_allocations_begin(const fx_writer *w, uint32_t thread, fx_allocations *it)
{
    it->at = it->end = NULL;
    it->failed = false;
    it->active = w->allocations != NULL;
    if (it->active)
        pk_spool_reader_init(&it->reader, w->allocations, thread);
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

void fx_write_event_column(fx_writer *w, uint32_t thread, const char *key,
                           fx_event_column column)
{
    pk_json *j = &w->json;
    fx_allocations it;
    fx_allocation e;
    fx_column_begin(j, key);
    fx_allocations_begin(w, thread, &it);
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
    pk_json_array_end(j);
    /* A spool that cannot be read back leaves the column short: fail the output. */
    if (!fx_allocations_end(&it))
        pk_out_fail(pk_json_value(j), EIO);
}

/* One memory counter per thread whose table lists memory events: the front end draws it as the
 * thread's memory track (allocated minus freed bytes over time). */
void fx_write_counters(fx_writer *w)
{
    const pk_profile *p = w->p;
    pk_json *j = &w->json;
    pk_json_key(j, "counters");
    pk_json_array_begin(j);
    for (uint32_t t = 0; t < pk_thread_count(p); t++) {
        if (!w->thread_allocations || w->thread_allocations[t] == 0)
            continue;
        const pk_thread *thread = pk_thread_at(p, t);
        char pid[24];
        snprintf(pid, sizeof pid, "%lld", (long long)(thread->pid >= 0 ? thread->pid : 0));
        pk_json_line_break(j);
        pk_json_object_begin(j);
        pk_json_member_string(j, "name", "Memory");
        pk_json_member_string(j, "category", "Memory");
        pk_json_member_string(j, "description", "allocated minus freed bytes");
        pk_json_member_string(j, "pid", pid);
        pk_json_member_u64(j, "mainThreadIndex", t);
        pk_json_key(j, "samples");
        pk_json_object_begin(j);
        pk_json_member_u64(j, "length", w->thread_allocations[t]);
        fx_write_event_column(w, t, "time", FX_EVENT_TIME);
        fx_write_event_column(w, t, "count", FX_EVENT_BYTES); /* the change of allocated bytes */
        fx_write_event_column(w, t, "number", FX_EVENT_ONE);
        pk_json_object_end(j);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}
