/* SPDX-License-Identifier: MIT */
/* The sampled stacks of a trace's object form (trace.h): `stackFrames` (id -> {name, parent,
 * ...}) and `samples` ({pid, tid, ts, sf, weight}), which the Trace Event Format's document
 * describes and Hermes (React Native's JavaScript engine) writes beside its `traceEvents`.
 * Either may come first in the object, so samples are summed per (thread, frame id) as they
 * come, and each sum becomes a stack once every frame is known: memory grows with the distinct
 * frames and stacks, not with the samples. Each sample, once the next one of its thread says
 * how long it lasted, is spooled for its thread's timeline (core/spool.h), replayed at the end
 * with the stacks. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/varint.h"
#include "formats/trace/trace.h"
#include "profkit/timeline.h"

enum { UNRESOLVED = 0, RESOLVING, RESOLVED, UNRESOLVABLE };

void trace_samples_init(trace_samples *s, pk_profile *p)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    pk_u64map_init(&s->frame_index);
    pk_u64map_init(&s->sum_index);
}

void trace_samples_free(trace_samples *s)
{
    free(s->frames);
    free(s->sums);
    free(s->path);
    pk_u64map_free(&s->frame_index);
    pk_u64map_free(&s->sum_index);
    pk_spool_free(s->timed);
    memset(s, 0, sizeof *s);
}

/* The digits ending at end (exclusive), back to no further than start: their value in *out and
 * where they begin; NULL when there are none or they exceed a uint32. */
static const char *digits_before(const char *start, const char *end, uint32_t *out)
{
    const char *p = end;
    uint64_t value = 0, scale = 1;
    while (p > start && (unsigned)(p[-1] - '0') <= 9) {
        if (end - p >= 10)
            return NULL;
        value += (uint64_t)(p[-1] - '0') * scale;
        scale *= 10;
        p--;
    }
    if (p == end || value > UINT32_MAX)
        return NULL;
    *out = (uint32_t)value;
    return p;
}

/* Hermes writes where a frame is into its name, "render(http://host/index.bundle:12:3)": the
 * name is what comes before the first '(' whose rest is "(file:line:column)" (speedscope reads
 * it so). False when the name has no such place. The column is not kept (a frame has none in
 * the model). */
static bool split_place(const char *s, size_t len, size_t *name_len, const char **file,
                        size_t *file_len, uint32_t *line)
{
    if (len < 6 || s[len - 1] != ')')
        return false;
    uint32_t column;
    const char *p = digits_before(s, s + len - 1, &column);
    if (!p || p == s || *--p != ':' || !(p = digits_before(s, p, line)) || p == s ||
        *--p != ':')
        return false;
    const char *open = memchr(s, '(', (size_t)(p - s));
    if (!open || open + 1 == p)
        return false;
    *name_len = (size_t)(open - s);
    *file = open + 1;
    *file_len = (size_t)(p - *file);
    return true;
}

bool trace_samples_frame(trace_samples *s, uint32_t key, const trace_frame_desc *desc)
{
    pk_function fn = {.name = desc->name, .resource = PK_NONE,
                      .start_line = desc->func_line, .start_column = desc->func_column,
                      .flags = desc->script ? PK_FUNCTION_SCRIPT : 0};
    uint32_t line = desc->line;
    const char *text = pk_str(s->p, desc->name), *file;
    size_t name_len, file_len;
    uint32_t place_line;
    if (split_place(text, pk_str_len(s->p, desc->name), &name_len, &file, &file_len,
                    &place_line)) {
        fn.name = name_len ? pk_intern(s->p, text, name_len) : pk_intern_cstr(s->p, "(unnamed)");
        fn.file = pk_intern(s->p, file, file_len);
        if (fn.name == PK_NONE || fn.file == PK_NONE)
            return false;
        if (!line)
            line = place_line;
    }
    if (!PK_ARRAY_RESERVE(s->frames, s->frame_cap, s->frame_count + 1))
        return false;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&s->frame_index, key, (uint32_t)s->frame_count, &slot, &inserted))
        return false;
    if (inserted)
        s->frame_count++;
    /* A frame id given twice: the later entry stands, as a JSON object's later member does. */
    s->frames[*slot] = (trace_stack_frame){fn, desc->parent, line, PK_NONE, UNRESOLVED};
    return true;
}

