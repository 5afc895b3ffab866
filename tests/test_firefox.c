/* SPDX-License-Identifier: MIT */
/* The Firefox Profiler writer: profiles built through the model API, written to memory, parsed
 * back with jansson and checked table by table. */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/output.h"
#include "profkit/format.h"
#include "profkit/profile.h"

/* Columns every table of a version 55 thread must carry. */
static const char *const stack_columns[] = {"prefix", "frame", NULL};
static const char *const frame_columns[] = {"address", "inlineDepth", "category", "subcategory",
                                            "func", "nativeSymbol", "innerWindowID", "line",
                                            "column", NULL};
static const char *const func_columns[] = {"name", "isJS", "relevantForJS", "resource",
                                           "fileName", "lineNumber", "columnNumber", NULL};
static const char *const resource_columns[] = {"lib", "name", "host", "type", NULL};
static const char *const symbol_columns[] = {"address", "functionSize", "libIndex", "name", NULL};
static const char *const sample_columns[] = {"stack", "time", "weight", NULL};
static const char *const marker_columns[] = {"category", "data", "endTime", "name", "phase",
                                             "startTime", NULL};
static const char *const allocation_columns[] = {"time", "weight", "stack", "memoryAddress",
                                                 "threadId", NULL};
static const char *const counter_columns[] = {"time", "count", "number", NULL};

static json_t *write_json(const pk_profile *p, uint32_t value)
{
    const pk_format *fmt = pk_format_by_name("firefox");
    assert_non_null(fmt);
    assert_ptr_equal(pk_format_by_name("fxprof"), fmt);
    pk_write_options options;
    memset(&options, 0, sizeof options);
    options.value = value;
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    pk_error_clear(&err);
    pk_status status = pk_write_memory(p, fmt, &options, &data, &size, &err);
    if (status != PK_OK)
        fail_msg("write failed: %s", err.message);
    json_error_t jerr;
    json_t *root = json_loadb(data, size, 0, &jerr);
    if (!root)
        fail_msg("invalid JSON at line %d: %s", jerr.line, jerr.text);
    free(data);
    return root;
}

static json_t *get(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        fail_msg("missing key %s", key);
    return v;
}

static json_int_t get_int(json_t *obj, const char *key)
{
    json_t *v = get(obj, key);
    assert_true(json_is_integer(v));
    return json_integer_value(v);
}

static const char *get_string(json_t *obj, const char *key)
{
    json_t *v = get(obj, key);
    assert_true(json_is_string(v));
    return json_string_value(v);
}

/* Checks that the table has length, every listed column and every array exactly length long;
 * returns length. */
static size_t check_table(json_t *table, const char *const *columns)
{
    size_t length = (size_t)get_int(table, "length");
    for (const char *const *c = columns; *c; c++) {
        json_t *column = get(table, *c);
        assert_true(json_is_array(column));
    }
    const char *key;
    json_t *value;
    json_object_foreach(table, key, value)
    {
        if (json_is_array(value) && json_array_size(value) != length)
            fail_msg("column %s has %zu entries, length is %zu", key, json_array_size(value),
                     length);
    }
    return length;
}

static json_t *column(json_t *table, const char *key, size_t i)
{
    return json_array_get(get(table, key), i);
}

static const char *thread_string(json_t *thread, json_t *index)
{
    json_t *strings = get(thread, "stringArray");
    assert_true(json_is_integer(index));
    size_t i = (size_t)json_integer_value(index);
    assert_true(i < json_array_size(strings));
    return json_string_value(json_array_get(strings, i));
}

/* Every structural rule of one thread: columns, lengths, references in range, topological
 * stacks. */
static void check_thread(json_t *thread, size_t category_count)
{
    assert_true(json_is_string(get(thread, "name")));
    assert_true(json_is_string(get(thread, "pid")));
    json_t *stacks = get(thread, "stackTable"), *frames = get(thread, "frameTable");
    json_t *funcs = get(thread, "funcTable"), *resources = get(thread, "resourceTable");
    json_t *symbols = get(thread, "nativeSymbols"), *samples = get(thread, "samples");
    size_t nstacks = check_table(stacks, stack_columns);
    size_t nframes = check_table(frames, frame_columns);
    size_t nfuncs = check_table(funcs, func_columns);
    size_t nresources = check_table(resources, resource_columns);
    size_t nsymbols = check_table(symbols, symbol_columns);
    size_t nsamples = check_table(samples, sample_columns);
    check_table(get(thread, "markers"), marker_columns);
    assert_true(json_is_string(get(samples, "weightType")));
    size_t nstrings = json_array_size(get(thread, "stringArray"));

    for (size_t i = 0; i < nstacks; i++) {
        json_t *prefix = column(stacks, "prefix", i);
        if (!json_is_null(prefix))
            assert_true((size_t)json_integer_value(prefix) < i);
        assert_true((size_t)json_integer_value(column(stacks, "frame", i)) < nframes);
    }
    for (size_t i = 0; i < nframes; i++) {
        assert_true((size_t)json_integer_value(column(frames, "func", i)) < nfuncs);
        assert_true((size_t)json_integer_value(column(frames, "category", i)) < category_count);
        json_t *sym = column(frames, "nativeSymbol", i);
        if (!json_is_null(sym))
            assert_true((size_t)json_integer_value(sym) < nsymbols);
    }
    for (size_t i = 0; i < nfuncs; i++) {
        assert_true((size_t)json_integer_value(column(funcs, "name", i)) < nstrings);
        json_int_t r = json_integer_value(column(funcs, "resource", i));
        assert_true(r >= -1 && r < (json_int_t)nresources);
        json_t *file = column(funcs, "fileName", i);
        if (!json_is_null(file))
            assert_true((size_t)json_integer_value(file) < nstrings);
    }
    for (size_t i = 0; i < nresources; i++)
        assert_true((size_t)json_integer_value(column(resources, "name", i)) < nstrings);
    double last = -1;
    for (size_t i = 0; i < nsamples; i++) {
        json_t *stack = column(samples, "stack", i);
        if (!json_is_null(stack))
            assert_true((size_t)json_integer_value(stack) < nstacks);
        double t = json_number_value(column(samples, "time", i));
        assert_true(t >= last);
        last = t;
    }
    json_t *allocations = json_object_get(thread, "nativeAllocations");
    if (allocations) {
        size_t n = check_table(allocations, allocation_columns);
        assert_string_equal(get_string(allocations, "weightType"), "bytes");
        last = -1;
        for (size_t i = 0; i < n; i++) {
            json_t *stack = column(allocations, "stack", i);
            if (!json_is_null(stack))
                assert_true((size_t)json_integer_value(stack) < nstacks);
            double t = json_number_value(column(allocations, "time", i));
            assert_true(t >= last);
            last = t;
        }
    }
}

/* Every counter is a memory track of one process, at most one per process (the front end
 * labels them all "Memory"): its pid is a process's, its main thread is that process's main
 * thread, its samples are in time order from a first one of nothing at the start, and its
 * running sum, the process's live bytes, never falls below zero. */
static void check_counters(json_t *root)
{
    json_t *threads = get(root, "threads"), *counters = get(root, "counters");
    assert_true(json_is_array(counters));
    for (size_t c = 0; c < json_array_size(counters); c++) {
        json_t *counter = json_array_get(counters, c);
        assert_string_equal(get_string(counter, "name"), "Live memory");
        assert_string_equal(get_string(counter, "category"), "Memory");
        assert_true(json_is_string(get(counter, "description")));
        size_t main = (size_t)get_int(counter, "mainThreadIndex");
        assert_true(main < json_array_size(threads));
        json_t *main_thread = json_array_get(threads, main);
        assert_true(json_is_true(get(main_thread, "isMainThread")));
        assert_string_equal(get_string(counter, "pid"), get_string(main_thread, "pid"));
        for (size_t other = 0; other < c; other++)
            assert_string_not_equal(get_string(json_array_get(counters, other), "pid"),
                                    get_string(counter, "pid"));
        json_t *samples = get(counter, "samples");
        size_t n = check_table(samples, counter_columns);
        assert_true(n >= 2);
        assert_true(json_number_value(column(samples, "time", 0)) == 0.0);
        assert_int_equal(json_integer_value(column(samples, "count", 0)), 0);
        assert_int_equal(json_integer_value(column(samples, "number", 0)), 0);
        double last = 0;
        json_int_t live = 0;
        for (size_t i = 1; i < n; i++) {
            double t = json_number_value(column(samples, "time", i));
            assert_true(t >= last);
            last = t;
            live += json_integer_value(column(samples, "count", i));
            assert_true(live >= 0);
            assert_int_equal(json_integer_value(column(samples, "number", i)), 1);
        }
    }
}

