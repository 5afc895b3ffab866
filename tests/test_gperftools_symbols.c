/* SPDX-License-Identifier: MIT */
/* gperftools CPU profiles of a real program built with libprofiler (tests/gperftools/demo.c),
 * named from the program's symbols by profkit alone: a program that moved is found with
 * --symbol-path, the symbolization pass names what a reading without symbols left as addresses,
 * and binaries are found by build ID in debug directories. interop_gperftools_pprof.c compares
 * the same kind of profile with google-pprof, go tool pprof and addr2line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fn_totals.h"
#include "profiled_run.h"
#include "reading.h"
#include "strfmt.h"
#include "core/symbolize.h"
#include "formats/formats.h"
#include "profkit/format.h"
#include "profkit/profile.h"
#include "profkit/symbolize.h"

#ifndef PK_GPERF_DEMO
#error "PK_GPERF_DEMO names the demo program built with libprofiler"
#endif

static const pk_format *const FMT = &pk_format_gperftools;
static const pk_option no_symbols_option[] = {{"no-symbols", ""}};

/* This program's own profile of the demo: other test programs run at the same time write theirs
 * under other names. */
static char *demo_profile_path;

static char *scratch_path(const char *name)
{
    const char *dir = getenv("PK_TEST_TMPDIR");
    return tb_strfmt("%s/%s", dir ? dir : "/tmp", name);
}

static int demo_setup(void **state)
{
    (void)state;
    demo_profile_path = scratch_path("gperftools-symbols-demo.prof");
    return tb_run_profiled(PK_GPERF_DEMO, "4", demo_profile_path) ? 0 : -1;
}

static int demo_teardown(void **state)
{
    (void)state;
    free(demo_profile_path);
    demo_profile_path = NULL;
    return 0;
}

static pk_profile *read_file_with(const char *path, const pk_option *options, size_t count,
                                  pk_status *status, pk_error *err)
{
    return tb_read_file_with(path, FMT, options, count, status, err);
}

/* The whole file, malloc'ed. */
static char *read_whole_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    struct stat st;
    assert_int_equal(fstat(fileno(f), &st), 0);
    char *data = malloc((size_t)st.st_size + 1);
    assert_non_null(data);
    *size = fread(data, 1, (size_t)st.st_size, f);
    assert_int_equal(*size, (size_t)st.st_size);
    fclose(f);
    return data;
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
}

/* The profile with the program's path replaced by another of the same length (returned,
 * malloc'ed): /.../gperftools_demo -> /.../xperftools_demo. */
static char *relocated_profile(const char *to, const char *old_path)
{
    size_t size;
    char *data = read_whole_file(demo_profile_path, &size);
    size_t len = strlen(old_path);
    char *new_path = strdup(old_path);
    assert_non_null(new_path);
    char *base = strrchr(new_path, '/') + 1;
    base[0] = base[0] == 'x' ? 'y' : 'x';
    size_t replaced = 0;
    for (size_t i = 0; i + len <= size; i++)
        if (memcmp(data + i, old_path, len) == 0) {
            memcpy(data + i, new_path, len);
            replaced++;
        }
    assert_true(replaced > 0);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
    free(data);
    return new_path;
}

