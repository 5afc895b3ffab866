/* SPDX-License-Identifier: MIT */
/* printf into a string of the size it needs, for paths and commands of any length (a fixed
 * buffer would cut them silently). Allocation failure aborts: these are tests. */
#ifndef PK_TEST_STRFMT_H
#define PK_TEST_STRFMT_H

/* The formatted text, malloc'ed; the caller frees it. */
char *tb_strfmt(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif
