/* SPDX-License-Identifier: MIT */
/* The timelines of a profile (profkit/timeline.h): per thread what its times were, and its
 * timed samples delta-encoded in one lane of a spool (timeline.c). */
#ifndef PK_CORE_TIMELINE_INTERNAL_H
#define PK_CORE_TIMELINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/timeline.h"

struct pk_spool;

typedef struct pk_thread_timeline {
    pk_timeline_info info;
    int64_t last_time;    /* time of the last sample appended: the base of the next delta */
    bool out_of_order;    /* some sample came before the one appended ahead of it */
    bool dropped;         /* pk_timeline_drop: no timeline, whatever is appended */
    bool drop_told;       /* the warning that says so was given */
} pk_thread_timeline;

typedef struct pk_timeline_table {
    struct pk_spool *spool;       /* one lane per thread; NULL until the first kept sample */
    bool discard;                 /* keep only each thread's info (pk_timeline_keep) */
    bool started;                 /* a timed sample was added: the choice above is made */
    pk_thread_timeline *threads;  /* by thread index, zero (count 0) beyond thread_capacity */
    size_t thread_capacity;
} pk_timeline_table;

void pk_timeline_table_free(pk_timeline_table *t);

/* Adds what a thread's timeline of another profile came to, without its samples: for a copy
 * of a profile that kept only the info. */
pk_status pk_timeline_add_info(pk_profile *p, uint32_t thread, const pk_timeline_info *info);

/* Whether the profile's times are all measured: some thread has timed samples, and every
 * thread with sample rows has (pk_metadata's times_approximate is the opposite). */
bool pk_profile_times_measured(const pk_profile *p);

/* The number of samples that a cursor over an out-of-order thread sorts in memory at once
 * (each run is then spooled sorted and the runs merged). Tests lower it to sort through runs
 * with few samples; 0 restores the default. */
void pk_timeline_set_sort_run(size_t samples);

#endif
