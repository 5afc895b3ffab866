/* SPDX-License-Identifier: MIT */
#include "formats/pprof/wire.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/damage.h"

static bool wire_type_known(unsigned wire)
{
    return wire == PB_WIRE_VARINT || wire == PB_WIRE_FIXED64 || wire == PB_WIRE_BYTES ||
           wire == PB_WIRE_FIXED32;
}

static uint64_t fixed_value(const uint8_t *b, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | b[i];
    return v;
}

/* ---- fields in memory ------------------------------------------------------------------------ */

pk_varint_result pb_decode_field(const uint8_t **pos, const uint8_t *end, pb_field *f)
{
    memset(f, 0, sizeof *f);
    const uint8_t *p = *pos;
    uint64_t tag;
    pk_varint_result r = pk_varint_decode(&p, end, &tag);
    if (r != PK_VARINT_OK)
        return r;
    if ((tag >> 3) == 0 || (tag >> 3) > UINT32_MAX || !wire_type_known((unsigned)(tag & 7)))
        return PK_VARINT_INVALID;
    f->number = (uint32_t)(tag >> 3);
    f->wire = (unsigned)(tag & 7);
    switch (f->wire) {
    case PB_WIRE_VARINT:
        r = pk_varint_decode(&p, end, &f->value);
        if (r != PK_VARINT_OK)
            return r;
        break;
    case PB_WIRE_FIXED64:
    case PB_WIRE_FIXED32: {
        size_t n = f->wire == PB_WIRE_FIXED64 ? 8 : 4;
        if ((size_t)(end - p) < n)
            return PK_VARINT_TRUNCATED;
        f->value = fixed_value(p, n);
        p += n;
        break;
    }
    default: /* PB_WIRE_BYTES */
        r = pk_varint_decode(&p, end, &f->value);
        if (r != PK_VARINT_OK)
            return r;
        if (f->value > (uint64_t)(end - p))
            return PK_VARINT_TRUNCATED;
        f->bytes = p;
        p += f->value;
        break;
    }
    *pos = p;
    return PK_VARINT_OK;
}

bool pb_fields_well_formed(const uint8_t *data, const uint8_t *end)
{
    pb_field f;
    while (data < end)
        if (pb_decode_field(&data, end, &f) != PK_VARINT_OK)
            return false;
    return true;
}

/* ---- fields of an input ---------------------------------------------------------------------- */

void pb_stream_init(pb_stream *s, pk_input *in, pb_field_name_fn field_name)
{
    memset(s, 0, sizeof *s);
    s->in = in;
    s->field_name = field_name;
    s->scratch = (pk_buffer)PK_BUFFER_INIT;
}

void pb_stream_release(pb_stream *s)
{
    pk_buffer_free(&s->scratch);
}

const char *pb_stream_field_name(pb_stream *s, uint32_t number)
{
    const char *name = s->field_name ? s->field_name(number) : NULL;
    if (name)
        return name;
    snprintf(s->unnamed, sizeof s->unnamed, "field %" PRIu32, number);
    return s->unnamed;
}

pk_status pb_stream_next(pb_stream *s, pb_field *f, pk_error *err)
{
    pk_input *in = s->in;
    memset(f, 0, sizeof *f);
    f->offset = pk_in_offset(in);
    uint64_t tag;
    pk_varint_result r = pk_in_varint(in, &tag);
    if (r == PK_VARINT_TRUNCATED && pk_in_at_end(in) && !pk_in_error(in))
        return PK_OK; /* the end of the message, between fields */
    if (r != PK_VARINT_OK) {
        if (pk_in_error(in))
            return pk_damage(err, f->offset, "the data ends early");
        return pk_damage(err, f->offset, r == PK_VARINT_TRUNCATED
                                             ? "the data ends inside a field tag"
                                             : "malformed field tag");
    }
    if ((tag >> 3) == 0 || (tag >> 3) > UINT32_MAX)
        return pk_damage(err, f->offset, "invalid field number %" PRIu64, tag >> 3);
    f->number = (uint32_t)(tag >> 3);
    f->wire = (unsigned)(tag & 7);
    const char *name = pb_stream_field_name(s, f->number);
    switch (f->wire) {
    case PB_WIRE_VARINT:
    case PB_WIRE_BYTES:
        r = pk_in_varint(in, &f->value);
        if (r == PK_VARINT_OK)
            return PK_OK;
        if (pk_in_error(in))
            return pk_damage(err, f->offset, "the data ends early");
        return pk_damage(err, f->offset, "%s: %s %s", name,
                         r == PK_VARINT_TRUNCATED ? "the data ends inside its" : "malformed",
                         f->wire == PB_WIRE_VARINT ? "varint" : "length");
    case PB_WIRE_FIXED64:
    case PB_WIRE_FIXED32: {
        size_t n = f->wire == PB_WIRE_FIXED64 ? 8 : 4;
        const uint8_t *b;
        if (pk_in_peek(in, n, &b) < n)
            return pk_damage(err, f->offset, "%s: the data ends inside its fixed-size value",
                             name);
        f->value = fixed_value(b, n);
        pk_in_skip_buffered(in, n);
        return PK_OK;
    }
    default:
        return pk_damage(err, f->offset, "unknown wire type %u in %s", f->wire, name);
    }
}

static pk_status cut_short(pb_stream *s, const pb_field *f, uint64_t have, pk_error *err)
{
    return pk_damage(err, f->offset, "%s claims %" PRIu64 " bytes but only %" PRIu64 " remain",
                     pb_stream_field_name(s, f->number), f->value, have);
}

pk_status pb_stream_bytes(pb_stream *s, const pb_field *f, uint64_t max, const uint8_t **data,
                          pk_error *err)
{
    pk_input *in = s->in;
    uint64_t len = f->value;
    if (len > max)
        return pk_damage(err, f->offset, "%s claims %" PRIu64 " bytes, more than the %" PRIu64
                                         " a field may hold",
                         pb_stream_field_name(s, f->number), len, max);
    /* All there already (always, for an input in memory): no copy. */
    if (pk_in_available(in) >= len) {
        *data = in->pos;
        pk_in_skip_buffered(in, (size_t)len);
        return PK_OK;
    }
    if (len <= PK_INPUT_CHUNK) {
        size_t have = pk_in_peek(in, (size_t)len, data);
        pk_in_skip_buffered(in, have);
        return have == len ? PK_OK : cut_short(s, f, have, err);
    }
    /* Larger than the input's buffer: copied as the bytes arrive, so that a length the data
     * does not back costs no memory. */
    pk_buffer_clear(&s->scratch);
    while (s->scratch.len < len) {
        size_t have = pk_in_available(in);
        if (have == 0 && (have = pk_input_fill(in, 1)) == 0)
            break;
        uint64_t left = len - s->scratch.len;
        size_t take = have < left ? have : (size_t)left;
        pk_buffer_append(&s->scratch, in->pos, take);
        if (s->scratch.failed)
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        pk_in_skip_buffered(in, take);
    }
    if (s->scratch.len < len)
        return cut_short(s, f, s->scratch.len, err);
    *data = s->scratch.data;
    return PK_OK;
}

pk_status pb_stream_skip(pb_stream *s, const pb_field *f, pk_error *err)
{
    uint64_t skipped = pk_in_skip(s->in, f->value);
    return skipped == f->value ? PK_OK : cut_short(s, f, skipped, err);
}
