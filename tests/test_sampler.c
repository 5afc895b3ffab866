/* SPDX-License-Identifier: MIT */
/* Apple Sampler files: fixtures built byte by byte from Reid's grammar (with ids and counts
 * that contain TAB and LF bytes), the synthetic reference files, frame order detection,
 * every truncation point, errors, salvage, the dump, and round trips through the writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bytes.h"
#include "fixtures.h"
#include "core/input.h"
#include "core/output.h"
#include "formats/formats.h"
#include "profkit/format.h"

/* ---- fixtures ------------------------------------------------------------------------------ */

static void head(tb_bytes *b)
{
    tb_str(b, "@supersamplerV1.0\n@symboltableV1.1\n");
}

static void sym(tb_bytes *b, uint32_t id, uint32_t unknown, const char *name, const char *lib1,
                const char *lib2)
{
    tb_u8(b, '\t');
    tb_u32be(b, id);
    tb_u8(b, '\t');
    tb_u32be(b, unknown);
    tb_u8(b, '\t');
    tb_str(b, name);
    tb_u8(b, '\t');
    tb_str(b, lib1);
    tb_u8(b, '\t');
    tb_str(b, lib2);
    tb_u8(b, '\n');
}

static void thread(tb_bytes *b, const char *hex)
{
    tb_str(b, "@threadV1.0\t");
    tb_str(b, hex);
    tb_u8(b, '\n');
}

static void row(tb_bytes *b, size_t n, const uint32_t *frames)
{
    tb_u8(b, '\t');
    tb_u32be(b, 1);
    tb_u32be(b, 0);
    tb_u32be(b, 1);
    tb_u32be(b, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        tb_u32be(b, frames[i]);
    tb_u8(b, '\n');
}

enum {
    ID_THREAD = 0x0000000a,   /* the thread id is a line feed */
    ID_START = 0x0000090a,    /* thread_start: TAB LF */
    ID_PSTART = 0x0a0a0a0a,   /* _pthread_start */
    ID_MAIN = 0x09090909,     /* worker_main */
    ID_READ = 0x00000100,
    ID_WRITE = 0x00000200,
    ID_MEMCPY = 0x0a000009,
};

static size_t row_ends[16];
static size_t row_count;

/* Leaf first, as stack walkers produce them: every row ends in the thread-start frames; one row
 * has 10 frames, so its count word holds a line feed. */
static void build_leaf_first(tb_bytes *b)
{
    row_count = 0;
    head(b);
    sym(b, ID_THREAD, 0, "Thread_000a", "Thread_000a", "Thread_000a");
    sym(b, ID_START, 0, "thread_start", "/usr/lib/system/libsystem_pthread.dylib",
        "/usr/lib/system/libsystem_pthread.dylib");
    sym(b, ID_PSTART, 0, "_pthread_start", "/usr/lib/system/libsystem_pthread.dylib",
        "/usr/lib/system/libsystem_pthread.dylib");
    sym(b, ID_MAIN, 1, "worker_main", "/Applications/Demo.app/Contents/MacOS/Demo",
        "/Applications/Demo.app/Contents/MacOS/Demo");
    sym(b, ID_READ, 0, "read_chunk", "/Applications/Demo.app/Contents/MacOS/Demo",
        "/Applications/Demo.app/Contents/MacOS/Demo");
    sym(b, ID_WRITE, 0, "write_chunk", "/Applications/Demo.app/Contents/MacOS/Demo",
        "/Applications/Demo.app/Contents/MacOS/Demo");
    sym(b, ID_MEMCPY, 0, "_platform_memmove", "/usr/lib/system/libsystem_platform.dylib",
        "/usr/lib/system/libsystem_platform.dylib");
    tb_str(b, "@end\n");
    thread(b, "000a");
    static const uint32_t r1[] = {ID_MEMCPY, ID_READ, ID_MAIN, ID_PSTART, ID_START};
    static const uint32_t r2[] = {ID_READ, ID_MAIN, ID_PSTART, ID_START};
    static const uint32_t r3[] = {ID_MEMCPY, ID_WRITE, ID_MAIN, ID_PSTART, ID_START};
    static const uint32_t r4[] = {ID_WRITE, ID_WRITE, ID_WRITE, ID_WRITE, ID_WRITE,
                                  ID_WRITE, ID_WRITE, ID_MAIN,  ID_PSTART, ID_START};
    row(b, 5, r1);
    row_ends[row_count++] = b->len;
    row(b, 5, r1);
    row_ends[row_count++] = b->len;
    row(b, 4, r2);
    row_ends[row_count++] = b->len;
    row(b, 5, r3);
    row_ends[row_count++] = b->len;
    row(b, 10, r4);
    row_ends[row_count++] = b->len;
    tb_str(b, "@end\n");
}

/* ---- helpers ------------------------------------------------------------------------------- */

static pk_profile *read_ok(const void *data, size_t size, const pk_read_options *options)
{
    pk_profile *p = NULL;
    pk_error err;
    pk_error_clear(&err);
    pk_status st = pk_read_memory(data, size, &pk_format_sampler, options, &p, &err);
    if (st != PK_OK)
        fail_msg("read failed: byte %lld: %s", (long long)err.offset, err.message);
    return p;
}

static pk_status read_fails(const void *data, size_t size, pk_error *err)
{
    pk_profile *p = NULL;
    pk_error_clear(err);
    pk_status st = pk_read_memory(data, size, &pk_format_sampler, NULL, &p, err);
    assert_null(p);
    return st;
}

typedef struct entry {
    char *path;
    int64_t value;
} entry;

static int compare_entries(const void *a, const void *b)
{
    return strcmp(((const entry *)a)->path, ((const entry *)b)->path);
}

/* "thread|root;...;leaf value" per stack, merged and sorted (with_threads false: no thread). */
static char *stacks_text(const pk_profile *p, uint32_t value, bool with_threads)
{
    size_t rows = pk_sample_count(p);
    entry *entries = calloc(rows + 1, sizeof *entries);
    for (size_t r = 0; r < rows; r++) {
        uint32_t frames[64];
        uint32_t stack = pk_sample_stack(p, r);
        size_t depth = stack == PK_NONE ? 0 : pk_stack_frames(p, stack, frames, 64);
        assert_true(depth <= 64);
        char *path = calloc(1, 4096);
        if (with_threads) {
            strcat(path, pk_str(p, pk_thread_at(p, pk_sample_thread(p, r))->name));
            strcat(path, "|");
        }
        for (size_t i = 0; i < depth; i++) {
            if (i)
                strcat(path, ";");
            strncat(path, pk_frame_name(p, frames[i]), 200);
        }
        entries[r].path = path;
        entries[r].value = pk_sample_values(p, r)[value];
    }
    qsort(entries, rows, sizeof *entries, compare_entries);
    char *text = calloc(1, 4096 * (rows + 1));
    for (size_t i = 0; i < rows; i++) {
        if (i + 1 < rows && strcmp(entries[i].path, entries[i + 1].path) == 0) {
            entries[i + 1].value += entries[i].value;
        } else if (entries[i].value) {
            char piece[32];
            strcat(text, entries[i].path);
            snprintf(piece, sizeof piece, " %lld\n", (long long)entries[i].value);
            strcat(text, piece);
        }
        free(entries[i].path);
    }
    free(entries);
    return text;
}

static bool has_warning(const pk_profile *p, const char *needle)
{
    for (size_t i = 0; i < pk_warning_count(p); i++)
        if (strstr(pk_warning_at(p, i), needle))
            return true;
    return false;
}

static pk_read_options with_order(pk_option *opt, const char *order)
{
    opt->name = "sampler-order";
    opt->value = order;
    pk_read_options options = {.extra = {opt, 1}};
    return options;
}

static char *write_sampler(const pk_profile *p, uint32_t value, size_t *size)
{
    char *data = NULL;
    pk_error err;
    pk_error_clear(&err);
    pk_write_options options = {.value = value};
    pk_status st = pk_write_memory(p, &pk_format_sampler, &options, &data, size, &err);
    if (st != PK_OK)
        fail_msg("write failed: %s", err.message);
    return data;
}

static char *dump_text(const void *data, size_t size, bool raw, pk_status *status, pk_error *err)
{
    return tb_dump_text(&pk_format_sampler, data, size, raw, status, err);
}

/* Dumps as the command does, with --salvage: the damage line is the opened reader's. */
static char *dump_salvaged(const void *data, size_t size, pk_status *status)
{
    pk_reader *r;
    pk_output out;
    pk_error err;
    pk_read_options options = {.salvage = true};
    assert_int_equal(pk_reader_open_memory(data, size, &pk_format_sampler, &r, &err), PK_OK);
    pk_output_init_memory(&out);
    *status = pk_reader_dump(r, false, &options, &out, &err);
    pk_reader_close(r);
    assert_int_equal(pk_output_commit(&out, &err), PK_OK);
    size_t n;
    return pk_output_take_memory(&out, &n);
}

static char *read_reference(const char *name, size_t *size)
{
    return tb_read_data_file(name, size);
}

/* ---- reading ------------------------------------------------------------------------------- */

static void leaf_first_rows_are_detected(void **state)
{
    (void)state;
    tb_bytes b = {0};
    build_leaf_first(&b);
    pk_profile *p = read_ok(b.data, b.len, NULL);
    assert_string_equal(pk_property_get(p, "sampler.frame-order"),
                        "leaf-first (fewer distinct frames at the root end)");
    assert_int_equal(pk_value_type_count(p), 1);
    assert_string_equal(pk_str(p, pk_value_type_at(p, 0)->name), "samples");
    assert_int_equal(pk_value_total(p, 0), 5);
    assert_int_equal(pk_thread_count(p), 1);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "Thread_000a");
    assert_int_equal(pk_thread_at(p, 0)->tid, 10);
    char *text = stacks_text(p, 0, false);
    assert_string_equal(text,
                        "thread_start;_pthread_start;worker_main;read_chunk 1\n"
                        "thread_start;_pthread_start;worker_main;read_chunk;_platform_memmove 2\n"
                        "thread_start;_pthread_start;worker_main;write_chunk;_platform_memmove 1\n"
                        "thread_start;_pthread_start;worker_main;write_chunk;write_chunk;"
                        "write_chunk;write_chunk;write_chunk;write_chunk;write_chunk 1\n");
    free(text);
    /* Library paths are the resources. */
    bool found = false;
    for (size_t i = 0; i < pk_function_count(p); i++) {
        const pk_function *fn = pk_function_at(p, (uint32_t)i);
        if (strcmp(pk_str(p, fn->name), "_platform_memmove") == 0) {
            found = true;
            const pk_resource *res = pk_resource_at(p, fn->resource);
            assert_string_equal(pk_str(p, res->name), "libsystem_platform.dylib");
            assert_string_equal(pk_str(p, res->path), "/usr/lib/system/libsystem_platform.dylib");
        }
    }
    assert_true(found);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);

    /* Forced the other way, the same rows read root first. */
    pk_option opt;
    pk_read_options options = with_order(&opt, "root-first");
    p = read_ok(b.data, b.len, &options);
    assert_string_equal(pk_property_get(p, "sampler.frame-order"), "root-first (--sampler-order)");
    text = stacks_text(p, 0, false);
    assert_non_null(strstr(text, "_platform_memmove;read_chunk;worker_main;_pthread_start;thread_start 2\n"));
    free(text);
    pk_profile_free(p);

    options = with_order(&opt, "upside-down");
    pk_error err;
    p = NULL;
    assert_int_equal(pk_read_memory(b.data, b.len, &pk_format_sampler, &options, &p, &err),
                     PK_ERR_USAGE);
    tb_free(&b);
}

