/* SPDX-License-Identifier: MIT */
/* Folded stacks: the reader (stack lines and the lines the peers skip, line ends, byte-order
 * marks and UTF-16, long lines, errors naming the line, every truncation point, differential
 * lines with two counts), the writer's contract (weights,
 * sanitised names, threads, zero weights, two counts) and round trips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixtures.h"
#include "gunzip.h"
#include "core/input.h"
#include "sorted_lines.h"
#include "formats/formats.h"
#include "profkit/diff.h"
#include "profkit/format.h"
#include "profkit/profile.h"

/* ---- helpers --------------------------------------------------------------------------------- */

static pk_status read_folded_opts(const char *text, size_t len, bool salvage, bool threads,
                                  pk_profile **out, pk_error *err)
{
    pk_option thread_option = {"folded-threads", ""};
    pk_read_options options = {0};
    options.salvage = salvage;
    if (threads) {
        options.extra.items = &thread_option;
        options.extra.count = 1;
    }
    *out = NULL;
    pk_error_clear(err);
    return pk_read_memory(text, len, &pk_format_folded, &options, out, err);
}

/* Reads text that must be valid. */
static pk_profile *read_ok(const char *text)
{
    pk_profile *p = NULL;
    pk_error err;
    pk_status status = read_folded_opts(text, strlen(text), false, false, &p, &err);
    if (status != PK_OK)
        fail_msg("read failed: %s", err.message);
    assert_non_null(p);
    return p;
}

static char *write_with(const pk_profile *p, const pk_format *format, uint32_t value,
                        bool with_threads)
{
    pk_write_options options = {0};
    options.value = value;
    options.with_threads = with_threads;
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    pk_error_clear(&err);
    pk_status status = pk_write_memory(p, format, &options, &data, &size, &err);
    if (status != PK_OK)
        fail_msg("write failed: %s", err.message);
    assert_int_equal(strlen(data), size);
    return data;
}

static char *write_folded(const pk_profile *p, uint32_t value, bool with_threads)
{
    return write_with(p, &pk_format_folded, value, with_threads);
}

static char *dup_text(const char *s)
{
    char *d = strdup(s);
    assert_non_null(d);
    return d;
}

/* Asserts the folded output of p (value, threads) equals `want` as a set of lines. */
static void assert_folded(const pk_profile *p, uint32_t value, bool with_threads, const char *want)
{
    char *got = tb_sorted_lines(write_folded(p, value, with_threads));
    char *expected = tb_sorted_lines(dup_text(want));
    assert_string_equal(got, expected);
    free(got);
    free(expected);
}

/* The names of a stack's frames joined by ';'. */
static void stack_text(const pk_profile *p, uint32_t stack, char *buf, size_t cap)
{
    uint32_t frames[64];
    size_t depth = pk_stack_frames(p, stack, frames, 64);
    assert_true(depth <= 64);
    buf[0] = '\0';
    for (size_t i = 0; i < depth; i++) {
        if (i)
            strncat(buf, ";", cap - strlen(buf) - 1);
        strncat(buf, pk_frame_name(p, frames[i]), cap - strlen(buf) - 1);
    }
}

/* Value `value` of the row whose stack reads `stack`, or -1 when absent. */
static int64_t row_value(const pk_profile *p, const char *stack, uint32_t value)
{
    char buf[512];
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        stack_text(p, pk_sample_stack(p, row), buf, sizeof buf);
        if (strcmp(buf, stack) == 0)
            return pk_sample_values(p, row)[value];
    }
    return -1;
}

/* The count of the row whose stack reads `stack`, or -1 when absent. */
static int64_t row_count(const pk_profile *p, const char *stack)
{
    return row_value(p, stack, 0);
}

static bool has_warning(const pk_profile *p, const char *needle)
{
    for (size_t i = 0; i < pk_warning_count(p); i++)
        if (strstr(pk_warning_at(p, i), needle))
            return true;
    return false;
}

/* ---- reader ---------------------------------------------------------------------------------- */

static void test_read_basic(void **state)
{
    (void)state;
    pk_profile *p = read_ok("main;parse 2\nmain;eval 1\nmain 1\nmain;eval;kmalloc_[k] 3\n");
    assert_int_equal(pk_value_type_count(p), 1);
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->name), "samples");
    assert_int_equal(pk_thread_count(p), 1);
    assert_int_equal(pk_sample_count(p), 4);
    assert_int_equal(pk_value_total(p, 0), 7);
    assert_int_equal(row_count(p, "main;parse"), 2);
    assert_int_equal(row_count(p, "main;eval"), 1);
    assert_int_equal(row_count(p, "main"), 1);
    assert_int_equal(row_count(p, "main;eval;kmalloc_[k]"), 3);
    /* "main" is one function and one frame however often it appears. */
    assert_int_equal(pk_function_count(p), 4);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
}

static void test_read_whitespace_and_crlf(void **state)
{
    (void)state;
    pk_profile *p = read_ok("\r\n"
                            "a b;c  d 5\r\n"
                            "   \n"
                            "x;y\t7\n"
                            "x;y   2  \r\n"
                            "\t\n"
                            "last 4");
    assert_int_equal(pk_sample_count(p), 3);
    assert_int_equal(row_count(p, "a b;c  d"), 5);
    assert_int_equal(row_count(p, "x;y"), 9);
    assert_int_equal(row_count(p, "last"), 4);
    pk_profile_free(p);
}

static void test_read_same_stack_summed_and_zero(void **state)
{
    (void)state;
    pk_profile *p = read_ok("a;b 2\nc 0\na;b 3\n");
    assert_int_equal(row_count(p, "a;b"), 5);
    assert_int_equal(row_count(p, "c"), 0);
    assert_int_equal(pk_value_total(p, 0), 5);
    pk_profile_free(p);
}

/* A fixture of tests/data/folded/, read through the whole-file path (probe included). */
static pk_profile *read_fixture(const char *name)
{
    pk_profile *p = NULL;
    pk_error err;
    pk_error_clear(&err);
    if (pk_read_file(tb_data_path(name), NULL, NULL, &p, &err) != PK_OK)
        fail_msg("%s: %s", name, err.message);
    return p;
}

/* A fixture read with the format given, as the peers read every file (`--from folded`). */
static pk_profile *read_fixture_as_folded(const char *name)
{
    pk_profile *p = NULL;
    pk_error err;
    pk_error_clear(&err);
    if (pk_read_file(tb_data_path(name), &pk_format_folded, NULL, &p, &err) != PK_OK)
        fail_msg("%s: %s", name, err.message);
    return p;
}

/* Fractions are dropped per count as inferno drops them (flamegraph.pl keeps them: 334.618 for
 * fractions.folded, inferno reads 333), with one warning that sums what was dropped. */
static void test_read_fractions_truncated(void **state)
{
    (void)state;
    pk_profile *p = read_ok("a 1.5\nb 2.0\nc 7.49\nd 3.\ne 0.25\n");
    assert_int_equal(row_count(p, "a"), 1);
    assert_int_equal(row_count(p, "b"), 2);
    assert_int_equal(row_count(p, "c"), 7);
    assert_int_equal(row_count(p, "d"), 3);
    assert_int_equal(row_count(p, "e"), 0);
    /* "2.0" and "3." are whole: three counts had a fraction. */
    assert_true(has_warning(p, "3 counts had a fractional part"));
    assert_true(has_warning(p, "(1.24 samples in all)"));
    pk_profile_free(p);

    p = read_fixture("folded/fractions.folded");
    assert_int_equal(pk_value_total(p, 0), 333);
    assert_int_equal(row_count(p, "main;eval;step"), 33);
    assert_true(has_warning(p, "3 counts had a fractional part"));
    assert_true(has_warning(p, "(1.618 samples in all)"));
    pk_profile_free(p);
}

