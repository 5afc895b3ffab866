/* SPDX-License-Identifier: MIT */
#include "sorted_lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *checked(void *p)
{
    if (!p) {
        fprintf(stderr, "tb_sorted_lines: out of memory\n");
        abort();
    }
    return p;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *tb_sorted_lines(char *text)
{
    size_t count = 0, cap = 16;
    char **lines = checked(malloc(cap * sizeof *lines));
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (count == cap) {
            cap *= 2;
            lines = checked(realloc(lines, cap * sizeof *lines));
        }
        lines[count++] = line;
    }
    qsort(lines, count, sizeof *lines, compare_strings);
    size_t total = 1;
    for (size_t i = 0; i < count; i++)
        total += strlen(lines[i]) + 1;
    char *joined = checked(malloc(total)), *end = joined;
    for (size_t i = 0; i < count; i++) {
        size_t n = strlen(lines[i]);
        memcpy(end, lines[i], n);
        end[n] = '\n';
        end += n + 1;
    }
    *end = '\0';
    free(lines);
    free(text);
    return joined;
}
