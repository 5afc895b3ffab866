/* SPDX-License-Identifier: MIT */
/* The callgrind writer: a profile's stacks as a call graph that KCachegrind and
 * callgrind_annotate read. Documented in docs/formats/callgrind.md.
 *
 * Every value type is an event. A row's values are the self cost of its leaf frame's function
 * at the frame's line, and the inclusive cost of every call along its stack (a call that
 * recurs within one stack counted once). A call's count is the profile's own: its call edges
 * (a call graph's counts), else its `calls` value, else 1. Threads are summed into one part. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/hashmap.h"
#include "core/output.h"
#include "core/stack_tree.h"
#include "core/title.h"
#include "core/units.h"
#include "formats/callgrind/callgrind.h"
#include "formats/callgrind/codec.h"
#include "profkit/version.h"

/* Self cost of one function at one line; its costs are the writer's self_costs at costs
 * (the entry's place before sorting). */
typedef struct out_self {
    uint32_t function, line; /* the key */
    uint32_t costs;
} out_self;

/* The calls from one function at one line to another; costs as out_self's, in call_costs. */
typedef struct out_call {
    uint32_t caller, line, callee; /* the key */
    uint32_t costs;
    uint64_t count;                /* the profile's own call count (its `calls` value) */
    uint32_t on_path;              /* times on the path of the walk over the stacks (collect) */
} out_call;

typedef struct cg_writer {
    const pk_profile *p;
    unsigned values;
    out_self *selfs;
    size_t self_count, self_cap;
    int64_t *self_costs, *call_costs; /* `values` per entry */
    size_t self_costs_cap, call_costs_cap;
    pk_u64map self_index; /* function << 32 | line -> self */
    out_call *calls;
    size_t call_count, call_cap;
    pk_index call_index;
    uint32_t calls_value; /* the value counting calls into a row's leaf, PK_NONE without one */
    /* The counted callee of each (caller, callee name, callee resource) of the profile's call
     * edges (find_targets), for a profile read from a call graph. */
    struct call_target {
        uint32_t caller, name, resource, callee; /* callee PK_NONE: two callees share the key */
    } *targets;
    size_t target_count, target_cap;
    pk_index target_index;
    /* For a profile with call edges: the costs of the rows of each function at the root of
     * stacks (function -> its entry in root_costs, `values` each), given to the counted calls
     * into it that no stack makes (apply_call_edges). */
    pk_u64map root_index;
    int64_t *root_costs;
    size_t root_count, root_costs_cap;
    pk_u64map defined[CG_NS_COUNT]; /* string -> compressed id */
    int64_t totals[PK_MAX_VALUES];
} cg_writer;

static void writer_free(cg_writer *w)
{
    free(w->selfs);
    free(w->calls);
    free(w->self_costs);
    free(w->call_costs);
    pk_u64map_free(&w->self_index);
    pk_index_free(&w->call_index);
    free(w->targets);
    pk_index_free(&w->target_index);
    pk_u64map_free(&w->root_index);
    free(w->root_costs);
    for (int i = 0; i < CG_NS_COUNT; i++)
        pk_u64map_free(&w->defined[i]);
}

static void add_costs(int64_t *to, const int64_t *values, unsigned count)
{
    /* callgrind's costs are unsigned: what is below zero is left out. */
    for (unsigned v = 0; v < count; v++)
        if (values[v] > 0)
            to[v] = pk_add_saturating(to[v], values[v]);
}

static bool add_self(cg_writer *w, uint32_t function, uint32_t line, const int64_t *values)
{
    uint32_t *slot;
    bool inserted;
    uint64_t key = (uint64_t)function << 32 | line;
    if (!pk_u64map_put(&w->self_index, key, (uint32_t)w->self_count, &slot, &inserted))
        return false;
    if (inserted) {
        if (!PK_ARRAY_RESERVE(w->selfs, w->self_cap, w->self_count + 1) ||
            !cg_costs_add_entry(&w->self_costs, &w->self_costs_cap, w->self_count, w->values)) {
            pk_u64map_remove(&w->self_index, key, NULL);
            return false;
        }
        w->selfs[w->self_count] = (out_self){function, line, (uint32_t)w->self_count};
        w->self_count++;
    }
    add_costs(w->self_costs + (size_t)w->selfs[*slot].costs * w->values, values, w->values);
    add_costs(w->totals, values, w->values);
    return true;
}

