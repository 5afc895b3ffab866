/* SPDX-License-Identifier: MIT */
/* perf script text: the header and frame line parsers, the model the reader builds from
 * fixtures made by perf (threads, values per event, frames, resources, inlined frames, source
 * lines, the --header block), folded output equal to stackcollapse-perf.pl's (the expected
 * files under tests/data/perf/ were derived by hand from its rules), the probe against folded,
 * damage with line numbers, every truncation point of a recording, and each sample's time in
 * its thread's timeline. */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixtures.h"
#include "sorted_lines.h"
#include "formats/formats.h"
#include "formats/perf_script/perf_script.h"
#include "profkit/format.h"
#include "profkit/profile.h"
#include "profkit/timeline.h"

/* ---- helpers --------------------------------------------------------------------------------- */

static pk_status read_perf(const char *text, size_t len, bool salvage, const pk_option *extra,
                           size_t extra_count, pk_profile **out, pk_error *err)
{
    pk_read_options options = {0};
    options.salvage = salvage;
    options.extra.items = extra;
    options.extra.count = extra_count;
    *out = NULL;
    pk_error_clear(err);
    return pk_read_memory(text, len, &pk_format_perf_script, &options, out, err);
}

static pk_profile *read_ok(const char *text, size_t len)
{
    pk_profile *p = NULL;
    pk_error err;
    if (read_perf(text, len, false, NULL, 0, &p, &err) != PK_OK)
        fail_msg("read failed: %s", err.message);
    return p;
}

static pk_profile *read_fixture(const char *name)
{
    size_t size;
    char *text = tb_read_data_file(name, &size);
    pk_profile *p = read_ok(text, size);
    free(text);
    return p;
}

static char *folded_of(const pk_profile *p, uint32_t value)
{
    pk_write_options options = {0};
    options.value = value;
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    if (pk_write_memory(p, &pk_format_folded, &options, &data, &size, &err) != PK_OK)
        fail_msg("write failed: %s", err.message);
    return tb_sorted_lines(data);
}

/* Folded output of tests/data/perf/NAME.perf (with options) equals NAME.folded. */
static void assert_folded_fixture(const char *input, const char *expected, const pk_option *extra,
                                  size_t extra_count, const char *value)
{
    size_t size, want_size;
    char *text = tb_read_data_file(input, &size);
    pk_profile *p = NULL;
    pk_error err;
    if (read_perf(text, size, false, extra, extra_count, &p, &err) != PK_OK)
        fail_msg("%s: %s", input, err.message);
    uint32_t v = value ? pk_value_find(p, value) : PK_NONE;
    assert_true(!value || v != PK_NONE);
    char *got = folded_of(p, v);
    char *want = tb_sorted_lines(tb_read_data_file(expected, &want_size));
    assert_string_equal(got, want);
    free(got);
    free(want);
    free(text);
    pk_profile_free(p);
}

/* ---- parsers ------------------------------------------------------------------------------- */

static void test_parse_headers(void **state)
{
    (void)state;
    perf_header h;
    const char *line = "V8 WorkerThread 24636/25607 [002] 94564.109216:     250000 cycles:uppp: ";
    assert_true(perf_parse_header(line, strlen(line), &h));
    assert_int_equal(h.comm_len, 15);
    assert_memory_equal(h.comm, "V8 WorkerThread", 15);
    assert_int_equal(h.pid, 24636);
    assert_int_equal(h.tid, 25607);
    assert_true(h.has_time);
    assert_true(h.time_ns == 94564109216000ull);
    assert_true(h.has_period);
    assert_int_equal(h.period, 250000);
    assert_int_equal(h.event_len, 11);
    assert_memory_equal(h.event, "cycles:uppp", 11);
    assert_int_equal(h.rest_len, 0);

    /* Without call graphs: right-aligned command, the frame after the event. */
    line = "            prog 22196   868.188204:    1001001 cpu-clock:      5606aa7ba24b "
           "leaf_sqrt+0x44 (/tmp/wperf/prog)";
    assert_true(perf_parse_header(line, strlen(line), &h));
    assert_memory_equal(h.comm, "prog", 4);
    assert_int_equal(h.pid, -1);
    assert_int_equal(h.tid, 22196);
    assert_memory_equal(h.event, "cpu-clock", 9);
    assert_int_equal(h.rest_len, strlen("5606aa7ba24b leaf_sqrt+0x44 (/tmp/wperf/prog)"));

    /* -F without period, with nanoseconds; a tracepoint with fields. */
    line = "prog 19964   860.582027123: cpu-clock: ";
    assert_true(perf_parse_header(line, strlen(line), &h));
    assert_false(h.has_period);
    assert_true(h.time_ns == 860582027123ull);
    line = "kworker/0:1 42 [000] 10.000001: sched:sched_switch: prev_comm=a next_comm=b";
    assert_true(perf_parse_header(line, strlen(line), &h));
    assert_memory_equal(h.comm, "kworker/0:1", 11);
    assert_int_equal(h.event_len, 18);

    /* Frame lines and other text are no headers. */
    line = "\tffffffff821f39e5 irqentry_exit_to_user_mode+0x105 ([kernel.kallsyms])";
    assert_false(perf_parse_header(line, strlen(line), &h));
    line = "main;leaf 12";
    assert_false(perf_parse_header(line, strlen(line), &h));
    line = "prog 12 [x] 1.5: cycles:";
    assert_false(perf_parse_header(line, strlen(line), &h));
}

