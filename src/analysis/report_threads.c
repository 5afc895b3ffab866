/* Each thread's total of the value, heaviest first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/stack_walk.h"
#include "analysis/units.h"

typedef struct thread_total {
    uint32_t thread;
    int64_t total;
    uint64_t rows;
} thread_total;

static int compare_threads(const void *pa, const void *pb)
{
    const thread_total *a = pa, *b = pb;
    if (a->total != b->total)
        return a->total > b->total ? -1 : 1;
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

pk_status pk_report_threads(const pk_profile *p, const pk_report_options *o, pk_output *out,
                            pk_error *err)
{
    uint32_t value;
    pk_status st = pk_report_value(p, o->value, &value, err);
    if (st != PK_OK)
        return st;
    size_t threads = pk_thread_count(p);
    thread_total *list = calloc(threads ? threads : 1, sizeof *list);
    if (!list)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    for (size_t t = 0; t < threads; t++)
        list[t].thread = (uint32_t)t;
    int64_t grand = 0;
    size_t rows = pk_sample_count(p);
    for (size_t r = 0; r < rows; r++) {
        uint32_t t = pk_sample_thread(p, r);
        if (t >= threads)
            continue;
        int64_t v = pk_sample_values(p, r)[value];
        list[t].total += v;
        list[t].rows++;
    }
    size_t count = 0;
    for (size_t t = 0; t < threads; t++) {
        const pk_thread *th = pk_thread_at(p, (uint32_t)t);
        if (!pk_thread_name_matches(pk_str(p, th->name), o->thread_pattern))
            continue;
        grand += list[t].total;
        list[count++] = list[t];
    }
    qsort(list, count, sizeof *list, compare_threads);
    size_t shown = o->top && o->top < count ? o->top : count;
    if (o->json) {
        pk_report_json_begin(out, p, "threads", value, grand);
        pk_out_printf(out, "\"thread_count\":%zu,\"threads\":[", count);
        for (size_t i = 0; i < shown; i++) {
            const pk_thread *th = pk_thread_at(p, list[i].thread);
            pk_out_puts(out, i ? ",{\"name\":" : "{\"name\":");
            pk_out_json_string(out, pk_str(p, th->name));
            pk_out_puts(out, ",\"pid\":");
            pk_out_i64(out, th->pid);
            pk_out_puts(out, ",\"tid\":");
            pk_out_i64(out, th->tid);
            pk_out_puts(out, ",\"total\":");
            pk_out_i64(out, list[i].total);
            pk_out_puts(out, ",\"percent\":");
            pk_out_double(out, pk_percent((double)list[i].total, (double)grand));
            pk_out_puts(out, ",\"stacks\":");
            pk_out_u64(out, list[i].rows);
            pk_out_putc(out, '}');
        }
        pk_out_puts(out, "]}\n");
        free(list);
        return PK_OK;
    }
    char total_text[PK_VALUE_TEXT];
    pk_value_text(total_text, sizeof total_text, (double)grand,
                  pk_str(p, pk_value_type_at(p, value)->unit), false);
    pk_report_value_label(out, p, value);
    pk_out_printf(out, ": total %s; %zu of %zu threads\n", total_text, shown, count);
    pk_out_puts(out, "     total  total%   stacks  thread\n");
    size_t name_columns = pk_report_name_columns(o, 29);
    for (size_t i = 0; i < shown; i++) {
        const pk_thread *th = pk_thread_at(p, list[i].thread);
        pk_report_value_cell(out, p, value, (double)list[i].total, 10);
        pk_out_putc(out, ' ');
        pk_report_percent_cell(out, (double)list[i].total, (double)grand, 7);
        pk_out_printf(out, " %8llu  ", (unsigned long long)list[i].rows);
        const char *name = pk_str(p, th->name);
        char ids[64] = "";
        if (th->pid >= 0 && th->tid >= 0)
            snprintf(ids, sizeof ids, " (pid %lld, tid %lld)", (long long)th->pid,
                     (long long)th->tid);
        else if (th->tid >= 0)
            snprintf(ids, sizeof ids, " (tid %lld)", (long long)th->tid);
        else if (th->pid >= 0)
            snprintf(ids, sizeof ids, " (pid %lld)", (long long)th->pid);
        size_t id_columns = strlen(ids);
        if (name_columns && id_columns + 8 > name_columns)
            ids[0] = '\0', id_columns = 0;
        pk_out_shortened(out, name[0] ? name : "(unnamed)",
                         name_columns ? name_columns - id_columns : 0);
        pk_out_puts(out, ids);
        pk_out_putc(out, '\n');
    }
    free(list);
    return PK_OK;
}
