/* SPDX-License-Identifier: MIT */
/* The writers that show time, on profiles with timelines built in memory: the Firefox
 * Profiler's samples in time order at their own times (runs of one stack collapsed, spans
 * closed where a gap starts, placed threads beside timed ones), speedscope's profiles in time
 * order (spans as events at their real times), and the placed layout of values that are not a
 * time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "profkit/format.h"
#include "profkit/profile.h"
#include "profkit/timeline.h"

static json_t *write_json_value(const pk_profile *p, const char *format, uint32_t value)
{
    pk_write_options options;
    memset(&options, 0, sizeof options);
    options.value = value;
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    pk_error_clear(&err);
    pk_status status = pk_write_memory(p, pk_format_by_name(format), &options, &data, &size, &err);
    if (status != PK_OK)
        fail_msg("write failed: %s", err.message);
    json_error_t jerr;
    json_t *root = json_loadb(data, size, 0, &jerr);
    if (!root)
        fail_msg("invalid JSON at line %d: %s", jerr.line, jerr.text);
    free(data);
    return root;
}

static json_t *write_json(const pk_profile *p, const char *format)
{
    return write_json_value(p, format, PK_NONE);
}

static json_t *get(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        fail_msg("missing key %s", key);
    return v;
}

static uint32_t frame_of(pk_profile *p, const char *name)
{
    pk_function fn = {.name = pk_intern_cstr(p, name), .file = 0, .resource = PK_NONE};
    pk_frame fr = {pk_intern_function(p, &fn), 0, 0, PK_NONE, 0};
    return pk_intern_frame(p, &fr);
}

/* main, main;a, main;b on thread "worker" (pid 7, tid 8). */
typedef struct timed_profile {
    pk_profile *p;
    uint32_t thread, s_main, s_a, s_b;
} timed_profile;

static timed_profile make(const char *value_name, const char *unit)
{
    timed_profile t;
    t.p = pk_profile_new();
    assert_non_null(t.p);
    pk_add_value_type(t.p, value_name, unit);
    t.thread = pk_add_thread(t.p, pk_intern_cstr(t.p, "worker"), 7, 8);
    t.s_main = pk_intern_stack(t.p, PK_NONE, frame_of(t.p, "main"));
    t.s_a = pk_intern_stack(t.p, t.s_main, frame_of(t.p, "a"));
    t.s_b = pk_intern_stack(t.p, t.s_main, frame_of(t.p, "b"));
    return t;
}

static void add(timed_profile *t, uint32_t stack, int64_t time, int64_t duration, int64_t value)
{
    assert_int_equal(pk_add_timed_sample(t->p, t->thread, stack, time, duration, &value), PK_OK);
}

/* The name of the leaf function of local stack `index` of a Firefox thread, "" for null. */
static const char *fx_leaf(json_t *thread, json_t *index)
{
    if (json_is_null(index))
        return "";
    json_t *stacks = get(thread, "stackTable"), *frames = get(thread, "frameTable");
    json_t *funcs = get(thread, "funcTable");
    size_t frame = (size_t)json_integer_value(
        json_array_get(get(stacks, "frame"), (size_t)json_integer_value(index)));
    size_t func = (size_t)json_integer_value(json_array_get(get(frames, "func"), frame));
    size_t name = (size_t)json_integer_value(json_array_get(get(funcs, "name"), func));
    return json_string_value(json_array_get(get(thread, "stringArray"), name));
}

/* The thread's samples as "leaf@ms*weight" joined by spaces. */
static void fx_samples_text(json_t *thread, char *out, size_t cap)
{
    json_t *samples = get(thread, "samples");
    size_t n = (size_t)json_integer_value(get(samples, "length"));
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        const char *leaf = fx_leaf(thread, json_array_get(get(samples, "stack"), i));
        double time = json_number_value(json_array_get(get(samples, "time"), i));
        double weight = json_number_value(json_array_get(get(samples, "weight"), i));
        used += (size_t)snprintf(out + used, cap - used, "%s%s@%g*%g", i ? " " : "", leaf, time,
                                 weight);
        assert_true(used < cap);
    }
}

/* Instants in time order, added out of order: consecutive samples of one stack become one
 * sample weighing their sum, at the first one's time, relative to the earliest sample. */
