/* SPDX-License-Identifier: MIT */
/* The symbolizer (core/symbolize.h) on programs built here at test time from
 * tests/symbolize/sample.c with the test's compiler: DWARF 4 and 5, PIE and not, a symbol table
 * alone, nothing at all, debug information in a file of its own found through .gnu_debuglink or
 * by build ID, split DWARF (.dwo), assembly with lines but no function entries, and mappings and
 * files that do not fit. Each program is run once and prints the return addresses of its calls
 * with its /proc/self/maps, so that the addresses looked up are where the code really ran. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "commands.h"
#include "model_build.h"
#include "strfmt.h"
#include "core/procmaps.h"
#include "core/symbolize.h"
#include "profkit/profile.h"
#include "profkit/symbolize.h"

#ifndef PK_TEST_CC
#error "PK_TEST_CC names the compiler that builds the sample programs"
#endif

#define MAX_PLACES 16

/* One run of a sample program: the code addresses it recorded and its mappings. */
typedef struct sample_run {
    char *labels[MAX_PLACES];
    uint64_t addresses[MAX_PLACES];
    size_t count;
    pk_procmaps maps;
} sample_run;

/* The directory the programs are built in, and the runs of the ones the tests share. */
static char *dir;
static sample_run dwarf5_run, dwarf4_run, symtab_run;

/* ---- building and running ------------------------------------------------------------------ */

/* Runs a shell script (set -e) in dir; false, with its output shown, when it fails. */
static bool shell(const char *script)
{
    char *command =
        tb_strfmt("cd '%s' && (set -e; %s) > build.log 2>&1 || { cat build.log >&2; exit 1; }",
                  dir, script);
    int status = system(command);
    free(command);
    return status == 0;
}

/* Builds dir/NAME (NAME may be SUBDIR/NAME) from sample.c (and sample_asm.S where it
 * assembles) with compiler cc and extra flags, in the directory of NAME: files the compiler
 * leaves beside the program (.dwo) are then that program's. */
static bool build_with(const char *cc, const char *name, const char *flags, bool with_asm)
{
    const char *src = getenv("PK_SOURCE_DIR");
    char *script = tb_strfmt("mkdir -p \"$(dirname '%s')\" && cd \"$(dirname '%s')\" && "
                             "'%s' -O0 %s %s -o \"$(basename '%s')\" "
                             "'%s/tests/symbolize/sample.c' %s%s%s",
                             name, name, cc, flags, with_asm ? "-DSAMPLE_ASM" : "", name, src,
                             with_asm ? "'" : "", with_asm ? src : "",
                             with_asm ? "/tests/symbolize/sample_asm.S'" : "");
    bool ok = shell(script);
    free(script);
    return ok;
}

/* The same with the test's compiler. */
static bool build(const char *name, const char *flags, bool with_asm)
{
    return build_with(PK_TEST_CC, name, flags, with_asm);
}

static void run_free(sample_run *run)
{
    for (size_t i = 0; i < run->count; i++)
        free(run->labels[i]);
    pk_procmaps_free(&run->maps);
    memset(run, 0, sizeof *run);
}

/* Runs dir/NAME and keeps what it printed. */
static bool run(const char *name, sample_run *out)
{
    memset(out, 0, sizeof *out);
    pk_procmaps_init(&out->maps);
    char *command = tb_strfmt("'%s/%s'", dir, name);
    FILE *f = popen(command, "r");
    free(command);
    if (!f)
        return false;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *space = strrchr(line, ' ');
        if (out->maps.lines == 0 && space && strncmp(space + 1, "0x", 2) == 0 &&
            out->count < MAX_PLACES) {
            *space = '\0';
            out->labels[out->count] = strdup(line);
            out->addresses[out->count++] = strtoull(space + 1, NULL, 16);
        } else if (!pk_procmaps_add_line(&out->maps, line, strlen(line))) {
            pclose(f);
            return false;
        }
    }
    pk_procmaps_finish(&out->maps);
    return pclose(f) == 0 && out->count >= 4;
}

/* The address of the call made from the place labelled label: the return address - 1. */
static uint64_t place(const sample_run *r, const char *label)
{
    for (size_t i = 0; i < r->count; i++)
        if (strcmp(r->labels[i], label) == 0)
            return r->addresses[i] - 1;
    fail_msg("the sample recorded no place '%s'", label);
    return 0;
}

