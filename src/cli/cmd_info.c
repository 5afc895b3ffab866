/* profkit info: what a profile holds, as text or as one JSON object. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "core/arith.h"
#include "core/output.h"

static const char info_help[] =
    "Usage: profkit info INPUT [--json] [--from FORMAT] [--salvage]\n"
    "\n"
    "Prints the format and its version, the metadata (target, versions, device, start and\n"
    "end time, duration, ratios, flags), the threads with their totals, how many strings,\n"
    "functions, frames, stacks, sample rows and memory events were read, the total of every\n"
    "value, and the warnings.\n"
    "\n"
    "Options:\n"
    "      --json               one JSON object with the keys format, metadata, threads,\n"
    "                           counts, values and warnings\n"
    "      --from FORMAT        input format, when probing the content is not wanted\n"
    "      --salvage            keep what can be read before damage in the input\n"
    "      --quiet              no progress bar, no warnings on standard error\n";

enum { KEY_JSON = 256 };

static int info_option(void *context, int key, const char *value)
{
    (void)value;
    if (key != KEY_JSON)
        return PK_EXIT_USAGE;
    *(bool *)context = true;
    return 0;
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

/* Per thread: the total of every value. */
static int64_t *thread_totals(const pk_profile *p)
{
    size_t nv = pk_value_type_count(p), nt = pk_thread_count(p);
    int64_t *totals = calloc(nt * nv + 1, sizeof *totals);
    if (!totals)
        return NULL;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        const int64_t *values = pk_sample_values(p, row);
        uint32_t t = pk_sample_thread(p, row);
        for (size_t v = 0; v < nv; v++) {
            totals[t * nv + v] = pk_add_saturating(totals[t * nv + v], values[v]);
        }
    }
    return totals;
}

typedef struct info_counts {
    const char *name;
    size_t count;
} info_counts;

static size_t gather_counts(const pk_profile *p, info_counts counts[7])
{
    info_counts all[] = {
        {"strings", pk_string_count(p)},       {"resources", pk_resource_count(p)},
        {"functions", pk_function_count(p)},   {"frames", pk_frame_count(p)},
        {"stacks", pk_stack_count(p)},         {"sample-rows", pk_sample_count(p)},
        {"memory-events", pk_memory_event_count(p)},
    };
    memcpy(counts, all, sizeof all);
    return sizeof all / sizeof all[0];
}

static void print_text(const pk_profile *p, const char *path)
{
    const pk_metadata *m = pk_metadata_get(p);
    char when[64];
    size_t nv = pk_value_type_count(p);
    printf("%-24s %s\n", "file", path);
    printf("%-24s %s\n", "format", pk_str(p, m->source_format));
    if (m->product)
        printf("%-24s %s\n", "product", pk_str(p, m->product));
    if (m->start_time != PK_TIME_UNKNOWN) {
        format_time(m->start_time, when, sizeof when);
        printf("%-24s %s\n", "start", when);
    }
    if (m->end_time != PK_TIME_UNKNOWN) {
        format_time(m->end_time, when, sizeof when);
        printf("%-24s %s\n", "end", when);
    }
    if (m->start_time != PK_TIME_UNKNOWN && m->end_time != PK_TIME_UNKNOWN)
        printf("%-24s %.3f s\n", "duration", (double)(m->end_time - m->start_time) / 1e9);
    if (m->period)
        printf("%-24s %" PRId64 " %s%s%s\n", "period", m->period, pk_str(p, m->period_unit),
               m->period_type ? " of " : "", pk_str(p, m->period_type));
    if (m->times_approximate)
        printf("%-24s %s\n", "sample times", "approximate (placed in stream order)");
    for (size_t i = 0; i < pk_property_count(p); i++)
        printf("%-24s %s\n", pk_property_key(p, i), pk_property_value(p, i));

    printf("\nthreads (%zu)\n", pk_thread_count(p));
    int64_t *totals = thread_totals(p);
    for (uint32_t t = 0; t < pk_thread_count(p); t++) {
        const pk_thread *th = pk_thread_at(p, t);
        printf("  %-22s", pk_str(p, th->name));
        if (th->tid >= 0)
            printf(" tid %-8" PRId64, th->tid);
        for (size_t v = 0; totals && v < nv; v++)
            printf(" %s=%" PRId64, pk_str(p, pk_value_type_at(p, (uint32_t)v)->name),
                   totals[t * nv + v]);
        putchar('\n');
    }
    free(totals);

    info_counts counts[7];
    size_t nc = gather_counts(p, counts);
    printf("\ncounts\n");
    for (size_t i = 0; i < nc; i++)
        printf("  %-22s %zu\n", counts[i].name, counts[i].count);

    printf("\nvalues\n");
    for (uint32_t v = 0; v < nv; v++) {
        const pk_value_type *vt = pk_value_type_at(p, v);
        printf("  %-22s %-14s total %" PRId64 "%s\n", pk_str(p, vt->name), pk_str(p, vt->unit),
               pk_value_total(p, v), v == pk_default_value(p) ? "  (default)" : "");
    }

    size_t nw = pk_warning_count(p);
    printf("\nwarnings (%zu)\n", nw + pk_warnings_dropped(p));
    for (size_t i = 0; i < nw; i++)
        printf("  %s\n", pk_warning_at(p, i));
    if (pk_warnings_dropped(p))
        printf("  ... and %zu more\n", pk_warnings_dropped(p));
}

