/* SPDX-License-Identifier: MIT */
/* A profile's rows as sorted folded lines, "thread;a;b value" (frames by function name, the
 * thread's name first, rows whose value is 0 left out), for comparing what readers read.
 * Allocation failure aborts: these are tests. */
#ifndef PK_TEST_FOLDED_ROWS_H
#define PK_TEST_FOLDED_ROWS_H

#include <stdint.h>

#include "profkit/profile.h"

/* malloc'ed text, one line per row, each ending in a line break. */
char *tb_folded_rows(const pk_profile *p, uint32_t value);

/* The function names of stack's frames, root first, joined by ';': malloc'ed. */
char *tb_stack_names(const pk_profile *p, uint32_t stack);

/* The sum of value over the rows, of every thread, whose stack's names are path ("a;b"). */
int64_t tb_stack_value(const pk_profile *p, const char *path, uint32_t value);

#endif
