/* SPDX-License-Identifier: MIT */
/* One thread object: who it is (process, names, ids), its samples, its native allocations, an
 * empty marker table, and the tables that those refer to. */
#include <stdio.h>

#include "core/process_names.h"
#include "formats/firefox/writer.h"

/* Opens the thread object and writes its identity; every thread is in a process of its pid
 * that lives as long as the profile, named as the input named it, else by the product. */
static void write_identity(fx_writer *w, const char *name, const char *process, bool is_main,
                           int64_t pid, int64_t tid)
{
    pk_json *j = &w->json;
    char pid_text[24];
    snprintf(pid_text, sizeof pid_text, "%lld", (long long)pid);
    pk_json_line_break(j);
    pk_json_object_begin(j);
    pk_json_member_string(j, "name", name);
    pk_json_member_bool(j, "isMainThread", is_main);
    pk_json_member_string(j, "processType", "default");
    pk_json_member_string(j, "processName", process ? process : fx_product(w->p));
    pk_json_member_i64(j, "processStartupTime", 0);
    pk_json_key(j, "processShutdownTime");
    pk_json_null(j);
    pk_json_member_i64(j, "registerTime", 0);
    pk_json_key(j, "unregisterTime");
    pk_json_null(j);
    pk_json_key(j, "pausedRanges");
    pk_json_array_begin(j);
    pk_json_array_end(j);
    pk_json_member_bool(j, "showMarkersInTimeline", false);
    pk_json_member_string(j, "pid", pid_text); /* a string since version 47 */
    pk_json_member_i64(j, "tid", tid);
}

static void write_samples(fx_writer *w)
{
    static const char *const weight_types[] = {
        [FX_WEIGHT_SAMPLES] = "samples", [FX_WEIGHT_MS] = "tracing-ms", [FX_WEIGHT_BYTES] = "bytes"};
    const pk_profile *p = w->p;
    pk_json *j = &w->json;
    size_t rows = w->row_count;
    const uint32_t *row_order = w->row_order;
    pk_json_key(j, "samples");
    pk_json_object_begin(j);
    pk_json_member_u64(j, "length", w->sample_count);
    pk_json_member_string(j, "weightType", weight_types[w->weight_kind]);
    if (w->thread_is_timed) { /* in time order, at their own times (timed.c) */
        fx_timed_write_columns(w);
        pk_json_object_end(j);
        return;
    }
    /* Each row is one or more samples over its span (timeline.c). */
    fx_column_begin(j, "stack");
    for (size_t i = 0; i < rows; i++) {
        uint32_t stack = fx_local_stack(w, pk_sample_stack(p, row_order[i]));
        for (uint64_t k = fx_row_samples(w, row_order[i]); k > 0; k--)
            fx_index_or_null(j, stack);
    }
    pk_json_array_end(j);
    fx_column_begin(j, "time");
    for (size_t i = 0; i < rows; i++)
        for (uint64_t k = 0, n = fx_row_samples(w, row_order[i]); k < n; k++)
            fx_out_ms(pk_json_value(j), fx_row_sample_time(w, row_order[i], k));
    pk_json_array_end(j);
    fx_column_begin(j, "weight");
    for (size_t i = 0; i < rows; i++)
        for (uint64_t k = 0, n = fx_row_samples(w, row_order[i]); k < n; k++)
            fx_weight(w, fx_row_sample_weight(w, row_order[i], k));
    pk_json_array_end(j);
    pk_json_object_end(j);
}

static uint64_t positive(int64_t v)
{
    return v > 0 ? (uint64_t)v : 0;
}

size_t fx_value_allocations(const fx_writer *w, size_t row, uint64_t *live, uint64_t *freed)
{
    const pk_memory_values *mv = &w->memory_values;
    const int64_t *v = pk_sample_values(w->p, row);
    *live = mv->inuse_space != PK_NONE ? positive(v[mv->inuse_space]) : 0;
    uint64_t allocated = mv->alloc_space != PK_NONE ? positive(v[mv->alloc_space]) : *live;
    *freed = allocated > *live ? allocated - *live : 0;
    return (*live ? 1u : 0u) + (*freed ? 2u : 0u);
}

typedef enum fx_value_column { FX_VALUE_TIME, FX_VALUE_WEIGHT, FX_VALUE_STACK,
                               FX_VALUE_ADDRESS, FX_VALUE_THREAD } fx_value_column;

/* A column of the native allocations a heap profile's rows make: what is in use allocated and
 * never freed (the retained memory), what was freed allocated and freed, each at an address of
 * its own (the row's), all at the start of the profile, which has no times for them. */
