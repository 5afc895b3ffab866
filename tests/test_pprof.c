/* SPDX-License-Identifier: MIT */
/* pprof profile.proto: fixtures built field by field from the message table, gzip and plain,
 * every truncation point, damaged files, probes, and round trips through the writer.
 * interop_pprof_go.c shows a BrightScript-like profile in `go tool pprof`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "bytes.h"
#include "fixtures.h"
#include "model_build.h"
#include "reading.h"
#include "core/input.h"
#include "core/output.h"
#include "formats/formats.h"
#include "formats/pprof/pprof.pb-c.h"
#include "formats/pprof/sample.h"
#include "formats/pprof/wire.h"
#include "profkit/format.h"
#include "profkit/profile.h"

/* ---- building protobuf by hand -------------------------------------------------------------- */

enum { VARINT = 0, BYTES = 2 };

static void pb_varint(tb_bytes *b, unsigned field, uint64_t v)
{
    tb_varint(b, (uint64_t)field << 3 | VARINT);
    tb_varint(b, v);
}

static void pb_bytes(tb_bytes *b, unsigned field, const void *data, size_t n)
{
    tb_varint(b, (uint64_t)field << 3 | BYTES);
    tb_varint(b, n);
    tb_raw(b, data, n);
}

/* Appends sub as a length-delimited field and empties it. */
static void pb_message(tb_bytes *b, unsigned field, tb_bytes *sub)
{
    pb_bytes(b, field, sub->data, sub->len);
    tb_free(sub);
}

static void pb_string(tb_bytes *b, const char *s)
{
    pb_bytes(b, 6, s, strlen(s));
}

static void pb_value_type(tb_bytes *b, unsigned field, int64_t type, int64_t unit)
{
    tb_bytes vt = {0};
    pb_varint(&vt, 1, (uint64_t)type);
    pb_varint(&vt, 2, (uint64_t)unit);
    pb_message(b, field, &vt);
}

static void pb_function(tb_bytes *b, uint64_t id, int64_t name, int64_t file, int64_t start)
{
    tb_bytes f = {0};
    pb_varint(&f, 1, id);
    pb_varint(&f, 2, (uint64_t)name);
    pb_varint(&f, 3, (uint64_t)name);
    pb_varint(&f, 4, (uint64_t)file);
    pb_varint(&f, 5, (uint64_t)start);
    pb_message(b, 5, &f);
}

static void pb_line(tb_bytes *loc, uint64_t function, int64_t line)
{
    tb_bytes l = {0};
    pb_varint(&l, 1, function);
    pb_varint(&l, 2, (uint64_t)line);
    pb_message(loc, 4, &l);
}

/* String table of the fixture. */
enum {
    S_EMPTY, S_SAMPLES, S_COUNT, S_CPU, S_NANOSECONDS, S_THREAD, S_WORKER, S_APP_PATH,
    S_BUILD_ID, S_MAIN, S_MAIN_C, S_INL, S_INL_H, S_WORK, S_WORK_C, S_COMMENT, S_PROPERTY,
    S_DROP, S_COUNT_OF_STRINGS
};
static const char *const fixture_strings[S_COUNT_OF_STRINGS] = {
    "", "samples", "count", "cpu", "nanoseconds", "thread", "worker", "/usr/bin/app",
    "abcd1234", "main", "main.c", "inl", "inl.h", "work", "work.c", "a plain comment",
    "build=1.2.3", "^runtime\\.",
};

#define ADDR_MAIN 0x401000u
#define ADDR_WORK 0x402000u

/* A profile as go tool pprof would write it, with sparse IDs: two sample types; samples at
 * [main] and at [main, work, inl] (inl inlined into work, both in location 200), the second
 * twice with a "thread" label; one mapping; times, period, comments, drop_frames and a
 * default sample type. */
static void build_fixture(tb_bytes *b)
{
    pb_value_type(b, 1, S_SAMPLES, S_COUNT);
    pb_value_type(b, 1, S_CPU, S_NANOSECONDS);

    tb_bytes s = {0}, packed = {0}, label = {0};
    /* location_id packed, leaf first; values packed */
    tb_varint(&packed, 200);
    tb_varint(&packed, 100);
    pb_bytes(&s, 1, packed.data, packed.len);
    tb_free(&packed);
    tb_varint(&packed, 3);
    tb_varint(&packed, 30);
    pb_bytes(&s, 2, packed.data, packed.len);
    tb_free(&packed);
    pb_varint(&label, 1, S_THREAD);
    pb_varint(&label, 2, S_WORKER);
    pb_message(&s, 3, &label);
    pb_message(b, 2, &s);

    /* unpacked repeated fields, as pprof writes short lists */
    pb_varint(&s, 1, 100);
    pb_varint(&s, 2, 1);
    pb_varint(&s, 2, 10);
    pb_message(b, 2, &s);

    pb_varint(&s, 1, 200);
    pb_varint(&s, 1, 100);
    pb_varint(&s, 2, 2);
    pb_varint(&s, 2, 20);
    pb_varint(&label, 1, S_THREAD);
    pb_varint(&label, 2, S_WORKER);
    pb_message(&s, 3, &label);
    pb_message(b, 2, &s);

    tb_bytes m = {0};
    pb_varint(&m, 1, 7);
    pb_varint(&m, 2, 0x400000);
    pb_varint(&m, 3, 0x500000);
    pb_varint(&m, 4, 0x1000);
    pb_varint(&m, 5, S_APP_PATH);
    pb_varint(&m, 6, S_BUILD_ID);
    pb_varint(&m, 7, 1);
    pb_message(b, 3, &m);

    tb_bytes loc = {0};
    pb_varint(&loc, 1, 100);
    pb_varint(&loc, 2, 7);
    pb_varint(&loc, 3, ADDR_MAIN);
    pb_line(&loc, 5, 10);
    pb_message(b, 4, &loc);
    pb_varint(&loc, 1, 200);
    pb_varint(&loc, 2, 7);
    pb_varint(&loc, 3, ADDR_WORK);
    pb_line(&loc, 9, 42);  /* inlined callee first */
    pb_line(&loc, 12, 20); /* its caller last */
    pb_message(b, 4, &loc);

    pb_function(b, 5, S_MAIN, S_MAIN_C, 3);
    pb_function(b, 9, S_INL, S_INL_H, 40);
    pb_function(b, 12, S_WORK, S_WORK_C, 15);

    for (int i = 0; i < S_COUNT_OF_STRINGS; i++)
        pb_string(b, fixture_strings[i]);

    pb_varint(b, 7, S_DROP);
    pb_varint(b, 9, 1700000000000000000u);
    pb_varint(b, 10, 2000000000u);
    pb_value_type(b, 11, S_CPU, S_NANOSECONDS);
    pb_varint(b, 12, 10000000);
    pb_varint(b, 13, S_COMMENT);
    pb_varint(b, 13, S_PROPERTY);
    pb_varint(b, 14, S_SAMPLES);
}

static void gzip_bytes(const tb_bytes *in, tb_bytes *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
                     Z_OK);
    size_t cap = deflateBound(&z, in->len) + 64;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    z.next_in = in->data;
    z.avail_in = (uInt)in->len;
    z.next_out = buf;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    tb_raw(out, buf, cap - z.avail_out);
    deflateEnd(&z);
    free(buf);
}

static pk_status read_bytes(const void *data, size_t n, bool salvage, pk_profile **out,
                            pk_error *err)
{
    pk_read_options options = {.salvage = salvage};
    return pk_read_memory(data, n, &pk_format_pprof, &options, out, err);
}

/* ---- inspecting a profile ------------------------------------------------------------------- */

/* The stack of a row as "f1;f2;f3" root first, with '+' before inlined frames. */
static void stack_text(const pk_profile *p, uint32_t stack, char *out, size_t cap)
{
    uint32_t frames[64];
    size_t depth = pk_stack_frames(p, stack, frames, 64);
    assert_true(depth <= 64);
    out[0] = '\0';
    for (size_t i = 0; i < depth; i++) {
        const pk_frame *f = pk_frame_at(p, frames[i]);
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "%s%s%s", i ? ";" : "",
                 (f->flags & PK_FRAME_INLINED) ? "+" : "", pk_frame_name(p, frames[i]));
    }
}

/* Index of the row whose thread is named thread and whose stack reads text, or SIZE_MAX. */
static size_t find_row(const pk_profile *p, const char *thread, const char *text)
{
    char buf[512];
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        const pk_thread *t = pk_thread_at(p, pk_sample_thread(p, row));
        stack_text(p, pk_sample_stack(p, row), buf, sizeof buf);
        if (strcmp(pk_str(p, t->name), thread) == 0 && strcmp(buf, text) == 0)
            return row;
    }
    return SIZE_MAX;
}

