/* SPDX-License-Identifier: MIT */
/* Using libprofkit's analysis from a program: the top functions of a profile as data, then
 * what changed between two profiles, as profkit report and profkit diff show them.
 *
 *   cc report_and_diff.c $(pkg-config --cflags --libs profkit) -o report_and_diff
 *   ./report_and_diff before.bsprof after.bsprof
 *
 * With one profile it prints its top functions only. With two it also writes the comparison
 * as a differential flame graph, diff.svg.
 */
#include <inttypes.h>
#include <stdio.h>

#include <profkit/profkit.h>

/* Reads path with its format found from the content; NULL after printing why not. */
static pk_profile *read_profile(const char *path)
{
    pk_profile *profile = NULL;
    pk_error err;
    if (pk_read_file(path, NULL, NULL, &profile, &err) != PK_OK) {
        fprintf(stderr, "%s: byte %" PRId64 ": %s\n", path, err.offset, err.message);
        return NULL;
    }
    return profile;
}

/* The five functions with the most self value, read from the report's entries. */
static int print_top(const pk_profile *profile)
{
    pk_report_options options;
    pk_report_options_init(&options);
    options.top = 5;
    pk_report *report;
    pk_error err;
    if (pk_report_build(profile, &options, &report, &err) != PK_OK) {
        fprintf(stderr, "report: %s\n", err.message);
        return 1;
    }
    printf("top %zu of %zu functions by self %s (%s), total %" PRId64 ":\n", report->entry_count,
           report->entries_available, report->value_name, report->value_unit, report->total);
    for (size_t i = 0; i < report->entry_count; i++) {
        const pk_report_entry *e = &report->entries[i];
        printf("  %-24s self %10" PRId64 "  total %10" PRId64 "\n", e->name, e->self, e->total);
    }
    pk_report_free(report);
    return 0;
}

/* The biggest changes per function as profkit diff prints them, and diff.svg. */
static int print_diff(const pk_profile *base, const pk_profile *newer)
{
    pk_profile *diff;
    pk_error err;
    if (pk_diff_profiles(base, PK_NONE, newer, PK_NONE, false, &diff, &err) != PK_OK) {
        fprintf(stderr, "diff: %s\n", err.message);
        return 1;
    }
    pk_diff_report_options options = {.by_path = false, .measure = PK_DIFF_DEFAULT, .top = 5};
    pk_diff_report *report = NULL;
    pk_output *out = NULL;
    pk_status status = pk_diff_report_build(diff, &options, &report, &err);
    /* Standard output is written below stdio: what printf buffered goes first. */
    fflush(stdout);
    if (status == PK_OK)
        status = pk_output_create("-", NULL, &out, &err);
    if (status == PK_OK)
        status = pk_diff_report_write_text(report, 80, out, &err);
    if (status == PK_OK)
        status = pk_output_finish(out, &err);
    else
        pk_output_discard(out);
    /* The differential profile is an ordinary profile: any writer takes it. */
    if (status == PK_OK)
        status = pk_write_file(diff, "diff.svg", pk_format_by_name("svg"), NULL, NULL, &err);
    if (status != PK_OK)
        fprintf(stderr, "diff: %s\n", err.message);
    pk_diff_report_free(report);
    pk_profile_free(diff);
    return status == PK_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s PROFILE [NEWER-PROFILE]\n", argv[0]);
        return 2;
    }
    pk_profile *base = read_profile(argv[1]);
    if (!base)
        return 1;
    int status = print_top(base);
    if (status == 0 && argc == 3) {
        pk_profile *newer = read_profile(argv[2]);
        status = newer ? print_diff(base, newer) : 1;
        pk_profile_free(newer);
    }
    pk_profile_free(base);
    return status;
}
