/* SPDX-License-Identifier: MIT */
/* speedscope writer: the exact output for a small profile (frames per function, one sampled
 * profile per thread, root-first stacks, weights of the chosen value), units, names, and
 * profiles without samples or threads. The output is checked against speedscope's schema and
 * importer by tests/cli/interop_speedscope.sh.
 *
 * speedscope reader: the fixtures of tests/data/speedscope (speedscope's own exporter, the
 * schema's versions, keys in every order), every unit, evented profiles weighed by the time
 * between events (what a fixture should give is computed here from the file with jansson),
 * what profkit writes read back, cut and damaged files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "fixtures.h"
#include "fn_totals.h"
#include "folded_rows.h"
#include "formats/formats.h"
#include "profkit/format.h"
#include "profkit/profile.h"
#include "profkit/version.h"
#include "reading.h"
#include "timeline_text.h"

static char *write_speedscope(const pk_profile *p, uint32_t value, const char *title)
{
    pk_write_options options = {0};
    options.value = value;
    options.title = title;
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    pk_error_clear(&err);
    if (pk_write_memory(p, &pk_format_speedscope, &options, &data, &size, &err) != PK_OK)
        fail_msg("write failed: %s", err.message);
    return data;
}

static uint32_t function_of(pk_profile *p, const char *name, const char *file, uint32_t start)
{
    pk_function f = {.name = pk_intern_cstr(p, name),
                     .file = file ? pk_intern_cstr(p, file) : 0,
                     .start_line = start,
                     .resource = PK_NONE};
    return pk_intern_function(p, &f);
}

static uint32_t frame_at(pk_profile *p, uint32_t function, uint32_t line)
{
    pk_frame fr = {.function = function, .line = line, .address = 0, .resource = PK_NONE,
                   .flags = 0};
    return pk_intern_frame(p, &fr);
}

static void add2(pk_profile *p, uint32_t thread, uint32_t stack, int64_t a, int64_t b)
{
    int64_t values[2] = {a, b};
    assert_int_equal(pk_add_sample(p, thread, stack, values), PK_OK);
}

static void test_exact_output(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t cpu = pk_add_value_type(p, "cpu", "nanoseconds");
    uint32_t calls = pk_add_value_type(p, "calls", "count");
    uint32_t t_main = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    uint32_t t_worker = pk_add_thread(p, pk_intern_cstr(p, "worker"), 1, 2);
    pk_add_thread(p, pk_intern_cstr(p, "idle"), 1, 3);

    uint32_t f_main = function_of(p, "main", "a.c", 1);
    uint32_t f_work = function_of(p, "work", "a.c", 5);
    uint32_t f_work_b = function_of(p, "work", "b.c", 0);
    uint32_t f_unused = function_of(p, "q\"uote", NULL, 0);
    uint32_t s_main = pk_intern_stack(p, PK_NONE, frame_at(p, f_main, 2));
    /* Two frames of one function (other lines): one speedscope frame. */
    uint32_t s_work6 = pk_intern_stack(p, s_main, frame_at(p, f_work, 6));
    uint32_t s_work7 = pk_intern_stack(p, s_main, frame_at(p, f_work, 7));
    uint32_t s_unused = pk_intern_stack(p, s_main, frame_at(p, f_unused, 0));
    uint32_t s_work_b = pk_intern_stack(p, s_main, frame_at(p, f_work_b, 3));

    add2(p, t_main, s_work6, 100, 1);
    add2(p, t_worker, s_main, 30, 0);
    add2(p, t_main, s_work7, 5, 0);
    add2(p, t_main, PK_NONE, 2, 0);
    add2(p, t_worker, s_unused, 0, 9); /* no weight: not written, nor its frame */
    add2(p, t_worker, s_work_b, 1, 0);
    add2(p, t_worker, s_main, -4, 0);  /* the same row: 26 */

    char *out = write_speedscope(p, cpu, NULL);
    const char *want =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
        "\"shared\":{\"frames\":[\n"
        "{\"name\":\"main\",\"file\":\"a.c\",\"line\":1},\n"
        "{\"name\":\"work\",\"file\":\"a.c\",\"line\":5},\n"
        "{\"name\":\"work\",\"file\":\"b.c\"}]},\n"
        "\"profiles\":["
        "{\"type\":\"sampled\",\"name\":\"main\",\"unit\":\"nanoseconds\",\"startValue\":0,"
        "\"endValue\":107,\n"
        "\"samples\":[\n[0,1],\n[0,1],\n[]],\n"
        "\"weights\":[100,5,2]},\n"
        "{\"type\":\"sampled\",\"name\":\"worker\",\"unit\":\"nanoseconds\",\"startValue\":0,"
        "\"endValue\":27,\n"
        "\"samples\":[\n[0],\n[0,2]],\n"
        "\"weights\":[26,1]},\n"
        "{\"type\":\"sampled\",\"name\":\"idle\",\"unit\":\"nanoseconds\",\"startValue\":0,"
        "\"endValue\":0,\n"
        "\"samples\":[],\n"
        "\"weights\":[]}],\n"
        "\"activeProfileIndex\":0,\n"
        "\"exporter\":\"profkit@" PROFKIT_VERSION "\"}\n";
    assert_string_equal(out, want);
    free(out);

    /* Another value: other weights, other frames, "count" has no speedscope unit. */
    out = write_speedscope(p, calls, "my \"app\"");
    assert_non_null(strstr(out, "\"frames\":[\n{\"name\":\"main\",\"file\":\"a.c\",\"line\":1},\n"
                                "{\"name\":\"work\",\"file\":\"a.c\",\"line\":5},\n"
                                "{\"name\":\"q\\\"uote\"}]}"));
    assert_non_null(strstr(out, "\"unit\":\"none\""));
    assert_non_null(strstr(out, "\"samples\":[\n[0,1]],\n\"weights\":[1]}"));
    assert_non_null(strstr(out, "\"samples\":[\n[0,2]],\n\"weights\":[9]}"));
    /* The worker thread is the heaviest now. */
    assert_non_null(strstr(out, "\"activeProfileIndex\":1,"));
    assert_non_null(strstr(out, "\"name\":\"my \\\"app\\\"\",\n"));
    free(out);
    pk_profile_free(p);
}