static void check_fixture_profile(const pk_profile *p)
{
    assert_int_equal(pk_value_type_count(p), 2);
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->name), "samples");
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->unit), "count");
    assert_string_equal(pk_str(p, pk_value_type_at(p, 1)->name), "cpu");
    assert_int_equal(pk_default_value(p), 0); /* default_sample_type = "samples" */
    assert_int_equal(pk_value_total(p, 0), 6);
    assert_int_equal(pk_value_total(p, 1), 60);

    assert_int_equal(pk_sample_count(p), 2);
    size_t row = find_row(p, "worker", "main;work;+inl");
    assert_true(row != SIZE_MAX);
    assert_int_equal(pk_sample_values(p, row)[0], 5);
    assert_int_equal(pk_sample_values(p, row)[1], 50);
    /* the unlabeled sample goes to one thread named after the main binary */
    row = find_row(p, "app", "main");
    assert_true(row != SIZE_MAX);
    assert_int_equal(pk_sample_values(p, row)[1], 10);
    assert_int_equal(pk_thread_count(p), 2);

    /* frames: addresses, lines, resources, functions */
    row = find_row(p, "worker", "main;work;+inl");
    uint32_t frames[3];
    assert_int_equal(pk_stack_frames(p, pk_sample_stack(p, row), frames, 3), 3);
    /* A sample's stack is one run of its frames, not a stack per prefix: [main] and
     * [main, work, inl] are the only stacks. */
    assert_int_equal(pk_stack_count(p), 2);
    uint32_t prefix;
    const uint32_t *own;
    assert_int_equal(pk_stack_run(p, pk_sample_stack(p, row), &prefix, &own), 3);
    assert_int_equal(prefix, PK_NONE);
    const pk_frame *main_frame = pk_frame_at(p, frames[0]);
    const pk_frame *work = pk_frame_at(p, frames[1]);
    const pk_frame *inl = pk_frame_at(p, frames[2]);
    assert_true(main_frame->address == ADDR_MAIN);
    assert_int_equal(main_frame->line, 10);
    assert_true(work->address == ADDR_WORK);
    assert_int_equal(work->line, 20);
    assert_false(work->flags & PK_FRAME_INLINED);
    assert_true(inl->flags & PK_FRAME_INLINED);
    assert_int_equal(inl->line, 42);
    const pk_function *fn = pk_function_at(p, inl->function);
    assert_string_equal(pk_str(p, fn->file), "inl.h");
    assert_int_equal(fn->start_line, 40);
    const pk_resource *res = pk_resource_at(p, work->resource);
    assert_non_null(res);
    assert_string_equal(pk_str(p, res->name), "app");
    assert_string_equal(pk_str(p, res->path), "/usr/bin/app");
    assert_string_equal(pk_str(p, res->build_id), "abcd1234");
    assert_true(res->start == 0x400000 && res->limit == 0x500000 && res->offset == 0x1000);

    const pk_metadata *meta = pk_metadata_get(p);
    assert_true(meta->start_time == 1700000000000000000);
    assert_true(meta->end_time == 1700000002000000000);
    assert_int_equal(meta->period, 10000000);
    assert_string_equal(pk_str(p, meta->period_type), "cpu");
    assert_string_equal(pk_str(p, meta->period_unit), "nanoseconds");
    assert_string_equal(pk_str(p, meta->product), "app");
    assert_string_equal(pk_property_get(p, "comment"), "a plain comment");
    assert_string_equal(pk_property_get(p, "build"), "1.2.3");
    assert_string_equal(pk_property_get(p, "pprof.drop_frames"), "^runtime\\.");
    assert_int_equal(pk_warning_count(p), 0);
}

/* ---- reading ---------------------------------------------------------------------------------- */

static void reads_fixture_built_by_hand(void **state)
{
    (void)state;
    tb_bytes b = {0};
    build_fixture(&b);
    pk_profile *p;
    pk_error err;
    assert_int_equal(read_bytes(b.data, b.len, false, &p, &err), PK_OK);
    check_fixture_profile(p);
    pk_profile_free(p);
    tb_free(&b);
}

static void reads_gzip_and_concatenated_members(void **state)
{
    (void)state;
    tb_bytes plain = {0}, gz = {0};
    build_fixture(&plain);
    gzip_bytes(&plain, &gz);
    pk_profile *p;
    pk_error err;
    assert_int_equal(read_bytes(gz.data, gz.len, false, &p, &err), PK_OK);
    check_fixture_profile(p);
    pk_profile_free(p);

    /* the same bytes split over two gzip members read as one stream */
    size_t half = plain.len / 2;
    tb_bytes first = {0}, second = {0}, two = {0};
    tb_raw(&first, plain.data, half);
    tb_raw(&second, plain.data + half, plain.len - half);
    gzip_bytes(&first, &two);
    gzip_bytes(&second, &two);
    assert_int_equal(read_bytes(two.data, two.len, false, &p, &err), PK_OK);
    check_fixture_profile(p);
    pk_profile_free(p);

    tb_free(&plain);
    tb_free(&gz);
    tb_free(&first);
    tb_free(&second);
    tb_free(&two);
}

/* Every prefix of the file: an error with an offset inside the prefix, or a profile; never a
 * crash. Gzip prefixes are always errors (the stream is unfinished); with salvage every
 * prefix succeeds. */
static void every_truncation_point(void **state)
{
    (void)state;
    tb_bytes plain = {0}, gz = {0};
    build_fixture(&plain);
    gzip_bytes(&plain, &gz);
    size_t ok = 0;
    for (size_t n = 1; n < plain.len; n++) {
        pk_profile *p = NULL;
        pk_error err;
        pk_status st = read_bytes(plain.data, n, false, &p, &err);
        if (st == PK_OK) {
            ok++;
            pk_profile_free(p);
        } else {
            assert_int_equal(st, PK_ERR_INPUT);
            assert_true(err.offset >= 0 && (size_t)err.offset <= n);
        }
        st = read_bytes(plain.data, n, true, &p, &err);
        if (st != PK_OK)
            fail_msg("prefix %zu of %zu with salvage: %s at %lld", n, plain.len, err.message,
                     (long long)err.offset);
        pk_profile_free(p);
    }
    /* prefixes ending before the string table refer to strings that are not there */
    assert_true(ok < plain.len / 2);
    for (size_t n = 1; n < gz.len; n++) {
        pk_profile *p = NULL;
        pk_error err;
        assert_int_equal(read_bytes(gz.data, n, false, &p, &err), PK_ERR_INPUT);
        assert_true(err.offset >= 0);
        assert_int_equal(read_bytes(gz.data, n, true, &p, &err), PK_OK);
        pk_profile_free(p);
    }
    tb_free(&plain);
    tb_free(&gz);
}

static void expect_error(const tb_bytes *b, int64_t offset, const char *message)
{
    pk_profile *p = NULL;
    pk_error err;
    assert_int_equal(read_bytes(b->data, b->len, false, &p, &err), PK_ERR_INPUT);
    assert_null(p);
    if (strstr(err.message, message) == NULL)
        fail_msg("error '%s' lacks '%s'", err.message, message);
    assert_int_equal(err.offset, offset);
}

static void strings_head(tb_bytes *b)
{
    pb_string(b, "");
    pb_string(b, "f");
}

static void damaged_files_are_clear_errors(void **state)
{
    (void)state;
    tb_bytes b = {0}, sub = {0};

    pb_string(&b, "x");
    expect_error(&b, 0, "string_table[0] must be empty");
    tb_free(&b);

    strings_head(&b);
    size_t at = b.len;
    pb_function(&b, 1, 5, 0, 0);
    expect_error(&b, (int64_t)at, "function name refers to string 5");
    tb_free(&b);

    strings_head(&b);
    at = b.len;
    tb_varint(&b, 2 << 3 | 3); /* sample with the group wire type */
    expect_error(&b, (int64_t)at, "wire type 3");
    tb_free(&b);

    strings_head(&b);
    at = b.len;
    pb_bytes(&b, 9, "\x01", 1); /* time_nanos must be a varint */
    expect_error(&b, (int64_t)at, "time_nanos has wire type 2");
    tb_free(&b);

    pb_value_type(&b, 1, 1, 0);
    at = b.len;
    pb_varint(&sub, 2, 1);
    pb_varint(&sub, 2, 2);
    pb_message(&b, 2, &sub);
    strings_head(&b);
    expect_error(&b, (int64_t)at, "sample has 2 values but the profile has 1 sample types");
    tb_free(&b);

    pb_value_type(&b, 1, 1, 0);
    at = b.len;
    pb_varint(&sub, 1, 33);
    pb_varint(&sub, 2, 1);
    pb_message(&b, 2, &sub);
    strings_head(&b);
    expect_error(&b, (int64_t)at, "location id 33, which is not defined");
    tb_free(&b);

    pb_varint(&sub, 1, 4);
    pb_message(&b, 4, &sub);
    at = b.len;
    pb_varint(&sub, 1, 4);
    pb_message(&b, 4, &sub);
    expect_error(&b, (int64_t)at, "duplicate location id 4");
    tb_free(&b);

    pb_varint(&sub, 1, 0);
    pb_varint(&sub, 2, 5);
    pb_message(&b, 3, &sub);
    expect_error(&b, 0, "mapping with the reserved id 0");
    tb_free(&b);

    pb_varint(&b, 9, 1);
    at = b.len;
    pb_varint(&b, 9, 2);
    expect_error(&b, (int64_t)at, "concatenated profiles");
    tb_free(&b);

    /* a length far beyond the data: an error, not an allocation of that size */
    strings_head(&b);
    at = b.len;
    tb_varint(&b, 2 << 3 | 2);
    tb_varint(&b, 1u << 29);
    tb_raw(&b, "\x08\x01", 2);
    expect_error(&b, (int64_t)at, "claims 536870912 bytes but only 2 remain");
    tb_free(&b);

    /* a malformed sub-message */
    at = 0;
    pb_bytes(&b, 2, "\x0a\x05\x01", 3);
    expect_error(&b, 0, "malformed sample");
    tb_free(&b);

    /* errors inside gzip data say that the offset counts inflated bytes */
    tb_bytes gz = {0};
    pb_string(&b, "");
    pb_string(&b, "");
    pb_string(&b, "");
    at = b.len;
    tb_varint(&b, 1 << 3 | 0);
    tb_varint(&b, 1);
    gzip_bytes(&b, &gz);
    expect_error(&gz, (int64_t)at, "(the offset counts decompressed bytes)");
    tb_free(&b);
    tb_free(&gz);

    /* corrupt deflate data: the offset is in the file */
    build_fixture(&b);
    gzip_bytes(&b, &gz);
    gz.data[12] ^= 0xff;
    gz.data[13] ^= 0x55;
    pk_profile *p = NULL;
    pk_error err;
    pk_status st = read_bytes(gz.data, gz.len, false, &p, &err);
    assert_int_equal(st, PK_ERR_INPUT);
    assert_true(err.offset >= 10 && (size_t)err.offset <= gz.len);
    tb_free(&b);
    tb_free(&gz);
}

