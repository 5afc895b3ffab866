/* SPDX-License-Identifier: MIT */
/* pk_profile_copy (profkit/merge.h): a faithful copy into a fresh profile, value maps, threads
 * matched by name, the address tag of memory events, and the frame hook that stands in for a
 * source frame with a chain of destination frames; pk_profile_merge on top of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/profile_internal.h"
#include "core/title.h"
#include "profkit/label_select.h"
#include "profkit/merge.h"
#include "profkit/profile.h"
#include "report_fixture.h"
#include "memory_events.h"

/* The names of a stack's frames joined by ';', with "+" after inlined frames. */
static void stack_text(const pk_profile *p, uint32_t stack, char *buf, size_t cap)
{
    uint32_t frames[64];
    size_t depth = pk_stack_frames(p, stack, frames, 64);
    assert_true(depth <= 64);
    buf[0] = '\0';
    for (size_t i = 0; i < depth; i++) {
        if (i)
            strncat(buf, ";", cap - strlen(buf) - 1);
        strncat(buf, pk_frame_name(p, frames[i]), cap - strlen(buf) - 1);
        if (pk_frame_at(p, frames[i])->flags & PK_FRAME_INLINED)
            strncat(buf, "+", cap - strlen(buf) - 1);
    }
}

/* Value `value` of the row of (thread named thread, stack reading `stack`); -1 when absent. */
static int64_t row_value(const pk_profile *p, const char *thread, const char *stack,
                         uint32_t value)
{
    char buf[512];
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        const pk_thread *t = pk_thread_at(p, pk_sample_thread(p, row));
        stack_text(p, pk_sample_stack(p, row), buf, sizeof buf);
        if (strcmp(pk_str(p, t->name), thread) == 0 && strcmp(buf, stack) == 0)
            return pk_sample_values(p, row)[value];
    }
    return -1;
}

static void copy_into_a_fresh_profile_is_faithful(void **state)
{
    (void)state;
    pk_profile *src = fixture_profile();
    pk_metadata_of(src)->product = pk_intern_cstr(src, "demo");
    pk_metadata_of(src)->period = 7;
    pk_property_set(src, "device", "box");
    pk_warn(src, "a warning");
    pk_set_default_value(src, 1);
    /* A second thread named "worker" stays a thread of its own. */
    uint32_t other = pk_add_thread(src, pk_intern_cstr(src, "worker"), 1, 3);
    fixture_add(src, other, "main;bar", 3 * MS);
    /* A mapping nothing refers to is copied too. */
    pk_resource unused = {pk_intern_cstr(src, "libunused.so"), 0, 0, 0x1000, 0x2000, 0};
    pk_intern_resource(src, &unused);

    pk_profile *dst = pk_profile_new();
    pk_error err;
    assert_int_equal(pk_profile_copy(dst, src, NULL, &err), PK_OK);
    assert_int_equal(pk_value_type_count(dst), 2);
    assert_string_equal(pk_str(dst, pk_value_type_at(dst, 1)->name), "calls");
    assert_int_equal(pk_default_value(dst), 1);
    assert_string_equal(pk_str(dst, pk_metadata_get(dst)->product), "demo");
    assert_int_equal(pk_metadata_get(dst)->period, 7);
    assert_string_equal(pk_property_get(dst, "device"), "box");
    assert_int_equal(pk_warning_count(dst), 1);
    assert_int_equal(pk_thread_count(dst), 3);
    assert_int_equal(pk_thread_at(dst, 2)->tid, 3);
    assert_int_equal(pk_resource_count(dst), pk_resource_count(src));
    assert_int_equal(pk_stack_count(dst), pk_stack_count(src));
    assert_int_equal(pk_sample_count(dst), pk_sample_count(src));
    assert_int_equal(pk_value_total(dst, 0), pk_value_total(src, 0));
    assert_int_equal(row_value(dst, "main", "main;foo;bar", 0), 20 * MS);
    assert_int_equal(row_value(dst, "worker", "main;rec;rec;bar", 0), 4 * MS);
    /* Memory events replayed in order: the same blocks are freed. */
    assert_int_equal(pk_memory_event_count(dst), pk_memory_event_count(src));
    for (size_t i = 0; i < pk_memory_event_count(src); i++) {
        pk_memory_event a, b;
        tm_memory_event_at(src, i, &a);
        tm_memory_event_at(dst, i, &b);
        assert_int_equal(a.kind, b.kind);
        assert_int_equal(a.size, b.size);
        assert_int_equal(a.matched, b.matched);
        assert_int_equal(a.address, b.address);
    }
    pk_profile_free(dst);
    pk_profile_free(src);
}