static bool call_equal(const void *context, uint32_t entry, const void *key)
{
    const out_call *c = &((const cg_writer *)context)->calls[entry];
    const uint32_t *k = key;
    return c->caller == k[0] && c->line == k[1] && c->callee == k[2];
}

static bool target_equal(const void *context, uint32_t entry, const void *key)
{
    const struct call_target *t = &((const cg_writer *)context)->targets[entry];
    const uint32_t *k = key;
    return t->caller == k[0] && t->name == k[1] && t->resource == k[2];
}

/* The target entry of (caller, name, resource), made when new (callee PK_NONE) if make; NULL
 * when absent, or when memory runs out. */
static struct call_target *target_entry(cg_writer *w, uint32_t caller, uint32_t name,
                                        uint32_t resource, bool make)
{
    uint32_t key[3] = {caller, name, resource};
    uint64_t hash = pk_hash_bytes(key, sizeof key);
    uint32_t entry = pk_index_find(&w->target_index, hash, target_equal, w, key);
    if (entry != UINT32_MAX)
        return &w->targets[entry];
    if (!make || w->target_count >= UINT32_MAX - 1 ||
        !PK_ARRAY_RESERVE(w->targets, w->target_cap, w->target_count + 1) ||
        !pk_index_insert(&w->target_index, hash, (uint32_t)w->target_count))
        return NULL;
    w->targets[w->target_count] = (struct call_target){caller, name, resource, PK_NONE};
    return &w->targets[w->target_count++];
}

/* The targets of the profile's call edges. A call graph's function is one function in every
 * file it has code in, where the model has one function per file (code inlined from another
 * file is a function of the same name in that file): a call into such a part is the call
 * into the function itself, which the edge counts. */
static bool find_targets(cg_writer *w)
{
    const pk_profile *p = w->p;
    for (size_t i = 0; i < pk_call_edge_count(p); i++) {
        const pk_call_edge *e = pk_call_edge_at(p, i);
        const pk_function *callee = pk_function_at(p, e->callee);
        bool is_new = !target_entry(w, e->caller, callee->name, callee->resource, false);
        struct call_target *t = target_entry(w, e->caller, callee->name, callee->resource, true);
        if (!t)
            return false;
        t->callee = is_new ? e->callee : PK_NONE; /* two of one name: which one is unknown */
    }
    return true;
}

/* The function a call from caller into callee is written as calling: callee, or the counted
 * function whose part in another file callee is. */
static uint32_t call_target(cg_writer *w, uint32_t caller, uint32_t callee)
{
    if (w->target_count == 0 || pk_find_call_edge(w->p, caller, callee))
        return callee;
    const pk_function *f = pk_function_at(w->p, callee);
    const struct call_target *t = target_entry(w, caller, f->name, f->resource, false);
    return t && t->callee != PK_NONE ? t->callee : callee;
}

/* The call's entry, made when new; UINT32_MAX when memory runs out. */
static uint32_t call_entry(cg_writer *w, uint32_t caller, uint32_t line, uint32_t callee)
{
    uint32_t key[3] = {caller, line, callee};
    uint64_t hash = pk_hash_bytes(key, sizeof key);
    uint32_t entry = pk_index_find(&w->call_index, hash, call_equal, w, key);
    if (entry != UINT32_MAX)
        return entry;
    if (w->call_count >= UINT32_MAX - 1 ||
        !PK_ARRAY_RESERVE(w->calls, w->call_cap, w->call_count + 1) ||
        !cg_costs_add_entry(&w->call_costs, &w->call_costs_cap, w->call_count, w->values))
        return UINT32_MAX;
    entry = (uint32_t)w->call_count;
    w->calls[entry] = (out_call){caller, line, callee, entry, 0, 0};
    if (!pk_index_insert(&w->call_index, hash, entry))
        return UINT32_MAX;
    w->call_count++;
    return entry;
}

