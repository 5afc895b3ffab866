/* SPDX-License-Identifier: MIT */
/* gperftools CPU profiles: fixtures built slot by slot from the format document, every
 * truncation point, damage, the reference files (real, variants, edge cases, pprof's test data
 * and goldens), the writer's round trips, the record dump, and C++ names demangled from symbol
 * tables. A real program built with libprofiler is profiled by test_gperftools_symbols.c (symbols
 * found by profkit) and interop_gperftools_pprof.c (against google-pprof, go tool pprof and
 * addr2line). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bytes.h"
#include "fixtures.h"
#include "reading.h"
#include "core/input.h"
#include "core/output.h"
#include "core/profile_internal.h"
#include "core/symbolize.h"
#include "formats/formats.h"
#include "formats/gperftools/java_symbols.h"
#include "profkit/format.h"
#include "profkit/profile.h"

static const pk_format *const FMT = &pk_format_gperftools;

/* ---- fixtures ------------------------------------------------------------------------------- */

typedef struct layout {
    unsigned word;
    bool big;
} layout;

static const layout LE64 = {8, false}, BE64 = {8, true}, LE32 = {4, false}, BE32 = {4, true};

static void slot(tb_bytes *b, layout l, uint64_t v)
{
    if (l.word == 8)
        l.big ? tb_u64be(b, v) : tb_u64le(b, v);
    else
        l.big ? tb_u32be(b, (uint32_t)v) : tb_u32le(b, (uint32_t)v);
}

/* Header as the document shows it: 0, 3, 0, period, 0. */
static void header(tb_bytes *b, layout l, uint64_t period)
{
    slot(b, l, 0);
    slot(b, l, 3);
    slot(b, l, 0);
    slot(b, l, period);
    slot(b, l, 0);
}

static void record(tb_bytes *b, layout l, uint64_t count, size_t depth, const uint64_t *pcs)
{
    slot(b, l, count);
    slot(b, l, depth);
    for (size_t i = 0; i < depth; i++)
        slot(b, l, pcs[i]);
}

static void trailer(tb_bytes *b, layout l)
{
    slot(b, l, 0);
    slot(b, l, 1);
    slot(b, l, 0);
}

/* The document's example: 5 ticks at 0xa0000 called from 0xc0000 called from 0xe0000, inside
 * the example mapping line of ld.so (shifted to cover the PCs). */
static const uint64_t DOC_PCS[3] = {0xa0000, 0xc0000, 0xe0000};
static const char DOC_MAPS[] = "00080000-00100000 r-xp 00000000 03:01 12845071 /lib/ld-2.3.2.so\n";

static void doc_example(tb_bytes *b, layout l)
{
    header(b, l, 10000);
    record(b, l, 5, 3, DOC_PCS);
    trailer(b, l);
    tb_str(b, DOC_MAPS);
}

static pk_option no_symbols_option[] = {{"no-symbols", ""}};

static pk_profile *read_with(const void *data, size_t size, bool symbols, bool salvage,
                             pk_status *status, pk_error *err)
{
    pk_error local;
    return tb_read_memory_with(data, size, FMT, no_symbols_option, symbols ? 0 : 1, salvage,
                               status, err ? err : &local);
}

static pk_profile *read_ok(const tb_bytes *b)
{
    pk_status status;
    pk_error err;
    pk_profile *p = read_with(b->data, b->len, false, false, &status, &err);
    if (status != PK_OK)
        fail_msg("read failed: %s (byte %lld)", err.message, (long long)err.offset);
    return p;
}

static pk_profile *read_file_with(const char *path, const pk_option *options, size_t count,
                                  pk_status *status, pk_error *err)
{
    return tb_read_file_with(path, FMT, options, count, status, err);
}

static const char *data_path(const char *name)
{
    char relative[512];
    snprintf(relative, sizeof relative, "gperftools/%s", name);
    return tb_data_path(relative);
}

static pk_profile *read_reference(const char *name, bool symbols)
{
    pk_status status;
    pk_error err;
    pk_profile *p = read_file_with(data_path(name), no_symbols_option, symbols ? 0 : 1, &status,
                                   &err);
    if (!p)
        fail_msg("%s: %s (byte %lld)", name, err.message, (long long)err.offset);
    return p;
}

static bool has_warning(const pk_profile *p, const char *needle)
{
    return tb_has_warning(p, needle);
}

/* Addresses of a row's stack, root first. */
static size_t row_addresses(const pk_profile *p, size_t row, uint64_t *out, size_t cap)
{
    uint32_t frames[512];
    size_t depth = pk_stack_frames(p, pk_sample_stack(p, row), frames, 512);
    assert_true(depth <= 512 && depth <= cap);
    for (size_t i = 0; i < depth; i++)
        out[i] = pk_frame_at(p, frames[i])->address;
    return depth;
}

/* ---- reading the document's fixtures ------------------------------------------------------------ */

static void check_doc_profile(const pk_profile *p)
{
    assert_int_equal(pk_value_type_count(p), 2);
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->name), "samples");
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->unit), "count");
    assert_string_equal(pk_str(p, pk_value_type_at(p, 1)->name), "cpu");
    assert_string_equal(pk_str(p, pk_value_type_at(p, 1)->unit), "nanoseconds");
    assert_int_equal(pk_default_value(p), 0);
    const pk_metadata *m = pk_metadata_get(p);
    assert_int_equal(m->period, 10000000);
    assert_string_equal(pk_str(p, m->period_type), "cpu");
    assert_string_equal(pk_str(p, m->period_unit), "nanoseconds");
    assert_int_equal(pk_thread_count(p), 1);
    assert_int_equal(pk_sample_count(p), 1);
    assert_int_equal(pk_value_total(p, 0), 5);
    assert_int_equal(pk_value_total(p, 1), 5LL * 10000 * 1000);
    uint64_t a[8];
    assert_int_equal(row_addresses(p, 0, a, 8), 3);
    /* Root first; callers are looked up one byte into their call. */
    assert_int_equal(a[0], 0xe0000 - 1);
    assert_int_equal(a[1], 0xc0000 - 1);
    assert_int_equal(a[2], 0xa0000);
    uint32_t frames[3];
    pk_stack_frames(p, pk_sample_stack(p, 0), frames, 3);
    for (int i = 0; i < 3; i++) {
        const pk_frame *f = pk_frame_at(p, frames[i]);
        assert_true(f->flags & PK_FRAME_HAS_ADDRESS);
        assert_int_not_equal(f->resource, PK_NONE);
        const pk_resource *r = pk_resource_at(p, f->resource);
        assert_string_equal(pk_str(p, r->name), "ld-2.3.2.so");
        assert_string_equal(pk_str(p, r->path), "/lib/ld-2.3.2.so");
        assert_int_equal(r->start, 0x80000);
        assert_int_equal(r->limit, 0x100000);
        assert_int_equal(r->offset, 0);
    }
    assert_string_equal(pk_frame_name(p, frames[2]), "0xa0000");
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "process");
}

static void reads_document_example_in_every_layout(void **state)
{
    (void)state;
    const layout layouts[] = {LE64, BE64, LE32, BE32};
    for (size_t i = 0; i < 4; i++) {
        tb_bytes b = {0};
        doc_example(&b, layouts[i]);
        pk_profile *p = read_ok(&b);
        check_doc_profile(p);
        char bits[8];
        snprintf(bits, sizeof bits, "%u", layouts[i].word * 8);
        assert_string_equal(pk_property_get(p, "gperftools.word_bits"), bits);
        assert_string_equal(pk_property_get(p, "gperftools.byte_order"),
                            layouts[i].big ? "big" : "little");
        assert_int_equal(pk_warning_count(p), 0);
        pk_profile_free(p);
        tb_free(&b);
    }
}