/* Damage in the middle: the error is salvageable, and salvage keeps what came before with the
 * one warning of the core; references to what the damage cut off are dropped. Errors of
 * resolution (a string index beyond the table) are salvageable too: salvage reads them as
 * empty. */
static void damage_and_salvage(void **state)
{
    (void)state;
    tb_bytes b = {0};
    build_fixture(&b);
    size_t whole = b.len;
    /* a sample cut short after the whole profile */
    tb_bytes cut = {0};
    tb_raw(&cut, b.data, whole);
    size_t at = cut.len;
    tb_varint(&cut, 2 << 3 | 2);
    tb_varint(&cut, 40);
    tb_raw(&cut, "\x08\x01", 2);
    pk_profile *p = NULL;
    pk_error err;
    assert_int_equal(read_bytes(cut.data, cut.len, false, &p, &err), PK_ERR_INPUT);
    assert_null(p);
    assert_true(err.salvageable);
    assert_int_equal(err.offset, (int64_t)at);
    assert_non_null(strstr(err.message, "sample claims 40 bytes but only 2 remain"));
    assert_int_equal(read_bytes(cut.data, cut.len, true, &p, &err), PK_OK);
    assert_int_equal(pk_value_total(p, 0), 6);
    assert_int_equal(pk_value_total(p, 1), 60);
    assert_int_equal(pk_sample_count(p), 2);
    size_t damage_warnings = 0;
    for (size_t i = 0; i < pk_warning_count(p); i++)
        damage_warnings += strstr(pk_warning_at(p, i), "damaged at byte") != NULL;
    assert_int_equal(damage_warnings, 1);
    char want[64];
    snprintf(want, sizeof want, "damaged at byte %zu: sample claims", at);
    assert_true(tb_has_warning(p, want));
    assert_true(tb_has_warning(p, "kept what was read before it"));
    pk_profile_free(p);
    tb_free(&cut);

    /* the string table cut short: salvage drops the samples of the lost locations and reads
     * the lost strings as empty, each with a warning */
    size_t strings_at = 0;
    for (size_t i = 0; i + 1 < whole; i++)
        if (b.data[i] == (6 << 3 | 2) && b.data[i + 1] == 0) {
            strings_at = i;
            break;
        }
    assert_true(strings_at > 0);
    tb_raw(&cut, b.data, strings_at + 10);
    assert_int_equal(read_bytes(cut.data, cut.len, false, &p, &err), PK_ERR_INPUT);
    assert_true(err.salvageable);
    assert_int_equal(read_bytes(cut.data, cut.len, true, &p, &err), PK_OK);
    assert_true(tb_has_warning(p, "references to strings beyond the string table"));
    assert_true(tb_has_warning(p, "damaged at byte"));
    pk_profile_free(p);
    tb_free(&cut);

    /* whole, but a reference beyond the string table: salvageable; salvage reads it as "" */
    tb_bytes sub = {0};
    pb_string(&cut, "");
    pb_function(&cut, 1, 5, 0, 0);
    assert_int_equal(read_bytes(cut.data, cut.len, false, &p, &err), PK_ERR_INPUT);
    assert_true(err.salvageable);
    assert_int_equal(read_bytes(cut.data, cut.len, true, &p, &err), PK_OK);
    assert_int_equal(pk_warning_count(p), 1);
    assert_true(tb_has_warning(p, "2 references to strings beyond the string table"));
    pk_profile_free(p);
    tb_free(&cut);
    tb_free(&sub);
    tb_free(&b);
}

/* A field larger than the input's buffer arrives in pieces (here from gzip): it is assembled
 * as its bytes come, and a cut one is damage, not an allocation of its claimed size. */
static void fields_larger_than_the_input_buffer(void **state)
{
    (void)state;
    size_t big = 3 * PK_INPUT_CHUNK + 17;
    char *text = malloc(big);
    assert_non_null(text);
    for (size_t i = 0; i < big; i++)
        text[i] = (char)('a' + i % 26);
    tb_bytes b = {0}, gz = {0};
    pb_value_type(&b, 1, 1, 0);
    pb_string(&b, "");
    pb_string(&b, "samples");
    pb_bytes(&b, 6, text, big);
    pb_varint(&b, 13, 1);
    pb_varint(&b, 13, 2);
    gzip_bytes(&b, &gz);
    pk_profile *p = NULL;
    pk_error err;
    if (read_bytes(gz.data, gz.len, false, &p, &err) != PK_OK)
        fail_msg("%s at %lld", err.message, (long long)err.offset);
    const char *comment = pk_property_get(p, "comment");
    assert_non_null(comment);
    assert_int_equal(strlen(comment), big + 1 + strlen("samples"));
    assert_memory_equal(comment + strlen("samples") + 1, text, big);
    pk_profile_free(p);
    tb_free(&gz);

    /* cut inside the big string */
    b.len -= big / 2;
    gzip_bytes(&b, &gz);
    assert_int_equal(read_bytes(gz.data, gz.len, false, &p, &err), PK_ERR_INPUT);
    assert_true(err.salvageable);
    assert_non_null(strstr(err.message, "string_table claims"));
    assert_non_null(strstr(err.message, "(the offset counts decompressed bytes)"));
    tb_free(&gz);
    tb_free(&b);

    /* a length beyond what one field may hold */
    pb_string(&b, "");
    tb_varint(&b, 6 << 3 | 2);
    tb_varint(&b, UINT64_C(1) << 40);
    expect_error(&b, 2, "string_table claims 1099511627776 bytes, more than");
    tb_free(&b);
    free(text);
}