/* The mapping that holds address. */
static const pk_procmap *mapping_of(const sample_run *r, uint64_t address)
{
    size_t i = pk_procmaps_find(&r->maps, address);
    assert_true(i != PK_PROCMAPS_NONE);
    return &r->maps.items[i];
}

/* The line of the source file (under tests/symbolize) marked "at: label". */
static uint32_t line_at(const char *file, const char *label)
{
    char *path = tb_strfmt("%s/tests/symbolize/%s", getenv("PK_SOURCE_DIR"), file);
    char *marker = tb_strfmt("at: %s */", label);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    uint32_t number = 0, found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        number++;
        if (strstr(line, marker))
            found = number;
    }
    fclose(f);
    free(marker);
    free(path);
    assert_true(found > 0);
    return found;
}

static int setup(void **state)
{
    (void)state;
    const char *tmp = getenv("PK_TEST_TMPDIR");
    dir = tb_strfmt("%s/symbolize", tmp ? tmp : "/tmp");
    char *script = tb_strfmt("rm -rf '%s' && mkdir -p '%s'", dir, dir);
    int status = system(script);
    free(script);
    if (status != 0)
        return -1;
    bool ok = build("dwarf5", "-g -gdwarf-5", true) && run("dwarf5", &dwarf5_run) &&
              build("dwarf4", "-g -gdwarf-4 -fno-pie -no-pie", false) &&
              run("dwarf4", &dwarf4_run) && build("symtab", "", false) &&
              run("symtab", &symtab_run);
    return ok ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    run_free(&dwarf5_run);
    run_free(&dwarf4_run);
    run_free(&symtab_run);
    free(dir);
    return 0;
}

/* ---- looking up ---------------------------------------------------------------------------- */

/* The resource of p for the mapping of r that holds address, under path. */
static uint32_t resource_for(pk_profile *p, const sample_run *r, uint64_t address,
                             const char *path, const char *build_id)
{
    const pk_procmap *m = mapping_of(r, address);
    const char *slash = strrchr(path, '/');
    pk_resource res = {pk_intern_cstr(p, slash ? slash + 1 : path), pk_intern_cstr(p, path),
                       pk_intern_cstr(p, build_id ? build_id : ""), m->start, m->limit,
                       m->offset};
    uint32_t id = pk_intern_resource(p, &res);
    assert_true(id != PK_NONE);
    return id;
}

/* What is expected of one frame of a chain. */
typedef struct expected_frame {
    const char *name;
    uint32_t line;  /* 0: not checked */
    const char *file; /* the base name of the frame's file; NULL: not checked */
} expected_frame;

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Looks address up in resource and checks the chain, outermost first. */
static void expect_chain(pk_symbolizer *s, pk_profile *p, uint32_t resource, uint64_t address,
                         const expected_frame *want, size_t count)
{
    const uint32_t *frames;
    size_t n = pk_symbolizer_frames(s, resource, address, &frames);
    if (n != count) {
        for (size_t i = 0; i < n; i++)
            print_message("  frame %zu: %s\n", i, pk_frame_name(p, frames[i]));
        fail_msg("0x%llx: %zu frames, wanted %zu (%s)", (unsigned long long)address, n, count,
                 want[0].name);
    }
    for (size_t i = 0; i < n; i++) {
        const pk_frame *f = pk_frame_at(p, frames[i]);
        const pk_function *fn = pk_function_at(p, f->function);
        assert_string_equal(pk_frame_name(p, frames[i]), want[i].name);
        assert_int_equal(f->address, address);
        assert_int_equal(f->resource, resource);
        assert_int_equal(f->flags, PK_FRAME_HAS_ADDRESS | (i > 0 ? PK_FRAME_INLINED : 0));
        if (want[i].line)
            assert_int_equal(f->line, want[i].line);
        if (want[i].file)
            assert_string_equal(base_name(pk_str(p, fn->file)), want[i].file);
    }
}

/* The chain of the inlined place: outer, middle, innermost, each at the line of its call. */
static void expect_inlined(pk_symbolizer *s, pk_profile *p, uint32_t resource, uint64_t address)
{
    const expected_frame want[3] = {
        {"outer", line_at("sample.c", "middle called"), "sample.c"},
        {"middle", line_at("sample.c", "innermost called"), "sample.c"},
        {"innermost", line_at("sample.c", "inlined"), "sample.c"},
    };
    expect_chain(s, p, resource, address, want, 3);
}

