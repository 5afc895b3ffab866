/* SPDX-License-Identifier: MIT */
/* Reports, summaries, diff and merge on a profile built with the model API
 * (tests/report_fixture.h): the data of each report and its text and JSON renderings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/units.h"
#include "core/output.h"
#include "profkit/diff.h"
#include "profkit/format.h"
#include "profkit/merge.h"
#include "profkit/report.h"
#include "profkit/summary.h"
#include "report_fixture.h"

/* How a view is shown: as JSON, or as text in width columns (0: no limit). */
typedef struct rendering {
    bool json;
    size_t width;
} rendering;

static const rendering as_json = {true, 0}, as_text = {false, 80}, as_wide_text = {false, 0};

static pk_report *build(const pk_profile *p, const pk_report_options *o)
{
    pk_report *r = NULL;
    pk_error err;
    pk_error_clear(&err);
    if (pk_report_build(p, o, &r, &err) != PK_OK)
        fail_msg("report failed: %s", err.message);
    return r;
}

static char *render(const pk_report *r, rendering how)
{
    pk_output *out = pk_output_create_memory();
    assert_non_null(out);
    pk_error err;
    pk_error_clear(&err);
    pk_status st = how.json ? pk_report_write_json(r, out, &err)
                            : pk_report_write_text(r, how.width, out, &err);
    if (st != PK_OK)
        fail_msg("rendering failed: %s", err.message);
    char *data;
    size_t size;
    assert_int_equal(pk_output_finish_memory(out, &data, &size, &err), PK_OK);
    return data;
}

/* Builds view of p with o and renders it. */
static char *run_view(pk_report_view view, const pk_profile *p, pk_report_options *o,
                      rendering how)
{
    o->view = view;
    pk_report *r = build(p, o);
    char *s = render(r, how);
    pk_report_free(r);
    return s;
}

#define assert_contains(haystack, needle)                                                     \
    do {                                                                                      \
        if (!strstr((haystack), (needle))) {                                                  \
            fprintf(stderr, "%s", (haystack));                                                \
            fail_msg("missing '%s'", (needle));                                               \
        }                                                                                     \
    } while (0)

/* Every line of text fits in width columns. */
static void assert_fits(const char *text, size_t width)
{
    const char *line = text;
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        char copy[4096];
        memcpy(copy, line, n < sizeof copy ? n : sizeof copy - 1);
        copy[n < sizeof copy ? n : sizeof copy - 1] = '\0';
        if (pk_text_columns(copy) > width)
            fail_msg("line longer than %zu columns: '%s'", width, copy);
        line = end ? end + 1 : line + n;
    }
}

static void values_are_scaled_to_readable_units(void **state)
{
    (void)state;
    char b[PK_VALUE_TEXT];
    pk_value_text(b, sizeof b, 1500000, "nanoseconds", false);
    assert_string_equal(b, "1.50 ms");
    pk_value_text(b, sizeof b, 999, "nanoseconds", false);
    assert_string_equal(b, "999 ns");
    pk_value_text(b, sizeof b, 1e9, "nanoseconds", false);
    assert_string_equal(b, "1.00 s");
    pk_value_text(b, sizeof b, 123456, "microseconds", false);
    assert_string_equal(b, "123 ms");
    pk_value_text(b, sizeof b, 2048, "bytes", false);
    assert_string_equal(b, "2.00 KiB");
    pk_value_text(b, sizeof b, 1536.0 * 1024, "bytes", false);
    assert_string_equal(b, "1.50 MiB");
    pk_value_text(b, sizeof b, 100, "bytes", false);
    assert_string_equal(b, "100 B");
    pk_value_text(b, sizeof b, 12345, "count", false);
    assert_string_equal(b, "12345");
    pk_value_text(b, sizeof b, 5 * MS, "nanoseconds", true);
    assert_string_equal(b, "+5.00 ms");
    pk_value_text(b, sizeof b, -5 * MS, "nanoseconds", true);
    assert_string_equal(b, "-5.00 ms");
    pk_percent_text(b, sizeof b, 1, 3);
    assert_string_equal(b, "33.33%");
    pk_percent_text(b, sizeof b, 1, 0);
    assert_string_equal(b, "-");
}

static void long_names_are_shortened_in_the_middle(void **state)
{
    (void)state;
    pk_output out;
    pk_output_init_memory(&out);
    pk_out_shortened(&out, "abcdefghijklmnopqrstuvwxyz", 10);
    pk_out_putc(&out, '|');
    pk_out_shortened(&out, "short", 10);
    pk_out_putc(&out, '|');
    pk_out_shortened(&out, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 5);
    pk_out_putc(&out, '|');
    pk_out_cell(&out, "ab", 4, true);
    pk_out_putc(&out, '|');
    pk_out_cell(&out, "ab", 4, false);
    pk_error err;
    assert_int_equal(pk_output_commit(&out, &err), PK_OK);
    char *s = pk_output_take_memory(&out, NULL);
    assert_string_equal(s, "abcd...xyz|short|\xc3\xa9...\xc3\xa9|  ab|ab  ");
    free(s);
}

