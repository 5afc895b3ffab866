/* SPDX-License-Identifier: MIT */
/* Parsing the Sampler grammar, for the reader and the dump alike: every field is found by its
 * position and checked here, and what is found goes to the events of sampler.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/damage.h"
#include "formats/sampler/sampler.h"

static pk_status sm_nomem(sm_parser *s)
{
    return pk_error_set(s->err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

void pk_sampler_parser_init(sm_parser *s, pk_profile *names, const sm_events *events,
                            void *context, pk_error *err)
{
    memset(s, 0, sizeof *s);
    s->names = names;
    s->events = events;
    s->context = context;
    s->err = err;
    pk_u64map_init(&s->symbol_by_id);
}

void pk_sampler_parser_free(sm_parser *s)
{
    free(s->symbols);
    pk_u64map_free(&s->symbol_by_id);
}

sm_symbol *pk_sampler_symbol(sm_parser *s, uint32_t id)
{
    uint32_t *slot = pk_u64map_find(&s->symbol_by_id, id);
    return slot ? &s->symbols[*slot] : NULL;
}

bool pk_sampler_add_symbol(sm_parser *s, uint32_t id, const char *name, size_t name_len,
                           const char *path, size_t path_len)
{
    uint32_t *slot;
    bool inserted;
    if (!PK_ARRAY_RESERVE(s->symbols, s->symbol_capacity, s->symbol_count + 1) ||
        !pk_u64map_put(&s->symbol_by_id, id, (uint32_t)s->symbol_count, &slot, &inserted))
        return false;
    if (!inserted) {
        s->duplicate_ids++;
        return true;
    }
    sm_symbol *sym = &s->symbols[s->symbol_count++];
    sym->name = pk_intern(s->names, name, name_len);
    sym->path = pk_intern(s->names, path, path_len);
    sym->frame = PK_NONE;
    return sym->name != PK_NONE && sym->path != PK_NONE;
}

static void sm_marker(sm_parser *s, uint64_t offset, const char *text)
{
    if (s->events->marker)
        s->events->marker(s->context, offset, text);
}

/* Consumes the literal text, or fails naming what was expected: damage, unless the text is a
 * header line, without which nothing is a Sampler file. */
static pk_status sm_expect(sm_parser *s, pk_input *in, const char *text, const char *what,
                           bool header)
{
    size_t n = strlen(text);
    const uint8_t *d;
    uint64_t offset = pk_in_offset(in);
    size_t have = pk_in_peek(in, n, &d);
    if (have == n && memcmp(d, text, n) == 0) {
        pk_in_skip_buffered(in, n);
        return PK_OK;
    }
    const char *form = have < n && memcmp(d, text, have) == 0 ? "the file ends inside" : "expected";
    if (header)
        return pk_error_set(s->err, PK_ERR_INPUT, (int64_t)offset, "%s %s", form, what);
    return pk_damage(s->err, offset, "%s %s", form, what);
}

/* Reads a text field ended by delim (TAB or LF; the other one may not occur in it). *text is
 * valid until the next read from in. */
static pk_status sm_text(sm_parser *s, pk_input *in, char delim, const char *what,
                         const char **text, size_t *len)
{
    /* An empty field on failure: callers read the outputs only on PK_OK. */
    *text = "";
    *len = 0;
    uint64_t offset = pk_in_offset(in);
    size_t want = 256;
    for (;;) {
        const uint8_t *d;
        size_t have = pk_in_peek(in, want, &d);
        for (size_t i = 0; i < have; i++) {
            if (d[i] == '\t' || d[i] == '\n') {
                if (d[i] != delim)
                    return pk_damage(s->err, offset + i, "%s ends with a %s, not a %s", what,
                                     d[i] == '\t' ? "TAB" : "line feed",
                                     delim == '\t' ? "TAB" : "line feed");
                *text = (const char *)d;
                *len = i;
                pk_in_skip_buffered(in, i + 1);
                return PK_OK;
            }
        }
        if (have < want)
            return pk_damage(s->err, offset, "the file ends inside %s", what);
        if (want > SM_MAX_FIELD)
            return pk_damage(s->err, offset, "%s is longer than %zu bytes", what, SM_MAX_FIELD);
        want = want * 2 > SM_MAX_FIELD + 1 ? SM_MAX_FIELD + 1 : want * 2;
    }
}

