/* Prefix trees of labels (core/prefix_tree.h). */
#include "core/prefix_tree.h"

#include <string.h>

#include "core/array.h"
#include "profkit/profile.h"

#define NO_LABEL UINT32_MAX

bool pk_prefix_tree_init(pk_prefix_tree *t)
{
    memset(t, 0, sizeof *t);
    pk_u64map_init(&t->children);
    if (!PK_ARRAY_RESERVE(t->nodes, t->cap, 1))
        return false;
    t->nodes[t->count++] = (pk_prefix_node){PK_PREFIX_ROOT, NO_LABEL, 0, NO_LABEL, 0};
    return true;
}

void pk_prefix_tree_free(pk_prefix_tree *t)
{
    free(t->nodes);
    pk_u64map_free(&t->children);
    memset(t, 0, sizeof *t);
}

uint32_t pk_prefix_tree_child(pk_prefix_tree *t, uint32_t parent, uint32_t label)
{
    if (t->nodes[parent].last_label == label)
        return t->nodes[parent].last_child;
    uint64_t key = (uint64_t)parent << 32 | label;
    uint32_t *slot;
    bool inserted;
    if (t->count >= PK_NONE ||
        !pk_u64map_put(&t->children, key, (uint32_t)t->count, &slot, &inserted))
        return PK_NONE;
    uint32_t child = *slot;
    if (inserted) {
        if (!PK_ARRAY_RESERVE(t->nodes, t->cap, t->count + 1)) {
            pk_u64map_remove(&t->children, key, NULL);
            return PK_NONE;
        }
        t->nodes[t->count++] =
            (pk_prefix_node){parent, label, t->nodes[parent].depth + 1, NO_LABEL, 0};
    }
    t->nodes[parent].last_label = label;
    t->nodes[parent].last_child = child;
    return child;
}

uint32_t pk_prefix_tree_common(const pk_prefix_tree *t, uint32_t a, uint32_t b)
{
    const pk_prefix_node *n = t->nodes;
    while (n[a].depth > n[b].depth)
        a = n[a].parent;
    while (n[b].depth > n[a].depth)
        b = n[b].parent;
    while (a != b) {
        a = n[a].parent;
        b = n[b].parent;
    }
    return a;
}
