/* SPDX-License-Identifier: MIT */
/* The .bsprof record dump: the header, then one line per entry with its byte offset, decoded by
 * the same decoder as the reader's. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "core/output.h"
#include "formats/bsprof/bsprof.h"

static const char *const bs_op_names[4] = {"alloc", "free", "free_realloc", "op 3"};

static pk_status bs_nomem(pk_error *err)
{
    return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
}

typedef struct bs_dumper {
    pk_output *out;
    bool raw;
    pk_profile *names; /* interned string texts, for resolving IDs */
    pk_u64map strings; /* string ID -> names string */
} bs_dumper;

static void bs_dump_string_ref(bs_dumper *dd, const char *key, uint32_t id)
{
    pk_out_printf(dd->out, " %s=", key);
    if (dd->raw || id == 0) {
        pk_out_u64(dd->out, id);
        return;
    }
    uint32_t *found = pk_u64map_find(&dd->strings, id);
    if (found)
        pk_out_json_string(dd->out, pk_str(dd->names, *found));
    else
        pk_out_printf(dd->out, "<unknown string %" PRIu32 ">", id);
}

static void bs_dump_header(bs_dumper *dd, const bs_header *h)
{
    pk_output *out = dd->out;
    char requested[32], actual[32];
    pk_bsprof_format_ratio(h->requested_ratio, requested, sizeof requested);
    pk_bsprof_format_ratio(h->actual_ratio, actual, sizeof actual);
    pk_out_printf(out,
                  "0: header version=%" PRIu32 ".%" PRIu32 ".%" PRIu32 " header_size=%" PRIu32
                  " padding=%" PRIu64 " requested_sample_ratio=%s actual_sample_ratio=%s",
                  h->major, h->minor, h->patch, h->size, h->size - h->known_size, requested,
                  actual);
    if (dd->raw)
        pk_out_printf(out, " line_data=%" PRIu64 " memory_operations=%" PRIu64, h->line_data,
                      h->memory_ops);
    else
        pk_out_printf(out, " line_data=%s memory_operations=%s", h->line_data ? "yes" : "no",
                      h->memory_ops ? "yes" : "no");
    pk_out_printf(out, " start_ms=%" PRIu64, h->start_ms);
    for (int i = 0; i < BS_HEADER_TEXT_COUNT; i++) {
        pk_out_putc(out, ' ');
        for (const char *k = pk_bsprof_header_text_keys[i]; *k; k++)
            pk_out_putc(out, *k == '-' ? '_' : *k);
        pk_out_putc(out, '=');
        pk_out_json_string(out, (const char *)h->text[i].data);
    }
    pk_out_putc(out, '\n');
}