/* The running sums of a counter's samples (the levels the front end draws). */
static size_t counter_levels(json_t *counter, json_int_t *levels, size_t cap)
{
    json_t *counts = get(get(counter, "samples"), "count");
    json_int_t live = 0;
    size_t n = json_array_size(counts);
    assert_true(n <= cap);
    for (size_t i = 0; i < n; i++) {
        live += json_integer_value(json_array_get(counts, i));
        levels[i] = live;
    }
    return n;
}

static size_t check_profile(json_t *root)
{
    json_t *meta = get(root, "meta");
    assert_int_equal(get_int(meta, "preprocessedProfileVersion"), 55);
    assert_true(json_is_true(get(meta, "symbolicated")));
    assert_true(json_is_array(get(meta, "markerSchema")));
    assert_int_equal(json_array_size(get(meta, "markerSchema")), 0);
    assert_string_equal(get_string(get(meta, "sampleUnits"), "threadCPUDelta"), "\xc2\xb5s");
    json_t *categories = get(meta, "categories");
    assert_true(json_array_size(categories) >= 1);
    assert_string_equal(get_string(json_array_get(categories, 0), "name"), "Other");
    assert_string_equal(get_string(json_array_get(categories, 0), "color"), "grey");
    for (size_t i = 0; i < json_array_size(categories); i++) {
        json_t *subs = get(json_array_get(categories, i), "subcategories");
        assert_string_equal(json_string_value(json_array_get(subs, 0)), "Other");
    }
    assert_true(json_is_array(get(root, "libs")));
    json_t *threads = get(root, "threads");
    assert_true(json_array_size(threads) >= 1);
    for (size_t i = 0; i < json_array_size(threads); i++)
        check_thread(json_array_get(threads, i), json_array_size(categories));
    check_counters(root);
    return json_array_size(threads);
}

static double weight_sum(json_t *table)
{
    double sum = 0;
    json_t *weights = get(table, "weight");
    for (size_t i = 0; i < json_array_size(weights); i++)
        sum += json_number_value(json_array_get(weights, i));
    return sum;
}

/* Root-first names of the stack of sample i, joined by ';'. */
static void sample_path(json_t *thread, json_t *table, size_t i, char *buf, size_t cap)
{
    json_t *stacks = get(thread, "stackTable"), *frames = get(thread, "frameTable");
    json_t *funcs = get(thread, "funcTable");
    const char *names[64] = {0};
    size_t depth = 0;
    json_t *s = column(table, "stack", i);
    while (!json_is_null(s) && depth < 64) {
        size_t si = (size_t)json_integer_value(s);
        size_t fi = (size_t)json_integer_value(column(stacks, "frame", si));
        size_t fn = (size_t)json_integer_value(column(frames, "func", fi));
        names[depth++] = thread_string(thread, column(funcs, "name", fn));
        s = column(stacks, "prefix", si);
    }
    buf[0] = '\0';
    for (size_t d = depth; d-- > 0;) {
        strncat(buf, names[d], cap - strlen(buf) - 1);
        if (d)
            strncat(buf, ";", cap - strlen(buf) - 1);
    }
}

/* ---- builders ------------------------------------------------------------------------------- */

typedef struct script_profile {
    pk_profile *p;
    uint32_t cpu, wall, calls;
    uint32_t main_thread, task_thread;
    uint32_t s_main, s_main_parse, s_main_parse_token, s_task_run, s_main_render;
} script_profile;

static uint32_t script_frame(pk_profile *p, const char *name, const char *file, uint32_t start,
                             uint32_t line)
{
    pk_function fn = {.name = pk_intern_cstr(p, name), .file = pk_intern_cstr(p, file),
                      .start_line = start, .resource = PK_NONE};
    pk_frame fr = {pk_intern_function(p, &fn), line, 0, PK_NONE, 0};
    return pk_intern_frame(p, &fr);
}

/* Two script threads like a BrightScript run: main with parse/token/render, a task thread. */
static script_profile make_script_profile(const char *source_format)
{
    script_profile s;
    s.p = pk_profile_new();
    assert_non_null(s.p);
    pk_profile *p = s.p;
    s.cpu = pk_add_value_type(p, "cpu", "operations");
    s.wall = pk_add_value_type(p, "wall", "nanoseconds");
    s.calls = pk_add_value_type(p, "calls", "count");
    pk_metadata *md = pk_metadata_of(p);
    md->source_format = source_format ? pk_intern_cstr(p, source_format) : 0;
    md->product = pk_intern_cstr(p, "Demo Channel");
    md->start_time = 1700000000000LL * 1000000;
    md->end_time = md->start_time + 2000LL * 1000000; /* 2 s */
    md->times_approximate = true;
    pk_property_set(p, "device.model", "4800X");

    s.main_thread = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    s.task_thread = pk_add_thread(p, pk_intern_cstr(p, "TaskNode"), 1, 2);
    uint32_t f_main = script_frame(p, "main", "pkg:/source/main.brs", 1, 5);
    uint32_t f_parse = script_frame(p, "parse", "pkg:/source/parse.brs", 10, 14);
    uint32_t f_token = script_frame(p, "token", "pkg:/source/parse.brs", 40, 42);
    uint32_t f_render = script_frame(p, "render", "pkg:/components/View.xml", 3, 7);
    uint32_t f_run = script_frame(p, "run", "pkg:/components/Task.brs", 2, 9);
    s.s_main = pk_intern_stack(p, PK_NONE, f_main);
    s.s_main_parse = pk_intern_stack(p, s.s_main, f_parse);
    s.s_main_parse_token = pk_intern_stack(p, s.s_main_parse, f_token);
    s.s_main_render = pk_intern_stack(p, s.s_main, f_render);
    s.s_task_run = pk_intern_stack(p, PK_NONE, f_run);

    const int64_t v1[] = {120, 3000000, 1};
    const int64_t v2[] = {50, 1000000, 2};
    const int64_t v3[] = {7, 500000, 0};
    const int64_t v4[] = {0, 250000, 1}; /* zero cpu: left out when cpu is written */
    const int64_t v5[] = {30, 2000000, 1};
    assert_int_equal(pk_add_sample(p, s.main_thread, s.s_main, v1), PK_OK);
    assert_int_equal(pk_add_sample(p, s.main_thread, s.s_main_parse, v2), PK_OK);
    assert_int_equal(pk_add_sample(p, s.task_thread, s.s_task_run, v5), PK_OK);
    assert_int_equal(pk_add_sample(p, s.main_thread, s.s_main_parse_token, v3), PK_OK);
    assert_int_equal(pk_add_sample(p, s.main_thread, s.s_main_render, v4), PK_OK);
    assert_int_equal(pk_add_sample(p, s.main_thread, s.s_main_parse, v2), PK_OK); /* again */
    return s;
}

