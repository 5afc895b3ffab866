/* SPDX-License-Identifier: MIT */
/* Summing profiles: several runs or devices become one profile (copying one profile into
 * another is profkit/copy.h, which this header includes).
 *
 * Ownership: the profiles made here belong to the caller (pk_profile_free); the inputs are only
 * read.
 */
#ifndef PROFKIT_MERGE_H
#define PROFKIT_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/copy.h"
#include "profkit/error.h"
#include "profkit/export.h"
#include "profkit/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sums the inputs into a new profile (*out). Its value types are those of every input, matched
 * by name; a name with different units in two inputs, or inputs sharing no value type with the
 * first, are refused (PK_ERR_USAGE). Threads of one name are one thread, whichever input they
 * come from. Metadata and properties come from the first input, with the earliest start and
 * latest end time. */
PK_API pk_status pk_profile_merge(const pk_profile *const *inputs, size_t count,
                                  pk_profile **out, pk_error *err);

#ifdef __cplusplus
}
#endif

#endif
