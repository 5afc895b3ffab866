/* SPDX-License-Identifier: MIT */
/* The Sampler record dump: one line per line of the grammar with its byte offset, from the
 * parser's events. Frames are resolved to their symbol names; --raw prints every field. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/output.h"
#include "formats/sampler/sampler.h"

typedef struct sm_dumper {
    sm_parser parser;
    pk_output *out;
    bool raw;
    bool row_open; /* a sample row is being printed */
} sm_dumper;

static void sm_dump_string(sm_dumper *d, uint32_t s)
{
    pk_out_quoted(d->out, pk_str(d->parser.names, s), pk_str_len(d->parser.names, s));
}

static void sm_dump_offset(sm_dumper *d, uint64_t offset)
{
    pk_out_printf(d->out, "%6" PRIu64 "  ", offset);
}

/* Ends the parse early when the output failed: nothing more can be shown. */
static void sm_dump_line_done(sm_dumper *d)
{
    pk_out_putc(d->out, '\n');
    if (pk_out_failed(d->out))
        d->parser.stopped = true;
}

static void sm_dump_marker(void *context, uint64_t offset, const char *text)
{
    sm_dumper *d = context;
    sm_dump_offset(d, offset);
    pk_out_puts(d->out, text);
    sm_dump_line_done(d);
}

static pk_status sm_dump_symbol(void *context, uint64_t offset, const sm_symbol_row *row)
{
    sm_dumper *d = context;
    pk_output *out = d->out;
    sm_dump_offset(d, offset);
    if (d->raw) {
        pk_out_printf(out, "symbol id=0x%08" PRIx32 " unknown=0x%08" PRIx32 " symbol=", row->id,
                      row->unknown);
        sm_dump_string(d, row->name);
        pk_out_puts(out, " library=");
        sm_dump_string(d, row->path);
        pk_out_puts(out, " library2=");
        pk_out_quoted(out, row->path2, row->path2_len);
    } else {
        pk_out_printf(out, "symbol 0x%08" PRIx32 " ", row->id);
        sm_dump_string(d, row->name);
        pk_out_puts(out, " in ");
        sm_dump_string(d, row->path);
        if (!row->same_paths) {
            pk_out_puts(out, " and ");
            pk_out_quoted(out, row->path2, row->path2_len);
        }
        if (row->unknown)
            pk_out_printf(out, " (unknown=%" PRIu32 ")", row->unknown);
    }
    sm_dump_line_done(d);
    return PK_OK;
}

static pk_status sm_dump_thread(void *context, uint64_t offset, uint32_t id, const char *digits,
                                uint32_t name)
{
    (void)id;
    sm_dumper *d = context;
    sm_dump_offset(d, offset);
    if (d->raw)
        pk_out_printf(d->out, "thread id=%s", digits);
    else if (name != PK_NONE)
        pk_out_printf(d->out, "thread %s (%s)", digits, pk_str(d->parser.names, name));
    else
        pk_out_printf(d->out, "thread %s", digits);
    sm_dump_line_done(d);
    return PK_OK;
}

static pk_status sm_dump_row_begin(void *context, uint64_t offset, const uint32_t words[3],
                                   uint32_t n)
{
    sm_dumper *d = context;
    sm_dump_offset(d, offset);
    bool odd = words[0] != 1 || words[1] != 0 || words[2] != 1;
    if (d->raw)
        pk_out_printf(d->out, "sample %" PRIu32 " %" PRIu32 " %" PRIu32 " n=%" PRIu32 ":",
                      words[0], words[1], words[2], n);
    else if (odd)
        pk_out_printf(d->out, "sample (%" PRIu32 " %" PRIu32 " %" PRIu32 ") %" PRIu32 " frames:",
                      words[0], words[1], words[2], n);
    else
        pk_out_printf(d->out, "sample %" PRIu32 " frames:", n);
    d->row_open = true;
    return PK_OK;
}

static pk_status sm_dump_row_frames(void *context, const uint8_t *ids, uint32_t first,
                                    uint32_t count)
{
    sm_dumper *d = context;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t id = sm_be32(ids + 4 * i);
        pk_out_puts(d->out, d->raw || first + i == 0 ? " " : "; ");
        const sm_symbol *sym = d->raw ? NULL : pk_sampler_symbol(&d->parser, id);
        if (sym)
            pk_out_puts(d->out, pk_str(d->parser.names, sym->name));
        else
            pk_out_printf(d->out, "0x%08" PRIx32, id);
    }
    return PK_OK;
}

static pk_status sm_dump_row_end(void *context)
{
    sm_dumper *d = context;
    d->row_open = false;
    sm_dump_line_done(d);
    return PK_OK;
}

static void sm_dump_trailing(void *context, uint64_t offset)
{
    sm_dump_marker(context, offset, "(bytes after the final @end)");
}

static const sm_events sm_dump_events = {
    .marker = sm_dump_marker,
    .symbol = sm_dump_symbol,
    .thread = sm_dump_thread,
    .row_begin = sm_dump_row_begin,
    .row_frames = sm_dump_row_frames,
    .row_end = sm_dump_row_end,
    .trailing = sm_dump_trailing,
};

pk_status pk_sampler_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                          pk_error *err)
{
    (void)options;
    pk_profile *names = pk_profile_new();
    if (!names)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    sm_dumper d = {.out = out, .raw = raw};
    pk_sampler_parser_init(&d.parser, names, &sm_dump_events, &d, err);
    pk_out_puts(out, "offset  record\n");
    pk_status st = pk_sampler_parse(&d.parser, in);
    /* A row cut by damage still ends its line; the damage is the caller's to show. */
    if (d.row_open)
        pk_out_putc(out, '\n');
    pk_sampler_parser_free(&d.parser);
    pk_profile_free(names);
    return st;
}
