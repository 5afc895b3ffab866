/* SPDX-License-Identifier: MIT */
/* callgrind: the line grammar (numbers, subpositions, compressed names), the call graph's
 * expansion into stacks (self cost per function exact, shares of calls, recursion, rounding),
 * and every truncation point of a small file. tests/cli/callgrind.sh and
 * interop_callgrind.sh check the real files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/callgrind/codec.h"
#include "folded_rows.h"
#include "formats/formats.h"
#include "profkit/diff.h"
#include "profkit/format.h"
#include "profkit/merge.h"
#include "profkit/profile.h"

static pk_profile *read_text(const char *text, bool salvage, pk_status *status)
{
    pk_read_options options = {0};
    options.salvage = salvage;
    pk_profile *p = NULL;
    pk_error err;
    *status = pk_read_memory(text, strlen(text), &pk_format_callgrind, &options, &p, &err);
    return p;
}

static pk_profile *read_ok(const char *text)
{
    pk_status status;
    pk_profile *p = read_text(text, false, &status);
    assert_int_equal(status, PK_OK);
    assert_non_null(p);
    return p;
}

/* Self value of every row whose leaf is a function called name. */
static int64_t self_of(const pk_profile *p, const char *name, uint32_t value)
{
    int64_t sum = 0;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        uint32_t leaf = pk_stack_leaf(p, pk_sample_stack(p, row));
        if (leaf != PK_NONE && strcmp(pk_frame_name(p, leaf), name) == 0)
            sum += pk_sample_values(p, row)[value];
    }
    return sum;
}

static void test_numbers(void **state)
{
    (void)state;
    uint64_t v;
    size_t pos = 0;
    assert_true(cg_parse_number("0x1F ", 5, &pos, &v));
    assert_int_equal(v, 31);
    assert_int_equal(pos, 4);
    pos = 0;
    assert_true(cg_parse_number("18446744073709551615", 20, &pos, &v));
    assert_true(v == UINT64_MAX);
    pos = 0;
    assert_false(cg_parse_number("18446744073709551616", 20, &pos, &v));
    pos = 0;
    assert_false(cg_parse_number("0x", 2, &pos, &v));
    pos = 0;
    assert_false(cg_parse_number("x1", 2, &pos, &v));
}

static void test_positions(void **state)
{
    (void)state;
    cg_positions p = {1, 0, {0, 0}};
    assert_true(cg_positions_set(&p, "instr line", 10));
    assert_int_equal(p.count, 2);
    assert_int_equal(p.line_column, 1);
    uint64_t at[CG_MAX_POSITIONS];
    size_t pos = 0;
    assert_true(cg_positions_parse(&p, "0x100 20 5", 10, &pos, true, at));
    assert_int_equal(at[0], 0x100);
    assert_int_equal(at[1], 20);
    pos = 0;
    assert_true(cg_positions_parse(&p, "+3 -2 1", 7, &pos, true, at));
    assert_int_equal(at[0], 0x103);
    assert_int_equal(at[1], 18);
    pos = 0;
    /* Without update, the previous positions stay (a call's target). */
    assert_true(cg_positions_parse(&p, "* +4", 4, &pos, false, at));
    assert_int_equal(at[1], 22);
    pos = 0;
    assert_true(cg_positions_parse(&p, "* *", 3, &pos, true, at));
    assert_int_equal(at[0], 0x103);
    assert_int_equal(at[1], 18);
    pos = 0;
    assert_false(cg_positions_parse(&p, "5", 1, &pos, true, at));
    assert_false(cg_positions_set(&p, "line column", 11));
    assert_false(cg_positions_set(&p, "", 0));
}

