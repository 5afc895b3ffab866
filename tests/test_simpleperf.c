/* SPDX-License-Identifier: MIT */
/* simpleperf reports: the fixture tests/data/simpleperf/app.simpleperf (written by
 * make_fixtures.py from the .proto) read into threads, values, frames named as the Firefox
 * Profiler names them, timelines and properties; the fixture cut at every byte (the records
 * before the cut, with a warning, or an input error inside what was given); records that are
 * not Record messages, sizes past the input and an unknown version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixtures.h"
#include "formats/formats.h"
#include "profkit/format.h"
#include "profkit/profile.h"
#include "profkit/timeline.h"

static bool has_warning(const pk_profile *p, const char *part)
{
    for (size_t i = 0; i < pk_warning_count(p); i++)
        if (strstr(pk_warning_at(p, i), part))
            return true;
    return false;
}

static pk_status read_bytes(const void *data, size_t size, bool salvage, pk_profile **p,
                            pk_error *err)
{
    pk_read_options options = {0};
    options.salvage = salvage;
    memset(err, 0, sizeof *err);
    *p = NULL;
    return pk_read_memory(data, size, &pk_format_simpleperf, &options, p, err);
}

/* "thread;root;...;leaf" of a row. */
static void row_text(const pk_profile *p, size_t row, char *out, size_t cap)
{
    uint32_t frames[64];
    size_t depth = pk_stack_frames(p, pk_sample_stack(p, row), frames, 64);
    assert_true(depth <= 64);
    int n = snprintf(out, cap, "%s", pk_str(p, pk_thread_at(p, pk_sample_thread(p, row))->name));
    for (size_t i = 0; i < depth; i++)
        n += snprintf(out + n, cap - (size_t)n, ";%s", pk_frame_name(p, frames[i]));
    assert_true((size_t)n < cap);
}

/* The value `value` of the row whose text is `text`, -1 when there is none. */
static int64_t row_value(const pk_profile *p, const char *text, const char *value)
{
    uint32_t v = pk_value_find(p, value);
    assert_int_not_equal(v, PK_NONE);
    char buf[512];
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        row_text(p, row, buf, sizeof buf);
        if (strcmp(buf, text) == 0)
            return pk_sample_values(p, row)[v];
    }
    return -1;
}

static uint32_t thread_named(const pk_profile *p, const char *name)
{
    for (uint32_t t = 0; t < pk_thread_count(p); t++)
        if (strcmp(pk_str(p, pk_thread_at(p, t)->name), name) == 0)
            return t;
    return PK_NONE;
}