/* "stack BASE NEW" lines (difffolded.pl, inferno-diff-folded): a differential profile whose
 * leaf names are clean. */
static void test_read_differential(void **state)
{
    (void)state;
    pk_profile *p = read_ok("a;b 3 4\nc 0 2.5\na;b 1 1\nd\t7  0 \n");
    assert_true(pk_metadata_get(p)->differential);
    assert_int_equal(pk_value_type_count(p), 2);
    assert_string_equal(pk_str(p, pk_value_type_at(p, PK_DIFF_BASE)->name), "base");
    assert_string_equal(pk_str(p, pk_value_type_at(p, PK_DIFF_NEW)->name), "new");
    assert_string_equal(pk_str(p, pk_value_type_at(p, PK_DIFF_NEW)->unit), "count");
    assert_int_equal(pk_default_value(p), PK_DIFF_NEW);
    assert_int_equal(row_value(p, "a;b", PK_DIFF_BASE), 4);
    assert_int_equal(row_value(p, "a;b", PK_DIFF_NEW), 5);
    assert_int_equal(row_value(p, "c", PK_DIFF_BASE), 0);
    assert_int_equal(row_value(p, "c", PK_DIFF_NEW), 2);
    assert_int_equal(row_value(p, "d", PK_DIFF_BASE), 7);
    assert_int_equal(row_value(p, "d", PK_DIFF_NEW), 0);
    assert_int_equal(row_count(p, "a;b 3"), -1);
    assert_int_equal(pk_function_count(p), 4);
    assert_true(has_warning(p, "1 count had a fractional part"));
    assert_false(has_warning(p, "two counts"));
    pk_profile_free(p);
    /* With thread names first. */
    pk_error err;
    const char *text = "t1;a 1 2\nt2;a;b 0 3\n";
    assert_int_equal(read_folded_opts(text, strlen(text), false, true, &p, &err), PK_OK);
    assert_int_equal(pk_thread_count(p), 2);
    assert_int_equal(row_value(p, "a;b", PK_DIFF_NEW), 3);
    assert_int_equal(row_value(p, "a", PK_DIFF_BASE), 1);
    pk_profile_free(p);
}

/* Two counts after a first stack line with one: flamegraph.pl and inferno weigh the line by its
 * last count and keep the name clean (plain-mixed.folded: widths 3, 6, 2). */
static void test_read_two_counts_in_plain_file(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("folded/plain-mixed.folded");
    assert_false(pk_metadata_get(p)->differential);
    assert_int_equal(pk_value_type_count(p), 1);
    assert_int_equal(row_count(p, "main;parse"), 3);
    assert_int_equal(row_count(p, "main;eval"), 6);
    assert_int_equal(row_count(p, "main;eval;step"), 2);
    assert_int_equal(row_count(p, "main;eval 4"), -1);
    assert_true(has_warning(p, "1 line ends in two counts while the first stack line has one"));
    pk_profile_free(p);
}

/* One count in a differential file: the peers draw the line without a difference
 * (differential-mixed.folded: widths 5, 4, 2; deltas +2, none, +2). */
static void test_read_one_count_in_differential_file(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("folded/differential-mixed.folded");
    assert_true(pk_metadata_get(p)->differential);
    assert_int_equal(row_value(p, "main;parse", PK_DIFF_BASE), 3);
    assert_int_equal(row_value(p, "main;parse", PK_DIFF_NEW), 5);
    assert_int_equal(row_value(p, "main;eval", PK_DIFF_BASE), 4);
    assert_int_equal(row_value(p, "main;eval", PK_DIFF_NEW), 4);
    assert_int_equal(row_value(p, "main;eval;step", PK_DIFF_BASE), 0);
    assert_int_equal(row_value(p, "main;eval;step", PK_DIFF_NEW), 2);
    assert_true(has_warning(p, "1 line of this differential file has one count"));
    pk_profile_free(p);
}

static void test_read_shared_prefixes(void **state)
{
    (void)state;
    /* Neighbouring lines that share, almost share or extend prefixes. */
    const char *text = "a;b;c 1\na;b;d 2\na;x;c 3\na;b 4\na;bb 5\na 6\nab;c 7\na;b;c 8\n"
                       "a;b;c;d;e 9\nb;b;c 10\na;;c 11\na; 12\n";
    pk_profile *p = read_ok(text);
    assert_int_equal(row_count(p, "a;b;c"), 9);
    assert_int_equal(row_count(p, "a;b;d"), 2);
    assert_int_equal(row_count(p, "a;x;c"), 3);
    assert_int_equal(row_count(p, "a;b"), 4);
    assert_int_equal(row_count(p, "a;bb"), 5);
    assert_int_equal(row_count(p, "a"), 6);
    assert_int_equal(row_count(p, "ab;c"), 7);
    assert_int_equal(row_count(p, "a;b;c;d;e"), 9);
    assert_int_equal(row_count(p, "b;b;c"), 10);
    assert_int_equal(row_count(p, "a;;c"), 11);
    assert_int_equal(row_count(p, "a;"), 12);
    assert_int_equal(pk_value_total(p, 0), 78);
    pk_profile_free(p);
}

static void test_read_thread_roots(void **state)
{
    (void)state;
    pk_profile *p = NULL;
    pk_error err;
    const char *text = "t1;a;b 1\nt2;a 2\nt1;a;b 3\nt2 4\n";
    assert_int_equal(read_folded_opts(text, strlen(text), false, true, &p, &err), PK_OK);
    assert_int_equal(pk_thread_count(p), 2);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "t1");
    assert_string_equal(pk_str(p, pk_thread_at(p, 1)->name), "t2");
    assert_folded(p, PK_NONE, true, "t1;a;b 4\nt2;a 2\nt2 4\n");
    assert_folded(p, PK_NONE, false, "a;b 4\na 2\n");
    pk_profile_free(p);
}

/* Lines that are not stacks are skipped as flamegraph.pl and inferno skip them, with one
 * warning that counts them and names the first few; odd-lines.folded is read as inferno reads
 * it (flamegraph.pl also takes the count 10^20, which exceeds the model's int64). */
static void test_read_skips_lines_that_are_not_stacks(void **state)
{
    (void)state;
    pk_profile *p = read_fixture_as_folded("folded/odd-lines.folded");
    assert_int_equal(pk_sample_count(p), 3);
    assert_int_equal(row_count(p, "main;parse"), 3);
    assert_int_equal(row_count(p, "main;eval;kmalloc_[k]"), 5);
    assert_int_equal(row_count(p, "main"), 2);
    assert_int_equal(pk_value_total(p, 0), 10);
    assert_int_equal(pk_warning_count(p), 2);
    assert_true(has_warning(p, "8 lines that are not a stack were skipped (lines 3, 4, 5, 6, 7, "
                               "...)"));
    assert_true(has_warning(p, "1 comment line ('#' and a blank) was skipped"));
    pk_profile_free(p);

    /* Each kind alone, between two stack lines. */
    static const char *const skipped[] = {
        "#comment", "// comment", "main;x -1", "main;x +2", "main;x 0x10", "main;x .5",
        "main;x", "42", "  42", "main;x 9223372036854775808", "main;x 1.2.3", "main;x 5e3",
        "main;x x1",
    };
    for (size_t i = 0; i < sizeof skipped / sizeof skipped[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "a;b 1\n%s\nc 2\n", skipped[i]);
        p = read_ok(text);
        if (pk_value_total(p, 0) != 3 || pk_sample_count(p) != 2 ||
            !has_warning(p, "1 line that is not a stack was skipped (line 2)"))
            fail_msg("\"%s\": total %lld, rows %zu", skipped[i], (long long)pk_value_total(p, 0),
                     pk_sample_count(p));
        pk_profile_free(p);
    }
    /* The largest count the model holds is a count. */
    p = read_ok("a 9223372036854775807\n");
    assert_int_equal(row_count(p, "a"), INT64_MAX);
    pk_profile_free(p);
}

