/* SPDX-License-Identifier: MIT */
/* Chrome's and Node's JSON profiles: the .cpuprofile reader, the .heapprofile reader and the
 * Chrome trace reader, on
 * fixtures made by node and chromium (tests/data/chrome/README.md) and on constructed inputs.
 * What a fixture should give is computed here from the file itself with jansson, the way
 * DevTools weighs samples: sample i lasts until sample i + 1, the last one the mean interval. */
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
#include "folded_rows.h"
#include "fn_totals.h"
#include "profkit/format.h"
#include "profkit/profile.h"
#include "profkit/timeline.h"
#include "reading.h"

static const pk_format *cpuprofile(void)
{
    return pk_format_by_name("cpuprofile");
}

static const pk_format *heapprofile(void)
{
    return pk_format_by_name("heapprofile");
}

static const pk_format *trace(void)
{
    return pk_format_by_name("chrome-trace");
}

static pk_profile *read_text(const pk_format *format, const char *text, bool salvage,
                             pk_status *status, pk_error *err)
{
    return tb_read_memory_with(text, strlen(text), format, NULL, 0, salvage, status, err);
}

static pk_profile *read_ok(const pk_format *format, const char *text)
{
    pk_status status;
    pk_error err;
    pk_profile *p = read_text(format, text, false, &status, &err);
    if (!p)
        fail_msg("%s", err.message);
    return p;
}

static uint32_t thread_of_tid(const pk_profile *p, int64_t tid);

/* A thread's timeline as text, in time order: "leaf@start" per sample at an instant,
 * "leaf@start+duration" per span, times in µs, "-" for the empty stack; a sample's value
 * `value` in ns after '=' when value is not PK_NONE. */
static char *timeline_text(const pk_profile *p, uint32_t thread, uint32_t value)
{
    static char text[8192];
    size_t n = 0;
    text[0] = 0;
    pk_timeline_cursor *c;
    assert_int_equal(pk_timeline_open(p, thread, &c), PK_OK);
    pk_timed_sample s;
    while (pk_timeline_next(c, &s)) {
        const char *leaf = "-";
        if (s.stack != PK_NONE) {
            const pk_frame *f = pk_frame_at(p, pk_stack_leaf(p, s.stack));
            leaf = pk_str(p, pk_function_at(p, f->function)->name);
        }
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%s@%lld", n ? " " : "", leaf,
                              (long long)(s.time / 1000));
        if (s.duration)
            n += (size_t)snprintf(text + n, sizeof text - n, "+%lld",
                                  (long long)(s.duration / 1000));
        if (value != PK_NONE)
            n += (size_t)snprintf(text + n, sizeof text - n, "=%lld",
                                  (long long)s.values[value]);
        assert_true(n < sizeof text);
    }
    assert_int_equal(pk_timeline_close(c), PK_OK);
    return text;
}

/* ---- what a V8 profile should give ------------------------------------------------------------- */

/* A V8 profile as the tests see it: node id -> function name, and the samples in order. */
typedef struct v8_expect {
    json_t *names;      /* object: id (text) -> name */
    int64_t *samples, *deltas;
    size_t count, delta_count, cap;
} v8_expect;

static void expect_nodes(v8_expect *x, json_t *nodes)
{
    if (!x->names)
        x->names = json_object();
    size_t i;
    json_t *node;
    json_array_foreach(nodes, i, node) {
        json_t *frame = json_object_get(node, "callFrame");
        const char *name = json_string_value(json_object_get(frame, "functionName"));
        char id[32];
        snprintf(id, sizeof id, "%lld", (long long)json_integer_value(json_object_get(node, "id")));
        json_object_set_new(x->names, id, json_string(name && *name ? name : "(anonymous)"));
    }
}

static void grow(v8_expect *x, size_t need)
{
    if (need <= x->cap)
        return;
    x->cap = need * 2;
    x->samples = realloc(x->samples, x->cap * sizeof *x->samples);
    x->deltas = realloc(x->deltas, x->cap * sizeof *x->deltas);
    assert_non_null(x->samples);
    assert_non_null(x->deltas);
}

static void expect_arrays(v8_expect *x, json_t *samples, json_t *deltas)
{
    assert_int_equal(json_array_size(samples), json_array_size(deltas));
    size_t n = json_array_size(samples);
    grow(x, x->count + n);
    for (size_t i = 0; i < n; i++) {
        x->samples[x->count + i] = json_integer_value(json_array_get(samples, i));
        x->deltas[x->count + i] = json_integer_value(json_array_get(deltas, i));
    }
    x->count += n;
}

/* Self time (ns) and sample count per function name, weighed as DevTools and speedscope do:
 * each sample until the next, the last one nothing; a time that goes back stays at the latest
 * reached until the deltas' sum passes it again. */
static void expect_totals(const v8_expect *x, tb_fn_totals *cpu, tb_fn_totals *count)
{
    int64_t raw = 0, latest = 0;
    for (size_t i = 0; i < x->count; i++) {
        raw = i ? raw + x->deltas[i] : x->deltas[i];
        int64_t t = i && raw < latest ? latest : raw;
        int64_t weight = 0;
        if (i + 1 < x->count) {
            int64_t next = raw + x->deltas[i + 1];
            weight = next > t ? next - t : 0;
        }
        latest = t;
        char id[32];
        snprintf(id, sizeof id, "%lld", (long long)x->samples[i]);
        const char *name = json_string_value(json_object_get(x->names, id));
        assert_non_null(name);
        tb_fn_totals_get(cpu, name)->self += weight * 1000;
        tb_fn_totals_get(count, name)->self += 1;
    }
}

static void expect_free(v8_expect *x)
{
    json_decref(x->names);
    free(x->samples);
    free(x->deltas);
}

/* The self values of p's value `value` equal the expected ones, function by function. */
static void assert_self_totals(const pk_profile *p, uint32_t value, const tb_fn_totals *expected)
{
    tb_fn_totals got = {0};
    tb_fn_totals_add_profile(&got, p, value);
    for (size_t i = 0; i < expected->count; i++) {
        const tb_fn_total *e = &expected->items[i];
        const tb_fn_total *g = tb_fn_totals_find(&got, e->name);
        if (e->self == 0 && !g)
            continue;
        if (!g)
            fail_msg("function %s missing", e->name);
        if (g->self != e->self)
            fail_msg("function %s: self %lld, expected %lld", e->name, (long long)g->self,
                     (long long)e->self);
    }
    for (size_t i = 0; i < got.count; i++)
        if (got.items[i].self && !tb_fn_totals_find(expected, got.items[i].name))
            fail_msg("function %s not expected", got.items[i].name);
    tb_fn_totals_free(&got);
}

static json_t *load_fixture(const char *relative)
{
    json_error_t error;
    json_t *doc = json_load_file(tb_data_path(relative), 0, &error);
    if (!doc)
        fail_msg("%s: %s", relative, error.text);
    return doc;
}

/* ---- .cpuprofile ------------------------------------------------------------------------------ */

static void test_node_cpu_prof_weights(void **state)
{
    (void)state;
    json_t *doc = load_fixture("chrome/node-cpu-prof.cpuprofile");
    v8_expect x = {0};
    expect_nodes(&x, json_object_get(doc, "nodes"));
    expect_arrays(&x, json_object_get(doc, "samples"), json_object_get(doc, "timeDeltas"));
    tb_fn_totals cpu = {0}, count = {0};
    expect_totals(&x, &cpu, &count);

    pk_status status;
    pk_error err;
    pk_profile *p = tb_read_file_with(tb_data_path("chrome/node-cpu-prof.cpuprofile"), NULL, NULL,
                                      0, &status, &err);
    assert_non_null(p);
    assert_string_equal(pk_str(p, pk_metadata_get(p)->source_format), "cpuprofile");
    assert_int_equal(pk_value_type_count(p), 2);
    uint32_t cpu_value = pk_value_find(p, "cpu"), samples_value = pk_value_find(p, "samples");
    assert_int_equal(pk_default_value(p), cpu_value);
    assert_int_equal(pk_value_total(p, samples_value), (int64_t)x.count);
    assert_self_totals(p, cpu_value, &cpu);
    assert_self_totals(p, samples_value, &count);
    assert_int_equal(pk_thread_count(p), 1);
    assert_int_equal(pk_warning_count(p), 0);

    /* The meta nodes are frames of their own right under the root (no "(root)" frame). */
    bool program = false;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        uint32_t stack = pk_sample_stack(p, row);
        uint32_t frames[512];
        size_t depth = pk_stack_frames(p, stack, frames, 512);
        assert_true(depth >= 1 && depth <= 512);
        assert_string_not_equal(pk_frame_name(p, frames[0]), "(root)");
        if (strcmp(pk_frame_name(p, frames[0]), "(program)") == 0) {
            assert_int_equal(depth, 1);
            program = true;
        }
    }
    assert_true(program);

    /* Files and lines: a callFrame's 0-based line is the function's 1-based start line. */
    json_t *node;
    size_t i;
    json_array_foreach(json_object_get(doc, "nodes"), i, node) {
        json_t *frame = json_object_get(node, "callFrame");
        if (strcmp(json_string_value(json_object_get(frame, "functionName")), "fib") != 0)
            continue;
        bool found = false;
        for (size_t f = 0; f < pk_function_count(p); f++) {
            const pk_function *fn = pk_function_at(p, (uint32_t)f);
            if (strcmp(pk_str(p, fn->name), "fib") == 0) {
                assert_string_equal(pk_str(p, fn->file),
                                    json_string_value(json_object_get(frame, "url")));
                assert_int_equal(fn->start_line,
                                 json_integer_value(json_object_get(frame, "lineNumber")) + 1);
                found = true;
            }
        }
        assert_true(found);
    }
    pk_profile_free(p);
    tb_fn_totals_free(&cpu);
    tb_fn_totals_free(&count);
    expect_free(&x);
    json_decref(doc);
}

