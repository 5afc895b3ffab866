/* SPDX-License-Identifier: MIT */
/* The .bsprof reader, writer and dump, on fixtures built byte by byte from the format
 * document: header fields and padding, every entry type with line data and memory operations on
 * and off, sparse IDs, undefined references, looping callers, footer, damage at every byte, and
 * round trips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bytes.h"
#include "core/input.h"
#include "core/output.h"
#include "formats/bsprof/bsprof.h"
#include "profkit/format.h"
#include "profkit/profile.h"
#include "memory_events.h"

static const pk_format *bsprof(void)
{
    const pk_format *f = pk_format_by_name("bsprof");
    assert_non_null(f);
    return f;
}

/* ---- fixture builders, one per structure of the document -------------------------------------- */

#define START_MS 1700000000000ULL
#define END_MS 1700000090500ULL

typedef struct header_spec {
    uint32_t major, minor, patch;
    bool lines, memory;
    size_t padding;
    int size_adjust; /* added to the correct header size */
} header_spec;

static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static void put_header(tb_bytes *b, const header_spec *h)
{
    tb_bytes rest = {0};
    tb_f32le(&rest, 0.5f);
    tb_f32le(&rest, 0.25f);
    tb_varint(&rest, h->lines);
    tb_varint(&rest, h->memory);
    tb_varint(&rest, START_MS);
    tb_cstrz(&rest, "My Channel");
    tb_cstrz(&rest, "");
    tb_cstrz(&rest, "2.0.1");
    tb_cstrz(&rest, "Roku");
    tb_cstrz(&rest, "4670X");
    tb_cstrz(&rest, "11.5.0.4312");
    tb_str(b, "bsprof");
    tb_zeros(b, 2);
    tb_varint(b, h->major);
    tb_varint(b, h->minor);
    tb_varint(b, h->patch);
    size_t without = b->len + rest.len + h->padding;
    size_t size = without + 1;
    while (without + varint_len(size) != size)
        size = without + varint_len(size);
    tb_varint(b, (uint64_t)((int64_t)size + h->size_adjust));
    tb_raw(b, rest.data, rest.len);
    tb_zeros(b, h->padding);
    tb_free(&rest);
}

static void e_string(tb_bytes *b, uint32_t id, const char *text)
{
    tb_varint(b, (uint64_t)id << 3 | 0);
    tb_cstrz(b, text);
}

static void e_module(tb_bytes *b, uint32_t id, uint32_t name)
{
    tb_varint(b, (uint64_t)id << 3 | 1);
    tb_varint(b, name);
}

static void e_root(tb_bytes *b, uint32_t id, uint32_t module, uint32_t file, uint32_t line,
                   uint32_t function)
{
    tb_varint(b, (uint64_t)id << 3 | 2);
    tb_varint(b, 0);
    tb_varint(b, module);
    tb_varint(b, file);
    tb_varint(b, line);
    tb_varint(b, function);
}

static void e_path(tb_bytes *b, bool lines, uint32_t id, uint32_t caller, uint32_t offset,
                   uint32_t file, uint32_t line, uint32_t function)
{
    tb_varint(b, (uint64_t)id << 3 | 2);
    tb_varint(b, caller);
    if (lines)
        tb_varint(b, offset);
    tb_varint(b, file);
    tb_varint(b, line);
    tb_varint(b, function);
}

static void e_memory(tb_bytes *b, bool lines, uint32_t path, unsigned op, uint32_t offset,
                     uint32_t address, uint32_t size)
{
    tb_varint(b, (uint64_t)path << 5 | (uint64_t)op << 3 | 3);
    if (lines)
        tb_varint(b, offset);
    tb_varint(b, address);
    if (op == 0)
        tb_varint(b, size);
}

static void e_cpu(tb_bytes *b, bool lines, uint32_t path, uint32_t offset, uint32_t cpu,
                  uint32_t wall)
{
    tb_varint(b, (uint64_t)path << 3 | 4);
    if (lines)
        tb_varint(b, offset);
    tb_varint(b, cpu);
    tb_varint(b, wall);
}

static void e_calls(tb_bytes *b, uint32_t path, uint32_t count)
{
    tb_varint(b, (uint64_t)path << 3 | 5);
    tb_varint(b, count);
}

/* ---- reading and inspecting ------------------------------------------------------------------ */

static pk_profile *read_ok(const tb_bytes *b, bool salvage)
{
    pk_read_options options = {.salvage = salvage};
    pk_profile *p = NULL;
    pk_error err = {0};
    pk_status st = pk_read_memory(b->data, b->len, bsprof(), &options, &p, &err);
    if (st != PK_OK)
        fail_msg("read failed: %s (byte %lld)", err.message, (long long)err.offset);
    assert_non_null(p);
    return p;
}

static pk_status read_fails(const tb_bytes *b, bool salvage, pk_error *err)
{
    pk_read_options options = {.salvage = salvage};
    pk_profile *p = NULL;
    pk_status st = pk_read_memory(b->data, b->len, bsprof(), &options, &p, err);
    pk_profile_free(p);
    return st;
}

static int64_t total(const pk_profile *p, const char *value)
{
    uint32_t v = pk_value_find(p, value);
    assert_int_not_equal(v, PK_NONE);
    return pk_value_total(p, v);
}

/* "fn@line;fn" from the root: the line only when the frame has one. */
static void stack_text(const pk_profile *p, uint32_t stack, char *buf, size_t size)
{
    uint32_t frames[256];
    size_t depth = pk_stack_frames(p, stack, frames, 256);
    assert_true(depth <= 256);
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < depth; i++) {
        const pk_frame *f = pk_frame_at(p, frames[i]);
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ";" : "",
                                pk_frame_name(p, frames[i]));
        if (f->line)
            len += (size_t)snprintf(buf + len, size - len, "@%u", f->line);
        assert_true(len < size);
    }
}

static uint32_t thread_named(const pk_profile *p, const char *name)
{
    for (uint32_t t = 0; t < pk_thread_count(p); t++)
        if (strcmp(pk_str(p, pk_thread_at(p, t)->name), name) == 0)
            return t;
    fail_msg("no thread %s", name);
    return PK_NONE;
}

/* Sum of a value over the rows of thread with exactly this stack text. */
static int64_t value_at(const pk_profile *p, const char *thread, const char *stack,
                        const char *value)
{
    uint32_t t = thread_named(p, thread), v = pk_value_find(p, value);
    assert_int_not_equal(v, PK_NONE);
    int64_t sum = 0;
    char text[2048];
    for (size_t row = 0; row < pk_sample_count(p); row++) {
        if (pk_sample_thread(p, row) != t)
            continue;
        stack_text(p, pk_sample_stack(p, row), text, sizeof text);
        if (strcmp(text, stack) == 0)
            sum += pk_sample_values(p, row)[v];
    }
    return sum;
}

static bool has_warning(const pk_profile *p, const char *needle)
{
    for (size_t i = 0; i < pk_warning_count(p); i++)
        if (strstr(pk_warning_at(p, i), needle))
            return true;
    return false;
}

static size_t warnings_containing(const pk_profile *p, const char *needle)
{
    size_t n = 0;
    for (size_t i = 0; i < pk_warning_count(p); i++)
        n += strstr(pk_warning_at(p, i), needle) != NULL;
    return n;
}

/* ---- the reference fixture -------------------------------------------------------------------- */

/* A channel with two modules: main (Main -> LoadFeed -> ParseJson) and a task (run). Memory:
 * an alloc freed, an alloc reallocated (free_realloc + alloc) that leaks, an alloc that leaks.
 * Entry boundaries go to bounds (when not NULL). */
