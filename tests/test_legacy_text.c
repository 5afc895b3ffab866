/* SPDX-License-Identifier: MIT */
/* pprof's legacy text profiles: gperftools and jemalloc heap profiles recorded by the real
 * allocators (tests/data/legacy_text/), contention and thread listings in pprof's shapes; the
 * lines taken apart, the values as pprof makes them, cut and damaged files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixtures.h"
#include "reading.h"
#include "core/memory_values.h"
#include "formats/formats.h"
#include "formats/legacy_text/legacy_text.h"
#include "profkit/format.h"
#include "profkit/profile.h"

static const pk_format *const FMT = &pk_format_legacy_text;
static const pk_option no_symbols = {"no-symbols", ""};

static int64_t total(const pk_profile *p, const char *name)
{
    uint32_t v = pk_value_find(p, name);
    assert_int_not_equal(v, PK_NONE);
    return pk_value_total(p, v);
}

static void headers_are_recognised(void **state)
{
    (void)state;
    lt_header h = lt_parse_header("heap profile:    102:  1176666 [  1102:  5272666] @ heapprofile",
                                  63);
    assert_int_equal(h.kind, LT_HEAP);
    assert_int_equal(h.sampling, LT_SAMPLING_NONE);
    assert_true(h.has_alloc);
    const char *v2 = "heap profile: 1: 2 [ 1: 2] @ heap_v2/524288";
    h = lt_parse_header(v2, strlen(v2));
    assert_int_equal(h.kind, LT_HEAP);
    assert_int_equal(h.sampling, LT_SAMPLING_V2);
    assert_int_equal(h.rate, 524288);
    assert_false(h.has_alloc); /* the pairs are the same: pprof keeps in-use values only */
    const char *old = "heap profile: 1: 2 [ 0: 0] @ heap/1048576";
    h = lt_parse_header(old, strlen(old));
    assert_int_equal(h.rate, 524288); /* pprof halves the old format's period */
    const char *growth = "heap profile: 9: 9437184 [ 9: 9437184] @ growth";
    assert_int_equal(lt_parse_header(growth, strlen(growth)).kind, LT_GROWTH);
    assert_int_equal(lt_parse_header("heap_v2/4096", 12).kind, LT_JEMALLOC);
    assert_int_equal(lt_parse_header("heap_v2/x", 9).kind, LT_NONE);
    assert_int_equal(lt_parse_header("--- contention ---", 18).kind, LT_CONTENTION);
    assert_int_equal(lt_parse_header("--- threadz 1 ---", 17).kind, LT_THREADZ);
    const char *thread = "--- Thread 7f79 (name: io/pool/25380) stack: ---";
    const char *name;
    size_t name_len;
    int64_t tid;
    assert_true(lt_parse_thread_header(thread, strlen(thread), &name, &name_len, &tid));
    assert_int_equal(name_len, 7);
    assert_memory_equal(name, "io/pool", 7);
    assert_int_equal(tid, 25380);
    assert_int_equal(lt_parse_header("heap profile: x", 15).kind, LT_NONE);
    assert_int_equal(lt_probe((const uint8_t *)"# c\n\nheap_v2/1\n", 15), 95);
    assert_int_equal(lt_probe((const uint8_t *)"hello\n", 6), PK_PROBE_NO);
}