static json_t *thread_named(json_t *root, const char *name)
{
    json_t *threads = get(root, "threads");
    for (size_t i = 0; i < json_array_size(threads); i++)
        if (strcmp(get_string(json_array_get(threads, i), "name"), name) == 0)
            return json_array_get(threads, i);
    fail_msg("no thread %s", name);
    return NULL;
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void test_registry(void **state)
{
    (void)state;
    const pk_format *fmt = pk_format_by_name("firefox");
    assert_non_null(fmt);
    assert_non_null(fmt->write);
    assert_non_null(fmt->read);
    assert_ptr_equal(pk_format_by_name("firefox-profiler"), fmt);
    assert_ptr_equal(pk_format_by_extension("out.json", true), fmt);
}

static void test_script_profile_default_value(void **state)
{
    (void)state;
    script_profile s = make_script_profile("bsprof");
    json_t *root = write_json(s.p, PK_NONE);
    assert_int_equal(check_profile(root), 2);

    json_t *meta = get(root, "meta");
    assert_string_equal(get_string(meta, "product"), "Demo Channel");
    assert_true(json_number_value(get(meta, "startTime")) == 1700000000000.0);
    assert_true(json_number_value(get(meta, "profilingEndTime")) == 2000.0);
    json_t *categories = get(meta, "categories");
    assert_int_equal(json_array_size(categories), 2);
    assert_string_equal(get_string(json_array_get(categories, 1), "name"), "BrightScript");

    /* Placed times are stated in meta.extra, and properties are carried along. */
    char *text = json_dumps(get(meta, "extra"), 0);
    assert_non_null(strstr(text, "placed"));
    assert_non_null(strstr(text, "4800X"));
    free(text);

    json_t *main_thread = thread_named(root, "main");
    json_t *task_thread = thread_named(root, "TaskNode");
    json_t *samples = get(main_thread, "samples");
    assert_string_equal(get_string(samples, "weightType"), "samples");
    /* The zero-cpu row of render is left out, and so is its stack. The rows (120, 100 and 7
     * samples) are written a sample each, over spans in proportion to their weights. */
    assert_int_equal(get_int(samples, "length"), 120 + 100 + 7);
    assert_true(weight_sum(samples) == 120 + 100 + 7);
    assert_true(weight_sum(get(task_thread, "samples")) == 30);
    assert_int_equal(get_int(get(main_thread, "stackTable"), "length"), 3);

    char path[256];
    sample_path(main_thread, samples, 226, path, sizeof path);
    assert_string_equal(path, "main;parse;token");
    sample_path(main_thread, samples, 120, path, sizeof path);
    assert_string_equal(path, "main;parse");
    sample_path(main_thread, samples, 119, path, sizeof path);
    assert_string_equal(path, "main");
    assert_int_equal(json_integer_value(column(samples, "weight", 120)), 1);
    assert_int_equal(json_integer_value(column(samples, "weight", 0)), 1);

    /* Functions carry file and start line; frames the executing line. */
    json_t *funcs = get(main_thread, "funcTable"), *frames = get(main_thread, "frameTable");
    bool seen_token = false;
    for (size_t i = 0; i < json_array_size(get(funcs, "name")); i++) {
        if (strcmp(thread_string(main_thread, column(funcs, "name", i)), "token") != 0)
            continue;
        seen_token = true;
        assert_string_equal(thread_string(main_thread, column(funcs, "fileName", i)),
                            "pkg:/source/parse.brs");
        assert_int_equal(json_integer_value(column(funcs, "lineNumber", i)), 40);
        for (size_t f = 0; f < json_array_size(get(frames, "func")); f++)
            if ((size_t)json_integer_value(column(frames, "func", f)) == i) {
                assert_int_equal(json_integer_value(column(frames, "line", f)), 42);
                assert_int_equal(json_integer_value(column(frames, "category", f)), 1);
                assert_int_equal(json_integer_value(column(frames, "address", f)), -1);
            }
    }
    assert_true(seen_token);

    /* Times lie inside the run, in stream order, and the samples of all threads (257 in all)
     * fill it: one every 2000 / 257 ms. */
    json_t *times = get(samples, "time");
    double last = -1;
    for (size_t i = 0; i < json_array_size(times); i++) {
        double t = json_number_value(json_array_get(times, i));
        assert_true(t > last && t < 2000.0);
        last = t;
    }
    assert_true(last > 2000.0 - 2 * 2000.0 / 257);
    assert_true(fabs(json_number_value(get(get(root, "meta"), "interval")) - 2000.0 / 257) < 1e-6);
    json_decref(root);
    pk_profile_free(s.p);
}

static void test_time_value_becomes_milliseconds(void **state)
{
    (void)state;
    script_profile s = make_script_profile("bsprof");
    json_t *root = write_json(s.p, s.wall);
    check_profile(root);
    json_t *samples = get(thread_named(root, "main"), "samples");
    assert_string_equal(get_string(samples, "weightType"), "tracing-ms");
    /* Four rows (render has wall time), each written as at least one sample. */
    assert_true(get_int(samples, "length") >= 4);
    double main_ms = weight_sum(samples);
    double task_ms = weight_sum(get(thread_named(root, "TaskNode"), "samples"));
    double total_ms = (double)pk_value_total(s.p, s.wall) / 1e6;
    assert_true(main_ms + task_ms > total_ms - 1e-9 && main_ms + task_ms < total_ms + 1e-9);
    char *text = json_dumps(get(get(root, "meta"), "extra"), 0);
    assert_non_null(strstr(text, "wall (nanoseconds)"));
    free(text);
    json_decref(root);

    root = write_json(s.p, s.calls);
    samples = get(thread_named(root, "main"), "samples");
    assert_string_equal(get_string(samples, "weightType"), "samples");
    assert_true(weight_sum(samples) + weight_sum(get(thread_named(root, "TaskNode"), "samples")) ==
                (double)pk_value_total(s.p, s.calls));
    json_decref(root);
    pk_profile_free(s.p);
}

/* pk_write_* resolves the value first; the writer itself still refuses an index out of range. */
static void test_unknown_value_is_refused(void **state)
{
    (void)state;
    script_profile s = make_script_profile("bsprof");
    pk_write_options options;
    memset(&options, 0, sizeof options);
    options.value = 7;
    pk_output out;
    pk_output_init_memory(&out);
    pk_error err;
    pk_error_clear(&err);
    assert_int_equal(pk_format_by_name("firefox")->write(s.p, &out, &options, &err), PK_ERR_USAGE);
    assert_non_null(strstr(err.message, "value 7"));
    pk_output_abort(&out);
    pk_profile_free(s.p);
}

/* --max-samples: the rows of threads without times in fewer, heavier samples, the same weights
 * and stacks (the round-trip harness writes so; the default stays 100,000). */
static void test_max_samples_makes_samples_heavier(void **state)
{
    (void)state;
    script_profile s = make_script_profile("bsprof");
    const pk_format *fmt = pk_format_by_name("firefox");
    pk_option option = {"max-samples", "10"};
    pk_write_options options;
    memset(&options, 0, sizeof options);
    options.value = PK_NONE;
    options.extra = (pk_option_list){&option, 1};
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    pk_error_clear(&err);
    assert_int_equal(pk_write_memory(s.p, fmt, &options, &data, &size, &err), PK_OK);
    json_error_t jerr;
    json_t *root = json_loadb(data, size, 0, &jerr);
    assert_non_null(root);
    free(data);
    check_profile(root);
    /* 257 samples' weight in quanta of 26: main's rows of 120, 100 and 7 in 5, 4 and 1 samples,
     * TaskNode's 30 in 2. */
    json_t *main_thread = thread_named(root, "main");
    json_t *samples = get(main_thread, "samples");
    assert_int_equal(get_int(samples, "length"), 5 + 4 + 1);
    assert_true(weight_sum(samples) == 120 + 100 + 7);
    assert_int_equal(json_integer_value(column(samples, "weight", 0)), 26);
    assert_int_equal(json_integer_value(column(samples, "weight", 4)), 120 - 4 * 26);
    json_t *task_samples = get(thread_named(root, "TaskNode"), "samples");
    assert_int_equal(get_int(task_samples, "length"), 2);
    assert_true(weight_sum(task_samples) == 30);
    char path[256];
    sample_path(main_thread, samples, 9, path, sizeof path);
    assert_string_equal(path, "main;parse;token");
    json_decref(root);

    static const char *const refused[] = {"0", "100001", "-5", " 5", "+5", "5x", "", "many"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        option.value = refused[i];
        data = NULL;
        pk_error_clear(&err);
        assert_int_equal(pk_write_memory(s.p, fmt, &options, &data, &size, &err), PK_ERR_USAGE);
        assert_non_null(strstr(err.message, "--max-samples"));
        free(data);
    }
    pk_profile_free(s.p);
}

static void test_category_follows_file_without_format(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "worker"), -1, -1);
    uint32_t f_js = script_frame(p, "handler", "app/handler.js", 3, 4);
    uint32_t f_py = script_frame(p, "compute", "lib/compute.py", 1, 2);
    uint32_t f_plain = script_frame(p, "mystery", "", 0, 0);
    uint32_t s1 = pk_intern_stack(p, PK_NONE, f_plain);
    uint32_t s2 = pk_intern_stack(p, s1, f_js);
    uint32_t s3 = pk_intern_stack(p, s2, f_py);
    const int64_t one[] = {1};
    pk_add_sample(p, t, s3, one);
    pk_add_sample(p, t, PK_NONE, one); /* an empty stack */
    json_t *root = write_json(p, PK_NONE);
    check_profile(root);
    json_t *meta = get(root, "meta");
    json_t *categories = get(meta, "categories");
    char *text = json_dumps(categories, 0);
    assert_non_null(strstr(text, "JavaScript"));
    assert_non_null(strstr(text, "Python"));
    assert_null(strstr(text, "BrightScript"));
    free(text);
    /* Unknown times: 1 ms apart. */
    json_t *thread = json_array_get(get(root, "threads"), 0);
    assert_string_equal(get_string(thread, "name"), "worker");
    json_t *samples = get(thread, "samples");
    assert_true(json_number_value(column(samples, "time", 0)) == 0.0);
    assert_true(json_number_value(column(samples, "time", 1)) == 1.0);
    assert_true(json_is_null(column(samples, "stack", 1)));
    assert_true(json_number_value(get(meta, "interval")) == 1.0);
    json_decref(root);
    pk_profile_free(p);
}