static void channel(tb_bytes *b, bool lines, bool memory, size_t *bounds, size_t *nbounds)
{
    header_spec h = {1, 2, 3, lines, memory, 5, 0};
    put_header(b, &h);
    size_t n = 0;
#define MARK() (bounds ? (void)(bounds[n] = b->len) : (void)0, n++)
    MARK();
    e_string(b, 1, "main");
    MARK();
    e_string(b, 2, "pkg:/source/main.brs");
    MARK();
    e_string(b, 3, "Main");
    MARK();
    e_module(b, 1, 1);
    MARK();
    e_root(b, 10, 1, 2, 1, 3);
    MARK();
    e_string(b, 4, "LoadFeed");
    MARK();
    e_path(b, lines, 11, 10, 5, 2, 20, 4); /* called from Main line 5 */
    MARK();
    e_string(b, 5, "ParseJson");
    MARK();
    e_string(b, 6, "pkg:/source/json.brs");
    MARK();
    e_path(b, lines, 12, 11, 3, 6, 100, 5); /* called from LoadFeed line 22 */
    MARK();
    e_cpu(b, lines, 12, 2, 1000, 40); /* ParseJson line 101 */
    MARK();
    e_cpu(b, lines, 12, 2, 500, 20);
    MARK();
    e_cpu(b, lines, 12, 4, 300, 10); /* line 103 */
    MARK();
    e_cpu(b, lines, 11, 1, 70, 7);   /* LoadFeed line 20 */
    MARK();
    e_calls(b, 11, 1);
    MARK();
    e_calls(b, 12, 2);
    MARK();
    e_calls(b, 12, 3);
    if (memory) {
        MARK();
        e_memory(b, lines, 12, 0, 2, 0x1000, 64);  /* alloc */
        MARK();
        e_memory(b, lines, 12, 0, 2, 0x2000, 32);  /* alloc */
        MARK();
        e_memory(b, lines, 11, 1, 1, 0x1000, 0);   /* free */
        MARK();
        e_memory(b, lines, 12, 2, 4, 0x2000, 0);   /* free_realloc */
        MARK();
        e_memory(b, lines, 12, 0, 4, 0x3000, 48);  /* its alloc: leaks */
        MARK();
        e_memory(b, lines, 11, 0, 1, 0x4000, 16);  /* leaks */
    }
    MARK();
    e_string(b, 7, "TaskThread");
    MARK();
    e_module(b, 2, 7);
    MARK();
    e_string(b, 8, "run");
    MARK();
    e_string(b, 9, "pkg:/components/Task.brs");
    MARK();
    e_root(b, 20, 2, 9, 7, 8);
    MARK();
    e_cpu(b, lines, 20, 1, 9, 90);
    MARK();
    e_calls(b, 20, 1);
    MARK();
    tb_varint(b, 0); /* end marker */
    MARK();
    tb_varint(b, END_MS);
#undef MARK
    if (nbounds)
        *nbounds = n;
}

/* ---- header ---------------------------------------------------------------------------------- */

static void header_fields_become_metadata(void **state)
{
    (void)state;
    tb_bytes b = {0};
    channel(&b, true, true, NULL, NULL);
    pk_profile *p = read_ok(&b, false);
    const pk_metadata *m = pk_metadata_get(p);
    assert_string_equal(pk_str(p, m->source_format), "bsprof");
    assert_string_equal(pk_str(p, m->product), "My Channel");
    assert_true(m->start_time == (int64_t)START_MS * 1000000);
    assert_true(m->end_time == (int64_t)END_MS * 1000000);
    assert_true(m->times_approximate);
    static const char *const expected[][2] = {
        {"format-version", "1.2.3"},  {"target", "My Channel"},
        {"supplemental-info", ""},    {"target-version", "2.0.1"},
        {"device-vendor", "Roku"},    {"device-model", "4670X"},
        {"device-firmware", "11.5.0.4312"}, {"requested-sample-ratio", "0.5"},
        {"actual-sample-ratio", "0.25"}, {"line-data", "yes"},
        {"memory-operations", "yes"}, {"process.0.name", "My Channel"},
        {"thread id name", "module"}};
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        const char *v = pk_property_get(p, expected[i][0]);
        assert_non_null(v);
        assert_string_equal(v, expected[i][1]);
    }
    /* The channel names its process, pid 0, for outputs that show processes. */
    assert_int_equal(pk_property_count(p), 13);
    assert_int_equal(pk_warning_count(p), 0);
    /* Value types, in order, with their units; cpu is the default. */
    static const char *const values[][2] = {
        {"cpu", "operations"},  {"wall", "wall-units"},   {"calls", "count"},
        {"alloc_space", "bytes"}, {"alloc_objects", "count"}, {"inuse_space", "bytes"},
        {"inuse_objects", "count"}};
    assert_int_equal(pk_value_type_count(p), 7);
    for (uint32_t v = 0; v < 7; v++) {
        assert_string_equal(pk_str(p, pk_value_type_at(p, v)->name), values[v][0]);
        assert_string_equal(pk_str(p, pk_value_type_at(p, v)->unit), values[v][1]);
    }
    assert_int_equal(pk_default_value(p), 0);
    pk_profile_free(p);
    tb_free(&b);
}

static void header_flags_off_and_unknown_major(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header_spec h = {7, 0, 0, false, false, 0, 0};
    put_header(&b, &h);
    tb_varint(&b, 0);
    pk_profile *p = read_ok(&b, false);
    assert_string_equal(pk_property_get(p, "line-data"), "no");
    assert_string_equal(pk_property_get(p, "memory-operations"), "no");
    assert_string_equal(pk_property_get(p, "format-version"), "7.0.0");
    assert_true(has_warning(p, "unknown major version"));
    /* No footer: the end stays unknown. */
    assert_true(pk_metadata_get(p)->end_time == PK_TIME_UNKNOWN);
    pk_profile_free(p);
    tb_free(&b);
}

static void header_size_is_checked(void **state)
{
    (void)state;
    pk_error err;
    /* One byte short of the fields: an error at the header size field (byte 11). */
    tb_bytes b = {0};
    header_spec small = {1, 0, 0, true, true, 0, -1};
    put_header(&b, &small);
    tb_varint(&b, 0);
    assert_int_equal(read_fails(&b, true, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, 11);
    assert_non_null(strstr(err.message, "smaller than"));
    tb_free(&b);
    /* Beyond the end of the file. */
    header_spec big = {1, 0, 0, true, true, 0, 1000};
    put_header(&b, &big);
    tb_varint(&b, 0);
    assert_int_equal(read_fails(&b, true, &err), PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "beyond the end"));
    tb_free(&b);
    /* Padding is skipped, whatever it holds. */
    header_spec padded = {1, 0, 0, true, true, 40, 0};
    put_header(&b, &padded);
    b.data[b.len - 3] = 0x55;
    e_string(&b, 1, "x");
    tb_varint(&b, 0);
    pk_profile *p = read_ok(&b, false);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
    tb_free(&b);
}

static void empty_and_foreign_files_fail_clearly(void **state)
{
    (void)state;
    pk_error err;
    tb_bytes b = {0};
    tb_u8(&b, 0);
    b.len = 0;
    assert_int_equal(read_fails(&b, true, &err), PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "empty"));
    tb_str(&b, "bsproX\0\0");
    assert_int_equal(read_fails(&b, false, &err), PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "magic"));
    assert_int_equal(err.offset, 0);
    tb_free(&b);
    tb_str(&b, "bspr");
    assert_int_equal(read_fails(&b, false, &err), PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "truncated header"));
    /* A broken header leaves nothing to keep: salvage does not apply. */
    assert_false(err.salvageable);
    assert_int_equal(read_fails(&b, true, &err), PK_ERR_INPUT);
    assert_non_null(strstr(err.message, "truncated header"));
    tb_free(&b);
}

