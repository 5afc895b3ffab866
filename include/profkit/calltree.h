/* SPDX-License-Identifier: MIT */
/* The call tree by function name: samples merged along identical sequences of function names,
 * for one value type. Folded stacks, flame graphs and tree reports are views of it.
 *
 * Node 0 is a synthetic root (name 0 = ""), parent of every root frame (or of one node per
 * thread, with PK_CALLTREE_THREAD_ROOTS: threads of one name stay apart, each shown by its
 * display name, profkit/thread_names.h). A node's children are linked through first_child /
 * next_sibling in order of creation; nodes are created parents first, so a pass in index order
 * visits callers before callees.
 */
#ifndef PROFKIT_CALLTREE_H
#define PROFKIT_CALLTREE_H

#include <stdint.h>

#include "profkit/export.h"
#include "profkit/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pk_calltree_flags {
    PK_CALLTREE_THREAD_ROOTS = 1u << 0, /* first level: one node per thread */
    PK_CALLTREE_INVERTED = 1u << 1,     /* leaf first: the tree of callers */
    PK_CALLTREE_KEEP_ZERO = 1u << 2     /* keep rows whose value is zero */
};

typedef struct pk_calltree_node {
    uint32_t name;         /* string index in the profile: function name (or the thread's name
                            * as the profile holds it; pk_calltree_name gives the shown one) */
    uint32_t function;     /* a function with this name (the first seen); PK_NONE for threads/root */
    uint32_t parent;       /* PK_NONE for node 0 */
    uint32_t first_child;  /* PK_NONE when none */
    uint32_t last_child;   /* PK_NONE when none; makes appending a child O(1) */
    uint32_t next_sibling; /* PK_NONE when none */
    uint32_t depth;        /* 0 for node 0 */
    int64_t self;          /* value of samples ending exactly here */
    int64_t total;         /* self plus the totals of the children */
    uint32_t thread;       /* the thread of a thread node; PK_NONE for every other node */
} pk_calltree_node;

typedef struct pk_calltree {
    pk_calltree_node *nodes;
    uint32_t count;
    uint32_t capacity;
    struct pk_u64map *index; /* (parent, name) -> node; internal */
    struct pk_thread_names *thread_names; /* names of thread nodes; internal */
} pk_calltree;

/* Builds the tree of value `value` over every sample row into *tree, which belongs to the
 * caller and is released with pk_calltree_free (also after a failure). Node names are strings
 * of p. thread_filter, when not NULL, is called per thread index and rows of threads it
 * rejects are skipped. */
PK_API pk_status pk_calltree_build(pk_calltree *tree, const pk_profile *p, uint32_t value,
                            unsigned flags, int (*thread_filter)(void *ctx, uint32_t thread),
                            void *filter_context, pk_error *err);
PK_API void pk_calltree_free(pk_calltree *tree);

/* The name a node is shown by: its function's name, a thread's display name, "" for node 0.
 * Valid as long as both the tree and p are. */
PK_API const char *pk_calltree_name(const pk_calltree *tree, const pk_profile *p, uint32_t node);

/* Fills names[0..depth) with the name path of node (root-level first, node 0 excluded) when
 * depth <= capacity; returns the depth. */
PK_API uint32_t pk_calltree_path(const pk_calltree *tree, uint32_t node, uint32_t *names,
                          uint32_t capacity);

#ifdef __cplusplus
}
#endif

#endif