static pk_status bs_dump_entry(bs_dumper *dd, const bs_entry *e, pk_error *err)
{
    pk_output *out = dd->out;
    pk_out_u64(out, e->offset);
    pk_out_puts(out, ": ");
    if (dd->raw)
        pk_out_printf(out, "tag=%" PRIu64 " type=%u ", e->tag, e->type);
    switch (e->type) {
    case BS_STRING: {
        pk_out_printf(out, "string id=%" PRIu32 " text=", e->id);
        /* Kept to resolve the references that follow: the decoder's text lasts one entry. */
        uint32_t s = pk_intern(dd->names, (const char *)e->text, e->text_len);
        uint32_t *slot;
        bool inserted;
        if (s == PK_NONE || !pk_u64map_put(&dd->strings, e->id, s, &slot, &inserted))
            return bs_nomem(err);
        *slot = s;
        pk_out_json_string(out, pk_str(dd->names, s));
        break;
    }
    case BS_MODULE:
        pk_out_printf(out, "module id=%" PRIu32, e->id);
        bs_dump_string_ref(dd, "name", e->name);
        break;
    case BS_PATH:
        pk_out_printf(out, "path id=%" PRIu32 " caller=%" PRIu32, e->id, e->caller);
        if (e->caller == 0)
            pk_out_printf(out, " module=%" PRIu32, e->module);
        else if (e->line_offset || dd->raw)
            pk_out_printf(out, " line_offset=%" PRIu32, e->line_offset);
        bs_dump_string_ref(dd, "file", e->file);
        pk_out_printf(out, " line=%" PRIu32, e->line);
        bs_dump_string_ref(dd, "function", e->function);
        break;
    case BS_MEMORY:
        if (dd->raw)
            pk_out_printf(out, "memory path=%" PRIu32 " op=%u", e->id, e->op);
        else
            pk_out_printf(out, "memory path=%" PRIu32 " op=%s", e->id, bs_op_names[e->op]);
        if (e->line_offset || dd->raw)
            pk_out_printf(out, " line_offset=%" PRIu32, e->line_offset);
        if (dd->raw)
            pk_out_printf(out, " address=%" PRIu32, e->address);
        else
            pk_out_printf(out, " address=0x%" PRIx32, e->address);
        if (e->op == BS_OP_ALLOC)
            pk_out_printf(out, " size=%" PRIu32, e->size);
        break;
    case BS_CPU:
        pk_out_printf(out, "cpu path=%" PRIu32, e->id);
        if (e->line_offset || dd->raw)
            pk_out_printf(out, " line_offset=%" PRIu32, e->line_offset);
        pk_out_printf(out, " cpu=%" PRIu32 " wall=%" PRIu32, e->cpu, e->wall);
        break;
    default:
        pk_out_printf(out, "calls path=%" PRIu32 " count=%" PRIu32, e->id, e->count);
        break;
    }
    pk_out_putc(out, '\n');
    return PK_OK;
}

pk_status pk_bsprof_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                         pk_error *err)
{
    (void)options;
    bs_header h;
    pk_status st = pk_bsprof_read_header(in, &h, err);
    if (st != PK_OK) {
        pk_bsprof_header_free(&h);
        return st;
    }
    bs_dumper dd = {.out = out, .raw = raw, .names = pk_profile_new()};
    pk_u64map_init(&dd.strings);
    bs_decoder d = {.in = in, .line_data = h.line_data != 0, .err = err};
    if (!dd.names) {
        st = bs_nomem(err);
        goto done;
    }
    bs_dump_header(&dd, &h);
    bs_entry e;
    for (;;) {
        bs_next next = pk_bsprof_decode(&d, &e);
        if (next == BS_NEXT_ENTRY) {
            if ((st = bs_dump_entry(&dd, &e, err)) != PK_OK)
                goto done;
            if (pk_out_failed(out))
                break;
            continue;
        }
        if (next == BS_NEXT_END_MARKER) {
            pk_out_printf(out, "%" PRIu64 ": end\n", e.offset);
            uint64_t offset = pk_in_offset(in);
            if (pk_in_peekc(in) >= 0) {
                uint64_t end_ms;
                if (pk_in_varint(in, &end_ms) == PK_VARINT_OK)
                    pk_out_printf(out, "%" PRIu64 ": footer end_ms=%" PRIu64 "\n", offset,
                                  end_ms);
                else
                    pk_out_printf(out, "%" PRIu64 ": footer damaged\n", offset);
                offset = pk_in_offset(in);
                uint64_t rest = pk_in_skip(in, UINT64_MAX);
                if (rest)
                    pk_out_printf(out, "%" PRIu64 ": unknown footer bytes=%" PRIu64 "\n", offset,
                                  rest);
            }
        } else if (next == BS_NEXT_EOF) {
            pk_out_printf(out, "%" PRIu64 ": end of input (no end marker)\n", e.offset);
        } else {
            /* The entries before the damage are printed; the damage is the caller's to show. */
            st = next == BS_NEXT_DAMAGED ? PK_ERR_INPUT : PK_ERR_NOMEM;
        }
        break;
    }
done:
    pk_bsprof_header_free(&h);
    pk_bsprof_decoder_free(&d);
    pk_u64map_free(&dd.strings);
    pk_profile_free(dd.names);
    return st;
}