/* ---- what kind of code a function is ------------------------------------------------------------ */

/* The kind of a callFrame's function, as the Firefox Profiler's importer of V8 profiles tells
 * it: V8's own entries are no code, a place in a script makes script, anything else is a
 * built-in or native function that script called. */
static uint32_t expected_kind(json_t *frame)
{
    const char *name = json_string_value(json_object_get(frame, "functionName"));
    const char *url = json_string_value(json_object_get(frame, "url"));
    json_t *script = json_object_get(frame, "scriptId");
    json_t *line = json_object_get(frame, "lineNumber");
    static const char *const not_code[] = {"(root)", "(program)", "(idle)",
                                           "(garbage collector)"};
    for (size_t i = 0; i < sizeof not_code / sizeof not_code[0]; i++)
        if (strcmp(name, not_code[i]) == 0)
            return 0;
    bool in_script = json_is_string(script) ? strcmp(json_string_value(script), "0") != 0
                                            : json_integer_value(script) != 0;
    if ((url && *url) || in_script || (line && json_integer_value(line) >= 0))
        return PK_FUNCTION_SCRIPT;
    return PK_FUNCTION_SCRIPT_RELEVANT;
}

/* Every node's function has the flags of its kind; counts[flags] counts the nodes. */
static void expect_function_kinds(const pk_profile *p, json_t *nodes, size_t counts[4])
{
    size_t i;
    json_t *node;
    json_array_foreach(nodes, i, node) {
        json_t *frame = json_object_get(node, "callFrame");
        const char *name = json_string_value(json_object_get(frame, "functionName"));
        const char *url = json_string_value(json_object_get(frame, "url"));
        json_t *line = json_object_get(frame, "lineNumber");
        json_t *column = json_object_get(frame, "columnNumber");
        if (strcmp(name, "(root)") == 0)
            continue; /* no frame */
        bool found = false;
        for (uint32_t f = 0; f < pk_function_count(p) && !found; f++) {
            const pk_function *fn = pk_function_at(p, f);
            found = strcmp(pk_str(p, fn->name), *name ? name : "(anonymous)") == 0 &&
                    strcmp(pk_str(p, fn->file), url ? url : "") == 0 &&
                    fn->start_line == (line ? (uint32_t)(json_integer_value(line) + 1) : 0) &&
                    fn->start_column == (column ? (uint32_t)(json_integer_value(column) + 1) : 0);
            if (found) {
                uint32_t want = expected_kind(frame);
                if (fn->flags != want)
                    fail_msg("%s (%s): flags %u, not %u", name, url ? url : "", fn->flags, want);
                counts[want]++;
            }
        }
        if (!found)
            fail_msg("no function for node %s (%s)", name, url ? url : "");
    }
}

/* Script functions, V8's own entries and the built-ins between them, in a .cpuprofile and in a
 * trace's CPU profile (where script ids are numbers). */
static void test_function_kinds(void **state)
{
    (void)state;
    json_t *doc = load_fixture("chrome/node-cpu-prof.cpuprofile");
    pk_profile *p = tb_read_data_ok(cpuprofile(), "chrome/node-cpu-prof.cpuprofile");
    size_t counts[4] = {0};
    expect_function_kinds(p, json_object_get(doc, "nodes"), counts);
    assert_true(counts[0] >= 2); /* (program), (garbage collector) */
    assert_true(counts[PK_FUNCTION_SCRIPT] > 10);
    assert_true(counts[PK_FUNCTION_SCRIPT_RELEVANT] >= 1); /* Node's bindings */
    pk_profile_free(p);
    json_decref(doc);

    doc = load_fixture("chrome/node-inspector-trace.json");
    p = tb_read_data_ok(trace(), "chrome/node-inspector-trace.json");
    memset(counts, 0, sizeof counts);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(doc, "traceEvents"), i, e) {
        json_t *profile = json_object_get(json_object_get(json_object_get(e, "args"), "data"),
                                          "cpuProfile");
        if (json_object_get(profile, "nodes"))
            expect_function_kinds(p, json_object_get(profile, "nodes"), counts);
    }
    assert_true(counts[0] >= 1);
    assert_true(counts[PK_FUNCTION_SCRIPT] > 10);
    assert_true(counts[PK_FUNCTION_SCRIPT_RELEVANT] >= 1);
    pk_profile_free(p);
    json_decref(doc);

    /* Unattributed code and unnamed WebAssembly are script without a place. */
    p = read_ok(cpuprofile(),
                "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
                "\"children\":[2,3]},{\"id\":2,\"callFrame\":{\"functionName\":"
                "\"(unresolved function)\",\"scriptId\":\"0\",\"url\":\"\","
                "\"lineNumber\":-1}},{\"id\":3,\"callFrame\":{\"functionName\":"
                "\"<WASM UNNAMED>\"}}],\"samples\":[2,3],\"timeDeltas\":[1,1],"
                "\"startTime\":0,\"endTime\":2}");
    size_t unplaced = 0;
    for (uint32_t f = 0; f < pk_function_count(p); f++) {
        const pk_function *fn = pk_function_at(p, f);
        if (strcmp(pk_str(p, fn->name), "(root)") != 0) {
            assert_int_equal(fn->flags, PK_FUNCTION_SCRIPT);
            unplaced++;
        }
    }
    assert_int_equal(unplaced, 2);
    pk_profile_free(p);
}

/* positionTicks: a node's self time split over frames of its lines, in proportion. */
static void test_position_ticks(void **state)
{
    (void)state;
    const char *text =
        "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\","
        "\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[2]},"
        "{\"id\":2,\"callFrame\":{\"functionName\":\"hot\",\"url\":\"file:///a.js\","
        "\"lineNumber\":4,\"columnNumber\":2},\"hitCount\":4,"
        "\"positionTicks\":[{\"line\":6,\"ticks\":3},{\"line\":9,\"ticks\":1}]}],"
        "\"startTime\":0,\"endTime\":400,\"samples\":[2,2,2,2],\"timeDeltas\":[0,100,100,100]}";
    pk_profile *p = read_ok(cpuprofile(), text);
    uint32_t cpu = pk_value_find(p, "cpu"), samples = pk_value_find(p, "samples");
    int64_t line6 = -1, line9 = -1, count6 = -1;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        const pk_frame *f = pk_frame_at(p, pk_stack_leaf(p, pk_sample_stack(p, row)));
        assert_string_equal(pk_str(p, pk_function_at(p, f->function)->name), "hot");
        assert_int_equal(pk_function_at(p, f->function)->start_line, 5);
        assert_int_equal(pk_function_at(p, f->function)->start_column, 3);
        if (f->line == 6) {
            line6 = pk_sample_values(p, row)[cpu];
            count6 = pk_sample_values(p, row)[samples];
        } else if (f->line == 9) {
            line9 = pk_sample_values(p, row)[cpu];
        }
    }
    /* Four samples 100 µs apart (the last weighing nothing): 3/4 to line 6, 1/4 to line 9. */
    assert_int_equal(line6, 225000);
    assert_int_equal(count6, 3);
    assert_int_equal(line9, 75000);
    pk_profile_free(p);
}

/* The members in any order: samples and deltas before the nodes, deltas before samples. */
static void test_any_key_order(void **state)
{
    (void)state;
    json_t *doc = load_fixture("chrome/node-cpu-prof.cpuprofile");
    static const char *const orders[][5] = {
        {"samples", "timeDeltas", "startTime", "endTime", "nodes"},
        {"timeDeltas", "endTime", "nodes", "samples", "startTime"},
    };
    pk_profile *base = tb_read_file_with(tb_data_path("chrome/node-cpu-prof.cpuprofile"),
                                         cpuprofile(), NULL, 0, &(pk_status){0}, &(pk_error){0});
    assert_non_null(base);
    tb_fn_totals expected = {0};
    tb_fn_totals_add_profile(&expected, base, pk_value_find(base, "cpu"));
    for (size_t o = 0; o < 2; o++) {
        json_t *reordered = json_object();
        for (size_t k = 0; k < 5; k++)
            json_object_set(reordered, orders[o][k], json_object_get(doc, orders[o][k]));
        char *text = json_dumps(reordered, JSON_PRESERVE_ORDER | JSON_COMPACT);
        assert_true(strncmp(text + 2, orders[o][0], strlen(orders[o][0])) == 0);
        pk_profile *p = read_ok(cpuprofile(), text);
        assert_self_totals(p, pk_value_find(p, "cpu"), &expected);
        assert_int_equal(pk_sample_count(p), pk_sample_count(base));
        pk_profile_free(p);
        free(text);
        json_decref(reordered);
    }
    tb_fn_totals_free(&expected);
    pk_profile_free(base);
    json_decref(doc);
}

