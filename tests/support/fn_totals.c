/* SPDX-License-Identifier: MIT */
#include "fn_totals.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *checked(void *p)
{
    if (!p) {
        fprintf(stderr, "fn_totals: out of memory\n");
        abort();
    }
    return p;
}

tb_fn_total *tb_fn_totals_find(const tb_fn_totals *t, const char *name)
{
    for (size_t i = 0; i < t->count; i++)
        if (strcmp(t->items[i].name, name) == 0)
            return &t->items[i];
    return NULL;
}

tb_fn_total *tb_fn_totals_get(tb_fn_totals *t, const char *name)
{
    tb_fn_total *known = tb_fn_totals_find(t, name);
    if (known)
        return known;
    if (t->count == t->capacity) {
        t->capacity = t->capacity ? 2 * t->capacity : 64;
        t->items = checked(realloc(t->items, t->capacity * sizeof *t->items));
    }
    tb_fn_total *added = &t->items[t->count++];
    added->name = checked(strdup(name));
    added->self = added->total = 0;
    return added;
}

void tb_fn_totals_add_profile(tb_fn_totals *t, const pk_profile *p, uint32_t value)
{
    uint32_t *frames = NULL;
    size_t capacity = 0;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        int64_t v = pk_sample_values(p, row)[value];
        uint32_t stack = pk_sample_stack(p, row);
        size_t depth = pk_stack_frames(p, stack, frames, capacity);
        if (depth > capacity) {
            capacity = depth;
            frames = checked(realloc(frames, capacity * sizeof *frames));
            pk_stack_frames(p, stack, frames, capacity);
        }
        for (size_t i = 0; i < depth; i++) {
            const char *name = pk_frame_name(p, frames[i]);
            bool seen = false;
            for (size_t k = 0; k < i && !seen; k++)
                seen = strcmp(pk_frame_name(p, frames[k]), name) == 0;
            if (!seen)
                tb_fn_totals_get(t, name)->total += v;
        }
        if (depth)
            tb_fn_totals_get(t, pk_frame_name(p, frames[depth - 1]))->self += v;
    }
    free(frames);
}

void tb_fn_totals_free(tb_fn_totals *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->items[i].name);
    free(t->items);
    *t = (tb_fn_totals){0};
}
