/* SPDX-License-Identifier: MIT */
/* Timelines in the model: a thread's timed samples read back in time order (stable for equal
 * times, sorted through runs when added out of order), spans, empty stacks, spooling past the
 * memory bound, all 64 values, threads that give theirs up, a profile that keeps only each
 * thread's info, and copies: merging, symbolizing, diffing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/timeline_internal.h"
#include "profkit/diff.h"
#include "profkit/merge.h"
#include "profkit/symbolize.h"
#include "profkit/profile.h"
#include "profkit/timeline.h"

static uint32_t stack_named(pk_profile *p, const char *name)
{
    uint32_t function = pk_intern_function(
        p, &(pk_function){.name = pk_intern_cstr(p, name), .resource = PK_NONE});
    uint32_t frame = pk_intern_frame(p, &(pk_frame){function, 0, 0, PK_NONE, 0});
    return pk_intern_stack(p, PK_NONE, frame);
}

static pk_profile *profile_with(uint32_t *thread, uint32_t *a, uint32_t *b)
{
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    assert_int_not_equal(pk_add_value_type(p, "samples", "count"), PK_NONE);
    assert_int_not_equal(pk_add_value_type(p, "cpu", "nanoseconds"), PK_NONE);
    *thread = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    *a = stack_named(p, "a");
    *b = stack_named(p, "b");
    return p;
}

/* Reads the thread's timeline, checking that times never go back; returns the count. */
static size_t read_all(const pk_profile *p, uint32_t thread, pk_timed_sample *out, size_t cap,
                       int64_t *values0)
{
    pk_timeline_cursor *c;
    assert_int_equal(pk_timeline_open(p, thread, &c), PK_OK);
    pk_timed_sample s;
    size_t n = 0;
    int64_t previous = INT64_MIN;
    while (pk_timeline_next(c, &s)) {
        assert_true(s.time >= previous);
        previous = s.time;
        if (n < cap) {
            out[n] = s;
            if (values0)
                values0[n] = s.values[0];
        }
        n++;
    }
    assert_int_equal(pk_timeline_close(c), PK_OK);
    return n;
}

static void samples_come_back_in_order_with_spans_and_empty_stacks(void **state)
{
    (void)state;
    uint32_t t, a, b;
    pk_profile *p = profile_with(&t, &a, &b);
    assert_true(pk_timeline_kept(p));
    assert_int_equal(pk_add_timed_sample(p, t, a, 1000, 0, (int64_t[]){1, 250}), PK_OK);
    assert_int_equal(pk_add_timed_sample(p, t, b, 2000, 500, (int64_t[]){1, 0}), PK_OK);
    assert_int_equal(pk_add_timed_sample(p, t, PK_NONE, 2500, 0, NULL), PK_OK);
    assert_int_equal(pk_add_timed_sample(p, t, a, 3000, 0, (int64_t[]){-2, 7}), PK_OK);
    pk_timed_sample s[8];
    int64_t first[8];
    assert_int_equal(read_all(p, t, s, 8, first), 4);
    assert_int_equal(s[0].time, 1000);
    assert_int_equal(s[0].stack, a);
    assert_int_equal(s[0].duration, 0);
    assert_int_equal(first[0], 1);
    assert_int_equal(s[1].time, 2000);
    assert_int_equal(s[1].duration, 500);
    assert_int_equal(s[1].stack, b);
    assert_int_equal(s[2].stack, PK_NONE);
    assert_int_equal(first[2], 0);
    assert_int_equal(first[3], -2);
    /* The rows sum what the samples weigh. */
    assert_int_equal(pk_value_total(p, 1), 257);
    pk_timeline_info info;
    pk_timeline_info_get(p, t, &info);
    assert_true(info.measured);
    assert_int_equal(info.count, 4);
    assert_int_equal(info.first, 1000);
    assert_int_equal(info.last, 3000);
    int64_t lo, hi;
    assert_true(pk_timeline_bounds(p, &lo, &hi));
    assert_int_equal(lo, 1000);
    assert_int_equal(hi, 3000);
    pk_profile_free(p);
}

