/* SPDX-License-Identifier: MIT */
/* Firefox Profiler reader: the processed profiles of every version in tests/data/firefox (the
 * Firefox Profiler's and the samply crate's fixtures, handwritten ones of versions 55, 66 and
 * 70), a Gecko profile with a child process, one in a DevTools recording, what profkit's writer
 * writes read back, keys in other orders, cut and damaged files, probing by content. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixtures.h"
#include "folded_rows.h"
#include "profkit/format.h"
#include "profkit/profile.h"
#include "reading.h"
#include "timeline_text.h"


static const pk_format *firefox(void)
{
    return pk_format_by_name("firefox");
}

static pk_profile *read_bytes(const void *data, size_t size, bool salvage, pk_status *status,
                              pk_error *err)
{
    /* As the command reads them, without looking for binaries to name addresses. */
    static const pk_option no_symbols = {"no-symbols", ""};
    return tb_read_memory_with(data, size, firefox(), &no_symbols, 1, salvage, status, err);
}

static pk_profile *read_ok(const char *text)
{
    return tb_read_text_ok(firefox(), text);
}

static pk_profile *read_fixture(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "firefox/%s", name);
    return tb_read_data_ok(firefox(), path);
}

static void expect_folded(const pk_profile *p, uint32_t value, const char *want)
{
    char *got = tb_folded_rows(p, value);
    if (strcmp(got, want) != 0)
        fail_msg("got:\n%swanted:\n%s", got, want);
    free(got);
}

static bool has_warning(const pk_profile *p, const char *needle)
{
    return tb_has_warning(p, needle);
}

/* The notes' example in version 55 (tables per thread) and 66 (shared tables, prefixOffset,
 * sources), and the handwritten minimal files of 55, 66 and 70 (frameTable.lib): the same. */
static void test_versions_agree(void **state)
{
    (void)state;
    static const char *const notes[] = {"notes-example.v55.json", "notes-example.v66.json"};
    for (size_t i = 0; i < 2; i++) {
        pk_profile *p = read_fixture(notes[i]);
        assert_int_equal(pk_value_type_count(p), 1);
        assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->name), "samples");
        /* weights 3, 1, 2 and an empty stack of 1 */
        expect_folded(p, 0, "demo 1\ndemo;main 3\ndemo;main;parse 1\ndemo;main;parse;read_block 2\n");
        assert_true(has_warning(p, "1 marker left aside"));
        assert_int_equal(pk_thread_at(p, 0)->pid, 100);
        assert_int_equal(pk_thread_at(p, 0)->tid, 100);
        /* parse is demo.c's, from line 10, executing line 12; read_block is in libdemo.so */
        for (size_t f = 0; f < pk_frame_count(p); f++) {
            const pk_frame *fr = pk_frame_at(p, (uint32_t)f);
            const pk_function *fn = pk_function_at(p, fr->function);
            if (strcmp(pk_str(p, fn->name), "parse") == 0) {
                assert_string_equal(pk_str(p, fn->file), "demo.c");
                assert_int_equal(fn->start_line, 10);
                assert_int_equal(fr->line, 12);
            } else if (strcmp(pk_str(p, fn->name), "read_block") == 0) {
                assert_true(fr->flags & PK_FRAME_HAS_ADDRESS);
                assert_int_equal(fr->address, 4660);
                assert_string_equal(pk_str(p, pk_resource_at(p, fr->resource)->path),
                                    "/usr/lib/libdemo.so");
            }
        }
        pk_profile_free(p);
    }
    static const char *const minimal[] = {"minimal-handwritten.v55.json",
                                          "minimal-handwritten.v66.json",
                                          "minimal-handwritten.v70.json"};
    char *first = NULL;
    for (size_t i = 0; i < 3; i++) {
        pk_profile *p = read_fixture(minimal[i]);
        char *rows = tb_folded_rows(p, 0);
        if (!first)
            first = rows;
        else {
            assert_string_equal(rows, first);
            free(rows);
        }
        pk_profile_free(p);
    }
    free(first);
}

/* The Firefox Profiler's own fixtures (versions 24 and 49) and the samply crate's. */
static void test_other_fixtures(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("firefox-profiler-fixture-processed-3.v24.json");
    assert_int_equal(pk_thread_count(p), 3);
    assert_int_equal(pk_value_total(p, 0), 21);
    assert_true(has_warning(p, "markers left aside"));
    pk_profile_free(p);
    p = read_fixture("firefox-profiler-fixture-unsymbolicated.v49.json");
    assert_int_equal(pk_thread_count(p), 6);
    pk_profile_free(p);
    p = read_fixture("samply-crate-snapshot-profile_without_js.v66.json");
    assert_int_equal(pk_value_total(p, 0), 4);
    pk_profile_free(p);
    p = read_fixture("samply-crate-0.8.1-test-profile_with_js.v55.json");
    assert_int_equal(pk_value_total(p, 0), 1);
    pk_profile_free(p);
}