/* What the walk over the tree of stacks sums per stack, and the calls on its path. */
typedef struct stack_sums {
    cg_writer *w;
    int64_t *below;     /* `values` per stack: the costs of the rows of the stack and of every
                         * stack extending it, what is below zero left out */
    uint64_t *calls;    /* the calls into the stack's leaf: its own rows' `calls` value */
    uint32_t *path;     /* the call entry of every frame on the walked path (UINT32_MAX: none) */
    size_t path_count, path_cap;
} stack_sums;

static void stack_sums_free(stack_sums *t)
{
    free(t->below);
    free(t->calls);
    free(t->path);
}

static void fold_into_prefix(void *context, uint32_t stack, uint32_t prefix)
{
    stack_sums *t = context;
    unsigned values = t->w->values;
    add_costs(t->below + (size_t)prefix * values, t->below + (size_t)stack * values, values);
}

/* Enters a stack's run: each frame's call from the frame before it gets the costs below the
 * stack when the call is not on the path already, so a row counts in a call once however often
 * the call recurs in its stack. */
static bool enter_run(void *context, uint32_t stack)
{
    stack_sums *t = context;
    cg_writer *w = t->w;
    const pk_profile *p = w->p;
    uint32_t prefix;
    const uint32_t *frames;
    size_t length = pk_stack_run(p, stack, &prefix, &frames);
    if (!PK_ARRAY_RESERVE(t->path, t->path_cap, t->path_count + length))
        return false;
    if (prefix == PK_NONE && length > 0 && pk_call_edge_count(p) > 0) {
        /* A root: what is below it is its first function's cost as a root. */
        uint32_t *slot;
        bool inserted;
        uint32_t function = pk_frame_at(p, frames[0])->function;
        if (!pk_u64map_put(&w->root_index, function, (uint32_t)w->root_count, &slot, &inserted))
            return false;
        if (inserted &&
            !cg_costs_add_entry(&w->root_costs, &w->root_costs_cap, w->root_count++, w->values))
            return false;
        add_costs(w->root_costs + (size_t)*slot * w->values, t->below + (size_t)stack * w->values,
                  w->values);
    }
    uint32_t previous = pk_stack_leaf(p, prefix);
    for (size_t i = 0; i < length; previous = frames[i++]) {
        uint32_t entry = UINT32_MAX;
        if (previous != PK_NONE) {
            const pk_frame *caller = pk_frame_at(p, previous);
            const pk_frame *callee = pk_frame_at(p, frames[i]);
            entry = call_entry(w, caller->function, caller->line,
                               call_target(w, caller->function, callee->function));
            if (entry == UINT32_MAX)
                return false;
            out_call *c = &w->calls[entry];
            /* The stack's own rows count the calls into its leaf, the run's last frame; every
             * one is a call, recursive or not. */
            if (i + 1 == length)
                c->count = c->count > UINT64_MAX - t->calls[stack] ? UINT64_MAX
                                                                   : c->count + t->calls[stack];
            if (c->on_path++ == 0) {
                add_costs(w->call_costs + (size_t)c->costs * w->values,
                          t->below + (size_t)stack * w->values, w->values);
            }
        }
        t->path[t->path_count++] = entry;
    }
    return true;
}

static void leave_run(void *context, uint32_t stack)
{
    stack_sums *t = context;
    cg_writer *w = t->w;
    uint32_t prefix;
    const uint32_t *frames;
    for (size_t length = pk_stack_run(w->p, stack, &prefix, &frames); length > 0; length--) {
        uint32_t entry = t->path[--t->path_count];
        if (entry != UINT32_MAX)
            w->calls[entry].on_path--;
    }
}

/* Collects the self costs of every row, and the calls along the stacks in one walk over the
 * tree of stacks rather than along each row's frames, which would cost the depth of every
 * stack. */