/* Code read from BR files: MENU (menu.brs) calling compute in a library on a Windows path. */
static pk_profile *make_business_rules_profile(void)
{
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    pk_metadata_of(p)->source_format = pk_intern_cstr(p, "br");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    pk_resource lib = {0, pk_intern_cstr(p, "C:\\Program Files\\BR\\brnative.dll"), 0,
                       0x10000, 0x20000, 0};
    uint32_t r = pk_intern_resource(p, &lib);
    pk_function fn_native = {.name = pk_intern_cstr(p, "compute"), .resource = r};
    pk_frame fr_native = {pk_intern_function(p, &fn_native), 0, 0x10100, r, PK_FRAME_HAS_ADDRESS};
    uint32_t s_menu = pk_intern_stack(p, PK_NONE, script_frame(p, "MENU", "menu.brs", 1, 10));
    uint32_t s_native = pk_intern_stack(p, s_menu, pk_intern_frame(p, &fr_native));
    const int64_t one[] = {1}, two[] = {2};
    pk_add_sample(p, t, s_native, one);
    pk_add_sample(p, t, s_menu, two);
    return p;
}

/* Business Rules whatever the file names, native code in its library named by the last
 * component of its Windows path. */
static void test_business_rules_and_windows_library(void **state)
{
    (void)state;
    pk_profile *p = make_business_rules_profile();
    json_t *root = write_json(p, PK_NONE);
    check_profile(root);
    json_t *categories = get(get(root, "meta"), "categories");
    assert_int_equal(json_array_size(categories), 3);
    assert_string_equal(get_string(json_array_get(categories, 1), "name"), "Native");
    assert_string_equal(get_string(json_array_get(categories, 2), "name"), "Business Rules");
    assert_string_equal(get_string(json_array_get(categories, 2), "color"), "magenta");
    json_t *thread = json_array_get(get(root, "threads"), 0);
    json_t *frames = get(thread, "frameTable");
    for (size_t i = 0; i < 2; i++) {
        bool native = json_integer_value(column(frames, "address", i)) >= 0;
        assert_int_equal(json_integer_value(column(frames, "category", i)), native ? 1 : 2);
    }
    json_t *l0 = json_array_get(get(root, "libs"), 0);
    assert_string_equal(get_string(l0, "name"), "brnative.dll");
    assert_string_equal(get_string(l0, "debugName"), "brnative.dll");
    assert_true(json_is_null(get(l0, "codeId")));
    json_decref(root);
    pk_profile_free(p);
}

/* One thread, main -> alloc, 3 and 2 of a value in unit. */
static pk_profile *make_unit_profile(const char *unit)
{
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "v", unit);
    pk_metadata *md = pk_metadata_of(p);
    md->period = 4;
    md->period_unit = pk_intern_cstr(p, "Milliseconds");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "t"), 1, 1);
    uint32_t s_main = pk_intern_stack(p, PK_NONE, script_frame(p, "main", "main.c", 1, 2));
    uint32_t s_alloc = pk_intern_stack(p, s_main, script_frame(p, "alloc", "alloc.c", 1, 2));
    const int64_t three[] = {3}, two[] = {2};
    pk_add_sample(p, t, s_alloc, three);
    pk_add_sample(p, t, s_main, two);
    return p;
}

/* Units are those of the shared table: any case, any spelling of a time; sizes in bytes. */
static void test_units_of_weights_and_period(void **state)
{
    (void)state;
    /* A written sample spans one sampling period (4 ms), or one unit of a time value when
     * that is longer: a row of 3 seconds is three samples of a second. */
    static const struct {
        const char *unit;
        const char *weight_type;
        double weight; /* of the first sample of the row of value 3 */
        double interval;
    } cases[] = {
        {"MS", "tracing-ms", 3.0, 4.0},
        {"sec", "tracing-ms", 1000.0, 1000.0},
        {"\xce\xbcs", "tracing-ms", 0.003, 4.0}, /* GREEK SMALL LETTER MU */
        {"ns", "tracing-ms", 0.000003, 4.0},
        {"bytes", "bytes", 3.0, 4.0},
        {"KiB", "bytes", 3072.0, 4.0},
        {"megabytes", "bytes", 3.0 * 1024 * 1024, 4.0},
        {"operations", "samples", 1.0, 4.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_profile *p = make_unit_profile(cases[i].unit);
        json_t *root = write_json(p, PK_NONE);
        check_profile(root);
        double interval = json_number_value(get(get(root, "meta"), "interval"));
        if (fabs(interval - cases[i].interval) > 1e-9)
            fail_msg("%s: interval %g, want %g", cases[i].unit, interval, cases[i].interval);
        json_t *samples = get(json_array_get(get(root, "threads"), 0), "samples");
        if (strcmp(get_string(samples, "weightType"), cases[i].weight_type) != 0)
            fail_msg("%s: weight type %s", cases[i].unit, get_string(samples, "weightType"));
        double weight = json_number_value(column(samples, "weight", 0));
        if (weight != cases[i].weight)
            fail_msg("%s: weight %g, want %g", cases[i].unit, weight, cases[i].weight);
        json_decref(root);
        pk_profile_free(p);
    }

    /* Beyond 64 bits in bytes or nanoseconds: a double, near enough. */
    static const char *const big_units[] = {"gigabytes", "seconds"};
    for (size_t i = 0; i < 2; i++) {
        pk_profile *p = make_unit_profile(big_units[i]);
        uint32_t t = 0, s = pk_sample_stack(p, 0);
        assert_int_equal(pk_add_sample_value(p, t, s, 0, INT64_MAX / 2), PK_OK);
        json_t *root = write_json(p, PK_NONE);
        json_t *samples = get(json_array_get(get(root, "threads"), 0), "samples");
        /* The rows' weights (INT64_MAX / 2 + 3 and 2), however many samples carry them. */
        double scale = i == 0 ? 1024.0 * 1024 * 1024 : 1000.0;
        double want = ((double)(INT64_MAX / 2 + 3) + 2) * scale;
        double weight = weight_sum(samples);
        assert_true(weight > want * 0.999999 && weight < want * 1.000001);
        json_decref(root);
        pk_profile_free(p);
    }
}

/* One thread, main -> read_block in libdemo.so at two addresses; 30 ms of cpu. */
static pk_profile *make_native_profile(void)
{
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "cpu", "nanoseconds");
    pk_metadata *md = pk_metadata_of(p);
    md->period = 10000000;
    md->period_unit = pk_intern_cstr(p, "nanoseconds");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "demo"), 100, 100);
    pk_resource lib = {pk_intern_cstr(p, "libdemo.so"), pk_intern_cstr(p, "/usr/lib/libdemo.so"),
                       pk_intern_cstr(p, "00112233445566778899aabbccddeeff01020304"),
                       0x7f0000000000, 0x7f0000100000, 0x1000};
    uint32_t r = pk_intern_resource(p, &lib);
    pk_function fn_read = {.name = pk_intern_cstr(p, "read_block"),
                           .file = pk_intern_cstr(p, "demo.c"), .start_line = 10, .resource = r};
    pk_function fn_main = {.name = pk_intern_cstr(p, "main"), .resource = PK_NONE};
    pk_frame fr_main = {pk_intern_function(p, &fn_main), 0, 0, PK_NONE, 0};
    pk_frame fr_read = {pk_intern_function(p, &fn_read), 12, 0x7f0000001234, r,
                        PK_FRAME_HAS_ADDRESS};
    pk_frame fr_read2 = {fr_read.function, 13, 0x7f0000001200, r, PK_FRAME_HAS_ADDRESS};
    uint32_t s_main = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &fr_main));
    uint32_t s_read = pk_intern_stack(p, s_main, pk_intern_frame(p, &fr_read));
    uint32_t s_read2 = pk_intern_stack(p, s_main, pk_intern_frame(p, &fr_read2));
    const int64_t a[] = {20000000}, b[] = {10000000};
    pk_add_sample(p, t, s_read, a);
    pk_add_sample(p, t, s_read2, b);
    return p;
}

