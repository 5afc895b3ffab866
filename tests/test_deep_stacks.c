/* SPDX-License-Identifier: MIT */
/* Reports, flame graphs and the callgrind writer on deep recursion: a chain of 200,000 nested
 * calls, each level a stack with a value of its own. Work that follows every row's frames is
 * quadratic in the depth (2 * 10^10 steps here, minutes even optimised), so these tests only
 * finish within their timeout when the totals are summed once over the tree; they assert the
 * values, not times. A random profile checks the one-pass totals against a walk of every
 * row's frames. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fn_totals.h"
#include "profkit/calltree.h"
#include "profkit/format.h"
#include "profkit/report.h"

#define DEPTH 200000u
#define FUNCTIONS 6u
/* The chain is interned in runs of this many frames, as a reader with whole call chains
 * would, each run's levels then added one frame at a time, as a tracing reader would. */
#define RUN 1000u

static const char *const names[FUNCTIONS] = {"parse_expression", "parse_term", "parse_factor",
                                             "parse_primary", "parse_call", "parse_arguments"};

/* Level k (0-based) calls function k % FUNCTIONS at line k % FUNCTIONS + 1 and has value 1
 * of its own. */
static pk_profile *deep_chain(void)
{
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    uint32_t time = pk_add_value_type(p, "time", "nanoseconds");
    assert_int_equal(time, 0);
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    uint32_t frames[FUNCTIONS];
    for (uint32_t f = 0; f < FUNCTIONS; f++) {
        pk_function fn = {.name = pk_intern_cstr(p, names[f]),
                          .file = pk_intern_cstr(p, "parser.c"), .start_line = f + 1,
                          .resource = PK_NONE};
        uint32_t function = pk_intern_function(p, &fn);
        frames[f] = pk_intern_frame(p, &(pk_frame){.function = function, .line = f + 1,
                                                   .resource = PK_NONE});
    }
    static uint32_t run[RUN];
    uint32_t prefix = PK_NONE;
    int64_t one = 1;
    for (uint32_t level = 0; level < DEPTH; level += RUN) {
        for (uint32_t i = 0; i < RUN; i++)
            run[i] = frames[(level + i) % FUNCTIONS];
        uint32_t whole = pk_intern_stack_frames(p, prefix, run, RUN);
        assert_int_not_equal(whole, PK_NONE);
        uint32_t stack = prefix;
        for (uint32_t i = 0; i < RUN; i++) {
            stack = pk_intern_stack(p, stack, run[i]);
            assert_int_not_equal(stack, PK_NONE);
            assert_int_equal(pk_add_sample(p, thread, stack, &one), PK_OK);
        }
        assert_int_equal(stack, whole);
        prefix = whole;
    }
    return p;
}

static pk_report *build(const pk_profile *p, pk_report_view view, const char *function)
{
    pk_report_options o;
    pk_report_options_init(&o);
    o.view = view;
    o.top = 0;
    o.min_percent = 0;
    o.function = function;
    pk_report *r = NULL;
    pk_error err;
    pk_error_clear(&err);
    if (pk_report_build(p, &o, &r, &err) != PK_OK)
        fail_msg("report failed: %s", err.message);
    return r;
}

static void test_deep_function_totals(void **state)
{
    (void)state;
    pk_profile *p = deep_chain();
    pk_report *r = build(p, PK_REPORT_TOP, NULL);
    assert_int_equal(r->total, DEPTH);
    assert_int_equal(r->entry_count, FUNCTIONS);
    for (size_t i = 0; i < r->entry_count; i++) {
        uint32_t f = 0;
        while (strcmp(names[f], r->entries[i].name) != 0)
            f++;
        /* Function f first appears at level f: every stack from there on holds it, however
         * many times, and counts once. */
        assert_int_equal(r->entries[i].total, DEPTH - f);
        assert_int_equal(r->entries[i].self, (DEPTH - f + FUNCTIONS - 1) / FUNCTIONS);
    }
    pk_report_free(r);

    r = build(p, PK_REPORT_LINES, NULL);
    assert_int_equal(r->entry_count, FUNCTIONS);
    for (size_t i = 0; i < r->entry_count; i++)
        assert_int_equal(r->entries[i].total, DEPTH - (r->entries[i].line - 1));
    pk_report_free(r);

    r = build(p, PK_REPORT_CALLERS, "parse_term");
    assert_int_equal(r->function_total, DEPTH - 1);
    assert_int_equal(r->entry_count, 1);
    assert_string_equal(r->entries[0].name, "parse_expression");
    assert_int_equal(r->entries[0].total, DEPTH - 1);
    pk_report_free(r);
    pk_profile_free(p);
}

static void test_deep_tree(void **state)
{
    (void)state;
    pk_profile *p = deep_chain();
    pk_report *r = build(p, PK_REPORT_TREE, NULL);
    assert_int_equal(r->node_count, DEPTH);
    for (uint32_t level = 0; level < DEPTH; level++) {
        const pk_report_node *n = &r->nodes[level];
        assert_int_equal(n->depth, level);
        assert_int_equal(n->self, 1);
        if (n->total != (int64_t)(DEPTH - level))
            fail_msg("level %u: total %lld", level, (long long)n->total);
    }
    pk_report_free(r);
    pk_profile_free(p);
}