/* The protobuf wire codec on bytes in memory: fields, cut fields and bytes that are no field. */
static void wire_fields_in_memory(void **state)
{
    (void)state;
    tb_bytes b = {0};
    pb_varint(&b, 3, 300);
    pb_bytes(&b, 6, "abc", 3);
    tb_varint(&b, 7 << 3 | 1);
    tb_raw(&b, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
    tb_varint(&b, 8 << 3 | 5);
    tb_raw(&b, "\xff\0\0\0", 4);
    const uint8_t *p = b.data, *end = b.data + b.len;
    pb_field f;
    assert_int_equal(pb_decode_field(&p, end, &f), PK_VARINT_OK);
    assert_true(f.number == 3 && f.wire == PB_WIRE_VARINT && f.value == 300);
    assert_int_equal(pb_decode_field(&p, end, &f), PK_VARINT_OK);
    assert_true(f.number == 6 && f.wire == PB_WIRE_BYTES && f.value == 3);
    assert_memory_equal(f.bytes, "abc", 3);
    assert_int_equal(pb_decode_field(&p, end, &f), PK_VARINT_OK);
    assert_true(f.number == 7 && f.value == UINT64_C(0x0807060504030201));
    assert_int_equal(pb_decode_field(&p, end, &f), PK_VARINT_OK);
    assert_true(f.number == 8 && f.wire == PB_WIRE_FIXED32 && f.value == 0xff);
    assert_ptr_equal(p, end);
    assert_true(pb_fields_well_formed(b.data, end));
    /* every cut is TRUNCATED, with the number once the tag is whole */
    for (size_t n = 0; n < b.len; n++) {
        const uint8_t *q = b.data;
        pk_varint_result r = PK_VARINT_OK;
        while (q < b.data + n && (r = pb_decode_field(&q, b.data + n, &f)) == PK_VARINT_OK)
            ;
        if (q < b.data + n)
            assert_int_equal(r, PK_VARINT_TRUNCATED);
    }
    const uint8_t *cut = b.data;
    assert_int_equal(pb_decode_field(&cut, b.data + 5, &f), PK_VARINT_OK);
    assert_int_equal(pb_decode_field(&cut, b.data + 5, &f), PK_VARINT_TRUNCATED);
    assert_int_equal(f.number, 6);
    assert_int_equal(f.value, 3);
    assert_false(pb_fields_well_formed(b.data, b.data + 5));
    tb_free(&b);
    /* not fields: field number 0, wire types 3 and 7, an 11-byte varint */
    static const uint8_t zero[] = {0x02, 0x00}, group[] = {0x0b}, seven[] = {0x0f},
                         long_tag[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                       0x80, 0x01};
    const uint8_t *q = zero;
    assert_int_equal(pb_decode_field(&q, zero + sizeof zero, &f), PK_VARINT_INVALID);
    q = group;
    assert_int_equal(pb_decode_field(&q, group + 1, &f), PK_VARINT_INVALID);
    q = seven;
    assert_int_equal(pb_decode_field(&q, seven + 1, &f), PK_VARINT_INVALID);
    q = long_tag;
    assert_int_equal(pb_decode_field(&q, long_tag + sizeof long_tag, &f), PK_VARINT_INVALID);
    assert_ptr_equal(q, long_tag);
    uint8_t tag[PK_VARINT_MAX_BYTES];
    assert_int_equal(pb_encode_tag(tag, 1, PB_WIRE_BYTES), 1);
    assert_int_equal(tag[0], 0x0a);
    assert_int_equal(pb_encode_tag(tag, 16, PB_WIRE_VARINT), 2);
}

static char *dump_text(const tb_bytes *b, bool salvage, pk_status *status, pk_error *err)
{
    pk_reader *r;
    *status = pk_reader_open_memory(b->data, b->len, &pk_format_pprof, &r, err);
    assert_int_equal(*status, PK_OK);
    pk_output out;
    pk_output_init_memory(&out);
    pk_read_options options = {.salvage = salvage};
    *status = pk_reader_dump(r, false, &options, &out, err);
    pk_reader_close(r);
    pk_error commit_err;
    assert_int_equal(pk_output_commit(&out, &commit_err), PK_OK);
    size_t size;
    return pk_output_take_memory(&out, &size);
}

/* The dump walks fields as the reader does: one line per field up to damage, which is the
 * reader's error (and, with salvage, the last line). */
static void dump_lists_fields_up_to_damage(void **state)
{
    (void)state;
    tb_bytes b = {0}, gz = {0};
    build_fixture(&b);
    pk_status status;
    pk_error err;
    char *text = dump_text(&b, false, &status, &err);
    assert_int_equal(status, PK_OK);
    assert_non_null(strstr(text, "0: sample_type {type: 1 unit: 2}\n"));
    assert_non_null(strstr(text, ": string_table [6] \"worker\"\n"));
    assert_non_null(strstr(text, ": period 10000000\n"));
    assert_null(strstr(text, "decompressed"));
    free(text);
    gzip_bytes(&b, &gz);
    text = dump_text(&gz, false, &status, &err);
    assert_int_equal(status, PK_OK);
    assert_true(strncmp(text, "# offsets count decompressed bytes\n", 35) == 0);
    free(text);

    size_t at = b.len;
    pb_bytes(&b, 4, "\x0a\x05\x01", 3); /* a malformed location */
    pb_varint(&b, 12, 5);
    text = dump_text(&b, false, &status, &err);
    assert_int_equal(status, PK_ERR_INPUT);
    assert_true(err.salvageable);
    assert_int_equal(err.offset, (int64_t)at);
    assert_non_null(strstr(err.message, "malformed location"));
    assert_non_null(strstr(text, ": period 10000000\n"));
    assert_null(strstr(text, "period 5"));
    free(text);
    text = dump_text(&b, true, &status, &err);
    assert_int_equal(status, PK_OK);
    char want[64];
    snprintf(want, sizeof want, "%zu: damaged: malformed location\n", at);
    assert_non_null(strstr(text, want));
    free(text);
    pk_profile *p;
    assert_int_equal(read_bytes(b.data, b.len, false, &p, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)at);
    tb_free(&gz);
    tb_free(&b);
}

/* A location without lines is an unsymbolized address: a frame named by the address, in the
 * mapping's resource. */
static void unsymbolized_locations(void **state)
{
    (void)state;
    tb_bytes b = {0}, sub = {0};
    pb_value_type(&b, 1, 1, 2);
    pb_varint(&sub, 1, 2);
    pb_varint(&sub, 1, 1);
    pb_varint(&sub, 2, 7);
    pb_message(&b, 2, &sub);
    pb_varint(&sub, 1, 1);
    pb_varint(&sub, 5, 3);
    pb_message(&b, 3, &sub);
    pb_varint(&sub, 1, 1);
    pb_varint(&sub, 2, 1);
    pb_varint(&sub, 3, 0x7f0012345678);
    pb_message(&b, 4, &sub);
    pb_varint(&sub, 1, 2);
    pb_varint(&sub, 3, 0x1234);
    pb_message(&b, 4, &sub);
    pb_string(&b, "");
    pb_string(&b, "samples");
    pb_string(&b, "count");
    pb_string(&b, "/lib/x86_64-linux-gnu/libc.so.6");
    pk_profile *p;
    pk_error err;
    assert_int_equal(read_bytes(b.data, b.len, false, &p, &err), PK_OK);
    assert_true(find_row(p, "main", "0x7f0012345678;0x1234") != SIZE_MAX);
    uint32_t frames[2];
    pk_stack_frames(p, pk_sample_stack(p, 0), frames, 2);
    const pk_frame *f = pk_frame_at(p, frames[0]);
    assert_true(f->flags & PK_FRAME_HAS_ADDRESS);
    assert_string_equal(pk_str(p, pk_resource_at(p, f->resource)->name), "libc.so.6");
    assert_int_equal(pk_frame_at(p, frames[1])->resource, PK_NONE);

    /* written back, they stay locations without lines, so pprof symbolizes them itself */
    char *data;
    size_t size;
    assert_int_equal(pk_write_memory(p, &pk_format_pprof, NULL, &data, &size, &err), PK_OK);
    pk_profile *again;
    assert_int_equal(read_bytes(data, size, false, &again, &err), PK_OK);
    assert_true(find_row(again, "main", "0x7f0012345678;0x1234") != SIZE_MAX);
    pk_profile_free(again);
    free(data);
    pk_profile_free(p);
    tb_free(&b);
}

/* More sample types than the model holds: the first PK_MAX_VALUES are kept, with a warning;
 * labels other than the thread's are kept as the row's label set; pid and tid labels make
 * threads. */
static void many_sample_types_and_labels(void **state)
{
    (void)state;
    enum { TYPES = PK_MAX_VALUES + 2 }; /* strings: "", v0.., "bytes", "tid" */
    tb_bytes b = {0}, sub = {0}, label = {0};
    for (int i = 0; i < TYPES; i++)
        pb_value_type(&b, 1, 1 + i, 0);
    pb_varint(&sub, 1, 1);
    for (int i = 0; i < TYPES; i++)
        pb_varint(&sub, 2, (uint64_t)(i + 1) * 10);
    pb_varint(&label, 1, TYPES + 1); /* "bytes" = 512 */
    pb_varint(&label, 3, 512);
    pb_message(&sub, 3, &label);
    pb_varint(&label, 1, TYPES + 2); /* "tid" = 77 */
    pb_varint(&label, 3, 77);
    pb_message(&sub, 3, &label);
    pb_message(&b, 2, &sub);
    pb_varint(&sub, 1, 1);
    pb_message(&b, 4, &sub);
    pb_string(&b, "");
    for (int i = 0; i < TYPES; i++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", i);
        pb_string(&b, name);
    }
    pb_string(&b, "bytes");
    pb_string(&b, "tid");
    pk_profile *p;
    pk_error err;
    assert_int_equal(read_bytes(b.data, b.len, false, &p, &err), PK_OK);
    assert_int_equal(pk_value_type_count(p), PK_MAX_VALUES);
    assert_string_equal(pk_str(p, pk_value_type_at(p, 7)->name), "v7");
    assert_int_equal(pk_default_value(p), PK_MAX_VALUES - 1);
    assert_int_equal(pk_value_total(p, 7), 80);
    assert_int_equal(pk_thread_count(p), 1);
    assert_int_equal(pk_thread_at(p, 0)->tid, 77);
    assert_int_equal(pk_warning_count(p), 1);
    char types[32];
    snprintf(types, sizeof types, "%d sample types", TYPES);
    assert_non_null(strstr(pk_warning_at(p, 0), types));
    assert_int_equal(pk_sample_count(p), 1);
    const pk_label *labels;
    assert_int_equal(pk_label_set_at(p, pk_sample_label_set(p, 0), &labels), 1);
    assert_string_equal(pk_str(p, labels[0].key), "bytes");
    assert_int_equal(labels[0].str, PK_NONE);
    assert_int_equal(labels[0].num, 512);
    pk_profile_free(p);
    tb_free(&b);
}

/* The format the registry finds for these bytes, as whole-file reading opens them (gzip
 * decompressed first); NULL when none. */
static const pk_format *probed_format(const void *data, size_t size)
{
    pk_reader *r;
    pk_error err;
    if (pk_reader_open_memory(data, size, NULL, &r, &err) != PK_OK)
        return NULL;
    const pk_format *f = pk_reader_format(r);
    pk_reader_close(r);
    return f;
}

static void probe_scores(void **state)
{
    (void)state;
    tb_bytes plain = {0}, gz = {0};
    build_fixture(&plain);
    gzip_bytes(&plain, &gz);
    assert_int_equal(pk_format_pprof.probe(plain.data, plain.len), PK_PROBE_LIKELY);
    /* a probe window cut inside a field */
    assert_int_equal(pk_format_pprof.probe(plain.data, 40), PK_PROBE_LIKELY);
    /* probes see decompressed bytes: gzip data itself is not protobuf */
    assert_int_equal(pk_format_pprof.probe(gz.data, gz.len), PK_PROBE_NO);
    /* compressed or plain, whole or cut short, the input is found to be pprof */
    assert_ptr_equal(probed_format(gz.data, gz.len), &pk_format_pprof);
    assert_ptr_equal(probed_format(gz.data, gz.len - 20), &pk_format_pprof);
    assert_ptr_equal(probed_format(plain.data, plain.len), &pk_format_pprof);
    assert_ptr_equal(probed_format(plain.data, 40), &pk_format_pprof);

    /* gperftools legacy files start with zero words */
    static const uint8_t legacy[40] = {0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0};
    assert_int_equal(pk_format_pprof.probe(legacy, sizeof legacy), PK_PROBE_NO);
    const char *text = "main;work;inl 5\nmain 1\n";
    assert_int_equal(pk_format_pprof.probe((const uint8_t *)text, strlen(text)), PK_PROBE_NO);
    const char *json = "{\"meta\": {\"version\": 24}}";
    assert_int_equal(pk_format_pprof.probe((const uint8_t *)json, strlen(json)), PK_PROBE_NO);
    tb_bytes gzjson = {0}, raw = {0};
    tb_str(&raw, json);
    gzip_bytes(&raw, &gzjson);
    assert_true(probed_format(gzjson.data, gzjson.len) != &pk_format_pprof);
    /* the registry picks pprof */
    assert_ptr_equal(pk_format_probe(plain.data, plain.len, NULL, NULL), &pk_format_pprof);
    tb_free(&plain);
    tb_free(&gz);
    tb_free(&raw);
    tb_free(&gzjson);
}

/* ---- writing ------------------------------------------------------------------------------------ */

/* A native profile: two threads, a binary with build ID, inlined frames at one address. */
static pk_profile *native_profile(void)
{
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    pk_add_value_type(p, "samples", "count");
    pk_add_value_type(p, "cpu", "nanoseconds");
    pk_set_default_value(p, 1);
    pk_resource res = {pk_intern_cstr(p, "app"), pk_intern_cstr(p, "/opt/app"),
                       pk_intern_cstr(p, "feedface"), 0x400000, 0x480000, 0};
    uint32_t app = pk_intern_resource(p, &res);
    uint32_t f_main = tb_function(p, "main", "main.c", 5, app);
    uint32_t f_work = tb_function(p, "work", "work.c", 10, app);
    uint32_t f_a = tb_function(p, "inline_a", "a.h", 1, app);
    uint32_t f_b = tb_function(p, "inline_b", "b.h", 2, app);
    uint32_t flags = PK_FRAME_HAS_ADDRESS;
    uint32_t s_main = tb_push(p, PK_NONE, f_main, 7, 0x401000, app, flags);
    uint32_t s_work = tb_push(p, s_main, f_work, 12, 0x402000, app, flags);
    uint32_t s_a = tb_push(p, s_work, f_a, 3, 0x402000, app, flags | PK_FRAME_INLINED);
    uint32_t s_b = tb_push(p, s_a, f_b, 4, 0x402000, app, flags | PK_FRAME_INLINED);
    uint32_t s_work2 = tb_push(p, s_main, f_work, 13, 0x402010, app, flags);
    uint32_t t1 = pk_add_thread(p, pk_intern_cstr(p, "main-thread"), 100, 100);
    uint32_t t2 = pk_add_thread(p, pk_intern_cstr(p, "io"), 100, 101);
    int64_t v1[2] = {3, 30000000}, v2[2] = {1, 10000000}, v3[2] = {2, 20000000};
    assert_int_equal(pk_add_sample(p, t1, s_b, v1), PK_OK);
    assert_int_equal(pk_add_sample(p, t1, s_work2, v2), PK_OK);
    assert_int_equal(pk_add_sample(p, t2, s_b, v3), PK_OK);
    assert_int_equal(pk_add_sample(p, t2, s_main, v2), PK_OK);
    pk_metadata *meta = pk_metadata_of(p);
    meta->period = 10000000;
    meta->period_type = pk_intern_cstr(p, "cpu");
    meta->period_unit = pk_intern_cstr(p, "nanoseconds");
    meta->start_time = 1600000000123456789;
    meta->end_time = 1600000003123456789;
    pk_property_set(p, "os", "linux");
    return p;
}

static Perftools__Profiles__Profile *unpack_written(const char *data, size_t size)
{
    /* inflate the writer's output and let protobuf-c decode it whole */
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)size;
    z.next_out = buf;
    z.avail_out = (uInt)cap;
    assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
    size_t n = cap - z.avail_out;
    inflateEnd(&z);
    Perftools__Profiles__Profile *profile = perftools__profiles__profile__unpack(NULL, n, buf);
    free(buf);
    assert_non_null(profile);
    return profile;
}