static void test_legacy_form(void **state)
{
    (void)state;
    pk_status status;
    pk_error err;
    pk_profile *p =
        tb_read_file_with(tb_data_path("chrome/legacy.cpuprofile"), NULL, NULL, 0, &status, &err);
    assert_non_null(p);
    assert_string_equal(pk_str(p, pk_metadata_get(p)->source_format), "cpuprofile");
    uint32_t cpu = pk_value_find(p, "cpu");
    tb_fn_totals got = {0};
    tb_fn_totals_add_profile(&got, p, cpu);
    /* 1000 µs of (program), 1500 + 500 of work under main, nothing for the last, (idle). */
    assert_int_equal(tb_fn_totals_find(&got, "(program)")->self, 1000000);
    assert_int_equal(tb_fn_totals_find(&got, "work")->self, 2000000);
    assert_int_equal(tb_fn_totals_find(&got, "main")->total, 2000000);
    assert_int_equal(tb_fn_totals_find(&got, "(idle)")->self, 0);
    /* Legacy lines are 1-based already. */
    for (size_t f = 0; f < pk_function_count(p); f++) {
        const pk_function *fn = pk_function_at(p, (uint32_t)f);
        if (strcmp(pk_str(p, fn->name), "work") == 0)
            assert_int_equal(fn->start_line, 10);
    }
    tb_fn_totals_free(&got);
    pk_profile_free(p);
}

/* A cut .cpuprofile is damage at the cut; salvage keeps what came before. */
static void test_cpuprofile_cut(void **state)
{
    (void)state;
    size_t size;
    char *data = tb_read_data_file("chrome/node-cpu-prof.cpuprofile", &size);
    size_t cut = size - size / 8; /* inside timeDeltas */
    pk_status status;
    pk_error err;
    pk_profile *p = tb_read_memory_with(data, cut, cpuprofile(), NULL, 0, false, &status, &err);
    assert_null(p);
    assert_int_equal(status, PK_ERR_INPUT);
    assert_true(err.salvageable);
    assert_int_equal(err.offset, (int64_t)cut);
    p = tb_read_memory_with(data, cut, cpuprofile(), NULL, 0, true, &status, &err);
    assert_non_null(p);
    assert_true(pk_value_total(p, pk_value_find(p, "samples")) > 0);
    assert_true(tb_has_warning(p, "ends early"));
    pk_profile_free(p);
    /* Not JSON: the byte offset of the error. */
    p = read_text(cpuprofile(), "{\"nodes\": [}", false, &status, &err);
    assert_null(p);
    assert_int_equal(err.offset, 12);
    free(data);
}

/* ---- .heapprofile ----------------------------------------------------------------------------- */

/* What a heap profile's tree should give: bytes by function (self, and total once per stack),
 * and the samples of nodes the tree lists. */
typedef struct heap_expect {
    tb_fn_totals space;
    json_t *ids;        /* object: the tree's node ids (text) */
    json_t *functions;  /* object: "name url line column" of each node, positions 1-based */
    int64_t total;
    const char *path[256];
} heap_expect;

static void expect_heap_node(heap_expect *x, json_t *node, size_t depth)
{
    json_t *frame = json_object_get(node, "callFrame");
    const char *name = json_string_value(json_object_get(frame, "functionName"));
    name = name && *name ? name : "(anonymous)";
    int64_t self = json_integer_value(json_object_get(node, "selfSize"));
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)json_integer_value(json_object_get(node, "id")));
    json_object_set_new(x->ids, id, json_true());
    const char *url = json_string_value(json_object_get(frame, "url"));
    char function[1024];
    snprintf(function, sizeof function, "%s %s %lld %lld", name, url ? url : "",
             (long long)json_integer_value(json_object_get(frame, "lineNumber")) + 1,
             (long long)json_integer_value(json_object_get(frame, "columnNumber")) + 1);
    json_object_set_new(x->functions, function, json_true());
    bool root = depth == 0 && strcmp(name, "(root)") == 0;
    if (!root) {
        assert_true(depth < 256);
        x->path[depth] = name;
        tb_fn_totals_get(&x->space, name)->self += self;
        for (size_t i = 1; i <= depth; i++) {
            bool seen = false;
            for (size_t j = 1; j < i; j++)
                seen |= strcmp(x->path[j], x->path[i]) == 0;
            if (!seen)
                tb_fn_totals_get(&x->space, x->path[i])->total += self;
        }
    }
    x->total += self;
    size_t i;
    json_t *child;
    json_array_foreach(json_object_get(node, "children"), i, child) {
        expect_heap_node(x, child, depth + 1);
    }
}

/* A heap profile made by node: bytes by stack, the samples counted, lines 1-based from the
 * callFrames. */
static void check_node_heap_profile(const char *relative)
{
    json_t *doc = load_fixture(relative);
    heap_expect x = {.ids = json_object(), .functions = json_object()};
    expect_heap_node(&x, json_object_get(doc, "head"), 0);
    int64_t listed = 0, unlisted = 0;
    size_t i;
    json_t *sample;
    json_array_foreach(json_object_get(doc, "samples"), i, sample) {
        char id[32];
        snprintf(id, sizeof id, "%lld",
                 (long long)json_integer_value(json_object_get(sample, "nodeId")));
        if (json_object_get(x.ids, id))
            listed++;
        else
            unlisted++;
    }
    assert_true(listed > 100);

    pk_status status;
    pk_error err;
    pk_profile *p = tb_read_file_with(tb_data_path(relative), NULL, NULL, 0, &status, &err);
    if (!p)
        fail_msg("%s", err.message);
    assert_string_equal(pk_str(p, pk_metadata_get(p)->source_format), "heapprofile");
    assert_int_equal(pk_value_type_count(p), 2);
    uint32_t space = pk_value_find(p, "space"), samples = pk_value_find(p, "samples");
    assert_int_equal(pk_default_value(p), space);
    assert_string_equal(pk_str(p, pk_value_type_at(p, space)->unit), "bytes");
    assert_int_equal(pk_value_total(p, space), x.total);
    assert_int_equal(pk_value_total(p, samples), listed);
    assert_int_equal(pk_thread_count(p), 1);
    assert_true(unlisted == 0 ? pk_warning_count(p) == 0
                              : tb_has_warning(p, "of nodes the profile does not list left out"));
    tb_fn_totals got = {0};
    tb_fn_totals_add_profile(&got, p, space);
    for (size_t f = 0; f < x.space.count; f++) {
        const tb_fn_total *e = &x.space.items[f];
        const tb_fn_total *g = tb_fn_totals_find(&got, e->name);
        if (!g)
            fail_msg("function %s missing", e->name);
        if (g->self != e->self || g->total != e->total)
            fail_msg("function %s: self %lld total %lld, expected %lld and %lld", e->name,
                     (long long)g->self, (long long)g->total, (long long)e->self,
                     (long long)e->total);
    }
    assert_int_equal(got.count, x.space.count);
    /* The script's functions, and a callFrame's 0-based line as the 1-based start line. */
    assert_true(tb_fn_totals_find(&got, "makeStrings")->total > 0);
    assert_true(tb_fn_totals_find(&got, "makeObjects")->total > 0);
    size_t positioned = 0;
    for (size_t f = 0; f < pk_function_count(p); f++) {
        const pk_function *fn = pk_function_at(p, (uint32_t)f);
        char function[1024];
        snprintf(function, sizeof function, "%s %s %u %u", pk_str(p, fn->name), pk_str(p, fn->file),
                 fn->start_line, fn->start_column);
        if (!json_object_get(x.functions, function))
            fail_msg("function %s is none of the profile's", function);
        positioned += fn->start_line > 0 && fn->start_column > 0;
    }
    assert_true(positioned > 3);
    tb_fn_totals_free(&got);
    tb_fn_totals_free(&x.space);
    json_decref(x.ids);
    json_decref(x.functions);
    pk_profile_free(p);
    json_decref(doc);
}

/* node --heap-prof, and the inspector's sampling as DevTools' Memory panel takes it. */
static void test_node_heap_profiles(void **state)
{
    (void)state;
    check_node_heap_profile("chrome/node-heap-prof.heapprofile");
    check_node_heap_profile("chrome/node-inspector-sampling.heapprofile");
}