static void refused_samples_add_nothing(void **state)
{
    (void)state;
    uint32_t t, a, b;
    pk_profile *p = profile_with(&t, &a, &b);
    assert_int_equal(pk_add_timed_sample(p, t, a, 10, -1, NULL), PK_ERR_USAGE);
    assert_int_equal(pk_add_timed_sample(p, t, a, PK_TIME_UNKNOWN, 0, NULL), PK_ERR_USAGE);
    assert_int_equal(pk_add_timed_sample(p, t, a, INT64_MAX - 5, 6, NULL), PK_ERR_USAGE);
    assert_int_equal(pk_timeline_append(p, t + 1, a, 10, 0, NULL), PK_ERR_USAGE);
    assert_int_equal(pk_timeline_append(p, t, b + 7, 10, 0, NULL), PK_ERR_USAGE);
    assert_int_equal(pk_sample_count(p), 0);
    pk_timeline_info info;
    pk_timeline_info_get(p, t, &info);
    assert_false(info.measured);
    assert_int_equal(info.count, 0);
    assert_int_equal(info.first, PK_TIME_UNKNOWN);
    assert_false(pk_timeline_bounds(p, NULL, NULL));
    pk_timeline_cursor *c;
    assert_int_equal(pk_timeline_open(p, t + 1, &c), PK_ERR_USAGE);
    pk_profile_free(p);
}

static void an_untimed_thread_gives_an_empty_cursor(void **state)
{
    (void)state;
    uint32_t t, a, b;
    pk_profile *p = profile_with(&t, &a, &b);
    uint32_t other = pk_add_thread(p, pk_intern_cstr(p, "other"), 1, 2);
    assert_int_equal(pk_add_sample(p, other, a, (int64_t[]){1, 1}), PK_OK);
    pk_timed_sample s;
    assert_int_equal(read_all(p, other, &s, 1, NULL), 0);
    /* Also once another thread has a timeline. */
    assert_int_equal(pk_add_timed_sample(p, t, a, 5, 0, NULL), PK_OK);
    assert_int_equal(read_all(p, other, &s, 1, NULL), 0);
    assert_int_equal(read_all(p, t, &s, 1, NULL), 1);
    pk_profile_free(p);
}

/* A thread with a sample that has no time gives up its timeline, before or after its timed
 * samples, and says so once; the other threads keep theirs. */
static void a_dropped_thread_has_no_timeline(void **state)
{
    (void)state;
    uint32_t t, a, b;
    pk_profile *p = profile_with(&t, &a, &b);
    uint32_t other = pk_add_thread(p, pk_intern_cstr(p, "other"), 1, 2);
    uint32_t first = pk_add_thread(p, pk_intern_cstr(p, "first"), 1, 3);
    assert_int_equal(pk_add_timed_sample(p, t, a, 5, 0, (int64_t[]){1, 10}), PK_OK);
    assert_int_equal(pk_add_timed_sample(p, other, b, 7, 0, (int64_t[]){1, 10}), PK_OK);
    assert_int_equal(pk_add_sample(p, t, b, (int64_t[]){1, 10}), PK_OK);
    assert_int_equal(pk_timeline_drop(p, t), PK_OK);
    assert_int_equal(pk_timeline_drop(p, t), PK_OK);
    assert_int_equal(pk_add_timed_sample(p, t, a, 9, 0, (int64_t[]){1, 10}), PK_OK);
    /* Dropped before any timed sample: the later ones are not kept either. */
    assert_int_equal(pk_timeline_drop(p, first), PK_OK);
    assert_int_equal(pk_warning_count(p), 1);
    assert_int_equal(pk_add_timed_sample(p, first, a, 3, 0, (int64_t[]){1, 10}), PK_OK);
    assert_int_equal(pk_warning_count(p), 2);
    assert_non_null(strstr(pk_warning_at(p, 0), "thread main"));
    assert_non_null(strstr(pk_warning_at(p, 1), "thread first"));
    pk_timeline_info info;
    pk_timeline_info_get(p, t, &info);
    assert_false(info.measured);
    assert_int_equal(info.count, 0);
    pk_timed_sample s[2];
    assert_int_equal(read_all(p, t, s, 2, NULL), 0);
    assert_int_equal(read_all(p, first, s, 2, NULL), 0);
    assert_int_equal(read_all(p, other, s, 2, NULL), 1);
    int64_t from, to;
    assert_true(pk_timeline_bounds(p, &from, &to));
    assert_int_equal(from, 7);
    assert_int_equal(to, 7);
    /* The rows keep every sample. */
    assert_int_equal(pk_value_total(p, 0), 5);
    assert_int_equal(pk_timeline_drop(p, first + 1), PK_ERR_USAGE);
    pk_profile_free(p);
}

/* Out of order, more samples than one sorted run: times come back sorted and samples of equal
 * times in the order added (told apart by their first value). */
