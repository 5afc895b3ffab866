/* SPDX-License-Identifier: MIT */
/* heaptrack recordings: a line's fields taken apart, the probe, each stack's peak as heaptrack
 * computes it (its bytes at the first moment the heap is at its largest, with O(1) work per
 * event), temporary allocations with heaptrack's rule, and small recordings read whole: frames
 * inlined, operator new left out, damage named by its line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "formats/formats.h"
#include "formats/heaptrack/heaptrack.h"
#include "profkit/format.h"
#include "profkit/profile.h"

static void hex_fields(void **state)
{
    (void)state;
    uint64_t v[4];
    size_t n = 9;
    const char *line = " 7f3c567bfa1d 8 e d 4a";
    assert_null(ht_parse_hex(line, line + strlen(line), v, 4, &n));
    assert_int_equal(n, 4);
    assert_true(v[0] == 0x7f3c567bfa1dull && v[1] == 8 && v[2] == 14 && v[3] == 13);
    line = " 12 x3";
    assert_non_null(ht_parse_hex(line, line + strlen(line), v, 4, &n));
    line = " 10000000000000000";
    assert_non_null(ht_parse_hex(line, line + strlen(line), v, 4, &n));
    line = "";
    assert_null(ht_parse_hex(line, line, v, 4, &n));
    assert_int_equal(n, 0);
}

static void strings(void **state)
{
    (void)state;
    const char *text;
    size_t len;
    const char *line = "s 9 main(int) x";
    assert_null(ht_parse_string(line, strlen(line), true, &text, &len));
    assert_int_equal(len, 9);
    assert_memory_equal(text, "main(int)", 9);
    line = "s 20 short";
    assert_non_null(ht_parse_string(line, strlen(line), true, &text, &len));
    line = "s operator new(unsigned long)";
    assert_null(ht_parse_string(line, strlen(line), false, &text, &len));
    assert_int_equal(len, strlen("operator new(unsigned long)"));
}

static void probe(void **state)
{
    (void)state;
    const char *rec = "v 10400 3\nX ./prog\n";
    assert_int_equal(ht_probe((const uint8_t *)rec, strlen(rec)), PK_PROBE_CERTAIN);
    const char *other = "v 1.2\nX\n";
    assert_int_equal(ht_probe((const uint8_t *)other, strlen(other)), PK_PROBE_NO);
    const char *massif = "desc: (none)\n";
    assert_int_equal(ht_probe((const uint8_t *)massif, strlen(massif)), PK_PROBE_NO);
}

/* Info a peaks later on its own, but the global peak is while b holds most. */
static void peak_at_the_global_peak(void **state)
{
    (void)state;
    ht_costs c = {0};
    ht_counts a = {0}, b = {0};
    ht_costs_allocate(&c, &a, 1, 100, 0);
    ht_costs_allocate(&c, &a, 1, 100, 0);
    ht_costs_free(&c, &a, 1, 100);
    for (int i = 0; i < 4; i++)
        ht_costs_allocate(&c, &b, 2, 100, 5); /* the peak: a 1 block, b 4 */
    for (int i = 0; i < 4; i++)
        ht_costs_free(&c, &b, 2, 100);
    for (int i = 0; i < 3; i++)
        ht_costs_allocate(&c, &a, 1, 100, 9); /* a 4 blocks: less than the peak of 5 */
    assert_int_equal(c.peak_bytes, 500);
    assert_int_equal(c.peak_time, 5);
    assert_int_equal(ht_peak_live(&c, &a), 1);
    assert_int_equal(ht_peak_live(&c, &b), 4);
    assert_int_equal(a.live, 4);
    assert_int_equal(a.allocations, 5);
    assert_int_equal(c.allocations, 9);
}

static void temporaries(void **state)
{
    (void)state;
    ht_costs c = {0};
    ht_counts s = {0};
    ht_costs_allocate(&c, &s, 3, 10, 0);
    ht_costs_free(&c, &s, 3, 10); /* right after its allocation: temporary */
    ht_costs_allocate(&c, &s, 3, 10, 0);
    ht_costs_allocate(&c, &s, 4, 10, 0);
    ht_costs_free(&c, &s, 3, 10); /* another allocation came between */
    ht_costs_free(&c, &s, 4, 10); /* a free came between */
    assert_int_equal(c.temporary, 1);
    assert_int_equal(s.temporary, 1);
    /* heaptrack's rule compares info indexes, 0 after a free: a free of info 0 then counts */
    ht_costs_free(&c, &s, 0, 0);
    assert_int_equal(c.temporary, 2);
}

static const char recording[] =
    "v 10400 3\n"
    "X ./prog --flag\n"
    "I 1000 5e298d\n"
    "s 6 ./prog\n"
    "s 4 main\n"
    "s 6 prog.c\n"
    "s 6 helper\n"
    "s 1b operator new(unsigned long)\n"
    "i 1000 1 2 3 a\n"            /* ip 1: main at prog.c:10 */
    "i 1010 1 4 3 14 2 3 b\n"     /* ip 2: helper (prog.c:20) inlined into main (prog.c:11) */
    "i 1020 1 5\n"                /* ip 3: operator new, no file */
    "t 1 0\n"                     /* trace 1: main */
    "t 2 1\n"                     /* trace 2: main > main > helper */
    "t 3 2\n"                     /* trace 3: operator new: trace 2's stack */
    "a 64 2\n"                    /* info 0: 100 B at trace 2 */
    "a 10 3\n"                    /* info 1: 16 B at trace 3 */
    "+ 0\n"
    "+ 1\n"
    "c 5\n"
    "- 1\n"
    "+ 0\n"
    "R 10\n"
    "# a comment\n"
    "c 9\n";