static const char *pstr(const Perftools__Profiles__Profile *pr, int64_t i)
{
    assert_true(i >= 0 && (size_t)i < pr->n_string_table);
    return pr->string_table[i];
}

/* The written message follows the rules pprof checks: string 0 empty, dense IDs, one value
 * per sample type, inlined frames folded into one location innermost first. */
static void writes_what_pprof_expects(void **state)
{
    (void)state;
    pk_profile *p = native_profile();
    char *data;
    size_t size;
    pk_error err;
    assert_int_equal(pk_write_memory(p, &pk_format_pprof, NULL, &data, &size, &err), PK_OK);
    assert_true(size > 2 && (uint8_t)data[0] == 0x1f && (uint8_t)data[1] == 0x8b);
    Perftools__Profiles__Profile *pr = unpack_written(data, size);
    assert_string_equal(pr->string_table[0], "");
    assert_int_equal(pr->n_sample_type, 2);
    assert_string_equal(pstr(pr, pr->sample_type[1]->type), "cpu");
    assert_string_equal(pstr(pr, pr->default_sample_type), "cpu");
    assert_int_equal(pr->period, 10000000);
    assert_string_equal(pstr(pr, pr->period_type->type), "cpu");
    assert_true(pr->time_nanos == 1600000000123456789);
    assert_true(pr->duration_nanos == 3000000000);
    for (size_t i = 0; i < pr->n_location; i++)
        assert_int_equal(pr->location[i]->id, i + 1);
    for (size_t i = 0; i < pr->n_function; i++)
        assert_int_equal(pr->function[i]->id, i + 1);
    assert_int_equal(pr->n_mapping, 1);
    assert_int_equal(pr->mapping[0]->id, 1);
    assert_string_equal(pstr(pr, pr->mapping[0]->filename), "/opt/app");
    assert_string_equal(pstr(pr, pr->mapping[0]->build_id), "feedface");
    assert_true(pr->mapping[0]->memory_start == 0x400000);
    assert_true(pr->mapping[0]->has_functions && pr->mapping[0]->has_inline_frames);
    /* main, work+inline_a+inline_b (one location), work at another address */
    assert_int_equal(pr->n_location, 3);
    const Perftools__Profiles__Location *folded = NULL;
    for (size_t i = 0; i < pr->n_location; i++)
        if (pr->location[i]->n_line == 3)
            folded = pr->location[i];
    assert_non_null(folded);
    assert_true(folded->address == 0x402000);
    assert_int_equal(folded->mapping_id, 1);
    const char *names[3];
    for (int k = 0; k < 3; k++) {
        const Perftools__Profiles__Function *fn = pr->function[folded->line[k]->function_id - 1];
        names[k] = pstr(pr, fn->name);
    }
    assert_string_equal(names[0], "inline_b");
    assert_string_equal(names[1], "inline_a");
    assert_string_equal(names[2], "work");
    assert_int_equal(folded->line[0]->line, 4);
    int64_t cpu = 0;
    size_t labeled = 0;
    for (size_t i = 0; i < pr->n_sample; i++) {
        const Perftools__Profiles__Sample *s = pr->sample[i];
        assert_int_equal(s->n_value, 2);
        cpu += s->value[1];
        for (size_t k = 0; k < s->n_label; k++)
            if (strcmp(pstr(pr, s->label[k]->key), "thread") == 0)
                labeled++;
        /* leaf first: the last location is main's */
        const Perftools__Profiles__Location *root = pr->location[s->location_id[s->n_location_id - 1] - 1];
        assert_string_equal(pstr(pr, pr->function[root->line[0]->function_id - 1]->name), "main");
    }
    assert_int_equal(cpu, 70000000);
    assert_int_equal(labeled, pr->n_sample);
    perftools__profiles__profile__free_unpacked(pr, NULL);
    free(data);
    pk_profile_free(p);
}