static void copy_maps_values_and_matches_threads_by_name(void **state)
{
    (void)state;
    pk_profile *src = fixture_profile();
    pk_profile *dst = pk_profile_new();
    pk_add_value_type(dst, "calls", "count");
    pk_add_value_type(dst, "cpu", "nanoseconds");
    uint32_t worker = pk_add_thread(dst, pk_intern_cstr(dst, "worker"), 9, 9);
    pk_error err;
    /* By name: cpu is value 1 of dst. */
    assert_int_equal(pk_profile_copy(dst, src, NULL, &err), PK_OK);
    assert_int_equal(pk_value_total(dst, 1), 42 * MS);
    assert_int_equal(pk_value_total(dst, 0), 6);
    /* worker went to dst's own thread; main is new. */
    assert_int_equal(pk_thread_count(dst), 2);
    assert_int_equal(row_value(dst, "worker", "main;rec", 1), 2 * MS);
    assert_int_equal(pk_thread_at(dst, worker)->tid, 9);
    /* Metadata and properties of a profile that has its own are left alone. */
    assert_int_equal(pk_property_count(dst), 0);

    /* An explicit map: calls are dropped, cpu goes to value 0, addresses are tagged. */
    uint32_t map[2] = {1, PK_NONE};
    pk_copy_options options = {.value_map = map, .address_tag = (uint64_t)1 << 56};
    assert_int_equal(pk_profile_copy(dst, src, &options, &err), PK_OK);
    assert_int_equal(pk_value_total(dst, 1), 84 * MS);
    assert_int_equal(pk_value_total(dst, 0), 6);
    /* The copy's blocks are never freed by the first copy's frees. */
    pk_memory_event e;
    tm_memory_event_at(dst, pk_memory_event_count(src), &e);
    assert_int_equal(e.address, 0x10 | (uint64_t)1 << 56);
    size_t unmatched = 0;
    for (size_t i = 0; i < pk_memory_event_count(dst); i++) {
        tm_memory_event_at(dst, i, &e);
        unmatched += e.kind != PK_MEM_ALLOC && !e.matched;
    }
    assert_int_equal(unmatched, 2);

    /* A map to a value dst does not have, and a value in two units, are refused. */
    uint32_t bad_map[2] = {5, PK_NONE};
    options.value_map = bad_map;
    assert_int_equal(pk_profile_copy(dst, src, &options, &err), PK_ERR_USAGE);
    pk_profile *micro = pk_profile_new();
    pk_add_value_type(micro, "cpu", "microseconds");
    assert_int_equal(pk_profile_copy(dst, micro, NULL, &err), PK_ERR_USAGE);
    assert_non_null(strstr(err.message, "'cpu'"));
    pk_profile_free(micro);
    pk_profile_free(dst);
    pk_profile_free(src);
}

/* A hook as symbolization uses it: "bar" becomes "lib_bar" with "helper" inlined into it. */
typedef struct expand_bar {
    uint32_t frames[2];
    size_t calls;
} expand_bar;

static size_t expand_bar_frame(void *context, const pk_profile *src, uint32_t frame,
                               pk_profile *dst, const uint32_t **frames)
{
    expand_bar *x = context;
    x->calls++;
    if (strcmp(pk_frame_name(src, frame), "bar") != 0)
        return 0;
    const char *names[2] = {"lib_bar", "helper"};
    for (int i = 0; i < 2; i++) {
        pk_function fn = {.name = pk_intern_cstr(dst, names[i]), .resource = PK_NONE};
        pk_frame fr = {pk_intern_function(dst, &fn), 0, 0x400000, PK_NONE,
                       PK_FRAME_HAS_ADDRESS | (i ? PK_FRAME_INLINED : 0)};
        x->frames[i] = pk_intern_frame(dst, &fr);
    }
    *frames = x->frames;
    return 2;
}