static void top_counts_recursion_once(void **state)
{
    (void)state;
    pk_profile *p = fixture_profile();
    pk_report_options o;
    pk_report_options_init(&o);
    char *s = run_view(PK_REPORT_TOP, p, &o, as_json);
    assert_contains(s, "\"view\":\"top\",\"value\":{\"name\":\"cpu\",\"unit\":\"nanoseconds\"},"
                       "\"total\":42000000");
    assert_contains(s, "\"function_count\":4");
    /* Sorted by self: bar 29, foo 10, rec 2, main 1. */
    const char *bar = strstr(s, "\"name\":\"bar\""), *foo = strstr(s, "\"name\":\"foo\"");
    const char *rec = strstr(s, "\"name\":\"rec\""), *main_ = strstr(s, "\"name\":\"main\"");
    assert_non_null(bar);
    assert_true(bar < foo && foo < rec && rec < main_);
    assert_contains(s, "\"name\":\"bar\",\"self\":29000000");
    assert_contains(s, "\"name\":\"rec\",\"self\":2000000");
    /* rec appears twice on one stack but its total counts the stack once. */
    assert_contains(s, "\"total\":6000000,");
    assert_contains(s, "\"name\":\"main\",\"self\":1000000,\"self_percent\":2.380952380952381,"
                       "\"sum_percent\":100,\"total\":42000000,\"total_percent\":100}");
    free(s);

    o.sort_total = true;
    o.top = 2;
    s = run_view(PK_REPORT_TOP, p, &o, as_text);
    assert_contains(s, "cpu (nanoseconds): total 42.0 ms; 2 of 4 functions by total");
    assert_contains(s, "  1.00 ms   2.38%   2.38%    42.0 ms 100.00%  main\n");
    assert_contains(s, "  10.0 ms  23.81%  26.19%    30.0 ms  71.43%  foo\n");
    assert_null(strstr(s, "bar"));
    assert_fits(s, 80);
    free(s);
    pk_profile_free(p);
}

static void thread_filter_restricts_views(void **state)
{
    (void)state;
    pk_profile *p = fixture_profile();
    pk_report_options o;
    pk_report_options_init(&o);
    o.thread_pattern = "work*";
    char *s = run_view(PK_REPORT_TOP, p, &o, as_json);
    assert_contains(s, "\"total\":6000000,");
    assert_contains(s, "\"function_count\":3");
    assert_null(strstr(s, "\"foo\""));
    free(s);
    o.thread_pattern = "ai"; /* substring of "main" */
    s = run_view(PK_REPORT_THREADS, p, &o, as_json);
    assert_contains(s, "\"thread_count\":1,\"threads\":[{\"name\":\"main\",\"pid\":1,\"tid\":1,"
                       "\"total\":36000000,\"percent\":100,\"stacks\":4}]");
    free(s);
    pk_profile_free(p);
}

static void tree_has_branch_totals_and_folds_small_branches(void **state)
{
    (void)state;
    pk_profile *p = fixture_profile();
    pk_report_options o;
    pk_report_options_init(&o);
    o.thread_pattern = "main";
    o.min_percent = 20;
    char *s = run_view(PK_REPORT_TREE, p, &o, as_json);
    assert_contains(s, "\"roots\":[{\"name\":\"main\",\"self\":1000000,\"total\":36000000,"
                       "\"percent\":100,\"children\":[{\"name\":\"foo\",\"self\":10000000,"
                       "\"total\":30000000");
    assert_contains(s, "{\"name\":\"bar\",\"self\":20000000,\"total\":20000000,");
    /* main;bar (5 of 36 ms) is under 20%. */
    assert_contains(s, "\"hidden_count\":1,\"hidden_total\":5000000}");
    free(s);
    o.thread_pattern = NULL;
    o.min_percent = 90; /* main (85.71%) and worker fall below: both folded at the first level */
    s = run_view(PK_REPORT_TREE, p, &o, as_json);
    assert_contains(s, "\"roots\":[],\"hidden_count\":2,\"hidden_total\":42000000}");
    free(s);

    o.min_percent = 1;
    o.thread_pattern = NULL;
    s = run_view(PK_REPORT_TREE, p, &o, as_text);
    /* Two threads with data: one branch each; recursion shown as it occurs. */
    assert_contains(s, "   36.0 ms  85.71%       0 ns  [main]\n");
    assert_contains(s, "   6.00 ms  14.29%       0 ns  [worker]\n");
    assert_contains(s, "   4.00 ms   9.52%       0 ns        rec\n");
    assert_contains(s, "   4.00 ms   9.52%    4.00 ms          bar\n");
    const char *foo = strstr(s, "foo"), *bar = strstr(s, "      bar");
    assert_true(foo && bar && foo < bar); /* heaviest child first */
    assert_fits(s, 80);
    free(s);
    pk_profile_free(p);
}