static void json_key(pk_output *out, const char *key, bool *first)
{
    if (!*first)
        pk_out_putc(out, ',');
    *first = false;
    pk_out_json_string(out, key);
    pk_out_putc(out, ':');
}

static void json_time(pk_output *out, const char *key, int64_t ns, bool *first)
{
    char when[64];
    json_key(out, key, first);
    if (ns == PK_TIME_UNKNOWN) {
        pk_out_puts(out, "null");
        return;
    }
    format_time(ns, when, sizeof when);
    pk_out_json_string(out, when);
}

static void print_json(const pk_profile *p, const char *path, pk_output *out)
{
    const pk_metadata *m = pk_metadata_get(p);
    size_t nv = pk_value_type_count(p);
    bool first = true, inner;
    pk_out_putc(out, '{');
    json_key(out, "file", &first);
    pk_out_json_string(out, path);
    json_key(out, "format", &first);
    pk_out_json_string(out, pk_str(p, m->source_format));

    json_key(out, "metadata", &first);
    pk_out_putc(out, '{');
    inner = true;
    json_key(out, "product", &inner);
    pk_out_json_string(out, pk_str(p, m->product));
    json_time(out, "start_time", m->start_time, &inner);
    json_time(out, "end_time", m->end_time, &inner);
    json_key(out, "duration_seconds", &inner);
    if (m->start_time != PK_TIME_UNKNOWN && m->end_time != PK_TIME_UNKNOWN)
        pk_out_double(out, (double)(m->end_time - m->start_time) / 1e9);
    else
        pk_out_puts(out, "null");
    json_key(out, "period", &inner);
    pk_out_i64(out, m->period);
    json_key(out, "period_type", &inner);
    pk_out_json_string(out, pk_str(p, m->period_type));
    json_key(out, "period_unit", &inner);
    pk_out_json_string(out, pk_str(p, m->period_unit));
    json_key(out, "times_approximate", &inner);
    pk_out_puts(out, m->times_approximate ? "true" : "false");
    json_key(out, "properties", &inner);
    pk_out_putc(out, '{');
    for (size_t i = 0; i < pk_property_count(p); i++) {
        if (i)
            pk_out_putc(out, ',');
        pk_out_json_string(out, pk_property_key(p, i));
        pk_out_putc(out, ':');
        pk_out_json_string(out, pk_property_value(p, i));
    }
    pk_out_puts(out, "}}");

    json_key(out, "threads", &first);
    pk_out_putc(out, '[');
    int64_t *totals = thread_totals(p);
    for (uint32_t t = 0; t < pk_thread_count(p); t++) {
        const pk_thread *th = pk_thread_at(p, t);
        if (t)
            pk_out_putc(out, ',');
        pk_out_puts(out, "{\"name\":");
        pk_out_json_string(out, pk_str(p, th->name));
        pk_out_puts(out, ",\"pid\":");
        pk_out_i64(out, th->pid);
        pk_out_puts(out, ",\"tid\":");
        pk_out_i64(out, th->tid);
        pk_out_puts(out, ",\"totals\":{");
        for (size_t v = 0; totals && v < nv; v++) {
            if (v)
                pk_out_putc(out, ',');
            pk_out_json_string(out, pk_str(p, pk_value_type_at(p, (uint32_t)v)->name));
            pk_out_putc(out, ':');
            pk_out_i64(out, totals[t * nv + v]);
        }
        pk_out_puts(out, "}}");
    }
    free(totals);
    pk_out_putc(out, ']');

    json_key(out, "counts", &first);
    pk_out_putc(out, '{');
    info_counts counts[7];
    size_t nc = gather_counts(p, counts);
    for (size_t i = 0; i < nc; i++) {
        if (i)
            pk_out_putc(out, ',');
        pk_out_json_string(out, counts[i].name);
        pk_out_putc(out, ':');
        pk_out_u64(out, counts[i].count);
    }
    pk_out_putc(out, '}');

    json_key(out, "values", &first);
    pk_out_putc(out, '[');
    for (uint32_t v = 0; v < nv; v++) {
        const pk_value_type *vt = pk_value_type_at(p, v);
        if (v)
            pk_out_putc(out, ',');
        pk_out_puts(out, "{\"name\":");
        pk_out_json_string(out, pk_str(p, vt->name));
        pk_out_puts(out, ",\"unit\":");
        pk_out_json_string(out, pk_str(p, vt->unit));
        pk_out_puts(out, ",\"total\":");
        pk_out_i64(out, pk_value_total(p, v));
        pk_out_puts(out, ",\"default\":");
        pk_out_puts(out, v == pk_default_value(p) ? "true" : "false");
        pk_out_putc(out, '}');
    }
    pk_out_putc(out, ']');

    json_key(out, "warnings", &first);
    pk_out_putc(out, '[');
    for (size_t i = 0; i < pk_warning_count(p); i++) {
        if (i)
            pk_out_putc(out, ',');
        pk_out_json_string(out, pk_warning_at(p, i));
    }
    pk_out_puts(out, "],\"warnings_dropped\":");
    pk_out_u64(out, pk_warnings_dropped(p));
    pk_out_puts(out, "}\n");
}