static bool collect(cg_writer *w)
{
    const pk_profile *p = w->p;
    size_t rows = pk_sample_count(p), stacks = pk_stack_count(p);
    stack_sums t = {
        .w = w,
        .below = stacks <= SIZE_MAX / sizeof(int64_t) / w->values
                     ? calloc(stacks ? stacks * w->values : 1, sizeof *t.below)
                     : NULL,
        .calls = calloc(stacks ? stacks : 1, sizeof *t.calls),
    };
    pk_stack_tree tree;
    bool ok = pk_stack_tree_init(&tree, p) && t.below && t.calls;
    for (size_t row = 0; ok && row < rows; row++) {
        uint32_t stack = pk_sample_stack(p, row);
        if (stack >= stacks)
            continue; /* no function to give the cost to */
        const int64_t *values = pk_sample_values(p, row);
        const pk_frame *leaf = pk_frame_at(p, pk_stack_leaf(p, stack));
        ok = add_self(w, leaf->function, leaf->line, values);
        add_costs(t.below + (size_t)stack * w->values, values, w->values);
        pk_stack_tree_use(&tree, stack);
        if (w->calls_value != PK_NONE && values[w->calls_value] > 0)
            t.calls[stack] += (uint64_t)values[w->calls_value];
    }
    if (ok) {
        pk_stack_tree_link(&tree, fold_into_prefix, &t);
        ok = pk_stack_tree_walk(&tree, enter_run, leave_run, &t);
    }
    pk_stack_tree_free(&tree);
    stack_sums_free(&t);
    return ok;
}

static int compare_call(const void *a, const void *b);

/* The call counts of a profile that has them per function pair (a call graph's own: the
 * callgrind reader's): they replace what the stacks say. A counted call that no stack makes
 * (the expansion of a call graph into stacks cuts recursion and calls too small to follow) is
 * written too, so that every count is the graph's, at line 0: without cost where the callee is
 * called in the stacks as well (its cost is there) and for a function calling itself; where the
 * stacks have the callee only as a root, the calls into it share its cost as a root in
 * proportion to their counts, since KCachegrind takes the cost of the calls into a function
 * for its inclusive cost. A pair called from several lines of its caller has its count divided
 * among them evenly (each line's call written at least once, below); a call graph's own
 * callers have one line each. Sorts the calls, as they are written. */
static bool apply_call_edges(cg_writer *w)
{
    const pk_profile *p = w->p;
    size_t edges = pk_call_edge_count(p);
    pk_u64map lines, seen; /* pair -> its calls' lines; pair -> the lines given their share */
    pk_u64map called, cut; /* callee -> 1: called in the stacks; callee -> its cut calls' entry */
    uint64_t *cut_calls = NULL; /* per entry of cut: the calls, then those given their cost */
    size_t cut_count = 0, cut_cap = 0;
    pk_u64map_init(&lines);
    pk_u64map_init(&seen);
    pk_u64map_init(&called);
    pk_u64map_init(&cut);
    bool ok = true;
    uint32_t *slot;
    bool inserted;
    for (size_t i = 0; ok && edges > 0 && i < w->call_count; i++) {
        ok = pk_u64map_put(&lines, (uint64_t)w->calls[i].caller << 32 | w->calls[i].callee, 0,
                           &slot, &inserted) &&
             pk_u64map_put(&called, w->calls[i].callee, 1, &slot, &inserted);
        if (ok)
            ++*pk_u64map_find(&lines, (uint64_t)w->calls[i].caller << 32 | w->calls[i].callee);
    }
    /* The calls no stack makes into each function that the stacks have only as a root. */
    for (size_t i = 0; ok && i < edges; i++) {
        const pk_call_edge *e = pk_call_edge_at(p, i);
        if (e->calls == 0 || e->caller == e->callee ||
            pk_u64map_find(&lines, (uint64_t)e->caller << 32 | e->callee) ||
            pk_u64map_find(&called, e->callee) || !pk_u64map_find(&w->root_index, e->callee))
            continue;
        ok = pk_u64map_put(&cut, e->callee, (uint32_t)cut_count, &slot, &inserted);
        if (!ok)
            break;
        size_t at = *slot;
        if (inserted) {
            ok = PK_ARRAY_RESERVE(cut_calls, cut_cap, 2 * (cut_count + 1));
            if (!ok)
                break;
            cut_calls[2 * at] = cut_calls[2 * at + 1] = 0;
            cut_count++;
        }
        if (!cut_calls || at >= cut_count) {
            ok = false; /* every entry of cut has its calls; said for the analyzer */
            break;
        }
        uint64_t *total = &cut_calls[2 * at];
        *total = *total > UINT64_MAX - e->calls ? UINT64_MAX : *total + e->calls;
    }
    for (size_t i = 0; ok && i < edges; i++) {
        const pk_call_edge *e = pk_call_edge_at(p, i);
        uint64_t key = (uint64_t)e->caller << 32 | e->callee;
        if (e->calls == 0 || pk_u64map_find(&lines, key))
            continue;
        uint32_t entry = call_entry(w, e->caller, 0, e->callee);
        ok = entry != UINT32_MAX && pk_u64map_put(&lines, key, 1, &slot, &inserted);
        const uint32_t *share = ok && e->caller != e->callee ? pk_u64map_find(&cut, e->callee)
                                                             : NULL;
        if (!share || !cut_calls || *share >= cut_count)
            continue;
        /* Its share of the root's cost: whole units, the shares summing to the cost. */
        uint64_t total = cut_calls[2 * (size_t)*share], *before = &cut_calls[2 * (size_t)*share + 1];
        uint64_t after = *before > total - e->calls ? total : *before + e->calls;
        const int64_t *root = w->root_costs +
                              (size_t)*pk_u64map_find(&w->root_index, e->callee) * w->values;
        int64_t *cost = w->call_costs + (size_t)w->calls[entry].costs * w->values;
        for (unsigned v = 0; v < w->values; v++) {
            long double whole = (long double)root[v];
            cost[v] = (int64_t)llroundl(whole * ((long double)after / (long double)total)) -
                      (int64_t)llroundl(whole * ((long double)*before / (long double)total));
        }
        *before = after;
    }
    if (ok && w->call_count > 1)
        qsort(w->calls, w->call_count, sizeof *w->calls, compare_call);
    for (size_t i = 0; ok && edges > 0 && i < w->call_count; i++) {
        out_call *c = &w->calls[i];
        const pk_call_edge *edge = pk_find_call_edge(p, c->caller, c->callee);
        if (!edge)
            continue;
        uint64_t key = (uint64_t)c->caller << 32 | c->callee;
        ok = pk_u64map_put(&seen, key, 0, &slot, &inserted);
        if (!ok)
            break;
        uint64_t share = (uint64_t)*pk_u64map_find(&lines, key);
        c->count = edge->calls / share + ((uint64_t)*slot < edge->calls % share);
        ++*slot;
    }
    pk_u64map_free(&lines);
    pk_u64map_free(&seen);
    pk_u64map_free(&called);
    pk_u64map_free(&cut);
    free(cut_calls);
    return ok;
}