/* A profile without a run length: 30 ms of cpu sampled every 10 ms spans 30 ms, one sample per
 * period, each stack over a span in proportion to its weight. */
static void test_range_is_the_samples_times_the_period(void **state)
{
    (void)state;
    pk_profile *p = make_native_profile();
    json_t *root = write_json(p, PK_NONE);
    check_profile(root);
    json_t *meta = get(root, "meta");
    assert_true(fabs(json_number_value(get(meta, "interval")) - 10.0) < 1e-9);
    assert_true(fabs(json_number_value(get(meta, "profilingEndTime")) - 30.0) < 1e-9);
    json_t *samples = get(json_array_get(get(root, "threads"), 0), "samples");
    assert_int_equal(get_int(samples, "length"), 3);
    static const double times[] = {0.0, 10.0, 20.0};
    for (size_t i = 0; i < 3; i++) {
        assert_true(fabs(json_number_value(column(samples, "time", i)) - times[i]) < 1e-9);
        assert_true(fabs(json_number_value(column(samples, "weight", i)) - 10.0) < 1e-9);
    }
    json_decref(root);
    pk_profile_free(p);
}

static void test_native_frames_get_libraries(void **state)
{
    (void)state;
    pk_profile *p = make_native_profile();
    json_t *root = write_json(p, PK_NONE);
    check_profile(root);

    json_t *meta = get(root, "meta");
    assert_true(json_number_value(get(meta, "interval")) == 10.0);
    json_t *libs = get(root, "libs");
    assert_int_equal(json_array_size(libs), 1);
    json_t *l0 = json_array_get(libs, 0);
    assert_string_equal(get_string(l0, "name"), "libdemo.so");
    assert_string_equal(get_string(l0, "path"), "/usr/lib/libdemo.so");
    assert_string_equal(get_string(l0, "breakpadId"), "33221100554477668899AABBCCDDEEFF0");
    assert_string_equal(get_string(l0, "codeId"), "00112233445566778899aabbccddeeff01020304");

    json_t *thread = json_array_get(get(root, "threads"), 0);
    json_t *resources = get(thread, "resourceTable");
    assert_int_equal(get_int(resources, "length"), 1);
    assert_int_equal(json_integer_value(column(resources, "lib", 0)), 0);
    assert_int_equal(json_integer_value(column(resources, "type", 0)), 1);
    assert_string_equal(thread_string(thread, column(resources, "name", 0)), "libdemo.so");
    json_t *symbols = get(thread, "nativeSymbols");
    assert_int_equal(get_int(symbols, "length"), 1);
    assert_int_equal(json_integer_value(column(symbols, "address", 0)), 0x2200);
    assert_string_equal(thread_string(thread, column(symbols, "name", 0)), "read_block");

    json_t *frames = get(thread, "frameTable"), *funcs = get(thread, "funcTable");
    size_t native = 0;
    for (size_t i = 0; i < json_array_size(get(frames, "address")); i++) {
        json_int_t address = json_integer_value(column(frames, "address", i));
        if (address < 0) {
            assert_true(json_is_null(column(frames, "nativeSymbol", i)));
            continue;
        }
        native++;
        assert_true(address == 0x2234 || address == 0x2200);
        assert_int_equal(json_integer_value(column(frames, "nativeSymbol", i)), 0);
        size_t fn = (size_t)json_integer_value(column(frames, "func", i));
        assert_int_equal(json_integer_value(column(funcs, "resource", fn)), 0);
        size_t cat = (size_t)json_integer_value(column(frames, "category", i));
        assert_string_equal(get_string(json_array_get(get(meta, "categories"), cat), "name"),
                            "Native");
    }
    assert_int_equal(native, 2);
    json_t *samples = get(thread, "samples");
    assert_string_equal(get_string(samples, "weightType"), "tracing-ms");
    assert_true(weight_sum(samples) == 30.0);
    json_decref(root);
    pk_profile_free(p);
}

/* Allocations and frees on both threads; what stays live: 200 bytes on main, 8 on the task. */
static void add_memory_events(script_profile s)
{
    pk_profile *p = s.p;
    uint64_t freed = 0;
    assert_int_equal(pk_memory_alloc(p, s.main_thread, s.s_main_parse, 0x1000, 64), PK_OK);
    assert_int_equal(pk_memory_alloc(p, s.main_thread, s.s_main_parse_token, 0x2000, 100), PK_OK);
    assert_int_equal(pk_memory_alloc(p, s.task_thread, s.s_task_run, 0x3000, 8), PK_OK);
    assert_int_equal(pk_memory_free(p, s.main_thread, s.s_main, 0x1000, PK_MEM_FREE, &freed),
                     PK_OK);
    assert_int_equal(freed, 64);
    /* A realloc: the free half, then the new allocation. */
    assert_int_equal(pk_memory_free(p, s.main_thread, s.s_main_render, 0x2000, PK_MEM_REALLOC_FREE,
                                    &freed),
                     PK_OK);
    assert_int_equal(freed, 100);
    assert_int_equal(pk_memory_alloc(p, s.main_thread, s.s_main_render, 0x2800, 200), PK_OK);
    /* A free that matches nothing has no size and is left out. */
    assert_int_equal(pk_memory_free(p, s.main_thread, s.s_main, 0x9999, PK_MEM_FREE, &freed),
                     PK_OK);
    assert_int_equal(freed, 0);
    /* Memory that main allocates and the task frees. */
    assert_int_equal(pk_memory_alloc(p, s.main_thread, s.s_main, 0x4000, 32), PK_OK);
    assert_int_equal(pk_memory_free(p, s.task_thread, s.s_task_run, 0x4000, PK_MEM_FREE, &freed),
                     PK_OK);
    assert_int_equal(freed, 32);
}