/* Gecko: schema + data tables, a string table per thread, a child process in `processes`, and
 * the kinds of frame locations. */
static void test_gecko(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("gecko-handmade.v27.json");
    assert_int_equal(pk_thread_count(p), 2);
    assert_int_equal(pk_thread_at(p, 0)->pid, 100);
    assert_int_equal(pk_thread_at(p, 1)->pid, 200);
    expect_folded(p, 0,
                  "GeckoMain (tid 100) 1\n"
                  "GeckoMain (tid 100);(root);0x2345 1\n"
                  "GeckoMain (tid 100);(root);js::RunScript;layout 1\n"
                  "GeckoMain (tid 100);(root);js::RunScript;render 2\n"
                  "GeckoMain (tid 200);(root) 1\n"
                  "GeckoMain (tid 200);(root);onLoad 2\n");
    assert_true(has_warning(p, "1 marker left aside"));
    for (size_t f = 0; f < pk_frame_count(p); f++) {
        const pk_frame *fr = pk_frame_at(p, (uint32_t)f);
        const pk_function *fn = pk_function_at(p, fr->function);
        const char *name = pk_str(p, fn->name);
        /* A location's line and column are where the function starts. */
        if (strcmp(name, "render") == 0) {
            assert_string_equal(pk_str(p, fn->file), "https://example.com/app.js");
            assert_int_equal(fr->line, 12);
            assert_int_equal(fn->start_line, 12);
            assert_int_equal(fn->start_column, 5);
        } else if (strcmp(name, "layout") == 0) { /* with a source index after it */
            assert_string_equal(pk_str(p, fn->file), "https://example.com/app.js");
            assert_int_equal(fr->line, 40);
            assert_int_equal(fn->start_line, 40);
            assert_int_equal(fn->start_column, 1);
        } else if (strcmp(name, "onLoad") == 0) { /* no column */
            assert_string_equal(pk_str(p, fn->file), "https://example.com/page.js");
            assert_int_equal(fr->line, 7);
            assert_int_equal(fn->start_line, 7);
            assert_int_equal(fn->start_column, 0);
        } else if (strcmp(name, "0x2345") == 0) { /* inside libxul.so's mapping */
            assert_true(fr->flags & PK_FRAME_HAS_ADDRESS);
            assert_int_equal(fr->address, 0x2345);
            assert_string_equal(pk_str(p, pk_resource_at(p, fr->resource)->name), "libxul.so");
        }
    }
    pk_profile_free(p);
}

/* The library of a frame's address is looked up in the libraries of the sample's process: three
 * processes (the parent, a child in `processes` whose libs come after its threads, and a
 * child's profile in a string as version 4 wrote it) map different libraries at one address,
 * and a grandchild that lists none has no library there. */
static void test_gecko_libraries_per_process(void **state)
{
    (void)state;
#define GECKO_LIB(name) \
    "{\"name\":\"" name "\",\"path\":\"/lib/" name "\",\"start\":4096,\"end\":1052672,\"offset\":0}"
#define GECKO_THREAD(tid) \
    "{\"name\":\"T" #tid "\",\"pid\":" #tid ",\"tid\":" #tid ",\"samples\":{\"schema\":{\"stack\":0}," \
    "\"data\":[[0]]},\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[[null,0]]}," \
    "\"frameTable\":{\"schema\":{\"location\":0},\"data\":[[0]]},\"stringTable\":[\"0x2345\"]}"
    static const char text[] =
        "{\"meta\":{\"version\":27,\"interval\":1},\"libs\":[" GECKO_LIB("parent.so") "],"
        "\"threads\":[" GECKO_THREAD(1) ","
        /* a child's profile in a string, with a library of its own */
        "\"{\\\"meta\\\":{\\\"version\\\":4},\\\"libs\\\":[{\\\"name\\\":\\\"string.so\\\","
        "\\\"start\\\":4096,\\\"end\\\":1052672}],\\\"threads\\\":[{\\\"name\\\":\\\"T3\\\","
        "\\\"tid\\\":3,\\\"samples\\\":{\\\"schema\\\":{\\\"stack\\\":0},\\\"data\\\":[[0]]},"
        "\\\"stackTable\\\":{\\\"schema\\\":{\\\"prefix\\\":0,\\\"frame\\\":1},"
        "\\\"data\\\":[[null,0]]},\\\"frameTable\\\":{\\\"schema\\\":{\\\"location\\\":0},"
        "\\\"data\\\":[[0]]},\\\"stringTable\\\":[\\\"0x2345\\\"]}]}\"],"
        "\"processes\":[{\"meta\":{\"version\":27},\"threads\":[" GECKO_THREAD(2) "],"
        "\"processes\":[{\"meta\":{\"version\":27},\"libs\":[],"
        "\"threads\":[" GECKO_THREAD(4) "]}],"
        "\"libs\":[" GECKO_LIB("child.so") "]}]}";
#undef GECKO_LIB
#undef GECKO_THREAD
    pk_profile *p = read_ok(text);
    assert_int_equal(pk_thread_count(p), 4);
    const char *want[5] = {NULL, "parent.so", "child.so", "string.so", NULL};
    size_t checked = 0;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        int64_t tid = pk_thread_at(p, pk_sample_thread(p, row))->tid;
        assert_true(tid >= 1 && tid <= 4);
        uint32_t frame = pk_stack_leaf(p, pk_sample_stack(p, row));
        const pk_frame *fr = pk_frame_at(p, frame);
        assert_int_equal(fr->address, 0x2345);
        if (want[tid]) {
            assert_int_not_equal(fr->resource, PK_NONE);
            assert_string_equal(pk_str(p, pk_resource_at(p, fr->resource)->name), want[tid]);
        } else {
            assert_int_equal(fr->resource, PK_NONE);
        }
        checked++;
    }
    assert_int_equal(checked, 4);
    pk_profile_free(p);
}

