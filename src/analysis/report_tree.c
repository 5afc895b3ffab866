/* SPDX-License-Identifier: MIT */
/* The tree view: the call tree rooted at the bottom of the stack, each branch with its total
 * and self value, children heaviest first, small branches folded into one row, in the order
 * the rows are shown. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/stack_walk.h"
#include "core/arith.h"
#include "core/array.h"
#include "profkit/calltree.h"

/* Nodes still to visit: the walk pops the heaviest child first, and a folded row after the
 * last shown sibling. */
typedef struct walk_item {
    uint32_t node;     /* the node to show; for a folded row, the parent of its branches */
    uint32_t depth;    /* display depth: 0 for the first level */
    uint32_t folded;   /* 0 for a node; else the hidden branches a folded row stands for */
    int64_t folded_total;
} walk_item;

typedef struct tree_walk {
    walk_item *items;
    size_t count;
    size_t capacity;
    uint32_t *children;
    size_t children_capacity;
} tree_walk;

static int compare_children(const void *pa, const void *pb, void *context)
{
    const pk_calltree *tree = ((const void **)context)[0];
    const pk_profile *p = ((const void **)context)[1];
    const pk_calltree_node *a = &tree->nodes[*(const uint32_t *)pa];
    const pk_calltree_node *b = &tree->nodes[*(const uint32_t *)pb];
    if (a->total != b->total)
        return a->total > b->total ? -1 : 1;
    return strcmp(pk_calltree_name(tree, p, (uint32_t)(a - tree->nodes)),
                  pk_calltree_name(tree, p, (uint32_t)(b - tree->nodes)));
}

/* Pushes the folded row of node's small children and then its shown children, heaviest
 * last (popped first). */
static bool push_children(tree_walk *w, const pk_calltree *tree, const pk_profile *p,
                          uint32_t node, uint32_t depth, int64_t threshold)
{
    size_t n = 0;
    for (uint32_t c = tree->nodes[node].first_child; c != PK_NONE;
         c = tree->nodes[c].next_sibling) {
        if (!PK_ARRAY_RESERVE(w->children, w->children_capacity, n + 1))
            return false;
        w->children[n++] = c;
    }
    const void *context[2] = {tree, p};
    if (n > 1)
        qsort_r(w->children, n, sizeof *w->children, compare_children, context);
    size_t shown = 0;
    uint32_t hidden = 0;
    int64_t hidden_total = 0;
    for (size_t i = 0; i < n; i++) {
        const pk_calltree_node *c = &tree->nodes[w->children[i]];
        if (c->total >= threshold && c->total != 0) {
            shown++;
        } else {
            hidden++;
            hidden_total = pk_add_saturating(hidden_total, c->total);
        }
    }
    if (!PK_ARRAY_RESERVE(w->items, w->capacity, w->count + shown + 1))
        return false;
    if (hidden)
        w->items[w->count++] = (walk_item){node, depth, hidden, hidden_total};
    for (size_t i = shown; i-- > 0;)
        w->items[w->count++] = (walk_item){w->children[i], depth, 0, 0};
    return true;
}

/* More than one thread has data: the tree then has one branch per thread. */
static bool several_threads_have_data(const pk_profile *p, uint32_t value,
                                      pk_thread_selection *selection)
{
    uint32_t first_thread = PK_NONE;
    for (size_t r = 0; r < pk_sample_count(p); r++) {
        uint32_t t = pk_sample_thread(p, r);
        if (pk_sample_values(p, r)[value] == 0 || !pk_thread_selection_filter(selection, t))
            continue;
        if (first_thread == PK_NONE)
            first_thread = t;
        else if (t != first_thread)
            return true;
    }
    return false;
}

pk_status pk_report_build_tree(pk_report_storage *s, const pk_profile *p,
                               const pk_report_options *o, uint32_t value, pk_error *err)
{
    pk_report *r = &s->report;
    pk_thread_selection selection = {p, o->thread_pattern};
    bool several_threads = several_threads_have_data(p, value, &selection);
    pk_calltree tree;
    pk_status st = pk_calltree_build(&tree, p, value,
                                     several_threads ? PK_CALLTREE_THREAD_ROOTS : 0,
                                     pk_thread_selection_filter, &selection, err);
    if (st != PK_OK)
        return st;
    int64_t grand = tree.count ? tree.nodes[0].total : 0;
    double threshold_d = (double)grand * o->min_percent / 100.0;
    int64_t threshold = threshold_d > 0 ? (int64_t)threshold_d : 0;
    if (threshold_d > 0 && (double)threshold < threshold_d)
        threshold++;
    r->total = grand;
    tree_walk w;
    memset(&w, 0, sizeof w);
    size_t capacity = 0;
    if (tree.count && !push_children(&w, &tree, p, 0, 0, threshold))
        goto nomem;
    while (w.count) {
        walk_item item = w.items[--w.count];
        if (!PK_ARRAY_RESERVE(r->nodes, capacity, r->node_count + 1))
            goto nomem;
        if (item.folded) {
            r->nodes[r->node_count++] = (pk_report_node){.name = "", .depth = item.depth,
                                                          .folded = item.folded,
                                                          .total = item.folded_total};
            continue;
        }
        const pk_calltree_node *n = &tree.nodes[item.node];
        r->nodes[r->node_count++] = (pk_report_node){
            /* The tree goes before the report: thread names come from the report's own. */
            .name = n->thread != PK_NONE ? pk_thread_display_name(s->thread_names, n->thread)
                                         : pk_str(p, n->name),
            .depth = item.depth,
            .thread = several_threads && n->depth == 1,
            .self = n->self,
            .total = n->total,
        };
        if (!push_children(&w, &tree, p, item.node, item.depth + 1, threshold))
            goto nomem;
    }
    goto done;
nomem:
    st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
done:
    free(w.items);
    free(w.children);
    pk_calltree_free(&tree);
    return st;
}