static void probe_needs_the_whole_magic(void **state)
{
    (void)state;
    const pk_format *f = bsprof();
    assert_int_equal(f->probe((const uint8_t *)"bsprof\0\0\1", 9), PK_PROBE_CERTAIN);
    assert_int_equal(f->probe((const uint8_t *)"bsprof\0", 7), PK_PROBE_NO);
    assert_int_equal(f->probe((const uint8_t *)"bsprofX\0", 8), PK_PROBE_NO);
    int score = 0;
    assert_ptr_equal(pk_format_probe((const uint8_t *)"bsprof\0\0\1", 9, NULL, &score), f);
    assert_int_equal(score, PK_PROBE_CERTAIN);
}

/* ---- body ------------------------------------------------------------------------------------ */

static void entries_with_line_data(void **state)
{
    (void)state;
    tb_bytes b = {0};
    channel(&b, true, true, NULL, NULL);
    pk_profile *p = read_ok(&b, false);
    assert_int_equal(pk_thread_count(p), 2);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "main");
    assert_true(pk_thread_at(p, 0)->tid == 1);
    assert_true(pk_thread_at(p, 0)->pid == 0);
    assert_string_equal(pk_str(p, pk_thread_at(p, 1)->name), "TaskThread");
    assert_true(pk_thread_at(p, 1)->tid == 2);
    /* Caller frames carry the call-site line; CPU leaves their own line. */
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed@22;ParseJson@101", "cpu"), 1500);
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed@22;ParseJson@101", "wall"), 60);
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed@22;ParseJson@103", "cpu"), 300);
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed@20", "cpu"), 70);
    /* Call counts use the line-less leaf. */
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed@22;ParseJson", "calls"), 5);
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed", "calls"), 1);
    assert_int_equal(value_at(p, "TaskThread", "run@7", "cpu"), 9);
    assert_int_equal(value_at(p, "TaskThread", "run", "calls"), 1);
    /* Memory: allocations where they happened, with their lines. */
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed@22;ParseJson@101", "alloc_space"), 96);
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed@22;ParseJson@101", "alloc_objects"), 2);
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed@22;ParseJson@103", "alloc_space"), 48);
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed@22;ParseJson@103", "inuse_space"), 48);
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed@20", "inuse_space"), 16);
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed@22;ParseJson@101", "inuse_space"), 0);
    /* inuse_objects: the allocations never freed, counted where their bytes are. */
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed@22;ParseJson@103", "inuse_objects"), 1);
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed@20", "inuse_objects"), 1);
    assert_int_equal(value_at(p, "main", "Main@5;LoadFeed@22;ParseJson@101", "inuse_objects"), 0);
    assert_int_equal(total(p, "cpu"), 1879);
    assert_int_equal(total(p, "wall"), 167);
    assert_int_equal(total(p, "calls"), 7);
    assert_int_equal(total(p, "alloc_space"), 160);
    assert_int_equal(total(p, "alloc_objects"), 4);
    assert_int_equal(total(p, "inuse_space"), 64);
    assert_int_equal(total(p, "inuse_objects"), 2);
    /* Functions: name, file, start line. */
    bool found = false;
    for (uint32_t f = 0; f < pk_function_count(p); f++) {
        const pk_function *fn = pk_function_at(p, f);
        if (strcmp(pk_str(p, fn->name), "ParseJson") == 0) {
            assert_string_equal(pk_str(p, fn->file), "pkg:/source/json.brs");
            assert_int_equal(fn->start_line, 100);
            found = true;
        }
    }
    assert_true(found);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
    tb_free(&b);
}

static void entries_without_line_data(void **state)
{
    (void)state;
    tb_bytes b = {0};
    channel(&b, false, false, NULL, NULL);
    pk_profile *p = read_ok(&b, false);
    assert_string_equal(pk_property_get(p, "line-data"), "no");
    assert_int_equal(value_at(p, "main", "Main;LoadFeed;ParseJson", "cpu"), 1800);
    assert_int_equal(value_at(p, "main", "Main;LoadFeed;ParseJson", "calls"), 5);
    assert_int_equal(value_at(p, "main", "Main;LoadFeed", "cpu"), 70);
    assert_int_equal(value_at(p, "TaskThread", "run", "wall"), 90);
    assert_int_equal(total(p, "alloc_space"), 0);
    assert_int_equal(pk_memory_event_count(p), 0);
    for (uint32_t f = 0; f < pk_frame_count(p); f++)
        assert_int_equal(pk_frame_at(p, f)->line, 0);
    pk_profile_free(p);
    tb_free(&b);
}

static void memory_operations_are_matched(void **state)
{
    (void)state;
    tb_bytes b = {0};
    channel(&b, false, true, NULL, NULL);
    pk_profile *p = read_ok(&b, false);
    assert_int_equal(pk_memory_event_count(p), 6);
    pk_memory_event ev;
    static const struct {
        uint8_t kind;
        uint64_t address, size;
        bool matched;
    } want[6] = {{PK_MEM_ALLOC, 0x1000, 64, true},       {PK_MEM_ALLOC, 0x2000, 32, true},
                 {PK_MEM_FREE, 0x1000, 64, true},        {PK_MEM_REALLOC_FREE, 0x2000, 32, true},
                 {PK_MEM_ALLOC, 0x3000, 48, false},      {PK_MEM_ALLOC, 0x4000, 16, false}};
    uint64_t last_order = 0;
    for (size_t i = 0; i < 6; i++) {
        tm_memory_event_at(p, i, &ev);
        assert_int_equal(ev.kind, want[i].kind);
        assert_int_equal(ev.address, want[i].address);
        assert_int_equal(ev.size, want[i].size);
        assert_int_equal(ev.matched, want[i].matched);
        assert_int_equal(ev.thread, thread_named(p, "main"));
        assert_true(i == 0 || ev.order > last_order);
        last_order = ev.order;
    }
    assert_int_equal(value_at(p, "main", "Main;LoadFeed;ParseJson", "inuse_space"), 48);
    assert_int_equal(value_at(p, "main", "Main;LoadFeed", "inuse_space"), 16);
    assert_int_equal(total(p, "alloc_objects"), 4);
    pk_profile_free(p);
    tb_free(&b);

    /* Memory entries with the header flag off are still read, with a warning. */
    header_spec h = {1, 0, 0, false, false, 0, 0};
    put_header(&b, &h);
    e_string(&b, 1, "m");
    e_module(&b, 1, 1);
    e_root(&b, 1, 1, 0, 1, 1);
    for (uint32_t i = 0; i < 100; i++) /* enough for the reader's fast path too */
        e_memory(&b, false, 1, 0, 0, 8 + i, 100);
    tb_varint(&b, 0);
    p = read_ok(&b, false);
    assert_int_equal(total(p, "inuse_space"), 10000);
    assert_int_equal(total(p, "inuse_objects"), 100);
    assert_true(has_warning(p, "100 memory operations"));
    assert_true(has_warning(p, "memory operations are off"));
    pk_profile_free(p);
    tb_free(&b);
}

static void sparse_ids_anywhere_in_uint32(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header_spec h = {1, 0, 0, true, true, 0, 0};
    put_header(&b, &h);
    e_string(&b, 4000000000u, "Scene");
    e_string(&b, UINT32_MAX, "onKey");
    e_string(&b, 17, "pkg:/components/Scene.brs");
    e_module(&b, 3999999999u, 4000000000u);
    e_root(&b, UINT32_MAX, 3999999999u, 17, 10, UINT32_MAX);
    e_path(&b, true, 4000000000u, UINT32_MAX, 2, 17, 50, 4000000000u);
    e_cpu(&b, true, 4000000000u, 1, 11, 1);
    e_cpu(&b, true, UINT32_MAX, 3, 22, 2);
    e_calls(&b, 4000000000u, 4);
    e_memory(&b, true, 4000000000u, 0, 1, UINT32_MAX, UINT32_MAX);
    tb_varint(&b, 0);
    pk_profile *p = read_ok(&b, false);
    assert_int_equal(pk_thread_count(p), 1);
    assert_true(pk_thread_at(p, 0)->tid == 3999999999);
    assert_int_equal(value_at(p, "Scene", "onKey@11;Scene@50", "cpu"), 11);
    assert_int_equal(value_at(p, "Scene", "onKey@12", "cpu"), 22);
    assert_int_equal(value_at(p, "Scene", "onKey@11;Scene", "calls"), 4);
    assert_true(value_at(p, "Scene", "onKey@11;Scene@50", "inuse_space") == UINT32_MAX);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
    tb_free(&b);
}