static void out_of_order_samples_are_sorted_stably_through_runs(void **state)
{
    (void)state;
    uint32_t t, a, b;
    pk_profile *p = profile_with(&t, &a, &b);
    pk_timeline_set_sort_run(1000);
    enum { COUNT = 10000 };
    for (int64_t i = 0; i < COUNT; i++) {
        /* Times cycle backwards in groups: time (7919 * i) mod 101, each time many times. */
        int64_t time = -50 + (int64_t)((uint64_t)(7919 * i) % 101) * 1000;
        assert_int_equal(pk_timeline_append(p, t, i % 2 ? a : b, time, 0, (int64_t[]){i, 0}),
                         PK_OK);
    }
    int64_t *order = malloc(COUNT * sizeof *order);
    pk_timed_sample *s = malloc(COUNT * sizeof *s);
    assert_int_equal(read_all(p, t, s, COUNT, order), COUNT);
    for (size_t i = 1; i < COUNT; i++)
        if (s[i].time == s[i - 1].time)
            assert_true(order[i] > order[i - 1]);
    for (size_t i = 0; i < COUNT; i++)
        assert_int_equal(s[i].stack, order[i] % 2 ? a : b);
    assert_int_equal(s[0].time, -50);
    assert_int_equal(s[COUNT - 1].time, -50 + 100 * 1000);
    /* The same within one run. */
    pk_timeline_set_sort_run(0);
    assert_int_equal(read_all(p, t, s, COUNT, order), COUNT);
    assert_int_equal(order[0], 0);
    free(order);
    free(s);
    pk_profile_free(p);
}

/* Enough samples that the spool goes to its temporary file (beyond 4 MiB). */
static void many_samples_spool_out_of_memory_and_come_back(void **state)
{
    (void)state;
    uint32_t t, a, b;
    pk_profile *p = profile_with(&t, &a, &b);
    enum { COUNT = 1000000 };
    for (int64_t i = 0; i < COUNT; i++)
        assert_int_equal(pk_timeline_append(p, t, i & 1 ? a : b, 1000000 + i * 997, 0,
                                            (int64_t[]){1, i}),
                         PK_OK);
    pk_timeline_cursor *c;
    assert_int_equal(pk_timeline_open(p, t, &c), PK_OK);
    pk_timed_sample s;
    int64_t i = 0;
    bool right = true;
    while (pk_timeline_next(c, &s)) {
        right = right && s.time == 1000000 + i * 997 && s.values[1] == i &&
                s.stack == (i & 1 ? a : b);
        i++;
    }
    assert_int_equal(pk_timeline_close(c), PK_OK);
    assert_true(right);
    assert_int_equal(i, COUNT);
    pk_profile_free(p);
}

static void every_one_of_64_values_comes_back(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    for (int v = 0; v < PK_MAX_VALUES; v++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", v);
        assert_int_equal(pk_add_value_type(p, name, "count"), (uint32_t)v);
    }
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    uint32_t a = stack_named(p, "a");
    int64_t values[PK_MAX_VALUES];
    for (int v = 0; v < PK_MAX_VALUES; v++)
        values[v] = v % 2 ? INT64_MIN + v : INT64_MAX - v;
    assert_int_equal(pk_timeline_append(p, t, a, INT64_MIN + 1, INT64_MAX, values), PK_OK);
    assert_int_equal(pk_timeline_append(p, t, a, INT64_MAX, 0, values), PK_OK);
    pk_timeline_cursor *c;
    assert_int_equal(pk_timeline_open(p, t, &c), PK_OK);
    pk_timed_sample s;
    assert_true(pk_timeline_next(c, &s));
    assert_int_equal(s.time, INT64_MIN + 1);
    assert_int_equal(s.duration, INT64_MAX);
    assert_memory_equal(s.values, values, sizeof values);
    assert_true(pk_timeline_next(c, &s));
    assert_int_equal(s.time, INT64_MAX);
    assert_memory_equal(s.values, values, sizeof values);
    assert_false(pk_timeline_next(c, &s));
    assert_int_equal(pk_timeline_close(c), PK_OK);
    pk_profile_free(p);
}

static void a_profile_may_keep_only_the_info(void **state)
{
    (void)state;
    uint32_t t, a, b;
    pk_profile *p = profile_with(&t, &a, &b);
    pk_timeline_keep(p, false);
    assert_false(pk_timeline_kept(p));
    assert_int_equal(pk_add_timed_sample(p, t, a, 300, 0, (int64_t[]){1, 1}), PK_OK);
    assert_int_equal(pk_add_timed_sample(p, t, b, 100, 50, (int64_t[]){1, 1}), PK_OK);
    pk_timeline_keep(p, true); /* too late: the choice stands */
    assert_false(pk_timeline_kept(p));
    pk_timeline_cursor *c;
    assert_int_equal(pk_timeline_open(p, t, &c), PK_ERR_UNSUPPORTED);
    pk_timeline_info info;
    pk_timeline_info_get(p, t, &info);
    assert_true(info.measured);
    assert_int_equal(info.count, 2);
    assert_int_equal(info.first, 100);
    assert_int_equal(info.last, 300);
    assert_int_equal(pk_value_total(p, 0), 2);
    pk_profile_free(p);
}

