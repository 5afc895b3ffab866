/* Defaults and framing shared by the report views. */
#include "analysis/report.h"

#include <stdio.h>

#include "analysis/units.h"

void pk_report_options_init(pk_report_options *o)
{
    o->value = PK_NONE;
    o->top = 20;
    o->sort_total = false;
    o->min_percent = 1.0;
    o->function = NULL;
    o->thread_pattern = NULL;
    o->json = false;
    o->width = 80;
}

void pk_report_json_begin(pk_output *out, const pk_profile *p, const char *view, uint32_t value,
                          int64_t total)
{
    const pk_value_type *vt = pk_value_type_at(p, value);
    pk_out_puts(out, "{\"view\":");
    pk_out_json_string(out, view);
    pk_out_puts(out, ",\"value\":{\"name\":");
    pk_out_json_string(out, vt ? pk_str(p, vt->name) : "");
    pk_out_puts(out, ",\"unit\":");
    pk_out_json_string(out, vt ? pk_str(p, vt->unit) : "");
    pk_out_puts(out, "},\"total\":");
    pk_out_i64(out, total);
    pk_out_putc(out, ',');
}

void pk_report_value_label(pk_output *out, const pk_profile *p, uint32_t value)
{
    const pk_value_type *vt = pk_value_type_at(p, value);
    if (!vt)
        return;
    pk_out_puts(out, pk_str(p, vt->name));
    if (pk_str_len(p, vt->unit))
        pk_out_printf(out, " (%s)", pk_str(p, vt->unit));
}

void pk_report_value_cell(pk_output *out, const pk_profile *p, uint32_t value, double v,
                          size_t columns)
{
    const pk_value_type *vt = pk_value_type_at(p, value);
    char text[PK_VALUE_TEXT];
    pk_value_text(text, sizeof text, v, vt ? pk_str(p, vt->unit) : "", false);
    pk_out_cell(out, text, columns, true);
}

void pk_report_percent_cell(pk_output *out, double part, double whole, size_t columns)
{
    char text[PK_VALUE_TEXT];
    pk_percent_text(text, sizeof text, part, whole);
    pk_out_cell(out, text, columns, true);
}

size_t pk_report_name_columns(const pk_report_options *o, size_t used)
{
    if (o->width == 0)
        return 0;
    return o->width > used + 8 ? o->width - used : 8;
}

void pk_report_location(pk_output *out, const char *file, uint32_t line, const char *function,
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
        pk_out_shortened(out, function, function_columns ? function_columns : 0);
    }
}