/* Spools a weighed sample: its sum (thread and frame), time, weight and count. */
static bool spool_timed(trace_samples *s, uint32_t sum, int64_t ts, int64_t ns, int64_t count)
{
    if (!s->timed && !(s->timed = pk_spool_new()))
        return false;
    uint8_t record[4 * PK_VARINT_MAX_BYTES];
    size_t n = pk_varint_encode(record, sum);
    n += pk_varint_encode(record + n, pk_zigzag_encode(pk_sub_saturating(ts, s->timed_last)));
    n += pk_varint_encode(record + n, (uint64_t)ns);
    n += pk_varint_encode(record + n, pk_zigzag_encode(count));
    s->timed_last = ts;
    return pk_spool_append(s->timed, 0, record, n);
}

bool trace_samples_add(trace_samples *s, trace_threads *threads, trace_thread *entry,
                       uint32_t sf, int64_t ts, int64_t weight)
{
    if (!PK_ARRAY_RESERVE(s->sums, s->sum_cap, s->sum_count + 1))
        return false;
    uint64_t key = (uint64_t)(entry - threads->items) << 32 | sf;
    uint32_t *slot;
    bool inserted;
    if (!pk_u64map_put(&s->sum_index, key, (uint32_t)s->sum_count, &slot, &inserted))
        return false;
    if (inserted)
        s->sums[s->sum_count++] = (trace_sample_sum){(uint32_t)(entry - threads->items), sf, 0, 0};
    uint32_t sum = *slot;
    /* The previous sample of the thread lasts until this one. */
    if (entry->sampled) {
        if (ts < entry->last_ts) {
            s->backwards++;
            ts = entry->last_ts;
        }
        trace_sample_sum *last = &s->sums[entry->last_sum];
        last->ns = pk_add_saturating(last->ns, ts - entry->last_ts);
        if (!spool_timed(s, entry->last_sum, entry->last_ts, ts - entry->last_ts,
                         entry->last_count))
            return false;
    } else {
        entry->first_ts = ts;
    }
    entry->sampled++;
    entry->last_ts = ts;
    entry->last_sum = sum;
    entry->last_count = weight;
    s->sums[sum].count = pk_add_saturating(s->sums[sum].count, weight);
    s->samples++;
    return true;
}

typedef enum resolved { STACK_FOUND, STACK_UNKNOWN, STACK_NOMEM } resolved;

/* The stack of frame id `key`: its parents followed up to a root, interned root first.
 * STACK_UNKNOWN when a frame on the way is not in stackFrames or the parents loop. */
static resolved resolve(trace_samples *s, uint32_t key, uint32_t *stack)
{
    size_t depth = 0;
    uint32_t prefix = PK_NONE;
    bool known = true;
    for (;;) {
        uint32_t *index = pk_u64map_find(&s->frame_index, key);
        trace_stack_frame *f = index ? &s->frames[*index] : NULL;
        if (!f || f->state == RESOLVING || f->state == UNRESOLVABLE) {
            known = false;
            break;
        }
        if (f->state == RESOLVED) {
            prefix = f->stack;
            break;
        }
        if (!PK_ARRAY_RESERVE(s->path, s->path_cap, depth + 1))
            return STACK_NOMEM;
        f->state = RESOLVING;
        s->path[depth++] = *index;
        if (f->parent == PK_NONE)
            break;
        key = f->parent;
    }
    assert(depth == 0 || s->frames); /* the path holds indexes of frames found */
    while (depth) {
        trace_stack_frame *f = &s->frames[s->path[--depth]];
        if (!known) {
            f->state = UNRESOLVABLE;
            continue;
        }
        pk_frame fr = {.function = pk_intern_function(s->p, &f->function), .line = f->line,
                       .resource = PK_NONE};
        uint32_t frame = fr.function == PK_NONE ? PK_NONE : pk_intern_frame(s->p, &fr);
        prefix = frame == PK_NONE ? PK_NONE : pk_intern_stack(s->p, prefix, frame);
        if (prefix == PK_NONE)
            return STACK_NOMEM;
        f->stack = prefix;
        f->state = RESOLVED;
    }
    *stack = prefix;
    return known ? STACK_FOUND : STACK_UNKNOWN;
}

