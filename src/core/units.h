/* SPDX-License-Identifier: MIT */
/* The units of values, known once for every format and report: which units are times and
 * which are sizes, and how many nanoseconds or bytes one of them is. Names are matched without
 * regard to case ("ms", "Milliseconds"); "us" and "µs" are both microseconds. */
#ifndef PK_CORE_UNITS_H
#define PK_CORE_UNITS_H

#include <stdbool.h>
#include <stdint.h>

#include "profkit/profile.h"

typedef enum pk_unit_kind {
    PK_UNIT_OTHER = 0, /* counts and unknown units */
    PK_UNIT_TIME,
    PK_UNIT_BYTES
} pk_unit_kind;

typedef struct pk_unit_info {
    pk_unit_kind kind;
    int64_t scale;         /* nanoseconds or bytes in one unit; 1 for other units */
    const char *canonical; /* "nanoseconds" ... "seconds", "bytes" ... "gigabytes"; NULL for
                            * other units */
} pk_unit_info;

pk_unit_info pk_unit_lookup(const char *unit);

/* Nanoseconds in one unit, 0 when unit is not a time. */
int64_t pk_unit_ns(const char *unit);
/* True for the units of sample counts: "count", "samples" and none (""). */
bool pk_unit_is_count(const char *unit);
/* True when value `value` of p counts samples: named "samples", or in a count unit. Formats
 * that carry only a count (BR, Sampler) write such a value. */
bool pk_value_counts_samples(const pk_profile *p, uint32_t value);

#endif