/* Comment lines ('#' and a blank) are skipped, as inferno skips them, and `# key: value` ones
 * kept as properties. austin-wall.folded is written as austin 3.3.0 writes its collapsed-stack
 * output (`austin -o FILE python app.py`): the header lines `# austin: 3.3.0`,
 * `# interval: 100` and `# mode: wall`, then one line per sample, `P<pid>;T<iid>:<tid>;` and
 * `file:function:line` frames with the sample's time in microseconds (austin's src/events.h and
 * the sample head of its text output), and `# duration: 23873`, the sum of the times, at the
 * end. Before, `# interval:` and `# duration:` were read as stacks with those counts, more
 * than half of the flame graph. */
static void test_read_comment_lines(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("folded/austin-wall.folded");
    assert_int_equal(pk_sample_count(p), 4);
    assert_int_equal(pk_value_type_count(p), 1);
    /* austin's counts are microseconds of the mode's time; its interval is the period */
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->name), "wall");
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->unit), "microseconds");
    assert_int_equal(pk_value_total(p, 0), 23873);
    assert_int_equal(row_count(p, "P4317;T0:4317;/home/user/app.py:<module>:1;"
                                  "/home/user/app.py:main:13"),
                     215);
    const pk_metadata *meta = pk_metadata_get(p);
    assert_int_equal(meta->period, 100);
    assert_string_equal(pk_str(p, meta->period_unit), "microseconds");
    assert_string_equal(pk_str(p, meta->period_type), "wall");
    assert_string_equal(pk_property_get(p, "austin"), "3.3.0");
    assert_string_equal(pk_property_get(p, "interval"), "100");
    assert_string_equal(pk_property_get(p, "mode"), "wall");
    assert_string_equal(pk_property_get(p, "duration"), "23873");
    assert_int_equal(pk_warning_count(p), 1);
    assert_true(has_warning(p, "4 comment lines ('#' and a blank) were skipped, as inferno "
                               "skips them; 4 of the form '# key: value' are kept as "
                               "properties"));
    pk_profile_free(p);

    /* austin's CPU mode; a mode profkit does not know keeps counts of samples, and without
     * austin's own line an interval has no known unit: a property only */
    p = read_ok("# austin: 3.3.0\n# interval: 250\n# mode: cpu\nmain;f 7\n");
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->name), "cpu");
    assert_int_equal(pk_metadata_get(p)->period, 250);
    assert_string_equal(pk_str(p, pk_metadata_get(p)->period_type), "cpu");
    pk_profile_free(p);
    p = read_ok("# austin: 3.3.0\n# mode: full\nmain;f 7\n");
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->name), "samples");
    assert_int_equal(pk_metadata_get(p)->period, 0);
    pk_profile_free(p);
    p = read_ok("# interval: 100\n#\tnote: tab after the hash\n# just words\nmain;f 7\n"
                "# mode: wall\n");
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->unit), "count");
    assert_int_equal(pk_metadata_get(p)->period, 0);
    assert_string_equal(pk_property_get(p, "interval"), "100");
    assert_string_equal(pk_property_get(p, "note"), "tab after the hash");
    assert_string_equal(pk_property_get(p, "mode"), "wall");
    assert_int_equal(pk_value_total(p, 0), 7);
    assert_true(has_warning(p, "4 comment lines ('#' and a blank) were skipped, as inferno "
                               "skips them; 3 of the form '# key: value' are kept"));
    pk_profile_free(p);

    /* properties from comments are bounded: the first 64 are kept */
    char *many = malloc(100 * 32 + 16);
    assert_non_null(many);
    size_t n = 0;
    for (int i = 0; i < 100; i++)
        n += (size_t)sprintf(many + n, "# key%d: %d\n", i, i);
    strcpy(many + n, "main 1\n");
    p = read_ok(many);
    assert_non_null(pk_property_get(p, "key63"));
    assert_null(pk_property_get(p, "key64"));
    assert_true(has_warning(p, "100 comment lines ('#' and a blank) were skipped, as inferno "
                               "skips them; 64 of the form"));
    pk_profile_free(p);
    free(many);
}

typedef struct bad_case {
    const char *text;
    size_t len;          /* 0: strlen(text) */
    int64_t offset;      /* expected error offset */
    const char *message; /* expected in the message */
    bool salvageable;
} bad_case;

static void test_read_errors_name_the_line(void **state)
{
    (void)state;
    const bad_case cases[] = {
        {"main;parse\n", 0, 0, "no line is a stack: expected 'frame;frame;... COUNT' lines; "
                                "line 1 (\"main;parse\") has no blank before a count", false},
        {"# austin: 3.3.0\n\nb;c x1\r\n", 0, 21, "line 3 (\"b;c x1\") does not end in a count",
         false},
        {"# mode: wall\n\n# duration: 5\n", 0, 28, "no stack lines, only comments and blank "
                                                   "lines", false},
        {"\n  5\n", 0, 1, "line 2 (\"  5\") has a count but no stack", false},
        {"a 1\nb\0c 2\n", 10, 5, "line 2 holds a NUL byte: this is not text", true},
        {"", 0, 0, "the file is empty", false},
        {"\n\r\n  \n", 0, 6, "no stack lines, only blank ones", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
        pk_profile *p = NULL;
        pk_error err;
        pk_status status = read_folded_opts(cases[i].text, len, false, false, &p, &err);
        if (status != PK_ERR_INPUT || !strstr(err.message, cases[i].message) ||
            err.offset != cases[i].offset || err.salvageable != cases[i].salvageable)
            fail_msg("case %zu: status %d, offset %lld, message \"%s\"", i, (int)status,
                     (long long)err.offset, err.message);
        pk_profile_free(p);
    }
}

/* A long skipped line is cut in the message. */
static void test_read_long_line_is_cut_in_message(void **state)
{
    (void)state;
    char text[200];
    memset(text, 0, sizeof text);
    memset(text, 'z', 100);
    pk_profile *p = NULL;
    pk_error err;
    assert_int_equal(read_folded_opts(text, strlen(text), false, false, &p, &err), PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "zzz...\""));
    assert_true(strlen(err.message) < 250);
    pk_profile_free(p);
}

