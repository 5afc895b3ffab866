/* SPDX-License-Identifier: MIT */
/* The mapped objects of a process (core/procmaps.h): the line forms Linux and the profilers
 * write, variables such as $build, odd and huge lines, any bytes; sorting, joining, lookups
 * and the program's mapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/input.h"
#include "core/procmaps.h"

static pk_procmaps_line_kind parse(const char *text, pk_procmaps_line *line)
{
    return pk_procmaps_parse_line(text, strlen(text), line);
}

static void assert_slice(const char *data, size_t len, const char *want)
{
    if (len != strlen(want) || memcmp(data, want, len) != 0)
        fail_msg("got '%.*s', want '%s'", (int)len, data, want);
}

/* Reads maps text (lines separated by LF) into m, finished. */
static void read_text(pk_procmaps *m, const char *text)
{
    pk_procmaps_init(m);
    pk_input in;
    pk_input_init_memory(&in, text, strlen(text));
    pk_error err;
    assert_int_equal(pk_procmaps_read(m, &in, &err), PK_OK);
}

static void linux_lines(void **state)
{
    (void)state;
    pk_procmaps_line l;
    assert_int_equal(parse("56414735e000-56414735f000 r-xp 00001000 fd:01 2894563    "
                           "/opt/gperf-demo/build/x86_64/demo", &l),
                     PK_PROCMAPS_MAPPING);
    assert_true(l.start == 0x56414735e000 && l.limit == 0x56414735f000);
    assert_true(l.offset == 0x1000);
    assert_string_equal(l.perms, "r-xp");
    assert_true(l.executable);
    assert_slice(l.path, l.path_len, "/opt/gperf-demo/build/x86_64/demo");
    assert_int_equal(l.build_id_len, 0);

    /* the path is the rest of the line, spaces included, without " (deleted)" */
    assert_int_equal(parse("7f0000000000-7f0000001000 r-xp 0 08:01 42 /tmp/my app (deleted)\r", &l),
                     PK_PROCMAPS_MAPPING);
    assert_slice(l.path, l.path_len, "/tmp/my app");
    /* anonymous memory, data, pseudo-files */
    assert_int_equal(parse("7ffc1000-7ffc2000 rw-p 00000000 00:00 0", &l), PK_PROCMAPS_MAPPING);
    assert_int_equal(l.path_len, 0);
    assert_false(l.executable);
    assert_int_equal(parse("ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  [vsyscall]",
                           &l),
                     PK_PROCMAPS_MAPPING);
    assert_true(l.executable);
    assert_slice(l.path, l.path_len, "[vsyscall]");
    /* what gperftools writes: rwxp and device 00:00 */
    assert_int_equal(parse("00400000-00401000 rwxp 00000000 00:00 0 /bin/x", &l),
                     PK_PROCMAPS_MAPPING);
    assert_slice(l.path, l.path_len, "/bin/x");
}

static void brief_lines(void **state)
{
    (void)state;
    pk_procmaps_line l;
    /* gperftools' cooked form */
    assert_int_equal(parse("400000-fcb000: /home/user/cppbench_server_main", &l),
                     PK_PROCMAPS_MAPPING);
    assert_true(l.start == 0x400000 && l.limit == 0xfcb000 && l.offset == 0);
    assert_string_equal(l.perms, "");
    assert_true(l.executable); /* no permissions: kept */
    assert_slice(l.path, l.path_len, "/home/user/cppbench_server_main");
    /* pprof's form with an offset and a build ID */
    assert_int_equal(parse("  7f00a000-7f00b000 r-xp /lib/libc.so.6 (@2000) ABCdef0123  ", &l),
                     PK_PROCMAPS_MAPPING);
    assert_true(l.offset == 0x2000);
    assert_slice(l.path, l.path_len, "/lib/libc.so.6");
    assert_slice(l.build_id, l.build_id_len, "ABCdef0123");
    /* a build ID without an offset; a bad offset is ignored */
    assert_int_equal(parse("1000-2000 /bin/y feedface", &l), PK_PROCMAPS_MAPPING);
    assert_slice(l.build_id, l.build_id_len, "feedface");
    assert_int_equal(parse("1000-2000 /bin/y (@zz) 12", &l), PK_PROCMAPS_MAPPING);
    assert_true(l.offset == 0);
    assert_slice(l.build_id, l.build_id_len, "12");
    /* a word after the path that is not hex is no build ID */
    assert_int_equal(parse("1000-2000 /bin/y extra", &l), PK_PROCMAPS_MAPPING);
    assert_int_equal(l.build_id_len, 0);
    assert_int_equal(parse("1000-2000", &l), PK_PROCMAPS_MAPPING);
    assert_int_equal(l.path_len, 0);
}