static void test_parse_frames(void **state)
{
    (void)state;
    perf_frame f;
    const char *line = "\t    55d4c1a2b123 std::_Function_handler<double (int), "
                       "main::{lambda(int)#1}>::_M_invoke+0x4 (/tmp/wperf/cxx)";
    assert_true(perf_parse_frame(line, strlen(line), &f));
    assert_true(f.address == 0x55d4c1a2b123ull);
    assert_int_equal(f.symbol_len,
                     strlen("std::_Function_handler<double (int), main::{lambda(int)#1}>::_M_invoke"));
    assert_memory_equal(f.dso, "/tmp/wperf/cxx", 14);
    assert_false(f.inlined);

    line = "  55d4 vector_add (inlined)";
    assert_true(perf_parse_frame(line, strlen(line), &f));
    assert_true(f.inlined);
    line = "\t55d4 JS:*leaf /srv/app/lib/math.js:1:14 (/tmp/perf-8100.map)";
    assert_true(perf_parse_frame(line, strlen(line), &f));
    assert_int_equal(f.symbol_len, strlen("JS:*leaf /srv/app/lib/math.js:1:14"));
    /* A DSO path with a blank; upper-case hex is no offset (as the FlameGraph script reads). */
    line = "\t7f00 f+0xAB (/opt/my app/lib.so)";
    assert_true(perf_parse_frame(line, strlen(line), &f));
    assert_int_equal(f.symbol_len, 6);
    assert_int_equal(f.dso_len, strlen("/opt/my app/lib.so"));
    /* No DSO (-F ip,sym); a DSO alone (-F ip,dso). */
    line = "\t7f00 main+0x10";
    assert_true(perf_parse_frame(line, strlen(line), &f));
    assert_null(f.dso);
    assert_int_equal(f.symbol_len, 4);
    line = "\t7f00 (/usr/lib/libc.so.6)";
    assert_true(perf_parse_frame(line, strlen(line), &f));
    assert_int_equal(f.symbol_len, 0);
    assert_int_equal(f.dso_len, strlen("/usr/lib/libc.so.6"));

    line = "  prog.c:12";
    assert_false(perf_parse_frame(line, strlen(line), &f));
    const char *file;
    size_t file_len;
    uint32_t number;
    assert_true(perf_parse_srcline(line, strlen(line), &file, &file_len, &number));
    assert_int_equal(file_len, 6);
    assert_int_equal(number, 12);
    line = "  [kernel.kallsyms][ffffffff821f39e5]";
    assert_false(perf_parse_srcline(line, strlen(line), &file, &file_len, &number));
}

/* ---- the model ----------------------------------------------------------------------------- */

static uint32_t thread_named(const pk_profile *p, const char *name, int64_t tid)
{
    for (uint32_t t = 0; t < pk_thread_count(p); t++) {
        const pk_thread *th = pk_thread_at(p, t);
        if (strcmp(pk_str(p, th->name), name) == 0 && th->tid == tid)
            return t;
    }
    return PK_NONE;
}

static void test_model_of_a_recording(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("perf/prog-pid-cpu.perf");
    /* perf record -g on a program with a worker thread: two threads of one process. */
    assert_int_equal(pk_thread_count(p), 2);
    uint32_t main_thread = thread_named(p, "prog", 24922);
    uint32_t worker = thread_named(p, "prog", 24940);
    assert_int_not_equal(main_thread, PK_NONE);
    assert_int_not_equal(worker, PK_NONE);
    assert_int_equal(pk_thread_at(p, worker)->pid, 24922);
    /* cpu-clock: periods in nanoseconds (the default value) and samples counted. */
    assert_int_equal(pk_value_type_count(p), 2);
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->name), "cpu-clock");
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->unit), "nanoseconds");
    assert_string_equal(pk_str(p, pk_value_type_at(p, 1)->name), "cpu-clock-samples");
    assert_int_equal(pk_default_value(p), 0);
    assert_int_equal(pk_value_total(p, 1), 101);
    assert_true(pk_value_total(p, 0) == 101 * 1001001LL);
    /* Frames: symbol without offset, the DSO as resource, the address printed. */
    bool found = false;
    for (uint32_t f = 0; f < pk_frame_count(p); f++) {
        const pk_frame *fr = pk_frame_at(p, f);
        if (strcmp(pk_frame_name(p, f), "middle") != 0)
            continue;
        found = true;
        assert_true(fr->flags & PK_FRAME_HAS_ADDRESS);
        assert_true(fr->address == 0x12fe);
        assert_string_equal(pk_str(p, pk_resource_at(p, fr->resource)->name), "prog");
        assert_string_equal(pk_str(p, pk_resource_at(p, fr->resource)->path), "/tmp/wperf/prog");
    }
    assert_true(found);
    pk_profile_free(p);
}

