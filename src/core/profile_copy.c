/* SPDX-License-Identifier: MIT */
/* Copying one profile into another (profkit/copy.h): the one routine behind merging, diffing
 * and the symbolization pass. Every item of the source is interned again in the destination,
 * threads are matched by name, sample rows and memory events are replayed in their stream
 * order, each thread's timeline is appended again in time order, and a hook may stand in for a
 * source frame with a chain of destination frames. */
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/distinct.h"
#include "core/hashmap.h"
#include "core/pages.h"
#include "core/profile_internal.h"
#include "profkit/copy.h"
#include "profkit/counters.h"
#include "profkit/timeline.h"

/* How a source frame maps, kept in one compact array because every frame of every stack looks
 * it up: most chains are one frame, which is then here without following the chain's pointer. */
typedef struct frame_chain {
    uint32_t length; /* 0 until mapped */
    uint32_t first;
} frame_chain;

typedef struct copy_state {
    pk_profile *dst;
    const pk_profile *src;
    const pk_copy_options *options;
    uint32_t values[PK_MAX_VALUES]; /* src value -> dst value; PK_NONE: not copied */
    uint32_t *strings;              /* src string -> dst string, PK_NONE until interned */
    uint32_t *resources;            /* src resource -> dst resource */
    uint32_t *threads;              /* src thread -> dst thread */
    uint32_t *functions;            /* src function -> dst function, PK_NONE until interned */
    const uint32_t **chains;        /* src frame -> its frames in dst, NULL until mapped */
    frame_chain *mapped;            /* src frame -> its chain's length and first frame */
    uint32_t *copied_frames;        /* storage of the one-frame chain of a frame copied as is */
    uint32_t *stacks;               /* src stack -> dst stack */
    uint32_t *label_sets;           /* src label set -> dst label set, PK_NONE until copied */
    pk_label *labels;               /* scratch: a label set being copied */
    size_t labels_capacity;
    /* Whether distinct sequences of src frames are distinct in dst: no two src frames map to
     * chains that start with the same dst frame (a sequence of chains then splits into its
     * chains one way only, each found by its first frame). While it holds, the stacks and rows
     * copied into a fresh dst are new without looking them up. */
    bool chains_distinct;
    uint32_t *chain_owner;          /* dst frame -> the src frame whose chain starts with it */
    size_t chain_owner_capacity;
    uint32_t *run;                  /* scratch: a run of src mapped to dst frames */
    size_t run_capacity;
    pk_profile *releasing;          /* src, when its memory is given back as the copy goes */
} copy_state;

static pk_status out_of_memory(pk_error *err)
{
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

/* An array of count entries, every one PK_NONE. */
static uint32_t *none_array(size_t count)
{
    uint32_t *a = malloc((count ? count : 1) * sizeof *a);
    if (a)
        memset(a, 0xff, (count ? count : 1) * sizeof *a);
    return a;
}

static uint32_t copy_string(copy_state *c, uint32_t id)
{
    if (id == PK_NONE)
        return PK_NONE;
    if (id >= pk_string_count(c->src))
        return 0;
    if (c->strings[id] == PK_NONE)
        c->strings[id] = pk_intern(c->dst, pk_str(c->src, id), pk_str_len(c->src, id));
    return c->strings[id];
}

static uint32_t copy_resource(const copy_state *c, uint32_t id)
{
    return id < pk_resource_count(c->src) ? c->resources[id] : PK_NONE;
}

static uint32_t copy_function(copy_state *c, uint32_t id)
{
    if (c->functions[id] != PK_NONE)
        return c->functions[id];
    const pk_function *f = pk_function_at(c->src, id);
    pk_function copy = *f;
    copy.name = copy_string(c, f->name);
    copy.file = copy_string(c, f->file);
    copy.resource = copy_resource(c, f->resource);
    if (copy.name == PK_NONE || copy.file == PK_NONE)
        return PK_NONE;
    return c->functions[id] = pk_intern_function(c->dst, &copy);
}

/* A profile nothing was added to yet: its metadata and properties are not its own. */
static bool is_fresh(const pk_profile *p)
{
    return pk_thread_count(p) == 0 && pk_stack_count(p) == 0 && pk_sample_count(p) == 0 &&
           pk_memory_event_count(p) == 0;
}

/* Why a value type could not be declared in dst. */
static pk_status value_type_refused(const pk_profile *dst, const char *name, pk_error *err)
{
    if (pk_value_type_count(dst) == PK_MAX_VALUES)
        return pk_error_set(err, PK_ERR_LIMIT, PK_NO_OFFSET,
                            "value '%s' would make more than %d value types", name,
                            PK_MAX_VALUES);
    if (pk_sample_count(dst) > 0)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                            "value '%s' cannot be added to a profile that has samples", name);
    return out_of_memory(err);
}

