/* SPDX-License-Identifier: MIT */
/* JIT symbol maps (core/perf_map.h): the line form, odd lines, ties and lookups at the edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/perf_map.h"

static void expect_name(const pk_perf_map *m, uint64_t address, const char *want)
{
    size_t len;
    const char *name = pk_perf_map_find(m, address, &len);
    if (!want) {
        if (name)
            fail_msg("0x%llx: named '%.*s', wanted none", (unsigned long long)address, (int)len,
                     name);
        return;
    }
    if (!name || len != strlen(want) || memcmp(name, want, len) != 0)
        fail_msg("0x%llx: named '%.*s', wanted '%s'", (unsigned long long)address,
                 name ? (int)len : 6, name ? name : "(none)", want);
}

static void names(void **state)
{
    (void)state;
    assert_true(pk_perf_map_is_name("perf-1234.map"));
    assert_false(pk_perf_map_is_name("perf-.map"));
    assert_false(pk_perf_map_is_name("perf-12a.map"));
    assert_false(pk_perf_map_is_name("perf-12.map.old"));
    assert_false(pk_perf_map_is_name("libperf-12.map"));
}

/* node's form (no 0x), the 0x form, blanks in names, CRLF, junk lines, a zero size. */
static void lines(void **state)
{
    (void)state;
    const char text[] = "3ef414c0 398 LazyCompile:~main /srv/app.js:1\n"
                        "0x1000 0x10 JS:*hot leaf\r\n"
                        "junk line\n"
                        "2000 zz not-hex-size\n"
                        "3000 8\n"
                        "\t 4000\t20\tStub:  padded  \n"
                        "5000 0 zero-sized\n"
                        "ffffffffffffffff0 1 too-long\n"
                        "6000 10 last line without end";
    pk_perf_map *m = pk_perf_map_parse(text, sizeof text - 1);
    assert_non_null(m);
    assert_int_equal(pk_perf_map_count(m), 5);
    expect_name(m, 0x3ef414c0, "LazyCompile:~main /srv/app.js:1");
    expect_name(m, 0x3ef414c0 + 0x397, "LazyCompile:~main /srv/app.js:1");
    expect_name(m, 0x3ef414c0 + 0x398, NULL);
    expect_name(m, 0x1000, "JS:*hot leaf");
    expect_name(m, 0x100f, "JS:*hot leaf");
    expect_name(m, 0x1010, NULL);
    expect_name(m, 0x0fff, NULL);
    expect_name(m, 0x2000, NULL);
    expect_name(m, 0x3000, NULL);
    expect_name(m, 0x4010, "Stub:  padded");
    expect_name(m, 0x5000, "zero-sized");
    expect_name(m, 0x5001, NULL);
    expect_name(m, 0x6005, "last line without end");
    pk_perf_map_free(m);
}

/* Code compiled again at one address: the later line names it. */
static void later_lines_win(void **state)
{
    (void)state;
    const char text[] = "1000 100 first\n2000 10 other\n1000 20 second\n";
    pk_perf_map *m = pk_perf_map_parse(text, sizeof text - 1);
    assert_non_null(m);
    assert_int_equal(pk_perf_map_count(m), 2);
    expect_name(m, 0x1010, "second");
    expect_name(m, 0x1050, NULL);
    expect_name(m, 0x2000, "other");
    pk_perf_map_free(m);
    m = pk_perf_map_parse("", 0);
    assert_non_null(m);
    expect_name(m, 0, NULL);
    pk_perf_map_free(m);
    assert_null(pk_perf_map_read("/nonexistent/perf-1.map"));
    assert_null(pk_perf_map_read("/"));
}

/* Every byte value and cut: no crash, every name found within the map. */
static void any_bytes(void **state)
{
    (void)state;
    unsigned char text[512];
    uint32_t seed = 12345;
    for (int round = 0; round < 200; round++) {
        for (size_t i = 0; i < sizeof text; i++) {
            seed = seed * 1103515245u + 12345u;
            const char alphabet[] = "0123456789abcdefx \t\n\r:Z";
            text[i] = (seed >> 16) % 7 == 0 ? (unsigned char)(seed >> 8)
                                            : (unsigned char)alphabet[(seed >> 16) % 24];
        }
        pk_perf_map *m = pk_perf_map_parse((const char *)text, sizeof text - (size_t)round);
        assert_non_null(m);
        for (uint64_t a = 0; a < 0x100; a += 7) {
            size_t len;
            const char *name = pk_perf_map_find(m, a, &len);
            assert_true(!name || len > 0);
        }
        pk_perf_map_free(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names),
        cmocka_unit_test(lines),
        cmocka_unit_test(later_lines_win),
        cmocka_unit_test(any_bytes),
    };
    return cmocka_run_group_tests_name("JIT symbol maps", tests, NULL, NULL);
}