static void test_header_block(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("perf/prog-header.perf");
    assert_string_equal(pk_property_get(p, "hostname"), "vm");
    assert_string_equal(pk_property_get(p, "perf version"), "6.1.192");
    assert_non_null(strstr(pk_property_get(p, "cmdline"), "perf record -F 999 -g -e cpu-clock"));
    assert_non_null(strstr(pk_property_get(p, "event"), "name = cpu-clock"));
    /* Captured Wed Nov 25 19:10:10 2026, the samples 860.582027 .. 861.330737. */
    const pk_metadata *md = pk_metadata_get(p);
    assert_true(md->end_time == 1795633810LL * 1000000000LL);
    assert_true(md->end_time - md->start_time == 748710000LL);
    pk_profile_free(p);
    /* A date past what nanoseconds since the epoch hold is no date. */
    const char *text = "# ========\n# captured on    : Wed Nov 25 19:10:10 8210\n# ========\n"
                       "prog 1 1.0: 1 cpu-clock:\n\t1 f (x)\n";
    p = read_ok(text, strlen(text));
    assert_true(pk_metadata_get(p)->start_time == PK_TIME_UNKNOWN);
    assert_string_equal(pk_property_get(p, "captured on"), "Wed Nov 25 19:10:10 8210");
    pk_profile_free(p);
}

static void test_inlined_and_source_lines(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("perf/inline.perf");
    for (uint32_t f = 0; f < pk_frame_count(p); f++) {
        const char *name = pk_frame_name(p, f);
        bool inlined = strcmp(name, "vector_add") == 0 || strcmp(name, "kernel_loop") == 0;
        assert_int_equal((pk_frame_at(p, f)->flags & PK_FRAME_INLINED) != 0, inlined);
    }
    pk_profile_free(p);

    /* Every stack's frames carry the source line printed under them. */
    p = read_fixture("perf/prog-srcline.perf");
    bool found = false;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        uint32_t frames[64];
        size_t depth = pk_stack_frames(p, pk_sample_stack(p, row), frames, 64);
        assert_true(depth <= 64);
        for (size_t i = 0; i < depth; i++) {
            const pk_frame *fr = pk_frame_at(p, frames[i]);
            if (strcmp(pk_frame_name(p, frames[i]), "middle") != 0)
                continue;
            assert_int_equal(fr->line, 27);
            assert_string_equal(pk_str(p, pk_function_at(p, fr->function)->file), "prog.c");
            found = true;
        }
    }
    assert_true(found);
    pk_profile_free(p);
}

static void test_events_are_values(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("perf/multi-event.perf");
    assert_int_equal(pk_value_type_count(p), 4);
    uint32_t cycles = pk_value_find(p, "cycles"), instructions = pk_value_find(p, "instructions");
    assert_int_equal(cycles, 0);
    assert_int_equal(pk_default_value(p), cycles);
    assert_int_not_equal(instructions, PK_NONE);
    assert_int_equal(pk_value_total(p, cycles), 750000);
    assert_int_equal(pk_value_total(p, instructions), 420000);
    assert_int_equal(pk_value_total(p, pk_value_find(p, "instructions-samples")), 2);
    assert_string_equal(pk_str(p, pk_value_type_at(p, cycles)->unit), "events");
    pk_profile_free(p);

    /* Two events that differ by their modifiers keep them apart. */
    const char *text = "a 1 1.0: 5 cycles:u:\n\t1 f (x)\n\na 1 1.1: 7 cycles:k:\n\t1 f (x)\n";
    p = read_ok(text, strlen(text));
    assert_int_equal(pk_value_find(p, "cycles"), 0);
    assert_int_equal(pk_value_total(p, pk_value_find(p, "cycles:k")), 7);
    pk_profile_free(p);
}

/* A clock event's samples printed without their period (speedscope's simple-with-pid sample)
 * count 1 each: its value is then events, not nanoseconds (three samples were shown as 3 ns). */
static void test_clock_event_without_period(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("perf/speedscope-simple-with-pid.perf");
    uint32_t clock = pk_value_find(p, "cpu-clock");
    assert_int_equal(pk_default_value(p), clock);
    assert_int_equal(pk_value_total(p, clock), 3);
    assert_string_equal(pk_str(p, pk_value_type_at(p, clock)->unit), "events");
    assert_int_equal(pk_value_total(p, pk_value_find(p, "cpu-clock-samples")), 3);
    pk_profile_free(p);

    /* With its period shown, a clock event is in nanoseconds. */
    const char *text = "a 9/9 1.0: 1001001 cpu-clock:\n\t1 f (x)\n\n";
    p = read_ok(text, strlen(text));
    clock = pk_value_find(p, "cpu-clock");
    assert_int_equal(pk_value_total(p, clock), 1001001);
    assert_string_equal(pk_str(p, pk_value_type_at(p, clock)->unit), "nanoseconds");
    pk_profile_free(p);
}

/* ---- folded output equals stackcollapse-perf.pl's ------------------------------------------ */

