/* SPDX-License-Identifier: MIT */
/* Reports as text for a terminal (profkit/report.h, profkit/diff.h): values scaled to readable
 * units in right-aligned columns, shares of the total, names shortened in the middle to fit the
 * width. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/units.h"
#include "core/output.h"
#include "profkit/diff.h"
#include "profkit/report.h"

/* Deeper tree levels than this are not indented further in limited width; a depth label shows
 * where they are. */
#define TREE_MAX_INDENT_LEVELS 10

/* ---- cells ------------------------------------------------------------------------------------ */

/* "cpu (nanoseconds)"; the unit alone when the value has no name. */
static void value_label(pk_output *out, const char *name, const char *unit)
{
    pk_out_puts(out, name);
    if (unit[0])
        pk_out_printf(out, name[0] ? " (%s)" : "%s", unit);
}

static void value_cell(pk_output *out, const char *unit, double v, size_t columns)
{
    char text[PK_VALUE_TEXT];
    pk_value_text(text, sizeof text, v, unit, false);
    pk_out_cell(out, text, columns, true);
}

static void percent_cell(pk_output *out, double part, double whole, size_t columns)
{
    char text[PK_VALUE_TEXT];
    pk_percent_text(text, sizeof text, part, whole);
    pk_out_cell(out, text, columns, true);
}

/* Columns left for a name after `used` columns; 0 (unlimited) when width is 0. */
static size_t name_columns(size_t width, size_t used)
{
    if (width == 0)
        return 0;
    return width > used + 8 ? width - used : 8;
}

/* "file:line  function" in at most max_columns (0: no limit), shortening the file in the
 * middle and the function only when it takes more than half; the line number is always whole.
 * line 0 writes the function alone. */
static void location(pk_output *out, const char *file, uint32_t line, const char *function,
                     size_t max_columns)
{
    if (line == 0) {
        pk_out_shortened(out, function, max_columns);
        return;
    }
    if (!file[0])
        file = "?";
    char suffix[16];
    size_t suffix_len = (size_t)snprintf(suffix, sizeof suffix, ":%u", (unsigned)line);
    size_t file_len = pk_text_columns(file), function_len = pk_text_columns(function);
    size_t file_columns = 0, function_columns = 0;
    if (max_columns) {
        size_t room = max_columns > suffix_len + 2 ? max_columns - suffix_len - 2 : 0;
        function_columns = function_len;
        if (function_columns + file_len > room && function_columns > room / 2)
            function_columns = file_len < room / 2 ? room - file_len : room / 2;
        file_columns = room > function_columns ? room - function_columns : 1;
        if (file_columns < 4)
            file_columns = 4;
    }
    pk_out_shortened(out, file, file_columns);
    pk_out_puts(out, suffix);
    if (function[0]) {
        pk_out_puts(out, "  ");
        pk_out_shortened(out, function, function_columns);
    }
}

/* A call path as "a > b > c", shortened as one name. */
static void call_path(pk_output *out, const char *const *names, size_t count,
                      size_t max_columns)
{
    pk_buffer text = PK_BUFFER_INIT;
    for (size_t i = 0; i < count; i++) {
        if (i)
            pk_buffer_append(&text, " > ", 3);
        pk_buffer_append(&text, names[i], strlen(names[i]));
    }
    if (pk_buffer_terminate(&text))
        pk_out_shortened(out, count ? (const char *)text.data : "", max_columns);
    else
        pk_out_puts(out, "?");
    pk_buffer_free(&text);
}

/* ---- the views of a report ---------------------------------------------------------------------- */

/* With negative values the shares are of the sum of absolute values (as go tool pprof takes
 * them), which the header then says. */
static void shares_note(const pk_report *r, pk_output *out)
{
    if (r->percent_base == r->total)
        return;
    char base_text[PK_VALUE_TEXT];
    pk_value_text(base_text, sizeof base_text, (double)r->percent_base, r->value_unit, false);
    pk_out_printf(out, " (shares of %s, the sum of absolute values)", base_text);
}

static void text_top(const pk_report *r, size_t width, pk_output *out)
{
    char total_text[PK_VALUE_TEXT];
    double grand = (double)r->total;
    double share_base = (double)r->percent_base;
    value_label(out, r->value_name, r->value_unit);
    pk_value_text(total_text, sizeof total_text, grand, r->value_unit, false);
    pk_out_printf(out, ": total %s", total_text);
    shares_note(r, out);
    pk_out_printf(out, "; %zu of %zu functions by %s\n", r->entry_count,
                  r->entries_available, r->sort_total ? "total" : "self");
    pk_out_puts(out, "      self   self%    sum%      total  total%  function\n");
    size_t columns = name_columns(width, 47);
    double running = 0;
    for (size_t i = 0; i < r->entry_count; i++) {
        const pk_report_entry *e = &r->entries[i];
        running += (double)e->self;
        value_cell(out, r->value_unit, (double)e->self, 10);
        pk_out_putc(out, ' ');
        percent_cell(out, (double)e->self, share_base, 7);
        pk_out_putc(out, ' ');
        percent_cell(out, running, share_base, 7);
        pk_out_putc(out, ' ');
        value_cell(out, r->value_unit, (double)e->total, 10);
        pk_out_putc(out, ' ');
        percent_cell(out, (double)e->total, share_base, 7);
        pk_out_puts(out, "  ");
        pk_out_shortened(out, e->name, columns);
        pk_out_putc(out, '\n');
    }
}