static void reads_the_fixture(void **state)
{
    (void)state;
    size_t size;
    char *data = tb_read_data_file("simpleperf/app.simpleperf", &size);
    assert_non_null(data);
    pk_profile *p;
    pk_error err;
    assert_int_equal(read_bytes(data, size, false, &p, &err), PK_OK);

    /* threads by their Thread records, with process ids */
    assert_int_equal(pk_thread_count(p), 2);
    uint32_t main_thread = thread_named(p, "com.example.app");
    uint32_t render = thread_named(p, "RenderThread");
    assert_int_not_equal(main_thread, PK_NONE);
    assert_int_not_equal(render, PK_NONE);
    assert_int_equal(pk_thread_at(p, main_thread)->tid, 4242);
    assert_int_equal(pk_thread_at(p, render)->tid, 4250);
    assert_int_equal(pk_thread_at(p, render)->pid, 4242);

    /* each event type two values, the first the default */
    uint32_t clock = pk_value_find(p, "cpu-clock");
    assert_int_equal(clock, pk_default_value(p));
    assert_string_equal(pk_str(p, pk_value_type_at(p, clock)->unit), "nanoseconds");
    assert_string_equal(pk_str(p, pk_value_type_at(p, pk_value_find(p, "cpu-cycles"))->unit),
                        "events");
    assert_int_equal(pk_value_total(p, clock), 9000000);
    assert_int_equal(pk_value_total(p, pk_value_find(p, "cpu-clock-samples")), 9);
    assert_int_equal(pk_value_total(p, pk_value_find(p, "cpu-cycles")), 5000);
    assert_int_equal(pk_value_total(p, pk_value_find(p, "cpu-cycles-samples")), 1);

    /* frames: symbols, the mangled name for an empty symbol, file+address without one */
    const char *main_prefix = "com.example.app;__libc_init;com.example.app.MainActivity.onCreate";
    char text[512];
    snprintf(text, sizeof text, "%s;compute();helper(int)", main_prefix);
    assert_int_equal(row_value(p, text, "cpu-clock"), 3000000);
    snprintf(text, sizeof text, "%s;compute();memcpy", main_prefix);
    assert_int_equal(row_value(p, text, "cpu-clock-samples"), 2);
    snprintf(text, sizeof text, "%s;libnative.so+0x1234", main_prefix);
    assert_int_equal(row_value(p, text, "cpu-clock-samples"), 1);
    snprintf(text, sizeof text, "%s;_Z5emptyv", main_prefix);
    assert_int_equal(row_value(p, text, "cpu-clock-samples"), 1);
    assert_int_equal(
        row_value(p, "RenderThread;com.example.app.Worker.run;memcpy;el0_svc", "cpu-clock"),
        2000000);
    assert_int_equal(row_value(p, "RenderThread;com.example.app.Worker.run;memcpy", "cpu-cycles"),
                     5000);

    /* the file is the resource; Java code is script code, native code is not */
    for (uint32_t f = 0; f < pk_function_count(p); f++) {
        const pk_function *fn = pk_function_at(p, f);
        const char *name = pk_str(p, fn->name);
        if (strcmp(name, "compute()") == 0) {
            assert_int_not_equal(fn->resource, PK_NONE);
            const pk_resource *res = pk_resource_at(p, fn->resource);
            assert_string_equal(pk_str(p, res->name), "libnative.so");
            assert_string_equal(pk_str(p, res->path),
                                "/data/app/com.example.app/lib/arm64/libnative.so");
            assert_int_equal(fn->flags & PK_FUNCTION_SCRIPT, 0);
        } else if (strcmp(name, "com.example.app.Worker.run") == 0) {
            assert_int_not_equal(fn->flags & PK_FUNCTION_SCRIPT, 0);
        }
    }

    /* timelines: every sample at its time */
    pk_timeline_info info;
    pk_timeline_info_get(p, main_thread, &info);
    assert_true(info.measured);
    assert_int_equal(info.count, 7);
    assert_int_equal(info.first, 5000000000);
    pk_timeline_info_get(p, render, &info);
    assert_int_equal(info.count, 3);
    pk_timeline_cursor *c;
    assert_int_equal(pk_timeline_open(p, render, &c), PK_OK);
    pk_timed_sample s;
    int64_t last = 0;
    size_t n = 0;
    while (pk_timeline_next(c, &s)) {
        assert_true(s.time > last);
        last = s.time;
        n++;
    }
    assert_int_equal(pk_timeline_close(c), PK_OK);
    assert_int_equal(n, 3);

    /* meta info, lost counts, context switches */
    assert_string_equal(pk_str(p, pk_metadata_get(p)->product), "com.example.app");
    assert_string_equal(pk_property_get(p, "simpleperf.lost_count"), "1");
    assert_string_equal(pk_property_get(p, "simpleperf.sample_count"), "10");
    assert_string_equal(pk_property_get(p, "simpleperf.context_switches"), "1");
    assert_string_equal(pk_property_get(p, "simpleperf.android_sdk_version"), "34");
    assert_true(has_warning(p, "lost 1 samples"));
    assert_false(has_warning(p, "cut"));
    pk_profile_free(p);
    free(data);
}

/* Files and threads before the samples, event ids without meta info, a file nothing describes. */
static void reads_names_first(void **state)
{
    (void)state;
    size_t size;
    char *data = tb_read_data_file("simpleperf/names-first.simpleperf", &size);
    assert_non_null(data);
    pk_profile *p;
    pk_error err;
    assert_int_equal(read_bytes(data, size, false, &p, &err), PK_OK);
    assert_int_equal(pk_thread_count(p), 1);
    assert_int_equal(row_value(p, "main;main;art_quick_invoke_stub;ExecuteSwitchImpl", "event-3"),
                     250);
    assert_int_equal(row_value(p, "main;main;[file 9] symbol 0", "event-3-samples"), 1);
    assert_true(has_warning(p, "1 frames name a file id"));
    pk_profile_free(p);
    free(data);
}