int pk_cmd_info(int argc, char **argv)
{
    static const cli_option options[] = {{"json", 0, KEY_JSON}, {NULL, 0, 0}};
    bool json = false;
    cli_input_options input;
    char **rest;
    int rest_count;
    int status =
        cli_parse(argc, argv, options, info_option, &json, &input, info_help, &rest, &rest_count);
    if (status != 0) {
        cli_free_input_options(&input);
        return status < 0 ? PK_EXIT_OK : status;
    }
    if (rest_count != 1) {
        cli_error("info: give one INPUT file (see `profkit info --help`)");
        cli_free_input_options(&input);
        return PK_EXIT_USAGE;
    }
    pk_profile *p = NULL;
    input.keep_warnings = true; /* info lists them in its output */
    status = cli_read_profile(rest[0], &input, NULL, &p);
    if (status == PK_EXIT_OK) {
        const char *shown = strcmp(rest[0], "-") == 0 ? "standard input" : rest[0];
        if (json) {
            pk_output out;
            pk_error err;
            if (pk_output_open(&out, "-", NULL, &err) != PK_OK) {
                status = cli_report_error(NULL, &err);
            } else {
                print_json(p, shown, &out);
                if (pk_output_commit(&out, &err) != PK_OK)
                    status = cli_report_error(NULL, &err);
            }
        } else {
            print_text(p, shown);
            if (fflush(stdout) != 0)
                status = PK_EXIT_FAILURE;
        }
    }
    pk_profile_free(p);
    cli_free_input_options(&input);
    return status;
}