static size_t failing_frame(void *context, const pk_profile *src, uint32_t frame,
                            pk_profile *dst, const uint32_t **frames)
{
    (void)context;
    (void)src;
    (void)frame;
    (void)dst;
    (void)frames;
    return SIZE_MAX;
}

static void copy_hook_replaces_frames_by_chains(void **state)
{
    (void)state;
    pk_profile *src = fixture_profile();
    pk_profile *dst = pk_profile_new();
    expand_bar x = {{0, 0}, 0};
    pk_copy_options options = {.map_frame = expand_bar_frame, .map_context = &x};
    pk_error err;
    assert_int_equal(pk_profile_copy(dst, src, &options, &err), PK_OK);
    /* Called once per source frame, not once per stack. */
    assert_int_equal(x.calls, pk_frame_count(src));
    assert_int_equal(row_value(dst, "main", "main;foo;lib_bar;helper+", 0), 20 * MS);
    assert_int_equal(row_value(dst, "main", "main;lib_bar;helper+", 0), 5 * MS);
    assert_int_equal(row_value(dst, "worker", "main;rec;rec;lib_bar;helper+", 0), 4 * MS);
    assert_int_equal(row_value(dst, "main", "main;foo", 0), 10 * MS);
    assert_int_equal(pk_value_total(dst, 0), 42 * MS);
    /* Memory events follow their stacks into the chains. */
    pk_memory_event e;
    tm_memory_event_at(dst, 1, &e);
    char buf[256];
    stack_text(dst, e.stack, buf, sizeof buf);
    assert_string_equal(buf, "main;foo;lib_bar;helper+");
    pk_profile_free(dst);

    /* A hook out of memory fails the copy. */
    dst = pk_profile_new();
    options.map_frame = failing_frame;
    assert_int_equal(pk_profile_copy(dst, src, &options, &err), PK_ERR_NOMEM);
    pk_profile_free(dst);
    pk_profile_free(src);
}

/* A hook under which two source frames become one: "foo" and "bar" are both "same". */
static size_t foo_and_bar_are_same(void *context, const pk_profile *src, uint32_t frame,
                                   pk_profile *dst, const uint32_t **frames)
{
    uint32_t *same = context;
    const char *name = pk_frame_name(src, frame);
    if (strcmp(name, "foo") != 0 && strcmp(name, "bar") != 0)
        return 0;
    pk_function fn = {.name = pk_intern_cstr(dst, "same"), .resource = PK_NONE};
    pk_frame fr = {pk_intern_function(dst, &fn), 0, 0, PK_NONE, 0};
    *same = pk_intern_frame(dst, &fr);
    *frames = same;
    return 1;
}

/* Distinct source stacks are copied without lookups only while they stay distinct: once two
 * source frames turn out to be one, the stacks and rows that meet are one stack and one row
 * (here "main;foo" is copied before "bar" says so). */
static void copy_hook_that_merges_frames_merges_stacks(void **state)
{
    (void)state;
    pk_profile *src = fixture_profile();
    pk_profile *dst = pk_profile_new();
    uint32_t same = PK_NONE;
    pk_copy_options options = {.map_frame = foo_and_bar_are_same, .map_context = &same};
    pk_error err;
    assert_int_equal(pk_profile_copy(dst, src, &options, &err), PK_OK);
    assert_int_equal(row_value(dst, "main", "main;same", 0), 15 * MS);
    assert_int_equal(row_value(dst, "main", "main;same;same", 0), 20 * MS);
    assert_int_equal(row_value(dst, "worker", "main;rec;rec;same", 0), 4 * MS);
    assert_int_equal(pk_value_total(dst, 0), 42 * MS);
    /* Every stack once, every (thread, stack) one row. */
    char a[256], b[256];
    for (uint32_t i = 0; i < pk_stack_count(dst); i++) {
        stack_text(dst, i, a, sizeof a);
        for (uint32_t j = i + 1; j < pk_stack_count(dst); j++) {
            stack_text(dst, j, b, sizeof b);
            assert_string_not_equal(a, b);
        }
    }
    for (size_t i = 0; i < pk_sample_count(dst); i++)
        for (size_t j = i + 1; j < pk_sample_count(dst); j++)
            assert_false(pk_sample_thread(dst, i) == pk_sample_thread(dst, j) &&
                         pk_sample_stack(dst, i) == pk_sample_stack(dst, j));
    uint32_t main_same[2] = {pk_stack_leaf(dst, 0), same};
    assert_int_not_equal(pk_find_stack_frames(dst, PK_NONE, main_same, 2), PK_NONE);
    pk_profile_free(dst);
    pk_profile_free(src);
}

