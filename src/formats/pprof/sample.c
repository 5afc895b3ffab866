/* SPDX-License-Identifier: MIT */
#include "formats/pprof/sample.h"

#include <string.h>

#include "formats/pprof/wire.h"

/* Field numbers of Sample and Label. */
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3 };
enum { LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3, LABEL_NUM_UNIT = 4 };

/* A tag and a varint of at most PK_VARINT_MAX_BYTES, or a length of that many. */
#define FIELD_HEAD_MAX (PK_VARINT_MAX_BYTES + PK_VARINT_MAX_BYTES)
/* A label: its head in Sample, and four varint fields. */
#define LABEL_MAX (FIELD_HEAD_MAX + 4 * FIELD_HEAD_MAX)

size_t pprof_sample_max_size(const pprof_sample *s)
{
    return 2 * FIELD_HEAD_MAX + (s->location_count + s->value_count) * PK_VARINT_MAX_BYTES +
           s->label_count * LABEL_MAX;
}

/* A packed repeated field of n varints; nothing for none. */
static uint8_t *put_packed(uint8_t *d, uint32_t field, const uint64_t *v, size_t n)
{
    if (n == 0)
        return d;
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += pk_varint_size(v[i]);
    d += pb_encode_tag(d, field, PB_WIRE_BYTES);
    d += pk_varint_encode(d, len);
    for (size_t i = 0; i < n; i++)
        d += pk_varint_encode(d, v[i]);
    return d;
}

/* A varint field, left out when 0. */
static uint8_t *put_scalar(uint8_t *d, uint32_t field, int64_t v)
{
    if (v == 0)
        return d;
    d += pb_encode_tag(d, field, PB_WIRE_VARINT);
    return d + pk_varint_encode(d, (uint64_t)v);
}

size_t pprof_encode_sample(uint8_t *out, const pprof_sample *s)
{
    uint8_t *d = put_packed(out, SAMPLE_LOCATION_ID, s->location_ids, s->location_count);
    /* An int64 is packed as the 64-bit two's complement, ten bytes when negative. */
    d = put_packed(d, SAMPLE_VALUE, (const uint64_t *)s->values, s->value_count);
    for (size_t i = 0; i < s->label_count; i++) {
        const pprof_label *l = &s->labels[i];
        uint8_t body[4 * FIELD_HEAD_MAX], *e = body;
        e = put_scalar(e, LABEL_KEY, l->key);
        e = put_scalar(e, LABEL_STR, l->str);
        e = put_scalar(e, LABEL_NUM, l->num);
        e = put_scalar(e, LABEL_NUM_UNIT, l->num_unit);
        d += pb_encode_tag(d, SAMPLE_LABEL, PB_WIRE_BYTES);
        d += pk_varint_encode(d, (size_t)(e - body));
        memcpy(d, body, (size_t)(e - body));
        d += e - body;
    }
    return (size_t)(d - out);
}