static void test_names(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    cg_names names;
    cg_names_init(&names);
    uint32_t s, t;
    assert_int_equal(cg_names_decode(&names, p, CG_NS_FUNCTION, "(3) main ", 9, &s), CG_NAME_OK);
    assert_string_equal(pk_str(p, s), "main");
    assert_int_equal(cg_names_decode(&names, p, CG_NS_FUNCTION, "(3)", 3, &t), CG_NAME_OK);
    assert_int_equal(s, t);
    /* Namespaces are separate. */
    assert_int_equal(cg_names_decode(&names, p, CG_NS_FILE, " (3) ", 5, &t), CG_NAME_UNDEFINED);
    /* An undefined reference stands for itself. */
    assert_string_equal(pk_str(p, t), "(3)");
    /* Not a compressed name: the name as it stands (cachegrind's `fn=(below main)`). */
    assert_int_equal(cg_names_decode(&names, p, CG_NS_FUNCTION, "(below main)", 12, &t),
                     CG_NAME_OK);
    assert_string_equal(pk_str(p, t), "(below main)");
    assert_int_equal(cg_names_decode(&names, p, CG_NS_FILE, "plain name", 10, &t), CG_NAME_OK);
    assert_string_equal(pk_str(p, t), "plain name");
    cg_names_free(&names);
    pk_profile_free(p);
}

/* main calls a and b; both call c, a for 50 and b for 20 of c's 70. */
static const char diamond[] =
    "# callgrind format\n"
    "events: Ir\n"
    "fl=(1) x.c\n"
    "fn=(1) main\n"
    "1 10\n"
    "cfn=(2) a\n"
    "calls=1 10\n"
    "2 60\n"
    "cfn=(3) b\n"
    "calls=1 20\n"
    "3 40\n"
    "fn=(2)\n"
    "10 10\n"
    "cfn=(4) c\n"
    "calls=5 30\n"
    "11 50\n"
    "fn=(3)\n"
    "20 20\n"
    "cfn=(4)\n"
    "calls=2 30\n"
    "21 20\n"
    "fn=(4)\n"
    "30 40\n"
    "+1 30\n"
    "totals: 110\n";

static void test_diamond(void **state)
{
    (void)state;
    pk_profile *p = read_ok(diamond);
    assert_int_equal(pk_value_total(p, 0), 110);
    assert_int_equal(self_of(p, "main", 0), 10);
    assert_int_equal(self_of(p, "a", 0), 10);
    assert_int_equal(self_of(p, "b", 0), 20);
    assert_int_equal(self_of(p, "c", 0), 70);
    assert_int_equal(tb_stack_value(p, "main;a;c", 0), 50);
    assert_int_equal(tb_stack_value(p, "main;b;c", 0), 20);
    assert_int_equal(pk_warning_count(p), 0);
    /* Lines are kept: c's self is at lines 30 and 31. */
    int64_t at30 = 0;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        uint32_t leaf = pk_stack_leaf(p, pk_sample_stack(p, row));
        if (pk_frame_at(p, leaf)->line == 30)
            at30 += pk_sample_values(p, row)[0];
    }
    assert_int_equal(at30, 40);
    pk_profile_free(p);
}

/* The first function called name. */
static uint32_t function_named(const pk_profile *p, const char *name)
{
    for (uint32_t f = 0; f < pk_function_count(p); f++)
        if (strcmp(pk_str(p, pk_function_at(p, f)->name), name) == 0)
            return f;
    fail_msg("no function %s", name);
    return PK_NONE;
}

/* The calls the profile counts from the function called caller to the one called callee; -1
 * for none. */
static int64_t calls_of(const pk_profile *p, const char *caller, const char *callee)
{
    const pk_call_edge *e =
        pk_find_call_edge(p, function_named(p, caller), function_named(p, callee));
    return e ? (int64_t)e->calls : -1;
}

/* p written as callgrind and read back. */
static pk_profile *written_and_read(const pk_profile *p)
{
    char *text = NULL;
    size_t size = 0;
    pk_error err;
    assert_int_equal(pk_write_memory(p, &pk_format_callgrind, NULL, &text, &size, &err), PK_OK);
    char *terminated = realloc(text, size + 1);
    assert_non_null(terminated);
    terminated[size] = '\0';
    pk_profile *back = read_ok(terminated);
    free(terminated);
    return back;
}

/* A callgrind file's own call counts are kept per (caller, callee) function pair and written
 * again (issue 35: KCachegrind showed "Called 394" for a function called once): a written
 * call counts what the file counts, never the stacks or rows merged. */
