/* SPDX-License-Identifier: MIT */
/* Following a .bsprof stream as it arrives (bsprof.h): the header and every entry are decoded by
 * the codec, the same checks as the reader's, once all of their bytes are there. Bytes come in
 * pieces of any size; an item cut at the end of a piece waits in `pending` for the rest. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bsprof/bsprof.h"

void pk_bsprof_scan_init(bs_scan *s)
{
    memset(s, 0, sizeof *s);
    pk_error_clear(&s->damage);
    s->state = BS_SCAN_HEADER;
}

void pk_bsprof_scan_free(bs_scan *s)
{
    pk_buffer_free(&s->pending);
    pk_bsprof_decoder_free(&s->decoder);
}

/* The first n pending bytes are decoded: drop them. */
static void consume(bs_scan *s, size_t n)
{
    if (n == 0)
        return;
    assert(s->pending.data && n <= s->pending.len);
    memmove(s->pending.data, s->pending.data + n, s->pending.len - n);
    s->pending.len -= n;
    s->pending_offset += n;
}

/* Nothing more will be decoded: the pending bytes are let go, and so are bytes to come. */
static void stop(bs_scan *s, bs_scan_state state)
{
    s->state = state;
    consume(s, s->pending.len);
}

/* An item is cut at the end of the pending bytes. A short one is decoded again with the next
 * byte, so that the counts keep up with a slow stream; a long one (a long string) once the
 * pending bytes have doubled, so that arriving in small pieces costs linear time. */
#define SCAN_RETRY_EVERY_BYTE 4096

static void wait_for_more(bs_scan *s)
{
    if (s->pending.len < SCAN_RETRY_EVERY_BYTE)
        s->retry_at = s->pending.len + 1;
    else
        s->retry_at = s->pending.len > SIZE_MAX / 2 ? SIZE_MAX : s->pending.len * 2;
}

static pk_status decode_header(bs_scan *s, bool final)
{
    size_t magic = s->pending.len < BS_MAGIC_SIZE ? s->pending.len : BS_MAGIC_SIZE;
    if (memcmp(s->pending.data ? s->pending.data : (const uint8_t *)"", pk_bsprof_magic,
               magic) != 0) {
        pk_error_set(&s->damage, PK_ERR_INPUT, 0, "not a .bsprof stream (no \"bsprof\" magic)");
        stop(s, BS_SCAN_NOT_BSPROF);
        return PK_OK;
    }
    pk_input in;
    pk_input_init_memory(&in, s->pending.data, s->pending.len);
    bs_header h;
    pk_error err;
    pk_error_clear(&err);
    pk_status status = pk_bsprof_read_header(&in, &h, &err);
    uint64_t header_size = h.size;
    bool line_data = h.line_data != 0;
    bool fields_read = h.known_size > 0; /* only the padding is missing */
    bool cut = h.cut;
    pk_bsprof_header_free(&h);
    if (status == PK_ERR_NOMEM)
        return status;
    if (status == PK_OK) {
        s->decoder.line_data = line_data;
        s->complete_through = header_size;
        consume(s, (size_t)pk_in_offset(&in));
        s->state = BS_SCAN_BODY;
        return PK_OK;
    }
    if (cut && fields_read && !final) {
        /* The padding goes on beyond what arrived: count it down instead of keeping it. */
        s->decoder.line_data = line_data;
        s->padding_left = header_size - s->pending.len;
        consume(s, s->pending.len);
        s->state = BS_SCAN_PADDING;
        return PK_OK;
    }
    if (cut && !final) {
        wait_for_more(s);
        return PK_OK;
    }
    s->damage = err;
    stop(s, BS_SCAN_DAMAGED);
    return PK_OK;
}

/* After the end marker, one varint: the run end. Whatever follows is not decoded. */
static void decode_footer(bs_scan *s, bool final)
{
    if (s->pending.len == 0 && !final)
        return;
    const uint8_t *p = s->pending.data ? s->pending.data : (const uint8_t *)"";
    const uint8_t *start = p;
    uint64_t run_end;
    pk_varint_result r = pk_varint_decode(&p, start + s->pending.len, &run_end);
    if (r == PK_VARINT_TRUNCATED && !final)
        return;
    if (r == PK_VARINT_OK)
        s->complete_through = s->pending_offset + (uint64_t)(p - start);
    stop(s, BS_SCAN_DONE);
}

