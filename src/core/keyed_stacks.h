/* SPDX-License-Identifier: MIT */
/* A profile's stacks as sequences of keys: a writer's numbering of frames under which two
 * frames of the model may be one (speedscope numbers functions, so the frames of one function
 * at two lines are one key). What two stacks share from the root, in keys, is found in as many
 * steps as they part by, however deep they are.
 *
 * The stacks are placed in a prefix tree of keys compressed along the model's runs: a node is a
 * run of keys at consecutive depths, read from the frames of a model stack's run, and a child
 * hangs at its parent's end under its first key. Adding a stack compares its run's keys with
 * the path already there, splits a node where they part and makes one node for the rest, so the
 * tree has at most two nodes per stack added, however many frames the stacks hold: a tree of one
 * node per frame, for profiles whose stacks are long runs that share little (call chains read
 * whole), would take many times the memory of the profile itself.
 */
#ifndef PK_CORE_KEYED_STACKS_H
#define PK_CORE_KEYED_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"
#include "profkit/profile.h"

/* The key of a frame of the profile; PK_NONE when it cannot be had (out of memory). */
typedef uint32_t (*pk_frame_key_fn)(void *context, uint32_t frame);

typedef struct pk_keyed_node {
    uint32_t parent; /* the root's is the root */
    uint32_t stack;  /* the model stack whose run holds the node's frames */
    uint32_t base;   /* the depth of that run's first frame */
    uint32_t start;  /* the node holds the keys at depths [start, end) */
    uint32_t end;
} pk_keyed_node;

typedef struct pk_keyed_stacks {
    const pk_profile *p;
    pk_frame_key_fn key;
    void *context;
    pk_keyed_node *nodes; /* node 0 is the root, the empty sequence */
    size_t count, cap;
    pk_u64map children;     /* (node << 32 | first key) -> child */
    uint32_t *node_of_stack; /* model stack -> the node holding its last key, PK_NONE until added */
    uint32_t *chain;         /* stacks being added, innermost first */
    size_t chain_cap;
} pk_keyed_stacks;

/* An empty tree over p's stacks. False when out of memory (the tree can still be freed). */
bool pk_keyed_stacks_init(pk_keyed_stacks *t, const pk_profile *p, pk_frame_key_fn key,
                          void *context);
void pk_keyed_stacks_free(pk_keyed_stacks *t);

/* Adds a stack and the prefixes it has not added yet; PK_NONE, the empty stack, is always
 * there. The keys asked for are those of the frames compared with the path already there and
 * the first one past it. False when out of memory or when a key cannot be had. */
bool pk_keyed_stacks_add(pk_keyed_stacks *t, uint32_t stack);

/* How many keys two added stacks share from the root. */
uint32_t pk_keyed_stacks_common(const pk_keyed_stacks *t, uint32_t a, uint32_t b);

#endif
