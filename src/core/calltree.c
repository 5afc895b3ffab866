/* SPDX-License-Identifier: MIT */
#include "profkit/calltree.h"

#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/hashmap.h"
#include "profkit/thread_names.h"

/* Thread nodes are keyed by thread under a parent that no node has, so that they never meet a
 * function of the same name. */
#define THREAD_KEY_PARENT PK_NONE

static uint32_t calltree_child(pk_calltree *tree, uint32_t parent, uint32_t name,
                               uint32_t function, uint32_t thread)
{
    uint64_t key = thread == PK_NONE ? ((uint64_t)parent << 32) | name
                                     : ((uint64_t)THREAD_KEY_PARENT << 32) | thread;
    uint32_t *slot;
    bool inserted;
    if (tree->count == PK_NONE - 1 ||
        !pk_u64map_put(tree->index, key, tree->count, &slot, &inserted))
        return PK_NONE;
    if (!inserted)
        return *slot;
    size_t capacity = tree->capacity;
    if (!PK_ARRAY_RESERVE(tree->nodes, capacity, (size_t)tree->count + 1)) {
        pk_u64map_remove(tree->index, key, NULL);
        return PK_NONE;
    }
    tree->capacity = (uint32_t)(capacity > PK_NONE ? PK_NONE : capacity);
    uint32_t id = tree->count++;
    pk_calltree_node *parent_node = &tree->nodes[parent];
    tree->nodes[id] = (pk_calltree_node){
        .name = name,
        .function = function,
        .parent = parent,
        .first_child = PK_NONE,
        .last_child = PK_NONE,
        .next_sibling = PK_NONE,
        .depth = parent_node->depth + 1,
        .thread = thread,
    };
    /* Append, so children keep their order of creation. */
    if (parent_node->first_child == PK_NONE)
        parent_node->first_child = id;
    else
        tree->nodes[parent_node->last_child].next_sibling = id;
    parent_node->last_child = id;
    return id;
}

static uint32_t frame_child(pk_calltree *tree, const pk_profile *p, uint32_t parent,
                            uint32_t frame)
{
    const pk_frame *f = pk_frame_at(p, frame);
    const pk_function *fn = pk_function_at(p, f->function);
    return calltree_child(tree, parent, fn->name, f->function, PK_NONE);
}

/* Node of a stack below base (non-inverted), memoised per (base, stack) in memo. A stack's
 * node is its prefix's node extended by the frames of its run: the prefixes not memoised yet
 * are collected in chain, then extended outermost first. */
static uint32_t stack_node(pk_calltree *tree, const pk_profile *p, pk_u64map *memo,
                           uint32_t base, uint32_t stack, uint32_t **chain, size_t *chain_cap)
{
    size_t count = 0;
    uint32_t node = base;
    for (uint32_t s = stack; s != PK_NONE;) {
        uint32_t *found = pk_u64map_find(memo, ((uint64_t)base << 32) | s);
        if (found) {
            node = *found;
            break;
        }
        if (!PK_ARRAY_RESERVE(*chain, *chain_cap, count + 1))
            return PK_NONE;
        (*chain)[count++] = s;
        const uint32_t *frames;
        pk_stack_run(p, s, &s, &frames);
    }
    while (count > 0 && node != PK_NONE) {
        uint32_t s = (*chain)[--count], prefix;
        const uint32_t *frames;
        size_t n = pk_stack_run(p, s, &prefix, &frames);
        for (size_t i = 0; i < n && node != PK_NONE; i++)
            node = frame_child(tree, p, node, frames[i]);
        if (node != PK_NONE && !pk_u64map_put(memo, ((uint64_t)base << 32) | s, node, NULL, NULL))
            node = PK_NONE;
    }
    return node;
}

/* Node of a stack read from its innermost frame outwards (the tree of callers). */
static uint32_t inverted_node(pk_calltree *tree, const pk_profile *p, uint32_t base,
                              uint32_t stack, uint32_t **scratch, size_t *scratch_cap)
{
    size_t depth = pk_stack_depth(p, stack);
    if (!PK_ARRAY_RESERVE(*scratch, *scratch_cap, depth + 1))
        return PK_NONE;
    pk_stack_frames(p, stack, *scratch, depth);
    uint32_t node = base;
    for (size_t i = depth; i-- > 0 && node != PK_NONE;)
        node = frame_child(tree, p, node, (*scratch)[i]);
    return node;
}

