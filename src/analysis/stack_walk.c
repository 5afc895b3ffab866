/* SPDX-License-Identifier: MIT */
/* Thread selection and once-per-row key totals over the rows' stacks. */
#include "analysis/stack_walk.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/stack_tree.h"

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

/* What the walk over the tree of stacks sums per key. */
typedef struct key_sums {
    const pk_profile *p;
    int64_t *below;       /* value of the rows of the stack and of every stack extending it */
    uint32_t *on_path;    /* per key: frames with this key on the path walked */
    const uint32_t *key_of_frame;
    size_t key_count;
    int64_t *key_total;
} key_sums;

static void fold_below(void *context, uint32_t stack, uint32_t prefix)
{
    key_sums *k = context;
    k->below[prefix] = pk_add_saturating(k->below[prefix], k->below[stack]);
}

/* Enters or leaves a stack's run on the walk's path: a key adds the stack's value below to its
 * total when it enters the path, that is at its outermost frame, so it counts once per row. */
static void walk_run(key_sums *k, uint32_t stack, bool leaving)
{
    uint32_t prefix;
    const uint32_t *frames;
    size_t length = pk_stack_run(k->p, stack, &prefix, &frames);
    for (size_t i = 0; i < length; i++) {
        uint32_t key = k->key_of_frame[frames[i]];
        if (key >= k->key_count)
            continue;
        if (leaving)
            k->on_path[key]--;
        else if (k->on_path[key]++ == 0)
            k->key_total[key] = pk_add_saturating(k->key_total[key], k->below[stack]);
    }
}

static bool enter_run(void *context, uint32_t stack)
{
    walk_run(context, stack, false);
    return true;
}

static void leave_run(void *context, uint32_t stack)
{
    walk_run(context, stack, true);
}

pk_status pk_key_totals(const pk_profile *p, uint32_t value, const char *thread_pattern,
                        const uint32_t *key_of_frame, size_t key_count, int64_t *key_self,
                        int64_t *key_total, pk_key_walk *walk, pk_error *err)
{
    memset(walk, 0, sizeof *walk);
    size_t threads = pk_thread_count(p);
    size_t stacks = pk_stack_count(p);
    unsigned char *selected = calloc(threads ? threads : 1, 1);
    pk_stack_tree t;
    bool tree_made = pk_stack_tree_init(&t, p);
    key_sums k = {
        .p = p,
        .below = calloc(stacks ? stacks : 1, sizeof *k.below),
        .on_path = calloc(key_count ? key_count : 1, sizeof *k.on_path),
        .key_of_frame = key_of_frame,
        .key_count = key_count,
        .key_total = key_total,
    };
    pk_status st = PK_OK;
    if (!selected || !tree_made || !k.below || !k.on_path) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    for (size_t tr = 0; tr < threads; tr++) {
        selected[tr] = pk_thread_name_matches(pk_str(p, pk_thread_at(p, (uint32_t)tr)->name),
                                              thread_pattern);
        walk->threads_matched += selected[tr];
    }
    size_t rows = pk_sample_count(p);
    for (size_t r = 0; r < rows; r++) {
        uint32_t thread = pk_sample_thread(p, r);
        if (thread < threads && !selected[thread])
            continue;
        int64_t v = pk_sample_values(p, r)[value];
        walk->grand_total = pk_add_saturating(walk->grand_total, v);
        uint32_t stack = pk_sample_stack(p, r);
        if (v == 0 || stack >= stacks)
            continue;
        uint32_t key = key_of_frame[pk_stack_leaf(p, stack)];
        if (key < key_count)
            key_self[key] = pk_add_saturating(key_self[key], v);
        k.below[stack] = pk_add_saturating(k.below[stack], v);
        pk_stack_tree_use(&t, stack);
    }
    /* Totals are summed over the tree of stacks, not along each row's frames, which would
     * cost the depth of every stack; the walk keeps count of the keys on its path. */
    pk_stack_tree_link(&t, fold_below, &k);
    pk_stack_tree_walk(&t, enter_run, leave_run, &k);
done:
    free(selected);
    free(k.below);
    free(k.on_path);
    pk_stack_tree_free(&t);
    return st;
}
