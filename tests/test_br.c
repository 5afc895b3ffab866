/* SPDX-License-Identifier: MIT */
/* The BR profiler file: fixtures built record by record from the BR Wiki "Profiler File
 * Layout" page, the synthetic reference files, every truncation point, errors with offsets,
 * salvage, the options, the dump, and round trips through the writer. */
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

static void rec_module(tb_bytes *b, uint16_t number, const char *name)
{
    tb_u8(b, 1);
    tb_u16be(b, number);
    tb_u16be(b, (uint16_t)strlen(name));
    tb_str(b, name);
}

static void rec_line(tb_bytes *b, uint8_t type, uint16_t module, uint32_t line, uint8_t clause)
{
    tb_u8(b, type);
    tb_u16be(b, module);
    tb_u32be(b, line);
    tb_u8(b, clause);
}

static void rec_function(tb_bytes *b, const char *name)
{
    tb_u8(b, 7);
    tb_u8(b, (uint8_t)strlen(name));
    tb_str(b, name);
}

static void rec_time(tb_bytes *b, uint64_t ns)
{
    tb_u8(b, 4);
    tb_u64be(b, ns);
}

/* Offsets of the group boundaries of the sampled fixture, for the truncation test. */
static size_t sampled_group_ends[8];
static size_t sampled_group_count;
static size_t sampled_header_end;

/* Two modules; three groups:
 *   LIB.BR:500.1 in FNCALC, called from MENU.BR:120.2 (main)
 *   MENU.BR:300.1 in a GOSUB, called from MENU.BR:110.1 in FNMENU, called from MENU.BR:100.3 (main)
 *   MENU.BR:100.1 (main), no backtrace */
static void build_sampled(tb_bytes *b)
{
    sampled_group_count = 0;
    rec_module(b, 1, "C:\\APP\\MENU.BR");
    rec_module(b, 2, "C:\\APP\\LIB.BR");
    sampled_header_end = b->len;
    rec_line(b, 3, 2, 500, 1);
    rec_function(b, "FNCALC");
    rec_line(b, 5, 1, 120, 2);
    tb_u8(b, 9);
    tb_u8(b, 6);
    sampled_group_ends[sampled_group_count++] = b->len;
    rec_line(b, 3, 1, 300, 1);
    tb_u8(b, 8);
    rec_line(b, 5, 1, 110, 1);
    rec_function(b, "FNMENU");
    rec_line(b, 5, 1, 100, 3);
    tb_u8(b, 9);
    tb_u8(b, 6);
    sampled_group_ends[sampled_group_count++] = b->len;
    rec_line(b, 3, 1, 100, 1);
    tb_u8(b, 9);
    tb_u8(b, 6);
    sampled_group_ends[sampled_group_count++] = b->len;
}

/* A timed file: the time record right after the current line (as the reference file has it)
 * and before it. */
static void build_timed(tb_bytes *b)
{
    rec_module(b, 7, "/srv/app/report.br");
    rec_line(b, 3, 7, 10, 1);
    rec_time(b, 1500000);
    tb_u8(b, 9);
    tb_u8(b, 6);
    rec_line(b, 3, 7, 20, 1);
    rec_function(b, "FNTOTAL$");
    rec_time(b, 250000);
    rec_time(b, 50000); /* two time records in one group add up */
    rec_line(b, 5, 7, 10, 1);
    tb_u8(b, 9);
    tb_u8(b, 6);
    rec_line(b, 3, 7, 10, 1);
    rec_time(b, 700000);
    tb_u8(b, 9);
    tb_u8(b, 6);
}

/* ---- helpers ------------------------------------------------------------------------------- */

static pk_profile *read_ok(const tb_bytes *b, const pk_read_options *options)
{
    pk_profile *p = NULL;
    pk_error err;
    pk_error_clear(&err);
    pk_status st = pk_read_memory(b->data, b->len, &pk_format_br, options, &p, &err);
    if (st != PK_OK)
        fail_msg("read failed: byte %lld: %s", (long long)err.offset, err.message);
    assert_non_null(p);
    return p;
}

static pk_status read_fails(const void *data, size_t size, const pk_read_options *options,
                            pk_error *err)
{
    pk_profile *p = NULL;
    pk_error_clear(err);
    pk_status st = pk_read_memory(data, size, &pk_format_br, options, &p, err);
    assert_null(p);
    return st;
}

typedef struct line_entry {
    char *path;
    int64_t values[PK_MAX_VALUES];
} line_entry;

static int compare_entries(const void *a, const void *b)
{
    return strcmp(((const line_entry *)a)->path, ((const line_entry *)b)->path);
}

/* Every stack as "name;name;...;leaf" (root first) with the listed values, merged by path and
 * sorted: a view that conversions between formats must keep. values lists value names. */
