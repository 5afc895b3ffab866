/* Shared groundwork of the reports: which threads a view covers, the value of each stack of
 * the profile's prefix tree, and totals per key (function name, source line) that count a key
 * once per stack even when it occurs several times (recursion). */
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

/* Value `value` of the profile's stacks over the threads matching pattern.
 * self[s]: rows whose stack is s; total[s]: self[s] plus the totals of the stacks below s.
 * grand_total: every matching row, rows without a stack included. */
typedef struct pk_stack_values {
    int64_t *self;
    int64_t *total;
    int64_t grand_total;
    size_t stack_count;
    size_t threads_matched;
} pk_stack_values;

pk_status pk_stack_values_compute(pk_stack_values *sv, const pk_profile *p, uint32_t value,
                                  const char *thread_pattern, pk_error *err);
void pk_stack_values_free(pk_stack_values *sv);

/* key_of_stack[s] < key_count names the key of stack s (PK_NONE: none). Adds to key_self[k] the
 * self values of stacks with key k, and to key_total[k] the totals of stacks with key k that
 * have no caller with key k, so recursion is not counted twice. */
pk_status pk_key_totals(const pk_profile *p, const pk_stack_values *sv,
                        const uint32_t *key_of_stack, size_t key_count, int64_t *key_self,
                        int64_t *key_total, pk_error *err);

/* The value type a report shows: requested, or the profile's default when PK_NONE. Fails with
 * PK_ERR_USAGE when the profile has no value types or requested is out of range. */
pk_status pk_report_value(const pk_profile *p, uint32_t requested, uint32_t *value,
                          pk_error *err);

#endif
