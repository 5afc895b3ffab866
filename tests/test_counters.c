/* SPDX-License-Identifier: MIT */
/* Counters in the model: levels read back as appended (through the spool's temporary file for
 * many), what a counter refuses, its summary, and copies that carry it to the copied thread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profkit/copy.h"
#include "profkit/counters.h"
#include "profkit/profile.h"

static void levels_come_back_in_order_with_the_summary(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 7, 7);
    uint32_t c = pk_add_counter(p, "heap", "bytes in use", "bytes", t);
    assert_int_equal(c, 0);
    assert_int_equal(pk_counter_count(p), 1);
    const pk_counter *info = pk_counter_at(p, c);
    assert_int_equal(info->samples, 0);
    assert_true(info->first == PK_TIME_UNKNOWN);
    static const int64_t times[] = {-5, 0, 0, 1000, INT64_MAX};
    static const int64_t levels[] = {100, -3, INT64_MAX, INT64_MIN, 0};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(pk_counter_append(p, c, times[i], levels[i]), PK_OK);
    info = pk_counter_at(p, c);
    assert_int_equal(info->samples, 5);
    assert_true(info->first == -5 && info->last == INT64_MAX);
    assert_true(info->min == INT64_MIN && info->max == INT64_MAX);
    assert_string_equal(pk_str(p, info->name), "heap");
    assert_string_equal(pk_str(p, info->unit), "bytes");
    assert_string_equal(pk_str(p, info->description), "bytes in use");
    assert_int_equal(info->thread, t);
    pk_counter_cursor *cursor;
    assert_int_equal(pk_counter_open(p, c, &cursor), PK_OK);
    int64_t time, level;
    for (size_t i = 0; i < 5; i++) {
        assert_true(pk_counter_next(cursor, &time, &level));
        assert_true(time == times[i] && level == levels[i]);
    }
    assert_false(pk_counter_next(cursor, &time, &level));
    assert_int_equal(pk_counter_close(cursor), PK_OK);
    pk_profile_free(p);
}

static void what_a_counter_refuses(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    assert_int_equal(pk_add_counter(p, "x", NULL, "bytes", 0), PK_NONE); /* no thread 0 */
    uint32_t c = pk_add_counter(p, "x", NULL, NULL, PK_NONE);
    assert_int_not_equal(c, PK_NONE);
    assert_string_equal(pk_str(p, pk_counter_at(p, c)->unit), "count");
    assert_true(pk_counter_at(p, c)->description == PK_NONE);
    assert_null(pk_counter_at(p, c + 1));
    assert_int_equal(pk_counter_append(p, c + 1, 0, 0), PK_ERR_USAGE);
    assert_int_equal(pk_counter_append(p, c, 10, 1), PK_OK);
    assert_int_equal(pk_counter_append(p, c, 9, 2), PK_ERR_USAGE); /* back in time */
    assert_int_equal(pk_counter_at(p, c)->samples, 1);
    pk_counter_cursor *cursor = NULL;
    assert_int_equal(pk_counter_open(p, c + 1, &cursor), PK_ERR_USAGE);
    assert_null(cursor);
    /* A counter without samples gives a cursor that ends at once. */
    uint32_t empty = pk_add_counter(p, "y", NULL, "bytes", PK_NONE);
    assert_int_equal(pk_counter_open(p, empty, &cursor), PK_OK);
    int64_t time, level;
    assert_false(pk_counter_next(cursor, &time, &level));
    assert_int_equal(pk_counter_close(cursor), PK_OK);
    pk_profile_free(p);
}

static void many_levels_spool_out_of_memory_and_come_back(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    uint32_t a = pk_add_counter(p, "a", NULL, "bytes", PK_NONE);
    uint32_t b = pk_add_counter(p, "b", NULL, "bytes", PK_NONE);
    /* Interleaved, with levels that change by large steps: well past the spool's memory. */
    const int64_t n = 3000000;
    for (int64_t i = 0; i < n; i++) {
        assert_int_equal(pk_counter_append(p, a, i * 1000, (i * 7919) % 1000003 - 500000), PK_OK);
        if (i % 3 == 0)
            assert_int_equal(pk_counter_append(p, b, i, -i), PK_OK);
    }
    pk_counter_cursor *cursor;
    assert_int_equal(pk_counter_open(p, a, &cursor), PK_OK);
    int64_t time, level, i = 0;
    while (pk_counter_next(cursor, &time, &level)) {
        if (time != i * 1000 || level != (i * 7919) % 1000003 - 500000)
            fail_msg("sample %lld of a: %lld at %lld", (long long)i, (long long)level,
                     (long long)time);
        i++;
    }
    assert_int_equal(pk_counter_close(cursor), PK_OK);
    assert_int_equal(i, n);
    assert_int_equal(pk_counter_open(p, b, &cursor), PK_OK);
    i = 0;
    while (pk_counter_next(cursor, &time, &level)) {
        assert_true(time == i * 3 && level == -i * 3);
        i++;
    }
    assert_int_equal(pk_counter_close(cursor), PK_OK);
    assert_int_equal(i, (n + 2) / 3);
    pk_profile_free(p);
}

static void copies_carry_counters_to_the_copied_thread(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    pk_add_thread(p, pk_intern_cstr(p, "first"), 1, 1);
    uint32_t second = pk_add_thread(p, pk_intern_cstr(p, "second"), 2, 2);
    uint32_t c = pk_add_counter(p, "rss", "resident", "bytes", second);
    for (int64_t i = 0; i < 10; i++)
        assert_int_equal(pk_counter_append(p, c, i, i * i), PK_OK);
    pk_profile *copy = pk_profile_new();
    assert_non_null(copy);
    pk_error err;
    pk_error_clear(&err);
    assert_int_equal(pk_profile_copy(copy, p, NULL, &err), PK_OK);
    assert_int_equal(pk_counter_count(copy), 1);
    const pk_counter *info = pk_counter_at(copy, 0);
    assert_string_equal(pk_str(copy, pk_thread_at(copy, info->thread)->name), "second");
    assert_string_equal(pk_str(copy, info->description), "resident");
    assert_int_equal(info->samples, 10);
    assert_true(info->max == 81 && info->last == 9);
    pk_counter_cursor *cursor;
    assert_int_equal(pk_counter_open(copy, 0, &cursor), PK_OK);
    int64_t time, level, i = 0;
    while (pk_counter_next(cursor, &time, &level)) {
        assert_true(time == i && level == i * i);
        i++;
    }
    assert_int_equal(pk_counter_close(cursor), PK_OK);
    assert_int_equal(i, 10);
    pk_profile_free(copy);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(levels_come_back_in_order_with_the_summary),
        cmocka_unit_test(what_a_counter_refuses),
        cmocka_unit_test(many_levels_spool_out_of_memory_and_come_back),
        cmocka_unit_test(copies_carry_counters_to_the_copied_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