/* Decides where each value of src goes: the caller's map; else one for one into a profile
 * without value types; else by name, declaring what dst lacks. */
static pk_status map_values(copy_state *c, pk_error *err)
{
    const pk_profile *src = c->src;
    pk_profile *dst = c->dst;
    size_t count = pk_value_type_count(src);
    if (c->options && c->options->value_map) {
        for (size_t v = 0; v < count; v++) {
            uint32_t to = c->options->value_map[v];
            if (to != PK_NONE && to >= pk_value_type_count(dst))
                return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                    "value %zu is mapped to value %u, which the destination "
                                    "does not have",
                                    v, (unsigned)to);
            c->values[v] = to;
        }
        return PK_OK;
    }
    bool one_for_one = pk_value_type_count(dst) == 0;
    for (size_t v = 0; v < count; v++) {
        const pk_value_type *vt = pk_value_type_at(src, (uint32_t)v);
        const char *name = pk_str(src, vt->name), *unit = pk_str(src, vt->unit);
        uint32_t to = one_for_one ? PK_NONE : pk_value_find(dst, name);
        if (to != PK_NONE) {
            const char *dst_unit = pk_str(dst, pk_value_type_at(dst, to)->unit);
            if (strcmp(dst_unit, unit) != 0)
                return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                    "value '%s' is in %s in one profile and in %s in the other",
                                    name, dst_unit, unit);
        } else if ((to = pk_add_value_type(dst, name, unit)) == PK_NONE) {
            return value_type_refused(dst, name, err);
        }
        c->values[v] = to;
    }
    if (one_for_one && count > 0)
        pk_set_default_value(dst, c->values[pk_default_value(src)]);
    return PK_OK;
}

/* Metadata and properties go into a fresh profile only; warnings always, as they describe data
 * that is now in dst. */
/* Whether the copy carries the timed samples themselves, not only what each thread's times
 * were. */
static bool copies_timed_samples(const copy_state *c)
{
    return pk_timeline_kept(c->src) && !(c->options && c->options->map_row);
}

static pk_status copy_header(copy_state *c, bool fresh)
{
    const pk_profile *src = c->src;
    pk_profile *dst = c->dst;
    if (fresh) {
        const pk_metadata *m = pk_metadata_get(src);
        pk_metadata copy = *m;
        copy.source_format = copy_string(c, m->source_format);
        copy.product = copy_string(c, m->product);
        copy.period_type = copy_string(c, m->period_type);
        copy.period_unit = copy_string(c, m->period_unit);
        if (copy.source_format == PK_NONE || copy.product == PK_NONE ||
            copy.period_type == PK_NONE || copy.period_unit == PK_NONE)
            return PK_ERR_NOMEM;
        *pk_metadata_of(dst) = copy;
        /* A copy of a profile that kept only what its threads' times were does the same, and
         * so does one whose row hook may leave rows out or move them: a timed sample names no
         * row, so it could not follow them. */
        if (!copies_timed_samples(c))
            pk_timeline_keep(dst, false);
        if (pk_property_count(dst) == 0)
            for (size_t i = 0; i < pk_property_count(src); i++)
                if (pk_property_set(dst, pk_property_key(src, i), pk_property_value(src, i)) !=
                    PK_OK)
                    return PK_ERR_NOMEM;
    }
    for (size_t i = 0; i < pk_warning_count(src); i++)
        pk_warn(dst, "%s", pk_warning_at(src, i));
    dst->warnings_dropped += pk_warnings_dropped(src);
    return PK_OK;
}

/* A thread of src becomes the first thread of its name that dst had before the copy, or a new
 * thread: threads of one name in src stay apart unless dst already had that name. */