static void variable_lines(void **state)
{
    (void)state;
    pk_procmaps_line l;
    assert_int_equal(parse("build = /usr/lib/x86_64-linux-gnu ", &l), PK_PROCMAPS_VARIABLE);
    assert_slice(l.name, l.name_len, "build");
    assert_slice(l.value, l.value_len, "/usr/lib/x86_64-linux-gnu");
    assert_int_equal(parse("x_1=", &l), PK_PROCMAPS_VARIABLE);
    assert_int_equal(l.value_len, 0);
    /* the name is a word */
    assert_int_equal(parse("=value", &l), PK_PROCMAPS_OTHER);
    assert_int_equal(parse("a b=c", &l), PK_PROCMAPS_OTHER);
    assert_int_equal(parse("a-b=c", &l), PK_PROCMAPS_OTHER);
}

static void odd_lines_are_other(void **state)
{
    (void)state;
    const char *const lines[] = {
        "", "   ", "garbage", "-", "1000-", "-2000", "1000-2000x /bin/x", "10000000000000000-2 /x",
        "1000 2000 r-xp /bin/x", "g000-2000 /bin/x", "PROFILE: interrupts/evictions/bytes = 1/2/3",
        "I0101 12:00:00.000000 1 file.cc:12] not a mapping",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        pk_procmaps_line l;
        if (parse(lines[i], &l) != PK_PROCMAPS_OTHER)
            fail_msg("'%s' is not a line of maps text", lines[i]);
    }
    /* 16 hex digits are the most an address has */
    pk_procmaps_line l;
    assert_int_equal(parse("ffffffffffffffff-0 /x", &l), PK_PROCMAPS_MAPPING);
    assert_true(l.start == UINT64_MAX && l.limit == 0);
}