/* Writes len bytes to a temporary file and returns its path (static storage). */
static const char *temp_file(const void *data, size_t len)
{
    static char path[64];
    snprintf(path, sizeof path, "folded-test-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    return path;
}

/* Lines longer than the input's 1 MiB buffer are gathered whole, from memory and from a file
 * (a stream); a line over the limit is damage that salvage can step past. */
static void test_read_long_lines(void **state)
{
    (void)state;
    size_t long_len = (2u << 20) + 10;
    char *text = malloc(long_len + 64);
    assert_non_null(text);
    strcpy(text, "a 1\r");
    memset(text + 4, 'f', long_len);
    text[4 + long_len / 2] = ';';
    strcpy(text + 4 + long_len, " 7\r\nb 2\r");
    size_t size = strlen(text);
    pk_profile *p = read_ok(text);
    assert_int_equal(pk_value_total(p, 0), 10);
    assert_int_equal(pk_sample_count(p), 3);
    pk_profile_free(p);

    const char *path = temp_file(text, size);
    pk_error err;
    assert_int_equal(pk_read_file(path, NULL, NULL, &p, &err), PK_OK);
    assert_int_equal(pk_value_total(p, 0), 10);
    assert_int_equal(pk_sample_count(p), 3);
    uint32_t frames[2];
    for (size_t row = 0; row < pk_sample_count(p); row++)
        if (pk_sample_values(p, row)[0] == 7) {
            assert_int_equal(pk_stack_frames(p, pk_sample_stack(p, row), frames, 2), 2);
            assert_int_equal(strlen(pk_frame_name(p, frames[0])), long_len / 2);
            assert_int_equal(strlen(pk_frame_name(p, frames[1])), long_len - long_len / 2 - 1);
        }
    pk_profile_free(p);
    remove(path);
    free(text);

    /* Over the limit: the line is damage at its start. */
    size_t over = ((size_t)64 << 20) + 1;
    text = malloc(over + 16);
    assert_non_null(text);
    strcpy(text, "a 1\n");
    memset(text + 4, 'g', over);
    strcpy(text + 4 + over, " 1\nb 2\n");
    size = strlen(text);
    assert_int_equal(read_folded_opts(text, size, false, false, &p, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, 4);
    assert_true(err.salvageable);
    assert_non_null(strstr(err.message, "line 2 is longer than 64 MiB"));
    assert_int_equal(read_folded_opts(text, size, true, false, &p, &err), PK_OK);
    assert_int_equal(pk_value_total(p, 0), 1);
    pk_profile_free(p);
    free(text);
}

/* Line ends: LF, CR LF, and a lone CR (cr-only.folded: flamegraph.pl finds no stack in it,
 * inferno one mangled stack, speedscope only the first line). */
static void test_read_line_ends(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("folded/cr-only.folded");
    assert_int_equal(pk_sample_count(p), 3);
    assert_int_equal(row_count(p, "main;parse"), 3);
    assert_int_equal(row_count(p, "main;eval"), 4);
    assert_int_equal(row_count(p, "main;eval;step"), 2);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
    /* Every mixture, a CR LF split by nothing, and a last line without an end. */
    p = read_ok("a 1\r\n\rb 2\n\nc 3\r\r\nd 4");
    assert_int_equal(pk_sample_count(p), 4);
    assert_int_equal(pk_value_total(p, 0), 10);
    pk_profile_free(p);
}

/* A UTF-8 byte-order mark is not part of the first name (utf8-bom.folded: flamegraph.pl and
 * inferno keep it and see two roots, speedscope skips it); UTF-16 with a byte-order mark is
 * decoded (utf16le/be.folded: as speedscope reads them; flamegraph.pl and inferno cannot). */
static void test_read_byte_order_marks(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("folded/utf8-bom.folded");
    assert_int_equal(row_count(p, "main;parse"), 3);
    assert_int_equal(row_count(p, "main;eval"), 4);
    assert_int_equal(pk_function_count(p), 3);
    pk_profile_free(p);
    const char *const utf16[] = {"folded/utf16le.folded", "folded/utf16be.folded"};
    for (size_t i = 0; i < 2; i++) {
        p = read_fixture(utf16[i]);
        assert_string_equal(pk_str(p, pk_metadata_get(p)->source_format), "folded");
        assert_int_equal(row_count(p, "main;parse"), 3);
        assert_int_equal(row_count(p, "main;\xc3\xa9val"), 4);
        assert_int_equal(row_count(p, "main;\xf0\x9f\x94\xa5"), 2);
        pk_profile_free(p);
        /* The same with the format given. */
        size_t size;
        char *bytes = tb_read_data_file(utf16[i], &size);
        pk_error err;
        assert_int_equal(pk_read_memory(bytes, size, &pk_format_folded, NULL, &p, &err), PK_OK);
        assert_int_equal(row_count(p, "main;\xc3\xa9val"), 4);
        pk_profile_free(p);
        free(bytes);
    }
    /* An unpaired surrogate and an odd last byte read as U+FFFD. */
    const uint8_t bad[] = {0xff, 0xfe, 'a', 0, ';', 0, 0x00, 0xd8, 'b', 0, ' ', 0, '1', 0,
                           '\n', 0, 'c', 0, ' ', 0, '2', 0, '\n', 0, 'x'};
    pk_error err;
    assert_int_equal(pk_read_memory(bad, sizeof bad, NULL, NULL, &p, &err), PK_OK);
    assert_int_equal(row_count(p, "a;\xef\xbf\xbd" "b"), 1);
    assert_int_equal(row_count(p, "c"), 2);
    assert_true(has_warning(p, "1 line that is not a stack was skipped (line 3)"));
    pk_profile_free(p);
    /* Errors say what their offsets count. */
    const uint8_t none[] = {0xff, 0xfe, 'x', 0, '\n', 0};
    assert_int_equal(pk_read_memory(none, sizeof none, &pk_format_folded, NULL, &p, &err),
                     PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "(the offset counts UTF-8 bytes decoded from UTF-16)"));
}

/* Whatever a prefix of a file holds, the reader reads the complete stack lines in it and the
 * last partial line when it is still a stack line; a prefix without one is an error. */
static void test_read_every_truncation(void **state)
{
    (void)state;
    const char *full = "main;parse 2\r\nmain;eval 13\n\nmain 1\n# note\nmain;eval;kmalloc_[k] 3\n";
    size_t n = strlen(full);
    for (size_t cut = 0; cut <= n; cut++) {
        /* Expected: each line of the prefix read alone as a whole file. */
        int64_t total = 0;
        bool any_stack = false;
        for (size_t start = 0; start < cut;) {
            size_t end = start;
            while (end < cut && full[end] != '\n' && full[end] != '\r')
                end++;
            char line[64];
            snprintf(line, sizeof line, "%.*s", (int)(end - start), full + start);
            char *space = strrchr(line, ' ');
            if (space && space > line && space[1] >= '0' && space[1] <= '9') {
                total += strtoll(space + 1, NULL, 10);
                any_stack = true;
            }
            start = end + 1;
        }
        pk_profile *p = NULL;
        pk_error err;
        pk_status status = read_folded_opts(full, cut, false, false, &p, &err);
        if (any_stack) {
            if (status != PK_OK)
                fail_msg("cut %zu: %s", cut, err.message);
            if (pk_value_total(p, 0) != total)
                fail_msg("cut %zu: total %lld, wanted %lld", cut,
                         (long long)pk_value_total(p, 0), (long long)total);
        } else if (status != PK_ERR_INPUT) {
            fail_msg("cut %zu: status %d", cut, (int)status);
        }
        pk_profile_free(p);
    }
}

/* ---- probe ------------------------------------------------------------------------------------ */

static int probe_text(const char *s)
{
    return pk_format_folded.probe((const uint8_t *)s, strlen(s));
}

static void test_probe(void **state)
{
    (void)state;
    assert_int_equal(probe_text("main;parse 2\nmain 1\n"), PK_PROBE_LIKELY);
    assert_int_equal(probe_text("main 2\nother 1\n"), PK_PROBE_WEAK);
    assert_int_equal(probe_text("\r\nmain;x 2\r\n"), PK_PROBE_LIKELY);
    assert_int_equal(probe_text("main;x 2\rmain 1\r"), PK_PROBE_LIKELY);
    assert_int_equal(probe_text("\xef\xbb\xbfmain;x 2\n"), PK_PROBE_LIKELY);
    assert_int_equal(probe_text(""), PK_PROBE_NO);
    assert_int_equal(probe_text("{\n \"a\": 1\n}\n"), PK_PROBE_NO);
    assert_int_equal(probe_text("@supersamplerV1.0\n@symboltableV1.1\n"), PK_PROBE_NO);
    assert_int_equal(probe_text("not folded\nmain;parse 2\n"), PK_PROBE_NO);
    assert_int_equal(probe_text("// header\nmain;parse 2\n"), PK_PROBE_WEAK);
    /* Comment lines count as nothing; other lines that are not stacks of names (rows of
     * numbers too) as many as the stacks are plausible folded stacks, more are claimed no more
     * than by a name: the reader judges them. */
    assert_int_equal(probe_text("# austin: 3.3.0\nmain;parse 2\nmain 3\n"), PK_PROBE_LIKELY);
    assert_int_equal(probe_text("main;parse 2\nmain 3\ncut"), PK_PROBE_WEAK);
    assert_int_equal(probe_text("main;parse 2\nmain 3\nbad\nbad\n"), PK_PROBE_WEAK);
    assert_int_equal(probe_text("main;parse 2\nbad\nbad\n"), PK_PROBE_EXTENSION);
    assert_int_equal(probe_text("main;parse 2\n16 3\n+1 2\n"), PK_PROBE_EXTENSION);
    assert_int_equal(probe_text("16 3\nmain;parse 2\n"), PK_PROBE_NO);
    const uint8_t binary[] = {'a', ' ', '1', '\n', 0x00, 0x01, 'b', ' ', '2', '\n'};
    assert_int_equal(pk_format_folded.probe(binary, sizeof binary), PK_PROBE_NO);
    const uint8_t bsprof_like[] = {'b', 's', 'p', 'r', 'o', 'f', 0, 0, 1, 0};
    assert_int_equal(pk_format_folded.probe(bsprof_like, sizeof bsprof_like), PK_PROBE_NO);

    /* A window that ends inside a line judges the complete lines only. */
    char big[PK_PROBE_BYTES + 100];
    size_t len = 0;
    while (len + 20 < PK_PROBE_BYTES)
        len += (size_t)snprintf(big + len, sizeof big - len, "root;fn%zu 1\n", len);
    memcpy(big + len, "root;cut-in-the-middle-of-this-line 1\n", 38);
    assert_int_equal(pk_format_folded.probe((const uint8_t *)big, PK_PROBE_BYTES),
                     PK_PROBE_LIKELY);
    /* A first line longer than the window (a deep Java stack) is judged by its start. */
    len = 0;
    while (len + 40 < sizeof big)
        len += (size_t)snprintf(big + len, sizeof big - len, "java/lang/Thread.run;");
    assert_int_equal(pk_format_folded.probe((const uint8_t *)big, PK_PROBE_BYTES),
                     PK_PROBE_WEAK);
    memset(big, 'x', PK_PROBE_BYTES);
    assert_int_equal(pk_format_folded.probe((const uint8_t *)big, PK_PROBE_BYTES), PK_PROBE_NO);
}

/* The folded reader on bytes it was not named for (format_given false), as after probing. */
static pk_status read_probed_as_folded(const void *data, size_t size, pk_profile **out,
                                       pk_error *err)
{
    pk_input in;
    pk_input_init_memory(&in, data, size);
    pk_read_options options = {0};
    *out = pk_profile_new();
    assert_non_null(*out);
    pk_error_clear(err);
    pk_status status = pk_format_folded.read(&in, *out, &options, err);
    pk_input_release(&in);
    if (status != PK_OK) {
        pk_profile_free(*out);
        *out = NULL;
    }
    return status;
}

/* A file most of whose lines are not stacks of names is not folded stacks: refused, naming how
 * many and the first, unless the format is given (`--from folded`), which reads the stack lines
 * among them as before. callgrind.out.tiny is valgrind's callgrind output (README.md there):
 * its cost lines (`16 3`, `+1 2`) end in a count, but are rows of numbers. */
static void test_read_refuses_what_is_not_folded(void **state)
{
    (void)state;
    size_t size;
    char *callgrind = tb_read_data_file("callgrind/callgrind.out.tiny", &size);
    pk_profile *p;
    pk_error err;
    assert_int_equal(read_probed_as_folded(callgrind, size, &p, &err), PK_ERR_INPUT);
    assert_false(err.salvageable);
    assert_int_equal(err.offset, 30); /* line 3 */
    if (!strstr(err.message, "not folded stacks: 967 of the first 1000 lines that are neither "
                             "blank nor comments are not stacks of names ('frame;frame;... "
                             "COUNT'); the first: line 3 (\"creator: callgrind-3.19.0\") does "
                             "not end in a count") ||
        !strstr(err.message, "--from folded reads the stack lines among them"))
        fail_msg("%s", err.message);
    /* the probe leaves it to formats with a signature */
    assert_int_equal(pk_format_folded.probe((const uint8_t *)callgrind, PK_PROBE_BYTES),
                     PK_PROBE_EXTENSION);
    /* the format given: the lenient reading */
    assert_int_equal(pk_read_memory(callgrind, size, &pk_format_folded, NULL, &p, &err), PK_OK);
    assert_true(has_warning(p, "317 lines that are not a stack were skipped"));
    const char *summary = strstr(callgrind, "\nsummary: ");
    assert_non_null(summary);
    assert_int_equal(row_count(p, "summary:"), strtoll(summary + 10, NULL, 10));
    pk_profile_free(p);
    free(callgrind);

    /* Decided at the end of a shorter file: more than half is refused, half is not. */
    static const struct {
        const char *text;
        const char *message; /* NULL: read */
    } cases[] = {
        {"a;b 1\nx\ny\nz\n", "3 of the 4 lines that are neither blank nor comments are not "
                              "stacks of names ('frame;frame;... COUNT'); the first: line 2 "
                              "(\"x\") has no blank before a count"},
        {"# mode: wall\na;b 1\n\n16 3\n+1 2\n", "2 of the 3 lines that are neither blank nor "
                                             "comments are not stacks of names "
                                             "('frame;frame;... COUNT'); the first: line 4 "
                                             "(\"16 3\") is a row of numbers"},
        {"a;b 1\n0x4011d6 16 3\n", NULL},
        {"a;b 1\nx\n", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_status status = read_probed_as_folded(cases[i].text, strlen(cases[i].text), &p, &err);
        if (cases[i].message ? status != PK_ERR_INPUT || !strstr(err.message, cases[i].message)
                             : status != PK_OK)
            fail_msg("case %zu: status %d: %s", i, (int)status, err.message);
        pk_profile_free(p);
    }

    /* A longer file is judged by its first 1000 such lines: refused there, without reading on;
     * a file that passes them reads its other lines as before. */
    size_t cap = 6000 * 8, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)sprintf(text + len, "a;b 1\n");
    for (int i = 0; i < 999; i++)
        len += (size_t)sprintf(text + len, "x\n");
    for (int i = 0; i < 5000; i++)
        len += (size_t)sprintf(text + len, "a;b 1\n");
    assert_int_equal(read_probed_as_folded(text, len, &p, &err), PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "999 of the first 1000 lines"));
    len = 0;
    for (int i = 0; i < 1000; i++)
        len += (size_t)sprintf(text + len, "a;b 1\n");
    for (int i = 0; i < 5000; i++)
        len += (size_t)sprintf(text + len, "x\n");
    assert_int_equal(read_probed_as_folded(text, len, &p, &err), PK_OK);
    assert_int_equal(row_count(p, "a;b"), 1000);
    assert_true(has_warning(p, "5000 lines that are not a stack were skipped"));
    pk_profile_free(p);
    free(text);

    /* Through the registry: found by content, the format not named, then refused. */
    const char *odd = "main;parse 3\nx\ny\n";
    assert_int_equal(pk_read_memory(odd, strlen(odd), NULL, NULL, &p, &err), PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "not folded stacks: 2 of the 3 lines"));
    assert_int_equal(pk_read_memory(odd, strlen(odd), &pk_format_folded, NULL, &p, &err), PK_OK);
    pk_profile_free(p);
}