/* IDs that differ only in high bits must not pile up in one place of the reader's tables. */
static void many_sparse_ids_stay_fast(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header_spec h = {1, 0, 0, true, false, 0, 0};
    put_header(&b, &h);
    e_string(&b, 1u << 31, "m");
    e_module(&b, 1u << 30, 1u << 31);
    e_root(&b, 7, 1u << 30, 0, 1, 1u << 31);
    const uint32_t n = 4000;
    for (uint32_t i = 1; i <= n; i++)
        e_path(&b, true, i << 20, 7, i, 0, 1, 1u << 31);
    for (int round = 0; round < 5; round++)
        for (uint32_t i = 1; i <= n; i++) {
            e_cpu(&b, true, i << 20, 7, 1, 2);
            e_calls(&b, i << 20, 1);
        }
    tb_varint(&b, 0);
    pk_profile *p = read_ok(&b, false);
    assert_int_equal(total(p, "cpu"), 5 * n);
    assert_int_equal(total(p, "wall"), 10 * n);
    assert_int_equal(total(p, "calls"), 5 * n);
    assert_int_equal(value_at(p, "m", "m@4000;m@7", "cpu"), 5);
    assert_int_equal(pk_sample_count(p), 2 * n);
    pk_profile_free(p);
    tb_free(&b);
}

static void undefined_references_get_placeholders(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header_spec h = {1, 0, 0, false, false, 0, 0};
    put_header(&b, &h);
    e_string(&b, 1, "f");
    e_root(&b, 1, 4, 1, 1, 7);  /* module 4 and string 7 undefined */
    e_cpu(&b, false, 123, 0, 5, 0); /* path 123 undefined */
    e_cpu(&b, false, 123, 0, 5, 0);
    e_calls(&b, 124, 1);           /* path 124 undefined */
    e_path(&b, false, 2, 125, 0, 1, 3, 1); /* caller 125 undefined */
    e_cpu(&b, false, 2, 0, 1, 0);
    e_cpu(&b, false, 1, 0, 2, 0);
    tb_varint(&b, 0);
    pk_profile *p = read_ok(&b, false);
    assert_int_equal(value_at(p, "<unknown module 4>", "<unknown string 7>", "cpu"), 2);
    assert_int_equal(value_at(p, "<unknown module>", "<unknown path 123>", "cpu"), 10);
    assert_int_equal(value_at(p, "<unknown module>", "<unknown path 124>", "calls"), 1);
    assert_int_equal(value_at(p, "<unknown module>", "<unknown path 125>;f", "cpu"), 1);
    /* One warning per kind, with the count. */
    assert_int_equal(warnings_containing(p, "undefined path element"), 1);
    assert_true(has_warning(p, "3 undefined path element IDs referenced (first: 123)"));
    assert_true(has_warning(p, "1 undefined module ID referenced (first: 4)"));
    assert_true(has_warning(p, "1 undefined string ID referenced (first: 7)"));
    assert_int_equal(pk_warning_count(p), 3);
    pk_profile_free(p);
    tb_free(&b);

    /* A module defined after a reference renames its placeholder thread. */
    put_header(&b, &h);
    e_string(&b, 1, "f");
    e_string(&b, 2, "Late");
    e_root(&b, 1, 9, 1, 1, 1);
    e_module(&b, 9, 2);
    e_cpu(&b, false, 1, 0, 3, 0);
    tb_varint(&b, 0);
    p = read_ok(&b, false);
    assert_int_equal(pk_thread_count(p), 1);
    assert_int_equal(value_at(p, "Late", "f", "cpu"), 3);
    pk_profile_free(p);
    tb_free(&b);
}

static void looping_callers_terminate(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header_spec h = {1, 0, 0, true, false, 0, 0};
    put_header(&b, &h);
    e_string(&b, 1, "a");
    e_string(&b, 2, "b");
    e_string(&b, 3, "m");
    e_module(&b, 1, 3);
    e_path(&b, true, 5, 5, 1, 0, 1, 1);  /* its own caller, not yet defined */
    e_path(&b, true, 6, 7, 1, 0, 1, 1);  /* 7 is not defined yet */
    e_path(&b, true, 7, 6, 1, 0, 1, 2);  /* 7 called by 6 called by 7 */
    e_path(&b, true, 6, 7, 1, 0, 1, 1);  /* 6 again, now under 7 */
    for (int i = 0; i < 50; i++)
        e_path(&b, true, 5, 5, 1, 0, 1, 1); /* ever deeper, never a loop */
    e_cpu(&b, true, 5, 1, 1, 0);
    e_cpu(&b, true, 6, 1, 2, 0);
    e_cpu(&b, true, 7, 1, 4, 0);
    tb_varint(&b, 0);
    pk_profile *p = read_ok(&b, false);
    assert_int_equal(total(p, "cpu"), 7);
    assert_int_equal(value_at(p, "<unknown module>", "<unknown path 7>;a@1;b@1;a@1", "cpu"), 2);
    assert_int_equal(value_at(p, "<unknown module>", "<unknown path 7>;a@1;b@1", "cpu"), 4);
    for (size_t row = 0; row < pk_sample_count(p); row++)
        assert_true(pk_stack_depth(p, pk_sample_stack(p, row)) <= 53);
    assert_true(has_warning(p, "path element definitions reuse an earlier ID"));
    pk_profile_free(p);
    tb_free(&b);
}

static void redefinitions_use_the_latest(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header_spec h = {1, 0, 0, false, false, 0, 0};
    put_header(&b, &h);
    e_string(&b, 1, "m");
    e_module(&b, 1, 1);
    e_string(&b, 2, "old");
    e_root(&b, 3, 1, 0, 1, 2);
    e_cpu(&b, false, 3, 0, 10, 0);
    e_string(&b, 2, "new");
    e_root(&b, 3, 1, 0, 1, 2);
    e_cpu(&b, false, 3, 0, 5, 0);
    tb_varint(&b, 0);
    pk_profile *p = read_ok(&b, false);
    assert_int_equal(value_at(p, "m", "old", "cpu"), 10);
    assert_int_equal(value_at(p, "m", "new", "cpu"), 5);
    assert_true(has_warning(p, "1 string definition reuse"));
    assert_true(has_warning(p, "1 path element definition reuse"));
    pk_profile_free(p);
    tb_free(&b);
}

static void footer_and_trailing_bytes(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header_spec h = {1, 0, 0, false, false, 0, 0};
    put_header(&b, &h);
    tb_varint(&b, 0);
    tb_varint(&b, END_MS);
    tb_raw(&b, "\x01\x02\x03", 3);
    pk_profile *p = read_ok(&b, false);
    assert_true(pk_metadata_get(p)->end_time == (int64_t)END_MS * 1000000);
    assert_true(has_warning(p, "3 unknown footer bytes"));
    pk_profile_free(p);
    tb_free(&b);
    /* A damaged footer is reported, not fatal. */
    put_header(&b, &h);
    tb_varint(&b, 0);
    tb_u8(&b, 0x80);
    p = read_ok(&b, false);
    assert_true(pk_metadata_get(p)->end_time == PK_TIME_UNKNOWN);
    assert_true(has_warning(p, "footer"));
    pk_profile_free(p);
    tb_free(&b);
}

/* ---- damage ---------------------------------------------------------------------------------- */