/* Many long distinct stacks of 200 functions ("bar" among them), the same for a given seed:
 * a pool of frames several megabytes large. */
static pk_profile *wide_profile(void)
{
    pk_profile *p = pk_profile_new();
    assert_int_not_equal(pk_add_value_type(p, "samples", "count"), PK_NONE);
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    uint32_t frames[200], stack[150];
    for (uint32_t i = 0; i < 200; i++) {
        char name[16];
        snprintf(name, sizeof name, i == 7 ? "bar" : "f%u", (unsigned)i);
        pk_function fn = {.name = pk_intern_cstr(p, name), .resource = PK_NONE};
        pk_frame fr = {pk_intern_function(p, &fn), 0, 0, PK_NONE, 0};
        frames[i] = pk_intern_frame(p, &fr);
    }
    uint64_t x = 42;
    for (int s = 0; s < 4000; s++) {
        size_t depth = 100 + (size_t)s % 50;
        for (size_t k = 0; k < depth; k++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            stack[k] = frames[(x >> 33) % 200];
        }
        int64_t value = 1 + s % 5;
        assert_int_equal(pk_add_sample(p, thread, pk_intern_stack_frames(p, PK_NONE, stack, depth),
                                       &value),
                         PK_OK);
    }
    return p;
}

/* A copy that gives the source's memory back as it goes (the symbolization pass's, before the
 * source is freed) is the same copy, over a pool of frames larger than what it releases at a
 * time. */
static void copy_releasing_the_source_gives_the_same_copy(void **state)
{
    (void)state;
    pk_profile *kept = wide_profile(), *released = wide_profile();
    pk_profile *a = pk_profile_new(), *b = pk_profile_new();
    expand_bar xa = {{0, 0}, 0}, xb = {{0, 0}, 0};
    pk_copy_options oa = {.map_frame = expand_bar_frame, .map_context = &xa};
    pk_copy_options ob = {.map_frame = expand_bar_frame, .map_context = &xb};
    pk_error err;
    assert_int_equal(pk_profile_copy(a, kept, &oa, &err), PK_OK);
    assert_int_equal(pk_profile_copy_releasing(b, released, &ob, &err), PK_OK);
    pk_profile_free(released);
    assert_int_equal(pk_stack_count(a), pk_stack_count(b));
    assert_int_equal(pk_sample_count(a), 4000);
    assert_int_equal(pk_sample_count(b), 4000);
    uint32_t fa[300], fb[300];
    for (size_t row = 0; row < pk_sample_count(a); row++) {
        assert_int_equal(pk_sample_stack(a, row), pk_sample_stack(b, row));
        assert_int_equal(pk_sample_values(a, row)[0], pk_sample_values(b, row)[0]);
        size_t na = pk_stack_frames(a, pk_sample_stack(a, row), fa, 300);
        size_t nb = pk_stack_frames(b, pk_sample_stack(b, row), fb, 300);
        assert_int_equal(na, nb);
        assert_true(na >= 100 && na < 300);
        for (size_t k = 0; k < na; k++)
            assert_string_equal(pk_frame_name(a, fa[k]), pk_frame_name(b, fb[k]));
    }
    assert_int_equal(pk_value_total(b, 0), pk_value_total(kept, 0));
    pk_profile_free(a);
    pk_profile_free(b);
    pk_profile_free(kept);
}