/* More rows than the detection keeps: the first rows decide, the rest stream in that order. */
static void long_files_stream_after_the_decision(void **state)
{
    (void)state;
    tb_bytes b = {0};
    head(&b);
    sym(&b, 1, 0, "start", "", "");
    sym(&b, 2, 0, "loop", "", "");
    sym(&b, 3, 0, "leaf_a", "", "");
    sym(&b, 4, 0, "leaf_b", "", "");
    tb_str(&b, "@end\n");
    thread(&b, "0010");
    for (int i = 0; i < 10000; i++) {
        uint32_t frames[3] = {i % 3 ? 3 : 4, 2, 1};
        row(&b, i % 7 ? 3 : 2, i % 7 ? frames : frames + 1);
    }
    tb_str(&b, "@end\n");
    pk_profile *p = read_ok(b.data, b.len, NULL);
    assert_string_equal(pk_property_get(p, "sampler.frame-order"),
                        "leaf-first (fewer distinct frames at the root end)");
    char *text = stacks_text(p, 0, false);
    /* i % 7 == 0: 1429 rows of start;loop; of the others, i % 3 == 0 gives leaf_b. */
    assert_string_equal(text, "start;loop 1429\n"
                              "start;loop;leaf_a 5714\n"
                              "start;loop;leaf_b 2857\n");
    free(text);
    pk_profile_free(p);
    tb_free(&b);
}