static void malformed_entries_are_errors(void **state)
{
    (void)state;
    header_spec h = {1, 0, 0, false, true, 0, 0};
    struct {
        const char *what;
        void (*build)(tb_bytes *b);
        const char *message;
    } cases[] = {
        {"type 6", NULL, "unknown entry type 6"},
        {"type 7", NULL, "unknown entry type 7"},
        {"payload", NULL, "exceeds 32 bits"},
        {"module 0", NULL, "module ID 0"},
        {"path 0", NULL, "path element ID 0"},
        {"op 3", NULL, "memory operation 3"},
        {"cpu path 0", NULL, "path element ID 0"},
        {"root module 0", NULL, "module ID 0"},
        {"long varint", NULL, "not a valid varint"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tb_bytes b = {0};
        put_header(&b, &h);
        e_string(&b, 1, "m");
        e_module(&b, 1, 1);
        e_root(&b, 1, 1, 0, 1, 1);
        e_cpu(&b, false, 1, 0, 42, 0);
        size_t at = b.len;
        switch (c) {
        case 0: tb_varint(&b, 1 << 3 | 6); break;
        case 1: tb_varint(&b, 7); break;
        case 2: tb_varint(&b, (uint64_t)1 << 35 | 4); tb_varint(&b, 1); tb_varint(&b, 1); break;
        case 3: e_module(&b, 0, 1); break;
        case 4: e_root(&b, 0, 1, 0, 1, 1); break;
        case 5: tb_varint(&b, 1 << 5 | 3 << 3 | 3); tb_varint(&b, 5); break;
        case 6: e_cpu(&b, false, 0, 0, 1, 1); break;
        case 7: e_root(&b, 2, 0, 0, 1, 1); break;
        default: tb_raw(&b, "\xfc\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11); break;
        }
        e_cpu(&b, false, 1, 0, 1000, 0);
        tb_varint(&b, 0);
        pk_error err;
        if (read_fails(&b, false, &err) != PK_ERR_INPUT)
            fail_msg("%s: not an input error", cases[c].what);
        if (!strstr(err.message, cases[c].message))
            fail_msg("%s: message '%s'", cases[c].what, err.message);
        assert_int_equal(err.offset, (int64_t)at);
        assert_true(err.salvageable);
        /* Salvage keeps every entry before the damage, with one warning that says where. */
        char warning[600];
        snprintf(warning, sizeof warning, "damaged at byte %zu: %s; kept what was read before it",
                 at, err.message);
        pk_profile *p = read_ok(&b, true);
        assert_int_equal(total(p, "cpu"), 42);
        assert_true(has_warning(p, warning));
        pk_profile_free(p);
        tb_free(&b);
    }
}

/* A string entry with ID 0 would have the tag 0, which is the end marker: what follows is the
 * footer. */
static void string_id_zero_is_the_end_marker(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header_spec h = {1, 0, 0, false, false, 0, 0};
    put_header(&b, &h);
    e_string(&b, 1, "m");
    e_module(&b, 1, 1);
    e_root(&b, 1, 1, 0, 1, 1);
    e_cpu(&b, false, 1, 0, 42, 0);
    e_string(&b, 0, "zz");
    e_cpu(&b, false, 1, 0, 1000, 0);
    pk_profile *p = read_ok(&b, false);
    assert_int_equal(total(p, "cpu"), 42);
    assert_true(pk_metadata_get(p)->end_time == PK_TIME_UNKNOWN); /* 'z' ms is no time */
    assert_true(has_warning(p, "unknown footer bytes"));
    pk_profile_free(p);
    tb_free(&b);
}

static void clean_cut_between_entries_is_a_warning(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header_spec h = {1, 0, 0, true, true, 0, 0};
    put_header(&b, &h);
    e_string(&b, 1, "m");
    e_module(&b, 1, 1);
    e_root(&b, 1, 1, 0, 1, 1);
    e_cpu(&b, true, 1, 1, 42, 0);
    e_memory(&b, true, 1, 0, 1, 0x10, 8);
    pk_profile *p = read_ok(&b, false);
    assert_int_equal(total(p, "cpu"), 42);
    assert_int_equal(total(p, "inuse_space"), 8);
    assert_true(has_warning(p, "truncated stream: no end marker"));
    pk_profile_free(p);
    tb_free(&b);
}

static void every_truncation_point(void **state)
{
    (void)state;
    for (int variant = 0; variant < 2; variant++) {
        tb_bytes full = {0};
        size_t bounds[64], nbounds;
        bool lines = variant == 0;
        channel(&full, lines, true, bounds, &nbounds);
        pk_profile *whole = read_ok(&full, false);
        int64_t whole_cpu = total(whole, "cpu");
        pk_profile_free(whole);
        size_t header_end = bounds[0];
        size_t end_marker = bounds[nbounds - 2];
        for (size_t cut = 0; cut < full.len; cut++) {
            tb_bytes b = {0};
            tb_raw(&b, full.data, cut);
            pk_error err;
            pk_read_options none = {0};
            pk_profile *p = NULL;
            pk_status st = pk_read_memory(b.data, b.len, bsprof(), &none, &p, &err);
            size_t k = 0; /* the entry the cut falls in or after */
            while (k + 1 < nbounds && bounds[k + 1] <= cut)
                k++;
            if (cut < header_end) {
                assert_int_equal(st, PK_ERR_INPUT);
                assert_true(err.offset >= 0 && err.offset <= (int64_t)cut);
                assert_null(p);
                assert_int_equal(read_fails(&b, true, &err), PK_ERR_INPUT);
            } else if (cut == bounds[k] && cut <= end_marker) {
                /* Between two entries: a clean cut. */
                assert_int_equal(st, PK_OK);
                assert_true(has_warning(p, "truncated stream: no end marker"));
                assert_true(total(p, "cpu") <= whole_cpu);
            } else if (cut > end_marker) {
                /* Inside the footer. */
                assert_int_equal(st, PK_OK);
                assert_int_equal(total(p, "cpu"), whole_cpu);
            } else {
                assert_int_equal(st, PK_ERR_INPUT);
                assert_int_equal(err.offset, (int64_t)bounds[k]);
                assert_non_null(strstr(err.message, "truncated"));
                pk_profile *s = read_ok(&b, true);
                assert_true(has_warning(s, "damaged at byte"));
                /* Salvage keeps exactly the entries before the cut one. */
                tb_bytes before = {0};
                tb_raw(&before, full.data, bounds[k]);
                pk_profile *q = read_ok(&before, false);
                assert_int_equal(total(s, "cpu"), total(q, "cpu"));
                assert_int_equal(total(s, "calls"), total(q, "calls"));
                assert_int_equal(total(s, "inuse_space"), total(q, "inuse_space"));
                assert_int_equal(pk_memory_event_count(s), pk_memory_event_count(q));
                pk_profile_free(q);
                pk_profile_free(s);
                tb_free(&before);
            }
            pk_profile_free(p);
            tb_free(&b);
        }
        tb_free(&full);
    }
}

/* ---- writer ---------------------------------------------------------------------------------- */

static char *write_bsprof(const pk_profile *p, size_t *size)
{
    char *data = NULL;
    pk_error err = {0};
    pk_write_options options = {.value = PK_NONE};
    pk_status st = pk_write_memory(p, bsprof(), &options, &data, size, &err);
    if (st != PK_OK)
        fail_msg("write failed: %s", err.message);
    return data;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every row as "thread|stack|values", sorted. */
static char **row_texts(const pk_profile *p, size_t *count)
{
    size_t n = pk_sample_count(p), nv = pk_value_type_count(p);
    char **rows = calloc(n + 1, sizeof *rows);
    assert_non_null(rows);
    size_t kept = 0;
    for (size_t r = 0; r < n; r++) {
        char stack[2048], line[4096];
        bool zero = true;
        for (size_t v = 0; v < nv; v++)
            zero = zero && pk_sample_values(p, r)[v] == 0;
        if (zero) /* carries nothing; whether such a row exists is not kept */
            continue;
        stack_text(p, pk_sample_stack(p, r), stack, sizeof stack);
        size_t len = (size_t)snprintf(line, sizeof line, "%s|%s|",
                                      pk_str(p, pk_thread_at(p, pk_sample_thread(p, r))->name),
                                      stack);
        for (size_t v = 0; v < nv; v++)
            len += (size_t)snprintf(line + len, sizeof line - len, " %lld",
                                    (long long)pk_sample_values(p, r)[v]);
        rows[kept++] = strdup(line);
    }
    qsort(rows, kept, sizeof *rows, compare_strings);
    *count = kept;
    return rows;
}

static void free_rows(char **rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(rows[i]);
    free(rows);
}

static void assert_same_profile(const pk_profile *a, const pk_profile *b)
{
    size_t na, nb;
    char **ra = row_texts(a, &na), **rb = row_texts(b, &nb);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++)
        assert_string_equal(ra[i], rb[i]);
    free_rows(ra, na);
    free_rows(rb, nb);
    for (uint32_t v = 0; v < pk_value_type_count(a); v++)
        assert_int_equal(pk_value_total(a, v), pk_value_total(b, v));
    assert_int_equal(pk_thread_count(a), pk_thread_count(b));
    for (uint32_t t = 0; t < pk_thread_count(a); t++) {
        assert_string_equal(pk_str(a, pk_thread_at(a, t)->name), pk_str(b, pk_thread_at(b, t)->name));
        assert_true(pk_thread_at(a, t)->tid == pk_thread_at(b, t)->tid);
    }
    assert_int_equal(pk_memory_event_count(a), pk_memory_event_count(b));
    for (size_t i = 0; i < pk_memory_event_count(a); i++) {
        pk_memory_event ea, eb;
        tm_memory_event_at(a, i, &ea);
        tm_memory_event_at(b, i, &eb);
        assert_int_equal(ea.kind, eb.kind);
        assert_int_equal(ea.address, eb.address);
        assert_int_equal(ea.size, eb.size);
        assert_int_equal(ea.matched, eb.matched);
    }
    for (size_t i = 0; i < pk_property_count(a); i++)
        assert_string_equal(pk_property_value(a, i),
                            pk_property_get(b, pk_property_key(a, i)) ? pk_property_get(b, pk_property_key(a, i)) : "(absent)");
    assert_true(pk_metadata_get(a)->start_time == pk_metadata_get(b)->start_time);
    assert_true(pk_metadata_get(a)->end_time == pk_metadata_get(b)->end_time);
}

static void round_trips_keep_everything(void **state)
{
    (void)state;
    for (int variant = 0; variant < 4; variant++) {
        tb_bytes b = {0};
        channel(&b, variant & 1, variant & 2, NULL, NULL);
        pk_profile *first = read_ok(&b, false);
        size_t size1, size2;
        char *out1 = write_bsprof(first, &size1);
        tb_bytes again = {0};
        tb_raw(&again, out1, size1);
        pk_profile *second = read_ok(&again, false);
        assert_int_equal(pk_warning_count(second), 0);
        /* The version written is the one documented. */
        assert_string_equal(pk_property_get(second, "format-version"), "1.0.0");
        pk_property_set(first, "format-version", "1.0.0");
        assert_same_profile(first, second);
        /* Writing what was read back gives the same bytes. */
        char *out2 = write_bsprof(second, &size2);
        assert_int_equal(size1, size2);
        assert_memory_equal(out1, out2, size1);
        free(out1);
        free(out2);
        pk_profile_free(first);
        pk_profile_free(second);
        tb_free(&b);
        tb_free(&again);
    }
}

static void writer_takes_any_profile(void **state)
{
    (void)state;
    /* A profile from elsewhere: one value ("samples"), functions without start lines, lines on
     * some frames, a sample with no stack, 64-bit addresses. */
    pk_profile *p = pk_profile_new();
    assert_non_null(p);
    uint32_t samples = pk_add_value_type(p, "samples", "count");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "worker"), 42, 77);
    pk_function fa = {.name = pk_intern_cstr(p, "alpha"), .file = pk_intern_cstr(p, "a.c"),
                      .resource = PK_NONE};
    pk_function fb = {.name = pk_intern_cstr(p, "beta;x"), .start_line = 30, .resource = PK_NONE};
    pk_frame ra = {.function = pk_intern_function(p, &fa), .line = 12, .resource = PK_NONE};
    pk_frame rb = {.function = pk_intern_function(p, &fb), .line = 31, .resource = PK_NONE};
    pk_frame rb2 = {.function = rb.function, .line = 5, .resource = PK_NONE}; /* before start */
    uint32_t sa = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &ra));
    uint32_t sb = pk_intern_stack(p, sa, pk_intern_frame(p, &rb));
    uint32_t sb2 = pk_intern_stack(p, sa, pk_intern_frame(p, &rb2));
    assert_int_equal(pk_add_sample_value(p, t, sb, samples, 7), PK_OK);
    assert_int_equal(pk_add_sample_value(p, t, sb2, samples, 1), PK_OK);
    assert_int_equal(pk_add_sample_value(p, t, PK_NONE, samples, 2), PK_OK);
    assert_int_equal(pk_add_sample_value(p, t, sa, samples, (int64_t)UINT32_MAX * 3 + 5), PK_OK);
    assert_int_equal(pk_memory_alloc(p, t, sb, 0x7fff00001000ULL, 128), PK_OK);
    assert_int_equal(pk_memory_alloc(p, t, sb, 0x7fff00002000ULL, 64), PK_OK);
    assert_int_equal(pk_memory_free(p, t, sa, 0x7fff00001000ULL, PK_MEM_FREE, NULL), PK_OK);
    size_t size;
    char *data = write_bsprof(p, &size);
    tb_bytes b = {0};
    tb_raw(&b, data, size);
    pk_profile *q = read_ok(&b, false);
    assert_int_equal(total(q, "cpu"), 10 + (int64_t)UINT32_MAX * 3 + 5);
    assert_int_equal(value_at(q, "worker", "alpha@12;beta;x@31", "cpu"), 7);
    assert_int_equal(value_at(q, "worker", "alpha@12;beta;x", "cpu"), 1); /* line lost */
    assert_int_equal(value_at(q, "worker", "<unknown>", "cpu"), 2);
    assert_int_equal(value_at(q, "worker", "alpha@12", "cpu"), (int64_t)UINT32_MAX * 3 + 5);
    assert_int_equal(total(q, "inuse_space"), 64);
    assert_int_equal(pk_memory_event_count(q), 3);
    pk_memory_event ev;
    tm_memory_event_at(q, 2, &ev);
    assert_true(ev.matched);
    assert_int_equal(ev.size, 128);
    assert_true(pk_thread_at(q, 0)->tid == 77);
    assert_string_equal(pk_property_get(q, "supplemental-info"), "");
    assert_int_equal(pk_warning_count(q), 0);
    free(data);
    pk_profile_free(q);
    tb_free(&b);

    /* Negative values cannot be written. */
    assert_int_equal(pk_add_sample_value(p, t, sa, samples, -(int64_t)UINT32_MAX * 4), PK_OK);
    pk_error err = {0};
    pk_write_options options = {.value = PK_NONE};
    data = NULL;
    assert_int_equal(pk_write_memory(p, bsprof(), &options, &data, &size, &err),
                     PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "negative"));
    free(data);
    pk_profile_free(p);
}