static void header_words_match_the_document_table(void **state)
{
    (void)state;
    /* "64-bit LE (4-byte words in file)": 0x00000 0x00000 | 0x00003 0x00000 | ... */
    tb_bytes b = {0};
    header(&b, LE64, 10000);
    const uint32_t words[10] = {0, 0, 3, 0, 0, 0, 0x2710, 0, 0, 0};
    assert_int_equal(b.len, sizeof words);
    for (int i = 0; i < 10; i++) {
        uint32_t w;
        memcpy(&w, b.data + 4 * i, 4);
        assert_int_equal(w, words[i]);
    }
    tb_free(&b);
}

static void probes_by_header_words(void **state)
{
    (void)state;
    const layout layouts[] = {LE64, BE64, LE32, BE32};
    for (size_t i = 0; i < 4; i++) {
        tb_bytes b = {0};
        doc_example(&b, layouts[i]);
        assert_true(FMT->probe(b.data, b.len) >= PK_PROBE_LIKELY);
        tb_free(&b);
    }
    tb_bytes b = {0};
    tb_str(&b, "00400000-00401000 r-xp 00000000 00:00 0 /bin/x\n");
    assert_int_equal(FMT->probe(b.data, b.len), PK_PROBE_NO);
    tb_free(&b);
    assert_int_equal(FMT->probe((const uint8_t *)"", 0), PK_PROBE_NO);
    /* A longer header is still this format, with less certainty. */
    slot(&b, LE64, 0);
    slot(&b, LE64, 4);
    slot(&b, LE64, 0);
    slot(&b, LE64, 100);
    slot(&b, LE64, 0);
    slot(&b, LE64, 0);
    int score = FMT->probe(b.data, b.len);
    assert_true(score > PK_PROBE_NO && score < PK_PROBE_LIKELY);
    tb_free(&b);
    /* All zeros: slot 1 is not >= 3. */
    uint8_t zeros[64] = {0};
    assert_int_equal(FMT->probe(zeros, sizeof zeros), PK_PROBE_NO);
}

static void identical_stacks_are_summed(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header(&b, LE64, 1000);
    const uint64_t ab[2] = {0x1010, 0x2020}, c[1] = {0x3030};
    record(&b, LE64, 2, 2, ab);
    record(&b, LE64, 3, 1, c);
    record(&b, LE64, 4, 2, ab);
    trailer(&b, LE64);
    pk_profile *p = read_ok(&b);
    assert_int_equal(pk_sample_count(p), 2);
    assert_int_equal(pk_value_total(p, 0), 9);
    assert_int_equal(pk_value_total(p, 1), 9LL * 1000 * 1000);
    assert_int_equal(pk_sample_values(p, 0)[0], 6);
    assert_int_equal(pk_sample_values(p, 1)[0], 3);
    /* The same PC as a leaf and as a caller are two addresses. */
    uint64_t a[4];
    assert_int_equal(row_addresses(p, 0, a, 4), 2);
    assert_int_equal(a[0], 0x201f);
    assert_int_equal(a[1], 0x1010);
    pk_profile_free(p);
    tb_free(&b);
}

/* The reader hands its stacks over as already distinct, without the table that finds stacks;
 * reading completes the profile with that table, so that finding a stack of a profile just read
 * probes the table instead of comparing it with every stack handed over. */
static void stacks_read_are_found_through_the_table(void **state)
{
    (void)state;
    enum { RECORDS = 3000 };
    tb_bytes b = {0};
    header(&b, LE64, 1000);
    for (uint64_t i = 0; i < RECORDS; i++) {
        const uint64_t pcs[3] = {0x100000 + 16 * i, 0x200000 + 16 * (i % 7), 0x300000};
        record(&b, LE64, 1 + i % 3, 3, pcs);
    }
    trailer(&b, LE64);
    pk_profile *p = read_ok(&b);
    assert_int_equal(pk_sample_count(p), RECORDS);
    /* Every stack is in the table: pk_stack_store_find compares none of them one by one. */
    assert_true(pk_stack_count(p) >= RECORDS);
    assert_non_null(p->stacks.slots);
    assert_int_equal(p->stacks.indexed, pk_stack_count(p));
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        uint32_t stack = pk_sample_stack(p, row), frames[8];
        size_t depth = pk_stack_frames(p, stack, frames, 8);
        assert_true(depth >= 1 && depth <= 8);
        assert_int_equal(pk_find_stack_frames(p, PK_NONE, frames, depth), stack);
    }
    pk_profile_free(p);
    tb_free(&b);
}

static void prefix_reuse_keeps_leaf_and_caller_apart(void **state)
{
    (void)state;
    /* Consecutive records where one record's leaf PC is the next one's caller PC at the same
     * depth from the root: the caller must be looked up at PC - 1. */
    tb_bytes b = {0};
    header(&b, LE64, 1000);
    const uint64_t r1[2] = {0x500, 0x100};        /* leaf 0x500 under 0x100 */
    const uint64_t r2[3] = {0x900, 0x500, 0x100}; /* 0x500 now a caller */
    const uint64_t r3[2] = {0x500, 0x100};
    record(&b, LE64, 1, 2, r1);
    record(&b, LE64, 1, 3, r2);
    record(&b, LE64, 1, 2, r3);
    trailer(&b, LE64);
    pk_profile *p = read_ok(&b);
    assert_int_equal(pk_sample_count(p), 2);
    uint64_t a[4];
    assert_int_equal(row_addresses(p, 0, a, 4), 2);
    assert_int_equal(a[0], 0xff);
    assert_int_equal(a[1], 0x500);
    assert_int_equal(pk_sample_values(p, 0)[0], 2);
    assert_int_equal(row_addresses(p, 1, a, 4), 3);
    assert_int_equal(a[1], 0x4ff);
    assert_int_equal(a[2], 0x900);
    pk_profile_free(p);
    tb_free(&b);
}

static void extra_header_slots_are_skipped(void **state)
{
    (void)state;
    tb_bytes b = {0};
    slot(&b, LE32, 0);
    slot(&b, LE32, 5); /* two slots more than the usual three */
    slot(&b, LE32, 0);
    slot(&b, LE32, 250);
    slot(&b, LE32, 0);
    slot(&b, LE32, 0xdead);
    slot(&b, LE32, 0xbeef);
    const uint64_t pcs[1] = {0x1234};
    record(&b, LE32, 7, 1, pcs);
    trailer(&b, LE32);
    pk_profile *p = read_ok(&b);
    assert_int_equal(pk_value_total(p, 0), 7);
    assert_int_equal(pk_metadata_get(p)->period, 250000);
    uint64_t a[2];
    assert_int_equal(row_addresses(p, 0, a, 2), 1);
    assert_int_equal(a[0], 0x1234);
    pk_profile_free(p);
    tb_free(&b);
}

static void zero_count_records_are_ignored(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header(&b, LE64, 10000);
    const uint64_t pcs[2] = {0, 0x4000};
    record(&b, LE64, 0, 2, pcs); /* count 0 with a first PC of 0: not the trailer */
    record(&b, LE64, 3, 2, pcs); /* a first PC of 0 with samples: kept, as Go pprof does */
    trailer(&b, LE64);
    pk_profile *p = read_ok(&b);
    assert_int_equal(pk_value_total(p, 0), 3);
    assert_true(has_warning(p, "1 record with a sample count of 0 ignored"));
    pk_profile_free(p);
    tb_free(&b);
}

