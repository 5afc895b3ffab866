/* SPDX-License-Identifier: MIT */
/* A callgrind call graph and its expansion into stacks (graph.h). */
#include "formats/callgrind/graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/path.h"
#include "formats/callgrind/codec.h"

#define NONE32 UINT32_MAX

/* The expansion places at most this many function calls (each a stack); what lies beyond is
 * placed once, as a root. */
#define MAX_VISITS ((size_t)1 << 20)
/* A call whose share of the cost is below this fraction of the largest function total is
 * placed but not followed further (speedscope's threshold). */
#define THRESHOLD 1e-4
/* A function placed V times with L self positions makes V x L rows; above this its positions
 * are merged per file (line 0), and above it again into one. The rows of all functions are
 * kept under a budget the same way, so that no input makes rows without bound. */
#define MAX_LINE_ROWS ((size_t)1 << 16)
#define ROW_BUDGET ((size_t)1 << 23)

void cg_graph_init(cg_graph *g)
{
    memset(g, 0, sizeof *g);
    pk_index_init(&g->node_index);
    pk_index_init(&g->self_index);
    pk_index_init(&g->edge_index);
}

void cg_graph_free(cg_graph *g)
{
    free(g->nodes);
    free(g->selfs);
    free(g->edges);
    free(g->self_costs);
    free(g->edge_costs);
    pk_index_free(&g->node_index);
    pk_index_free(&g->self_index);
    pk_index_free(&g->edge_index);
}

/* The costs of count items at a new stride; *cap counts int64s. */
static bool restride(int64_t **costs, size_t *cap, size_t count, unsigned from, unsigned to)
{
    size_t need = count ? count * to : 1;
    int64_t *grown = calloc(need, sizeof *grown);
    if (!grown)
        return false;
    for (size_t i = 0; i < count; i++)
        memcpy(grown + i * to, *costs + i * from, from * sizeof *grown);
    free(*costs);
    *costs = grown;
    *cap = need;
    return true;
}

bool cg_graph_set_values(cg_graph *g, unsigned values)
{
    if (values <= g->values)
        return true;
    if (!restride(&g->self_costs, &g->self_costs_cap, g->self_count, g->values, values) ||
        !restride(&g->edge_costs, &g->edge_costs_cap, g->edge_count, g->values, values))
        return false;
    g->values = values;
    return true;
}

/* Zeroed costs for item `index`, the next one. */
static bool node_equal(const void *context, uint32_t entry, const void *key)
{
    const cg_node *a = &((const cg_graph *)context)->nodes[entry];
    const uint32_t *k = key;
    return a->thread == k[0] && a->object == k[1] && a->file == k[2] && a->name == k[3];
}

uint32_t cg_graph_node(cg_graph *g, uint32_t thread, uint32_t object, uint32_t file,
                       uint32_t name)
{
    uint32_t key[4] = {thread, object, file, name};
    uint64_t hash = pk_hash_bytes(key, sizeof key);
    uint32_t found = pk_index_find(&g->node_index, hash, node_equal, g, key);
    if (found != UINT32_MAX)
        return found;
    if (g->node_count >= UINT32_MAX - 1 ||
        !PK_ARRAY_RESERVE(g->nodes, g->node_cap, g->node_count + 1))
        return NONE32;
    g->nodes[g->node_count] = (cg_node){thread, object, file, name, NONE32, NONE32, NONE32,
                                        0, false, false};
    if (!pk_index_insert(&g->node_index, hash, (uint32_t)g->node_count))
        return NONE32;
    return (uint32_t)g->node_count++;
}

static void add_costs(int64_t *to, const int64_t *cost, unsigned values)
{
    for (unsigned v = 0; v < values; v++)
        to[v] = pk_add_saturating(to[v], cost[v]);
}

static bool self_equal(const void *context, uint32_t entry, const void *key)
{
    const cg_self *a = &((const cg_graph *)context)->selfs[entry];
    const uint32_t *k = key;
    return a->node == k[0] && a->file == k[1] && a->line == k[2];
}