static void test_units(void **state)
{
    (void)state;
    static const struct {
        const char *ours, *theirs;
    } cases[] = {
        {"nanoseconds", "nanoseconds"}, {"microseconds", "microseconds"},
        {"milliseconds", "milliseconds"}, {"seconds", "seconds"}, {"bytes", "bytes"},
        {"count", "none"}, {"operations", "none"}, {"", "none"},
        /* Other spellings of the shared unit table. */
        {"ns", "nanoseconds"}, {"us", "microseconds"}, {"\xc2\xb5s", "microseconds"},
        {"MS", "milliseconds"}, {"sec", "seconds"}, {"B", "bytes"}, {"byte", "bytes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_profile *p = pk_profile_new();
        pk_add_value_type(p, "v", cases[i].ours);
        uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "t"), -1, -1);
        uint32_t s = pk_intern_stack(p, PK_NONE, frame_at(p, function_of(p, "f", NULL, 0), 0));
        assert_int_equal(pk_add_sample_value(p, t, s, 0, 3), PK_OK);
        char *out = write_speedscope(p, PK_NONE, NULL);
        char want[64];
        snprintf(want, sizeof want, "\"unit\":\"%s\"", cases[i].theirs);
        if (!strstr(out, want))
            fail_msg("unit %s: %s", cases[i].ours, out);
        free(out);
        pk_profile_free(p);
    }
}

/* speedscope knows no unit of size above bytes: larger ones are written in bytes. */
static void test_larger_sizes_become_bytes(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "retained", "kilobytes");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "t"), -1, -1);
    uint32_t s = pk_intern_stack(p, PK_NONE, frame_at(p, function_of(p, "f", NULL, 0), 0));
    assert_int_equal(pk_add_sample_value(p, t, s, 0, 3), PK_OK);
    uint32_t huge = pk_intern_stack(p, s, frame_at(p, function_of(p, "g", NULL, 0), 0));
    assert_int_equal(pk_add_sample_value(p, t, huge, 0, INT64_MAX / 2), PK_OK);
    char *out = write_speedscope(p, PK_NONE, NULL);
    assert_non_null(strstr(out, "\"unit\":\"bytes\""));
    /* Too large for 64 bits in bytes: the largest weight there is. */
    assert_non_null(strstr(out, "\"weights\":[3072,9223372036854775807]}"));
    assert_non_null(strstr(out, "\"endValue\":9223372036854775807,"));
    free(out);
    pk_profile_free(p);
}

static void test_unnamed_and_empty(void **state)
{
    (void)state;
    /* No threads at all: one empty profile, so that speedscope has a name to show. */
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    char *out = write_speedscope(p, PK_NONE, NULL);
    assert_non_null(strstr(out, "\"profiles\":[{\"type\":\"sampled\",\"name\":\"empty\","));
    assert_null(strstr(out, "\"name\":\"\""));
    free(out);

    /* A thread without a name and a function without a name. */
    uint32_t t = pk_add_thread(p, 0, -1, -1);
    uint32_t s = pk_intern_stack(p, PK_NONE, frame_at(p, function_of(p, "", NULL, 0), 0));
    assert_int_equal(pk_add_sample_value(p, t, s, 0, 1), PK_OK);
    out = write_speedscope(p, PK_NONE, NULL);
    assert_non_null(strstr(out, "\"name\":\"Thread 1\""));
    assert_non_null(strstr(out, "{\"name\":\"(unnamed)\"}"));
    free(out);

    /* Two threads of one name: one profile each, told apart by thread id. */
    uint32_t a = pk_add_thread(p, pk_intern_cstr(p, "pool"), 5, 11);
    uint32_t b = pk_add_thread(p, pk_intern_cstr(p, "pool"), 5, 12);
    assert_int_equal(pk_add_sample_value(p, a, s, 0, 1), PK_OK);
    assert_int_equal(pk_add_sample_value(p, b, s, 0, 1), PK_OK);
    out = write_speedscope(p, PK_NONE, NULL);
    assert_non_null(strstr(out, "\"name\":\"pool (tid 11)\""));
    assert_non_null(strstr(out, "\"name\":\"pool (tid 12)\""));
    free(out);
    pk_profile_free(p);
}

static void test_no_values_is_unsupported(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_write_options options = {0};
    options.value = PK_NONE;
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    assert_int_equal(pk_write_memory(p, &pk_format_speedscope, &options, &data, &size, &err),
                     PK_ERR_UNSUPPORTED);
    free(data);
    pk_profile_free(p);
}

static void test_registry(void **state)
{
    (void)state;
    assert_ptr_equal(pk_format_by_name("speedscope"), &pk_format_speedscope);
    assert_ptr_equal(pk_format_by_extension("out/x.speedscope.json", true),
                     &pk_format_speedscope);
    assert_ptr_equal(pk_format_by_extension("x.folded", true), &pk_format_folded);
    assert_ptr_equal(pk_format_by_extension("x.collapsed", true), &pk_format_folded);
    assert_ptr_equal(pk_format_by_name("collapsed"), &pk_format_folded);
}

/* ---- reading ---------------------------------------------------------------------------------- */

static pk_profile *read_speedscope(const void *data, size_t size, bool salvage, pk_status *status,
                                   pk_error *err)
{
    return tb_read_memory_with(data, size, &pk_format_speedscope, NULL, 0, salvage, status, err);
}

static pk_profile *read_ok(const char *text)
{
    return tb_read_text_ok(&pk_format_speedscope, text);
}

static pk_profile *read_fixture(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "speedscope/%s", name);
    return tb_read_data_ok(&pk_format_speedscope, path);
}

static int64_t self_of(const pk_profile *p, uint32_t value, const char *name)
{
    tb_fn_totals t = {0};
    tb_fn_totals_add_profile(&t, p, value);
    tb_fn_total *e = tb_fn_totals_find(&t, name);
    int64_t self = e ? e->self : -1;
    tb_fn_totals_free(&t);
    return self;
}

static const char *value_name(const pk_profile *p, uint32_t v)
{
    return pk_str(p, pk_value_type_at(p, v)->name);
}

