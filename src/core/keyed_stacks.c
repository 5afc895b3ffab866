/* SPDX-License-Identifier: MIT */
/* A profile's stacks as sequences of keys, in a prefix tree compressed along the model's runs
 * (core/keyed_stacks.h). */
#include "core/keyed_stacks.h"

#include <stdlib.h>
#include <string.h>

#include "core/array.h"

#define ROOT 0u

bool pk_keyed_stacks_init(pk_keyed_stacks *t, const pk_profile *p, pk_frame_key_fn key,
                          void *context)
{
    memset(t, 0, sizeof *t);
    t->p = p;
    t->key = key;
    t->context = context;
    pk_u64map_init(&t->children);
    size_t stacks = pk_stack_count(p);
    t->node_of_stack = malloc((stacks ? stacks : 1) * sizeof *t->node_of_stack);
    if (!t->node_of_stack || !PK_ARRAY_RESERVE(t->nodes, t->cap, 1))
        return false;
    for (size_t i = 0; i < stacks; i++)
        t->node_of_stack[i] = PK_NONE;
    t->nodes[t->count++] = (pk_keyed_node){ROOT, PK_NONE, 0, 0, 0};
    return true;
}

void pk_keyed_stacks_free(pk_keyed_stacks *t)
{
    free(t->nodes);
    pk_u64map_free(&t->children);
    free(t->node_of_stack);
    free(t->chain);
    memset(t, 0, sizeof *t);
}

/* The key at a depth that node n (not the root) holds; PK_NONE when it cannot be had. */
static uint32_t key_at(const pk_keyed_stacks *t, uint32_t n, uint32_t depth)
{
    const pk_keyed_node *node = &t->nodes[n];
    uint32_t prefix;
    const uint32_t *frames;
    pk_stack_run(t->p, node->stack, &prefix, &frames);
    return t->key(t->context, frames[depth - node->base]);
}

static uint32_t new_node(pk_keyed_stacks *t, pk_keyed_node node)
{
    if (t->count >= PK_NONE || !PK_ARRAY_RESERVE(t->nodes, t->cap, t->count + 1))
        return PK_NONE;
    t->nodes[t->count] = node;
    return (uint32_t)t->count++;
}

/* Splits node n at a depth it holds keys above and below: the keys above go to a new node,
 * which takes n's place under its parent, and n keeps the rest, its children and its index
 * (so that what refers to it stays true below the split; locate finds the rest). Returns the
 * new node, PK_NONE when out of memory or when a key cannot be had. */
static uint32_t split(pk_keyed_stacks *t, uint32_t n, uint32_t depth)
{
    uint32_t first = key_at(t, n, t->nodes[n].start), next = key_at(t, n, depth);
    if (first == PK_NONE || next == PK_NONE)
        return PK_NONE;
    pk_keyed_node upper = t->nodes[n];
    upper.end = depth;
    uint32_t u = new_node(t, upper);
    if (u == PK_NONE)
        return PK_NONE;
    if (!pk_u64map_put(&t->children, (uint64_t)u << 32 | next, n, NULL, NULL)) {
        t->count--;
        return PK_NONE;
    }
    *pk_u64map_find(&t->children, (uint64_t)upper.parent << 32 | first) = u;
    t->nodes[n].parent = u;
    t->nodes[n].start = depth;
    return u;
}

/* The node that holds the key at depth - 1 on the path through node n: n, or one above it
 * that a split made after n was noted for a stack. The root for depth 0. */
static uint32_t locate(const pk_keyed_stacks *t, uint32_t n, uint32_t depth)
{
    while (n != ROOT && depth <= t->nodes[n].start)
        n = t->nodes[n].parent;
    return n;
}

/* Places the run of stack s below its prefix's node: along the path already there while its
 * keys are the same, then one new node for the rest. Returns the node of its last key. */
static uint32_t place_run(pk_keyed_stacks *t, uint32_t s)
{
    uint32_t prefix;
    const uint32_t *frames;
    size_t length = pk_stack_run(t->p, s, &prefix, &frames);
    uint32_t depth = pk_stack_depth(t->p, prefix), base = depth;
    uint32_t n = prefix == PK_NONE ? ROOT : locate(t, t->node_of_stack[prefix], depth);
    for (size_t i = 0; i < length; i++) {
        uint32_t key = t->key(t->context, frames[i]);
        if (key == PK_NONE)
            return PK_NONE;
        if (depth < t->nodes[n].end) { /* inside n: its next key goes on, or the paths part */
            uint32_t next = key_at(t, n, depth);
            if (next == PK_NONE)
                return PK_NONE;
            if (next == key) {
                depth++;
                continue;
            }
            if ((n = split(t, n, depth)) == PK_NONE)
                return PK_NONE;
        }
        uint32_t *child = pk_u64map_find(&t->children, (uint64_t)n << 32 | key);
        if (child) {
            n = *child;
            depth++;
            continue;
        }
        uint32_t made = new_node(t, (pk_keyed_node){n, s, base, depth, base + (uint32_t)length});
        if (made == PK_NONE)
            return PK_NONE;
        if (!pk_u64map_put(&t->children, (uint64_t)n << 32 | key, made, NULL, NULL)) {
            t->count--;
            return PK_NONE;
        }
        return made;
    }
    return n;
}

bool pk_keyed_stacks_add(pk_keyed_stacks *t, uint32_t stack)
{
    size_t count = 0;
    for (uint32_t s = stack; s != PK_NONE && t->node_of_stack[s] == PK_NONE;) {
        if (!PK_ARRAY_RESERVE(t->chain, t->chain_cap, count + 1))
            return false;
        t->chain[count++] = s;
        const uint32_t *frames;
        pk_stack_run(t->p, s, &s, &frames);
    }
    while (count > 0) {
        uint32_t s = t->chain[--count], n = place_run(t, s);
        if (n == PK_NONE)
            return false;
        t->node_of_stack[s] = n;
    }
    return true;
}

uint32_t pk_keyed_stacks_common(const pk_keyed_stacks *t, uint32_t a, uint32_t b)
{
    uint32_t da = pk_stack_depth(t->p, a), db = pk_stack_depth(t->p, b);
    uint32_t na = a == PK_NONE ? ROOT : locate(t, t->node_of_stack[a], da);
    uint32_t nb = b == PK_NONE ? ROOT : locate(t, t->node_of_stack[b], db);
    /* Up from the node that starts deeper (both when they start at one depth) to its parent,
     * at whose end it hangs, until the two paths meet. */
    while (na != nb) {
        uint32_t sa = t->nodes[na].start, sb = t->nodes[nb].start;
        if (sa >= sb) {
            da = sa;
            na = t->nodes[na].parent;
        }
        if (sb >= sa) {
            db = sb;
            nb = t->nodes[nb].parent;
        }
    }
    return da < db ? da : db;
}
