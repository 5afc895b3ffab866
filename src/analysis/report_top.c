/* SPDX-License-Identifier: MIT */
/* The top view: functions (merged by name) with self and total value, sorted by either. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/stack_walk.h"

typedef struct top_entry {
    uint32_t name;
    int64_t self;
    int64_t total;
} top_entry;

typedef struct top_sort {
    const pk_profile *p;
    bool by_total;
} top_sort;

/* Larger magnitudes first, as go tool pprof orders -top: a delta profile's large losses rank
 * with its large gains. Of equal magnitudes, the positive first. */
static int compare_i64_desc(int64_t a, int64_t b)
{
    uint64_t ma = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
    uint64_t mb = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
    if (ma != mb)
        return ma > mb ? -1 : 1;
    return a > b ? -1 : a < b ? 1 : 0;
}

static int compare_entries(const void *pa, const void *pb, void *context)
{
    const top_sort *sort_context = context;
    const top_entry *a = pa, *b = pb;
    int c = sort_context->by_total ? compare_i64_desc(a->total, b->total)
                                  : compare_i64_desc(a->self, b->self);
    if (c == 0)
        c = sort_context->by_total ? compare_i64_desc(a->self, b->self)
                                  : compare_i64_desc(a->total, b->total);
    if (c == 0)
        c = strcmp(pk_str(sort_context->p, a->name), pk_str(sort_context->p, b->name));
    return c;
}

pk_status pk_report_build_top(pk_report_storage *s, const pk_profile *p,
                              const pk_report_options *o, uint32_t value, pk_error *err)
{
    pk_report *r = &s->report;
    pk_status st = PK_OK;
    size_t strings = pk_string_count(p);
    size_t frames = pk_frame_count(p);
    uint32_t *key_of_frame = malloc((frames ? frames : 1) * sizeof *key_of_frame);
    int64_t *self = calloc(strings ? strings : 1, sizeof *self);
    int64_t *total = calloc(strings ? strings : 1, sizeof *total);
    top_entry *entries = NULL;
    pk_key_walk walk;
    if (!key_of_frame || !self || !total) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    /* Functions are merged by name. */
    for (size_t i = 0; i < frames; i++)
        key_of_frame[i] = pk_function_at(p, pk_frame_at(p, (uint32_t)i)->function)->name;
    st = pk_key_totals(p, value, o->thread_pattern, key_of_frame, strings, self, total, &walk,
                       err);
    if (st != PK_OK)
        goto done;

    size_t count = 0;
    for (size_t i = 0; i < strings; i++)
        count += self[i] != 0 || total[i] != 0;
    entries = malloc((count ? count : 1) * sizeof *entries);
    if (!entries) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    count = 0;
    for (size_t i = 0; i < strings; i++)
        if (self[i] != 0 || total[i] != 0)
            entries[count++] = (top_entry){(uint32_t)i, self[i], total[i]};
    top_sort sort_context = {p, o->sort_total};
    qsort_r(entries, count, sizeof *entries, compare_entries, &sort_context);
    size_t shown = pk_report_shown(o->top, count);
    r->entries = malloc((shown ? shown : 1) * sizeof *r->entries);
    if (!r->entries) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < shown; i++)
        r->entries[i] = (pk_report_entry){.name = pk_str(p, entries[i].name), .file = "",
                                          .self = entries[i].self, .total = entries[i].total,
                                          .pid = -1, .tid = -1};
    r->entry_count = shown;
    r->entries_available = count;
    r->total = walk.grand_total;
done:
    free(entries);
    free(key_of_frame);
    free(self);
    free(total);
    return st;
}