static void test_read_synthetic(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("evented-synthetic.speedscope.json");
    assert_int_equal(pk_value_type_count(p), 1);
    assert_string_equal(value_name(p, 0), "time");
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->unit), "nanoseconds");
    assert_int_equal(pk_thread_count(p), 1);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "thread 1");
    /* main opens at 0, parse from 1 to 4, eval from 4 to 8, main closes at 10 (ms). */
    assert_int_equal(pk_value_total(p, 0), 10000000);
    assert_int_equal(self_of(p, 0, "parse"), 3000000);
    assert_int_equal(self_of(p, 0, "eval"), 4000000);
    assert_int_equal(self_of(p, 0, "main"), 3000000);
    /* The frame's file and line: the function's. */
    for (size_t i = 0; i < pk_function_count(p); i++) {
        const pk_function *f = pk_function_at(p, (uint32_t)i);
        if (strcmp(pk_str(p, f->name), "main") == 0) {
            assert_string_equal(pk_str(p, f->file), "demo.c");
            assert_int_equal(f->start_line, 10);
        }
    }
    /* The stack chart's order: the rows in the order their stacks were first weighed. */
    assert_string_equal(pk_frame_name(p, pk_stack_leaf(p, pk_sample_stack(p, 0))), "main");
    assert_string_equal(pk_frame_name(p, pk_stack_leaf(p, pk_sample_stack(p, 1))), "parse");
    assert_string_equal(pk_frame_name(p, pk_stack_leaf(p, pk_sample_stack(p, 2))), "eval");
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);

    p = read_fixture("sampled-synthetic.speedscope.json");
    assert_string_equal(value_name(p, 0), "samples");
    assert_string_equal(pk_str(p, pk_metadata_get(p)->product), "synthetic");
    assert_string_equal(pk_property_get(p, "exporter"), "handwritten@0");
    char *folded = tb_folded_rows(p, 0);
    assert_string_equal(folded, "thread 1;main 1\nthread 1;main;eval 1\nthread 1;main;parse 2\n");
    free(folded);
    pk_profile_free(p);
}

/* Profiles before shared.frames, members in reverse order, three units in one file. */
static void test_read_keys_in_any_order(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("frames-last.speedscope.json");
    assert_int_equal(pk_thread_count(p), 3);
    assert_int_equal(pk_value_type_count(p), 3);
    uint32_t samples = pk_value_find(p, "samples"), time = pk_value_find(p, "time"),
             bytes = pk_value_find(p, "bytes");
    assert_int_equal(samples, 0);
    assert_int_equal(time, 1);
    assert_int_equal(bytes, 2);
    assert_int_equal(pk_default_value(p), time); /* activeProfileIndex: the evented profile */
    char *folded = tb_folded_rows(p, samples);
    assert_string_equal(folded, "thread 1;main 1\nthread 1;main;eval 1\nthread 1;main;parse 2\n");
    free(folded);
    folded = tb_folded_rows(p, time);
    assert_string_equal(folded, "io;eval 50\n");
    free(folded);
    folded = tb_folded_rows(p, bytes);
    assert_string_equal(folded, "heap;main;eval 4096\n");
    free(folded);
    pk_profile_free(p);
}

static void test_read_units(void **state)
{
    (void)state;
    static const struct {
        const char *unit, *weight, *value;
        int64_t expect;
    } cases[] = {
        {"none", "3", "samples", 3},
        {"nanoseconds", "3", "time", 3},
        {"microseconds", "3", "time", 3000},
        {"milliseconds", "0.5", "time", 500000},
        {"seconds", "2.25", "time", 2250000000},
        {"bytes", "4096", "bytes", 4096},
        {"furlongs", "3", "samples", 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "{\"shared\":{\"frames\":[{\"name\":\"f\"}]},\"profiles\":[{\"type\":\"sampled\","
                 "\"name\":\"p\",\"unit\":\"%s\",\"startValue\":0,\"endValue\":1,"
                 "\"samples\":[[0],[0]],\"weights\":[%s,%s]}]}",
                 cases[i].unit, cases[i].weight, cases[i].weight);
        pk_profile *p = read_ok(text);
        assert_int_equal(pk_value_type_count(p), 1);
        assert_string_equal(value_name(p, 0), cases[i].value);
        assert_int_equal(pk_value_total(p, 0), 2 * cases[i].expect);
        assert_int_equal(tb_has_warning(p, "unknown unit"), i == 6);
        pk_profile_free(p);
    }
}

/* The first versions: `version`, evented only, no $schema (0.5), times relative to startValue. */
static void test_read_old_versions(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("old-v0.1.speedscope.json");
    assert_int_equal(pk_value_total(p, 0), 60000);
    assert_int_equal(self_of(p, 0, "load"), 20000);
    assert_int_equal(self_of(p, 0, "draw"), 20000);
    assert_int_equal(self_of(p, 0, "main"), 20000);
    pk_profile_free(p);
    p = read_fixture("old-v0.5-sampled.speedscope.json");
    assert_int_equal(pk_value_total(p, 0), 3500000);
    assert_int_equal(self_of(p, 0, "load"), 2500000);
    pk_profile_free(p);
}

/* Self time per frame name of an evented profile, computed from the file: the time between
 * events goes to the innermost open frame. */
static void expect_evented(const pk_profile *p, json_t *doc, size_t index, const char *thread_name)
{
    json_t *frames = json_object_get(json_object_get(doc, "shared"), "frames");
    json_t *profile = json_array_get(json_object_get(doc, "profiles"), index);
    assert_string_equal(json_string_value(json_object_get(profile, "type")), "evented");
    assert_string_equal(json_string_value(json_object_get(profile, "unit")), "microseconds");
    json_t *self = json_object();
    json_t *events = json_object_get(profile, "events");
    size_t open[512], depth = 0, i;
    double last = 0;
    json_t *e;
    json_array_foreach(events, i, e) {
        double at = json_number_value(json_object_get(e, "at"));
        if (depth > 0) {
            const char *name =
                json_string_value(json_object_get(json_array_get(frames, open[depth - 1]), "name"));
            json_t *sum = json_object_get(self, name);
            json_object_set_new(self, name, json_real((sum ? json_real_value(sum) : 0) + at - last));
        }
        last = at;
        if (strcmp(json_string_value(json_object_get(e, "type")), "O") == 0) {
            assert_true(depth < 512);
            open[depth++] = (size_t)json_integer_value(json_object_get(e, "frame"));
        } else {
            assert_true(depth > 0);
            depth--;
        }
    }
    /* The profile's thread in p, by name; its rows summed per leaf function. */
    uint32_t thread = PK_NONE;
    for (uint32_t t = 0; t < pk_thread_count(p); t++)
        if (strcmp(pk_str(p, pk_thread_at(p, t)->name), thread_name) == 0)
            thread = t;
    assert_int_not_equal(thread, PK_NONE);
    const char *name;
    json_t *sum;
    json_object_foreach(self, name, sum) {
        int64_t got = 0;
        for (size_t row = 0; row < pk_sample_count(p); row++)
            if (pk_sample_thread(p, row) == thread &&
                strcmp(pk_frame_name(p, pk_stack_leaf(p, pk_sample_stack(p, row))), name) == 0)
                got += pk_sample_values(p, row)[0];
        int64_t want = (int64_t)(json_real_value(sum) * 1000 + 0.5);
        if (got < want - 1 || got > want + 1)
            fail_msg("%s: %lld ns, the file gives %lld", name, (long long)got, (long long)want);
    }
    json_decref(self);
}

