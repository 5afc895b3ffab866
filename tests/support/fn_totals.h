/* SPDX-License-Identifier: MIT */
/* Per-function sample totals, as pprof's flat and cum columns count them: self is the value of
 * the samples whose leaf frame is the function, total the value of the samples whose stack holds
 * it (once per sample, however deep the recursion). Functions are told apart by their whole name:
 * names are copied without a length limit and the table grows as needed, so that two readings of
 * a profile compare entry for entry (C++ names of a sanitizer runtime run to hundreds of
 * characters). Allocation failure aborts: these are tests. */
#ifndef PK_TEST_FN_TOTALS_H
#define PK_TEST_FN_TOTALS_H

#include <stddef.h>
#include <stdint.h>

#include "profkit/profile.h"

typedef struct tb_fn_total {
    char *name;
    int64_t self, total;
} tb_fn_total;

/* Start with {0}; one entry per distinct name. */
typedef struct tb_fn_totals {
    tb_fn_total *items;
    size_t count, capacity;
} tb_fn_totals;

/* The entry for name, or NULL. */
tb_fn_total *tb_fn_totals_find(const tb_fn_totals *t, const char *name);
/* The entry for name, added with zero values when it is not there yet. */
tb_fn_total *tb_fn_totals_get(tb_fn_totals *t, const char *name);
/* Adds the totals of value `value` of every sample of p, by the function names of its frames. */
void tb_fn_totals_add_profile(tb_fn_totals *t, const pk_profile *p, uint32_t value);
void tb_fn_totals_free(tb_fn_totals *t);

#endif