/* Every place of a run named from its debug information. */
static void expect_debug_names(pk_symbolizer *s, pk_profile *p, const sample_run *r,
                               const char *path)
{
    uint64_t a = place(r, "inlined");
    expect_inlined(s, p, resource_for(p, r, a, path, NULL), a);
    a = place(r, "plain");
    const expected_frame plain = {"plain", line_at("sample.c", "plain"), "sample.c"};
    expect_chain(s, p, resource_for(p, r, a, path, NULL), a, &plain, 1);
    a = place(r, "plain again");
    const expected_frame again = {"plain", line_at("sample.c", "plain again"), "sample.c"};
    expect_chain(s, p, resource_for(p, r, a, path, NULL), a, &again, 1);
    a = place(r, "mangled");
    const uint32_t line = line_at("sample.c", "mangled");
    const uint32_t *frames;
    assert_int_equal(pk_symbolizer_frames(s, resource_for(p, r, a, path, NULL), a, &frames), 1);
    /* The debug information names it by its source name, or by its symbol demangled. */
    const char *name = pk_frame_name(p, frames[0]);
    if (strcmp(name, "mangled") != 0)
        assert_string_equal(name, "mangled(int)");
    assert_int_equal(pk_frame_at(p, frames[0])->line, line);
}

static char *path_in_dir(const char *name)
{
    return tb_strfmt("%s/%s", dir, name);
}

/* ---- the tests ----------------------------------------------------------------------------- */

/* DWARF 5 in a position-independent executable: inline chains with the lines of each call,
 * lines of plain functions, and assembly code named from the symbol table with the file and
 * line of its line table. */
static void dwarf5_pie_names_inline_chains_and_lines(void **state)
{
    (void)state;
    char *path = path_in_dir("dwarf5");
    pk_profile *p = pk_profile_new();
    pk_symbolizer *s = pk_symbolizer_new(p, NULL);
    assert_non_null(s);
    expect_debug_names(s, p, &dwarf5_run, path);
    bool has_asm = false;
    for (size_t i = 0; i < dwarf5_run.count; i++)
        has_asm |= strcmp(dwarf5_run.labels[i], "asm") == 0;
    if (has_asm) {
        uint64_t a = place(&dwarf5_run, "asm");
        const expected_frame leaf = {"asm_leaf", line_at("sample_asm.S", "asm"), "sample_asm.S"};
        expect_chain(s, p, resource_for(p, &dwarf5_run, a, path, NULL), a, &leaf, 1);
    }
    /* Each distinct address is looked up once, and every one was named. */
    assert_int_equal(pk_symbolizer_lookups(s), dwarf5_run.count);
    assert_int_equal(pk_symbolizer_resolved(s), dwarf5_run.count);
    pk_symbolizer_free(s);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
    free(path);
}

/* DWARF 4 in a program linked at fixed addresses (no bias); and the same program named from a
 * mapping without addresses (as some profiles record them), whose frames then hold the
 * program's own virtual addresses. */
static void dwarf4_non_pie(void **state)
{
    (void)state;
    char *path = path_in_dir("dwarf4");
    pk_profile *p = pk_profile_new();
    pk_symbolizer *s = pk_symbolizer_new(p, NULL);
    assert_non_null(s);
    expect_debug_names(s, p, &dwarf4_run, path);

    pk_resource res = {pk_intern_cstr(p, "dwarf4"), pk_intern_cstr(p, path), 0, 0, 0, 0};
    res.build_id = pk_intern_cstr(p, "");
    uint32_t unmapped = pk_intern_resource(p, &res);
    expect_inlined(s, p, unmapped, place(&dwarf4_run, "inlined"));
    pk_symbolizer_free(s);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
    free(path);
}

/* Without debug information the symbol table names functions: no lines, one function for the
 * places in one function, C++ symbols demangled. */