static char *write_as(const pk_profile *p, const char *format)
{
    pk_write_options o = {.value = PK_NONE};
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    pk_error_clear(&err);
    if (pk_write_memory(p, pk_format_by_name(format), &o, &data, &size, &err) != PK_OK)
        fail_msg("%s failed: %s", format, err.message);
    return data;
}

static void test_deep_writers(void **state)
{
    (void)state;
    pk_profile *p = deep_chain();
    char *svg = write_as(p, "svg");
    assert_non_null(strstr(svg, "total 200 us"));
    free(svg);
    /* Each call's inclusive cost counts a row once however often the call recurs in its stack:
     * the rows from its first level down (parse_expression calls parse_term first at level 1).
     * The profile has no call counts: the call is written as called once, never as the
     * number of stacks through it. */
    char *callgrind = write_as(p, "callgrind");
    const char *call = strstr(callgrind, "fn=(1) parse_expression\n");
    assert_non_null(call);
    call = strstr(call, "cfn=(2) parse_term\ncalls=1 2\n1 199999\n");
    if (!call)
        fail_msg("no call from parse_expression to parse_term in:\n%.600s", callgrind);
    free(callgrind);
    pk_profile_free(p);
}

/* A random profile: stacks built from runs and single frames over shared prefixes, functions
 * that recurse, several threads, values of both signs. */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint32_t next_random(uint32_t bound)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng >> 33) % bound;
}

static pk_profile *random_profile(void)
{
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    uint32_t threads[3];
    for (uint32_t t = 0; t < 3; t++)
        threads[t] = pk_add_thread(p, pk_intern_printf(p, "worker-%u", t), 1, t + 1);
    uint32_t frames[12];
    for (uint32_t f = 0; f < 12; f++) {
        /* Names repeat: frames of one name at other lines are one function of the report. */
        pk_function fn = {.name = pk_intern_printf(p, "fn%u", f % 5), .resource = PK_NONE};
        frames[f] = pk_intern_frame(p, &(pk_frame){.function = pk_intern_function(p, &fn),
                                                   .line = f + 1, .resource = PK_NONE});
    }
    uint32_t stacks[400] = {0}; /* the first count are the stacks made so far */
    size_t count = 0;
    for (int i = 0; i < 400; i++) {
        uint32_t prefix = count && next_random(4) ? stacks[next_random((uint32_t)count)] : PK_NONE;
        uint32_t run[8];
        uint32_t n = 1 + next_random(8);
        for (uint32_t k = 0; k < n; k++)
            run[k] = frames[next_random(12)];
        uint32_t s = next_random(2) ? pk_intern_stack_frames(p, prefix, run, n)
                                    : pk_intern_stack(p, prefix, run[0]);
        assert_int_not_equal(s, PK_NONE);
        stacks[count++] = s;
        if (next_random(3)) {
            int64_t v = (int64_t)next_random(1000) - 200;
            assert_int_equal(pk_add_sample(p, threads[next_random(3)], s, &v), PK_OK);
        }
    }
    return p;
}

static void test_totals_match_row_walk(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        pk_profile *p = random_profile();
        tb_fn_totals expected = {0};
        tb_fn_totals_add_profile(&expected, p, 0);
        pk_report *r = build(p, PK_REPORT_TOP, NULL);
        size_t nonzero = 0;
        for (size_t i = 0; i < expected.count; i++)
            nonzero += expected.items[i].self != 0 || expected.items[i].total != 0;
        assert_int_equal(r->entry_count, nonzero);
        for (size_t i = 0; i < r->entry_count; i++) {
            tb_fn_total *e = tb_fn_totals_find(&expected, r->entries[i].name);
            assert_non_null(e);
            assert_int_equal(r->entries[i].self, e->self);
            assert_int_equal(r->entries[i].total, e->total);
        }
        pk_report_free(r);
        tb_fn_totals_free(&expected);

        /* A node's total is the self values of its subtree. */
        pk_calltree tree;
        pk_error err;
        pk_error_clear(&err);
        assert_int_equal(pk_calltree_build(&tree, p, 0, PK_CALLTREE_THREAD_ROOTS, NULL, NULL,
                                           &err),
                         PK_OK);
        int64_t *below = calloc(tree.count, sizeof *below);
        assert_non_null(below);
        for (uint32_t n = 0; n < tree.count; n++)
            for (uint32_t a = n; a != PK_NONE; a = tree.nodes[a].parent)
                below[a] += tree.nodes[n].self;
        for (uint32_t n = 0; n < tree.count; n++)
            assert_int_equal(tree.nodes[n].total, below[n]);
        free(below);
        pk_calltree_free(&tree);
        pk_profile_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deep_function_totals),
        cmocka_unit_test(test_deep_tree),
        cmocka_unit_test(test_deep_writers),
        cmocka_unit_test(test_totals_match_row_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