static void test_call_counts(void **state)
{
    (void)state;
    pk_profile *p = read_ok(diamond);
    assert_int_equal(pk_call_edge_count(p), 4);
    assert_int_equal(calls_of(p, "main", "a"), 1);
    assert_int_equal(calls_of(p, "main", "b"), 1);
    assert_int_equal(calls_of(p, "a", "c"), 5);
    assert_int_equal(calls_of(p, "b", "c"), 2);
    assert_int_equal(calls_of(p, "c", "a"), -1);
    pk_profile *back = written_and_read(p);
    assert_int_equal(pk_call_edge_count(back), 4);
    assert_int_equal(calls_of(back, "a", "c"), 5);
    assert_int_equal(calls_of(back, "b", "c"), 2);
    assert_int_equal(calls_of(back, "main", "a"), 1);
    assert_int_equal(tb_stack_value(back, "main;a;c", 0), 50);
    pk_profile_free(back);
    /* A merge sums them, a comparison has none (its rows are two profiles' values). */
    const pk_profile *twice[2] = {p, p};
    pk_profile *merged = NULL, *diff = NULL;
    pk_error err;
    assert_int_equal(pk_profile_merge(twice, 2, &merged, &err), PK_OK);
    assert_int_equal(calls_of(merged, "a", "c"), 10);
    assert_int_equal(pk_diff_profiles(p, 0, p, 0, false, &diff, &err), PK_OK);
    assert_int_equal(pk_call_edge_count(diff), 0);
    pk_profile_free(merged);
    pk_profile_free(diff);
    pk_profile_free(p);
}

/* Calls the stacks do not make keep their counts: the recursion g -> f that the expansion cuts
 * is written with its count and no cost; a call into code a function has from another file
 * (fi=) is the call into the function, counted once. */
static void test_call_counts_beyond_stacks(void **state)
{
    (void)state;
    pk_profile *p = read_ok("events: Ir\n"
                            "fl=x.c\nfn=main\n1 1\ncfn=f\ncalls=2 1\n1 100\n"
                            "fn=f\n1 30\nfi=inl.h\n7 5\nfe=x.c\ncfn=g\ncalls=4 1\n2 65\n"
                            "fn=g\n1 40\ncfn=f\ncalls=3 1\n2 25\n");
    assert_int_equal(calls_of(p, "main", "f"), 2);
    assert_int_equal(calls_of(p, "f", "g"), 4);
    assert_int_equal(calls_of(p, "g", "f"), 3);
    char *text = NULL;
    size_t size = 0;
    pk_error err;
    assert_int_equal(pk_write_memory(p, &pk_format_callgrind, NULL, &text, &size, &err), PK_OK);
    /* main -> f once (with the part of f in inl.h), f -> g, and g -> f with no cost. */
    size_t calls = 0;
    for (const char *at = text; (at = strstr(at, "calls=")) != NULL && at < text + size; at++)
        calls++;
    assert_int_equal(calls, 3);
    assert_non_null(strstr(text, "calls=2 0\n"));
    assert_non_null(strstr(text, "calls=4 0\n"));
    assert_non_null(strstr(text, "calls=3 0\n0\n"));
    free(text);
    pk_profile *back = written_and_read(p);
    assert_int_equal(calls_of(back, "main", "f"), 2);
    assert_int_equal(calls_of(back, "f", "g"), 4);
    assert_int_equal(calls_of(back, "g", "f"), 3);
    assert_int_equal(pk_value_total(back, 0), 76);
    pk_profile_free(back);
    pk_profile_free(p);

    /* A cycle nothing outside enters: f is a root of the stacks, and g -> f, which the
     * expansion cuts, is the one call into f: written with f's cost as a root (what f's
     * callers' calls cost is what KCachegrind takes for f's inclusive cost). */
    p = read_ok("events: Ir\n"
                "fl=x.c\nfn=f\n1 30\ncfn=g\ncalls=4 1\n2 65\n"
                "fn=g\n1 40\ncfn=f\ncalls=3 1\n2 25\n");
    assert_int_equal(calls_of(p, "g", "f"), 3);
    assert_int_equal(pk_write_memory(p, &pk_format_callgrind, NULL, &text, &size, &err), PK_OK);
    assert_non_null(strstr(text, "calls=4 0\n0 40\n"));
    assert_non_null(strstr(text, "calls=3 0\n0 70\n"));
    free(text);
    pk_profile_free(p);
}