static void reference_files_read(void **state)
{
    (void)state;
    size_t size;
    char *data = read_reference("sampler-synthetic.sample", &size);
    assert_int_equal(size, 378);
    assert_int_equal(pk_format_sampler.probe((const uint8_t *)data, size), PK_PROBE_CERTAIN);
    pk_profile *p = NULL;
    pk_error err;
    assert_int_equal(pk_read_memory(data, size, NULL, NULL, &p, &err), PK_OK);
    assert_string_equal(pk_str(p, pk_metadata_get(p)->source_format), "sampler");
    assert_string_equal(pk_property_get(p, "sampler.frame-order"),
                        "root-first (fewer distinct frames at the root end)");
    char *text = stacks_text(p, 0, true);
    assert_string_equal(text, "Thread_0001|main 1\n"
                              "Thread_0001|main;eval 1\n"
                              "Thread_0001|main;parse 2\n");
    free(text);
    assert_int_equal(pk_thread_at(p, 0)->tid, 1);
    pk_profile_free(p);
    free(data);

    data = read_reference("sampler-synthetic-edge.sample", &size);
    assert_int_equal(size, 255);
    p = NULL;
    assert_int_equal(pk_read_memory(data, size, NULL, NULL, &p, &err), PK_OK);
    text = stacks_text(p, 0, true);
    assert_string_equal(text, "Thread_0002|all_lf_id 1\n"
                              "Thread_0002|tab_lf_id;all_lf_id 1\n");
    free(text);
    pk_profile_free(p);
    free(data);
}

static void threads_are_named_and_merged(void **state)
{
    (void)state;
    tb_bytes b = {0};
    head(&b);
    sym(&b, 0x2a, 0, "Thread_002a", "Thread_002a", "Thread_002a");
    sym(&b, 0x10, 0, "f", "", "");
    tb_str(&b, "@end\n");
    static const uint32_t f[] = {0x10};
    static const uint32_t unknown[] = {0x10, 0x77};
    thread(&b, "002A");
    row(&b, 1, f);
    thread(&b, "BEEF"); /* no symbol entry */
    row(&b, 1, f);
    row(&b, 0, NULL);
    thread(&b, "002a"); /* the first thread again */
    row(&b, 2, unknown);
    tb_str(&b, "@end\n");
    pk_profile *p = read_ok(b.data, b.len, NULL);
    assert_int_equal(pk_thread_count(p), 2);
    char *text = stacks_text(p, 0, true);
    assert_string_equal(text, "Thread_002a|f 1\n"
                              "Thread_002a|f;0x00000077 1\n"
                              "Thread_BEEF| 1\n"
                              "Thread_BEEF|f 1\n");
    free(text);
    assert_int_equal(pk_thread_at(p, 1)->tid, 0xbeef);
    assert_true(has_warning(p, "1 frame ids are not in the symbol table"));
    /* A function without a library has no resource. */
    for (size_t i = 0; i < pk_function_count(p); i++)
        assert_int_equal(pk_function_at(p, (uint32_t)i)->resource, PK_NONE);
    pk_profile_free(p);
    tb_free(&b);
}

