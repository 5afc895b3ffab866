/* SPDX-License-Identifier: MIT */
#include "formats/gperftools/codec.h"

#include <inttypes.h>
#include <stdlib.h>

#include "core/array.h"
#include "core/damage.h"

bool gp_detect(const uint8_t *data, size_t size, gp_layout *out)
{
    static const gp_layout layouts[] = {{4, false}, {4, true}, {8, false}, {8, true}};
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        gp_layout l = layouts[i];
        if (size < 3u * l.word)
            continue;
        uint64_t w0 = gp_word(data, l), w1 = gp_word(data + l.word, l);
        uint64_t w2 = gp_word(data + 2 * l.word, l);
        if (w0 == 0 && w1 >= 3 && w1 <= GP_MAX_HEADER_SLOTS && w2 <= 1) {
            *out = l;
            return true;
        }
    }
    return false;
}

int gp_probe(const uint8_t *data, size_t size)
{
    gp_layout l;
    if (!gp_detect(data, size, &l))
        return PK_PROBE_NO;
    if (size < GP_HEADER_SLOTS * l.word)
        return PK_PROBE_WEAK; /* a cut header: let the reader say so */
    uint64_t words = gp_word(data + l.word, l), period = gp_word(data + 3 * l.word, l);
    uint64_t pad = gp_word(data + 4 * l.word, l);
    if (words > 1024)
        return PK_PROBE_NO;
    if (words != 3 || pad != 0 || period == 0)
        return PK_PROBE_WEAK;
    /* A first record (or the trailer) that reads right makes it near certain. */
    size_t first = GP_HEADER_SLOTS * l.word;
    if (size >= first + 3u * l.word) {
        uint64_t depth = gp_word(data + first + l.word, l);
        if (depth >= 1 && depth <= GP_MAX_PLAUSIBLE_DEPTH)
            return PK_PROBE_LIKELY + 20;
    }
    return PK_PROBE_LIKELY;
}

/* Bytes left in the input, when its size is known (UINT64_MAX when it is not: a pipe, a
 * decompressed stream). */
static uint64_t remaining_bytes(const pk_input *in)
{
    uint64_t at = pk_in_offset(in);
    if (!in->size_hint)
        return UINT64_MAX;
    return in->size_hint > at ? in->size_hint - at : 0;
}

pk_status gp_decode_header(pk_input *in, gp_header *h, pk_error *err)
{
    memset(h, 0, sizeof *h);
    const uint8_t *d;
    size_t got = pk_in_peek(in, GP_HEADER_SLOTS * 8, &d);
    if (!gp_detect(d, got, &h->layout)) {
        if (got < 3 * 4)
            return pk_error_set(err, PK_ERR_INPUT, 0,
                                "file too short for a gperftools header (%zu bytes)", got);
        return pk_error_set(err, PK_ERR_INPUT, 0,
                            "not a gperftools CPU profile: the header does not start with slots "
                            "0, 3 (or more), 0 in any word size or byte order");
    }
    const unsigned ws = h->layout.word;
    h->present = got / ws < GP_HEADER_SLOTS ? (unsigned)(got / ws) : GP_HEADER_SLOTS;
    for (unsigned i = 0; i < h->present; i++)
        h->slots[i] = gp_word(d + i * ws, h->layout);
    if (h->present < GP_HEADER_SLOTS) {
        pk_in_skip_buffered(in, got);
        return pk_error_set(err, PK_ERR_INPUT, (int64_t)got,
                            "header truncated: %zu of %u bytes present", got,
                            GP_HEADER_SLOTS * ws);
    }
    pk_in_skip_buffered(in, GP_HEADER_SLOTS * ws);
    return PK_OK;
}

pk_status gp_skip_header_extra(pk_input *in, const gp_header *h, pk_error *err)
{
    const unsigned ws = h->layout.word;
    uint64_t extra = gp_header_extra_slots(h);
    if (extra == 0)
        return PK_OK;
    uint64_t remaining = remaining_bytes(in);
    if (extra > remaining / ws) {
        if (remaining == UINT64_MAX)
            return pk_error_set(err, PK_ERR_INPUT, ws,
                                "header declares %" PRIu64 " slots after slot 1, more than any "
                                "input holds (%" PRIu64 " slots of %u bytes exceed 2^64 bytes)",
                                h->slots[1], extra, ws);
        return pk_error_set(err, PK_ERR_INPUT, ws,
                            "header declares %" PRIu64 " slots after slot 1 but only %" PRIu64
                            " bytes remain",
                            h->slots[1], remaining);
    }
    if (pk_in_skip(in, extra * ws) != extra * ws)
        return pk_error_set(err, PK_ERR_INPUT, ws,
                            "header declares %" PRIu64 " slots after slot 1; the file ends inside "
                            "the header",
                            h->slots[1]);
    return PK_OK;
}