static pk_status decode_body(bs_scan *s, bool final)
{
    pk_input in;
    pk_input_init_memory(&in, s->pending.data, s->pending.len);
    in.base = s->pending_offset; /* offsets in messages are offsets in the stream */
    pk_error err;
    pk_error_clear(&err);
    s->decoder.in = &in;
    s->decoder.err = &err;
    size_t decoded = 0;
    pk_status status = PK_OK;
    for (;;) {
        bs_entry e;
        bs_next next = pk_bsprof_decode(&s->decoder, &e);
        if (next == BS_NEXT_ENTRY || next == BS_NEXT_END_MARKER) {
            decoded = (size_t)(pk_in_offset(&in) - s->pending_offset);
            s->complete_through = pk_in_offset(&in);
            if (next == BS_NEXT_END_MARKER) {
                s->end_marker = true;
                s->state = BS_SCAN_FOOTER;
                break;
            }
            s->entries++;
            continue;
        }
        if (next == BS_NEXT_NOMEM) {
            status = PK_ERR_NOMEM;
        } else if (next == BS_NEXT_DAMAGED && s->decoder.cut && !final) {
            consume(s, decoded);
            wait_for_more(s);
            decoded = 0;
        } else if (next == BS_NEXT_DAMAGED) {
            s->damage = err;
            consume(s, decoded);
            stop(s, BS_SCAN_DAMAGED);
            decoded = 0;
        }
        break; /* BS_NEXT_EOF: every pending byte is decoded */
    }
    consume(s, decoded);
    s->decoder.in = NULL;
    s->decoder.err = NULL;
    if (status == PK_OK && s->state == BS_SCAN_FOOTER)
        decode_footer(s, final);
    return status;
}

static pk_status decode_pending(bs_scan *s, bool final)
{
    if (!final && s->pending.len < s->retry_at)
        return PK_OK;
    s->retry_at = 0;
    switch (s->state) {
    case BS_SCAN_HEADER:
        return decode_header(s, final);
    case BS_SCAN_BODY:
        return decode_body(s, final);
    case BS_SCAN_FOOTER:
        decode_footer(s, final);
        return PK_OK;
    default:
        return PK_OK;
    }
}

pk_status pk_bsprof_scan_feed(bs_scan *s, const void *data, size_t n)
{
    const uint8_t *bytes = data;
    s->received += n;
    if (s->state == BS_SCAN_PADDING) {
        size_t skipped = s->padding_left < n ? (size_t)s->padding_left : n;
        s->padding_left -= skipped;
        s->pending_offset += skipped;
        bytes += skipped;
        n -= skipped;
        if (s->padding_left > 0)
            return PK_OK;
        s->complete_through = s->pending_offset;
        s->state = BS_SCAN_BODY;
    }
    if (s->state == BS_SCAN_DONE || s->state == BS_SCAN_DAMAGED ||
        s->state == BS_SCAN_NOT_BSPROF) {
        s->pending_offset += n;
        return PK_OK;
    }
    pk_buffer_append(&s->pending, bytes, n);
    if (s->pending.failed)
        return PK_ERR_NOMEM;
    bool in_header = s->state == BS_SCAN_HEADER;
    pk_status status = decode_pending(s, false);
    /* Entries that came with the end of the header. */
    if (status == PK_OK && in_header && s->state == BS_SCAN_BODY)
        status = decode_pending(s, false);
    return status;
}

pk_status pk_bsprof_scan_finish(bs_scan *s)
{
    if (s->state == BS_SCAN_PADDING) {
        pk_error_set(&s->damage, PK_ERR_INPUT, (int64_t)s->pending_offset,
                     "truncated header: the input ends inside its padding");
        s->state = BS_SCAN_DAMAGED;
        return PK_OK;
    }
    bool in_header = s->state == BS_SCAN_HEADER;
    pk_status status = decode_pending(s, true);
    if (status == PK_OK && in_header && s->state == BS_SCAN_BODY)
        status = decode_pending(s, true);
    return status;
}