static void symbol_table_alone(void **state)
{
    (void)state;
    char *path = path_in_dir("symtab");
    pk_profile *p = pk_profile_new();
    pk_symbolizer *s = pk_symbolizer_new(p, NULL);
    assert_non_null(s);
    uint64_t a = place(&symtab_run, "inlined");
    const expected_frame outer = {"outer", 0, NULL};
    expect_chain(s, p, resource_for(p, &symtab_run, a, path, NULL), a, &outer, 1);
    const uint32_t *frames;
    uint32_t functions[2];
    const char *labels[2] = {"plain", "plain again"};
    for (int i = 0; i < 2; i++) {
        a = place(&symtab_run, labels[i]);
        assert_int_equal(
            pk_symbolizer_frames(s, resource_for(p, &symtab_run, a, path, NULL), a, &frames), 1);
        assert_string_equal(pk_frame_name(p, frames[0]), "plain");
        assert_int_equal(pk_frame_at(p, frames[0])->line, 0);
        functions[i] = pk_frame_at(p, frames[0])->function;
    }
    assert_int_equal(functions[0], functions[1]);
    a = place(&symtab_run, "mangled");
    const expected_frame mangled = {"mangled(int)", 0, NULL};
    expect_chain(s, p, resource_for(p, &symtab_run, a, path, NULL), a, &mangled, 1);
    assert_int_equal(pk_symbolizer_resolved(s), 4);
    pk_symbolizer_free(s);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
    free(path);
}

/* A binary stripped of everything names nothing: its addresses stay addresses, without a
 * warning (the binary was found and fits its mapping). */
static void stripped_binary_leaves_addresses(void **state)
{
    (void)state;
    assert_true(shell("cp symtab stripped && strip --strip-all stripped"));
    char *path = path_in_dir("stripped");
    pk_profile *p = pk_profile_new();
    pk_symbolizer *s = pk_symbolizer_new(p, NULL);
    assert_non_null(s);
    uint64_t a = place(&symtab_run, "plain");
    const uint32_t *frames;
    assert_int_equal(
        pk_symbolizer_frames(s, resource_for(p, &symtab_run, a, path, NULL), a, &frames), 1);
    assert_true(pk_frame_is_unresolved(p, frames[0]));
    char *want = tb_strfmt("0x%llx", (unsigned long long)a);
    assert_string_equal(pk_frame_name(p, frames[0]), want);
    free(want);
    assert_int_equal(pk_symbolizer_resolved(s), 0);
    pk_symbolizer_free(s);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
    free(path);
}

/* Debug information moved to a file of its own, the binary stripped: found next to the binary
 * through .gnu_debuglink, and by build ID under a debug directory
 * (DIR/.build-id/xx/rest.debug). The inline chains prove the DWARF was read. */
static void separate_debug_files(void **state)
{
    (void)state;
    assert_true(shell("mkdir -p linked by-id/bin"
                      " && objcopy --only-keep-debug dwarf5 linked/dwarf5.debug"
                      " && objcopy --strip-all --add-gnu-debuglink=linked/dwarf5.debug dwarf5"
                      " linked/dwarf5"
                      " && objcopy --strip-all dwarf5 by-id/bin/dwarf5"));
    uint64_t a = place(&dwarf5_run, "inlined");

    char *path = path_in_dir("linked/dwarf5");
    pk_profile *p = pk_profile_new();
    pk_symbolizer *s = pk_symbolizer_new(p, NULL);
    assert_non_null(s);
    expect_inlined(s, p, resource_for(p, &dwarf5_run, a, path, NULL), a);
    pk_symbolizer_free(s);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
    free(path);

    /* The build ID of the binary, as the symbolizer reads it, names the debug file. */
    path = path_in_dir("by-id/bin/dwarf5");
    p = pk_profile_new();
    s = pk_symbolizer_new(p, NULL);
    const char *id = pk_symbolizer_build_id(s, pk_resource_at(p, resource_for(p, &dwarf5_run, a,
                                                                               path, NULL)));
    if (!id) {
        pk_symbolizer_free(s);
        pk_profile_free(p);
        free(path);
        skip(); /* linked without a build ID */
        return; /* skip() does not return; said for the analyzers */
    }
    char *debug_dir = path_in_dir("by-id/debug");
    char *script = tb_strfmt("mkdir -p by-id/debug/.build-id/%.2s"
                             " && cp linked/dwarf5.debug by-id/debug/.build-id/%.2s/%s.debug",
                             id, id, id + 2);
    assert_true(shell(script));
    free(script);
    pk_symbolizer_free(s);
    pk_profile_free(p);

    const char *debug_dirs[1] = {debug_dir};
    pk_symbolize_options options = {NULL, 0, debug_dirs, 1};
    p = pk_profile_new();
    s = pk_symbolizer_new(p, &options);
    assert_non_null(s);
    expect_inlined(s, p, resource_for(p, &dwarf5_run, a, path, NULL), a);
    pk_symbolizer_free(s);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
    free(debug_dir);
    free(path);
}