static void callers_and_callees_have_shares(void **state)
{
    (void)state;
    pk_profile *p = fixture_profile();
    pk_report_options o;
    pk_report_options_init(&o);
    o.function = "bar";
    char *s = run_view(PK_REPORT_CALLERS, p, &o, as_json);
    assert_contains(s, "\"function_total\":29000000,\"function_self\":29000000,\"callers\":["
                       "{\"name\":\"foo\",\"value\":20000000,");
    assert_contains(s, "{\"name\":\"main\",\"value\":5000000,");
    assert_contains(s, "{\"name\":\"rec\",\"value\":4000000,");
    free(s);
    o.function = "rec";
    s = run_view(PK_REPORT_CALLEES, p, &o, as_json);
    assert_contains(s, "\"function_total\":6000000,\"function_self\":2000000,\"callees\":["
                       "{\"name\":\"rec\",\"value\":4000000,\"share_percent\":66.66666666666667");
    assert_contains(s, "{\"name\":null,\"value\":2000000,");
    free(s);
    o.function = "main";
    s = run_view(PK_REPORT_CALLEES, p, &o, as_text);
    assert_contains(s, "callees of main: cpu (nanoseconds) 42.0 ms (100.00% of all)\n");
    assert_contains(s, "   30.0 ms  71.43%  foo\n");
    assert_contains(s, "   1.00 ms   2.38%  (self)\n");
    free(s);

    o.function = "nothing";
    o.view = PK_REPORT_CALLERS;
    pk_report *r = NULL;
    pk_error err;
    assert_int_equal(pk_report_build(p, &o, &r, &err), PK_ERR_USAGE);
    assert_null(r);
    assert_non_null(strstr(err.message, "no function named 'nothing'"));
    pk_profile_free(p);
}

static void lines_are_ranked_by_self(void **state)
{
    (void)state;
    pk_profile *p = fixture_profile();
    pk_report_options o;
    pk_report_options_init(&o);
    char *s = run_view(PK_REPORT_LINES, p, &o, as_json);
    assert_contains(s, "\"line_count\":4,\"lines\":[{\"file\":\"lib.c\",\"line\":7,"
                       "\"function\":\"bar\",\"self\":29000000,");
    assert_contains(s, "{\"file\":\"main.c\",\"line\":3,\"function\":\"main\",\"self\":1000000,"
                       "\"self_percent\":2.380952380952381,\"total\":42000000,");
    free(s);
    s = run_view(PK_REPORT_LINES, p, &o, as_text);
    assert_contains(s, "   29.0 ms  69.05%    29.0 ms  69.05%  lib.c:7  bar\n");
    free(s);
    pk_profile_free(p);
}

static void memory_report_finds_the_leaks(void **state)
{
    (void)state;
    pk_profile *p = fixture_profile();
    pk_report_options o;
    pk_report_options_init(&o);
    char *s = run_view(PK_REPORT_MEMORY, p, &o, as_json);
    assert_contains(s, "{\"view\":\"memory\",\"allocated\":1160,\"allocated_count\":4,"
                       "\"freed\":110,\"freed_count\":2,\"unfreed\":1050,\"unfreed_count\":2,"
                       "\"unmatched_frees\":1,");
    assert_contains(s, "\"call_paths\":[{\"path\":[\"main\",\"foo\",\"bar\"],\"allocated\":1000,"
                       "\"allocated_count\":1,\"freed\":0,\"freed_count\":0,\"unfreed\":1000,");
    assert_contains(s, "},{\"path\":[\"main\",\"bar\"],\"allocated\":50,");
    assert_contains(s, "\"lines\":[{\"file\":\"lib.c\",\"line\":7,\"function\":\"bar\","
                       "\"allocated\":1060,\"allocated_count\":3,\"freed\":10,");
    free(s);
    s = run_view(PK_REPORT_MEMORY, p, &o, as_text);
    assert_contains(s, "memory: 1.03 KiB unfreed in 2 blocks\n"
                       "allocated 1.13 KiB in 4 blocks, freed 110 B in 2 blocks\n"
                       "1 frees of blocks not allocated in the profile\n");
    assert_contains(s, "   unfreed  blocks  allocated  blocks      freed  blocks\n"
                       "    call path\n"
                       "    1000 B       1     1000 B       1        0 B       0\n"
                       "    main > foo > bar\n");
    assert_contains(s, "  1.03 KiB       2   1.04 KiB       3       10 B       1\n"
                       "    lib.c:7  bar\n");
    assert_fits(s, 80);
    free(s);
    o.thread_pattern = "worker";
    s = run_view(PK_REPORT_MEMORY, p, &o, as_json);
    assert_contains(s, "\"allocated\":10,\"allocated_count\":1,\"freed\":10,");
    free(s);
    pk_profile_free(p);
}

static void narrow_output_shortens_and_wide_keeps(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "t"), -1, -1);
    char name[300];
    memset(name, 'x', sizeof name - 1);
    memcpy(name, "Namespace::", 11);
    memcpy(name + sizeof name - 9, "::method", 9);
    uint32_t stack = PK_NONE;
    for (int depth = 0; depth < 30; depth++)
        stack = pk_intern_stack(p, stack, fixture_frame(p, name, "", 0, NULL));
    pk_add_sample_value(p, t, stack, 0, 7);
    pk_report_options o;
    pk_report_options_init(&o);
    pk_report_view views[] = {PK_REPORT_TOP, PK_REPORT_TREE, PK_REPORT_THREADS};
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
        char *s = run_view(views[i], p, &o, as_text);
        assert_fits(s, 80);
        free(s);
    }
    char *s = run_view(PK_REPORT_TOP, p, &o, as_text);
    assert_contains(s, "Namespace::xx");
    assert_contains(s, "...");
    assert_contains(s, "xx::method\n");
    free(s);
    s = run_view(PK_REPORT_TREE, p, &o, as_text);
    assert_contains(s, "          7                      (30) Namespace..."); /* depth label past the indentation limit */
    free(s);
    s = run_view(PK_REPORT_TOP, p, &o, as_wide_text);
    assert_contains(s, name);
    free(s);
    pk_profile_free(p);
}

