/* SPDX-License-Identifier: MIT */
/* The threads view: each thread's total of the value, heaviest first. */
#include <stdlib.h>

#include "analysis/report.h"
#include "analysis/stack_walk.h"
#include "core/arith.h"
#include "core/hashmap.h"

typedef struct thread_total {
    uint32_t thread;
    int64_t total;
    size_t rows;
} thread_total;

static int compare_threads(const void *pa, const void *pb)
{
    const thread_total *a = pa, *b = pb;
    if (a->total != b->total)
        return a->total > b->total ? -1 : 1;
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

pk_status pk_report_build_threads(pk_report_storage *s, const pk_profile *p,
                                  const pk_report_options *o, uint32_t value, pk_error *err)
{
    pk_report *r = &s->report;
    size_t threads = pk_thread_count(p);
    thread_total *list = calloc(threads ? threads : 1, sizeof *list);
    if (!list)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    for (size_t t = 0; t < threads; t++)
        list[t].thread = (uint32_t)t;
    size_t rows = pk_sample_count(p);
    /* Rows that differ only in their labels share a stack: the stacks are counted once. */
    bool labelled = pk_label_set_count(p) > 0;
    pk_u64map seen;
    pk_u64map_init(&seen);
    for (size_t row = 0; row < rows; row++) {
        uint32_t t = pk_sample_thread(p, row);
        if (t >= threads)
            continue;
        list[t].total = pk_add_saturating(list[t].total, pk_sample_values(p, row)[value]);
        bool inserted = true;
        uint32_t *slot;
        if (labelled && !pk_u64map_put(&seen, ((uint64_t)t << 32) | pk_sample_stack(p, row), 0,
                                       &slot, &inserted)) {
            pk_u64map_free(&seen);
            free(list);
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        }
        list[t].rows += inserted;
    }
    pk_u64map_free(&seen);
    int64_t grand = 0;
    size_t count = 0;
    for (size_t t = 0; t < threads; t++) {
        const pk_thread *th = pk_thread_at(p, (uint32_t)t);
        if (!pk_thread_name_matches(pk_str(p, th->name), o->thread_pattern))
            continue;
        grand = pk_add_saturating(grand, list[t].total);
        list[count++] = list[t];
    }
    qsort(list, count, sizeof *list, compare_threads);
    size_t shown = pk_report_shown(o->top, count);
    r->entries = malloc((shown ? shown : 1) * sizeof *r->entries);
    if (!r->entries) {
        free(list);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    for (size_t i = 0; i < shown; i++) {
        const pk_thread *th = pk_thread_at(p, list[i].thread);
        r->entries[i] = (pk_report_entry){.name = pk_thread_display_name(s->thread_names,
                                                                         list[i].thread),
                                          .file = "",
                                          .total = list[i].total,
                                          .pid = th->pid,
                                          .tid = th->tid,
                                          .stacks = list[i].rows};
    }
    r->entry_count = shown;
    r->entries_available = count;
    r->total = grand;
    free(list);
    return PK_OK;
}
