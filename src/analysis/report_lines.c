/* SPDX-License-Identifier: MIT */
/* The lines view: the hottest source lines, value per (file, line) of the frames, self where
 * the line is the innermost frame and total where it is anywhere on the stack (once per
 * stack). */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/stack_walk.h"
#include "core/array.h"
#include "core/hashmap.h"

typedef struct line_key {
    uint32_t file;
    uint32_t line;
    uint32_t function_name; /* of the first frame seen at this line */
} line_key;

typedef struct line_entry {
    uint32_t key;
    int64_t self;
    int64_t total;
} line_entry;

typedef struct line_sort {
    const pk_profile *p;
    const line_key *keys;
    bool by_total;
} line_sort;

static int compare_lines(const void *pa, const void *pb, void *context)
{
    const line_sort *s = context;
    const line_entry *a = pa, *b = pb;
    int64_t a1 = s->by_total ? a->total : a->self, b1 = s->by_total ? b->total : b->self;
    int64_t a2 = s->by_total ? a->self : a->total, b2 = s->by_total ? b->self : b->total;
    if (a1 != b1)
        return a1 > b1 ? -1 : 1;
    if (a2 != b2)
        return a2 > b2 ? -1 : 1;
    const line_key *ka = &s->keys[a->key], *kb = &s->keys[b->key];
    int c = strcmp(pk_str(s->p, ka->file), pk_str(s->p, kb->file));
    if (c)
        return c;
    return ka->line < kb->line ? -1 : ka->line > kb->line;
}

pk_status pk_report_build_lines(pk_report_storage *s, const pk_profile *p,
                                const pk_report_options *o, uint32_t value, pk_error *err)
{
    pk_report *r = &s->report;
    pk_status st = PK_OK;
    size_t frames = pk_frame_count(p);
    pk_u64map ids;
    pk_u64map_init(&ids);
    pk_key_walk walk;
    uint32_t *key_of_frame = malloc((frames ? frames : 1) * sizeof *key_of_frame);
    line_key *keys = NULL;
    size_t key_count = 0, key_capacity = 0;
    int64_t *self = NULL, *total = NULL;
    line_entry *entries = NULL;
    if (!key_of_frame)
        goto nomem;
    for (size_t i = 0; i < frames; i++) {
        const pk_frame *f = pk_frame_at(p, (uint32_t)i);
        key_of_frame[i] = PK_NONE;
        if (f->line == 0)
            continue;
        const pk_function *fn = pk_function_at(p, f->function);
        uint64_t id = (uint64_t)fn->file << 32 | f->line;
        uint32_t *slot;
        bool inserted;
        if (!pk_u64map_put(&ids, id, (uint32_t)key_count, &slot, &inserted))
            goto nomem;
        if (inserted) {
            if (!PK_ARRAY_RESERVE(keys, key_capacity, key_count + 1))
                goto nomem;
            keys[key_count++] = (line_key){fn->file, f->line, fn->name};
        }
        key_of_frame[i] = *slot;
    }
    self = calloc(key_count ? key_count : 1, sizeof *self);
    total = calloc(key_count ? key_count : 1, sizeof *total);
    entries = malloc((key_count ? key_count : 1) * sizeof *entries);
    if (!self || !total || !entries)
        goto nomem;
    st = pk_key_totals(p, value, o->thread_pattern, key_of_frame, key_count, self, total, &walk,
                       err);
    if (st != PK_OK)
        goto done;
    size_t count = 0;
    for (size_t k = 0; k < key_count; k++)
        if (self[k] != 0 || total[k] != 0)
            entries[count++] = (line_entry){(uint32_t)k, self[k], total[k]};
    line_sort sort = {p, keys, o->sort_total};
    qsort_r(entries, count, sizeof *entries, compare_lines, &sort);
    size_t shown = pk_report_shown(o->top, count);
    r->entries = malloc((shown ? shown : 1) * sizeof *r->entries);
    if (!r->entries)
        goto nomem;
    for (size_t i = 0; i < shown; i++) {
        const line_key *k = &keys[entries[i].key];
        r->entries[i] = (pk_report_entry){.name = pk_str(p, k->function_name),
                                          .file = pk_str(p, k->file),
                                          .line = k->line,
                                          .self = entries[i].self,
                                          .total = entries[i].total,
                                          .pid = -1,
                                          .tid = -1};
    }
    r->entry_count = shown;
    r->entries_available = count;
    r->has_lines = key_count > 0;
    r->total = walk.grand_total;
    goto done;
nomem:
    st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
done:
    pk_u64map_free(&ids);
    free(key_of_frame);
    free(keys);
    free(self);
    free(total);
    free(entries);
    return st;
}