static void tree_indent(pk_output *out, size_t width, uint32_t depth)
{
    uint32_t levels = depth;
    if (width && levels > TREE_MAX_INDENT_LEVELS)
        levels = TREE_MAX_INDENT_LEVELS;
    for (uint32_t i = 0; i < levels; i++)
        pk_out_puts(out, "  ");
    if (levels < depth)
        pk_out_printf(out, "(%u) ", (unsigned)depth + 1);
}

static size_t indent_columns(size_t width, uint32_t depth)
{
    if (width && depth > TREE_MAX_INDENT_LEVELS)
        return 2 * TREE_MAX_INDENT_LEVELS + 8;
    return 2 * (size_t)depth;
}

static void text_tree(const pk_report *r, size_t width, pk_output *out)
{
    char total_text[PK_VALUE_TEXT];
    double grand = (double)r->total;
    double share_base = (double)r->percent_base;
    pk_value_text(total_text, sizeof total_text, grand, r->value_unit, false);
    value_label(out, r->value_name, r->value_unit);
    pk_out_printf(out, ": total %s", total_text);
    shares_note(r, out);
    if (r->min_percent > 0)
        pk_out_printf(out, "; branches under %g%% folded", r->min_percent);
    pk_out_puts(out, "\n     total  total%       self  call tree\n");
    for (size_t i = 0; i < r->node_count && !pk_out_failed(out); i++) {
        const pk_report_node *n = &r->nodes[i];
        value_cell(out, r->value_unit, (double)n->total, 10);
        pk_out_putc(out, ' ');
        percent_cell(out, (double)n->total, share_base, 7);
        if (n->folded) {
            pk_out_puts(out, "             ");
            tree_indent(out, width, n->depth);
            pk_out_printf(out, "... %u more\n", (unsigned)n->folded);
            continue;
        }
        pk_out_putc(out, ' ');
        value_cell(out, r->value_unit, (double)n->self, 10);
        pk_out_puts(out, "  ");
        tree_indent(out, width, n->depth);
        size_t columns = name_columns(width, 31 + indent_columns(width, n->depth));
        if (n->thread) {
            pk_out_putc(out, '[');
            pk_out_shortened(out, n->name, columns > 2 ? columns - 2 : 1);
            pk_out_putc(out, ']');
        } else {
            pk_out_shortened(out, n->name, columns);
        }
        pk_out_putc(out, '\n');
    }
}

static void text_neighbours(const pk_report *r, size_t width, pk_output *out)
{
    bool callees = r->view == PK_REPORT_CALLEES;
    char total_text[PK_VALUE_TEXT], percent_text[PK_VALUE_TEXT];
    pk_value_text(total_text, sizeof total_text, (double)r->function_total, r->value_unit,
                  false);
    pk_percent_text(percent_text, sizeof percent_text, (double)r->function_total,
                    (double)r->percent_base);
    pk_out_puts(out, callees ? "callees of " : "callers of ");
    pk_out_shortened(out, r->function, name_columns(width, 40));
    pk_out_puts(out, ": ");
    value_label(out, r->value_name, r->value_unit);
    pk_out_printf(out, " %s (%s of all)\n", total_text, percent_text);
    pk_out_printf(out, "     value   share  %s\n", callees ? "callee" : "caller");
    size_t columns = name_columns(width, 20);
    for (size_t i = 0; i < r->entry_count; i++) {
        const pk_report_entry *e = &r->entries[i];
        value_cell(out, r->value_unit, (double)e->total, 10);
        pk_out_putc(out, ' ');
        percent_cell(out, (double)e->total, (double)r->function_total, 7);
        pk_out_puts(out, "  ");
        pk_out_shortened(out, e->own ? (callees ? "(self)" : "(root)") : e->name, columns);
        pk_out_putc(out, '\n');
    }
}

