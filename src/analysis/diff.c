/* Two profiles compared through one merged profile with a base and a new value. */
#define _GNU_SOURCE /* qsort_r */
#include "analysis/diff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/flamegraph.h"
#include "analysis/merge.h"
#include "analysis/stack_walk.h"
#include "analysis/units.h"
#include "profkit/calltree.h"

#define DIFF_BASE 0
#define DIFF_NEW 1

pk_status pk_diff_build(pk_diff *d, const pk_profile *base, uint32_t base_value,
                        const pk_profile *newer, uint32_t new_value, bool normalize,
                        pk_error *err)
{
    memset(d, 0, sizeof *d);
    if (base_value >= pk_value_type_count(base) || new_value >= pk_value_type_count(newer))
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no such value type");
    const pk_value_type *bv = pk_value_type_at(base, base_value);
    const pk_value_type *nv = pk_value_type_at(newer, new_value);
    const char *unit = pk_str(newer, nv->unit);
    if (strcmp(pk_str(base, bv->unit), unit) != 0)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                            "cannot compare '%s' in %s with '%s' in %s", pk_str(base, bv->name),
                            pk_str(base, bv->unit), pk_str(newer, nv->name), unit);
    pk_profile *p = pk_profile_new();
    if (!p || pk_add_value_type(p, "base", unit) == PK_NONE ||
        pk_add_value_type(p, "new", unit) == PK_NONE ||
        pk_property_set(p, "diff.value", pk_str(newer, nv->name)) != PK_OK) {
        pk_profile_free(p);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    pk_set_default_value(p, DIFF_NEW);
    uint32_t base_map[PK_MAX_VALUES], new_map[PK_MAX_VALUES];
    for (size_t i = 0; i < PK_MAX_VALUES; i++)
        base_map[i] = new_map[i] = PK_NONE;
    base_map[base_value] = DIFF_BASE;
    new_map[new_value] = DIFF_NEW;
    pk_status st = pk_profile_append(p, base, base_map, 0, err);
    if (st == PK_OK)
        st = pk_profile_append(p, newer, new_map, (uint64_t)1 << 56, err);
    if (st != PK_OK) {
        pk_profile_free(p);
        return st;
    }
    d->profile = p;
    d->base_total = pk_value_total(p, DIFF_BASE);
    d->new_total = pk_value_total(p, DIFF_NEW);
    d->normalized = normalize;
    d->base_scale = normalize && d->base_total != 0 ? (double)d->new_total / (double)d->base_total
                                                    : 1.0;
    return PK_OK;
}

void pk_diff_free(pk_diff *d)
{
    pk_profile_free(d->profile);
    memset(d, 0, sizeof *d);
}

/* The call trees of both values, node for node: they are built over the same rows, zeros
 * kept, so their nodes coincide. */
static pk_status build_trees(const pk_diff *d, pk_calltree *base_tree, pk_calltree *new_tree,
                             pk_error *err)
{
    memset(base_tree, 0, sizeof *base_tree);
    pk_status st = pk_calltree_build(new_tree, d->profile, DIFF_NEW, PK_CALLTREE_KEEP_ZERO, NULL,
                                     NULL, err);
    if (st != PK_OK)
        return st;
    st = pk_calltree_build(base_tree, d->profile, DIFF_BASE, PK_CALLTREE_KEEP_ZERO, NULL, NULL,
                           err);
    if (st != PK_OK) {
        pk_calltree_free(new_tree);
        return st;
    }
    bool same = base_tree->count == new_tree->count;
    for (uint32_t i = 0; same && i < new_tree->count; i++)
        same = base_tree->nodes[i].name == new_tree->nodes[i].name &&
               base_tree->nodes[i].parent == new_tree->nodes[i].parent;
    if (!same) {
        pk_calltree_free(base_tree);
        pk_calltree_free(new_tree);
        return pk_error_set(err, PK_ERR_LIMIT, PK_NO_OFFSET,
                            "the call trees of the two profiles do not line up");
    }
    return PK_OK;
}

typedef struct diff_row {
    uint32_t key; /* function name string, or call tree node */
    double base;
    double newer;
} diff_row;

typedef struct row_sort {
    const pk_profile *p;
    const pk_calltree *tree; /* NULL: keys are names */
} row_sort;

static int compare_rows(const void *pa, const void *pb, void *context)
{
    const row_sort *s = context;
    const diff_row *a = pa, *b = pb;
    double ca = fabs(a->newer - a->base), cb = fabs(b->newer - b->base);
    if (ca != cb)
        return ca > cb ? -1 : 1;
    if (s->tree)
        return a->key < b->key ? -1 : a->key > b->key;
    return strcmp(pk_str(s->p, a->key), pk_str(s->p, b->key));
}