/* A recording saved by Firefox's old DevTools Performance panel (Firefox 59 to 79 at least):
 * the Gecko profile in its `profile` is read; its own timeline (markers, framerate ticks,
 * memory, the allocation log) is counted in warnings. Found by content even when thousands of
 * markers put the profile far beyond the probe's bytes. */
static void test_devtools_recording(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("devtools-recording.v9.json");
    assert_int_equal(pk_thread_count(p), 1);
    assert_int_equal(pk_thread_at(p, 0)->pid, 606);
    assert_int_equal(pk_thread_at(p, 0)->tid, 9101);
    expect_folded(p, 0,
                  "GeckoMain;(root);nsAppShell::ProcessGeckoEvents 1\n"
                  "GeckoMain;(root);nsAppShell::ProcessGeckoEvents;js::RunScript 1\n"
                  "GeckoMain;(root);nsAppShell::ProcessGeckoEvents;js::RunScript;main 2\n"
                  "GeckoMain;(root);nsAppShell::ProcessGeckoEvents;js::RunScript;main;work 2\n");
    /* The recording's 2 markers (the submarker inside one is not another) and the thread's 2. */
    assert_true(has_warning(p, "4 markers left aside"));
    assert_true(has_warning(p, "3 framerate ticks, 2 memory measurements, 2 logged allocations"));
    /* The profile's meta, inside `profile`. */
    assert_string_equal(pk_str(p, pk_metadata_of(p)->product), "Firefox");
    /* (read through a double: to the microsecond) */
    assert_true(llabs(pk_metadata_of(p)->start_time - 1523986294997500000) < 1000);
    pk_profile_free(p);

    size_t size;
    char *data = tb_read_data_file("firefox/devtools-recording.v9.json", &size);
    const char *rest = strstr(data, "\"frames\":");
    assert_non_null(rest);
    size_t markers = 200, cap = size + markers * 80 + 64, n = 0;
    char *big = malloc(cap);
    assert_non_null(big);
    n += (size_t)snprintf(big + n, cap - n, "{\"label\":\"\",\"duration\":1.5,\"markers\":[");
    for (size_t i = 0; i < markers; i++)
        n += (size_t)snprintf(big + n, cap - n,
                              "%s{\"name\":\"Styles\",\"start\":%zu.5,\"end\":%zu.75,\"stack\":null}",
                              i ? "," : "", i, i);
    n += (size_t)snprintf(big + n, cap - n, "],%s", rest);
    assert_true(n > 3 * PK_PROBE_BYTES && n < cap);
    int score;
    assert_ptr_equal(
        pk_format_probe((const uint8_t *)big, PK_PROBE_BYTES, "Recording.json", &score), firefox());
    pk_status status;
    pk_error err;
    p = read_bytes(big, n, false, &status, &err);
    assert_non_null(p);
    assert_true(has_warning(p, "202 markers left aside"));
    assert_int_equal(pk_value_total(p, 0), 6);
    pk_profile_free(p);
    free(big);
    free(data);
}

/* The flags of the function called name (which must exist). */
static uint32_t flags_of(const pk_profile *p, const char *name)
{
    for (uint32_t f = 0; f < pk_function_count(p); f++)
        if (strcmp(pk_str(p, pk_function_at(p, f)->name), name) == 0)
            return pk_function_at(p, f)->flags;
    fail_msg("no function %s", name);
    return 0;
}

/* What kind of code a function is: funcTable's isJS and relevantForJS (to version 74), its
 * flags bits (version 75 on), and in Gecko files the location (a url and a line: JavaScript)
 * and, for a label, the frame's relevantForJS. */