static char *stacks_text(const pk_profile *p, const char *const *values, size_t value_count,
                         bool with_lines)
{
    size_t rows = pk_sample_count(p);
    line_entry *entries = calloc(rows + 1, sizeof *entries);
    uint32_t indexes[PK_MAX_VALUES];
    for (size_t v = 0; v < value_count; v++) {
        indexes[v] = pk_value_find(p, values[v]);
        assert_int_not_equal(indexes[v], PK_NONE);
    }
    for (size_t row = 0; row < rows; row++) {
        uint32_t frames[256];
        uint32_t stack = pk_sample_stack(p, row);
        size_t depth = stack == PK_NONE ? 0 : pk_stack_frames(p, stack, frames, 256);
        assert_true(depth <= 256);
        size_t cap = 64, len = 0;
        char *path = malloc(cap);
        path[0] = '\0';
        for (size_t i = 0; i < depth; i++) {
            char piece[600];
            const pk_frame *f = pk_frame_at(p, frames[i]);
            if (with_lines)
                snprintf(piece, sizeof piece, "%s%s:%u", i ? ";" : "", pk_frame_name(p, frames[i]),
                         f->line);
            else
                snprintf(piece, sizeof piece, "%s%s", i ? ";" : "", pk_frame_name(p, frames[i]));
            size_t n = strlen(piece);
            while (len + n + 1 > cap)
                cap *= 2;
            void *grown = realloc(path, cap);
            assert_non_null(grown);
            path = grown;
            memcpy(path + len, piece, n + 1);
            len += n;
        }
        entries[row].path = path;
        for (size_t v = 0; v < value_count; v++)
            entries[row].values[v] = pk_sample_values(p, row)[indexes[v]];
    }
    qsort(entries, rows, sizeof *entries, compare_entries);
    size_t cap = 256, len = 0;
    char *text = malloc(cap);
    text[0] = '\0';
    for (size_t i = 0; i < rows; i++) {
        if (i + 1 < rows && strcmp(entries[i].path, entries[i + 1].path) == 0) {
            for (size_t v = 0; v < value_count; v++)
                entries[i + 1].values[v] += entries[i].values[v];
            free(entries[i].path);
            continue;
        }
        bool zero = true;
        for (size_t v = 0; v < value_count; v++)
            zero = zero && entries[i].values[v] == 0;
        if (!zero) {
            char piece[200];
            size_t n = strlen(entries[i].path);
            while (len + n + 200 > cap)
                cap *= 2;
            void *grown = realloc(text, cap);
            assert_non_null(grown);
            text = grown;
            memcpy(text + len, entries[i].path, n);
            len += n;
            for (size_t v = 0; v < value_count; v++) {
                snprintf(piece, sizeof piece, " %lld", (long long)entries[i].values[v]);
                memcpy(text + len, piece, strlen(piece) + 1);
                len += strlen(piece);
            }
            text[len++] = '\n';
            text[len] = '\0';
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

static char *write_br(const pk_profile *p, const pk_write_options *options, size_t *size)
{
    char *data = NULL;
    pk_error err;
    pk_error_clear(&err);
    pk_write_options defaults = {.value = PK_NONE};
    pk_status st = pk_write_memory(p, &pk_format_br, options ? options : &defaults, &data, size,
                                   &err);
    if (st != PK_OK)
        fail_msg("write failed: %s", err.message);
    return data;
}

static char *dump_text(const void *data, size_t size, bool raw, pk_status *status, pk_error *err)
{
    return tb_dump_text(&pk_format_br, data, size, raw, status, err);
}

/* Dumps as the command does, with --salvage: the damage line is the opened reader's. */
static char *dump_salvaged(const void *data, size_t size, pk_status *status)
{
    pk_reader *r;
    pk_output out;
    pk_error err;
    pk_read_options options = {.salvage = true};
    assert_int_equal(pk_reader_open_memory(data, size, &pk_format_br, &r, &err), PK_OK);
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

static void sampled_file_reads_as_documented(void **state)
{
    (void)state;
    tb_bytes b = {0};
    build_sampled(&b);
    pk_profile *p = read_ok(&b, NULL);
    assert_int_equal(pk_value_type_count(p), 1);
    assert_int_equal(pk_value_find(p, "samples"), 0);
    assert_int_equal(pk_value_total(p, 0), 3);
    assert_int_equal(pk_thread_count(p), 1);
    assert_string_equal(pk_str(p, pk_thread_at(p, 0)->name), "main");
    assert_string_equal(pk_property_get(p, "br.mode"), "sampled");
    assert_string_equal(pk_str(p, pk_metadata_get(p)->source_format), "br");
    const char *values[] = {"samples"};
    char *text = stacks_text(p, values, 1, true);
    assert_string_equal(text, "MENU.BR main:100 1\n"
                              "MENU.BR main:100;FNMENU:110;MENU.BR gosub:300 1\n"
                              "MENU.BR main:120;FNCALC:500 1\n");
    free(text);
    /* Functions carry the module file; resources are the modules. */
    bool found = false;
    for (size_t i = 0; i < pk_function_count(p); i++) {
        const pk_function *fn = pk_function_at(p, (uint32_t)i);
        if (strcmp(pk_str(p, fn->name), "FNCALC") == 0) {
            found = true;
            assert_string_equal(pk_str(p, fn->file), "C:\\APP\\LIB.BR");
            assert_int_not_equal(fn->resource, PK_NONE);
            const pk_resource *res = pk_resource_at(p, fn->resource);
            assert_string_equal(pk_str(p, res->name), "LIB.BR");
            assert_string_equal(pk_str(p, res->path), "C:\\APP\\LIB.BR");
        }
    }
    assert_true(found);
    assert_int_equal(pk_resource_count(p), 2);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
    tb_free(&b);
}

static void timed_file_has_time_as_default(void **state)
{
    (void)state;
    tb_bytes b = {0};
    build_timed(&b);
    pk_profile *p = read_ok(&b, NULL);
    assert_int_equal(pk_value_type_count(p), 2);
    uint32_t time = pk_value_find(p, "time");
    assert_int_not_equal(time, PK_NONE);
    assert_string_equal(pk_str(p, pk_value_type_at(p, time)->unit), "nanoseconds");
    assert_int_equal(pk_default_value(p), time);
    assert_int_equal(pk_value_total(p, time), 2500000);
    assert_int_equal(pk_value_total(p, pk_value_find(p, "samples")), 3);
    assert_string_equal(pk_property_get(p, "br.mode"), "timed");
    const char *values[] = {"samples", "time"};
    char *text = stacks_text(p, values, 2, true);
    assert_string_equal(text, "report.br main:10 2 2200000\n"
                              "report.br main:10;FNTOTAL$:20 1 300000\n");
    free(text);
    pk_profile_free(p);
    tb_free(&b);
}

static void reference_files_read(void **state)
{
    (void)state;
    size_t size;
    char *data = read_reference("br-profile-sampled-synthetic.bin", &size);
    assert_int_equal(size, 92);
    assert_int_equal(pk_format_br.probe((const uint8_t *)data, size), PK_PROBE_LIKELY);
    pk_profile *p = NULL;
    pk_error err;
    assert_int_equal(pk_read_memory(data, size, NULL, NULL, &p, &err), PK_OK);
    assert_string_equal(pk_str(p, pk_metadata_get(p)->source_format), "br");
    const char *samples[] = {"samples"};
    char *text = stacks_text(p, samples, 1, true);
    assert_string_equal(text, "MENU.BR main:100 1\n"
                              "MENU.BR main:110;MENU.BR gosub:300 1\n"
                              "MENU.BR main:120;FNCALC:500 1\n");
    free(text);
    pk_profile_free(p);
    free(data);

    data = read_reference("br-profile-timed-synthetic.bin", &size);
    assert_int_equal(size, 57);
    p = NULL;
    assert_int_equal(pk_read_memory(data, size, NULL, NULL, &p, &err), PK_OK);
    const char *both[] = {"samples", "time"};
    text = stacks_text(p, both, 2, true);
    assert_string_equal(text, "MENU.BR main:100 1 1500000\n"
                              "MENU.BR main:110 1 250000\n");
    free(text);
    pk_profile_free(p);
    free(data);
}

static pk_read_options with_option(pk_option *opt, const char *name, const char *value)
{
    opt->name = name;
    opt->value = value;
    pk_read_options options = {.extra = {opt, 1}};
    return options;
}

static void backtrace_order_is_an_option(void **state)
{
    (void)state;
    tb_bytes b = {0};
    rec_module(&b, 1, "A.BR");
    rec_line(&b, 3, 1, 30, 1);
    rec_function(&b, "FNLEAF");
    rec_line(&b, 5, 1, 20, 1);
    rec_function(&b, "FNMID");
    rec_line(&b, 5, 1, 10, 1);
    tb_u8(&b, 9);
    tb_u8(&b, 6);
    const char *values[] = {"samples"};

    pk_profile *p = read_ok(&b, NULL);
    char *text = stacks_text(p, values, 1, false);
    assert_string_equal(text, "A.BR main;FNMID;FNLEAF 1\n");
    free(text);
    pk_profile_free(p);

    pk_option opt;
    pk_read_options options = with_option(&opt, "br-backtrace-order", "outermost-first");
    p = read_ok(&b, &options);
    text = stacks_text(p, values, 1, false);
    assert_string_equal(text, "FNMID;A.BR main;FNLEAF 1\n");
    free(text);
    pk_profile_free(p);

    options = with_option(&opt, "br-backtrace-order", "sideways");
    pk_error err;
    assert_int_equal(read_fails(b.data, b.len, &options, &err), PK_ERR_USAGE);
    assert_non_null(strstr(err.message, "sideways"));
    tb_free(&b);
}

static void line_names_keep_the_clause(void **state)
{
    (void)state;
    tb_bytes b = {0};
    build_sampled(&b);
    pk_option opt;
    pk_read_options options = with_option(&opt, "br-names", "line");
    pk_profile *p = read_ok(&b, &options);
    const char *values[] = {"samples"};
    char *text = stacks_text(p, values, 1, false);
    assert_string_equal(text, "MENU.BR:100.1 main 1\n"
                              "MENU.BR:100.3 main;MENU.BR:110.1 FNMENU;MENU.BR:300.1 gosub 1\n"
                              "MENU.BR:120.2 main;LIB.BR:500.1 FNCALC 1\n");
    free(text);

    /* Written back with line names, read the same way: clauses and names survive. */
    size_t size;
    char *data = write_br(p, NULL, &size);
    tb_bytes again = {0};
    tb_raw(&again, data, size);
    pk_profile *q = read_ok(&again, &options);
    char *a = stacks_text(p, values, 1, true), *c = stacks_text(q, values, 1, true);
    assert_string_equal(a, c);
    free(a);
    free(c);
    pk_profile_free(q);
    pk_profile_free(p);
    free(data);
    tb_free(&again);
    tb_free(&b);
}

static void module_mappings_and_unmapped_numbers(void **state)
{
    (void)state;
    tb_bytes b = {0};
    rec_module(&b, 1, "OLD.BR");
    rec_line(&b, 3, 1, 5, 1);
    tb_u8(&b, 6);
    rec_module(&b, 1, "NEW.BR"); /* the number is mapped again */
    rec_line(&b, 3, 1, 5, 1);
    tb_u8(&b, 6);
    rec_line(&b, 3, 9, 7, 1); /* never mapped */
    tb_u8(&b, 8);
    tb_u8(&b, 6);
    pk_profile *p = read_ok(&b, NULL);
    const char *values[] = {"samples"};
    char *text = stacks_text(p, values, 1, false);
    assert_string_equal(text, "NEW.BR 1\nOLD.BR 1\nmodule 9 gosub 1\n");
    free(text);
    assert_true(has_warning(p, "never mapped"));
    pk_profile_free(p);
    tb_free(&b);
}

/* ---- damage -------------------------------------------------------------------------------- */

static void errors_name_the_byte(void **state)
{
    (void)state;
    pk_error err;
    /* Unknown record type (2 is undocumented). */
    tb_bytes b = {0};
    build_sampled(&b);
    size_t at = b.len;
    tb_u8(&b, 2);
    tb_raw(&b, "\0\0\0", 3);
    assert_int_equal(read_fails(b.data, b.len, NULL, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)at);
    assert_string_equal(err.message, "unknown record type 2");
    assert_true(err.salvageable);
    tb_free(&b);

    /* A group that never ends, at the end of the input: the group's offset. */
    build_sampled(&b);
    at = b.len;
    rec_line(&b, 3, 1, 1, 1);
    assert_int_equal(read_fails(b.data, b.len, NULL, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)at);
    assert_non_null(strstr(err.message, "never ends"));
    /* ... or before the next group. */
    rec_line(&b, 3, 1, 2, 1);
    tb_u8(&b, 6);
    assert_int_equal(read_fails(b.data, b.len, NULL, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)at);
    assert_non_null(strstr(err.message, "no end"));
    tb_free(&b);

    /* A name length running past the end. */
    rec_module(&b, 1, "A.BR");
    at = b.len;
    tb_u8(&b, 1);
    tb_u16be(&b, 2);
    tb_u16be(&b, 500);
    tb_str(&b, "short");
    assert_int_equal(read_fails(b.data, b.len, NULL, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)at);
    assert_non_null(strstr(err.message, "module mapping record runs past the end"));
    tb_free(&b);

    /* Records that belong inside a group. */
    rec_module(&b, 1, "A.BR");
    at = b.len;
    tb_u8(&b, 6);
    assert_int_equal(read_fails(b.data, b.len, NULL, &err), PK_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)at);
    assert_string_equal(err.message, "end current line record outside a current line group");
    assert_true(err.salvageable);
    tb_free(&b);
}

static void salvage_keeps_complete_groups(void **state)
{
    (void)state;
    tb_bytes b = {0};
    build_sampled(&b);
    rec_line(&b, 3, 1, 1, 1);
    rec_function(&b, "FNLOST");
    size_t at = b.len;
    tb_u8(&b, 2); /* damage inside the fourth group */
    pk_read_options options = {.salvage = true};
    pk_profile *p = read_ok(&b, &options);
    assert_int_equal(pk_value_total(p, 0), 3);
    char warning[128];
    snprintf(warning, sizeof warning,
             "damaged at byte %zu: unknown record type 2; kept what was read before it", at);
    assert_true(has_warning(p, warning));
    assert_int_equal(pk_warning_count(p), 1);
    for (size_t i = 0; i < pk_function_count(p); i++)
        assert_string_not_equal(pk_str(p, pk_function_at(p, (uint32_t)i)->name), "FNLOST");
    pk_profile_free(p);
    tb_free(&b);
}

static void every_truncation_point(void **state)
{
    (void)state;
    tb_bytes b = {0};
    build_sampled(&b);
    pk_read_options salvage = {.salvage = true};
    for (size_t cut = 0; cut < b.len; cut++) {
        size_t complete = 0;
        bool boundary = cut == sampled_header_end;
        for (size_t g = 0; g < sampled_group_count; g++) {
            if (sampled_group_ends[g] <= cut)
                complete = g + 1;
            if (sampled_group_ends[g] == cut)
                boundary = true;
        }
        /* Cuts between the two mappings are also whole files. */
        if (cut == 19)
            boundary = true;
        pk_profile *p = NULL;
        pk_error err;
        pk_status st = pk_read_memory(b.data, cut, &pk_format_br, NULL, &p, &err);
        if (cut > 0 && boundary) {
            assert_int_equal(st, PK_OK);
            assert_int_equal(pk_value_total(p, 0), (int64_t)complete);
        } else {
            if (st != PK_ERR_INPUT)
                fail_msg("cut at %zu: status %d", cut, st);
            assert_true(err.offset >= 0 && (size_t)err.offset <= cut);
        }
        pk_profile_free(p);
        p = NULL;
        st = pk_read_memory(b.data, cut, &pk_format_br, &salvage, &p, &err);
        if (cut == 0) {
            assert_int_equal(st, PK_ERR_INPUT);
            continue;
        }
        assert_int_equal(st, PK_OK);
        assert_int_equal(pk_value_total(p, 0), (int64_t)complete);
        assert_int_equal(pk_warning_count(p), boundary ? 0 : 1);
        pk_profile_free(p);
    }
    tb_free(&b);
}

/* ---- probe --------------------------------------------------------------------------------- */

static void probe_checks_the_record_sequence(void **state)
{
    (void)state;
    tb_bytes b = {0};
    build_sampled(&b);
    assert_int_equal(pk_format_br.probe(b.data, b.len), PK_PROBE_LIKELY);
    assert_int_equal(pk_format_br.probe(b.data, 30), PK_PROBE_WEAK); /* mappings only */
    int score = 0;
    assert_ptr_equal(pk_format_probe(b.data, b.len, NULL, &score), &pk_format_br);
    /* A group closed that was never opened, a record type 2, a control character in a name,
     * other formats. Damage after a whole group still looks like a damaged BR file. */
    tb_bytes bad = {0};
    rec_module(&bad, 1, "A.BR");
    tb_u8(&bad, 6);
    assert_int_equal(pk_format_br.probe(bad.data, bad.len), PK_PROBE_NO);
    bad.len--;
    rec_line(&bad, 3, 1, 1, 1);
    tb_u8(&bad, 2);
    tb_u8(&bad, 6);
    assert_int_equal(pk_format_br.probe(bad.data, bad.len), PK_PROBE_NO);
    bad.data[bad.len - 2] = 6;
    bad.data[bad.len - 1] = 2;
    assert_int_equal(pk_format_br.probe(bad.data, bad.len), PK_PROBE_WEAK);
    bad.data[bad.len - 1] = 6;
    assert_int_equal(pk_format_br.probe(bad.data, bad.len), PK_PROBE_WEAK);
    tb_free(&bad);
    rec_module(&bad, 1, "A\nBR");
    assert_int_equal(pk_format_br.probe(bad.data, bad.len), PK_PROBE_NO);
    tb_free(&bad);
    static const char sampler[] = "@supersamplerV1.0\n@symboltableV1.1\n@end\n@end\n";
    assert_int_equal(pk_format_br.probe((const uint8_t *)sampler, sizeof sampler - 1), PK_PROBE_NO);
    static const uint8_t gperf[] = {0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x27, 0, 0};
    assert_int_equal(pk_format_br.probe(gperf, sizeof gperf), PK_PROBE_NO);
    static const uint8_t almost[] = {1, 0, 1, 0, 0};
    assert_int_equal(pk_format_br.probe(almost, sizeof almost), PK_PROBE_NO);
    tb_free(&b);
}

/* ---- dump ---------------------------------------------------------------------------------- */

static void dump_lists_records_with_offsets(void **state)
{
    (void)state;
    tb_bytes b = {0};
    build_timed(&b);
    pk_status st;
    pk_error err;
    char *text = dump_text(b.data, b.len, false, &st, &err);
    assert_int_equal(st, PK_OK);
    assert_non_null(strstr(text, "     0  module mapping 7 = \"/srv/app/report.br\"\n"));
    assert_non_null(strstr(text, "    23  current line \"/srv/app/report.br\" line 10 clause 1\n"));
    assert_non_null(strstr(text, "    31  time in line 1500000 ns\n"));
    assert_non_null(strstr(text, "    40  main routine\n"));
    assert_non_null(strstr(text, "    41  end current line (sample 1)\n"));
    assert_non_null(strstr(text, "function name \"FNTOTAL$\"\n"));
    free(text);
    text = dump_text(b.data, b.len, true, &st, &err);
    assert_int_equal(st, PK_OK);
    assert_non_null(strstr(text, "     0  1 module=7 name_length=18 name=\"/srv/app/report.br\"\n"));
    assert_non_null(strstr(text, "    23  3 module=7 line=10 clause=1\n"));
    assert_non_null(strstr(text, "    31  4 nanoseconds=1500000\n"));
    assert_non_null(strstr(text, "    40  9\n"));
    free(text);
    /* Damage stops the listing with an error at its offset. */
    text = dump_text(b.data, 25, false, &st, &err);
    assert_int_equal(st, PK_ERR_INPUT);
    assert_int_equal(err.offset, 23);
    assert_true(err.salvageable);
    assert_non_null(strstr(text, "module mapping 7"));
    assert_null(strstr(text, "current line"));
    free(text);
    /* With salvage the damage is the last line. */
    text = dump_salvaged(b.data, 25, &st);
    assert_int_equal(st, PK_OK);
    assert_non_null(strstr(text, "module mapping 7"));
    assert_non_null(strstr(text, "\n23: damaged: the current line record runs past the end of "
                                 "the input\n"));
    free(text);
    tb_free(&b);
}

/* ---- writer -------------------------------------------------------------------------------- */

static void round_trip_keeps_names_and_totals(void **state)
{
    (void)state;
    tb_bytes b = {0};
    build_sampled(&b);
    pk_profile *p = read_ok(&b, NULL);
    size_t size;
    char *data = write_br(p, NULL, &size);
    tb_bytes again = {0};
    tb_raw(&again, data, size);
    pk_profile *q = read_ok(&again, NULL);
    const char *values[] = {"samples"};
    char *a = stacks_text(p, values, 1, true), *c = stacks_text(q, values, 1, true);
    assert_string_equal(a, c);
    free(a);
    free(c);
    assert_int_equal(pk_format_br.probe(again.data, again.len), PK_PROBE_LIKELY);
    pk_profile_free(p);
    pk_profile_free(q);
    free(data);
    tb_free(&again);
    tb_free(&b);

    build_timed(&b);
    p = read_ok(&b, NULL);
    data = write_br(p, NULL, &size);
    tb_raw(&again, data, size);
    q = read_ok(&again, NULL);
    const char *both[] = {"samples", "time"};
    a = stacks_text(p, both, 2, true);
    c = stacks_text(q, both, 2, true);
    assert_string_equal(a, c);
    assert_string_equal(pk_property_get(q, "br.mode"), "timed");
    free(a);
    free(c);
    pk_profile_free(p);
    pk_profile_free(q);
    free(data);
    tb_free(&again);
    tb_free(&b);
}

/* A profile as another format would give it: two threads, functions without files, with
 * resources and without, a cpu time in microseconds, a sample count, an empty stack. */
static pk_profile *foreign_profile(void)
{
    pk_profile *p = pk_profile_new();
    uint32_t samples = pk_add_value_type(p, "samples", "count");
    uint32_t cpu = pk_add_value_type(p, "cpu", "microseconds");
    pk_set_default_value(p, cpu);
    uint32_t t1 = pk_add_thread(p, pk_intern_cstr(p, "main"), 1, 1);
    uint32_t t2 = pk_add_thread(p, pk_intern_cstr(p, "worker"), 1, 2);
    pk_resource lib = {.name = pk_intern_cstr(p, "libc.so.6"),
                       .path = pk_intern_cstr(p, "/usr/lib/libc.so.6")};
    uint32_t libc = pk_intern_resource(p, &lib);
    pk_function f_main = {.name = pk_intern_cstr(p, "main"), .file = pk_intern_cstr(p, "src/main.c"),
                          .start_line = 3, .resource = PK_NONE};
    pk_function f_work = {.name = pk_intern_cstr(p, "do_work(int, char const*)"),
                          .file = pk_intern_cstr(p, "src/work.cc"), .resource = PK_NONE};
    pk_function f_memcpy = {.name = pk_intern_cstr(p, "memcpy"), .resource = libc};
    pk_function f_anon = {.name = pk_intern_cstr(p, "<anonymous>"), .resource = PK_NONE};
    pk_frame fr_main = {.function = pk_intern_function(p, &f_main), .resource = PK_NONE};
    pk_frame fr_work = {.function = pk_intern_function(p, &f_work), .line = 42,
                        .resource = PK_NONE};
    pk_frame fr_memcpy = {.function = pk_intern_function(p, &f_memcpy), .resource = libc};
    pk_frame fr_anon = {.function = pk_intern_function(p, &f_anon), .resource = PK_NONE};
    uint32_t s_main = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &fr_main));
    uint32_t s_work = pk_intern_stack(p, s_main, pk_intern_frame(p, &fr_work));
    uint32_t s_memcpy = pk_intern_stack(p, s_work, pk_intern_frame(p, &fr_memcpy));
    uint32_t s_anon = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &fr_anon));
    int64_t v[2];
    v[samples] = 3, v[cpu] = 3001;
    pk_add_sample(p, t1, s_memcpy, v);
    v[samples] = 1, v[cpu] = 999;
    pk_add_sample(p, t1, s_work, v);
    v[samples] = 2, v[cpu] = 2000;
    pk_add_sample(p, t2, s_anon, v);
    v[samples] = 1, v[cpu] = 5;
    pk_add_sample(p, t2, PK_NONE, v);
    return p;
}