static pk_status copy_threads(copy_state *c)
{
    pk_u64map by_name; /* dst name string -> dst thread, over dst's threads before the copy */
    pk_u64map_init(&by_name);
    size_t existing = pk_thread_count(c->dst);
    pk_status status = PK_OK;
    for (size_t i = existing; i-- > 0;) {
        uint32_t name = pk_thread_at(c->dst, (uint32_t)i)->name;
        uint32_t *slot;
        bool inserted;
        if (!pk_u64map_put(&by_name, name, (uint32_t)i, &slot, &inserted)) {
            status = PK_ERR_NOMEM;
            goto done;
        }
        *slot = (uint32_t)i; /* walking backwards, the first thread of a name wins */
    }
    for (size_t i = 0; i < pk_thread_count(c->src); i++) {
        const pk_thread *t = pk_thread_at(c->src, (uint32_t)i);
        uint32_t name = copy_string(c, t->name);
        if (name == PK_NONE) {
            status = PK_ERR_NOMEM;
            goto done;
        }
        uint32_t *known = existing ? pk_u64map_find(&by_name, name) : NULL;
        c->threads[i] = known ? *known : pk_add_thread(c->dst, name, t->pid, t->tid);
        if (c->threads[i] == PK_NONE) {
            status = PK_ERR_NOMEM;
            goto done;
        }
    }
done:
    pk_u64map_free(&by_name);
    return status;
}

/* Every resource, used or not: mappings without samples still describe the process. */
static pk_status copy_resources(copy_state *c)
{
    for (size_t i = 0; i < pk_resource_count(c->src); i++) {
        pk_resource r = *pk_resource_at(c->src, (uint32_t)i);
        r.name = copy_string(c, r.name);
        r.path = copy_string(c, r.path);
        r.build_id = copy_string(c, r.build_id);
        if (r.name == PK_NONE || r.path == PK_NONE || r.build_id == PK_NONE)
            return PK_ERR_NOMEM;
        if (c->options && c->options->map_resource &&
            !c->options->map_resource(c->options->map_context, c->src, (uint32_t)i, c->dst, &r))
            return PK_ERR_NOMEM;
        c->resources[i] = pk_intern_resource(c->dst, &r);
        if (c->resources[i] == PK_NONE)
            return PK_ERR_NOMEM;
    }
    return PK_OK;
}

/* The frames of dst standing for src frame id (outermost first), into *frames and *count: the
 * hook's chain, or the frame copied as it is. */
static pk_status map_frame(copy_state *c, uint32_t id, const uint32_t **frames, size_t *count,
                           pk_error *err)
{
    if (c->mapped[id].length) {
        *frames = c->chains[id];
        *count = c->mapped[id].length;
        return PK_OK;
    }
    size_t n = 0;
    if (c->options && c->options->map_frame) {
        n = c->options->map_frame(c->options->map_context, c->src, id, c->dst, frames);
        if (n == SIZE_MAX || n > UINT32_MAX)
            return out_of_memory(err);
        for (size_t k = 0; k < n; k++)
            if ((*frames)[k] >= pk_frame_count(c->dst))
                return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                    "frame %u stands for a frame the destination does not have",
                                    (unsigned)id);
    }
    if (n == 0) {
        pk_frame copy = *pk_frame_at(c->src, id);
        copy.function = copy_function(c, copy.function);
        copy.resource = copy_resource(c, copy.resource);
        if (copy.function == PK_NONE ||
            (c->copied_frames[id] = pk_intern_frame(c->dst, &copy)) == PK_NONE)
            return out_of_memory(err);
        *frames = &c->copied_frames[id];
        n = 1;
    }
    c->chains[id] = *frames;
    c->mapped[id] = (frame_chain){(uint32_t)n, (*frames)[0]};
    if (c->chains_distinct) {
        uint32_t first = (*frames)[0];
        size_t have = c->chain_owner_capacity;
        if (!PK_ARRAY_RESERVE(c->chain_owner, c->chain_owner_capacity, (size_t)first + 1))
            return out_of_memory(err);
        memset(c->chain_owner + have, 0xff,
               (c->chain_owner_capacity - have) * sizeof *c->chain_owner);
        if (c->chain_owner[first] == PK_NONE)
            c->chain_owner[first] = id;
        else
            c->chains_distinct = false;
    }
    *count = n;
    return PK_OK;
}