static void test_script_functions(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("samply-crate-0.8.1-test-profile_with_js.v55.json");
    assert_int_equal(flags_of(p, "Some label string"), PK_FUNCTION_SCRIPT);
    assert_int_equal(flags_of(p, "0x7f76b7ffc0e6"), 0);
    pk_profile_free(p);
    p = read_fixture("gecko-handmade.v27.json");
    assert_int_equal(flags_of(p, "render"), PK_FUNCTION_SCRIPT);
    assert_int_equal(flags_of(p, "onLoad"), PK_FUNCTION_SCRIPT);
    assert_int_equal(flags_of(p, "js::RunScript"), 0);
    assert_int_equal(flags_of(p, "0x2345"), 0);
    pk_profile_free(p);
    p = read_ok("{\"meta\":{\"version\":27},\"threads\":[{\"name\":\"t\","
                "\"samples\":{\"schema\":{\"stack\":0},\"data\":[[2],[3]]},"
                "\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},"
                "\"data\":[[null,0],[0,1],[1,2],[1,3]]},"
                "\"frameTable\":{\"schema\":{\"location\":0,\"relevantForJS\":1},"
                "\"data\":[[0,false],[1,true],[2],[3,false]]},"
                "\"stringTable\":[\"(root)\",\"setTimeout handler\","
                "\"tick (https://example.com/a.js:3:9)\",\"Paint\"]}]}");
    assert_int_equal(flags_of(p, "setTimeout handler"), PK_FUNCTION_SCRIPT_RELEVANT);
    assert_int_equal(flags_of(p, "tick"), PK_FUNCTION_SCRIPT);
    assert_int_equal(flags_of(p, "Paint"), 0);
    assert_int_equal(flags_of(p, "(root)"), 0);
    pk_profile_free(p);
    p = read_ok("{\"meta\":{\"preprocessedProfileVersion\":75},"
                "\"threads\":[{\"name\":\"t\",\"samples\":{\"stack\":[2,3]}}],"
                "\"shared\":{\"stackTable\":{\"prefix\":[null,0,1,1],\"frame\":[0,1,2,3]},"
                "\"frameTable\":{\"func\":[0,1,2,3]},"
                "\"funcTable\":{\"name\":[0,1,2,3],\"flags\":[0,2,1,60]},"
                "\"stringArray\":[\"main\",\"setTimeout\",\"tick\",\"native\"]}}");
    assert_int_equal(flags_of(p, "main"), 0);
    assert_int_equal(flags_of(p, "setTimeout"), PK_FUNCTION_SCRIPT_RELEVANT);
    assert_int_equal(flags_of(p, "tick"), PK_FUNCTION_SCRIPT);
    assert_int_equal(flags_of(p, "native"), 0); /* bits that say which columns are not null */
    pk_profile_free(p);
}

/* The library (name and path) of the frame of function `name`. */
static void expect_library(const pk_profile *p, const char *function, const char *name,
                           const char *path)
{
    for (size_t f = 0; f < pk_frame_count(p); f++) {
        const pk_frame *fr = pk_frame_at(p, (uint32_t)f);
        if (strcmp(pk_str(p, pk_function_at(p, fr->function)->name), function) != 0)
            continue;
        assert_true(fr->resource != PK_NONE);
        assert_string_equal(pk_str(p, pk_resource_at(p, fr->resource)->name), name);
        assert_string_equal(pk_str(p, pk_resource_at(p, fr->resource)->path), path);
        return;
    }
    fail_msg("no frame of %s", function);
}

/* Gecko versions 3 and 4 (the Firefox Profiler's upgraders say what they held): `libs` as a JSON
 * string naming each library by its path (3), a child process's profile as a JSON string in
 * `threads` (3 and 4), the sample, frame and marker schemas of the time. */
static void test_gecko_old_versions(void **state)
{
    (void)state;
    static const struct {
        const char *file, *folded;
    } files[] = {{"gecko-handmade.v3.json", /* the child's thread was "Content" then */
                  "Content;(root);0x200100 1\n"
                  "Content;(root);onLoad 2\n"
                  "GeckoMain 1\n"
                  "GeckoMain;(root);0x2345 1\n"
                  "GeckoMain;(root);js::RunScript;render 2\n"},
                 {"gecko-handmade.v4.json",
                  "GeckoMain (tid 100) 1\n"
                  "GeckoMain (tid 100);(root);0x2345 1\n"
                  "GeckoMain (tid 100);(root);js::RunScript;render 2\n"
                  "GeckoMain (tid 200);(root);0x200100 1\n"
                  "GeckoMain (tid 200);(root);onLoad 2\n"}};
    for (size_t i = 0; i < 2; i++) {
        pk_profile *p = read_fixture(files[i].file);
        assert_int_equal(pk_thread_count(p), 2);
        assert_int_equal(pk_thread_at(p, 1)->tid, 200);
        expect_folded(p, 0, files[i].folded);
        assert_true(has_warning(p, "1 marker left aside"));
        /* Each address in the library that maps it, whichever process listed it. */
        expect_library(p, "0x2345", "libxul.so", "/usr/lib/firefox/libxul.so");
        expect_library(p, "0x200100", "libmozgtk.so", "/usr/lib/firefox/libmozgtk.so");
        pk_profile_free(p);
    }
    /* A damaged document in a string is damage where the string ends, and says where in it. */
    const char *bad = "{\"meta\":{\"version\":4},\"threads\":[\"{\\\"threads\\\":[\"]}";
    pk_status status;
    pk_error err;
    pk_profile *p = read_bytes(bad, strlen(bad), false, &status, &err);
    assert_null(p);
    assert_int_equal(status, PK_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)strlen(bad) - 2);
    assert_non_null(strstr(err.message, "a child process's profile (a JSON string), at byte 12 of it"));
}