static void test_folded_like_stackcollapse(void **state)
{
    (void)state;
    static const char *const same[] = {"prog",         "prog-pid-cpu", "prog-no-offsets",
                                       "prog-srcline", "cxx",          "rust",
                                       "multi-event",  "inline",       "jit",
                                       "names",        "flush-left",   "two-events-ip-sym"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        char input[64], expected[64];
        snprintf(input, sizeof input, "perf/%s.perf", same[i]);
        snprintf(expected, sizeof expected, "perf/%s.folded", same[i]);
        assert_folded_fixture(input, expected, NULL, 0, NULL);
    }
    /* The header block changes nothing. */
    assert_folded_fixture("perf/prog-header.perf", "perf/prog.folded", NULL, 0, NULL);
    pk_option all = {"perf-all", ""};
    assert_folded_fixture("perf/jit.perf", "perf/jit-all.folded", &all, 1, NULL);
    assert_folded_fixture("perf/multi-event.perf", "perf/multi-event-instructions.folded", NULL, 0,
                          "instructions");
}

static void test_root_options(void **state)
{
    (void)state;
    const char *text = "V8 Worker 10/11 1.0: 3 cpu-clock:\n\t1 f (x)\n\n";
    static const struct {
        const char *option, *want;
    } cases[] = {
        {NULL, "V8_Worker;f 3\n"},
        {"perf-pid", "V8_Worker-10;f 3\n"},
        {"perf-tid", "V8_Worker-10/11;f 3\n"},
        {"perf-no-root", "f 3\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_option option = {cases[i].option, ""};
        pk_profile *p = NULL;
        pk_error err;
        assert_int_equal(read_perf(text, strlen(text), false, &option, cases[i].option ? 1 : 0,
                                   &p, &err),
                         PK_OK);
        char *got = folded_of(p, PK_NONE);
        assert_string_equal(got, cases[i].want);
        free(got);
        pk_profile_free(p);
    }
    /* Names that tidy to nothing (quotes alone) are written as the folded writer writes an
     * empty name. */
    text = "prog 11 1.0: 3 cpu-clock:\n\t1 \"\" (x)\n";
    pk_option no_root = {"perf-no-root", ""};
    pk_profile *q = NULL;
    pk_error q_err;
    assert_int_equal(read_perf(text, strlen(text), false, &no_root, 1, &q, &q_err), PK_OK);
    char *empty = folded_of(q, PK_NONE);
    assert_string_equal(empty, "_ 3\n");
    free(empty);
    pk_profile_free(q);
    /* The tid alone: the pid is '?', as the FlameGraph script writes it. */
    text = "prog 11 1.0: 3 cpu-clock:\n\t1 f (x)\n";
    pk_option tid = {"perf-tid", ""};
    pk_profile *p = NULL;
    pk_error err;
    assert_int_equal(read_perf(text, strlen(text), false, &tid, 1, &p, &err), PK_OK);
    char *got = folded_of(p, PK_NONE);
    assert_string_equal(got, "prog-?/11;f 3\n");
    free(got);
    pk_profile_free(p);
}

/* The command name is the root of folded lines only: the model's stacks hold the sampled
 * frames, so outputs with threads (the Firefox Profiler, speedscope, pprof) show no extra
 * frame above them. */
static void test_root_only_in_folded(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("perf/prog.perf");
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        uint32_t stack = pk_sample_stack(p, row);
        assert_int_not_equal(stack, PK_NONE);
        uint32_t frames[256];
        size_t depth = pk_stack_depth(p, stack);
        assert_true(depth <= 256);
        pk_stack_frames(p, stack, frames, depth);
        assert_string_not_equal(pk_frame_name(p, frames[0]), "prog");
    }
    assert_string_equal(pk_property_get(p, "folded roots"), "command");
    pk_profile_free(p);
    const char *text = "V8 Worker 10/11 1.0: 3 cpu-clock:\n\t1 f (x)\n\n";
    pk_option no_root = {"perf-no-root", ""};
    pk_error err;
    assert_int_equal(read_perf(text, strlen(text), false, &no_root, 1, &p, &err), PK_OK);
    assert_null(pk_property_get(p, "folded roots"));
    pk_profile_free(p);
}

static void test_last_sample_without_newline(void **state)
{
    (void)state;
    const char *text = "prog 1 1.0: 2 cpu-clock:\n\t1 f (x)\n\nprog 1 1.1: 3 cpu-clock:\n"
                       "\t2 g (x)\n\t1 f (x)";
    pk_profile *p = read_ok(text, strlen(text));
    char *got = folded_of(p, PK_NONE);
    assert_string_equal(got, "prog;f 2\nprog;f;g 3\n");
    free(got);
    pk_profile_free(p);
    /* With a line end but no empty line after it, the last sample is kept too (the script
     * drops it: it counts a sample at its empty line). */
    text = "prog 1 1.0: 2 cpu-clock:\n\t1 f (x)\n\nprog 1 1.1: 3 cpu-clock:\n\t2 g (x)\n";
    p = read_ok(text, strlen(text));
    got = folded_of(p, PK_NONE);
    assert_string_equal(got, "prog;f 2\nprog;g 3\n");
    free(got);
    pk_profile_free(p);
    /* A sample without frames is the process alone. */
    text = "prog 1 1.0: 2 cpu-clock:\n\n";
    p = read_ok(text, strlen(text));
    got = folded_of(p, PK_NONE);
    assert_string_equal(got, "prog 2\n");
    free(got);
    pk_profile_free(p);
}