static void merge_sums_profiles(void **state)
{
    (void)state;
    pk_profile *a = fixture_profile(), *b = fixture_profile();
    const pk_profile *inputs[2] = {a, b};
    pk_profile *m = NULL;
    pk_error err;
    pk_error_clear(&err);
    assert_int_equal(pk_profile_merge(inputs, 2, &m, &err), PK_OK);
    assert_int_equal(pk_value_type_count(m), 2);
    assert_int_equal(pk_value_total(m, 0), 84 * MS);
    assert_int_equal(pk_value_total(m, 1), 12);
    assert_int_equal(pk_thread_count(m), 2);
    assert_int_equal(pk_sample_count(m), 6);
    assert_int_equal(pk_memory_event_count(m), 14);
    pk_report_options o;
    pk_report_options_init(&o);
    char *s = run_view(PK_REPORT_MEMORY, m, &o, as_json);
    /* Blocks of one input are never freed by the other. */
    assert_contains(s, "\"allocated\":2320,\"allocated_count\":8,\"freed\":220,\"freed_count\":4,"
                       "\"unfreed\":2100,\"unfreed_count\":4,\"unmatched_frees\":2");
    free(s);
    pk_profile_free(m);

    /* A value with another unit is refused. */
    pk_profile *c = pk_profile_new();
    pk_add_value_type(c, "cpu", "microseconds");
    const pk_profile *bad[2] = {a, c};
    assert_int_equal(pk_profile_merge(bad, 2, &m, &err), PK_ERR_USAGE);
    assert_non_null(strstr(err.message, "'cpu'"));
    pk_profile_free(c);
    /* Nothing in common is refused. */
    c = pk_profile_new();
    pk_add_value_type(c, "alloc", "bytes");
    bad[1] = c;
    assert_int_equal(pk_profile_merge(bad, 2, &m, &err), PK_ERR_USAGE);
    pk_profile_free(c);
    pk_profile_free(a);
    pk_profile_free(b);
}

/* The diff report of d as JSON or text, or d written as folded stacks. */
enum diff_output { DIFF_JSON, DIFF_TEXT, DIFF_FOLDED };

static char *diff_text(const pk_profile *d, const pk_diff_report_options *o,
                       enum diff_output what)
{
    pk_error err;
    pk_error_clear(&err);
    char *data = NULL;
    size_t size = 0;
    if (what == DIFF_FOLDED) {
        if (pk_write_memory(d, pk_format_by_name("folded"), NULL, &data, &size, &err) != PK_OK)
            fail_msg("writing failed: %s", err.message);
        return data;
    }
    pk_diff_report *r = NULL;
    if (pk_diff_report_build(d, o, &r, &err) != PK_OK)
        fail_msg("diff failed: %s", err.message);
    pk_output *out = pk_output_create_memory();
    pk_status st = what == DIFF_JSON ? pk_diff_report_write_json(r, out, &err)
                                     : pk_diff_report_write_text(r, 80, out, &err);
    assert_int_equal(st, PK_OK);
    assert_int_equal(pk_output_finish_memory(out, &data, &size, &err), PK_OK);
    pk_diff_report_free(r);
    return data;
}

/* base: the fixture; newer: foo doubles its self value and bar loses 4 ms. */
static void diff_inputs(pk_profile **base, pk_profile **newer)
{
    *base = fixture_profile();
    *newer = fixture_profile();
    fixture_add(*newer, 0, "main;foo", 10 * MS);
    fixture_add(*newer, 1, "main;rec;rec;bar", -4 * MS);
}