static uint32_t function_of(pk_profile *p, const char *name, const char *file, uint32_t line)
{
    pk_function f = {.name = pk_intern_cstr(p, name), .file = file ? pk_intern_cstr(p, file) : 0,
                     .start_line = line, .resource = PK_NONE};
    return pk_intern_function(p, &f);
}

static uint32_t frame_of(pk_profile *p, uint32_t function, uint32_t line)
{
    pk_frame f = {function, line, 0, PK_NONE, 0};
    return pk_intern_frame(p, &f);
}

/* What profkit writes reads back with the same stacks, values and threads, for each kind of
 * weight. */
/* Written by profkit's Firefox writer and read back: the same order and times. */
static pk_profile *firefox_round_trip(const pk_profile *p)
{
    pk_write_options options = {0};
    options.value = PK_NONE;
    char *out = NULL;
    size_t size = 0;
    pk_error err;
    assert_int_equal(pk_write_memory(p, firefox(), &options, &out, &size, &err), PK_OK);
    pk_status status;
    pk_profile *back = read_bytes(out, size, false, &status, &err);
    assert_non_null(back);
    free(out);
    return back;
}

/* Order and times relative to the earliest sample, thread by thread. */
static void expect_same_timelines(const pk_profile *a, const pk_profile *b, uint32_t value)
{
    int64_t first, last, b_first, b_last;
    assert_true(pk_timeline_bounds(a, &first, &last));
    assert_true(pk_timeline_bounds(b, &b_first, &b_last));
    if (last - first != b_last - b_first)
        fail_msg("spans %lld and %lld", (long long)(last - first), (long long)(b_last - b_first));
    assert_int_equal(pk_thread_count(a), pk_thread_count(b));
    for (uint32_t t = 0; t < pk_thread_count(a); t++) {
        char *want = tb_timeline_text(a, t, value, first);
        tb_expect_timeline(b, t, value, b_first, want);
        free(want);
    }
}

/* The writer writes a run of instants of one stack as one sample weighing the run: a file it
 * wrote reads back to the same timelines. */
static void expect_round_trip(const pk_profile *p, uint32_t value)
{
    pk_profile *once = firefox_round_trip(p);
    pk_profile *twice = firefox_round_trip(once);
    expect_same_timelines(once, twice, value);
    pk_profile_free(twice);
    pk_profile_free(once);
}

/* Sample times: processed `time` (fractions of a millisecond to the nanosecond) and Gecko rows'
 * `time`, a child process's on its own meta.startTime, every sample in order; read back from
 * what profkit writes, the same. */