/* Each sample's time goes into its thread's timeline, in order, with its stack and weights;
 * read with no_timeline, only what the times were. */
static void test_sample_times(void **state)
{
    (void)state;
    pk_profile *p = read_fixture("perf/prog.perf");
    assert_false(pk_metadata_get(p)->times_approximate);
    uint32_t main_thread = thread_named(p, "prog", 19964), worker = thread_named(p, "prog", 19991);
    assert_int_not_equal(main_thread, PK_NONE);
    assert_int_not_equal(worker, PK_NONE);
    pk_timeline_info info;
    pk_timeline_info_get(p, main_thread, &info);
    assert_true(info.measured);
    assert_int_equal(info.count, 105);
    assert_true(info.first == 860582027000LL);
    assert_true(info.last == 861330737000LL);
    pk_timeline_info_get(p, worker, &info);
    assert_int_equal(info.count, 151);
    assert_true(info.first == 860590369000LL);
    assert_true(info.last == 861324758000LL);
    pk_timeline_cursor *c;
    assert_int_equal(pk_timeline_open(p, main_thread, &c), PK_OK);
    pk_timed_sample s;
    int64_t previous = INT64_MIN, samples = 0, weight = 0;
    while (pk_timeline_next(c, &s)) {
        assert_true(s.time > previous);
        if (previous == INT64_MIN)
            assert_string_equal(pk_frame_name(p, pk_stack_leaf(p, s.stack)), "leaf_sqrt");
        assert_int_equal(s.duration, 0);
        previous = s.time;
        samples += s.values[1];
        weight += s.values[0];
    }
    assert_int_equal(pk_timeline_close(c), PK_OK);
    assert_true(previous == 861330737000LL);
    assert_int_equal(samples, 105);
    assert_true(weight == 105 * 1001001LL);
    pk_profile_free(p);

    size_t size;
    char *text = tb_read_data_file("perf/prog.perf", &size);
    pk_read_options options = {.no_timeline = true};
    pk_error err;
    assert_int_equal(pk_read_memory(text, size, &pk_format_perf_script, &options, &p, &err),
                     PK_OK);
    free(text);
    assert_false(pk_timeline_kept(p));
    assert_false(pk_metadata_get(p)->times_approximate);
    pk_timeline_info_get(p, thread_named(p, "prog", 19991), &info);
    assert_int_equal(info.count, 151);
    assert_int_equal(pk_timeline_open(p, 0, &c), PK_ERR_UNSUPPORTED);
    pk_profile_free(p);

    /* Headers without a time: untimed samples, placed times. */
    const char *untimed = "prog 1 2 cpu-clock:\n\t1 f (x)\n\nprog 1 3 cpu-clock:\n\t2 g (x)\n\n";
    p = read_ok(untimed, strlen(untimed));
    assert_int_equal(pk_value_total(p, 1), 2);
    pk_timeline_info_get(p, 0, &info);
    assert_false(info.measured);
    assert_true(pk_metadata_get(p)->times_approximate);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);

    /* A thread with a sample without a time beside timed ones has no timeline (it would leave
     * that sample out), with a warning; the other thread keeps its own. */
    const char *mixed = "prog 1/1 5.000001: 7 cpu-clock:\n\t1 f (x)\n\n"
                        "prog 1/1 7 cpu-clock:\n\t2 g (x)\n\n"
                        "prog 1/2 5.000002: 7 cpu-clock:\n\t2 g (x)\n\n";
    p = read_ok(mixed, strlen(mixed));
    assert_int_equal(pk_value_total(p, 0), 21);
    pk_timeline_info_get(p, thread_named(p, "prog", 1), &info);
    assert_false(info.measured);
    pk_timeline_info_get(p, thread_named(p, "prog", 2), &info);
    assert_true(info.measured);
    assert_int_equal(info.count, 1);
    bool warned = false;
    for (size_t i = 0; i < pk_warning_count(p); i++)
        warned = warned || strstr(pk_warning_at(p, i), "its timeline is left out") != NULL;
    assert_true(warned);
    pk_profile_free(p);
}

/* A sample's frame lines seen before are found again as a whole: under another command name
 * (a process after exec, another program) they make another stack, in another thread another
 * row; with CR LF line ends they are read line by line, to the same result. */