/* Split DWARF: the binary holds skeleton units and the line table, the functions are in a .dwo
 * file beside the objects (DWARF 5 and the GNU form of DWARF 4). Both used to be named from
 * the symbol table alone, without inlined frames (the skeleton units were passed over or
 * walked for functions they do not hold). */
static void split_dwarf_of(const char *cc)
{
    const char *versions[2] = {"5", "4"};
    for (int v = 0; v < 2; v++) {
        char *name = tb_strfmt("split%s-%s/sample", versions[v], base_name(cc));
        char *flags = tb_strfmt("-g -gdwarf-%s -gsplit-dwarf", versions[v]);
        assert_true(build_with(cc, name, flags, false));
        sample_run r;
        assert_true(run(name, &r));
        char *path = path_in_dir(name);
        pk_profile *p = pk_profile_new();
        pk_symbolizer *s = pk_symbolizer_new(p, NULL);
        assert_non_null(s);
        expect_debug_names(s, p, &r, path);
        pk_symbolizer_free(s);
        assert_int_equal(pk_warning_count(p), 0);
        pk_profile_free(p);

        /* Without the .dwo: the symbol table's name, the line table's file and line. */
        char *script = tb_strfmt("rm split%s-%s/*.dwo", versions[v], base_name(cc));
        assert_true(shell(script));
        free(script);
        p = pk_profile_new();
        s = pk_symbolizer_new(p, NULL);
        uint64_t a = place(&r, "inlined");
        const expected_frame outer = {"outer", line_at("sample.c", "inlined"), "sample.c"};
        expect_chain(s, p, resource_for(p, &r, a, path, NULL), a, &outer, 1);
        pk_symbolizer_free(s);
        pk_profile_free(p);
        free(path);
        run_free(&r);
        free(flags);
        free(name);
    }
}

static void split_dwarf(void **state)
{
    (void)state;
    split_dwarf_of(PK_TEST_CC);
}

/* The other compiler's DWARF (gcc and clang differ: clang numbers the primary source file 0 in
 * DWARF 5, uses address and range indexes, and names .dwo files otherwise), when it is here. */
static void other_compiler(void **state)
{
    (void)state;
    const char *other = strstr(base_name(PK_TEST_CC), "clang") ? "gcc" : "clang";
    if (!tb_command_exists(other))
        skip();
    const char *versions[2] = {"5", "4"};
    for (int v = 0; v < 2; v++) {
        char *name = tb_strfmt("%s-dwarf%s", other, versions[v]);
        char *flags = tb_strfmt("-g -gdwarf-%s", versions[v]);
        assert_true(build_with(other, name, flags, false));
        sample_run r;
        assert_true(run(name, &r));
        char *path = path_in_dir(name);
        pk_profile *p = pk_profile_new();
        pk_symbolizer *s = pk_symbolizer_new(p, NULL);
        assert_non_null(s);
        expect_debug_names(s, p, &r, path);
        pk_symbolizer_free(s);
        assert_int_equal(pk_warning_count(p), 0);
        pk_profile_free(p);
        free(path);
        run_free(&r);
        free(flags);
        free(name);
    }
    split_dwarf_of(other);
}

/* A resource like resource_for's, with its fields given. */
static uint32_t resource_at(pk_profile *p, const char *path, const char *build_id, uint64_t start,
                            uint64_t limit, uint64_t offset)
{
    pk_resource res = {pk_intern_cstr(p, base_name(path)), pk_intern_cstr(p, path),
                       pk_intern_cstr(p, build_id), start, limit, offset};
    uint32_t id = pk_intern_resource(p, &res);
    assert_true(id != PK_NONE);
    return id;
}

/* Where binaries are found: under a search directory by their whole path (a sysroot), by build
 * ID in a cache that holds binaries (perf's ~/.debug: .build-id/xx/rest without ".debug"), and
 * from a mapping that starts inside the code segment (a mapping split in two). */
