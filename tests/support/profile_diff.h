/* SPDX-License-Identifier: MIT */
/* Whether two profiles hold the same model, compared item by item through the public API:
 * metadata, properties, value types, threads, every row (its thread, its stack frame by frame,
 * its values, its place in the stream), totals, memory events and allocating sites, warnings.
 * For the checks that two ways of reading the same bytes agree. Shared by the unit tests and
 * the fuzz harnesses, so it uses no test runner: it returns what differs. */
#ifndef PK_TEST_PROFILE_DIFF_H
#define PK_TEST_PROFILE_DIFF_H

#include "profkit/profile.h"

/* NULL when a and b are the same, else a description of the first difference (a static buffer,
 * valid until the next call). Aborts when memory runs out or memory events cannot be read. */
const char *tb_profile_difference(const pk_profile *a, const pk_profile *b);

#endif