static void lines_are_taken_apart(void **state)
{
    (void)state;
    const char *line = "  60:     7770 [    60:     7770] @ 0x5568b00b4191 0x1";
    const char *at = line, *end = line + strlen(line);
    lt_pairs pairs;
    assert_null(lt_parse_pairs(&at, end, &pairs));
    assert_int_equal(pairs.inuse_count, 60);
    assert_int_equal(pairs.alloc_bytes, 7770);
    uint64_t addresses[4];
    size_t count;
    assert_null(lt_parse_stack(at, end, addresses, 4, &count));
    assert_int_equal(count, 2);
    assert_int_equal(addresses[0], 0x5568b00b4191u);
    static const char *const bad[] = {"@ 0x1 zz", "0x1", "@ 0x11112222333344445", "@ 0x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_non_null(lt_parse_stack(bad[i], bad[i] + strlen(bad[i]), addresses, 4, &count));
    const char *two = "@ 0x1 0x2";
    assert_non_null(lt_parse_stack(two, two + strlen(two), addresses, 1, &count));
    const char *big = "99999999999999999999: 1 [1: 1] @ 0x1";
    at = big;
    assert_non_null(lt_parse_pairs(&at, big + strlen(big), &pairs));
}

/* pprof's numbers for the 129.5-byte blocks of tcmalloc-heap_v2-edited.heap at 4096 bytes per
 * sample (go tool pprof -raw: 1927 objects, 249665 bytes). */
static void unsampling_is_pprofs(void **state)
{
    (void)state;
    int64_t count = 60, bytes = 7770;
    lt_unsample(&count, &bytes, 4096);
    assert_int_equal(count, 1927);
    assert_int_equal(bytes, 249665);
    count = 3, bytes = 300;
    lt_unsample(&count, &bytes, 1);
    assert_int_equal(count, 3);
    count = 0, bytes = 0;
    lt_unsample(&count, &bytes, 4096);
    assert_int_equal(bytes, 0);
}

static void tcmalloc_heapprofile_is_read(void **state)
{
    (void)state;
    pk_profile *p = tb_read_data_ok(FMT, "legacy_text/tcmalloc-heapprofile.heap");
    /* The header's totals are the lines' sums: nothing sampled. */
    assert_int_equal(total(p, PK_MEMORY_ALLOC_OBJECTS), 1102);
    assert_int_equal(total(p, PK_MEMORY_ALLOC_SPACE), 5272666);
    assert_int_equal(total(p, PK_MEMORY_INUSE_OBJECTS), 102);
    assert_int_equal(total(p, PK_MEMORY_INUSE_SPACE), 1176666);
    assert_int_equal(pk_default_value(p), pk_value_find(p, PK_MEMORY_INUSE_SPACE));
    assert_int_equal(pk_thread_count(p), 1);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "leak");
    assert_true(pk_resource_count(p) > 0);
    /* Every frame has its address, less one, and is in the program's or a library's mapping. */
    for (size_t f = 0; f < pk_frame_count(p); f++)
        assert_int_not_equal(pk_frame_at(p, (uint32_t)f)->resource, PK_NONE);
    pk_profile_free(p);
}

static void jemalloc_threads_and_sampling(void **state)
{
    (void)state;
    pk_profile *p = tb_read_data_ok(FMT, "legacy_text/jemalloc-exact.heap");
    /* heap_v2/1: every allocation; the totals are the first "t*:" line's. */
    assert_int_equal(total(p, PK_MEMORY_ALLOC_OBJECTS), 1103);
    assert_int_equal(total(p, PK_MEMORY_ALLOC_SPACE), 5358160);
    assert_int_equal(total(p, PK_MEMORY_INUSE_OBJECTS), 103);
    assert_int_equal(total(p, PK_MEMORY_INUSE_SPACE), 1262160);
    assert_int_equal(pk_thread_count(p), 2);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "thread 0");
    assert_string_equal(pk_str(p, pk_thread_at(p, 1)->name), "thread 1");
    pk_profile_free(p);
    p = tb_read_data_ok(FMT, "legacy_text/jemalloc-sampled.heap");
    /* heap_v2/4096: unsampled, so more than the 121 objects its "t*:" line sampled. */
    assert_true(total(p, PK_MEMORY_INUSE_OBJECTS) > 121);
    assert_true(total(p, PK_MEMORY_ALLOC_SPACE) >= total(p, PK_MEMORY_INUSE_SPACE));
    pk_profile_free(p);
}

static void contention_and_threads(void **state)
{
    (void)state;
    pk_profile *p = tb_read_data_ok(FMT, "legacy_text/contention.txt");
    /* 15 contentions x period 100; delays 3.5e6 cycles x 100 / 2 GHz = 175 ms. */
    assert_int_equal(total(p, "contentions"), 1500);
    assert_int_equal(total(p, "delay"), 175000000);
    assert_int_equal(pk_metadata_of(p)->period, 100);
    pk_profile_free(p);
    p = tb_read_data_ok(FMT, "legacy_text/threadz.txt");
    assert_int_equal(total(p, "thread"), 3);
    assert_int_equal(pk_thread_count(p), 3);
    assert_string_equal(pk_str(p, pk_thread_at(p, 2)->name), "io/thread");
    assert_int_equal(pk_thread_at(p, 2)->tid, 25380);
    /* "same as previous thread": worker has main's stack. */
    assert_int_equal(pk_sample_stack(p, 0), pk_sample_stack(p, 1));
    pk_profile_free(p);
}