static void test_memory_events_become_native_allocations(void **state)
{
    (void)state;
    script_profile s = make_script_profile("bsprof");
    pk_profile *p = s.p;
    add_memory_events(s);
    json_t *root = write_json(p, PK_NONE);
    check_profile(root);
    json_t *main_thread = thread_named(root, "main");
    json_t *allocations = get(main_thread, "nativeAllocations");
    /* The task's free of main's memory sits with the allocation, naming the task's thread. */
    assert_int_equal(get_int(allocations, "length"), 7);
    /* What is still live on main: the 200-byte realloc result. */
    assert_true(weight_sum(allocations) == 200);
    static const json_int_t weights[] = {64, 100, -64, -100, 200, 32, -32};
    static const json_int_t addresses[] = {0x1000, 0x2000, 0x1000, 0x2000, 0x2800, 0x4000, 0x4000};
    static const json_int_t thread_ids[] = {1, 1, 1, 1, 1, 1, 2};
    static const char *const paths[] = {"main;parse", "main;parse;token", "main", "main;render",
                                        "main;render", "main", "run"};
    for (size_t i = 0; i < 7; i++) {
        assert_int_equal(json_integer_value(column(allocations, "weight", i)), weights[i]);
        assert_int_equal(json_integer_value(column(allocations, "memoryAddress", i)), addresses[i]);
        assert_int_equal(json_integer_value(column(allocations, "threadId", i)), thread_ids[i]);
        char path[256];
        sample_path(main_thread, allocations, i, path, sizeof path);
        assert_string_equal(path, paths[i]);
    }
    /* Allocations come after the samples in the stream, and stay inside the run. */
    double last_sample = json_number_value(json_array_get(get(get(main_thread, "samples"), "time"),
                                                          2));
    double first_alloc = json_number_value(column(allocations, "time", 0));
    assert_true(first_alloc > last_sample);
    assert_true(json_number_value(column(allocations, "time", 6)) < 2000.0);

    json_t *task_allocations = get(thread_named(root, "TaskNode"), "nativeAllocations");
    assert_int_equal(get_int(task_allocations, "length"), 1);
    assert_int_equal(json_integer_value(column(task_allocations, "threadId", 0)), 2);

    /* One memory track for the process (pid 1) of both threads, on its main thread: the live
     * bytes of both, event by event in stream order, from nothing to 200 + 8 bytes. */
    json_t *counters = get(root, "counters");
    assert_int_equal(json_array_size(counters), 1);
    json_t *counter = json_array_get(counters, 0);
    assert_string_equal(get_string(counter, "description"),
                        "bytes allocated and not freed by the threads of the process");
    assert_string_equal(get_string(counter, "pid"), "1");
    assert_int_equal(get_int(counter, "mainThreadIndex"), 0);
    json_int_t levels[16];
    static const json_int_t expected_levels[] = {0, 64, 164, 172, 108, 8, 208, 240, 208};
    size_t n = counter_levels(counter, levels, 16);
    assert_int_equal(n, sizeof expected_levels / sizeof expected_levels[0]);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(levels[i], expected_levels[i]);
    /* Each event sits where it sits in its thread's table: main's first two, then the task's
     * allocation, then the rest of main's. */
    json_t *times = get(get(counter, "samples"), "time");
    for (size_t i = 0; i < 7; i++)
        assert_true(json_number_value(json_array_get(times, i < 2 ? i + 1 : i + 2)) ==
                    json_number_value(column(allocations, "time", i)));
    assert_true(json_number_value(json_array_get(times, 3)) ==
                json_number_value(column(task_allocations, "time", 0)));
    json_decref(root);
    pk_profile_free(p);
}

/* Memory events in four processes (pids 10, 20, 30, 40) of six threads: process 10 allocates
 * on a worker and frees on its main thread (the one named by the pid), leaving 5 bytes; the
 * second thread of process 20, which no thread names, allocates 30 bytes; process 30 frees
 * memory it never allocated; process 40 has no memory events. */
static pk_profile *make_processes_profile(void)
{
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    pk_add_value_type(p, "samples", "count");
    uint32_t s = pk_intern_stack(p, PK_NONE, script_frame(p, "work", "w.c", 1, 1));
    const int64_t one[] = {1};
    uint32_t a_worker = pk_add_thread(p, pk_intern_cstr(p, "a-worker"), 10, 11);
    uint32_t a_main = pk_add_thread(p, pk_intern_cstr(p, "a-main"), 10, 10);
    uint32_t b_first = pk_add_thread(p, pk_intern_cstr(p, "b-first"), 20, 21);
    uint32_t b_second = pk_add_thread(p, pk_intern_cstr(p, "b-second"), 20, 22);
    uint32_t c_only = pk_add_thread(p, pk_intern_cstr(p, "c-only"), 30, 30);
    uint32_t d_only = pk_add_thread(p, pk_intern_cstr(p, "d-only"), 40, 40);
    uint32_t all[] = {a_worker, a_main, b_first, b_second, c_only, d_only};
    for (size_t i = 0; i < 6; i++)
        pk_add_sample(p, all[i], s, one);
    /* Allocations, and frees with the size they release (0: memory never allocated). */
    const struct {
        uint32_t thread;
        bool is_free;
        uint64_t address, size;
    } events[] = {{a_worker, false, 0x100, 1000}, {b_second, false, 0x200, 30},
                  {a_worker, false, 0x300, 5},    {a_main, true, 0x100, 1000},
                  {c_only, true, 0x999, 0}};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        uint64_t freed = 0;
        if (events[i].is_free)
            assert_int_equal(pk_memory_free(p, events[i].thread, s, events[i].address,
                                            PK_MEM_FREE, &freed),
                             PK_OK);
        else
            assert_int_equal(pk_memory_alloc(p, events[i].thread, s, events[i].address,
                                             events[i].size),
                             PK_OK);
        assert_int_equal(events[i].is_free ? freed : events[i].size, events[i].size);
    }
    return p;
}

/* Each process with events of a known size gets one memory track, attached to its main
 * thread (the thread named by the pid, else its first) whatever thread the events are on; a
 * process whose only event is a free of unknown memory, and one without events, get none. */
static void test_one_memory_track_per_process(void **state)
{
    (void)state;
    pk_profile *p = make_processes_profile();
    enum { A_MAIN = 1, B_FIRST = 2 };
    json_t *root = write_json(p, PK_NONE);
    check_profile(root);
    json_t *counters = get(root, "counters");
    assert_int_equal(json_array_size(counters), 2);
    json_t *a = json_array_get(counters, 0), *b = json_array_get(counters, 1);
    assert_string_equal(get_string(a, "pid"), "10");
    assert_int_equal(get_int(a, "mainThreadIndex"), A_MAIN);
    assert_string_equal(get_string(b, "pid"), "20");
    assert_int_equal(get_int(b, "mainThreadIndex"), B_FIRST);
    json_int_t levels[8];
    assert_int_equal(counter_levels(a, levels, 8), 4);
    assert_int_equal(levels[1], 1000);
    assert_int_equal(levels[2], 1005);
    assert_int_equal(levels[3], 5);
    assert_int_equal(counter_levels(b, levels, 8), 2);
    assert_int_equal(levels[1], 30);
    json_decref(root);
    pk_profile_free(p);
}

static void test_empty_profile(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    json_t *root = write_json(p, PK_NONE);
    assert_int_equal(check_profile(root), 1);
    json_decref(root);
    pk_profile_free(p);
}

static void test_unnamed_threads_and_strings_escaped(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    uint32_t t0 = pk_add_thread(p, 0, 7, 42);
    uint32_t t1 = pk_add_thread(p, pk_intern_cstr(p, "quote\"and\\slash\n"), 7, 7);
    uint32_t f = script_frame(p, "tab\there", "a \"file\".c", 1, 1);
    uint32_t s = pk_intern_stack(p, PK_NONE, f);
    const int64_t one[] = {1};
    pk_add_sample(p, t0, s, one);
    pk_add_sample(p, t1, s, one);
    json_t *root = write_json(p, PK_NONE);
    check_profile(root);
    json_t *threads = get(root, "threads");
    json_t *first = json_array_get(threads, 0), *second = json_array_get(threads, 1);
    assert_string_equal(get_string(first, "name"), "Thread 42");
    assert_true(json_is_false(get(first, "isMainThread")));
    assert_string_equal(get_string(second, "name"), "quote\"and\\slash\n");
    assert_true(json_is_true(get(second, "isMainThread")));
    assert_string_equal(get_string(second, "pid"), "7");
    json_t *funcs = get(second, "funcTable");
    assert_string_equal(thread_string(second, column(funcs, "name", 0)), "tab\there");
    assert_string_equal(thread_string(second, column(funcs, "fileName", 0)), "a \"file\".c");
    json_decref(root);
    pk_profile_free(p);
}