static void any_profile_can_be_written(void **state)
{
    (void)state;
    pk_profile *p = foreign_profile();
    size_t size;
    char *data = write_br(p, NULL, &size);
    tb_bytes b = {0};
    tb_raw(&b, data, size);
    pk_profile *q = read_ok(&b, NULL);
    assert_string_equal(pk_property_get(q, "br.mode"), "timed");
    assert_int_equal(pk_value_total(q, pk_value_find(q, "samples")), 7);
    assert_int_equal(pk_value_total(q, pk_value_find(q, "time")), 6005000);
    const char *samples[] = {"samples"};
    char *text = stacks_text(q, samples, 1, true);
    /* Functions without lines get a line number of their own within their module. */
    assert_string_equal(text, "(unknown):0 1\n"
                              "<anonymous>:1 2\n"
                              "main:3;do_work(int, char const*):42 1\n"
                              "main:3;do_work(int, char const*):42;memcpy:1 3\n");
    free(text);
    /* The modules are the files (or the library) of the functions. */
    for (size_t i = 0; i < pk_function_count(q); i++) {
        const pk_function *fn = pk_function_at(q, (uint32_t)i);
        if (strcmp(pk_str(q, fn->name), "memcpy") == 0)
            assert_string_equal(pk_str(q, fn->file), "/usr/lib/libc.so.6");
        if (strcmp(pk_str(q, fn->name), "main") == 0)
            assert_string_equal(pk_str(q, fn->file), "src/main.c");
        if (strcmp(pk_str(q, fn->name), "<anonymous>") == 0)
            assert_string_equal(pk_str(q, fn->file), "(unknown)");
    }
    const char *time[] = {"time"};
    text = stacks_text(q, time, 1, false);
    assert_string_equal(text, "(unknown) 5000\n"
                              "<anonymous> 2000000\n"
                              "main;do_work(int, char const*) 999000\n"
                              "main;do_work(int, char const*);memcpy 3001000\n");
    free(text);
    pk_profile_free(q);
    free(data);
    tb_free(&b);

    /* With threads: the thread name is the root frame. */
    pk_write_options options = {.value = PK_NONE, .with_threads = true};
    data = write_br(p, &options, &size);
    tb_raw(&b, data, size);
    q = read_ok(&b, NULL);
    text = stacks_text(q, samples, 1, false);
    assert_string_equal(text, "main;main;do_work(int, char const*) 1\n"
                              "main;main;do_work(int, char const*);memcpy 3\n"
                              "worker 1\n"
                              "worker;<anonymous> 2\n");
    free(text);
    pk_profile_free(q);
    free(data);
    tb_free(&b);

    /* Only the sample count: a sampled file, one group per sample. */
    options = (pk_write_options){.value = 0};
    pk_profile *counts = pk_profile_new();
    pk_add_value_type(counts, "samples", "count");
    pk_function fn = {.name = pk_intern_cstr(counts, "f")};
    pk_frame fr = {.function = pk_intern_function(counts, &fn)};
    uint32_t stack = pk_intern_stack(counts, PK_NONE, pk_intern_frame(counts, &fr));
    uint32_t thread = pk_add_thread(counts, pk_intern_cstr(counts, "t"), -1, -1);
    pk_add_sample_value(counts, thread, stack, 0, 4);
    data = write_br(counts, &options, &size);
    tb_raw(&b, data, size);
    q = read_ok(&b, NULL);
    assert_string_equal(pk_property_get(q, "br.mode"), "sampled");
    text = stacks_text(q, samples, 1, false);
    assert_string_equal(text, "f 4\n");
    free(text);
    pk_profile_free(q);
    pk_profile_free(counts);
    free(data);
    tb_free(&b);
    pk_profile_free(p);
}

