/* SPDX-License-Identifier: MIT */
#include "core/units.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    pk_unit_kind kind;
    int64_t scale;
} pk_unit_table[] = {
    {"nanoseconds", PK_UNIT_TIME, 1},
    {"nanosecond", PK_UNIT_TIME, 1},
    {"ns", PK_UNIT_TIME, 1},
    {"microseconds", PK_UNIT_TIME, 1000},
    {"microsecond", PK_UNIT_TIME, 1000},
    {"us", PK_UNIT_TIME, 1000},
    {"\xc2\xb5s", PK_UNIT_TIME, 1000}, /* µs, MICRO SIGN */
    {"\xce\xbcs", PK_UNIT_TIME, 1000}, /* μs, GREEK SMALL LETTER MU */
    {"milliseconds", PK_UNIT_TIME, 1000000},
    {"millisecond", PK_UNIT_TIME, 1000000},
    {"ms", PK_UNIT_TIME, 1000000},
    {"seconds", PK_UNIT_TIME, 1000000000},
    {"second", PK_UNIT_TIME, 1000000000},
    {"sec", PK_UNIT_TIME, 1000000000},
    {"s", PK_UNIT_TIME, 1000000000},
    {"bytes", PK_UNIT_BYTES, 1},
    {"byte", PK_UNIT_BYTES, 1},
    {"b", PK_UNIT_BYTES, 1},
    {"kilobytes", PK_UNIT_BYTES, 1024},
    {"kilobyte", PK_UNIT_BYTES, 1024},
    {"kib", PK_UNIT_BYTES, 1024},
    {"kb", PK_UNIT_BYTES, 1024},
    {"megabytes", PK_UNIT_BYTES, 1024 * 1024},
    {"megabyte", PK_UNIT_BYTES, 1024 * 1024},
    {"mib", PK_UNIT_BYTES, 1024 * 1024},
    {"mb", PK_UNIT_BYTES, 1024 * 1024},
    {"gigabytes", PK_UNIT_BYTES, 1024 * 1024 * 1024},
    {"gigabyte", PK_UNIT_BYTES, 1024 * 1024 * 1024},
    {"gib", PK_UNIT_BYTES, 1024 * 1024 * 1024},
    {"gb", PK_UNIT_BYTES, 1024 * 1024 * 1024},
};

/* The canonical name of each scale, as speedscope and pprof spell them. */
static const char *canonical_name(pk_unit_kind kind, int64_t scale)
{
    if (kind == PK_UNIT_TIME) {
        switch (scale) {
        case 1: return "nanoseconds";
        case 1000: return "microseconds";
        case 1000000: return "milliseconds";
        default: return "seconds";
        }
    }
    switch (scale) {
    case 1: return "bytes";
    case 1024: return "kilobytes";
    case 1024 * 1024: return "megabytes";
    default: return "gigabytes";
    }
}

pk_unit_info pk_unit_lookup(const char *unit)
{
    pk_unit_info info = {PK_UNIT_OTHER, 1, NULL};
    if (!unit)
        return info;
    for (size_t i = 0; i < sizeof pk_unit_table / sizeof pk_unit_table[0]; i++) {
        if (strcasecmp(unit, pk_unit_table[i].name) == 0) {
            info.kind = pk_unit_table[i].kind;
            info.scale = pk_unit_table[i].scale;
            info.canonical = canonical_name(info.kind, info.scale);
            break;
        }
    }
    return info;
}

int64_t pk_unit_ns(const char *unit)
{
    pk_unit_info info = pk_unit_lookup(unit);
    return info.kind == PK_UNIT_TIME ? info.scale : 0;
}

bool pk_unit_is_count(const char *unit)
{
    return !unit || !*unit || strcmp(unit, "count") == 0 || strcmp(unit, "samples") == 0;
}

bool pk_value_counts_samples(const pk_profile *p, uint32_t value)
{
    const pk_value_type *t = pk_value_type_at(p, value);
    return t && (strcmp(pk_str(p, t->name), "samples") == 0 || pk_unit_is_count(pk_str(p, t->unit)));
}