/* Every frame with a line and column (speedscope's importer makes them 1-based) is a function
 * starting there. Returns how many frames had both. */
static size_t expect_frame_positions(const pk_profile *p, json_t *frames)
{
    size_t i, checked = 0;
    json_t *frame;
    json_array_foreach(frames, i, frame) {
        json_int_t line = json_integer_value(json_object_get(frame, "line"));
        json_int_t col = json_integer_value(json_object_get(frame, "col"));
        if (line <= 0 || col <= 0)
            continue;
        const char *name = json_string_value(json_object_get(frame, "name"));
        const char *file = json_string_value(json_object_get(frame, "file"));
        bool found = false;
        for (size_t f = 0; f < pk_function_count(p) && !found; f++) {
            const pk_function *fn = pk_function_at(p, (uint32_t)f);
            found = strcmp(pk_str(p, fn->name), name) == 0 &&
                    strcmp(pk_str(p, fn->file), file ? file : "") == 0 &&
                    fn->start_line == line && fn->start_column == col;
        }
        if (!found)
            fail_msg("no function %s at %s:%lld:%lld", name, file, (long long)line,
                     (long long)col);
        checked++;
    }
    return checked;
}

/* Files made by speedscope's own exporter (tests/data/speedscope/README.md). */
static void test_read_speedscope_exports(void **state)
{
    (void)state;
    static const char *const names[] = {"node-cpu-prof.exported.speedscope.json",
                                        "node-trace-events.exported.speedscope.json"};
    for (size_t n = 0; n < 2; n++) {
        char path[256];
        snprintf(path, sizeof path, "speedscope/%s", names[n]);
        json_error_t jerr;
        json_t *doc = json_load_file(tb_data_path(path), 0, &jerr);
        assert_non_null(doc);
        pk_profile *p = read_fixture(names[n]);
        assert_int_equal(pk_warning_count(p), 0);
        assert_string_equal(pk_property_get(p, "exporter"), "speedscope@1.25.0");
        json_t *profiles = json_object_get(doc, "profiles");
        assert_int_equal(pk_thread_count(p), json_array_size(profiles));
        for (size_t i = 0; i < json_array_size(profiles); i++)
            expect_evented(p, doc, i,
                           json_string_value(json_object_get(json_array_get(profiles, i), "name")));
        size_t positions =
            expect_frame_positions(p, json_object_get(json_object_get(doc, "shared"), "frames"));
        if (n == 0) /* a V8 profile's frames have their functions' lines and columns */
            assert_true(positions > 10);
        json_decref(doc);
        pk_profile_free(p);
    }
}

static void test_read_event_damage(void **state)
{
    (void)state;
    /* A close of an outer frame closes the inner one too; a close of a frame not open, an event
     * back in time and an event without a time are left out; b is left open until endValue. */
    pk_profile *p = read_ok(
        "{\"shared\":{\"frames\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]},"
        "\"profiles\":[{\"type\":\"evented\",\"name\":\"t\",\"unit\":\"nanoseconds\","
        "\"startValue\":0,\"endValue\":100,\"events\":["
        "{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"O\",\"frame\":1,\"at\":10},"
        "{\"type\":\"C\",\"frame\":0,\"at\":20},{\"type\":\"C\",\"frame\":2,\"at\":30},"
        "{\"type\":\"O\",\"frame\":1,\"at\":40},{\"type\":\"O\",\"frame\":2,\"at\":35},"
        "{\"type\":\"X\",\"frame\":2,\"at\":50},{\"type\":\"C\",\"frame\":2}]}]}");
    assert_int_equal(self_of(p, 0, "a"), 10);
    /* b: 10..20 under a; opened again at 40 as a root, with c opened inside it at once (35 is
     * back in time): c holds 40..100, the end value. */
    assert_int_equal(self_of(p, 0, "b"), 10);
    assert_int_equal(self_of(p, 0, "c"), 60);
    assert_true(tb_has_warning(p, "2 close events not of the innermost open frame"));
    assert_true(tb_has_warning(p, "1 event earlier than the one before"));
    assert_true(tb_has_warning(p, "2 events without a type O or C"));
    assert_true(tb_has_warning(p, "1 profile with frames left open"));
    /* Each warning names the first event it counts: its place, its frame, where it ends. */
    assert_true(tb_has_warning(p, "the first: event 3 of profile 1 (\"t\"), frame 0 (\"a\"), "
                                  "ending at byte 255"));
    assert_true(tb_has_warning(p, "the first: event 6 of profile 1 (\"t\"), frame 2 (\"c\")"));
    assert_true(tb_has_warning(p, "the first: event 7 of profile 1 (\"t\"), frame 2 (\"c\")"));
    assert_true(tb_has_warning(p, "the first: profile 1 (\"t\"), innermost open frame 2 (\"c\")"));
    pk_profile_free(p);

    /* A frame index shared.frames does not define is named by its index. */
    p = read_ok("{\"shared\":{\"frames\":[]},\"profiles\":[{\"type\":\"sampled\",\"name\":\"t\","
                "\"unit\":\"none\",\"samples\":[[7]],\"weights\":[1]}]}");
    assert_int_equal(self_of(p, 0, "(frame 7)"), 1);
    assert_true(tb_has_warning(p, "1 frame not in shared.frames"));
    pk_profile_free(p);
    /* However large the index: its placeholder takes no room for the indexes below it (a
     * table of four billion entries would not be had, and the read would fail). */
    p = read_ok("{\"shared\":{\"frames\":[]},\"profiles\":[{\"type\":\"sampled\",\"name\":\"t\","
                "\"unit\":\"none\",\"samples\":[[4000000000,4000000000]],\"weights\":[1]}]}");
    assert_int_equal(self_of(p, 0, "(frame 4000000000)"), 1);
    assert_true(tb_has_warning(p, "1 frame not in shared.frames"));
    pk_profile_free(p);

    /* More samples than weights, and the other way round. */
    p = read_ok("{\"shared\":{\"frames\":[{\"name\":\"f\"}]},\"profiles\":["
                "{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[0],[0]],\"weights\":[1]},"
                "{\"type\":\"sampled\",\"unit\":\"none\",\"weights\":[1,2,3],\"samples\":[[0]]}]}");
    assert_int_equal(pk_value_total(p, 0), 2);
    assert_true(tb_has_warning(p, "1 sample without a weight"));
    assert_true(tb_has_warning(p, "2 weights without a sample"));
    /* Unnamed profiles are numbered. */
    assert_string_equal(pk_str(p, pk_thread_at(p, 1)->name), "Thread 2");
    pk_profile_free(p);
}