static bool add_build_id(void *context, const pk_profile *src, uint32_t index, pk_profile *dst,
                         pk_resource *resource)
{
    size_t *calls = context;
    (*calls)++;
    /* The strings are already the destination's. */
    assert_string_equal(pk_str(dst, resource->name), pk_str(src, pk_resource_at(src, index)->name));
    resource->build_id = pk_intern_cstr(dst, "0123abcd");
    return true;
}

static bool failing_resource(void *context, const pk_profile *src, uint32_t index,
                             pk_profile *dst, pk_resource *resource)
{
    (void)context;
    (void)src;
    (void)index;
    (void)dst;
    (void)resource;
    return false;
}

static void copy_hook_completes_resources(void **state)
{
    (void)state;
    pk_profile *src = fixture_profile();
    assert_true(pk_resource_count(src) > 0);
    pk_profile *dst = pk_profile_new();
    size_t calls = 0;
    pk_copy_options options = {.map_context = &calls, .map_resource = add_build_id};
    pk_error err;
    assert_int_equal(pk_profile_copy(dst, src, &options, &err), PK_OK);
    assert_int_equal(calls, pk_resource_count(src));
    /* Every resource is the completed one; functions and frames point at it. */
    assert_int_equal(pk_resource_count(dst), pk_resource_count(src));
    for (uint32_t r = 0; r < pk_resource_count(dst); r++)
        assert_string_equal(pk_str(dst, pk_resource_at(dst, r)->build_id), "0123abcd");
    for (uint32_t f = 0; f < pk_function_count(dst); f++) {
        uint32_t r = pk_function_at(dst, f)->resource;
        if (r != PK_NONE)
            assert_string_equal(pk_str(dst, pk_resource_at(dst, r)->build_id), "0123abcd");
    }
    assert_int_equal(pk_value_total(dst, 0), 42 * MS);
    pk_profile_free(dst);

    dst = pk_profile_new();
    options.map_resource = failing_resource;
    assert_int_equal(pk_profile_copy(dst, src, &options, &err), PK_ERR_NOMEM);
    pk_profile_free(dst);
    pk_profile_free(src);
}

static void merge_adds_threads_of_one_name_up(void **state)
{
    (void)state;
    pk_profile *a = fixture_profile(), *b = fixture_profile();
    /* a has two threads named "worker". */
    uint32_t second = pk_add_thread(a, pk_intern_cstr(a, "worker"), 1, 3);
    fixture_add(a, second, "main;rec", 1 * MS);
    pk_metadata_of(a)->product = pk_intern_cstr(a, "first");
    pk_metadata_of(b)->product = pk_intern_cstr(b, "second");
    const pk_profile *inputs[2] = {a, b};
    pk_profile *m = NULL;
    pk_error err;
    assert_int_equal(pk_profile_merge(inputs, 2, &m, &err), PK_OK);
    assert_int_equal(pk_thread_count(m), 2);
    assert_int_equal(row_value(m, "worker", "main;rec", 0), 5 * MS);
    assert_int_equal(pk_value_total(m, 0), 85 * MS);
    /* The products differ: none is kept. */
    assert_int_equal(pk_metadata_get(m)->product, 0);
    pk_profile_free(m);
    pk_profile_free(a);
    pk_profile_free(b);
}

/* Without one product, a merge is titled by its input files joined with " + ", each once, the
 * list cut with " + ..." past PK_TITLE_JOINED_MAX bytes. */