static void oddities_are_warnings(void **state)
{
    (void)state;
    tb_bytes b = {0};
    head(&b);
    sym(&b, 5, 0, "f", "/a/liba.dylib", "/b/liba.dylib");
    sym(&b, 5, 0, "g", "", "");
    tb_str(&b, "@end\n");
    thread(&b, "1");
    tb_u8(&b, '\t');
    tb_u32be(&b, 3); /* not 1 0 1 */
    tb_u32be(&b, 0);
    tb_u32be(&b, 1);
    tb_u32be(&b, 1);
    tb_u32be(&b, 5);
    tb_u8(&b, '\n');
    tb_str(&b, "@end\ntrailing");
    pk_profile *p = read_ok(b.data, b.len, NULL);
    assert_int_equal(pk_value_total(p, 0), 1);
    char *text = stacks_text(p, 0, false);
    assert_string_equal(text, "f 1\n");
    free(text);
    assert_true(has_warning(p, "other words than 1 0 1"));
    assert_true(has_warning(p, "repeat an id"));
    assert_true(has_warning(p, "two different library paths"));
    assert_true(has_warning(p, "after the final @end"));
    pk_profile_free(p);
    tb_free(&b);
}

/* ---- damage -------------------------------------------------------------------------------- */

static void errors_name_the_byte(void **state)
{
    (void)state;
    pk_error err;
    tb_bytes b = {0};
    tb_str(&b, "@supersamplerV2.0\n");
    assert_int_equal(read_fails(b.data, b.len, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, 0);
    assert_string_equal(err.message, "expected @supersamplerV1.0 and a line feed");
    assert_false(err.salvageable); /* not a Sampler file: nothing to keep */
    tb_free(&b);

    /* A symbol row whose id is not followed by a TAB. */
    head(&b);
    size_t at = b.len;
    tb_u8(&b, '\t');
    tb_u32be(&b, 1);
    tb_u8(&b, ' ');
    tb_str(&b, "xxxxxxxxxx\n@end\n@end\n");
    assert_int_equal(read_fails(b.data, b.len, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)at + 5);
    assert_true(err.salvageable);
    tb_free(&b);

    /* A symbol row that ends early. */
    head(&b);
    sym(&b, 1, 0, "f", "lib", "lib");
    at = b.len;
    tb_u8(&b, '\t');
    tb_u32be(&b, 2);
    tb_u8(&b, '\t');
    tb_u32be(&b, 0);
    tb_str(&b, "\tname only\n@end\n@end\n");
    assert_int_equal(read_fails(b.data, b.len, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)at + 20);
    assert_non_null(strstr(err.message, "a symbol name ends with a line feed"));
    tb_free(&b);

    /* A frame count larger than the bytes left. */
    head(&b);
    tb_str(&b, "@end\n");
    thread(&b, "0001");
    at = b.len;
    tb_u8(&b, '\t');
    tb_u32be(&b, 1);
    tb_u32be(&b, 0);
    tb_u32be(&b, 1);
    tb_u32be(&b, 0x40000000);
    tb_u32be(&b, 7);
    tb_str(&b, "\n@end\n");
    assert_int_equal(read_fails(b.data, b.len, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)at + 13);
    assert_non_null(strstr(err.message, "1073741824 frames"));
    tb_free(&b);

    /* A row whose frames are not followed by a line feed (the count is one short). */
    head(&b);
    tb_str(&b, "@end\n");
    thread(&b, "0001");
    static const uint32_t two[] = {7, 8};
    at = b.len;
    row(&b, 2, two);
    b.data[at + 16] = 1;
    tb_str(&b, "@end\n");
    assert_int_equal(read_fails(b.data, b.len, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)at + 21);
    assert_non_null(strstr(err.message, "does not end with a line feed"));
    tb_free(&b);

    /* Rows before any thread header. */
    head(&b);
    tb_str(&b, "@end\n");
    at = b.len;
    row(&b, 1, two);
    assert_int_equal(read_fails(b.data, b.len, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)at);
    assert_string_equal(err.message, "expected @threadV1.0 or @end");
    tb_free(&b);

    /* A thread id that is not hexadecimal. */
    head(&b);
    tb_str(&b, "@end\n");
    at = b.len;
    thread(&b, "00g1");
    tb_str(&b, "@end\n");
    assert_int_equal(read_fails(b.data, b.len, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)at + 14);
    tb_free(&b);
}

static void every_truncation_point(void **state)
{
    (void)state;
    tb_bytes b = {0};
    build_leaf_first(&b);
    const size_t header_end = strlen("@supersamplerV1.0\n@symboltableV1.1\n");
    pk_read_options salvage = {.salvage = true};
    for (size_t cut = 1; cut < b.len; cut++) {
        size_t complete = 0;
        for (size_t r = 0; r < row_count; r++)
            if (row_ends[r] <= cut)
                complete = r + 1;
        pk_profile *p = NULL;
        pk_error err;
        pk_status st = pk_read_memory(b.data, cut, &pk_format_sampler, NULL, &p, &err);
        if (cut == b.len - 1) {
            /* Only the last line feed is missing. */
            assert_int_equal(st, PK_OK);
            assert_int_equal(pk_value_total(p, 0), 5);
        } else {
            if (st != PK_ERR_INPUT)
                fail_msg("cut at %zu: status %d", cut, st);
            assert_true(err.offset >= 0 && (size_t)err.offset <= cut);
            /* A cut header line leaves nothing to keep; after it, damage can be salvaged. */
            assert_int_equal(err.salvageable, cut >= header_end);
        }
        pk_profile_free(p);
        p = NULL;
        st = pk_read_memory(b.data, cut, &pk_format_sampler, &salvage, &p, &err);
        if (cut < header_end) {
            assert_int_equal(st, PK_ERR_INPUT);
            assert_null(p);
            continue;
        }
        assert_int_equal(st, PK_OK);
        assert_int_equal(pk_value_total(p, 0), (int64_t)complete);
        assert_int_equal(pk_warning_count(p), cut == b.len - 1 ? 0 : 1);
        if (cut != b.len - 1) {
            const char *warning = pk_warning_at(p, 0);
            const char *kept = "; kept what was read before it";
            assert_true(strncmp(warning, "damaged at byte ", 16) == 0);
            assert_string_equal(warning + strlen(warning) - strlen(kept), kept);
        }
        pk_profile_free(p);
    }
    tb_free(&b);
}

/* ---- dump ---------------------------------------------------------------------------------- */

static void dump_lists_records_with_offsets(void **state)
{
    (void)state;
    size_t size;
    char *data = read_reference("sampler-synthetic-edge.sample", &size);
    pk_status st;
    pk_error err;
    char *text = dump_text(data, size, false, &st, &err);
    assert_int_equal(st, PK_OK);
    assert_non_null(strstr(text, "     0  @supersamplerV1.0\n"));
    assert_non_null(strstr(text, "    82  symbol 0x0000090a \"tab_lf_id\" in \"libedge.dylib\" "
                                 "(unknown=7)\n"));
    assert_non_null(strstr(text, "   185  thread 0002 (Thread_0002)\n"));
    assert_non_null(strstr(text, "   202  sample 2 frames: tab_lf_id; all_lf_id\n"));
    assert_non_null(strstr(text, "   250  @end\n"));
    free(text);
    text = dump_text(data, size, true, &st, &err);
    assert_int_equal(st, PK_OK);
    assert_non_null(strstr(text, "   202  sample 1 0 1 n=2: 0x0000090a 0x0a0a0a0a\n"));
    assert_non_null(strstr(text, "    82  symbol id=0x0000090a unknown=0x00000007 "
                                 "symbol=\"tab_lf_id\" library=\"libedge.dylib\" "
                                 "library2=\"libedge.dylib\"\n"));
    free(text);
    text = dump_text(data, 210, false, &st, &err);
    assert_int_equal(st, PK_ERR_INPUT);
    assert_int_equal(err.offset, 202);
    assert_true(err.salvageable);
    free(text);
    /* With salvage the damage is the last line, after the row it cut. */
    text = dump_salvaged(data, 210, &st);
    assert_int_equal(st, PK_OK);
    assert_non_null(strstr(text, "   185  thread 0002 (Thread_0002)\n"
                                 "202: damaged: the file ends inside a sample row\n"));
    free(text);
    data[227] = 'X'; /* the line feed of the row at 202 */
    text = dump_salvaged(data, size, &st);
    assert_int_equal(st, PK_OK);
    assert_non_null(strstr(text, "   202  sample 2 frames: tab_lf_id; all_lf_id\n"
                                 "227: damaged: a sample row does not end with a line feed after "
                                 "its frames\n"));
    free(text);
    free(data);
}

/* ---- writer -------------------------------------------------------------------------------- */

static void writer_follows_the_grammar(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    pk_resource lib = {.name = pk_intern_cstr(p, "libx"), .path = pk_intern_cstr(p, "/l/libx")};
    pk_function fa = {.name = pk_intern_cstr(p, "a\tb"), .resource = pk_intern_resource(p, &lib)};
    pk_function fc = {.name = pk_intern_cstr(p, "c"), .resource = PK_NONE};
    pk_frame fra = {.function = pk_intern_function(p, &fa)};
    pk_frame frc = {.function = pk_intern_function(p, &fc)};
    uint32_t sa = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &fra));
    uint32_t sc = pk_intern_stack(p, sa, pk_intern_frame(p, &frc));
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), 100, 0x123);
    pk_add_sample_value(p, t, sc, 0, 2);
    size_t size;
    char *data = write_sampler(p, PK_NONE, &size);

    tb_bytes want = {0};
    head(&want);
    sym(&want, 0x123, 0, "Thread_0123", "Thread_0123", "Thread_0123");
    sym(&want, 0x10000, 0, "a b", "/l/libx", "/l/libx");
    sym(&want, 0x10001, 0, "c", "", "");
    tb_str(&want, "@end\n");
    thread(&want, "0123");
    static const uint32_t frames[] = {0x123, 0x10000, 0x10001};
    row(&want, 3, frames);
    row(&want, 3, frames);
    tb_str(&want, "@end\n");
    assert_int_equal(size, want.len);
    assert_memory_equal(data, want.data, want.len);
    assert_int_equal(pk_format_sampler.probe((const uint8_t *)data, size), PK_PROBE_CERTAIN);
    tb_free(&want);
    free(data);
    pk_profile_free(p);
}