static void test_repeated_samples(void **state)
{
    (void)state;
    const char *lf = "gcc 7 1.0: 1 cpu-clock:\n\t1 f (x)\n\t2 main (x)\n\n"
                     "as 7 1.1: 2 cpu-clock:\n\t1 f (x)\n\t2 main (x)\n\n"
                     "as 8 1.2: 4 cpu-clock:\n\t1 f (x)\n\t2 main (x)\n\n"
                     "as 7 1.3: 8 cpu-clock:\n\t1 f (x)\n\t2 main (x)\n\n"
                     "as 7 1.4: 16 cpu-clock:\n\t3 g (x)\n\t1 f (x)\n\t2 main (x)\n\n"
                     "as 7 1.5: 32 cpu-clock:\n\t1 f (x)\n\t2 main (x)\n\n";
    const char *want = "as;main;f 46\nas;main;f;g 16\ngcc;main;f 1\n";
    pk_profile *p = read_ok(lf, strlen(lf));
    char *got = folded_of(p, PK_NONE);
    assert_string_equal(got, want);
    free(got);
    /* Thread 7 as gcc, then as after its exec, and 8: a thread per command name, so that
     * folded output's roots (the command name of each sample) come from threads. */
    assert_int_equal(pk_thread_count(p), 3);
    assert_int_not_equal(thread_named(p, "gcc", 7), PK_NONE);
    assert_int_not_equal(thread_named(p, "as", 7), PK_NONE);
    assert_int_not_equal(thread_named(p, "as", 8), PK_NONE);
    pk_profile_free(p);

    size_t n = strlen(lf), k = 0;
    char *crlf = malloc(2 * n);
    assert_non_null(crlf);
    for (size_t i = 0; i < n; i++) {
        if (lf[i] == '\n')
            crlf[k++] = '\r';
        crlf[k++] = lf[i];
    }
    p = read_ok(crlf, k);
    got = folded_of(p, PK_NONE);
    assert_string_equal(got, want);
    free(got);
    pk_profile_free(p);
    free(crlf);
}

/* Many threads, seen in turn, each under its own command name: every sample's root is its
 * thread's (a thread's cached root must not come from memory grown for later threads). */
static void test_many_threads(void **state)
{
    (void)state;
    enum { THREADS = 300, ROUNDS = 3 };
    size_t cap = (size_t)THREADS * ROUNDS * 64, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int round = 0; round < ROUNDS; round++)
        for (int t = 0; t < THREADS; t++)
            len += (size_t)snprintf(text + len, cap - len,
                                    "c%d %d 1.%d: 1 cpu-clock:\n\t1 f (x)\n\t2 main (x)\n\n",
                                    t % 7, 1000 + t, round);
    pk_profile *p = read_ok(text, len);
    char *got = folded_of(p, PK_NONE);
    /* 300 threads in 7 names: 43 each for c0 to c5 (one more than 300 / 7) and 42 for c6. */
    assert_string_equal(got, "c0;main;f 129\nc1;main;f 129\nc2;main;f 129\nc3;main;f 129\n"
                             "c4;main;f 129\nc5;main;f 129\nc6;main;f 126\n");
    free(got);
    assert_int_equal(pk_thread_count(p), THREADS);
    pk_profile_free(p);
    free(text);
}

/* The reader splits lines on a second thread when it may use two processors, and in turn on
 * one thread when it may use one; text read from memory stays in place, a file's is copied. A
 * recording repeated into many batches reads the same all four ways. */
static char *folded_of_file(const char *path, bool one_cpu, uint64_t *threads)
{
    cpu_set_t all, one;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    if (one_cpu) {
        CPU_ZERO(&one);
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &all)) {
                CPU_SET(c, &one);
                break;
            }
        assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    }
    pk_profile *p = NULL;
    pk_error err;
    pk_status status = pk_read_file(path, &pk_format_perf_script, NULL, &p, &err);
    if (one_cpu)
        assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    if (status != PK_OK)
        fail_msg("read failed: %s", err.message);
    *threads = pk_thread_count(p);
    char *folded = folded_of(p, PK_NONE);
    pk_profile_free(p);
    return folded;
}

static void test_same_on_one_or_two_threads(void **state)
{
    (void)state;
    size_t size;
    char *one = tb_read_data_file("perf/prog-pid-cpu.perf", &size);
    enum { COPIES = 300 };
    char *text = malloc(size * COPIES);
    assert_non_null(text);
    for (size_t i = 0; i < COPIES; i++)
        memcpy(text + i * size, one, size);
    const char *dir = getenv("PK_TEST_TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/perf-repeated.perf", dir ? dir : ".");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, size * COPIES, f), size * COPIES);
    assert_int_equal(fclose(f), 0);

    pk_profile *p = read_ok(text, size * COPIES);
    char *in_memory = folded_of(p, PK_NONE);
    uint64_t memory_threads = pk_thread_count(p);
    pk_profile_free(p);
    p = read_ok(one, size);
    char *once = folded_of(p, PK_NONE);
    pk_profile_free(p);
    uint64_t threads_two, threads_one;
    char *two_cpus = folded_of_file(path, false, &threads_two);
    char *one_cpu = folded_of_file(path, true, &threads_one);
    assert_string_equal(two_cpus, in_memory);
    assert_string_equal(one_cpu, in_memory);
    assert_int_equal(threads_two, memory_threads);
    assert_int_equal(threads_one, memory_threads);
    /* Each stack's count is 300 times the recording's. */
    char *line = once, *copies = in_memory;
    while (*line) {
        char *space = strrchr(strtok(line, "\n"), ' ');
        assert_non_null(space);
        size_t stack_len = (size_t)(space - line);
        char *other_end = strchr(copies, '\n');
        assert_non_null(other_end);
        assert_memory_equal(copies, line, stack_len + 1);
        assert_int_equal(strtoull(copies + stack_len + 1, NULL, 10),
                         COPIES * strtoull(space + 1, NULL, 10));
        line += strlen(line) + 1;
        copies = other_end + 1;
    }
    assert_int_equal(*copies, '\0');
    free(once);
    free(in_memory);
    free(two_cpus);
    free(one_cpu);
    free(text);
    free(one);
    remove(path);
}

