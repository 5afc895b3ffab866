/* SPDX-License-Identifier: MIT */
/* The version: the library's functions agree with the header macros, and the libraries it was
 * built with are listed with the versions they report themselves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "profkit/version.h"

static void test_version_matches_macros(void **state)
{
    (void)state;
    assert_int_equal(pk_version(), PROFKIT_VERSION_NUMBER);
    assert_string_equal(pk_version_string(), PROFKIT_VERSION);
    char joined[64];
    snprintf(joined, sizeof joined, "%d.%d.%d", PROFKIT_VERSION_MAJOR, PROFKIT_VERSION_MINOR,
             PROFKIT_VERSION_PATCH);
    assert_string_equal(joined, PROFKIT_VERSION);
    assert_int_equal(PROFKIT_VERSION_NUMBER,
                     PROFKIT_VERSION_MAJOR * 10000 + PROFKIT_VERSION_MINOR * 100 +
                         PROFKIT_VERSION_PATCH);
}

static const pk_dependency *dependency_named(const char *name)
{
    for (size_t i = 0; i < pk_dependency_count(); i++)
        if (strcmp(pk_dependency_at(i)->name, name) == 0)
            return pk_dependency_at(i);
    return NULL;
}

static void test_dependencies(void **state)
{
    (void)state;
    const char *expected[] = {"zlib", "libdw", "libcurl", "libzip", "protobuf-c", "xxhash",
                              "libiberty"};
    assert_int_equal(pk_dependency_count(), sizeof expected / sizeof *expected);
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
        const pk_dependency *d = dependency_named(expected[i]);
        assert_non_null(d);
        if (d->runtime) {
            assert_non_null(d->version);
            assert_non_null(d->built_with);
            /* Versions are numbers with dots. */
            assert_true(d->version[0] >= '0' && d->version[0] <= '9');
            assert_non_null(strchr(d->version, '.'));
        }
    }
    /* Asked of the library that is loaded, which is the one this test links. */
    assert_string_equal(dependency_named("zlib")->version, zlibVersion());
    assert_null(pk_dependency_at(pk_dependency_count()));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_matches_macros),
        cmocka_unit_test(test_dependencies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