/* Frames opened at one moment are given time innermost first: the rows come in the order their
 * stacks were first given time (the stack chart's order), not in the order they were opened. */
static void test_read_rows_in_order_of_time(void **state)
{
    (void)state;
    pk_profile *p = read_ok(
        "{\"shared\":{\"frames\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]},"
        "\"profiles\":[{\"type\":\"evented\",\"name\":\"t\",\"unit\":\"nanoseconds\","
        "\"startValue\":0,\"endValue\":9,\"events\":["
        "{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"O\",\"frame\":1,\"at\":0},"
        "{\"type\":\"O\",\"frame\":2,\"at\":0},{\"type\":\"C\",\"frame\":2,\"at\":3},"
        "{\"type\":\"C\",\"frame\":1,\"at\":5},{\"type\":\"C\",\"frame\":0,\"at\":9}]}]}");
    static const char *const leaves[] = {"c", "b", "a"};
    static const int64_t weights[] = {3, 2, 4};
    assert_int_equal(pk_sample_count(p), 3);
    for (size_t row = 0; row < 3; row++) {
        assert_string_equal(pk_frame_name(p, pk_stack_leaf(p, pk_sample_stack(p, row))),
                            leaves[row]);
        assert_int_equal(pk_sample_values(p, row)[0], weights[row]);
    }
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
}

/* Weights before samples, in a run long enough to spool. */
static void test_read_weights_first(void **state)
{
    (void)state;
    size_t n = 300000, cap = n * 16 + 256, used = 0;
    char *text = malloc(cap);
    used += (size_t)snprintf(text, cap, "{\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\","
                                        "\"weights\":[");
    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(text + used, cap - used, "%s%zu", i ? "," : "", i % 7);
    used += (size_t)snprintf(text + used, cap - used, "],\"samples\":[");
    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(text + used, cap - used, "%s[0,%zu]", i ? "," : "", i % 3 + 1);
    snprintf(text + used, cap - used,
             "]}],\"shared\":{\"frames\":[{\"name\":\"r\"},{\"name\":\"a\"},{\"name\":\"b\"},"
             "{\"name\":\"c\"}]}}");
    pk_profile *p = read_ok(text);
    int64_t want[4] = {0};
    for (size_t i = 0; i < n; i++)
        want[i % 3 + 1] += (int64_t)(i % 7);
    assert_int_equal(self_of(p, 0, "a"), want[1]);
    assert_int_equal(self_of(p, 0, "b"), want[2]);
    assert_int_equal(self_of(p, 0, "c"), want[3]);
    assert_int_equal(pk_sample_count(p), 3);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
    free(text);
}

/* What profkit writes reads back with the same stacks (by function), values and threads. */
static void test_write_read(void **state)
{
    (void)state;
    static const char *const units[] = {"nanoseconds", "microseconds", "bytes", "count"};
    for (size_t u = 0; u < 4; u++) {
        pk_profile *p = pk_profile_new();
        pk_add_value_type(p, "v", units[u]);
        uint32_t t_main = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
        uint32_t t_pool1 = pk_add_thread(p, pk_intern_cstr(p, "pool"), 1, 2);
        uint32_t t_pool2 = pk_add_thread(p, pk_intern_cstr(p, "pool"), 1, 3);
        uint32_t f_main = function_of(p, "main", "a.c", 1);
        uint32_t f_work = function_of(p, "work", "b.c", 5);
        uint32_t s_main = pk_intern_stack(p, PK_NONE, frame_at(p, f_main, 0));
        uint32_t s_work = pk_intern_stack(p, s_main, frame_at(p, f_work, 0));
        assert_int_equal(pk_add_sample_value(p, t_main, s_main, 0, 7), PK_OK);
        assert_int_equal(pk_add_sample_value(p, t_main, s_work, 0, 11), PK_OK);
        assert_int_equal(pk_add_sample_value(p, t_pool1, s_work, 0, 13), PK_OK);
        assert_int_equal(pk_add_sample_value(p, t_pool2, PK_NONE, 0, 17), PK_OK);
        char *out = write_speedscope(p, PK_NONE, "app");
        pk_profile *q = read_ok(out);
        int64_t scale = u == 1 ? 1000 : 1;
        assert_int_equal(pk_value_type_count(q), 1);
        assert_string_equal(value_name(q, 0), u < 2 ? "time" : u == 2 ? "bytes" : "samples");
        assert_int_equal(pk_thread_count(q), 3);
        assert_string_equal(pk_str(q, pk_thread_at(q, 0)->name), "main");
        assert_string_equal(pk_str(q, pk_thread_at(q, 1)->name), "pool (tid 2)");
        assert_string_equal(pk_str(q, pk_thread_at(q, 2)->name), "pool (tid 3)");
        char *folded = tb_folded_rows(q, 0);
        char want[256];
        snprintf(want, sizeof want,
                 "main;main %lld\nmain;main;work %lld\npool (tid 2);main;work %lld\n"
                 "pool (tid 3) %lld\n",
                 (long long)(7 * scale), (long long)(11 * scale), (long long)(13 * scale),
                 (long long)(17 * scale));
        assert_string_equal(folded, want);
        free(folded);
        for (size_t i = 0; i < pk_function_count(q); i++) {
            const pk_function *f = pk_function_at(q, (uint32_t)i);
            if (strcmp(pk_str(q, f->name), "work") == 0) {
                assert_string_equal(pk_str(q, f->file), "b.c");
                assert_int_equal(f->start_line, 5);
            }
        }
        assert_string_equal(pk_str(q, pk_metadata_get(q)->product), "app");
        /* Written again, it is the same file. */
        char *again = write_speedscope(q, PK_NONE, "app");
        if (u != 1)
            assert_string_equal(again, out);
        free(again);
        free(out);
        pk_profile_free(q);
        pk_profile_free(p);
    }
}

/* Functions that differ only in their column (minified JavaScript) are distinct frames, with
 * `col`, and read back as distinct functions. */
static void test_write_columns(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "cpu", "nanoseconds");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    uint32_t stack = PK_NONE;
    static const uint32_t columns[] = {1, 15, 80};
    for (size_t i = 0; i < 3; i++) {
        pk_function f = {.name = pk_intern_cstr(p, "(anonymous)"),
                         .file = pk_intern_cstr(p, "app.min.js"), .start_line = 1,
                         .resource = PK_NONE, .start_column = columns[i]};
        stack = pk_intern_stack(p, stack, frame_at(p, pk_intern_function(p, &f), 1));
        assert_int_equal(pk_add_sample_value(p, t, stack, 0, 10 * (int64_t)(i + 1)), PK_OK);
    }
    char *out = write_speedscope(p, PK_NONE, NULL);
