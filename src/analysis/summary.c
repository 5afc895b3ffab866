/* SPDX-License-Identifier: MIT */
/* What a profile holds, in brief (profkit/summary.h): the totals of every value per thread and
 * overall and the size of each table, with the metadata, properties and warnings, as text or
 * as one JSON object. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/arith.h"
#include "core/json.h"
#include "core/output.h"
#include "analysis/units.h"
#include "profkit/summary.h"
#include "profkit/thread_names.h"
#include "profkit/counters.h"
#include "profkit/timeline.h"

pk_status pk_summary_build(const pk_profile *p, pk_summary **out, pk_error *err)
{
    *out = NULL;
    pk_summary *s = calloc(1, sizeof *s);
    size_t values = pk_value_type_count(p), threads = pk_thread_count(p);
    if (s)
        s->thread_totals = calloc(threads * values + 1, sizeof *s->thread_totals);
    if (!s || !s->thread_totals) {
        free(s);
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    }
    s->value_count = values;
    s->thread_count = threads;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        const int64_t *v = pk_sample_values(p, row);
        uint32_t t = pk_sample_thread(p, row);
        for (size_t i = 0; i < values; i++) {
            s->totals[i] = pk_add_saturating(s->totals[i], v[i]);
            if (t < threads)
                s->thread_totals[t * values + i] =
                    pk_add_saturating(s->thread_totals[t * values + i], v[i]);
        }
    }
    s->strings = pk_string_count(p);
    s->resources = pk_resource_count(p);
    s->functions = pk_function_count(p);
    s->frames = pk_frame_count(p);
    s->stacks = pk_stack_count(p);
    s->sample_rows = pk_sample_count(p);
    s->memory_events = pk_memory_event_count(p);
    *out = s;
    return PK_OK;
}

void pk_summary_free(pk_summary *s)
{
    if (!s)
        return;
    free(s->thread_totals);
    free(s);
}

/* ISO 8601 UTC with milliseconds, e.g. 2024-05-01T12:00:00.250Z. */
static void format_time(int64_t ns, char *buf, size_t size)
{
    int64_t seconds = ns / 1000000000, ms = (ns % 1000000000) / 1000000;
    if (ms < 0) {
        ms += 1000;
        seconds--;
    }
    time_t t = (time_t)seconds;
    struct tm tm;
    if (!gmtime_r(&t, &tm)) {
        snprintf(buf, size, "%" PRId64 " ns", ns);
        return;
    }
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, size, "%s.%03dZ", date, (int)ms);
}

/* A time on the input's own clock (whose zero is not in general the epoch), in seconds with
 * every digit of its nanoseconds. */
static void format_clock(int64_t ns, char *buf, size_t size)
{
    uint64_t magnitude = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, size, "%s%" PRIu64 ".%09" PRIu64 " s", ns < 0 ? "-" : "",
             magnitude / 1000000000u, magnitude % 1000000000u);
}

/* How many threads have measured times. */
static size_t measured_threads(const pk_profile *p)
{
    size_t measured = 0;
    for (uint32_t t = 0; t < pk_thread_count(p); t++) {
        pk_timeline_info info;
        pk_timeline_info_get(p, t, &info);
        measured += info.measured;
    }
    return measured;
}

/* What the profile's sample times are, for the text. */
static void write_times_line(const pk_profile *p, pk_output *out)
{
    size_t measured = measured_threads(p), threads = pk_thread_count(p);
    int64_t first, last;
    if (measured == 0) {
        if (pk_metadata_get(p)->times_approximate)
            pk_out_printf(out, "%-24s %s\n", "sample times",
                          "placed in stream order (the input has none)");
        return;
    }
    pk_timeline_bounds(p, &first, &last);
    char from[48], to[48];
    format_clock(first, from, sizeof from);
    format_clock(last, to, sizeof to);
    if (measured == threads)
        pk_out_printf(out, "%-24s measured, %s to %s\n", "sample times", from, to);
    else
        pk_out_printf(out, "%-24s measured for %zu of %zu threads (%s to %s), placed for the "
                      "others\n", "sample times", measured, threads, from, to);
}

/* The table sizes, in the order both renderings list them. */
typedef struct summary_count {
    const char *name;
    size_t count;
} summary_count;