/* Reads data (size bytes) as BR; writes what it read as BR again into *again (size *again_size). */
static pk_profile *read_written(const char *data, size_t size, char **again, size_t *again_size)
{
    tb_bytes b = {0};
    tb_raw(&b, data, size);
    pk_profile *q = read_ok(&b, NULL);
    tb_free(&b);
    *again = write_br(q, NULL, again_size);
    return q;
}

/* A BR file read and written again gives the same file: also line 0, of the "(unknown)" stand-in
 * of a sample without a stack and of a frame in a module. (The fuzzer found the stand-in written
 * again at a made-up line 1, the number given to functions that have no line of their own.) */
static void br_written_again_is_the_same(void **state)
{
    (void)state;
    const char *samples[] = {"samples"};
    /* From another format: one pass makes it BR, the next must change nothing. */
    pk_profile *p = foreign_profile();
    size_t size, size2, size3;
    char *once = write_br(p, NULL, &size);
    char *twice, *thrice;
    pk_profile *q = read_written(once, size, &twice, &size2);
    pk_profile *r = read_written(twice, size2, &thrice, &size3);
    char *text_q = stacks_text(q, samples, 1, true), *text_r = stacks_text(r, samples, 1, true);
    assert_string_equal(text_q, text_r);
    assert_non_null(strstr(text_r, "(unknown):0 1\n"));
    assert_int_equal(size2, size3);
    assert_memory_equal(twice, thrice, size2);
    free(text_q);
    free(text_r);
    free(once);
    free(twice);
    free(thrice);
    pk_profile_free(r);
    pk_profile_free(q);
    pk_profile_free(p);

    /* A file with line 0 in a named function and in a bare line of a module. */
    tb_bytes b = {0};
    rec_module(&b, 1, "C:\\APP\\MENU.BR");
    rec_line(&b, 3, 1, 0, 1);
    rec_function(&b, "FNZERO");
    rec_line(&b, 5, 1, 0, 2);
    tb_u8(&b, 6);
    q = read_written((const char *)b.data, b.len, &twice, &size2);
    r = read_written(twice, size2, &thrice, &size3);
    text_q = stacks_text(q, samples, 1, true);
    text_r = stacks_text(r, samples, 1, true);
    assert_string_equal(text_q, "MENU.BR:0;FNZERO:0 1\n");
    assert_string_equal(text_r, text_q);
    free(text_q);
    free(text_r);
    free(twice);
    free(thrice);
    pk_profile_free(r);
    pk_profile_free(q);
    tb_free(&b);
}

