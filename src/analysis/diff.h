/* Comparing two profiles: per function or per call path, the value in each, the change and the
 * change in percent, biggest change first; as folded lines with two counts; as a differential
 * flame graph. */
#ifndef PK_ANALYSIS_DIFF_H
#define PK_ANALYSIS_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/output.h"
#include "profkit/profile.h"

/* Both profiles merged into one with two values: 0 = base, 1 = new. */
typedef struct pk_diff {
    pk_profile *profile;
    int64_t base_total;
    int64_t new_total;
    double base_scale; /* base values are multiplied by this: new_total / base_total with
                        * normalisation, 1 without */
    bool normalized;
} pk_diff;

/* Fails with PK_ERR_USAGE when the two values have different units. */
pk_status pk_diff_build(pk_diff *d, const pk_profile *base, uint32_t base_value,
                        const pk_profile *newer, uint32_t new_value, bool normalize,
                        pk_error *err);
void pk_diff_free(pk_diff *d);

typedef enum pk_diff_measure {
    PK_DIFF_DEFAULT, /* self values per function, totals per call path */
    PK_DIFF_SELF,
    PK_DIFF_TOTAL
} pk_diff_measure;

typedef struct pk_diff_report_options {
    bool by_path;     /* per call path instead of per function */
    pk_diff_measure measure;
    size_t top;       /* rows; 0 = all */
    bool json;
    size_t width;     /* 0 = no limit */
} pk_diff_report_options;

pk_status pk_diff_report(const pk_diff *d, const pk_diff_report_options *o, pk_output *out,
                         pk_error *err);
/* "frame;frame;frame BASE NEW" per call path with a self value in either (base scaled and
 * rounded when normalised). */
pk_status pk_diff_write_folded(const pk_diff *d, pk_output *out, pk_error *err);
/* Widths by the new profile, red where a frame grew, blue where it shrank. */
pk_status pk_diff_write_svg(const pk_diff *d, const char *title, pk_output *out, pk_error *err);

#endif