/* Constructed: samples before the tree, a sample of an unlisted node, a negative size, columns. */
static void test_heap_profile_members(void **state)
{
    (void)state;
    const char *text =
        "{\"samples\":[{\"size\":64,\"nodeId\":3,\"ordinal\":1},{\"nodeId\":3,\"size\":32},"
        "{\"size\":8,\"nodeId\":9}],"
        "\"head\":{\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\","
        "\"lineNumber\":-1,\"columnNumber\":-1},\"selfSize\":0,\"id\":1,\"children\":["
        "{\"callFrame\":{\"functionName\":\"main\",\"url\":\"file:///a.js\",\"lineNumber\":4,"
        "\"columnNumber\":0},\"selfSize\":100,\"id\":2,\"children\":["
        "{\"id\":3,\"selfSize\":96,\"children\":[],\"callFrame\":{\"functionName\":\"\","
        "\"url\":\"file:///a.js\",\"lineNumber\":0,\"columnNumber\":17}}]},"
        "{\"callFrame\":{\"functionName\":\"odd\"},\"selfSize\":-5,\"id\":4,\"children\":[]}]}}";
    pk_profile *p = read_ok(heapprofile(), text);
    uint32_t space = pk_value_find(p, "space"), samples = pk_value_find(p, "samples");
    assert_int_equal(tb_stack_value(p, "main", space), 100);
    assert_int_equal(tb_stack_value(p, "main;(anonymous)", space), 96);
    assert_int_equal(tb_stack_value(p, "main;(anonymous)", samples), 2);
    assert_int_equal(pk_value_total(p, space), 196);
    assert_true(tb_has_warning(p, "1 sample of nodes the profile does not list left out"));
    assert_true(tb_has_warning(p, "1 node with a negative selfSize left out"));
    for (size_t f = 0; f < pk_function_count(p); f++) {
        const pk_function *fn = pk_function_at(p, (uint32_t)f);
        if (strcmp(pk_str(p, fn->name), "main") == 0) {
            assert_int_equal(fn->start_line, 5);
            assert_int_equal(fn->start_column, 1);
        } else if (strcmp(pk_str(p, fn->name), "(anonymous)") == 0) {
            assert_int_equal(fn->start_line, 1);
            assert_int_equal(fn->start_column, 18);
        }
    }
    pk_profile_free(p);
    /* Without samples (older V8): bytes alone. */
    p = read_ok(heapprofile(), "{\"head\":{\"callFrame\":{\"functionName\":\"f\"},\"selfSize\":7,"
                               "\"id\":1,\"children\":[]}}");
    assert_int_equal(pk_value_type_count(p), 1);
    assert_int_equal(tb_stack_value(p, "f", pk_value_find(p, "space")), 7);
    pk_profile_free(p);
}

/* A tree nested deeper than the parser goes (100,000 levels: 50,000 nodes, each an object and its
 * children's array): damage where it passes the limit; salvage keeps the bytes read above it, on
 * their stacks, the nodes open there being their ancestors. */
static void test_heap_profile_too_deep(void **state)
{
    (void)state;
    enum { NODES = 60000 };
    static const char node[] = "{\"callFrame\":{\"functionName\":\"f\"},\"selfSize\":%d,\"id\":%d,"
                               "\"children\":[";
    size_t cap = NODES * (sizeof node + 16) + 64, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text + len, cap - len, "{\"head\":");
    for (int i = 0; i < NODES; i++)
        len += (size_t)snprintf(text + len, cap - len, node, i == 2 ? 5 : 0, i + 1);
    pk_status status;
    pk_error err;
    pk_profile *p = tb_read_memory_with(text, len, heapprofile(), NULL, 0, false, &status, &err);
    assert_null(p);
    assert_int_equal(status, PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "nested deeper"));
    p = tb_read_memory_with(text, len, heapprofile(), NULL, 0, true, &status, &err);
    assert_non_null(p);
    assert_int_equal(tb_stack_value(p, "f;f;f", pk_value_find(p, "space")), 5);
    assert_int_equal(pk_value_total(p, pk_value_find(p, "space")), 5);
    pk_profile_free(p);
    free(text);
}

/* The node paths (function names, root first, without "(root)") of a heap profile's tree. */
static void heap_paths(json_t *node, char *path, json_t *paths)
{
    json_t *frame = json_object_get(node, "callFrame");
    const char *name = json_string_value(json_object_get(frame, "functionName"));
    name = name && *name ? name : "(anonymous)";
    size_t len = strlen(path);
    if (strcmp(name, "(root)") != 0 || len) {
        snprintf(path + len, 8192 - len, "%s%s", len ? ";" : "", name);
        json_object_set_new(paths, path, json_true());
    }
    size_t i;
    json_t *child;
    json_array_foreach(json_object_get(node, "children"), i, child) {
        heap_paths(child, path, paths);
    }
    path[len] = '\0';
}

/* A heap profile cut anywhere: damage at the cut; salvage keeps bytes only on true stacks (the
 * nodes open at the cut are the ancestors of what was read), never more than the whole. */
static void test_heapprofile_cut(void **state)
{
    (void)state;
    json_t *doc = load_fixture("chrome/node-heap-prof.heapprofile");
    json_t *paths = json_object();
    char path[8192] = "";
    heap_paths(json_object_get(doc, "head"), path, paths);
    size_t size;
    char *data = tb_read_data_file("chrome/node-heap-prof.heapprofile", &size);
    pk_profile *whole = tb_read_data_ok(heapprofile(), "chrome/node-heap-prof.heapprofile");
    int64_t total = pk_value_total(whole, pk_value_find(whole, "space"));
    pk_status status;
    pk_error err;
    pk_profile *p = tb_read_memory_with(data, size / 2, heapprofile(), NULL, 0, false, &status,
                                        &err);
    assert_null(p);
    assert_int_equal(status, PK_ERR_INPUT);
    assert_true(err.salvageable);
    assert_int_equal(err.offset, (int64_t)(size / 2));
    bool some = false;
    for (size_t cut = 1; cut < size; cut += 211) {
        p = tb_read_memory_with(data, cut, heapprofile(), NULL, 0, true, &status, &err);
        if (!p)
            continue; /* nothing of a profile yet */
        uint32_t space = pk_value_find(p, "space");
        assert_true(pk_value_total(p, space) <= total);
        some |= pk_value_total(p, space) > 0;
        for (size_t row = 0; row < pk_sample_count(p); row++) {
            char *names = tb_stack_names(p, pk_sample_stack(p, row));
            if (!json_object_get(paths, names))
                fail_msg("cut at %zu: %s is not a stack of the profile", cut, names);
            free(names);
        }
        pk_profile_free(p);
    }
    assert_true(some);
    pk_profile_free(whole);
    free(data);
    json_decref(paths);
    json_decref(doc);
}

/* ---- traces ----------------------------------------------------------------------------------- */

/* Every V8 profile of a trace document, by (pid, id), in chunk order. */
static void expect_trace_profiles(json_t *events, json_int_t pid, v8_expect *x)
{
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        const char *name = json_string_value(json_object_get(e, "name"));
        if (!name || strcmp(name, "ProfileChunk") != 0 ||
            json_integer_value(json_object_get(e, "pid")) != pid)
            continue;
        json_t *data = json_object_get(json_object_get(e, "args"), "data");
        json_t *profile = json_object_get(data, "cpuProfile");
        expect_nodes(x, json_object_get(profile, "nodes"));
        json_t *samples = json_object_get(profile, "samples");
        if (samples)
            expect_arrays(x, samples, json_object_get(data, "timeDeltas"));
    }
}

static void test_node_inspector_trace(void **state)
{
    (void)state;
    json_t *doc = load_fixture("chrome/node-inspector-trace.json");
    json_t *events = json_object_get(doc, "traceEvents");
    json_int_t pid = json_integer_value(json_object_get(json_array_get(events, 0), "pid"));
    v8_expect x = {0};
    expect_trace_profiles(events, pid, &x);
    tb_fn_totals cpu = {0}, count = {0};
    expect_totals(&x, &cpu, &count);

    pk_status status;
    pk_error err;
    pk_profile *p = tb_read_file_with(tb_data_path("chrome/node-inspector-trace.json"), NULL,
                                      NULL, 0, &status, &err);
    assert_non_null(p);
    assert_string_equal(pk_str(p, pk_metadata_get(p)->source_format), "chrome-trace");
    assert_self_totals(p, pk_value_find(p, "cpu"), &cpu);
    assert_int_equal(pk_value_total(p, pk_value_find(p, "samples")), (int64_t)x.count);
    assert_int_equal(pk_default_value(p), pk_value_find(p, "cpu"));
    /* The samples are on the profiled thread (the Profile event's), named by its M event. */
    assert_int_equal(pk_thread_count(p), 1);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "JavaScriptMainThread");
    assert_int_equal(pk_thread_at(p, 0)->pid, pid);
    assert_true(pk_value_total(p, pk_value_find(p, "wall")) > 0);
    pk_profile_free(p);
    tb_fn_totals_free(&cpu);
    tb_fn_totals_free(&count);
    expect_free(&x);
    json_decref(doc);
}

static void test_chromium_trace(void **state)
{
    (void)state;
    pk_status status;
    pk_error err;
    pk_profile *p = tb_read_file_with(tb_data_path("chrome/chromium-startup.trace.json.gz"), NULL,
                                      NULL, 0, &status, &err);
    if (!p)
        fail_msg("%s", err.message);
    assert_string_equal(pk_str(p, pk_metadata_get(p)->source_format), "chrome-trace");
    uint32_t samples = pk_value_find(p, "samples");
    /* Two renderers ran the page: each has its main thread's samples. */
    size_t sampled = 0;
    for (uint32_t t = 0; t < pk_thread_count(p); t++) {
        int64_t n = 0;
        for (size_t row = 0; row < pk_sample_count(p); row++)
            if (pk_sample_thread(p, row) == t)
                n += pk_sample_values(p, row)[samples];
        if (n) {
            sampled++;
            assert_string_equal(pk_str(p, pk_thread_at(p, t)->name), "CrRendererMain");
        }
    }
    assert_int_equal(sampled, 2);
    /* The processes of threads with rows are named by their process_name events; the browser
     * process, which has none, is not named. */
    assert_string_equal(pk_property_get(p, "process.9052.name"), "Renderer");
    assert_non_null(strstr(pk_property_get(p, "process.8953.name"), "--type=renderer"));
    assert_null(pk_property_get(p, "process.8529.name"));
    tb_fn_totals got = {0};
    tb_fn_totals_add_profile(&got, p, pk_value_find(p, "cpu"));
    assert_non_null(tb_fn_totals_find(&got, "work"));
    assert_non_null(tb_fn_totals_find(&got, "fib"));
    tb_fn_totals_free(&got);
    pk_profile_free(p);
}