/* The spooled samples become their threads' timed samples, on the stacks resolved. */
static bool add_timelines(trace_samples *s, trace_threads *threads, uint32_t cpu, uint32_t count)
{
    if (!s->timed)
        return true;
    int64_t values[PK_MAX_VALUES] = {0}, ts = 0;
    pk_spool_reader r;
    pk_spool_reader_init(&r, s->timed, 0);
    const unsigned char *data;
    size_t n;
    bool ok = true;
    while (ok && pk_spool_reader_next(&r, &data, &n)) {
        const uint8_t *at = data, *end = data + n;
        uint64_t sum, delta, ns, weight;
        while (ok && pk_varint_decode(&at, end, &sum) == PK_VARINT_OK &&
               pk_varint_decode(&at, end, &delta) == PK_VARINT_OK &&
               pk_varint_decode(&at, end, &ns) == PK_VARINT_OK &&
               pk_varint_decode(&at, end, &weight) == PK_VARINT_OK) {
            ts = pk_add_saturating(ts, pk_zigzag_decode(delta));
            if (sum >= s->sum_count)
                continue;
            const trace_sample_sum *x = &s->sums[sum];
            const uint32_t *index = pk_u64map_find(&s->frame_index, x->sf);
            if (!index || s->frames[*index].state != RESOLVED)
                continue; /* left out of the rows too */
            uint32_t thread = trace_threads_model(threads, &threads->items[x->entry]);
            values[cpu] = (int64_t)ns;
            values[count] = pk_zigzag_decode(weight);
            pk_status added =
                thread == PK_NONE ? PK_ERR_NOMEM
                                  : pk_timeline_append(s->p, thread, s->frames[*index].stack, ts,
                                                       0, values);
            if (added == PK_ERR_USAGE) /* a time beyond the clock's range: rows only */
                added = pk_timeline_drop(s->p, thread);
            ok = added == PK_OK;
        }
    }
    ok = ok && !r.error && !pk_spool_error(s->timed);
    pk_spool_reader_free(&r);
    return ok;
}

bool trace_samples_finish(trace_samples *s, trace_threads *threads, uint32_t cpu, uint32_t count)
{
    /* The last sample of each thread weighs nothing: no later one says how long it lasted. */
    for (size_t i = 0; i < threads->count; i++) {
        trace_thread *t = &threads->items[i];
        if (t->sampled && !spool_timed(s, t->last_sum, t->last_ts, 0, t->last_count))
            return false;
    }
    for (size_t i = 0; i < s->sum_count; i++) {
        const trace_sample_sum *sum = &s->sums[i];
        uint32_t stack = PK_NONE;
        resolved how = resolve(s, sum->sf, &stack);
        if (how == STACK_NOMEM)
            return false;
        if (how == STACK_UNKNOWN) {
            s->left_out = pk_add_saturating(s->left_out, sum->count);
            continue;
        }
        uint32_t thread = trace_threads_model(threads, &threads->items[sum->entry]);
        if (thread == PK_NONE || pk_add_sample_value(s->p, thread, stack, cpu, sum->ns) != PK_OK ||
            pk_add_sample_value(s->p, thread, stack, count, sum->count) != PK_OK)
            return false;
    }
    return add_timelines(s, threads, cpu, count);
}