/* A file or resource name that starts with a NUL byte has no text to write: the frame goes to
 * the "(unknown)" module. The round-trip fuzzer found such a name (from a gperftools file)
 * written as a module of an empty file, which reads back as a module named "module N": written
 * again, that name became the file, so a second pass changed the profile. */
static void names_starting_with_nul_are_no_file(void **state)
{
    (void)state;
    const char *samples[] = {"samples"};
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    uint32_t t = pk_add_thread(p, pk_intern_cstr(p, "main"), -1, -1);
    pk_resource lib = {.name = pk_intern(p, "\0lib", 4), .path = 0};
    uint32_t res = pk_intern_resource(p, &lib);
    pk_function in_file = {.name = pk_intern_cstr(p, "in_file"),
                           .file = pk_intern(p, "\0src.java", 9), .resource = PK_NONE};
    pk_function in_lib = {.name = pk_intern_cstr(p, "in_lib"), .resource = res};
    pk_frame fr_file = {.function = pk_intern_function(p, &in_file), .line = 7,
                        .resource = PK_NONE};
    pk_frame fr_lib = {.function = pk_intern_function(p, &in_lib), .line = 9, .resource = res};
    uint32_t s_file = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &fr_file));
    uint32_t s_lib = pk_intern_stack(p, s_file, pk_intern_frame(p, &fr_lib));
    int64_t one = 1;
    pk_add_sample(p, t, s_lib, &one);

    size_t size, size2, size3;
    char *once = write_br(p, NULL, &size);
    char *twice, *thrice;
    pk_profile *q = read_written(once, size, &twice, &size2);
    pk_profile *r = read_written(twice, size2, &thrice, &size3);
    char *text_q = stacks_text(q, samples, 1, true), *text_r = stacks_text(r, samples, 1, true);
    assert_string_equal(text_q, "in_file:7;in_lib:9 1\n");
    assert_string_equal(text_r, text_q);
    for (uint32_t i = 0; i < pk_function_count(r); i++)
        assert_string_equal(pk_str(r, pk_function_at(r, i)->file), "(unknown)");
    assert_int_equal(size2, size3);
    assert_memory_equal(twice, thrice, size2);
    free(text_q);
    free(text_r);
    free(once);
    free(twice);
    free(thrice);
    pk_profile_free(r);
    pk_profile_free(q);
    pk_profile_free(p);
}