static pk_status sm_read_symbol_row(sm_parser *s, pk_input *in)
{
    uint64_t offset = pk_in_offset(in);
    const uint8_t *d;
    if (pk_in_peek(in, 11, &d) < 11)
        return pk_damage(s->err, offset, "the file ends inside a symbol row");
    if (d[5] != '\t' || d[10] != '\t')
        return pk_damage(s->err, offset + (d[5] != '\t' ? 5 : 10),
                         "expected a TAB after the %s of a symbol row",
                         d[5] != '\t' ? "id" : "unknown integer");
    sm_symbol_row row = {.id = sm_be32(d + 1), .unknown = sm_be32(d + 6)};
    pk_in_skip_buffered(in, 11);

    /* The text fields move the buffer: intern each one before the next. */
    const char *text;
    size_t len;
    pk_status st = sm_text(s, in, '\t', "a symbol name", &text, &len);
    if (st != PK_OK)
        return st;
    if ((row.name = pk_intern(s->names, text, len)) == PK_NONE)
        return sm_nomem(s);
    st = sm_text(s, in, '\t', "a library path", &text, &len);
    if (st != PK_OK)
        return st;
    if ((row.path = pk_intern(s->names, text, len)) == PK_NONE)
        return sm_nomem(s);
    st = sm_text(s, in, '\n', "the second library path", &row.path2, &row.path2_len);
    if (st != PK_OK)
        return st;
    row.same_paths = row.path2_len == pk_str_len(s->names, row.path) &&
                     memcmp(row.path2, pk_str(s->names, row.path), row.path2_len) == 0;
    if (!pk_sampler_add_symbol(s, row.id, pk_str(s->names, row.name),
                               pk_str_len(s->names, row.name), pk_str(s->names, row.path),
                               pk_str_len(s->names, row.path)))
        return sm_nomem(s);
    return s->events->symbol ? s->events->symbol(s->context, offset, &row) : PK_OK;
}

static pk_status sm_thread_header(sm_parser *s, pk_input *in)
{
    uint64_t offset = pk_in_offset(in);
    pk_status st = sm_expect(s, in, SM_THREAD, "@threadV1.0 and a TAB", false);
    if (st != PK_OK)
        return st;
    const char *text;
    size_t len;
    st = sm_text(s, in, '\n', "a thread id", &text, &len);
    if (st != PK_OK)
        return st;
    uint64_t digits_offset = offset + sizeof SM_THREAD - 1;
    if (len == 0 || len > 8)
        return pk_damage(s->err, digits_offset, "a thread id has 1 to 8 hex digits, not %zu bytes",
                         len);
    uint32_t id = 0;
    char digits[9];
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        unsigned v;
        if (c >= '0' && c <= '9')
            v = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v = (unsigned)(c - 'A' + 10);
        else
            return pk_damage(s->err, digits_offset + i, "a thread id is not hexadecimal");
        id = id << 4 | v;
        digits[i] = c;
    }
    digits[len] = '\0';

    /* The thread's name: its symbol entry when it has one. */
    uint32_t name = PK_NONE;
    const sm_symbol *sym = pk_sampler_symbol(s, id);
    if (sym && strncmp(pk_str(s->names, sym->name), "Thread_", 7) == 0)
        name = sym->name;
    return s->events->thread ? s->events->thread(s->context, offset, id, digits, name) : PK_OK;
}

/* Frames are read in chunks as they arrive, so that a count in the file never sizes anything. */
#define SM_FRAME_CHUNK 16384u