bool cg_graph_add_self(cg_graph *g, uint32_t node, uint32_t file, uint32_t line,
                       const int64_t *cost)
{
    uint32_t key[3] = {node, file, line};
    uint64_t hash = pk_hash_bytes(key, sizeof key);
    uint32_t found = pk_index_find(&g->self_index, hash, self_equal, g, key);
    if (found == UINT32_MAX) {
        if (g->self_count >= UINT32_MAX - 1 ||
            !PK_ARRAY_RESERVE(g->selfs, g->self_cap, g->self_count + 1) ||
            !cg_costs_add_entry(&g->self_costs, &g->self_costs_cap, g->self_count, g->values))
            return false;
        found = (uint32_t)g->self_count;
        cg_self *s = &g->selfs[found];
        memset(s, 0, sizeof *s);
        s->node = node;
        s->file = file;
        s->line = line;
        /* Prepended: the expansion does not depend on the order of a node's positions. */
        s->next = g->nodes[node].first_self;
        g->nodes[node].first_self = found;
        if (!pk_index_insert(&g->self_index, hash, found))
            return false;
        g->self_count++;
    }
    add_costs(cg_self_cost(g, found), cost, g->values);
    return true;
}

static bool edge_equal(const void *context, uint32_t entry, const void *key)
{
    const cg_edge *a = &((const cg_graph *)context)->edges[entry];
    const uint32_t *k = key;
    return a->caller == k[0] && a->callee == k[1];
}

bool cg_graph_add_call(cg_graph *g, uint32_t caller, uint32_t callee, uint64_t calls,
                       const int64_t *cost)
{
    uint32_t key[2] = {caller, callee};
    uint64_t hash = pk_hash_bytes(key, sizeof key);
    uint32_t found = pk_index_find(&g->edge_index, hash, edge_equal, g, key);
    if (found == UINT32_MAX) {
        if (g->edge_count >= UINT32_MAX - 1 ||
            !PK_ARRAY_RESERVE(g->edges, g->edge_cap, g->edge_count + 1) ||
            !cg_costs_add_entry(&g->edge_costs, &g->edge_costs_cap, g->edge_count, g->values))
            return false;
        found = (uint32_t)g->edge_count;
        cg_edge *e = &g->edges[g->edge_count];
        memset(e, 0, sizeof *e);
        e->caller = caller;
        e->callee = callee;
        e->next = NONE32;
        cg_node *from = &g->nodes[caller];
        if (from->last_edge == NONE32)
            from->first_edge = (uint32_t)g->edge_count;
        else
            g->edges[from->last_edge].next = (uint32_t)g->edge_count;
        from->last_edge = (uint32_t)g->edge_count;
        g->nodes[callee].callee = true;
        if (!pk_index_insert(&g->edge_index, hash, found))
            return false;
        g->edge_count++;
    }
    cg_edge *e = &g->edges[found];
    e->calls = e->calls > UINT64_MAX - calls ? UINT64_MAX : e->calls + calls;
    add_costs(cg_edge_cost(g, found), cost, g->values);
    return true;
}

/* ---- expansion ----------------------------------------------------------------------------- */

/* One placement of a function: where (the stack of its callers) and with what share of each
 * value (its weight). */
typedef struct visit {
    uint32_t node;
    uint32_t callers; /* stack of the callers' frames, PK_NONE at a root */
} visit;

/* A function being expanded: its visit, the stack ending in its own frame (made when a call is
 * first followed: most placements are leaves, whose rows end in frames with lines), the next
 * call. */
typedef struct open_call {
    uint32_t visit, stack, next_edge;
} open_call;

typedef struct expander {
    cg_graph *g;
    pk_profile *p;
    unsigned values;
    double *total;     /* node x value: self + inclusive cost of its calls */
    double threshold[PK_MAX_VALUES];
    visit *visits;
    size_t visit_count, visit_cap;
    double *weights;   /* visit x value */
    size_t weight_cap;
    open_call *path;
    size_t depth, path_cap;
    uint32_t *functions; /* node -> model function of its own file, PK_NONE until made */
    cg_expansion *report;
} expander;

static uint32_t resource_of(pk_profile *p, uint32_t object)
{
    const char *path = pk_str(p, object);
    size_t len = pk_str_len(p, object);
    if (len == 0 || strcmp(path, "???") == 0)
        return PK_NONE;
    size_t base = pk_path_basename_offset(path, len);
    uint32_t name = pk_intern(p, path + base, len - base);
    if (name == PK_NONE)
        return PK_NONE;
    pk_resource r = {.name = name, .path = object, .build_id = 0, .start = 0, .limit = 0,
                     .offset = 0};
    return pk_intern_resource(p, &r);
}