static void writer_refuses_what_br_cannot_hold(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    uint32_t bytes = pk_add_value_type(p, "alloc-bytes", "bytes");
    pk_function fn = {.name = pk_intern_cstr(p, "malloc")};
    pk_frame fr = {.function = pk_intern_function(p, &fn)};
    uint32_t stack = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &fr));
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "t"), -1, -1);
    pk_add_sample_value(p, thread, stack, bytes, 5000000000LL);
    char *data = NULL;
    size_t size;
    pk_error err;
    pk_write_options options = {.value = PK_NONE};
    assert_int_equal(pk_write_memory(p, &pk_format_br, &options, &data, &size, &err),
                     PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "alloc-bytes"));
    assert_null(data);
    pk_sample_row_add(p, 0, bytes, -5000000001LL);
    assert_int_equal(pk_write_memory(p, &pk_format_br, &options, &data, &size, &err),
                     PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "negative"));
    pk_profile_free(p);
}

/* A BR file is nothing but its sample groups, and an empty file is not a profile: a profile
 * without samples, or whose samples all count 0, is refused with the reason, and nothing is
 * written. */
static void writer_refuses_profiles_without_samples(void **state)
{
    (void)state;
    pk_write_options options = {.value = PK_NONE};
    char *data = NULL;
    size_t size = 0;
    pk_error err;
    for (int values = 0; values < 2; values++) {
        pk_profile *p = pk_profile_new();
        if (values)
            pk_add_value_type(p, "samples", "count");
        pk_add_thread(p, pk_intern_cstr(p, "t"), 1, 1);
        assert_int_equal(pk_write_memory(p, &pk_format_br, &options, &data, &size, &err),
                         PK_ERR_UNSUPPORTED);
        assert_non_null(strstr(err.message, "the profile has no samples"));
        assert_non_null(strstr(err.message, "empty file"));
        assert_null(data);
        pk_profile_free(p);
    }

    pk_profile *p = pk_profile_new();
    uint32_t calls = pk_add_value_type(p, "calls", "count");
    pk_function fn = {.name = pk_intern_cstr(p, "f")};
    pk_frame fr = {.function = pk_intern_function(p, &fn)};
    uint32_t stack = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &fr));
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "t"), -1, -1);
    assert_int_equal(pk_add_sample_value(p, thread, stack, calls, 0), PK_OK);
    assert_int_equal(pk_write_memory(p, &pk_format_br, &options, &data, &size, &err),
                     PK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "no sample has a value of 'calls' above 0"));
    assert_null(data);
    /* One sample is enough. */
    pk_sample_row_add(p, 0, calls, 1);
    assert_int_equal(pk_write_memory(p, &pk_format_br, &options, &data, &size, &err), PK_OK);
    pk_profile *again = NULL;
    pk_read_options strict = {0};
    assert_int_equal(pk_read_memory(data, size, &pk_format_br, &strict, &again, &err), PK_OK);
    assert_int_equal(pk_value_total(again, pk_value_find(again, "samples")), 1);
    pk_profile_free(again);
    free(data);
    pk_profile_free(p);
}

