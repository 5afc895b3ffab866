/* SPDX-License-Identifier: MIT */
#include "profile_diff.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char difference[512];

static const char *differ(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *differ(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(difference, sizeof difference, fmt, ap);
    va_end(ap);
    return difference;
}

/* Strings by content: the two profiles may number them differently. */
static bool same_str(const pk_profile *a, uint32_t sa, const pk_profile *b, uint32_t sb)
{
    if (sa == PK_NONE || sb == PK_NONE)
        return sa == sb;
    return pk_str_len(a, sa) == pk_str_len(b, sb) &&
           memcmp(pk_str(a, sa), pk_str(b, sb), pk_str_len(a, sa)) == 0;
}

static bool same_resource(const pk_profile *a, uint32_t ra, const pk_profile *b, uint32_t rb)
{
    if (ra == PK_NONE || rb == PK_NONE)
        return ra == rb;
    const pk_resource *x = pk_resource_at(a, ra), *y = pk_resource_at(b, rb);
    return same_str(a, x->name, b, y->name) && same_str(a, x->path, b, y->path) &&
           same_str(a, x->build_id, b, y->build_id) && x->start == y->start &&
           x->limit == y->limit && x->offset == y->offset;
}

static bool same_frame(const pk_profile *a, uint32_t fa, const pk_profile *b, uint32_t fb)
{
    const pk_frame *x = pk_frame_at(a, fa), *y = pk_frame_at(b, fb);
    const pk_function *u = pk_function_at(a, x->function), *v = pk_function_at(b, y->function);
    return x->line == y->line && x->address == y->address && x->flags == y->flags &&
           same_resource(a, x->resource, b, y->resource) && same_str(a, u->name, b, v->name) &&
           same_str(a, u->file, b, v->file) && u->start_line == v->start_line &&
           u->start_column == v->start_column && u->flags == v->flags &&
           same_resource(a, u->resource, b, v->resource);
}

static void *need(void *p)
{
    if (!p)
        abort();
    return p;
}

static bool same_stack(const pk_profile *a, uint32_t sa, const pk_profile *b, uint32_t sb)
{
    if (sa == PK_NONE || sb == PK_NONE)
        return sa == sb;
    size_t depth = pk_stack_depth(a, sa);
    if (depth != pk_stack_depth(b, sb))
        return false;
    uint32_t *fa = need(malloc((depth + 1) * sizeof *fa));
    uint32_t *fb = need(malloc((depth + 1) * sizeof *fb));
    pk_stack_frames(a, sa, fa, depth);
    pk_stack_frames(b, sb, fb, depth);
    bool same = true;
    for (size_t d = 0; d < depth && same; d++)
        same = same_frame(a, fa[d], b, fb[d]);
    free(fa);
    free(fb);
    return same;
}

static bool same_thread(const pk_profile *a, uint32_t ta, const pk_profile *b, uint32_t tb)
{
    if (ta == PK_NONE || tb == PK_NONE)
        return ta == tb;
    const pk_thread *x = pk_thread_at(a, ta), *y = pk_thread_at(b, tb);
    return same_str(a, x->name, b, y->name) && x->pid == y->pid && x->tid == y->tid;
}

static const char *metadata_difference(const pk_profile *a, const pk_profile *b)
{
    const pk_metadata *x = pk_metadata_get(a), *y = pk_metadata_get(b);
    if (!same_str(a, x->source_format, b, y->source_format) ||
        !same_str(a, x->product, b, y->product) || x->start_time != y->start_time ||
        x->end_time != y->end_time || x->period != y->period ||
        !same_str(a, x->period_type, b, y->period_type) ||
        !same_str(a, x->period_unit, b, y->period_unit) ||
        x->times_approximate != y->times_approximate || x->differential != y->differential)
        return differ("metadata");
    size_t n = pk_property_count(a);
    if (n != pk_property_count(b))
        return differ("properties: %zu against %zu", n, pk_property_count(b));
    for (size_t i = 0; i < n; i++)
        if (strcmp(pk_property_key(a, i), pk_property_key(b, i)) != 0 ||
            strcmp(pk_property_value(a, i), pk_property_value(b, i)) != 0)
            return differ("property %zu: %s=%s against %s=%s", i, pk_property_key(a, i),
                          pk_property_value(a, i), pk_property_key(b, i),
                          pk_property_value(b, i));
    return NULL;
}

static const char *table_difference(const pk_profile *a, const pk_profile *b)
{
    size_t n = pk_value_type_count(a);
    if (n != pk_value_type_count(b))
        return differ("value types: %zu against %zu", n, pk_value_type_count(b));
    for (uint32_t v = 0; v < n; v++) {
        const pk_value_type *x = pk_value_type_at(a, v), *y = pk_value_type_at(b, v);
        if (!same_str(a, x->name, b, y->name) || !same_str(a, x->unit, b, y->unit))
            return differ("value type %" PRIu32, v);
        if (pk_value_total(a, v) != pk_value_total(b, v))
            return differ("total of %s: %" PRId64 " against %" PRId64, pk_str(a, x->name),
                          pk_value_total(a, v), pk_value_total(b, v));
    }
    if (pk_default_value(a) != pk_default_value(b))
        return differ("default value");
    n = pk_thread_count(a);
    if (n != pk_thread_count(b))
        return differ("threads: %zu against %zu", n, pk_thread_count(b));
    for (uint32_t t = 0; t < n; t++)
        if (!same_thread(a, t, b, t))
            return differ("thread %" PRIu32 ": %s against %s", t,
                          pk_str(a, pk_thread_at(a, t)->name), pk_str(b, pk_thread_at(b, t)->name));
    if (pk_function_count(a) != pk_function_count(b) || pk_frame_count(a) != pk_frame_count(b) ||
        pk_stack_count(a) != pk_stack_count(b))
        return differ("functions, frames, stacks: %zu, %zu, %zu against %zu, %zu, %zu",
                      pk_function_count(a), pk_frame_count(a), pk_stack_count(a),
                      pk_function_count(b), pk_frame_count(b), pk_stack_count(b));
    return NULL;
}

static const char *row_difference(const pk_profile *a, const pk_profile *b)
{
    size_t rows = pk_sample_count(a), values = pk_value_type_count(a);
    if (rows != pk_sample_count(b))
        return differ("rows: %zu against %zu", rows, pk_sample_count(b));
    if (pk_event_order_count(a) != pk_event_order_count(b))
        return differ("stream positions");
    for (size_t row = 0; row < rows; row++) {
        if (!same_thread(a, pk_sample_thread(a, row), b, pk_sample_thread(b, row)))
            return differ("row %zu: thread", row);
        if (!same_stack(a, pk_sample_stack(a, row), b, pk_sample_stack(b, row)))
            return differ("row %zu: stack", row);
        if (pk_sample_order(a, row) != pk_sample_order(b, row))
            return differ("row %zu: place in the stream", row);
        const int64_t *x = pk_sample_values(a, row), *y = pk_sample_values(b, row);
        for (size_t v = 0; v < values; v++)
            if (x[v] != y[v])
                return differ("row %zu, %s: %" PRId64 " against %" PRId64, row,
                              pk_str(a, pk_value_type_at(a, (uint32_t)v)->name), x[v], y[v]);
    }
    return NULL;
}

static const char *memory_difference(const pk_profile *a, const pk_profile *b)
{
    pk_memory_counts x, y;
    pk_memory_counts_get(a, &x);
    pk_memory_counts_get(b, &y);
    if (memcmp(&x, &y, sizeof x) != 0 || pk_memory_event_count(a) != pk_memory_event_count(b))
        return differ("memory counts");
    size_t sites = pk_alloc_site_count(a);
    if (sites != pk_alloc_site_count(b))
        return differ("allocating sites: %zu against %zu", sites, pk_alloc_site_count(b));
    for (size_t i = 0; i < sites; i++) {
        pk_alloc_site s, t;
        pk_alloc_site_at(a, i, &s);
        pk_alloc_site_at(b, i, &t);
        if (!same_thread(a, s.thread, b, t.thread) || !same_stack(a, s.stack, b, t.stack) ||
            s.allocations != t.allocations || s.allocated_bytes != t.allocated_bytes ||
            s.frees != t.frees || s.freed_bytes != t.freed_bytes)
            return differ("allocating site %zu", i);
    }
    pk_memory_cursor *ca, *cb;
    pk_status sa = pk_memory_events_open(a, &ca), sb = pk_memory_events_open(b, &cb);
    if (sa != sb)
        return differ("memory events kept");
    if (sa == PK_ERR_UNSUPPORTED)
        return NULL;
    if (sa != PK_OK)
        abort();
    const char *found = NULL;
    for (size_t i = 0; !found; i++) {
        pk_memory_event e, f;
        bool more = pk_memory_events_next(ca, &e);
        if (more != pk_memory_events_next(cb, &f))
            found = differ("memory events: one profile has more");
        else if (!more)
            break;
        else if (e.address != f.address || e.size != f.size || e.order != f.order ||
                 e.kind != f.kind || e.matched != f.matched ||
                 !same_thread(a, e.thread, b, f.thread) || !same_thread(a, e.owner, b, f.owner) ||
                 !same_stack(a, e.stack, b, f.stack))
            found = differ("memory event %zu", i);
    }
    if (pk_memory_events_close(ca) != PK_OK || pk_memory_events_close(cb) != PK_OK)
        abort();
    return found;
}

static const char *warning_difference(const pk_profile *a, const pk_profile *b)
{
    size_t n = pk_warning_count(a);
    if (n != pk_warning_count(b) || pk_warnings_dropped(a) != pk_warnings_dropped(b))
        return differ("warnings: %zu against %zu", n, pk_warning_count(b));
    for (size_t i = 0; i < n; i++)
        if (strcmp(pk_warning_at(a, i), pk_warning_at(b, i)) != 0)
            return differ("warning %zu: \"%s\" against \"%s\"", i, pk_warning_at(a, i),
                          pk_warning_at(b, i));
    return NULL;
}

const char *tb_profile_difference(const pk_profile *a, const pk_profile *b)
{
    const char *found = metadata_difference(a, b);
    if (!found)
        found = table_difference(a, b);
    if (!found)
        found = row_difference(a, b);
    if (!found)
        found = memory_difference(a, b);
    if (!found)
        found = warning_difference(a, b);
    return found;
}