static void text_lines(const pk_report *r, size_t width, pk_output *out)
{
    value_label(out, r->value_name, r->value_unit);
    if (!r->has_lines) {
        pk_out_puts(out, ": the profile has no source lines\n");
        return;
    }
    char total_text[PK_VALUE_TEXT];
    double grand = (double)r->total;
    double share_base = (double)r->percent_base;
    pk_value_text(total_text, sizeof total_text, grand, r->value_unit, false);
    pk_out_printf(out, ": total %s", total_text);
    shares_note(r, out);
    pk_out_printf(out, "; %zu of %zu lines by %s\n", r->entry_count,
                  r->entries_available, r->sort_total ? "total" : "self");
    pk_out_puts(out, "      self   self%      total  total%  line  function\n");
    size_t columns = name_columns(width, 39);
    for (size_t i = 0; i < r->entry_count; i++) {
        const pk_report_entry *e = &r->entries[i];
        value_cell(out, r->value_unit, (double)e->self, 10);
        pk_out_putc(out, ' ');
        percent_cell(out, (double)e->self, share_base, 7);
        pk_out_putc(out, ' ');
        value_cell(out, r->value_unit, (double)e->total, 10);
        pk_out_putc(out, ' ');
        percent_cell(out, (double)e->total, share_base, 7);
        pk_out_puts(out, "  ");
        location(out, e->file, e->line, e->name, columns);
        pk_out_putc(out, '\n');
    }
}

/* unfreed, allocated and freed: bytes and blocks of each. */
static void memory_cells(pk_output *out, const pk_memory_totals *m)
{
    const int64_t values[3][2] = {{m->unfreed, m->unfreed_count},
                                  {m->allocated, m->allocated_count},
                                  {m->freed, m->freed_count}};
    for (int i = 0; i < 3; i++) {
        if (i)
            pk_out_putc(out, ' ');
        value_cell(out, "bytes", (double)values[i][0], 10);
        pk_out_printf(out, " %7lld", (long long)values[i][1]);
    }
}

static void text_memory(const pk_report *r, size_t width, pk_output *out)
{
    if (!r->has_memory_events) {
        pk_out_puts(out, "memory: the profile has no memory events\n");
        return;
    }
    const pk_memory_totals *m = &r->memory;
    char a[PK_VALUE_TEXT], f[PK_VALUE_TEXT], u[PK_VALUE_TEXT];
    pk_value_text(a, sizeof a, (double)m->allocated, "bytes", false);
    pk_value_text(f, sizeof f, (double)m->freed, "bytes", false);
    pk_value_text(u, sizeof u, (double)m->unfreed, "bytes", false);
    pk_out_printf(out, "memory: %s unfreed in %lld blocks\nallocated %s in %lld blocks, "
                       "freed %s in %lld blocks\n",
                  u, (long long)m->unfreed_count, a, (long long)m->allocated_count, f,
                  (long long)m->freed_count);
    if (r->unmatched_frees)
        pk_out_printf(out, "%llu frees of blocks not allocated in the profile\n",
                      (unsigned long long)r->unmatched_frees);
    pk_out_putc(out, '\n');
    const char *header = "   unfreed  blocks  allocated  blocks      freed  blocks\n    ";
    size_t columns = name_columns(width, 4);
    pk_out_printf(out, "by call path, heaviest unfreed first (%zu of %zu):\n%scall path\n",
                  r->path_count, r->paths_available, header);
    for (size_t i = 0; i < r->path_count; i++) {
        const pk_memory_site *site = &r->paths[i];
        memory_cells(out, &site->memory);
        pk_out_puts(out, "\n    ");
        if (site->path_length == 0)
            pk_out_puts(out, "(no stack)");
        else
            call_path(out, site->path, site->path_length, columns);
        pk_out_putc(out, '\n');
    }
    pk_out_printf(out, "\nby allocating line (%zu of %zu):\n%sline\n", r->line_count,
                  r->lines_available, header);
    for (size_t i = 0; i < r->line_count; i++) {
        const pk_memory_site *site = &r->lines[i];
        memory_cells(out, &site->memory);
        if (!site->function[0] && !site->line) {
            pk_out_puts(out, "\n    (no stack)\n");
            continue;
        }
        pk_out_puts(out, "\n    ");
        location(out, site->file, site->line, site->function, columns);
        pk_out_putc(out, '\n');
    }
}