/* A fresh copy carries each thread's samples; a merge of two profiles whose threads share a
 * name interleaves their samples in time order, with the values mapped by name. */
static void copies_and_merges_carry_timelines(void **state)
{
    (void)state;
    uint32_t t, a, b;
    pk_profile *p = profile_with(&t, &a, &b);
    for (int64_t i = 0; i < 100; i++)
        assert_int_equal(pk_add_timed_sample(p, t, i % 3 ? a : PK_NONE, i * 20, i % 2,
                                             (int64_t[]){1, i}),
                         PK_OK);
    pk_profile *copy = pk_profile_new();
    pk_error err;
    pk_error_clear(&err);
    assert_int_equal(pk_profile_copy(copy, p, NULL, &err), PK_OK);
    pk_timed_sample s[200];
    int64_t first[200];
    assert_int_equal(read_all(copy, 0, s, 200, first), 100);
    assert_int_equal(s[99].time, 99 * 20);
    assert_int_equal(s[99].duration, 1);
    assert_int_equal(s[3].stack, PK_NONE);
    assert_string_equal(pk_frame_name(copy, pk_stack_leaf(copy, s[4].stack)), "a");

    /* The other profile names its values the other way round, its samples 10 ns later. */
    pk_profile *q = pk_profile_new();
    assert_int_equal(pk_add_value_type(q, "cpu", "nanoseconds"), 0);
    assert_int_equal(pk_add_value_type(q, "samples", "count"), 1);
    uint32_t qt = pk_add_thread(q, pk_intern_cstr(q, "main"), 1, 1);
    uint32_t qb = stack_named(q, "b");
    for (int64_t i = 0; i < 100; i++)
        assert_int_equal(pk_add_timed_sample(q, qt, qb, i * 20 + 10, 0, (int64_t[]){i, 2}),
                         PK_OK);
    const pk_profile *inputs[] = {p, q};
    pk_profile *merged;
    assert_int_equal(pk_profile_merge(inputs, 2, &merged, &err), PK_OK);
    assert_int_equal(pk_thread_count(merged), 1);
    assert_int_equal(read_all(merged, 0, s, 200, first), 200);
    for (size_t i = 0; i < 200; i++)
        assert_int_equal(s[i].time, (int64_t)i * 10);
    assert_int_equal(pk_value_find(merged, "samples"), 0);
    assert_int_equal(first[0], 1);
    assert_int_equal(first[1], 2); /* q's samples weigh 2 */
    pk_timeline_info info;
    pk_timeline_info_get(merged, 0, &info);
    assert_int_equal(info.count, 200);
    assert_int_equal(info.last, 99 * 20 + 10);
    pk_profile_free(merged);

    /* A comparison keeps only what the times were. */
    pk_profile *diff;
    assert_int_equal(pk_diff_profiles(p, 0, q, 1, false, &diff, &err), PK_OK);
    assert_false(pk_timeline_kept(diff));
    pk_profile_free(diff);
    pk_profile_free(copy);
    pk_profile_free(q);
    pk_profile_free(p);
}

/* A merge that puts rows without times into a timed thread, in either order, leaves that
 * thread without a timeline (it would miss those rows' samples); other threads keep theirs. */
