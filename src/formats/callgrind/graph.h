/* SPDX-License-Identifier: MIT */
/* A callgrind call graph as the reader collects it, and its expansion into stacks.
 *
 * Memory grows with the distinct functions, (function, file, line) positions and call edges,
 * never with the number of cost lines: a cost line adds to one of them. */
#ifndef PK_FORMATS_CALLGRIND_GRAPH_H
#define PK_FORMATS_CALLGRIND_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"
#include "profkit/profile.h"

/* A function of one thread: callgrind's (object, file, function) as the file names it. */
typedef struct cg_node {
    uint32_t thread, object, file, name; /* the key: model thread, strings */
    uint32_t first_edge, last_edge;      /* outgoing calls in order, UINT32_MAX = none */
    uint32_t first_self;                 /* its positions, linked, UINT32_MAX = none */
    uint32_t visits;                     /* how many times the expansion placed it */
    bool callee;                         /* some call reaches it */
    bool on_path;                        /* on the expansion's current path */
} cg_node;

/* Self cost of a function at one position: the file (the function's, or an inlined one's
 * from fi=/fe=) and the line. */
typedef struct cg_self {
    uint32_t node, file, line; /* the key */
    uint32_t next;             /* the node's next position */
} cg_self;

/* The calls from one function to another, summed: inclusive cost and count. */
typedef struct cg_edge {
    uint32_t caller, callee; /* the key */
    uint32_t next;           /* the caller's next edge */
    uint64_t calls;
} cg_edge;

typedef struct cg_graph {
    cg_node *nodes;
    size_t node_count, node_cap;
    pk_index node_index;
    cg_self *selfs;
    size_t self_count, self_cap;
    pk_index self_index;
    cg_edge *edges;
    size_t edge_count, edge_cap;
    pk_index edge_index;
    /* Costs, `values` per position and per edge (a file of one event pays for one). */
    int64_t *self_costs, *edge_costs;
    size_t self_costs_cap, edge_costs_cap;
    unsigned values;
} cg_graph;

static inline int64_t *cg_self_cost(const cg_graph *g, size_t self)
{
    return g->self_costs + self * g->values;
}

static inline int64_t *cg_edge_cost(const cg_graph *g, size_t edge)
{
    return g->edge_costs + edge * g->values;
}

void cg_graph_init(cg_graph *g);
void cg_graph_free(cg_graph *g);
/* Makes the costs hold `values` values (at most PK_MAX_VALUES, never fewer than before): a later
 * part may name more events. False when memory runs out. */
bool cg_graph_set_values(cg_graph *g, unsigned values);
/* The node of (thread, object, file, name), added when new; UINT32_MAX when memory runs out. */
uint32_t cg_graph_node(cg_graph *g, uint32_t thread, uint32_t object, uint32_t file,
                       uint32_t name);
/* Adds cost[0..g->values) to node's self cost at (file, line). False when memory runs out. */
bool cg_graph_add_self(cg_graph *g, uint32_t node, uint32_t file, uint32_t line,
                       const int64_t *cost);
/* Adds calls and their inclusive cost to the edge caller -> callee. */
bool cg_graph_add_call(cg_graph *g, uint32_t caller, uint32_t callee, uint64_t calls,
                       const int64_t *cost);

/* What the expansion did, for the reader's warnings. */
typedef struct cg_expansion {
    uint64_t cut_by_limit; /* calls not followed because the expansion reached its size limit */
    uint64_t lines_merged; /* functions whose per-line self cost was merged to keep rows few */
} cg_expansion;

/* Turns the graph into stacks and sample rows of p (whose value types are declared, g->values
 * of them): docs/formats/callgrind.md says how. False when memory runs out. */
bool cg_graph_to_stacks(cg_graph *g, pk_profile *p, cg_expansion *report);

#endif