static pk_status sm_read_sample_row(sm_parser *s, pk_input *in)
{
    const sm_events *ev = s->events;
    uint64_t offset = pk_in_offset(in);
    const uint8_t *d;
    if (pk_in_peek(in, 17, &d) < 17)
        return pk_damage(s->err, offset, "the file ends inside a sample row");
    uint32_t words[3] = {sm_be32(d + 1), sm_be32(d + 5), sm_be32(d + 9)};
    uint32_t n = sm_be32(d + 13);
    pk_in_skip_buffered(in, 17);
    if (in->size_hint && (uint64_t)n * 4 + 1 > in->size_hint - (offset + 17 < in->size_hint
                                                                     ? offset + 17
                                                                     : in->size_hint))
        return pk_damage(s->err, offset + 13,
                         "a sample row claims %" PRIu32 " frames, more than the bytes left can "
                         "hold",
                         n);
    pk_status st = ev->row_begin ? ev->row_begin(s->context, offset, words, n) : PK_OK;
    for (uint32_t done = 0; done < n && st == PK_OK;) {
        uint32_t chunk = n - done < SM_FRAME_CHUNK ? n - done : SM_FRAME_CHUNK;
        if (pk_in_peek(in, (size_t)chunk * 4, &d) < (size_t)chunk * 4)
            return pk_damage(s->err, offset,
                             "a sample row of %" PRIu32 " frames runs past the end of the input",
                             n);
        if (ev->row_frames)
            st = ev->row_frames(s->context, d, done, chunk);
        pk_in_skip_buffered(in, (size_t)chunk * 4);
        done += chunk;
    }
    if (st != PK_OK)
        return st;
    int c = pk_in_peekc(in);
    if (c != '\n')
        return pk_damage(s->err, pk_in_offset(in),
                         c < 0 ? "the file ends before the line feed of a sample row"
                               : "a sample row does not end with a line feed after its frames");
    pk_in_getc(in);
    return ev->row_end ? ev->row_end(s->context) : PK_OK;
}

static pk_status sm_symbol_table(sm_parser *s, pk_input *in)
{
    for (;;) {
        uint64_t offset = pk_in_offset(in);
        int c = pk_in_peekc(in);
        if (c == '@') {
            pk_status st = sm_expect(s, in, SM_END "\n", "@end and a line feed", false);
            if (st == PK_OK) {
                char text[64];
                snprintf(text, sizeof text, "@end (%zu symbols)", s->symbol_count);
                sm_marker(s, offset, text);
            }
            return st;
        }
        if (c < 0)
            return pk_damage(s->err, offset, "the file ends inside the symbol table");
        if (c != '\t')
            return pk_damage(s->err, offset, "expected a symbol row (TAB) or @end");
        pk_status st = sm_read_symbol_row(s, in);
        if (st != PK_OK || s->stopped)
            return st;
    }
}

static pk_status sm_threads(sm_parser *s, pk_input *in)
{
    bool in_thread = false;
    for (;;) {
        uint64_t offset = pk_in_offset(in);
        int c = pk_in_peekc(in);
        pk_status st;
        if (c == '\t' && in_thread) {
            st = sm_read_sample_row(s, in);
        } else if (c == '@') {
            const uint8_t *d;
            size_t have = pk_in_peek(in, sizeof SM_END - 1, &d);
            if (have == sizeof SM_END - 1 && memcmp(d, SM_END, have) == 0) {
                pk_in_skip_buffered(in, have);
                /* A last @end without its line feed is accepted. */
                c = pk_in_getc(in);
                if (c != '\n' && c >= 0)
                    return pk_damage(s->err, offset + 4, "expected a line feed after @end");
                sm_marker(s, offset, SM_END);
                return PK_OK;
            }
            st = sm_thread_header(s, in);
            in_thread = st == PK_OK;
        } else if (c < 0) {
            return pk_damage(s->err, offset, "the file ends before the final @end");
        } else {
            return pk_damage(s->err, offset,
                             in_thread ? "expected a sample row (TAB), @threadV1.0 or @end"
                                       : "expected @threadV1.0 or @end");
        }
        if (st != PK_OK || s->stopped)
            return st;
    }
}

pk_status pk_sampler_parse(sm_parser *s, pk_input *in)
{
    pk_status st = sm_expect(s, in, SM_MAGIC, "@supersamplerV1.0 and a line feed", true);
    if (st != PK_OK)
        return st;
    sm_marker(s, 0, "@supersamplerV1.0");
    uint64_t offset = pk_in_offset(in);
    st = sm_expect(s, in, SM_SYMBOL_TABLE, "@symboltableV1.1 and a line feed", true);
    if (st != PK_OK)
        return st;
    sm_marker(s, offset, "@symboltableV1.1");
    if ((st = sm_symbol_table(s, in)) != PK_OK || s->stopped ||
        (st = sm_threads(s, in)) != PK_OK || s->stopped)
        return st;
    offset = pk_in_offset(in);
    if (!pk_in_at_end(in) && s->events->trailing)
        s->events->trailing(s->context, offset);
    return PK_OK;
}
