/* SPDX-License-Identifier: MIT */
/* Events as values, for perf script text and perf.data alike. */
#include "formats/perf_events/perf_events.h"

#include <stdio.h>
#include <string.h>

size_t perf_event_base_len(const char *e, size_t n)
{
    size_t colon = n;
    while (colon > 0 && e[colon - 1] != ':')
        colon--;
    if (colon == 0 || colon == n)
        return n;
    for (size_t i = colon; i < n; i++)
        if (!strchr("ukhIGHpPSDWebR", e[i]))
            return n;
    return colon - 1;
}

bool perf_event_is_clock(const char *name, size_t n)
{
    return (n == 9 && memcmp(name, "cpu-clock", 9) == 0) ||
           (n == 10 && memcmp(name, "task-clock", 10) == 0);
}

size_t perf_event_value_name(const pk_profile *p, const char *e, size_t n,
                             char value_name[PERF_VALUE_NAME_SIZE])
{
    size_t base = perf_event_base_len(e, n);
    snprintf(value_name, PERF_VALUE_NAME_SIZE, "%.*s", (int)(base < 200 ? base : 200), e);
    if (pk_value_find(p, value_name) != PK_NONE)
        snprintf(value_name, PERF_VALUE_NAME_SIZE, "%.*s", (int)(n < 200 ? n : 200), e);
    return base;
}

bool perf_event_declare_values(pk_profile *p, const char *value_name, bool clock, bool first,
                               uint32_t *period, uint32_t *count)
{
    char count_name[PERF_VALUE_NAME_SIZE + 16];
    snprintf(count_name, sizeof count_name, "%s-samples", value_name);
    *period = pk_add_value_type(p, value_name, clock ? "nanoseconds" : "events");
    *count = pk_add_value_type(p, count_name, "count");
    if (*period == PK_NONE || *count == PK_NONE)
        return false;
    if (first) {
        pk_set_default_value(p, *period);
        pk_metadata *md = pk_metadata_of(p);
        md->period_type = pk_intern_cstr(p, value_name);
        md->period_unit = pk_intern_cstr(p, clock ? "nanoseconds" : "events");
    }
    return true;
}