static pk_profile *read_bytes(const char *data, size_t size, bool salvage, pk_status *status,
                              pk_error *err)
{
    return tb_read_memory_with(data, size, FMT, &no_symbols, 1, salvage, status, err);
}

/* A file cut anywhere reads what is complete with a warning, or is an error with its offset;
 * never more than the whole file. */
static void cut_files_read_what_is_complete(void **state)
{
    (void)state;
    static const char *const files[] = {
        "legacy_text/tcmalloc-heapprofile.heap", "legacy_text/jemalloc-sampled.heap",
        "legacy_text/contention.txt", "legacy_text/threadz.txt"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t size;
        char *data = tb_read_data_file(files[f], &size);
        pk_status status;
        pk_error err;
        pk_profile *whole = read_bytes(data, size, false, &status, &err);
        assert_non_null(whole);
        uint32_t v = pk_default_value(whole);
        int64_t whole_total = pk_value_total(whole, v);
        for (size_t cut = 1; cut < size; cut += 7) {
            pk_profile *p = read_bytes(data, cut, false, &status, &err);
            if (!p) {
                assert_int_equal(status, PK_ERR_INPUT);
                continue;
            }
            assert_true(pk_value_total(p, v) <= whole_total);
            pk_profile_free(p);
        }
        pk_profile_free(whole);
        free(data);
    }
    /* Cut inside a sample line: the line is left out, with a warning naming it. */
    const char *text = "heap profile: 2: 20 [ 2: 20] @ heapprofile\n"
                       "1: 10 [ 1: 10] @ 0x10 0x20\n"
                       "1: 10 [ 1: 10] @ 0x10 0x2";
    pk_status status;
    pk_error err;
    pk_profile *p = read_bytes(text, strlen(text), false, &status, &err);
    assert_non_null(p);
    assert_int_equal(total(p, PK_MEMORY_INUSE_SPACE), 10);
    assert_true(tb_has_warning(p, "line 3 ends without a line end"));
    assert_true(tb_has_warning(p, "no MAPPED_LIBRARIES"));
    pk_profile_free(p);
}

static void damage_names_its_line(void **state)
{
    (void)state;
    const char *text = "heap profile: 2: 20 [ 2: 20] @ heapprofile\n"
                       "1: 10 [ 1: 10] @ 0x10 0x20\n"
                       "1: 10 [ 1: 10] @ 0x10 junk\n"
                       "1: 10 [ 1: 10] @ 0x10 0x30\n";
    pk_status status;
    pk_error err;
    pk_profile *p = read_bytes(text, strlen(text), false, &status, &err);
    assert_null(p);
    assert_int_equal(status, PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "line 3"));
    assert_int_equal(err.offset, (int64_t)strlen("heap profile: 2: 20 [ 2: 20] @ heapprofile\n"
                                                 "1: 10 [ 1: 10] @ 0x10 0x20\n"));
    /* With salvage the lines before it stand. */
    p = read_bytes(text, strlen(text), true, &status, &err);
    assert_non_null(p);
    assert_int_equal(total(p, PK_MEMORY_INUSE_SPACE), 10);
    pk_profile_free(p);
    const char *zero = "heap profile: 0: 5 [0: 5] @ heapprofile\n0: 5 [ 0: 5] @ 0x10\n";
    assert_null(read_bytes(zero, strlen(zero), false, &status, &err));
    assert_non_null(strstr(err.message, "count is 0"));
    const char *none = "hello\n";
    assert_null(read_bytes(none, strlen(none), false, &status, &err));
    assert_non_null(strstr(err.message, "not a legacy text profile"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(headers_are_recognised),
        cmocka_unit_test(lines_are_taken_apart),
        cmocka_unit_test(unsampling_is_pprofs),
        cmocka_unit_test(tcmalloc_heapprofile_is_read),
        cmocka_unit_test(jemalloc_threads_and_sampling),
        cmocka_unit_test(contention_and_threads),
        cmocka_unit_test(cut_files_read_what_is_complete),
        cmocka_unit_test(damage_names_its_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
