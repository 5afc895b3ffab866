/* SPDX-License-Identifier: MIT */
/* The gperftools dump: every slot with its byte offset, decoded as the reader decodes it. The
 * header slots with their meaning, each record, the trailer and every maps line. Without raw,
 * each PC also shows its mapping and file offset, for which the records are held until the
 * maps text is read (up to GP_DUMP_HOLD_WORDS of them; beyond that they are printed as they
 * come). */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/buffer.h"
#include "core/output.h"
#include "core/path.h"
#include "core/procmaps.h"
#include "formats/gperftools/codec.h"
#include "formats/gperftools/gperftools.h"

/* Records held until the mappings are known, in 64-bit words (64 MiB). */
#define GP_DUMP_HOLD_WORDS (8u << 20)

typedef struct gp_dumper {
    pk_output *out;
    uint64_t records;
    /* Held records: offset, count, depth, PCs present, then the PCs, repeated. */
    uint64_t *held;
    size_t held_count, held_cap;
    bool holding;
} gp_dumper;

static void dump_pc(gp_dumper *d, const pk_procmaps *maps, uint64_t pc)
{
    pk_out_printf(d->out, " 0x%" PRIx64, pc);
    if (!maps)
        return;
    size_t m = pk_procmaps_find(maps, pc);
    if (m != PK_PROCMAPS_NONE) {
        const pk_procmap *x = &maps->items[m];
        pk_out_printf(d->out, "(%s+0x%" PRIx64 ")", *x->path ? pk_path_basename(x->path) : "anon",
                      pc - x->start + x->offset);
    }
}

static void dump_record(gp_dumper *d, const pk_procmaps *maps, uint64_t offset, uint64_t count,
                        uint64_t depth, const uint64_t *pcs, size_t present)
{
    pk_out_printf(d->out, "%" PRIu64 "\trecord %" PRIu64 ": count %" PRIu64 ", depth %" PRIu64
                          ":", offset, ++d->records, count, depth);
    for (size_t i = 0; i < present; i++)
        dump_pc(d, maps, pcs[i]);
    if (present < depth)
        pk_out_printf(d->out, " ... (truncated: %zu of %" PRIu64 " PCs)", present, depth);
    pk_out_putc(d->out, '\n');
}

/* Prints the held records, with their mappings when maps is not NULL, and stops holding. */
static void release_held(gp_dumper *d, const pk_procmaps *maps)
{
    for (size_t i = 0; i < d->held_count;) {
        uint64_t offset = d->held[i], count = d->held[i + 1], depth = d->held[i + 2];
        uint64_t present = d->held[i + 3];
        dump_record(d, maps, offset, count, depth, d->held + i + 4, (size_t)present);
        i += 4 + (size_t)present;
    }
    d->held_count = 0;
    d->holding = false;
}

static void add_record(gp_dumper *d, const gp_record *rec)
{
    if (d->holding && (d->held_count + 4 + rec->present > GP_DUMP_HOLD_WORDS ||
                       !PK_ARRAY_RESERVE(d->held, d->held_cap, d->held_count + 4 + rec->present))) {
        pk_out_puts(d->out, "# too many records to hold until the mappings: PCs left unresolved\n");
        release_held(d, NULL);
    }
    if (!d->holding) {
        dump_record(d, NULL, rec->offset, rec->count, rec->depth, rec->pcs, rec->present);
        return;
    }
    assert(d->held); /* still holding: room was reserved above */
    uint64_t *h = d->held + d->held_count;
    h[0] = rec->offset;
    h[1] = rec->count;
    h[2] = rec->depth;
    h[3] = rec->present;
    memcpy(h + 4, rec->pcs, rec->present * sizeof *rec->pcs);
    d->held_count += 4 + rec->present;
}

/* One line of the maps text as the dump prints it, into text. */
static void format_maps_line(pk_buffer *text, uint64_t offset, const char *line, int64_t len)
{
    char head[48];
    int n = snprintf(head, sizeof head, "%" PRIu64 "\tmaps: ", offset);
    pk_buffer_append(text, head, (size_t)n);
    if (len >= 0) {
        pk_buffer_append(text, line, (size_t)len);
    } else {
        n = snprintf(head, sizeof head, "(line longer than %u bytes)", PK_PROCMAPS_MAX_LINE);
        pk_buffer_append(text, head, (size_t)n);
    }
    pk_buffer_byte(text, '\n');
}

/* After the trailer at trailer_at: the maps text, line by line. Held records are printed
 * first, with the mappings the text gives. */