static void test_sample_times(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("firefox-profiler-fixture-unsymbolicated.v49.json");
    assert_false(pk_metadata_get(p)->times_approximate);
    pk_timeline_info info;
    pk_timeline_info_get(p, 0, &info);
    assert_true(info.measured);
    assert_int_equal(info.count, 11);
    /* 1726433496120.807275 ms: the nanoseconds of the decimals, not whole milliseconds */
    assert_true(info.first == 1726433496120807275LL);
    assert_true(info.last == 1726433496180066400LL);
    expect_round_trip(p, 0);
    pk_profile_free(p);

    p = read_fixture("gecko-handmade.v27.json");
    int64_t start = 1700000000000LL * 1000000;
    tb_expect_timeline(p, 0, 0, start,
                       "render@1000000=1 layout@2000000=1 render@3000000=1 -@4000000=1 "
                       "0x2345@5000000=1");
    /* the child process started 500 ms later: its times are on the parent's clock */
    tb_expect_timeline(p, 1, 0, start, "onLoad@501000000=1 onLoad@502000000=1 (root)@503000000=1");
    expect_round_trip(p, 0);
    pk_profile_free(p);

    p = read_fixture("gecko-handmade.v4.json");
    pk_timeline_info_get(p, 1, &info);
    assert_true(info.measured && info.count == 3);
    assert_true(info.first == 1460000000501000000LL); /* the child in a string: its own clock */
    pk_profile_free(p);

    /* timeDeltas, and tracing-ms samples as spans (the empty one ends the last). */
    p = read_ok("{\"meta\":{\"version\":24,\"preprocessedProfileVersion\":55,\"startTime\":1000.5},"
                "\"threads\":[{\"name\":\"a\",\"stringArray\":[\"f\"],"
                "\"funcTable\":{\"name\":[0],\"length\":1},"
                "\"frameTable\":{\"func\":[0],\"length\":1},"
                "\"stackTable\":{\"frame\":[0],\"prefix\":[null],\"length\":1},"
                "\"samples\":{\"stack\":[0,0,null],\"timeDeltas\":[1.25,0.5,2],\"length\":3}},"
                "{\"name\":\"b\",\"stringArray\":[\"g\"],"
                "\"funcTable\":{\"name\":[0],\"length\":1},"
                "\"frameTable\":{\"func\":[0],\"length\":1},"
                "\"stackTable\":{\"frame\":[0],\"prefix\":[null],\"length\":1},"
                "\"samples\":{\"weightType\":\"tracing-ms\",\"stack\":[0,null,0,null],"
                "\"time\":[0,2.5,3,4],\"weight\":[2.5,0,1,0],\"length\":4}}]}");
    tb_expect_timeline(p, 0, 0, 1000500000, "f@1250000=1 f@1750000=1 -@3750000=1");
    tb_expect_timeline(p, 1, 1, 1000500000, "g@0+2500000=2500000 g@3000000+1000000=1000000");
    pk_profile_free(p);
    /* Spans alone are written as they are. */
    p = read_ok("{\"meta\":{\"version\":24,\"preprocessedProfileVersion\":55,\"startTime\":0},"
                "\"threads\":[{\"name\":\"b\",\"stringArray\":[\"g\"],"
                "\"funcTable\":{\"name\":[0],\"length\":1},"
                "\"frameTable\":{\"func\":[0],\"length\":1},"
                "\"stackTable\":{\"frame\":[0],\"prefix\":[null],\"length\":1},"
                "\"samples\":{\"weightType\":\"tracing-ms\",\"stack\":[0,null,0,null],"
                "\"time\":[0,2.5,3,4],\"weight\":[2.5,0,1,0],\"length\":4}}]}");
    pk_profile *back = firefox_round_trip(p);
    tb_expect_timeline(back, 0, 0, 0, "g@0+2500000=2500000 g@3000000+1000000=1000000");
    pk_profile_free(back);
    pk_profile_free(p);
}

static void test_write_read(void **state)
{
    (void)state;
    static const struct {
        const char *unit, *read_as;
        int64_t scale;
    } units[] = {{"nanoseconds", "time", 1}, {"microseconds", "time", 1000},
                 {"kilobytes", "bytes", 1024}, {"count", "samples", 1}};
    for (size_t u = 0; u < 4; u++) {
        pk_profile *p = pk_profile_new();
        pk_add_value_type(p, "v", units[u].unit);
        uint32_t main_thread = pk_add_thread(p, pk_intern_cstr(p, "main"), 7, 7);
        uint32_t worker = pk_add_thread(p, pk_intern_cstr(p, "worker"), 7, 8);
        uint32_t f_main = function_of(p, "main", "a.c", 1);
        uint32_t f_work = function_of(p, "work", "b.c", 5);
        /* A second function on the same line, further right. */
        pk_function later = *pk_function_at(p, f_work);
        later.start_column = 30;
        uint32_t f_later = pk_intern_function(p, &later);
        uint32_t s_main = pk_intern_stack(p, PK_NONE, frame_of(p, f_main, 2));
        uint32_t s_work = pk_intern_stack(p, s_main, frame_of(p, f_work, 6));
        uint32_t s_work7 = pk_intern_stack(p, s_main, frame_of(p, f_work, 7));
        uint32_t s_later = pk_intern_stack(p, s_work7, frame_of(p, f_later, 5));
        assert_int_equal(pk_add_sample_value(p, main_thread, s_main, 0, 7), PK_OK);
        assert_int_equal(pk_add_sample_value(p, main_thread, s_work, 0, 1234567), PK_OK);
        assert_int_equal(pk_add_sample_value(p, worker, s_work7, 0, 13), PK_OK);
        assert_int_equal(pk_add_sample_value(p, worker, PK_NONE, 0, 17), PK_OK);
        assert_int_equal(pk_add_sample_value(p, worker, s_later, 0, 19), PK_OK);
        pk_write_options options = {0};
        options.value = PK_NONE;
        char *out = NULL;
        size_t size = 0;
        pk_error err;
        assert_int_equal(pk_write_memory(p, firefox(), &options, &out, &size, &err), PK_OK);
        pk_profile *q = read_ok(out);
        assert_int_equal(pk_value_type_count(q), 1);
        assert_string_equal(pk_str(q, pk_value_type_at(q, 0)->name), units[u].read_as);
        assert_int_equal(pk_thread_count(q), 2);
        assert_int_equal(pk_thread_at(q, 1)->pid, 7);
        assert_int_equal(pk_thread_at(q, 1)->tid, 8);
        char want[256];
        long long k = (long long)units[u].scale;
        snprintf(want, sizeof want, "main;main %lld\nmain;main;work %lld\nworker %lld\n"
                 "worker;main;work %lld\nworker;main;work;work %lld\n", 7 * k, 1234567 * k,
                 17 * k, 13 * k, 19 * k);
        expect_folded(q, 0, want);
        /* Lines within a function are kept, and so is the column of the one further right. */
        size_t seen = 0, frames = 0;
        for (size_t f = 0; f < pk_frame_count(q); f++) {
            const pk_frame *fr = pk_frame_at(q, (uint32_t)f);
            const pk_function *fn = pk_function_at(q, fr->function);
            if (strcmp(pk_str(q, fn->name), "work") != 0)
                continue;
            assert_string_equal(pk_str(q, fn->file), "b.c");
            assert_int_equal(fn->start_line, 5);
            assert_int_equal(fn->start_column, fr->line == 5 ? 30 : 0);
            seen |= fr->line == 5 ? 1 : fr->line == 6 ? 2 : fr->line == 7 ? 4 : 8;
            frames++;
        }
        assert_int_equal(seen, 7);
        assert_int_equal(frames, 3);
        assert_int_equal(pk_warning_count(q), 0);
        free(out);
        pk_profile_free(q);
        pk_profile_free(p);
    }
}

