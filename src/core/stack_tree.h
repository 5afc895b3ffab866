/* SPDX-License-Identifier: MIT */
/* A profile's stacks as a tree, for sums over the stacks that cost the number of stacks rather
 * than the depth of every row's stack: a stack's children are the stacks whose prefix it is.
 * Only the stacks marked used, and their prefixes, are linked.
 *
 * The caller marks the stacks its rows lead to, links the tree (folding each stack's own sums
 * into its prefix's on the way) and walks it depth first, entering and leaving each stack's run.
 * Neither linking nor walking recurses: stacks may be hundreds of thousands of frames deep.
 */
#ifndef PK_CORE_STACK_TREE_H
#define PK_CORE_STACK_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/profile.h"

typedef struct pk_stack_tree {
    const pk_profile *profile;
    unsigned char *used;                  /* per stack: linked into the tree */
    uint32_t *first_child, *next_sibling; /* the roots are siblings too, the first in roots */
    uint32_t roots;
} pk_stack_tree;

/* An empty tree over the profile's stacks, none used; false when memory runs out (the tree is
 * then still safe to free). */
bool pk_stack_tree_init(pk_stack_tree *t, const pk_profile *p);
void pk_stack_tree_free(pk_stack_tree *t);

static inline void pk_stack_tree_use(pk_stack_tree *t, uint32_t stack)
{
    t->used[stack] = 1;
}

/* Links every used stack under its prefix, which becomes used too. A prefix has a smaller index
 * than the stacks extending it, so one pass from the last stack reaches every stack after all
 * that extend it: fold (when not NULL) adds a stack's sums to its prefix's then, which
 * completes each stack's sums before they are added on. */
void pk_stack_tree_link(pk_stack_tree *t,
                        void (*fold)(void *context, uint32_t stack, uint32_t prefix),
                        void *context);

/* Depth first from the roots: enter when the walk comes to a stack, leave when it has been
 * below it; the way back up is each stack's prefix, so the walk needs no stack of its own.
 * Stops, returning false, when enter returns false. */
bool pk_stack_tree_walk(const pk_stack_tree *t, bool (*enter)(void *context, uint32_t stack),
                        void (*leave)(void *context, uint32_t stack), void *context);

/* The walk's order without callbacks: order[i] is the i-th stack entered, depth[i] the number
 * of stacks above it on the path. Each array holds the count of used stacks (at most the
 * profile's stacks); path is scratch of as many. Returns the count of stacks listed. The way
 * back up is taken from path, so the stacks' entries are not read: a caller can read the runs
 * of the stacks ahead of the one it is at (prefetching them) in the order listed. */
size_t pk_stack_tree_preorder(const pk_stack_tree *t, uint32_t *order, uint32_t *depth,
                              uint32_t *path);

/* Hints that a stack's entry, or the first frames of its run, will be read soon (no effect on
 * results; a stack out of range is ignored). */
void pk_stack_prefetch_entry(const pk_profile *p, uint32_t stack);
void pk_stack_prefetch_run(const pk_profile *p, uint32_t stack);

#endif