/* Threads that share a name get names that tell them apart (profkit/thread_names.h). */
static void threads_of_one_name_told_apart(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    pk_metadata_of(p)->source_format = pk_intern_cstr(p, "bsprof");
    /* What the bsprof reader records: its thread ids are modules. */
    assert_int_equal(pk_property_set(p, "thread id name", "module"), PK_OK);
    uint32_t f = script_frame(p, "Run", "pkg:/components/Item.brs", 1, 1);
    uint32_t s = pk_intern_stack(p, PK_NONE, f);
    const int64_t one[] = {1};
    uint32_t item = pk_intern_cstr(p, "Item");
    pk_add_sample(p, pk_add_thread(p, item, 0, 7), s, one);
    pk_add_sample(p, pk_add_thread(p, pk_intern_cstr(p, "main"), 0, 1), s, one);
    pk_add_sample(p, pk_add_thread(p, item, 0, 9), s, one);
    json_t *root = write_json(p, PK_NONE);
    check_profile(root);
    json_t *threads = get(root, "threads");
    assert_string_equal(get_string(json_array_get(threads, 0), "name"), "Item (module 7)");
    assert_string_equal(get_string(json_array_get(threads, 1), "name"), "main");
    assert_string_equal(get_string(json_array_get(threads, 2), "name"), "Item (module 9)");
    json_decref(root);
    pk_profile_free(p);
}

/* The main thread of each process: the thread whose tid is the pid, else the process's first
 * thread; one per process, among many processes and threads (the writer finds them in one
 * pass over the threads). Process k has k % 4 + 1 threads; in every third process with more
 * than one thread, the last one is named by the pid; processes from 1000 on have no pid (-1). */
static void test_main_thread_per_process(void **state)
{
    (void)state;
    enum { PROCESSES = 1500 };
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    uint32_t s = pk_intern_stack(p, PK_NONE, script_frame(p, "work", "w.c", 1, 1));
    const int64_t one[] = {1};
    size_t threads = 0;
    static bool expected[PROCESSES * 4];
    for (int k = 0; k < PROCESSES; k++) {
        int64_t pid = k < 1000 ? 100000 + k : -1;
        int n = k % 4 + 1;
        bool pid_named_last = n > 1 && k % 3 == 0 && pid >= 0;
        for (int i = 0; i < n; i++) {
            int64_t tid = pid_named_last && i == n - 1 ? pid : 200000 + (int64_t)threads;
            char name[32];
            snprintf(name, sizeof name, "t%zu", threads);
            uint32_t t = pk_add_thread(p, pk_intern_cstr(p, name), pid, tid);
            assert_int_equal(t, threads);
            pk_add_sample(p, t, s, one);
            /* Processes without a pid are all one process (-1): its first thread is main. */
            if (pid_named_last)
                expected[threads] = i == n - 1;
            else
                expected[threads] = i == 0 && (pid >= 0 || k == 1000);
            threads++;
        }
    }
    json_t *root = write_json(p, PK_NONE);
    json_t *out = get(root, "threads");
    assert_int_equal(json_array_size(out), threads);
    for (size_t i = 0; i < threads; i++) {
        json_t *t = json_array_get(out, i);
        if (json_is_true(get(t, "isMainThread")) != expected[i])
            fail_msg("thread %zu (%s): isMainThread should be %d", i, get_string(t, "name"),
                     expected[i]);
    }
    json_decref(root);
    pk_profile_free(p);
}

/* A process the input named (process.PID.name) is written under that name and without a main
 * thread, so that the profiler labels its track by the name rather than by a thread's; the
 * other processes keep the product's name and their main thread. */
static void test_named_processes(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_metadata_of(p)->product = pk_intern_cstr(p, "trace.json");
    pk_add_value_type(p, "samples", "count");
    uint32_t s = pk_intern_stack(p, PK_NONE, script_frame(p, "work", "w.c", 1, 1));
    const int64_t one[] = {1};
    uint32_t renderer = pk_add_thread(p, pk_intern_cstr(p, "CrRendererMain"), 7, 7);
    uint32_t worker = pk_add_thread(p, pk_intern_cstr(p, "Worker"), 7, 8);
    uint32_t other = pk_add_thread(p, pk_intern_cstr(p, "main"), 9, 9);
    pk_add_sample(p, renderer, s, one);
    pk_add_sample(p, worker, s, one);
    pk_add_sample(p, other, s, one);
    assert_int_equal(pk_property_set(p, "process.7.name", "Renderer"), PK_OK);
    json_t *root = write_json(p, PK_NONE);
    json_t *out = get(root, "threads");
    assert_int_equal(json_array_size(out), 3);
    static const struct {
        const char *process;
        bool main;
    } expected[] = {{"Renderer", false}, {"Renderer", false}, {"trace.json", true}};
    for (size_t i = 0; i < 3; i++) {
        json_t *t = json_array_get(out, i);
        assert_string_equal(get_string(t, "processName"), expected[i].process);
        assert_int_equal(json_is_true(get(t, "isMainThread")), expected[i].main);
    }
    json_decref(root);
    /* Read back, the named process keeps its name; the process written under the product's
     * name gets none of its own. */
    const pk_format *fmt = pk_format_by_name("firefox");
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    pk_error_clear(&err);
    assert_int_equal(pk_write_memory(p, fmt, NULL, &data, &size, &err), PK_OK);
    pk_profile *back = NULL;
    assert_int_equal(pk_read_memory(data, size, fmt, NULL, &back, &err), PK_OK);
    assert_string_equal(pk_property_get(back, "process.7.name"), "Renderer");
    assert_null(pk_property_get(back, "process.9.name"));
    assert_string_equal(pk_str(back, pk_metadata_get(back)->product), "trace.json");
    pk_profile_free(back);
    free(data);
    pk_profile_free(p);
}

/* Threads without a pid are written with pid 0, so they are one process with the threads of
 * pid 0: one main thread (the one named by the pid) and one memory track among them. */
static void test_threads_without_pid_are_process_zero(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    uint32_t s = pk_intern_stack(p, PK_NONE, script_frame(p, "work", "w.c", 1, 1));
    const int64_t one[] = {1};
    uint32_t unknown = pk_add_thread(p, pk_intern_cstr(p, "unknown"), -1, 5);
    uint32_t zero = pk_add_thread(p, pk_intern_cstr(p, "zero"), 0, 0);
    pk_add_sample(p, unknown, s, one);
    pk_add_sample(p, zero, s, one);
    assert_int_equal(pk_memory_alloc(p, unknown, s, 0x10, 7), PK_OK);
    assert_int_equal(pk_memory_alloc(p, zero, s, 0x20, 9), PK_OK);
    json_t *root = write_json(p, PK_NONE);
    check_profile(root);
    json_t *threads = get(root, "threads");
    assert_string_equal(get_string(json_array_get(threads, 0), "pid"), "0");
    assert_true(json_is_false(get(json_array_get(threads, 0), "isMainThread")));
    assert_true(json_is_true(get(json_array_get(threads, 1), "isMainThread")));
    json_t *counters = get(root, "counters");
    assert_int_equal(json_array_size(counters), 1);
    assert_int_equal(get_int(json_array_get(counters, 0), "mainThreadIndex"), zero);
    json_int_t levels[4];
    assert_int_equal(counter_levels(json_array_get(counters, 0), levels, 4), 3);
    assert_int_equal(levels[2], 16);
    json_decref(root);
    pk_profile_free(p);
}

/* Stacks interned in an order where a thread reaches a deep stack before its callers' other
 * children: per-thread indexes must still put every prefix first. */
static void test_stacks_stay_topological_per_thread(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    uint32_t t0 = pk_add_thread(p, pk_intern_cstr(p, "a"), 1, 1);
    uint32_t t1 = pk_add_thread(p, pk_intern_cstr(p, "b"), 1, 2);
    uint32_t stack = PK_NONE;
    uint32_t chain[40];
    for (int i = 0; i < 40; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i % 7);
        stack = pk_intern_stack(p, stack, script_frame(p, name, "x.go", 1, (uint32_t)i + 1));
        chain[i] = stack;
    }
    const int64_t one[] = {1};
    for (int i = 39; i >= 0; i -= 3)
        pk_add_sample(p, i % 2 ? t0 : t1, chain[i], one);
    json_t *root = write_json(p, PK_NONE);
    check_profile(root);
    json_t *a = thread_named(root, "a");
    char path[1024];
    sample_path(a, get(a, "samples"), 0, path, sizeof path);
    assert_int_equal(strncmp(path, "f0;f1;f2;f3;f4;f5;f6;f0", 23), 0);
    json_decref(root);
    pk_profile_free(p);
}