static void test_begin_end_and_names(void **state)
{
    (void)state;
    pk_profile *p = read_ok(
        trace(), "[{\"name\":\"outer\",\"ph\":\"B\",\"pid\":1,\"tid\":2,\"ts\":0},"
                 "{\"name\":\"inner\",\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":20},"
                 "{\"name\":\"outer\",\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":100},"
                 "{\"name\":\"other\",\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":5,\"dur\":1.5},"
                 "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":2,"
                 "\"args\":{\"name\":\"worker\"}},"
                 "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"app\"}},"
                 "{\"name\":\"mark\",\"ph\":\"i\",\"pid\":1,\"tid\":2,\"ts\":50}]");
    uint32_t wall = pk_value_find(p, "wall");
    assert_int_equal(pk_default_value(p), wall);
    assert_int_equal(tb_stack_value(p, "outer", wall), 80000);
    assert_int_equal(tb_stack_value(p, "outer;inner", wall), 20000);
    assert_int_equal(tb_stack_value(p, "other", wall), 1500); /* fractional µs */
    assert_int_equal(pk_thread_count(p), 2);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "worker");
    assert_string_equal(pk_str(p, pk_thread_at(p, 1)->name), "app"); /* the process's name */
    /* The process's name goes with the profile, for outputs that show processes. */
    assert_string_equal(pk_property_get(p, "process.1.name"), "app");
    assert_true(tb_has_warning(p, "1 event of other phases"));
    pk_profile_free(p);
}

/* process_labels (a renderer's tab titles) follow the process's name after a colon, as Chrome's
 * tracing UI shows them; an unnamed process is named by its labels; a thread without a name
 * takes its process's name without them. The sort indexes change nothing. */
static void test_process_labels(void **state)
{
    (void)state;
    pk_profile *p = read_ok(
        trace(), "[{\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":1,"
                 "\"args\":{\"labels\":\"Example Domain, News\"}},"
                 "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"Renderer\"}},"
                 "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":1,"
                 "\"args\":{\"sort_index\":-5}},"
                 "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":2,"
                 "\"args\":{\"sort_index\":3}},"
                 "{\"name\":\"a\",\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":3},"
                 "{\"name\":\"b\",\"ph\":\"X\",\"pid\":2,\"tid\":3,\"ts\":0,\"dur\":3},"
                 "{\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":2,"
                 "\"args\":{\"labels\":\"chrome://newtab\"}}]");
    assert_string_equal(pk_property_get(p, "process.1.name"), "Renderer: Example Domain, News");
    assert_string_equal(pk_property_get(p, "process.2.name"), "chrome://newtab");
    assert_int_equal(pk_thread_count(p), 2);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "Renderer");
    assert_string_equal(pk_str(p, pk_thread_at(p, 1)->name), "chrome://newtab");
    pk_profile_free(p);
}

/* Ids written as strings (PyTorch's Kineto traces: "tid": "stream 7"): a thread of its own,
 * named by its id unless a thread_name names it; numeric strings are the numbers. */
static void test_string_ids(void **state)
{
    (void)state;
    pk_profile *p = read_ok(
        trace(), "[{\"name\":\"mm\",\"ph\":\"X\",\"pid\":7,\"tid\":\"stream 7\",\"ts\":0,\"dur\":3},"
                 "{\"name\":\"span\",\"ph\":\"X\",\"pid\":\"Spans\",\"tid\":\"Profiler\","
                 "\"ts\":0,\"dur\":4},"
                 "{\"name\":\"op\",\"ph\":\"X\",\"pid\":\"7\",\"tid\":\"12\",\"ts\":0,\"dur\":5},"
                 "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":\"Spans\","
                 "\"args\":{\"name\":\"Python spans\"}},"
                 "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":7,\"tid\":12,"
                 "\"args\":{\"name\":\"main\"}}]");
    assert_int_equal(pk_thread_count(p), 3);
    const pk_thread *stream = pk_thread_at(p, 0), *spans = pk_thread_at(p, 1);
    const pk_thread *main_thread = pk_thread_at(p, 2);
    assert_string_equal(pk_str(p, stream->name), "stream 7");
    assert_int_equal(stream->pid, 7);
    assert_int_equal(stream->tid, -1);
    assert_string_equal(pk_str(p, spans->name), "Profiler"); /* its own id before its process's name */
    assert_int_equal(spans->pid, -1);
    assert_string_equal(pk_str(p, main_thread->name), "main");
    assert_int_equal(main_thread->pid, 7);
    assert_int_equal(main_thread->tid, 12);
    pk_profile_free(p);
}

/* X events as Chrome writes them, when they end: children before their parents. */
static void test_complete_events_out_of_order(void **state)
{
    (void)state;
    pk_profile *p = read_ok(trace(), "{\"traceEvents\":["
                                     "{\"name\":\"c\",\"ph\":\"X\",\"ts\":5,\"dur\":5},"
                                     "{\"name\":\"b\",\"ph\":\"X\",\"ts\":2,\"dur\":10},"
                                     "{\"name\":\"a\",\"ph\":\"X\",\"ts\":0,\"dur\":20},"
                                     "{\"name\":\"d\",\"ph\":\"X\",\"ts\":20,\"dur\":4}],"
                                     "\"displayTimeUnit\":\"ns\"}");
    uint32_t wall = pk_value_find(p, "wall");
    assert_int_equal(tb_stack_value(p, "a", wall), 10000);
    assert_int_equal(tb_stack_value(p, "a;b", wall), 5000);
    assert_int_equal(tb_stack_value(p, "a;b;c", wall), 5000);
    assert_int_equal(tb_stack_value(p, "d", wall), 4000);
    assert_int_equal(pk_warning_count(p), 0);
    assert_string_equal(pk_property_get(p, "trace.display_time_unit"), "ns");
    /* The stack chart's order: a's row comes first. */
    assert_string_equal(pk_frame_name(p, pk_stack_leaf(p, pk_sample_stack(p, 0))), "a");
    pk_profile_free(p);
}

static void test_unmatched_and_overlapping(void **state)
{
    (void)state;
    pk_profile *p = read_ok(trace(), "[{\"name\":\"stray\",\"ph\":\"E\",\"ts\":1},"
                                     "{\"name\":\"a\",\"ph\":\"X\",\"ts\":0,\"dur\":10},"
                                     "{\"name\":\"b\",\"ph\":\"X\",\"ts\":5,\"dur\":10},"
                                     "{\"name\":\"open\",\"ph\":\"B\",\"ts\":20},"
                                     "{\"name\":\"z\",\"ph\":\"B\",\"ts\":30},"
                                     "{\"name\":\"z\",\"ph\":\"E\",\"ts\":30},"
                                     "{\"name\":\"y\",\"ph\":\"X\",\"ts\":40,\"dur\":2}]");
    uint32_t wall = pk_value_find(p, "wall");
    assert_true(tb_has_warning(p, "1 E event matching no open B"));
    assert_true(tb_has_warning(p, "overlapping"));
    assert_true(tb_has_warning(p, "1 B event never ended"));
    /* b is cut at a's end; the open B lasts to the thread's last time, around y. */
    assert_int_equal(tb_stack_value(p, "a", wall), 5000);
    assert_int_equal(tb_stack_value(p, "a;b", wall), 5000);
    assert_int_equal(tb_stack_value(p, "open", wall), 20000);
    assert_int_equal(tb_stack_value(p, "open;y", wall), 2000);
    assert_int_equal(tb_stack_value(p, "open;z", wall), 0);
    pk_profile_free(p);
}

/* Reading a fixture cut short at `cuts` places (every byte when 0): what is whole is read with
 * a warning, or the input is refused for holding no event. */
static void assert_cuts_read(const char *fixture, size_t cuts)
{
    size_t size;
    char *data = tb_read_data_file(fixture, &size);
    while (size && data[size - 1] != '}' && data[size - 1] != ']')
        size--; /* every shorter input is cut */
    for (size_t cut = 1; cut < size; cut += cuts ? size / cuts + 1 : 1) {
        pk_status status;
        pk_error err;
        pk_profile *p = tb_read_memory_with(data, cut, trace(), NULL, 0, false, &status, &err);
        if (p)
            assert_true(tb_has_warning(p, "ends early"));
        else
            assert_non_null(strstr(err.message, "no events"));
        pk_profile_free(p);
    }
    free(data);
}

