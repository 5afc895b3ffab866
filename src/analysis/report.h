/* SPDX-License-Identifier: MIT */
/* Building the views of profkit/report.h. report.c checks the options and fills what every
 * view shares; each view's builder (report_top.c, report_tree.c, ...) fills the rest;
 * report_text.c and report_json.c render a built report. */
#ifndef PK_ANALYSIS_REPORT_H
#define PK_ANALYSIS_REPORT_H

#include <stdint.h>

#include "profkit/report.h"
#include "profkit/thread_names.h"

/* A report with what its pointers point to: freed together by pk_report_free. */
typedef struct pk_report_storage {
    pk_report report;
    const char **path_names; /* memory: the call paths of the sites, one after another */
    pk_thread_names *thread_names; /* what the threads and thread branches are called */
} pk_report_storage;

/* The builders, given the value to report (already checked; ignored by the memory view). They
 * fill the view's rows and its total; on failure the caller frees what they allocated. */
pk_status pk_report_build_top(pk_report_storage *s, const pk_profile *p,
                              const pk_report_options *o, uint32_t value, pk_error *err);
pk_status pk_report_build_tree(pk_report_storage *s, const pk_profile *p,
                               const pk_report_options *o, uint32_t value, pk_error *err);
/* Callers or callees, as o->view says. */
pk_status pk_report_build_neighbours(pk_report_storage *s, const pk_profile *p,
                                     const pk_report_options *o, uint32_t value,
                                     pk_error *err);
pk_status pk_report_build_lines(pk_report_storage *s, const pk_profile *p,
                                const pk_report_options *o, uint32_t value, pk_error *err);
pk_status pk_report_build_memory(pk_report_storage *s, const pk_profile *p,
                                 const pk_report_options *o, uint32_t value, pk_error *err);
pk_status pk_report_build_threads(pk_report_storage *s, const pk_profile *p,
                                  const pk_report_options *o, uint32_t value, pk_error *err);

/* How many of `available` rows a view keeps: `top` of them, or all when top is 0. */
static inline size_t pk_report_shown(size_t top, size_t available)
{
    return top && top < available ? top : available;
}

#endif