/* Stacks in index order, so that a prefix is always mapped before the stacks that extend it:
 * each stack is its mapped prefix followed by its run, frame by frame mapped. */
static pk_status copy_stacks(copy_state *c, pk_error *err)
{
    /* Runs lie in the pool in the order of their stacks: the frames before a run are passed. */
    char *released = c->releasing ? (char *)c->releasing->stacks.pool : NULL;
    for (size_t i = 0; i < pk_stack_count(c->src); i++) {
        uint32_t prefix;
        const uint32_t *run;
        size_t length = pk_stack_run(c->src, (uint32_t)i, &prefix, &run);
        if (released)
            pk_release_passed(&released, run);
        size_t mapped = 0;
        if (!PK_ARRAY_RESERVE(c->run, c->run_capacity, length))
            return out_of_memory(err);
        for (size_t k = 0; k < length; k++) {
            const frame_chain *m = &c->mapped[run[k]];
            if (m->length == 1 && mapped < c->run_capacity) {
                c->run[mapped++] = m->first;
                continue;
            }
            const uint32_t *frames = NULL;
            size_t n = 0;
            pk_status status = map_frame(c, run[k], &frames, &n, err);
            if (status != PK_OK)
                return status;
            if (!PK_ARRAY_RESERVE(c->run, c->run_capacity, mapped + n + (length - k - 1)))
                return out_of_memory(err);
            /* Chains are a frame or a few: a call to memcpy per frame would cost more. */
            for (size_t j = 0; j < n; j++)
                c->run[mapped + j] = frames[j];
            mapped += n;
        }
        uint32_t dst_prefix = prefix == PK_NONE ? PK_NONE : c->stacks[prefix];
        uint32_t stack =
            c->chains_distinct
                ? pk_stack_store_append(&c->dst->stacks, dst_prefix, c->run, mapped,
                                        pk_frame_count(c->dst))
                : pk_intern_stack_frames(c->dst, dst_prefix, c->run, mapped);
        if (stack == PK_NONE && mapped > 0)
            return out_of_memory(err);
        c->stacks[i] = stack;
    }
    if (released) {
        const pk_stack_store *s = &c->releasing->stacks;
        pk_release_pages(released, (size_t)((const char *)(s->pool + s->pool_count) - released));
        pk_release_pages(s->entries, s->count * sizeof *s->entries);
    }
    return PK_OK;
}

/* The dst label set of src label set id; PK_NONE for none, *failed set when memory runs out. */
static uint32_t copy_label_set(copy_state *c, uint32_t id, bool *failed)
{
    if (id >= pk_label_set_count(c->src))
        return PK_NONE;
    if (c->label_sets[id] != PK_NONE)
        return c->label_sets[id];
    const pk_label *labels;
    size_t count = pk_label_set_at(c->src, id, &labels);
    if (!PK_ARRAY_RESERVE(c->labels, c->labels_capacity, count)) {
        *failed = true;
        return PK_NONE;
    }
    for (size_t i = 0; i < count; i++) {
        c->labels[i] = labels[i];
        c->labels[i].key = copy_string(c, labels[i].key);
        c->labels[i].str = copy_string(c, labels[i].str); /* PK_NONE stays PK_NONE */
        c->labels[i].unit = copy_string(c, labels[i].unit);
        if (c->labels[i].key == PK_NONE || c->labels[i].unit == PK_NONE ||
            (labels[i].str != PK_NONE && c->labels[i].str == PK_NONE)) {
            *failed = true;
            return PK_NONE;
        }
    }
    c->label_sets[id] = pk_intern_label_set(c->dst, c->labels, count);
    *failed = c->label_sets[id] == PK_NONE;
    return c->label_sets[id];
}

/* Sample rows and memory events, merged back into the order in which src received them, so
 * that allocations and frees pair up in dst as they did in src. */