bool gp_read_slot(pk_input *in, gp_layout layout, uint64_t *value)
{
    const uint8_t *d;
    if (pk_in_peek(in, layout.word, &d) < layout.word)
        return false;
    *value = gp_word(d, layout);
    pk_in_skip_buffered(in, layout.word);
    return true;
}

void gp_records_free(gp_records *d)
{
    free(d->pcs);
    d->pcs = NULL;
    d->pcs_capacity = 0;
}

/* Hex digits, '-', ' ', ':', '/' and LF: how the maps text starts. */
static bool looks_like_text(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((b[i] >= '0' && b[i] <= '9') || (b[i] >= 'a' && b[i] <= 'f') || b[i] == '-' ||
              b[i] == ' ' || b[i] == ':' || b[i] == '/' || b[i] == '\n'))
            return false;
    return true;
}

static gp_step read_error(const pk_input *in, pk_error *err)
{
    pk_error_set(err, PK_ERR_IO, (int64_t)pk_in_offset(in), "read error");
    return GP_STEP_FAILED;
}

gp_step gp_next_record(gp_records *d, gp_record *rec, pk_error *err)
{
    pk_input *in = d->in;
    const gp_layout l = d->layout;
    const unsigned ws = l.word;
    memset(rec, 0, sizeof *rec);
    uint64_t at = pk_in_offset(in);
    rec->offset = at;
    const uint8_t *b;
    size_t got = pk_in_peek(in, 2u * ws, &b);
    if (got < 2u * ws) {
        if (pk_in_error(in))
            return read_error(in, err);
        pk_in_skip_buffered(in, got);
        rec->head_bytes = got;
        return got == 0 ? GP_STEP_END : GP_STEP_CUT;
    }
    bool textual = looks_like_text(b, 2u * ws);
    uint64_t count = gp_word(b, l), depth = gp_word(b + ws, l);
    pk_in_skip_buffered(in, 2u * ws);
    rec->count = count;
    rec->depth = depth;
    if (depth == 0) {
        pk_damage(err, at + ws, "record with depth 0 (a record has at least one PC)");
        return GP_STEP_FAILED;
    }
    uint64_t remaining = remaining_bytes(in);
    if (depth > GP_MAX_PLAUSIBLE_DEPTH && depth > remaining / ws) {
        if (textual)
            pk_damage(err, at,
                      "text where a record should be: the 0, 1, 0 trailer before the mappings "
                      "is missing");
        else if (remaining == UINT64_MAX) /* a pipe: its size is unknown */
            pk_damage(err, at + ws,
                      "record depth %" PRIu64 " is more than any input holds (%" PRIu64
                      " PCs of %u bytes exceed 2^64 bytes)",
                      depth, depth, ws);
        else
            pk_damage(err, at + ws,
                      "record depth %" PRIu64 " does not fit the %" PRIu64 " bytes that remain",
                      depth, remaining);
        return GP_STEP_FAILED;
    }
    size_t have = 0;
    while (have < depth) {
        uint64_t left = depth - have;
        size_t want = left < PK_INPUT_CHUNK / ws ? (size_t)left : PK_INPUT_CHUNK / ws;
        got = pk_in_peek(in, want * ws, &b);
        size_t n = got / ws;
        /* grown only as far as PCs actually arrive */
        if (!PK_ARRAY_RESERVE(d->pcs, d->pcs_capacity, have + n + 1)) {
            pk_error_set(err, PK_ERR_NOMEM, (int64_t)at, "out of memory");
            return GP_STEP_FAILED;
        }
        for (size_t i = 0; i < n; i++)
            d->pcs[have + i] = gp_word(b + i * ws, l);
        pk_in_skip_buffered(in, n * ws);
        have += n;
        if (n < want) {
            if (pk_in_error(in))
                return read_error(in, err);
            if (depth > GP_MAX_PLAUSIBLE_DEPTH) {
                pk_damage(err, at + ws, "record depth %" PRIu64 " runs past the end of the input",
                          depth);
                return GP_STEP_FAILED;
            }
            pk_in_skip(in, got - n * ws);
            rec->pcs = d->pcs;
            rec->present = have;
            return GP_STEP_CUT;
        }
    }
    rec->pcs = d->pcs;
    rec->present = have;
    if (count == 0 && depth == 1 && d->pcs[0] == 0)
        return GP_STEP_TRAILER;
    return GP_STEP_RECORD;
}
