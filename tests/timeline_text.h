/* SPDX-License-Identifier: MIT */
/* A thread's timeline as text, for tests: "leaf@time" per sample in time order, "+duration"
 * for a span, "=value" of value type `value`, times in ns from `origin`, "-" for an empty
 * stack. The caller frees it. */
#ifndef TESTS_TIMELINE_TEXT_H
#define TESTS_TIMELINE_TEXT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profkit/profile.h"
#include "profkit/timeline.h"

static inline char *tb_timeline_text(const pk_profile *p, uint32_t thread, uint32_t value,
                                     int64_t origin)
{
    size_t cap = 4096, len = 0;
    char *text = calloc(cap, 1);
    pk_timeline_cursor *c;
    if (!text || pk_timeline_open(p, thread, &c) != PK_OK) {
        free(text);
        return NULL;
    }
    pk_timed_sample s;
    while (pk_timeline_next(c, &s)) {
        const char *leaf = s.stack == PK_NONE
                               ? "-"
                               : pk_str(p, pk_function_at(p, pk_frame_at(p, pk_stack_leaf(p, s.stack))
                                                                 ->function)->name);
        char one[256];
        int n = snprintf(one, sizeof one, "%s%s@%" PRId64, len ? " " : "", leaf, s.time - origin);
        if (s.duration)
            n += snprintf(one + n, sizeof one - (size_t)n, "+%" PRId64, s.duration);
        n += snprintf(one + n, sizeof one - (size_t)n, "=%" PRId64, s.values[value]);
        if (len + (size_t)n + 1 > cap) {
            char *bigger = realloc(text, cap *= 2);
            if (!bigger)
                break;
            text = bigger;
        }
        memcpy(text + len, one, (size_t)n + 1);
        len += (size_t)n;
    }
    pk_timeline_close(c);
    return text;
}

static inline void tb_expect_timeline(const pk_profile *p, uint32_t thread, uint32_t value,
                                      int64_t origin, const char *want)
{
    char *got = tb_timeline_text(p, thread, value, origin);
    bool same = got && strcmp(got, want) == 0;
    if (!same)
        fprintf(stderr, "timeline of thread %u:\n  got:  %s\n  want: %s\n", thread,
                got ? got : "(none)", want);
    free(got); /* once, before fail() leaves the test */
    if (!same)
        fail();
}

#endif