static pk_status replay(copy_state *c)
{
    const pk_profile *src = c->src;
    size_t src_values = pk_value_type_count(src), dst_values = pk_value_type_count(c->dst);
    size_t threads = pk_thread_count(src), stacks = pk_stack_count(src);
    uint64_t tag = c->options ? c->options->address_tag : 0;
    pk_row_map_fn map_row = c->options ? c->options->map_row : NULL;
    size_t rows = pk_sample_count(src), row = 0;
    pk_memory_cursor *events;
    pk_status status = pk_memory_events_open(src, &events);
    bool sums_only = status == PK_ERR_UNSUPPORTED; /* src kept only the sums of its events */
    if (sums_only) {
        events = NULL;
        status = PK_OK;
    } else if (status != PK_OK) {
        return status;
    }
    pk_memory_event e;
    bool have_event = events && pk_memory_events_next(events, &e);
    while (status == PK_OK && (row < rows || have_event)) {
        bool take_row = row < rows && (!have_event || pk_sample_order(src, row) <= e.order);
        if (take_row) {
            int64_t values[PK_MAX_VALUES];
            memset(values, 0, dst_values * sizeof *values); /* the columns used, not all 64 */
            const int64_t *src_row = pk_sample_values(src, row);
            for (size_t v = 0; v < src_values; v++)
                if (c->values[v] < dst_values)
                    values[c->values[v]] += src_row[v];
            uint32_t t = pk_sample_thread(src, row), s = pk_sample_stack(src, row);
            uint32_t thread = t < threads ? c->threads[t] : PK_NONE;
            uint32_t stack = s < stacks ? c->stacks[s] : PK_NONE;
            bool failed = false;
            uint32_t labels = copy_label_set(c, pk_sample_label_set(src, row), &failed);
            int keep = failed ? -1 : 1;
            if (keep > 0 && map_row)
                keep = map_row(c->options->map_context, src, row, c->dst, &thread);
            /* Each row of src is a (thread, stack, labels) of its own, and so it stays, unless
             * the hook moves it to another thread. */
            if (keep < 0)
                status = PK_ERR_NOMEM;
            else if (keep == 0)
                status = PK_OK;
            else if (c->chains_distinct && labels == PK_NONE && !map_row)
                status = pk_add_distinct_sample(c->dst, thread, stack, values);
            else
                status = pk_add_sample_labeled(c->dst, thread, stack, labels, values);
            row++;
        } else {
            uint32_t thread = e.thread < threads ? c->threads[e.thread] : PK_NONE;
            uint32_t stack = e.stack < stacks ? c->stacks[e.stack] : PK_NONE;
            if (e.kind == PK_MEM_ALLOC)
                status = pk_memory_alloc(c->dst, thread, stack, e.address ^ tag, e.size);
            else
                status = pk_memory_free(c->dst, thread, stack, e.address ^ tag,
                                        (pk_memory_kind)e.kind, NULL);
            have_event = pk_memory_events_next(events, &e);
        }
    }
    pk_status closed = events ? pk_memory_events_close(events) : PK_OK;
    if (status == PK_OK && sums_only)
        status = pk_memory_copy_sums(c->dst, src, c->threads, c->stacks, tag);
    return status != PK_OK ? status : closed;
}

/* Each thread's timed samples, appended to its thread in dst with stacks and values mapped as
 * the rows' are (the rows are copied already); only the info of a src that kept no samples. */
static pk_status copy_timelines(copy_state *c)
{
    const pk_profile *src = c->src;
    size_t src_values = pk_value_type_count(src), dst_values = pk_value_type_count(c->dst);
    size_t threads = pk_thread_count(src), stacks = pk_stack_count(src);
    bool kept = copies_timed_samples(c);
    pk_status status = PK_OK;
    for (size_t t = 0; t < threads && status == PK_OK; t++) {
        pk_timeline_info info;
        pk_timeline_info_get(src, (uint32_t)t, &info);
        uint32_t thread = c->threads[t];
        if (info.count == 0 || thread == PK_NONE)
            continue;
        if (!kept) {
            status = pk_timeline_add_info(c->dst, thread, &info);
            continue;
        }
        pk_timeline_cursor *cursor;
        if ((status = pk_timeline_open(src, (uint32_t)t, &cursor)) != PK_OK)
            break;
        pk_timed_sample s;
        while (status == PK_OK && pk_timeline_next(cursor, &s)) {
            int64_t values[PK_MAX_VALUES];
            memset(values, 0, dst_values * sizeof *values);
            for (size_t v = 0; v < src_values; v++)
                if (c->values[v] < dst_values)
                    values[c->values[v]] += s.values[v];
            uint32_t stack = s.stack < stacks ? c->stacks[s.stack] : PK_NONE;
            status = pk_timeline_append(c->dst, thread, stack, s.time, s.duration, values);
        }
        pk_status closed = pk_timeline_close(cursor);
        if (status == PK_OK)
            status = closed;
    }
    return status;
}