#define ANONYMOUS "{\"name\":\"(anonymous)\",\"file\":\"app.min.js\",\"line\":1,"
    assert_non_null(strstr(out, "\"frames\":[\n" ANONYMOUS "\"col\":1},\n" ANONYMOUS
                                "\"col\":15},\n" ANONYMOUS "\"col\":80}]}"));
#undef ANONYMOUS
    assert_non_null(strstr(out, "\"samples\":[\n[0],\n[0,1],\n[0,1,2]],\n\"weights\":[10,20,30]}"));
    pk_profile *q = read_ok(out);
    assert_int_equal(pk_function_count(q), 3);
    for (size_t row = 0; row < pk_sample_count(q); row++) {
        const pk_function *leaf =
            pk_function_at(q, pk_frame_at(q, pk_stack_leaf(q, pk_sample_stack(q, row)))->function);
        size_t depth = pk_stack_depth(q, pk_sample_stack(q, row));
        assert_int_equal(leaf->start_line, 1);
        assert_int_equal(leaf->start_column, columns[depth - 1]);
        assert_int_equal(pk_sample_values(q, row)[0], 10 * (int64_t)depth);
    }
    free(out);
    pk_profile_free(q);
    pk_profile_free(p);
}

/* Occurrences of needle in text. */
static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0, length = strlen(needle);
    for (size_t at = 0; text[at]; at++)
        n += strncmp(text + at, needle, length) == 0;
    return n;
}

/* Where needle first is in text; the end of text when it is not. */
static size_t offset_of(const char *text, const char *needle)
{
    size_t at = 0, length = strlen(needle);
    while (text[at] && strncmp(text + at, needle, length) != 0)
        at++;
    return at;
}

/* A thread's rows, in order, as "names value" lines. */
static char *rows_in_order(const pk_profile *p, uint32_t thread)
{
    size_t cap = 1 << 16, used = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    text[0] = '\0';
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        if (pk_sample_thread(p, row) != thread)
            continue;
        char *names = tb_stack_names(p, pk_sample_stack(p, row));
        size_t need = strlen(names) + 32;
        while (used + need >= cap) {
            cap *= 2;
            char *grown = realloc(text, cap);
            assert_non_null(grown);
            text = grown;
        }
        used += (size_t)snprintf(text + used, cap - used, "%s %lld\n", names,
                                 (long long)pk_sample_values(p, row)[0]);
        free(names);
    }
    return text;
}

/* A thread of deeply nested calls (a trace's: down and up again, with a branch of whole call
 * chains) is written evented; a thread of shallow stacks sampled, and so is one of deep stacks
 * whose roots alternate (every frame closed and opened again from one sample to the next); all
 * read back with the same stacks, values and row order, and the file written again is the
 * same. */
static void test_write_evented(void **state)
{
    (void)state;
    enum { DEPTH = 200 };
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "cpu", "nanoseconds");
    uint32_t deep = pk_add_thread(p, pk_intern_cstr(p, "deep"), 1, 1);
    uint32_t wide = pk_add_thread(p, pk_intern_cstr(p, "wide"), 1, 2);
    uint32_t alternating = pk_add_thread(p, pk_intern_cstr(p, "alternating"), 1, 3);
    uint32_t chain[DEPTH], frames[DEPTH];
    int64_t sum_of_depths = 0;
    for (uint32_t d = 0; d < DEPTH; d++) {
        char name[16];
        snprintf(name, sizeof name, "d%u", d);
        frames[d] = frame_at(p, function_of(p, name, NULL, 0), 0);
        chain[d] = pk_intern_stack(p, d ? chain[d - 1] : PK_NONE, frames[d]);
        assert_int_equal(pk_add_sample_value(p, deep, chain[d], 0, 1 + d % 7), PK_OK);
        sum_of_depths += d + 1;
    }
    /* Halfway up, calls of whole chains below d99 (a frame of d7 among them: recursion). */
    uint32_t leaf = frame_at(p, function_of(p, "leaf", NULL, 0), 0);
    for (uint32_t d = DEPTH; d-- > DEPTH / 2;)
        assert_int_equal(pk_add_sample_value(p, deep, chain[d], 0, 2), PK_OK);
    for (uint32_t k = 0; k < 30; k++) {
        uint32_t run[3] = {frames[k % 10], frames[7], leaf};
        uint32_t s = pk_intern_stack_frames(p, chain[DEPTH / 2 - 1], run, 3);
        assert_int_equal(pk_add_sample_value(p, deep, s, 0, 3), PK_OK);
        sum_of_depths += DEPTH / 2 + 3;
    }
    for (uint32_t d = DEPTH / 2; d-- > 0;)
        assert_int_equal(pk_add_sample_value(p, deep, chain[d], 0, 2), PK_OK);
    for (uint32_t k = 0; k < 50; k++) {
        char name[16];
        snprintf(name, sizeof name, "w%u", k);
        uint32_t s = pk_intern_stack(p, chain[0], frame_at(p, function_of(p, name, NULL, 0), 0));
        assert_int_equal(pk_add_sample_value(p, wide, s, 0, k + 1), PK_OK);
    }
    uint32_t roots[2] = {frame_at(p, function_of(p, "x", NULL, 0), 0),
                         frame_at(p, function_of(p, "y", NULL, 0), 0)};
    for (uint32_t k = 0; k < 30; k++) {
        uint32_t s = pk_intern_stack(p, PK_NONE, roots[k % 2]);
        s = pk_intern_stack_frames(p, s, frames, 40 + k / 2);
        assert_int_equal(pk_add_sample_value(p, alternating, s, 0, 1), PK_OK);
    }

    char *out = write_speedscope(p, PK_NONE, NULL);
    assert_non_null(strstr(out, "{\"type\":\"evented\",\"name\":\"deep\",\"unit\":\"nanoseconds\","
                                "\"startValue\":0,\"endValue\":"));
    assert_non_null(strstr(out, "{\"type\":\"sampled\",\"name\":\"wide\","));
    assert_non_null(strstr(out, "{\"type\":\"sampled\",\"name\":\"alternating\","));
    /* The events grow with the changes of stack, not with the depths (sampled, each frame
     * index would take two bytes at least). */
    size_t deep_profile = offset_of(out, "{\"type\":\"evented\",\"name\":\"deep\"");
    size_t next_profile = offset_of(out, "{\"type\":\"sampled\",\"name\":\"wide\"");
    assert_true(deep_profile < next_profile);
    assert_true((int64_t)(next_profile - deep_profile) < sum_of_depths);
    /* Every frame opened is closed, the first first opened and last closed. */
    assert_int_equal(count_of(out, "{\"type\":\"O\""), count_of(out, "{\"type\":\"C\""));
    assert_non_null(strstr(out, "\"events\":[\n{\"type\":\"O\",\"frame\":0,\"at\":0},"));
    assert_non_null(strstr(out, ",{\"type\":\"C\",\"frame\":0,\"at\":"));

    pk_profile *q = read_ok(out);
    assert_int_equal(pk_warning_count(q), 0);
    assert_int_equal(pk_thread_count(q), 3);
    assert_int_equal(pk_value_total(q, 0), pk_value_total(p, 0));
    char *want = tb_folded_rows(p, 0), *got = tb_folded_rows(q, 0);
    assert_string_equal(got, want);
    free(want);
    free(got);
    for (uint32_t t = 0; t < 3; t++) {
        want = rows_in_order(p, t);
        got = rows_in_order(q, t);
        assert_string_equal(got, want);
        free(want);
        free(got);
    }
    char *again = write_speedscope(q, PK_NONE, NULL);
    assert_string_equal(again, out);
    free(again);
    pk_profile_free(q);
    free(out);

    /* A sample without frames: no frame open weighs it, so the thread stays sampled. */
    assert_int_equal(pk_add_sample_value(p, deep, PK_NONE, 0, 5), PK_OK);
    out = write_speedscope(p, PK_NONE, NULL);
    assert_non_null(strstr(out, "{\"type\":\"sampled\",\"name\":\"deep\","));
    q = read_ok(out);
    assert_int_equal(pk_value_total(q, 0), pk_value_total(p, 0));
    pk_profile_free(q);
    free(out);
    pk_profile_free(p);
}

