/* SPDX-License-Identifier: MIT */
/* The fields of the Profile message: names for messages, and the wire types they come with. */
#include "formats/pprof/pprof.h"
#include "formats/pprof/wire.h"

const char *pprof_field_name(uint32_t field)
{
    static const char *const names[PROFILE_FIELD_MAX + 1] = {
        NULL,          "sample_type", "sample",         "mapping",     "location",
        "function",    "string_table", "drop_frames",   "keep_frames", "time_nanos",
        "duration_nanos", "period_type", "period",      "comment",     "default_sample_type",
        "doc_url",
    };
    return field <= PROFILE_FIELD_MAX ? names[field] : NULL;
}

unsigned pprof_field_wire_type(uint32_t field)
{
    switch (field) {
    case PROFILE_SAMPLE_TYPE:
    case PROFILE_SAMPLE:
    case PROFILE_MAPPING:
    case PROFILE_LOCATION:
    case PROFILE_FUNCTION:
    case PROFILE_STRING_TABLE:
    case PROFILE_PERIOD_TYPE:
        return PB_WIRE_BYTES;
    default:
        return PB_WIRE_VARINT;
    }
}

bool pprof_field_wire_fits(uint32_t field, unsigned wire)
{
    if (field == PROFILE_COMMENT)
        return wire == PB_WIRE_VARINT || wire == PB_WIRE_BYTES;
    return wire == pprof_field_wire_type(field);
}