static void write_value_column(fx_writer *w, uint32_t thread, const char *key,
                               fx_value_column column)
{
    pk_json *j = &w->json;
    const pk_thread *t = pk_thread_at(w->p, thread);
    fx_column_begin(j, key);
    for (size_t i = w->thread_rows_start[thread]; i < w->thread_rows_start[thread + 1]; i++) {
        uint32_t row = w->thread_rows[i];
        uint64_t live, freed;
        if (!fx_value_allocations(w, row, &live, &freed))
            continue;
        /* live: +live at 4 * row + 1; freed: +freed, then -freed, at 4 * row + 2 */
        for (int k = 0; k < 3; k++) {
            if ((k == 0 && !live) || (k > 0 && !freed))
                continue;
            switch (column) {
            case FX_VALUE_TIME:
                fx_out_ms(pk_json_value(j), 0);
                break;
            case FX_VALUE_WEIGHT:
                pk_json_i64(j, k == 0 ? (int64_t)live : k == 1 ? (int64_t)freed : -(int64_t)freed);
                break;
            case FX_VALUE_STACK:
                fx_index_or_null(j, fx_local_stack(w, pk_sample_stack(w->p, row)));
                break;
            case FX_VALUE_ADDRESS:
                pk_json_u64(j, 4 * (uint64_t)row + (k == 0 ? 1 : 2));
                break;
            case FX_VALUE_THREAD:
                pk_json_i64(j, t->tid >= 0 ? t->tid : (int64_t)thread);
                break;
            }
        }
    }
    pk_json_array_end(j);
}

/* +size for an allocation, -size for a free, at the address the retained-memory view pairs
 * them by. */
static void write_allocations(fx_writer *w, uint32_t thread)
{
    if (w->memory_from_values) {
        pk_json *j = &w->json;
        pk_json_key(j, "nativeAllocations");
        pk_json_object_begin(j);
        pk_json_member_u64(j, "length", w->allocation_count);
        pk_json_member_string(j, "weightType", "bytes");
        write_value_column(w, thread, "time", FX_VALUE_TIME);
        write_value_column(w, thread, "weight", FX_VALUE_WEIGHT);
        write_value_column(w, thread, "stack", FX_VALUE_STACK);
        write_value_column(w, thread, "memoryAddress", FX_VALUE_ADDRESS);
        write_value_column(w, thread, "threadId", FX_VALUE_THREAD);
        pk_json_object_end(j);
        return;
    }
    pk_json *j = &w->json;
    pk_json_key(j, "nativeAllocations");
    pk_json_object_begin(j);
    pk_json_member_u64(j, "length", w->allocation_count);
    pk_json_member_string(j, "weightType", "bytes");
    fx_write_event_column(w, thread, "time", FX_EVENT_TIME);
    fx_write_event_column(w, thread, "weight", FX_EVENT_BYTES);
    fx_write_event_column(w, thread, "stack", FX_EVENT_STACK);
    fx_write_event_column(w, thread, "memoryAddress", FX_EVENT_ADDRESS);
    fx_write_event_column(w, thread, "threadId", FX_EVENT_THREAD);
    pk_json_object_end(j);
}

/* The model has no markers; the table must still be there. */
static void write_markers(pk_json *j)
{
    static const char *const columns[] = {"category", "data", "endTime", "name", "phase",
                                          "startTime"};
    pk_json_key(j, "markers");
    pk_json_object_begin(j);
    pk_json_member_i64(j, "length", 0);
    for (size_t i = 0; i < sizeof columns / sizeof columns[0]; i++) {
        fx_column_begin(j, columns[i]);
        pk_json_array_end(j);
    }
    pk_json_object_end(j);
}

/* The thread's remaining members once its identity is written. */
static void write_contents(fx_writer *w, uint32_t thread)
{
    write_samples(w);
    if (thread != PK_NONE &&
        (w->thread_has_events[thread] || (w->memory_from_values && w->allocation_count)))
        write_allocations(w, thread);
    write_markers(&w->json);
    fx_write_tables(w);
    pk_json_object_end(&w->json);
}

void fx_write_thread(fx_writer *w, uint32_t thread)
{
    const pk_profile *p = w->p;
    const pk_thread *t = pk_thread_at(p, thread);
    int64_t tid = t->tid >= 0 ? t->tid : (int64_t)thread;
    /* The profiler labels a process's track by its main thread's name, and by the process's
     * name only when it has no main thread: a process the input named (a Roku channel, a
     * Chromium renderer) has none, so that its track carries that name, its threads below. */
    const char *process = pk_process_name(p, t->pid);
    bool is_main = w->thread_process[thread] == thread && !process;
    write_identity(w, pk_thread_display_name(w->thread_names, thread), process, is_main,
                   fx_thread_pid(t), tid);
    write_contents(w, thread);
}

void fx_write_empty_thread(fx_writer *w)
{
    w->row_count = 0;
    w->sample_count = 0;
    w->thread_is_timed = false;
    w->stacks.count = w->frames.count = w->funcs.count = 0;
    w->resources.count = w->symbols.count = w->strings.count = 0;
    /* No samples: the weight type of no value. */
    w->weight_kind = FX_WEIGHT_SAMPLES;
    write_identity(w, fx_product(w->p), NULL, true, 0, 0);
    write_contents(w, PK_NONE);
}