/* ---- probing ------------------------------------------------------------------------------- */

static void test_probe(void **state)
{
    (void)state;
    static const char *const fixtures[] = {"perf/prog.perf", "perf/prog-header.perf",
                                           "perf/prog-no-callchain.perf", "perf/jit.perf",
                                           "perf/prog-no-offsets.perf"};
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        size_t size;
        char *text = tb_read_data_file(fixtures[i], &size);
        size_t shown = size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES;
        int score = 0;
        const pk_format *f = pk_format_probe((const uint8_t *)text, shown, NULL, &score);
        assert_non_null(f);
        assert_string_equal(f->name, "perf-script");
        assert_true(score > pk_format_folded.probe((const uint8_t *)text, shown));
        assert_true(score >= PK_PROBE_LIKELY);
        free(text);
    }
    size_t size;
    char *folded = tb_read_data_file("perf/prog.folded", &size);
    assert_int_equal(pk_perf_script_probe((const uint8_t *)folded, size), PK_PROBE_NO);
    free(folded);
    const char *words = "hello world 12 and more: text\n";
    assert_int_equal(pk_perf_script_probe((const uint8_t *)words, strlen(words)), PK_PROBE_NO);
}

/* ---- damage -------------------------------------------------------------------------------- */

/* Frame lines flush left (some perf versions, Java agents) are frames: found by content too. */
static void test_flush_left_frames(void **state)
{
    (void)state;
    const char *text = "java 7 1.0: 2 cpu-clock:\n7f01 Lcom/a/B;::run (/tmp/perf-7.map)\n"
                       "7f02 start_thread+0x30 (/lib/libc.so.6)\n\n"
                       "java 7 1.1: 3 cpu-clock:\n\t7f01 Lcom/a/B;::run (/tmp/perf-7.map)\n\n";
    assert_true(pk_perf_script_probe((const uint8_t *)text, strlen(text)) >= PK_PROBE_LIKELY);
    pk_profile *p = read_ok(text, strlen(text));
    char *got = folded_of(p, PK_NONE);
    assert_string_equal(got, "java;com/a/B:::run 3\njava;start_thread;com/a/B:::run 2\n");
    free(got);
    pk_profile_free(p);
    /* The Java tidying is for a process named "java" exactly, as both collapsers test it. */
    text = "javac 7 1.0: 2 cpu-clock:\n\t7f01 Lcom/a/B;::run (/tmp/perf-7.map)\n\n";
    p = read_ok(text, strlen(text));
    got = folded_of(p, PK_NONE);
    assert_string_equal(got, "javac;Lcom/a/B:::run 2\n");
    free(got);
    pk_profile_free(p);
}

/* With `-F ...,ip,sym` and no call graphs the frame, without its DSO, follows the event on the
 * header line; samples of two events keep theirs. */
static void test_event_line_frames(void **state)
{
    (void)state;
    const char *text = "fn 5/5 1.000001:  cpu-clock:      55fc11e54165 f(int)\n"
                       "fn 5/5 1.000002: task-clock:      55fc11e54170 g\n"
                       "fn 5/5 1.000003:  cpu-clock:      55fc11e54180 g\n";
    assert_true(pk_perf_script_probe((const uint8_t *)text, strlen(text)) >= PK_PROBE_LIKELY);
    pk_profile *p = read_ok(text, strlen(text));
    char *got = folded_of(p, PK_NONE);
    assert_string_equal(got, "fn;f 1\nfn;g 1\n");
    free(got);
    uint32_t task = pk_value_find(p, "task-clock");
    assert_true(task != PK_NONE);
    got = folded_of(p, task);
    assert_string_equal(got, "fn;g 1\n");
    free(got);
    pk_profile_free(p);
}

/* A stray line (a frame perf could not format, a header without its fields) is read past with
 * a warning naming it, as inferno reads past it; text where such lines outnumber the samples
 * is refused, naming the line. */
static void test_stray_lines(void **state)
{
    (void)state;
    const char *text = "prog 1 1.0: 2 cpu-clock:\n\t1 f (x)\n\nprog 1 1.1: 3 cpu-clock:\n"
                       "\t2 g (x)\nthis is not perf output\n\tTHIS_IS_A_WEIRD_LINE\n\t1 f (x)\n\n"
                       "prog 1\n\t3 h (x)\n\nprog 1 1.2: 4 cpu-clock:\n\t1 f (x)\n";
    pk_profile *p = read_ok(text, strlen(text));
    char *got = folded_of(p, PK_NONE);
    assert_string_equal(got, "prog;f 6\nprog;f;g 3\n");
    free(got);
    bool warned = false;
    for (size_t i = 0; i < pk_warning_count(p); i++)
        warned |= strstr(pk_warning_at(p, i), "3 lines") && strstr(pk_warning_at(p, i), "lines 6, 7, 10");
    assert_true(warned);
    pk_profile_free(p);
}