#define SUMMARY_COUNTS 7

static void summary_counts(const pk_summary *s, summary_count counts[SUMMARY_COUNTS])
{
    const summary_count all[SUMMARY_COUNTS] = {
        {"strings", s->strings},         {"resources", s->resources},
        {"functions", s->functions},     {"frames", s->frames},
        {"stacks", s->stacks},           {"sample-rows", s->sample_rows},
        {"memory-events", s->memory_events},
    };
    memcpy(counts, all, sizeof all);
}

/* The summary was built from another profile than the one given with it. */
static bool mismatched(const pk_summary *s, const pk_profile *p, pk_error *err)
{
    if (s->value_count == pk_value_type_count(p) && s->thread_count == pk_thread_count(p))
        return false;
    pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                 "the summary was not built from this profile");
    return true;
}

pk_status pk_summary_write_text(const pk_summary *s, const pk_profile *p, const char *file,
                                pk_output *out, pk_error *err)
{
    if (mismatched(s, p, err))
        return PK_ERR_USAGE;
    pk_thread_names *names = pk_thread_names_new(p);
    if (!names)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    const pk_metadata *m = pk_metadata_get(p);
    char when[64];
    pk_out_printf(out, "%-24s %s\n", "file", file);
    pk_out_printf(out, "%-24s %s\n", "format", pk_str(p, m->source_format));
    if (m->product)
        pk_out_printf(out, "%-24s %s\n", "product", pk_str(p, m->product));
    if (m->start_time != PK_TIME_UNKNOWN) {
        format_time(m->start_time, when, sizeof when);
        pk_out_printf(out, "%-24s %s\n", "start", when);
    }
    if (m->end_time != PK_TIME_UNKNOWN) {
        format_time(m->end_time, when, sizeof when);
        pk_out_printf(out, "%-24s %s\n", "end", when);
    }
    if (m->start_time != PK_TIME_UNKNOWN && m->end_time != PK_TIME_UNKNOWN)
        pk_out_printf(out, "%-24s %.3f s\n", "duration",
                      (double)(m->end_time - m->start_time) / 1e9);
    if (m->period)
        pk_out_printf(out, "%-24s %" PRId64 " %s%s%s\n", "period", m->period,
                      pk_str(p, m->period_unit), m->period_type ? " of " : "",
                      pk_str(p, m->period_type));
    write_times_line(p, out);
    if (m->differential)
        pk_out_printf(out, "%-24s %s\n", "differential", "yes (values base and new)");
    for (size_t i = 0; i < pk_property_count(p); i++)
        pk_out_printf(out, "%-24s %s\n", pk_property_key(p, i), pk_property_value(p, i));

    size_t nv = s->value_count;
    /* Each thread's times when some are measured (else the line above says it for all). */
    bool times_per_thread = measured_threads(p) > 0;
    pk_out_printf(out, "\nthreads (%zu)\n", s->thread_count);
    /* Names longer than the usual column widen it for every thread, so the ids line up. */
    size_t width = 22;
    for (size_t t = 0; t < s->thread_count; t++) {
        size_t columns = pk_text_columns(pk_thread_display_name(names, (uint32_t)t));
        if (columns > width && columns <= 80)
            width = columns;
    }
    for (size_t t = 0; t < s->thread_count; t++) {
        const pk_thread *th = pk_thread_at(p, (uint32_t)t);
        const char *name = pk_thread_display_name(names, (uint32_t)t);
        size_t columns = pk_text_columns(name);
        pk_out_printf(out, "  %s%*s", name, columns < width ? (int)(width - columns) : 0, "");
        if (th->tid >= 0)
            pk_out_printf(out, " tid %-8" PRId64, th->tid);
        for (size_t v = 0; v < nv; v++)
            pk_out_printf(out, " %s=%" PRId64, pk_str(p, pk_value_type_at(p, (uint32_t)v)->name),
                          s->thread_totals[t * nv + v]);
        pk_out_putc(out, '\n');
        pk_timeline_info info;
        pk_timeline_info_get(p, (uint32_t)t, &info);
        if (info.measured) {
            char from[48], to[48];
            format_clock(info.first, from, sizeof from);
            format_clock(info.last, to, sizeof to);
            pk_out_printf(out, "    times measured: %" PRIu64 " samples, %s to %s\n", info.count,
                          from, to);
        } else if (times_per_thread) {
            pk_out_puts(out, "    times placed\n");
        }
    }
    pk_thread_names_free(names);

    if (pk_counter_count(p) > 0) {
        pk_out_printf(out, "\ncounters (%zu)\n", pk_counter_count(p));
        for (uint32_t i = 0; i < pk_counter_count(p); i++) {
            const pk_counter *c = pk_counter_at(p, i);
            pk_out_printf(out, "  %-22s %s, %" PRIu64 " samples", pk_str(p, c->name),
                          pk_str(p, c->unit), c->samples);
            if (c->samples > 0) {
                char from[48], to[48];
                format_clock(c->first, from, sizeof from);
                format_clock(c->last, to, sizeof to);
                pk_out_printf(out, ", %s to %s, %" PRId64 " to %" PRId64, from, to, c->min,
                              c->max);
            }
            pk_out_putc(out, '\n');
            if (c->description != PK_NONE)
                pk_out_printf(out, "    %s\n", pk_str(p, c->description));
        }
    }

    summary_count counts[SUMMARY_COUNTS];
    summary_counts(s, counts);
    pk_out_puts(out, "\ncounts\n");
    for (size_t i = 0; i < SUMMARY_COUNTS; i++)
        pk_out_printf(out, "  %-22s %zu\n", counts[i].name, counts[i].count);

    pk_out_puts(out, "\nvalues\n");
    for (uint32_t v = 0; v < nv; v++) {
        const pk_value_type *vt = pk_value_type_at(p, v);
        pk_out_printf(out, "  %-22s %-14s total %" PRId64 "%s\n", pk_str(p, vt->name),
                      pk_str(p, vt->unit), s->totals[v],
                      v == pk_default_value(p) ? "  (default)" : "");
    }

    size_t nw = pk_warning_count(p);
    pk_out_printf(out, "\nwarnings (%zu)\n", nw + pk_warnings_dropped(p));
    for (size_t i = 0; i < nw; i++)
        pk_out_printf(out, "  %s\n", pk_warning_at(p, i));
    if (pk_warnings_dropped(p))
        pk_out_printf(out, "  ... and %zu more\n", pk_warnings_dropped(p));
    return PK_OK;
}