/* Stacks that fool the statistics: different roots, one shared leaf, and threads whose ids
 * collide (so they are renumbered). */
static void written_files_read_back_the_same(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t cpu = pk_add_value_type(p, "cpu", "nanoseconds");
    uint32_t samples = pk_add_value_type(p, "samples", "count");
    pk_set_default_value(p, cpu);
    const char *roots[] = {"root_a", "root_b", "root_c"};
    pk_function leaf = {.name = pk_intern_cstr(p, "spin")};
    pk_frame leaf_frame = {.function = pk_intern_function(p, &leaf)};
    uint32_t leaf_id = pk_intern_frame(p, &leaf_frame);
    uint32_t t1 = pk_add_thread(p, pk_intern_cstr(p, "one"), 1, 7);
    uint32_t t2 = pk_add_thread(p, pk_intern_cstr(p, "two"), 1, 7);
    for (int i = 0; i < 3; i++) {
        pk_function fn = {.name = pk_intern_cstr(p, roots[i])};
        pk_frame fr = {.function = pk_intern_function(p, &fn)};
        uint32_t s = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &fr));
        s = pk_intern_stack(p, s, leaf_id);
        int64_t v[2];
        v[cpu] = 1000000 * (i + 1);
        v[samples] = i + 1;
        pk_add_sample(p, i == 2 ? t2 : t1, s, v);
    }
    int64_t v[2];
    v[cpu] = 5, v[samples] = 1;
    pk_add_sample(p, t2, PK_NONE, v);
    size_t size;
    /* The default value (cpu time) is not a count: the sample count is written. */
    char *data = write_sampler(p, PK_NONE, &size);
    pk_profile *q = read_ok(data, size, NULL);
    assert_string_equal(pk_property_get(q, "sampler.frame-order"),
                        "root-first (thread id at the root end)");
    char *text = stacks_text(q, 0, true);
    assert_string_equal(text, "Thread_0001|root_a;spin 1\n"
                              "Thread_0001|root_b;spin 2\n"
                              "Thread_0002| 1\n"
                              "Thread_0002|root_c;spin 3\n");
    free(text);
    assert_int_equal(pk_thread_at(q, 1)->tid, 2);
    /* From the second generation on, the file stays the same. */
    size_t size2, size3;
    char *data2 = write_sampler(q, PK_NONE, &size2);
    pk_profile *r = read_ok(data2, size2, NULL);
    char *data3 = write_sampler(r, PK_NONE, &size3);
    assert_int_equal(size2, size3);
    assert_memory_equal(data2, data3, size2);
    free(data2);
    free(data3);
    pk_profile_free(r);
    pk_profile_free(q);
    free(data);
    pk_profile_free(p);
}