/* Samples whose stacks differ only in the lines of a function's frames have one speedscope
 * stack: from one to the next, that function's frame stays open (and whatever is open within
 * it), so it is opened and closed once. */
static void test_write_evented_lines_of_one_function(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "cpu", "nanoseconds");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    uint32_t f_main = function_of(p, "main", "a.c", 1), f_run = function_of(p, "run", "a.c", 9);
    uint32_t inner[60];
    for (uint32_t d = 0; d < 60; d++) {
        char name[16];
        snprintf(name, sizeof name, "c%u", d);
        inner[d] = frame_at(p, function_of(p, name, "b.c", d + 1), 0);
    }
    for (uint32_t k = 0; k < 40; k++) {
        /* main at line 2 or 3 and run at line 10 + k: every sample its own model stack. */
        uint32_t s = pk_intern_stack(p, PK_NONE, frame_at(p, f_main, 2 + k % 2));
        s = pk_intern_stack(p, s, frame_at(p, f_run, 10 + k));
        s = pk_intern_stack_frames(p, s, inner, 60 - k % 3);
        assert_int_equal(pk_add_sample_value(p, t, s, 0, 10), PK_OK);
    }
    assert_int_equal(pk_sample_count(p), 40);
    char *out = write_speedscope(p, PK_NONE, NULL);
    assert_non_null(strstr(out, "{\"type\":\"evented\",\"name\":\"main\","));
    assert_non_null(strstr(out, "\"endValue\":400,"));
    assert_non_null(strstr(out, "\"frames\":[\n{\"name\":\"main\",\"file\":\"a.c\",\"line\":1},\n"
                                "{\"name\":\"run\",\"file\":\"a.c\",\"line\":9},"));
    assert_int_equal(count_of(out, "{\"type\":\"O\",\"frame\":0,"), 1);
    assert_int_equal(count_of(out, "{\"type\":\"C\",\"frame\":0,"), 1);
    assert_int_equal(count_of(out, "{\"type\":\"O\",\"frame\":1,"), 1);
    assert_int_equal(count_of(out, "{\"type\":\"C\",\"frame\":1,"), 1);
    /* Only the innermost frames change: 62 opened at 0, one closed or reopened now and then,
     * 62 closed at 400. */
    assert_true(count_of(out, "{\"type\":\"O\"") < 62 + 40);
    assert_non_null(strstr(out, "{\"type\":\"C\",\"frame\":1,\"at\":400},"
                                "{\"type\":\"C\",\"frame\":0,\"at\":400}]}"));
    pk_profile *q = read_ok(out);
    assert_int_equal(pk_warning_count(q), 0);
    assert_int_equal(pk_value_total(q, 0), 400);
    /* Read back as three stacks by function (60, 59 and 58 frames deep inside run). */
    char *folded = tb_folded_rows(q, 0);
    assert_int_equal(count_of(folded, "\n"), 3);
    free(folded);
    assert_int_equal(tb_stack_value(q, "main;run;c0;c1;c2;c3;c4;c5;c6;c7;c8;c9;c10;c11;c12;c13;"
                                       "c14;c15;c16;c17;c18;c19;c20;c21;c22;c23;c24;c25;c26;c27;"
                                       "c28;c29;c30;c31;c32;c33;c34;c35;c36;c37;c38;c39;c40;c41;"
                                       "c42;c43;c44;c45;c46;c47;c48;c49;c50;c51;c52;c53;c54;c55;"
                                       "c56;c57;c58;c59", 0),
                     140);
    pk_profile_free(q);
    free(out);
    pk_profile_free(p);
}

/* Every cut of a file is damage at the cut (salvage keeps what came before), or not a
 * speedscope file at all when nothing of it was met. */
static void test_read_cut(void **state)
{
    (void)state;
    size_t size;
    char *data = tb_read_data_file("speedscope/node-cpu-prof.exported.speedscope.json", &size);
    for (size_t cut = 1; cut < size; cut += size / 101 + 1) {
        pk_status status;
        pk_error err;
        pk_profile *p = read_speedscope(data, cut, false, &status, &err);
        assert_null(p);
        assert_int_equal(status, PK_ERR_INPUT);
        if (err.salvageable) {
            assert_int_equal(err.offset, (int64_t)cut);
            assert_non_null(strstr(err.message, "ends early"));
            p = read_speedscope(data, cut, true, &status, &err);
            assert_non_null(p);
            pk_profile_free(p);
        }
    }
    free(data);
}