static void round_trip_keeps_the_model(void **state)
{
    (void)state;
    pk_profile *p = native_profile();
    for (int level = 0; level <= 9; level += 9) {
        pk_write_options wo = {.value = PK_NONE,
                               .compression = level ? PK_COMPRESSION_GZIP : PK_COMPRESSION_NONE,
                               .compression_level = level};
        char *data;
        size_t size;
        pk_error err;
        assert_int_equal(pk_write_memory(p, &pk_format_pprof, &wo, &data, &size, &err), PK_OK);
        if (level == 0)
            assert_int_equal((uint8_t)data[0], 0x0a); /* plain protobuf: sample_type first */
        pk_profile *q;
        assert_int_equal(read_bytes(data, size, false, &q, &err), PK_OK);
        assert_int_equal(pk_value_type_count(q), 2);
        assert_int_equal(pk_default_value(q), 1);
        assert_int_equal(pk_value_total(q, 0), 7);
        assert_int_equal(pk_value_total(q, 1), 70000000);
        assert_int_equal(pk_thread_count(q), 2);
        size_t row = find_row(q, "main-thread", "main;work;+inline_a;+inline_b");
        assert_true(row != SIZE_MAX);
        assert_int_equal(pk_sample_values(q, row)[0], 3);
        row = find_row(q, "io", "main;work;+inline_a;+inline_b");
        assert_true(row != SIZE_MAX);
        assert_int_equal(pk_sample_values(q, row)[0], 2);
        assert_true(find_row(q, "io", "main") != SIZE_MAX);
        assert_true(find_row(q, "main-thread", "main;work") != SIZE_MAX);
        const pk_thread *t = pk_thread_at(q, pk_sample_thread(q, row));
        assert_int_equal(t->pid, 100);
        assert_int_equal(t->tid, 101);
        const pk_metadata *meta = pk_metadata_get(q);
        assert_true(meta->start_time == 1600000000123456789);
        assert_true(meta->end_time == 1600000003123456789);
        assert_int_equal(meta->period, 10000000);
        assert_string_equal(pk_property_get(q, "os"), "linux");
        const pk_resource *res = pk_resource_at(q, 0);
        assert_string_equal(pk_str(q, res->name), "app");
        assert_string_equal(pk_str(q, res->build_id), "feedface");

        /* and once more: pprof -> pprof is stable */
        char *again;
        size_t again_size;
        assert_int_equal(pk_write_memory(q, &pk_format_pprof, &wo, &again, &again_size, &err),
                         PK_OK);
        pk_profile *r;
        assert_int_equal(read_bytes(again, again_size, false, &r, &err), PK_OK);
        assert_int_equal(pk_sample_count(r), pk_sample_count(q));
        assert_int_equal(pk_value_total(r, 1), 70000000);
        assert_int_equal(pk_stack_count(r), pk_stack_count(q));
        pk_profile_free(r);
        free(again);
        pk_profile_free(q);
        free(data);
    }
    pk_profile_free(p);
}

/* The string value of label `key` on sample s, or NULL. */
static const char *label_text(const Perftools__Profiles__Profile *pr,
                              const Perftools__Profiles__Sample *s, const char *key)
{
    for (size_t k = 0; k < s->n_label; k++)
        if (strcmp(pstr(pr, s->label[k]->key), key) == 0 && s->label[k]->str != 0)
            return pstr(pr, s->label[k]->str);
    return NULL;
}

/* Threads sharing a name keep it through pprof. The shape the round-trip fuzzer found: a
 * .bsprof whose modules 9 and 10 have one name and the same stack, which pprof's `thread`
 * label shows as "name (module 9)" and "name (module 10)"; read back, those became the
 * threads' own names, so the two threads no longer shared one. Threads without a name (shown
 * as "Thread N") and threads told apart only by their order are the same case. */
static void threads_sharing_a_name(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    pk_metadata_of(p)->source_format = pk_intern_cstr(p, "bsprof");
    /* What the bsprof reader records: its thread ids are modules. */
    assert_int_equal(pk_property_set(p, "thread id name", "module"), PK_OK);
    pk_add_value_type(p, "cpu", "operations");
    uint32_t f_init = tb_function(p, "init", "pkg:/components/Item.brs", 1, PK_NONE);
    uint32_t stack = tb_push(p, PK_NONE, f_init, 1, 0, PK_NONE, 0);
    uint32_t item = pk_intern_cstr(p, "Item");
    uint32_t threads[7] = {
        pk_add_thread(p, item, 0, 9),  pk_add_thread(p, item, 0, 10),
        pk_add_thread(p, 0, 0, 3),     pk_add_thread(p, 0, 0, 4),
        pk_add_thread(p, pk_intern_cstr(p, "worker"), -1, -1),
        pk_add_thread(p, pk_intern_cstr(p, "worker"), -1, -1),
        pk_add_thread(p, pk_intern_cstr(p, "main"), 0, 1),
    };
    for (int i = 0; i < 7; i++) {
        int64_t v = 100 + i;
        assert_int_equal(pk_add_sample(p, threads[i], stack, &v), PK_OK);
    }

    /* pprof's viewers group by `thread`: the display name; `thread_name` holds the own name */
    pk_write_options wo = {.value = PK_NONE, .compression = PK_COMPRESSION_GZIP};
    char *data;
    size_t size;
    pk_error err;
    assert_int_equal(pk_write_memory(p, &pk_format_pprof, &wo, &data, &size, &err), PK_OK);
    Perftools__Profiles__Profile *pr = unpack_written(data, size);
    assert_int_equal(pr->n_sample, 7);
    static const char *const shown[7] = {"Item (module 9)", "Item (module 10)", "Thread 3",
                                         "Thread 4", "worker #1", "worker #2", "main"};
    static const char *const own[7] = {"Item", "Item", "", "", "worker", "worker", "main"};
    for (size_t i = 0; i < 7; i++) {
        const Perftools__Profiles__Sample *s = pr->sample[i];
        int k = (int)(s->value[0] - 100);
        assert_true(k >= 0 && k < 7);
        assert_string_equal(label_text(pr, s, "thread"), shown[k]);
        if (k == 6) /* a name no other thread has: `thread` alone */
            assert_null(label_text(pr, s, "thread_name"));
        else
            assert_string_equal(label_text(pr, s, "thread_name"), own[k]);
    }
    perftools__profiles__profile__free_unpacked(pr, NULL);

    /* read back: seven threads with their own names and ids, each with its row */
    pk_profile *q;
    assert_int_equal(read_bytes(data, size, false, &q, &err), PK_OK);
    assert_int_equal(pk_thread_count(q), 7);
    assert_int_equal(pk_sample_count(q), 7);
    for (size_t row = 0; row < 7; row++) {
        int k = (int)(pk_sample_values(q, row)[0] - 100);
        assert_true(k >= 0 && k < 7);
        const pk_thread *t = pk_thread_at(q, pk_sample_thread(q, row));
        const pk_thread *was = pk_thread_at(p, threads[k]);
        assert_string_equal(pk_str(q, t->name), own[k]);
        assert_int_equal(t->pid, was->pid);
        assert_int_equal(t->tid, was->tid);
    }
    pk_profile_free(q);
    free(data);
    pk_profile_free(p);
}

/* Samples in a profile that declares no sample types: rows without values. Their values once
 * reached the model as an offset into its null array of values, which the fuzz build's
 * sanitizer caught (the shape it found: an empty sample, then damage, read with salvage). */
static void samples_without_sample_types(void **state)
{
    (void)state;
    tb_bytes b = {0};
    for (int i = 0; i < 2; i++) {
        tb_varint(&b, 2u << 3 | BYTES); /* sample {} */
        tb_varint(&b, 0);
    }
    pb_string(&b, "");
    pk_profile *p = NULL;
    pk_error err;
    if (read_bytes(b.data, b.len, false, &p, &err) != PK_OK)
        fail_msg("%s at %lld", err.message, (long long)err.offset);
    assert_int_equal(pk_value_type_count(p), 0);
    assert_int_equal(pk_sample_count(p), 1); /* both samples: the same thread and no stack */
    pk_profile_free(p);

    /* The fuzzer's shape: damage after the sample, kept with salvage. */
    tb_u8(&b, 0x00); /* field number 0 */
    assert_int_equal(read_bytes(b.data, b.len, false, &p, &err), PK_ERR_INPUT);
    assert_int_equal(read_bytes(b.data, b.len, true, &p, &err), PK_OK);
    assert_int_equal(pk_sample_count(p), 1);
    pk_profile_free(p);
    tb_free(&b);
}