static void test_firefox_instants_in_time_order(void **state)
{
    (void)state;
    timed_profile t = make("samples", "count");
    add(&t, t.s_a, 5000000000, 0, 1); /* at 5 s on the input's clock */
    add(&t, t.s_a, 5001000000, 0, 1);
    add(&t, t.s_b, 5003000000, 0, 2);
    add(&t, t.s_a, 5002000000, 0, 1); /* out of order: between the two runs */
    add(&t, t.s_a, 5010500000, 0, 1);
    json_t *root = write_json(t.p, "firefox");
    json_t *thread = json_array_get(get(root, "threads"), 0);
    assert_string_equal(json_string_value(get(get(thread, "samples"), "weightType")), "samples");
    char text[512];
    fx_samples_text(thread, text, sizeof text);
    assert_string_equal(text, "a@0*3 b@3*2 a@10.5*1");
    json_t *meta = get(root, "meta");
    assert_true(json_number_value(get(meta, "profilingEndTime")) == 10.5);
    json_decref(root);
    pk_profile_free(t.p);
}

/* Spans: a sample at each start weighing its duration in ms, contiguous spans of one stack as
 * one, and an empty sample where a gap starts and after the last span. */
static void test_firefox_spans(void **state)
{
    (void)state;
    timed_profile t = make("time", "nanoseconds");
    add(&t, t.s_a, 1000000, 2000000, 2000000);  /* a 1..3 ms */
    add(&t, t.s_a, 3000000, 1000000, 1000000);  /* a 3..4 ms, contiguous */
    add(&t, t.s_b, 4000000, 500000, 500000);    /* b 4..4.5 ms */
    add(&t, t.s_main, 6000000, 1000000, 1000000); /* main 6..7 ms after a gap */
    json_t *root = write_json(t.p, "firefox");
    json_t *thread = json_array_get(get(root, "threads"), 0);
    assert_string_equal(json_string_value(get(get(thread, "samples"), "weightType")),
                        "tracing-ms");
    char text[512];
    fx_samples_text(thread, text, sizeof text);
    assert_string_equal(text, "a@0*3 b@3*0.5 @3.5*0 main@5*1 @6*0");
    json_decref(root);
    pk_profile_free(t.p);
}

/* A thread without times beside a timed one: both written, from time 0, the placed one as
 * before and the timed one at its own times. */
static void test_firefox_placed_beside_timed(void **state)
{
    (void)state;
    timed_profile t = make("samples", "count");
    add(&t, t.s_a, 100, 0, 1);
    add(&t, t.s_b, 2000100, 0, 1);
    uint32_t other = pk_add_thread(t.p, pk_intern_cstr(t.p, "placed"), 7, 9);
    int64_t v = 3;
    assert_int_equal(pk_add_sample(t.p, other, t.s_main, &v), PK_OK);
    json_t *root = write_json(t.p, "firefox");
    json_t *threads = get(root, "threads");
    assert_int_equal(json_array_size(threads), 2);
    char text[512];
    fx_samples_text(json_array_get(threads, 0), text, sizeof text);
    assert_string_equal(text, "a@0*1 b@2*1");
    json_t *placed = get(json_array_get(threads, 1), "samples");
    assert_true(json_integer_value(get(placed, "length")) >= 1);
    assert_true(json_number_value(json_array_get(get(placed, "time"), 0)) == 0);
    json_decref(root);
    pk_profile_free(t.p);
}

/* Instruction counts without times or period: samples weigh the counts, and the placed track
 * lasts at most 100 s (100,000 samples of 1 ms), never hours. */
static void test_firefox_counts_not_hours(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "Ir", "count");
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "prog"), 1, 1);
    uint32_t s_main = pk_intern_stack(p, PK_NONE, frame_of(p, "main"));
    uint32_t s_f = pk_intern_stack(p, s_main, frame_of(p, "f"));
    int64_t many = 160000000000, few = 4000000000;
    assert_int_equal(pk_add_sample(p, thread, s_main, &few), PK_OK);
    assert_int_equal(pk_add_sample(p, thread, s_f, &many), PK_OK);
    json_t *root = write_json(p, "firefox");
    json_t *meta = get(root, "meta");
    double end = json_number_value(get(meta, "profilingEndTime"));
    assert_true(end > 0 && end <= 100000.0 + 1);
    json_t *samples = get(json_array_get(get(root, "threads"), 0), "samples");
    assert_string_equal(json_string_value(get(samples, "weightType")), "samples");
    double total = 0;
    size_t n = (size_t)json_integer_value(get(samples, "length"));
    for (size_t i = 0; i < n; i++)
        total += json_number_value(json_array_get(get(samples, "weight"), i));
    assert_true(total == (double)(many + few));
    json_decref(root);
    pk_profile_free(p);
}

