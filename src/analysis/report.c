/* SPDX-License-Identifier: MIT */
/* Reports as data (profkit/report.h): the options, what every view shares, and the lifetime of
 * a report. The views' rows come from their builders. */
#include "analysis/report.h"

#include <stdlib.h>

#include "analysis/stack_walk.h"
#include "core/arith.h"

void pk_report_options_init(pk_report_options *o)
{
    o->view = PK_REPORT_TOP;
    o->value = PK_NONE;
    o->top = 20;
    o->sort_total = false;
    o->min_percent = 1.0;
    o->function = NULL;
    o->thread_pattern = NULL;
}

static size_t threads_matching(const pk_profile *p, const char *pattern)
{
    size_t matched = 0;
    for (size_t t = 0; t < pk_thread_count(p); t++)
        matched += pk_thread_name_matches(pk_str(p, pk_thread_at(p, (uint32_t)t)->name), pattern);
    return matched;
}

/* The sum of the absolute values of the rows of the matching threads: with negative values (a
 * delta heap profile) signed sums cancel out, and shares of them mean nothing. */
static int64_t absolute_total(const pk_profile *p, uint32_t value, const char *pattern)
{
    size_t threads = pk_thread_count(p);
    int64_t sum = 0;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        uint32_t t = pk_sample_thread(p, row);
        if (t < threads && !pk_thread_name_matches(pk_str(p, pk_thread_at(p, t)->name), pattern))
            continue;
        int64_t v = pk_sample_values(p, row)[value];
        sum = pk_add_saturating(sum, v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v);
    }
    return sum;
}

pk_status pk_report_build(const pk_profile *p, const pk_report_options *o, pk_report **out,
                          pk_error *err)
{
    *out = NULL;
    pk_report_options defaults;
    if (!o) {
        pk_report_options_init(&defaults);
        o = &defaults;
    }
    typedef pk_status (*builder)(pk_report_storage *, const pk_profile *,
                                 const pk_report_options *, uint32_t, pk_error *);
    builder build;
    switch (o->view) {
    case PK_REPORT_TOP: build = pk_report_build_top; break;
    case PK_REPORT_TREE: build = pk_report_build_tree; break;
    case PK_REPORT_CALLERS:
    case PK_REPORT_CALLEES: build = pk_report_build_neighbours; break;
    case PK_REPORT_LINES: build = pk_report_build_lines; break;
    case PK_REPORT_MEMORY: build = pk_report_build_memory; break;
    case PK_REPORT_THREADS: build = pk_report_build_threads; break;
    default:
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no report view number %d",
                            (int)o->view);
    }
    /* The memory view reads memory events, not a value. */
    uint32_t value = PK_NONE;
    if (o->view != PK_REPORT_MEMORY) {
        pk_status st = pk_report_value(p, o->value, &value, err);
        if (st != PK_OK)
            return st;
    }
    pk_report_storage *s = calloc(1, sizeof *s);
    if (!s)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    pk_report *r = &s->report;
    s->thread_names = pk_thread_names_new(p);
    if (!s->thread_names) {
        free(s);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    const pk_value_type *vt = pk_value_type_at(p, value);
    r->view = o->view;
    r->value_name = vt ? pk_str(p, vt->name) : "";
    r->value_unit = vt ? pk_str(p, vt->unit) : "";
    r->threads_matched = threads_matching(p, o->thread_pattern);
    r->sort_total = o->sort_total;
    r->min_percent = o->min_percent;
    r->function = "";
    pk_status st = build(s, p, o, value, err);
    if (st != PK_OK) {
        pk_report_free(r);
        return st;
    }
    r->percent_base = value == PK_NONE ? r->total : absolute_total(p, value, o->thread_pattern);
    *out = r;
    return PK_OK;
}

void pk_report_free(pk_report *r)
{
    if (!r)
        return;
    pk_report_storage *s = (pk_report_storage *)r;
    free(r->entries);
    free(r->nodes);
    free(r->paths);
    free(r->lines);
    free(s->path_names);
    pk_thread_names_free(s->thread_names);
    free(s);
}