/* Samples encoded by hand are the bytes libprotobuf-c packs from the same message: IDs and
 * values of every size (negative values ten bytes long), none of either, labels with fields
 * left out. */
static void samples_encoded_as_libprotobuf_c_packs_them(void **state)
{
    (void)state;
    uint64_t ids[300];
    int64_t values[8];
    pprof_label labels[4];
    Perftools__Profiles__Label message_labels[4], *label_pointers[4];
    uint64_t x = 7;
    for (int round = 0; round < 2000; round++) {
        pprof_sample s = {ids, (size_t)(round % 7 == 0 ? 0 : (round * 37) % 300), values,
                          (size_t)(round % 5 == 0 ? 0 : round % 9), labels, (size_t)(round % 5)};
        if (s.value_count > 8)
            s.value_count = 8;
        for (size_t i = 0; i < s.location_count; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            ids[i] = (x >> (x % 64)) + 1; /* every size of varint */
        }
        for (size_t i = 0; i < s.value_count; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            values[i] = (int64_t)(x >> (x % 64)) * (i % 3 == 2 ? -1 : 1) * (i % 4 == 3 ? 0 : 1);
        }
        for (size_t i = 0; i < s.label_count; i++) {
            labels[i] = (pprof_label){(int64_t)i + 1, i % 2 ? 0 : (int64_t)(x % 1000),
                                      i % 2 ? (int64_t)(x % 100000) - 50000 : 0,
                                      i % 4 == 1 ? (int64_t)(x % 7) : 0};
            perftools__profiles__label__init(&message_labels[i]);
            message_labels[i].key = labels[i].key;
            message_labels[i].str = labels[i].str;
            message_labels[i].num = labels[i].num;
            message_labels[i].num_unit = labels[i].num_unit;
            label_pointers[i] = &message_labels[i];
        }
        Perftools__Profiles__Sample message = PERFTOOLS__PROFILES__SAMPLE__INIT;
        message.n_location_id = s.location_count;
        message.location_id = ids;
        message.n_value = s.value_count;
        message.value = values;
        message.n_label = s.label_count;
        message.label = label_pointers;
        size_t want_size = perftools__profiles__sample__get_packed_size(&message);
        uint8_t *want = malloc(want_size + 1), *got = malloc(pprof_sample_max_size(&s));
        assert_non_null(want);
        assert_non_null(got);
        assert_int_equal(perftools__profiles__sample__pack(&message, want), want_size);
        size_t got_size = pprof_encode_sample(got, &s);
        assert_true(got_size <= pprof_sample_max_size(&s));
        assert_int_equal(got_size, want_size);
        assert_memory_equal(got, want, want_size);
        free(want);
        free(got);
    }
}

static void writer_edge_cases(void **state)
{
    (void)state;
    pk_error err;
    char *data;
    size_t size;
    /* an empty profile: no value types, no samples; its message would be a bare string
     * table that no probe takes for a profile, so the writer refuses it */
    pk_profile *p = pk_profile_new();
    data = NULL;
    assert_int_equal(pk_write_memory(p, &pk_format_pprof, NULL, &data, &size, &err),
                     PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "no values"));
    assert_null(data);
    /* with a value type and still no samples, it is written and read back */
    pk_profile *q;
    pk_profile *typed = pk_profile_new();
    pk_add_value_type(typed, "cpu", "nanoseconds");
    assert_int_equal(pk_write_memory(typed, &pk_format_pprof, NULL, &data, &size, &err), PK_OK);
    assert_int_equal(read_bytes(data, size, false, &q, &err), PK_OK);
    assert_int_equal(pk_sample_count(q), 0);
    assert_int_equal(pk_value_type_count(q), 1);
    pk_profile_free(q);
    pk_profile_free(typed);
    free(data);
    /* a bad compression level */
    pk_write_options wo = {.value = PK_NONE, .compression = PK_COMPRESSION_GZIP,
                           .compression_level = 12};
    assert_int_equal(pk_write_memory(p, &pk_format_pprof, &wo, &data, &size, &err), PK_ERR_USAGE);
    pk_profile_free(p);

    /* the chosen value becomes the default sample type; a sample with an empty stack */
    p = pk_profile_new();
    pk_add_value_type(p, "a", "count");
    pk_add_value_type(p, "b", "bytes");
    uint32_t t = pk_add_thread(p, 0, -1, -1);
    int64_t v[2] = {1, 2};
    pk_add_sample(p, t, PK_NONE, v);
    wo = (pk_write_options){.value = 1};
    assert_int_equal(pk_write_memory(p, &pk_format_pprof, &wo, &data, &size, &err), PK_OK);
    assert_int_equal(read_bytes(data, size, false, &q, &err), PK_OK);
    assert_int_equal(pk_default_value(q), 1);
    assert_int_equal(pk_sample_count(q), 1);
    assert_int_equal(pk_sample_stack(q, 0), PK_NONE);
    assert_int_equal(pk_value_total(q, 1), 2);
    pk_profile_free(q);
    free(data);
    pk_profile_free(p);
}

/* The output of p in format as text (NUL bytes included). */
static char *written_as(const pk_profile *p, const pk_format *format, size_t *size)
{
    char *data = NULL;
    pk_error err;
    if (pk_write_memory(p, format, NULL, &data, size, &err) != PK_OK)
        fail_msg("%s: %s", format->name, err.message);
    return data;
}

static bool holds(const char *data, size_t size, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= size; i++)
        if (memcmp(data + i, needle, n) == 0)
            return true;
    return false;
}

/* odd-strings.pb (tests/data/pprof/make_fixtures.py): go tool pprof -top shows "mid\0nul",
 * "\0lead" and, for the empty name, <unknown>, as profkit names it; whole names (the model
 * keeps NUL bytes) that every output escapes: JSON as \u0000, SVG as U+2400, folded as '_'. */
static void odd_strings(void **state)
{
    (void)state;
    pk_status status;
    pk_error err;
    pk_profile *p = tb_read_file_with(tb_data_path("pprof/odd-strings.pb"), NULL, NULL, 0,
                                      &status, &err);
    if (!p)
        fail_msg("odd-strings.pb: %s", err.message);
    size_t size;
    char *folded = written_as(p, &pk_format_folded, &size);
    /* The empty name is no address: it is what go tool pprof shows. */
    assert_false(holds(folded, size, "0x"));
    assert_true(holds(folded, size, "main;mid_nul 3\n"));
    assert_true(holds(folded, size, "main;<unknown> 1\n"));
    assert_true(holds(folded, size, "main;_lead 2\n"));
    free(folded);
    char *json = written_as(p, &pk_format_speedscope, &size);
    assert_true(holds(json, size, "\"mid\\u0000nul\""));
    assert_true(holds(json, size, "\"\\u0000lead\""));
    free(json);
    json = written_as(p, &pk_format_firefox, &size);
    assert_true(holds(json, size, "\"mid\\u0000nul\""));
    free(json);
    char *svg = written_as(p, &pk_format_svg, &size);
    assert_true(holds(svg, size, "mid\xe2\x90\x80nul"));
    assert_null(memchr(svg, '\0', size));
    free(svg);
    /* pprof keeps the bytes. */
    char *pb = written_as(p, &pk_format_pprof, &size);
    pk_profile *again = NULL;
    assert_int_equal(pk_read_memory(pb, size, NULL, NULL, &again, &err), PK_OK);
    bool found = false;
    for (size_t i = 0; i < pk_string_count(again); i++)
        found |= pk_str_len(again, (uint32_t)i) == 7 && memcmp(pk_str(again, (uint32_t)i),
                                                                 "mid\0nul", 7) == 0;
    assert_true(found);
    pk_profile_free(again);
    free(pb);
    pk_profile_free(p);
}

/* Inline chains that extend one outer frame in turn: each keeps a location of its own, however
 * the samples alternate between them. */