/* speedscope: a sampled profile in time order, consecutive samples of one stack as one. */
static void test_speedscope_instants_in_time_order(void **state)
{
    (void)state;
    timed_profile t = make("samples", "count");
    add(&t, t.s_a, 10, 0, 1);
    add(&t, t.s_b, 30, 0, 1);
    add(&t, t.s_a, 20, 0, 1);
    add(&t, t.s_a, 40, 0, 2);
    json_t *root = write_json(t.p, "speedscope");
    json_t *profile = json_array_get(get(root, "profiles"), 0);
    json_t *frames = get(get(root, "shared"), "frames");
    char text[256] = "";
    size_t used = 0;
    if (strcmp(json_string_value(get(profile, "type")), "sampled") == 0) {
        json_t *samples = get(profile, "samples"), *weights = get(profile, "weights");
        for (size_t i = 0; i < json_array_size(samples); i++) {
            json_t *stack = json_array_get(samples, i);
            json_t *leaf = json_array_get(frames, (size_t)json_integer_value(
                                                      json_array_get(stack, json_array_size(stack) - 1)));
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%s*%lld", i ? " " : "",
                                     json_string_value(get(leaf, "name")),
                                     (long long)json_integer_value(json_array_get(weights, i)));
        }
    } else { /* evented: the leaves opened, with their times */
        json_t *events = get(profile, "events");
        for (size_t i = 0; i < json_array_size(events); i++) {
            json_t *e = json_array_get(events, i);
            json_t *f = json_array_get(frames, (size_t)json_integer_value(get(e, "frame")));
            const char *name = json_string_value(get(f, "name"));
            if (strcmp(json_string_value(get(e, "type")), "O") == 0 && strcmp(name, "main") != 0)
                used += (size_t)snprintf(text + used, sizeof text - used, "%s%s@%lld",
                                         used ? " " : "", name,
                                         (long long)json_integer_value(get(e, "at")));
        }
    }
    /* a (2) b (1) a (2): in time order whichever way the thread is written. */
    assert_true(strcmp(text, "a*2 b*1 a*2") == 0 || strcmp(text, "a@0 b@2 a@3") == 0);
    json_decref(root);
    pk_profile_free(t.p);
}

/* speedscope: spans as an evented profile in nanoseconds from the earliest sample, closed where
 * a gap starts. */
static void test_speedscope_spans(void **state)
{
    (void)state;
    timed_profile t = make("time", "nanoseconds");
    add(&t, t.s_a, 1000, 2000, 2000); /* a 1000..3000 */
    add(&t, t.s_b, 3000, 500, 500);   /* b 3000..3500 */
    add(&t, t.s_a, 5000, 1000, 1000); /* a 5000..6000 after a gap */
    json_t *root = write_json(t.p, "speedscope");
    json_t *profile = json_array_get(get(root, "profiles"), 0);
    assert_string_equal(json_string_value(get(profile, "type")), "evented");
    assert_string_equal(json_string_value(get(profile, "unit")), "nanoseconds");
    assert_int_equal(json_integer_value(get(profile, "startValue")), 0);
    assert_int_equal(json_integer_value(get(profile, "endValue")), 5000);
    json_t *frames = get(get(root, "shared"), "frames");
    json_t *events = get(profile, "events");
    char text[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *e = json_array_get(events, i);
        json_t *f = json_array_get(frames, (size_t)json_integer_value(get(e, "frame")));
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s%s@%lld", i ? " " : "",
                                 json_string_value(get(e, "type")),
                                 json_string_value(get(f, "name")),
                                 (long long)json_integer_value(get(e, "at")));
    }
    assert_string_equal(text, "Omain@0 Oa@0 Ca@2000 Ob@2000 Cb@2500 Cmain@2500 "
                              "Omain@4000 Oa@4000 Ca@5000 Cmain@5000");
    json_decref(root);
    pk_profile_free(t.p);
}

/* Whether a speedscope file's frames include one named name. */
static bool has_frame(json_t *root, const char *name)
{
    json_t *frames = get(get(root, "shared"), "frames");
    for (size_t i = 0; i < json_array_size(frames); i++)
        if (strcmp(json_string_value(get(json_array_get(frames, i), "name")), name) == 0)
            return true;
    return false;
}

/* A Chrome trace's threads: V8 samples weigh cpu, duration events (spans) wall time and no cpu.
 * Written by cpu, the spans are left out as rows weighing nothing are (speedscope would weigh
 * them by their durations); the writer said "out of memory" when it wrote them without their
 * frames. Written by wall, they are the evented profile of their times. */