/* Writes "a > b > c" (text) or ["a","b","c"] (JSON) for a call tree node. */
static void write_path(pk_output *out, const pk_profile *p, const pk_calltree *tree,
                       uint32_t node, bool json, size_t max_columns)
{
    uint32_t depth = tree->nodes[node].depth;
    uint32_t *names = malloc((depth ? depth : 1) * sizeof *names);
    if (!names)
        return;
    pk_calltree_path(tree, node, names, depth);
    if (json) {
        pk_out_putc(out, '[');
        for (uint32_t i = 0; i < depth; i++) {
            if (i)
                pk_out_putc(out, ',');
            pk_out_json_string(out, pk_str(p, names[i]));
        }
        pk_out_putc(out, ']');
        free(names);
        return;
    }
    size_t len = 1;
    for (uint32_t i = 0; i < depth; i++)
        len += pk_str_len(p, names[i]) + 3;
    char *text = malloc(len);
    if (text) {
        size_t at = 0;
        for (uint32_t i = 0; i < depth; i++) {
            if (i) {
                memcpy(text + at, " > ", 3);
                at += 3;
            }
            size_t n = pk_str_len(p, names[i]);
            memcpy(text + at, pk_str(p, names[i]), n);
            at += n;
        }
        text[at] = '\0';
        pk_out_shortened(out, text, max_columns);
        free(text);
    }
    free(names);
}

static pk_status function_rows(const pk_diff *d, bool use_total, diff_row **rows_out,
                               size_t *count_out, pk_error *err)
{
    const pk_profile *p = d->profile;
    size_t strings = pk_string_count(p), stacks = pk_stack_count(p);
    int64_t *self[2] = {NULL, NULL}, *total[2] = {NULL, NULL};
    uint32_t *key_of_stack = malloc((stacks ? stacks : 1) * sizeof *key_of_stack);
    diff_row *rows = NULL;
    pk_status st = PK_OK;
    if (!key_of_stack)
        goto nomem;
    for (size_t s = 0; s < stacks; s++) {
        const pk_frame *f = pk_frame_at(p, pk_stack_at(p, (uint32_t)s)->frame);
        key_of_stack[s] = pk_function_at(p, f->function)->name;
    }
    for (int v = 0; v < 2; v++) {
        self[v] = calloc(strings ? strings : 1, sizeof *self[v]);
        total[v] = calloc(strings ? strings : 1, sizeof *total[v]);
        if (!self[v] || !total[v])
            goto nomem;
        pk_stack_values sv;
        st = pk_stack_values_compute(&sv, p, (uint32_t)v, NULL, err);
        if (st != PK_OK)
            goto done;
        st = pk_key_totals(p, &sv, key_of_stack, strings, self[v], total[v], err);
        pk_stack_values_free(&sv);
        if (st != PK_OK)
            goto done;
    }
    int64_t **pick = use_total ? total : self;
    size_t count = 0;
    for (size_t i = 0; i < strings; i++)
        count += pick[0][i] != 0 || pick[1][i] != 0;
    rows = malloc((count ? count : 1) * sizeof *rows);
    if (!rows)
        goto nomem;
    count = 0;
    for (size_t i = 0; i < strings; i++)
        if (pick[0][i] != 0 || pick[1][i] != 0)
            rows[count++] = (diff_row){(uint32_t)i, (double)pick[0][i] * d->base_scale,
                                       (double)pick[1][i]};
    *rows_out = rows;
    *count_out = count;
    rows = NULL;
    goto done;
nomem:
    st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
done:
    for (int v = 0; v < 2; v++) {
        free(self[v]);
        free(total[v]);
    }
    free(key_of_stack);
    free(rows);
    return st;
}

static void change_percent_text(char *buf, size_t size, double base, double newer)
{
    if (base != 0)
        snprintf(buf, size, "%+.1f%%", 100.0 * (newer - base) / fabs(base));
    else
        snprintf(buf, size, newer != 0 ? "new" : "-");
}

