/* SPDX-License-Identifier: MIT */
/* Interactive SVG flame graphs of a call tree: width by value, a tooltip per frame, click to
 * zoom, search with the matched share, colours by category of code (analysis/categories.h, the
 * categories of the Firefox Profiler output too); icicle when inverted; and the differential
 * form that colours each frame by its change from a base. */
#ifndef PK_ANALYSIS_FLAMEGRAPH_H
#define PK_ANALYSIS_FLAMEGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "profkit/calltree.h"
#include "core/output.h"
#include "profkit/profile.h"

typedef struct pk_flamegraph_options {
    const char *title;      /* NULL: "Flame Graph" */
    const char *subtitle;   /* NULL: none */
    const char *unit;       /* unit of the values, for the tooltips */
    bool inverted;          /* icicle: roots at the top */
    bool thread_roots;      /* the first level of the tree is threads */
    double image_width;     /* pixels; 0 = 1200 */
    double frame_height;    /* pixels; 0 = 16 */
    double min_width;       /* frames narrower than this many pixels are merged; < 0 = 0.1 */
    /* Differential graph: the base value of every node's total (already normalised); frames
     * are red where the value grew and blue where it shrank. NULL for a plain graph. */
    const double *base_totals;
} pk_flamegraph_options;

void pk_flamegraph_options_init(pk_flamegraph_options *o);

/* Writes the tree (built from p, whose strings and functions it names) as one SVG document. */
pk_status pk_flamegraph_write(const pk_profile *p, const pk_calltree *tree,
                              const pk_flamegraph_options *o, pk_output *out, pk_error *err);

#endif