static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

/* Random profiles mixing script and native frames, resources with and without paths, empty
 * stacks, negative and zero values and memory events across threads: every output keeps the
 * structural rules, and the weights and live bytes add up to the model's totals. */
static void test_random_profiles_stay_valid(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    for (int round = 0; round < 40; round++) {
        pk_profile *p = pk_profile_new();
        uint32_t cpu = pk_add_value_type(p, "cpu", round % 2 ? "nanoseconds" : "count");
        pk_metadata *md = pk_metadata_of(p);
        if (round % 3 == 0) {
            md->start_time = 1000000000LL * (1 + round);
            md->end_time = md->start_time + 1000000LL * (1 + (int64_t)next_random(&seed) % 5000);
        }
        uint32_t threads = 1 + (uint32_t)(next_random(&seed) % 4);
        for (uint32_t t = 0; t < threads; t++)
            pk_add_thread(p, t % 2 ? pk_intern_printf(p, "t%u", t) : 0, 5, t % 3 ? (int64_t)t : -1);
        pk_resource libs[2] = {
            {pk_intern_cstr(p, "libx.so"), pk_intern_cstr(p, "/lib/libx.so"), 0, 0x1000, 0x9000, 0},
            {pk_intern_cstr(p, "module"), 0, 0, 0, 0, 0}};
        uint32_t resources[2] = {pk_intern_resource(p, &libs[0]), pk_intern_resource(p, &libs[1])};
        uint32_t stacks[64] = {0};
        size_t nstacks = 0;
        for (int i = 0; i < 64; i++) {
            uint64_t r = next_random(&seed);
            pk_function fn = {pk_intern_printf(p, "fn%u", (unsigned)(r % 13)),
                              r % 5 ? pk_intern_printf(p, "src/f%u.%s", (unsigned)(r % 4),
                                                       r % 2 ? "c" : "py")
                                    : 0,
                              (uint32_t)(r % 50), r % 7 == 0 ? resources[1] : PK_NONE,
                              (uint32_t)(r % 3), (uint32_t)(r / 7 % 4)};
            bool native = r % 3 == 0;
            pk_frame fr = {pk_intern_function(p, &fn), (uint32_t)(r % 90),
                           native ? 0x800 + (r % 0x9000) : 0, native ? resources[0] : PK_NONE,
                           native ? PK_FRAME_HAS_ADDRESS | (r % 4 == 0 ? PK_FRAME_INLINED : 0u)
                                  : 0u};
            uint32_t parent = nstacks && r % 4 ? stacks[next_random(&seed) % nstacks] : PK_NONE;
            stacks[nstacks++] = pk_intern_stack(p, parent, pk_intern_frame(p, &fr));
        }
        uint64_t live[32] = {0};
        int64_t expected_live = 0;
        json_int_t expected_levels[201] = {0}; /* the live bytes after each event */
        size_t events = 0;
        for (int i = 0; i < 200; i++) {
            uint64_t r = next_random(&seed);
            uint32_t t = (uint32_t)(r % threads);
            uint32_t stack = r % 11 ? stacks[r % nstacks] : PK_NONE;
            if (r % 3 == 0) {
                size_t slot = (size_t)(r >> 8) % 32;
                if (live[slot]) {
                    assert_int_equal(pk_memory_free(p, t, stack, 0x100000 + slot * 64, PK_MEM_FREE,
                                                    NULL),
                                     PK_OK);
                    expected_live -= (int64_t)live[slot];
                    live[slot] = 0;
                    expected_levels[++events] = expected_live;
                } else {
                    live[slot] = 1 + (r >> 16) % 500;
                    assert_int_equal(pk_memory_alloc(p, t, stack, 0x100000 + slot * 64, live[slot]),
                                     PK_OK);
                    expected_live += (int64_t)live[slot];
                    expected_levels[++events] = expected_live;
                }
            } else {
                int64_t v = (int64_t)(r % 100) - 10;
                pk_add_sample(p, t, stack, &v);
            }
        }
        json_t *root = write_json(p, PK_NONE);
        check_profile(root);
        json_t *jthreads = get(root, "threads");
        assert_int_equal(json_array_size(jthreads), threads);
        double samples = 0, allocations = 0;
        for (size_t t = 0; t < threads; t++) {
            json_t *thread = json_array_get(jthreads, t);
            samples += weight_sum(get(thread, "samples"));
            json_t *na = json_object_get(thread, "nativeAllocations");
            if (na)
                allocations += weight_sum(na);
        }
        double total = (double)pk_value_total(p, cpu) / (round % 2 ? 1e6 : 1.0);
        assert_true(samples > total - 1e-6 && samples < total + 1e-6);
        assert_true(allocations == (double)expected_live);
        /* All threads are one process (pid 5): one memory track of the live bytes. */
        json_t *counters = get(root, "counters");
        assert_int_equal(json_array_size(counters), events ? 1 : 0);
        if (events) {
            json_int_t levels[201];
            assert_int_equal(counter_levels(json_array_get(counters, 0), levels, 201), events + 1);
            for (size_t i = 0; i <= events; i++)
                assert_int_equal(levels[i], expected_levels[i]);
        }
        json_decref(root);
        pk_profile_free(p);
    }
}

/* Writes the profiles of these tests as files, for the checks with the Firefox Profiler's own
 * loading code (tests/cli/interop_firefox_profiler.sh). */
static int write_fixtures(const char *dir)
{
    const pk_format *fmt = pk_format_by_name("firefox");
    char path[4096];
    pk_error err;
    pk_write_options options;
    memset(&options, 0, sizeof options);
    script_profile s = make_script_profile("bsprof");
    add_memory_events(s);
    struct {
        const char *name;
        const pk_profile *p;
        uint32_t value;
    } files[] = {
        {"script.json", s.p, PK_NONE},
        {"script-wall.json", s.p, s.wall},
        {"native.json", make_native_profile(), PK_NONE},
        {"empty.json", pk_profile_new(), PK_NONE},
        {"business-rules.json", make_business_rules_profile(), PK_NONE},
        {"kilobytes.json", make_unit_profile("KiB"), PK_NONE},
        {"processes.json", make_processes_profile(), PK_NONE},
    };
    int status = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        options.value = files[i].value;
        pk_error_clear(&err);
        if (pk_write_file(files[i].p, path, fmt, &options, NULL, &err) != PK_OK) {
            fprintf(stderr, "%s: %s\n", path, err.message);
            status = 1;
        }
        if (i > 0 && files[i].p != s.p)
            pk_profile_free((pk_profile *)files[i].p);
    }
    pk_profile_free(s.p);
    return status;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-fixtures") == 0)
        return write_fixtures(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_script_profile_default_value),
        cmocka_unit_test(test_time_value_becomes_milliseconds),
        cmocka_unit_test(test_unknown_value_is_refused),
        cmocka_unit_test(test_max_samples_makes_samples_heavier),
        cmocka_unit_test(test_category_follows_file_without_format),
        cmocka_unit_test(test_units_of_weights_and_period),
        cmocka_unit_test(test_business_rules_and_windows_library),
        cmocka_unit_test(test_native_frames_get_libraries),
        cmocka_unit_test(test_range_is_the_samples_times_the_period),
        cmocka_unit_test(test_memory_events_become_native_allocations),
        cmocka_unit_test(test_one_memory_track_per_process),
        cmocka_unit_test(test_empty_profile),
        cmocka_unit_test(test_unnamed_threads_and_strings_escaped),
        cmocka_unit_test(threads_of_one_name_told_apart),
        cmocka_unit_test(test_main_thread_per_process),
        cmocka_unit_test(test_named_processes),
        cmocka_unit_test(test_threads_without_pid_are_process_zero),
        cmocka_unit_test(test_stacks_stay_topological_per_thread),
        cmocka_unit_test(test_random_profiles_stay_valid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
