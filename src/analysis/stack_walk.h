/* SPDX-License-Identifier: MIT */
/* Shared groundwork of the reports: which threads a view covers, and totals per key (function
 * name, source line) that count a key once per row even when it occurs several times in the
 * row's stack (recursion). */
#ifndef PK_ANALYSIS_STACK_WALK_H
#define PK_ANALYSIS_STACK_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/profile.h"

/* Whether a thread name matches a --thread pattern: a shell pattern when it has * ? or [,
 * otherwise a substring. A NULL pattern matches every thread. */
bool pk_thread_name_matches(const char *name, const char *pattern);

/* Context for pk_calltree_build's thread filter: pass a pk_thread_selection * as context. */
typedef struct pk_thread_selection {
    const pk_profile *profile;
    const char *pattern;
} pk_thread_selection;
int pk_thread_selection_filter(void *context, uint32_t thread);

/* Totals per key (a function name, a source line) over the rows of the threads matching
 * thread_pattern. key_of_frame[f] < key_count names the key of frame f (PK_NONE: none). Each row
 * with value v adds v to key_self[k] when its innermost frame has key k, and to key_total[k]
 * once when k appears anywhere in its stack, so recursion is not counted twice. */
typedef struct pk_key_walk {
    int64_t grand_total;    /* every matching row, rows without a stack included */
    size_t threads_matched;
} pk_key_walk;

pk_status pk_key_totals(const pk_profile *p, uint32_t value, const char *thread_pattern,
                        const uint32_t *key_of_frame, size_t key_count, int64_t *key_self,
                        int64_t *key_total, pk_key_walk *walk, pk_error *err);

/* The value type a report shows: requested, or the profile's default when PK_NONE. Fails with
 * PK_ERR_USAGE when the profile has no value types or requested is out of range. */
pk_status pk_report_value(const pk_profile *p, uint32_t requested, uint32_t *value,
                          pk_error *err);

#endif