static void symbol_path_finds_a_moved_binary(void **state)
{
    (void)state;
    char *real = realpath(PK_GPERF_DEMO, NULL);
    assert_non_null(real);
    char *profile = scratch_path("gperftools-moved.prof");
    char *moved = relocated_profile(profile, real);
    const char *base = strrchr(moved, '/') + 1;

    /* Without help the program is missing: one warning, address names, still a profile. */
    pk_status status;
    pk_error err;
    pk_profile *p = read_file_with(profile, NULL, 0, &status, &err);
    assert_non_null(p);
    assert_true(tb_has_warning(p, base));
    assert_true(tb_has_warning(p, "binary not found"));
    tb_fn_totals t = {0};
    tb_fn_totals_add_profile(&t, p, 0);
    assert_null(tb_fn_totals_find(&t, "multiply"));
    tb_fn_totals_free(&t);
    pk_profile_free(p);

    /* --symbol-path DIR with the binary under its base name. */
    char *dir = scratch_path("gperftools-symbols");
    mkdir(dir, 0755);
    char *copy = tb_strfmt("%s/%s", dir, base);
    copy_file(PK_GPERF_DEMO, copy);
    const pk_option options[2] = {{"symbol-path", "/nonexistent"}, {"symbol-path", dir}};
    p = read_file_with(profile, options, 2, &status, &err);
    assert_non_null(p);
    assert_false(tb_has_warning(p, base));
    tb_fn_totals_add_profile(&t, p, 0);
    const tb_fn_total *multiply = tb_fn_totals_find(&t, "multiply");
    assert_non_null(multiply);
    assert_true(multiply->self > 0);
    tb_fn_totals_free(&t);
    pk_profile_free(p);

    /* Another binary under that name does not match the mapping: a warning, no wrong names.
     * Built here with its code at file offset 0 and smaller than a page, so that no segment of
     * it is where the program's code mapping starts (its own segment, after the headers' page):
     * an installed program (/bin/true) may have the same layout as the demo, and without build
     * IDs nothing tells them apart. */
    char *command = tb_strfmt("printf 'int main(void) { return 0; }\\n' | '%s' -x c -O0 -o '%s'"
                              " -Wl,-z,noseparate-code -",
                              PK_TEST_CC, copy);
    assert_int_equal(system(command), 0);
    free(command);
    p = read_file_with(profile, options, 2, &status, &err);
    assert_non_null(p);
    assert_true(tb_has_warning(p, "does not match"));
    pk_profile_free(p);
    unlink(copy);
    free(copy);
    free(dir);
    free(moved);
    free(profile);
    free(real);
}

/* The build ID of a binary, from readelf, malloc'ed; NULL when it has none. */
static char *build_id_of(const char *path)
{
    char *command =
        tb_strfmt("readelf -n '%s' 2>/dev/null | awk '/Build ID/ {print $3}'", path);
    FILE *f = popen(command, "r");
    free(command);
    char *id = NULL;
    size_t cap = 0;
    bool ok = f && getline(&id, &cap, f) > 0;
    if (f)
        pclose(f);
    if (ok)
        id[strcspn(id, "\n")] = '\0';
    if (!ok || strlen(id) <= 2) {
        free(id);
        return NULL;
    }
    return id;
}

static void build_id_finds_the_binary_in_debug_directories(void **state)
{
    (void)state;
    char *id = build_id_of(PK_GPERF_DEMO);
    if (!id)
        skip();
    /* DIR/.build-id/xx/rest.debug holds the program. */
    char *dir = scratch_path("gperftools-debug");
    char *mid = tb_strfmt("%s/.build-id", dir);
    char *sub = tb_strfmt("%s/%.2s", mid, id);
    char *file = tb_strfmt("%s/%s.debug", sub, id + 2);
    mkdir(dir, 0755);
    mkdir(mid, 0755);
    mkdir(sub, 0755);
    copy_file(PK_GPERF_DEMO, file);

    /* The profile's frames in the program, and their names when the binary is at its path. */
    pk_status status;
    pk_error err;
    pk_profile *raw = read_file_with(demo_profile_path, no_symbols_option, 1, &status, &err);
    pk_profile *named = read_file_with(demo_profile_path, NULL, 0, &status, &err);
    assert_non_null(raw);
    assert_non_null(named);
    const pk_resource *demo = NULL;
    for (size_t i = 0; i < pk_resource_count(raw); i++)
        if (strstr(pk_str(raw, pk_resource_at(raw, (uint32_t)i)->path), "gperftools_demo"))
            demo = pk_resource_at(raw, (uint32_t)i);
    assert_non_null(demo);

    for (int mode = 0; mode < 3; mode++) {
        /* 0: the directory as --symbol-path; 1: as the debug directory; 2: the program at its
         * path, but the profile names another build. */
        pk_profile *p = pk_profile_new();
        pk_resource res = *demo;
        res.name = pk_intern_cstr(p, "gperftools_demo");
        res.path = pk_intern_cstr(p, mode == 2 ? pk_str(raw, demo->path)
                                               : "/nonexistent/gperftools_demo");
        res.build_id = pk_intern_cstr(p, mode == 2 ? "0123456789abcdef" : id);
        uint32_t r = pk_intern_resource(p, &res);
        const char *dirs[1] = {dir};
        pk_symbolize_options so = {NULL, 0, NULL, 0};
        if (mode == 0) {
            so.search_dirs = dirs;
            so.search_dir_count = 1;
        } else {
            so.debug_dirs = dirs;
            so.debug_dir_count = 1;
        }
        pk_symbolizer *s = pk_symbolizer_new(p, &so);
        assert_non_null(s);
        size_t checked = 0;
        for (size_t i = 0; i < pk_frame_count(named); i++) {
            const pk_frame *f = pk_frame_at(named, (uint32_t)i);
            if (f->resource == PK_NONE || (f->flags & PK_FRAME_INLINED) ||
                !strstr(pk_str(named, pk_resource_at(named, f->resource)->path), "gperftools_demo"))
                continue;
            const uint32_t *frames;
            size_t n = pk_symbolizer_frames(s, r, f->address, &frames);
            assert_true(n >= 1);
            if (mode == 2) {
                assert_true(pk_frame_is_unresolved(p, frames[n - 1]));
            } else {
                assert_string_equal(pk_frame_name(p, frames[0]), pk_frame_name(named, (uint32_t)i));
                assert_int_equal(pk_frame_at(p, frames[0])->line, f->line);
            }
            checked++;
        }
        assert_true(checked > 5);
        pk_symbolizer_free(s);
        if (mode == 2)
            assert_true(tb_has_warning(p, "has another build ID"));
        else
            assert_int_equal(pk_warning_count(p), 0);
        pk_profile_free(p);
    }
    unlink(file);
    pk_profile_free(raw);
    pk_profile_free(named);
    free(file);
    free(sub);
    free(mid);
    free(dir);
    free(id);
}