static void json_time(pk_json *j, const char *key, int64_t ns)
{
    pk_json_key(j, key);
    if (ns == PK_TIME_UNKNOWN) {
        pk_json_null(j);
        return;
    }
    char when[64];
    format_time(ns, when, sizeof when);
    pk_json_string(j, when);
}

static void json_metadata(pk_json *j, const pk_profile *p)
{
    const pk_metadata *m = pk_metadata_get(p);
    pk_json_object_begin(j);
    pk_json_member_string(j, "product", pk_str(p, m->product));
    json_time(j, "start_time", m->start_time);
    json_time(j, "end_time", m->end_time);
    pk_json_key(j, "duration_seconds");
    if (m->start_time != PK_TIME_UNKNOWN && m->end_time != PK_TIME_UNKNOWN)
        pk_json_double(j, (double)(m->end_time - m->start_time) / 1e9);
    else
        pk_json_null(j);
    pk_json_member_i64(j, "period", m->period);
    pk_json_member_string(j, "period_type", pk_str(p, m->period_type));
    pk_json_member_string(j, "period_unit", pk_str(p, m->period_unit));
    pk_json_member_bool(j, "times_approximate", m->times_approximate);
    if (m->differential)
        pk_json_member_bool(j, "differential", true);
    pk_json_key(j, "properties");
    pk_json_object_begin(j);
    for (size_t i = 0; i < pk_property_count(p); i++)
        pk_json_member_string(j, pk_property_key(p, i), pk_property_value(p, i));
    pk_json_object_end(j);
    pk_json_object_end(j);
}