static void diff_ranks_the_biggest_change_first(void **state)
{
    (void)state;
    pk_profile *base, *newer, *d = NULL;
    diff_inputs(&base, &newer);
    pk_error err;
    assert_int_equal(pk_diff_profiles(base, 0, newer, 0, false, &d, &err), PK_OK);
    pk_diff_report_options o = {.top = 20};
    char *s = diff_text(d, &o, DIFF_JSON);
    assert_contains(s, "\"base_total\":42000000,\"new_total\":48000000,\"normalized\":false");
    assert_contains(s, "\"rows\":[{\"name\":\"foo\",\"base\":10000000,\"new\":20000000,"
                       "\"change\":10000000,\"change_percent\":100}");
    assert_contains(s, "{\"name\":\"bar\",\"base\":29000000,\"new\":25000000,\"change\":-4000000,");
    free(s);
    s = diff_text(d, &o, DIFF_TEXT);
    assert_contains(s, "cpu (nanoseconds): base 42.0 ms, new 48.0 ms (+14.3%)\n");
    assert_contains(s, "   10.0 ms    20.0 ms    +10.0 ms  +100.0%  foo\n");
    assert_fits(s, 80);
    free(s);
    o.by_path = true;
    s = diff_text(d, &o, DIFF_JSON);
    assert_contains(s, "\"by\":\"path\",\"measure\":\"total\"");
    assert_contains(s, "{\"path\":[\"main\",\"foo\"],\"base\":30000000,\"new\":40000000,");
    free(s);
    s = diff_text(d, &o, DIFF_FOLDED);
    assert_contains(s, "main;foo 10000000 20000000\n");
    assert_contains(s, "main;rec;rec;bar 4000000 0\n");
    assert_contains(s, "main 1000000 1000000\n");
    free(s);
    pk_profile_free(d);

    assert_int_equal(pk_diff_profiles(base, 0, newer, 0, true, &d, &err), PK_OK);
    s = diff_text(d, &o, DIFF_FOLDED);
    /* Base scaled by 48/42. */
    assert_contains(s, "main;foo 11428571 20000000\n");
    free(s);
    s = diff_text(d, &o, DIFF_JSON);
    assert_contains(s, "\"normalized\":true,\"base_scale\":1.1428571428571428");
    free(s);
    pk_profile_free(d);
    assert_int_equal(pk_diff_profiles(base, 0, newer, 1, false, &d, &err), PK_ERR_USAGE);
    assert_null(d);
    /* Only a differential profile has a diff report. */
    pk_diff_report *r = NULL;
    assert_int_equal(pk_diff_report_build(base, NULL, &r, &err), PK_ERR_USAGE);
    assert_null(r);
    pk_profile_free(base);
    pk_profile_free(newer);
}

/* The differential profile itself: two values of one unit, marked, threads matched by name. */
static void diff_makes_a_differential_profile(void **state)
{
    (void)state;
    pk_profile *base, *newer, *d = NULL;
    diff_inputs(&base, &newer);
    pk_error err;
    assert_int_equal(pk_diff_profiles(base, PK_NONE, newer, PK_NONE, false, &d, &err), PK_OK);
    assert_true(pk_metadata_get(d)->differential);
    assert_int_equal(pk_value_type_count(d), 2);
    assert_string_equal(pk_str(d, pk_value_type_at(d, PK_DIFF_BASE)->name), "base");
    assert_string_equal(pk_str(d, pk_value_type_at(d, PK_DIFF_NEW)->name), "new");
    assert_string_equal(pk_str(d, pk_value_type_at(d, PK_DIFF_NEW)->unit), "nanoseconds");
    assert_int_equal(pk_default_value(d), PK_DIFF_NEW);
    assert_string_equal(pk_property_get(d, "diff.value"), "cpu");
    assert_null(pk_property_get(d, "diff.base_scale"));
    assert_int_equal(pk_value_total(d, PK_DIFF_BASE), 42 * MS);
    assert_int_equal(pk_value_total(d, PK_DIFF_NEW), 48 * MS);
    assert_int_equal(pk_thread_count(d), 2);
    /* Memory events of both, never freeing each other's blocks. */
    assert_int_equal(pk_memory_event_count(d), 14);

    /* The diff report reads it per function with totals too. */
    pk_diff_report_options o = {.measure = PK_DIFF_TOTAL, .top = 1};
    pk_diff_report *r = NULL;
    assert_int_equal(pk_diff_report_build(d, &o, &r, &err), PK_OK);
    assert_string_equal(r->value_name, "cpu");
    assert_int_equal(r->measure, PK_DIFF_TOTAL);
    assert_int_equal(r->row_count, 1);
    assert_true(r->rows_available > 1);
    assert_string_equal(r->rows[0].name, "foo");
    assert_null(r->rows[0].path);
    assert_int_equal(r->rows[0].base, 30 * MS);
    assert_int_equal(r->rows[0].newer, 40 * MS);
    assert_int_equal(r->rows[0].change, 10 * MS);
    pk_diff_report_free(r);
    o = (pk_diff_report_options){.by_path = true};
    assert_int_equal(pk_diff_report_build(d, &o, &r, &err), PK_OK);
    const pk_diff_row *rec_bar = NULL;
    for (size_t i = 0; i < r->row_count; i++)
        if (r->rows[i].path_length == 4)
            rec_bar = &r->rows[i];
    assert_non_null(rec_bar);
    assert_string_equal(rec_bar->path[0], "main");
    assert_string_equal(rec_bar->path[2], "rec");
    assert_string_equal(rec_bar->name, "bar");
    assert_true(rec_bar->change_percent == -100.0);
    pk_diff_report_free(r);
    pk_profile_free(d);
    pk_profile_free(base);
    pk_profile_free(newer);
}

/* ---- reports as data --------------------------------------------------------------------- */

static void assert_entry(const pk_report_entry *e, const char *name, int64_t self, int64_t total)
{
    assert_string_equal(e->name, name);
    assert_int_equal(e->self, self);
    assert_int_equal(e->total, total);
}