static void binaries_found(void **state)
{
    (void)state;
    uint64_t a = place(&dwarf5_run, "inlined");
    const pk_procmap *m = mapping_of(&dwarf5_run, a);
    char *path = path_in_dir("dwarf5");
    pk_profile *p = pk_profile_new();
    pk_symbolizer *s = pk_symbolizer_new(p, NULL);
    /* The build ID lives as long as the symbolizer. */
    const char *id = pk_symbolizer_build_id(s, pk_resource_at(p, resource_for(p, &dwarf5_run, a,
                                                                               path, NULL)));
    char *id_copy = id ? strdup(id) : NULL;
    pk_symbolizer_free(s);
    pk_profile_free(p);

    char *script = tb_strfmt("mkdir -p sysroot/opt/sample/bin"
                             " && cp dwarf5 sysroot/opt/sample/bin/app"
                             " && mkdir -p cache/.build-id/%.2s"
                             " && cp dwarf5 cache/.build-id/%.2s/%s",
                             id_copy ? id_copy : "00", id_copy ? id_copy : "00",
                             id_copy ? id_copy + 2 : "rest");
    assert_true(shell(script));
    free(script);
    char *sysroot = path_in_dir("sysroot"), *cache = path_in_dir("cache");
    const char *search[3] = {"/nonexistent", sysroot, cache};
    pk_symbolize_options options = {search, 3, NULL, 0};
    p = pk_profile_new();
    s = pk_symbolizer_new(p, &options);
    assert_non_null(s);
    expect_inlined(s, p, resource_at(p, "/opt/sample/bin/app", "", m->start, m->limit, m->offset),
                   a);
    if (id_copy) {
        expect_inlined(s, p, resource_at(p, "", id_copy, m->start, m->limit, m->offset), a);
        /* A pseudo-file named in brackets ("[vdso]") is found by its build ID alone. */
        expect_inlined(s, p, resource_at(p, "[vdso]", id_copy, m->start, m->limit, m->offset),
                       a);
    }
    /* outer lies two pages into the code: a mapping from the second page on still fits. */
    assert_true(a >= m->start + 0x1000);
    expect_inlined(s, p, resource_at(p, path, "", m->start + 0x1000, m->limit, m->offset + 0x1000),
                   a);
    pk_symbolizer_free(s);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
    free(sysroot);
    free(cache);
    free(id_copy);
    free(path);
}

/* Files that cannot name the addresses leave them as addresses, with one warning per file that
 * says why and how many addresses it left: no file, a directory, not ELF, another build ID, no
 * segment at the mapping's offset, a mapping longer than the whole binary. Addresses outside
 * every mapping stay addresses without a warning. */