static void inline_chains_sharing_an_outer_frame(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    pk_add_value_type(p, "samples", "count");
    pk_resource res = {pk_intern_cstr(p, "app"), pk_intern_cstr(p, "/opt/app"), 0, 0x400000,
                       0x480000, 0};
    uint32_t app = pk_intern_resource(p, &res);
    uint32_t f_main = tb_function(p, "main", "main.c", 5, app);
    uint32_t f_work = tb_function(p, "work", "work.c", 10, app);
    uint32_t f_a = tb_function(p, "inline_a", "a.h", 1, app);
    uint32_t f_b = tb_function(p, "inline_b", "b.h", 2, app);
    uint32_t flags = PK_FRAME_HAS_ADDRESS, inl = flags | PK_FRAME_INLINED;
    uint32_t s_main = tb_push(p, PK_NONE, f_main, 7, 0x401000, app, flags);
    uint32_t s_work = tb_push(p, s_main, f_work, 12, 0x402000, app, flags);
    uint32_t s_a = tb_push(p, s_work, f_a, 3, 0x402000, app, inl);
    uint32_t s_b = tb_push(p, s_work, f_b, 4, 0x402000, app, inl);
    uint32_t s_ab = tb_push(p, s_a, f_b, 4, 0x402000, app, inl);
    uint32_t s_ba = tb_push(p, s_b, f_a, 3, 0x402000, app, inl);
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    /* work is extended by inline_a, inline_b, inline_a, inline_b again: rows in that order. */
    uint32_t order[5] = {s_a, s_b, s_ab, s_ba, s_work};
    for (int i = 0; i < 5; i++) {
        int64_t v = (int64_t)1 << i;
        assert_int_equal(pk_add_sample(p, t, order[i], &v), PK_OK);
    }
    char *data;
    size_t size;
    pk_error err;
    assert_int_equal(pk_write_memory(p, &pk_format_pprof, NULL, &data, &size, &err), PK_OK);
    Perftools__Profiles__Profile *pr = unpack_written(data, size);
    /* work alone, work+a, work+b, work+a+b, work+b+a; main: six locations. */
    assert_int_equal(pr->n_location, 6);
    perftools__profiles__profile__free_unpacked(pr, NULL);
    pk_profile *q;
    assert_int_equal(read_bytes(data, size, false, &q, &err), PK_OK);
    const char *stacks[5] = {"main;work;+inline_a", "main;work;+inline_b",
                             "main;work;+inline_a;+inline_b", "main;work;+inline_b;+inline_a",
                             "main;work"};
    for (int i = 0; i < 5; i++) {
        size_t row = find_row(q, "main", stacks[i]);
        assert_true(row != SIZE_MAX);
        assert_int_equal(pk_sample_values(q, row)[0], (int64_t)1 << i);
    }
    assert_int_equal(pk_sample_count(q), 5);
    pk_profile_free(q);
    free(data);
    pk_profile_free(p);
}

/* unnamed.pb (tests/data/pprof/make_fixtures.py), as go tool pprof -top shows it: names that
 * are not UTF-8 as their bytes; a function without a name at no address as "[app]" in a
 * mapping with a file, else "<unknown>"; at an address (which go's -top merges into "[app]")
 * the address, for the symbolization pass to name. */
static void unnamed_functions(void **state)
{
    (void)state;
    pk_status status;
    pk_error err;
    pk_profile *p = tb_read_file_with(tb_data_path("pprof/unnamed.pb"), NULL, NULL, 0, &status,
                                      &err);
    if (!p)
        fail_msg("unnamed.pb: %s", err.message);
    size_t size;
    char *folded = written_as(p, &pk_format_folded, &size);
    assert_true(holds(folded, size, "main;bad\xffname 6\n"));
    assert_true(holds(folded, size, "main;cut\xc3 5\n"));
    assert_true(holds(folded, size, "main;0x2345 4\n"));
    assert_true(holds(folded, size, "main;0x1234 3\n"));
    assert_true(holds(folded, size, "main;<unknown> 2\n"));
    free(folded);
    pk_profile_free(p);
}

/* The labels of a row as "key=value" (numbers as "key=N unit"), joined by ' '. */
static void labels_text(const pk_profile *p, size_t row, char *out, size_t cap)
{
    const pk_label *labels;
    size_t n = pk_label_set_at(p, pk_sample_label_set(p, row), &labels);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t used = strlen(out);
        if (labels[i].str != PK_NONE)
            snprintf(out + used, cap - used, "%s%s=%s", i ? " " : "", pk_str(p, labels[i].key),
                     pk_str(p, labels[i].str));
        else
            snprintf(out + used, cap - used, "%s%s=%lld %s", i ? " " : "",
                     pk_str(p, labels[i].key), (long long)labels[i].num,
                     pk_str(p, labels[i].unit));
    }
}

/* Value 0 of the rows whose labels read `labels`, summed. */
static int64_t labelled_total(const pk_profile *p, const char *labels)
{
    int64_t total = 0;
    char text[256];
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        labels_text(p, row, text, sizeof text);
        if (strcmp(text, labels) == 0)
            total += pk_sample_values(p, row)[0];
    }
    return total;
}

/* Sample labels survive pprof -> model -> pprof: strings (an empty one too), numbers with their
 * units; the thread's labels stay the thread's. labels-cpu.pb.gz is Go's (pprof.Do labels,
 * tests/data/pprof/labels/labels.go): `go tool pprof -raw` shows handler:[login] user:[alice]
 * on 3 samples, handler:[search] on 8 and none on 3. */
static void labels_round_trip(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "worker"), 5, 6);
    uint32_t s = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &(pk_frame){
        pk_intern_function(p, &(pk_function){.name = pk_intern_cstr(p, "f"),
                                              .resource = PK_NONE}), 0, 0, PK_NONE, 0}));
    pk_label l[3] = {{pk_intern_cstr(p, "span"), 0, 0, 0},
                     {pk_intern_cstr(p, "bytes"), PK_NONE, -64, pk_intern_cstr(p, "bytes")},
                     {pk_intern_cstr(p, "n"), PK_NONE, 0, 0}};
    int64_t one = 1, two = 2;
    assert_int_equal(pk_add_sample_labeled(p, t, s, pk_intern_label_set(p, l, 3), &one), PK_OK);
    assert_int_equal(pk_add_sample(p, t, s, &two), PK_OK);
    size_t size;
    char *pb = written_as(p, &pk_format_pprof, &size);
    pk_profile *again = NULL;
    pk_error err;
    assert_int_equal(pk_read_memory(pb, size, NULL, NULL, &again, &err), PK_OK);
    assert_int_equal(pk_thread_count(again), 1);
    assert_int_equal(pk_thread_at(again, 0)->tid, 6);
    assert_int_equal(labelled_total(again, "span= bytes=-64 bytes n=0 "), 1);
    assert_int_equal(labelled_total(again, ""), 2);
    assert_int_equal(pk_sample_count(again), 2);
    free(pb);
    pk_profile_free(again);
    pk_profile_free(p);

    pk_status status;
    p = tb_read_file_with(tb_data_path("pprof/labels-cpu.pb.gz"), NULL, NULL, 0, &status, &err);
    if (!p)
        fail_msg("labels-cpu.pb.gz: %s", err.message);
    assert_int_equal(pk_warning_count(p), 0);
    assert_int_equal(labelled_total(p, "handler=login user=alice"), 3);
    assert_int_equal(labelled_total(p, "handler=search"), 8);
    assert_int_equal(labelled_total(p, ""), 3);
    pb = written_as(p, &pk_format_pprof, &size);
    assert_int_equal(pk_read_memory(pb, size, NULL, NULL, &again, &err), PK_OK);
    assert_int_equal(labelled_total(again, "handler=login user=alice"), 3);
    assert_int_equal(labelled_total(again, "handler=search"), 8);
    assert_int_equal(labelled_total(again, ""), 3);
    assert_int_equal(pk_label_set_count(again), 2);
    free(pb);
    pk_profile_free(again);
    pk_profile_free(p);

    p = tb_read_file_with(tb_data_path("pprof/labels-heap.pb.gz"), NULL, NULL, 0, &status, &err);
    if (!p)
        fail_msg("labels-heap.pb.gz: %s", err.message);
    assert_int_equal(pk_warning_count(p), 0);
    /* Go labels its heap samples with their block size (bytes), when it knows one. */
    size_t labelled = 0;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        const pk_label *labels;
        if (pk_label_set_at(p, pk_sample_label_set(p, row), &labels) == 0)
            continue;
        labelled++;
        assert_string_equal(pk_str(p, labels[0].key), "bytes");
        assert_int_equal(labels[0].str, PK_NONE);
        assert_true(labels[0].num > 0);
    }
    assert_true(labelled > pk_sample_count(p) / 2);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_fixture_built_by_hand),
        cmocka_unit_test(reads_gzip_and_concatenated_members),
        cmocka_unit_test(every_truncation_point),
        cmocka_unit_test(damaged_files_are_clear_errors),
        cmocka_unit_test(damage_and_salvage),
        cmocka_unit_test(fields_larger_than_the_input_buffer),
        cmocka_unit_test(wire_fields_in_memory),
        cmocka_unit_test(dump_lists_fields_up_to_damage),
        cmocka_unit_test(unsymbolized_locations),
        cmocka_unit_test(many_sample_types_and_labels),
        cmocka_unit_test(probe_scores),
        cmocka_unit_test(writes_what_pprof_expects),
        cmocka_unit_test(round_trip_keeps_the_model),
        cmocka_unit_test(threads_sharing_a_name),
        cmocka_unit_test(samples_without_sample_types),
        cmocka_unit_test(inline_chains_sharing_an_outer_frame),
        cmocka_unit_test(samples_encoded_as_libprotobuf_c_packs_them),
        cmocka_unit_test(writer_edge_cases),
        cmocka_unit_test(odd_strings),
        cmocka_unit_test(unnamed_functions),
        cmocka_unit_test(labels_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