/* ---- output -------------------------------------------------------------------------------- */

/* A name as callgrind lines can hold it: a line end or NUL would end or break the line. */
static void write_name_text(pk_output *out, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        pk_out_putc(out, c == '\n' || c == '\r' || c == '\0' ? '_' : c);
    }
}

/* `key=(N) name` the first time a string is named in its namespace, `key=(N)` after. */
static bool write_spec(cg_writer *w, pk_output *out, const char *key, cg_namespace ns,
                       uint32_t string, const char *fallback)
{
    pk_out_puts(out, key);
    uint32_t *slot;
    bool inserted;
    uint32_t id = (uint32_t)w->defined[ns].count + 1;
    if (!pk_u64map_put(&w->defined[ns], string, id, &slot, &inserted))
        return false;
    pk_out_printf(out, "(%u)", *slot);
    if (inserted) {
        const char *s = string == PK_NONE ? fallback : pk_str(w->p, string);
        size_t len = string == PK_NONE ? strlen(fallback) : pk_str_len(w->p, string);
        /* Blanks around a name are not part of it when read: an empty one is "???". */
        size_t start = 0;
        while (start < len && (s[start] == ' ' || s[start] == '\t'))
            start++;
        while (len > start && (s[len - 1] == ' ' || s[len - 1] == '\t'))
            len--;
        pk_out_putc(out, ' ');
        if (len > start)
            write_name_text(out, s + start, len - start);
        else
            pk_out_puts(out, "???");
    }
    pk_out_putc(out, '\n');
    return true;
}

/* The object of a function: its resource's path, else its name; PK_NONE for none. */
static uint32_t object_of(const pk_profile *p, uint32_t function)
{
    uint32_t resource = pk_function_at(p, function)->resource;
    if (resource == PK_NONE)
        return PK_NONE;
    const pk_resource *r = pk_resource_at(p, resource);
    return r->path ? r->path : r->name ? r->name : PK_NONE;
}

