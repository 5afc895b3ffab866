/* SPDX-License-Identifier: MIT */
/* Reports: the answers `profkit report` prints, as data first and then as text or JSON.
 *
 *   pk_report_options o;
 *   pk_report_options_init(&o);          // top 20 functions by self value
 *   pk_report *r;
 *   if (pk_report_build(profile, &o, &r, &err) == PK_OK) {
 *       for (size_t i = 0; i < r->entry_count; i++)
 *           printf("%s %lld\n", r->entries[i].name, (long long)r->entries[i].self);
 *       pk_report_write_text(r, 80, out, &err);
 *       pk_report_free(r);
 *   }
 *
 * Views merge frames by function name: a function's total counts each sample once however
 * often the function appears in its stack (recursion).
 *
 * Ownership: a report belongs to the caller (pk_report_free). Its names and files (function
 * included) point into the profile's strings and stay valid while the profile lives; its
 * arrays (entries, nodes, memory sites and their paths) are the report's own. The options,
 * with their strings, are only read while the report is built.
 */
#ifndef PROFKIT_REPORT_H
#define PROFKIT_REPORT_H

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

typedef enum pk_report_view {
    PK_REPORT_TOP,     /* functions by self (or total) value */
    PK_REPORT_TREE,    /* the call tree from the bottom of the stack */
    PK_REPORT_CALLERS, /* who calls a function, with each caller's share */
    PK_REPORT_CALLEES, /* what a function calls, and its own value */
    PK_REPORT_LINES,   /* source lines by self (or total) value */
    PK_REPORT_MEMORY,  /* allocated, freed and unfreed memory per call path and per line */
    PK_REPORT_THREADS  /* each thread's total */
} pk_report_view;

typedef struct pk_report_options {
    pk_report_view view;
    uint32_t value;             /* value type shown; PK_NONE = the profile's default (not used
                                 * by the memory view, which reads memory events) */
    size_t top;                 /* rows kept by the flat views and the memory view; 0 = all */
    bool sort_total;            /* top, lines: by total instead of self */
    double min_percent;         /* tree: branches below this share of the total are folded */
    const char *function;       /* callers, callees: the function's name */
    const char *thread_pattern; /* only threads whose name matches (a shell pattern with
                                 * * ? [...], else a substring); NULL = all */
} pk_report_options;

/* Defaults: the top view of the default value, 20 rows by self, min_percent 1. */
PK_API void pk_report_options_init(pk_report_options *o);

/* A row of a flat view: a function (top), a caller or callee (callers, callees), a source line
 * (lines) or a thread (threads). */
typedef struct pk_report_entry {
    const char *name;  /* function or thread name; lines: the function of the line; "" for
                        * an own row */
    const char *file;  /* lines: the source file, "" when unknown; others "" */
    uint32_t line;     /* lines: the line number; others 0 */
    int64_t self;      /* top, lines: samples ending here; callees: the own-value row only */
    int64_t total;     /* top, lines: samples through here; callers, callees: the value
                        * through this caller or callee; threads: the thread's total */
    bool own;          /* callees: the row of the function's own value, not a callee;
                        * callers: the row of calls from no caller (a root frame) */
    int64_t pid, tid;  /* threads: the thread's ids (-1 when unknown); others -1 */
    size_t stacks;     /* threads: the thread's sample rows (distinct stacks); others 0 */
} pk_report_entry;

/* A row of the tree view, in display order: depth first, heaviest child first, a folded row
 * after the siblings it stands for. */
typedef struct pk_report_node {
    const char *name;       /* function or thread name; "" for a folded row */
    uint32_t depth;         /* 0 for the first level */
    bool thread;            /* the branch of a thread (first level, when several threads
                             * have data) */
    uint32_t folded;        /* a folded row: how many sibling branches under min_percent it
                             * stands for; 0 for an ordinary row */
    int64_t self;           /* 0 for a folded row */
    int64_t total;          /* a folded row: the sum of its branches */
} pk_report_node;

/* Memory from allocations and frees. */
typedef struct pk_memory_totals {
    int64_t allocated, allocated_count; /* bytes and blocks allocated */
    int64_t freed, freed_count;         /* of those, freed */
    int64_t unfreed, unfreed_count;     /* still allocated at the end: the leaks */
} pk_memory_totals;

/* Where memory was allocated: a call path, or a source line. An allocation without a stack
 * is a site with an empty path (call paths) or with neither line nor function (lines). */
typedef struct pk_memory_site {
    const char *const *path; /* call paths: function names, outermost first */
    size_t path_length;      /* call paths: the number of names; lines: 0 */
    const char *file;        /* lines: the source file ("" when unknown); call paths: "" */
    uint32_t line;           /* lines: the allocating line, 0 when unknown */
    const char *function;    /* lines: its function; call paths: "" */
    pk_memory_totals memory;
} pk_memory_site;

typedef struct pk_report {
    pk_report_view view;
    const char *value_name;  /* the value reported ("cpu"), "" for the memory view */
    const char *value_unit;  /* its unit ("nanoseconds"), "" for the memory view */
    int64_t total;           /* the value of every sample of the threads covered; 0 for the
                              * memory view */
    int64_t percent_base;    /* what shares (percentages) are of: the sum of the absolute
                              * values of those samples, as go tool pprof takes it; equal to
                              * total when no value is negative */
    size_t threads_matched;  /* threads whose name matched thread_pattern */
    bool sort_total;         /* top, lines: sorted by total */
    double min_percent;      /* tree */

    /* top, callers, callees, lines, threads */
    pk_report_entry *entries;
    size_t entry_count;
    size_t entries_available; /* before the top limit */
    const char *function;     /* callers, callees: the function asked about */
    int64_t function_total;   /* callers, callees: its total */
    int64_t function_self;    /* callers, callees: its own value */
    bool has_lines;           /* lines: some frame of the profile has a line number */

    /* tree */
    pk_report_node *nodes;
    size_t node_count;

    /* memory */
    bool has_memory_events;    /* the profile has memory events (of any thread), or memory
                                * values by stack that the view was read from (a heap
                                * profile's allocated and in-use objects and bytes) */
    pk_memory_totals memory;
    uint64_t unmatched_frees;  /* frees of addresses no allocation was seen for */
    pk_memory_site *paths;     /* heaviest unfreed first */
    size_t path_count;
    size_t paths_available;
    pk_memory_site *lines;     /* heaviest unfreed first */
    size_t line_count;
    size_t lines_available;
} pk_report;

/* Builds the view o->view of p into a new report (*out); o may be NULL (the defaults). Fails
 * with PK_ERR_USAGE for a value the profile lacks or a function (callers, callees) that no
 * sample has. */
PK_API pk_status pk_report_build(const pk_profile *p, const pk_report_options *o,
                                 pk_report **out, pk_error *err);
/* NULL is allowed. */
PK_API void pk_report_free(pk_report *r);

/* Text for a terminal: values in readable units (ms, MiB), shares of the total, names
 * shortened in the middle to fit width columns (0: no limit). Write errors are reported when
 * the output is finished. */
PK_API pk_status pk_report_write_text(const pk_report *r, size_t width, pk_output *out,
                                      pk_error *err);
/* One JSON object with the key "view" and the view's rows (raw values and percentages), then a
 * line feed. */
PK_API pk_status pk_report_write_json(const pk_report *r, pk_output *out, pk_error *err);

#ifdef __cplusplus
}
#endif

#endif