/* The model's pairs: counts add up, saturate, and name functions that exist. */
static void test_call_edge_api(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    pk_function f = {.name = pk_intern_cstr(p, "f"), .file = 0, .start_line = 0,
                     .resource = PK_NONE};
    uint32_t a = pk_intern_function(p, &f);
    f.name = pk_intern_cstr(p, "g");
    uint32_t b = pk_intern_function(p, &f);
    assert_null(pk_find_call_edge(p, a, b));
    assert_int_equal(pk_add_call_edge(p, a, b, 2), PK_OK);
    assert_int_equal(pk_add_call_edge(p, a, b, 3), PK_OK);
    assert_int_equal(pk_add_call_edge(p, b, a, UINT64_MAX), PK_OK);
    assert_int_equal(pk_add_call_edge(p, b, a, 1), PK_OK);
    assert_int_equal(pk_add_call_edge(p, a, b + 1, 1), PK_ERR_USAGE);
    assert_int_equal(pk_call_edge_count(p), 2);
    assert_int_equal(pk_find_call_edge(p, a, b)->calls, 5);
    assert_true(pk_find_call_edge(p, b, a)->calls == UINT64_MAX);
    assert_int_equal(pk_call_edge_at(p, 1)->caller, b);
    assert_null(pk_call_edge_at(p, 2));
    pk_profile_free(p);
}

/* Recursion f -> g -> f: the cycle is cut, self costs stay exact. */
static void test_recursion(void **state)
{
    (void)state;
    pk_profile *p = read_ok("events: Ir\n"
                            "fn=main\n1 1\ncfn=f\ncalls=1 1\n1 100\n"
                            "fn=f\n1 30\ncfn=g\ncalls=1 1\n2 70\n"
                            "fn=g\n1 40\ncfn=f\ncalls=1 1\n2 30\n");
    assert_int_equal(self_of(p, "main", 0), 1);
    assert_int_equal(self_of(p, "f", 0), 30);
    assert_int_equal(self_of(p, "g", 0), 40);
    assert_int_equal(pk_value_total(p, 0), 71);
    pk_profile_free(p);
}

/* A self cost divided among three equal placements is whole and sums exactly. */
static void test_rounding(void **state)
{
    (void)state;
    pk_profile *p = read_ok("events: Ir Dr\n"
                            "fn=main\ncfn=a\ncalls=1 1\n1 1 1\ncfn=b\ncalls=1 1\n1 1 1\n"
                            "cfn=c\ncalls=1 1\n1 1 1\n"
                            "fn=a\ncfn=leaf\ncalls=1 1\n1 1 1\n"
                            "fn=b\ncfn=leaf\ncalls=1 1\n1 1 1\n"
                            "fn=c\ncfn=leaf\ncalls=1 1\n1 1 1\n"
                            "fn=leaf\n1 10 0x11\n");
    assert_int_equal(self_of(p, "leaf", 0), 10);
    assert_int_equal(self_of(p, "leaf", 1), 17);
    for (int i = 0; i < 3; i++) {
        char path[32];
        snprintf(path, sizeof path, "main;%c;leaf", 'a' + i);
        int64_t v = tb_stack_value(p, path, 0);
        assert_true(v == 3 || v == 4);
    }
    pk_profile_free(p);
}

/* A function under 300 stacks with 300 lines would make 90,000 rows: its lines are merged per
 * file, with a warning, and its self cost stays exact. */
static void test_merged_lines(void **state)
{
    (void)state;
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "events: Ir\nfl=a.c\nfn=main\n");
    for (int i = 0; i < 300; i++)
        len += (size_t)snprintf(text + len, cap - len, "cfn=c%d\ncalls=1 1\n1 300\n", i);
    for (int i = 0; i < 300; i++)
        len += (size_t)snprintf(text + len, cap - len, "fn=c%d\ncfn=leaf\ncalls=1 1\n1 300\n", i);
    len += (size_t)snprintf(text + len, cap - len, "fn=leaf\n");
    for (int line = 1; line <= 300; line++)
        len += (size_t)snprintf(text + len, cap - len, "%d 300\n", line);
    pk_profile *p = read_ok(text);
    assert_int_equal(self_of(p, "leaf", 0), 90000);
    assert_int_equal(pk_value_total(p, 0), 90000);
    assert_true(pk_sample_count(p) <= 300);
    bool warned = false;
    for (size_t i = 0; i < pk_warning_count(p); i++)
        warned |= strstr(pk_warning_at(p, i), "per file") != NULL;
    assert_true(warned);
    pk_profile_free(p);
    free(text);
}