/* The frame of node's function in file at line. */
static uint32_t frame_of(expander *x, uint32_t node, uint32_t file, uint32_t line)
{
    const cg_node *n = &x->g->nodes[node];
    uint32_t function = file == n->file ? x->functions[node] : PK_NONE;
    if (function == PK_NONE) {
        uint32_t resource = resource_of(x->p, n->object);
        /* "???" is callgrind's unknown file. */
        uint32_t known = strcmp(pk_str(x->p, file), "???") == 0 ? 0 : file;
        pk_function f = {.name = n->name, .file = known, .start_line = 0, .resource = resource};
        function = pk_intern_function(x->p, &f);
        if (function == PK_NONE)
            return PK_NONE;
        if (file == n->file)
            x->functions[node] = function;
    }
    pk_frame fr = {.function = function, .line = line, .address = 0,
                   .resource = pk_function_at(x->p, function)->resource, .flags = 0};
    return pk_intern_frame(x->p, &fr);
}

/* Places node under the stack callers with the given weights and opens it. False when
 * memory runs out. */
static bool enter(expander *x, uint32_t node, uint32_t callers, const double *weights)
{
    if (!PK_ARRAY_RESERVE(x->visits, x->visit_cap, x->visit_count + 1) ||
        !PK_ARRAY_RESERVE(x->weights, x->weight_cap, (x->visit_count + 1) * x->values) ||
        !PK_ARRAY_RESERVE(x->path, x->path_cap, x->depth + 1))
        return false;
    size_t v = x->visit_count++;
    x->visits[v] = (visit){node, callers};
    memcpy(x->weights + v * x->values, weights, x->values * sizeof *weights);
    x->g->nodes[node].visits++;
    x->g->nodes[node].on_path = true;
    x->path[x->depth++] = (open_call){(uint32_t)v, PK_NONE, x->g->nodes[node].first_edge};
    return true;
}

/* Expands from root: every call followed with the caller's weight times the call's share of
 * the caller's total, until a function already on the path, a share below the threshold, or
 * the size limit. */
static bool expand(expander *x, uint32_t root)
{
    const cg_graph *g = x->g;
    double weights[PK_MAX_VALUES];
    for (unsigned v = 0; v < x->values; v++)
        weights[v] = x->total[(size_t)root * x->values + v];
    if (!enter(x, root, PK_NONE, weights))
        return false;
    while (x->depth > 0) {
        open_call *open = &x->path[x->depth - 1];
        uint32_t caller = x->visits[open->visit].node;
        bool below_threshold = true;
        for (unsigned v = 0; v < x->values; v++)
            if (x->weights[(size_t)open->visit * x->values + v] >= x->threshold[v] &&
                x->weights[(size_t)open->visit * x->values + v] > 0)
                below_threshold = false;
        if (open->next_edge == NONE32 || below_threshold) {
            x->g->nodes[caller].on_path = false;
            x->depth--;
            continue;
        }
        const cg_edge *e = &g->edges[open->next_edge];
        const int64_t *edge_cost = cg_edge_cost(g, open->next_edge);
        open->next_edge = e->next;
        if (g->nodes[e->callee].on_path)
            continue; /* recursion: the cycle's cost stays with the function already open */
        bool any = false;
        for (unsigned v = 0; v < x->values; v++) {
            double total = x->total[(size_t)caller * x->values + v];
            double w = x->weights[(size_t)open->visit * x->values + v];
            weights[v] = total > 0 ? w * ((double)edge_cost[v] / total) : 0;
            any |= weights[v] > 0;
        }
        if (!any)
            continue;
        if (x->visit_count >= MAX_VISITS) {
            x->report->cut_by_limit++;
            continue;
        }
        if (open->stack == PK_NONE) {
            const visit *v = &x->visits[open->visit];
            uint32_t frame = frame_of(x, caller, g->nodes[caller].file, 0);
            open->stack = frame == PK_NONE ? PK_NONE : pk_intern_stack(x->p, v->callers, frame);
            if (open->stack == PK_NONE)
                return false;
        }
        if (!enter(x, e->callee, open->stack, weights))
            return false;
    }
    return true;
}

/* The self positions of a node, merged per file when they would make too many rows. */
typedef struct position {
    uint32_t file, line;
    const int64_t *cost;
} position;

/* Adds each value of a node's self cost at one position to the rows of the node's visits,
 * in proportion to their weights, so that the rows sum exactly to the cost. */