/* A 710-frame line of 45 KB is found by content, named .folded or not. */
static void test_read_deep_first_line(void **state)
{
    (void)state;
    size_t cap = 64 * 1024, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (unsigned i = 0; i < 710; i++)
        len += (size_t)snprintf(text + len, cap - len, "%scom/example/Frame%u.call(Frame.java:%u)",
                                i ? ";" : "", i, i + 10);
    len += (size_t)snprintf(text + len, cap - len, " 5\nshort;stack 1\n");
    assert_true(len > PK_PROBE_BYTES);
    pk_profile *p = NULL;
    pk_error err;
    assert_int_equal(pk_read_memory(text, len, NULL, NULL, &p, &err), PK_OK);
    assert_string_equal(pk_str(p, pk_metadata_get(p)->source_format), "folded");
    assert_int_equal(pk_value_total(p, 0), 6);
    assert_int_equal(pk_stack_depth(p, pk_sample_stack(p, 0)), 710);
    pk_profile_free(p);
    free(text);
}

/* ---- writer ------------------------------------------------------------------------------------ */

/* A profile built through the model API: two value types, three threads, functions that share
 * names across files, frames at several lines. */
typedef struct fixture {
    pk_profile *p;
    uint32_t cpu, calls;
    uint32_t t_main, t_worker, t_main2;
} fixture;