static void test_damage_names_the_line(void **state)
{
    (void)state;
    /* One sample, then more stray lines than samples: not perf output. */
    const char *text = "prog 1 1.0: 2 cpu-clock:\n\t1 f (x)\n\nnot perf 1\nnot perf 2\n"
                       "not perf 3\nnot perf 4\nnot perf 5\nnot perf 6\nnot perf 7\nnot perf 8\n"
                       "this is not perf output\n\nprog 1 1.2: 4 cpu-clock:\n\t1 f (x)\n";
    pk_profile *p = NULL;
    pk_error err;
    assert_int_equal(read_perf(text, strlen(text), false, NULL, 0, &p, &err), PK_ERR_INPUT);
    assert_null(p);
    assert_non_null(strstr(err.message, "line 12 is not perf script output"));
    assert_true(err.salvageable);
    assert_int_equal(err.offset, strstr(text, "this is") - text);
    /* Salvage keeps the complete samples before the line, with a warning naming it. */
    assert_int_equal(read_perf(text, strlen(text), true, NULL, 0, &p, &err), PK_OK);
    char *got = folded_of(p, PK_NONE);
    assert_string_equal(got, "prog;f 2\n");
    free(got);
    bool warned = false;
    for (size_t i = 0; i < pk_warning_count(p); i++)
        warned |= strstr(pk_warning_at(p, i), "line 12") != NULL;
    assert_true(warned);
    pk_profile_free(p);

    const char nul[] = "prog 1 1.0: 2 cpu-clock:\n\t1 f\0 (x)\n";
    assert_int_equal(read_perf(nul, sizeof nul - 1, false, NULL, 0, &p, &err), PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "line 2 holds a NUL byte"));
    const char *empty = "# only a comment\n\n";
    assert_int_equal(read_perf(empty, strlen(empty), false, NULL, 0, &p, &err), PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "no samples"));
}

/* Every cut of a recording reads as a prefix of its samples or fails naming a line; with
 * salvage it always reads (once a sample is complete), never more than the whole. */
static void test_every_truncation(void **state)
{
    (void)state;
    size_t size;
    char *text = tb_read_data_file("perf/prog-pid-cpu.perf", &size);
    pk_profile *whole = read_ok(text, size);
    int64_t total = pk_value_total(whole, 1);
    pk_profile_free(whole);
    size_t step = size > 4000 ? 7 : 1;
    for (size_t cut = 1; cut < size; cut += step) {
        char *copy = malloc(cut);
        assert_non_null(copy);
        memcpy(copy, text, cut);
        pk_profile *p = NULL;
        pk_error err;
        pk_status s = read_perf(copy, cut, false, NULL, 0, &p, &err);
        if (s == PK_OK) {
            assert_true(pk_value_total(p, 1) <= total);
        } else {
            assert_int_equal(s, PK_ERR_INPUT);
            assert_non_null(strstr(err.message, "line"));
            assert_true(err.offset >= 0 && (size_t)err.offset <= cut);
        }
        pk_profile_free(p);
        s = read_perf(copy, cut, true, NULL, 0, &p, &err);
        if (s == PK_OK)
            assert_true(pk_value_total(p, 1) <= total);
        else
            assert_true(strstr(err.message, "no samples") || strstr(err.message, "line"));
        pk_profile_free(p);
        free(copy);
    }
    /* A cut inside a frame line (the address printed, not yet its DSO) is named. */
    const char *frames = strstr(text + 2000, "middle+0x1d");
    assert_non_null(frames);
    size_t cut = (size_t)(frames - text) + 4;
    pk_profile *p = NULL;
    pk_error err;
    assert_int_equal(read_perf(text, cut, false, NULL, 0, &p, &err), PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "is cut short"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_headers),
        cmocka_unit_test(test_parse_frames),
        cmocka_unit_test(test_model_of_a_recording),
        cmocka_unit_test(test_header_block),
        cmocka_unit_test(test_clock_event_without_period),
        cmocka_unit_test(test_inlined_and_source_lines),
        cmocka_unit_test(test_events_are_values),
        cmocka_unit_test(test_folded_like_stackcollapse),
        cmocka_unit_test(test_root_options),
        cmocka_unit_test(test_root_only_in_folded),
        cmocka_unit_test(test_last_sample_without_newline),
        cmocka_unit_test(test_repeated_samples),
        cmocka_unit_test(test_many_threads),
        cmocka_unit_test(test_same_on_one_or_two_threads),
        cmocka_unit_test(test_probe),
        cmocka_unit_test(test_flush_left_frames),
        cmocka_unit_test(test_event_line_frames),
        cmocka_unit_test(test_stray_lines),
        cmocka_unit_test(test_damage_names_the_line),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_sample_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
