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

/* What the walk over the tree of stacks sums per key. The keys met in the frames are numbered
 * densely (a report's keys are string indexes, most of which no frame names), so the walk's
 * per-key state stays in the first-level cache however many strings the profile has. */
typedef struct key_sums {
    const pk_profile *p;
    int64_t *below;                 /* value of the rows of the stack and of every stack
                                     * extending it */
    const uint32_t *dense_of_frame; /* frame -> dense key, PK_NONE for none */
    uint32_t *entered_depth;        /* per dense key: the walk depth of the run where it entered */
    uint32_t *entered_stack;        /* the stack of that run, PK_NONE when it never entered */
    int64_t *dense_total;
    uint32_t *path;                 /* the stacks on the walk's path, by depth */
} key_sums;

static void fold_below(void *context, uint32_t stack, uint32_t prefix)
{
    key_sums *k = context;
    k->below[prefix] = pk_add_saturating(k->below[prefix], k->below[stack]);
}

/* Enters a stack's run at a depth of the walk: a key adds the stack's value below to its total
 * when it enters the path, that is at its outermost frame, so it counts once per row. A key is
 * on the path when the run where it last entered still is: the stack at that depth of the path
 * is that run's (stacks are the tree's nodes, so no other run can take its place at that depth
 * while it is on the path). Leaving a run therefore touches none of its frames. */
static void enter_run(key_sums *k, uint32_t stack, uint32_t depth, size_t length,
                      const uint32_t *frames)
{
    k->path[depth] = stack;
    int64_t below = k->below[stack];
    for (size_t i = 0; i < length; i++) {
        uint32_t key = k->dense_of_frame[frames[i]];
        if (key == PK_NONE)
            continue;
        uint32_t entered = k->entered_depth[key];
        if (entered <= depth && k->path[entered] == k->entered_stack[key])
            continue;
        k->entered_depth[key] = depth;
        k->entered_stack[key] = stack;
        k->dense_total[key] = pk_add_saturating(k->dense_total[key], below);
    }
}

/* How far ahead of the walk the runs are fetched: their stack entries twice as far, so that an
 * entry is in the cache when its run's address is asked for. */
enum { RUN_AHEAD = 8 };