/* A trace whose writer stopped: what is whole is read, with a warning. */
static void test_cut_trace(void **state)
{
    (void)state;
    pk_profile *p = read_ok(trace(), "[{\"name\":\"a\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,"
                                     "\"dur\":5},\n{\"name\":\"b\",\"ph\":\"X\",\"pid\":1,"
                                     "\"tid\":1,\"ts\":10,\"dur");
    uint32_t wall = pk_value_find(p, "wall");
    assert_int_equal(tb_stack_value(p, "a", wall), 5000);
    assert_int_equal(tb_stack_value(p, "b", wall), 0);
    assert_true(tb_has_warning(p, "the trace ends early"));
    pk_profile_free(p);
    /* Every cut of a real trace reads, or is refused for holding no event; so does every cut
     * of the object form's sampled stacks, inside samples or stackFrames. */
    assert_cuts_read("chrome/node-inspector-trace.json", 97);
    assert_cuts_read("chrome/hermes-samples.json", 0);
}

/* Chrome's key order (args first) and a profile whose chunks come from another thread. */
static void test_profile_chunks(void **state)
{
    (void)state;
    pk_profile *p = read_ok(
        trace(),
        "[{\"args\":{\"data\":{\"startTime\":1000}},\"id\":\"0x1\",\"name\":\"Profile\","
        "\"ph\":\"P\",\"pid\":\"7\",\"tid\":1,\"ts\":1000},"
        "{\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"callFrame\":{\"functionName\":"
        "\"(root)\"},\"id\":1},{\"callFrame\":{\"functionName\":\"f\",\"url\":\"u.js\","
        "\"lineNumber\":0},\"id\":2,\"parent\":1}],\"samples\":[2,2]},\"timeDeltas\":[5,10]}},"
        "\"id\":\"0x1\",\"name\":\"ProfileChunk\",\"ph\":\"P\",\"pid\":\"7\",\"tid\":9,\"ts\":1100},"
        "{\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"callFrame\":{\"functionName\":\"g\"},"
        "\"id\":3,\"parent\":2}],\"samples\":[3]},\"timeDeltas\":[20]}},"
        "\"id\":\"0x1\",\"name\":\"ProfileChunk\",\"ph\":\"P\",\"pid\":\"7\",\"tid\":9,\"ts\":1200},"
        "{\"args\":{\"name\":\"main\"},\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":7,\"tid\":1}]");
    uint32_t cpu = pk_value_find(p, "cpu");
    assert_int_equal(pk_default_value(p), cpu);
    /* f: 10 µs then 20 µs (the chunk boundary in between); g, the last sample, nothing. */
    assert_int_equal(tb_stack_value(p, "f", cpu), 30000);
    assert_int_equal(tb_stack_value(p, "f;g", cpu), 0);
    assert_int_equal(tb_stack_value(p, "f;g", pk_value_find(p, "samples")), 1);
    /* Each sample at the profile's startTime plus the deltas so far, on the trace's clock. */
    assert_string_equal(timeline_text(p, 0, cpu), "f@1005=10000 f@1015=20000 g@1035=0");
    assert_int_equal(pk_thread_count(p), 1);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "main");
    assert_int_equal(pk_thread_at(p, 0)->pid, 7);
    assert_int_equal(pk_thread_at(p, 0)->tid, 1);
    pk_profile_free(p);
}

/* Older Chrome: one CpuProfile event with the whole profile (children lists, as a .cpuprofile),
 * on the thread it profiled. */
static void test_cpu_profile_event(void **state)
{
    (void)state;
    pk_profile *p = read_ok(
        trace(),
        "{\"traceEvents\":[{\"pid\":3,\"tid\":4,\"ts\":0,\"ph\":\"I\",\"name\":\"CpuProfile\","
        "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":"
        "\"(root)\"},\"children\":[2,3]},{\"id\":2,\"callFrame\":{\"functionName\":\"h\"}},"
        "{\"id\":3,\"callFrame\":{\"functionName\":\"(garbage collector)\"}}],"
        "\"startTime\":0,\"endTime\":100,\"samples\":[2,3,2],\"timeDeltas\":[0,40,20]}}}},"
        "{\"pid\":3,\"tid\":4,\"ph\":\"M\",\"name\":\"thread_name\","
        "\"args\":{\"name\":\"CrRendererMain\"}}]}");
    uint32_t cpu = pk_value_find(p, "cpu");
    /* h: 40 µs, then nothing as the last sample; GC 20 µs, a frame of its own. */
    assert_int_equal(tb_stack_value(p, "h", cpu), 40000);
    assert_int_equal(tb_stack_value(p, "(garbage collector)", cpu), 20000);
    assert_int_equal(pk_thread_count(p), 1);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "CrRendererMain");
    assert_int_equal(pk_thread_at(p, 0)->tid, 4);
    pk_profile_free(p);
}

/* Every sample's time in the timeline: startTime plus the deltas so far, in time order even
 * where a delta goes back (V8 writes some), each weighing the time to the next sample as
 * speedscope weighs it (a time that goes back stays at the latest reached), the last nothing. */
static void test_cpuprofile_timeline(void **state)
{
    (void)state;
    pk_profile *p = read_ok(
        cpuprofile(),
        "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},\"children\":[2,3]},"
        "{\"id\":2,\"callFrame\":{\"functionName\":\"f\"}},"
        "{\"id\":3,\"callFrame\":{\"functionName\":\"g\"}}],\"startTime\":1000,"
        "\"endTime\":1200,\"samples\":[2,3,2,3],\"timeDeltas\":[0,100,-50,100]}");
    uint32_t cpu = pk_value_find(p, "cpu");
    assert_string_equal(timeline_text(p, 0, cpu),
                        "f@1000=100000 f@1050=50000 g@1100=0 g@1150=0");
    assert_int_equal(tb_stack_value(p, "f", cpu), 150000);
    assert_int_equal(tb_stack_value(p, "g", pk_value_find(p, "samples")), 2);
    pk_timeline_info info;
    pk_timeline_info_get(p, 0, &info);
    assert_true(info.measured);
    assert_int_equal(info.count, 4);
    assert_int_equal(info.first, 1000000);
    assert_int_equal(info.last, 1150000);
    pk_profile_free(p);

    /* A sample past the end of timeDeltas weighs no time, counts one, and sits on the
     * timeline at the last sample's time, so the timeline holds every sample counted. */
    p = read_ok(cpuprofile(),
                "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
                "\"children\":[2,3]},{\"id\":2,\"callFrame\":{\"functionName\":\"f\"}},"
                "{\"id\":3,\"callFrame\":{\"functionName\":\"g\"}}],\"startTime\":1000,"
                "\"endTime\":1200,\"samples\":[2,3,3],\"timeDeltas\":[0,100]}");
    cpu = pk_value_find(p, "cpu");
    assert_string_equal(timeline_text(p, 0, cpu), "f@1000=100000 g@1100=0 g@1100=0");
    uint32_t samples = pk_value_find(p, "samples");
    assert_string_equal(timeline_text(p, 0, samples), "f@1000=1 g@1100=1 g@1100=1");
    assert_int_equal(tb_stack_value(p, "g", samples), 2);
    pk_timeline_info_get(p, 0, &info);
    assert_true(info.measured);
    assert_int_equal(info.count, 3);
    pk_profile_free(p);
}

/* The thread of (pid, tid) in p. */
static uint32_t thread_of_tid(const pk_profile *p, int64_t tid)
{
    for (uint32_t t = 0; t < pk_thread_count(p); t++)
        if (pk_thread_at(p, t)->tid == tid)
            return t;
    fail_msg("no thread %lld", (long long)tid);
    return PK_NONE;
}

/* Duration events as spans, on every thread that has them: the innermost open event from each
 * boundary to the next, gaps where nothing is open, times on the trace's clock. */
static void test_trace_spans(void **state)
{
    (void)state;
    pk_profile *p = read_ok(
        trace(),
        "[{\"name\":\"b\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1002,\"dur\":3},"
        "{\"name\":\"a\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":10},"
        "{\"name\":\"d\",\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":990,\"dur\":3},"
        "{\"name\":\"c\",\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":1020},"
        "{\"name\":\"c\",\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":1025}]");
    uint32_t wall = pk_value_find(p, "wall");
    assert_string_equal(timeline_text(p, thread_of_tid(p, 1), wall),
                        "a@1000+2=2000 b@1002+3=3000 a@1005+5=5000 c@1020+5=5000");
    assert_string_equal(timeline_text(p, thread_of_tid(p, 2), wall), "d@990+3=3000");
    pk_timeline_info info;
    pk_timeline_info_get(p, thread_of_tid(p, 1), &info);
    assert_true(info.measured);
    assert_int_equal(info.last, 1025000);
    pk_profile_free(p);
}

/* ---- columns: functions of a minified script -------------------------------------------------- */

/* Sample counts per start column of the functions of one file, all on line 1. */
#define MAX_COLUMNS 16
typedef struct by_column {
    size_t count;
    uint32_t column[MAX_COLUMNS];
    int64_t samples[MAX_COLUMNS];
} by_column;

