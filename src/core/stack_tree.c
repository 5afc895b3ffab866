/* SPDX-License-Identifier: MIT */
/* A profile's stacks as a tree linked through child and sibling indexes, walked without
 * recursion. */
#include "core/stack_tree.h"

#include <stdlib.h>

#include "core/profile_internal.h"

bool pk_stack_tree_init(pk_stack_tree *t, const pk_profile *p)
{
    size_t stacks = pk_stack_count(p);
    size_t n = stacks ? stacks : 1;
    *t = (pk_stack_tree){
        .profile = p,
        .used = calloc(n, 1),
        .first_child = malloc(n * sizeof *t->first_child),
        .next_sibling = malloc(n * sizeof *t->next_sibling),
        .roots = PK_NONE,
    };
    if (!t->used || !t->first_child || !t->next_sibling)
        return false;
    for (size_t s = 0; s < stacks; s++)
        t->first_child[s] = t->next_sibling[s] = PK_NONE;
    return true;
}

void pk_stack_tree_free(pk_stack_tree *t)
{
    free(t->used);
    free(t->first_child);
    free(t->next_sibling);
}

void pk_stack_tree_link(pk_stack_tree *t,
                        void (*fold)(void *context, uint32_t stack, uint32_t prefix),
                        void *context)
{
    for (size_t s = pk_stack_count(t->profile); s-- > 0;) {
        if (!t->used[s])
            continue;
        uint32_t prefix;
        const uint32_t *frames;
        pk_stack_run(t->profile, (uint32_t)s, &prefix, &frames);
        uint32_t *first = prefix == PK_NONE ? &t->roots : &t->first_child[prefix];
        t->next_sibling[s] = *first;
        *first = (uint32_t)s;
        if (prefix != PK_NONE) {
            if (fold)
                fold(context, (uint32_t)s, prefix);
            t->used[prefix] = 1;
        }
    }
}

bool pk_stack_tree_walk(const pk_stack_tree *t, bool (*enter)(void *context, uint32_t stack),
                        void (*leave)(void *context, uint32_t stack), void *context)
{
    for (uint32_t s = t->roots; s != PK_NONE;) {
        if (!enter(context, s))
            return false;
        if (t->first_child[s] != PK_NONE) {
            s = t->first_child[s];
            continue;
        }
        for (;;) {
            leave(context, s);
            if (t->next_sibling[s] != PK_NONE) {
                s = t->next_sibling[s];
                break;
            }
            const uint32_t *frames;
            pk_stack_run(t->profile, s, &s, &frames);
            if (s == PK_NONE)
                break;
        }
    }
    return true;
}

size_t pk_stack_tree_preorder(const pk_stack_tree *t, uint32_t *order, uint32_t *depth,
                              uint32_t *path)
{
    size_t count = 0;
    uint32_t d = 0;
    for (uint32_t s = t->roots; s != PK_NONE;) {
        order[count] = s;
        depth[count] = d;
        count++;
        path[d] = s;
        if (t->first_child[s] != PK_NONE) {
            s = t->first_child[s];
            d++;
            continue;
        }
        for (;;) {
            if (t->next_sibling[s] != PK_NONE) {
                s = t->next_sibling[s];
                break;
            }
            if (d == 0) {
                s = PK_NONE;
                break;
            }
            s = path[--d];
        }
    }
    return count;
}

void pk_stack_prefetch_entry(const pk_profile *p, uint32_t stack)
{
    if (stack < p->stacks.count)
        __builtin_prefetch(&p->stacks.entries[stack]);
}

void pk_stack_prefetch_run(const pk_profile *p, uint32_t stack)
{
    if (stack < p->stacks.count) {
        const pk_stack_entry *e = &p->stacks.entries[stack];
        __builtin_prefetch(p->stacks.pool + e->first);
        if (e->length > 16)
            __builtin_prefetch(p->stacks.pool + e->first + 16);
    }
}