static void assert_node(const pk_report_node *n, const char *name, uint32_t depth,
                        uint32_t folded, int64_t self, int64_t total)
{
    assert_string_equal(n->name, name);
    assert_int_equal(n->depth, depth);
    assert_int_equal(n->folded, folded);
    assert_int_equal(n->self, self);
    assert_int_equal(n->total, total);
}

static void flat_views_are_entries(void **state)
{
    (void)state;
    pk_profile *p = fixture_profile();
    pk_report_options o;
    pk_report_options_init(&o);
    o.top = 3;
    pk_report *r = build(p, &o);
    assert_int_equal(r->view, PK_REPORT_TOP);
    assert_string_equal(r->value_name, "cpu");
    assert_string_equal(r->value_unit, "nanoseconds");
    assert_int_equal(r->total, 42 * MS);
    assert_int_equal(r->threads_matched, 2);
    assert_int_equal(r->entry_count, 3);
    assert_int_equal(r->entries_available, 4);
    assert_entry(&r->entries[0], "bar", 29 * MS, 29 * MS);
    assert_entry(&r->entries[1], "foo", 10 * MS, 30 * MS);
    assert_entry(&r->entries[2], "rec", 2 * MS, 6 * MS);
    assert_string_equal(r->entries[0].file, "");
    pk_report_free(r);

    o.view = PK_REPORT_CALLEES;
    o.function = "main";
    o.top = 0;
    o.value = 1; /* calls */
    r = build(p, &o);
    assert_string_equal(r->value_name, "calls");
    assert_string_equal(r->function, "main");
    assert_int_equal(r->function_total, 6);
    assert_int_equal(r->function_self, 1);
    assert_int_equal(r->entry_count, 4);
    /* foo and rec 2 calls each, then main's own call before bar's (by name, "" first). */
    assert_entry(&r->entries[0], "foo", 0, 2);
    assert_false(r->entries[0].own);
    assert_entry(&r->entries[1], "rec", 0, 2);
    assert_entry(&r->entries[2], "", 1, 1);
    assert_true(r->entries[2].own);
    assert_entry(&r->entries[3], "bar", 0, 1);
    pk_report_free(r);

    o.view = PK_REPORT_CALLERS;
    o.value = PK_NONE;
    r = build(p, &o);
    assert_int_equal(r->entry_count, 1); /* main is called from nowhere */
    assert_true(r->entries[0].own);
    assert_int_equal(r->entries[0].total, 42 * MS);
    pk_report_free(r);

    o.view = PK_REPORT_LINES;
    r = build(p, &o);
    assert_true(r->has_lines);
    assert_int_equal(r->entry_count, 4);
    assert_entry(&r->entries[0], "bar", 29 * MS, 29 * MS);
    assert_string_equal(r->entries[0].file, "lib.c");
    assert_int_equal(r->entries[0].line, 7);
    pk_report_free(r);

    o.view = PK_REPORT_THREADS;
    r = build(p, &o);
    assert_int_equal(r->entry_count, 2);
    assert_entry(&r->entries[0], "main", 0, 36 * MS);
    assert_int_equal(r->entries[0].tid, 1);
    assert_int_equal(r->entries[0].stacks, 4);
    assert_entry(&r->entries[1], "worker", 0, 6 * MS);
    assert_int_equal(r->entries[1].pid, 1);
    assert_int_equal(r->entries[1].tid, 2);
    assert_int_equal(r->entries[1].stacks, 2);
    pk_report_free(r);
    pk_profile_free(p);
}

static void tree_view_is_rows_in_display_order(void **state)
{
    (void)state;
    pk_profile *p = fixture_profile();
    pk_report_options o;
    pk_report_options_init(&o);
    o.view = PK_REPORT_TREE;
    o.thread_pattern = "main";
    o.min_percent = 20;
    pk_report *r = build(p, &o);
    assert_int_equal(r->threads_matched, 1);
    assert_int_equal(r->total, 36 * MS);
    assert_int_equal(r->node_count, 4);
    assert_node(&r->nodes[0], "main", 0, 0, 1 * MS, 36 * MS);
    assert_node(&r->nodes[1], "foo", 1, 0, 10 * MS, 30 * MS);
    assert_node(&r->nodes[2], "bar", 2, 0, 20 * MS, 20 * MS);
    /* main;bar (5 of 36 ms) is folded, after the siblings shown. */
    assert_node(&r->nodes[3], "", 1, 1, 0, 5 * MS);
    assert_false(r->nodes[0].thread);
    pk_report_free(r);

    /* Both threads: one branch each, marked. */
    o.thread_pattern = NULL;
    o.min_percent = 0;
    r = build(p, &o);
    assert_node(&r->nodes[0], "main", 0, 0, 0, 36 * MS);
    assert_true(r->nodes[0].thread);
    assert_node(&r->nodes[1], "main", 1, 0, 1 * MS, 36 * MS);
    assert_false(r->nodes[1].thread);
    const pk_report_node *last = &r->nodes[r->node_count - 1];
    assert_node(last, "bar", 4, 0, 4 * MS, 4 * MS); /* worker: main;rec;rec;bar */
    pk_report_free(r);
    pk_profile_free(p);
}

