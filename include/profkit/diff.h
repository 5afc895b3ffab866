/* SPDX-License-Identifier: MIT */
/* Comparing two profiles.
 *
 * pk_diff_profiles makes a differential profile: the two inputs merged by call path into one
 * profile with two values of the same unit, "base" (value 0) and "new" (value 1), and
 * pk_metadata.differential set. It is an ordinary profile: the registry's writers write it
 * (folded stacks as "stack BASE NEW" lines, as flamegraph.pl's difffolded writes them; the
 * SVG writer draws a differential flame graph), the folded reader reads such lines back into
 * one, and the diff report tabulates it.
 *
 * Ownership: profiles and reports made here belong to the caller; names in a report point into
 * the differential profile's strings.
 */
#ifndef PROFKIT_DIFF_H
#define PROFKIT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/error.h"
#include "profkit/export.h"
#include "profkit/output.h"
#include "profkit/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PK_DIFF_BASE 0u
#define PK_DIFF_NEW 1u

/* Compares value base_value of base with value new_value of newer (PK_NONE: each profile's
 * default): *out receives a new differential profile. Both inputs are copied into it
 * (pk_profile_copy: threads matched by name, memory events kept apart), value "base" from
 * base and "new" from newer; "new" is its default value. With normalize, base values are
 * scaled to newer's total and rounded per sample row. The properties "diff.value" (the name of
 * the value compared) and, with normalize, "diff.base_scale" (the factor) record what was
 * done. Fails with PK_ERR_USAGE when the two values have different units. The inputs are only
 * read and may be freed afterwards. */
PK_API pk_status pk_diff_profiles(const pk_profile *base, uint32_t base_value,
                                  const pk_profile *newer, uint32_t new_value, bool normalize,
                                  pk_profile **out, pk_error *err);

typedef enum pk_diff_measure {
    PK_DIFF_DEFAULT, /* self values per function, totals per call path */
    PK_DIFF_SELF,
    PK_DIFF_TOTAL
} pk_diff_measure;

typedef struct pk_diff_report_options {
    bool by_path;    /* per call path instead of per function */
    pk_diff_measure measure;
    size_t top;      /* rows; 0 = all */
} pk_diff_report_options;

typedef struct pk_diff_row {
    const char *name;        /* the function, or the leaf of the call path */
    const char *const *path; /* by_path: the call path, outermost first; else NULL */
    size_t path_length;
    int64_t base, newer;     /* the measure in each profile */
    int64_t change;          /* newer - base */
    double change_percent;   /* of base; infinite (the JSON and text say "new") when base is 0 */
} pk_diff_row;

typedef struct pk_diff_report {
    const char *value_name;  /* the value compared ("cpu"; "diff.value"), "" when unknown */
    const char *unit;
    bool normalized;         /* base values were scaled to the new total ("diff.base_scale") */
    double base_scale;       /* by this factor; 1 when not normalized */
    bool by_path;
    pk_diff_measure measure; /* never PK_DIFF_DEFAULT here */
    int64_t base_total, new_total; /* of every sample row (base values as scaled) */
    pk_diff_row *rows;       /* biggest change first */
    size_t row_count;
    size_t rows_available;   /* before the top limit */
} pk_diff_report;

/* Tabulates a differential profile (pk_metadata.differential, values base and new): *out
 * receives a new report, which belongs to the caller (pk_diff_report_free) and whose names
 * point into diff's strings (valid while diff lives). options may be NULL (per function, self
 * values, every row). Fails with PK_ERR_USAGE for a profile that is not differential. */
PK_API pk_status pk_diff_report_build(const pk_profile *diff,
                                      const pk_diff_report_options *options,
                                      pk_diff_report **out, pk_error *err);
/* NULL is allowed. */
PK_API void pk_diff_report_free(pk_diff_report *r);
/* Text for a terminal: the totals, then one row per function or path with the values in
 * readable units; names shortened in the middle to fit width columns (0: no limit). */
PK_API pk_status pk_diff_report_write_text(const pk_diff_report *r, size_t width,
                                           pk_output *out, pk_error *err);
/* One JSON object: view "diff", by, measure, value, the totals, normalized, base_scale,
 * row_count and rows (a change_percent of null where the base is 0). */
PK_API pk_status pk_diff_report_write_json(const pk_diff_report *r, pk_output *out,
                                           pk_error *err);

#ifdef __cplusplus
}
#endif

#endif
