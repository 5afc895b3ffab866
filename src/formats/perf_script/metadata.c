/* SPDX-License-Identifier: MIT */
/* What perf script text says about the run: its events as values (summed periods and sample
 * counts), the --header block as properties, the first and last sample times and the capture
 * date as the run's start and end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/perf_events/perf_events.h"
#include "formats/perf_script/reader.h"

size_t perf_event_index(perf_reader *r, const char *e, size_t n, bool has_period)
{
    /* Most samples are of the event before them. */
    if (r->event < r->event_count) {
        uint32_t last = r->events[r->event].event;
        if (pk_str_len(r->p, last) == n && memcmp(pk_str(r->p, last), e, n) == 0)
            return r->event;
    }
    uint32_t name = pk_intern(r->p, e, n);
    if (name == PK_NONE)
        return SIZE_MAX - 1;
    for (size_t i = 0; i < r->event_count; i++)
        if (r->events[i].event == name)
            return i;
    if (r->event_count == PERF_MAX_EVENTS) {
        if (r->dropped_events++ == 0)
            r->dropped_event = name;
        return SIZE_MAX;
    }
    /* The value is named by the bare event, unless another event of that name (other
     * modifiers) took it. A clock event's samples shown without their period (perf script
     * -F without `period`) each count 1, not 1 ns: its value is then in events, as any
     * event's is (perf prints the fields it was asked for on every sample of an event). */
    char value_name[PERF_VALUE_NAME_SIZE];
    size_t base = perf_event_value_name(r->p, e, n, value_name);
    perf_event_values *v = &r->events[r->event_count];
    v->event = name;
    if (!perf_event_declare_values(r->p, value_name, perf_event_is_clock(e, base) && has_period,
                                   r->event_count == 0, &v->period, &v->count))
        return SIZE_MAX - 1;
    return r->event_count++;
}

static int month_of(const char *m)
{
    static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    for (int i = 0; i < 12; i++)
        if (memcmp(m, months[i], 3) == 0)
            return i;
    return -1;
}

/* `Wed Nov 25 19:04:12 2026` (ctime's form, the file's modification time, taken as UTC) in ns
 * since the epoch; PK_TIME_UNKNOWN when it does not read. */
static int64_t parse_captured_on(const char *v)
{
    char wday[4], mon[4];
    int day, hour, min, sec, year;
    if (sscanf(v, "%3s %3s %d %d:%d:%d %d", wday, mon, &day, &hour, &min, &sec, &year) != 7)
        return PK_TIME_UNKNOWN;
    int m = month_of(mon) + 1;
    if (m < 1 || year < 1970 || year > 2200 || day < 1 || day > 31 || hour > 23 || min > 59 ||
        sec > 60 || hour < 0 || min < 0 || sec < 0)
        return PK_TIME_UNKNOWN;
    /* Days from the civil date (Howard Hinnant's algorithm), without the C library's time
     * zone. */
    int y = year - (m <= 2);
    int era = y / 400;
    int yoe = y - era * 400;
    int mp = (m + 9) % 12;
    int doy = (153 * mp + 2) / 5 + day - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = (int64_t)era * 146097 + doe - 719468;
    return ((days * 86400) + hour * 3600 + min * 60 + sec) * 1000000000LL;
}

bool perf_header_comment(perf_reader *r, const char *text, size_t len)
{
    size_t i = 1;
    while (i < len && (text[i] == ' ' || text[i] == '\t'))
        i++;
    const char *colon = memchr(text + i, ':', len - i);
    if (!colon || text[i] == '=')
        return true;
    size_t key_end = (size_t)(colon - text);
    size_t value = key_end + 1;
    while (key_end > i && (text[key_end - 1] == ' ' || text[key_end - 1] == '\t'))
        key_end--;
    while (value < len && (text[value] == ' ' || text[value] == '\t'))
        value++;
    if (key_end == i)
        return true;
    char key[96];
    int n = snprintf(key, sizeof key, "%.*s", (int)(key_end - i < 80 ? key_end - i : 80),
                     text + i);
    /* Several `# event :` lines, one per event: numbered after the first. */
    if (strcmp(key, "event") == 0 && r->event_properties++ > 0)
        snprintf(key + n, sizeof key - (size_t)n, " %zu", r->event_properties);
    char *v = malloc(len - value + 1);
    if (!v)
        return false;
    memcpy(v, text + value, len - value);
    v[len - value] = '\0';
    /* A NUL byte ends the property early; the reader refuses such lines before. */
    pk_status s = pk_property_set(r->p, key, v);
    if (strcmp(key, "captured on") == 0)
        r->captured_on = parse_captured_on(v);
    free(v);
    return s == PK_OK;
}

void perf_finish_metadata(perf_reader *r)
{
    pk_metadata *md = pk_metadata_of(r->p);
    if (r->have_time) {
        char t[32];
        snprintf(t, sizeof t, "%llu.%06llu", (unsigned long long)(r->first_ns / 1000000000u),
                 (unsigned long long)(r->first_ns % 1000000000u / 1000u));
        if (!pk_property_get(r->p, "time of first sample"))
            pk_property_set(r->p, "time of first sample", t);
        snprintf(t, sizeof t, "%llu.%06llu", (unsigned long long)(r->last_ns / 1000000000u),
                 (unsigned long long)(r->last_ns % 1000000000u / 1000u));
        if (!pk_property_get(r->p, "time of last sample"))
            pk_property_set(r->p, "time of last sample", t);
        /* The capture date is when the file was last written, at the end of the run. */
        if (r->captured_on != PK_TIME_UNKNOWN && r->last_ns - r->first_ns < (uint64_t)INT64_MAX &&
            r->captured_on >= (int64_t)(r->last_ns - r->first_ns)) {
            md->end_time = r->captured_on;
            md->start_time = r->captured_on - (int64_t)(r->last_ns - r->first_ns);
        }
    }
    if (r->dropped_events)
        pk_warn(r->p,
                "%llu sample%s of event %s and later ones %s left out: the model holds %d "
                "events (a value of summed periods and one of samples each)",
                (unsigned long long)r->dropped_events, r->dropped_events == 1 ? "" : "s",
                pk_str(r->p, r->dropped_event), r->dropped_events == 1 ? "was" : "were",
                PERF_MAX_EVENTS);
}

