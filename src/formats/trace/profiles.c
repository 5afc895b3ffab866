/* SPDX-License-Identifier: MIT */
/* The V8 CPU profiles of a trace, by (pid, id) as DevTools keys them: a Profile event names the
 * profiled thread and starts the profile, ProfileChunk events (written from the sampling thread)
 * add nodes, samples and time deltas, a CpuProfile event carries a whole profile. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "formats/trace/trace.h"

void trace_profiles_init(trace_profiles *t, pk_profile *p)
{
    memset(t, 0, sizeof *t);
    t->p = p;
    pk_index_init(&t->index);
}

void trace_profiles_free(trace_profiles *t)
{
    for (size_t i = 0; i < t->count; i++) {
        v8_builder_free(&t->items[i]->builder);
        free(t->items[i]);
    }
    free(t->items);
    pk_index_free(&t->index);
    memset(t, 0, sizeof *t);
}

typedef struct profile_key {
    int64_t pid;
    uint32_t id;
} profile_key;

static bool same_profile(const void *context, uint32_t entry, const void *key)
{
    const trace_profiles *t = context;
    const profile_key *k = key;
    return t->items[entry]->pid == k->pid && t->items[entry]->id == k->id;
}

trace_profile *trace_profiles_get(trace_profiles *t, int64_t pid, uint32_t id)
{
    profile_key key = {pid, id};
    uint64_t hash = trace_pair_hash(pid, id);
    uint32_t i = pk_index_find(&t->index, hash, same_profile, t, &key);
    if (i != UINT32_MAX)
        return t->items[i];
    trace_profile *profile = calloc(1, sizeof *profile);
    if (!profile)
        return NULL;
    if (t->count >= UINT32_MAX - 1 || !PK_ARRAY_RESERVE(t->items, t->cap, t->count + 1) ||
        !pk_index_insert(&t->index, hash, (uint32_t)t->count)) {
        free(profile);
        return NULL;
    }
    profile->pid = pid;
    profile->id = id;
    profile->chunk_tid = -1;
    profile->thread = PK_NONE;
    v8_builder_init(&profile->builder, t->p);
    t->items[t->count++] = profile;
    return profile;
}

bool trace_profiles_have_samples(const trace_profiles *t)
{
    for (size_t i = 0; i < t->count; i++)
        if (v8_builder_has_samples(&t->items[i]->builder))
            return true;
    return false;
}

/* The thread a profile's samples go to: the one its Profile (or CpuProfile) event named, else
 * the one that wrote its chunks. */
static trace_thread *thread_of(trace_profiles *t, trace_threads *threads, trace_profile *profile)
{
    if (!profile->has_thread)
        pk_warn(t->p, "the CPU profile %s of process %" PRId64 " has no Profile event naming its "
                      "thread: its samples go to the thread that wrote its chunks",
                pk_str(t->p, profile->id), profile->pid);
    return trace_threads_get(threads, profile->pid,
                             profile->has_thread ? profile->tid : profile->chunk_tid);
}

bool trace_profiles_make_threads(trace_profiles *t, trace_threads *threads)
{
    for (size_t i = 0; i < t->count; i++) {
        trace_profile *profile = t->items[i];
        if (!v8_builder_has_samples(&profile->builder))
            continue;
        trace_thread *entry = thread_of(t, threads, profile);
        if (!entry || (profile->thread = trace_threads_model(threads, entry)) == PK_NONE)
            return false;
    }
    return true;
}

pk_status trace_profiles_finish(trace_profiles *t, uint32_t cpu, uint32_t count, uint64_t offset,
                                pk_error *err)
{
    for (size_t i = 0; i < t->count; i++) {
        trace_profile *profile = t->items[i];
        if (profile->thread == PK_NONE)
            continue;
        pk_status status =
            v8_builder_finish(&profile->builder, profile->thread, cpu, count, offset, err);
        if (status != PK_OK)
            return status;
    }
    return PK_OK;
}