static void substitutions(void **state)
{
    (void)state;
    pk_procmaps m;
    read_text(&m, "build=/usr/lib/x86_64-linux-gnu\n"
                  "libs = $build\n"
                  "1000-2000 r-xp 00000000 08:01 1 $build/libc.so.6\n"
                  "3000-4000 r-xp 00000000 08:01 1 $buildx/a\n"
                  "5000-6000 r-xp 00000000 08:01 1 $undefined/b $build\n"
                  "build=/other\n"
                  "7000-8000 r-xp 00000000 08:01 1 $build/c\n"
                  "9000-a000 r-xp 00000000 08:01 1 $libs/d\n"
                  "self=$self$self\n"
                  "b000-c000 r-xp 00000000 08:01 1 $self\n");
    assert_int_equal(m.count, 6);
    assert_string_equal(m.items[0].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
    /* $NAME ends where a non-word character or the line does */
    assert_string_equal(m.items[1].path, "$buildx/a");
    assert_string_equal(m.items[2].path, "$undefined/b /usr/lib/x86_64-linux-gnu");
    /* a variable defined again takes its new value from then on */
    assert_string_equal(m.items[3].path, "/other/c");
    /* a value is what its line said once substituted, and is not searched again */
    assert_string_equal(m.items[4].path, "/usr/lib/x86_64-linux-gnu/d");
    assert_string_equal(m.items[5].path, "$self$self");
    pk_procmaps_free(&m);
}

static void huge_lines_are_ignored(void **state)
{
    (void)state;
    size_t n = PK_PROCMAPS_MAX_LINE + 100;
    char *line = malloc(n + 64);
    assert_non_null(line);
    /* a mapping line whose path makes it too long */
    memcpy(line, "1000-2000 /", 11);
    memset(line + 11, 'a', n - 11);
    pk_procmaps m;
    pk_procmaps_init(&m);
    assert_true(pk_procmaps_add_line(&m, line, n));
    assert_int_equal(m.count, 0);
    /* one that substitution makes too long: 2000 times a value of 100 bytes */
    char definition[128];
    memset(definition, 'v', sizeof definition);
    memcpy(definition, "v=", 2);
    assert_true(pk_procmaps_add_line(&m, definition, 102));
    memcpy(line, "3000-4000 /", 11);
    size_t len = 11;
    for (int i = 0; i < 2000; i++) {
        memcpy(line + len, "$v", 2);
        len += 2;
    }
    assert_true(pk_procmaps_add_line(&m, line, len));
    assert_int_equal(m.count, 0);
    /* and one that is long but fits */
    len = 11 + 600 * 2;
    assert_true(pk_procmaps_add_line(&m, line, len));
    assert_int_equal(m.count, 1);
    assert_int_equal(strlen(m.items[0].path), 1 + 600 * 100);
    pk_procmaps_free(&m);

    /* through an input: the over-long line is skipped, the next one read */
    char *text = malloc(n + 64);
    assert_non_null(text);
    memset(text, 'x', n);
    strcpy(text + n, "\n1000-2000 /bin/z\n");
    pk_procmaps_init(&m);
    pk_input in;
    pk_input_init_memory(&in, text, strlen(text));
    pk_error err;
    assert_int_equal(pk_procmaps_read(&m, &in, &err), PK_OK);
    assert_int_equal(m.count, 1);
    assert_string_equal(m.items[0].path, "/bin/z");
    assert_int_equal(m.items[0].line, 1);
    pk_procmaps_free(&m);
    free(text);
    free(line);
}

/* A small deterministic generator (xorshift). */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void any_bytes(void **state)
{
    (void)state;
    /* bytes drawn mostly from the characters of maps text, so that lines come close */
    static const char alphabet[] = "0123456789abcdefABCDEF-: =$_/()@[]rwxps\t\r\n\0\xff";
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    char text[512];
    for (int round = 0; round < 20000; round++) {
        size_t n = next_random(&seed) % sizeof text;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = next_random(&seed);
            text[i] = r % 8 == 0 ? (char)(r >> 8) : alphabet[(r >> 8) % (sizeof alphabet - 1)];
        }
        pk_procmaps_line l;
        pk_procmaps_line_kind kind = pk_procmaps_parse_line(text, n, &l);
        if (kind == PK_PROCMAPS_MAPPING) {
            assert_true(l.path >= text && l.path + l.path_len <= text + n);
            assert_true(l.build_id_len == 0 ||
                        (l.build_id >= text && l.build_id + l.build_id_len <= text + n));
        } else if (kind == PK_PROCMAPS_VARIABLE) {
            assert_true(l.name_len > 0 && l.value + l.value_len <= text + n);
        }
        pk_procmaps m;
        pk_procmaps_init(&m);
        pk_input in;
        pk_input_init_memory(&in, text, n);
        pk_error err;
        assert_int_equal(pk_procmaps_read(&m, &in, &err), PK_OK);
        for (size_t i = 0; i < m.count; i++) {
            assert_true(m.items[i].start < m.items[i].limit);
            assert_true(i == 0 || m.items[i - 1].start <= m.items[i].start);
            size_t found = pk_procmaps_find(&m, m.items[i].start);
            assert_true(found != PK_PROCMAPS_NONE);
        }
        pk_procmaps_program(&m);
        pk_procmaps_free(&m);
    }
}