static void memory_view_is_sites(void **state)
{
    (void)state;
    pk_profile *p = fixture_profile();
    pk_report_options o;
    pk_report_options_init(&o);
    o.view = PK_REPORT_MEMORY;
    pk_report *r = build(p, &o);
    assert_true(r->has_memory_events);
    assert_string_equal(r->value_name, "");
    assert_int_equal(r->memory.allocated, 1160);
    assert_int_equal(r->memory.allocated_count, 4);
    assert_int_equal(r->memory.freed, 110);
    assert_int_equal(r->memory.unfreed, 1050);
    assert_int_equal(r->memory.unfreed_count, 2);
    assert_int_equal(r->unmatched_frees, 1);
    assert_int_equal(r->path_count, 4);
    assert_int_equal(r->paths_available, 4);
    const pk_memory_site *site = &r->paths[0];
    assert_int_equal(site->path_length, 3);
    assert_string_equal(site->path[0], "main");
    assert_string_equal(site->path[1], "foo");
    assert_string_equal(site->path[2], "bar");
    assert_int_equal(site->memory.unfreed, 1000);
    assert_int_equal(site->memory.allocated_count, 1);
    site = &r->paths[3]; /* heaviest unfreed first, then most allocated: 10 B freed */
    assert_int_equal(site->path_length, 4);
    assert_string_equal(site->path[3], "bar");
    assert_int_equal(site->memory.freed, 10);
    assert_int_equal(r->line_count, 2);
    site = &r->lines[0];
    assert_string_equal(site->file, "lib.c");
    assert_int_equal(site->line, 7);
    assert_string_equal(site->function, "bar");
    assert_int_equal(site->memory.allocated, 1060);
    assert_int_equal(site->memory.allocated_count, 3);
    assert_int_equal(site->path_length, 0);
    pk_report_free(r);

    /* top limits the sites, not the totals. */
    o.top = 1;
    r = build(p, &o);
    assert_int_equal(r->path_count, 1);
    assert_int_equal(r->paths_available, 4);
    assert_int_equal(r->line_count, 1);
    assert_int_equal(r->memory.allocated, 1160);
    pk_report_free(r);
    pk_profile_free(p);
}

/* ---- summaries -------------------------------------------------------------------------------- */

static char *render_summary(const pk_summary *s, const pk_profile *p, bool json)
{
    pk_output *out = pk_output_create_memory();
    pk_error err;
    pk_status st = json ? pk_summary_write_json(s, p, "fixture", out, &err)
                        : pk_summary_write_text(s, p, "fixture", out, &err);
    assert_int_equal(st, PK_OK);
    char *data;
    size_t size;
    assert_int_equal(pk_output_finish_memory(out, &data, &size, &err), PK_OK);
    return data;
}

static void summary_has_totals_and_counts(void **state)
{
    (void)state;
    pk_profile *p = fixture_profile();
    pk_metadata_of(p)->product = pk_intern_cstr(p, "Demo");
    pk_property_set(p, "device", "box");
    pk_warn(p, "one warning");
    pk_summary *s = NULL;
    pk_error err;
    assert_int_equal(pk_summary_build(p, &s, &err), PK_OK);
    assert_int_equal(s->value_count, 2);
    assert_int_equal(s->totals[0], 42 * MS);
    assert_int_equal(s->totals[1], 6);
    assert_int_equal(s->thread_count, 2);
    assert_int_equal(s->thread_totals[0 * 2 + 0], 36 * MS);
    assert_int_equal(s->thread_totals[0 * 2 + 1], 4);
    assert_int_equal(s->thread_totals[1 * 2 + 0], 6 * MS);
    assert_int_equal(s->thread_totals[1 * 2 + 1], 2);
    assert_int_equal(s->strings, pk_string_count(p));
    assert_int_equal(s->resources, 1);
    assert_int_equal(s->functions, 4);
    assert_int_equal(s->stacks, pk_stack_count(p));
    assert_int_equal(s->sample_rows, 6);
    assert_int_equal(s->memory_events, 7);

    char *text = render_summary(s, p, false);
    assert_contains(text, "file                     fixture\nformat                   \n"
                          "product                  Demo\ndevice                   box\n");
    assert_contains(text, "\nthreads (2)\n  main                   tid 1        cpu=36000000 "
                          "calls=4\n");
    assert_contains(text, "\ncounts\n  strings                ");
    assert_contains(text, "  memory-events          7\n");
    assert_contains(text, "\nvalues\n  cpu                    nanoseconds    total 42000000  "
                          "(default)\n  calls                  count          total 6\n");
    assert_contains(text, "\nwarnings (1)\n  one warning\n");
    free(text);
    char *json = render_summary(s, p, true);
    assert_contains(json, "{\"file\":\"fixture\",\"format\":\"\",\"metadata\":{\"product\":"
                          "\"Demo\",\"start_time\":null,\"end_time\":null,\"duration_seconds\":"
                          "null,\"period\":0,\"period_type\":\"\",\"period_unit\":\"\","
                          "\"times_approximate\":false,\"properties\":{\"device\":\"box\"}},");
    assert_contains(json, "\"threads\":[{\"name\":\"main\",\"display_name\":\"main\",\"pid\":1,"
                          "\"tid\":1,\"totals\":{\"cpu\":36000000,\"calls\":4},"
                          "\"times\":{\"kind\":\"placed\"}},");
    assert_contains(json, "\"values\":[{\"name\":\"cpu\",\"unit\":\"nanoseconds\","
                          "\"total\":42000000,\"default\":true},");
    assert_contains(json, "\"warnings\":[\"one warning\"],\"warnings_dropped\":0}\n");
    free(json);

    /* A summary goes with the profile it was built from. */
    pk_profile *other = pk_profile_new();
    pk_output *out = pk_output_create_memory();
    assert_int_equal(pk_summary_write_text(s, other, "other", out, &err), PK_ERR_USAGE);
    pk_output_discard(out);
    pk_profile_free(other);
    pk_summary_free(s);
    pk_profile_free(p);
}