pk_status pk_key_totals(const pk_profile *p, uint32_t value, const char *thread_pattern,
                        const uint32_t *key_of_frame, size_t key_count, int64_t *key_self,
                        int64_t *key_total, pk_key_walk *walk, pk_error *err)
{
    memset(walk, 0, sizeof *walk);
    size_t threads = pk_thread_count(p);
    size_t stacks = pk_stack_count(p);
    size_t frames = pk_frame_count(p);
    unsigned char *selected = calloc(threads ? threads : 1, 1);
    uint32_t *dense_of_key = malloc((key_count ? key_count : 1) * sizeof *dense_of_key);
    uint32_t *dense_of_frame = malloc((frames ? frames : 1) * sizeof *dense_of_frame);
    uint32_t *key_of_dense = NULL;
    pk_stack_tree t;
    bool tree_made = pk_stack_tree_init(&t, p);
    key_sums k = {
        .p = p,
        .below = calloc(stacks ? stacks : 1, sizeof *k.below),
        .dense_of_frame = dense_of_frame,
        .path = malloc((stacks ? stacks : 1) * sizeof *k.path),
    };
    uint32_t *order = malloc((stacks ? stacks : 1) * sizeof *order);
    uint32_t *depth_of = malloc((stacks ? stacks : 1) * sizeof *depth_of);
    uint32_t *leaf_key = malloc((stacks ? stacks : 1) * sizeof *leaf_key);
    pk_status st = PK_OK;
    if (!selected || !tree_made || !k.below || !k.path || !dense_of_key || !dense_of_frame ||
        !order || !depth_of || !leaf_key)
        goto nomem;
    /* Dense numbers for the keys that frames name, in the order of their first frame. */
    for (size_t key = 0; key < key_count; key++)
        dense_of_key[key] = PK_NONE;
    uint32_t dense_count = 0;
    for (size_t f = 0; f < frames; f++) {
        uint32_t key = key_of_frame[f];
        if (key >= key_count) {
            dense_of_frame[f] = PK_NONE;
            continue;
        }
        if (dense_of_key[key] == PK_NONE)
            dense_of_key[key] = dense_count++;
        dense_of_frame[f] = dense_of_key[key];
    }
    size_t dense_n = dense_count ? dense_count : 1;
    key_of_dense = malloc(dense_n * sizeof *key_of_dense);
    k.entered_depth = malloc(dense_n * sizeof *k.entered_depth);
    k.entered_stack = malloc(dense_n * sizeof *k.entered_stack);
    k.dense_total = calloc(dense_n, sizeof *k.dense_total);
    if (!key_of_dense || !k.entered_depth || !k.entered_stack || !k.dense_total)
        goto nomem;
    for (uint32_t d = 0; d < dense_count; d++) {
        key_of_dense[d] = PK_NONE; /* each is given its key below */
        k.entered_depth[d] = PK_NONE;
        k.entered_stack[d] = PK_NONE;
    }
    for (size_t key = 0; key < key_count; key++)
        if (dense_of_key[key] != PK_NONE)
            key_of_dense[dense_of_key[key]] = (uint32_t)key;
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
        k.below[stack] = pk_add_saturating(k.below[stack], v);
        pk_stack_tree_use(&t, stack);
    }
    /* Totals are summed over the tree of stacks, not along each row's frames, which would
     * cost the depth of every stack; the walk keeps track of the keys on its path. It goes
     * through a list of the stacks in its order, so that the runs ahead are fetched while it
     * adds up the one it is at (the runs lie in the pool in the order stacks were made, not in
     * the walk's). The walk also notes each stack's leaf key, which it reads anyway. */
    pk_stack_tree_link(&t, fold_below, &k);
    size_t walked = pk_stack_tree_preorder(&t, order, depth_of, k.path);
    for (size_t i = 0; i < walked; i++) {
        if (i + 2 * RUN_AHEAD < walked)
            pk_stack_prefetch_entry(p, order[i + 2 * RUN_AHEAD]);
        if (i + RUN_AHEAD < walked)
            pk_stack_prefetch_run(p, order[i + RUN_AHEAD]);
        uint32_t stack = order[i], prefix;
        const uint32_t *run;
        size_t length = pk_stack_run(p, stack, &prefix, &run);
        enter_run(&k, stack, depth_of[i], length, run);
        leaf_key[stack] = length ? key_of_frame[run[length - 1]]
                                 : key_of_frame[pk_stack_leaf(p, stack)];
    }
    for (uint32_t d = 0; d < dense_count; d++) {
        uint32_t key = key_of_dense[d];
        if (key < key_count)
            key_total[key] = pk_add_saturating(key_total[key], k.dense_total[d]);
    }
    /* Self values in the rows' order, as they were always added. */
    for (size_t r = 0; r < rows; r++) {
        uint32_t thread = pk_sample_thread(p, r);
        if (thread < threads && !selected[thread])
            continue;
        int64_t v = pk_sample_values(p, r)[value];
        uint32_t stack = pk_sample_stack(p, r);
        if (v == 0 || stack >= stacks)
            continue;
        uint32_t key = leaf_key[stack];
        if (key < key_count)
            key_self[key] = pk_add_saturating(key_self[key], v);
    }
    goto done;
nomem:
    st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
done:
    free(selected);
    free(dense_of_key);
    free(dense_of_frame);
    free(key_of_dense);
    free(k.below);
    free(k.path);
    free(k.entered_depth);
    free(k.entered_stack);
    free(k.dense_total);
    free(order);
    free(depth_of);
    free(leaf_key);
    pk_stack_tree_free(&t);
    return st;
}