/* Counts whose total (or cpu time, count x period) passes the int64 range are refused at the
 * record that passes it, never capped: every sum of the profile would be wrong. */
static void counts_beyond_64_bits_are_refused(void **state)
{
    (void)state;
    const uint64_t pcs[1] = {0x1000};
    struct {
        uint64_t period_us, first, second;
    } cases[] = {
        {10000, UINT64_MAX, 1},                    /* one count beyond */
        {10000, 1, UINT64_C(1) << 62},             /* cpu time beyond: 2^62 x 10 ms */
        {1, UINT64_C(1) << 53, UINT64_C(1) << 53}, /* the total beyond in ns */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tb_bytes b = {0};
        header(&b, LE64, cases[i].period_us);
        record(&b, LE64, cases[i].first, 1, pcs);
        size_t second_at = b.len;
        record(&b, LE64, cases[i].second, 1, pcs);
        trailer(&b, LE64);
        pk_status status;
        pk_error err;
        pk_profile *p = read_with(b.data, b.len, false, false, &status, &err);
        assert_null(p);
        assert_int_equal(status, PK_ERR_LIMIT);
        assert_non_null(strstr(err.message, "64-bit"));
        assert_int_equal(err.offset, i == 0 ? 40 : (int64_t)second_at);
        tb_free(&b);
    }
    /* The largest total that fits reads as it is. */
    tb_bytes b = {0};
    header(&b, LE64, 0);
    record(&b, LE64, (uint64_t)INT64_MAX, 1, pcs);
    trailer(&b, LE64);
    pk_profile *p = read_ok(&b);
    assert_int_equal(pk_value_total(p, 0), INT64_MAX);
    pk_profile_free(p);
    tb_free(&b);
}

/* ---- the maps text ----------------------------------------------------------------------------- */

static const pk_resource *resource_named(const pk_profile *p, const char *path)
{
    for (size_t i = 0; i < pk_resource_count(p); i++)
        if (strcmp(pk_str(p, pk_resource_at(p, (uint32_t)i)->path), path) == 0)
            return pk_resource_at(p, (uint32_t)i);
    return NULL;
}

static void maps_text_lines_and_substitutions(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header(&b, LE64, 10000);
    const uint64_t pcs[4] = {0x10000100, 0x20000200, 0x30000300, 0x40000400};
    record(&b, LE64, 1, 4, pcs);
    trailer(&b, LE64);
    tb_str(&b, "  build=/usr/lib/x86_64-linux-gnu\n"
               "10000000-10001000 r-xp 00001000 08:01 1234 $build/libc.so.6\n"
               "10001000-10002000 r-xp 00002000 08:01 1234 $build/libc.so.6\n"
               "10002000-10003000 r--p 00003000 08:01 1234 $build/libc.so.6\n"
               "base = /opt/app\n"
               "20000000-20001000 r-xp 00000000 00:00 99 $base/bin/my app (deleted)\n"
               "30000000-30004000: $base/lib/libbrief.so (@2000) 0a1b2c3d\n"
               "40000000-40001000 r-xp 00000000 00:00 0 $buildx/nosubst.so\n"
               "this line means nothing\n"
               "50000000-50001000 rw-p 00000000 00:00 0 [heap]\n"
               "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]");
    pk_profile *p = read_ok(&b);
    /* Two contiguous pieces of libc were joined; the r--p piece was dropped. */
    const pk_resource *libc = resource_named(p, "/usr/lib/x86_64-linux-gnu/libc.so.6");
    assert_non_null(libc);
    assert_string_equal(pk_str(p, libc->name), "libc.so.6");
    assert_int_equal(libc->start, 0x10000000);
    assert_int_equal(libc->limit, 0x10002000);
    assert_int_equal(libc->offset, 0x1000);
    const pk_resource *app = resource_named(p, "/opt/app/bin/my app");
    assert_non_null(app);
    assert_string_equal(pk_str(p, app->name), "my app");
    const pk_resource *brief = resource_named(p, "/opt/app/lib/libbrief.so");
    assert_non_null(brief);
    assert_int_equal(brief->offset, 0x2000);
    assert_int_equal(brief->limit, 0x30004000);
    assert_string_equal(pk_str(p, brief->build_id), "0a1b2c3d");
    /* $buildx is another name, not $build followed by x. */
    assert_non_null(resource_named(p, "$buildx/nosubst.so"));
    assert_null(resource_named(p, "[heap]"));
    assert_non_null(resource_named(p, "[vsyscall]"));
    assert_int_equal(pk_resource_count(p), 5);
    /* Every PC found its mapping; the thread is named after the program. */
    uint32_t frames[4];
    pk_stack_frames(p, pk_sample_stack(p, 0), frames, 4);
    const char *names[4] = {"nosubst.so", "libbrief.so", "my app", "libc.so.6"};
    for (int i = 0; i < 4; i++) {
        uint32_t r = pk_frame_at(p, frames[i])->resource;
        assert_int_not_equal(r, PK_NONE);
        assert_string_equal(pk_str(p, pk_resource_at(p, r)->name), names[i]);
    }
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "my app");
    assert_string_equal(pk_str(p, pk_metadata_get(p)->product), "my app");
    pk_profile_free(p);
    tb_free(&b);
}

/* ---- truncation and damage ------------------------------------------------------------------------ */

static void every_truncation_point(void **state)
{
    (void)state;
    tb_bytes full = {0};
    doc_example(&full, LE64);
    const size_t header_end = 40, record_end = 40 + 5 * 8, trailer_end = record_end + 24;
    for (size_t len = 0; len <= full.len; len++) {
        pk_status status;
        pk_error err;
        pk_profile *p = read_with(full.data, len, false, false, &status, &err);
        if (len < header_end) {
            assert_int_equal(status, PK_ERR_INPUT);
            assert_true(err.offset >= 0 && (size_t)err.offset <= len);
            continue;
        }
        if (status != PK_OK)
            fail_msg("length %zu: %s", len, err.message);
        int64_t want = len >= record_end ? 5 : 0;
        assert_int_equal(pk_value_total(p, 0), want);
        bool warned = pk_warning_count(p) > 0;
        if (len < trailer_end) {
            assert_true(warned);
            assert_true(has_warning(p, len == header_end || len == record_end ? "no trailer"
                                                                               : "truncated"));
        } else {
            assert_false(warned);
        }
        pk_profile_free(p);
    }
    tb_free(&full);
}