static uint32_t file_of(const pk_profile *p, uint32_t function)
{
    uint32_t file = pk_function_at(p, function)->file;
    return file ? file : PK_NONE;
}

static void write_costs(cg_writer *w, pk_output *out, uint32_t line, const int64_t *cost)
{
    pk_out_u64(out, line);
    unsigned last = w->values;
    while (last > 0 && cost[last - 1] == 0)
        last--; /* trailing zero costs are left out, as callgrind writes them */
    for (unsigned v = 0; v < last; v++) {
        pk_out_putc(out, ' ');
        pk_out_i64(out, cost[v]);
    }
    pk_out_putc(out, '\n');
}

/* Event names as `events:` lists them (blank-separated): characters other than letters,
 * digits and '_' become '_', an empty name is valueN, and a name equal to an earlier one gets
 * its value's number, so that every value reads back as an event of its own. The names stay
 * plain: a time or size unit goes into an `event:` line (write_event_units). */
#define EVENT_NAME_MAX 96

static void event_names(const pk_profile *p, unsigned values, char names[][EVENT_NAME_MAX])
{
    for (unsigned v = 0; v < values; v++) {
        const pk_value_type *t = pk_value_type_at(p, v);
        const char *name = pk_str(p, t->name);
        size_t n = 0;
        for (const char *c = name; *c && n < 48; c++) {
            bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                         (*c >= '0' && *c <= '9') || *c == '_';
            names[v][n++] = plain ? *c : '_';
        }
        names[v][n] = '\0';
        if (n == 0)
            snprintf(names[v], EVENT_NAME_MAX, "value%u", v + 1);
        for (unsigned earlier = 0; earlier < v; earlier++) {
            if (strcmp(names[earlier], names[v]) != 0)
                continue;
            size_t len = strlen(names[v]);
            snprintf(names[v] + len, EVENT_NAME_MAX - len, "_%u", v + 1);
            earlier = (unsigned)-1; /* compare again from the first */
        }
    }
}

/* `event: NAME : NAME (UNIT)` for each time or size value: the format's long name of an event,
 * which KCachegrind shows and callgrind_annotate reads past, and from which profkit's reader
 * takes the unit back. */
static void write_event_units(const pk_profile *p, pk_output *out, unsigned values,
                              char names[][EVENT_NAME_MAX])
{
    for (unsigned v = 0; v < values; v++) {
        pk_unit_info unit = pk_unit_lookup(pk_str(p, pk_value_type_at(p, v)->unit));
        if (unit.kind != PK_UNIT_OTHER && unit.canonical)
            pk_out_printf(out, "event: %s : %s (%s)\n", names[v], names[v], unit.canonical);
    }
}