static void by_column_add(by_column *b, uint32_t column, int64_t samples)
{
    size_t i = 0;
    while (i < b->count && b->column[i] != column)
        i++;
    if (i == b->count) {
        assert_true(b->count < MAX_COLUMNS);
        b->column[b->count++] = column;
    }
    b->samples[i] += samples;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* What p has of the functions of minified.js: their columns (each function once) and the
 * samples whose leaf is in each. */
static void columns_of_profile(const pk_profile *p, by_column *functions, by_column *leaves)
{
    for (size_t f = 0; f < pk_function_count(p); f++) {
        const pk_function *fn = pk_function_at(p, (uint32_t)f);
        if (!ends_with(pk_str(p, fn->file), "/minified.js"))
            continue;
        assert_string_equal(pk_str(p, fn->name), "(anonymous)");
        assert_int_equal(fn->start_line, 1);
        by_column_add(functions, fn->start_column, 1);
    }
    uint32_t samples = pk_value_find(p, "samples");
    assert_int_not_equal(samples, PK_NONE);
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        uint32_t leaf = pk_stack_leaf(p, pk_sample_stack(p, row));
        if (leaf == PK_NONE)
            continue;
        const pk_function *fn = pk_function_at(p, pk_frame_at(p, leaf)->function);
        if (ends_with(pk_str(p, fn->file), "/minified.js"))
            by_column_add(leaves, fn->start_column, pk_sample_values(p, row)[samples]);
    }
}

static void assert_same_columns(const by_column *got, const by_column *expected)
{
    assert_int_equal(got->count, expected->count);
    for (size_t i = 0; i < expected->count; i++) {
        size_t j = 0;
        while (j < got->count && got->column[j] != expected->column[i])
            j++;
        if (j == got->count)
            fail_msg("no function at column %u", (unsigned)expected->column[i]);
        if (got->samples[j] != expected->samples[i])
            fail_msg("column %u: %lld samples, expected %lld", (unsigned)expected->column[i],
                     (long long)got->samples[j], (long long)expected->samples[i]);
    }
}

/* A minified script (node --cpu-prof): its anonymous functions all start on line 1 and are told
 * apart by their columns, 0-based in callFrames and 1-based in the model; they stay apart
 * through speedscope and the Firefox Profiler's format, both of which carry columns. */
static void test_minified_columns(void **state)
{
    (void)state;
    json_t *doc = load_fixture("chrome/node-minified.cpuprofile");
    by_column want_functions = {0}, want_leaves = {0};
    json_t *nodes = json_object_get(doc, "nodes"), *node;
    size_t i;
    json_array_foreach(nodes, i, node) {
        json_t *frame = json_object_get(node, "callFrame");
        if (!ends_with(json_string_value(json_object_get(frame, "url")), "/minified.js"))
            continue;
        assert_int_equal(json_integer_value(json_object_get(frame, "lineNumber")), 0);
        uint32_t column = (uint32_t)json_integer_value(json_object_get(frame, "columnNumber")) + 1;
        size_t before = want_functions.count;
        by_column_add(&want_functions, column, 0);
        if (want_functions.count > before)
            want_functions.samples[want_functions.count - 1] = 1;
        json_t *sample;
        size_t k;
        json_array_foreach(json_object_get(doc, "samples"), k, sample)
            if (json_integer_value(sample) == json_integer_value(json_object_get(node, "id")))
                by_column_add(&want_leaves, column, 1);
    }
    /* The script, the function it calls and the two closures that function is given. */
    assert_int_equal(want_functions.count, 4);

    pk_profile *p = tb_read_data_ok(cpuprofile(), "chrome/node-minified.cpuprofile");
    by_column functions = {0}, leaves = {0};
    columns_of_profile(p, &functions, &leaves);
    assert_same_columns(&functions, &want_functions);
    assert_same_columns(&leaves, &want_leaves);

    static const char *const through[] = {"speedscope", "firefox"};
    for (size_t t = 0; t < sizeof through / sizeof through[0]; t++) {
        pk_write_options options = {.value = pk_value_find(p, "samples")};
        char *data = NULL;
        size_t size = 0;
        pk_error err;
        pk_error_clear(&err);
        if (pk_write_memory(p, pk_format_by_name(through[t]), &options, &data, &size, &err) !=
            PK_OK)
            fail_msg("%s: %s", through[t], err.message);
        pk_status status;
        pk_profile *back = tb_read_memory_with(data, size, pk_format_by_name(through[t]), NULL, 0,
                                               false, &status, &err);
        if (!back)
            fail_msg("%s read back: %s", through[t], err.message);
        by_column back_functions = {0}, back_leaves = {0};
        columns_of_profile(back, &back_functions, &back_leaves);
        assert_same_columns(&back_functions, &want_functions);
        assert_same_columns(&back_leaves, &want_leaves);
        pk_profile_free(back);
        free(data);
    }
    pk_profile_free(p);
    json_decref(doc);
}

/* The legacy form's columns are 1-based like its lines; 0 is unknown. */
static void test_legacy_columns(void **state)
{
    (void)state;
    const char *text =
        "{\"head\":{\"functionName\":\"(root)\",\"url\":\"\",\"lineNumber\":0,\"columnNumber\":0,"
        "\"id\":1,\"hitCount\":0,\"children\":["
        "{\"functionName\":\"\",\"url\":\"a.js\",\"lineNumber\":1,\"columnNumber\":12,\"id\":2,"
        "\"hitCount\":1,\"children\":[]},"
        "{\"functionName\":\"\",\"url\":\"a.js\",\"lineNumber\":1,\"columnNumber\":40,\"id\":3,"
        "\"hitCount\":1,\"children\":[]}]},"
        "\"startTime\":1.0,\"endTime\":1.002,\"samples\":[2,3],\"timestamps\":[1000000,1001000]}";
    pk_profile *p = read_ok(cpuprofile(), text);
    uint32_t seen = 0;
    for (size_t f = 0; f < pk_function_count(p); f++) {
        const pk_function *fn = pk_function_at(p, (uint32_t)f);
        if (strcmp(pk_str(p, fn->file), "a.js") != 0)
            continue;
        assert_int_equal(fn->start_line, 1);
        assert_true(fn->start_column == 12 || fn->start_column == 40);
        seen |= fn->start_column == 12 ? 1u : 2u;
    }
    assert_int_equal(seen, 3);
    pk_profile_free(p);
    /* The form between (a head tree of callFrames, as DevTools reads it): 0-based positions. */
    p = read_ok(cpuprofile(),
                "{\"head\":{\"callFrame\":{\"functionName\":\"(root)\"},\"id\":1,\"children\":["
                "{\"callFrame\":{\"functionName\":\"f\",\"url\":\"a.js\",\"lineNumber\":4,"
                "\"columnNumber\":2},\"id\":2,\"hitCount\":1,\"children\":[]}]},"
                "\"startTime\":0,\"endTime\":1}");
    for (size_t f = 0; f < pk_function_count(p); f++) {
        const pk_function *fn = pk_function_at(p, (uint32_t)f);
        if (strcmp(pk_str(p, fn->name), "f") == 0) {
            assert_int_equal(fn->start_line, 5);
            assert_int_equal(fn->start_column, 3);
        }
    }
    pk_profile_free(p);
}

/* The object form's sampled stacks (Hermes): samples before the stackFrames they name, numbers
 * quoted; each sample lasts until the next of its thread, the last the thread's mean interval. */
static void test_sampled_stack_frames(void **state)
{
    (void)state;
    size_t size;
    char *data = tb_read_data_file("chrome/hermes-samples.json", &size);
    pk_status status;
    pk_error err;
    pk_profile *p = tb_read_memory_with(data, size, trace(), NULL, 0, false, &status, &err);
    free(data);
    if (!p)
        fail_msg("%s", err.message);
    uint32_t cpu = pk_value_find(p, "cpu"), count = pk_value_find(p, "samples");
    assert_int_equal(pk_default_value(p), cpu);
    /* Hermes' names carry the place: the function is the name before it, in that file. */
    const char *render = "[root];render";
    const char *layout = "[root];render;layout";
    const char *measure = "[root];render;layout;measure";
    assert_int_equal(tb_stack_value(p, render, cpu), 2000000);
    assert_int_equal(tb_stack_value(p, "[root];[GC Young Gen]", cpu), 1000000);
    assert_int_equal(tb_stack_value(p, layout, cpu), 4000000);
    assert_int_equal(tb_stack_value(p, measure, cpu), 1000000);
    assert_int_equal(tb_stack_value(p, measure, count), 2); /* its weight */
    /* The other thread: 500 µs, then nothing for the last sample. */
    assert_int_equal(tb_stack_value(p, "[root]", cpu), 500000);
    assert_int_equal(tb_stack_value(p, "[root]", count), 2);
    assert_int_equal(pk_value_total(p, cpu), 8500000);
    /* Every sample at its ts in its thread's timeline, weighing the time to the next one (the
     * sample of an unlisted frame left out, as from the rows). */
    assert_string_equal(timeline_text(p, thread_of_tid(p, 21), cpu),
                        "render@500001000=2000000 [GC Young Gen]@500003000=1000000 "
                        "layout@500004000=4000000 measure@500008000=1000000");
    assert_string_equal(timeline_text(p, thread_of_tid(p, 22), count), "[root]@500002000=1 [root]@500002500=1");
    assert_true(tb_has_warning(p, "1 sample of frames stackFrames does not list"));
    /* Threads by their tid (quoted), named by thread_name, else the process. */
    assert_int_equal(pk_thread_count(p), 2);
    for (uint32_t i = 0; i < 2; i++) {
        const pk_thread *t = pk_thread_at(p, i);
        assert_int_equal(t->pid, 4100);
        assert_string_equal(pk_str(p, t->name), t->tid == 21 ? "mqt_js" : "hermes");
    }
    /* A frame's line ("line", else the one in its name); its function's start (funcLine and
     * funcColumn) and file (from the name). */
    size_t lines = 0;
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        const pk_frame *leaf = pk_frame_at(p, pk_stack_leaf(p, pk_sample_stack(p, row)));
        const pk_function *fn = pk_function_at(p, leaf->function);
        if (strcmp(pk_str(p, fn->name), "layout") == 0) {
            assert_int_equal(leaf->line, 40);
            assert_int_equal(fn->start_line, 38);
            assert_int_equal(fn->start_column, 1);
            assert_string_equal(pk_str(p, fn->file), "http://localhost:8081/index.bundle");
            lines++;
        } else if (strcmp(pk_str(p, fn->name), "measure") == 0) {
            assert_int_equal(leaf->line, 77); /* from the name alone */
            lines++;
        }
    }
    assert_int_equal(lines, 2);
    /* Frames of category "JavaScript" are script code; the root and the collector are not. */
    size_t checked = 0;
    for (uint32_t f = 0; f < pk_function_count(p); f++) {
        const pk_function *fn = pk_function_at(p, f);
        const char *name = pk_str(p, fn->name);
        bool script = fn->file != 0 && fn->file != PK_NONE;
        if (!script && strcmp(name, "[root]") != 0 && strcmp(name, "[GC Young Gen]") != 0)
            continue;
        if ((fn->flags & PK_FUNCTION_SCRIPT) != (script ? PK_FUNCTION_SCRIPT : 0u))
            fail_msg("%s: flags %u", name, (unsigned)fn->flags);
        checked++;
    }
    assert_int_equal(checked, 5); /* render, layout, measure, [root], [GC Young Gen] */
    pk_profile_free(p);
}