static bool place_self(expander *x, const uint32_t *visits, size_t count, const double *sums,
                       const position *at)
{
    /* Rows' stacks, made when a visit first gets some of the cost. */
    uint32_t rows_stack[64];
    uint32_t *stacks = count <= 64 ? rows_stack : malloc(count * sizeof *stacks);
    if (!stacks)
        return false;
    for (size_t i = 0; i < count; i++)
        stacks[i] = PK_NONE;
    bool ok = true;
    for (unsigned value = 0; value < x->values && ok; value++) {
        int64_t cost = at->cost[value];
        if (cost == 0)
            continue;
        /* Weights of this value, else of the first value that has some, else equal. */
        unsigned by = value;
        while (by < x->values && sums[by] <= 0)
            by++;
        if (by == x->values)
            for (by = 0; by < x->values && sums[by] <= 0; by++)
                ;
        long double sum = by < x->values ? sums[by] : (long double)count;
        long double acc = 0;
        int64_t placed = 0;
        for (size_t i = 0; i < count; i++) {
            acc += by < x->values ? x->weights[(size_t)visits[i] * x->values + by] : 1;
            int64_t upto = cost;
            if (i + 1 < count) {
                long double share = acc / sum;
                upto = (int64_t)llroundl((long double)cost * (share > 1 ? 1 : share));
                upto = upto < placed ? placed : upto > cost ? cost : upto;
            }
            if (upto != placed) {
                const visit *v = &x->visits[visits[i]];
                if (stacks[i] == PK_NONE) {
                    uint32_t frame = frame_of(x, v->node, at->file, at->line);
                    stacks[i] = frame == PK_NONE ? PK_NONE
                                                 : pk_intern_stack(x->p, v->callers, frame);
                    if (stacks[i] == PK_NONE) {
                        ok = false;
                        break;
                    }
                }
                size_t row = pk_sample_row(x->p, x->g->nodes[v->node].thread, stacks[i]);
                if (row == SIZE_MAX) {
                    ok = false;
                    break;
                }
                pk_sample_row_add(x->p, row, value, upto - placed);
                placed = upto;
            }
        }
    }
    if (stacks != rows_stack)
        free(stacks);
    return ok;
}

/* Places every node's self cost over its visits. */
static bool place_all_self(expander *x)
{
    cg_graph *g = x->g;
    size_t *first = calloc(g->node_count + 1, sizeof *first);
    uint32_t *by_node = malloc((x->visit_count ? x->visit_count : 1) * sizeof *by_node);
    position *merged = NULL;
    size_t merged_cap = 0;
    bool ok = first && by_node;
    if (ok) {
        for (size_t n = 0; n < g->node_count; n++)
            first[n + 1] = first[n] + g->nodes[n].visits;
        /* first[n] is advanced to node n's end while filling, then moved back. */
        /* Every visit is of a node whose count holds it: the positions stay below the
         * total, which is the number of visits. */
        ok = first[g->node_count] == x->visit_count;
        for (size_t v = 0; ok && v < x->visit_count; v++) {
            size_t *at = &first[x->visits[v].node];
            if (*at >= x->visit_count)
                ok = false;
            else
                by_node[(*at)++] = (uint32_t)v;
        }
        for (size_t n = g->node_count; n > 0; n--)
            first[n] = first[n - 1];
        first[0] = 0;
    }
    int64_t *merged_costs = NULL;
    size_t merged_costs_cap = 0;
    size_t rows = 0; /* planned so far, against ROW_BUDGET */
    for (size_t n = 0; n < g->node_count && ok; n++) {
        const cg_node *node = &g->nodes[n];
        if (node->first_self == NONE32 || node->visits == 0)
            continue;
        if (first[n + 1] - first[n] != node->visits || first[n + 1] > x->visit_count) {
            ok = false; /* the counts above make this impossible; said for the analyzer */
            break;
        }
        const uint32_t *visits = by_node + first[n];
        double sums[PK_MAX_VALUES] = {0};
        for (uint32_t i = 0; i < node->visits; i++)
            for (unsigned v = 0; v < x->values; v++)
                sums[v] += x->weights[(size_t)visits[i] * x->values + v];
        size_t positions = 0;
        for (uint32_t s = node->first_self; s != NONE32; s = g->selfs[s].next)
            positions++;
        size_t visits_n = node->visits;
        if (positions <= 1 ||
            (visits_n * positions <= MAX_LINE_ROWS && rows + visits_n * positions <= ROW_BUDGET)) {
            rows += visits_n * positions;
            for (uint32_t s = node->first_self; s != NONE32 && ok; s = g->selfs[s].next) {
                position at = {g->selfs[s].file, g->selfs[s].line, cg_self_cost(g, s)};
                ok = place_self(x, visits, node->visits, sums, &at);
            }
            continue;
        }
        /* One position per file, line 0; or one for the function, in its own file. */
        x->report->lines_merged++;
        size_t files = 0;
        pk_u64map file_index;
        pk_u64map_init(&file_index);
        for (uint32_t s = node->first_self; s != NONE32 && ok; s = g->selfs[s].next) {
            uint32_t *slot;
            bool inserted;
            if (!pk_u64map_put(&file_index, g->selfs[s].file, (uint32_t)files, &slot, &inserted)) {
                ok = false;
                break;
            }
            size_t f = *slot;
            if (inserted) {
                size_t need = (files + 1) * x->values;
                if (!PK_ARRAY_RESERVE(merged, merged_cap, files + 1) ||
                    !PK_ARRAY_RESERVE(merged_costs, merged_costs_cap, need)) {
                    ok = false;
                    break;
                }
                memset(merged_costs + f * x->values, 0, x->values * sizeof *merged_costs);
                merged[f] = (position){g->selfs[s].file, 0, NULL};
                files++;
            }
            add_costs(merged_costs + f * x->values, cg_self_cost(g, s), x->values);
        }
        pk_u64map_free(&file_index);
        if (ok && files > 1 &&
            (visits_n * files > MAX_LINE_ROWS || rows + visits_n * files > ROW_BUDGET)) {
            for (size_t f = 1; f < files; f++)
                add_costs(merged_costs, merged_costs + f * x->values, x->values);
            merged[0].file = node->file;
            files = 1;
        }
        rows += visits_n * files;
        for (size_t f = 0; f < files && ok; f++) {
            merged[f].cost = merged_costs + f * x->values;
            ok = place_self(x, visits, node->visits, sums, &merged[f]);
        }
    }
    free(merged);
    free(merged_costs);
    free(first);
    free(by_node);
    return ok;
}

