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

/* The stacks as a tree: a stack's children are the stacks whose prefix it is. Only stacks
 * that lead to a row with a value are linked. */
typedef struct stack_tree {
    int64_t *below;       /* value of the rows of the stack and of every stack extending it */
    unsigned char *used;  /* some row with a value has this stack or one extending it */
    uint32_t *first_child, *next_sibling; /* the roots are siblings too, the first in roots */
    uint32_t roots;
    uint32_t *on_path;    /* per key: frames with this key on the path walked */
} stack_tree;

static void stack_tree_free(stack_tree *t)
{
    free(t->below);
    free(t->used);
    free(t->first_child);
    free(t->next_sibling);
    free(t->on_path);
}

/* Enters or leaves a stack's run on the walk's path: a key adds the stack's value below to its
 * total when it enters the path, that is at its outermost frame, so it counts once per row. */
static void walk_run(const pk_profile *p, stack_tree *t, uint32_t stack, bool leaving,
                     const uint32_t *key_of_frame, size_t key_count, int64_t *key_total)
{
    uint32_t prefix;
    const uint32_t *frames;
    size_t length = pk_stack_run(p, stack, &prefix, &frames);
    for (size_t i = 0; i < length; i++) {
        uint32_t key = key_of_frame[frames[i]];
        if (key >= key_count)
            continue;
        if (leaving)
            t->on_path[key]--;
        else if (t->on_path[key]++ == 0)
            key_total[key] = pk_add_saturating(key_total[key], t->below[stack]);
    }
}

pk_status pk_key_totals(const pk_profile *p, uint32_t value, const char *thread_pattern,
                        const uint32_t *key_of_frame, size_t key_count, int64_t *key_self,
                        int64_t *key_total, pk_key_walk *walk, pk_error *err)
{
    memset(walk, 0, sizeof *walk);
    size_t threads = pk_thread_count(p);
    size_t stacks = pk_stack_count(p);
    unsigned char *selected = calloc(threads ? threads : 1, 1);
    stack_tree t = {
        .below = calloc(stacks ? stacks : 1, sizeof *t.below),
        .used = calloc(stacks ? stacks : 1, 1),
        .first_child = malloc((stacks ? stacks : 1) * sizeof *t.first_child),
        .next_sibling = malloc((stacks ? stacks : 1) * sizeof *t.next_sibling),
        .roots = PK_NONE,
        .on_path = calloc(key_count ? key_count : 1, sizeof *t.on_path),
    };
    pk_status st = PK_OK;
    if (!selected || !t.below || !t.used || !t.first_child || !t.next_sibling || !t.on_path) {
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
        t.below[stack] = pk_add_saturating(t.below[stack], v);
        t.used[stack] = 1;
    }
    /* Totals are summed over the tree of stacks, not along each row's frames, which would
     * cost the depth of every stack: a prefix has a smaller index than the stacks extending
     * it, so one pass from the last stack completes each stack's value below before it is
     * added to its prefix's. */
    for (size_t s = 0; s < stacks; s++)
        t.first_child[s] = t.next_sibling[s] = PK_NONE;
    for (size_t s = stacks; s-- > 0;) {
        if (!t.used[s])
            continue;
        uint32_t prefix;
        const uint32_t *frames;
        pk_stack_run(p, (uint32_t)s, &prefix, &frames);
        uint32_t *first = prefix == PK_NONE ? &t.roots : &t.first_child[prefix];
        t.next_sibling[s] = *first;
        *first = (uint32_t)s;
        if (prefix != PK_NONE) {
            t.below[prefix] = pk_add_saturating(t.below[prefix], t.below[s]);
            t.used[prefix] = 1;
        }
    }
    /* Depth first from the roots, keeping count of the keys on the path; the way back up
     * is each stack's prefix, so the walk needs no stack of its own. */
    for (uint32_t s = t.roots; s != PK_NONE;) {
        walk_run(p, &t, s, false, key_of_frame, key_count, key_total);
        if (t.first_child[s] != PK_NONE) {
            s = t.first_child[s];
            continue;
        }
        for (;;) {
            walk_run(p, &t, s, true, key_of_frame, key_count, key_total);
            if (t.next_sibling[s] != PK_NONE) {
                s = t.next_sibling[s];
                break;
            }
            const uint32_t *frames;
            pk_stack_run(p, s, &s, &frames);
            if (s == PK_NONE)
                break;
        }
    }
done:
    free(selected);
    stack_tree_free(&t);
    return st;
}
