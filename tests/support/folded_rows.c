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

char *tb_folded_rows(const pk_profile *p, uint32_t value)
{
    size_t rows = pk_sample_count(p);
    char **lines = need(calloc(rows + 1, sizeof *lines));
    size_t n = 0, total = 1;
    for (size_t row = 0; row < rows; row++) {
        int64_t v = pk_sample_values(p, row)[value];
        if (v == 0)
            continue;
        uint32_t stack = pk_sample_stack(p, row);
        size_t depth = pk_stack_depth(p, stack);
        uint32_t *frames = need(malloc((depth + 1) * sizeof *frames));
        pk_stack_frames(p, stack, frames, depth);
        size_t len = strlen(pk_str(p, pk_thread_at(p, pk_sample_thread(p, row))->name)) + 32;
        for (size_t d = 0; d < depth; d++)
            len += strlen(pk_frame_name(p, frames[d])) + 1;
        char *line = need(malloc(len));
        size_t used = (size_t)snprintf(line, len, "%s",
                                       pk_str(p, pk_thread_at(p, pk_sample_thread(p, row))->name));
        for (size_t d = 0; d < depth; d++)
            used += (size_t)snprintf(line + used, len - used, ";%s", pk_frame_name(p, frames[d]));
        snprintf(line + used, len - used, " %lld", (long long)v);
        free(frames);
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
