/* SPDX-License-Identifier: MIT */
/* Reports as JSON (profkit/report.h, profkit/diff.h): one object per report, raw integer values
 * with percentages of the total, written through the streaming emitter. */
#include <math.h>

#include "analysis/units.h"
#include "core/json.h"
#include "profkit/diff.h"
#include "profkit/report.h"

/* {"view":VIEW,"value":{"name":..,"unit":..},"total":T, ... : the members every view of a value
 * starts with. */
static void begin_view(pk_json *j, const pk_report *r, const char *view)
{
    pk_json_object_begin(j);
    pk_json_member_string(j, "view", view);
    pk_json_key(j, "value");
    pk_json_object_begin(j);
    pk_json_member_string(j, "name", r->value_name);
    pk_json_member_string(j, "unit", r->value_unit);
    pk_json_object_end(j);
    pk_json_member_i64(j, "total", r->total);
    if (r->percent_base != r->total)
        pk_json_member_i64(j, "percent_base", r->percent_base);
}

static void json_top(pk_json *j, const pk_report *r)
{
    double grand = (double)r->percent_base;
    begin_view(j, r, "top");
    pk_json_member_string(j, "sort", r->sort_total ? "total" : "self");
    pk_json_member_u64(j, "function_count", r->entries_available);
    pk_json_key(j, "functions");
    pk_json_array_begin(j);
    double running = 0;
    for (size_t i = 0; i < r->entry_count; i++) {
        const pk_report_entry *e = &r->entries[i];
        running += (double)e->self;
        pk_json_object_begin(j);
        pk_json_member_string(j, "name", e->name);
        pk_json_member_i64(j, "self", e->self);
        pk_json_member_double(j, "self_percent", pk_percent((double)e->self, grand));
        pk_json_member_double(j, "sum_percent", pk_percent(running, grand));
        pk_json_member_i64(j, "total", e->total);
        pk_json_member_double(j, "total_percent", pk_percent((double)e->total, grand));
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

/* Closes a node: its children, the branches folded under it (a folded row among them), then
 * the node itself. */
static void close_node(pk_json *j, const pk_report_node *folded)
{
    pk_json_array_end(j);
    if (folded) {
        pk_json_member_u64(j, "hidden_count", folded->folded);
        pk_json_member_i64(j, "hidden_total", folded->total);
    }
    pk_json_object_end(j);
}

/* The rows in display order become nested objects: a row of depth d is a child of the last
 * open row of depth d - 1, and a folded row closes its parent with hidden_count and
 * hidden_total (at the first level, the report's own). */
static void json_tree(pk_json *j, const pk_report *r)
{
    double grand = (double)r->percent_base;
    begin_view(j, r, "tree");
    pk_json_member_double(j, "min_percent", r->min_percent);
    pk_json_key(j, "roots");
    pk_json_array_begin(j);
    size_t open = 0; /* rows whose children array is open */
    const pk_report_node *root_folded = NULL;
    for (size_t i = 0; i < r->node_count && !pk_out_failed(j->out); i++) {
        const pk_report_node *n = &r->nodes[i];
        while (open > n->depth) {
            close_node(j, NULL);
            open--;
        }
        if (n->folded) {
            if (n->depth == 0) {
                root_folded = n;
            } else {
                close_node(j, n);
                open--;
            }
            continue;
        }
        pk_json_object_begin(j);
        pk_json_member_string(j, "name", n->name);
        if (n->thread)
            pk_json_member_bool(j, "thread", true);
        pk_json_member_i64(j, "self", n->self);
        pk_json_member_i64(j, "total", n->total);
        pk_json_member_double(j, "percent", pk_percent((double)n->total, grand));
        pk_json_key(j, "children");
        pk_json_array_begin(j);
        open++;
    }
    for (; open > 0; open--)
        close_node(j, NULL);
    pk_json_array_end(j);
    if (root_folded) {
        pk_json_member_u64(j, "hidden_count", root_folded->folded);
        pk_json_member_i64(j, "hidden_total", root_folded->total);
    }
}

static void json_neighbours(pk_json *j, const pk_report *r)
{
    bool callees = r->view == PK_REPORT_CALLEES;
    begin_view(j, r, callees ? "callees" : "callers");
    pk_json_member_string(j, "function", r->function);
    pk_json_member_i64(j, "function_total", r->function_total);
    pk_json_member_i64(j, "function_self", r->function_self);
    pk_json_key(j, callees ? "callees" : "callers");
    pk_json_array_begin(j);
    for (size_t i = 0; i < r->entry_count; i++) {
        const pk_report_entry *e = &r->entries[i];
        pk_json_object_begin(j);
        pk_json_key(j, "name");
        if (e->own)
            pk_json_null(j);
        else
            pk_json_string(j, e->name);
        pk_json_member_i64(j, "value", e->total);
        pk_json_member_double(j, "share_percent",
                              pk_percent((double)e->total, (double)r->function_total));
        pk_json_member_double(j, "percent", pk_percent((double)e->total, (double)r->percent_base));
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static void json_lines(pk_json *j, const pk_report *r)
{
    double grand = (double)r->percent_base;
    begin_view(j, r, "lines");
    pk_json_member_string(j, "sort", r->sort_total ? "total" : "self");
    pk_json_member_u64(j, "line_count", r->entries_available);
    pk_json_key(j, "lines");
    pk_json_array_begin(j);
    for (size_t i = 0; i < r->entry_count; i++) {
        const pk_report_entry *e = &r->entries[i];
        pk_json_object_begin(j);
        pk_json_member_string(j, "file", e->file);
        pk_json_member_u64(j, "line", e->line);
        pk_json_member_string(j, "function", e->name);
        pk_json_member_i64(j, "self", e->self);
        pk_json_member_double(j, "self_percent", pk_percent((double)e->self, grand));
        pk_json_member_i64(j, "total", e->total);
        pk_json_member_double(j, "total_percent", pk_percent((double)e->total, grand));
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static void memory_members(pk_json *j, const pk_memory_totals *m)
{
    pk_json_member_i64(j, "allocated", m->allocated);
    pk_json_member_i64(j, "allocated_count", m->allocated_count);
    pk_json_member_i64(j, "freed", m->freed);
    pk_json_member_i64(j, "freed_count", m->freed_count);
    pk_json_member_i64(j, "unfreed", m->unfreed);
    pk_json_member_i64(j, "unfreed_count", m->unfreed_count);
}

static void json_memory(pk_json *j, const pk_report *r)
{
    pk_json_object_begin(j);
    pk_json_member_string(j, "view", "memory");
    memory_members(j, &r->memory);
    pk_json_member_u64(j, "unmatched_frees", r->unmatched_frees);
    pk_json_key(j, "call_paths");
    pk_json_array_begin(j);
    for (size_t i = 0; i < r->path_count; i++) {
        const pk_memory_site *site = &r->paths[i];
        pk_json_object_begin(j);
        pk_json_key(j, "path");
        pk_json_array_begin(j);
        for (size_t k = 0; k < site->path_length; k++)
            pk_json_string(j, site->path[k]);
        pk_json_array_end(j);
        memory_members(j, &site->memory);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
    pk_json_key(j, "lines");
    pk_json_array_begin(j);
    for (size_t i = 0; i < r->line_count; i++) {
        const pk_memory_site *site = &r->lines[i];
        pk_json_object_begin(j);
        pk_json_member_string(j, "file", site->file);
        pk_json_member_u64(j, "line", site->line);
        pk_json_member_string(j, "function", site->function);
        memory_members(j, &site->memory);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

static void json_threads(pk_json *j, const pk_report *r)
{
    begin_view(j, r, "threads");
    pk_json_member_u64(j, "thread_count", r->entries_available);
    pk_json_key(j, "threads");
    pk_json_array_begin(j);
    for (size_t i = 0; i < r->entry_count; i++) {
        const pk_report_entry *e = &r->entries[i];
        pk_json_object_begin(j);
        pk_json_member_string(j, "name", e->name);
        pk_json_member_i64(j, "pid", e->pid);
        pk_json_member_i64(j, "tid", e->tid);
        pk_json_member_i64(j, "total", e->total);
        pk_json_member_double(j, "percent", pk_percent((double)e->total, (double)r->percent_base));
        pk_json_member_u64(j, "stacks", e->stacks);
        pk_json_object_end(j);
    }
    pk_json_array_end(j);
}

pk_status pk_report_write_json(const pk_report *r, pk_output *out, pk_error *err)
{
    pk_json j;
    pk_json_init(&j, out);
    switch (r->view) {
    case PK_REPORT_TOP: json_top(&j, r); break;
    case PK_REPORT_TREE: json_tree(&j, r); break;
    case PK_REPORT_CALLERS:
    case PK_REPORT_CALLEES: json_neighbours(&j, r); break;
    case PK_REPORT_LINES: json_lines(&j, r); break;
    case PK_REPORT_MEMORY: json_memory(&j, r); break;
    case PK_REPORT_THREADS: json_threads(&j, r); break;
    default:
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no report view number %d",
                            (int)r->view);
    }
    pk_json_object_end(&j);
    pk_out_putc(out, '\n');
    return PK_OK;
}

pk_status pk_diff_report_write_json(const pk_diff_report *r, pk_output *out, pk_error *err)
{
    (void)err;
    pk_json j;
    pk_json_init(&j, out);
    pk_json_object_begin(&j);
    pk_json_member_string(&j, "view", "diff");
    pk_json_member_string(&j, "by", r->by_path ? "path" : "function");
    pk_json_member_string(&j, "measure", r->measure == PK_DIFF_TOTAL ? "total" : "self");
    pk_json_key(&j, "value");
    pk_json_object_begin(&j);
    pk_json_member_string(&j, "name", r->value_name);
    pk_json_member_string(&j, "unit", r->unit);
    pk_json_object_end(&j);
    pk_json_member_i64(&j, "base_total", r->base_total);
    pk_json_member_i64(&j, "new_total", r->new_total);
    pk_json_member_bool(&j, "normalized", r->normalized);
    pk_json_member_double(&j, "base_scale", r->base_scale);
    pk_json_member_u64(&j, "row_count", r->rows_available);
    pk_json_key(&j, "rows");
    pk_json_array_begin(&j);
    for (size_t i = 0; i < r->row_count && !pk_out_failed(out); i++) {
        const pk_diff_row *row = &r->rows[i];
        pk_json_object_begin(&j);
        if (r->by_path) {
            pk_json_key(&j, "path");
            pk_json_array_begin(&j);
            for (size_t k = 0; k < row->path_length; k++)
                pk_json_string(&j, row->path[k]);
            pk_json_array_end(&j);
        } else {
            pk_json_member_string(&j, "name", row->name);
        }
        pk_json_member_i64(&j, "base", row->base);
        pk_json_member_i64(&j, "new", row->newer);
        pk_json_member_i64(&j, "change", row->change);
        pk_json_key(&j, "change_percent");
        if (isfinite(row->change_percent))
            pk_json_double(&j, row->change_percent);
        else
            pk_json_null(&j);
        pk_json_object_end(&j);
    }
    pk_json_array_end(&j);
    pk_json_object_end(&j);
    pk_out_putc(out, '\n');
    return PK_OK;
}