static pk_status dump_maps(gp_dumper *d, pk_input *in, uint64_t trailer_at, pk_error *err)
{
    pk_procmaps maps;
    pk_procmaps_init(&maps);
    pk_buffer text = PK_BUFFER_INIT;
    bool resolve = d->holding, out_of_memory = false;
    const char *line;
    int64_t len;
    uint64_t line_at = pk_in_offset(in);
    while ((len = pk_in_line(in, &line, PK_PROCMAPS_MAX_LINE)) != -1) {
        if (resolve && len >= 0 && !pk_procmaps_add_line(&maps, line, (size_t)len))
            out_of_memory = true;
        format_maps_line(&text, line_at, line, len);
        line_at = pk_in_offset(in);
        if (out_of_memory || text.failed) {
            out_of_memory = true;
            break;
        }
        if (!resolve) {
            /* Nothing to wait for: print as the lines come. */
            pk_out_write(d->out, text.data, text.len);
            pk_buffer_clear(&text);
            if (pk_out_failed(d->out))
                break;
        }
    }
    pk_status status = PK_OK;
    if (out_of_memory) {
        release_held(d, NULL);
        status = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    } else {
        if (resolve) {
            pk_procmaps_finish(&maps);
            release_held(d, &maps);
            pk_out_printf(d->out, "%" PRIu64 "\ttrailer: 0, 1, 0\n", trailer_at);
        }
        if (text.len > 0)
            pk_out_write(d->out, text.data, text.len);
    }
    pk_buffer_free(&text);
    pk_procmaps_free(&maps);
    return status;
}

static pk_status dump_header(pk_input *in, pk_output *out, gp_header *h, pk_error *err)
{
    pk_status status = gp_decode_header(in, h, err);
    if (h->present == 0)
        return status; /* not a gperftools profile at all */
    const unsigned ws = h->layout.word;
    static const char *const names[GP_HEADER_SLOTS] = {
        "header count", "header slots after this one", "format version",
        "sampling period (microseconds)", "padding"};
    pk_out_printf(out, "# gperftools CPU profile: %u-bit slots, %s-endian\n", ws * 8,
                  h->layout.big ? "big" : "little");
    for (unsigned i = 0; i < h->present; i++)
        pk_out_printf(out, "%u\theader slot %u: %" PRIu64 " (%s)\n", i * ws, i, h->slots[i],
                      names[i]);
    if (status != PK_OK) {
        pk_out_printf(out, "%u\t(end of input inside the header)\n", h->present * ws);
        return status;
    }
    for (uint64_t i = GP_HEADER_SLOTS; i < h->slots[1] + 2 && !pk_out_failed(out); i++) {
        uint64_t at = pk_in_offset(in), v;
        if (!gp_read_slot(in, h->layout, &v))
            return pk_error_set(err, PK_ERR_INPUT, ws,
                                "header declares %" PRIu64 " slots after slot 1; the file ends "
                                "inside the header",
                                h->slots[1]);
        pk_out_printf(out, "%" PRIu64 "\theader slot %" PRIu64 ": %" PRIu64 " (extra)\n", at, i, v);
    }
    return PK_OK;
}

pk_status gp_dump(pk_input *in, pk_output *out, bool raw, const pk_read_options *options,
                  pk_error *err)
{
    (void)options;
    gp_header h;
    pk_status status = dump_header(in, out, &h, err);
    if (status != PK_OK)
        return status;

    gp_dumper d = {.out = out, .holding = !raw};
    gp_records records;
    gp_records_init(&records, in, h.layout);
    gp_record rec;
    gp_step step;
    while ((step = gp_next_record(&records, &rec, err)) == GP_STEP_RECORD) {
        add_record(&d, &rec);
        if (pk_out_failed(out))
            break;
    }
    switch (step) {
    case GP_STEP_RECORD: /* the output failed; committing it says why */
        break;
    case GP_STEP_TRAILER:
        if (!d.holding)
            pk_out_printf(out, "%" PRIu64 "\ttrailer: 0, 1, 0\n", rec.offset);
        status = dump_maps(&d, in, rec.offset, err);
        break;
    case GP_STEP_END:
        release_held(&d, NULL);
        pk_out_printf(out, "%" PRIu64 "\tend of input (no trailer)\n", rec.offset);
        break;
    case GP_STEP_CUT:
        if (rec.head_bytes) {
            release_held(&d, NULL);
            pk_out_printf(out, "%" PRIu64 "\tend of input inside a record (%zu bytes)\n",
                          rec.offset, rec.head_bytes);
        } else {
            add_record(&d, &rec);
            release_held(&d, NULL);
        }
        break;
    case GP_STEP_FAILED:
        /* The records before the damage are printed; the damage is reported. */
        release_held(&d, NULL);
        status = err->status;
        break;
    }
    gp_records_free(&records);
    free(d.held);
    if (status == PK_OK && pk_in_error(in))
        status = pk_error_set(err, PK_ERR_IO, (int64_t)pk_in_offset(in), "read error");
    return status;
}