static void merge_titles_by_the_files(void **state)
{
    (void)state;
    enum { INPUTS = 40 };
    pk_profile *in[INPUTS];
    const pk_profile *inputs[INPUTS];
    char name[64];
    for (int i = 0; i < INPUTS; i++) {
        in[i] = fixture_profile();
        snprintf(name, sizeof name, "run-%02d.folded", i == 1 ? 0 : i); /* run-00 twice */
        assert_int_equal(pk_property_set(in[i], PK_SOURCE_FILE_PROPERTY, name), PK_OK);
        inputs[i] = in[i];
    }
    pk_profile *m = NULL;
    pk_error err;
    assert_int_equal(pk_profile_merge(inputs, 3, &m, &err), PK_OK);
    assert_string_equal(pk_profile_title(m), "run-00.folded + run-02.folded");
    pk_profile_free(m);
    assert_int_equal(pk_profile_merge(inputs, INPUTS, &m, &err), PK_OK);
    const char *title = pk_profile_title(m);
    assert_true(strlen(title) <= PK_TITLE_JOINED_MAX + 6);
    assert_string_equal(title + strlen(title) - 6, " + ...");
    assert_int_equal(strncmp(title, "run-00.folded + run-02.folded + run-03.folded", 45), 0);
    pk_profile_free(m);
    /* A product the inputs share is the title. */
    pk_metadata_of(in[0])->product = pk_intern_cstr(in[0], "app");
    pk_metadata_of(in[1])->product = pk_intern_cstr(in[1], "app");
    assert_int_equal(pk_profile_merge(inputs, 2, &m, &err), PK_OK);
    assert_string_equal(pk_profile_title(m), "app");
    pk_profile_free(m);
    for (int i = 0; i < INPUTS; i++)
        pk_profile_free(in[i]);
}

static int move_or_drop_rows(void *context, const pk_profile *src, size_t row, pk_profile *dst,
                             uint32_t *thread)
{
    uint32_t *moved_to = context;
    (void)dst;
    if (pk_sample_label_set(src, row) == PK_NONE)
        return 0; /* rows without labels are left out */
    *thread = *moved_to;
    return 1;
}

/* Label sets are copied with their rows, into a fresh profile and into one with rows of its
 * own; the row hook leaves rows out and moves them to another thread. */
static void copy_keeps_label_sets_and_the_row_hook_selects(void **state)
{
    (void)state;
    pk_profile *src = fixture_profile();
    uint32_t t = pk_sample_thread(src, 0), s = pk_sample_stack(src, 0);
    pk_label l[2] = {{pk_intern_cstr(src, "span"), pk_intern_cstr(src, "a"), 0, 0},
                     {pk_intern_cstr(src, "bytes"), PK_NONE, 64, pk_intern_cstr(src, "bytes")}};
    uint32_t set = pk_intern_label_set(src, l, 2);
    int64_t values[2] = {5, 1};
    assert_int_equal(pk_add_sample_labeled(src, t, s, set, values), PK_OK);
    size_t rows = pk_sample_count(src);
    for (int fresh = 1; fresh >= 0; fresh--) {
        pk_profile *dst = pk_profile_new();
        if (!fresh)
            pk_add_thread(dst, pk_intern_cstr(dst, "other"), -1, -1);
        pk_error err;
        assert_int_equal(pk_profile_copy(dst, src, NULL, &err), PK_OK);
        assert_int_equal(pk_sample_count(dst), rows);
        assert_int_equal(pk_label_set_count(dst), 1);
        size_t labelled = 0;
        for (size_t row = 0; row < rows; row++) {
            uint32_t copied = pk_sample_label_set(dst, row);
            if (copied == PK_NONE)
                continue;
            labelled++;
            const pk_label *labels;
            assert_int_equal(pk_label_set_at(dst, copied, &labels), 2);
            assert_string_equal(pk_str(dst, labels[0].key), "span");
            assert_string_equal(pk_str(dst, labels[0].str), "a");
            assert_string_equal(pk_str(dst, labels[1].key), "bytes");
            assert_int_equal(labels[1].str, PK_NONE);
            assert_int_equal(labels[1].num, 64);
            assert_string_equal(pk_str(dst, labels[1].unit), "bytes");
            assert_int_equal(pk_sample_values(dst, row)[0], 5);
        }
        assert_int_equal(labelled, 1);
        pk_profile_free(dst);
    }
    pk_profile *dst = pk_profile_new();
    uint32_t moved_to = pk_add_thread(dst, pk_intern_cstr(dst, "span a"), -1, -1);
    pk_copy_options options = {.map_row = move_or_drop_rows, .map_context = &moved_to};
    pk_error err;
    assert_int_equal(pk_profile_copy(dst, src, &options, &err), PK_OK);
    assert_int_equal(pk_sample_count(dst), 1);
    assert_int_equal(pk_sample_thread(dst, 0), moved_to);
    assert_int_not_equal(pk_sample_label_set(dst, 0), PK_NONE);
    assert_int_equal(pk_value_total(dst, 0), 5);
    pk_profile_free(dst);
    pk_profile_free(src);
}