/* Weights before stacks, shared tables after the threads, weightType last. */
static void test_key_orders(void **state)
{
    (void)state;
    pk_profile *p = read_ok(
        "{\"meta\":{\"preprocessedProfileVersion\":66},"
        "\"threads\":[{\"name\":\"t\",\"pid\":\"1\",\"tid\":2,"
        "\"samples\":{\"weight\":[1.5,0.25,2],\"stack\":[1,1,null],\"length\":3,"
        "\"weightType\":\"tracing-ms\"}}],"
        "\"shared\":{\"stackTable\":{\"prefixOffset\":[0,1],\"frame\":[0,1],\"length\":2},"
        "\"frameTable\":{\"func\":[0,1],\"line\":[null,3],\"length\":2},"
        "\"funcTable\":{\"name\":[1,0],\"source\":[null,0],\"lineNumber\":[null,2],\"length\":2},"
        "\"sources\":{\"filename\":[2],\"length\":1},"
        "\"stringArray\":[\"inner\",\"outer\",\"x.js\"]}}");
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->name), "time");
    expect_folded(p, 0, "t 2000000\nt;outer;inner 1750000\n");
    pk_profile_free(p);
    /* No weight column: a sample weighs 1. */
    p = read_ok("{\"threads\":[{\"stringArray\":[\"f\"],\"samples\":{\"stack\":[0,0,0],"
                "\"weight\":null},\"stackTable\":{\"frame\":[0],\"prefix\":[null]},"
                "\"frameTable\":{\"func\":[0]},\"funcTable\":{\"name\":[0]}}]}");
    expect_folded(p, 0, "Thread 1;f 3\n");
    pk_profile_free(p);
}

/* A library belongs to frames with an address (found by the round-trip fuzzer: a function of
 * a library whose frames had no address read back as another function than its namesake's,
 * while the writer, which lists libraries for addresses only, wrote them as one). */
static void test_library_without_address(void **state)
{
    (void)state;
    pk_profile *p = read_ok(
        "{\"libs\":[{\"name\":\"a.so\",\"path\":\"/a.so\"},{\"name\":\"b.so\",\"path\":\"/b.so\"}],"
        "\"threads\":[{\"name\":\"t\",\"stringArray\":[\"f\"],"
        "\"samples\":{\"stack\":[0,1],\"weight\":null},"
        "\"stackTable\":{\"frame\":[0,1],\"prefix\":[null,null]},"
        "\"frameTable\":{\"func\":[0,1],\"address\":[-1,-1]},"
        "\"funcTable\":{\"name\":[0,0],\"resource\":[0,1]},"
        "\"resourceTable\":{\"lib\":[0,1]}}]}");
    assert_int_equal(pk_function_count(p), 1);
    expect_folded(p, 0, "t;f 2\n");
    pk_profile_free(p);
}

/* Milliseconds beyond what a double holds to the nanosecond are read exactly from their text. */
static void test_exact_milliseconds(void **state)
{
    (void)state;
    pk_profile *p = read_ok(
        "{\"meta\":{\"preprocessedProfileVersion\":55},\"threads\":[{\"name\":\"t\","
        "\"stringArray\":[\"a\",\"b\"],\"samples\":{\"weightType\":\"tracing-ms\","
        "\"stack\":[0,1,1,0],\"weight\":[4611686018427.387903,1234567890123.456789,1,null]},"
        "\"stackTable\":{\"frame\":[0,1],\"prefix\":[null,null]},\"frameTable\":{\"func\":[0,1]},"
        "\"funcTable\":{\"name\":[0,1]}}]}");
    expect_folded(p, 0, "t;a 4611686018428387903\nt;b 1234567890124456789\n");
    pk_profile_free(p);
}

