/* SPDX-License-Identifier: MIT */
/* Thread selection and once-per-row key totals over the rows' stacks. */
#include "analysis/stack_walk.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"

bool pk_thread_name_matches(const char *name, const char *pattern)
{
    if (!pattern)
        return true;
    if (strpbrk(pattern, "*?["))
        return fnmatch(pattern, name, 0) == 0;
    return strstr(name, pattern) != NULL;
}

int pk_thread_selection_filter(void *context, uint32_t thread)
{
    const pk_thread_selection *sel = context;
    if (!sel->pattern)
        return 1;
    const pk_thread *t = pk_thread_at(sel->profile, thread);
    return t && pk_thread_name_matches(pk_str(sel->profile, t->name), sel->pattern);
}

pk_status pk_report_value(const pk_profile *p, uint32_t requested, uint32_t *value,
                          pk_error *err)
{
    size_t count = pk_value_type_count(p);
    if (count == 0)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "the profile has no values");
    uint32_t v = requested == PK_NONE ? pk_default_value(p) : requested;
    if (v >= count)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no value type number %u",
                            (unsigned)v);
    *value = v;
    return PK_OK;
}

pk_status pk_key_totals(const pk_profile *p, uint32_t value, const char *thread_pattern,
                        const uint32_t *key_of_frame, size_t key_count, int64_t *key_self,
                        int64_t *key_total, pk_key_walk *walk, pk_error *err)
{
    memset(walk, 0, sizeof *walk);
    size_t threads = pk_thread_count(p);
    unsigned char *selected = calloc(threads ? threads : 1, 1);
    /* The row that last counted a key: a key counts once per row. */
    uint32_t *counted_in = calloc(key_count ? key_count : 1, sizeof *counted_in);
    uint32_t *frames = NULL;
    size_t frames_cap = 0;
    pk_status st = PK_OK;
    if (!selected || !counted_in) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    for (size_t t = 0; t < threads; t++) {
        selected[t] = pk_thread_name_matches(pk_str(p, pk_thread_at(p, (uint32_t)t)->name),
                                             thread_pattern);
        walk->threads_matched += selected[t];
    }
    size_t rows = pk_sample_count(p);
    for (size_t r = 0; r < rows; r++) {
        uint32_t thread = pk_sample_thread(p, r);
        if (thread < threads && !selected[thread])
            continue;
        int64_t v = pk_sample_values(p, r)[value];
        walk->grand_total = pk_add_saturating(walk->grand_total, v);
        if (v == 0)
            continue;
        uint32_t stack = pk_sample_stack(p, r);
        size_t depth = pk_stack_depth(p, stack);
        if (!PK_ARRAY_RESERVE(frames, frames_cap, depth + 1)) {
            st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            goto done;
        }
        pk_stack_frames(p, stack, frames, depth);
        uint32_t mark = (uint32_t)r + 1;
        for (size_t k = 0; k < depth; k++) {
            uint32_t key = key_of_frame[frames[k]];
            if (key >= key_count)
                continue;
            if (k + 1 == depth)
                key_self[key] = pk_add_saturating(key_self[key], v);
            if (counted_in[key] != mark) {
                counted_in[key] = mark;
                key_total[key] = pk_add_saturating(key_total[key], v);
            }
        }
    }
done:
    free(selected);
    free(counted_in);
    free(frames);
    return st;
}