/* The calls= counts of every edge whose two functions the expansion made (as frames in their
 * own files), so that a writer of call counts writes the file's own: the stacks say only that
 * a call happened. */
static bool add_call_edges(expander *x)
{
    const cg_graph *g = x->g;
    for (size_t e = 0; e < g->edge_count; e++) {
        uint32_t caller = x->functions[g->edges[e].caller];
        uint32_t callee = x->functions[g->edges[e].callee];
        if (caller == PK_NONE || callee == PK_NONE)
            continue;
        pk_status status = pk_add_call_edge(x->p, caller, callee, g->edges[e].calls);
        if (status != PK_OK)
            return false;
    }
    return true;
}

bool cg_graph_to_stacks(cg_graph *g, pk_profile *p, cg_expansion *report)
{
    memset(report, 0, sizeof *report);
    if (g->values == 0)
        return true; /* no events, no cost */
    expander x;
    memset(&x, 0, sizeof x);
    x.g = g;
    x.p = p;
    x.values = g->values;
    x.report = report;
    size_t nodes = g->node_count ? g->node_count : 1;
    x.total = calloc(nodes * x.values, sizeof *x.total);
    x.functions = malloc(nodes * sizeof *x.functions);
    bool ok = x.total && x.functions;
    if (ok) {
        memset(x.functions, 0xff, nodes * sizeof *x.functions);
        for (size_t s = 0; s < g->self_count; s++)
            for (unsigned v = 0; v < x.values; v++)
                x.total[(size_t)g->selfs[s].node * x.values + v] += (double)cg_self_cost(g, s)[v];
        for (size_t e = 0; e < g->edge_count; e++)
            for (unsigned v = 0; v < x.values; v++)
                x.total[(size_t)g->edges[e].caller * x.values + v] += (double)cg_edge_cost(g, e)[v];
        for (unsigned v = 0; v < x.values; v++) {
            double largest = 0;
            for (size_t n = 0; n < g->node_count; n++)
                largest = fmax(largest, x.total[n * x.values + v]);
            x.threshold[v] = largest * THRESHOLD;
        }
        /* Roots first (functions nothing calls), in order of appearance; then every function
         * the expansion did not reach (cycles nothing enters, calls below the threshold or
         * beyond the limit) as a root of its own, so that every self cost is placed. */
        for (size_t n = 0; n < g->node_count && ok; n++)
            if (!g->nodes[n].callee)
                ok = expand(&x, (uint32_t)n);
        for (size_t n = 0; n < g->node_count && ok; n++) {
            if (g->nodes[n].visits > 0)
                continue;
            bool costs = false;
            for (unsigned v = 0; v < x.values; v++)
                costs |= x.total[n * x.values + v] != 0;
            if (costs)
                ok = expand(&x, (uint32_t)n);
        }
    }
    ok = ok && place_all_self(&x) && add_call_edges(&x);
    free(x.total);
    free(x.functions);
    free(x.visits);
    free(x.weights);
    free(x.path);
    return ok;
}