static void long_names_are_cut_at_a_character(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    pk_add_value_type(p, "samples", "count");
    char name[400];
    memset(name, 'a', 254);
    strcpy(name + 254, "\xc3\xa9tail"); /* a two-byte character across byte 255 */
    pk_function fn = {.name = pk_intern_cstr(p, name)};
    pk_frame fr = {.function = pk_intern_function(p, &fn)};
    uint32_t stack = pk_intern_stack(p, PK_NONE, pk_intern_frame(p, &fr));
    pk_add_sample_value(p, pk_add_thread(p, pk_intern_cstr(p, "t"), -1, -1), stack, 0, 1);
    size_t size;
    char *data = write_br(p, NULL, &size);
    tb_bytes b = {0};
    tb_raw(&b, data, size);
    pk_profile *q = read_ok(&b, NULL);
    const pk_frame *f = pk_frame_at(q, pk_stack_leaf(q, pk_sample_stack(q, 0)));
    assert_int_equal(strlen(pk_str(q, pk_function_at(q, f->function)->name)), 254);
    pk_profile_free(q);
    pk_profile_free(p);
    free(data);
    tb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sampled_file_reads_as_documented),
        cmocka_unit_test(timed_file_has_time_as_default),
        cmocka_unit_test(reference_files_read),
        cmocka_unit_test(backtrace_order_is_an_option),
        cmocka_unit_test(line_names_keep_the_clause),
        cmocka_unit_test(module_mappings_and_unmapped_numbers),
        cmocka_unit_test(errors_name_the_byte),
        cmocka_unit_test(salvage_keeps_complete_groups),
        cmocka_unit_test(every_truncation_point),
        cmocka_unit_test(probe_checks_the_record_sequence),
        cmocka_unit_test(dump_lists_records_with_offsets),
        cmocka_unit_test(round_trip_keeps_names_and_totals),
        cmocka_unit_test(any_profile_can_be_written),
        cmocka_unit_test(br_written_again_is_the_same),
        cmocka_unit_test(names_starting_with_nul_are_no_file),
        cmocka_unit_test(writer_refuses_what_br_cannot_hold),
        cmocka_unit_test(writer_refuses_profiles_without_samples),
        cmocka_unit_test(long_names_are_cut_at_a_character),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