static uint32_t frame_of(pk_profile *p, const char *name, const char *file, uint32_t line)
{
    pk_function f = {.name = pk_intern_cstr(p, name),
                     .file = file ? pk_intern_cstr(p, file) : 0,
                     
                     .resource = PK_NONE};
    pk_frame fr = {.function = pk_intern_function(p, &f), .line = line, .address = 0,
                   .resource = PK_NONE, .flags = 0};
    return pk_intern_frame(p, &fr);
}

/* The stack of the given frames, root first, NULL-terminated names at line 1 of "x.c". */
static uint32_t stack_of(pk_profile *p, ...)
{
    va_list ap;
    va_start(ap, p);
    uint32_t stack = PK_NONE;
    for (const char *name = va_arg(ap, const char *); name; name = va_arg(ap, const char *))
        stack = pk_intern_stack(p, stack, frame_of(p, name, "x.c", 1));
    va_end(ap);
    return stack;
}

static void add(fixture *f, uint32_t thread, uint32_t stack, int64_t cpu, int64_t calls)
{
    int64_t values[2] = {cpu, calls};
    assert_int_equal(pk_add_sample(f->p, thread, stack, values), PK_OK);
}

static void fixture_build(fixture *f)
{
    f->p = pk_profile_new();
    assert_non_null(f->p);
    f->cpu = pk_add_value_type(f->p, "cpu", "nanoseconds");
    f->calls = pk_add_value_type(f->p, "calls", "count");
    f->t_main = pk_add_thread(f->p, pk_intern_cstr(f->p, "main"), 1, 1);
    f->t_worker = pk_add_thread(f->p, pk_intern_cstr(f->p, "worker"), 1, 2);
    f->t_main2 = pk_add_thread(f->p, pk_intern_cstr(f->p, "main"), 2, 1);
}

static void test_write_weights_sum_by_names(void **state)
{
    (void)state;
    fixture f;
    fixture_build(&f);
    pk_profile *p = f.p;
    /* Same names through different frames (other file, other line) are one line. */
    uint32_t a1 = pk_intern_stack(p, PK_NONE, frame_of(p, "main", "a.c", 10));
    uint32_t a2 = pk_intern_stack(p, PK_NONE, frame_of(p, "main", "b.c", 20));
    uint32_t a1b = pk_intern_stack(p, a1, frame_of(p, "work", "a.c", 11));
    uint32_t a2b = pk_intern_stack(p, a2, frame_of(p, "work", "a.c", 12));
    add(&f, f.t_main, a1b, 100, 1);
    add(&f, f.t_main, a2b, 50, 2);
    add(&f, f.t_worker, a1b, 7, 0);
    add(&f, f.t_main, a1, 3, 0);
    add(&f, f.t_main, a2, 0, 5);
    assert_folded(p, PK_NONE, false, "main;work 157\nmain 3\n");
    assert_folded(p, f.cpu, false, "main;work 157\nmain 3\n");
    assert_folded(p, f.calls, false, "main;work 3\nmain 5\n");
    pk_set_default_value(p, f.calls);
    assert_folded(p, PK_NONE, false, "main;work 3\nmain 5\n");
    pk_profile_free(p);
}

static void test_write_zero_and_negative_omitted(void **state)
{
    (void)state;
    fixture f;
    fixture_build(&f);
    add(&f, f.t_main, stack_of(f.p, "a", "zero", (const char *)NULL), 0, 1);
    add(&f, f.t_main, stack_of(f.p, "a", "negative", (const char *)NULL), -5, 1);
    add(&f, f.t_main, stack_of(f.p, "a", "cancels", (const char *)NULL), -5, 1);
    add(&f, f.t_worker, stack_of(f.p, "a", "cancels", (const char *)NULL), 5, 1);
    add(&f, f.t_main, stack_of(f.p, "a", "net", (const char *)NULL), -5, 1);
    add(&f, f.t_worker, stack_of(f.p, "a", "net", (const char *)NULL), 8, 1);
    add(&f, f.t_main, stack_of(f.p, "a", (const char *)NULL), 1, 0);
    assert_folded(f.p, f.cpu, false, "a;net 3\na 1\n");
    /* Per thread, the negative rows stand alone and are dropped. */
    assert_folded(f.p, f.cpu, true,
                  "worker;a;cancels 5\nworker;a;net 8\nmain (pid 1, tid 1);a 1\n");
    assert_folded(f.p, f.calls, false,
                  "a;zero 1\na;negative 1\na;cancels 2\na;net 2\n");
    pk_profile_free(f.p);
}

static void test_write_sanitises_names(void **state)
{
    (void)state;
    fixture f;
    fixture_build(&f);
    add(&f, f.t_main,
        stack_of(f.p, "ns::a;b", "line\nbreak\r", "sp ace 42", (const char *)NULL), 2, 0);
    /* "x;y" and "x_y" are written alike, so their stacks are one line. */
    add(&f, f.t_main, stack_of(f.p, "x;y", (const char *)NULL), 1, 0);
    add(&f, f.t_main, stack_of(f.p, "x_y", (const char *)NULL), 4, 0);
    add(&f, f.t_main, stack_of(f.p, "x\ny", "", (const char *)NULL), 8, 0);
    /* An empty name alone on its line is written "_": " 6" would be a count without a stack. */
    add(&f, f.t_main, stack_of(f.p, "", (const char *)NULL), 6, 0);
    char *out = write_folded(f.p, f.cpu, false);
    /* No name leaks a separator: every line has exactly one space before the count and the
     * right number of ';'. */
    assert_null(strchr(out, '\r'));
    char *sorted = tb_sorted_lines(out);
    /* The blank before the final number of "sp ace 42" is written as '_': the line would
     * otherwise read as a differential line "STACK BASE NEW". */
    assert_string_equal(sorted, "_ 6\nns::a_b;line_break_;sp ace_42 2\nx_y 5\nx_y; 8\n");
    free(sorted);

    /* The sanitised output reads back with the same weights. */
    out = write_folded(f.p, f.cpu, false);
    pk_profile *back = read_ok(out);
    assert_int_equal(row_count(back, "ns::a_b;line_break_;sp ace_42"), 2);
    assert_int_equal(row_count(back, "x_y"), 5);
    assert_int_equal(row_count(back, "x_y;"), 8);
    pk_profile_free(back);
    free(out);
    pk_profile_free(f.p);

    /* Long names (hashed in pieces) merge the same way. */
    fixture g;
    fixture_build(&g);
    char plain[601], semi[601];
    memset(plain, 'n', 600);
    plain[600] = '\0';
    plain[400] = '_';
    memcpy(semi, plain, sizeof semi);
    semi[400] = ';';
    add(&g, g.t_main, stack_of(g.p, plain, (const char *)NULL), 1, 0);
    add(&g, g.t_worker, stack_of(g.p, semi, (const char *)NULL), 2, 0);
    out = write_folded(g.p, g.cpu, false);
    char want[700];
    snprintf(want, sizeof want, "%s 3\n", plain);
    assert_string_equal(out, want);
    free(out);
    pk_profile_free(g.p);
}