static void writer_uses_the_chosen_value(void **state)
{
    (void)state;
    tb_bytes b = {0};
    channel(&b, true, false, NULL, NULL);
    pk_profile *p = read_ok(&b, false);
    char *data = NULL;
    size_t size;
    pk_error err = {0};
    pk_write_options options = {.value = pk_value_find(p, "wall")};
    assert_int_equal(pk_write_memory(p, bsprof(), &options, &data, &size, &err), PK_OK);
    tb_bytes out = {0};
    tb_raw(&out, data, size);
    pk_profile *q = read_ok(&out, false);
    assert_int_equal(total(q, "cpu"), total(p, "wall"));
    assert_int_equal(total(q, "wall"), 0);
    assert_int_equal(total(q, "calls"), total(p, "calls"));
    free(data);
    pk_profile_free(p);
    pk_profile_free(q);
    tb_free(&b);
    tb_free(&out);
}

/* ---- dump ------------------------------------------------------------------------------------ */

/* Dumps as the command does: the damage line and salvage are the opened reader's. */
static char *dump(const tb_bytes *b, bool raw, bool salvage, pk_status *status)
{
    pk_reader *r;
    pk_output out;
    pk_error err = {0};
    pk_read_options options = {.salvage = salvage};
    assert_int_equal(pk_reader_open_memory(b->data, b->len, bsprof(), &r, &err), PK_OK);
    pk_output_init_memory(&out);
    *status = pk_reader_dump(r, raw, &options, &out, &err);
    pk_reader_close(r);
    pk_error commit_err;
    assert_int_equal(pk_output_commit(&out, &commit_err), PK_OK);
    size_t size;
    return pk_output_take_memory(&out, &size);
}

