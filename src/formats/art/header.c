/* SPDX-License-Identifier: MIT */
/* The text header of an ART method trace (art.h):
 *
 *   *version
 *   3                        the binary part's version (1 to 3)
 *   clock=dual               key=value lines: the clock (wall, thread-cpu, dual), vm, pid, ...
 *   *threads
 *   1<TAB>main               thread id, name
 *   *methods
 *   0x1c<TAB>class<TAB>method<TAB>signature<TAB>source<TAB>line   (source and line optional)
 *   *end
 *
 * A method becomes a function named "class.method signature" (the class with dots, as Android
 * Studio shows it), with the source file and line where the line gives them. Memory grows with
 * the threads and methods listed, which the header's bytes bound.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buffer.h"
#include "formats/art/art.h"

#define MAX_LINE 65535

enum section { SECTION_NONE, SECTION_VERSION, SECTION_OPTIONS, SECTION_THREADS, SECTION_METHODS };

void art_header_init(art_header *h, pk_profile *p)
{
    memset(h, 0, sizeof *h);
    h->p = p;
    pk_u64map_init(&h->thread_names);
    pk_u64map_init(&h->methods);
}

void art_header_free(art_header *h)
{
    pk_u64map_free(&h->thread_names);
    pk_u64map_free(&h->methods);
}

/* Splits at tabs: up to max fields, the last one taking the rest. */
static size_t split_tabs(const char *s, size_t len, const char **field, size_t *field_len,
                         size_t max)
{
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= len && n < max; i++) {
        if (i == len || (s[i] == '\t' && n + 1 < max)) {
            field[n] = s + start;
            field_len[n++] = i - start;
            start = i + 1;
        }
    }
    return n;
}

/* A whole field as an unsigned number (base 0: 0x for hex); false when it is not one. */
static bool parse_u64(const char *s, size_t len, int base, uint64_t *out)
{
    char buf[32];
    while (len && (*s == ' ' || *s == '\r')) {
        s++;
        len--;
    }
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\r'))
        len--;
    if (!len || len >= sizeof buf || *s == '-' || *s == '+')
        return false;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    unsigned long long v = strtoull(buf, &end, base);
    if (*end)
        return false;
    *out = v;
    return true;
}

static pk_status nomem(pk_error *err)
{
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

static bool is_key(const char *line, size_t len, const char *key)
{
    size_t k = strlen(key);
    return len > k && !memcmp(line, key, k) && line[k] == '=';
}

static pk_status option_line(art_header *h, const char *line, size_t len)
{
    if (is_key(line, len, "clock")) {
        const char *v = line + 6;
        size_t vl = len - 6;
        if (vl && v[vl - 1] == '\r')
            vl--;
        if (vl == 4 && !memcmp(v, "wall", 4))
            h->clock = ART_CLOCK_WALL;
        else if (vl == 10 && !memcmp(v, "thread-cpu", 10))
            h->clock = ART_CLOCK_CPU;
        else if (vl == 4 && !memcmp(v, "dual", 4))
            h->clock = ART_CLOCK_DUAL;
    }
    return PK_OK; /* other keys (vm, pid, elapsed-time-usec, ...) say nothing the model keeps */
}

static pk_status thread_line(art_header *h, const char *line, size_t len, int64_t line_no,
                             uint64_t offset, pk_error *err)
{
    const char *field[2];
    size_t field_len[2];
    uint64_t id;
    if (split_tabs(line, len, field, field_len, 2) != 2 ||
        !parse_u64(field[0], field_len[0], 10, &id) || id > UINT32_MAX)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                            "line %" PRId64 ": a *threads line is not <id><TAB><name>", line_no);
    size_t name_len = field_len[1];
    if (name_len && field[1][name_len - 1] == '\r')
        name_len--;
    uint32_t name = pk_intern(h->p, field[1], name_len);
    uint32_t *slot;
    bool inserted;
    if (name == PK_NONE || !pk_u64map_put(&h->thread_names, id, name, &slot, &inserted))
        return nomem(err);
    *slot = name; /* a later line of the same id wins */
    return PK_OK;
}

