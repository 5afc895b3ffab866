/* SPDX-License-Identifier: MIT */
/* The pprof probe. A profile.proto message has no signature (and a gzip-compressed one is
 * decompressed by the core before any probe sees it): only a run of sensible Profile fields
 * at the start of the input counts. */
#include "formats/pprof/pprof.h"
#include "formats/pprof/wire.h"

/* A ValueType (sample_type, period_type) holds its type and unit, both string indexes: other
 * protobuf messages that also start with field 1, such as the packets of a Perfetto trace
 * (Chromium's default trace format), hold other fields. */
static bool value_type_well_formed(const uint8_t *p, const uint8_t *end)
{
    while (p < end) {
        pb_field f;
        if (pb_decode_field(&p, end, &f) != PK_VARINT_OK || f.wire != PB_WIRE_VARINT ||
            (f.number != 1 && f.number != 2))
            return false;
    }
    return true;
}

/* Counts the Profile fields that check out in [data, data + size) up to the first one cut
 * off by the end of the window; -1 when one does not check out. *whole says whether the
 * window ended exactly at a field boundary. */
static int count_profile_fields(const uint8_t *data, size_t size, bool *whole)
{
    const uint8_t *p = data, *end = data + size;
    int fields = 0;
    *whole = false;
    while (p < end) {
        pb_field f;
        pk_varint_result r = pb_decode_field(&p, end, &f);
        if (r == PK_VARINT_INVALID)
            return -1;
        if (f.number > PROFILE_FIELD_MAX || (f.number && !pprof_field_wire_fits(f.number, f.wire)))
            return -1;
        if (r == PK_VARINT_TRUNCATED) {
            if (f.number == 0)
                return fields; /* the window ends inside a tag */
            /* a field cut off by the window counts: its tag checked out */
            return f.wire == PB_WIRE_BYTES && f.value > PPROF_MAX_MESSAGE_BYTES ? -1 : fields + 1;
        }
        if (f.wire == PB_WIRE_BYTES && f.number != PROFILE_STRING_TABLE &&
            f.number != PROFILE_COMMENT && !pb_fields_well_formed(f.bytes, f.bytes + f.value))
            return -1;
        if ((f.number == PROFILE_SAMPLE_TYPE || f.number == PROFILE_PERIOD_TYPE) &&
            !value_type_well_formed(f.bytes, f.bytes + f.value))
            return -1;
        fields++;
    }
    *whole = true;
    return fields;
}

int pprof_probe(const uint8_t *data, size_t size)
{
    bool whole;
    int fields = count_profile_fields(data, size, &whole);
    if (fields <= 0)
        return PK_PROBE_NO;
    /* sample_type comes first in what pprof and Go write */
    if (data[0] == ((PROFILE_SAMPLE_TYPE << 3) | PB_WIRE_BYTES) &&
        (fields >= 4 || (whole && fields >= 2)))
        return PK_PROBE_LIKELY;
    return fields >= 3 ? PK_PROBE_WEAK : PK_PROBE_NO;
}