static void depth_that_cannot_fit_is_an_error_with_offset(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header(&b, LE64, 10000);
    const uint64_t pcs[1] = {0x1000};
    record(&b, LE64, 2, 1, pcs);
    slot(&b, LE64, 1);
    slot(&b, LE64, UINT64_C(1) << 60); /* at byte 40 + 24 + 8 */
    slot(&b, LE64, 0x2000);
    pk_status status;
    pk_error err;
    pk_profile *p = read_with(b.data, b.len, false, false, &status, &err);
    assert_null(p);
    assert_int_equal(status, PK_ERR_INPUT);
    assert_int_equal(err.offset, 72);
    assert_non_null(strstr(err.message, "does not fit"));
    assert_true(err.salvageable);
    /* Salvage keeps the record before it, with the one damage warning. */
    p = read_with(b.data, b.len, false, true, &status, &err);
    assert_int_equal(status, PK_OK);
    assert_int_equal(pk_value_total(p, 0), 2);
    assert_int_equal(pk_warning_count(p), 1);
    assert_true(has_warning(p, "damaged at byte 72: record depth"));
    assert_true(has_warning(p, "kept what was read before it"));
    pk_profile_free(p);
    tb_free(&b);

    /* A header that declares more slots than the file holds. */
    slot(&b, LE64, 0);
    slot(&b, LE64, 1000);
    slot(&b, LE64, 0);
    slot(&b, LE64, 100);
    slot(&b, LE64, 0);
    p = read_with(b.data, b.len, false, false, &status, &err);
    assert_int_equal(status, PK_ERR_INPUT);
    assert_int_equal(err.offset, 8);
    /* A broken header leaves nothing to keep: salvage does not apply. */
    assert_false(err.salvageable);
    p = read_with(b.data, b.len, false, true, &status, &err);
    assert_null(p);
    assert_int_equal(status, PK_ERR_INPUT);
    tb_free(&b);

    /* A record of depth 0. */
    header(&b, LE32, 100);
    slot(&b, LE32, 1);
    slot(&b, LE32, 0);
    p = read_with(b.data, b.len, false, false, &status, &err);
    assert_int_equal(status, PK_ERR_INPUT);
    assert_int_equal(err.offset, 24);
    assert_true(err.salvageable);
    p = read_with(b.data, b.len, false, true, &status, &err);
    assert_int_equal(status, PK_OK);
    assert_int_equal(pk_sample_count(p), 0);
    assert_true(has_warning(p, "damaged at byte 24: record with depth 0"));
    pk_profile_free(p);
    tb_free(&b);

    /* Not a header at all. */
    tb_str(&b, "--- symbol\nbinary=/bin/x\n");
    p = read_with(b.data, b.len, false, false, &status, &err);
    assert_int_equal(status, PK_ERR_INPUT);
    assert_int_equal(err.offset, 0);
    assert_false(err.salvageable);
    tb_free(&b);
}

/* ---- reference files ---------------------------------------------------------------------------- */

static void real_profile_totals(void **state)
{
    (void)state;
    pk_profile *p = read_reference("real.prof", false);
    assert_int_equal(pk_value_total(p, 0), 298);
    assert_int_equal(pk_value_total(p, 1), 2980000000LL);
    assert_int_equal(pk_sample_count(p), 111);
    assert_int_equal(pk_warning_count(p), 0);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "demo");
    /* Executable mappings only: demo, libm, libstdc++, liblzma, libgcc, libc, libunwind,
     * libprofiler, ld.so, vdso and vsyscall. */
    assert_int_equal(pk_resource_count(p), 11);
    pk_profile_free(p);
}