static bool has_warning(const pk_profile *p, const char *text)
{
    for (size_t i = 0; i < pk_warning_count(p); i++)
        if (strstr(pk_warning_at(p, i), text))
            return true;
    return false;
}

/* A name used without its definition (selinux's file in gprof2dot's tests has `cob=(8)`):
 * read as the name `(N)`, each N a name of its own, with one warning naming the first line. */
static void test_undefined_names(void **state)
{
    (void)state;
    pk_profile *p = read_ok("events: Ir\n"
                            "fn=(1) main\n"
                            "1 10\n"
                            "cob=(8)\n"
                            "cfn=(7)\n"
                            "calls=1 0\n"
                            "2 5\n"
                            "cfn=(9)\n"
                            "calls=1 0\n"
                            "3 3\n"
                            "fn=(7)\n"
                            "4 5\n"
                            "fn=(9)\n"
                            "5 3\n");
    assert_int_equal(pk_value_total(p, 0), 18);
    assert_int_equal(self_of(p, "main", 0), 10);
    assert_int_equal(self_of(p, "(7)", 0), 5);
    assert_int_equal(self_of(p, "(9)", 0), 3);
    assert_int_equal(pk_warning_count(p), 1);
    assert_true(has_warning(p, "line 4: the compressed object name (8) is used without a "
                               "definition before it"));
    assert_true(has_warning(p, "(5 lines in all"));
    pk_profile_free(p);
}

/* summary: before the cost lines and no totals: after them: cut when callgrind wrote the file
 * (it ends every part with totals:), whole from another writer (bzr's Python profile). */
static void test_summary_without_totals(void **state)
{
    (void)state;
    const char *body = "events: Ticks\nsummary: 30\nfn=main\n1 10\nfn=work\n2 20\n";
    pk_profile *p = read_ok(body);
    assert_int_equal(pk_value_total(p, 0), 30);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);

    char text[256];
    snprintf(text, sizeof text, "version: 1\ncreator: callgrind-3.19.0\n%s", body);
    pk_status status;
    p = read_text(text, false, &status);
    assert_int_equal(status, PK_ERR_INPUT);
    pk_profile_free(p);
    snprintf(text, sizeof text, "version: 1\ncreator: callgrind-3.19.0\n%stotals: 30\n", body);
    p = read_ok(text);
    assert_int_equal(pk_value_total(p, 0), 30);
    pk_profile_free(p);
}

/* A dump that collected nothing (gprof2dot's empty.callgrind) is an empty profile with its
 * events. */
static void test_empty_dump(void **state)
{
    (void)state;
    pk_profile *p = read_ok("# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n"
                            "part: 2\npositions: instr line\nevents: Ir Dr Dw\nsummary: 0\n\n"
                            "totals: 0\n");
    assert_int_equal(pk_sample_count(p), 0);
    assert_int_equal(pk_value_type_count(p), 3);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
}

/* Every prefix of a file reads without a crash; salvage always gives a profile. */
static void test_every_truncation(void **state)
{
    (void)state;
    char *text = malloc(sizeof diamond);
    for (size_t len = 0; len < sizeof diamond - 1; len++) {
        memcpy(text, diamond, len);
        text[len] = '\0';
        pk_status status;
        pk_profile *p = read_text(text, false, &status);
        assert_true(status == PK_OK || status == PK_ERR_INPUT);
        pk_profile_free(p);
        p = read_text(text, true, &status);
        /* Before the events: line there is no callgrind file to salvage. */
        if (len > strlen("# callgrind format\nevents: Ir\n"))
            assert_int_equal(status, PK_OK);
        pk_profile_free(p);
    }
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),   cmocka_unit_test(test_positions),
        cmocka_unit_test(test_names),     cmocka_unit_test(test_diamond),
        cmocka_unit_test(test_recursion), cmocka_unit_test(test_rounding),
        cmocka_unit_test(test_merged_lines),      cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_undefined_names),   cmocka_unit_test(test_summary_without_totals),
        cmocka_unit_test(test_empty_dump),        cmocka_unit_test(test_call_counts),
        cmocka_unit_test(test_call_counts_beyond_stacks),
        cmocka_unit_test(test_call_edge_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
