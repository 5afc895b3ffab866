/* SPDX-License-Identifier: MIT */
/* The protobuf wire format, over the core's varint codec (core/varint.h): a message is a
 * sequence of fields, each a tag (field number << 3 | wire type, as a varint) and a value: a
 * varint, 8 or 4 little-endian bytes, or a length and that many bytes (a string, a
 * sub-message, a packed list).
 *
 * Two ways to walk fields: pb_decode_field over bytes in memory (sub-messages, the probe's
 * window), and pb_stream over an input, for a message as large as the file, read as its bytes
 * arrive. Damage found by a stream is reported with pk_damage at the offset of the field's tag.
 */
#ifndef PK_FORMATS_PPROF_WIRE_H
#define PK_FORMATS_PPROF_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buffer.h"
#include "core/input.h"
#include "core/varint.h"
#include "profkit/error.h"

typedef enum pb_wire_type {
    PB_WIRE_VARINT = 0,
    PB_WIRE_FIXED64 = 1,
    PB_WIRE_BYTES = 2, /* length-delimited */
    PB_WIRE_FIXED32 = 5
} pb_wire_type;

typedef struct pb_field {
    uint64_t offset;      /* of the tag (pb_stream only) */
    uint32_t number;      /* 0 when no tag was read */
    unsigned wire;        /* pb_wire_type */
    uint64_t value;       /* a varint or fixed value; the length of a bytes field */
    const uint8_t *bytes; /* the content of a bytes field (pb_decode_field only) */
} pb_field;

/* A tag as a varint into out (room for PK_VARINT_MAX_BYTES); returns the bytes written. */
static inline size_t pb_encode_tag(uint8_t *out, uint32_t number, pb_wire_type wire)
{
    return pk_varint_encode(out, (uint64_t)number << 3 | wire);
}

/* ---- fields in memory ------------------------------------------------------------------------ */

/* Decodes the field at *pos, reading nothing at or past end. PK_VARINT_OK: *f holds it and *pos
 * points past it (a bytes field's content included). PK_VARINT_TRUNCATED: the bytes end inside
 * it (f->number is set when its tag was whole, and f->value when a length was). PK_VARINT_INVALID:
 * it is no field (field number 0 or over 32 bits, wire types 3, 4, 6 and 7, a bad varint). */
pk_varint_result pb_decode_field(const uint8_t **pos, const uint8_t *end, pb_field *f);
/* True when [data, end) is a whole sequence of fields. */
bool pb_fields_well_formed(const uint8_t *data, const uint8_t *end);

/* ---- fields of an input ---------------------------------------------------------------------- */

/* Names a message's fields in messages; NULL for a number it does not define. */
typedef const char *(*pb_field_name_fn)(uint32_t number);

typedef struct pb_stream {
    pk_input *in;
    pb_field_name_fn field_name; /* may be NULL */
    pk_buffer scratch;           /* a bytes field larger than the input's buffer */
    char unnamed[32];            /* "field N" */
} pb_stream;

void pb_stream_init(pb_stream *s, pk_input *in, pb_field_name_fn field_name);
void pb_stream_release(pb_stream *s);
/* The name messages use for field number ("sample", or "field 17"); valid until the next
 * call. */
const char *pb_stream_field_name(pb_stream *s, uint32_t number);

/* Reads the tag of the next field of the message that fills the rest of the input, and its
 * value: a varint or fixed value, or the length of a bytes field, whose content follows (read
 * it with pb_stream_bytes or pass it with pb_stream_skip). At the end of the input, f->number
 * is 0. PK_ERR_INPUT (damage at the tag) when the field is malformed or cut short, or when the
 * input failed. */
pk_status pb_stream_next(pb_stream *s, pb_field *f, pk_error *err);
/* The content of bytes field f, just read by pb_stream_next, made contiguous at *data (valid
 * until the next call). Damage when it is longer than max or cut short; the memory it takes
 * grows only as the bytes arrive. */
pk_status pb_stream_bytes(pb_stream *s, const pb_field *f, uint64_t max, const uint8_t **data,
                          pk_error *err);
/* Passes over the content of bytes field f; damage when it is cut short. */
pk_status pb_stream_skip(pb_stream *s, const pb_field *f, pk_error *err);

#endif