/* A differential profile written as folded stacks reads back with the same values. */
static void diff_round_trips_through_folded(void **state)
{
    (void)state;
    pk_profile *base, *newer, *d = NULL;
    diff_inputs(&base, &newer);
    pk_error err;
    assert_int_equal(pk_diff_profiles(base, 0, newer, 0, false, &d, &err), PK_OK);
    char *text = NULL;
    size_t size = 0;
    const pk_format *folded = pk_format_by_name("folded");
    assert_int_equal(pk_write_memory(d, folded, NULL, &text, &size, &err), PK_OK);
    pk_profile *back = NULL;
    assert_int_equal(pk_read_memory(text, size, folded, NULL, &back, &err), PK_OK);
    assert_true(pk_metadata_get(back)->differential);
    assert_int_equal(pk_value_total(back, PK_DIFF_BASE), pk_value_total(d, PK_DIFF_BASE));
    assert_int_equal(pk_value_total(back, PK_DIFF_NEW), pk_value_total(d, PK_DIFF_NEW));
    /* Path for path the same rows. */
    pk_diff_report_options o = {.by_path = true};
    pk_diff_report *a = NULL, *b = NULL;
    assert_int_equal(pk_diff_report_build(d, &o, &a, &err), PK_OK);
    assert_int_equal(pk_diff_report_build(back, &o, &b, &err), PK_OK);
    assert_int_equal(a->row_count, b->row_count);
    for (size_t i = 0; i < a->row_count; i++) {
        assert_int_equal(a->rows[i].path_length, b->rows[i].path_length);
        for (size_t k = 0; k < a->rows[i].path_length; k++)
            assert_string_equal(a->rows[i].path[k], b->rows[i].path[k]);
        assert_int_equal(a->rows[i].base, b->rows[i].base);
        assert_int_equal(a->rows[i].newer, b->rows[i].newer);
    }
    pk_diff_report_free(a);
    pk_diff_report_free(b);
    /* And it is written again as it was read. */
    char *again = NULL;
    size_t again_size = 0;
    assert_int_equal(pk_write_memory(back, folded, NULL, &again, &again_size, &err), PK_OK);
    assert_int_equal(again_size, size);
    assert_memory_equal(again, text, size);
    free(again);
    free(text);
    pk_profile_free(back);
    pk_profile_free(d);
    pk_profile_free(base);
    pk_profile_free(newer);
}

static void empty_profiles_report_nothing(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    pk_report_options o;
    pk_report_options_init(&o);
    pk_report_view views[] = {PK_REPORT_TOP, PK_REPORT_TREE, PK_REPORT_LINES, PK_REPORT_MEMORY,
                              PK_REPORT_THREADS};
    for (int json = 0; json < 2; json++) {
        for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
            char *s = run_view(views[i], p, &o, json ? as_json : as_text);
            assert_true(strlen(s) > 0);
            free(s);
        }
    }
    pk_profile_free(p);
    p = pk_profile_new();
    pk_report *r = NULL;
    pk_error err;
    o.view = PK_REPORT_TOP;
    assert_int_equal(pk_report_build(p, &o, &r, &err), PK_ERR_USAGE);
    assert_null(r);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(values_are_scaled_to_readable_units),
        cmocka_unit_test(long_names_are_shortened_in_the_middle),
        cmocka_unit_test(top_counts_recursion_once),
        cmocka_unit_test(thread_filter_restricts_views),
        cmocka_unit_test(tree_has_branch_totals_and_folds_small_branches),
        cmocka_unit_test(callers_and_callees_have_shares),
        cmocka_unit_test(lines_are_ranked_by_self),
        cmocka_unit_test(memory_report_finds_the_leaks),
        cmocka_unit_test(narrow_output_shortens_and_wide_keeps),
        cmocka_unit_test(merge_sums_profiles),
        cmocka_unit_test(diff_ranks_the_biggest_change_first),
        cmocka_unit_test(diff_makes_a_differential_profile),
        cmocka_unit_test(diff_round_trips_through_folded),
        cmocka_unit_test(flat_views_are_entries),
        cmocka_unit_test(tree_view_is_rows_in_display_order),
        cmocka_unit_test(memory_view_is_sites),
        cmocka_unit_test(summary_has_totals_and_counts),
        cmocka_unit_test(empty_profiles_report_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
