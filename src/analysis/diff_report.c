/* SPDX-License-Identifier: MIT */
/* The diff report as data: per function or per call path of a differential profile, the base
 * and new value, the change and the change in percent, biggest change first. */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/differential.h"
#include "analysis/stack_walk.h"
#include "profkit/diff.h"

/* The report and what its pointers point to. */
typedef struct diff_report_storage {
    pk_diff_report report;
    const char **path_names; /* the paths of the rows, one after another */
} diff_report_storage;

typedef struct diff_key {
    uint32_t key; /* function name string, or call tree node */
    int64_t base;
    int64_t newer;
} diff_key;

typedef struct key_sort {
    const pk_profile *p;
    const pk_calltree *tree; /* rows by call path; NULL for rows by function */
} key_sort;

static uint64_t magnitude(int64_t base, int64_t newer)
{
    /* |newer - base| without overflow */
    return newer >= base ? (uint64_t)newer - (uint64_t)base : (uint64_t)base - (uint64_t)newer;
}

/* Call paths in the order of their names, root first (a caller before its callees), so that
 * equal changes come in the same order whatever order the tree's nodes were made in. */
static int compare_paths(const pk_profile *p, const pk_calltree *tree, uint32_t a, uint32_t b)
{
    const pk_calltree_node *nodes = tree->nodes;
    int deeper = 0; /* which one is below the other's depth: its ancestor at that depth ties */
    while (nodes[a].depth > nodes[b].depth) {
        a = nodes[a].parent;
        deeper = 1;
    }
    while (nodes[b].depth > nodes[a].depth) {
        b = nodes[b].parent;
        deeper = -1;
    }
    if (a == b)
        return deeper;
    while (nodes[a].parent != nodes[b].parent) {
        a = nodes[a].parent;
        b = nodes[b].parent;
    }
    int order = strcmp(pk_str(p, nodes[a].name), pk_str(p, nodes[b].name));
    return order ? order : (a > b) - (a < b);
}

static int compare_keys(const void *pa, const void *pb, void *context)
{
    const key_sort *s = context;
    const diff_key *a = pa, *b = pb;
    uint64_t ca = magnitude(a->base, a->newer), cb = magnitude(b->base, b->newer);
    if (ca != cb)
        return ca > cb ? -1 : 1;
    if (s->tree)
        return compare_paths(s->p, s->tree, a->key, b->key);
    return strcmp(pk_str(s->p, a->key), pk_str(s->p, b->key));
}