static void dump_prints_every_entry(void **state)
{
    (void)state;
    tb_bytes b = {0};
    channel(&b, true, true, NULL, NULL);
    pk_status st;
    char *text = dump(&b, false, false, &st);
    assert_int_equal(st, PK_OK);
    assert_non_null(strstr(text, "0: header version=1.2.3 header_size="));
    assert_non_null(strstr(text, " padding=5 requested_sample_ratio=0.5 actual_sample_ratio=0.25"
                                 " line_data=yes memory_operations=yes start_ms=1700000000000"
                                 " target=\"My Channel\" supplemental_info=\"\" target_version=\"2.0.1\""
                                 " device_vendor=\"Roku\" device_model=\"4670X\""
                                 " device_firmware=\"11.5.0.4312\"\n"));
    assert_non_null(strstr(text, ": string id=1 text=\"main\"\n"));
    assert_non_null(strstr(text, ": module id=1 name=\"main\"\n"));
    assert_non_null(strstr(text, ": path id=10 caller=0 module=1 file=\"pkg:/source/main.brs\" "
                                 "line=1 function=\"Main\"\n"));
    assert_non_null(strstr(text, ": path id=11 caller=10 line_offset=5 "
                                 "file=\"pkg:/source/main.brs\" line=20 function=\"LoadFeed\"\n"));
    assert_non_null(strstr(text, ": cpu path=12 line_offset=2 cpu=1000 wall=40\n"));
    assert_non_null(strstr(text, ": calls path=12 count=3\n"));
    assert_non_null(strstr(text, ": memory path=12 op=alloc line_offset=2 address=0x1000 size=64\n"));
    assert_non_null(strstr(text, ": memory path=12 op=free_realloc line_offset=4 address=0x2000\n"));
    assert_non_null(strstr(text, ": end\n"));
    assert_non_null(strstr(text, ": footer end_ms=1700000090500\n"));
    free(text);

    text = dump(&b, true, false, &st);
    assert_int_equal(st, PK_OK);
    assert_non_null(strstr(text, "type=1 module id=1 name=1\n"));
    assert_non_null(strstr(text, "type=2 path id=11 caller=10 line_offset=5 file=2 line=20 function=4\n"));
    assert_non_null(strstr(text, "type=3 memory path=12 op=0 line_offset=2 address=4096 size=64\n"));
    assert_non_null(strstr(text, " line_data=1 memory_operations=1 "));
    free(text);

    /* Damage: an error, or with salvage a last line saying where. */
    tb_bytes cut = {0};
    tb_raw(&cut, b.data, b.len - 7);
    tb_varint(&cut, 6);
    char damage[64];
    snprintf(damage, sizeof damage, "\n%zu: damaged: unknown entry type 6", b.len - 7);
    text = dump(&cut, false, false, &st);
    assert_int_equal(st, PK_ERR_INPUT);
    assert_non_null(strstr(text, ": calls path=12 count=3\n")); /* the entries before it */
    assert_null(strstr(text, ": damaged"));
    free(text);
    text = dump(&cut, false, true, &st);
    assert_int_equal(st, PK_OK);
    assert_non_null(strstr(text, damage));
    free(text);
    tb_free(&cut);
    tb_free(&b);
}

/* ---- following a stream as it arrives (scan.c) ------------------------------------------------ */

/* The largest entry boundary at or below received: where the last whole item ends. */
static size_t last_bound(const size_t *bounds, size_t nbounds, size_t received)
{
    size_t k = 0;
    while (k + 1 < nbounds && bounds[k + 1] <= received)
        k++;
    return k;
}

static void scan_counts_entries_as_bytes_arrive(void **state)
{
    (void)state;
    static const size_t pieces[] = {1, 2, 3, 7, 64, 100000};
    for (int variant = 0; variant < 2; variant++) {
        tb_bytes full = {0};
        size_t bounds[64], nbounds;
        channel(&full, variant == 0, true, bounds, &nbounds);
        size_t entries = nbounds - 2; /* the last two bounds: the end marker and the footer */
        for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
            bs_scan s;
            pk_bsprof_scan_init(&s);
            for (size_t at = 0; at < full.len; at += pieces[p]) {
                size_t n = full.len - at < pieces[p] ? full.len - at : pieces[p];
                assert_int_equal(pk_bsprof_scan_feed(&s, full.data + at, n), PK_OK);
                size_t received = at + n;
                assert_int_equal(s.received, received);
                if (received < bounds[0]) {
                    assert_int_equal(s.complete_through, 0);
                    assert_int_equal(s.entries, 0);
                    continue;
                }
                /* Short items are decoded again with every byte: the counts keep up. */
                size_t k = last_bound(bounds, nbounds, received);
                if (k + 1 < nbounds || received == full.len) {
                    size_t through = received == full.len ? full.len : bounds[k];
                    assert_int_equal(s.complete_through, through);
                    assert_int_equal(s.entries, k < entries ? k : entries);
                }
            }
            assert_int_equal(pk_bsprof_scan_finish(&s), PK_OK);
            assert_int_equal(s.state, BS_SCAN_DONE);
            assert_true(s.end_marker);
            assert_int_equal(s.entries, entries);
            assert_int_equal(s.complete_through, full.len);
            /* Only an unfinished item is ever held. */
            assert_int_equal(s.pending.len, 0);
            pk_bsprof_scan_free(&s);
        }
        tb_free(&full);
    }
}