/* Which threads have sample rows: one flag per thread of p. NULL when memory runs out. */
static bool *threads_with_rows(const pk_profile *p)
{
    size_t threads = pk_thread_count(p);
    bool *has = calloc(threads ? threads : 1, sizeof *has);
    for (size_t row = 0; has && row < pk_sample_count(p); row++) {
        uint32_t t = pk_sample_thread(p, row);
        if (t < threads)
            has[t] = true;
    }
    return has;
}

/* A thread's timeline holds every sample of its rows or none (profkit/timeline.h): where the
 * copy puts rows without times beside timed ones in one thread of dst (an untimed thread of
 * src into a timed one, a timed one into a thread whose rows had no times), that thread's
 * timeline is dropped. dst_untimed_rows: which of dst's first dst_threads threads had rows and
 * no times before. */
static pk_status drop_mixed_timelines(copy_state *c, const bool *dst_untimed_rows,
                                      size_t dst_threads)
{
    bool *src_rows = threads_with_rows(c->src);
    if (!src_rows)
        return PK_ERR_NOMEM;
    pk_status status = PK_OK;
    for (size_t t = 0; t < pk_thread_count(c->src) && status == PK_OK; t++) {
        uint32_t thread = c->threads[t];
        if (thread == PK_NONE || !src_rows[t])
            continue;
        pk_timeline_info info;
        pk_timeline_info_get(c->src, (uint32_t)t, &info);
        bool src_timed = info.count > 0;
        if (!src_timed || (thread < dst_threads && dst_untimed_rows[thread]))
            status = pk_timeline_drop(c->dst, thread);
    }
    free(src_rows);
    return status;
}

/* Each counter with its samples, of the thread its thread was copied to. */
static pk_status copy_counters(copy_state *c)
{
    const pk_profile *src = c->src;
    pk_status status = PK_OK;
    for (uint32_t i = 0; i < pk_counter_count(src) && status == PK_OK; i++) {
        const pk_counter *from = pk_counter_at(src, i);
        uint32_t thread = from->thread < pk_thread_count(src) ? c->threads[from->thread] : PK_NONE;
        uint32_t to = pk_add_counter(c->dst, pk_str(src, from->name),
                                     from->description == PK_NONE
                                         ? NULL
                                         : pk_str(src, from->description),
                                     pk_str(src, from->unit), thread);
        if (to == PK_NONE)
            return PK_ERR_NOMEM;
        pk_counter_cursor *cursor;
        if ((status = pk_counter_open(src, i, &cursor)) != PK_OK)
            break;
        int64_t time, level;
        while (status == PK_OK && pk_counter_next(cursor, &time, &level))
            status = pk_counter_append(c->dst, to, time, level);
        pk_status closed = pk_counter_close(cursor);
        if (status == PK_OK)
            status = closed;
    }
    return status;
}

/* The call counts, under the copied functions: only when every row of src is copied with every
 * value under its own name (a merge, the symbolization pass), since they count the calls of
 * those rows; a copy that selects rows, or takes one value as another (a comparison's side),
 * leaves them out. */
static pk_status copy_call_edges(copy_state *c)
{
    const pk_profile *src = c->src;
    if (pk_call_edge_count(src) == 0 || (c->options && c->options->map_row))
        return PK_OK;
    for (uint32_t v = 0; v < pk_value_type_count(src); v++)
        if (c->values[v] == PK_NONE ||
            strcmp(pk_str(src, pk_value_type_at(src, v)->name),
                   pk_str(c->dst, pk_value_type_at(c->dst, c->values[v])->name)) != 0)
            return PK_OK;
    for (size_t i = 0; i < pk_call_edge_count(src); i++) {
        const pk_call_edge *e = pk_call_edge_at(src, i);
        uint32_t caller = copy_function(c, e->caller), callee = copy_function(c, e->callee);
        if (caller == PK_NONE || callee == PK_NONE)
            return PK_ERR_NOMEM;
        pk_status status = pk_add_call_edge(c->dst, caller, callee, e->calls);
        if (status != PK_OK)
            return status;
    }
    return PK_OK;
}