static pk_profile *read_text(const char *text, size_t size, bool salvage, pk_status *status,
                             pk_error *err)
{
    pk_read_options options = {.salvage = salvage};
    pk_profile *p = NULL;
    *status = pk_read_memory(text, size, NULL, &options, &p, err);
    return p;
}

static int64_t total(const pk_profile *p, const char *name)
{
    uint32_t v = pk_value_find(p, name);
    assert_int_not_equal(v, PK_NONE);
    return pk_value_total(p, v);
}

static void reads_a_recording(void **state)
{
    (void)state;
    pk_error err;
    pk_status st;
    pk_profile *p = read_text(recording, sizeof recording - 1, false, &st, &err);
    assert_int_equal(st, PK_OK);
    assert_string_equal(pk_format_probe((const uint8_t *)recording, sizeof recording - 1, NULL,
                                        NULL)->name, "heaptrack");
    assert_int_equal(total(p, "alloc_objects"), 3);
    assert_int_equal(total(p, "alloc_space"), 216);
    assert_int_equal(total(p, "inuse_objects"), 2);
    assert_int_equal(total(p, "inuse_space"), 200);
    assert_int_equal(total(p, "peak_space"), 200);
    assert_int_equal(total(p, "temporary_objects"), 1);
    /* one row: operator new's trace is its caller's */
    assert_int_equal(pk_sample_count(p), 1);
    uint32_t frames[8];
    size_t depth = pk_stack_frames(p, pk_sample_stack(p, 0), frames, 8);
    assert_int_equal(depth, 3);
    assert_string_equal(pk_frame_name(p, frames[0]), "main");
    assert_string_equal(pk_frame_name(p, frames[1]), "main");
    assert_string_equal(pk_frame_name(p, frames[2]), "helper");
    assert_int_equal(pk_frame_at(p, frames[1])->line, 11);
    assert_int_equal(pk_frame_at(p, frames[2])->line, 20);
    assert_true(pk_frame_at(p, frames[2])->flags & PK_FRAME_INLINED);
    assert_false(pk_frame_at(p, frames[1])->flags & PK_FRAME_INLINED);
    assert_string_equal(pk_property_get(p, "heaptrack.peak_rss_B"), "65536");
    assert_string_equal(pk_property_get(p, "heaptrack.runtime_ms"), "9");
    assert_string_equal(pk_property_get(p, "heaptrack.command"), "./prog --flag");
    pk_profile_free(p);
}

static void damage_is_named_by_line(void **state)
{
    (void)state;
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"v 10400 3\nt 1 0\n", "line 2 names an instruction pointer not read before it"},
        {"v 10400 3\ns 1 x\ni 1 9\n", "line 3 names a module past the strings read so far"},
        {"v 10400 3\na 10 1\n", "line 2 names a trace not read before it"},
        {"v 10400 3\n+ 0\n", "line 2 names an allocation info not read before it"},
        {"v 10400 3\n+ zz\n", "line 2 has a field that is not a hexadecimal number"},
        {"v 10400 9\n", "newer than profkit reads"},
        {"v 10400 0\ns x\ni 1 1\nt 1 0\na 1 1\n+ 0\n", "file format 0"},
        {"v 10400 3\nX a\nX b\n", "line 3 names the debuggee a second time"},
        {"v 10400 3\ns 1 x\n+ 0", "line 3 is cut short (no line end)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_error err;
        pk_status st;
        pk_read_options options = {0};
        pk_profile *p = NULL;
        st = pk_read_memory(cases[i].text, strlen(cases[i].text), &pk_format_heaptrack,
                            &options, &p, &err);
        assert_int_equal(st, PK_ERR_INPUT);
        assert_null(p);
        if (!strstr(err.message, cases[i].message))
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.message, cases[i].message);
    }
}

static void salvage_keeps_what_came_before(void **state)
{
    (void)state;
    char text[sizeof recording + 16];
    memcpy(text, recording, sizeof recording - 1);
    memcpy(text + sizeof recording - 1, "- 7\n", 4);
    pk_error err;
    pk_status st;
    pk_profile *p = read_text(text, sizeof recording + 3, true, &st, &err);
    assert_int_equal(st, PK_OK);
    assert_int_equal(total(p, "alloc_objects"), 3);
    assert_int_equal(pk_warning_count(p), 1);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hex_fields),
        cmocka_unit_test(strings),
        cmocka_unit_test(probe),
        cmocka_unit_test(peak_at_the_global_peak),
        cmocka_unit_test(temporaries),
        cmocka_unit_test(reads_a_recording),
        cmocka_unit_test(damage_is_named_by_line),
        cmocka_unit_test(salvage_keeps_what_came_before),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