static void mappings_sorted_joined_and_found(void **state)
{
    (void)state;
    pk_procmaps m;
    read_text(&m, "7f0000003000-7f0000004000 r-xp 00003000 08:01 7 /lib/libc.so.6\n"
                  "7f0000002000-7f0000003000 r-xp 00002000 08:01 7 /lib/libc.so.6\n"
                  "7f0000004000-7f0000005000 r-xp 00009000 08:01 7 /lib/libc.so.6\n"
                  "400000-401000 r--p 00000000 08:01 9 /bin/app\n"
                  "401000-402000 r-xp 00001000 08:01 9 /bin/app\n"
                  "500000-500000 r-xp 00000000 08:01 9 /bin/empty\n"
                  "600000-700000 r-xp 00000000 00:00 0\n"
                  "600000-601000 r-xp 00000000 00:00 0\n"
                  "700000-701000 r-xp 00100000 00:00 0\n"
                  "800000-900000 r-xp 00000000 00:00 0 [vdso]\n");
    /* data and empty mappings are left out; two contiguous pieces of libc are joined, the
     * third (offsets not contiguous) is not; anonymous memory is never joined */
    assert_int_equal(m.count, 7);
    assert_true(m.items[0].start == 0x401000);
    assert_string_equal(m.items[0].path, "/bin/app");
    assert_int_equal(m.items[0].line, 4);
    assert_true(m.items[1].start == 0x600000 && m.items[1].limit == 0x700000);
    assert_true(m.items[2].start == 0x600000 && m.items[2].limit == 0x601000);
    assert_true(m.items[3].start == 0x700000 && m.items[3].limit == 0x701000);
    size_t libc = 5;
    assert_true(m.items[libc].start == 0x7f0000002000 && m.items[libc].limit == 0x7f0000004000);
    assert_true(m.items[libc].offset == 0x2000);
    assert_true(m.items[libc + 1].offset == 0x9000);

    assert_int_equal(pk_procmaps_find(&m, 0x401000), 0);
    assert_int_equal(pk_procmaps_find(&m, 0x401fff), 0);
    assert_int_equal(pk_procmaps_find(&m, 0x402000), PK_PROCMAPS_NONE);
    assert_int_equal(pk_procmaps_find(&m, 0x3fffff), PK_PROCMAPS_NONE);
    /* overlapping ranges: the later start that still holds the address */
    assert_int_equal(pk_procmaps_find(&m, 0x600800), 2);
    assert_int_equal(pk_procmaps_find(&m, 0x680000), 1);
    assert_int_equal(pk_procmaps_find(&m, 0x700800), 3);
    assert_int_equal(pk_procmaps_find(&m, 0x7f0000003fff), libc);
    assert_int_equal(pk_procmaps_find(&m, UINT64_MAX), PK_PROCMAPS_NONE);
    assert_string_equal(pk_procmaps_program(&m)->path, "/bin/app");
    pk_procmaps_free(&m);

    pk_procmaps empty;
    read_text(&empty, "");
    assert_int_equal(pk_procmaps_find(&empty, 0x1000), PK_PROCMAPS_NONE);
    assert_null(pk_procmaps_program(&empty));
    pk_procmaps_free(&empty);
}

static void program_is_the_first_file_that_is_not_a_library(void **state)
{
    (void)state;
    pk_procmaps m;
    read_text(&m, "1000-2000 r-xp 0 00:00 0 [vdso]\n"
                  "900000-901000 r-xp 0 08:01 1 /usr/lib/libm.so.6\n"
                  "800000-801000 r-xp 0 08:01 1 /opt/lib/libplugin.so\n"
                  "a00000-a01000 r-xp 0 08:01 1 /opt/bin/solver.solo\n"
                  "700000-701000 r-xp 0 08:01 1 /opt/bin/second\n");
    /* first in the text, not lowest in memory; ".solo" is no ".so" */
    assert_string_equal(pk_procmaps_program(&m)->path, "/opt/bin/solver.solo");
    pk_procmaps_free(&m);
    read_text(&m, "1000-2000 r-xp 0 08:01 1 C:\\Program Files\\app\\lib.so.1\n"
                  "3000-4000 r-xp 0 08:01 1 C:\\Program Files\\app\\app.exe\n");
    assert_string_equal(pk_procmaps_program(&m)->path, "C:\\Program Files\\app\\app.exe");
    pk_procmaps_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(linux_lines),
        cmocka_unit_test(brief_lines),
        cmocka_unit_test(variable_lines),
        cmocka_unit_test(odd_lines_are_other),
        cmocka_unit_test(substitutions),
        cmocka_unit_test(huge_lines_are_ignored),
        cmocka_unit_test(any_bytes),
        cmocka_unit_test(mappings_sorted_joined_and_found),
        cmocka_unit_test(program_is_the_first_file_that_is_not_a_library),
    };
    return cmocka_run_group_tests_name("procmaps", tests, NULL, NULL);
}