static int compare_self(const void *a, const void *b)
{
    const out_self *x = a, *y = b;
    if (x->function != y->function)
        return x->function < y->function ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

static int compare_call(const void *a, const void *b)
{
    const out_call *x = a, *y = b;
    if (x->caller != y->caller)
        return x->caller < y->caller ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return (x->callee > y->callee) - (x->callee < y->callee);
}

static bool write_body(cg_writer *w, pk_output *out)
{
    const pk_profile *p = w->p;
    /* One block per function, in the model's order: its self costs by line, then its calls. */
    if (w->self_count > 1)
        qsort(w->selfs, w->self_count, sizeof *w->selfs, compare_self);
    size_t s = 0, c = 0; /* the calls are sorted (apply_call_edges) */
    uint32_t object = PK_NONE, file = PK_NONE;
    bool first = true;
    while (s < w->self_count || c < w->call_count) {
        uint32_t function = s < w->self_count ? w->selfs[s].function : UINT32_MAX;
        if (c < w->call_count && w->calls[c].caller < function)
            function = w->calls[c].caller;
        uint32_t fobject = object_of(p, function), ffile = file_of(p, function);
        pk_out_putc(out, '\n');
        if ((first || fobject != object) &&
            !write_spec(w, out, "ob=", CG_NS_OBJECT, fobject, "???"))
            return false;
        if ((first || ffile != file) && !write_spec(w, out, "fl=", CG_NS_FILE, ffile, "???"))
            return false;
        object = fobject;
        file = ffile;
        first = false;
        if (!write_spec(w, out, "fn=", CG_NS_FUNCTION, pk_function_at(p, function)->name, "???"))
            return false;
        for (; s < w->self_count && w->selfs[s].function == function; s++)
            write_costs(w, out, w->selfs[s].line,
                        w->self_costs + (size_t)w->selfs[s].costs * w->values);
        for (; c < w->call_count && w->calls[c].caller == function; c++) {
            const out_call *call = &w->calls[c];
            uint32_t cobject = object_of(p, call->callee), cfile = file_of(p, call->callee);
            if (cobject != object && !write_spec(w, out, "cob=", CG_NS_OBJECT, cobject, "???"))
                return false;
            if (cfile != file && !write_spec(w, out, "cfi=", CG_NS_FILE, cfile, "???"))
                return false;
            if (!write_spec(w, out, "cfn=", CG_NS_FUNCTION, pk_function_at(p, call->callee)->name,
                            "???"))
                return false;
            /* A count of 0 is a call callgrind_annotate reads as the caller's own cost: a call
             * the profile does not count (or counts 0) is written as called once. */
            pk_out_printf(out, "calls=%llu %u\n",
                          (unsigned long long)(call->count ? call->count : 1),
                          pk_function_at(p, call->callee)->start_line);
            write_costs(w, out, call->line, w->call_costs + (size_t)call->costs * w->values);
        }
        if (pk_out_failed(out))
            break;
    }
    return true;
}

pk_status cg_write(const pk_profile *p, pk_output *out, const pk_write_options *options,
                   pk_error *err)
{
    (void)options;
    size_t values = pk_value_type_count(p);
    if (values == 0)
        return pk_error_set(err, PK_ERR_UNSUPPORTED, PK_NO_OFFSET,
                            "the profile has no values to write as callgrind events");
    cg_writer w;
    memset(&w, 0, sizeof w);
    w.p = p;
    w.values = (unsigned)values;
    /* Call counts are the profile's own where it has them: its call edges (a call graph's,
     * apply_call_edges), else a `calls` value (.bsprof's call counts), which counts the calls
     * into each row's leaf. */
    w.calls_value = pk_value_find(p, "calls");
    if (w.calls_value != PK_NONE &&
        strcmp(pk_str(p, pk_value_type_at(p, w.calls_value)->unit), "count") != 0)
        w.calls_value = PK_NONE;
    pk_u64map_init(&w.self_index);
    pk_index_init(&w.call_index);
    pk_index_init(&w.target_index);
    pk_u64map_init(&w.root_index);
    for (int i = 0; i < CG_NS_COUNT; i++)
        pk_u64map_init(&w.defined[i]);
    if (!find_targets(&w) || !collect(&w) || !apply_call_edges(&w))
        goto nomem;

    pk_out_puts(out, "# callgrind format\nversion: 1\ncreator: profkit " PROFKIT_VERSION "\n");
    const char *title = pk_profile_title(p); /* what ran, else the file it was read from */
    if (title) {
        pk_out_puts(out, "cmd: ");
        write_name_text(out, title, strlen(title));
        pk_out_putc(out, '\n');
    }
    char names[PK_MAX_VALUES][EVENT_NAME_MAX];
    event_names(p, w.values, names);
    pk_out_puts(out, "part: 1\n\npositions: line\n");
    write_event_units(p, out, w.values, names);
    pk_out_puts(out, "events:");
    for (unsigned v = 0; v < w.values; v++) {
        pk_out_putc(out, ' ');
        pk_out_puts(out, names[v]);
    }
    pk_out_puts(out, "\nsummary:");
    for (unsigned v = 0; v < w.values; v++)
        pk_out_printf(out, " %lld", (long long)w.totals[v]);
    pk_out_putc(out, '\n');
    if (!write_body(&w, out))
        goto nomem;
    pk_out_puts(out, "\ntotals:");
    for (unsigned v = 0; v < w.values; v++)
        pk_out_printf(out, " %lld", (long long)w.totals[v]);
    pk_out_putc(out, '\n');
    writer_free(&w);
    return PK_OK;
nomem:
    writer_free(&w);
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}