static void test_write_with_threads(void **state)
{
    (void)state;
    fixture f;
    fixture_build(&f);
    uint32_t ab = stack_of(f.p, "a", "b", (const char *)NULL);
    add(&f, f.t_main, ab, 1, 0);
    /* Another thread called "main", in another process: a line of its own, each "main" told
     * apart by its process. */
    add(&f, f.t_main2, ab, 2, 0);
    add(&f, f.t_worker, ab, 4, 0);
    add(&f, f.t_worker, PK_NONE, 8, 0); /* empty stack */
    pk_thread_rename(f.p, f.t_worker, pk_intern_cstr(f.p, "pool;1\n"));
    assert_folded(f.p, f.cpu, true,
                  "main (pid 1, tid 1);a;b 1\nmain (pid 2, tid 1);a;b 2\npool_1_;a;b 4\n"
                  "pool_1_ 8\n");
    /* Without threads an empty stack has no name to write. */
    assert_folded(f.p, f.cpu, false, "a;b 7\n");
    pk_profile_free(f.p);
}

/* Lines are copied together in the output's buffer; one longer than the buffer (256 KiB),
 * through a staged output such as gzip's, is written name by name, to the same bytes. */
static void test_write_line_longer_than_output_buffer(void **state)
{
    (void)state;
    size_t name_len = 100000;
    char *name = malloc(name_len + 1);
    assert_non_null(name);
    fixture f;
    fixture_build(&f);
    uint32_t stack = PK_NONE;
    for (int i = 0; i < 3; i++) {
        memset(name, 'a' + i, name_len);
        name[name_len] = '\0';
        name[name_len / 2] = ';'; /* written '_' */
        stack = pk_intern_stack(f.p, stack, frame_of(f.p, name, "x.c", 1));
        add(&f, f.t_main, stack, i + 1, 0);
    }
    char *plain = write_folded(f.p, f.cpu, false);
    size_t plain_len = strlen(plain);
    assert_int_equal(plain_len, 6 * (name_len + 1) + 3 * 2);
    assert_int_equal(strspn(plain, "a"), name_len / 2);
    assert_memory_equal(plain + plain_len - 3, " 3\n", 3);

    pk_write_options options = {0};
    options.value = f.cpu;
    options.compression = PK_COMPRESSION_GZIP;
    char *gz = NULL;
    size_t gz_len;
    pk_error err;
    assert_int_equal(pk_write_memory(f.p, &pk_format_folded, &options, &gz, &gz_len, &err),
                     PK_OK);
    tb_assert_gunzips_to(gz, gz_len, plain, plain_len);
    free(gz);
    free(plain);
    free(name);
    pk_profile_free(f.p);
}

static void test_write_exact_format(void **state)
{
    (void)state;
    fixture f;
    fixture_build(&f);
    add(&f, f.t_main, stack_of(f.p, "root", "leaf", (const char *)NULL), 9223372036854775807LL, 0);
    add(&f, f.t_worker, stack_of(f.p, "root", "leaf", (const char *)NULL), 5, 0); /* saturates */
    add(&f, f.t_main, stack_of(f.p, "root", (const char *)NULL), 12, 0);
    char *out = write_folded(f.p, f.cpu, false);
    /* Lines come in order of first appearance of their stack, callers before callees. */
    assert_string_equal(out, "root 12\nroot;leaf 9223372036854775807\n");
    free(out);
    pk_profile_free(f.p);
}

static void test_write_without_values_is_unsupported(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_write_options options = {0};
    options.value = PK_NONE;
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    assert_int_equal(pk_write_memory(p, &pk_format_folded, &options, &data, &size, &err),
                     PK_ERR_UNSUPPORTED);
    free(data);
    pk_profile_free(p);
}

/* A stack whose line would be longer than the reader takes (64 MiB) is refused, not written
 * unreadable; one just under it is written and reads back. */
static void test_write_refuses_lines_the_reader_refuses(void **state)
{
    (void)state;
    size_t name_len = (size_t)1 << 20;
    char *name = malloc(name_len);
    assert_non_null(name);
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    assert_int_equal(pk_add_value_type(p, "samples", "count"), 0);
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "t"), -1, -1);
    uint32_t stack = PK_NONE;
    for (unsigned i = 0; i < 64; i++) {
        memset(name, 'a' + (int)(i % 26), name_len);
        char digits[16];
        int digit_count = snprintf(digits, sizeof digits, "%u", i);
        memcpy(name, digits, (size_t)digit_count); /* distinct */
        pk_function f = {.name = pk_intern(p, name, name_len - 1), .resource = PK_NONE};
        pk_frame fr = {pk_intern_function(p, &f), 0, 0, PK_NONE, 0};
        stack = pk_intern_stack(p, stack, pk_intern_frame(p, &fr));
    }
    assert_int_equal(pk_add_sample_value(p, thread, stack, 0, 1), PK_OK);
    char *data = NULL;
    size_t size;
    pk_error err;
    assert_int_equal(pk_write_memory(p, &pk_format_folded, NULL, &data, &size, &err),
                     PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "a stack of 64 frames makes a folded line of"));
    assert_null(data);
    pk_profile_free(p);

    /* 63 names of 1 MiB: under the limit, written and read back whole. */
    p = pk_profile_new();
    assert_int_equal(pk_add_value_type(p, "samples", "count"), 0);
    thread = pk_add_thread(p, pk_intern_cstr(p, "t"), -1, -1);
    stack = PK_NONE;
    for (unsigned i = 0; i < 63; i++) {
        memset(name, 'a' + (int)(i % 26), name_len);
        char digits[16];
        int digit_count = snprintf(digits, sizeof digits, "%u", i);
        memcpy(name, digits, (size_t)digit_count);
        pk_function f = {.name = pk_intern(p, name, name_len - 1), .resource = PK_NONE};
        pk_frame fr = {pk_intern_function(p, &f), 0, 0, PK_NONE, 0};
        stack = pk_intern_stack(p, stack, pk_intern_frame(p, &fr));
    }
    assert_int_equal(pk_add_sample_value(p, thread, stack, 0, 3), PK_OK);
    assert_int_equal(pk_write_memory(p, &pk_format_folded, NULL, &data, &size, &err), PK_OK);
    assert_true(size > (size_t)62 << 20);
    pk_profile *back = NULL;
    assert_int_equal(pk_read_memory(data, size, &pk_format_folded, NULL, &back, &err), PK_OK);
    assert_int_equal(pk_value_total(back, 0), 3);
    assert_int_equal(pk_stack_depth(back, pk_sample_stack(back, 0)), 63);
    pk_profile_free(back);
    free(data);
    pk_profile_free(p);
    free(name);
}

/* An empty profile is folded stacks of no line at all, with threads as roots or without (the
 * command warns that the profile is empty). */
static void test_write_empty_profile(void **state)
{
    (void)state;
    fixture f;
    fixture_build(&f);
    for (int with_threads = 0; with_threads < 2; with_threads++) {
        pk_write_options options = {0};
        options.value = PK_NONE;
        options.with_threads = with_threads;
        char *data = NULL;
        size_t size = 1;
        pk_error err;
        assert_int_equal(pk_write_memory(f.p, &pk_format_folded, &options, &data, &size, &err),
                         PK_OK);
        assert_int_equal(size, 0);
        free(data);
    }
    pk_profile_free(f.p);
}