static void every_cut_keeps_whole_records(void **state)
{
    (void)state;
    size_t size;
    char *data = tb_read_data_file("simpleperf/app.simpleperf", &size);
    assert_non_null(data);
    int64_t previous = 0;
    for (size_t cut = 0; cut <= size; cut++) {
        pk_profile *p;
        pk_error err;
        pk_status st = read_bytes(data, cut, false, &p, &err);
        if (cut < 12) {
            assert_int_equal(st, PK_ERR_INPUT);
            assert_true(err.offset >= 0 && (size_t)err.offset <= cut);
            pk_profile_free(p);
            continue;
        }
        assert_int_equal(st, PK_OK);
        assert_int_equal(has_warning(p, "cut at offset"), cut < size);
        int64_t samples = pk_value_total(p, pk_value_find(p, "cpu-clock-samples"));
        assert_true(samples >= previous && samples <= 9);
        previous = samples;
        pk_profile_free(p);
    }
    assert_int_equal(previous, 9);
    free(data);
}

static size_t header(uint8_t *b, unsigned version)
{
    memcpy(b, "SIMPLEPERF", 10);
    b[10] = (uint8_t)version;
    b[11] = 0;
    return 12;
}

static size_t put_le32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    return 4;
}

static void damage_and_limits(void **state)
{
    (void)state;
    uint8_t b[64];
    pk_profile *p;
    pk_error err;

    /* a record that is no Record message: damage at its offset, salvageable */
    size_t n = header(b, 1);
    n += put_le32(b + n, 3);
    memset(b + n, 0xff, 3);
    n += 3;
    n += put_le32(b + n, 0);
    assert_int_equal(read_bytes(b, n, false, &p, &err), PK_ERR_INPUT);
    assert_true(err.salvageable);
    assert_int_equal(err.offset, 16);
    assert_non_null(strstr(err.message, "not a simpleperf Record"));
    pk_profile_free(p);
    assert_int_equal(read_bytes(b, n, true, &p, &err), PK_OK);
    assert_non_null(p);
    pk_profile_free(p);

    /* a size far past the input: the input is cut, nothing of that size is allocated */
    n = header(b, 1);
    n += put_le32(b + n, 1u << 29);
    b[n++] = 0x0a;
    assert_int_equal(read_bytes(b, n, false, &p, &err), PK_OK);
    assert_true(has_warning(p, "cut at offset 17"));
    pk_profile_free(p);

    /* a size past any record simpleperf writes: damage */
    n = header(b, 1);
    n += put_le32(b + n, 0xffffffffu);
    assert_int_equal(read_bytes(b, n, false, &p, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, 12);
    pk_profile_free(p);

    /* another version: refused with its number */
    n = header(b, 2);
    n += put_le32(b + n, 0);
    assert_int_equal(read_bytes(b, n, false, &p, &err), PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "version 2"));
    pk_profile_free(p);

    /* no records at all: an empty profile with one value to show */
    n = header(b, 1);
    n += put_le32(b + n, 0);
    assert_int_equal(read_bytes(b, n, false, &p, &err), PK_OK);
    assert_int_equal(pk_sample_count(p), 0);
    assert_true(pk_value_type_count(p) > 0);
    pk_profile_free(p);

    /* the probe: certain for version 1, likely for another, no for anything else */
    header(b, 1);
    assert_int_equal(pk_format_simpleperf.probe(b, 12), PK_PROBE_CERTAIN);
    header(b, 3);
    assert_int_equal(pk_format_simpleperf.probe(b, 12), PK_PROBE_LIKELY);
    assert_int_equal(pk_format_simpleperf.probe((const uint8_t *)"SIMPLEPER", 9), PK_PROBE_NO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_the_fixture),
        cmocka_unit_test(reads_names_first),
        cmocka_unit_test(every_cut_keeps_whole_records),
        cmocka_unit_test(damage_and_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