static pk_status out_of_memory(pk_error *err)
{
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

/* Per function name: self or total (once per stack) of both values. */
static pk_status function_keys(const pk_profile *p, bool use_total, diff_key **keys_out,
                               size_t *count_out, pk_error *err)
{
    size_t strings = pk_string_count(p), frames = pk_frame_count(p);
    int64_t *self[2] = {NULL, NULL}, *total[2] = {NULL, NULL};
    uint32_t *key_of_frame = malloc((frames ? frames : 1) * sizeof *key_of_frame);
    diff_key *keys = NULL;
    pk_status st = PK_OK;
    if (!key_of_frame)
        goto nomem;
    for (size_t f = 0; f < frames; f++)
        key_of_frame[f] = pk_function_at(p, pk_frame_at(p, (uint32_t)f)->function)->name;
    for (uint32_t v = 0; v < 2; v++) {
        self[v] = calloc(strings ? strings : 1, sizeof *self[v]);
        total[v] = calloc(strings ? strings : 1, sizeof *total[v]);
        if (!self[v] || !total[v])
            goto nomem;
        pk_key_walk walk;
        st = pk_key_totals(p, v == 0 ? PK_DIFF_BASE : PK_DIFF_NEW, NULL, key_of_frame, strings,
                           self[v], total[v], &walk, err);
        if (st != PK_OK)
            goto done;
    }
    int64_t **pick = use_total ? total : self;
    size_t count = 0;
    for (size_t i = 0; i < strings; i++)
        count += pick[0][i] != 0 || pick[1][i] != 0;
    keys = malloc((count ? count : 1) * sizeof *keys);
    if (!keys)
        goto nomem;
    count = 0;
    for (size_t i = 0; i < strings; i++)
        if (pick[0][i] != 0 || pick[1][i] != 0)
            keys[count++] = (diff_key){(uint32_t)i, pick[0][i], pick[1][i]};
    *keys_out = keys;
    *count_out = count;
    keys = NULL;
    goto done;
nomem:
    st = out_of_memory(err);
done:
    for (int v = 0; v < 2; v++) {
        free(self[v]);
        free(total[v]);
    }
    free(key_of_frame);
    free(keys);
    return st;
}

/* Per call path (node of the call trees): self or total of both values. */
static pk_status path_keys(const pk_calltree *base_tree, const pk_calltree *new_tree,
                           bool use_total, diff_key **keys_out, size_t *count_out, pk_error *err)
{
    diff_key *keys = malloc((new_tree->count ? new_tree->count : 1) * sizeof *keys);
    if (!keys)
        return out_of_memory(err);
    size_t count = 0;
    for (uint32_t i = 1; i < new_tree->count; i++) {
        const pk_calltree_node *b = &base_tree->nodes[i], *n = &new_tree->nodes[i];
        int64_t bv = use_total ? b->total : b->self, nv = use_total ? n->total : n->self;
        if (bv != 0 || nv != 0)
            keys[count++] = (diff_key){i, bv, nv};
    }
    *keys_out = keys;
    *count_out = count;
    return PK_OK;
}

static double change_percent(int64_t base, int64_t newer)
{
    if (base == 0)
        return newer >= 0 ? INFINITY : -INFINITY;
    return 100.0 * ((double)newer - (double)base) / fabs((double)base);
}

/* The rows shown, with the call paths of a per-path report. */
static pk_status fill_rows(diff_report_storage *storage, const pk_profile *p,
                           const pk_calltree *tree, const diff_key *keys, size_t shown,
                           pk_error *err)
{
    pk_diff_report *r = &storage->report;
    r->rows = calloc(shown ? shown : 1, sizeof *r->rows);
    if (!r->rows)
        return out_of_memory(err);
    size_t names = 0;
    uint32_t deepest = 0;
    for (size_t i = 0; tree && i < shown; i++) {
        uint32_t depth = tree->nodes[keys[i].key].depth;
        names += depth;
        deepest = depth > deepest ? depth : deepest;
    }
    uint32_t *path = NULL;
    if (tree) {
        storage->path_names = malloc((names ? names : 1) * sizeof *storage->path_names);
        path = malloc((deepest ? deepest : 1) * sizeof *path);
        if (!storage->path_names || !path) {
            free(path);
            return out_of_memory(err);
        }
    }
    size_t used = 0;
    for (size_t i = 0; i < shown; i++) {
        pk_diff_row *row = &r->rows[i];
        row->base = keys[i].base;
        row->newer = keys[i].newer;
        row->change = (int64_t)((uint64_t)keys[i].newer - (uint64_t)keys[i].base);
        row->change_percent = change_percent(keys[i].base, keys[i].newer);
        if (!tree) {
            row->name = pk_str(p, keys[i].key);
            continue;
        }
        uint32_t depth = pk_calltree_path(tree, keys[i].key, path, deepest);
        const char **row_names = storage->path_names + used;
        for (uint32_t k = 0; k < depth; k++)
            row_names[k] = pk_str(p, path[k]);
        used += depth;
        row->path = row_names;
        row->path_length = depth;
        row->name = depth ? row_names[depth - 1] : "";
    }
    free(path);
    r->row_count = shown;
    return PK_OK;
}

pk_status pk_diff_report_build(const pk_profile *diff, const pk_diff_report_options *options,
                               pk_diff_report **out, pk_error *err)
{
    *out = NULL;
    static const pk_diff_report_options defaults = {false, PK_DIFF_DEFAULT, 0};
    if (!options)
        options = &defaults;
    if (!pk_is_differential(diff))
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                            "not a differential profile (values base and new)");
    diff_report_storage *storage = calloc(1, sizeof *storage);
    if (!storage)
        return out_of_memory(err);
    pk_diff_report *r = &storage->report;
    bool use_total = options->measure == PK_DIFF_TOTAL ||
                     (options->measure == PK_DIFF_DEFAULT && options->by_path);
    r->value_name = pk_differential_value_name(diff);
    r->unit = pk_str(diff, pk_value_type_at(diff, PK_DIFF_NEW)->unit);
    r->base_scale = pk_differential_base_scale(diff, &r->normalized);
    r->by_path = options->by_path;
    r->measure = use_total ? PK_DIFF_TOTAL : PK_DIFF_SELF;
    r->base_total = pk_value_total(diff, PK_DIFF_BASE);
    r->new_total = pk_value_total(diff, PK_DIFF_NEW);

    pk_calltree base_tree, new_tree;
    memset(&base_tree, 0, sizeof base_tree);
    memset(&new_tree, 0, sizeof new_tree);
    diff_key *keys = NULL;
    size_t count = 0;
    pk_status st;
    if (options->by_path) {
        st = pk_differential_trees(diff, 0, &base_tree, &new_tree, err);
        if (st == PK_OK)
            st = path_keys(&base_tree, &new_tree, use_total, &keys, &count, err);
    } else {
        st = function_keys(diff, use_total, &keys, &count, err);
    }
    if (st == PK_OK) {
        key_sort sort = {diff, options->by_path ? &new_tree : NULL};
        if (count > 1)
            qsort_r(keys, count, sizeof *keys, compare_keys, &sort);
        size_t shown = options->top && options->top < count ? options->top : count;
        r->rows_available = count;
        st = fill_rows(storage, diff, options->by_path ? &new_tree : NULL, keys, shown, err);
    }
    free(keys);
    pk_calltree_free(&base_tree);
    pk_calltree_free(&new_tree);
    if (st != PK_OK) {
        pk_diff_report_free(r);
        return st;
    }
    *out = r;
    return PK_OK;
}

void pk_diff_report_free(pk_diff_report *r)
{
    if (!r)
        return;
    diff_report_storage *storage = (diff_report_storage *)r;
    free(r->rows);
    free(storage->path_names);
    free(storage);
}
