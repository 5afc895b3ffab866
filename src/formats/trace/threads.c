/* SPDX-License-Identifier: MIT */
/* The threads of a trace: one entry per (pid, tid) seen, a profile thread once it has rows, and
 * the names M events give them (which may come after the events themselves). */
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/process_names.h"
#include "formats/trace/trace.h"

void trace_threads_init(trace_threads *t, pk_profile *p)
{
    memset(t, 0, sizeof *t);
    t->p = p;
    pk_index_init(&t->index);
}

void trace_threads_free(trace_threads *t)
{
    for (size_t i = 0; i < t->count; i++)
        pk_call_spans_free(t->items[i].timeline);
    free(t->items);
    pk_index_free(&t->index);
    memset(t, 0, sizeof *t);
}

typedef struct pair_key {
    int64_t pid, tid;
} pair_key;

static bool same_thread(const void *context, uint32_t entry, const void *key)
{
    const trace_threads *t = context;
    const pair_key *k = key;
    return t->items[entry].pid == k->pid && t->items[entry].tid == k->tid;
}

trace_thread *trace_threads_get(trace_threads *t, int64_t pid, int64_t tid)
{
    pair_key key = {pid, tid};
    uint64_t hash = trace_pair_hash(pid, tid);
    uint32_t i = pk_index_find(&t->index, hash, same_thread, t, &key);
    if (i != UINT32_MAX)
        return &t->items[i];
    if (t->count >= UINT32_MAX - 1 || !PK_ARRAY_RESERVE(t->items, t->cap, t->count + 1) ||
        !pk_index_insert(&t->index, hash, (uint32_t)t->count))
        return NULL;
    t->items[t->count] = (trace_thread){.pid = pid, .tid = tid, .thread = PK_NONE};
    return &t->items[t->count++];
}

uint32_t trace_threads_model(trace_threads *t, trace_thread *entry)
{
    if (entry->thread != PK_NONE)
        return entry->thread;
    /* A thread known by a string ("stream 7") is named by it until a thread_name renames it;
     * the model's ids are numbers, unknown (-1) for a string. */
    uint32_t pid_string = trace_id_string(t->p, entry->pid),
             tid_string = trace_id_string(t->p, entry->tid);
    uint32_t name = tid_string != PK_NONE ? tid_string : pk_intern_cstr(t->p, "thread");
    entry->thread = pk_add_thread(t->p, name, pid_string != PK_NONE ? -1 : entry->pid,
                                  tid_string != PK_NONE ? -1 : entry->tid);
    return entry->thread;
}

/* A process's name is kept in the entry of (pid, PROCESS_TID), which never gets rows. */
#define PROCESS_TID INT64_MIN

bool trace_threads_name_process(trace_threads *t, int64_t pid, uint32_t name)
{
    trace_thread *e = trace_threads_get(t, pid, PROCESS_TID);
    if (!e)
        return false;
    e->name = name;
    return true;
}

bool trace_threads_label_process(trace_threads *t, int64_t pid, uint32_t labels)
{
    trace_thread *e = trace_threads_get(t, pid, PROCESS_TID);
    if (!e)
        return false;
    e->labels = labels;
    return true;
}

bool trace_threads_apply_names(trace_threads *t)
{
    pair_key key = {0, PROCESS_TID};
    for (size_t i = 0; i < t->count; i++) {
        const trace_thread *e = &t->items[i];
        if (e->thread == PK_NONE)
            continue;
        key.pid = e->pid;
        uint32_t j = pk_index_find(&t->index, trace_pair_hash(e->pid, PROCESS_TID), same_thread,
                                   t, &key);
        uint32_t process = j != UINT32_MAX ? t->items[j].name : 0;
        uint32_t labels = j != UINT32_MAX ? t->items[j].labels : 0;
        /* The process's name goes with the profile (Chrome names its processes Browser,
         * Renderer, GPU Process), for outputs that show processes; a string pid has none.
         * Its labels (a renderer's tab titles) follow after a colon, as Chrome's tracing UI
         * shows them: "Renderer: Example Domain". */
        uint32_t shown = process;
        if (labels && pk_str_len(t->p, labels))
            shown = process ? pk_intern_printf(t->p, "%s: %s", pk_str(t->p, process),
                                               pk_str(t->p, labels))
                            : labels;
        if (shown == PK_NONE)
            return false;
        if (shown && trace_id_string(t->p, e->pid) == PK_NONE &&
            pk_process_name_set(t->p, e->pid, pk_str(t->p, shown)) != PK_OK)
            return false;
        uint32_t name = e->name;
        if (!name && trace_id_string(t->p, e->tid) == PK_NONE) /* else named by its tid already */
            name = process ? process : shown;
        if (name)
            pk_thread_rename(t->p, e->thread, name);
    }
    return true;
}