static void missing_binary_is_one_warning_and_address_names(void **state)
{
    (void)state;
    pk_profile *p = read_reference("real.prof", true);
    assert_int_equal(pk_value_total(p, 0), 298);
    assert_int_equal(pk_sample_count(p), 111);
    size_t warnings = 0;
    for (size_t i = 0; i < pk_warning_count(p); i++)
        warnings += strstr(pk_warning_at(p, i), "/opt/gperf-demo/build/x86_64/demo") != NULL;
    assert_int_equal(warnings, 1);
    assert_true(has_warning(p, "binary not found"));
    /* Its frames are named by address, with the program as resource. */
    size_t demo_frames = 0;
    for (size_t i = 0; i < pk_frame_count(p); i++) {
        const pk_frame *f = pk_frame_at(p, (uint32_t)i);
        if (f->resource == PK_NONE ||
            strcmp(pk_str(p, pk_resource_at(p, f->resource)->name), "demo") != 0)
            continue;
        demo_frames++;
        char want[32];
        snprintf(want, sizeof want, "0x%llx", (unsigned long long)f->address);
        assert_string_equal(pk_frame_name(p, (uint32_t)i), want);
        assert_true(pk_frame_is_unresolved(p, (uint32_t)i));
    }
    assert_true(demo_frames > 0);
    pk_profile_free(p);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stacks of a profile as text, one line per row ("addr;addr;... count"), sorted, with
 * addresses masked to 32 bits when asked (the 4-byte variants cut them). */
static char *stack_listing(const pk_profile *p, bool low32)
{
    size_t rows = pk_sample_count(p);
    char **lines = calloc(rows, sizeof *lines);
    size_t total = 1;
    for (size_t r = 0; r < rows; r++) {
        uint64_t a[300];
        size_t n = row_addresses(p, r, a, 300);
        size_t cap = n * 20 + 32, len = 0;
        lines[r] = malloc(cap);
        for (size_t i = 0; i < n; i++)
            len += (size_t)snprintf(lines[r] + len, cap - len, "%llx;",
                                    (unsigned long long)(low32 ? a[i] & 0xffffffff : a[i]));
        snprintf(lines[r] + len, cap - len, " %lld", (long long)pk_sample_values(p, r)[0]);
        total += strlen(lines[r]) + 1;
    }
    qsort(lines, rows, sizeof *lines, compare_strings);
    char *text = malloc(total);
    text[0] = '\0';
    for (size_t r = 0; r < rows; r++) {
        strcat(text, lines[r]);
        strcat(text, "\n");
        free(lines[r]);
    }
    free(lines);
    return text;
}

static void variants_give_the_same_samples(void **state)
{
    (void)state;
    pk_profile *real = read_reference("real.prof", false);
    char *want64 = stack_listing(real, false), *want32 = stack_listing(real, true);
    const struct {
        const char *name;
        bool low32;
        const char *bits, *order;
    } variants[] = {{"variants/real.w4.little.prof", true, "32", "little"},
                    {"variants/real.w4.big.prof", true, "32", "big"},
                    {"variants/real.w8.big.prof", false, "64", "big"},
                    {"variants/real.buildvar.prof", false, "64", "little"}};
    for (size_t i = 0; i < 4; i++) {
        pk_profile *p = read_reference(variants[i].name, false);
        assert_int_equal(pk_value_total(p, 0), 298);
        assert_int_equal(pk_sample_count(p), 111);
        assert_string_equal(pk_property_get(p, "gperftools.word_bits"), variants[i].bits);
        assert_string_equal(pk_property_get(p, "gperftools.byte_order"), variants[i].order);
        char *got = stack_listing(p, variants[i].low32);
        assert_string_equal(got, variants[i].low32 ? want32 : want64);
        free(got);
        pk_profile_free(p);
    }
    /* $build gives back the library paths of the original. */
    pk_profile *buildvar = read_reference("variants/real.buildvar.prof", false);
    assert_int_equal(pk_resource_count(buildvar), pk_resource_count(real));
    const char *paths[2][32];
    for (int k = 0; k < 2; k++) {
        const pk_profile *p = k ? buildvar : real;
        for (size_t i = 0; i < pk_resource_count(p); i++)
            paths[k][i] = pk_str(p, pk_resource_at(p, (uint32_t)i)->path);
        qsort(paths[k], pk_resource_count(p), sizeof paths[k][0], compare_strings);
    }
    for (size_t i = 0; i < pk_resource_count(real); i++)
        assert_string_equal(paths[0][i], paths[1][i]);
    assert_non_null(resource_named(buildvar, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
    pk_profile_free(buildvar);
    free(want64);
    free(want32);
    pk_profile_free(real);
}

/* edge/results.txt: what Go pprof 1.19 and perl pprof 2.10 report. profkit matches Go pprof
 * except where noted. */
static void edge_cases_match_results(void **state)
{
    (void)state;
    const struct {
        const char *name;
        int64_t samples;  /* -1: an error */
        int64_t rows;
        const char *warning; /* NULL: none expected */
    } cases[] = {
        {"edge/all_duplicated_x2.prof", 596, 111, NULL},
        {"edge/count_zero_record.prof", 296, 111, "sample count of 0"},
        {"edge/empty_no_records.prof", 0, 0, NULL},
        /* Go pprof refuses a header with slot 1 = 4; perl pprof (and profkit) skip the slot. */
        {"edge/hdr_4_words.prof", 298, 111, NULL},
        {"edge/no_trailer_no_maps.prof", 298, 111, "no trailer"},
        {"edge/no_trailer_with_maps.prof", -1, 0, NULL},
        {"edge/trailer_no_maps.prof", 298, 111, NULL},
        /* Both pprofs count the cut record silently (298; Go reads its missing callers as
         * address 0). profkit keeps the complete records only and says so. */
        {"edge/truncated_last_record.prof", 297, 110, "truncated"},
        /* Go pprof reads the Java variant with its Java parser (15 rows); profkit keeps the
         * PCs as they are. */
        {"edge/version_1_java.prof", 298, 111, "Java"},
        /* Perl pprof stops at a record whose first PC is 0 (16 samples); Go pprof keeps it. */
        {"edge/zero_first_pc_midway.prof", 303, 112, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_status status;
        pk_error err;
        pk_profile *p = read_file_with(data_path(cases[i].name), no_symbols_option, 1, &status,
                                       &err);
        if (cases[i].samples < 0) {
            assert_int_equal(status, PK_ERR_INPUT);
            assert_non_null(strstr(err.message, "trailer"));
            continue;
        }
        if (!p)
            fail_msg("%s: %s", cases[i].name, err.message);
        if (pk_value_total(p, 0) != cases[i].samples)
            fail_msg("%s: %lld samples", cases[i].name, (long long)pk_value_total(p, 0));
        assert_int_equal(pk_sample_count(p), cases[i].rows);
        if (cases[i].warning)
            assert_true(has_warning(p, cases[i].warning));
        else
            assert_int_equal(pk_warning_count(p), 0);
        pk_profile_free(p);
    }
}

/* Sums a pprof Profile.String() golden: samples, cpu and the number of distinct stacks. */
static void golden_totals(const char *name, int64_t *samples, int64_t *cpu, size_t *stacks)
{
    FILE *f = fopen(data_path(name), "r");
    assert_non_null(f);
    char line[4096];
    char **seen = NULL;
    size_t count = 0;
    bool in_samples = false;
    *samples = *cpu = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Locations", 9) == 0)
            break;
        if (strncmp(line, "samples/count", 13) == 0) {
            in_samples = true;
            continue;
        }
        long long c, v;
        int used;
        if (!in_samples || sscanf(line, " %lld %lld:%n", &c, &v, &used) != 2)
            continue;
        *samples += c;
        *cpu += v;
        if (c == 0)
            continue;
        bool dup = false;
        for (size_t i = 0; i < count && !dup; i++)
            dup = strcmp(seen[i], line + used) == 0;
        if (!dup) {
            void *grown = realloc(seen, (count + 1) * sizeof *seen);
            assert_non_null(grown);
            seen = grown;
            seen[count++] = strdup(line + used);
        }
    }
    fclose(f);
    for (size_t i = 0; i < count; i++)
        free(seen[i]);
    free(seen);
    *stacks = count;
}

static void pprof_test_data_matches_goldens(void **state)
{
    (void)state;
    const char *names[] = {"cppbench.cpu", "gobench.cpu", "go.crc32.cpu", "java.cpu"};
    for (size_t i = 0; i < 4; i++) {
        char golden[64];
        snprintf(golden, sizeof golden, "pprof-testdata/%s.string", names[i]);
        int64_t samples, cpu;
        size_t stacks;
        golden_totals(golden, &samples, &cpu, &stacks);
        char path[64];
        snprintf(path, sizeof path, "pprof-testdata/%s", names[i]);
        pk_profile *p = read_reference(path, false);
        assert_int_equal(pk_value_total(p, 0), samples);
        assert_int_equal(pk_value_total(p, 1), cpu);
        assert_int_equal(pk_sample_count(p), stacks);
        assert_int_equal(pk_metadata_get(p)->period, 10000000);
        pk_profile_free(p);
    }
    /* The copy with long paths holds the same samples. */
    pk_profile *a = read_reference("pprof-testdata/cppbench.cpu", false);
    pk_profile *b = read_reference("pprof-testdata/driver.cppbench.cpu", false);
    char *la = stack_listing(a, false), *lb = stack_listing(b, false);
    assert_string_equal(la, lb);
    free(la);
    free(lb);
    /* cppbench's golden mappings: the executable ones, non-PIE program first. */
    const pk_resource *program = resource_named(a, "cppbench_server_main");
    assert_non_null(program);
    assert_int_equal(program->start, 0x400000);
    assert_int_equal(program->limit, 0xfcb000);
    assert_non_null(resource_named(a, "/lib/libc-2.15.so"));
    assert_non_null(resource_named(a, "[vsyscall]"));
    assert_int_equal(pk_resource_count(a), 12);
    pk_profile_free(a);
    pk_profile_free(b);
}

/* The symbol text of the Java variant, line by line as pprof's legacy parser reads it. */
static void java_symbol_lines(void **state)
{
    (void)state;
    const struct {
        const char *line;
        bool parsed;
        uint64_t address;
        const char *function, *file;
        uint32_t line_no;
    } cases[] = {
        {"0x6 com.example.f (source.java:06)", true, 6, "com.example.f", "source.java", 6},
        {"  0x00000003 GC  ", true, 3, "GC", "", 0},
        {"0x1f\tpkg.A.b (A.java:0)", true, 0x1f, "pkg.A.b", "A.java", 0},
        {"0x2 f (A.java:-3)", true, 2, "f", "A.java", 0},
        {"0x2 f  (a:b:12)", true, 2, "f ", "a:b", 12},
        {"0x2 Interp (/usr/lib/libjvm.so)", true, 2, "Interp", "libjvm.so", 0},
        {"0x2 f (dir/)", true, 2, "f", "dir", 0},
        {"0x2 f ()", true, 2, "f", ".", 0},
        {"0x2 f (A.java:x)", true, 2, "f", "A.java:x", 0},
        {"0x2 some generated stub/JIT thing", true, 2, "STUB", "", 0},
        {"0xABCdef f", true, 0xabcdef, "f", "", 0},
        {"--- symbol", false, 0, NULL, NULL, 0},
        {"binary=/usr/bin/java", false, 0, NULL, NULL, 0},
        {"0x5", false, 0, NULL, NULL, 0},
        {"0X5 f", false, 0, NULL, NULL, 0},
        {"0xzz f", false, 0, NULL, NULL, 0},
        {"0x5f:g", false, 0, NULL, NULL, 0},
        {"0x12345678901234567 f", false, 0, NULL, NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gp_java_symbol sym;
        bool parsed = gp_java_symbol_parse(cases[i].line, strlen(cases[i].line), &sym);
        if (parsed != cases[i].parsed)
            fail_msg("case %zu: parsed %d", i, parsed);
        if (!parsed)
            continue;
        char function[64], file[64];
        snprintf(function, sizeof function, "%.*s", (int)sym.function_len, sym.function);
        snprintf(file, sizeof file, "%.*s", (int)sym.file_len, sym.file);
        if (sym.address != cases[i].address || strcmp(function, cases[i].function) != 0 ||
            strcmp(file, cases[i].file) != 0 || sym.line != cases[i].line_no)
            fail_msg("case %zu: 0x%llx \"%s\" \"%s\" %u", i, (unsigned long long)sym.address,
                     function, file, sym.line);
    }
}

/* java-symbols.prof (make_java.py): go tool pprof -top reads GC 40ms, Parser.parse 30ms,
 * Interpreter and HashMap.get 20ms, STUB 10ms, Main.run 10ms flat and 60ms cum, Main.main 90ms
 * cum; the two lines of Main.run are one function at two lines. */
static void java_symbol_text_names_frames(void **state)
{
    (void)state;
    pk_profile *p = read_reference("java-symbols.prof", true);
    assert_int_equal(pk_value_total(p, 0), 13);
    assert_true(has_warning(p, "8 of 8 named by the symbol text"));
    char *folded = NULL;
    size_t size;
    pk_error err;
    assert_int_equal(pk_write_memory(p, &pk_format_folded, NULL, &folded, &size, &err), PK_OK);
    assert_non_null(strstr(folded, "com.example.Main.main;com.example.Main.run;"
                                   "com.example.Parser.parse 3\n"));
    assert_non_null(strstr(folded, "GC 4\n"));
    free(folded);
    size_t functions = 0;
    for (size_t i = 0; i < pk_function_count(p); i++) {
        const pk_function *f = pk_function_at(p, (uint32_t)i);
        const char *name = pk_str(p, f->name);
        functions++;
        if (strcmp(name, "Interpreter") == 0)
            assert_string_equal(pk_str(p, f->file), "libjvm.so");
        if (strcmp(name, "com.example.Main.run") == 0)
            assert_string_equal(pk_str(p, f->file), "Main.java");
        assert_true(strncmp(name, "0x", 2) != 0);
        assert_true(strcmp(name, "com.example.Unused.never") != 0);
    }
    assert_int_equal(functions, 7);
    bool line_9 = false, line_42 = false;
    for (size_t i = 0; i < pk_frame_count(p); i++) {
        const pk_frame *fr = pk_frame_at(p, (uint32_t)i);
        assert_int_equal(fr->flags & PK_FRAME_HAS_ADDRESS, 0);
        line_9 |= fr->line == 9;
        line_42 |= fr->line == 42;
    }
    assert_true(line_9 && line_42);
    pk_profile_free(p);
}

/* ---- the writer ------------------------------------------------------------------------------- */

static char *write_with(const pk_profile *p, const pk_option *options, size_t count,
                        size_t *size, pk_status *status, pk_error *err)
{
    pk_write_options o = {0};
    o.value = PK_NONE;
    o.extra.items = options;
    o.extra.count = count;
    char *data = NULL;
    *status = pk_write_memory(p, FMT, &o, &data, size, err);
    return data;
}

static void writer_emits_the_document_layout(void **state)
{
    (void)state;
    tb_bytes in = {0};
    doc_example(&in, LE64);
    pk_profile *p = read_ok(&in);
    const struct {
        pk_option options[2];
        size_t count;
        layout l;
    } cases[] = {{{{0}}, 0, {8, false}},
                 {{{"word-size", "32"}}, 1, {4, false}},
                 {{{"big-endian", ""}}, 1, {8, true}},
                 {{{"word-size", "32"}, {"big-endian", ""}}, 2, {4, true}}};
    for (size_t i = 0; i < 4; i++) {
        size_t size;
        pk_status status;
        pk_error err;
        char *data = write_with(p, cases[i].options, cases[i].count, &size, &status, &err);
        assert_int_equal(status, PK_OK);
        /* Byte for byte what the document describes (the maps line is written in the
         * profiler's own form). */
        tb_bytes want = {0};
        header(&want, cases[i].l, 10000);
        record(&want, cases[i].l, 5, 3, DOC_PCS);
        trailer(&want, cases[i].l);
        tb_str(&want, "00080000-00100000 r-xp 00000000 00:00 0 /lib/ld-2.3.2.so\n");
        assert_int_equal(size, want.len);
        assert_memory_equal(data, want.data, want.len);
        pk_profile *back = read_with(data, size, false, false, &status, &err);
        assert_int_equal(status, PK_OK);
        check_doc_profile(back);
        pk_profile_free(back);
        tb_free(&want);
        free(data);
    }
    pk_option bad[] = {{"word-size", "16"}};
    size_t size;
    pk_status status;
    pk_error err;
    free(write_with(p, bad, 1, &size, &status, &err));
    assert_int_equal(status, PK_ERR_USAGE);
    pk_profile_free(p);
    tb_free(&in);
}

static void writer_round_trips_real_profiles(void **state)
{
    (void)state;
    const char *names[] = {"real.prof", "variants/real.w4.big.prof",
                           "pprof-testdata/cppbench.cpu", "pprof-testdata/gobench.cpu"};
    for (size_t i = 0; i < 4; i++) {
        pk_profile *p = read_reference(names[i], false);
        char *want = stack_listing(p, false);
        const pk_option options[2] = {{"word-size", "32"}, {"big-endian", ""}};
        size_t count = strstr(names[i], "w4") ? 2 : 0;
        size_t size;
        pk_status status;
        pk_error err;
        char *data = write_with(p, options, count, &size, &status, &err);
        assert_int_equal(status, PK_OK);
        pk_profile *back = read_with(data, size, false, false, &status, &err);
        assert_int_equal(status, PK_OK);
        char *got = stack_listing(back, false);
        assert_string_equal(got, want);
        assert_int_equal(pk_value_total(back, 1), pk_value_total(p, 1));
        assert_int_equal(pk_resource_count(back), pk_resource_count(p));
        free(got);
        free(want);
        free(data);
        pk_profile_free(back);
        pk_profile_free(p);
    }
}

static void writer_refuses_what_it_cannot_hold(void **state)
{
    (void)state;
    /* Names without addresses. */
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    pk_function fn = {.name = pk_intern_cstr(p, "main"), .resource = PK_NONE};
    pk_frame frame = {pk_intern_function(p, &fn), 3, 0, PK_NONE, 0};
    uint32_t stack = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &frame));
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "t"), 1, 1);
    int64_t one = 1;
    assert_int_equal(pk_add_sample(p, thread, stack, &one), PK_OK);
    size_t size;
    pk_status status;
    pk_error err;
    free(write_with(p, NULL, 0, &size, &status, &err));
    assert_int_equal(status, PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "addresses"));
    pk_profile_free(p);

    /* 64-bit addresses in 32-bit slots. */
    tb_bytes b = {0};
    header(&b, LE64, 100);
    const uint64_t pcs[1] = {UINT64_C(0x7f0000001000)};
    record(&b, LE64, 1, 1, pcs);
    trailer(&b, LE64);
    p = read_ok(&b);
    const pk_option w32[1] = {{"word-size", "32"}};
    free(write_with(p, w32, 1, &size, &status, &err));
    assert_int_equal(status, PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "32-bit"));
    pk_profile_free(p);
    tb_free(&b);

    /* A count too large for a 32-bit slot (it is not split into billions of records). */
    header(&b, LE64, 100);
    const uint64_t low[1] = {0x1000};
    record(&b, LE64, UINT64_C(1) << 40, 1, low);
    trailer(&b, LE64);
    p = read_ok(&b);
    free(write_with(p, w32, 1, &size, &status, &err));
    assert_int_equal(status, PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "sample count"));
    pk_profile_free(p);
    tb_free(&b);

    /* Counts (not times) whose CPU time at the default period of 10 ms would pass int64: the
     * file would not read back, so none is written. */
    p = pk_profile_new();
    pk_add_value_type(p, "events", "events");
    pk_function main_fn = {.name = pk_intern_cstr(p, "main"), .resource = PK_NONE};
    pk_frame at = {pk_intern_function(p, &main_fn), 0, 0x1000, PK_NONE, PK_FRAME_HAS_ADDRESS};
    stack = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &at));
    thread = pk_add_thread(p, pk_intern_cstr(p, "t"), 1, 1);
    int64_t many = INT64_C(900000000000); /* x 10^7 ns: past 2^63 */
    assert_int_equal(pk_add_sample(p, thread, stack, &many), PK_OK);
    assert_int_equal(pk_add_sample(p, thread, stack, &many), PK_OK);
    free(write_with(p, NULL, 0, &size, &status, &err));
    assert_int_equal(status, PK_ERR_LIMIT);
    assert_non_null(strstr(err.message, "64-bit total"));
    pk_profile_free(p);
}