static pk_status path_rows(const pk_diff *d, bool use_total, pk_calltree *new_tree,
                           diff_row **rows_out, size_t *count_out, pk_error *err)
{
    pk_calltree base_tree;
    pk_status st = build_trees(d, &base_tree, new_tree, err);
    if (st != PK_OK)
        return st;
    diff_row *rows = malloc((new_tree->count ? new_tree->count : 1) * sizeof *rows);
    if (!rows) {
        pk_calltree_free(&base_tree);
        pk_calltree_free(new_tree);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    size_t count = 0;
    for (uint32_t i = 1; i < new_tree->count; i++) {
        const pk_calltree_node *b = &base_tree.nodes[i], *n = &new_tree->nodes[i];
        int64_t bv = use_total ? b->total : b->self, nv = use_total ? n->total : n->self;
        if (bv != 0 || nv != 0)
            rows[count++] = (diff_row){i, (double)bv * d->base_scale, (double)nv};
    }
    pk_calltree_free(&base_tree);
    *rows_out = rows;
    *count_out = count;
    return PK_OK;
}

pk_status pk_diff_report(const pk_diff *d, const pk_diff_report_options *o, pk_output *out,
                         pk_error *err)
{
    const pk_profile *p = d->profile;
    const char *unit = pk_str(p, pk_value_type_at(p, DIFF_NEW)->unit);
    const char *value_name = pk_property_get(p, "diff.value");
    bool use_total = o->measure == PK_DIFF_TOTAL || (o->measure == PK_DIFF_DEFAULT && o->by_path);
    pk_calltree tree;
    memset(&tree, 0, sizeof tree);
    diff_row *rows = NULL;
    size_t count = 0;
    pk_status st = o->by_path ? path_rows(d, use_total, &tree, &rows, &count, err)
                              : function_rows(d, use_total, &rows, &count, err);
    if (st != PK_OK)
        return st;
    row_sort sort = {p, o->by_path ? &tree : NULL};
    qsort_r(rows, count, sizeof *rows, compare_rows, &sort);
    size_t shown = o->top && o->top < count ? o->top : count;
    const char *measure = use_total ? "total" : "self";

    if (o->json) {
        pk_out_puts(out, "{\"view\":\"diff\",\"by\":");
        pk_out_puts(out, o->by_path ? "\"path\"" : "\"function\"");
        pk_out_printf(out, ",\"measure\":\"%s\",\"value\":{\"name\":", measure);
        pk_out_json_string(out, value_name ? value_name : "");
        pk_out_puts(out, ",\"unit\":");
        pk_out_json_string(out, unit);
        pk_out_puts(out, "},\"base_total\":");
        pk_out_i64(out, d->base_total);
        pk_out_puts(out, ",\"new_total\":");
        pk_out_i64(out, d->new_total);
        pk_out_printf(out, ",\"normalized\":%s,\"base_scale\":", d->normalized ? "true" : "false");
        pk_out_double(out, d->base_scale);
        pk_out_printf(out, ",\"row_count\":%zu,\"rows\":[", count);
        for (size_t i = 0; i < shown; i++) {
            pk_out_puts(out, i ? ",{" : "{");
            if (o->by_path) {
                pk_out_puts(out, "\"path\":");
                write_path(out, p, &tree, rows[i].key, true, 0);
            } else {
                pk_out_puts(out, "\"name\":");
                pk_out_json_string(out, pk_str(p, rows[i].key));
            }
            pk_out_puts(out, ",\"base\":");
            pk_out_double(out, rows[i].base);
            pk_out_puts(out, ",\"new\":");
            pk_out_double(out, rows[i].newer);
            pk_out_puts(out, ",\"change\":");
            pk_out_double(out, rows[i].newer - rows[i].base);
            pk_out_puts(out, ",\"change_percent\":");
            if (rows[i].base != 0)
                pk_out_double(out, 100.0 * (rows[i].newer - rows[i].base) / fabs(rows[i].base));
            else
                pk_out_puts(out, "null");
            pk_out_putc(out, '}');
        }
        pk_out_puts(out, "]}\n");
    } else {
        char base_text[PK_VALUE_TEXT], new_text[PK_VALUE_TEXT], change_text[PK_VALUE_TEXT];
        pk_value_text(base_text, sizeof base_text, (double)d->base_total, unit, false);
        pk_value_text(new_text, sizeof new_text, (double)d->new_total, unit, false);
        change_percent_text(change_text, sizeof change_text, (double)d->base_total,
                            (double)d->new_total);
        pk_out_printf(out, "%s%s%s%s: base %s, new %s (%s)", value_name ? value_name : "",
                      unit[0] ? " (" : "", unit, unit[0] ? ")" : "", base_text, new_text,
                      change_text);
        if (d->normalized)
            pk_out_printf(out, "; base scaled by %.4g", d->base_scale);
        pk_out_printf(out, "\n%zu of %zu %s by change of %s\n", shown, count,
                      o->by_path ? "call paths" : "functions", measure);
        pk_out_printf(out, "      base        new      change  change%%  %s\n",
                      o->by_path ? "call path" : "function");
        size_t name_columns = o->width ? (o->width > 52 ? o->width - 44 : 8) : 0;
        for (size_t i = 0; i < shown; i++) {
            pk_value_text(base_text, sizeof base_text, rows[i].base, unit, false);
            pk_value_text(new_text, sizeof new_text, rows[i].newer, unit, false);
            pk_value_text(change_text, sizeof change_text, rows[i].newer - rows[i].base, unit,
                          true);
            pk_out_cell(out, base_text, 10, true);
            pk_out_putc(out, ' ');
            pk_out_cell(out, new_text, 10, true);
            pk_out_putc(out, ' ');
            pk_out_cell(out, change_text, 11, true);
            pk_out_putc(out, ' ');
            change_percent_text(change_text, sizeof change_text, rows[i].base, rows[i].newer);
            pk_out_cell(out, change_text, 8, true);
            pk_out_puts(out, "  ");
            if (o->by_path)
                write_path(out, p, &tree, rows[i].key, false, name_columns);
            else
                pk_out_shortened(out, pk_str(p, rows[i].key), name_columns);
            pk_out_putc(out, '\n');
        }
    }
    free(rows);
    pk_calltree_free(&tree);
    return PK_OK;
}

/* A frame name as folded text allows it: no separator, no line break. */
static void write_folded_name(pk_output *out, const char *name)
{
    for (const char *c = name; *c; c++)
        pk_out_putc(out, *c == ';' ? ':' : (*c == '\n' || *c == '\r') ? ' ' : *c);
}

pk_status pk_diff_write_folded(const pk_diff *d, pk_output *out, pk_error *err)
{
    pk_calltree base_tree, new_tree;
    pk_status st = build_trees(d, &base_tree, &new_tree, err);
    if (st != PK_OK)
        return st;
    const pk_profile *p = d->profile;
    uint32_t *names = NULL;
    uint32_t capacity = 0;
    for (uint32_t i = 1; i < new_tree.count && !pk_out_failed(out); i++) {
        int64_t base = base_tree.nodes[i].self, newer = new_tree.nodes[i].self;
        if (base == 0 && newer == 0)
            continue;
        uint32_t depth = new_tree.nodes[i].depth;
        if (depth > capacity) {
            uint32_t *grown = realloc(names, depth * sizeof *grown);
            if (!grown) {
                st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
                break;
            }
            names = grown;
            capacity = depth;
        }
        pk_calltree_path(&new_tree, i, names, capacity);
        for (uint32_t k = 0; k < depth; k++) {
            if (k)
                pk_out_putc(out, ';');
            write_folded_name(out, pk_str(p, names[k]));
        }
        pk_out_putc(out, ' ');
        pk_out_i64(out, d->normalized ? (int64_t)llround((double)base * d->base_scale) : base);
        pk_out_putc(out, ' ');
        pk_out_i64(out, newer);
        pk_out_putc(out, '\n');
    }
    free(names);
    pk_calltree_free(&base_tree);
    pk_calltree_free(&new_tree);
    return st;
}

pk_status pk_diff_write_svg(const pk_diff *d, const char *title, pk_output *out, pk_error *err)
{
    pk_calltree base_tree, new_tree;
    pk_status st = build_trees(d, &base_tree, &new_tree, err);
    if (st != PK_OK)
        return st;
    double *base_totals = malloc((new_tree.count ? new_tree.count : 1) * sizeof *base_totals);
    if (!base_totals) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < new_tree.count; i++)
        base_totals[i] = (double)base_tree.nodes[i].total * d->base_scale;
    const pk_profile *p = d->profile;
    const char *unit = pk_str(p, pk_value_type_at(p, DIFF_NEW)->unit);
    const char *value_name = pk_property_get(p, "diff.value");
    char base_text[PK_VALUE_TEXT], new_text[PK_VALUE_TEXT], subtitle[256];
    pk_value_text(base_text, sizeof base_text, (double)d->base_total, unit, false);
    pk_value_text(new_text, sizeof new_text, (double)d->new_total, unit, false);
    snprintf(subtitle, sizeof subtitle,
             "%s: base %s, new %s%s; width by new, red grew, blue shrank",
             value_name ? value_name : "", base_text, new_text,
             d->normalized ? " (base normalised)" : "");
    pk_flamegraph_options fo;
    pk_flamegraph_options_init(&fo);
    fo.title = title;
    fo.subtitle = subtitle;
    fo.unit = unit;
    fo.base_totals = base_totals;
    st = pk_flamegraph_write(p, &new_tree, &fo, out, err);
done:
    free(base_totals);
    pk_calltree_free(&base_tree);
    pk_calltree_free(&new_tree);
    return st;
}