pk_status pk_summary_write_json(const pk_summary *s, const pk_profile *p, const char *file,
                                pk_output *out, pk_error *err)
{
    if (mismatched(s, p, err))
        return PK_ERR_USAGE;
    pk_thread_names *names = pk_thread_names_new(p);
    if (!names)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    size_t nv = s->value_count;
    pk_json j;
    pk_json_init(&j, out);
    pk_json_object_begin(&j);
    pk_json_member_string(&j, "file", file);
    pk_json_member_string(&j, "format", pk_str(p, pk_metadata_get(p)->source_format));
    pk_json_key(&j, "metadata");
    json_metadata(&j, p);

    pk_json_key(&j, "threads");
    pk_json_array_begin(&j);
    for (size_t t = 0; t < s->thread_count; t++) {
        const pk_thread *th = pk_thread_at(p, (uint32_t)t);
        pk_json_object_begin(&j);
        pk_json_member_string(&j, "name", pk_str(p, th->name));
        pk_json_member_string(&j, "display_name", pk_thread_display_name(names, (uint32_t)t));
        pk_json_member_i64(&j, "pid", th->pid);
        pk_json_member_i64(&j, "tid", th->tid);
        pk_json_key(&j, "totals");
        pk_json_object_begin(&j);
        for (size_t v = 0; v < nv; v++)
            pk_json_member_i64(&j, pk_str(p, pk_value_type_at(p, (uint32_t)v)->name),
                               s->thread_totals[t * nv + v]);
        pk_json_object_end(&j);
        pk_timeline_info info;
        pk_timeline_info_get(p, (uint32_t)t, &info);
        pk_json_key(&j, "times");
        pk_json_object_begin(&j);
        pk_json_member_string(&j, "kind", info.measured ? "measured" : "placed");
        if (info.measured) {
            pk_json_member_i64(&j, "samples", (int64_t)info.count);
            pk_json_member_i64(&j, "first_ns", info.first);
            pk_json_member_i64(&j, "last_ns", info.last);
        }
        pk_json_object_end(&j);
        pk_json_object_end(&j);
    }
    pk_json_array_end(&j);
    pk_thread_names_free(names);

    pk_json_key(&j, "counters");
    pk_json_array_begin(&j);
    for (uint32_t i = 0; i < pk_counter_count(p); i++) {
        const pk_counter *c = pk_counter_at(p, i);
        pk_json_object_begin(&j);
        pk_json_member_string(&j, "name", pk_str(p, c->name));
        pk_json_member_string(&j, "unit", pk_str(p, c->unit));
        pk_json_key(&j, "description");
        if (c->description != PK_NONE)
            pk_json_string(&j, pk_str(p, c->description));
        else
            pk_json_null(&j);
        pk_json_member_i64(&j, "thread", c->thread == PK_NONE ? -1 : (int64_t)c->thread);
        pk_json_member_u64(&j, "samples", c->samples);
        if (c->samples > 0) {
            pk_json_member_i64(&j, "first_ns", c->first);
            pk_json_member_i64(&j, "last_ns", c->last);
            pk_json_member_i64(&j, "min", c->min);
            pk_json_member_i64(&j, "max", c->max);
        }
        pk_json_object_end(&j);
    }
    pk_json_array_end(&j);

    pk_json_key(&j, "counts");
    pk_json_object_begin(&j);
    summary_count counts[SUMMARY_COUNTS];
    summary_counts(s, counts);
    for (size_t i = 0; i < SUMMARY_COUNTS; i++)
        pk_json_member_u64(&j, counts[i].name, counts[i].count);
    pk_json_object_end(&j);

    pk_json_key(&j, "values");
    pk_json_array_begin(&j);
    for (uint32_t v = 0; v < nv; v++) {
        const pk_value_type *vt = pk_value_type_at(p, v);
        pk_json_object_begin(&j);
        pk_json_member_string(&j, "name", pk_str(p, vt->name));
        pk_json_member_string(&j, "unit", pk_str(p, vt->unit));
        pk_json_member_i64(&j, "total", s->totals[v]);
        pk_json_member_bool(&j, "default", v == pk_default_value(p));
        pk_json_object_end(&j);
    }
    pk_json_array_end(&j);

    pk_json_key(&j, "warnings");
    pk_json_array_begin(&j);
    for (size_t i = 0; i < pk_warning_count(p); i++)
        pk_json_string(&j, pk_warning_at(p, i));
    pk_json_array_end(&j);
    pk_json_member_u64(&j, "warnings_dropped", pk_warnings_dropped(p));
    pk_json_object_end(&j);
    pk_out_putc(out, '\n');
    return PK_OK;
}
