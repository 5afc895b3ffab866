/* SPDX-License-Identifier: MIT */
/* The lines of a text sorted bytewise, as `LC_ALL=C sort` sorts them: folded stacks compared as
 * sets of lines, whatever order a writer chose. Allocation failure aborts: these are tests. */
#ifndef PK_TEST_SORTED_LINES_H
#define PK_TEST_SORTED_LINES_H

/* The non-empty lines of text sorted, each ending in LF, malloc'ed. Frees text. */
char *tb_sorted_lines(char *text);

#endif