static void test_speedscope_spans_weighing_nothing(void **state)
{
    (void)state;
    timed_profile t = make("cpu", "nanoseconds");
    uint32_t wall = pk_add_value_type(t.p, "wall", "nanoseconds");
    uint32_t other = pk_add_thread(t.p, pk_intern_cstr(t.p, "other"), 7, 9);
    uint32_t s_task = pk_intern_stack(t.p, PK_NONE, frame_of(t.p, "task"));
    int64_t sample[2] = {1000, 0}, span[2] = {0, 4000};
    assert_int_equal(pk_add_timed_sample(t.p, t.thread, t.s_a, 1000, 0, sample), PK_OK);
    assert_int_equal(pk_add_timed_sample(t.p, t.thread, t.s_a, 2000, 0, sample), PK_OK);
    assert_int_equal(pk_add_timed_sample(t.p, t.thread, s_task, 1500, 4000, span), PK_OK);
    assert_int_equal(pk_add_timed_sample(t.p, other, s_task, 500, 4000, span), PK_OK);
    assert_int_equal(pk_default_value(t.p), 0);

    json_t *root = write_json(t.p, "speedscope");
    assert_false(has_frame(root, "task"));
    json_t *worker = json_array_get(get(root, "profiles"), 0);
    assert_string_equal(json_string_value(get(worker, "type")), "sampled");
    assert_int_equal(json_array_size(get(worker, "samples")), 1); /* a's two, as one */
    assert_int_equal(json_integer_value(json_array_get(get(worker, "weights"), 0)), 2000);
    json_t *spans_only = json_array_get(get(root, "profiles"), 1);
    assert_int_equal(json_array_size(get(spans_only, "samples")), 0);
    json_decref(root);

    root = write_json_value(t.p, "speedscope", wall);
    assert_true(has_frame(root, "task"));
    spans_only = json_array_get(get(root, "profiles"), 1);
    assert_string_equal(json_string_value(get(spans_only, "type")), "evented");
    assert_int_equal(json_array_size(get(spans_only, "events")), 2); /* task opened and closed */
    json_decref(root);
    pk_profile_free(t.p);
}

/* Writes a file of the profile in format; false on failure. */
static bool write_file(const pk_profile *p, const char *format, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    pk_write_options options;
    memset(&options, 0, sizeof options);
    options.value = PK_NONE;
    pk_error err;
    pk_error_clear(&err);
    if (pk_write_file(p, path, pk_format_by_name(format), &options, NULL, &err) != PK_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return false;
    }
    return true;
}

/* The timed profiles tests/cli/interop_timelines.sh loads into the real viewers:
 *   timed-samples: samples every ms from 1 s on the input's clock: a 0-9 ms, b 10-19, a 20-29,
 *     nothing 30-49, main 50-59 (a sampling profile's four runs of one leaf);
 *   timed-spans: spans a 0-5 ms, b 5-8, a gap, a 10-12 (a trace's). */
static int write_fixtures(const char *dir)
{
    timed_profile samples = make("samples", "count");
    for (int64_t ms = 0; ms < 60; ms++) {
        uint32_t stack = ms < 10 ? samples.s_a : ms < 20 ? samples.s_b : ms < 30 ? samples.s_a
                       : ms < 50 ? PK_NONE : samples.s_main;
        if (stack != PK_NONE)
            add(&samples, stack, 1000000000 + ms * 1000000, 0, 1);
    }
    timed_profile spans = make("time", "nanoseconds");
    add(&spans, spans.s_a, 0, 5000000, 5000000);
    add(&spans, spans.s_b, 5000000, 3000000, 3000000);
    add(&spans, spans.s_a, 10000000, 2000000, 2000000);
    bool ok = write_file(samples.p, "firefox", dir, "timed-samples.json") &&
              write_file(samples.p, "speedscope", dir, "timed-samples.speedscope.json") &&
              write_file(spans.p, "firefox", dir, "timed-spans.json") &&
              write_file(spans.p, "speedscope", dir, "timed-spans.speedscope.json");
    pk_profile_free(samples.p);
    pk_profile_free(spans.p);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-fixtures") == 0)
        return write_fixtures(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_firefox_instants_in_time_order),
        cmocka_unit_test(test_firefox_spans),
        cmocka_unit_test(test_firefox_placed_beside_timed),
        cmocka_unit_test(test_firefox_counts_not_hours),
        cmocka_unit_test(test_speedscope_instants_in_time_order),
        cmocka_unit_test(test_speedscope_spans),
        cmocka_unit_test(test_speedscope_spans_weighing_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