/* A stream that stops anywhere ends where the reader's salvage ends. */
static void scan_cut_anywhere_ends_where_salvage_ends(void **state)
{
    (void)state;
    tb_bytes full = {0};
    size_t bounds[64], nbounds;
    channel(&full, true, true, bounds, &nbounds);
    size_t end_marker = bounds[nbounds - 2];
    for (size_t cut = 0; cut < full.len; cut++) {
        bs_scan s;
        pk_bsprof_scan_init(&s);
        /* In two pieces, the second one cut. */
        size_t first = cut / 2;
        assert_int_equal(pk_bsprof_scan_feed(&s, full.data, first), PK_OK);
        assert_int_equal(pk_bsprof_scan_feed(&s, full.data + first, cut - first), PK_OK);
        assert_int_equal(pk_bsprof_scan_finish(&s), PK_OK);
        size_t k = last_bound(bounds, nbounds, cut);
        if (cut < bounds[0]) {
            assert_int_equal(s.state, BS_SCAN_DAMAGED);
            assert_int_equal(s.complete_through, 0);
            assert_int_equal(s.damage.status, PK_ERR_INPUT);
        } else if (cut == bounds[k] && cut <= end_marker) {
            /* A clean cut between entries: no damage, no end marker. */
            assert_int_equal(s.state, BS_SCAN_BODY);
            assert_false(s.end_marker);
            assert_int_equal(s.complete_through, cut);
            assert_int_equal(s.entries, k);
        } else if (cut > end_marker) {
            assert_true(s.end_marker);
            assert_int_equal(s.complete_through, bounds[nbounds - 1]);
        } else {
            assert_int_equal(s.state, BS_SCAN_DAMAGED);
            assert_int_equal(s.complete_through, bounds[k]);
            assert_int_equal(s.entries, k);
            /* The same offset and message as the reader's. */
            tb_bytes b = {0};
            tb_raw(&b, full.data, cut);
            pk_error err;
            assert_int_equal(read_fails(&b, false, &err), PK_ERR_INPUT);
            assert_int_equal(s.damage.offset, err.offset);
            assert_string_equal(s.damage.message, err.message);
            tb_free(&b);
        }
        pk_bsprof_scan_free(&s);
    }
    tb_free(&full);
}

static void scan_tells_damage_and_foreign_streams(void **state)
{
    (void)state;
    /* Not .bsprof: known from the first byte that differs. */
    bs_scan s;
    pk_bsprof_scan_init(&s);
    assert_int_equal(pk_bsprof_scan_feed(&s, "bsp", 3), PK_OK);
    assert_int_equal(s.state, BS_SCAN_HEADER);
    assert_int_equal(pk_bsprof_scan_feed(&s, "<html>", 6), PK_OK);
    assert_int_equal(s.state, BS_SCAN_NOT_BSPROF);
    assert_int_equal(pk_bsprof_scan_feed(&s, "more", 4), PK_OK);
    assert_int_equal(s.received, 13);
    pk_bsprof_scan_free(&s);

    /* Nothing at all. */
    pk_bsprof_scan_init(&s);
    assert_int_equal(pk_bsprof_scan_finish(&s), PK_OK);
    assert_int_equal(s.state, BS_SCAN_DAMAGED);
    assert_non_null(strstr(s.damage.message, "empty"));
    pk_bsprof_scan_free(&s);

    /* An unknown entry type: nothing after it is decoded, the offset is the entry's. */
    tb_bytes b = {0};
    header_spec h = {1, 0, 0, false, false, 0, 0};
    put_header(&b, &h);
    e_string(&b, 1, "main");
    size_t bad = b.len;
    tb_varint(&b, 3 << 3 | 6);
    e_string(&b, 2, "after");
    pk_bsprof_scan_init(&s);
    assert_int_equal(pk_bsprof_scan_feed(&s, b.data, b.len), PK_OK);
    assert_int_equal(s.state, BS_SCAN_DAMAGED);
    assert_int_equal(s.damage.offset, (int64_t)bad);
    assert_int_equal(s.entries, 1);
    assert_int_equal(s.complete_through, bad);
    pk_bsprof_scan_free(&s);
    tb_free(&b);
}

/* Header padding is counted, not kept; a long string waits in one piece. */
static void scan_keeps_only_an_unfinished_entry(void **state)
{
    (void)state;
    tb_bytes b = {0};
    header_spec h = {1, 0, 0, false, false, 1 << 20, 0};
    put_header(&b, &h);
    size_t header_end = b.len;
    size_t text_len = 3u << 20;
    char *text = malloc(text_len + 1);
    assert_non_null(text);
    memset(text, 'x', text_len);
    text[text_len] = '\0';
    e_string(&b, 1, text);
    size_t string_end = b.len;
    tb_varint(&b, 0);
    free(text);
    bs_scan s;
    pk_bsprof_scan_init(&s);
    size_t most_pending = 0;
    for (size_t at = 0; at < b.len; at += 1000) {
        size_t n = b.len - at < 1000 ? b.len - at : 1000;
        assert_int_equal(pk_bsprof_scan_feed(&s, b.data + at, n), PK_OK);
        if (at + n <= header_end)
            assert_true(s.pending.len < 1000 + 200);
        if (s.pending.len > most_pending)
            most_pending = s.pending.len;
        if (at + n >= header_end && at + n < string_end)
            assert_int_equal(s.complete_through, header_end);
    }
    assert_true(most_pending <= b.len - header_end); /* the string and the end marker */
    assert_int_equal(pk_bsprof_scan_finish(&s), PK_OK);
    assert_true(s.end_marker);
    assert_int_equal(s.entries, 1);
    assert_int_equal(s.complete_through, b.len);
    pk_bsprof_scan_free(&s);
    tb_free(&b);
}

/* .bsprof strings end at a NUL byte: one inside a name is written as '_', and the file reads
 * back (the round-trip fuzzer's finding: a pprof name "mid\0nul"). */
static void names_with_nul_bytes_are_written_readably(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t v = pk_add_value_type(p, "cpu", "operations");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 0, 1);
    pk_function fn = {.name = pk_intern(p, "mid\0nul", 7), .file = pk_intern_cstr(p, "pkg:/a.brs"),
                      .start_line = 1, .resource = PK_NONE};
    pk_frame fr = {pk_intern_function(p, &fn), 0, 0, PK_NONE, 0};
    uint32_t s = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &fr));
    assert_int_equal(pk_add_sample_value(p, t, s, v, 3), PK_OK);
    const pk_format *bsprof = pk_format_by_name("bsprof");
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    assert_int_equal(pk_write_memory(p, bsprof, NULL, &data, &size, &err), PK_OK);
    pk_profile *back = NULL;
    if (pk_read_memory(data, size, bsprof, NULL, &back, &err) != PK_OK)
        fail_msg("%s", err.message);
    bool found = false;
    for (size_t i = 0; i < pk_function_count(back); i++)
        found = found || strcmp(pk_str(back, pk_function_at(back, (uint32_t)i)->name), "mid_nul") == 0;
    assert_true(found);
    assert_int_equal(pk_value_total(back, 0), 3);
    pk_profile_free(back);
    free(data);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_fields_become_metadata),
        cmocka_unit_test(header_flags_off_and_unknown_major),
        cmocka_unit_test(header_size_is_checked),
        cmocka_unit_test(empty_and_foreign_files_fail_clearly),
        cmocka_unit_test(probe_needs_the_whole_magic),
        cmocka_unit_test(entries_with_line_data),
        cmocka_unit_test(entries_without_line_data),
        cmocka_unit_test(memory_operations_are_matched),
        cmocka_unit_test(sparse_ids_anywhere_in_uint32),
        cmocka_unit_test(many_sparse_ids_stay_fast),
        cmocka_unit_test(undefined_references_get_placeholders),
        cmocka_unit_test(looping_callers_terminate),
        cmocka_unit_test(redefinitions_use_the_latest),
        cmocka_unit_test(footer_and_trailing_bytes),
        cmocka_unit_test(malformed_entries_are_errors),
        cmocka_unit_test(string_id_zero_is_the_end_marker),
        cmocka_unit_test(clean_cut_between_entries_is_a_warning),
        cmocka_unit_test(every_truncation_point),
        cmocka_unit_test(round_trips_keep_everything),
        cmocka_unit_test(writer_takes_any_profile),
        cmocka_unit_test(writer_uses_the_chosen_value),
        cmocka_unit_test(dump_prints_every_entry),
        cmocka_unit_test(scan_counts_entries_as_bytes_arrive),
        cmocka_unit_test(scan_cut_anywhere_ends_where_salvage_ends),
        cmocka_unit_test(scan_tells_damage_and_foreign_streams),
        cmocka_unit_test(scan_keeps_only_an_unfinished_entry),
        cmocka_unit_test(names_with_nul_bytes_are_written_readably),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