/* The place in a Hermes frame's name: after the first '(' whose rest is "(file:line:column)";
 * a name without such a place is the name as written. */
static void test_hermes_frame_names(void **state)
{
    (void)state;
    static const struct {
        const char *written, *name, *file;
        uint32_t line;
    } cases[] = {
        {"f(a.js:1:2)", "f", "a.js", 1},
        {"g(h)(b.js:3:4)", "g", "h)(b.js", 3},
        {"(c.js:5:6)", "(unnamed)", "c.js", 5},
        {"k(:7:8)", "k(:7:8)", NULL, 0},
        {"m(d.js:12345678901:1)", "m(d.js:12345678901:1)", NULL, 0},
        {"n(e.js:1:2", "n(e.js:1:2", NULL, 0},
        {"o(e.js:x:2)", "o(e.js:x:2)", NULL, 0},
        {"plain", "plain", NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char doc[256];
        snprintf(doc, sizeof doc,
                 "{\"traceEvents\":[],\"stackFrames\":{\"1\":{\"name\":\"%s\"}},"
                 "\"samples\":[{\"ts\":1,\"sf\":1,\"tid\":1}]}",
                 cases[i].written);
        pk_profile *p = read_ok(trace(), doc);
        assert_int_equal(pk_sample_count(p), 1);
        const pk_frame *leaf = pk_frame_at(p, pk_stack_leaf(p, pk_sample_stack(p, 0)));
        const pk_function *fn = pk_function_at(p, leaf->function);
        assert_string_equal(pk_str(p, fn->name), cases[i].name);
        if (cases[i].file)
            assert_string_equal(pk_str(p, fn->file), cases[i].file);
        else
            assert_true(fn->file == 0 || fn->file == PK_NONE);
        assert_int_equal(leaf->line, cases[i].line);
        pk_profile_free(p);
    }
}

/* stackFrames first, parents that loop, samples without sf; an X event with only tdur. */
static void test_sampled_stack_frames_damage(void **state)
{
    (void)state;
    pk_profile *p = read_ok(
        trace(), "{\"stackFrames\":{\"1\":{\"name\":\"main\"},\"2\":{\"name\":\"f\",\"parent\":\"1\"},"
                 "\"3\":{\"name\":\"a\",\"parent\":4},\"4\":{\"name\":\"b\",\"parent\":3},"
                 "\"5\":{\"parent\":1}},"
                 "\"samples\":[{\"tid\":1,\"ts\":10,\"sf\":2},{\"tid\":1,\"ts\":30,\"sf\":3},"
                 "{\"tid\":1,\"ts\":35,\"stack\":[1,2]},{\"tid\":1,\"ts\":40,\"sf\":\"5\"},"
                 "{\"tid\":1,\"ts\":20,\"sf\":\"2\"}],"
                 "\"traceEvents\":[{\"name\":\"x\",\"ph\":\"X\",\"tid\":2,\"ts\":\"3\",\"tdur\":4}]}");
    uint32_t cpu = pk_value_find(p, "cpu"), wall = pk_value_find(p, "wall");
    /* f: 20 µs, then the sample at 20 µs, earlier than 40: placed at 40, the last, nothing. */
    assert_int_equal(tb_stack_value(p, "main;f", cpu), 20000);
    assert_int_equal(tb_stack_value(p, "main;(unnamed)", cpu), 0);
    assert_true(tb_has_warning(p, "1 sample of frames stackFrames does not list (or whose parents "
                                  "loop) left out"));
    assert_true(tb_has_warning(p, "1 sample without ts or sf left out"));
    assert_true(tb_has_warning(p, "1 sample earlier than the previous one"));
    assert_int_equal(tb_stack_value(p, "x", wall), 4000);
    assert_true(tb_has_warning(p, "1 X event without dur"));
    pk_profile_free(p);
}

static void test_probing_by_content(void **state)
{
    (void)state;
    static const struct {
        const char *file, *format;
    } cases[] = {
        {"chrome/node-cpu-prof.cpuprofile", "cpuprofile"},
        {"chrome/legacy.cpuprofile", "cpuprofile"},
        {"chrome/node-heap-prof.heapprofile", "heapprofile"},
        {"chrome/node-inspector-trace.json", "chrome-trace"},
        {"chrome/node-trace-events.json", "chrome-trace"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t size;
        char *data = tb_read_data_file(cases[i].file, &size);
        int score;
        const pk_format *f = pk_format_probe((const uint8_t *)data,
                                             size < PK_PROBE_BYTES ? size : PK_PROBE_BYTES,
                                             "renamed.dat", &score);
        assert_non_null(f);
        assert_string_equal(f->name, cases[i].format);
        free(data);
    }
    const char *bare = "[{\"args\":{},\"cat\":\"x\",\"name\":\"a\",\"ph\":\"X\",\"pid\":1}]";
    int score;
    const pk_format *f = pk_format_probe((const uint8_t *)bare, strlen(bare), NULL, &score);
    assert_non_null(f);
    assert_string_equal(f->name, "chrome-trace");
    assert_string_equal(pk_format_by_extension("x.cpuprofile", false)->name, "cpuprofile");
    assert_string_equal(pk_format_by_extension("x.heapprofile", false)->name, "heapprofile");
    /* A heap profile's head is not the legacy CPU profile's. */
    const char *heap = "{\"head\":{\"callFrame\":{\"functionName\":\"(root)\"},\"selfSize\":0,";
    assert_int_equal(cpuprofile()->probe((const uint8_t *)heap, strlen(heap)), PK_PROBE_NO);
    assert_true(heapprofile()->probe((const uint8_t *)heap, strlen(heap)) > 80);
    /* A DevTools save whose metadata fills the first block. */
    const char *devtools = "{\"metadata\":{\"source\":\"DevTools\",\"startTime\":\"2024\","
                           "\"annotations\":[";
    f = pk_format_probe((const uint8_t *)devtools, strlen(devtools), NULL, &score);
    assert_non_null(f);
    assert_string_equal(f->name, "chrome-trace");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_cpu_prof_weights),
        cmocka_unit_test(test_function_kinds),
        cmocka_unit_test(test_position_ticks),
        cmocka_unit_test(test_any_key_order),
        cmocka_unit_test(test_legacy_form),
        cmocka_unit_test(test_cpuprofile_cut),
        cmocka_unit_test(test_node_heap_profiles),
        cmocka_unit_test(test_heap_profile_members),
        cmocka_unit_test(test_heap_profile_too_deep),
        cmocka_unit_test(test_heapprofile_cut),
        cmocka_unit_test(test_node_inspector_trace),
        cmocka_unit_test(test_chromium_trace),
        cmocka_unit_test(test_begin_end_and_names),
        cmocka_unit_test(test_process_labels),
        cmocka_unit_test(test_string_ids),
        cmocka_unit_test(test_complete_events_out_of_order),
        cmocka_unit_test(test_unmatched_and_overlapping),
        cmocka_unit_test(test_cut_trace),
        cmocka_unit_test(test_profile_chunks),
        cmocka_unit_test(test_cpu_profile_event),
        cmocka_unit_test(test_minified_columns),
        cmocka_unit_test(test_legacy_columns),
        cmocka_unit_test(test_sampled_stack_frames),
        cmocka_unit_test(test_hermes_frame_names),
        cmocka_unit_test(test_sampled_stack_frames_damage),
        cmocka_unit_test(test_probing_by_content),
        cmocka_unit_test(test_cpuprofile_timeline),
        cmocka_unit_test(test_trace_spans),
    };
    return cmocka_run_group_tests_name("chrome", tests, NULL, NULL);
}