static void test_damage(void **state)
{
    (void)state;
    /* A prefix that is not an earlier stack, a stack index beyond the table, more weights than
     * samples. */
    pk_profile *p = read_ok(
        "{\"threads\":[{\"name\":\"t\",\"stringArray\":[\"a\",\"b\"],"
        "\"samples\":{\"stack\":[1,5],\"weight\":[1,1,1]},"
        "\"stackTable\":{\"frame\":[0,1],\"prefix\":[1,0]},\"frameTable\":{\"func\":[0,1]},"
        "\"funcTable\":{\"name\":[0,1]}}]}");
    expect_folded(p, 0, "t;a;b 1\n");
    assert_true(has_warning(p, "1 stack whose prefix is not an earlier stack"));
    assert_true(has_warning(p, "1 reference to a stack or frame"));
    assert_true(has_warning(p, "1 weight without a sample"));
    pk_profile_free(p);

    /* Every cut of a file is damage at the cut, or nothing to read (one with documents in
     * strings too). */
    static const char *const cut_files[] = {"firefox/notes-example.v55.json",
                                            "firefox/gecko-handmade.v3.json",
                                            "firefox/devtools-recording.v9.json"};
    for (size_t file = 0; file < sizeof cut_files / sizeof cut_files[0]; file++) {
    size_t size;
    char *data = tb_read_data_file(cut_files[file], &size);
    for (size_t cut = 1; cut < size; cut += size / 89 + 1) {
        pk_status status;
        pk_error err;
        p = read_bytes(data, cut, false, &status, &err);
        assert_null(p);
        assert_int_equal(status, PK_ERR_INPUT);
        if (err.salvageable) {
            assert_int_equal(err.offset, (int64_t)cut);
            p = read_bytes(data, cut, true, &status, &err);
            assert_non_null(p);
            pk_profile_free(p);
        }
    }
    free(data);
    }

    /* Not JSON: the byte offset of the error. */
    const char *bad = "{\"threads\":[{\"samples\":{\"stack\":[0,]}}]}";
    pk_status status;
    pk_error err;
    p = read_bytes(bad, strlen(bad), false, &status, &err);
    assert_null(p);
    assert_int_equal(err.offset, 36);
    assert_non_null(strstr(err.message, "not valid JSON"));
    const char *no_threads = "{\"meta\":{\"version\":27}}";
    p = read_bytes(no_threads, strlen(no_threads), false, &status, &err);
    assert_null(p);
    assert_non_null(strstr(err.message, "no threads"));
}

static void test_probe(void **state)
{
    (void)state;
    static const char *const names[] = {
        "firefox-profiler-fixture-processed-3.v24.json", "firefox-profiler-fixture-unsymbolicated.v49.json",
        "minimal-handwritten.v55.json", "minimal-handwritten.v66.json", "minimal-handwritten.v70.json",
        "notes-example.v55.json", "notes-example.v66.json",
        "samply-crate-snapshot-profile_without_js.v66.json",
        "samply-crate-0.8.1-test-profile_with_js.v55.json", "gecko-handmade.v27.json",
        "gecko-handmade.v3.json", "gecko-handmade.v4.json", "devtools-recording.v9.json"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "firefox/%s", names[i]);
        size_t size;
        char *data = tb_read_data_file(path, &size);
        int score;
        const pk_format *f = pk_format_probe((const uint8_t *)data,
                                             size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES,
                                             "profile.bin", &score);
        if (f != firefox())
            fail_msg("%s probed as %s", names[i], f ? f->name : "nothing");
        free(data);
    }
    /* What the writer writes. */
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    pk_add_thread(p, pk_intern_cstr(p, "t"), 1, 1);
    pk_write_options options = {0};
    options.value = PK_NONE;
    char *out = NULL;
    size_t size = 0;
    pk_error err;
    assert_int_equal(pk_write_memory(p, firefox(), &options, &out, &size, &err), PK_OK);
    int score;
    assert_ptr_equal(pk_format_probe((const uint8_t *)out, size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES,
                                     "x.bin", &score),
                     firefox());
    free(out);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_versions_agree), cmocka_unit_test(test_other_fixtures),
        cmocka_unit_test(test_gecko),
        cmocka_unit_test(test_gecko_libraries_per_process),          cmocka_unit_test(test_gecko_old_versions),
        cmocka_unit_test(test_devtools_recording),
        cmocka_unit_test(test_write_read),    cmocka_unit_test(test_script_functions),
        cmocka_unit_test(test_key_orders),     cmocka_unit_test(test_library_without_address),
        cmocka_unit_test(test_exact_milliseconds),
        cmocka_unit_test(test_sample_times),
        cmocka_unit_test(test_damage),
        cmocka_unit_test(test_probe),
    };
    return cmocka_run_group_tests_name("firefox reader", tests, NULL, NULL);
}