pk_status pk_calltree_build(pk_calltree *tree, const pk_profile *p, uint32_t value,
                            unsigned flags, int (*thread_filter)(void *ctx, uint32_t thread),
                            void *filter_context, pk_error *err)
{
    memset(tree, 0, sizeof *tree);
    if (value >= pk_value_type_count(p))
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no such value type");
    tree->index = malloc(sizeof *tree->index);
    size_t capacity = 0;
    if (!tree->index || !PK_ARRAY_RESERVE(tree->nodes, capacity, 1024)) {
        pk_calltree_free(tree);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    pk_u64map_init(tree->index);
    tree->capacity = (uint32_t)capacity;
    tree->nodes[0] = (pk_calltree_node){.function = PK_NONE, .parent = PK_NONE,
                                        .first_child = PK_NONE, .last_child = PK_NONE,
                                        .next_sibling = PK_NONE, .thread = PK_NONE};
    if ((flags & PK_CALLTREE_THREAD_ROOTS) && !(tree->thread_names = pk_thread_names_new(p))) {
        pk_calltree_free(tree);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    tree->count = 1;

    pk_u64map memo;
    pk_u64map_init(&memo);
    uint32_t *scratch = NULL;
    size_t scratch_cap = 0;
    pk_status status = PK_OK;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        int64_t v = pk_sample_values(p, row)[value];
        if (v == 0 && !(flags & PK_CALLTREE_KEEP_ZERO))
            continue;
        uint32_t thread = pk_sample_thread(p, row);
        if (thread_filter && !thread_filter(filter_context, thread))
            continue;
        uint32_t base = 0;
        if (flags & PK_CALLTREE_THREAD_ROOTS)
            base = calltree_child(tree, 0, pk_thread_at(p, thread)->name, PK_NONE, thread);
        uint32_t stack = pk_sample_stack(p, row);
        uint32_t node = PK_NONE;
        if (base != PK_NONE)
            node = (flags & PK_CALLTREE_INVERTED)
                       ? inverted_node(tree, p, base, stack, &scratch, &scratch_cap)
                       : stack_node(tree, p, &memo, base, stack, &scratch, &scratch_cap);
        if (node == PK_NONE) {
            status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            break;
        }
        tree->nodes[node].self = pk_add_saturating(tree->nodes[node].self, v);
    }
    /* Totals in one pass over the nodes rather than along each row's path, which would cost
     * the depth of every stack: children come after their parents, so visiting the nodes from
     * the last one finishes each child's total before it is added to its parent's. */
    if (status == PK_OK) {
        for (uint32_t n = 0; n < tree->count; n++)
            tree->nodes[n].total = tree->nodes[n].self;
        for (uint32_t n = tree->count; n-- > 1;) {
            pk_calltree_node *parent = &tree->nodes[tree->nodes[n].parent];
            parent->total = pk_add_saturating(parent->total, tree->nodes[n].total);
        }
    }
    pk_u64map_free(&memo);
    free(scratch);
    if (status != PK_OK)
        pk_calltree_free(tree);
    return status;
}

void pk_calltree_free(pk_calltree *tree)
{
    free(tree->nodes);
    if (tree->index) {
        pk_u64map_free(tree->index);
        free(tree->index);
    }
    pk_thread_names_free(tree->thread_names);
    memset(tree, 0, sizeof *tree);
}

const char *pk_calltree_name(const pk_calltree *tree, const pk_profile *p, uint32_t node)
{
    if (node >= tree->count)
        return "";
    const pk_calltree_node *n = &tree->nodes[node];
    if (n->thread != PK_NONE)
        return pk_thread_display_name(tree->thread_names, n->thread);
    return pk_str(p, n->name);
}

uint32_t pk_calltree_path(const pk_calltree *tree, uint32_t node, uint32_t *names,
                          uint32_t capacity)
{
    if (node >= tree->count)
        return 0;
    uint32_t depth = tree->nodes[node].depth;
    if (depth > capacity)
        return depth;
    for (uint32_t n = node, i = depth; n != 0; n = tree->nodes[n].parent)
        names[--i] = tree->nodes[n].name;
    return depth;
}
