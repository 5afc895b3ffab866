/* SPDX-License-Identifier: MIT */
#include "folded_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void *need(void *p)
{
    if (!p)
        abort();
    return p;
}

char *tb_stack_names(const pk_profile *p, uint32_t stack)
{
    size_t depth = pk_stack_depth(p, stack);
    uint32_t *frames = need(malloc((depth + 1) * sizeof *frames));
    pk_stack_frames(p, stack, frames, depth);
    size_t len = 1;
    for (size_t d = 0; d < depth; d++)
        len += strlen(pk_frame_name(p, frames[d])) + 1;
    char *names = need(malloc(len));
    size_t used = 0;
    names[0] = '\0';
    for (size_t d = 0; d < depth; d++)
        used += (size_t)snprintf(names + used, len - used, "%s%s", d ? ";" : "",
                                 pk_frame_name(p, frames[d]));
    free(frames);
    return names;
}

int64_t tb_stack_value(const pk_profile *p, const char *path, uint32_t value)
{
    int64_t sum = 0;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        char *names = tb_stack_names(p, pk_sample_stack(p, row));
        if (strcmp(names, path) == 0)
            sum += pk_sample_values(p, row)[value];
        free(names);
    }
    return sum;
}

char *tb_folded_rows(const pk_profile *p, uint32_t value)
{
    size_t rows = pk_sample_count(p);
    char **lines = need(calloc(rows + 1, sizeof *lines));
    size_t n = 0, total = 1;
    for (size_t row = 0; row < rows; row++) {
        int64_t v = pk_sample_values(p, row)[value];
        if (v == 0)
            continue;
        char *names = tb_stack_names(p, pk_sample_stack(p, row));
        const char *thread = pk_str(p, pk_thread_at(p, pk_sample_thread(p, row))->name);
        size_t len = strlen(thread) + strlen(names) + 32;
        char *line = need(malloc(len));
        snprintf(line, len, "%s%s%s %lld", thread, *names ? ";" : "", names, (long long)v);
        free(names);
        lines[n++] = line;
        total += strlen(line) + 1;
    }
    qsort(lines, n, sizeof *lines, compare_lines);
    char *out = need(calloc(total, 1));
    for (size_t i = 0; i < n; i++) {
        strcat(out, lines[i]);
        strcat(out, "\n");
        free(lines[i]);
    }
    free(lines);
    return out;
}