static void reference_round_trip(void **state)
{
    (void)state;
    size_t size;
    char *data = read_reference("sampler-synthetic.sample", &size);
    pk_profile *p = read_ok(data, size, NULL);
    size_t out_size;
    char *out = write_sampler(p, PK_NONE, &out_size);
    pk_profile *q = read_ok(out, out_size, NULL);
    char *a = stacks_text(p, 0, true), *b = stacks_text(q, 0, true);
    assert_string_equal(a, b);
    free(a);
    free(b);
    pk_profile_free(q);
    pk_profile_free(p);
    free(out);
    free(data);
}

static void writer_refuses_what_sampler_cannot_hold(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "cpu", "nanoseconds");
    pk_function fn = {.name = pk_intern_cstr(p, "f")};
    pk_frame fr = {.function = pk_intern_function(p, &fn)};
    uint32_t stack = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &fr));
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "t"), -1, -1);
    pk_add_sample_value(p, t, stack, 0, 3000000000LL);
    char *data = NULL;
    size_t size;
    pk_error err;
    pk_write_options options = {.value = PK_NONE};
    assert_int_equal(pk_write_memory(p, &pk_format_sampler, &options, &data, &size, &err),
                     PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "'cpu'"));
    pk_sample_row_add(p, 0, 0, -3000000001LL);
    assert_int_equal(pk_write_memory(p, &pk_format_sampler, &options, &data, &size, &err),
                     PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "negative"));
    assert_null(data);
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(leaf_first_rows_are_detected),
        cmocka_unit_test(long_files_stream_after_the_decision),
        cmocka_unit_test(reference_files_read),
        cmocka_unit_test(threads_are_named_and_merged),
        cmocka_unit_test(oddities_are_warnings),
        cmocka_unit_test(errors_name_the_byte),
        cmocka_unit_test(every_truncation_point),
        cmocka_unit_test(dump_lists_records_with_offsets),
        cmocka_unit_test(writer_follows_the_grammar),
        cmocka_unit_test(written_files_read_back_the_same),
        cmocka_unit_test(reference_round_trip),
        cmocka_unit_test(writer_refuses_what_sampler_cannot_hold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
