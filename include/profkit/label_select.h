/* SPDX-License-Identifier: MIT */
/* Sample rows selected and grouped by their labels (the label sets of profkit/profile.h, which
 * pprof's sample labels become): a copy of a profile with only the rows whose labels match, and
 * with rows moved to one thread per value of a label.
 *
 * Ownership: the profile made here belongs to the caller (pk_profile_free); the input is only
 * read.
 */
#ifndef PROFKIT_LABEL_SELECT_H
#define PROFKIT_LABEL_SELECT_H

#include <stddef.h>

#include "profkit/error.h"
#include "profkit/export.h"
#include "profkit/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies src into a new profile (*out) keeping the rows that every selector matches, and
 * moving rows to a thread per value of the label threads_by.
 *
 * Each selector is "KEY=VALUE": a row matches when it has a label KEY whose value is VALUE, for
 * a string label the same bytes, for a numeric label the same integer (VALUE read as a decimal
 * number; the unit is not compared). Selectors of one KEY are alternatives, selectors of
 * different keys must all match; a row without labels matches no selector. No selectors keep
 * every row.
 *
 * threads_by (NULL for none) names a label: each row that has it goes to a thread named after
 * its value (a number as decimal digits, followed by its unit when it has one), one thread per
 * value, whatever thread it was on; rows without it keep their thread. Rows keep their labels.
 *
 * Memory events carry no labels and are copied as they are. A warning in *out says when no row
 * was selected, or none had the label threads_by. A selector without '=' or with an empty KEY
 * is PK_ERR_USAGE. */
PK_API pk_status pk_select_by_labels(const pk_profile *src, const char *const *selectors,
                                     size_t selector_count, const char *threads_by,
                                     pk_profile **out, pk_error *err);

#ifdef __cplusplus
}
#endif

#endif