/* Times as speedscope lays them out: an evented profile's innermost stacks as spans between
 * events, a sampled one's samples at startValue plus the weights before them (fractions of a
 * millisecond to the nanosecond); profiles in counts or bytes untimed. What profkit writes
 * reads back with the same order and times. */
static void test_read_times(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("evented-synthetic.speedscope.json");
    assert_false(pk_metadata_get(p)->times_approximate);
    tb_expect_timeline(p, 0, 0, 0,
                       "main@0+1000000=1000000 parse@1000000+3000000=3000000 "
                       "main@4000000+1000000=1000000 eval@5000000+4000000=4000000 "
                       "main@9000000+1000000=1000000");
    /* Written (evented, nanoseconds) and read back: the same spans. */
    char *text = write_speedscope(p, 0, NULL);
    pk_profile *back = read_ok(text);
    free(text);
    tb_expect_timeline(back, 0, 0, 0,
                       "main@0+1000000=1000000 parse@1000000+3000000=3000000 "
                       "main@4000000+1000000=1000000 eval@5000000+4000000=4000000 "
                       "main@9000000+1000000=1000000");
    pk_profile_free(back);
    pk_profile_free(p);

    p = read_fixture("old-v0.5-sampled.speedscope.json");
    const char *sampled = "load@0=1250000 draw@1250000=500000 load@1750000=1250000 main@3000000=500000";
    tb_expect_timeline(p, 0, 0, 0, sampled);
    text = write_speedscope(p, 0, NULL);
    back = read_ok(text);
    free(text);
    tb_expect_timeline(back, 0, 0, 0, sampled);
    pk_profile_free(back);
    pk_profile_free(p);

    /* startValue counts; a gap between spans is no sample. */
    p = read_ok("{\"shared\":{\"frames\":[{\"name\":\"a\"},{\"name\":\"b\"}]},\"profiles\":["
                "{\"type\":\"sampled\",\"unit\":\"microseconds\",\"startValue\":100,"
                "\"endValue\":106,\"samples\":[[0],[0,1],[]],\"weights\":[2,3,1]},"
                "{\"type\":\"evented\",\"unit\":\"microseconds\",\"startValue\":0,"
                "\"endValue\":9,\"events\":[{\"type\":\"O\",\"frame\":0,\"at\":1},"
                "{\"type\":\"C\",\"frame\":0,\"at\":2},{\"type\":\"O\",\"frame\":1,\"at\":5},"
                "{\"type\":\"C\",\"frame\":1,\"at\":9}]}]}");
    tb_expect_timeline(p, 0, 0, 0, "a@100000=2000 b@102000=3000 -@105000=1000");
    tb_expect_timeline(p, 1, 0, 0, "a@1000+1000=1000 b@5000+4000=4000");
    pk_profile_free(p);

    p = read_fixture("frames-last.speedscope.json");
    pk_timeline_info info;
    pk_timeline_info_get(p, 0, &info); /* counts */
    assert_false(info.measured);
    pk_timeline_info_get(p, 2, &info); /* bytes */
    assert_false(info.measured);
    pk_timeline_info_get(p, 1, &info); /* nanoseconds */
    assert_true(info.measured);
    assert_true(info.first == 0 && info.last == 50);
    pk_profile_free(p);
}

static void test_read_invalid(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int64_t offset;
        const char *message;
    } cases[] = {
        {"{\"profiles\":[{\"type\":\"sampled\",\"samples\":[[0,}", 46, "not valid JSON"},
        {"{\"profiles\":[{\"type\":\"sampled\",\"samples\":[[-1]]}]}", 45, "frame index"},
        {"{\"profiles\":[{\"type\":\"sampled\",\"samples\":[[\"a\"]]}]}", 46, "frame index"},
        {"[]", 1, "the document is an array"},
        {"{\"x\":1}", 0, "no profiles"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_status status;
        pk_error err;
        pk_profile *p = read_speedscope(cases[i].text, strlen(cases[i].text), false, &status, &err);
        assert_null(p);
        assert_int_equal(status, PK_ERR_INPUT);
        if (err.offset != cases[i].offset || !strstr(err.message, cases[i].message))
            fail_msg("case %zu: byte %lld: %s", i, (long long)err.offset, err.message);
    }
}

static void test_probe(void **state)
{
    (void)state;
    static const char *const names[] = {
        "evented-synthetic.speedscope.json", "sampled-synthetic.speedscope.json",
        "node-cpu-prof.exported.speedscope.json", "frames-last.speedscope.json",
        "old-v0.1.speedscope.json", "old-v0.5-sampled.speedscope.json"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "speedscope/%s", names[i]);
        size_t size;
        char *data = tb_read_data_file(path, &size);
        int score;
        /* By content, whatever the file is called. */
        const pk_format *f = pk_format_probe((const uint8_t *)data,
                                             size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES,
                                             "profile.bin", &score);
        if (f != &pk_format_speedscope)
            fail_msg("%s probed as %s", names[i], f ? f->name : "nothing");
        free(data);
    }
    /* What the writer writes, too. */
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    char *out = write_speedscope(p, PK_NONE, NULL);
    int score;
    assert_ptr_equal(pk_format_probe((const uint8_t *)out, strlen(out), NULL, &score),
                     &pk_format_speedscope);
    assert_int_equal(score, PK_PROBE_CERTAIN);
    free(out);
    pk_profile_free(p);
    /* Other JSON is not speedscope. */
    const char *cpuprofile = "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"}}]}";
    assert_int_equal(pk_format_speedscope.probe((const uint8_t *)cpuprofile, strlen(cpuprofile)),
                     PK_PROBE_NO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_output),
        cmocka_unit_test(test_write_columns),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_larger_sizes_become_bytes),
        cmocka_unit_test(test_unnamed_and_empty),
        cmocka_unit_test(test_no_values_is_unsupported),
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_read_synthetic),
        cmocka_unit_test(test_read_keys_in_any_order),
        cmocka_unit_test(test_read_units),
        cmocka_unit_test(test_read_old_versions),
        cmocka_unit_test(test_read_speedscope_exports),
        cmocka_unit_test(test_read_event_damage),
        cmocka_unit_test(test_read_rows_in_order_of_time),
        cmocka_unit_test(test_read_weights_first),
        cmocka_unit_test(test_read_times),
        cmocka_unit_test(test_write_read),
        cmocka_unit_test(test_write_evented),
        cmocka_unit_test(test_write_evented_lines_of_one_function),
        cmocka_unit_test(test_read_cut),
        cmocka_unit_test(test_read_invalid),
        cmocka_unit_test(test_probe),
    };
    return cmocka_run_group_tests_name("speedscope", tests, NULL, NULL);
}
