/* SPDX-License-Identifier: MIT */
/* The counters of a profile (profkit/counters.h): each counter's description and summary, its
 * samples delta-encoded in one lane of a spool (counters.c). */
#ifndef PK_CORE_COUNTERS_INTERNAL_H
#define PK_CORE_COUNTERS_INTERNAL_H

#include <stddef.h>

#include "profkit/counters.h"

struct pk_spool;

typedef struct pk_counter_table {
    pk_counter *items;
    size_t count, capacity;
    int64_t *last_levels;     /* counter -> the level appended last: the base of the next delta */
    size_t levels_capacity;
    struct pk_spool *spool;   /* lane = counter; NULL until the first sample */
} pk_counter_table;

void pk_counter_table_free(pk_counter_table *t);

#endif