/* A profile without samples is what libprofiler writes for a run that took none: the header,
 * no records, the trailer. It reads back without samples, through the probe too; samples of
 * value 0 are left out the same way. */
static void writer_writes_profiles_without_samples(void **state)
{
    (void)state;
    for (int shape = 0; shape < 3; shape++) {
        pk_profile *p = pk_profile_new();
        if (shape >= 1)
            pk_add_value_type(p, "samples", "count");
        if (shape == 2) {
            pk_frame frame = {0};
            frame.function = pk_intern_function(
                p, &(pk_function){.name = pk_intern_cstr(p, "f"), .resource = PK_NONE});
            frame.address = 0x1000;
            frame.flags = PK_FRAME_HAS_ADDRESS;
            uint32_t stack = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &frame));
            uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "t"), 1, 1);
            const int64_t zero = 0;
            assert_int_equal(pk_add_sample(p, thread, stack, &zero), PK_OK);
        }
        size_t size;
        pk_status status;
        pk_error err;
        char *data = write_with(p, NULL, 0, &size, &status, &err);
        if (status != PK_OK)
            fail_msg("shape %d: %s", shape, err.message);
        /* header (5 slots) and trailer (3 slots) of 8 bytes, no mappings */
        assert_int_equal(size, 8 * 8);
        tb_bytes expected = {0};
        header(&expected, LE64, 10000);
        trailer(&expected, LE64);
        assert_memory_equal(data, expected.data, size);
        int score;
        assert_ptr_equal(pk_format_probe((const uint8_t *)data, size, NULL, &score), FMT);
        tb_bytes written = {0};
        tb_raw(&written, data, size);
        pk_profile *again = read_ok(&written);
        assert_int_equal(pk_sample_count(again), 0);
        pk_profile_free(again);
        tb_free(&written);
        tb_free(&expected);
        free(data);
        pk_profile_free(p);
    }
}