/* Samples whose values are all 0 leave no line either: an empty output. */
static void test_write_zero_values_empty(void **state)
{
    (void)state;
    pk_profile *p = read_ok("main;work 0\nmain;idle 0\n");
    assert_true(pk_sample_count(p) > 0);
    pk_write_options options = {0};
    options.value = PK_NONE;
    char *data = NULL;
    size_t size = 1;
    pk_error err;
    assert_int_equal(pk_write_memory(p, &pk_format_folded, &options, &data, &size, &err), PK_OK);
    assert_int_equal(size, 0);
    free(data);
    pk_profile_free(p);
}

/* ---- round trips ------------------------------------------------------------------------------- */

static void test_round_trip_reference(void **state)
{
    (void)state;
    size_t size;
    char *text = tb_read_data_file("folded/synthetic.folded", &size);
    pk_profile *p = read_ok(text);
    char *once = write_folded(p, PK_NONE, false);
    pk_profile *again = read_ok(once);
    char *twice = write_folded(again, PK_NONE, false);
    char *a = tb_sorted_lines(dup_text(text));
    char *b = tb_sorted_lines(once);
    char *c = tb_sorted_lines(twice);
    assert_string_equal(a, b);
    assert_string_equal(b, c);
    free(a);
    free(b);
    free(c);
    free(text);
    pk_profile_free(p);
    pk_profile_free(again);
}

static void test_round_trip_merges_and_normalises(void **state)
{
    (void)state;
    /* Duplicates merge, zero lines vanish, CRLF and extra blanks normalise; threads survive
     * --with-threads and --folded-threads. */
    pk_profile *p = read_ok("b;c 1\r\na 2\nb;c  4 \n\nz 0\na;b;c;d 1\n");
    assert_folded(p, PK_NONE, false, "b;c 5\na 2\na;b;c;d 1\n");
    char *with = write_folded(p, PK_NONE, true);
    pk_profile *q = NULL;
    pk_error err;
    assert_int_equal(read_folded_opts(with, strlen(with), false, true, &q, &err), PK_OK);
    assert_folded(q, PK_NONE, true, "all;b;c 5\nall;a 2\nall;a;b;c;d 1\n");
    free(with);
    pk_profile_free(q);
    pk_profile_free(p);
}

/* Many random lines from a small vocabulary (so that stacks repeat and share prefixes), in
 * random order: the output must be the input merged by stack. */
static void test_round_trip_random(void **state)
{
    (void)state;
    static const char *const names[] = {"main", "a", "b", "a b", "run_[k]", "x", "xy", "-"};
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    size_t lines = 3000, cap = lines * 80, len = 0;
    char *text = malloc(cap);
    char *expected = malloc(cap);
    assert_non_null(text);
    assert_non_null(expected);
    size_t expected_len = 0;
    for (size_t i = 0; i < lines; i++) {
        char stack[64];
        size_t slen = 0;
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned depth = 1 + (unsigned)((seed >> 33) % 5);
        for (unsigned d = 0; d < depth; d++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            slen += (size_t)snprintf(stack + slen, sizeof stack - slen, "%s%s", d ? ";" : "",
                                     names[(seed >> 40) % 8]);
        }
        unsigned count = (unsigned)((seed >> 20) % 4);
        len += (size_t)snprintf(text + len, cap - len, "%s%s%u\n", stack,
                                i % 7 == 0 ? " \t " : " ", count);
        expected_len += (size_t)snprintf(expected + expected_len, cap - expected_len, "%s %u\n",
                                         stack, count);
    }
    /* Merge the expected lines: sort, then sum neighbours with the same stack. */
    char *sorted = tb_sorted_lines(expected);
    char *merged = malloc(strlen(sorted) + 1);
    assert_non_null(merged);
    size_t merged_len = 0;
    char prev[64] = "";
    unsigned long long sum = 0;
    for (char *save = NULL, *line = strtok_r(sorted, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
        char *space = line ? strrchr(line, ' ') : NULL;
        if (space)
            *space = '\0';
        if (!line || strcmp(line, prev) != 0) {
            if (prev[0] && sum > 0)
                merged_len += (size_t)sprintf(merged + merged_len, "%s %llu\n", prev, sum);
            if (!line)
                break;
            snprintf(prev, sizeof prev, "%s", line);
            sum = 0;
        }
        sum += strtoull(space + 1, NULL, 10);
    }
    merged[merged_len] = '\0';
    char *want = tb_sorted_lines(merged);
    pk_profile *p = read_ok(text);
    char *got = tb_sorted_lines(write_folded(p, PK_NONE, false));
    assert_string_equal(got, want);
    free(got);
    free(want);
    free(sorted);
    free(text);
    pk_profile_free(p);
}

/* Two-count lines read back equal, with and without threads. */
static void test_round_trip_differential(void **state)
{
    (void)state;
    const char *text = "main;foo 10 20\nmain;foo;bar 20 20\nmain 1 1\nmain;rec 2 0\n"
                       "main;rec;bar 0 2\n";
    pk_profile *p = read_ok(text);
    assert_folded(p, PK_NONE, false, text);
    /* Whichever value is asked for, both are written. */
    assert_folded(p, PK_DIFF_BASE, false, text);
    char *with = write_folded(p, PK_NONE, true);
    pk_profile *q = NULL;
    pk_error err;
    assert_int_equal(read_folded_opts(with, strlen(with), false, true, &q, &err), PK_OK);
    assert_true(pk_metadata_get(q)->differential);
    assert_folded(q, PK_NONE, false, text);
    free(with);
    pk_profile_free(q);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_basic),
        cmocka_unit_test(test_read_whitespace_and_crlf),
        cmocka_unit_test(test_read_same_stack_summed_and_zero),
        cmocka_unit_test(test_read_fractions_truncated),
        cmocka_unit_test(test_read_differential),
        cmocka_unit_test(test_read_two_counts_in_plain_file),
        cmocka_unit_test(test_read_one_count_in_differential_file),
        cmocka_unit_test(test_read_shared_prefixes),
        cmocka_unit_test(test_read_thread_roots),
        cmocka_unit_test(test_read_skips_lines_that_are_not_stacks),
        cmocka_unit_test(test_read_comment_lines),
        cmocka_unit_test(test_read_refuses_what_is_not_folded),
        cmocka_unit_test(test_read_errors_name_the_line),
        cmocka_unit_test(test_read_long_line_is_cut_in_message),
        cmocka_unit_test(test_read_long_lines),
        cmocka_unit_test(test_read_line_ends),
        cmocka_unit_test(test_read_byte_order_marks),
        cmocka_unit_test(test_read_every_truncation),
        cmocka_unit_test(test_probe),
        cmocka_unit_test(test_read_deep_first_line),
        cmocka_unit_test(test_write_weights_sum_by_names),
        cmocka_unit_test(test_write_zero_and_negative_omitted),
        cmocka_unit_test(test_write_sanitises_names),
        cmocka_unit_test(test_write_with_threads),
        cmocka_unit_test(test_write_line_longer_than_output_buffer),
        cmocka_unit_test(test_write_exact_format),
        cmocka_unit_test(test_write_without_values_is_unsupported),
        cmocka_unit_test(test_write_empty_profile),
        cmocka_unit_test(test_write_refuses_lines_the_reader_refuses),
        cmocka_unit_test(test_write_zero_values_empty),
        cmocka_unit_test(test_round_trip_reference),
        cmocka_unit_test(test_round_trip_merges_and_normalises),
        cmocka_unit_test(test_round_trip_random),
        cmocka_unit_test(test_round_trip_differential),
    };
    return cmocka_run_group_tests_name("folded", tests, NULL, NULL);
}