/* pk_select_by_labels: selectors of one key are alternatives, keys must all match, numbers
 * compare as numbers (a value that is no number matches no numeric label); threads_by makes a
 * thread per value, named by it (a number with its unit), and rows without it keep theirs. */
static void select_by_labels(void **state)
{
    (void)state;
    pk_profile *src = fixture_profile();
    uint32_t t = pk_sample_thread(src, 0), s = pk_sample_stack(src, 0);
    uint32_t span = pk_intern_cstr(src, "span"), size = pk_intern_cstr(src, "size");
    uint32_t bytes = pk_intern_cstr(src, "bytes");
    pk_label a[2] = {{span, pk_intern_cstr(src, "a"), 0, 0}, {size, PK_NONE, 64, bytes}};
    pk_label b[2] = {{span, pk_intern_cstr(src, "b"), 0, 0}, {size, PK_NONE, 32, bytes}};
    int64_t five[2] = {5, 0}, seven[2] = {7, 0};
    assert_int_equal(pk_add_sample_labeled(src, t, s, pk_intern_label_set(src, a, 2), five),
                     PK_OK);
    assert_int_equal(pk_add_sample_labeled(src, t, s, pk_intern_label_set(src, b, 2), seven),
                     PK_OK);
    int64_t all = pk_value_total(src, 0);
    struct {
        const char *selectors[3];
        size_t count;
        int64_t total;
    } cases[] = {
        {{"span=a"}, 1, 5},
        {{"span=a", "span=b"}, 2, 12},
        {{"span=a", "size=32"}, 2, 0},
        {{"span=b", "size=32"}, 2, 7},
        {{"size=064"}, 1, 5},
        {{"size=64 bytes"}, 1, 0},
        {{"span=c"}, 1, 0},
        {{NULL}, 0, all},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pk_profile *out;
        pk_error err;
        assert_int_equal(pk_select_by_labels(src, cases[i].selectors, cases[i].count, NULL, &out,
                                             &err),
                         PK_OK);
        assert_int_equal(pk_value_total(out, 0), cases[i].total);
        assert_int_equal(pk_warning_count(out) > 0, cases[i].total == 0);
        pk_profile_free(out);
    }
    pk_profile *out;
    pk_error err;
    const char *bad[] = {"span"};
    assert_int_equal(pk_select_by_labels(src, bad, 1, NULL, &out, &err), PK_ERR_USAGE);
    assert_null(out);
    assert_int_equal(pk_select_by_labels(src, NULL, 0, "size", &out, &err), PK_OK);
    assert_int_equal(pk_value_total(out, 0), all);
    assert_int_equal(row_value(out, "64 bytes", "main;foo", 0), 5);
    assert_int_equal(row_value(out, "32 bytes", "main;foo", 0), 7);
    assert_int_equal(row_value(out, "main", "main;foo", 0), 10 * MS);
    pk_profile_free(out);
    pk_profile_free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copy_into_a_fresh_profile_is_faithful),
        cmocka_unit_test(copy_maps_values_and_matches_threads_by_name),
        cmocka_unit_test(copy_hook_replaces_frames_by_chains),
        cmocka_unit_test(copy_hook_that_merges_frames_merges_stacks),
        cmocka_unit_test(copy_hook_completes_resources),
        cmocka_unit_test(copy_keeps_label_sets_and_the_row_hook_selects),
        cmocka_unit_test(select_by_labels),
        cmocka_unit_test(copy_releasing_the_source_gives_the_same_copy),
        cmocka_unit_test(merge_adds_threads_of_one_name_up),
        cmocka_unit_test(merge_titles_by_the_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