pk_status art_header_method_line(art_header *h, const char *line, size_t len, int64_t line_no,
                                 uint64_t offset, pk_error *err)
{
    const char *field[6];
    size_t field_len[6];
    if (len && line[len - 1] == '\r')
        len--;
    size_t n = split_tabs(line, len, field, field_len, 6);
    uint64_t id;
    if (n < 3 || !parse_u64(field[0], field_len[0], 16, &id) || id > UINT32_MAX) {
        char where[48];
        if (line_no > 0)
            snprintf(where, sizeof where, "line %" PRId64 ": a *methods line", line_no);
        else
            snprintf(where, sizeof where, "byte %" PRIu64 ": a method entry", offset);
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                            "%s is not <0xid><TAB><class><TAB><method>[<TAB><signature>[<TAB>"
                            "<source>[<TAB><line>]]]",
                            where);
    }
    pk_buffer name = PK_BUFFER_INIT;
    for (size_t i = 0; i < field_len[1]; i++)
        pk_buffer_byte(&name, (uint8_t)(field[1][i] == '/' ? '.' : field[1][i]));
    pk_buffer_byte(&name, '.');
    pk_buffer_append(&name, field[2], field_len[2]);
    if (n > 3 && field_len[3]) {
        pk_buffer_byte(&name, ' ');
        pk_buffer_append(&name, field[3], field_len[3]);
    }
    pk_function f = {.name = name.failed ? PK_NONE
                                         : pk_intern(h->p, (const char *)name.data, name.len),
                     .resource = PK_NONE};
    pk_buffer_free(&name);
    if (n > 4 && field_len[4])
        f.file = pk_intern(h->p, field[4], field_len[4]);
    uint64_t start_line;
    if (n > 5 && parse_u64(field[5], field_len[5], 10, &start_line) && start_line <= UINT32_MAX)
        f.start_line = (uint32_t)start_line;
    if (f.name == PK_NONE || f.file == PK_NONE)
        return nomem(err);
    pk_frame fr = {pk_intern_function(h->p, &f), f.start_line, 0, PK_NONE, 0};
    uint32_t frame = fr.function == PK_NONE ? PK_NONE : pk_intern_frame(h->p, &fr);
    uint32_t *slot;
    bool inserted;
    if (frame == PK_NONE || !pk_u64map_put(&h->methods, id & ~(uint64_t)3, frame, &slot, &inserted))
        return nomem(err);
    *slot = frame;
    h->method_count += inserted;
    return PK_OK;
}

uint32_t art_method_frame(art_header *h, uint32_t id)
{
    const uint32_t *found = pk_u64map_find(&h->methods, id);
    if (found)
        return *found;
    char name[48];
    int len = snprintf(name, sizeof name, "(unknown method %#" PRIx32 ")", id);
    pk_function f = {.name = pk_intern(h->p, name, (size_t)len), .resource = PK_NONE};
    pk_frame fr = {f.name == PK_NONE ? PK_NONE : pk_intern_function(h->p, &f), 0, 0, PK_NONE, 0};
    uint32_t frame = fr.function == PK_NONE ? PK_NONE : pk_intern_frame(h->p, &fr);
    uint32_t *slot;
    bool inserted;
    if (frame == PK_NONE || !pk_u64map_put(&h->methods, id, frame, &slot, &inserted))
        return PK_NONE;
    return frame;
}

pk_status art_header_read(art_header *h, pk_input *in, pk_error *err)
{
    enum section section = SECTION_NONE;
    for (int64_t line_no = 1;; line_no++) {
        uint64_t offset = pk_in_offset(in);
        const char *line;
        int64_t len = pk_in_line(in, &line, MAX_LINE);
        if (len == -1) {
            pk_status io = pk_in_fail(in, err);
            return io != PK_OK ? io
                               : pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                                              "line %" PRId64 ": the header ends before its *end "
                                              "line (the trace is cut)",
                                              line_no);
        }
        if (len == -2)
            return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                                "line %" PRId64 ": a header line longer than %d bytes", line_no,
                                MAX_LINE);
        size_t n = (size_t)len;
        if (n && line[n - 1] == '\r')
            n--;
        if (line_no == 1 && !(n == 8 && !memcmp(line, "*version", 8)))
            return pk_error_set(err, PK_ERR_INPUT, 0,
                                "line 1: not an ART method trace (no *version line)");
        if (n && line[0] == '*') {
            if (n == 4 && !memcmp(line, "*end", 4))
                break;
            if (n == 8 && !memcmp(line, "*version", 8) && section == SECTION_NONE)
                section = SECTION_VERSION;
            else if (n == 8 && !memcmp(line, "*threads", 8))
                section = SECTION_THREADS;
            else if (n == 8 && !memcmp(line, "*methods", 8))
                section = SECTION_METHODS;
            else
                return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                                    "line %" PRId64 ": unknown header section %.*s", line_no,
                                    (int)(n < 40 ? n : 40), line);
            continue;
        }
        if (!n)
            continue;
        pk_status status = PK_OK;
        switch (section) {
        case SECTION_VERSION: {
            uint64_t v;
            if (!parse_u64(line, n, 10, &v) || v < 1 || v > 3)
                return pk_error_set(err, PK_ERR_INPUT, (int64_t)offset,
                                    "line %" PRId64 ": version %.*s: versions 1 to 3 are read",
                                    line_no, (int)(n < 20 ? n : 20), line);
            h->version = (int)v;
            section = SECTION_OPTIONS;
            break;
        }
        case SECTION_OPTIONS:
            status = option_line(h, line, n);
            break;
        case SECTION_THREADS:
            status = thread_line(h, line, n, line_no, offset, err);
            break;
        case SECTION_METHODS:
            status = art_header_method_line(h, line, n, line_no, offset, err);
            break;
        default:
            break;
        }
        if (status != PK_OK)
            return status;
    }
    if (!h->version)
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)pk_in_offset(in),
                            "the header has no version number");
    return PK_OK;
}
