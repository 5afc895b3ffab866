/* SPDX-License-Identifier: MIT */
/* Differential profiles (profkit/diff.h) as their readers see them: whether a profile is one,
 * what it compares, and its two call trees node for node. */
#ifndef PK_ANALYSIS_DIFFERENTIAL_H
#define PK_ANALYSIS_DIFFERENTIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "profkit/calltree.h"
#include "profkit/profile.h"

/* Properties of a profile made by pk_diff_profiles: the name of the value compared, and the
 * factor the base values were scaled by (present only when they were). */
#define PK_DIFF_VALUE_PROPERTY "diff.value"
#define PK_DIFF_SCALE_PROPERTY "diff.base_scale"

/* p is marked differential and has the two values base and new. */
bool pk_is_differential(const pk_profile *p);

/* The name of the value compared: the property, else "". */
const char *pk_differential_value_name(const pk_profile *p);
/* The factor base values were scaled by; 1 when they were not (*scaled false). */
double pk_differential_base_scale(const pk_profile *p, bool *scaled);

/* The call trees of the base and the new value with the same flags (pk_calltree_flags): built
 * over the same rows with zeros kept, so node i of one is node i of the other. */
pk_status pk_differential_trees(const pk_profile *p, unsigned flags, pk_calltree *base,
                                pk_calltree *newer, pk_error *err);

#endif
