/* SPDX-License-Identifier: MIT */
/* pprof's legacy text profiles: the format's entry in the registry and its probe. parse.c
 * takes lines apart, read.c makes the profile. */
#include <string.h>

#include "formats/formats.h"
#include "formats/legacy_text/legacy_text.h"

static const char *const lt_extensions[] = {".heap", ".contention", ".threadz", NULL};
static const char *const lt_aliases[] = {"gperftools-heap", "jemalloc", "heap",
                                         "contention", "threadz", NULL};

/* The first line that is not blank or a comment is the signature. */
int lt_probe(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data, *end = s + size;
    if (size >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf)
        s += 3;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *line_end = nl ? nl : end;
        const char *t = s;
        size_t n = (size_t)(line_end - s);
        lt_trim(&t, &n);
        if (n && t[0] != '#')
            return lt_parse_header(t, n).kind != LT_NONE ? 95 : PK_PROBE_NO;
        if (!nl)
            break;
        s = nl + 1;
    }
    return PK_PROBE_NO;
}

const pk_format pk_format_legacy_text = {
    .name = "legacy-text",
    .aliases = lt_aliases,
    .extensions = lt_extensions,
    .description = "gperftools (HEAPPROFILE) and jemalloc heap profiles, pprof's legacy "
                   "contention and thread texts; symbolized with libdw",
    .flags = PK_FORMAT_TEXT,
    .probe = lt_probe,
    .read = lt_read,
};
