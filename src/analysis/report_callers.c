/* Callers and callees of one function, from the call tree merged by name. A function that
 * recurses is counted at its outermost calls only, so shares add up to its total. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/stack_walk.h"
#include "analysis/units.h"
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

pk_status pk_report_neighbours(const pk_profile *p, const pk_report_options *o, bool callees,
                               pk_output *out, pk_error *err)
{
    uint32_t value;
    pk_status st = pk_report_value(p, o->value, &value, err);
    if (st != PK_OK)
        return st;
    if (!o->function)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "no function given");
    pk_thread_selection selection = {p, o->thread_pattern};
    pk_calltree tree;
    memset(&tree, 0, sizeof tree);
    st = pk_calltree_build(&tree, p, value, 0, pk_thread_selection_filter, &selection, err);
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
    bool found = false;
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
        found = true;
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
    if (!found) {
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
    size_t shown = o->top && o->top < count ? o->top : count;
    int64_t grand = tree.count ? tree.nodes[0].total : 0;
    const char *own_label = callees ? "(self)" : "(root)";

    if (o->json) {
        pk_report_json_begin(out, p, callees ? "callees" : "callers", value, grand);
        pk_out_puts(out, "\"function\":");
        pk_out_json_string(out, o->function);
        pk_out_puts(out, ",\"function_total\":");
        pk_out_i64(out, function_total);
        pk_out_puts(out, ",\"function_self\":");
        pk_out_i64(out, function_self);
        pk_out_puts(out, callees ? ",\"callees\":[" : ",\"callers\":[");
        for (size_t i = 0; i < shown; i++) {
            pk_out_puts(out, i ? ",{\"name\":" : "{\"name\":");
            if (list[i].name == PK_NONE)
                pk_out_puts(out, "null");
            else
                pk_out_json_string(out, pk_str(p, list[i].name));
            pk_out_puts(out, ",\"value\":");
            pk_out_i64(out, list[i].value);
            pk_out_puts(out, ",\"share_percent\":");
            pk_out_double(out, pk_percent((double)list[i].value, (double)function_total));
            pk_out_puts(out, ",\"percent\":");
            pk_out_double(out, pk_percent((double)list[i].value, (double)grand));
            pk_out_putc(out, '}');
        }
        pk_out_puts(out, "]}\n");
        goto done;
    }
    const char *unit = pk_str(p, pk_value_type_at(p, value)->unit);
    char total_text[PK_VALUE_TEXT], percent_text[PK_VALUE_TEXT];
    pk_value_text(total_text, sizeof total_text, (double)function_total, unit, false);
    pk_percent_text(percent_text, sizeof percent_text, (double)function_total, (double)grand);
    pk_out_puts(out, callees ? "callees of " : "callers of ");
    pk_out_shortened(out, o->function, pk_report_name_columns(o, 40));
    pk_out_puts(out, ": ");
    pk_report_value_label(out, p, value);
    pk_out_printf(out, " %s (%s of all)\n", total_text, percent_text);
    pk_out_printf(out, "     value   share  %s\n", callees ? "callee" : "caller");
    size_t name_columns = pk_report_name_columns(o, 20);
    for (size_t i = 0; i < shown; i++) {
        pk_report_value_cell(out, p, value, (double)list[i].value, 10);
        pk_out_putc(out, ' ');
        pk_report_percent_cell(out, (double)list[i].value, (double)function_total, 7);
        pk_out_puts(out, "  ");
        pk_out_shortened(out, list[i].name == PK_NONE ? own_label : pk_str(p, list[i].name),
                         name_columns);
        pk_out_putc(out, '\n');
    }
done:
    free(matches);
    free(inside);
    free(sums);
    free(list);
    pk_calltree_free(&tree);
    return st;
}
