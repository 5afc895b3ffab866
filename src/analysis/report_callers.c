/* SPDX-License-Identifier: MIT */
/* The callers and callees views: who calls one function and what it calls, from the call
 * tree merged by name. A function that recurses is counted at its outermost calls only, so
 * shares add up to its total. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/stack_walk.h"
#include "profkit/calltree.h"

typedef struct neighbour {
    uint32_t name; /* PK_NONE: the function's own (self) value, or the root for callers */
    int64_t value;
} neighbour;

static int compare_neighbours(const void *pa, const void *pb, void *context)
{
    const pk_profile *p = context;
    const neighbour *a = pa, *b = pb;
    if (a->value != b->value)
        return a->value > b->value ? -1 : 1;
    return strcmp(a->name == PK_NONE ? "" : pk_str(p, a->name),
                  b->name == PK_NONE ? "" : pk_str(p, b->name));
}

pk_status pk_report_build_neighbours(pk_report_storage *s, const pk_profile *p,
                                     const pk_report_options *o, uint32_t value, pk_error *err)
{
    pk_report *r = &s->report;
    bool callees = o->view == PK_REPORT_CALLEES;
    if (!o->function)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no function given");
    pk_thread_selection selection = {p, o->thread_pattern};
    pk_calltree tree;
    pk_status st = pk_calltree_build(&tree, p, value, 0, pk_thread_selection_filter, &selection,
                                     err);
    if (st != PK_OK)
        return st;
    size_t strings = pk_string_count(p);
    /* matches[name]: 0 unknown, 1 no, 2 yes */
    unsigned char *matches = calloc(strings ? strings : 1, 1);
    unsigned char *inside = calloc(tree.count ? tree.count : 1, 1);
    int64_t *sums = calloc(strings + 1, sizeof *sums);
    neighbour *list = NULL;
    if (!matches || !inside || !sums) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    int64_t function_total = 0, function_self = 0;
    uint32_t found_name = PK_NONE;
    for (uint32_t i = 1; i < tree.count; i++) {
        const pk_calltree_node *n = &tree.nodes[i];
        if (!matches[n->name])
            matches[n->name] = strcmp(pk_str(p, n->name), o->function) == 0 ? 2 : 1;
        bool is_function = matches[n->name] == 2;
        uint32_t parent = n->parent;
        bool parent_is_function = parent != 0 && matches[tree.nodes[parent].name] == 2;
        inside[i] = parent != 0 && (inside[parent] || parent_is_function);
        if (!is_function)
            continue;
        found_name = n->name;
        if (inside[i])
            continue;
        function_total += n->total;
        function_self += n->self;
        if (!callees) {
            /* sums[strings] collects calls from the root: the function is a root frame. */
            uint32_t key = parent == 0 ? (uint32_t)strings : tree.nodes[parent].name;
            sums[key] += n->total;
        } else {
            for (uint32_t c = n->first_child; c != PK_NONE; c = tree.nodes[c].next_sibling)
                sums[tree.nodes[c].name] += tree.nodes[c].total;
        }
    }
    if (found_name == PK_NONE) {
        st = pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no function named '%s' in the %s",
                          o->function, o->thread_pattern ? "selected threads" : "profile");
        goto done;
    }
    size_t count = 0;
    for (size_t i = 0; i <= strings; i++)
        count += sums[i] != 0;
    list = malloc((count + 1) * sizeof *list);
    if (!list) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    count = 0;
    for (size_t i = 0; i <= strings; i++)
        if (sums[i] != 0)
            list[count++] = (neighbour){i == strings ? PK_NONE : (uint32_t)i, sums[i]};
    if (callees && function_self != 0)
        list[count++] = (neighbour){PK_NONE, function_self};
    qsort_r(list, count, sizeof *list, compare_neighbours, (void *)p);
    size_t shown = pk_report_shown(o->top, count);
    r->entries = malloc((shown ? shown : 1) * sizeof *r->entries);
    if (!r->entries) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < shown; i++) {
        bool own = list[i].name == PK_NONE;
        r->entries[i] = (pk_report_entry){.name = own ? "" : pk_str(p, list[i].name),
                                          .file = "",
                                          .self = own && callees ? list[i].value : 0,
                                          .total = list[i].value,
                                          .own = own,
                                          .pid = -1,
                                          .tid = -1};
    }
    r->entry_count = shown;
    r->entries_available = count;
    r->function = pk_str(p, found_name);
    r->function_total = function_total;
    r->function_self = function_self;
    r->total = tree.count ? tree.nodes[0].total : 0;
done:
    free(matches);
    free(inside);
    free(sums);
    free(list);
    pk_calltree_free(&tree);
    return st;
}
