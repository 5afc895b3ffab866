/* SPDX-License-Identifier: MIT */
/* Looking formats up in the table (table.c, beside it) by name, extension or content. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "profkit/format.h"

const pk_format *pk_format_by_name(const char *name)
{
    for (size_t i = 0; i < pk_format_count(); i++) {
        const pk_format *f = pk_format_at(i);
        if (strcasecmp(f->name, name) == 0)
            return f;
        for (const char *const *alias = f->aliases; alias && *alias; alias++) {
            if (strcasecmp(*alias, name) == 0)
                return f;
        }
    }
    return NULL;
}

/* Length of the longest extension of f that path ends with, 0 when none. */
static size_t extension_match(const pk_format *f, const char *path)
{
    size_t path_len = strlen(path), best = 0;
    for (const char *const *ext = f->extensions; ext && *ext; ext++) {
        size_t n = strlen(*ext);
        if (n <= path_len && n > best && strcasecmp(path + path_len - n, *ext) == 0)
            best = n;
    }
    return best;
}

static const pk_format *best_extension_match(const char *path, bool need_writer)
{
    const pk_format *best = NULL;
    size_t best_len = 0;
    for (size_t i = 0; i < pk_format_count(); i++) {
        const pk_format *f = pk_format_at(i);
        if (need_writer && !f->write)
            continue;
        size_t n = extension_match(f, path);
        if (n > best_len) {
            best = f;
            best_len = n;
        }
    }
    return best;
}

const pk_format *pk_format_by_extension(const char *path, bool need_writer)
{
    if (!path)
        return NULL;
    const pk_format *f = best_extension_match(path, need_writer);
    size_t n = strlen(path);
    if (f || n <= 3 || strcasecmp(path + n - 3, ".gz") != 0)
        return f;
    /* "x.folded.gz": the format of "x.folded", compressed. */
    char *plain = strndup(path, n - 3);
    if (!plain)
        return NULL;
    f = best_extension_match(plain, need_writer);
    free(plain);
    return f;
}

const pk_option_spec *pk_format_option(const pk_format *format, const char *name, bool writer)
{
    for (const pk_option_spec *o = writer ? format->write_options : format->read_options;
         o && o->name; o++)
        if (strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

const pk_format *pk_format_probe(const uint8_t *data, size_t size, const char *path, int *score)
{
    const pk_format *best = NULL;
    int best_score = PK_PROBE_NO;
    for (size_t i = 0; i < pk_format_count(); i++) {
        const pk_format *f = pk_format_at(i);
        if (!f->read || !f->probe)
            continue;
        int s = f->probe(data, size);
        if (s <= PK_PROBE_NO)
            continue;
        /* The extension only breaks ties: it lifts a score by less than one step. */
        if (path && extension_match(f, path))
            s += 1;
        if (s > best_score) {
            best = f;
            best_score = s;
        }
    }
    if (score)
        *score = best_score;
    return best;
}