static void writer_converts_time_values_and_skips_inlined_frames(void **state)
{
    (void)state;
    /* A profile built by hand: cpu in microseconds with a 1 ms period, an inlined frame. */
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "cpu", "microseconds");
    pk_metadata *m = pk_metadata_of(p);
    m->period = 1000;
    m->period_unit = pk_intern_cstr(p, "microseconds");
    pk_resource res = {pk_intern_cstr(p, "app"), pk_intern_cstr(p, "/bin/app"), 0, 0x1000, 0x5000,
                       0};
    uint32_t r = pk_intern_resource(p, &res);
    pk_function outer = {.name = pk_intern_cstr(p, "outer"), .resource = r};
    pk_function inner = {.name = pk_intern_cstr(p, "inner"), .resource = r};
    pk_frame caller = {pk_intern_function(p, &outer), 1, 0x1fff, r, PK_FRAME_HAS_ADDRESS};
    pk_frame leaf = {pk_intern_function(p, &outer), 2, 0x2100, r, PK_FRAME_HAS_ADDRESS};
    pk_frame inlined = {pk_intern_function(p, &inner), 3, 0x2100, r,
                        PK_FRAME_HAS_ADDRESS | PK_FRAME_INLINED};
    uint32_t s = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &caller));
    s = pk_intern_stack(p, s, pk_intern_frame(p, &leaf));
    s = pk_intern_stack(p, s, pk_intern_frame(p, &inlined));
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "app"), 1, 1);
    int64_t v = 7400; /* 7.4 periods */
    pk_add_sample(p, t, s, &v);
    size_t size;
    pk_status status;
    pk_error err;
    char *data = write_with(p, NULL, 0, &size, &status, &err);
    assert_int_equal(status, PK_OK);
    tb_bytes want = {0};
    header(&want, LE64, 1000);
    const uint64_t pcs[2] = {0x2100, 0x2000};
    record(&want, LE64, 7, 2, pcs);
    trailer(&want, LE64);
    tb_str(&want, "00001000-00005000 r-xp 00000000 00:00 0 /bin/app\n");
    assert_int_equal(size, want.len);
    assert_memory_equal(data, want.data, want.len);
    tb_free(&want);
    free(data);
    pk_profile_free(p);
}

/* ---- the dump ------------------------------------------------------------------------------- */

static char *dump_of(const tb_bytes *b, bool raw, pk_status *status)
{
    pk_input in;
    pk_input_init_memory(&in, b->data, b->len);
    char *data = NULL;
    size_t size;
    pk_output out;
    pk_output_init_memory(&out);
    pk_error err;
    *status = FMT->dump(&in, &out, raw, NULL, &err);
    pk_error commit_err;
    assert_int_equal(pk_output_commit(&out, &commit_err), PK_OK);
    data = pk_output_take_memory(&out, &size);
    return data;
}

static char *dump_with_error(const tb_bytes *b, bool raw, pk_status *status, pk_error *err)
{
    pk_input in;
    pk_input_init_memory(&in, b->data, b->len);
    pk_output out;
    pk_output_init_memory(&out);
    *status = FMT->dump(&in, &out, raw, NULL, err);
    pk_error commit_err;
    assert_int_equal(pk_output_commit(&out, &commit_err), PK_OK);
    size_t size;
    return pk_output_take_memory(&out, &size);
}

/* The dump decodes records as the reader does: it prints the records before damage and
 * reports the damage the reader reports, at the same offset. */
static void dump_stops_at_damage_as_the_reader_does(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header(&b, LE64, 10000);
    record(&b, LE64, 5, 3, DOC_PCS);
    slot(&b, LE64, 1);
    slot(&b, LE64, 0); /* depth 0 at byte 40 + 40 + 8 */
    slot(&b, LE64, 0x2000);
    for (int raw = 0; raw <= 1; raw++) {
        pk_status status;
        pk_error err;
        char *text = dump_with_error(&b, raw, &status, &err);
        assert_int_equal(status, PK_ERR_INPUT);
        assert_true(err.salvageable);
        assert_int_equal(err.offset, 88);
        assert_non_null(strstr(err.message, "record with depth 0"));
        assert_non_null(strstr(text, "40\trecord 1: count 5, depth 3: 0xa0000"));
        assert_null(strstr(text, "record 2"));
        free(text);
    }
    pk_status status;
    pk_error read_err;
    assert_null(read_with(b.data, b.len, false, false, &status, &read_err));
    assert_int_equal(read_err.offset, 88);
    tb_free(&b);

    /* text where the trailer should be */
    doc_example(&b, LE64);
    tb_bytes cut = {0};
    tb_raw(&cut, b.data, 80);
    tb_str(&cut, DOC_MAPS);
    pk_error err;
    char *text = dump_with_error(&cut, true, &status, &err);
    assert_int_equal(status, PK_ERR_INPUT);
    assert_int_equal(err.offset, 80);
    assert_non_null(strstr(err.message, "text where a record should be"));
    free(text);
    tb_free(&cut);
    tb_free(&b);

    /* a header cut short: what is there, then the end */
    doc_example(&b, BE32);
    b.len = 14;
    text = dump_with_error(&b, true, &status, &err);
    assert_int_equal(status, PK_ERR_INPUT);
    assert_false(err.salvageable);
    assert_non_null(strstr(text, "32-bit slots, big-endian"));
    assert_non_null(strstr(text, "8\theader slot 2: 0 (format version)"));
    assert_non_null(strstr(text, "12\t(end of input inside the header)"));
    free(text);
    tb_free(&b);
}

