/* Text and JSON reports of a profile: the flat table of functions, the call tree, callers and
 * callees of a function, source lines, the memory (leak) report and per-thread totals.
 * Every view writes to a pk_output, as text that fits `width` columns or as one JSON object. */
#ifndef PK_ANALYSIS_REPORT_H
#define PK_ANALYSIS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/output.h"
#include "profkit/profile.h"

typedef struct pk_report_options {
    uint32_t value;             /* value type shown; PK_NONE = the profile's default */
    size_t top;                 /* rows shown by flat views; 0 = all */
    bool sort_total;            /* flat views: sort by total instead of self */
    double min_percent;         /* tree: hide branches below this share of the total */
    const char *function;       /* callers/callees: the function's name */
    const char *thread_pattern; /* only threads whose name matches; NULL = all */
    bool json;
    size_t width;               /* text line width; 0 = no limit (long names kept whole) */
} pk_report_options;

/* Defaults: default value, top 20, sort by self, min_percent 1, text in 80 columns. */
void pk_report_options_init(pk_report_options *o);

pk_status pk_report_top(const pk_profile *p, const pk_report_options *o, pk_output *out,
                        pk_error *err);
pk_status pk_report_tree(const pk_profile *p, const pk_report_options *o, pk_output *out,
                         pk_error *err);
/* callees = false: who calls o->function; true: what it calls. */
pk_status pk_report_neighbours(const pk_profile *p, const pk_report_options *o, bool callees,
                               pk_output *out, pk_error *err);
pk_status pk_report_lines(const pk_profile *p, const pk_report_options *o, pk_output *out,
                          pk_error *err);
pk_status pk_report_memory(const pk_profile *p, const pk_report_options *o, pk_output *out,
                           pk_error *err);
pk_status pk_report_threads(const pk_profile *p, const pk_report_options *o, pk_output *out,
                            pk_error *err);

/* Shared by the views. */
/* Opens the JSON object of a view: {"view":NAME,"value":{"name":..,"unit":..},"total":T, */
void pk_report_json_begin(pk_output *out, const pk_profile *p, const char *view, uint32_t value,
                          int64_t total);
/* "cpu (nanoseconds)" */
void pk_report_value_label(pk_output *out, const pk_profile *p, uint32_t value);
/* Writes a value scaled to a readable unit in a right-aligned column. */
void pk_report_value_cell(pk_output *out, const pk_profile *p, uint32_t value, double v,
                          size_t columns);
void pk_report_percent_cell(pk_output *out, double part, double whole, size_t columns);
/* Writes "file:line  function" in at most max_columns (0: no limit), shortening the file in
 * the middle and the function only when it takes more than half; the line number is always
 * whole. line 0 writes the function alone. */
void pk_report_location(pk_output *out, const char *file, uint32_t line, const char *function,
                        size_t max_columns);
/* Columns left for a name after `used` columns; 0 (unlimited) when width is 0. */
size_t pk_report_name_columns(const pk_report_options *o, size_t used);

#endif
