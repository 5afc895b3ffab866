/* A prefix tree of sequences of labels: each distinct (parent node, label) pair is one node,
 * found again through a hash table, with its depth. Node 0 (PK_PREFIX_ROOT) is the empty
 * sequence. Memory grows with the distinct prefixes, never with how often they are met.
 *
 * Readers that meet a stack a frame at a time build it here before the stacks can be interned
 * (speedscope's samples and events, over frame indexes); writers whose format numbers frames
 * otherwise than the model does find here where two stacks part (the speedscope writer's
 * evented profiles, over speedscope frames).
 */
#ifndef PK_CORE_PREFIX_TREE_H
#define PK_CORE_PREFIX_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"

#define PK_PREFIX_ROOT 0u
/* The largest label: UINT32_MAX marks "no child found yet". */
#define PK_PREFIX_MAX_LABEL (UINT32_MAX - 1)

typedef struct pk_prefix_node {
    uint32_t parent; /* the root's is the root */
    uint32_t label;
    uint32_t depth;  /* labels from the root: the root's is 0 */
    /* The child found last, the one asked for next most of the time (consecutive samples share
     * their callers), found without the hash table. */
    uint32_t last_label;
    uint32_t last_child;
} pk_prefix_node;

typedef struct pk_prefix_tree {
    pk_prefix_node *nodes;
    size_t count, cap;
    pk_u64map children; /* (parent << 32 | label) -> node */
} pk_prefix_tree;

/* An empty tree: the root alone. False when out of memory (the tree can still be freed). */
bool pk_prefix_tree_init(pk_prefix_tree *t);
void pk_prefix_tree_free(pk_prefix_tree *t);

/* The node of parent's sequence followed by label (at most PK_PREFIX_MAX_LABEL), made when
 * new; never the root. PK_NONE when out of memory or when the tree has 2^32 - 1 nodes. */
uint32_t pk_prefix_tree_child(pk_prefix_tree *t, uint32_t parent, uint32_t label);

/* The deepest node whose sequence starts both a's and b's: what they share. The walk takes as
 * many steps as a and b have labels below it, not their depths. */
uint32_t pk_prefix_tree_common(const pk_prefix_tree *t, uint32_t a, uint32_t b);

static inline const pk_prefix_node *pk_prefix_tree_node(const pk_prefix_tree *t, uint32_t n)
{
    return &t->nodes[n];
}

#endif