/* A trailer with no mappings after it: the resolved dump ends with the trailer (the empty maps
 * text was once copied from a null pointer, which the fuzz build's sanitizer caught). */
static void dump_of_a_profile_without_mappings(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header(&b, LE64, 10000);
    const uint64_t pcs[2] = {0x401000, 0x402000};
    record(&b, LE64, 3, 2, pcs);
    trailer(&b, LE64);
    for (int raw = 0; raw < 2; raw++) {
        pk_status status;
        char *text = dump_of(&b, raw, &status);
        assert_int_equal(status, PK_OK);
        assert_non_null(strstr(text, "40\trecord 1: count 3, depth 2: 0x401000"));
        const char *trailer_line = strstr(text, "72\ttrailer: 0, 1, 0\n");
        assert_non_null(trailer_line);
        assert_string_equal(trailer_line, "72\ttrailer: 0, 1, 0\n");
        assert_null(strstr(text, "maps"));
        free(text);
    }
    tb_free(&b);
}

static void dump_lists_every_slot_with_offsets(void **state)
{
    (void)state;
    tb_bytes b = {0};
    doc_example(&b, LE64);
    pk_status status;
    char *text = dump_of(&b, true, &status);
    assert_int_equal(status, PK_OK);
    assert_non_null(strstr(text, "64-bit slots, little-endian"));
    assert_non_null(strstr(text, "0\theader slot 0: 0"));
    assert_non_null(strstr(text, "8\theader slot 1: 3"));
    assert_non_null(strstr(text, "24\theader slot 3: 10000 (sampling period"));
    assert_non_null(strstr(text, "40\trecord 1: count 5, depth 3: 0xa0000 0xc0000 0xe0000\n"));
    assert_non_null(strstr(text, "80\ttrailer: 0, 1, 0\n"));
    assert_non_null(strstr(text, "104\tmaps: 00080000-00100000 r-xp"));
    free(text);
    /* Not raw: PCs with their mapping and file offset. */
    text = dump_of(&b, false, &status);
    assert_int_equal(status, PK_OK);
    assert_non_null(strstr(text, "40\trecord 1: count 5, depth 3: 0xa0000(ld-2.3.2.so+0x20000)"));
    char *trailer_at = strstr(text, "80\ttrailer"), *maps_at = strstr(text, "104\tmaps");
    assert_true(trailer_at && maps_at && strstr(text, "40\trecord") < trailer_at &&
                trailer_at < maps_at);
    free(text);
    /* A damaged file dumps up to the damage. */
    b.len -= sizeof DOC_MAPS - 1 + 24 + 4;
    text = dump_of(&b, true, &status);
    assert_int_equal(status, PK_OK);
    assert_non_null(strstr(text, "truncated: 2 of 3 PCs"));
    free(text);
    tb_free(&b);
}

/* ---- symbols ----------------------------------------------------------------------------------- */

static void demangles_cxx_names_from_symbol_tables(void **state)
{
    (void)state;
    /* libstdc++'s exported symbols are mangled; an address inside one must come out
     * demangled. nm gives the address of a known function. */
    FILE *f = popen("nm -D --defined-only /usr/lib/x86_64-linux-gnu/libstdc++.so.6 2>/dev/null "
                    "| grep ' T _ZNSt6chrono3_V212system_clock3nowEv@'",
                    "r");
    unsigned long long address = 0;
    if (!f || fscanf(f, "%llx", &address) != 1) {
        if (f)
            pclose(f);
        skip();
    }
    pclose(f);
    pk_profile *p = pk_profile_new();
    pk_resource res = {pk_intern_cstr(p, "libstdc++.so.6"),
                       pk_intern_cstr(p, "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"), 0,
                       0x7f0000000000, 0x7f0000200000, 0};
    uint32_t r = pk_intern_resource(p, &res);
    pk_symbolizer *s = pk_symbolizer_new(p, NULL);
    const uint32_t *frames;
    /* Mapped whole from offset 0: file address = address - start. */
    size_t n = pk_symbolizer_frames(s, r, 0x7f0000000000 + address + 1, &frames);
    assert_int_equal(n, 1);
    assert_string_equal(pk_frame_name(p, frames[0]), "std::chrono::_V2::system_clock::now()");
    assert_int_equal(pk_symbolizer_lookups(s), 1);
    /* The same address again is not looked up again. */
    const uint32_t *again;
    assert_int_equal(pk_symbolizer_frames(s, r, 0x7f0000000000 + address + 1, &again), 1);
    assert_ptr_equal(again, frames);
    assert_int_equal(pk_symbolizer_lookups(s), 1);
    assert_int_equal(pk_symbolizer_resolved(s), 1);
    pk_symbolizer_free(s);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_document_example_in_every_layout),
        cmocka_unit_test(header_words_match_the_document_table),
        cmocka_unit_test(probes_by_header_words),
        cmocka_unit_test(identical_stacks_are_summed),
        cmocka_unit_test(stacks_read_are_found_through_the_table),
        cmocka_unit_test(prefix_reuse_keeps_leaf_and_caller_apart),
        cmocka_unit_test(extra_header_slots_are_skipped),
        cmocka_unit_test(zero_count_records_are_ignored),
        cmocka_unit_test(counts_beyond_64_bits_are_refused),
        cmocka_unit_test(maps_text_lines_and_substitutions),
        cmocka_unit_test(every_truncation_point),
        cmocka_unit_test(depth_that_cannot_fit_is_an_error_with_offset),
        cmocka_unit_test(real_profile_totals),
        cmocka_unit_test(missing_binary_is_one_warning_and_address_names),
        cmocka_unit_test(variants_give_the_same_samples),
        cmocka_unit_test(edge_cases_match_results),
        cmocka_unit_test(pprof_test_data_matches_goldens),
        cmocka_unit_test(java_symbol_lines),
        cmocka_unit_test(java_symbol_text_names_frames),
        cmocka_unit_test(writer_emits_the_document_layout),
        cmocka_unit_test(writer_round_trips_real_profiles),
        cmocka_unit_test(writer_refuses_what_it_cannot_hold),
        cmocka_unit_test(writer_writes_profiles_without_samples),
        cmocka_unit_test(writer_converts_time_values_and_skips_inlined_frames),
        cmocka_unit_test(dump_lists_every_slot_with_offsets),
        cmocka_unit_test(dump_of_a_profile_without_mappings),
        cmocka_unit_test(dump_stops_at_damage_as_the_reader_does),
        cmocka_unit_test(demangles_cxx_names_from_symbol_tables),
    };
    return cmocka_run_group_tests_name("gperftools", tests, NULL, NULL);
}