static void binaries_refused(void **state)
{
    (void)state;
    assert_true(shell("printf 'not a program\\n' > text-file && mkdir -p a-directory"));
    uint64_t a = place(&dwarf5_run, "plain"), b = place(&dwarf5_run, "plain again");
    const pk_procmap *m = mapping_of(&dwarf5_run, a);
    char *path = path_in_dir("dwarf5"), *text = path_in_dir("text-file"),
         *directory = path_in_dir("a-directory");
    const struct {
        const char *path, *build_id;
        uint64_t start, limit, offset;
        const char *warning;
    } cases[] = {
        {"/nonexistent/dwarf5", "", m->start, m->limit, m->offset,
         "/nonexistent/dwarf5: binary not found (see --symbol-path); 2 addresses left unnamed"},
        {directory, "", m->start, m->limit, m->offset, "binary not found"},
        {text, "", m->start, m->limit, m->offset,
         "text-file: not a readable ELF file; 2 addresses left unnamed"},
        {path, "00112233445566778899aabbccddeeff00112233", m->start, m->limit, m->offset,
         "dwarf5: the binary found has another build ID; 2 addresses left unnamed"},
        {path, "", m->start, m->limit, m->offset + 0x100000,
         "dwarf5: the binary found does not match the mapping (another build?)"},
        {path, "", m->start, m->start + (1ull << 30), m->offset,
         "dwarf5: the binary found does not match the mapping (another build?)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_profile *p = pk_profile_new();
        pk_symbolizer *s = pk_symbolizer_new(p, NULL);
        uint32_t r = resource_at(p, cases[i].path, cases[i].build_id, cases[i].start,
                                 cases[i].limit, cases[i].offset);
        const uint64_t addresses[3] = {a, b, a};
        for (int k = 0; k < 3; k++) {
            const uint32_t *frames;
            assert_int_equal(pk_symbolizer_frames(s, r, addresses[k], &frames), 1);
            assert_true(pk_frame_is_unresolved(p, frames[0]));
            assert_int_equal(pk_frame_at(p, frames[0])->resource, r);
        }
        assert_int_equal(pk_symbolizer_lookups(s), 2);
        assert_int_equal(pk_symbolizer_resolved(s), 0);
        pk_symbolizer_free(s);
        assert_int_equal(pk_warning_count(p), 1);
        if (!strstr(pk_warning_at(p, 0), cases[i].warning))
            fail_msg("case %zu: warning '%s', wanted '%s'", i, pk_warning_at(p, 0),
                     cases[i].warning);
        pk_profile_free(p);
    }

    pk_profile *p = pk_profile_new();
    pk_symbolizer *s = pk_symbolizer_new(p, NULL);
    const uint32_t *frames;
    assert_int_equal(pk_symbolizer_frames(s, PK_NONE, a, &frames), 1);
    assert_true(pk_frame_is_unresolved(p, frames[0]));
    assert_int_equal(pk_frame_at(p, frames[0])->resource, PK_NONE);
    pk_symbolizer_free(s);
    assert_int_equal(pk_warning_count(p), 0);
    pk_profile_free(p);
    pk_symbolizer_free(NULL);
    free(path);
    free(text);
    free(directory);
}

/* The name of the only frame of p's only sample row's stack, after the pass. */
static const char *sampled_name(const pk_profile *p)
{
    assert_int_equal(pk_stack_count(p), 1);
    return pk_frame_name(p, pk_stack_leaf(p, 0));
}

/* A profile of one sample at address in resource (path: a JIT map's, a binary's, or NULL for
 * none), with the property saying how unnamed addresses are named (NULL: unset), symbolized
 * with the search directory given; returns the profile made by the pass. */
static pk_profile *symbolize_one(const char *path, uint64_t address, const char *unnamed,
                                 const char *search_dir)
{
    pk_profile *p = pk_profile_new();
    assert_int_not_equal(pk_add_value_type(p, "samples", "count"), PK_NONE);
    uint32_t r = path ? resource_at(p, path, "", 0x7f0000000000, 0x7f0000010000, 0) : PK_NONE;
    pk_function fn = {.name = pk_address_name(p, address), .resource = r};
    pk_frame frame = {pk_intern_function(p, &fn), 0, address, r, PK_FRAME_HAS_ADDRESS};
    uint32_t f = pk_intern_frame(p, &frame);
    uint32_t stack = pk_intern_stack(p, PK_NONE, f);
    uint32_t thread = pk_add_thread(p, pk_intern_cstr(p, "t"), 1, 1);
    const int64_t one[1] = {1};
    assert_int_equal(pk_add_sample(p, thread, stack, one), PK_OK);
    if (unnamed)
        assert_int_equal(pk_property_set(p, PK_UNNAMED_ADDRESSES, unnamed), PK_OK);
    const char *search[1] = {search_dir};
    pk_symbolize_options options = {search, search_dir ? 1 : 0, NULL, 0};
    pk_profile *out;
    pk_error err;
    assert_int_equal(pk_symbolize(p, &options, &out, &err), PK_OK);
    pk_profile_free(p);
    return out;
}

/* JIT code named from a perf-PID.map (core/perf_map.h): found under a search directory by its
 * base name or at its path; an address it does not cover stays unnamed; a missing map is one
 * warning. With the perf.data reader's property, what nothing names is named as perf script
 * names it: [DSO base name], [unknown] outside every mapping. */
static void jit_maps(void **state)
{
    (void)state;
    assert_true(shell("mkdir -p jit && printf '%s\n' '7f0000001000 40 JS:*hot /srv/app.js:1:14' "
                      "'0x7f0000002000 0x10 LazyCompile:warm' 'not a symbol' "
                      "> jit/perf-4242.map"));
    char *jit_dir = path_in_dir("jit"), *map_path = path_in_dir("jit/perf-4242.map");
    pk_profile *out = symbolize_one("/nonexistent/perf-4242.map", 0x7f0000001010, NULL, jit_dir);
    assert_string_equal(sampled_name(out), "JS:*hot /srv/app.js:1:14");
    assert_int_equal(pk_warning_count(out), 0);
    pk_profile_free(out);
    out = symbolize_one(map_path, 0x7f000000200f, NULL, NULL);
    assert_string_equal(sampled_name(out), "LazyCompile:warm");
    pk_profile_free(out);
    /* Between the symbols: the address stays, or is named by the map as perf names it. */
    out = symbolize_one(map_path, 0x7f0000001040, NULL, NULL);
    assert_string_equal(sampled_name(out), "0x7f0000001040");
    pk_profile_free(out);
    out = symbolize_one(map_path, 0x7f0000001040, "perf", NULL);
    assert_string_equal(sampled_name(out), "[perf-4242.map]");
    pk_profile_free(out);
    /* No map: one warning. */
    out = symbolize_one("/nonexistent/perf-4242.map", 0x7f0000001010, "perf", NULL);
    assert_string_equal(sampled_name(out), "[perf-4242.map]");
    assert_int_equal(pk_warning_count(out), 1);
    assert_non_null(strstr(pk_warning_at(out, 0), "JIT symbol map not found"));
    pk_profile_free(out);
    /* A binary not found, and no mapping at all. */
    out = symbolize_one("/nonexistent/libfoo.so", 0x7f0000001010, "perf", NULL);
    assert_string_equal(sampled_name(out), "[libfoo.so]");
    pk_profile_free(out);
    out = symbolize_one(NULL, 0x1234, "perf", NULL);
    assert_string_equal(sampled_name(out), "[unknown]");
    pk_profile_free(out);
    out = symbolize_one(NULL, 0x1234, NULL, NULL);
    assert_string_equal(sampled_name(out), "0x1234");
    pk_profile_free(out);
    free(jit_dir);
    free(map_path);
}

/* What counts as an unresolved frame: an address frame named by "0x" and hex digits, or not
 * named; not a frame without an address, an inlined one, or one named otherwise. */
static void unresolved_frames(void **state)
{
    (void)state;
    pk_profile *p = pk_profile_new();
    const struct {
        const char *name;
        uint32_t flags;
        bool unresolved;
    } cases[] = {
        {"0x4011d6", PK_FRAME_HAS_ADDRESS, true},
        {"0xABCdef0", PK_FRAME_HAS_ADDRESS, true},
        {"", PK_FRAME_HAS_ADDRESS, true},
        {"0x", PK_FRAME_HAS_ADDRESS, false},
        {"0x40g1", PK_FRAME_HAS_ADDRESS, false},
        {"main", PK_FRAME_HAS_ADDRESS, false},
        {"0x4011d6", 0, false},
        {"0x4011d6", PK_FRAME_HAS_ADDRESS | PK_FRAME_INLINED, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pk_profile *one = pk_profile_new();
        uint32_t fn = tb_function(one, cases[i].name, NULL, 0, PK_NONE);
        pk_frame frame = {fn, 0, 0x4011d6, PK_NONE, cases[i].flags};
        uint32_t f = pk_intern_frame(one, &frame);
        if (pk_frame_is_unresolved(one, f) != cases[i].unresolved)
            fail_msg("'%s' with flags %u", cases[i].name, (unsigned)cases[i].flags);
        assert_int_equal(pk_profile_has_unresolved_frames(one), cases[i].unresolved);
        pk_profile_free(one);
    }
    assert_false(pk_profile_has_unresolved_frames(p));
    pk_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dwarf5_pie_names_inline_chains_and_lines),
        cmocka_unit_test(dwarf4_non_pie),
        cmocka_unit_test(symbol_table_alone),
        cmocka_unit_test(stripped_binary_leaves_addresses),
        cmocka_unit_test(separate_debug_files),
        cmocka_unit_test(split_dwarf),
        cmocka_unit_test(other_compiler),
        cmocka_unit_test(binaries_found),
        cmocka_unit_test(binaries_refused),
        cmocka_unit_test(unresolved_frames),
        cmocka_unit_test(jit_maps),
    };
    return cmocka_run_group_tests_name("symbolizer on programs built here", tests, setup,
                                       teardown);
}