static void merging_untimed_rows_into_a_timed_thread_drops_its_timeline(void **state)
{
    (void)state;
    uint32_t t, a, b;
    pk_profile *timed = profile_with(&t, &a, &b);
    uint32_t other = pk_add_thread(timed, pk_intern_cstr(timed, "other"), 1, 2);
    assert_int_equal(pk_add_timed_sample(timed, t, a, 10, 0, (int64_t[]){1, 5}), PK_OK);
    assert_int_equal(pk_add_timed_sample(timed, other, b, 20, 0, (int64_t[]){1, 5}), PK_OK);
    uint32_t ut, ua, ub;
    pk_profile *untimed = profile_with(&ut, &ua, &ub);
    assert_int_equal(pk_add_sample(untimed, ut, ub, (int64_t[]){3, 30}), PK_OK);
    pk_error err;
    pk_error_clear(&err);
    for (int order = 0; order < 2; order++) {
        const pk_profile *inputs[2] = {order ? untimed : timed, order ? timed : untimed};
        pk_profile *merged;
        assert_int_equal(pk_profile_merge(inputs, 2, &merged, &err), PK_OK);
        assert_int_equal(pk_thread_count(merged), 2);
        assert_int_equal(pk_value_total(merged, pk_value_find(merged, "samples")), 5);
        for (uint32_t i = 0; i < 2; i++) {
            bool main_thread = strcmp(pk_str(merged, pk_thread_at(merged, i)->name), "main") == 0;
            pk_timeline_info info;
            pk_timeline_info_get(merged, i, &info);
            assert_int_equal(info.measured, !main_thread);
            pk_timed_sample s;
            assert_int_equal(read_all(merged, i, &s, 1, NULL), main_thread ? 0 : 1);
        }
        bool warned = false;
        for (size_t w = 0; w < pk_warning_count(merged); w++)
            warned = warned || strstr(pk_warning_at(merged, w), "thread main") != NULL;
        assert_true(warned);
        pk_profile_free(merged);
    }
    pk_profile_free(untimed);
    pk_profile_free(timed);
}

static void a_copy_of_info_alone_is_info_alone(void **state)
{
    (void)state;
    uint32_t t, a, b;
    pk_profile *p = profile_with(&t, &a, &b);
    pk_timeline_keep(p, false);
    assert_int_equal(pk_add_timed_sample(p, t, a, 40, 0, (int64_t[]){1, 1}), PK_OK);
    assert_int_equal(pk_add_timed_sample(p, t, b, 10, 5, (int64_t[]){1, 1}), PK_OK);
    pk_profile *copy = pk_profile_new();
    pk_error err;
    pk_error_clear(&err);
    assert_int_equal(pk_profile_copy(copy, p, NULL, &err), PK_OK);
    assert_false(pk_timeline_kept(copy));
    pk_timeline_info info;
    pk_timeline_info_get(copy, 0, &info);
    assert_true(info.measured);
    assert_int_equal(info.count, 2);
    assert_int_equal(info.first, 10);
    assert_int_equal(info.last, 40);
    pk_profile_free(copy);
    pk_profile_free(p);
}

/* Symbolization is a copy that stands in for frames: the timeline follows the new stacks. */
static void symbolization_keeps_the_timeline(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    assert_int_equal(pk_add_value_type(p, "samples", "count"), 0);
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    uint32_t fn = pk_intern_function(
        p, &(pk_function){.name = pk_intern_cstr(p, "0x4011d6"), .resource = PK_NONE});
    uint32_t frame =
        pk_intern_frame(p, &(pk_frame){fn, 0, 0x4011d6, PK_NONE, PK_FRAME_HAS_ADDRESS});
    uint32_t stack = pk_intern_stack(p, PK_NONE, frame);
    assert_true(pk_profile_has_unresolved_frames(p));
    for (int64_t i = 0; i < 50; i++)
        assert_int_equal(pk_add_timed_sample(p, t, stack, 1000 - i, 0, (int64_t[]){1}), PK_OK);
    pk_profile *named;
    pk_error err;
    pk_error_clear(&err);
    assert_int_equal(pk_symbolize_consume(p, NULL, &named, &err), PK_OK);
    pk_timed_sample s[50];
    assert_int_equal(read_all(named, 0, s, 50, NULL), 50);
    assert_int_equal(s[0].time, 951);
    assert_int_equal(s[49].time, 1000);
    assert_int_equal(pk_stack_depth(named, s[0].stack), 1);
    pk_profile_free(named);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(samples_come_back_in_order_with_spans_and_empty_stacks),
        cmocka_unit_test(refused_samples_add_nothing),
        cmocka_unit_test(an_untimed_thread_gives_an_empty_cursor),
        cmocka_unit_test(a_dropped_thread_has_no_timeline),
        cmocka_unit_test(out_of_order_samples_are_sorted_stably_through_runs),
        cmocka_unit_test(many_samples_spool_out_of_memory_and_come_back),
        cmocka_unit_test(every_one_of_64_values_comes_back),
        cmocka_unit_test(a_profile_may_keep_only_the_info),
        cmocka_unit_test(copies_and_merges_carry_timelines),
        cmocka_unit_test(merging_untimed_rows_into_a_timed_thread_drops_its_timeline),
        cmocka_unit_test(a_copy_of_info_alone_is_info_alone),
        cmocka_unit_test(symbolization_keeps_the_timeline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
