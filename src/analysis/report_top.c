/* The flat table: functions (merged by name) with self and total value, sorted by either. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/stack_walk.h"
#include "analysis/units.h"

typedef struct top_entry {
    uint32_t name;
    int64_t self;
    int64_t total;
} top_entry;

typedef struct top_sort {
    const pk_profile *p;
    bool by_total;
} top_sort;

static int compare_i64_desc(int64_t a, int64_t b)
{
    return a > b ? -1 : a < b ? 1 : 0;
}

static int compare_entries(const void *pa, const void *pb, void *context)
{
    const top_sort *sort_context = context;
    const top_entry *a = pa, *b = pb;
    int c = sort_context->by_total ? compare_i64_desc(a->total, b->total)
                                  : compare_i64_desc(a->self, b->self);
    if (c == 0)
        c = sort_context->by_total ? compare_i64_desc(a->self, b->self)
                                  : compare_i64_desc(a->total, b->total);
    if (c == 0)
        c = strcmp(pk_str(sort_context->p, a->name), pk_str(sort_context->p, b->name));
    return c;
}

pk_status pk_report_top(const pk_profile *p, const pk_report_options *o, pk_output *out,
                        pk_error *err)
{
    uint32_t value;
    pk_status st = pk_report_value(p, o->value, &value, err);
    if (st != PK_OK)
        return st;
    pk_stack_values sv;
    st = pk_stack_values_compute(&sv, p, value, o->thread_pattern, err);
    if (st != PK_OK)
        return st;
    size_t strings = pk_string_count(p);
    size_t stacks = sv.stack_count;
    uint32_t *key_of_stack = malloc((stacks ? stacks : 1) * sizeof *key_of_stack);
    int64_t *self = calloc(strings ? strings : 1, sizeof *self);
    int64_t *total = calloc(strings ? strings : 1, sizeof *total);
    top_entry *entries = NULL;
    if (!key_of_stack || !self || !total) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    for (size_t s = 0; s < stacks; s++) {
        const pk_frame *f = pk_frame_at(p, pk_stack_at(p, (uint32_t)s)->frame);
        key_of_stack[s] = pk_function_at(p, f->function)->name;
    }
    st = pk_key_totals(p, &sv, key_of_stack, strings, self, total, err);
    if (st != PK_OK)
        goto done;

    size_t count = 0;
    for (size_t i = 0; i < strings; i++)
        count += self[i] != 0 || total[i] != 0;
    entries = malloc((count ? count : 1) * sizeof *entries);
    if (!entries) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    count = 0;
    for (size_t i = 0; i < strings; i++)
        if (self[i] != 0 || total[i] != 0)
            entries[count++] = (top_entry){(uint32_t)i, self[i], total[i]};
    top_sort sort_context = {p, o->sort_total};
    qsort_r(entries, count, sizeof *entries, compare_entries, &sort_context);
    size_t shown = o->top && o->top < count ? o->top : count;
    double grand = (double)sv.grand_total;

    if (o->json) {
        pk_report_json_begin(out, p, "top", value, sv.grand_total);
        pk_out_printf(out, "\"sort\":\"%s\",\"function_count\":%zu,\"functions\":[",
                      o->sort_total ? "total" : "self", count);
        double running = 0;
        for (size_t i = 0; i < shown; i++) {
            running += (double)entries[i].self;
            pk_out_puts(out, i ? ",{\"name\":" : "{\"name\":");
            pk_out_json_string(out, pk_str(p, entries[i].name));
            pk_out_puts(out, ",\"self\":");
            pk_out_i64(out, entries[i].self);
            pk_out_puts(out, ",\"self_percent\":");
            pk_out_double(out, pk_percent((double)entries[i].self, grand));
            pk_out_puts(out, ",\"sum_percent\":");
            pk_out_double(out, pk_percent(running, grand));
            pk_out_puts(out, ",\"total\":");
            pk_out_i64(out, entries[i].total);
            pk_out_puts(out, ",\"total_percent\":");
            pk_out_double(out, pk_percent((double)entries[i].total, grand));
            pk_out_putc(out, '}');
        }
        pk_out_puts(out, "]}\n");
        goto done;
    }

    pk_report_value_label(out, p, value);
    char total_text[PK_VALUE_TEXT];
    pk_value_text(total_text, sizeof total_text, grand,
                  pk_str(p, pk_value_type_at(p, value)->unit), false);
    pk_out_printf(out, ": total %s; %zu of %zu functions by %s\n", total_text, shown, count,
                  o->sort_total ? "total" : "self");
    pk_out_puts(out, "      self   self%    sum%      total  total%  function\n");
    size_t name_columns = pk_report_name_columns(o, 47);
    double running = 0;
    for (size_t i = 0; i < shown; i++) {
        running += (double)entries[i].self;
        pk_report_value_cell(out, p, value, (double)entries[i].self, 10);
        pk_out_putc(out, ' ');
        pk_report_percent_cell(out, (double)entries[i].self, grand, 7);
        pk_out_putc(out, ' ');
        pk_report_percent_cell(out, running, grand, 7);
        pk_out_putc(out, ' ');
        pk_report_value_cell(out, p, value, (double)entries[i].total, 10);
        pk_out_putc(out, ' ');
        pk_report_percent_cell(out, (double)entries[i].total, grand, 7);
        pk_out_puts(out, "  ");
        pk_out_shortened(out, pk_str(p, entries[i].name), name_columns);
        pk_out_putc(out, '\n');
    }
done:
    free(entries);
    free(key_of_stack);
    free(self);
    free(total);
    pk_stack_values_free(&sv);
    return st;
}
