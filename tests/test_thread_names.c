/* SPDX-License-Identifier: MIT */
/* Display names of threads (profkit/thread_names.h): unique names as they are, shared names
 * told apart by thread id (named as the format names it), by process and thread id, or by
 * order; unnamed threads; collisions with names generated for others; every name distinct. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "profkit/profile.h"
#include "profkit/thread_names.h"

static uint32_t thread(pk_profile *p, const char *name, int64_t pid, int64_t tid)
{
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, name), pid, tid);
    assert_int_not_equal(t, PK_NONE);
    return t;
}

/* Builds the names of p, checks that no two threads share one, and checks each against want
 * (one per thread). */
static void assert_names(const pk_profile *p, const char *const *want)
{
    pk_thread_names *names = pk_thread_names_new(p);
    assert_non_null(names);
    size_t n = pk_thread_count(p);
    for (uint32_t t = 0; t < n; t++) {
        const char *got = pk_thread_display_name(names, t);
        if (want && strcmp(got, want[t]) != 0)
            fail_msg("thread %u: \"%s\", want \"%s\"", (unsigned)t, got, want[t]);
        for (uint32_t u = 0; u < t; u++)
            if (strcmp(got, pk_thread_display_name(names, u)) == 0)
                fail_msg("threads %u and %u are both \"%s\"", (unsigned)u, (unsigned)t, got);
    }
    assert_string_equal(pk_thread_display_name(names, (uint32_t)n), "");
    assert_string_equal(pk_thread_display_name(names, PK_NONE), "");
    pk_thread_names_free(names);
}

static void test_unique_names_unchanged(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    thread(p, "main", 1, 1);
    thread(p, "worker", 1, 2);
    thread(p, "Main", 1, 3); /* case matters */
    const char *want[] = {"main", "worker", "Main"};
    assert_names(p, want);
    pk_profile_free(p);
}

static void test_shared_names_by_tid(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    thread(p, "RowListItem", 0, 5);
    thread(p, "main", 0, 1);
    thread(p, "RowListItem", 0, 6);
    thread(p, "RowListItem", 0, 10);
    const char *want[] = {"RowListItem (tid 5)", "main", "RowListItem (tid 6)",
                          "RowListItem (tid 10)"};
    assert_names(p, want);

    /* Read from .bsprof, where a thread is a module and its tid the module ID: its reader
     * records so in the property "thread id name" (the core names no format). */
    pk_metadata_of(p)->source_format = pk_intern_cstr(p, "bsprof");
    assert_names(p, want);
    assert_int_equal(pk_property_set(p, "thread id name", "module"), PK_OK);
    const char *modules[] = {"RowListItem (module 5)", "main", "RowListItem (module 6)",
                             "RowListItem (module 10)"};
    assert_names(p, modules);
    pk_profile_free(p);
}

static void test_shared_names_by_pid_and_tid(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    thread(p, "main", 100, 1);
    thread(p, "main", 200, 1);
    const char *want[] = {"main (pid 100, tid 1)", "main (pid 200, tid 1)"};
    assert_names(p, want);
    pk_profile_free(p);
}

static void test_shared_names_by_order(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    thread(p, "pool", -1, -1);
    thread(p, "other", -1, -1);
    thread(p, "pool", -1, 7);   /* one known id is not enough */
    thread(p, "pool", -1, -1);
    const char *want[] = {"pool #1", "other", "pool #2", "pool #3"};
    assert_names(p, want);

    /* Equal ids do not tell threads apart either. */
    pk_profile *q = pk_profile_new();
    thread(q, "w", 3, 9);
    thread(q, "w", 3, 9);
    const char *same[] = {"w #1", "w #2"};
    assert_names(q, same);
    pk_profile_free(q);
    pk_profile_free(p);
}

static void test_unnamed_threads(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    assert_int_not_equal(pk_add_thread(p, 0, 7, 42), PK_NONE);
    assert_int_not_equal(pk_add_thread(p, 0, -1, -1), PK_NONE);
    assert_int_not_equal(pk_add_thread(p, 0, -1, -1), PK_NONE);
    /* Without a thread id, a thread's position from 1. */
    const char *want[] = {"Thread 42", "Thread 2", "Thread 3"};
    assert_names(p, want);
    pk_profile_free(p);
}

static void test_generated_name_collisions(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    /* A thread already called what the second "a" would become. */
    thread(p, "a", -1, -1);
    thread(p, "a", -1, -1);
    thread(p, "a #2", -1, -1);
    pk_thread_names *names = pk_thread_names_new(p);
    assert_non_null(names);
    assert_string_equal(pk_thread_display_name(names, 0), "a #1");
    assert_string_equal(pk_thread_display_name(names, 2), "a #2");
    /* The thread called so keeps its name; the generated one adds its position. */
    assert_string_equal(pk_thread_display_name(names, 1), "a #2 #2");
    pk_thread_names_free(names);
    assert_names(p, NULL);

    /* An unnamed thread whose placeholder is another thread's name. */
    pk_profile *q = pk_profile_new();
    thread(q, "Thread 5", -1, -1);
    assert_int_not_equal(pk_add_thread(q, 0, -1, 5), PK_NONE);
    const char *want[] = {"Thread 5 #1", "Thread 5 #2"};
    assert_names(q, want);
    pk_profile_free(q);
    pk_profile_free(p);
}

static void test_many_threads_distinct(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    char name[32];
    for (int i = 0; i < 3000; i++) {
        snprintf(name, sizeof name, "w%d", i % 7);
        thread(p, name, i % 3 ? -1 : 1, i % 5 ? -1 : i);
    }
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "w%d #%d", i % 7, i + 1);
        thread(p, name, -1, -1);
    }
    assert_names(p, NULL);
    pk_profile_free(p);
}

static void test_names_outlive_profile(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    thread(p, "kept", 1, 1);
    pk_thread_names *names = pk_thread_names_new(p);
    assert_non_null(names);
    pk_profile_free(p);
    assert_string_equal(pk_thread_display_name(names, 0), "kept");
    pk_thread_names_free(names);
    pk_thread_names_free(NULL);

    pk_profile *empty = pk_profile_new();
    names = pk_thread_names_new(empty);
    assert_non_null(names);
    assert_string_equal(pk_thread_display_name(names, 0), "");
    pk_thread_names_free(names);
    pk_profile_free(empty);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unique_names_unchanged),
        cmocka_unit_test(test_shared_names_by_tid),
        cmocka_unit_test(test_shared_names_by_pid_and_tid),
        cmocka_unit_test(test_shared_names_by_order),
        cmocka_unit_test(test_unnamed_threads),
        cmocka_unit_test(test_generated_name_collisions),
        cmocka_unit_test(test_many_threads_distinct),
        cmocka_unit_test(test_names_outlive_profile),
    };
    return cmocka_run_group_tests_name("thread_names", tests, NULL, NULL);
}