static pk_status copy_profile(pk_profile *dst, const pk_profile *src, pk_profile *releasing,
                              const pk_copy_options *options, pk_error *err)
{
    /* Into a profile with threads, stacks or rows of its own, what is copied may meet them. */
    copy_state c = {.dst = dst, .src = src, .options = options, .releasing = releasing,
                    .chains_distinct = is_fresh(dst)};
    for (size_t v = 0; v < PK_MAX_VALUES; v++)
        c.values[v] = PK_NONE;
    size_t frames = pk_frame_count(src);
    c.strings = none_array(pk_string_count(src));
    c.resources = none_array(pk_resource_count(src));
    c.threads = none_array(pk_thread_count(src));
    c.functions = none_array(pk_function_count(src));
    c.chains = calloc(frames ? frames : 1, sizeof *c.chains);
    c.mapped = calloc(frames ? frames : 1, sizeof *c.mapped);
    c.copied_frames = none_array(frames);
    c.stacks = none_array(pk_stack_count(src));
    c.label_sets = none_array(pk_label_set_count(src));
    pk_status status = PK_OK;
    if (!c.strings || !c.resources || !c.threads || !c.functions || !c.chains ||
        !c.mapped || !c.copied_frames || !c.stacks || !c.label_sets) {
        status = out_of_memory(err);
        goto done;
    }
    /* In the order the items were added to src, which keeps the order of the strings. */
    status = copy_header(&c, is_fresh(dst));
    if (status != PK_OK) {
        out_of_memory(err);
        goto done;
    }
    status = map_values(&c, err);
    if (status != PK_OK)
        goto done;
    status = copy_threads(&c);
    if (status == PK_OK)
        status = copy_resources(&c);
    if (status != PK_OK) {
        out_of_memory(err);
        goto done;
    }
    if (releasing) {
        /* Only read in order from here: what finds stacks and rows in src is not needed. */
        pk_stack_store_drop_index(&releasing->stacks);
        pk_u64map_free(&releasing->sample_index);
    }
    status = copy_stacks(&c, err);
    if (status != PK_OK)
        goto done;
    /* dst's threads with rows but no times, before the copy adds to them. */
    size_t dst_threads = pk_thread_count(dst);
    bool *dst_untimed_rows = threads_with_rows(dst);
    for (size_t t = 0; dst_untimed_rows && t < dst_threads; t++) {
        pk_timeline_info info;
        pk_timeline_info_get(dst, (uint32_t)t, &info);
        dst_untimed_rows[t] = dst_untimed_rows[t] && info.count == 0;
    }
    status = dst_untimed_rows ? replay(&c) : PK_ERR_NOMEM;
    if (status == PK_OK)
        status = copy_timelines(&c);
    if (status == PK_OK)
        status = drop_mixed_timelines(&c, dst_untimed_rows, dst_threads);
    free(dst_untimed_rows);
    if (status == PK_OK)
        status = copy_counters(&c);
    if (status == PK_OK)
        status = copy_call_edges(&c);
    if (status != PK_OK)
        pk_error_set(err, status, PK_NO_OFFSET, "cannot add to the copy: %s",
                     pk_status_name(status));
done:
    free(c.strings);
    free(c.resources);
    free(c.threads);
    free(c.functions);
    free(c.chains);
    free(c.mapped);
    free(c.copied_frames);
    free(c.stacks);
    free(c.label_sets);
    free(c.labels);
    free(c.chain_owner);
    free(c.run);
    return status;
}

pk_status pk_profile_copy(pk_profile *dst, const pk_profile *src, const pk_copy_options *options,
                          pk_error *err)
{
    return copy_profile(dst, src, NULL, options, err);
}

pk_status pk_profile_copy_releasing(pk_profile *dst, pk_profile *src,
                                    const pk_copy_options *options, pk_error *err)
{
    return copy_profile(dst, src, src, options, err);
}