static void text_threads(const pk_report *r, size_t width, pk_output *out)
{
    char total_text[PK_VALUE_TEXT];
    double grand = (double)r->total;
    double share_base = (double)r->percent_base;
    pk_value_text(total_text, sizeof total_text, grand, r->value_unit, false);
    value_label(out, r->value_name, r->value_unit);
    pk_out_printf(out, ": total %s", total_text);
    shares_note(r, out);
    pk_out_printf(out, "; %zu of %zu threads\n", r->entry_count,
                  r->entries_available);
    pk_out_puts(out, "     total  total%   stacks  thread\n");
    size_t columns = name_columns(width, 29);
    for (size_t i = 0; i < r->entry_count; i++) {
        const pk_report_entry *e = &r->entries[i];
        value_cell(out, r->value_unit, (double)e->total, 10);
        pk_out_putc(out, ' ');
        percent_cell(out, (double)e->total, share_base, 7);
        pk_out_printf(out, " %8zu  ", e->stacks);
        char ids[64] = "";
        if (e->pid >= 0 && e->tid >= 0)
            snprintf(ids, sizeof ids, " (pid %lld, tid %lld)", (long long)e->pid,
                     (long long)e->tid);
        else if (e->tid >= 0)
            snprintf(ids, sizeof ids, " (tid %lld)", (long long)e->tid);
        else if (e->pid >= 0)
            snprintf(ids, sizeof ids, " (pid %lld)", (long long)e->pid);
        size_t id_columns = strlen(ids);
        if (columns && id_columns + 8 > columns)
            ids[0] = '\0', id_columns = 0;
        pk_out_shortened(out, e->name[0] ? e->name : "(unnamed)",
                         columns ? columns - id_columns : 0);
        pk_out_puts(out, ids);
        pk_out_putc(out, '\n');
    }
}

pk_status pk_report_write_text(const pk_report *r, size_t width, pk_output *out, pk_error *err)
{
    switch (r->view) {
    case PK_REPORT_TOP: text_top(r, width, out); break;
    case PK_REPORT_TREE: text_tree(r, width, out); break;
    case PK_REPORT_CALLERS:
    case PK_REPORT_CALLEES: text_neighbours(r, width, out); break;
    case PK_REPORT_LINES: text_lines(r, width, out); break;
    case PK_REPORT_MEMORY: text_memory(r, width, out); break;
    case PK_REPORT_THREADS: text_threads(r, width, out); break;
    default:
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no report view number %d",
                            (int)r->view);
    }
    return PK_OK;
}

/* ---- the diff report ---------------------------------------------------------------------------- */

/* "+12.5%" of base; "new" when the base is 0 (and something is there), "-" when neither is. */
static void change_percent_text(char *buf, size_t size, double base, double newer)
{
    if (base != 0)
        snprintf(buf, size, "%+.1f%%", 100.0 * (newer - base) / fabs(base));
    else
        snprintf(buf, size, newer != 0 ? "new" : "-");
}

pk_status pk_diff_report_write_text(const pk_diff_report *r, size_t width, pk_output *out,
                                    pk_error *err)
{
    (void)err;
    char base_text[PK_VALUE_TEXT], new_text[PK_VALUE_TEXT], change_text[PK_VALUE_TEXT];
    pk_value_text(base_text, sizeof base_text, (double)r->base_total, r->unit, false);
    pk_value_text(new_text, sizeof new_text, (double)r->new_total, r->unit, false);
    change_percent_text(change_text, sizeof change_text, (double)r->base_total,
                        (double)r->new_total);
    value_label(out, r->value_name, r->unit);
    pk_out_printf(out, ": base %s, new %s (%s)", base_text, new_text, change_text);
    if (r->normalized)
        pk_out_printf(out, "; base scaled by %.4g", r->base_scale);
    const char *measure = r->measure == PK_DIFF_TOTAL ? "total" : "self";
    pk_out_printf(out, "\n%zu of %zu %s by change of %s\n", r->row_count, r->rows_available,
                  r->by_path ? "call paths" : "functions", measure);
    pk_out_printf(out, "      base        new      change  change%%  %s\n",
                  r->by_path ? "call path" : "function");
    size_t columns = width ? (width > 52 ? width - 44 : 8) : 0;
    for (size_t i = 0; i < r->row_count && !pk_out_failed(out); i++) {
        const pk_diff_row *row = &r->rows[i];
        pk_value_text(base_text, sizeof base_text, (double)row->base, r->unit, false);
        pk_value_text(new_text, sizeof new_text, (double)row->newer, r->unit, false);
        pk_value_text(change_text, sizeof change_text, (double)row->change, r->unit, true);
        pk_out_cell(out, base_text, 10, true);
        pk_out_putc(out, ' ');
        pk_out_cell(out, new_text, 10, true);
        pk_out_putc(out, ' ');
        pk_out_cell(out, change_text, 11, true);
        pk_out_putc(out, ' ');
        change_percent_text(change_text, sizeof change_text, (double)row->base,
                            (double)row->newer);
        pk_out_cell(out, change_text, 8, true);
        pk_out_puts(out, "  ");
        if (r->by_path)
            call_path(out, row->path, row->path_length, columns);
        else
            pk_out_shortened(out, row->name, columns);
        pk_out_putc(out, '\n');
    }
    return PK_OK;
}