/* The pass names frames by their address and mapping alone, whichever reader made them: the
 * addresses of the gperftools reader, and the same addresses after a trip through pprof (written
 * as locations without lines, read back as address frames), give the same functions with the
 * same per-function samples, entry for entry. */
static void symbolize_pass_names_address_frames_of_any_reader(void **state)
{
    (void)state;
    pk_status status;
    pk_error err;
    pk_profile *raw = read_file_with(demo_profile_path, no_symbols_option, 1, &status, &err);
    assert_non_null(raw);
    char *data;
    size_t size;
    assert_int_equal(pk_write_memory(raw, &pk_format_pprof, NULL, &data, &size, &err), PK_OK);
    pk_profile *through_pprof =
        tb_read_memory_with(data, size, &pk_format_pprof, NULL, 0, false, &status, &err);
    free(data);
    assert_non_null(through_pprof);
    pk_profile *named;
    assert_int_equal(pk_symbolize(raw, NULL, &named, &err), PK_OK);
    assert_false(pk_profile_has_unresolved_frames(through_pprof) &&
                 !pk_profile_has_unresolved_frames(named));
    tb_fn_totals a = {0}, b = {0};
    tb_fn_totals_add_profile(&a, named, 0);
    tb_fn_totals_add_profile(&b, through_pprof, 0);
    assert_int_equal(a.count, b.count);
    for (size_t i = 0; i < a.count; i++) {
        const tb_fn_total *x = tb_fn_totals_find(&b, a.items[i].name);
        if (!x)
            fail_msg("%s: named from the gperftools reading only", a.items[i].name);
        if (x->self != a.items[i].self || x->total != a.items[i].total)
            fail_msg("%s: self %lld total %lld from gperftools, self %lld total %lld through "
                     "pprof",
                     a.items[i].name, (long long)a.items[i].self, (long long)a.items[i].total,
                     (long long)x->self, (long long)x->total);
    }
    tb_fn_totals_free(&a);
    tb_fn_totals_free(&b);
    assert_int_equal(pk_value_total(named, 1), pk_value_total(raw, 1));
    assert_int_equal(pk_sample_count(named), pk_sample_count(raw));
    assert_string_equal(pk_property_get(named, "gperftools.word_bits"), "64");
    assert_int_equal(pk_metadata_get(named)->period, pk_metadata_get(raw)->period);
    pk_profile_free(named);
    pk_profile_free(raw);
    pk_profile_free(through_pprof);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(symbol_path_finds_a_moved_binary),
        cmocka_unit_test(symbolize_pass_names_address_frames_of_any_reader),
        cmocka_unit_test(build_id_finds_the_binary_in_debug_directories),
    };
    return cmocka_run_group_tests_name("gperftools with libprofiler", tests, demo_setup,
                                       demo_teardown);
}
